/*
 * Host unit tests of the A/B statistics (runner/abtest.c), against values
 * computed independently: exact fractions, published examples, and
 * Debian's python3-scipy 1.10.1 (stats.fisher_exact, stats.mannwhitneyu
 * with method='exact', enumeration of every arrangement for tied data,
 * the interval found by inverting the exact test), pinned here with their
 * inputs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <math.h>
#include <stdlib.h>

#include "abtest.h"

#define EPS 1e-9
#define A SMMULAB_ALPHA

static void test_fisher(void)
{
    /* 0 of 5 against 4 of 5: 2 * C(5,4) / C(10,4) = 10/210 */
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(0, 5, 4, 5),
                                   10.0 / 210, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(4, 5, 0, 5),
                                   10.0 / 210, EPS);
    /* Fisher's tea tasting, 3 of 4 right: p = 34/70 */
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(3, 4, 1, 4),
                                   34.0 / 70, EPS);
    /* Complete separation at n = 2, 3, 4: 2 / C(2n, n) */
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(0, 2, 2, 2),
                                   2.0 / 6, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(0, 3, 3, 3),
                                   2.0 / 20, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(0, 4, 4, 4),
                                   2.0 / 70, EPS);
    /* Unequal groups and an asymmetric tail */
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(1, 10, 9, 10),
                                   0.001093333910671372, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(7, 12, 2, 15),
                                   0.03691838291380625, EPS);
    /* No difference, no events, and degenerate inputs */
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(2, 5, 2, 5), 1, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(0, 5, 0, 5), 1, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(5, 5, 5, 5), 1, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_exact(0, 0, 3, 5), 1, EPS);
}

/*
 * p exactly at alpha is not significant, however it rounds; the printed
 * p never reads the other way from the verdict.
 */
static void test_edges(void)
{
    /* 0/2 against 12/14: exactly 1/20 (scipy: 0.05) */
    double p = smmulab_fisher_exact(0, 2, 12, 14);
    char *s;

    g_assert_cmpfloat_with_epsilon(p, 0.05, 1e-12);
    g_assert_false(smmulab_significant(p, A));
    g_assert_false(smmulab_significant(0.05, A));
    g_assert_false(smmulab_significant(0.04999999999999976, A));
    g_assert_true(smmulab_significant(0.0499, A));
    g_assert_true(smmulab_significant(0.049999, A));
    s = smmulab_format_p(p, A);
    g_assert_cmpstr(s, ==, "0.05");
    free(s);
    /* U = 13 at 8 + 8: p = 0.04988..., printed so that it reads < 0.05 */
    s = smmulab_format_p(0.049883449883449879, A);
    g_assert_cmpstr(s, ==, "0.0499");
    free(s);
    s = smmulab_format_p(0.0769, A);
    g_assert_cmpstr(s, ==, "0.077");
    free(s);
    s = smmulab_format_p(0.05000001, A);
    g_assert_cmpstr(s, ==, "0.05");
    free(s);
    s = smmulab_format_p(0.0499999, A);
    g_assert_cmpstr(s, ==, "0.0499999");
    free(s);
    s = smmulab_format_p(1, A);
    g_assert_cmpstr(s, ==, "1");
    free(s);
}

static double mwu(const double *a, size_t na, const double *b, size_t nb,
                  double *u)
{
    bool exact;
    double p = smmulab_mann_whitney(a, na, b, nb, u, &exact);

    g_assert_true(exact);
    return p;
}

static void test_mann_whitney_exact(void)
{
    const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
    const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
    const double t1[] = { 1, 1, 2 }, t2[] = { 2, 3, 3 };
    const double a2[] = { 10, 20 }, b2[] = { 30, 40 };
    const double x[] = { 3.1, 2.2, 5.5, 4.0, 1.5 };
    const double y[] = { 6.1, 2.9, 7.7, 8.8, 5.0 };
    const double s[] = { 1, 2, 3, 4 };
    double u;

    /* R: wilcox.test(1:3, 4:6) p = 0.1, W = 0 */
    g_assert_cmpfloat_with_epsilon(mwu(a3, 3, b3, 3, &u), 0.1, EPS);
    g_assert_cmpfloat(u, ==, 0);
    g_assert_cmpfloat_with_epsilon(mwu(b3, 3, a3, 3, &u), 0.1, EPS);
    g_assert_cmpfloat(u, ==, 9);
    /* 2 / C(10, 5) */
    g_assert_cmpfloat_with_epsilon(mwu(a5, 5, b5, 5, &u), 2.0 / 252, EPS);
    /* n = 2 + 2 can never go below 1/3 */
    g_assert_cmpfloat_with_epsilon(mwu(a2, 2, b2, 2, &u), 1.0 / 3, EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_mann_whitney_min_p(2, 2), 1.0 / 3,
                                   EPS);
    g_assert_cmpfloat_with_epsilon(smmulab_mann_whitney_min_p(5, 5),
                                   2.0 / 252, EPS);
    /* Ties: mid-ranks, permutation distribution (exact fraction 4/20) */
    g_assert_cmpfloat_with_epsilon(mwu(t1, 3, t2, 3, &u), 0.2, EPS);
    g_assert_cmpfloat(u, ==, 0.5);
    /* Overlapping samples: 24/252 by enumeration */
    g_assert_cmpfloat_with_epsilon(mwu(x, 5, y, 5, &u), 24.0 / 252, EPS);
    g_assert_cmpfloat(u, ==, 4);
    /* Identical samples */
    g_assert_cmpfloat_with_epsilon(mwu(s, 4, s, 4, &u), 1, EPS);
    g_assert_cmpfloat(u, ==, 8);
    /* Empty */
    g_assert_cmpfloat(mwu(s, 0, s, 4, &u), ==, 1);
}

/* Sizes past the old enumeration limit, against scipy's exact test */
static void test_mann_whitney_sizes(void)
{
    const double a8[] = { 2, 3, 9, 11, 1, 7, 8, 0 };
    const double b8[] = { 12, 10, 5, 4, 15, 13, 14, 6 };
    const double a9[] = { 13, 4, 7, 6, 5, 25, 1, 2, 21 };
    const double b20[] = { 14, 28, 22, 26, 18, 17, 19, 0, 23, 15, 9, 16, 8,
                           11, 24, 3, 10, 12, 27, 20 };
    const double a12[] = { 17, 5, 11, 7, 1, 9, 0, 3, 22, 21, 8, 2 };
    const double b12[] = { 16, 12, 19, 10, 15, 23, 14, 4, 6, 13, 20, 18 };
    const double a30[] = { 45, 50, 5, 54, 0, 17, 53, 16, 3, 51, 2, 8, 9, 23,
                           46, 42, 18, 7, 20, 1, 33, 29, 10, 14, 11, 12, 24,
                           43, 31, 58 };
    const double b30[] = { 49, 47, 32, 48, 35, 28, 15, 52, 56, 26, 22, 19,
                           13, 34, 40, 4, 57, 21, 41, 39, 38, 59, 37, 36, 25,
                           27, 44, 55, 30, 6 };
    double u, p;

    /* 8 + 8, U = 13: 0.04988..., DIFFERENT (it printed "p=0.050") */
    p = mwu(a8, 8, b8, 8, &u);
    g_assert_cmpfloat(u, ==, 13);
    g_assert_cmpfloat_with_epsilon(p, 0.049883449883449879, 1e-13);
    g_assert_true(smmulab_significant(p, A));
    /* 9 + 20, U = 48: exact 0.0491 (the normal approximation gave 0.0504) */
    p = mwu(a9, 9, b20, 20, &u);
    g_assert_cmpfloat(u, ==, 48);
    g_assert_cmpfloat_with_epsilon(p, 0.049090539645262284, 1e-13);
    g_assert_true(smmulab_significant(p, A));
    /* the same with the groups swapped */
    p = mwu(b20, 20, a9, 9, &u);
    g_assert_cmpfloat_with_epsilon(p, 0.049090539645262284, 1e-13);
    p = mwu(a12, 12, b12, 12, &u);
    g_assert_cmpfloat(u, ==, 40);
    g_assert_cmpfloat_with_epsilon(p, 0.068361440686114272, 1e-13);
    p = mwu(a30, 30, b30, 30, &u);
    g_assert_cmpfloat(u, ==, 300);
    g_assert_cmpfloat_with_epsilon(p, 0.02633196030257938, 1e-12);
}

/* Ties at sizes where they matter: every arrangement enumerated (python) */
static void test_mann_whitney_ties(void)
{
    const double a8[] = { 0, 0, 1, 1, 2, 3, 0, 1 };
    const double b8[] = { 1, 2, 2, 3, 3, 4, 2, 5 };
    const double a10[] = { 0, 0, 0, 1, 0, 2, 0, 0, 1, 0 };
    const double b10[] = { 1, 0, 2, 1, 3, 1, 2, 0, 4, 1 };
    const double a6[] = { 1.5, 2.5, 2.5, 4, 1.5, 3 };
    const double b7[] = { 2.5, 4, 5, 5, 6, 4, 7 };

    g_assert_cmpfloat_with_epsilon(mwu(a8, 8, b8, 8, NULL), 1.0 / 65, 1e-13);
    g_assert_cmpfloat_with_epsilon(mwu(a10, 10, b10, 10, NULL),
                                   2837.0 / 92378, 1e-13);
    g_assert_cmpfloat_with_epsilon(mwu(a6, 6, b7, 7, NULL), 7.0 / 572,
                                   1e-13);
}

static void test_mann_whitney_normal(void)
{
    double a[150], b[150], u, p;
    bool exact;
    int i;

    for (i = 0; i < 150; i++) {
        a[i] = i + 1;
        b[i] = i + 151;
    }
    /* Exact up to 110 + 110 (docs/scenarios.md), not at 111 + 111 */
    p = smmulab_mann_whitney(a, 110, b, 110, &u, &exact);
    g_assert_true(exact);
    p = smmulab_mann_whitney(a, 111, b, 111, &u, &exact);
    g_assert_false(exact);
    /* Past the exact work limit: the normal approximation, and it says so */
    p = smmulab_mann_whitney(a, 150, b, 150, &u, &exact);
    g_assert_false(exact);
    g_assert_cmpfloat(u, ==, 0);
    g_assert_cmpfloat(p, <, 1e-40);
}

static void test_hodges_lehmann(void)
{
    const double a[] = { 3.1, 2.2, 5.5, 4.0, 1.5, 6.3, 2.8, 4.4 };
    const double b[] = { 6.1, 2.9, 7.7, 8.8, 5.0, 9.9, 6.6, 7.2 };
    const double c[] = { 100, 110, 90, 105, 95, 101, 99 };
    const double d[] = { 60, 65, 55, 62, 58, 120, 70, 64, 61 };
    const double s3[] = { 1, 2, 3 }, t3[] = { 4, 5, 6 };
    const double zero[] = { 0, 0, 0, 0, 0, 0, 0, 1 };
    const double one[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    double lo, hi, level, shift;

    /* Interval by inverting scipy's exact test: [0.9, 5.1] */
    shift = smmulab_hodges_lehmann(a, 8, b, 8, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, 3.3, EPS);
    g_assert_cmpfloat_with_epsilon(lo, 0.9, EPS);
    g_assert_cmpfloat_with_epsilon(hi, 5.1, EPS);
    g_assert_cmpfloat(level, >=, 0.95);
    g_assert_cmpfloat(level, <, 0.96);
    /* 7 + 9 with an outlier: -37 [-44, -29] */
    shift = smmulab_hodges_lehmann(c, 7, d, 9, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, -37, EPS);
    g_assert_cmpfloat_with_epsilon(lo, -44, EPS);
    g_assert_cmpfloat_with_epsilon(hi, -29, EPS);
    /* 3 + 3 has no 95 % interval (its smallest p is 0.1) */
    shift = smmulab_hodges_lehmann(s3, 3, t3, 3, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, 3, EPS);
    g_assert_true(isnan(lo) && isnan(hi));
    g_assert_cmpfloat(level, ==, 0);
    /* A baseline that is almost all 0: a finite shift, no dropped draws */
    shift = smmulab_hodges_lehmann(zero, 8, one, 8, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, 1, EPS);
    g_assert_true(isfinite(lo) && isfinite(hi));
}

/*
 * Without ties, "0 outside the interval" and "p significant" are one
 * statement: checked over many random samples of many sizes.
 */
static void test_interval_agrees_with_p(void)
{
    GRand *r = g_rand_new_with_seed(42);
    int trial, disagree = 0, sig = 0;

    for (trial = 0; trial < 3000; trial++) {
        size_t na = g_rand_int_range(r, 2, 15), nb = g_rand_int_range(r, 2, 15);
        double a[16], b[16], lo, hi, level, p;
        double shift = g_rand_double_range(r, -2, 2);
        size_t i;

        for (i = 0; i < na; i++) {
            a[i] = g_rand_double(r) * 2;
        }
        for (i = 0; i < nb; i++) {
            b[i] = g_rand_double(r) * 2 + shift;
        }
        p = smmulab_mann_whitney(a, na, b, nb, NULL, NULL);
        smmulab_hodges_lehmann(a, na, b, nb, A, &lo, &hi, &level);
        if (isnan(lo)) {
            /* no interval: no outcome at this n is significant */
            g_assert_false(smmulab_significant(p, A));
            continue;
        }
        sig += smmulab_significant(p, A);
        disagree += (lo > 0 || hi < 0) != smmulab_significant(p, A);
    }
    g_rand_free(r);
    g_assert_cmpint(disagree, ==, 0);
    g_assert_cmpint(sig, >, 300);
}

static void test_holm(void)
{
    double p[] = { 0.01, 0.04, 0.03, 0.005 };
    double q[] = { 0.5 };
    double r[] = { 0.2, 0.9 };

    smmulab_holm(p, 4);
    /* sorted 0.005, 0.01, 0.03, 0.04 -> 0.02, 0.03, 0.06, 0.06 */
    g_assert_cmpfloat_with_epsilon(p[3], 0.02, EPS);
    g_assert_cmpfloat_with_epsilon(p[0], 0.03, EPS);
    g_assert_cmpfloat_with_epsilon(p[2], 0.06, EPS);
    g_assert_cmpfloat_with_epsilon(p[1], 0.06, EPS);
    smmulab_holm(q, 1);
    g_assert_cmpfloat_with_epsilon(q[0], 0.5, EPS);
    smmulab_holm(r, 2);
    g_assert_cmpfloat_with_epsilon(r[0], 0.4, EPS);
    g_assert_cmpfloat_with_epsilon(r[1], 0.9, EPS);
}

/* The figures, recomputed with scipy by enumeration */
static void test_power(void)
{
    double d;

    g_assert_cmpfloat_with_epsilon(smmulab_fisher_power(8, 0.5, 8, 0.2, A),
                                   0.120429410000, 1e-9);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_power(8, 0.6, 8, 0.1, A),
                                   0.392801483120, 1e-9);
    g_assert_cmpfloat_with_epsilon(smmulab_fisher_power(8, 0.7, 8, 0.0, A),
                                   0.805895650000, 1e-9);
    /* From no lockups at 8 + 8, 80 % power needs a 70 % lockup rate */
    g_assert_cmpfloat_with_epsilon(
        smmulab_fisher_detectable(8, 8, 0, true, A, SMMULAB_POWER), 0.7,
        1e-9);
    g_assert_true(isnan(smmulab_fisher_detectable(2, 2, 0, true, A,
                                                  SMMULAB_POWER)));
    g_assert_cmpuint(smmulab_fisher_n_needed(0.5, 0, A, SMMULAB_POWER, 100),
                     ==, 12);
    g_assert_cmpuint(smmulab_fisher_n_needed(0.3, 0.3, A, SMMULAB_POWER,
                                             100), ==, 0);
    /*
     * Mann-Whitney on normal data: at 8 + 8, about 1.5 standard deviations
     * (the t-test needs 1.5; the rank test's efficiency is 3/pi);
     * python simulation of 100000 draws: power 0.80 at about 1.56.
     */
    d = smmulab_mwu_detectable(8, 8, A, SMMULAB_POWER);
    g_assert_cmpfloat(d, >, 1.42);
    g_assert_cmpfloat(d, <, 1.62);
    g_assert_true(isnan(smmulab_mwu_detectable(3, 3, A, SMMULAB_POWER)));
    g_assert_cmpfloat(smmulab_mwu_power(8, 8, 0, A), <, 0.06);
    g_assert_cmpuint(smmulab_mwu_n_needed(d, A, SMMULAB_POWER, 100), >=, 7);
    g_assert_cmpuint(smmulab_mwu_n_needed(d, A, SMMULAB_POWER, 100), <=, 9);
    g_assert_cmpuint(smmulab_mwu_n_needed(0.01, A, SMMULAB_POWER, 100), ==,
                     0);
}

static void test_summary(void)
{
    const double x[] = { 4, 1, 7, 2 };
    SmmulabSummary s;

    smmulab_summarize(x, 3, &s);
    g_assert_cmpuint(s.n, ==, 3);
    g_assert_cmpfloat_with_epsilon(s.mean, 4, EPS);
    g_assert_cmpfloat_with_epsilon(s.median, 4, EPS);
    g_assert_cmpfloat_with_epsilon(s.sd, 3, EPS);
    g_assert_cmpfloat(s.min, ==, 1);
    g_assert_cmpfloat(s.max, ==, 7);
    g_assert_cmpfloat(s.sum, ==, 12);
    smmulab_summarize(x, 4, &s);
    g_assert_cmpfloat_with_epsilon(s.median, 3, EPS);
    smmulab_summarize(x, 0, &s);
    g_assert_true(isnan(s.mean) && isnan(s.min) && isnan(s.max));
}

static void test_repeat_seed(void)
{
    /* Reproducible, distinct per repeat and per scenario seed, never 0 */
    g_assert_cmphex(smmulab_repeat_seed(1, 0), ==, smmulab_repeat_seed(1, 0));
    g_assert_cmphex(smmulab_repeat_seed(1, 0), !=, smmulab_repeat_seed(1, 1));
    g_assert_cmphex(smmulab_repeat_seed(1, 0), !=, smmulab_repeat_seed(2, 0));
    g_assert_cmphex(smmulab_repeat_seed(0, 0), !=, 0);
    /* splitmix64 of 0x9E3779B97F4A7C15 (its first output from seed 0) */
    g_assert_cmphex(smmulab_repeat_seed(0, 0), ==, 0xe220a8397b1dcdafULL);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/abtest/fisher", test_fisher);
    g_test_add_func("/abtest/edges", test_edges);
    g_test_add_func("/abtest/mann-whitney/exact", test_mann_whitney_exact);
    g_test_add_func("/abtest/mann-whitney/sizes", test_mann_whitney_sizes);
    g_test_add_func("/abtest/mann-whitney/ties", test_mann_whitney_ties);
    g_test_add_func("/abtest/mann-whitney/normal", test_mann_whitney_normal);
    g_test_add_func("/abtest/hodges-lehmann", test_hodges_lehmann);
    g_test_add_func("/abtest/interval-agrees-with-p",
                    test_interval_agrees_with_p);
    g_test_add_func("/abtest/holm", test_holm);
    g_test_add_func("/abtest/power", test_power);
    g_test_add_func("/abtest/summary", test_summary);
    g_test_add_func("/abtest/repeat-seed", test_repeat_seed);
    return g_test_run();
}
