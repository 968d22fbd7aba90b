/*
 * smmulab: a report's verdicts: which comparison is the primary endpoint,
 * the tests behind every line, Holm's adjustment of the exploratory ones,
 * and what a "no difference" could have seen (power and sample size)
 *
 * Only the primary endpoint (the scenario's primary=) may say DIFFERENT;
 * it is the one question the scenario was written to answer.  Every other
 * line is exploratory: its p is adjusted by Holm over every exploratory
 * line of the report (sweep points and variants included), and it is
 * printed as a hint.  A metric line's interval inverts its own test
 * (abtest.h), at Bonferroni's level over its Holm family
 * (line_interval()); what "no outcome can reach" it is said of the values
 * as they are, ties included.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abtest.h"
#include "json.h"
#include "lockup.h"
#include "report-internal.h"

/* The most runs per variant a sample-size figure looks at (repeat=) */
#define N_MAX 100

typedef struct Line {
    char *point;                /* NULL without a sweep */
    const Column *var, *base;
    const char *metric;         /* REPORT_RUNS_WITH_* or a metric id */
    const Metric *m;            /* NULL for runs with an event */
    gboolean primary;
    gboolean paired;            /* pairs of runs that shared a seed */
    double p, p_adj;            /* p_adj: Holm within its family */
    guint ka, na, kb, nb;       /* runs with the event of na, nb */
    guint only_a, only_b;       /* paired events: pairs discordant each way */
    guint used;                 /* paired values: nonzero differences */
    double shift, lo, hi, level, base_median, sd;
    bool open[2];               /* an end the test itself rejects */
    guint family;               /* the lines of its Holm family */
    /* runs of var, base that repeat another of theirs bit for bit */
    guint rep_a, rep_b, runs_a, runs_b;
    gboolean rejects;           /* the verdict: line_rejects() */
    gboolean exact;
    GArray *va, *vb;            /* per-run values (metric lines) */
} Line;

static void line_free(gpointer p)
{
    Line *l = p;

    g_free(l->point);
    if (l->va) {
        g_array_unref(l->va);
        g_array_unref(l->vb);
    }
    g_free(l);
}

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

static gboolean is_event(const char *id)
{
    return !strcmp(id, REPORT_RUNS_WITH_LOCKUP) ||
           !strcmp(id, REPORT_RUNS_WITH_TIMEOUT);
}

static gint64 event_count(JsonObject *r, gboolean timeouts)
{
    return timeouts ?
        json_object_get_int_member_with_default(r, "cmdq_timeouts", 0) +
        json_object_get_int_member_with_default(r, "cmd_sync_timeouts", 0) :
        json_object_get_int_member_with_default(r, "soft_lockups", 0);
}

/* Runs of @c at @point that count, and how many of them had the event */
static void runs_with(JsonArray *runs, const Column *c, const char *point,
                      gboolean timeouts, guint *k, guint *n)
{
    guint i;

    *k = *n = 0;
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);

        if (!report_run_matches(r, c, point) || !report_run_counts(r)) {
            continue;
        }
        (*n)++;
        *k += event_count(r, timeouts) > 0;
    }
}

/*
 * The pairs of @var's and @base's runs at @point that count: the runs of
 * one repeat, which booted with one seed under design=paired.  A repeat
 * whose run of either failed without counting has no pair.
 */
static GPtrArray *pairs_of(JsonArray *runs, const Column *var,
                           const Column *base, const char *point)
{
    GPtrArray *pairs = g_ptr_array_new();
    guint i, j;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *a = json_array_get_object_element(runs, i);

        if (!report_run_matches(a, var, point) || !report_run_counts(a)) {
            continue;
        }
        for (j = 0; j < json_array_get_length(runs); j++) {
            JsonObject *b = json_array_get_object_element(runs, j);

            if (report_run_matches(b, base, point) && report_run_counts(b) &&
                json_object_get_int_member(a, "rep") ==
                json_object_get_int_member(b, "rep") &&
                !g_strcmp0(json_object_get_string_member_with_default(
                               a, "seed", NULL),
                           json_object_get_string_member_with_default(
                               b, "seed", NULL))) {
                g_ptr_array_add(pairs, a);
                g_ptr_array_add(pairs, b);
                break;
            }
        }
    }
    return pairs;
}

/*
 * Under icount, how many of @c's runs at @point that count repeat an
 * earlier one of them bit for bit (report_run_signature(): RESULT lines and
 * model counters), of *@n
 */
static guint runs_repeated(JsonArray *runs, const Column *c,
                           const char *point, guint *n)
{
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash,
                                                       g_str_equal, g_free,
                                                       NULL);
    guint i, k = 0;

    *n = 0;
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        char *sig;

        if (!report_run_matches(r, c, point) || !report_run_counts(r)) {
            continue;
        }
        (*n)++;
        sig = report_run_signature(r);
        if (g_hash_table_contains(seen, sig)) {
            k++;
            g_free(sig);
        } else {
            g_hash_table_add(seen, sig);
        }
    }
    return k;
}

/*
 * The verdict of @l: Holm's adjusted p below alpha, from runs that are
 * independent samples (no repeat identical to another: under icount that
 * means the seed did not reach the run), and for a line with a shift an
 * interval that excludes 0.  The verdict follows the interval: Holm's
 * step-down may reject where the family's Bonferroni interval holds 0,
 * and the signed-rank test may reject 0 in a gap of the shifts it accepts;
 * neither is called a difference.  Every line so called is one Holm
 * rejects, so the family-wise error stays at most alpha.
 */
static gboolean line_rejects(const Line *l)
{
    if (!smmulab_significant(l->p_adj, SMMULAB_ALPHA) ||
        l->rep_a || l->rep_b) {
        return FALSE;
    }
    return !l->m || (!isnan(l->lo) && (l->lo > 0 || l->hi < 0));
}

/* One comparison of paired runs; NULL without a pair */
static Line *compare_paired(Line *l, JsonArray *runs, const char *kind,
                            const char *id)
{
    g_autoptr(GPtrArray) pairs = pairs_of(runs, l->var, l->base, l->point);
    guint i;

    if (is_event(id)) {
        gboolean to = !strcmp(id, REPORT_RUNS_WITH_TIMEOUT);

        for (i = 0; i + 1 < pairs->len; i += 2) {
            gboolean a = event_count(g_ptr_array_index(pairs, i), to) > 0;
            gboolean b = event_count(g_ptr_array_index(pairs, i + 1), to) > 0;

            l->ka += a;
            l->kb += b;
            l->only_a += a && !b;
            l->only_b += b && !a;
        }
        l->na = l->nb = pairs->len / 2;
        if (!l->na) {
            line_free(l);
            return NULL;
        }
        l->p = smmulab_mcnemar_exact(l->only_a, l->only_b);
        l->exact = TRUE;
        return l;
    }
    l->m = report_find_metric(kind, id);
    if (!l->m) {
        line_free(l);
        return NULL;
    }
    l->va = g_array_new(FALSE, FALSE, sizeof(double));
    l->vb = g_array_new(FALSE, FALSE, sizeof(double));
    for (i = 0; i + 1 < pairs->len; i += 2) {
        double a = report_run_value(g_ptr_array_index(pairs, i), l->m);
        double b = report_run_value(g_ptr_array_index(pairs, i + 1), l->m);

        if (!isnan(a) && !isnan(b)) {
            g_array_append_val(l->va, a);
            g_array_append_val(l->vb, b);
        }
    }
    l->na = l->nb = l->va->len;
    if (!l->na) {
        line_free(l);
        return NULL;
    }
    {
        g_autofree double *d = g_new(double, l->na);
        SmmulabSummary sd, sb;
        size_t used = 0;
        bool exact = true;

        for (i = 0; i < l->na; i++) {
            d[i] = g_array_index(l->va, double, i) -
                   g_array_index(l->vb, double, i);
        }
        l->p = smmulab_wilcoxon_signed_rank(d, l->na, NULL, &used, &exact);
        l->used = used;
        l->exact = exact;
        smmulab_summarize((double *)l->vb->data, l->nb, &sb);
        smmulab_summarize(d, l->na, &sd);
        l->base_median = sb.median;
        /* the differences' spread, for the power figures */
        l->sd = l->na > 1 ? sd.sd : 0;
    }
    return l;
}

static const char *endpoint_label(const char *kind, const char *id)
{
    const Metric *m;

    if (!strcmp(id, REPORT_RUNS_WITH_LOCKUP)) {
        return "runs with a soft lockup";
    } else if (!strcmp(id, REPORT_RUNS_WITH_TIMEOUT)) {
        return "runs with a CMDQ or CMD_SYNC timeout";
    }
    m = report_find_metric(kind, id);
    return m ? m->label : id;
}

/* One comparison of @var against @base at @point, or NULL without data */
static Line *compare(JsonArray *runs, const char *kind, const char *id,
                     const Column *var, const Column *base, const char *point,
                     gboolean paired)
{
    Line *l = g_new0(Line, 1);

    l->point = g_strdup(point);
    l->var = var;
    l->base = base;
    l->metric = id;
    l->paired = paired;
    if (paired) {
        return compare_paired(l, runs, kind, id);
    }
    if (is_event(id)) {
        gboolean to = !strcmp(id, REPORT_RUNS_WITH_TIMEOUT);

        runs_with(runs, var, point, to, &l->ka, &l->na);
        runs_with(runs, base, point, to, &l->kb, &l->nb);
        if (!l->na || !l->nb) {
            line_free(l);
            return NULL;
        }
        l->p = smmulab_fisher_exact(l->ka, l->na, l->kb, l->nb);
        l->exact = TRUE;
    } else {
        SmmulabSummary sa, sb;
        bool exact;

        l->m = report_find_metric(kind, id);
        if (!l->m) {
            line_free(l);
            return NULL;
        }
        l->va = report_values_of(runs, l->m, var, point);
        l->vb = report_values_of(runs, l->m, base, point);
        if (!l->va->len || !l->vb->len) {
            line_free(l);
            return NULL;
        }
        l->na = l->va->len;
        l->nb = l->vb->len;
        l->p = smmulab_mann_whitney((double *)l->va->data, l->na,
                                    (double *)l->vb->data, l->nb, NULL,
                                    &exact);
        l->exact = exact;
        smmulab_summarize((double *)l->va->data, l->na, &sa);
        smmulab_summarize((double *)l->vb->data, l->nb, &sb);
        l->base_median = sb.median;
        /* pooled standard deviation, for the power figures */
        l->sd = sqrt(((l->na > 1 ? (l->na - 1) * sa.sd * sa.sd : 0) +
                      (l->nb > 1 ? (l->nb - 1) * sb.sd * sb.sd : 0)) /
                     MAX((double)l->na + l->nb - 2, 1));
    }
    l->p_adj = l->p;
    return l;
}

/* The test behind a line, as the report names it */
static const char *test_name(const Line *l)
{
    if (l->paired) {
        return l->m ? "Wilcoxon signed-rank" : "McNemar";
    }
    return l->m ? "Mann-Whitney" : "Fisher";
}

static char *fmt_value(const Line *l, double v)
{
    return report_fmt(v, l->m->decimals);
}

static char *pct(double x)
{
    return g_strdup_printf("%.0f %%", x * 100);
}

/* "pair" or "pairs" after @n */
static const char *pairs(guint n)
{
    return n == 1 ? "pair" : "pairs";
}

/* "n=6+6", or "6 pairs" */
static char *n_text(const Line *l)
{
    return l->paired ? g_strdup_printf("%u %s", l->na, pairs(l->na)) :
                       g_strdup_printf("n=%u+%u", l->na, l->nb);
}

/* The confidence of @l's interval in percent, as printed: "95", "98.75" */
static char *iv_level(const Line *l)
{
    return g_strdup_printf("%.4g", 100 * (1 - SMMULAB_ALPHA / l->family));
}

/*
 * @l's shift and its interval, at the level of its Holm family: a family
 * of m lines (the primary comparisons, or every exploratory line) has
 * every interval at alpha / m, Bonferroni's level.  Holm's step-down has
 * no interval of its own that agrees with it line by line (a level that
 * depends on the line's rank in the data, alpha / (m - rank + 1), gives
 * intervals with no coverage that can be stated); Bonferroni's do: the m
 * intervals hold together with 95 % confidence, and one that excludes 0
 * has p < alpha / m, so a Holm-adjusted p <= m p below alpha too: no line
 * shows an interval that excludes 0 beside "no significant difference".
 * The converse fails only where Holm rejects a line Bonferroni would not
 * (alpha / m <= p < alpha / (m - rank + 1)): such a line says so
 * (finding()).  A family of one is the 95 % interval.
 */
static void line_interval(Line *l)
{
    double alpha = SMMULAB_ALPHA / l->family;
    guint i;

    if (!l->m) {
        return;
    }
    if (l->paired) {
        g_autofree double *d = g_new(double, l->na);

        for (i = 0; i < l->na; i++) {
            d[i] = g_array_index(l->va, double, i) -
                   g_array_index(l->vb, double, i);
        }
        l->shift = smmulab_hodges_lehmann_paired_open(d, l->na, alpha,
                                                      &l->lo, &l->hi,
                                                      &l->level, l->open);
    } else {
        /* the shift of the variant against the baseline */
        l->shift = smmulab_hodges_lehmann_open((double *)l->vb->data, l->nb,
                                               (double *)l->va->data, l->na,
                                               alpha, &l->lo, &l->hi,
                                               &l->level, l->open);
    }
}

/*
 * An end of an interval: infinite where the test rejects no shift that
 * far out on that side (ties: abtest.h), open where the test at that
 * difference itself rejects (given as the next double inside, which
 * prints as the difference: at 0, as 0 itself), else closed
 */
static char *iv_end(const Line *l, double v, gboolean low)
{
    g_autofree char *x = NULL;
    gboolean open = l->open[low ? 0 : 1];

    if (isinf(v)) {
        return g_strdup(low ? "(-inf" : "inf)");
    }
    if (low ? v > 0 && v < 1e-300 : v < 0 && v > -1e-300) {
        return g_strdup(low ? "(0" : "0)");
    }
    x = fmt_value(l, v);
    if (low) {
        return g_strdup_printf("%s%s", open ? "(" : "[", x);
    }
    return g_strdup_printf("%s%s", x, open ? ")" : "]");
}

/* Why @l has no verdict when its runs repeat each other, or NULL */
static char *repeats_note(const Line *l)
{
    if (!l->rep_a && !l->rep_b) {
        return NULL;
    }
    return g_strdup_printf("%u of %s's %u runs and %u of %s's %u repeat "
                           "another bit for bit: no interval, no verdict",
                           l->rep_a, l->var->variant, l->runs_a, l->rep_b,
                           l->base->variant, l->runs_b);
}

/*
 * What the comparison found, without its verdict; @sig: the verdict (the
 * Holm-adjusted p below alpha)
 */
static char *finding(const Line *l, gboolean sig)
{
    g_autofree char *shift = NULL, *rel = NULL, *iv = NULL, *lv = NULL;
    g_autofree char *why = repeats_note(l);
    g_autoptr(GString) par = g_string_new(NULL);
    const char *note = NULL;

    if (why && !l->m) {
        return g_strdup_printf("%u/%u vs %u/%u (%s)", l->ka, l->na, l->kb,
                               l->nb, why);
    }
    if (!l->m && l->paired) {
        return g_strdup_printf("%u/%u vs %u/%u (%u %s: %u with it only "
                               "under %s, %u only under %s)", l->ka, l->na,
                               l->kb, l->nb, l->na, pairs(l->na), l->only_a,
                               l->var->variant, l->only_b, l->base->variant);
    }
    if (!l->m) {
        return g_strdup_printf("%u/%u vs %u/%u", l->ka, l->na, l->kb, l->nb);
    }
    shift = fmt_value(l, l->shift);
    if (why) {
        return g_strdup_printf("%sshift %s%s (%s)", l->paired ? "paired " :
                               "", l->shift > 0 ? "+" : "", shift, why);
    }
    lv = iv_level(l);
    if (isnan(l->lo)) {
        g_autofree char *nt = n_text(l);

        iv = g_strdup_printf("no %s %% interval at %s", lv, nt);
        if (sig) {
            note = "its test rejects 0 but not the shifts far out on "
                   "either side (ties): no interval can exclude 0, and "
                   "the verdict follows the interval";
        }
    } else {
        g_autofree char *lo = iv_end(l, l->lo, TRUE);
        g_autofree char *hi = iv_end(l, l->hi, FALSE);

        iv = g_strdup_printf("%s, %s", lo, hi);
        if (sig && !(l->lo > 0 || l->hi < 0)) {
            note = !smmulab_significant(l->p, SMMULAB_ALPHA / l->family) ?
                "Holm's step-down rejects 0, this Bonferroni interval "
                "holds it, and the verdict follows the interval" :
                "its test rejects 0 but not shifts on either side of it "
                "(a gap: zero differences dropped): the interval holds 0, "
                "and the verdict follows the interval";
        }
    }
    if (l->family > 1) {
        if (!isnan(l->lo)) {
            g_string_append_printf(par, "%s %% interval, ", lv);
        }
        g_string_append_printf(par, "Bonferroni over %u lines; ", l->family);
    }
    if (note) {
        g_string_append_printf(par, "%s; ", note);
    }
    if (l->shift == 0) {
        rel = g_strdup("no change");
    } else if (l->base_median == 0) {
        rel = g_strdup_printf("relative change unbounded: %s's median is 0",
                              l->base->variant);
    } else {
        rel = g_strdup_printf("%+.1f %% of %s's median", l->shift /
                              fabs(l->base_median) * 100, l->base->variant);
    }
    g_string_append(par, rel);
    if (l->paired) {
        g_string_append_printf(par, "; %u %s, %u differ", l->na,
                               pairs(l->na), l->used);
        return g_strdup_printf("paired shift %s%s %s (%s)",
                               l->shift > 0 ? "+" : "", shift, iv, par->str);
    }
    return g_strdup_printf("shift %s%s %s (%s)", l->shift > 0 ? "+" : "",
                           shift, iv, par->str);
}

/* The Monte Carlo error of a simulated 80 % power, as printed */
static char *se_text(void)
{
    return g_strdup_printf("(simulated, standard error %.1f points)",
                           100 * smmulab_power_se(SMMULAB_POWER));
}

/* The n (0: more than N_MAX) a rerun would need to see @l's shift */
static void needed_text(GString *s, JsonBuilder *b, const Line *l, unsigned n)
{
    json_builder_set_member_name(b, "n_needed");
    n ? json_builder_add_int_value(b, n) : json_builder_add_null_value(b);
    if (l->shift == 0) {
        g_string_append(s, "; the shift observed is 0");
    } else if (l->paired) {
        g_string_append_printf(s, "; the shift observed would need %s%u "
                               "pairs", n ? "about " : "more than ",
                               n ? n : N_MAX);
    } else {
        g_string_append_printf(s, "; the shift observed would need %s%u+%u",
                               n ? "about n=" : "more than ", n ? n : N_MAX,
                               n ? n : N_MAX);
    }
}

/*
 * What paired runs could detect: McNemar's test decides on the discordant
 * pairs alone (m of them all one way give p = 2^(1-m)); the signed-rank
 * test's power for a shift in standard deviations of the differences
 */
static void paired_power_text(GString *s, const Line *l, gboolean sig,
                              double alpha, JsonBuilder *b)
{
    if (!l->m) {
        guint m = 1, disc = l->only_a + l->only_b;

        /* the fewest discordant pairs, all one way, that reach alpha */
        while (m < 64 && !smmulab_significant(smmulab_mcnemar_exact(m, 0),
                                              alpha)) {
            m++;
        }
        smmulab_json_add_int(b, "discordant_needed", m);
        g_string_append_printf(s, "McNemar's test looks only at the %u "
                               "discordant pair(s) (one variant with it, the "
                               "other without); p<%.3g needs at least %u, "
                               "all one way", disc, alpha, m);
        if (l->na < m) {
            g_string_append_printf(s, ": more than the %u %s run", l->na,
                                   pairs(l->na));
        }
        return;
    }
    {
        double d = smmulab_wilcoxon_detectable(l->na, alpha, SMMULAB_POWER);
        g_autofree double *diff = g_new(double, l->na);
        g_autofree char *se = se_text();
        double mp;
        guint i;

        for (i = 0; i < l->na; i++) {
            diff[i] = g_array_index(l->va, double, i) -
                      g_array_index(l->vb, double, i);
        }
        /* these differences' smallest p: their zeros are dropped */
        mp = smmulab_wilcoxon_min_p_data(diff, l->na);
        json_builder_set_member_name(b, "min_p_data");
        json_builder_add_double_value(b, mp);
        json_builder_set_member_name(b, "detectable_shift_sd");
        isnan(d) ? json_builder_add_null_value(b)
                 : json_builder_add_double_value(b, d);
        if (isnan(d)) {
            /* ties and zeros only raise the smallest p: none reach it */
            g_string_append_printf(s, "no outcome of %u %s can reach "
                                   "p<%.3g (signed-rank: at least 6 pairs "
                                   "at 0.05)", l->na, pairs(l->na), alpha);
            return;
        }
        json_builder_set_member_name(b, "power_se");
        json_builder_add_double_value(b, smmulab_power_se(SMMULAB_POWER));
        if (!smmulab_significant(mp, alpha)) {
            g_autofree char *ps = smmulab_format_p(mp, alpha);

            g_string_append_printf(s, "with %u of the %u differences 0 "
                                   "(dropped), no outcome of these pairs "
                                   "can reach p<%.3g (the smallest: %s); ",
                                   l->na - l->used, l->na, alpha, ps);
        }
        if (!(l->sd > 0)) {
            g_string_append_printf(s, "80 %% power %s at %u %s only for a "
                                   "shift of %.2f standard deviations of the "
                                   "differences (they show no spread to "
                                   "scale it by)", se, l->na, pairs(l->na),
                                   d);
        } else {
            g_autofree char *u = fmt_value(l, d * l->sd);

            g_string_append_printf(s, "80 %% power %s at %u %s only for a "
                                   "shift of about %s (%.2f standard "
                                   "deviations of the pairs' differences, "
                                   "normal differences assumed)", se, l->na,
                                   pairs(l->na), u, d);
        }
        if (!sig && l->sd > 0) {
            unsigned n = smmulab_wilcoxon_n_needed(l->shift / l->sd, alpha,
                                                   SMMULAB_POWER, N_MAX);

            needed_text(s, b, l, n);
        }
    }
}

/*
 * How far the power line's shift in units rests on the runs' SD, itself
 * an estimate: the true SD's 95 % range about it (chi-square), and the
 * shift's with it; NULL where the line has no such shift
 */
static char *sd_text(const Line *l, double d, JsonBuilder *b)
{
    guint df = l->paired ? l->na - 1 : l->na + l->nb - 2;
    double lo, hi;
    g_autofree char *ulo = NULL, *uhi = NULL;

    if (!l->m || !(l->sd > 0) || isnan(d) || !df) {
        return NULL;
    }
    smmulab_sd_range(df, 0.95, &lo, &hi);
    json_builder_set_member_name(b, "sd_range");
    json_builder_begin_array(b);
    json_builder_add_double_value(b, lo);
    json_builder_add_double_value(b, hi);
    json_builder_end_array(b);
    ulo = fmt_value(l, d * l->sd * lo);
    uhi = fmt_value(l, d * l->sd * hi);
    return g_strdup_printf("that shift in units rests on the SD of %s, "
                           "itself estimated (%u degrees of freedom): the "
                           "true SD is %.2f-%.2f times it (95 %%, normal "
                           "data), the shift about %s to %s",
                           l->paired ? "the pairs' differences" :
                           "the runs", df, lo, hi, ulo, uhi);
}

/*
 * The smallest effect the n detects, and the n the observed one needs;
 * in *@sd, the line saying how far its shift rests on the SD (or NULL)
 */
static char *power_text(const Line *l, gboolean sig, double alpha,
                        JsonBuilder *b, char **sd)
{
    GString *s = g_string_new(NULL);

    *sd = NULL;
    json_builder_set_member_name(b, "power");
    json_builder_begin_object(b);
    if (l->rep_a || l->rep_b) {
        g_string_append(s, "no power figure: the runs are not independent "
                        "samples");
    } else if (l->paired) {
        if (l->m) {
            *sd = sd_text(l, smmulab_wilcoxon_detectable(l->na, alpha,
                                                         SMMULAB_POWER), b);
        }
        paired_power_text(s, l, sig, alpha, b);
    } else if (!l->m) {
        double rb = (double)l->kb / l->nb, ra = (double)l->ka / l->na;
        double up = smmulab_fisher_detectable(l->na, l->nb, rb, TRUE,
                                              alpha, SMMULAB_POWER);
        double down = smmulab_fisher_detectable(l->na, l->nb, rb, FALSE,
                                                alpha, SMMULAB_POWER);
        g_autofree char *srb = pct(rb);

        json_builder_set_member_name(b, "detectable_rate_above");
        isnan(up) ? json_builder_add_null_value(b)
                  : json_builder_add_double_value(b, up);
        json_builder_set_member_name(b, "detectable_rate_below");
        isnan(down) ? json_builder_add_null_value(b)
                    : json_builder_add_double_value(b, down);
        if (isnan(up) && isnan(down)) {
            g_string_append_printf(s, "at n=%u+%u no rate differs enough "
                                   "from %s's %s to be seen with 80 %% power",
                                   l->na, l->nb, l->base->variant, srb);
        } else {
            g_autofree char *su = isnan(up) ? NULL : pct(up);
            g_autofree char *sd = isnan(down) ? NULL : pct(down);

            g_string_append_printf(s, "80 %% power at n=%u+%u only for a "
                                   "rate as far from %s's %s as %s%s%s",
                                   l->na, l->nb, l->base->variant, srb,
                                   su ? su : "", su && sd ? " or " : "",
                                   sd ? sd : "");
        }
        if (!sig) {
            unsigned n = smmulab_fisher_n_needed(ra, rb, alpha,
                                                 SMMULAB_POWER, N_MAX);
            g_autofree char *sra = pct(ra);

            json_builder_set_member_name(b, "n_needed");
            n ? json_builder_add_int_value(b, n)
              : json_builder_add_null_value(b);
            if (l->ka * l->nb == l->kb * l->na) {
                g_string_append(s, "; the rates observed are equal");
            } else if (n) {
                g_string_append_printf(s, "; the observed %s vs %s would "
                                       "need n=%u+%u", sra, srb, n, n);
            } else {
                g_string_append_printf(s, "; the observed %s vs %s would "
                                       "need more than %u+%u", sra, srb,
                                       N_MAX, N_MAX);
            }
        }
    } else {
        double d = smmulab_mwu_detectable(l->na, l->nb, alpha,
                                          SMMULAB_POWER);
        /*
         * The smallest p of these values, ties as they are (any of them
         * in either variant), and of untied values at this n: ties can
         * lower it (a tail that cannot be reached) as well as raise it
         */
        double mp = smmulab_mann_whitney_min_p_data(
            (double *)l->va->data, l->na, (double *)l->vb->data, l->nb);
        double mp0 = smmulab_mann_whitney_min_p(l->na, l->nb);
        gboolean tied = fabs(mp - mp0) > 1e-12 * mp0;
        g_autofree char *ps = smmulab_format_p(mp, alpha);
        g_autofree char *ps0 = smmulab_format_p(mp0, alpha);
        g_autofree char *se = se_text();

        json_builder_set_member_name(b, "min_p_data");
        json_builder_add_double_value(b, mp);
        json_builder_set_member_name(b, "detectable_shift_sd");
        isnan(d) ? json_builder_add_null_value(b)
                 : json_builder_add_double_value(b, d);
        if (isnan(d) && !smmulab_significant(mp, alpha)) {
            g_string_append_printf(s, "no outcome at n=%u+%u can reach "
                                   "p<%.3g", l->na, l->nb, alpha);
            if (tied) {
                g_string_append_printf(s, " (the smallest p: %s untied, %s "
                                       "with these values' ties)", ps0,
                                       ps);
            }
            json_builder_end_object(b);
            return g_string_free(s, FALSE);
        }
        if (isnan(d)) {
            g_string_append_printf(s, "at n=%u+%u only tied values can "
                                   "reach p<%.3g (these can, down to "
                                   "p=%s; untied, the smallest p is %s): "
                                   "no power figure for normal data, "
                                   "which never tie", l->na, l->nb, alpha,
                                   ps, ps0);
            json_builder_end_object(b);
            return g_string_free(s, FALSE);
        }
        json_builder_set_member_name(b, "power_se");
        json_builder_add_double_value(b, smmulab_power_se(SMMULAB_POWER));
        if (!smmulab_significant(mp, alpha)) {
            g_string_append_printf(s, "with their ties no arrangement of "
                                   "these values can reach p<%.3g (the "
                                   "smallest p: %s); normal data: ", alpha,
                                   ps);
        }
        if (!(l->sd > 0)) {
            g_string_append_printf(s, "80 %% power %s at n=%u+%u only for "
                                   "a shift of %.2f standard deviations "
                                   "(the runs show no spread to scale it "
                                   "by)", se, l->na, l->nb, d);
        } else {
            g_autofree char *u = fmt_value(l, d * l->sd);

            g_string_append_printf(s, "80 %% power %s at n=%u+%u only for "
                                   "a shift of about %s (%.2f standard "
                                   "deviations of the runs, normal data "
                                   "assumed)", se, l->na, l->nb, u, d);
        }
        if (!sig && l->sd > 0 && !isnan(d)) {
            unsigned n = smmulab_mwu_n_needed(l->shift / l->sd, alpha,
                                              SMMULAB_POWER, N_MAX);

            needed_text(s, b, l, n);
        }
        *sd = sd_text(l, d, b);
    }
    json_builder_end_object(b);
    return g_string_free(s, FALSE);
}

static void line_json_common(JsonBuilder *b, const Line *l, const char *text)
{
    if (l->point) {
        smmulab_json_add_string(b, "point", l->point);
    }
    smmulab_json_add_string(b, "variant", l->var->variant);
    smmulab_json_add_string(b, "baseline", l->base->variant);
    smmulab_json_add_string(b, "metric", l->metric);
    smmulab_json_add_string(b, "label", l->m ? l->m->label :
                            endpoint_label("", l->metric));
    smmulab_json_add_string(b, "test", l->paired ?
                            (l->m ? "wilcoxon-signed-rank" : "mcnemar") :
                            (l->m ? "mann-whitney" : "fisher"));
    smmulab_json_add_bool(b, "paired", l->paired);
    smmulab_json_add_bool(b, "exact", l->exact);
    smmulab_json_add_bool(b, "primary", l->primary);
    json_builder_set_member_name(b, "p");
    json_builder_add_double_value(b, l->p);
    json_builder_set_member_name(b, "p_holm");
    json_builder_add_double_value(b, l->p_adj);
    smmulab_json_add_int(b, "na", l->na);
    smmulab_json_add_int(b, "nb", l->nb);
    if (l->va) {
        /* the per-run values tested (paired: pair i is values[i] and
           baseline_values[i]) */
        guint i;

        json_builder_set_member_name(b, "values");
        json_builder_begin_array(b);
        for (i = 0; i < l->va->len; i++) {
            json_builder_add_double_value(b, g_array_index(l->va, double, i));
        }
        json_builder_end_array(b);
        json_builder_set_member_name(b, "baseline_values");
        json_builder_begin_array(b);
        for (i = 0; i < l->vb->len; i++) {
            json_builder_add_double_value(b, g_array_index(l->vb, double, i));
        }
        json_builder_end_array(b);
    }
    if (l->rep_a || l->rep_b) {
        /* runs that repeat another of their variant: no verdict */
        smmulab_json_add_int(b, "repeated_runs", l->rep_a);
        smmulab_json_add_int(b, "baseline_repeated_runs", l->rep_b);
    }
    if (l->paired && !l->m) {
        smmulab_json_add_int(b, "only_variant", l->only_a);
        smmulab_json_add_int(b, "only_baseline", l->only_b);
    }
    if (!l->m) {
        smmulab_json_add_int(b, "ka", l->ka);
        smmulab_json_add_int(b, "kb", l->kb);
    } else {
        json_builder_set_member_name(b, "shift");
        json_builder_add_double_value(b, l->shift);
        json_builder_set_member_name(b, "interval");
        if (isnan(l->lo) || l->rep_a || l->rep_b) {
            json_builder_add_null_value(b);
        } else {
            /* an infinite end (ties, abtest.h) as null */
            json_builder_begin_array(b);
            isinf(l->lo) ? json_builder_add_null_value(b)
                         : json_builder_add_double_value(b, l->lo);
            isinf(l->hi) ? json_builder_add_null_value(b)
                         : json_builder_add_double_value(b, l->hi);
            json_builder_end_array(b);
            /* an end the test at its difference rejects, "(" or ")" */
            json_builder_set_member_name(b, "interval_open");
            json_builder_begin_array(b);
            json_builder_add_boolean_value(b, l->open[0]);
            json_builder_add_boolean_value(b, l->open[1]);
            json_builder_end_array(b);
        }
        json_builder_set_member_name(b, "interval_level");
        json_builder_add_double_value(b, l->level);
        /* alpha / m over a Holm family of m (Bonferroni): line_interval() */
        json_builder_set_member_name(b, "interval_alpha");
        json_builder_add_double_value(b, SMMULAB_ALPHA / l->family);
    }
    smmulab_json_add_string(b, "text", text);
}

static void print_primary(GString *t, JsonBuilder *b, JsonObject *sc,
                          const Line *l, guint family, gboolean unreliable)
{
    gboolean held = smmulab_significant(l->p_adj, SMMULAB_ALPHA);
    gboolean sig = l->rejects;
    g_autofree char *label = report_point_label(sc, l->point);
    g_autofree char *what = finding(l, held), *pw = NULL, *line = NULL;
    g_autofree char *ps = smmulab_format_p(l->p, SMMULAB_ALPHA);
    g_autofree char *pa = smmulab_format_p(l->p_adj, SMMULAB_ALPHA);
    g_autofree char *adj = family > 1 ?
        g_strdup_printf(", Holm over %u: %s", family, pa) : g_strdup("");
    g_autofree char *verdict = NULL, *sd = NULL;
    g_autofree char *nt = n_text(l);

    json_builder_begin_object(b);
    /* in a family, Holm's first step: the most it asks */
    pw = power_text(l, sig, SMMULAB_ALPHA / family, b, &sd);
    if (sig && unreliable) {
        verdict = g_strdup("DIFFERENT, but the control is UNRELIABLE: do "
                           "not blame a variant");
    } else if (sig && !json_object_get_boolean_member_with_default(
                   sc, "control", TRUE)) {
        /* the header's "control: not run", where the verdict is read */
        verdict = g_strdup("DIFFERENT (no control run)");
    } else if (sig) {
        verdict = g_strdup("DIFFERENT");
    } else if (l->rep_a || l->rep_b) {
        verdict = g_strdup("no verdict: the runs repeat each other");
    } else if (held) {
        verdict = g_strdup_printf("no significant difference at %s (its "
                                  "interval holds 0)", nt);
    } else if (smmulab_significant(l->p, SMMULAB_ALPHA)) {
        verdict = g_strdup_printf("no significant difference after the "
                                  "correction at %s", nt);
    } else {
        verdict = g_strdup_printf("no significant difference at %s", nt);
    }
    line = g_strdup_printf("%s%s vs %s: %s %s (%s p=%s%s%s): %s", label,
                           l->var->variant, l->base->variant,
                           l->m ? l->m->label : endpoint_label("", l->metric),
                           what, test_name(l), ps, adj,
                           l->exact ? "" : ", normal approximation", verdict);
    g_string_append_printf(t, "  %s\n    power: %s\n", line, pw);
    if (sd) {
        g_string_append_printf(t, "    %s\n", sd);
    }
    line_json_common(b, l, line);
    smmulab_json_add_bool(b, "differs", sig);
    smmulab_json_add_string(b, "power_text", pw);
    if (sd) {
        smmulab_json_add_string(b, "sd_text", sd);
    }
    json_builder_end_object(b);
}

static void print_exploratory(GString *t, JsonBuilder *b, JsonObject *sc,
                              const Line *l)
{
    gboolean held = smmulab_significant(l->p_adj, SMMULAB_ALPHA);
    gboolean sig = l->rejects;
    g_autofree char *label = report_point_label(sc, l->point);
    g_autofree char *what = finding(l, held), *line = NULL;
    g_autofree char *ps = smmulab_format_p(l->p, SMMULAB_ALPHA);
    g_autofree char *pa = smmulab_format_p(l->p_adj, SMMULAB_ALPHA);

    line = g_strdup_printf("%s%s vs %s: %s %s (%s p=%s, Holm %s%s)%s", label,
                           l->var->variant, l->base->variant,
                           l->m ? l->m->label : endpoint_label("", l->metric),
                           what, test_name(l), ps, pa,
                           l->exact ? "" : ", normal approximation",
                           sig ? ": below 0.05 after correction (a hint "
                           "for a scenario of its own)" : "");
    g_string_append_printf(t, "  %s\n", line);
    json_builder_begin_object(b);
    line_json_common(b, l, line);
    smmulab_json_add_bool(b, "differs", FALSE);
    smmulab_json_add_bool(b, "signal", sig);
    json_builder_end_object(b);
}

/*
 * With a sweep of [machine] quantum=: whether each variant's primary
 * verdict is the same at every quantum (a contention result from the
 * lock-step mode means something only if it holds across quanta, at
 * least two of them 10x apart), in one line; NULL otherwise
 */
static char *quanta_line(JsonObject *sc, GPtrArray *lines)
{
    const char *key = json_object_get_string_member_with_default(
        sc, "sweep_key", "");
    GString *s;
    guint i, j;
    double lo = 0, hi = 0;

    if (strcmp(key, "machine.quantum")) {
        return NULL;
    }
    s = g_string_new(NULL);
    for (i = 0; i < lines->len; i++) {
        const Line *l = g_ptr_array_index(lines, i);
        g_autoptr(GString) yes = g_string_new(NULL);
        g_autoptr(GString) no = g_string_new(NULL);
        gboolean seen = FALSE;

        if (!l->primary) {
            continue;
        }
        /* the first line of each variant gathers all of its points */
        for (j = 0; j < i; j++) {
            const Line *m = g_ptr_array_index(lines, j);

            seen |= m->primary && m->var == l->var;
        }
        if (seen) {
            continue;
        }
        for (j = i; j < lines->len; j++) {
            const Line *m = g_ptr_array_index(lines, j);
            GString *to;
            double q;

            if (!m->primary || m->var != l->var || !m->point) {
                continue;
            }
            q = g_ascii_strtod(m->point, NULL);
            if (q > 0) {
                lo = lo == 0 || q < lo ? q : lo;
                hi = q > hi ? q : hi;
            }
            to = m->rejects ? yes : no;
            g_string_append_printf(to, "%s%s%s", to->len ? ", " : "",
                                   m->point, q > 0 ? "" : " (stock icount)");
        }
        g_string_append_printf(s, "  across quanta, %s vs %s: ",
                               l->var->variant, l->base->variant);
        if (yes->len && no->len) {
            g_string_append_printf(s, "NOT the same verdict: DIFFERENT at "
                                   "%s ns, not at %s ns: the result depends "
                                   "on the quantum\n", yes->str, no->str);
        } else {
            g_string_append_printf(s, "the same verdict at every quantum "
                                   "(%s at %s ns)\n", yes->len ?
                                   "DIFFERENT" : "no significant difference",
                                   yes->len ? yes->str : no->str);
        }
    }
    if (!(lo > 0 && hi >= 10 * lo)) {
        g_string_append(s, "  (the nonzero quanta swept are not two at least "
                        "10x apart: too few to say a result holds across "
                        "quanta)\n");
    }
    return g_string_free(s, FALSE);
}

/* Holm within the lines of @lines whose primary flag is @primary */
static guint holm_family(GPtrArray *lines, gboolean primary)
{
    g_autoptr(GArray) p = g_array_new(FALSE, FALSE, sizeof(double));
    guint i, k = 0;

    for (i = 0; i < lines->len; i++) {
        Line *l = g_ptr_array_index(lines, i);

        if (l->primary == primary) {
            g_array_append_val(p, l->p);
        }
    }
    smmulab_holm((double *)p->data, p->len);
    for (i = 0; i < lines->len; i++) {
        Line *l = g_ptr_array_index(lines, i);

        if (l->primary == primary) {
            l->p_adj = g_array_index(p, double, k++);
        }
    }
    return p->len;
}

/*
 * Every variant against the baseline, at every sweep point: runs with a
 * soft lockup, runs with a timeout, the workload's main figures, and the
 * primary endpoint if it is none of those.
 */
void report_verdicts(GString *t, JsonBuilder *b, JsonObject *sc,
                     JsonArray *runs, GPtrArray *cols, const char *kind,
                     JsonArray *points, gboolean unreliable)
{
    const char *bname = json_object_get_string_member_with_default(
        sc, "baseline", NULL);
    const char *primary = json_object_get_string_member_with_default(
        sc, "primary", NULL);
    const VerdictSet *vs = report_verdict_set(kind);
    gboolean paired = report_paired(sc);
    g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(line_free);
    g_autoptr(GPtrArray) ids = g_ptr_array_new();
    g_autoptr(GString) missing = g_string_new(NULL);
    const Column *base;
    guint np = points ? json_array_get_length(points) : 0, p, c, i;
    guint nprimary, nexpl, nvar = 0;

    if (!bname) {
        JsonArray *vars = json_object_get_array_member(sc, "variants");

        bname = json_object_get_string_member(
            json_array_get_object_element(vars, 0), "name");
    }
    base = find_column(cols, bname);
    /* What is compared: runs with an event, the workload's set, primary */
    g_ptr_array_add(ids, (gpointer)REPORT_RUNS_WITH_LOCKUP);
    g_ptr_array_add(ids, (gpointer)REPORT_RUNS_WITH_TIMEOUT);
    for (i = 0; vs && i < G_N_ELEMENTS(vs->ids) && vs->ids[i]; i++) {
        g_ptr_array_add(ids, (gpointer)vs->ids[i]);
    }
    if (primary && !g_ptr_array_find_with_equal_func(ids, primary,
                                                     g_str_equal, NULL)) {
        g_ptr_array_add(ids, (gpointer)primary);
    }
    for (p = 0; base && p < (np ? np : 1); p++) {
        const char *pt = np ? json_array_get_string_element(points, p) : NULL;

        for (c = 0; c < cols->len; c++) {
            const Column *col = g_ptr_array_index(cols, c);

            if (col->control || col == base) {
                continue;
            }
            for (i = 0; i < ids->len; i++) {
                const char *id = g_ptr_array_index(ids, i);
                Line *l = compare(runs, kind, id, col, base, pt, paired);

                if (!l) {
                    if (i == 0) {
                        g_autofree char *label = report_point_label(sc, pt);

                        g_string_append_printf(missing, "  %s%s vs %s: "
                                               "nothing to compare: no run "
                                               "of one of them counts (each "
                                               "failed without a lockup or "
                                               "timeout)\n", label,
                                               col->variant, base->variant);
                        break;
                    }
                    continue;
                }
                l->primary = primary && !strcmp(id, primary);
                if (json_object_get_boolean_member_with_default(sc, "icount",
                                                                FALSE)) {
                    l->rep_a = runs_repeated(runs, col, pt, &l->runs_a);
                    l->rep_b = runs_repeated(runs, base, pt, &l->runs_b);
                }
                g_ptr_array_add(lines, l);
            }
        }
    }
    nprimary = holm_family(lines, TRUE);
    nexpl = holm_family(lines, FALSE);
    for (i = 0; i < lines->len; i++) {
        Line *l = g_ptr_array_index(lines, i);

        l->family = l->primary ? nprimary : nexpl;
        line_interval(l);
        l->rejects = line_rejects(l);
    }

    json_builder_set_member_name(b, "primary");
    if (primary) {
        json_builder_add_string_value(b, primary);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "verdicts");
    json_builder_begin_array(b);
    g_string_append_printf(t, "verdicts (against %s; two-sided, alpha "
                           "0.05):\n", bname);
    for (c = 0; c < cols->len; c++) {
        nvar += !((const Column *)g_ptr_array_index(cols, c))->control;
    }
    if (!base || nvar < 2) {
        g_string_append(t, "  none: no other variant ran beside the "
                        "baseline\n");
    }
    g_string_append(t, missing->str);
    for (i = 0; i < lines->len; i++) {
        Line *l = g_ptr_array_index(lines, i);

        if (l->rep_a || l->rep_b) {
            g_string_append(t, "  runs that repeat another of their variant "
                            "bit for bit (RESULT lines and model counters) "
                            "are not independent samples: the seed does not "
                            "reach the run, and the lines that compare them "
                            "have no interval and no verdict; give the runs "
                            "a seed that changes them (the guest's "
                            "smmulab.seed, or cmdq-seed with cmdq-jitter-ns: "
                            "docs/scenarios.md)\n");
            break;
        }
    }
    if (!base || nvar < 2) {
        /* nothing was compared: no primary or exploratory line */
    } else if (primary) {
        /* a family's intervals at Bonferroni's level: line_interval() */
        g_autofree char *ivd = nprimary > 1 ?
            g_strdup_printf("%.4g %% interval (Bonferroni over the %u "
                            "comparisons: together 95 %%)",
                            100 * (1 - SMMULAB_ALPHA / nprimary), nprimary) :
            g_strdup("95 % interval");

        g_string_append_printf(t, "primary endpoint: %s (primary=%s; %s%s)\n",
                               endpoint_label(kind, primary), primary,
                               paired ? (is_event(primary) ?
                               "McNemar's exact test on the pairs of runs "
                               "of one seed" :
                               "Wilcoxon signed-rank test on the "
                               "differences of the pairs of runs of one "
                               "seed, their Hodges-Lehmann shift with its ") :
                               is_event(primary) ?
                               "Fisher's exact test on runs" :
                               "Mann-Whitney U test on per-run values, "
                               "Hodges-Lehmann shift with its exact ",
                               is_event(primary) ? "" : ivd);
        for (i = 0; i < lines->len; i++) {
            Line *l = g_ptr_array_index(lines, i);

            if (l->primary) {
                print_primary(t, b, sc, l, nprimary, unreliable);
            }
        }
        if (!nprimary) {
            g_string_append(t, "  no run gave a value of it\n");
        } else {
            g_autofree char *q = quanta_line(sc, lines);

            if (q) {
                g_string_append(t, q);
            }
        }
    } else {
        g_string_append(t, "primary endpoint: none declared (primary= in "
                        "[scenario]): no line below is a verdict\n");
    }
    if (nexpl) {
        g_autofree char *ivd = nexpl > 1 ?
            g_strdup_printf(", intervals at %.4g %% (Bonferroni: together "
                            "95 %%)", 100 * (1 - SMMULAB_ALPHA / nexpl)) :
            g_strdup("");

        g_string_append_printf(t, "exploratory (p adjusted by Holm over the "
                               "%u lines below%s; hints for a scenario of "
                               "their own, never a verdict):\n", nexpl, ivd);
    }
    for (i = 0; i < lines->len; i++) {
        Line *l = g_ptr_array_index(lines, i);

        if (!l->primary) {
            print_exploratory(t, b, sc, l);
        }
    }
    json_builder_end_array(b);
    g_string_append_c(t, '\n');
}

/* Why the control does not stand, or NULL when it is clean */
char *report_control_problems(JsonArray *runs, guint *nctl)
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
void report_evidence(GString *t, JsonArray *runs)
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
        if (json_object_has_member(r, "cpus_at_lockups")) {
            smmulab_lockups_text(json_object_get_object_member(r,
                                     "cpus_at_lockups"), t, "    ", 1);
        }
        g_string_append_printf(t, "    log: %s\n",
                               json_object_get_string_member(r, "log"));
    }
    if (shown) {
        g_string_append_c(t, '\n');
    }
}


/*
 * Where the CPUs were at the soft lockups, summed per variant (and point):
 * text, and "cpus_at_lockups" in report.json
 */
void report_places(GString *t, JsonBuilder *b, JsonArray *runs)
{
    g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) sums = g_hash_table_new_full(g_str_hash, g_str_equal,
                                                       NULL,
                                                       (GDestroyNotify)json_object_unref);
    guint i, k;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        const char *pt = json_object_get_string_member_with_default(r, "point",
                                                                    "");
        JsonObject *o, *sum, *places, *sp;
        g_autoptr(GList) names = NULL;
        g_autofree char *key = NULL;
        GList *l;

        if (!json_object_has_member(r, "cpus_at_lockups")) {
            continue;
        }
        o = json_object_get_object_member(r, "cpus_at_lockups");
        key = g_strdup_printf("%s%s%s%s",
                              json_object_get_boolean_member(r, "control") ?
                                  "control:" : "",
                              json_object_get_string_member(r, "variant"),
                              pt[0] ? " at " : "", pt);
        sum = g_hash_table_lookup(sums, key);
        if (!sum) {
            sum = json_object_new();
            json_object_set_string_member(sum, "variant", key);
            json_object_set_int_member(sum, "runs", 0);
            json_object_set_int_member(sum, "lockups", 0);
            json_object_set_int_member(sum, "all_cpus", 0);
            json_object_set_object_member(sum, "places", json_object_new());
            g_hash_table_insert(sums, g_strdup(key), sum);
            g_ptr_array_add(keys, g_steal_pointer(&key));
        }
#define ADD(m, v) json_object_set_int_member(sum, m, \
                      json_object_get_int_member(sum, m) + (v))
        ADD("runs", 1);
        ADD("lockups", json_object_get_int_member(o, "lockups"));
        ADD("all_cpus", json_object_get_int_member(o, "all_cpus"));
#undef ADD
        places = json_object_get_object_member(o, "places");
        sp = json_object_get_object_member(sum, "places");
        names = json_object_get_members(places);
        for (l = names; l; l = l->next) {
            json_object_set_int_member(sp, l->data,
                json_object_get_int_member_with_default(sp, l->data, 0) +
                json_object_get_int_member(places, l->data));
        }
    }
    if (!keys->len) {
        return;
    }
    g_string_append(t, "CPUs at the soft lockups, summed per variant (the "
                    "stuck CPU of each lockup, and every other CPU where the "
                    "guest printed all backtraces):\n");
    json_builder_set_member_name(b, "cpus_at_lockups");
    json_builder_begin_array(b);
    for (k = 0; k < keys->len; k++) {
        JsonObject *sum = g_hash_table_lookup(sums, g_ptr_array_index(keys, k));
        g_autofree char *places =
            smmulab_places_text(json_object_get_object_member(sum, "places"));
        JsonNode *n = json_node_alloc();

        g_autofree char *all = json_object_get_int_member(sum, "all_cpus") ?
            g_strdup_printf("every CPU's backtrace at %" G_GINT64_FORMAT,
                            json_object_get_int_member(sum, "all_cpus")) :
            g_strdup("the stuck CPU's backtrace only");

        g_string_append_printf(t, "  %s: %" G_GINT64_FORMAT " lockup(s) in %"
                               G_GINT64_FORMAT " run(s), %s: %s\n",
                               (char *)g_ptr_array_index(keys, k),
                               json_object_get_int_member(sum, "lockups"),
                               json_object_get_int_member(sum, "runs"),
                               all, places);
        json_node_init_object(n, sum);
        json_builder_add_value(b, n);
    }
    json_builder_end_array(b);
    g_string_append_c(t, '\n');
}
