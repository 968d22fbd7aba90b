/*
 * smmulab: a scenario's plan — every boot, numbered: at each sweep point,
 * REPEAT rounds of every variant in turn, then the controls
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "abtest.h"

#include "plan.h"
#include "json.h"
#include "report-internal.h"
#include "topology.h"

/*
 * The seed of repeat @rep of variant @v: under design=paired every variant
 * boots repeat r with smmulab_repeat_seed(seed, r), so that runs pair up
 * (common random numbers); under design=independent each variant draws
 * its own, the first variant's being the paired design's
 */
static guint64 boot_seed(const SmmulabScenario *sc, guint v, guint rep)
{
    if (sc->paired || v == 0) {
        return smmulab_repeat_seed(sc->seed, rep);
    }
    return smmulab_repeat_seed(smmulab_repeat_seed(sc->seed, 0x10000u + v),
                               rep);
}

GArray *smmulab_plan_make(const SmmulabScenario *sc)
{
    GArray *plan = g_array_new(FALSE, TRUE, sizeof(SmmulabBoot));
    guint i, v, p, rep, npoints;

    npoints = sc->sweep_group ? sc->sweep_values->len : 1;
    /*
     * Variants take turns, repeat by repeat (A B A B ..., not A A B B):
     * a host whose state drifts over the plan (caches, other load, the
     * previous QEMU still exiting) then weighs on every variant alike.
     */
    for (p = 0; p < npoints; p++) {
        for (rep = 1; rep <= sc->repeat; rep++) {
            for (v = 0; v < sc->variants->len; v++) {
                SmmulabVariant *var = g_ptr_array_index(sc->variants, v);
                SmmulabBoot pl = {
                    0, var->name, var->append, var->kernel, var->initrd,
                    sc->sweep_group ?
                        g_ptr_array_index(sc->sweep_values, p) : NULL,
                    FALSE, rep, boot_seed(sc, v, rep)
                };

                g_array_append_val(plan, pl);
            }
        }
    }
    if (sc->control) {
        /*
         * Fast hardware ignores a sweep of the model, but not a sweep of
         * the machine or workload: then each point has its control.
         */
        gboolean per_point = sc->sweep_group &&
                             strcmp(sc->sweep_group, "smmu") != 0;

        for (p = 0; p < (per_point ? npoints : 1); p++) {
            for (v = 0; v < sc->variants->len; v++) {
                SmmulabVariant *var = g_ptr_array_index(sc->variants, v);
                SmmulabBoot pl = {
                    0, var->name, var->append, var->kernel, var->initrd,
                    per_point ? g_ptr_array_index(sc->sweep_values, p) : NULL,
                    TRUE, 1, boot_seed(sc, v, 1)
                };

                g_array_append_val(plan, pl);
            }
        }
    }

    for (i = 0; i < plan->len; i++) {
        g_array_index(plan, SmmulabBoot, i).index = i + 1;
    }
    return plan;
}

/* "I/N" with 1 <= I <= N */
static gboolean parse_shard(const char *s, guint *i, guint *n)
{
    char *end;
    guint64 a, b;

    a = g_ascii_strtoull(s, &end, 10);
    if (end == s || *end != '/') {
        return FALSE;
    }
    b = g_ascii_strtoull(end + 1, &end, 10);
    if (*end || !b || !a || a > b || b > 100000) {
        return FALSE;
    }
    *i = a;
    *n = b;
    return TRUE;
}

gboolean smmulab_plan_select(GArray *plan, const char *shard,
                             const char *only, GError **err)
{
    guint shard_i = 0, shard_n = 0, i;

    if (shard && !parse_shard(shard, &shard_i, &shard_n)) {
        g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--shard %s: not I/N with 1 <= I <= N", shard);
        return FALSE;
    }
    if (shard || only) {
        g_autoptr(GArray) keep = g_array_new(FALSE, TRUE, sizeof(SmmulabBoot));
        g_auto(GStrv) ks = only ? g_strsplit(only, ",", -1) : NULL;
        g_autofree gboolean *pick = g_new0(gboolean, plan->len + 1);

        for (i = 0; ks && ks[i]; i++) {
            guint64 k;

            if (!g_ascii_string_to_unsigned(g_strstrip(ks[i]), 10, 1,
                                            plan->len, &k, NULL)) {
                g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "--only %s: %s is not a boot of the plan (1..%u)",
                            only, ks[i], plan->len);
                return FALSE;
            }
            pick[k] = TRUE;
        }
        for (i = 0; i < plan->len; i++) {
            SmmulabBoot *pl = &g_array_index(plan, SmmulabBoot, i);

            if ((!shard || i % shard_n == shard_i - 1) &&
                (!only || pick[pl->index])) {
                g_array_append_val(keep, *pl);
            }
        }
        if (!keep->len) {
            /* refused before anything is written */
            g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--shard %s: the plan has %u boot(s), so shard %u "
                        "of %u has none: give N of at most %u", shard,
                        plan->len, shard_i, shard_n, plan->len);
            return FALSE;
        }
        g_array_set_size(plan, 0);
        g_array_append_vals(plan, keep->data, keep->len);
    }

    return TRUE;
}

void smmulab_plan_print_list(GArray *plan, const SmmulabScenario *sc,
                             const char *topologies)
{
    g_autoptr(SmmulabTopology) topo = smmulab_topology_load(
        topologies, sc->workload, NULL, NULL);
    guint i;

    for (i = 0; i < plan->len; i++) {
        SmmulabBoot *pl = &g_array_index(plan, SmmulabBoot, i);
        g_autoptr(SmmulabScenario) pt = smmulab_scenario_at_point(sc,
            pl->point, pl->control);
        g_autoptr(JsonBuilder) b = json_builder_new();
        g_autoptr(JsonGenerator) gen = json_generator_new();
        g_autoptr(JsonNode) node = NULL;
        g_autofree char *line = NULL;
        g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT,
                                                pl->seed);

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "index");
        json_builder_add_int_value(b, pl->index);
        smmulab_json_add_string(b, "variant", pl->variant);
        smmulab_json_add_string(b, "point", pl->point);
        json_builder_set_member_name(b, "control");
        json_builder_add_boolean_value(b, pl->control);
        json_builder_set_member_name(b, "rep");
        json_builder_add_int_value(b, pl->rep);
        json_builder_set_member_name(b, "seed");
        json_builder_add_string_value(b, seed);
        json_builder_set_member_name(b, "cpus");
        json_builder_add_int_value(b, pt->cpus ? pt->cpus :
                                   (topo ? topo->cpus : 0));
        smmulab_json_add_string(b, "memory", pt->memory ? pt->memory :
                                (topo ? topo->memory : NULL));
        smmulab_json_add_string(b, "append", pl->append);
        json_builder_end_object(b);
        node = json_builder_get_root(b);
        json_generator_set_root(gen, node);
        line = json_generator_to_data(gen, NULL);
        printf("%s\n", line);
    }
}

void smmulab_plan_print_check(GArray *plan, const SmmulabScenario *sc,
                              const char *file)
{
    guint i, npoints = sc->sweep_group ? sc->sweep_values->len : 1;

    printf("%s: ok: workload %s, %u variant(s), %u point(s), %u run(s) "
           "per variant%s; %u boots, at most %u s each\n", file,
           sc->workload, sc->variants->len, npoints, sc->repeat,
           sc->control ? ", plus control" : "", plan->len, sc->timeout_s);
    {
        g_autofree char *pw = smmulab_plan_power(sc);

        printf("  %s\n", pw ? pw : "primary endpoint: none declared "
               "(primary= in [scenario]): no line of the report will be a "
               "verdict");
    }
    for (i = 0; i < plan->len; i++) {
        SmmulabBoot *pl = &g_array_index(plan, SmmulabBoot, i);
        g_autofree char *files = g_strdup_printf("%s%s%s%s",
            pl->kernel ? " [kernel " : "", pl->kernel ? pl->kernel : "",
            pl->initrd ? " initrd " : "", pl->initrd ? pl->initrd : "");

        printf("  %2u. %s%s%s%s rep %u: %s%s%s\n", pl->index,
               pl->control ? "control:" : "", pl->variant,
               pl->point ? " at " : "", pl->point ? pl->point : "",
               pl->rep, pl->append, files,
               pl->kernel || pl->initrd ? "]" : "");
    }
}

char *smmulab_plan_power(const SmmulabScenario *sc)
{
    guint n = sc->repeat;
    guint k = (sc->variants->len - 1) *
              (sc->sweep_group ? sc->sweep_values->len : 1);
    double alpha = SMMULAB_ALPHA / (k ? k : 1);
    GString *s;

    if (!sc->primary) {
        return NULL;
    }
    s = g_string_new(NULL);
    if (sc->paired) {
        g_string_append_printf(s, "primary endpoint %s, %u pairs (design "
                               "paired: repeat r of every variant boots "
                               "with one seed): ", sc->primary, n);
    } else {
        g_string_append_printf(s, "primary endpoint %s, n=%u+%u: ",
                               sc->primary, n, n);
    }
    if (!k) {
        g_string_append(s, "one variant, nothing to compare");
        return g_string_free(s, FALSE);
    }
    if (k > 1) {
        g_string_append_printf(s, "%u comparisons (Holm: the first at alpha "
                               "%.3g); ", k, alpha);
    }
    if (sc->paired && (!strcmp(sc->primary, REPORT_RUNS_WITH_LOCKUP) ||
                       !strcmp(sc->primary, REPORT_RUNS_WITH_TIMEOUT))) {
        guint m = 1;

        while (m < 64 && !smmulab_significant(smmulab_mcnemar_exact(m, 0),
                                              alpha)) {
            m++;
        }
        g_string_append_printf(s, "McNemar's test needs at least %u "
                               "discordant pairs, all one way%s", m,
                               n < m ? ": more than the pairs run, raise "
                               "repeat=" : "");
    } else if (sc->paired) {
        double d = smmulab_wilcoxon_detectable(n, alpha, SMMULAB_POWER);

        if (isnan(d)) {
            g_string_append_printf(s, "no outcome of %u pairs can reach "
                                   "p<%.3g (Wilcoxon signed-rank): raise "
                                   "repeat=", n, alpha);
        } else {
            g_string_append_printf(s, "80 %% power (Wilcoxon signed-rank; "
                                   "simulated, standard error %.1f points) "
                                   "for a shift of %.2f standard deviations "
                                   "of the pairs' differences (normal "
                                   "data)",
                                   100 * smmulab_power_se(SMMULAB_POWER), d);
        }
    } else if (!strcmp(sc->primary, REPORT_RUNS_WITH_LOCKUP) ||
        !strcmp(sc->primary, REPORT_RUNS_WITH_TIMEOUT)) {
        const double base[] = { 0, 0.1, 0.25, 0.5 };
        guint i;

        g_string_append(s, "80 % power (Fisher) where the baseline's rate "
                        "is");
        for (i = 0; i < G_N_ELEMENTS(base); i++) {
            double up = smmulab_fisher_detectable(n, n, base[i], TRUE, alpha,
                                                  SMMULAB_POWER);
            double down = smmulab_fisher_detectable(n, n, base[i], FALSE,
                                                    alpha, SMMULAB_POWER);

            g_string_append_printf(s, "%s %.0f %%: ", i ? ";" : "",
                                   base[i] * 100);
            if (isnan(up) && isnan(down)) {
                g_string_append(s, "no rate");
            }
            if (!isnan(up)) {
                g_string_append_printf(s, "%.0f %% or more", up * 100);
            }
            if (!isnan(down)) {
                g_string_append_printf(s, "%s%.0f %% or less",
                                       isnan(up) ? "" : ", ", down * 100);
            }
        }
    } else {
        double d = smmulab_mwu_detectable(n, n, alpha, SMMULAB_POWER);

        if (isnan(d)) {
            g_string_append_printf(s, "no outcome at n=%u+%u can reach "
                                   "p<%.3g (Mann-Whitney): raise repeat=",
                                   n, n, alpha);
        } else {
            g_string_append_printf(s, "80 %% power (Mann-Whitney; "
                                   "simulated, standard error %.1f points) "
                                   "for a shift of %.2f standard deviations "
                                   "of the runs (normal data)",
                                   100 * smmulab_power_se(SMMULAB_POWER), d);
        }
    }
    return g_string_free(s, FALSE);
}
