/*
 * smmulab: scenario files (configs/NAME.ini)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_SCENARIO_H
#define SMMULAB_SCENARIO_H

#include <glib.h>

/*
 * The design a scenario without design= has: independent (a seed per
 * variant and repeat), chosen from a measurement (docs/scenarios.md,
 * "Paired or independent runs"): at the runner's usual n of 6 the paired
 * test's smallest p is 0.031, so it can decide only when every pair
 * agrees, never within a Holm family of two or more, and it loses power
 * wherever the two variants' runs of one seed correlate less than about
 * 0.4 or the values are often 0 or an event.
 */
#define SMMULAB_DESIGN_PAIRED_DEFAULT FALSE

typedef struct SmmulabVariant {
    char *name;
    char *append;               /* kernel command line of the variant */
    char *kernel;               /* [variant.NAME] kernel=, or NULL */
    char *initrd;               /* [variant.NAME] initrd=, or NULL */
} SmmulabVariant;

typedef struct SmmulabScenario {
    char *file;
    char *name;
    char *description;
    guint repeat;               /* runs per variant and sweep point */
    guint timeout_s;            /* hard limit of one boot */
    gboolean control;           /* also run on fast hardware */

    guint cpus;                 /* 0: the topology's */
    char *memory;               /* NULL: the topology's */
    char *cpu;                  /* NULL: the topology's -cpu model */
    gboolean icount;
    guint icount_shift;
    guint64 quantum_ns;         /* icount's lock-step quanta, 0: off */
    char *quantum_yield;        /* continue, forfeit or NULL: QEMU's */
    guint64 line_ns;            /* a cache line's transfer, 0: free */

    GPtrArray *smmu;            /* "prop=value", model properties */
    char *kernel;               /* NULL: BUILDDIR/guest/Image */
    char *initrd;               /* NULL: BUILDDIR/guest/initramfs.cpio */
    char *append;               /* common kernel command line */
    gint watchdog_thresh;       /* -1: the kernel's default */
    gboolean all_cpu_backtrace; /* every CPU's backtrace at a soft lockup */

    char *workload;             /* the workload kind */
    GPtrArray *params;          /* "smmulab.key=value" guest parameters */
    GPtrArray *topology;        /* "key=value" topology overrides */

    GPtrArray *variants;        /* SmmulabVariant * */
    char *baseline;             /* variant the others are judged against */
    char *primary;              /* the primary endpoint, or NULL */
    guint64 seed;               /* repeats draw their seeds from it */
    gboolean paired;            /* design=paired: repeat r of every variant
                                   shares a seed (common random numbers);
                                   independent: a seed per variant and
                                   repeat */

    char *sweep_group;          /* NULL: no sweep */
    char *sweep_key;
    GPtrArray *sweep_values;
} SmmulabScenario;

/*
 * Load and validate @file.  @topologies is configs/topologies.ini: the
 * workload kinds are its groups.  Errors are one line naming the file,
 * group, key and value.
 */
SmmulabScenario *smmulab_scenario_load(const char *file,
                                       const char *topologies, GError **err);
void smmulab_scenario_free(SmmulabScenario *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmmulabScenario, smmulab_scenario_free)

/*
 * A copy of @s with the sweep key set to @value (validated already; NULL
 * without a sweep); with @control, fast hardware: no model property set
 * (a sweep of a model property is then ignored).
 */
SmmulabScenario *smmulab_scenario_at_point(const SmmulabScenario *s,
                                           const char *value,
                                           gboolean control);

/*
 * The kernel parameters a variant's boots ask for, as the runner checks
 * them: [guest] append= and the variant's own (@variant_append, may be
 * NULL).  The runner's own (console=, smmulab.seed=, the topology's) are
 * not the scenario's and not included.
 */
char *smmulab_scenario_asked(const SmmulabScenario *sc,
                             const char *variant_append);

/* Validate one value of group/key; used for files and sweeps */
gboolean smmulab_scenario_check_value(const char *file, const char *group,
                                      const char *key, const char *value,
                                      GError **err);

#endif
