/*
 * smmulab: the metrics of a report, and how to read them from runs.json
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "abtest.h"
#include "report-internal.h"

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

const Metric report_common_metrics[] = {
    { "soft_lockups", "soft lockups", "run:soft_lockups", 1, 0, AGG_SUM },
    { "cmdq_timeouts", "CMDQ timeouts", "run:cmdq_timeouts", 1, 0, AGG_SUM },
    { "cmd_sync_timeouts", "CMD_SYNC timeouts", "run:cmd_sync_timeouts", 1, 0,
      AGG_SUM },
    /* The line-transfer model (-icount line-ns=), all vCPUs together */
    { "line_transfers", "cache lines: transfers", "lines:transfers", 1, 0,
      AGG_MEAN },
    { "line_stall_ms", "cache lines: stall, all vCPUs (ms)", "lines:stall_ns",
      1e-6, 1, AGG_MEAN },
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
    { "busy_pct", "model: busy, % of the workload's time",
      "calc:busy-pct", 1, 1, AGG_MEAN },
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
    { "k_shared_wait_ms", "driver: shared lock wait, total (ms)",
      "kernel:shared_lock_wait_ns", 1e-6, 1, AGG_MEAN },
    { "k_excl_trylocks", "driver: exclusive trylocks",
      "kernel:exclusive_trylocks", 1, 0, AGG_MEAN },
    { "k_excl_fails", "driver: exclusive trylocks failed",
      "kernel:exclusive_trylock_failures", 1, 0, AGG_MEAN },
    { "k_excl_fail_pct", "driver: exclusive trylocks failed (%)",
      "calc:excl-fail-pct", 1, 1, AGG_MEAN },
    /*
     * The wait for queue space, whichever allocator runs it: cmpxchg
     * waits before it reserves (space_wait_*), add after it reserved
     * (add_space_wait_*); the variant runs one of them
     */
    { "k_space_waits", "driver: batches waiting for space",
      "calc:space-waits", 1, 0, AGG_MEAN },
    { "k_space_polls", "driver: space wait calls", "kernel:space_wait_polls",
      1, 0, AGG_MEAN },
    { "k_space_wait_max_ms", "driver: longest space wait (ms)",
      "calc:space-wait-max-ns", 1e-6, 1, AGG_MAX },
    { "k_space_wait_ms", "driver: space wait, total (ms)",
      "calc:space-wait-ns", 1e-6, 1, AGG_MEAN },
    /*
     * How much of the space waits was queue_poll()'s udelay(), whose
     * delay doubles under cmdq_poll=upstream: in all of them, and in the
     * longest one (that wait's own sleep, not the longest sleep)
     */
    { "k_space_sleep_ms", "driver: space wait, udelay() slept (ms)",
      "calc:space-wait-sleep-ns", 1e-6, 1, AGG_MEAN },
    { "k_space_max_sleep_ms",
      "driver: udelay() slept in the longest space wait (ms)",
      "calc:space-wait-max-sleep-ns", 1e-6, 1, AGG_MAX },
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
    /* every try: kit kernels until the fast path stopped counting */
    { "k_cmpxchg_attempts", "driver: space cmpxchg attempts",
      "kernel:cmpxchg_attempts", 1, 0, AGG_MEAN },
    { "k_cmpxchg_contended", "driver: reservations losing a space cmpxchg",
      "kernel:cmpxchg_contended", 1, 0, AGG_MEAN },
    { "k_cmpxchg_failures", "driver: space cmpxchg failures",
      "kernel:cmpxchg_failures", 1, 0, AGG_MEAN },
    { "k_add_reservations", "driver: space reserved by atomic add",
      "kernel:add_reservations", 1, 0, AGG_MEAN },
    { "k_add_space_waits", "driver: add reservations waiting for space",
      "kernel:add_space_waits", 1, 0, AGG_MEAN },
    /*
     * cmdq_alloc=add only: a gathered CPU waits for its owner to publish
     * its slots; under cmpxchg that wait is part of the (untimed) CMD_SYNC
     * wait, so these rows are not compared with it
     */
    { "k_add_publish_waits",
      "driver: add: gathered CPUs waiting for publication",
      "kernel:add_publish_waits", 1, 0, AGG_MEAN },
    { "k_add_publish_wait_max_us", "driver: add: longest publication wait (us)",
      "kernel:add_publish_wait_max_ns", 1e-3, 1, AGG_MAX },
    { "k_add_publish_wait_ms", "driver: add: publication wait, total (ms)",
      "kernel:add_publish_wait_ns", 1e-6, 1, AGG_MEAN },
    { "k_add_publish_timeouts",
      "driver: add: publication waits past the CMDQ timeout",
      "kernel:add_publish_timeouts", 1, 0, AGG_MEAN },
    { "k_walk_flushes", "driver: walk flushes", "kernel:walk_flushes", 1, 0,
      AGG_MEAN },
    { "k_walk_flush_asid", "driver: walk flushes by ASID",
      "kernel:walk_flushes_by_asid", 1, 0, AGG_MEAN },
    { "k_range_inv_asid", "driver: ranges over tlbi_max_pages, by ASID",
      "kernel:range_invalidations_by_asid", 1, 0, AGG_MEAN },
    { NULL }
};

/* Metrics an exploratory A/B line is given for, beyond lockups */
/*
 * The workload's figures, how many lockups, then the CMDQ's mechanism
 * (kit kernel only): how often the exclusive trylock that refreshes the
 * cached CONS failed, the longest shared-lock and space waits (the space
 * wait of whichever allocator the variant runs, cmpxchg or add)
 */
#define CMDQ_MECHANISM "soft_lockups", "k_excl_fail_pct", \
                       "k_shared_wait_max_us", "k_space_wait_max_ms"
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
const char *report_base_kind(const char *kind)
{
    return g_str_has_prefix(kind, "probe-storm") ? "probe-storm" : kind;
}

const Metric *report_workload_metrics(const char *kind)
{
    kind = report_base_kind(kind);
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

const Metric *report_find_metric(const char *kind, const char *id)
{
    const Metric *lists[] = { report_workload_metrics(kind),
                              report_common_metrics };
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

double report_num_member(JsonObject *o, const char *key)
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

JsonObject *report_member_obj(JsonObject *o, const char *key)
{
    if (!o || !json_object_has_member(o, key)) {
        return NULL;
    }
    return json_object_get_object_member(o, key);
}

/* One metric of one run, NaN when the run did not produce it */
double report_run_value(JsonObject *run, const Metric *m)
{
    const char *colon = strchr(m->src, ':');
    const char *key = colon + 1;
    double v = NAN;

    if (g_str_has_prefix(m->src, "result:")) {
        v = report_num_member(report_member_obj(run, "summary"), key);
    } else if (g_str_has_prefix(m->src, "stats:")) {
        v = report_num_member(report_member_obj(run, "stats"), key);
    } else if (g_str_has_prefix(m->src, "run:")) {
        v = report_num_member(run, key);
    } else if (g_str_has_prefix(m->src, "kernel:")) {
        v = report_num_member(report_member_obj(run, "kernel"), key);
    } else if (g_str_has_prefix(m->src, "lines:")) {
        v = report_num_member(report_member_obj(run, "lines"), key);
    } else if (!strcmp(m->src, "calc:mean-sync-wait")) {
        JsonObject *st = report_member_obj(run, "stats");
        double n = report_num_member(st, "syncs");

        v = n > 0 ? report_num_member(st, "total-sync-wait-ns") / n : NAN;
    } else if (!strcmp(m->src, "calc:busy-pct")) {
        /* the engine's busy virtual time over the workload's */
        double t = report_num_member(report_member_obj(run, "summary"),
                                     "elapsed_ns");

        v = t > 0 ? 100 * report_num_member(report_member_obj(run, "stats"),
                                            "busy-ns") / t : NAN;
    } else if (!strcmp(m->src, "calc:excl-fail-pct")) {
        JsonObject *k = report_member_obj(run, "kernel");
        double n = report_num_member(k, "exclusive_trylocks");

        v = n > 0 ? 100 * report_num_member(k, "exclusive_trylock_failures") /
                    n : NAN;
    } else if (g_str_has_prefix(m->src, "calc:space-wait")) {
        /* kernel:NAME and kernel:add_NAME, for kernels that have either */
        JsonObject *k = report_member_obj(run, "kernel");
        const char *name =
            strcmp(key, "space-waits") == 0 ? "space_waits"
            : strcmp(key, "space-wait-ns") == 0 ? "space_wait_ns"
            : strcmp(key, "space-wait-sleep-ns") == 0 ? "space_wait_sleep_ns"
            : strcmp(key, "space-wait-max-sleep-ns") == 0
                ? "space_wait_max_sleep_ns"
                : "space_wait_max_ns";
        g_autofree char *add = g_strconcat("add_", name, NULL);
        double c = report_num_member(k, name);
        double a = report_num_member(k, add);

        if (isnan(a)) {
            v = c;
        } else if (isnan(c)) {
            v = a;
        } else if (!strcmp(name, "space_wait_max_sleep_ns")) {
            /* the sleep of whichever allocator's wait was the longest */
            v = report_num_member(k, "add_space_wait_max_ns") >
                report_num_member(k, "space_wait_max_ns") ? a : c;
        } else {
            v = strstr(name, "max") ? MAX(c, a) : c + a;
        }
    } else if (!strcmp(m->src, "calc:cmds-per-op")) {
        double ops = report_num_member(report_member_obj(run, "summary"),
                                       "ops");

        v = ops > 0 ? report_num_member(report_member_obj(run, "stats"),
                                        "retired") / ops
                    : NAN;
    }
    return isnan(v) ? v : v * m->scale;
}


void report_column_free(gpointer p)
{
    Column *c = p;

    g_free(c->name);
    g_free(c->variant);
    g_free(c);
}

gboolean report_paired(JsonObject *sc)
{
    return strcmp(json_object_get_string_member_with_default(sc, "design",
                                                             "paired"),
                  "independent") != 0;
}

gboolean report_run_matches(JsonObject *run, const Column *c,
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
gboolean report_run_counts(JsonObject *run)
{
    const char *v = json_object_get_string_member(run, "verdict");

    /* a run of another configuration than its variant's says nothing */
    if (!strcmp(v, "misconfigured")) {
        return FALSE;
    }
    return !strcmp(v, "ok") ||
           json_object_get_int_member_with_default(run, "soft_lockups", 0) ||
           json_object_get_int_member_with_default(run, "cmdq_timeouts", 0) ||
           json_object_get_int_member_with_default(run, "cmd_sync_timeouts", 0);
}

/* Metric @m of every counting run of column @c at sweep @point */
GArray *report_values_of(JsonArray *runs, const Metric *m, const Column *c,
                         const char *point)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
    guint i;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *run = json_array_get_object_element(runs, i);
        double x;

        if (!report_run_matches(run, c, point) || !report_run_counts(run)) {
            continue;
        }
        x = report_run_value(run, m);
        if (!isnan(x)) {
            g_array_append_val(v, x);
        }
    }
    return v;
}

/* Aggregate metric @m over the runs of column @c at sweep @point */
double report_aggregate(JsonArray *runs, const Metric *m, const Column *c,
                        const char *point, guint *nruns)
{
    g_autoptr(GArray) v = report_values_of(runs, m, c, point);
    SmmulabSummary s;

    smmulab_summarize((double *)v->data, v->len, &s);
    if (nruns) {
        *nruns = v->len;
    }
    return m->agg == AGG_SUM ? s.sum : m->agg == AGG_MAX ? s.max : s.mean;
}

guint report_count_positive(GArray *v)
{
    guint i, k = 0;

    for (i = 0; i < v->len; i++) {
        k += g_array_index(v, double, i) > 0;
    }
    return k;
}

char *report_fmt(double v, int decimals)
{
    if (isnan(v)) {
        return g_strdup("-");
    }
    return g_strdup_printf("%.*f", decimals, v);
}

char *report_fmt_mean(double v, int decimals)
{
    /*
     * A small mean of whole counts that is not whole gets the digit it
     * needs: a mean of 0.5 is not "0 [0..1]", nor 1.4 "1 [0..2]" (from
     * 100 on the rounding is under 0.5 %)
     */
    if (!isnan(v) && decimals == 0 && fabs(v) < 100 &&
        fabs(v - round(v)) > 1e-9) {
        return fabs(v) < 0.05 ? g_strdup_printf("%.2g", v) :
               g_strdup_printf("%.1f", v);
    }
    return report_fmt(v, decimals);
}

GPtrArray *report_columns_of(JsonObject *sc, JsonArray *runs)
{
    GPtrArray *cols = g_ptr_array_new_with_free_func(report_column_free);
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

const VerdictSet *report_verdict_set(const char *kind)
{
    int i;

    for (i = 0; verdict_sets[i].kind; i++) {
        if (!strcmp(verdict_sets[i].kind, report_base_kind(kind))) {
            return &verdict_sets[i];
        }
    }
    return NULL;
}

const Chart *report_chart(const char *kind)
{
    int i;

    for (i = 0; charts[i].kind; i++) {
        if (!strcmp(charts[i].kind, report_base_kind(kind))) {
            return &charts[i];
        }
    }
    return NULL;
}

char *report_point_label(JsonObject *sc, const char *point)
{
    if (!point) {
        return g_strdup("");
    }
    return g_strdup_printf("[%s=%s] ",
                           json_object_get_string_member(sc, "sweep_key"),
                           point);
}

/* Where a metric's per-run value comes from, for people */
static char *source_text(const char *src)
{
    const char *colon = strchr(src, ':');
    const char *key = colon ? colon + 1 : src;

    if (g_str_has_prefix(src, "result:")) {
        return g_strdup_printf("the workload's RESULT line, `%s`", key);
    } else if (g_str_has_prefix(src, "stats:")) {
        return g_strdup_printf("the model's x-cmdq-stats, `%s`", key);
    } else if (g_str_has_prefix(src, "kernel:")) {
        return g_strdup_printf("the kit kernel's counter `%s`", key);
    } else if (g_str_has_prefix(src, "run:")) {
        return g_strdup_printf("the console, counted by the runner (`%s`)",
                               key);
    } else if (g_str_has_prefix(src, "lines:")) {
        return g_strdup_printf("the line-transfer model's "
                               "x-query-icount-lines, `%s` (line-ns= only)",
                               key);
    }
    return g_strdup_printf("computed (`%s`)", key);
}

static void metrics_rows(GString *s, const Metric *m)
{
    static const char *const agg[] = { "mean", "sum", "largest" };
    guint i;

    g_string_append(s, "| id | what, unit | per run, from | over a "
                    "variant's runs |\n|---|---|---|---|\n");
    for (i = 0; m[i].id; i++) {
        g_autofree char *from = source_text(m[i].src);
        g_autofree char *scale = m[i].scale == 1 ? g_strdup("") :
            g_strdup_printf(" x %g", m[i].scale);

        g_string_append_printf(s, "| `%s` | %s | %s%s | %s |\n", m[i].id,
                               m[i].label, from, scale, agg[m[i].agg]);
    }
}

char *report_metrics_markdown(void)
{
    static const struct {
        const char *kinds;
        const char *one;
    } groups[] = {
        { "map-unmap, unmap-storm", "map-unmap" },
        { "asid-flush", "asid-flush" },
        { "dma-bench", "dma-bench" },
        { "probe-storm, probe-storm-nvme", "probe-storm" },
        { "group-storm", "group-storm" },
    };
    GString *s = g_string_new(NULL);
    guint i;

    g_string_append(s, "# Metric ids\n\n"
        "Generated by `build/runner/smmulab-run --metrics` from the runner's "
        "own list (`runner/metrics.c`); `make check` fails when this file "
        "and that output differ.  A scenario's `primary=` takes "
        "`runs_with_soft_lockup` (runs with a soft lockup, Fisher's or "
        "McNemar's test), `runs_with_timeout` (runs with a CMDQ or CMD_SYNC "
        "timeout) or one of the ids below: the workload's own, or one of "
        "every workload.  The report's table has a row for each, "
        "`report.json` names them, and a comparison of one tests its "
        "per-run values (docs/scenarios.md, \"The report\").\n");
    for (i = 0; i < G_N_ELEMENTS(groups); i++) {
        g_string_append_printf(s, "\n## kind=%s\n\n", groups[i].kinds);
        metrics_rows(s, report_workload_metrics(groups[i].one));
    }
    g_string_append(s, "\n## Every workload\n\n");
    metrics_rows(s, report_common_metrics);
    return g_string_free(s, FALSE);
}
