/*
 * smmulab: what the report's parts share (runner/report*.c only)
 *
 * A report is made from runs.json alone.  metrics.c knows the metrics and
 * how to read a run's value of one; report.c writes the text and JSON,
 * report-verdict.c the verdicts (statistics wiring), report-svg.c the
 * drawings and report-html.c the page.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_REPORT_INTERNAL_H
#define SMMULAB_REPORT_INTERNAL_H

#include <glib.h>
#include <json-glib/json-glib.h>

typedef enum { AGG_MEAN, AGG_SUM, AGG_MAX } Agg;

typedef struct Metric {
    const char *id;
    const char *label;
    const char *src;        /* result:KEY, stats:KEY, run:KEY, calc:NAME */
    double scale;
    int decimals;
    Agg agg;
} Metric;

typedef struct VerdictSet {
    const char *kind;
    const char *ids[6];
} VerdictSet;

typedef struct Chart {
    const char *kind;
    const char *bars[4];
    const char *bar_title;
    gboolean bar_log;
    const char *line;
} Chart;

typedef struct Column {
    char *name;         /* variant, or control:VARIANT */
    char *variant;
    gboolean control;
} Column;

/* Runs with an event: the two endpoints that are not a metric */
#define REPORT_RUNS_WITH_LOCKUP "runs_with_soft_lockup"
#define REPORT_RUNS_WITH_TIMEOUT "runs_with_timeout"

extern const Metric report_common_metrics[];
extern const char *const report_palette[];
#define REPORT_PALETTE_LEN 8

const char *report_base_kind(const char *kind);
const Metric *report_workload_metrics(const char *kind);
const Metric *report_find_metric(const char *kind, const char *id);
/* The exploratory metric lines of a workload, or NULL */
const VerdictSet *report_verdict_set(const char *kind);
/* The chart of a workload, or NULL */
const Chart *report_chart(const char *kind);

double report_num_member(JsonObject *o, const char *key);
JsonObject *report_member_obj(JsonObject *o, const char *key);
/* One metric of one run, NaN when the run did not produce it */
double report_run_value(JsonObject *run, const Metric *m);

/*
 * Whether the runs of a scenario pair up (design=paired: repeat r of every
 * variant booted with one seed).  runs.json written before design= existed
 * had paired seeds.
 */
gboolean report_paired(JsonObject *sc);

/* Every metric id a primary= takes, as docs/metrics.md (Markdown) */
char *report_metrics_markdown(void);

void report_column_free(gpointer p);
GPtrArray *report_columns_of(JsonObject *sc, JsonArray *runs);
gboolean report_run_matches(JsonObject *run, const Column *c,
                            const char *point);
gboolean report_run_counts(JsonObject *run);
/*
 * A run's outcome as the repeats check compares it (RESULT lines and model
 * counters); free with g_free()
 */
char *report_run_signature(JsonObject *run);
GArray *report_values_of(JsonArray *runs, const Metric *m, const Column *c,
                         const char *point);
double report_aggregate(JsonArray *runs, const Metric *m, const Column *c,
                        const char *point, guint *nruns);
guint report_count_positive(GArray *v);
char *report_fmt(double v, int decimals);
/* A mean: as report_fmt(), with a decimal where a whole number would hide it */
char *report_fmt_mean(double v, int decimals);
/* "[KEY=POINT] " for a sweep point, "" without one */
char *report_point_label(JsonObject *sc, const char *point);

/* report-svg.c */
const char *report_variant_color(GPtrArray *cols, const Column *col);
char *report_svg_chart(JsonObject *sc, JsonArray *runs, GPtrArray *cols,
                       const char *kind);
char *report_cdf_svg(JsonObject *sc, JsonArray *runs, GPtrArray *cols);
void report_timeline_svg(GString *h, JsonObject *run);

/* report-verdict.c */
void report_verdicts(GString *t, JsonBuilder *b, JsonObject *sc,
                     JsonArray *runs, GPtrArray *cols, const char *kind,
                     JsonArray *points, gboolean unreliable);
char *report_control_problems(JsonArray *runs, guint *nctl);
void report_evidence(GString *t, JsonArray *runs);
void report_places(GString *t, JsonBuilder *b, JsonArray *runs);

/* report-html.c: the page, from report.json's root */
char *report_html(JsonObject *report, JsonArray *runs, const char *svg,
                  const char *cdf);

#endif
