/*
 * smmulab: scenario reports from recorded runs: the text report and
 * report.json (this file), the verdicts (report-verdict.c), the drawings
 * (report-svg.c) and the page (report-html.c)
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
#include "json.h"
#include "record.h"
#include "report.h"
#include "report-internal.h"

/* A run's outcome as compared between runs: RESULT lines and counters */
char *report_run_signature(JsonObject *r)
{
    g_autoptr(JsonGenerator) gen = json_generator_new();
    JsonNode *lines = json_object_get_member(r, "result_lines");
    JsonNode *stats = json_object_get_member(r, "stats");
    g_autofree char *a = NULL, *s = NULL;

    json_generator_set_root(gen, lines);
    a = json_generator_to_data(gen, NULL);
    if (stats) {
        json_generator_set_root(gen, stats);
        s = json_generator_to_data(gen, NULL);
    }
    return g_strconcat(a, "|", s ? s : "", NULL);
}

/*
 * Under icount, what the repeats show.  Unseeded repeats (runs.json before
 * seeds) must agree exactly.  Seeded repeats each draw their own seed from
 * the scenario's: a rerun of the file gives the same runs bit for bit, and
 * the repeats of one variant should differ from each other, or they carry
 * the information of one run.
 */
static char *determinism(JsonObject *sc, JsonArray *runs, JsonBuilder *b)
{
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash,
                                                       g_str_equal, g_free,
                                                       NULL);
    g_autoptr(GHashTable) first = g_hash_table_new_full(g_str_hash,
                                                        g_str_equal, g_free,
                                                        g_free);
    g_autoptr(GString) diff = g_string_new(NULL);
    guint i, compared = 0, repeated = 0;
    gboolean seeded = FALSE;

    if (!json_object_get_boolean_member(sc, "icount")) {
        json_builder_set_member_name(b, "deterministic");
        json_builder_add_null_value(b);
        return g_strdup("not checked (icount off: times follow the host)");
    }
    for (i = 0; i < json_array_get_length(runs); i++) {
        seeded |= json_object_has_member(
            json_array_get_object_element(runs, i), "seed");
    }
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        g_autofree char *key = g_strdup_printf("%s|%s|%d",
            json_object_get_string_member(r, "variant"),
            json_object_get_string_member_with_default(r, "point", ""),
            json_object_get_boolean_member(r, "control"));
        char *sig = report_run_signature(r);
        g_autofree char *both = g_strconcat(key, "#", sig, NULL);
        const char *prev = g_hash_table_lookup(first, key);

        if (!prev) {
            g_hash_table_insert(first, g_strdup(key), sig);
            g_hash_table_add(seen, g_steal_pointer(&both));
            continue;
        }
        compared++;
        if (seeded) {
            repeated += g_hash_table_contains(seen, both);
            g_hash_table_add(seen, g_steal_pointer(&both));
        } else if (strcmp(prev, sig) && !diff->len) {
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
    if (seeded) {
        json_builder_set_member_name(b, "deterministic");
        json_builder_add_null_value(b);
        json_builder_set_member_name(b, "repeats_compared");
        json_builder_add_int_value(b, compared);
        json_builder_set_member_name(b, "repeats_repeated");
        json_builder_add_int_value(b, repeated);
        if (!compared) {
            return g_strdup("seeded repeats; one run per variant");
        }
        return g_strdup_printf("seeded repeats (a rerun of this file gives "
                               "them again bit for bit): %u of %u repeated "
                               "runs differ from every earlier run of their "
                               "variant%s", compared - repeated, compared,
                               repeated ? " (the others repeat one: fewer "
                               "independent samples than runs)" : "");
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
                           "(RESULT lines and model counters): unseeded "
                           "repeats under icount carry the information of "
                           "one run", compared);
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
                json_builder_add_int_value(b, report_count_positive(v));
            }
        }
        json_builder_end_object(b);
    }
    if (!s.n) {
        return g_strdup("-");
    }
    if (m->agg == AGG_SUM) {
        return g_strdup_printf("%.*f (%u/%u)", m->decimals, s.sum,
                               report_count_positive(v), (guint)s.n);
    }
    mean = report_fmt_mean(s.mean, m->decimals);
    if (s.n == 1 || s.min == s.max) {
        return g_steal_pointer(&mean);
    }
    lo = report_fmt(s.min, m->decimals);
    hi = report_fmt(s.max, m->decimals);
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

        if (g_str_has_prefix(list[i].src, "lines:")) {
            /* the line-transfer model's rows only where it ran */
            for (c = 0; c < cols->len && !any; c++) {
                g_autoptr(GArray) v = report_values_of(
                    runs, &list[i], g_ptr_array_index(cols, c), point);

                any = v->len > 0;
            }
            if (!any) {
                continue;
            }
            any = FALSE;
        }
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
            g_autoptr(GArray) v = report_values_of(runs, &list[i], col, point);

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
    int k;
    guint p;

    if (report_chart(kind)) {
        ids[0] = report_chart(kind)->line;
    }
    for (k = 0; k < (int)G_N_ELEMENTS(ids); k++) {
        const Metric *m = ids[k] ? report_find_metric(kind, ids[k]) : NULL;
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
                g_autoptr(GArray) v = report_values_of(runs, m, col, pt);

                g_ptr_array_add(cells, cell(NULL, m, v));
            }
            text_row(t, label, cells, cols->len, split);
        }
        g_string_append_c(t, '\n');
    }
}

/* The first 12 hex digits of a hash member, or "?" */
static char *short_hash(JsonObject *o, const char *key)
{
    const char *h = json_object_get_string_member_with_default(o, key, NULL);

    return g_strndup(h ? h : "?", 12);
}

/* The kernel= of @name in the scenario's variants, or NULL: the kit's */
static const char *own_kernel(JsonObject *root, const char *name)
{
    JsonObject *sc = report_member_obj(root, "scenario");
    JsonArray *vs = sc && json_object_has_member(sc, "variants") &&
                    JSON_NODE_HOLDS_ARRAY(json_object_get_member(sc,
                                                                 "variants")) ?
                    json_object_get_array_member(sc, "variants") : NULL;
    guint i;

    for (i = 0; vs && i < json_array_get_length(vs); i++) {
        JsonNode *n = json_array_get_element(vs, i);
        JsonObject *v = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) :
                        NULL;

        if (v && !g_strcmp0(json_object_get_string_member_with_default(
                                v, "name", NULL), name)) {
            return json_object_get_string_member_with_default(v, "kernel",
                                                              NULL);
        }
    }
    return NULL;
}

/*
 * The kernels the runs booted: "Linux V (Image H, config C)" when the
 * kit's kernel ran them all, otherwise each variant's in the order the
 * runs list them, a variant's own kernel= with its path and (when
 * recorded) its Image's hash
 */
static void kernels(GString *t, JsonObject *root, JsonObject *p,
                    JsonArray *runs)
{
    JsonObject *own = report_member_obj(p, "variant_kernels_sha256");
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autoptr(GPtrArray) versions = g_ptr_array_new();
    g_autofree char *hi = short_hash(p, "kernel_image_sha256");
    g_autofree char *hc = short_hash(p, "kernel_config_sha256");
    gboolean one = TRUE;
    guint i, j;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        const char *v = json_object_get_string_member_with_default(
            r, "variant", NULL);
        const char *kv = json_object_get_string_member_with_default(
            r, "kernel_version", NULL);

        if (!v || !kv) {
            continue;
        }
        for (j = 0; j < names->len && strcmp(names->pdata[j], v); j++) {
        }
        if (j == names->len) {
            g_ptr_array_add(names, (gpointer)v);
            g_ptr_array_add(versions, (gpointer)kv);
            one = one && !own_kernel(root, v);
        }
        one = one && !strcmp(versions->pdata[0], kv);
    }
    if (one) {
        g_string_append_printf(t, "Linux %s (Image %s, config %s)",
                               versions->len ? (char *)versions->pdata[0] :
                               "?", hi, hc);
        return;
    }
    for (i = 0; i < names->len; i++) {
        const char *k = own_kernel(root, names->pdata[i]);
        const char *h = own ? json_object_get_string_member_with_default(
                                  own, names->pdata[i], NULL) : NULL;

        g_string_append_printf(t, "%sLinux %s for %s", i ? ", " : "",
                               (char *)versions->pdata[i],
                               (char *)names->pdata[i]);
        if (k && h) {
            g_string_append_printf(t, " (own kernel %s, Image %.12s)", k, h);
        } else if (k) {
            g_string_append_printf(t, " (own kernel %s, Image not recorded)",
                                   k);
        } else {
            g_string_append_printf(t, " (Image %s, config %s)", hi, hc);
        }
    }
}

/* What produced the runs, from runs.json's "provenance" (if recorded) */
static void provenance(GString *t, JsonObject *root, JsonArray *runs)
{
    JsonObject *p = report_member_obj(root, "provenance");
    g_autofree char *hq = NULL, *hl = NULL;

    if (!p) {
        return;
    }
    hq = short_hash(p, "qemu_patches_sha256");
    hl = short_hash(p, "linux_patches_sha256");
    g_string_append_printf(t, "  built from: smmulab %s; %s; ",
        json_object_get_string_member_with_default(p, "smmulab", "?"),
        json_object_get_string_member_with_default(p, "qemu", "QEMU ?"));
    kernels(t, root, p, runs);
    g_string_append_printf(t, "; patches: qemu %s, linux %s\n", hq, hl);
    g_string_append_printf(t, "  host: %s, %" G_GINT64_FORMAT " cores; "
                           "smmulab-run %s: %s\n",
        json_object_get_string_member_with_default(p, "host_cpu", "?"),
        json_object_get_int_member_with_default(p, "host_cores", 0),
        json_object_get_string_member_with_default(p, "runner_version", "?"),
        json_object_get_string_member_with_default(p, "runner_cmdline", "?"));
}

/*
 * What a lock comparison on this host can measure: with more vCPUs than
 * host cores (or under icount, one host thread for all) CPUs take turns.
 */
static void cores_note(GString *t, JsonObject *sc, JsonObject *root)
{
    JsonObject *p = report_member_obj(root, "provenance");
    gint64 cpus = json_object_get_int_member_with_default(sc, "cpus", 0);
    gint64 cores = p ? json_object_get_int_member_with_default(p, "host_cores",
                                                               0) : 0;

    if (cpus <= 1) {
        return;
    }
    if (json_object_get_boolean_member(sc, "icount") &&
        (json_object_get_int_member_with_default(sc, "quantum_ns", 0) ||
         !g_strcmp0(json_object_get_string_member_with_default(
                        sc, "sweep_key", ""), "machine.quantum"))) {
        g_string_append_printf(t, "  note: in lock-step quanta the %"
                               G_GINT64_FORMAT " vCPUs run in parallel in "
                               "virtual time (at quantum 0, stock icount, "
                               "they share one clock); every contention "
                               "figure depends on the quantum "
                               "(docs/scenarios.md, \"What a quantum "
                               "means\")\n", cpus);
    } else if (json_object_get_boolean_member(sc, "icount")) {
        g_string_append_printf(t, "  note: under icount the %" G_GINT64_FORMAT
                               " vCPUs run on one host thread in one "
                               "virtual clock: %" G_GINT64_FORMAT " CPUs "
                               "sharing one; a lock comparison measures "
                               "that time-sharing, not many-core contention "
                               "(the scenario asks for %" G_GINT64_FORMAT
                               " cores)\n", cpus, cpus, cpus);
    } else if (cores && cpus > cores) {
        g_string_append_printf(t, "  note: %" G_GINT64_FORMAT " vCPUs on %"
                               G_GINT64_FORMAT " host cores take turns: a "
                               "lock comparison measures time-sharing, not "
                               "many-core contention (the scenario asks for "
                               "%" G_GINT64_FORMAT " cores)\n", cpus, cores,
                               cpus);
    }
}

/*
 * Whether kernel parameters (or a kernel's "ran" line) name cmdq_alloc=add:
 * "arm_smmu_v3.cmdq_alloc=cmpxchg (add requested: ...)" is cmpxchg
 */
static gboolean names_add(const char *params)
{
    const char *at = params ? strstr(params, "arm_smmu_v3.cmdq_alloc=") :
        NULL;

    return at && g_str_has_prefix(at + strlen("arm_smmu_v3.cmdq_alloc="),
                                  "add");
}

/*
 * Soft lockups counted under cmdq_alloc=add and under cmpxchg do not
 * count the same thing: under add a gathered CPU waits for its owner with
 * interrupts off, where the watchdog's timer cannot run.  Each run is
 * taken by what its kernel said it ran, or else by what it asked for.
 */
static void alloc_note(GString *t, JsonObject *sc, JsonArray *runs)
{
    const char *common = json_object_get_string_member_with_default(
        sc, "append", "");
    JsonArray *vs = json_object_has_member(sc, "variants") ?
        json_object_get_array_member(sc, "variants") : NULL;
    gboolean add = FALSE, cmpxchg = FALSE;
    guint i, j;

    for (i = 0; runs && i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        const char *ran = json_object_get_string_member_with_default(
            r, "ran", "");
        const char *asked = "";

        if (json_object_get_boolean_member_with_default(r, "control",
                                                        FALSE)) {
            continue;
        }
        for (j = 0; vs && j < json_array_get_length(vs); j++) {
            JsonObject *v = json_array_get_object_element(vs, j);

            if (!g_strcmp0(json_object_get_string_member_with_default(
                               v, "name", ""),
                           json_object_get_string_member_with_default(
                               r, "variant", NULL))) {
                asked = json_object_get_string_member_with_default(
                    v, "append", "");
            }
        }
        if (*ran ? names_add(ran) : names_add(asked) || names_add(common)) {
            add = TRUE;
        } else {
            cmpxchg = TRUE;
        }
    }
    if (add && cmpxchg) {
        g_string_append(t, "  note: soft lockup counts are not comparable "
                        "across cmdq_alloc: under add a CPU gathered by "
                        "another waits for its publication with interrupts "
                        "off, where the watchdog cannot see it; every soft "
                        "lockup line between add and cmpxchg variants "
                        "compares unlike counts (docs/guest.md, \"Stalls "
                        "under `add`\")\n");
    }
}

/*
 * The line-transfer model (-icount line-ns=): its T, and per variant the
 * three lines whose transfers cost most over its runs (the code and the
 * data they belong to, from the kernel's System.map)
 */
static void lines_note(GString *t, JsonArray *runs, GPtrArray *cols)
{
    gint64 line_ns = -1;
    gboolean said = FALSE;
    guint c, i, j;

    for (c = 0; c < cols->len; c++) {
        Column *col = g_ptr_array_index(cols, c);
        g_autoptr(GHashTable) cost = g_hash_table_new_full(g_str_hash,
                                                           g_str_equal,
                                                           g_free, g_free);
        g_autoptr(GList) keys = NULL;
        GList *l;
        guint nruns = 0, shown = 0;

        if (col->control) {
            continue;
        }
        for (i = 0; runs && i < json_array_get_length(runs); i++) {
            JsonObject *r = json_array_get_object_element(runs, i);
            JsonObject *ln = report_member_obj(r, "lines");
            JsonArray *hot;

            if (!ln || json_object_get_boolean_member_with_default(
                           r, "control", FALSE) ||
                g_strcmp0(json_object_get_string_member_with_default(
                              r, "variant", ""), col->variant)) {
                continue;
            }
            line_ns = json_object_get_int_member_with_default(ln, "line_ns",
                                                              line_ns);
            nruns++;
            hot = json_object_has_member(ln, "hottest") ?
                json_object_get_array_member(ln, "hottest") : NULL;
            for (j = 0; hot && j < json_array_get_length(hot); j++) {
                JsonObject *h = json_array_get_object_element(hot, j);
                const char *fn = json_object_get_string_member_with_default(
                    h, "function", "");
                const char *data = json_object_get_string_member_with_default(
                    h, "data", "");
                char *key = g_strdup_printf("%s (data %s)",
                    *fn ? fn : json_object_get_string_member_with_default(
                        h, "pc", "?"),
                    *data ? data : "not a kernel symbol");
                double *v = g_hash_table_lookup(cost, key);

                if (!v) {
                    v = g_new0(double, 2);
                    g_hash_table_insert(cost, key, v);
                } else {
                    g_free(key);
                }
                v[0] += json_object_get_int_member_with_default(
                    h, "stall_insns", 0);
                v[1] += json_object_get_int_member_with_default(
                    h, "transfers", 0);
            }
        }
        if (!nruns) {
            continue;
        }
        if (!said) {
            said = TRUE;
            g_string_append_printf(t, "  cache lines: a transfer of a "
                                   "contended line costs %" G_GINT64_FORMAT
                                   " ns (line-ns); the hottest, per run:\n",
                                   line_ns);
        }
        keys = g_hash_table_get_keys(cost);
        /* by stall, most first (ties by name: the same every time) */
        for (shown = 0; shown < 3 && keys; shown++) {
            GList *best = NULL;
            double *bv = NULL;

            for (l = keys; l; l = l->next) {
                double *v = g_hash_table_lookup(cost, l->data);

                if (!bv || v[0] > bv[0] ||
                    (v[0] == bv[0] && strcmp(l->data, best->data) < 0)) {
                    best = l;
                    bv = v;
                }
            }
            g_string_append_printf(t, "    %s: %s, %.0f transfers\n",
                                   col->name, (char *)best->data,
                                   bv[1] / nruns);
            keys = g_list_delete_link(keys, best);
        }
    }
}

/* Whether a run's guest said its kernel has none of the kit's counters */
static gboolean run_without_series(JsonObject *r)
{
    JsonArray *lines = json_object_has_member(r, "result_lines") ?
        json_object_get_array_member(r, "result_lines") : NULL;
    guint i;

    for (i = 0; lines && i < json_array_get_length(lines); i++) {
        if (!strcmp(json_array_get_string_element(lines, i),
                    "kit-series=absent")) {
            return TRUE;
        }
    }
    return FALSE;
}

/*
 * The variants whose kernel lacks the kit's patch series (a stock kernel,
 * a tree of the user's the series does not apply to): one line, so that
 * their empty driver rows and console-counted timeouts are explained.
 */
static void series_note(GString *t, JsonArray *runs, GPtrArray *cols)
{
    g_autoptr(GString) which = g_string_new(NULL);
    guint i, j;

    for (i = 0; i < cols->len; i++) {
        const Column *c = g_ptr_array_index(cols, i);
        const char *kv = NULL;

        if (c->control) {
            continue;
        }
        for (j = 0; j < json_array_get_length(runs); j++) {
            JsonObject *r = json_array_get_object_element(runs, j);

            if (!strcmp(json_object_get_string_member(r, "variant"),
                        c->variant) && run_without_series(r)) {
                kv = json_object_get_string_member_with_default(
                    r, "kernel_version", "?");
                break;
            }
        }
        if (kv) {
            g_string_append_printf(which, "%s%s (Linux %s)",
                                   which->len ? ", " : "", c->variant,
                                   kv);
        }
    }
    if (which->len) {
        g_string_append_printf(t, "  kernel without the kit's series: no "
                               "driver counters, no driver variants, "
                               "timeouts from console lines (at least): "
                               "%s\n", which->str);
    }
}

/*
 * Each variant's kernel parameters as the scenario asked for them, and
 * what the kernel said it ran: the kit's variant lines, the same in every
 * run or each distinct one with its count
 */
static void variants_ran(GString *t, JsonBuilder *b, JsonObject *sc,
                         JsonArray *runs)
{
    JsonArray *vars = json_object_get_array_member(sc, "variants");
    const char *common = json_object_get_string_member_with_default(
        sc, "append", NULL);
    guint i, j;

    json_builder_set_member_name(b, "variants");
    json_builder_begin_array(b);
    g_string_append(t, "  variants (kernel parameters asked; what the kernel "
                    "said it ran):\n");
    for (i = 0; vars && i < json_array_get_length(vars); i++) {
        JsonObject *v = json_array_get_object_element(vars, i);
        const char *name = json_object_get_string_member(v, "name");
        const char *app = json_object_get_string_member_with_default(
            v, "append", "");
        g_autoptr(GPtrArray) said = g_ptr_array_new();
        g_autoptr(GArray) count = g_array_new(FALSE, TRUE, sizeof(guint));
        guint nrun = 0, nsaid = 0, nrecorded = 0;

        for (j = 0; j < json_array_get_length(runs); j++) {
            JsonObject *r = json_array_get_object_element(runs, j);
            const char *x;
            guint k;

            if (strcmp(json_object_get_string_member(r, "variant"), name)) {
                continue;
            }
            nrun++;
            nrecorded += json_object_has_member(r, "kernel_cmdline");
            x = json_object_get_string_member_with_default(r, "ran", NULL);
            if (!x || !*x) {
                continue;
            }
            nsaid++;
            for (k = 0; k < said->len; k++) {
                if (!strcmp(g_ptr_array_index(said, k), x)) {
                    break;
                }
            }
            if (k == said->len) {
                g_ptr_array_add(said, (gpointer)x);
                g_array_set_size(count, k + 1);
            }
            g_array_index(count, guint, k)++;
        }
        json_builder_begin_object(b);
        smmulab_json_add_string(b, "name", name);
        smmulab_json_add_string(b, "append", app);
        json_builder_set_member_name(b, "ran");
        json_builder_begin_array(b);
        g_string_append_printf(t, "    %s: %s%s%s%s", name,
                               common && *common ? common : "",
                               common && *common && *app ? " " : "", app,
                               !*app && !(common && *common) ?
                               "(the kernel's defaults)" : "");
        if (!said->len) {
            g_string_append_printf(t, "; ran: %s\n", !nrun ? "no run" :
                                   !nrecorded ? "not recorded (runs.json "
                                   "from before the runner read it)" :
                                   "the kernel printed no variant line");
        }
        for (j = 0; j < said->len; j++) {
            g_string_append_printf(t, "%s%s (%u of %u runs)",
                                   j ? "; or " : "; ran: ",
                                   (char *)g_ptr_array_index(said, j),
                                   g_array_index(count, guint, j), nrun);
            json_builder_begin_object(b);
            smmulab_json_add_string(b, "said", g_ptr_array_index(said, j));
            smmulab_json_add_int(b, "runs", g_array_index(count, guint, j));
            json_builder_end_object(b);
        }
        if (said->len) {
            if (nsaid < nrecorded) {
                g_string_append_printf(t, "; %u run(s) printed none",
                                       nrecorded - nsaid);
            }
            g_string_append_c(t, '\n');
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

/* A report in the making: the runs it is made from and what they tally */
typedef struct Report {
    JsonObject *root, *sc;
    JsonArray *runs;
    JsonArray *points;          /* the sweep's, or NULL */
    GPtrArray *cols;
    const char *kind;
    GString *t;                 /* report.txt */
    JsonBuilder *b;             /* report.json */
    guint nrun, nok, nctl, nexact, ncounted;
    gboolean has_control, reliable;
    const char *ctl_why;        /* what is wrong with the control runs */
} Report;

/* The runs that ended ok, and those whose timeouts the kernel counted */
static void tally_runs(Report *rp)
{
    guint i;

    rp->nrun = json_array_get_length(rp->runs);
    for (i = 0; i < rp->nrun; i++) {
        JsonObject *r = json_array_get_object_element(rp->runs, i);

        rp->nok += !strcmp(json_object_get_string_member(r, "verdict"), "ok");
        if (report_run_counts(r)) {
            rp->ncounted++;
            rp->nexact += json_object_get_boolean_member_with_default(
                r, "timeouts_exact", FALSE);
        }
    }
}

/* report.json's first members; returns the determinism line's text */
static char *json_head(Report *rp)
{
    JsonBuilder *b = rp->b;
    char *det;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "scenario");
    json_builder_add_value(b, json_node_copy(
        json_object_get_member(rp->root, "scenario")));
    det = determinism(rp->sc, rp->runs, b);
    json_builder_set_member_name(b, "reliable");
    if (rp->has_control) {
        json_builder_add_boolean_value(b, rp->reliable);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "control_problems");
    if (rp->has_control && rp->ctl_why) {
        json_builder_add_string_value(b, rp->ctl_why);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "runs_ok");
    json_builder_add_int_value(b, rp->nok);
    json_builder_set_member_name(b, "runs_total");
    json_builder_add_int_value(b, rp->nrun);
    return det;
}

/* The header's lines on what ran: scenario, model, builds, runs, design */
static void header_setup(Report *rp, const char *det)
{
    GString *t = rp->t;
    JsonObject *sc = rp->sc;

    g_string_append_printf(t, "  scenario %s, workload %s, %" G_GINT64_FORMAT
                           " run(s) per variant%s\n",
                           json_object_get_string_member(sc, "file"),
                           rp->kind,
                           json_object_get_int_member(sc, "repeat"),
                           rp->points ? " and sweep point" : "");
    g_string_append_printf(t, "  model: %s\n",
                           json_object_get_string_member(sc, "smmu"));
    g_string_append_printf(t, "  machine: %s\n",
                           json_object_get_string_member(sc, "machine"));
    provenance(t, rp->root, rp->runs);
    variants_ran(t, rp->b, sc, rp->runs);
    cores_note(t, sc, rp->root);
    alloc_note(t, sc, rp->runs);
    g_string_append_printf(t, "  runs: %u of %u ok\n", rp->nok, rp->nrun);
    g_string_append_printf(t, "  %s: %s\n",
                           json_object_has_member(sc, "seed") ? "repeats" :
                           "deterministic", det);
    g_string_append_printf(t, "  design: %s\n", report_paired(sc) ?
                           "paired: repeat r of every variant booted with "
                           "one seed (common random numbers); each variant "
                           "is compared with the baseline pair by pair "
                           "(Wilcoxon signed-rank test and paired "
                           "Hodges-Lehmann shift on the differences, "
                           "McNemar's exact test on runs with an event)" :
                           "independent: a seed per variant and repeat; "
                           "runs compared as two samples (Mann-Whitney U "
                           "test and Hodges-Lehmann shift, Fisher's exact "
                           "test on runs with an event)");
}

/* The header's lines on what the comparison rests on: control, timeouts */
static void header_trust(Report *rp)
{
    GString *t = rp->t;

    if (rp->has_control && rp->reliable) {
        g_string_append_printf(t, "  control (fast hardware: every cost 0, "
                               "cmdqs=19, RIL on): clean: %u of %u control "
                               "run(s) ok, no lockup or timeout: the "
                               "comparison stands\n", rp->nctl, rp->nctl);
    } else if (rp->has_control) {
        g_string_append_printf(t, "  control (fast hardware: every cost 0, "
                               "cmdqs=19, RIL on): UNRELIABLE: %s: the "
                               "comparison is unreliable, do not blame a "
                               "variant\n", rp->ctl_why);
    } else {
        g_string_append(t, "  control: not run: nothing shows that the host "
                        "itself does not stall the guest\n");
    }
    g_string_append_printf(t, "  timeouts: %s\n",
                           !rp->ncounted ? "no run to count" :
                           rp->nexact == rp->ncounted ?
                           "counted by the kit kernel, rate-limited messages "
                           "included (exact)" :
                           rp->nexact ? "exact where the kernel counted, "
                           "console lines elsewhere (at least)" :
                           "console lines only (at least: the kernel rate "
                           "limits them)");
}

/* A line for each run that did not end ok */
static void failed_runs(GString *t, JsonArray *runs)
{
    guint i;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        const char *pt;

        if (!strcmp(json_object_get_string_member(r, "verdict"), "ok")) {
            continue;
        }
        pt = json_object_get_string_member_with_default(r, "point", "");
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

/*
 * The header: title, then the lines on the runs, which report.json keeps
 * too (as "header", without the title)
 */
static void text_header(Report *rp, const char *det)
{
    GString *t = rp->t;
    g_auto(GStrv) lines = NULL;
    gsize head_start;
    guint i;

    g_string_append_printf(t, "smmulab report: %s\n",
                           json_object_get_string_member(rp->sc, "name"));
    if (json_object_has_member(rp->sc, "description")) {
        g_string_append_printf(t, "  %s\n", json_object_get_string_member(
                                   rp->sc, "description"));
    }
    head_start = t->len;
    header_setup(rp, det);
    header_trust(rp);
    series_note(t, rp->runs, rp->cols);
    lines_note(t, rp->runs, rp->cols);
    failed_runs(t, rp->runs);

    lines = g_strsplit(t->str + head_start, "\n", -1);
    json_builder_set_member_name(rp->b, "header");
    json_builder_begin_array(rp->b);
    for (i = 0; lines[i]; i++) {
        if (*g_strstrip(lines[i])) {
            json_builder_add_string_value(rp->b, lines[i]);
        }
    }
    json_builder_end_array(rp->b);
    g_string_append_c(t, '\n');
}

/* The table: the columns' names, then a row block per sweep point */
static void tables(Report *rp)
{
    const Metric *wm = report_workload_metrics(rp->kind);
    JsonBuilder *b = rp->b;
    guint i, p;

    json_builder_set_member_name(b, "columns");
    json_builder_begin_array(b);
    for (i = 0; i < rp->cols->len; i++) {
        json_builder_add_string_value(b,
            ((Column *)g_ptr_array_index(rp->cols, i))->name);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "table");
    json_builder_begin_array(b);
    if (!rp->points || !json_array_get_length(rp->points)) {
        header_row(rp->t, rp->cols, "");
        if (wm) {
            add_table(rp->t, b, rp->runs, rp->cols, wm, NULL);
        }
        add_table(rp->t, b, rp->runs, rp->cols, report_common_metrics, NULL);
        json_builder_end_array(b);
        return;
    }
    sweep_summary(rp->t, rp->sc, rp->runs, rp->cols, rp->kind, rp->points);
    for (p = 0; p < json_array_get_length(rp->points); p++) {
        const char *pt = json_array_get_string_element(rp->points, p);
        g_autofree char *head = g_strdup_printf("%s=%s",
            json_object_get_string_member(rp->sc, "sweep_key"), pt);

        header_row(rp->t, rp->cols, head);
        if (wm) {
            add_table(rp->t, b, rp->runs, rp->cols, wm, pt);
        }
        add_table(rp->t, b, rp->runs, rp->cols, report_common_metrics, pt);
        g_string_append_c(rp->t, '\n');
    }
    json_builder_end_array(b);
}

/* report.json's last members: the provenance and the runs themselves */
static void json_tail(Report *rp)
{
    JsonBuilder *b = rp->b;

    if (json_object_has_member(rp->root, "provenance")) {
        json_builder_set_member_name(b, "provenance");
        json_builder_add_value(b, json_node_copy(
            json_object_get_member(rp->root, "provenance")));
    }
    json_builder_set_member_name(b, "runs");
    json_builder_add_value(b, json_node_copy(
        json_object_get_member(rp->root, "runs")));
    json_builder_end_object(b);
}

/* DIR/NAME with @text in it */
static gboolean write_in(const char *dir, const char *name, const char *text,
                         GError **err)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);

    return g_file_set_contents(path, text, -1, err);
}

/* The report's files: the CDF (if drawn), the text, JSON, SVG and page */
static gboolean write_files(const char *dir, const char *txt,
                            const char *json, const char *svg,
                            const char *cdf, const char *html, GError **err)
{
    if (cdf && !write_in(dir, "report-cdf.svg", cdf, err)) {
        return FALSE;
    }
    return write_in(dir, "report.txt", txt, err) &&
           write_in(dir, "report.json", json, err) &&
           write_in(dir, "report.svg", svg, err) &&
           write_in(dir, "report.html", html, err);
}

char *smmulab_report_write(JsonNode *doc, const char *dir, GError **err)
{
    JsonObject *root = json_node_get_object(doc);
    JsonObject *sc = json_object_get_object_member(root, "scenario");
    JsonArray *runs = json_object_get_array_member(root, "runs");
    g_autoptr(GPtrArray) cols = report_columns_of(sc, runs);
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) out = NULL;
    g_autofree char *det = NULL, *svg = NULL, *json = NULL;
    g_autofree char *html = NULL, *cdf = NULL, *ctl_why = NULL;
    Report rp = {
        .root = root,
        .sc = sc,
        .runs = runs,
        .points = json_object_has_member(sc, "sweep_values") ?
            json_object_get_array_member(sc, "sweep_values") : NULL,
        .cols = cols,
        .kind = json_object_get_string_member(sc, "workload"),
        .t = g_string_new(NULL),
        .b = b,
        .has_control = json_object_get_boolean_member(sc, "control"),
    };

    tally_runs(&rp);
    ctl_why = report_control_problems(runs, &rp.nctl);
    rp.ctl_why = ctl_why;
    rp.reliable = rp.has_control && !ctl_why;

    det = json_head(&rp);
    text_header(&rp, det);
    report_verdicts(rp.t, b, sc, runs, cols, rp.kind, rp.points,
                    rp.has_control && !rp.reliable);
    report_evidence(rp.t, runs);
    report_places(rp.t, b, runs);
    tables(&rp);
    json_tail(&rp);

    out = json_builder_get_root(b);
    json_generator_set_root(gen, out);
    json_generator_set_pretty(gen, TRUE);
    json = json_generator_to_data(gen, NULL);
    svg = report_svg_chart(sc, runs, cols, rp.kind);
    cdf = report_cdf_svg(sc, runs, cols);
    html = report_html(json_node_get_object(out), runs, svg, cdf);
    if (!write_files(dir, rp.t->str, json, svg, cdf, html, err)) {
        g_string_free(rp.t, TRUE);
        return NULL;
    }
    return g_string_free(rp.t, FALSE);
}

char *smmulab_report_from_dir(const char *dir, GError **err)
{
    g_autoptr(JsonNode) root = smmulab_runs_load(dir, err);

    return root ? smmulab_report_write(root, dir, err) : NULL;
}
