/*
 * smmulab: scenario reports (text table, JSON, SVG) from recorded runs
 *
 * Everything here works from runs.json alone, so a report can be made
 * again, or checked against golden files, without booting anything.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "abtest.h"
#include "report.h"
#include "smmulab_bench.h"

/* Significance level of the verdicts, and the bootstrap behind intervals */
#define ALPHA 0.05
#define BOOT_ITERS 4000

typedef enum { AGG_MEAN, AGG_SUM, AGG_MAX } Agg;

typedef struct Metric {
    const char *id;
    const char *label;
    const char *src;        /* result:KEY, stats:KEY, run:KEY, calc:NAME */
    double scale;
    int decimals;
    Agg agg;
} Metric;

static const Metric bench_metrics[] = {
    { "ops_per_cpu_s", "map+unmaps per CPU per second",
      "result:ops_per_thread_per_sec", 1, 1, AGG_MEAN },
    { "ops_s", "map+unmaps per second, all CPUs", "result:ops_per_sec", 1, 1,
      AGG_MEAN },
    { "slowest_cpu_ops_s", "slowest CPU, map+unmaps per second",
      "result:min_thread_ops_per_sec", 1, 1, AGG_MEAN },
    { "unmap_mean_us", "unmap latency mean (us)", "result:unmap_mean_ns",
      1e-3, 1, AGG_MEAN },
    { "unmap_p50_us", "unmap latency p50 (us)", "result:unmap_p50_ns", 1e-3,
      1, AGG_MEAN },
    { "unmap_p99_us", "unmap latency p99 (us)", "result:unmap_p99_ns", 1e-3,
      1, AGG_MEAN },
    { "unmap_p999_us", "unmap latency p99.9 (us)", "result:unmap_p999_ns",
      1e-3, 1, AGG_MEAN },
    { "unmap_max_us", "unmap latency max (us)", "result:unmap_max_ns", 1e-3,
      1, AGG_MAX },
    { "map_mean_us", "map latency mean (us)", "result:map_mean_ns", 1e-3, 1,
      AGG_MEAN },
    { "map_p50_us", "map latency p50 (us)", "result:map_p50_ns", 1e-3, 1,
      AGG_MEAN },
    { "map_p99_us", "map latency p99 (us)", "result:map_p99_ns", 1e-3, 1,
      AGG_MEAN },
    { "map_errors", "mapping errors", "result:errors", 1, 0, AGG_SUM },
    { NULL }
};

static const Metric flush_metrics[] = {
    { "ops_per_cpu_s", "IOTLB flushes per CPU per second",
      "result:ops_per_thread_per_sec", 1, 1, AGG_MEAN },
    { "slowest_cpu_ops_s", "slowest CPU, flushes per second",
      "result:min_thread_ops_per_sec", 1, 1, AGG_MEAN },
    { "unmap_mean_us", "flush latency mean (us)", "result:unmap_mean_ns",
      1e-3, 1, AGG_MEAN },
    { "unmap_p50_us", "flush latency p50 (us)", "result:unmap_p50_ns", 1e-3,
      1, AGG_MEAN },
    { "unmap_p99_us", "flush latency p99 (us)", "result:unmap_p99_ns", 1e-3,
      1, AGG_MEAN },
    { "unmap_max_us", "flush latency max (us)", "result:unmap_max_ns", 1e-3,
      1, AGG_MAX },
    { NULL }
};

static const Metric dma_metrics[] = {
    { "map_mean_us", "map latency mean (us)", "result:map_mean_ns", 1e-3, 1,
      AGG_MEAN },
    { "map_stddev_us", "map latency stddev (us)", "result:map_stddev_ns",
      1e-3, 1, AGG_MEAN },
    { "unmap_mean_us", "unmap latency mean (us)", "result:unmap_mean_ns",
      1e-3, 1, AGG_MEAN },
    { "unmap_stddev_us", "unmap latency stddev (us)",
      "result:unmap_stddev_ns", 1e-3, 1, AGG_MEAN },
    { NULL }
};

static const Metric probe_metrics[] = {
    { "enable_ms", "VF enable, all PFs (ms)", "result:enable_total_ms", 1, 1,
      AGG_MEAN },
    { "probe_ms", "VF probe, all PFs (ms)", "result:probe_total_ms", 1, 1,
      AGG_MEAN },
    { "vf_probe_mean_us", "VF probe mean (us)", "result:vf_probe_mean_us", 1,
      1, AGG_MEAN },
    { "vf_probe_p50_us", "VF probe p50 (us)", "result:vf_probe_p50_us", 1, 1,
      AGG_MEAN },
    { "vf_probe_max_us", "VF probe max (us)", "result:vf_probe_max_us", 1, 1,
      AGG_MAX },
    { "vfs_in_groups", "VFs in IOMMU groups", "result:vfs_in_groups", 1, 0,
      AGG_MEAN },
    { NULL }
};

static const Metric group_metrics[] = {
    { "rounds", "rounds (probe all, check groups)", "result:rounds", 1, 0,
      AGG_SUM },
    { "split_slots", "slots split across IOMMU groups", "result:split_slots",
      1, 0, AGG_SUM },
    { "split_rounds", "rounds with a split slot", "result:split_rounds", 1, 0,
      AGG_SUM },
    { "merged_slots", "slots sharing a group with another slot",
      "result:merged_slots", 1, 0, AGG_SUM },
    { "distinct_partitions", "distinct partitions into groups",
      "result:distinct_partitions", 1, 0, AGG_MAX },
    { "seconds", "time, all rounds (s)", "result:seconds", 1, 2, AGG_MEAN },
    { NULL }
};

static const Metric common_metrics[] = {
    { "soft_lockups", "soft lockups", "run:soft_lockups", 1, 0, AGG_SUM },
    { "cmdq_timeouts", "CMDQ timeouts", "run:cmdq_timeouts", 1, 0, AGG_SUM },
    { "cmd_sync_timeouts", "CMD_SYNC timeouts", "run:cmd_sync_timeouts", 1, 0,
      AGG_SUM },
    { "retired", "model: commands retired", "stats:retired", 1, 0,
      AGG_MEAN },
    { "syncs", "model: CMD_SYNCs", "stats:syncs", 1, 0, AGG_MEAN },
    { "full", "model: PROD writes filling the queue", "stats:full", 1, 0,
      AGG_MEAN },
    { "max_pending", "model: most commands pending", "stats:max-pending", 1,
      0, AGG_MAX },
    { "cons_reads_busy", "model: CONS reads while busy",
      "stats:cons-reads-busy", 1, 0, AGG_MEAN },
    { "cmds_per_op", "model: commands per operation", "calc:cmds-per-op", 1, 1,
      AGG_MEAN },
    { "msi_writes", "model: CMD_SYNCs completed by MSI", "stats:msi-writes",
      1, 0, AGG_MEAN },
    { "msi_late_max_us", "model: latest MSI write after due (us)",
      "stats:msi-late-max-ns", 1e-3, 1, AGG_MAX },
    { "max_sync_wait_us", "model: longest CMD_SYNC wait (us)",
      "stats:max-sync-wait-ns", 1e-3, 1, AGG_MAX },
    { "mean_sync_wait_us", "model: mean CMD_SYNC wait (us)",
      "calc:mean-sync-wait", 1e-3, 1, AGG_MEAN },
    /* The kit kernel's own counters (patches/linux 0005, 0006) */
    { "k_shared_waits", "driver: shared lock waits", "kernel:shared_lock_waits",
      1, 0, AGG_MEAN },
    { "k_shared_wait_max_us", "driver: longest shared lock wait (us)",
      "kernel:shared_lock_wait_max_ns", 1e-3, 1, AGG_MAX },
    { "k_shared_retries", "driver: legacy lock cmpxchg retries",
      "kernel:shared_lock_cmpxchg_retries", 1, 0, AGG_MEAN },
    { "k_excl_trylocks", "driver: exclusive trylocks",
      "kernel:exclusive_trylocks", 1, 0, AGG_MEAN },
    { "k_excl_fails", "driver: exclusive trylocks failed",
      "kernel:exclusive_trylock_failures", 1, 0, AGG_MEAN },
    { "k_space_waits", "driver: batches waiting for space",
      "kernel:space_waits", 1, 0, AGG_MEAN },
    { "k_space_polls", "driver: space wait calls", "kernel:space_wait_polls",
      1, 0, AGG_MEAN },
    { "k_space_wait_max_ms", "driver: longest space wait (ms)",
      "kernel:space_wait_max_ns", 1e-6, 1, AGG_MAX },
    { "k_probe_locks", "driver: probe lock acquisitions",
      "kernel:probe_lock_acquisitions", 1, 0, AGG_MEAN },
    { "k_probe_contended", "driver: probe lock contended",
      "kernel:probe_lock_contended", 1, 0, AGG_MEAN },
    { "k_probe_wait_max_us", "driver: longest probe lock wait (us)",
      "kernel:probe_lock_wait_max_ns", 1e-3, 1, AGG_MAX },
    { "k_probe_wait_ms", "driver: probe lock wait, total (ms)",
      "kernel:probe_lock_wait_ns", 1e-6, 1, AGG_MEAN },
    { "k_group_contended", "driver: group formation lock contended",
      "kernel:group_lock_contended", 1, 0, AGG_MEAN },
    { "k_group_wait_ms", "driver: group formation lock wait, total (ms)",
      "kernel:group_lock_wait_ns", 1e-6, 1, AGG_MEAN },
    { "k_cmpxchg_attempts", "driver: space cmpxchg attempts",
      "kernel:cmpxchg_attempts", 1, 0, AGG_MEAN },
    { "k_cmpxchg_failures", "driver: space cmpxchg failures",
      "kernel:cmpxchg_failures", 1, 0, AGG_MEAN },
    { "k_add_reservations", "driver: space reserved by atomic add",
      "kernel:add_reservations", 1, 0, AGG_MEAN },
    { "k_add_space_waits", "driver: add reservations waiting for space",
      "kernel:add_space_waits", 1, 0, AGG_MEAN },
    { "k_walk_flushes", "driver: walk flushes", "kernel:walk_flushes", 1, 0,
      AGG_MEAN },
    { "k_walk_flush_asid", "driver: walk flushes by ASID",
      "kernel:walk_flushes_by_asid", 1, 0, AGG_MEAN },
    { "k_range_inv_asid", "driver: ranges over tlbi_max_pages, by ASID",
      "kernel:range_invalidations_by_asid", 1, 0, AGG_MEAN },
    { NULL }
};

/* Metrics an A/B verdict is given for, beyond lockups and timeouts */
typedef struct VerdictSet {
    const char *kind;
    const char *ids[6];
} VerdictSet;

/* The workload's figures, then the CMDQ's mechanism (kit kernel only) */
#define CMDQ_MECHANISM "cmdq_timeouts", "k_shared_wait_max_us", \
                       "k_space_wait_max_ms"
static const VerdictSet verdict_sets[] = {
    { "map-unmap", { "ops_per_cpu_s", "unmap_p99_us", CMDQ_MECHANISM } },
    { "unmap-storm", { "ops_per_cpu_s", "unmap_p99_us", CMDQ_MECHANISM } },
    { "asid-flush", { "ops_per_cpu_s", "unmap_p99_us", CMDQ_MECHANISM } },
    { "dma-bench", { "map_mean_us", "unmap_mean_us" } },
    { "probe-storm", { "probe_ms", "vf_probe_max_us" } },
    { "group-storm", { "seconds", "k_probe_wait_ms" } },
    { NULL }
};

/* What the chart shows: bars of these ids without a sweep, a line with one */
typedef struct Chart {
    const char *kind;
    const char *bars[4];
    const char *bar_title;
    gboolean bar_log;
    const char *line;
} Chart;

static const Chart charts[] = {
    { "map-unmap", { "unmap_p50_us", "unmap_p99_us", "unmap_p999_us" },
      "unmap latency (us, log scale)", TRUE, "ops_per_cpu_s" },
    { "unmap-storm", { "unmap_p50_us", "unmap_p99_us", "unmap_p999_us" },
      "unmap latency per chunk (us, log scale)", TRUE, "unmap_p99_us" },
    { "dma-bench", { "map_mean_us", "unmap_mean_us" },
      "mean latency (us)", FALSE, "unmap_mean_us" },
    { "probe-storm", { "vf_probe_p50_us", "vf_probe_mean_us",
                       "vf_probe_max_us" },
      "VF probe time (us, log scale)", TRUE, "probe_ms" },
    { "asid-flush", { "unmap_p50_us", "unmap_p99_us", "unmap_max_us" },
      "whole-IOTLB flush latency (us, log scale)", TRUE, "unmap_p99_us" },
    { NULL }
};

/* Topologies of one guest workload report alike: probe-storm-nvme */
static const char *base_kind(const char *kind)
{
    return g_str_has_prefix(kind, "probe-storm") ? "probe-storm" : kind;
}

static const Metric *workload_metrics(const char *kind)
{
    kind = base_kind(kind);
    if (!strcmp(kind, "map-unmap") || !strcmp(kind, "unmap-storm")) {
        return bench_metrics;
    } else if (!strcmp(kind, "dma-bench")) {
        return dma_metrics;
    } else if (!strcmp(kind, "probe-storm")) {
        return probe_metrics;
    } else if (!strcmp(kind, "asid-flush")) {
        return flush_metrics;
    } else if (!strcmp(kind, "group-storm")) {
        return group_metrics;
    }
    return NULL;
}

static const Metric *find_metric(const char *kind, const char *id)
{
    const Metric *lists[] = { workload_metrics(kind), common_metrics };
    int l, i;

    for (l = 0; l < 2; l++) {
        for (i = 0; lists[l] && lists[l][i].id; i++) {
            if (!strcmp(lists[l][i].id, id)) {
                return &lists[l][i];
            }
        }
    }
    return NULL;
}

static double num_member(JsonObject *o, const char *key)
{
    JsonNode *n;

    if (!o || !json_object_has_member(o, key)) {
        return NAN;
    }
    n = json_object_get_member(o, key);
    if (JSON_NODE_TYPE(n) != JSON_NODE_VALUE) {
        return NAN;
    }
    if (json_node_get_value_type(n) == G_TYPE_STRING) {
        char *end;
        const char *s = json_node_get_string(n);
        double d = g_ascii_strtod(s, &end);

        return end != s && !*end ? d : NAN;
    }
    return json_node_get_double(n);
}

static JsonObject *member_obj(JsonObject *o, const char *key)
{
    if (!o || !json_object_has_member(o, key)) {
        return NULL;
    }
    return json_object_get_object_member(o, key);
}

/* One metric of one run, NaN when the run did not produce it */
static double run_value(JsonObject *run, const Metric *m)
{
    const char *colon = strchr(m->src, ':');
    const char *key = colon + 1;
    double v = NAN;

    if (g_str_has_prefix(m->src, "result:")) {
        v = num_member(member_obj(run, "summary"), key);
    } else if (g_str_has_prefix(m->src, "stats:")) {
        v = num_member(member_obj(run, "stats"), key);
    } else if (g_str_has_prefix(m->src, "run:")) {
        v = num_member(run, key);
    } else if (g_str_has_prefix(m->src, "kernel:")) {
        v = num_member(member_obj(run, "kernel"), key);
    } else if (!strcmp(m->src, "calc:mean-sync-wait")) {
        JsonObject *st = member_obj(run, "stats");
        double n = num_member(st, "syncs");

        v = n > 0 ? num_member(st, "total-sync-wait-ns") / n : NAN;
    } else if (!strcmp(m->src, "calc:cmds-per-op")) {
        double ops = num_member(member_obj(run, "summary"), "ops");

        v = ops > 0 ? num_member(member_obj(run, "stats"), "retired") / ops
                    : NAN;
    }
    return isnan(v) ? v : v * m->scale;
}

typedef struct Column {
    char *name;         /* variant, or control:VARIANT */
    char *variant;
    gboolean control;
} Column;

static void column_free(gpointer p)
{
    Column *c = p;

    g_free(c->name);
    g_free(c->variant);
    g_free(c);
}

static gboolean run_matches(JsonObject *run, const Column *c,
                            const char *point)
{
    const char *rp;

    if (strcmp(json_object_get_string_member(run, "variant"), c->variant) ||
        json_object_get_boolean_member(run, "control") != c->control) {
        return FALSE;
    }
    rp = json_object_get_string_member_with_default(run, "point", "");
    /* A control without a point (model sweep) stands for every point */
    if (!point || (c->control && !*rp)) {
        return TRUE;
    }
    return !strcmp(rp, point);
}

/*
 * A run counts towards its cell when it ended ok, or when it showed a
 * soft lockup or timeout: that is evidence even if the run then failed.
 */
static gboolean run_counts(JsonObject *run)
{
    return !strcmp(json_object_get_string_member(run, "verdict"), "ok") ||
           json_object_get_int_member_with_default(run, "soft_lockups", 0) ||
           json_object_get_int_member_with_default(run, "cmdq_timeouts", 0) ||
           json_object_get_int_member_with_default(run, "cmd_sync_timeouts", 0);
}

/* Metric @m of every counting run of column @c at sweep @point */
static GArray *values_of(JsonArray *runs, const Metric *m, const Column *c,
                         const char *point)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
    guint i;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *run = json_array_get_object_element(runs, i);
        double x;

        if (!run_matches(run, c, point) || !run_counts(run)) {
            continue;
        }
        x = run_value(run, m);
        if (!isnan(x)) {
            g_array_append_val(v, x);
        }
    }
    return v;
}

/* Aggregate metric @m over the runs of column @c at sweep @point */
static double aggregate(JsonArray *runs, const Metric *m, const Column *c,
                        const char *point, guint *nruns)
{
    g_autoptr(GArray) v = values_of(runs, m, c, point);
    SmmulabSummary s;

    smmulab_summarize((double *)v->data, v->len, &s);
    if (nruns) {
        *nruns = v->len;
    }
    return m->agg == AGG_SUM ? s.sum : m->agg == AGG_MAX ? s.max : s.mean;
}

static guint count_positive(GArray *v)
{
    guint i, k = 0;

    for (i = 0; i < v->len; i++) {
        k += g_array_index(v, double, i) > 0;
    }
    return k;
}

static char *fmt(double v, int decimals)
{
    if (isnan(v)) {
        return g_strdup("-");
    }
    return g_strdup_printf("%.*f", decimals, v);
}

static GPtrArray *columns_of(JsonObject *sc, JsonArray *runs)
{
    GPtrArray *cols = g_ptr_array_new_with_free_func(column_free);
    JsonArray *vars = json_object_get_array_member(sc, "variants");
    int control;
    guint i, j;

    for (control = 0; control < 2; control++) {
        for (i = 0; i < json_array_get_length(vars); i++) {
            JsonObject *v = json_array_get_object_element(vars, i);
            const char *name = json_object_get_string_member(v, "name");
            gboolean any = FALSE;
            Column *c;

            for (j = 0; j < json_array_get_length(runs); j++) {
                JsonObject *r = json_array_get_object_element(runs, j);

                any |= !strcmp(json_object_get_string_member(r, "variant"),
                               name) &&
                       json_object_get_boolean_member(r, "control") == control;
            }
            if (!any) {
                continue;
            }
            c = g_new0(Column, 1);
            c->variant = g_strdup(name);
            c->control = control;
            c->name = control ? g_strdup_printf("control:%s", name)
                              : g_strdup(name);
            g_ptr_array_add(cols, c);
        }
    }
    return cols;
}

/* Runs of the same variant and point must agree exactly under icount */
static char *determinism(JsonObject *sc, JsonArray *runs, JsonBuilder *b)
{
    g_autoptr(GHashTable) first = g_hash_table_new_full(g_str_hash,
                                                        g_str_equal, g_free,
                                                        g_free);
    g_autoptr(GString) diff = g_string_new(NULL);
    guint i, compared = 0;

    if (!json_object_get_boolean_member(sc, "icount")) {
        json_builder_set_member_name(b, "deterministic");
        json_builder_add_null_value(b);
        return g_strdup("not checked (icount off: times follow the host)");
    }
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        g_autofree char *key = g_strdup_printf("%s|%s|%d",
            json_object_get_string_member(r, "variant"),
            json_object_get_string_member_with_default(r, "point", ""),
            json_object_get_boolean_member(r, "control"));
        g_autoptr(JsonGenerator) gen = json_generator_new();
        JsonNode *lines = json_object_get_member(r, "result_lines");
        JsonNode *stats = json_object_get_member(r, "stats");
        g_autofree char *a = NULL, *s = NULL;
        char *sig;
        const char *prev;

        json_generator_set_root(gen, lines);
        a = json_generator_to_data(gen, NULL);
        if (stats) {
            json_generator_set_root(gen, stats);
            s = json_generator_to_data(gen, NULL);
        }
        sig = g_strconcat(a, "|", s ? s : "", NULL);
        prev = g_hash_table_lookup(first, key);
        if (!prev) {
            g_hash_table_insert(first, g_strdup(key), sig);
            continue;
        }
        compared++;
        if (strcmp(prev, sig) && !diff->len) {
            g_string_append_printf(diff, "variant %s%s%s run %"
                                   G_GINT64_FORMAT " differs from run 1",
                json_object_get_string_member(r, "variant"),
                json_object_get_string_member_with_default(r, "point", "")[0] ?
                    " point " : "",
                json_object_get_string_member_with_default(r, "point", ""),
                json_object_get_int_member(r, "rep"));
        }
        g_free(sig);
    }
    json_builder_set_member_name(b, "deterministic");
    if (!compared) {
        json_builder_add_null_value(b);
        return g_strdup("not checked (one run per variant)");
    }
    json_builder_add_boolean_value(b, diff->len == 0);
    if (diff->len) {
        return g_strdup_printf("NO: %s", diff->str);
    }
    return g_strdup_printf("yes: %u repeated runs identical to the first "
                           "(RESULT lines and model counters)", compared);
}

static void text_row(GString *t, const char *label, GPtrArray *cells,
                     guint ncols, guint split)
{
    guint i;

    g_string_append_printf(t, "%-40s", label);
    for (i = 0; i < ncols; i++) {
        if (i == split && split) {
            g_string_append(t, " |");
        }
        g_string_append_printf(t, " %21s", (char *)g_ptr_array_index(cells, i));
    }
    g_string_append_c(t, '\n');
}

/* ---- SVG ---- */

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f",
};

static void svg_text(GString *s, double x, double y, const char *anchor,
                     int size, const char *text)
{
    g_autofree char *esc = g_markup_escape_text(text, -1);

    g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
                           "text-anchor=\"%s\">%s</text>\n", x, y, size,
                           anchor, esc);
}

static double axis_max(double v)
{
    double p = pow(10, floor(log10(v > 0 ? v : 1)));
    double m[] = { 1, 2, 2.5, 5, 10 };
    int i;

    for (i = 0; i < 5; i++) {
        if (v <= m[i] * p) {
            return m[i] * p;
        }
    }
    return 10 * p;
}

/* The range of @m over the counting runs of @c at @point: FALSE if < 2 */
static gboolean spread(JsonArray *runs, const Metric *m, const Column *c,
                       const char *point, double *lo, double *hi)
{
    g_autoptr(GArray) v = values_of(runs, m, c, point);
    SmmulabSummary s;

    smmulab_summarize((double *)v->data, v->len, &s);
    *lo = s.min;
    *hi = s.max;
    return s.n > 1 && s.min < s.max;
}

/* A variant's colour, the same for its control */
static const char *variant_color(GPtrArray *cols, const Column *col)
{
    guint c, k = 0;

    for (c = 0; c < cols->len; c++) {
        const Column *o = g_ptr_array_index(cols, c);

        if (!o->control) {
            if (!strcmp(o->variant, col->variant)) {
                return palette[k % G_N_ELEMENTS(palette)];
            }
            k++;
        }
    }
    return palette[k % G_N_ELEMENTS(palette)];
}

/* A vertical min..max bar with caps, between y1 and y2, at x */
static void error_bar(GString *s, double x, double y1, double y2)
{
    g_string_append_printf(s, "<path class=\"range\" d=\"M%.1f %.1fV%.1f"
                           "M%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"black\" "
                           "stroke-width=\"1\" fill=\"none\"/>\n",
                           x, y1, y2, x - 3, y1, x + 3, x - 3, y2, x + 3);
}

static char *svg_chart(JsonObject *sc, JsonArray *runs, GPtrArray *cols,
                       const char *kind)
{
    const Chart *ch = NULL;
    GString *s = g_string_new(NULL);
    const double W = 760, H = 420, L = 80, R = 20, T = 50, B = 90;
    const double pw = W - L - R, ph = H - T - B;
    JsonArray *points = json_object_has_member(sc, "sweep_values") ?
        json_object_get_array_member(sc, "sweep_values") : NULL;
    g_autofree char *title = NULL;
    int i;
    guint c, p;

    for (i = 0; charts[i].kind; i++) {
        if (!strcmp(charts[i].kind, base_kind(kind))) {
            ch = &charts[i];
        }
    }
    g_string_append_printf(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                           "width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\">\n", W, H);
    g_string_append_printf(s, "<rect width=\"%.0f\" height=\"%.0f\" "
                           "fill=\"white\"/>\n", W, H);
    if (!ch) {
        svg_text(s, W / 2, H / 2, "middle", 14, "no chart for this workload");
        g_string_append(s, "</svg>\n");
        return g_string_free(s, FALSE);
    }

    if (points && json_array_get_length(points)) {
        /* Sweep: one line per variant over the points */
        const Metric *m = find_metric(kind, ch->line);
        guint np = json_array_get_length(points), nv = 0;
        double vmax = 0;

        for (c = 0; c < cols->len; c++) {
            Column *col = g_ptr_array_index(cols, c);

            for (p = 0; p < np; p++) {
                const char *pt = json_array_get_string_element(points, p);
                double v = aggregate(runs, m, col, pt, NULL), lo, hi;

                if (!isnan(v)) {
                    vmax = MAX(vmax, v);
                }
                if (spread(runs, m, col, pt, &lo, &hi)) {
                    vmax = MAX(vmax, hi);
                }
            }
        }
        vmax = axis_max(vmax);
        title = g_strdup_printf("%s: %s by %s",
                                json_object_get_string_member(sc, "name"),
                                m->label,
                                json_object_get_string_member(sc, "sweep_key"));
        svg_text(s, W / 2, 28, "middle", 16, title);
        for (i = 0; i <= 5; i++) {
            double y = T + ph - ph * i / 5;
            g_autofree char *lab = fmt(vmax * i / 5, vmax >= 50 ? 0 : 1);

            g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                   "y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y,
                                   L + pw, y);
            svg_text(s, L - 6, y + 4, "end", 11, lab);
        }
        for (p = 0; p < np; p++) {
            double x = L + pw * (p + 0.5) / np;

            svg_text(s, x, T + ph + 18, "middle", 11,
                     json_array_get_string_element(points, p));
        }
        svg_text(s, L + pw / 2, T + ph + 38, "middle", 12,
                 json_object_get_string_member(sc, "sweep_key"));
        g_string_append_printf(s, "<text x=\"16\" y=\"%.1f\" font-size=\"11\" "
                               "text-anchor=\"middle\" transform=\"rotate(-90 16 "
                               "%.1f)\">%s</text>\n", T + ph / 2, T + ph / 2,
                               m->label);
        /* variants solid, their controls dashed and paler; bars: min..max */
        for (c = 0; c < cols->len; c++) {
            Column *col = g_ptr_array_index(cols, c);
            const char *color = variant_color(cols, col);
            g_autoptr(GString) path = g_string_new(NULL);
            double lx = L + 10 + (pw - 10) * nv / cols->len;

            for (p = 0; p < np; p++) {
                const char *pt = json_array_get_string_element(points, p);
                double v = aggregate(runs, m, col, pt, NULL);
                double x = L + pw * (p + 0.5) / np, y, lo, hi;

                if (isnan(v)) {
                    continue;
                }
                y = T + ph - ph * v / vmax;
                g_string_append_printf(path, "%s%.1f,%.1f", path->len ? " " : "",
                                       x, y);
                g_string_append_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" "
                                       "r=\"4\" fill=\"%s\"%s/>\n", x, y, color,
                                       col->control ? " fill-opacity=\"0.45\"" : "");
                if (spread(runs, m, col, pt, &lo, &hi)) {
                    error_bar(s, x, T + ph - ph * lo / vmax,
                              T + ph - ph * hi / vmax);
                }
            }
            g_string_append_printf(s, "<polyline points=\"%s\" fill=\"none\" "
                                   "stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                                   path->str, color, col->control ?
                                   " stroke-dasharray=\"6 4\" stroke-opacity=\"0.6\"" : "");
            g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                                   "height=\"12\" fill=\"%s\"%s/>\n",
                                   lx, H - 28, color,
                                   col->control ? " fill-opacity=\"0.45\"" : "");
            svg_text(s, lx + 16, H - 18, "start", 11, col->name);
            nv++;
        }
    } else {
        /* Bars: for each column, one bar per chart metric */
        guint nm = 0, ncol = cols->len;
        double vmax = 0, vmin = INFINITY, lo, hi;

        while (nm < G_N_ELEMENTS(ch->bars) && ch->bars[nm]) {
            nm++;
        }
        for (c = 0; c < ncol; c++) {
            for (i = 0; i < (int)nm; i++) {
                const Metric *bm = find_metric(kind, ch->bars[i]);
                double v = aggregate(runs, bm, g_ptr_array_index(cols, c),
                                     NULL, NULL), rlo, rhi;

                if (!isnan(v) && v > 0) {
                    vmax = MAX(vmax, v);
                    vmin = MIN(vmin, v);
                }
                if (spread(runs, bm, g_ptr_array_index(cols, c), NULL, &rlo,
                           &rhi) && rlo > 0) {
                    vmax = MAX(vmax, rhi);
                    vmin = MIN(vmin, rlo);
                }
            }
        }
        if (ch->bar_log) {
            lo = vmax > 0 ? floor(log10(vmin)) : 0;
            hi = vmax > 0 ? ceil(log10(vmax)) : 1;
            if (hi <= lo) {
                hi = lo + 1;
            }
        } else {
            lo = 0;
            hi = axis_max(vmax);
        }
        title = g_strdup_printf("%s: %s",
                                json_object_get_string_member(sc, "name"),
                                ch->bar_title);
        svg_text(s, W / 2, 28, "middle", 16, title);
        for (i = 0; i <= (ch->bar_log ? (int)(hi - lo) : 5); i++) {
            double frac = ch->bar_log ? i / (hi - lo) : i / 5.0;
            double y = T + ph - ph * frac;
            g_autofree char *lab = ch->bar_log ?
                fmt(pow(10, lo + i), lo + i < 0 ? (int)-(lo + i) : 0) :
                fmt(hi * frac, hi >= 50 ? 0 : 1);

            g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                   "y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y,
                                   L + pw, y);
            svg_text(s, L - 6, y + 4, "end", 11, lab);
        }
        for (c = 0; c < ncol; c++) {
            Column *col = g_ptr_array_index(cols, c);
            double gx = L + pw * c / ncol, gw = pw / ncol;
            double bw = gw * 0.8 / nm;

            for (i = 0; i < (int)nm; i++) {
                double v = aggregate(runs, find_metric(kind, ch->bars[i]), col,
                                     NULL, NULL);
                double frac, x = gx + gw * 0.1 + bw * i;

                if (isnan(v) || v <= 0) {
                    continue;
                }
                frac = ch->bar_log ? (log10(v) - lo) / (hi - lo) : v / hi;
                frac = CLAMP(frac, 0, 1);
                g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" "
                                       "width=\"%.1f\" height=\"%.1f\" "
                                       "fill=\"%s\"%s/>\n", x,
                                       T + ph - ph * frac, bw * 0.9,
                                       ph * frac, palette[i],
                                       col->control ? " fill-opacity=\"0.45\"" : "");
                {
                    double rlo, rhi;

                    /* the repeats' range, within the axis */
                    if (spread(runs, find_metric(kind, ch->bars[i]), col, NULL,
                               &rlo, &rhi) && rlo > 0) {
                        double f1 = ch->bar_log ?
                            (log10(rlo) - lo) / (hi - lo) : rlo / hi;
                        double f2 = ch->bar_log ?
                            (log10(rhi) - lo) / (hi - lo) : rhi / hi;

                        error_bar(s, x + bw * 0.45,
                                  T + ph - ph * CLAMP(f1, 0, 1),
                                  T + ph - ph * CLAMP(f2, 0, 1));
                    }
                }
            }
            svg_text(s, gx + gw / 2, T + ph + 18, "middle", 11, col->name);
        }
        for (i = 0; i < (int)nm; i++) {
            const Metric *m = find_metric(kind, ch->bars[i]);

            g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                                   "height=\"12\" fill=\"%s\"/>\n",
                                   L + 10 + 220 * i, H - 28, palette[i]);
            svg_text(s, L + 28 + 220 * i, H - 18, "start", 12, m->label);
        }
    }
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T + ph,
                           L + pw, T + ph);
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T, L, T + ph);
    g_string_append(s, "</svg>\n");
    return g_string_free(s, FALSE);
}

/* ---- the text table and JSON ---- */

/*
 * One cell: for counts "total (k/n)", k the runs with any; else the mean,
 * and the range when there are several runs.  The JSON gets all of it.
 */
static char *cell(JsonBuilder *b, const Metric *m, GArray *v)
{
    SmmulabSummary s;
    g_autofree char *mean = NULL, *lo = NULL, *hi = NULL;

    smmulab_summarize((double *)v->data, v->len, &s);
    if (b) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "n");
        json_builder_add_int_value(b, s.n);
        if (s.n) {
            json_builder_set_member_name(b, "mean");
            json_builder_add_double_value(b, s.mean);
            json_builder_set_member_name(b, "min");
            json_builder_add_double_value(b, s.min);
            json_builder_set_member_name(b, "max");
            json_builder_add_double_value(b, s.max);
            if (m->agg == AGG_SUM) {
                json_builder_set_member_name(b, "total");
                json_builder_add_double_value(b, s.sum);
                json_builder_set_member_name(b, "runs_with");
                json_builder_add_int_value(b, count_positive(v));
            }
        }
        json_builder_end_object(b);
    }
    if (!s.n) {
        return g_strdup("-");
    }
    if (m->agg == AGG_SUM) {
        return g_strdup_printf("%.*f (%u/%u)", m->decimals, s.sum,
                               count_positive(v), (guint)s.n);
    }
    mean = fmt(s.mean, m->decimals);
    if (s.n == 1 || s.min == s.max) {
        return g_steal_pointer(&mean);
    }
    lo = fmt(s.min, m->decimals);
    hi = fmt(s.max, m->decimals);
    return g_strdup_printf("%s [%s..%s]", mean, lo, hi);
}

static void add_table(GString *t, JsonBuilder *b, JsonArray *runs,
                      GPtrArray *cols, const Metric *list, const char *point)
{
    guint c, split = 0;
    int i;

    for (c = 0; c < cols->len; c++) {
        if (((Column *)g_ptr_array_index(cols, c))->control && !split) {
            split = c;
        }
    }
    for (i = 0; list[i].id; i++) {
        g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func(g_free);
        gboolean any = FALSE;

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "metric");
        json_builder_add_string_value(b, list[i].id);
        json_builder_set_member_name(b, "label");
        json_builder_add_string_value(b, list[i].label);
        if (point) {
            json_builder_set_member_name(b, "point");
            json_builder_add_string_value(b, point);
        }
        json_builder_set_member_name(b, "values");
        json_builder_begin_object(b);
        for (c = 0; c < cols->len; c++) {
            Column *col = g_ptr_array_index(cols, c);
            g_autoptr(GArray) v = values_of(runs, &list[i], col, point);

            json_builder_set_member_name(b, col->name);
            g_ptr_array_add(cells, cell(b, &list[i], v));
            any |= v->len > 0;
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
        if (any) {
            text_row(t, list[i].label, cells, cols->len, split);
        }
    }
}

static void header_row(GString *t, GPtrArray *cols, const char *first)
{
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    guint c, split = 0;

    for (c = 0; c < cols->len; c++) {
        Column *col = g_ptr_array_index(cols, c);

        g_ptr_array_add(names, col->name);
        if (col->control && !split) {
            split = c;
        }
    }
    text_row(t, first, names, cols->len, split);
}

/*
 * A sweep's summary: one row per point, one column per variant, for the
 * chart's metric and the lockup and timeout counts.
 */
static void sweep_summary(GString *t, JsonObject *sc, JsonArray *runs,
                          GPtrArray *cols, const char *kind, JsonArray *points)
{
    const char *ids[] = { NULL, "soft_lockups", "cmdq_timeouts" };
    int i, k;
    guint p;

    for (i = 0; charts[i].kind; i++) {
        if (!strcmp(charts[i].kind, base_kind(kind))) {
            ids[0] = charts[i].line;
        }
    }
    for (k = 0; k < (int)G_N_ELEMENTS(ids); k++) {
        const Metric *m = ids[k] ? find_metric(kind, ids[k]) : NULL;
        g_autofree char *head = NULL;

        if (!m) {
            continue;
        }
        head = g_strdup_printf("%s by %s", m->label,
                               json_object_get_string_member(sc, "sweep_key"));
        header_row(t, cols, head);
        for (p = 0; p < json_array_get_length(points); p++) {
            const char *pt = json_array_get_string_element(points, p);
            g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func(g_free);
            g_autofree char *label = g_strdup_printf("  %s", pt);
            guint c, split = 0;

            for (c = 0; c < cols->len; c++) {
                Column *col = g_ptr_array_index(cols, c);

                if (col->control && !split) {
                    split = c;
                }
                g_autoptr(GArray) v = values_of(runs, m, col, pt);

                g_ptr_array_add(cells, cell(NULL, m, v));
            }
            text_row(t, label, cells, cols->len, split);
        }
        g_string_append_c(t, '\n');
    }
}

/* ---- latency distributions, from the guest's whole histograms ---- */

/* Add the "hist=@what" RESULT line of @run into @hist (bucket counts) */
static gboolean add_hist(JsonObject *run, const char *what, guint64 *hist)
{
    JsonArray *lines = json_object_has_member(run, "result_lines") ?
        json_object_get_array_member(run, "result_lines") : NULL;
    g_autofree char *key = g_strdup_printf(" hist=%s buckets=", what);
    gboolean found = FALSE;
    guint i;

    for (i = 0; lines && i < json_array_get_length(lines); i++) {
        const char *l = json_array_get_string_element(lines, i);
        const char *p = strstr(l, key);

        if (!g_str_has_prefix(l, "workload=") || !p) {
            continue;
        }
        p += strlen(key);
        while (*p && *p != '-') {
            char *end;
            guint64 idx = g_ascii_strtoull(p, &end, 10), n;

            if (*end != ':') {
                break;
            }
            n = g_ascii_strtoull(end + 1, &end, 10);
            if (idx < SMMULAB_HIST_BUCKETS) {
                hist[idx] += n;
                found = TRUE;
            }
            p = *end == ',' ? end + 1 : end;
            if (!*end || *end == ' ') {
                break;
            }
        }
    }
    return found;
}

/*
 * The distribution of unmap (or flush) latency per column, over all its
 * runs: the fraction of operations at or below each bucket's top, on a log
 * axis; controls dashed.  NULL when no run kept its histogram.
 */
static char *cdf_svg(JsonObject *sc, JsonArray *runs, GPtrArray *cols)
{
    const double W = 760, H = 420, L = 70, R = 20, T = 50, B = 90;
    const double pw = W - L - R, ph = H - T - B;
    g_autofree guint64 *all = g_new0(guint64, (gsize)SMMULAB_HIST_BUCKETS *
                                     cols->len);
    gboolean any = FALSE;
    double xmin = INFINITY, xmax = 0, lo, hi;
    GString *s;
    guint c, i, j;
    g_autofree char *title = NULL;

    for (c = 0; c < cols->len; c++) {
        guint64 *h = all + (gsize)SMMULAB_HIST_BUCKETS * c;

        for (i = 0; i < json_array_get_length(runs); i++) {
            JsonObject *r = json_array_get_object_element(runs, i);

            if (run_matches(r, g_ptr_array_index(cols, c), NULL) &&
                run_counts(r)) {
                any |= add_hist(r, "unmap", h);
            }
        }
        for (j = 0; j < SMMULAB_HIST_BUCKETS; j++) {
            if (h[j]) {
                xmin = MIN(xmin, smmulab_hist_top(j) / 1e3);
                xmax = MAX(xmax, smmulab_hist_top(j) / 1e3);
            }
        }
    }
    if (!any) {
        return NULL;
    }
    lo = floor(log10(MAX(xmin, 1e-3)));
    hi = ceil(log10(MAX(xmax, 1e-3)));
    if (hi <= lo) {
        hi = lo + 1;
    }
    s = g_string_new(NULL);
    g_string_append_printf(s, "<svg class=\"cdf\" xmlns=\"http://www.w3.org/2000/svg\" "
                           "width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\">\n", W, H);
    g_string_append_printf(s, "<rect width=\"%.0f\" height=\"%.0f\" "
                           "fill=\"white\"/>\n", W, H);
    title = g_strdup_printf("%s: distribution of unmap latency, all runs",
                            json_object_get_string_member(sc, "name"));
    svg_text(s, W / 2, 28, "middle", 16, title);
    for (i = 0; i <= 4; i++) {
        double y = T + ph - ph * i / 4;
        g_autofree char *lab = g_strdup_printf("%.2f", i / 4.0);

        g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, L + pw, y);
        svg_text(s, L - 6, y + 4, "end", 11, lab);
    }
    for (i = 0; i <= (guint)(hi - lo); i++) {
        double x = L + pw * i / (hi - lo);
        g_autofree char *lab = fmt(pow(10, lo + i), lo + i < 0 ? (int)-(lo + i) : 0);

        g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#eee\"/>\n", x, T, x, T + ph);
        svg_text(s, x, T + ph + 16, "middle", 11, lab);
    }
    svg_text(s, L + pw / 2, T + ph + 34, "middle", 12,
             "unmap latency (us, log scale)");
    g_string_append_printf(s, "<text x=\"16\" y=\"%.1f\" font-size=\"12\" "
                           "text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">"
                           "fraction of unmaps at or below</text>\n", T + ph / 2,
                           T + ph / 2);
    for (c = 0; c < cols->len; c++) {
        Column *col = g_ptr_array_index(cols, c);
        guint64 *h = all + (gsize)SMMULAB_HIST_BUCKETS * c, total = 0, cum = 0;
        const char *color = variant_color(cols, col);
        g_autoptr(GString) path = g_string_new(NULL);
        double lx = L + 10 + (pw - 10) * c / cols->len, py = T + ph;

        for (j = 0; j < SMMULAB_HIST_BUCKETS; j++) {
            total += h[j];
        }
        if (!total) {
            continue;
        }
        for (j = 0; j < SMMULAB_HIST_BUCKETS; j++) {
            double x, y;

            if (!h[j]) {
                continue;
            }
            cum += h[j];
            x = L + pw * (log10(MAX(smmulab_hist_top(j) / 1e3, 1e-3)) - lo) /
                (hi - lo);
            y = T + ph - ph * (double)cum / total;
            /* steps: up at each bucket's top */
            g_string_append_printf(path, "%s%.1f,%.1f %.1f,%.1f",
                                   path->len ? " " : "", x, py, x, y);
            py = y;
        }
        g_string_append_printf(s, "<polyline points=\"%s\" fill=\"none\" "
                               "stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                               path->str, color, col->control ?
                               " stroke-dasharray=\"6 4\" stroke-opacity=\"0.6\"" : "");
        g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                               "height=\"12\" fill=\"%s\"%s/>\n", lx, H - 28,
                               color, col->control ? " fill-opacity=\"0.45\"" : "");
        svg_text(s, lx + 16, H - 18, "start", 11, col->name);
    }
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T + ph, L + pw,
                           T + ph);
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T, L, T + ph);
    g_string_append(s, "</svg>\n");
    return g_string_free(s, FALSE);
}

/* ---- report.html: the text, the chart, and a timeline per run ---- */

static const char *event_color(const char *kind)
{
    return !strcmp(kind, "soft lockup") ? "#d62728" :
           !strcmp(kind, "CMDQ timeout") ? "#ff7f0e" : "#9467bd";
}

/*
 * One run over time: the model's pending commands (polled each second),
 * PROD writes that found the queue full, and the console's soft lockups
 * and timeouts, in host seconds from QEMU's start.
 */
static void timeline_svg(GString *h, JsonObject *run)
{
    JsonArray *tl = json_object_has_member(run, "timeline") ?
        json_object_get_array_member(run, "timeline") : NULL;
    JsonArray *ev = json_object_has_member(run, "events") ?
        json_object_get_array_member(run, "events") : NULL;
    const double W = 720, H = 190, L = 60, R = 20, T = 12, B = 46;
    const double pw = W - L - R, ph = H - T - B;
    guint n = tl ? json_array_get_length(tl) : 0;
    guint ne = ev ? json_array_get_length(ev) : 0, i;
    double tmax = 1, pmax = 1, x, y;
    gint64 last_full = -1;
    GString *path = g_string_new(NULL);

    g_string_append_printf(h, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
                           "width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\" font-size=\"11\">\n", W, H);
    if (!n && !ne) {
        svg_text(h, W / 2, H / 2, "middle", 12,
                 "no timeline recorded for this run");
        g_string_append(h, "</svg>\n");
        g_string_free(path, TRUE);
        return;
    }
    for (i = 0; i < n; i++) {
        JsonArray *sm = json_array_get_array_element(tl, i);

        tmax = MAX(tmax, json_array_get_double_element(sm, 0));
        pmax = MAX(pmax, json_array_get_int_element(sm, 3));
    }
    for (i = 0; i < ne; i++) {
        tmax = MAX(tmax, json_array_get_double_element(
            json_array_get_array_element(ev, i), 0));
    }
    tmax = axis_max(tmax);
    pmax = axis_max(pmax);
    for (i = 0; i <= 4; i++) {
        g_autofree char *lab = fmt(pmax * i / 4, 0);

        y = T + ph - ph * i / 4;
        g_string_append_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, L + pw, y);
        svg_text(h, L - 5, y + 4, "end", 10, lab);
    }
    for (i = 0; i <= 5; i++) {
        g_autofree char *lab = fmt(tmax * i / 5, tmax >= 10 ? 0 : 1);

        x = L + pw * i / 5;
        svg_text(h, x, T + ph + 14, "middle", 10, lab);
    }
    svg_text(h, L + pw / 2, T + ph + 28, "middle", 11,
             "time since QEMU started (s, host)");
    g_string_append_printf(h, "<text x=\"12\" y=\"%.1f\" font-size=\"11\" "
                           "text-anchor=\"middle\" transform=\"rotate(-90 12 %.1f)\">"
                           "commands pending</text>\n", T + ph / 2, T + ph / 2);
    for (i = 0; i < ne; i++) {
        JsonArray *e = json_array_get_array_element(ev, i);
        const char *kind = json_array_get_string_element(e, 1);

        x = L + pw * json_array_get_double_element(e, 0) / tmax;
        g_string_append_printf(h, "<line class=\"event\" x1=\"%.1f\" y1=\"%.1f\" "
                               "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                               "stroke-width=\"1.5\"><title>%s</title></line>\n",
                               x, T, x, T + ph, event_color(kind), kind);
    }
    for (i = 0; i < n; i++) {
        JsonArray *sm = json_array_get_array_element(tl, i);
        gint64 full = json_array_get_int_element(sm, 2);

        x = L + pw * json_array_get_double_element(sm, 0) / tmax;
        y = T + ph - ph * json_array_get_int_element(sm, 3) / pmax;
        g_string_append_printf(path, "%s%.1f,%.1f", path->len ? " " : "", x, y);
        if (last_full >= 0 && full > last_full) {
            g_string_append_printf(h, "<rect class=\"full\" x=\"%.1f\" y=\"%.1f\" "
                                   "width=\"3\" height=\"6\" fill=\"#2ca02c\">"
                                   "<title>%" G_GINT64_FORMAT " PROD writes "
                                   "filled the queue</title></rect>\n",
                                   x - 1.5, T + ph - 6, full - last_full);
        }
        last_full = full;
    }
    g_string_append_printf(h, "<polyline points=\"%s\" fill=\"none\" "
                           "stroke=\"#1f77b4\" stroke-width=\"1.5\"/>\n", path->str);
    g_string_append_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T + ph, L + pw,
                           T + ph);
    g_string_append_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T, L, T + ph);
    g_string_append(h, "</svg>\n");
    g_string_free(path, TRUE);
}

static char *html_report(JsonObject *sc, JsonArray *runs, const char *text,
                         const char *svg, const char *cdf)
{
    GString *h = g_string_new(NULL);
    g_autofree char *title = g_markup_escape_text(
        json_object_get_string_member(sc, "name"), -1);
    g_autofree char *body = g_markup_escape_text(text, -1);
    guint i;

    g_string_append_printf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
        "<meta charset=\"utf-8\">\n<title>smmulab report: %s</title>\n"
        "<style>body{font-family:sans-serif;margin:1.5em;max-width:80em}"
        "pre{font-size:12px;overflow-x:auto;background:#f7f7f7;padding:.8em}"
        ".run{margin:1em 0}.legend span{margin-right:1.5em}</style>\n"
        "</head>\n<body>\n<h1>smmulab report: %s</h1>\n", title, title);
    g_string_append(h, "<h2>Verdicts, evidence and table</h2>\n<pre>");
    g_string_append(h, body);
    g_string_append(h, "</pre>\n<h2>Chart</h2>\n");
    g_string_append(h, svg);
    if (cdf) {
        g_string_append(h, "<h2>Latency distribution</h2>\n");
        g_string_append(h, cdf);
    }
    g_string_append(h, "<h2>Every run over time</h2>\n<p class=\"legend\">"
        "<span style=\"color:#1f77b4\">&#9644; commands pending (model, "
        "each second)</span><span style=\"color:#2ca02c\">&#9646; PROD "
        "writes that filled the queue</span><span style=\"color:#d62728\">"
        "| soft lockup</span><span style=\"color:#ff7f0e\">| CMDQ timeout"
        "</span><span style=\"color:#9467bd\">| CMD_SYNC timeout</span></p>\n");
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        const char *pt = json_object_get_string_member_with_default(r, "point",
                                                                    "");
        g_autofree char *head = g_markup_printf_escaped(
            "%s%s%s%s rep %" G_GINT64_FORMAT ": %s",
            json_object_get_boolean_member(r, "control") ? "control:" : "",
            json_object_get_string_member(r, "variant"), pt[0] ? " at " : "",
            pt, json_object_get_int_member(r, "rep"),
            json_object_get_string_member(r, "verdict"));
        g_autofree char *links = g_markup_printf_escaped(
            "<a href=\"%s\">console log</a> &middot; "
            "<a href=\"%s\">QEMU command line</a>",
            json_object_get_string_member_with_default(r, "log", ""),
            json_object_get_string_member_with_default(r, "cmdline", ""));

        g_string_append_printf(h, "<div class=\"run\">\n<h3>%s</h3>\n", head);
        timeline_svg(h, r);
        g_string_append_printf(h, "<p>%s</p>\n</div>\n", links);
    }
    /* The browser marks each drawing it laid out (tests read the DOM) */
    g_string_append(h, "<script>\n"
        "for (const s of document.querySelectorAll('svg')) {\n"
        "  const b = s.getBBox();\n"
        "  if (b.width > 0 && b.height > 0) s.setAttribute('data-drawn', 'yes');\n"
        "}\n</script>\n");
    g_string_append(h, "</body>\n</html>\n");
    return g_string_free(h, FALSE);
}

/* ---- verdicts, control and evidence ---- */

static const Column *find_column(GPtrArray *cols, const char *variant)
{
    guint c;

    for (c = 0; c < cols->len; c++) {
        const Column *col = g_ptr_array_index(cols, c);

        if (!col->control && !strcmp(col->variant, variant)) {
            return col;
        }
    }
    return NULL;
}

/* Runs of @c at @point that count, and how many of them had @what > 0 */
static void runs_with(JsonArray *runs, const Column *c, const char *point,
                      gboolean timeouts, guint *k, guint *n)
{
    guint i;

    *k = *n = 0;
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        gint64 x;

        if (!run_matches(r, c, point) || !run_counts(r)) {
            continue;
        }
        x = timeouts ?
            json_object_get_int_member_with_default(r, "cmdq_timeouts", 0) +
            json_object_get_int_member_with_default(r, "cmd_sync_timeouts", 0) :
            json_object_get_int_member_with_default(r, "soft_lockups", 0);
        (*n)++;
        *k += x > 0;
    }
}

static void verdict_json(JsonBuilder *b, const char *point, const char *var,
                         const char *base, const char *metric,
                         const char *test, double p, gboolean differs,
                         const char *text)
{
    json_builder_begin_object(b);
    if (point) {
        json_builder_set_member_name(b, "point");
        json_builder_add_string_value(b, point);
    }
    json_builder_set_member_name(b, "variant");
    json_builder_add_string_value(b, var);
    json_builder_set_member_name(b, "baseline");
    json_builder_add_string_value(b, base);
    json_builder_set_member_name(b, "metric");
    json_builder_add_string_value(b, metric);
    json_builder_set_member_name(b, "test");
    json_builder_add_string_value(b, test);
    json_builder_set_member_name(b, "p");
    json_builder_add_double_value(b, p);
    json_builder_set_member_name(b, "differs");
    json_builder_add_boolean_value(b, differs);
    json_builder_set_member_name(b, "text");
    json_builder_add_string_value(b, text);
    json_builder_end_object(b);
}

/* "different", or why not */
static char *judgement(double p, double min_p, guint na, guint nb)
{
    if (p < ALPHA) {
        return g_strdup("DIFFERENT");
    }
    if (min_p >= ALPHA) {
        return g_strdup_printf("not distinguishable at n=%u+%u (no outcome "
                               "could reach p<%.2f)", na, nb, ALPHA);
    }
    return g_strdup_printf("not distinguishable at n=%u+%u", na, nb);
}

static gboolean count_verdict(GString *t, JsonBuilder *b, JsonArray *runs,
                              const Column *var, const Column *base,
                              const char *point, const char *label,
                              gboolean timeouts)
{
    const char *what = timeouts ? "runs with a CMDQ or CMD_SYNC timeout"
                                : "runs with a soft lockup";
    guint ka, na, kb, nb;
    double p, min_p;
    g_autofree char *j = NULL, *line = NULL;

    runs_with(runs, var, point, timeouts, &ka, &na);
    runs_with(runs, base, point, timeouts, &kb, &nb);
    if (!na || !nb) {
        return FALSE;
    }
    p = smmulab_fisher_exact(ka, na, kb, nb);
    min_p = MIN(smmulab_fisher_exact(0, na, nb, nb),
                smmulab_fisher_exact(na, na, 0, nb));
    j = !ka && !kb ? g_strdup("none in either") : judgement(p, min_p, na, nb);
    line = g_strdup_printf("%s%s%s%s vs %s: %s %u/%u vs %u/%u (Fisher p=%.3f): %s",
                           label ? "[" : "", label ? label : "",
                           label ? "] " : "", var->variant, base->variant,
                           what, ka, na, kb, nb, p, j);
    g_string_append_printf(t, "  %s\n", line);
    verdict_json(b, point, var->variant, base->variant,
                 timeouts ? "runs_with_timeout" : "runs_with_soft_lockup",
                 "fisher", p, p < ALPHA, line);
    return TRUE;
}

static void metric_verdict(GString *t, JsonBuilder *b, JsonArray *runs,
                           const Metric *m, const Column *var,
                           const Column *base, const char *point,
                           const char *label)
{
    g_autoptr(GArray) va = values_of(runs, m, var, point);
    g_autoptr(GArray) vb = values_of(runs, m, base, point);
    g_autofree char *j = NULL, *line = NULL, *change = NULL;
    double p, d, lo, hi;

    if (!va->len || !vb->len) {
        return;
    }
    p = smmulab_mann_whitney((double *)va->data, va->len,
                             (double *)vb->data, vb->len, NULL);
    d = smmulab_change_pct((double *)vb->data, vb->len, (double *)va->data,
                           va->len, 0.95, BOOT_ITERS, &lo, &hi);
    if (isnan(d)) {
        change = g_strdup("(baseline mean 0)");
    } else if (va->len > 1 && vb->len > 1) {
        change = g_strdup_printf("%+.1f%% [%+.1f%%, %+.1f%%]", d, lo, hi);
    } else {
        change = g_strdup_printf("%+.1f%% (one run: no interval)", d);
    }
    j = judgement(p, smmulab_mann_whitney_min_p(va->len, vb->len), va->len,
                  vb->len);
    line = g_strdup_printf("%s%s%s%s vs %s: %s %s (Mann-Whitney p=%.3f): %s",
                           label ? "[" : "", label ? label : "",
                           label ? "] " : "", var->variant, base->variant,
                           m->label, change, p, j);
    g_string_append_printf(t, "  %s\n", line);
    verdict_json(b, point, var->variant, base->variant, m->id, "mann-whitney",
                 p, p < ALPHA, line);
}

/*
 * Every variant against the baseline, at every sweep point: runs with a
 * soft lockup, runs with a timeout, and the workload's main figures.
 */
static void verdicts(GString *t, JsonBuilder *b, JsonObject *sc,
                     JsonArray *runs, GPtrArray *cols, const char *kind,
                     JsonArray *points)
{
    const char *bname = json_object_get_string_member_with_default(sc,
                                                                   "baseline",
                                                                   NULL);
    const Column *base;
    const VerdictSet *vs = NULL;
    guint np = points ? json_array_get_length(points) : 0, p, c, i;

    json_builder_set_member_name(b, "verdicts");
    json_builder_begin_array(b);
    if (!bname) {
        JsonArray *vars = json_object_get_array_member(sc, "variants");

        bname = json_object_get_string_member(
            json_array_get_object_element(vars, 0), "name");
    }
    base = find_column(cols, bname);
    for (i = 0; verdict_sets[i].kind; i++) {
        if (!strcmp(verdict_sets[i].kind, base_kind(kind))) {
            vs = &verdict_sets[i];
        }
    }
    g_string_append_printf(t, "verdicts (against %s; Fisher's exact test on "
                           "runs, Mann-Whitney U on per-run values, change "
                           "of the mean with a 95%% bootstrap interval; "
                           "p<%.2f is DIFFERENT):\n", bname, ALPHA);
    if (!base || cols->len < 2) {
        g_string_append(t, "  none: no other variant ran beside the baseline\n");
    }
    for (p = 0; base && p < (np ? np : 1); p++) {
        const char *pt = np ? json_array_get_string_element(points, p) : NULL;
        g_autofree char *label = pt ? g_strdup_printf("%s=%s",
            json_object_get_string_member(sc, "sweep_key"), pt) : NULL;

        for (c = 0; c < cols->len; c++) {
            const Column *col = g_ptr_array_index(cols, c);

            if (col->control || col == base) {
                continue;
            }
            if (!count_verdict(t, b, runs, col, base, pt, label, FALSE)) {
                g_string_append_printf(t, "  %s%s%s%s vs %s: nothing to "
                                       "compare: no run of one of them "
                                       "counts (each failed without a "
                                       "lockup or timeout)\n",
                                       label ? "[" : "", label ? label : "",
                                       label ? "] " : "", col->variant,
                                       base->variant);
                continue;
            }
            count_verdict(t, b, runs, col, base, pt, label, TRUE);
            for (i = 0; vs && i < G_N_ELEMENTS(vs->ids) && vs->ids[i]; i++) {
                metric_verdict(t, b, runs, find_metric(kind, vs->ids[i]), col,
                               base, pt, label);
            }
        }
    }
    json_builder_end_array(b);
    g_string_append_c(t, '\n');
}

/* Why the control does not stand, or NULL when it is clean */
static char *control_problems(JsonArray *runs, guint *nctl)
{
    g_autoptr(GString) why = g_string_new(NULL);
    guint i;

    *nctl = 0;
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        const char *verdict = json_object_get_string_member(r, "verdict");
        gint64 sl = json_object_get_int_member_with_default(r, "soft_lockups", 0);
        gint64 to = json_object_get_int_member_with_default(r, "cmdq_timeouts", 0) +
            json_object_get_int_member_with_default(r, "cmd_sync_timeouts", 0);
        const char *pt = json_object_get_string_member_with_default(r, "point",
                                                                    "");

        if (!json_object_get_boolean_member(r, "control")) {
            continue;
        }
        (*nctl)++;
        if (strcmp(verdict, "ok")) {
            g_string_append_printf(why, "%scontrol:%s%s%s rep %" G_GINT64_FORMAT
                                   " ended %s", why->len ? "; " : "",
                                   json_object_get_string_member(r, "variant"),
                                   pt[0] ? " at " : "", pt,
                                   json_object_get_int_member(r, "rep"),
                                   verdict);
        }
        if (sl || to) {
            g_string_append_printf(why, "%scontrol:%s%s%s rep %" G_GINT64_FORMAT
                                   " had %" G_GINT64_FORMAT " soft lockup(s) "
                                   "and %" G_GINT64_FORMAT " timeout(s)",
                                   why->len ? "; " : "",
                                   json_object_get_string_member(r, "variant"),
                                   pt[0] ? " at " : "", pt,
                                   json_object_get_int_member(r, "rep"),
                                   sl, to);
        }
    }
    if (!*nctl) {
        return g_strdup("no control run was recorded");
    }
    return why->len ? g_string_free(g_steal_pointer(&why), FALSE) : NULL;
}

/* Every run with a soft lockup or timeout, with its first report and log */
static void evidence(GString *t, JsonArray *runs)
{
    guint i, shown = 0;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        gint64 sl = json_object_get_int_member_with_default(r, "soft_lockups", 0);
        gint64 cq = json_object_get_int_member_with_default(r, "cmdq_timeouts", 0);
        gint64 cs = json_object_get_int_member_with_default(r, "cmd_sync_timeouts", 0);
        const char *pt = json_object_get_string_member_with_default(r, "point",
                                                                    "");
        g_autoptr(GString) cpus = g_string_new(NULL);

        if (!sl && !cq && !cs) {
            continue;
        }
        if (!shown++) {
            g_string_append(t, "evidence (every run with a soft lockup or "
                            "timeout):\n");
        }
        if (json_object_has_member(r, "lockup_cpus")) {
            JsonObject *lc = json_object_get_object_member(r, "lockup_cpus");
            g_autoptr(GList) keys = json_object_get_members(lc);
            GList *l;

            for (l = keys; l; l = l->next) {
                gint64 k = json_object_get_int_member(lc, l->data);

                g_string_append_printf(cpus, "%sCPU#%s", cpus->len ? ", " : "",
                                       (char *)l->data);
                if (k > 1) {
                    g_string_append_printf(cpus, " x%" G_GINT64_FORMAT, k);
                }
            }
        }
        g_string_append_printf(t, "  %s%s%s%s rep %" G_GINT64_FORMAT ": %"
                               G_GINT64_FORMAT " soft lockup(s)%s%s%s, %"
                               G_GINT64_FORMAT " CMDQ and %" G_GINT64_FORMAT
                               " CMD_SYNC timeout(s)%s\n",
                               json_object_get_boolean_member(r, "control") ?
                                   "control:" : "",
                               json_object_get_string_member(r, "variant"),
                               pt[0] ? " at " : "", pt,
                               json_object_get_int_member(r, "rep"), sl,
                               cpus->len ? " (" : "", cpus->str,
                               cpus->len ? ")" : "", cq, cs,
                               json_object_get_boolean_member_with_default(
                                   r, "timeouts_exact", FALSE) ?
                                   " (counted by the kernel)" :
                                   " (console lines: at least this many)");
        if (json_object_has_member(r, "first_lockup")) {
            g_string_append_printf(t, "    first: \"%s\"%s%s\n",
                json_object_get_string_member(r, "first_lockup"),
                json_object_has_member(r, "first_lockup_fn") ? " in " : "",
                json_object_get_string_member_with_default(r, "first_lockup_fn",
                                                           ""));
        }
        g_string_append_printf(t, "    log: %s\n",
                               json_object_get_string_member(r, "log"));
    }
    if (shown) {
        g_string_append_c(t, '\n');
    }
}

/* The first 12 hex digits of a hash member, or "?" */
static char *short_hash(JsonObject *o, const char *key)
{
    const char *h = json_object_get_string_member_with_default(o, key, NULL);

    return g_strndup(h ? h : "?", 12);
}

/* What produced the runs, from runs.json's "provenance" (if recorded) */
static void provenance(GString *t, JsonObject *root, JsonArray *runs)
{
    JsonObject *p = member_obj(root, "provenance");
    const char *kv = NULL;
    g_autofree char *hq = NULL, *hl = NULL, *hi = NULL, *hc = NULL;
    guint i;

    if (!p) {
        return;
    }
    for (i = 0; i < json_array_get_length(runs) && !kv; i++) {
        kv = json_object_get_string_member_with_default(
            json_array_get_object_element(runs, i), "kernel_version", NULL);
    }
    hq = short_hash(p, "qemu_patches_sha256");
    hl = short_hash(p, "linux_patches_sha256");
    hi = short_hash(p, "kernel_image_sha256");
    hc = short_hash(p, "kernel_config_sha256");
    g_string_append_printf(t, "  built from: smmulab %s; %s; Linux %s (Image "
                           "%s, config %s); patches: qemu %s, linux %s\n",
        json_object_get_string_member_with_default(p, "smmulab", "?"),
        json_object_get_string_member_with_default(p, "qemu", "QEMU ?"),
        kv ? kv : "?", hi, hc, hq, hl);
    g_string_append_printf(t, "  host: %s, %" G_GINT64_FORMAT " cores; "
                           "smmulab-run %s: %s\n",
        json_object_get_string_member_with_default(p, "host_cpu", "?"),
        json_object_get_int_member_with_default(p, "host_cores", 0),
        json_object_get_string_member_with_default(p, "runner_version", "?"),
        json_object_get_string_member_with_default(p, "runner_cmdline", "?"));
}

char *smmulab_report_write(JsonNode *doc, const char *dir, GError **err)
{
    JsonObject *root = json_node_get_object(doc);
    JsonObject *sc = json_object_get_object_member(root, "scenario");
    JsonArray *runs = json_object_get_array_member(root, "runs");
    const char *kind = json_object_get_string_member(sc, "workload");
    const Metric *wm = workload_metrics(kind);
    JsonArray *points = json_object_has_member(sc, "sweep_values") ?
        json_object_get_array_member(sc, "sweep_values") : NULL;
    g_autoptr(GPtrArray) cols = columns_of(sc, runs);
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) out = NULL;
    GString *t = g_string_new(NULL);
    g_autofree char *det = NULL, *svg = NULL, *json = NULL;
    g_autofree char *p_txt = NULL, *p_json = NULL, *p_svg = NULL;
    g_autofree char *p_html = NULL, *html = NULL, *cdf = NULL;
    g_autofree char *p_cdf = NULL;
    guint i, nrun = json_array_get_length(runs), nok = 0, nctl = 0;
    guint nexact = 0, ncounted = 0;
    gboolean reliable, has_control = json_object_get_boolean_member(sc,
                                                                    "control");
    g_autofree char *ctl_why = NULL;

    for (i = 0; i < nrun; i++) {
        JsonObject *r = json_array_get_object_element(runs, i);

        nok += !strcmp(json_object_get_string_member(r, "verdict"), "ok");
        if (run_counts(r)) {
            ncounted++;
            nexact += json_object_get_boolean_member_with_default(
                r, "timeouts_exact", FALSE);
        }
    }
    ctl_why = control_problems(runs, &nctl);
    reliable = has_control && !ctl_why;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "scenario");
    json_builder_add_value(b, json_node_copy(json_object_get_member(root,
                                                                    "scenario")));
    det = determinism(sc, runs, b);
    json_builder_set_member_name(b, "reliable");
    if (has_control) {
        json_builder_add_boolean_value(b, reliable);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "control_problems");
    if (has_control && ctl_why) {
        json_builder_add_string_value(b, ctl_why);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "runs_ok");
    json_builder_add_int_value(b, nok);
    json_builder_set_member_name(b, "runs_total");
    json_builder_add_int_value(b, nrun);

    g_string_append_printf(t, "smmulab report: %s\n",
                           json_object_get_string_member(sc, "name"));
    if (json_object_has_member(sc, "description")) {
        g_string_append_printf(t, "  %s\n",
                               json_object_get_string_member(sc, "description"));
    }
    g_string_append_printf(t, "  scenario %s, workload %s, %" G_GINT64_FORMAT
                           " run(s) per variant%s\n",
                           json_object_get_string_member(sc, "file"), kind,
                           json_object_get_int_member(sc, "repeat"),
                           points ? " and sweep point" : "");
    g_string_append_printf(t, "  model: %s\n",
                           json_object_get_string_member(sc, "smmu"));
    g_string_append_printf(t, "  machine: %s\n",
                           json_object_get_string_member(sc, "machine"));
    provenance(t, root, runs);
    g_string_append_printf(t, "  runs: %u of %u ok\n", nok, nrun);
    g_string_append_printf(t, "  deterministic: %s\n", det);
    if (has_control && reliable) {
        g_string_append_printf(t, "  control (fast hardware: every cost 0, "
                               "cmdqs=19, RIL on): clean: %u of %u control "
                               "run(s) ok, no lockup or timeout: the "
                               "comparison stands\n", nctl, nctl);
    } else if (has_control) {
        g_string_append_printf(t, "  control (fast hardware: every cost 0, "
                               "cmdqs=19, RIL on): UNRELIABLE: %s: the "
                               "comparison is unreliable, do not blame a "
                               "variant\n", ctl_why);
    } else {
        g_string_append(t, "  control: not run: nothing shows that the host "
                        "itself does not stall the guest\n");
    }
    g_string_append_printf(t, "  timeouts: %s\n",
                           !ncounted ? "no run to count" :
                           nexact == ncounted ?
                           "counted by the kit kernel, rate-limited messages "
                           "included (exact)" :
                           nexact ? "exact where the kernel counted, console "
                           "lines elsewhere (at least)" :
                           "console lines only (at least: the kernel rate "
                           "limits them)");
    for (i = 0; i < nrun; i++) {
        JsonObject *r = json_array_get_object_element(runs, i);

        if (strcmp(json_object_get_string_member(r, "verdict"), "ok")) {
            const char *pt = json_object_get_string_member_with_default(
                r, "point", "");

            g_string_append_printf(t, "  run %s%s%s%s rep %" G_GINT64_FORMAT
                                   ": %s: %s (log %s)\n",
                json_object_get_boolean_member(r, "control") ? "control:" : "",
                json_object_get_string_member(r, "variant"),
                pt[0] ? " at " : "", pt,
                json_object_get_int_member(r, "rep"),
                json_object_get_string_member(r, "verdict"),
                json_object_get_string_member_with_default(r, "detail", ""),
                json_object_get_string_member(r, "log"));
        }
    }
    g_string_append_c(t, '\n');
    verdicts(t, b, sc, runs, cols, kind, points);
    evidence(t, runs);

    json_builder_set_member_name(b, "columns");
    json_builder_begin_array(b);
    for (i = 0; i < cols->len; i++) {
        json_builder_add_string_value(b,
            ((Column *)g_ptr_array_index(cols, i))->name);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "table");
    json_builder_begin_array(b);
    if (points && json_array_get_length(points)) {
        guint p;

        sweep_summary(t, sc, runs, cols, kind, points);
        for (p = 0; p < json_array_get_length(points); p++) {
            const char *pt = json_array_get_string_element(points, p);
            g_autofree char *head = g_strdup_printf("%s=%s",
                json_object_get_string_member(sc, "sweep_key"), pt);

            header_row(t, cols, head);
            if (wm) {
                add_table(t, b, runs, cols, wm, pt);
            }
            add_table(t, b, runs, cols, common_metrics, pt);
            g_string_append_c(t, '\n');
        }
    } else {
        header_row(t, cols, "");
        if (wm) {
            add_table(t, b, runs, cols, wm, NULL);
        }
        add_table(t, b, runs, cols, common_metrics, NULL);
    }
    json_builder_end_array(b);
    if (json_object_has_member(root, "provenance")) {
        json_builder_set_member_name(b, "provenance");
        json_builder_add_value(b, json_node_copy(
            json_object_get_member(root, "provenance")));
    }
    json_builder_set_member_name(b, "runs");
    json_builder_add_value(b, json_node_copy(json_object_get_member(root,
                                                                    "runs")));
    json_builder_end_object(b);

    out = json_builder_get_root(b);
    json_generator_set_root(gen, out);
    json_generator_set_pretty(gen, TRUE);
    json = json_generator_to_data(gen, NULL);
    svg = svg_chart(sc, runs, cols, kind);

    p_txt = g_build_filename(dir, "report.txt", NULL);
    p_json = g_build_filename(dir, "report.json", NULL);
    p_svg = g_build_filename(dir, "report.svg", NULL);
    p_html = g_build_filename(dir, "report.html", NULL);
    cdf = cdf_svg(sc, runs, cols);
    html = html_report(sc, runs, t->str, svg, cdf);
    p_cdf = g_build_filename(dir, "report-cdf.svg", NULL);
    if (cdf && !g_file_set_contents(p_cdf, cdf, -1, err)) {
        g_string_free(t, TRUE);
        return NULL;
    }
    if (!g_file_set_contents(p_txt, t->str, -1, err) ||
        !g_file_set_contents(p_json, json, -1, err) ||
        !g_file_set_contents(p_svg, svg, -1, err) ||
        !g_file_set_contents(p_html, html, -1, err)) {
        g_string_free(t, TRUE);
        return NULL;
    }
    return g_string_free(t, FALSE);
}

JsonNode *smmulab_runs_load(const char *dir, GError **err)
{
    g_autofree char *path = g_build_filename(dir, "runs.json", NULL);
    g_autoptr(JsonParser) parser = json_parser_new();
    JsonNode *root;

    if (!json_parser_load_from_file(parser, path, err)) {
        g_prefix_error(err, "%s: ", path);
        return NULL;
    }
    root = json_parser_get_root(parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root) ||
        !json_object_has_member(json_node_get_object(root), "scenario") ||
        !json_object_has_member(json_node_get_object(root), "runs")) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "%s: not a runs.json of smmulab-run", path);
        return NULL;
    }
    return json_node_copy(root);
}

char *smmulab_report_from_dir(const char *dir, GError **err)
{
    g_autoptr(JsonNode) root = smmulab_runs_load(dir, err);

    return root ? smmulab_report_write(root, dir, err) : NULL;
}
