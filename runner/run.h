/*
 * smmulab: one boot of a scenario run, watched from the console and QMP
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_RUN_H
#define SMMULAB_RUN_H

#include <glib.h>
#include <signal.h>
#include <json-glib/json-glib.h>

#include "kparams.h"
#include "lockup.h"
#include "scenario.h"

typedef struct SmmulabRunSpec {
    const char *qemu;
    const char *kernel;
    const char *initrd;
    const char *topologies;
    const SmmulabScenario *sc;  /* this point's scenario */
    gboolean control;           /* fast hardware: no model property */
    const char *variant_append;
    const char *log_path;       /* console log */
    const char *cmdline_path;   /* the QEMU command line, for people */
    const char *label;          /* for progress lines */
    guint64 console_cap;        /* bytes of console kept (0: 64 MiB) */
    const char *trace_path;     /* QEMU's -D file for the engine's trace
                                   events, or NULL: no timeline */
    guint64 seed;               /* this run's: the guest's smmulab.seed, and
                                   the model's cmdq-seed unless set */
} SmmulabRunSpec;

/* The model's counters at one moment of a run (host seconds from start) */
typedef struct SmmulabSample {
    double t;
    gint64 retired, full, pending, cons_reads_busy;
} SmmulabSample;

/* A console line that matters, and when it came */
typedef struct SmmulabEvent {
    double t;
    const char *kind;           /* "soft lockup", "CMDQ timeout", ... */
} SmmulabEvent;

#define SMMULAB_RUN_MAX_EVENTS 2000

typedef struct SmmulabRun {
    char *verdict;              /* ok error skipped panic timeout qemu-failed
                                   no-result interrupted misconfigured */
    char *detail;               /* one line on what went wrong, or NULL */
    double wall_s;
    guint soft_lockups;         /* "BUG: soft lockup" reports */
    GArray *lockup_cpus;        /* guint reports per CPU number */
    char *first_lockup;         /* the first report, without its time */
    char *first_lockup_fn;      /* the function of its "pc : " line */
    char *kernel_version;       /* from the console's "Linux version" */
    guint cmdq_timeouts;        /* the kernel's count when it has one */
    guint cmd_sync_timeouts;
    gboolean timeouts_exact;    /* counted by the kernel, not the console */
    guint cmdq_timeouts_printed;        /* console lines */
    guint cmd_sync_timeouts_printed;
    guint suppressed;           /* "callbacks suppressed" in the driver */
    gboolean flood;             /* console output over the cap */
    guint64 console_bytes;
    GPtrArray *results;         /* RESULT lines, without "RESULT " */
    double clock_s;             /* seconds since QEMU started, as scanned */
    GArray *samples;            /* SmmulabSample, about one per second */
    GArray *events;             /* SmmulabEvent: lockups and timeouts */
    JsonNode *stats;            /* the model's x-cmdq-stats at the end */
    char *lines_text;           /* x-query-icount-lines at the end */
    JsonNode *lines;            /* that, parsed (smmulab_lines_parse) */
    SmmulabLockups *lockups;    /* every CPU's place at each soft lockup */
    SmmulabRan *ran;            /* what the kernel said it ran */
} SmmulabRun;

/* The QEMU command line of @spec (NULL-terminated), or NULL with @err */
GPtrArray *smmulab_run_argv(const SmmulabRunSpec *spec, const char *qmp_sock,
                            GError **err);

/*
 * Set (by a signal handler) to make the boot in progress kill its QEMU and
 * return at once, with the verdict "interrupted".
 */
extern volatile sig_atomic_t smmulab_run_interrupted;

/* Boot once; NULL only when QEMU could not be started at all */
SmmulabRun *smmulab_run_boot(const SmmulabRunSpec *spec, GError **err);
void smmulab_run_free(SmmulabRun *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmmulabRun, smmulab_run_free)

/* Scan one console line (no newline) into @r, as a live run does */
void smmulab_run_scan_console(SmmulabRun *r, const char *line);
/* After the last line: counts from the kernel's counters, if it printed them */
void smmulab_run_settle_counts(SmmulabRun *r);
/*
 * After the last line: whether the kernel ran each parameter the scenario
 * set (@append: its [guest] append= and the variant's), as
 * smmulab_kparams_verify() tells from the console.  A run that did not is
 * "misconfigured", its detail one line naming the parameter: it counts
 * for nothing in the report.  An interrupted run, and a failed one whose
 * console never printed the kernel's command line, keep their verdict.
 */
void smmulab_run_verify_params(SmmulabRun *r, const char *append);
SmmulabRun *smmulab_run_new(void);

/* key=value of the first RESULT line that has @key (and @with, if set) */
const char *smmulab_result_get(GPtrArray *results, const char *with,
                               const char *key, char *buf, gsize len);

#endif
