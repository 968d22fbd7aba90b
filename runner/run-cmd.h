/*
 * smmulab: running a scenario — load it, check it, plan it, boot it, report
 * (the run, check, list and resume commands of smmulab-run)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_RUN_CMD_H
#define SMMULAB_RUN_CMD_H

#include <glib.h>

typedef enum {
    SMMULAB_MODE_RUN,           /* boot the plan and report */
    SMMULAB_MODE_CHECK,         /* validate, print the plan and its power */
    SMMULAB_MODE_LIST,          /* one JSON line per boot */
    SMMULAB_MODE_RESUME,        /* the boots an output directory lacks */
} SmmulabMode;

/* The command line's settings (NULL or -1: the scenario's or the default) */
typedef struct SmmulabOpts {
    char *build, *out, *topologies, *seed, *shard, *only;
    gint repeat;
    gboolean trace, no_control, partial;
    gint64 console_cap;
} SmmulabOpts;

/*
 * @arg is the scenario file, or the output directory to resume.  @argv0
 * is the whole command line, for the provenance.  Returns the exit status.
 */
int smmulab_cmd_scenario(SmmulabOpts *o, SmmulabMode mode, const char *arg,
                         int argc0, char **argv0);

#endif
