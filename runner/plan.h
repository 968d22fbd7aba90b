/*
 * smmulab: a scenario's plan, every boot numbered
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_PLAN_H
#define SMMULAB_PLAN_H

#include <glib.h>

#include "scenario.h"

typedef struct SmmulabBoot {
    guint index;                /* 1-based, in the whole plan */
    const char *variant;
    const char *append;
    const char *kernel;         /* the variant's own, or NULL */
    const char *initrd;
    const char *point;          /* sweep value or NULL */
    gboolean control;
    guint rep;
    guint64 seed;               /* smmulab_repeat_seed(scenario seed, rep) */
} SmmulabBoot;

/* Every boot of @sc (strings borrowed from it), numbered from 1 */
GArray *smmulab_plan_make(const SmmulabScenario *sc);

/* Keep only the boots of --shard I/N and --only K,... (either may be NULL) */
gboolean smmulab_plan_select(GArray *plan, const char *shard,
                             const char *only, GError **err);

/* --list: one JSON line per boot */
void smmulab_plan_print_list(GArray *plan, const SmmulabScenario *sc,
                             const char *topologies);

/* --check: the scenario in one line, then each boot */
void smmulab_plan_print_check(GArray *plan, const SmmulabScenario *sc,
                              const char *file);

/*
 * What the scenario's n can detect at its primary endpoint with 80 %
 * power, in one line (printed before running), or NULL without one.
 */
char *smmulab_plan_power(const SmmulabScenario *sc);

#endif
