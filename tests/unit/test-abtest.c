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
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "abtest.h"

#define EPS 1e-9
#define A SMMULAB_ALPHA

/*
 * The open end of an interval: the next double inward of a Walsh average
 * or a difference
 */
#define OPEN_LO(x) nextafter((x), INFINITY)
#define OPEN_HI(x) nextafter((x), -INFINITY)

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* CPU seconds of this process: timings that a busy machine does not skew */
static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

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

    const double two[] = { 1, 2 }, five[] = { 3, 3, 3, 3, 3 };
    const double ones[] = { 1, 1 }, low[] = { -4, -4, -4, -1, 0 };
    const double same[] = { 7, 7, 7, 7, 7, 7 };
    double p;

    g_assert_cmpfloat_with_epsilon(mwu(a8, 8, b8, 8, NULL), 1.0 / 65, 1e-13);
    g_assert_cmpfloat_with_epsilon(mwu(a10, 10, b10, 10, NULL),
                                   2837.0 / 92378, 1e-13);
    g_assert_cmpfloat_with_epsilon(mwu(a6, 6, b7, 7, NULL), 7.0 / 572,
                                   1e-13);
    /*
     * 2 + 5 with the five tied: p = 1/21, below 0.05, where untied values
     * at 2 + 5 never go below 2/21 (the upper tail cannot be reached)
     */
    g_assert_cmpfloat_with_epsilon(mwu(two, 2, five, 5, NULL), 1.0 / 21,
                                   1e-15);
    g_assert_cmpfloat_with_epsilon(mwu(ones, 2, low, 5, NULL), 1.0 / 21,
                                   1e-15);
    g_assert_cmpfloat(smmulab_mann_whitney_min_p(2, 5), >, A);
    /* Every value tied: U at its mean, p = 1 */
    g_assert_cmpfloat(mwu(same, 2, same, 4, NULL), ==, 1);
    /* Either way round, the same p to the last bit */
    p = mwu(a10, 10, b10, 10, NULL);
    g_assert_cmpfloat(mwu(b10, 10, a10, 10, NULL), ==, p);
    p = mwu(a6, 6, b7, 7, NULL);
    g_assert_cmpfloat(mwu(b7, 7, a6, 6, NULL), ==, p);
}

/*
 * The p of the Mann-Whitney test by brute force: every choice of na of
 * the n pooled values (bit masks), the rank sum with doubled mid-ranks,
 * two-sided by distance from the mean; and the smallest p of any choice
 */
static double mwu_brute(const double *a, size_t na, const double *b,
                        size_t nb, double *min_p)
{
    static long sums[12870];   /* C(16, 8) */
    size_t n = na + nb, i, j, m;
    long r2[16], obs = 0, mean2, maxdev = 0;
    double x[16], hit = 0, hit_max = 0, total = 0;
    unsigned long s;

    for (i = 0; i < n; i++) {
        x[i] = i < na ? a[i] : b[i - na];
    }
    for (i = 0; i < n; i++) {
        long below = 0, equal = 0;

        for (j = 0; j < n; j++) {
            below += x[j] < x[i];
            equal += x[j] == x[i];
        }
        r2[i] = 2 * below + equal + 1;
        obs += i < na ? r2[i] : 0;
    }
    mean2 = (long)na * (long)(n + 1);
    /* the choices of na of n bits, in order (Gosper) */
    for (s = (1UL << na) - 1, m = 0; s < 1UL << n; m++) {
        unsigned long low = s & -s, up = s + low;

        sums[m] = 0;
        for (i = 0; i < n; i++) {
            sums[m] += s >> i & 1 ? r2[i] : 0;
        }
        if (labs(sums[m] - mean2) > maxdev) {
            maxdev = labs(sums[m] - mean2);
        }
        s = (((up ^ s) >> 2) / low) | up;
    }
    for (i = 0; i < m; i++) {
        total++;
        hit += labs(sums[i] - mean2) >= labs(obs - mean2);
        hit_max += labs(sums[i] - mean2) >= maxdev;
    }
    *min_p = hit_max / total;
    return hit / total;
}

/* A random sample: continuous (multiples of 2^-15), integer, zero-inflated
   integer or halves, @shift added (rounded alike) */
static void random_sample(GRand *r, double *x, int kind, size_t n,
                          double shift)
{
    size_t i;

    for (i = 0; i < n; i++) {
        switch (kind) {
        case 0:
            x[i] = g_rand_int_range(r, 0, 1 << 16) / 32768.0 + shift;
            break;
        case 1:
            x[i] = g_rand_int_range(r, -2, 5) + floor(shift);
            break;
        case 2:
            x[i] = g_rand_double(r) < 0.4 ? 0 :
                   g_rand_int_range(r, -3, 7) + floor(shift);
            break;
        default:
            x[i] = (g_rand_int_range(r, -4, 9) + floor(2 * shift)) / 2;
            break;
        }
    }
}

/*
 * The dynamic programming against every choice, and the smallest p of
 * the values as they are against the smallest p of any choice, 3000 data
 * sets of 1 to 8 values a side, tied and untied
 */
static void test_mann_whitney_brute_force(void)
{
    GRand *r = g_rand_new_with_seed(29);
    int trial, sig = 0, below_untied = 0, above_untied = 0;

    for (trial = 0; trial < 3000; trial++) {
        size_t na = g_rand_int_range(r, 1, 9), nb = g_rand_int_range(r, 1, 9);
        double a[8], b[8], p, mp, ref_mp;
        double shift = g_rand_int_range(r, -32768, 3 * 32768) / 32768.0;

        random_sample(r, a, trial % 4, na, 0);
        random_sample(r, b, trial % 4, nb, shift);
        p = smmulab_mann_whitney(a, na, b, nb, NULL, NULL);
        g_assert_cmpfloat_with_epsilon(p, mwu_brute(a, na, b, nb, &ref_mp),
                                       1e-12);
        mp = smmulab_mann_whitney_min_p_data(a, na, b, nb);
        g_assert_cmpfloat_with_epsilon(mp, ref_mp, 1e-13);
        g_assert_cmpfloat(mp, <=, p * (1 + 1e-12));
        g_assert_cmpfloat(smmulab_mann_whitney_min_p_data(b, nb, a, na), ==,
                          mp);
        if (trial % 4 == 0) {
            /* no ties: the untied figure */
            g_assert_cmpfloat_with_epsilon(mp,
                                           smmulab_mann_whitney_min_p(na, nb),
                                           1e-15);
        }
        sig += smmulab_significant(p, A);
        below_untied += mp < smmulab_mann_whitney_min_p(na, nb) * (1 - 1e-12);
        above_untied += mp > smmulab_mann_whitney_min_p(na, nb) * (1 + 1e-12);
    }
    g_rand_free(r);
    g_test_message("3000 data sets, %d significant; the smallest p below "
                   "the untied one in %d, above it in %d", sig, below_untied,
                   above_untied);
    g_assert_cmpint(sig, >, 300);
    g_assert_cmpint(below_untied, >, 100);
    g_assert_cmpint(above_untied, >, 100);
    /* 1, 2 against 3, 3, 3, 3, 3: 1/21; all tied: 1 */
    {
        const double two[] = { 1, 2 }, five[] = { 3, 3, 3, 3, 3 };

        g_assert_cmpfloat_with_epsilon(
            smmulab_mann_whitney_min_p_data(two, 2, five, 5), 1.0 / 21,
            1e-15);
        g_assert_cmpfloat(smmulab_mann_whitney_min_p_data(five, 3, five, 2),
                          ==, 1);
    }
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
 * With ties: the interval that inverts the tie-aware test, against the
 * same inversion in exact fractions with every choice enumerated
 * (python, scipy 1.10.1's environment: a8/b8 ... as in the ties test),
 * ends open or closed exactly
 */
static void test_hodges_lehmann_ties(void)
{
    const double a8[] = { 0, 0, 1, 1, 2, 3, 0, 1 };
    const double b8[] = { 1, 2, 2, 3, 3, 4, 2, 5 };
    const double a10[] = { 0, 0, 0, 1, 0, 2, 0, 0, 1, 0 };
    const double b10[] = { 1, 0, 2, 1, 3, 1, 2, 0, 4, 1 };
    const double a6[] = { 1.5, 2.5, 2.5, 4, 1.5, 3 };
    const double b7[] = { 2.5, 4, 5, 5, 6, 4, 7 };
    const double two[] = { 1, 2 }, five[] = { 3, 3, 3, 3, 3 };
    const double ones[] = { 1, 1 }, low[] = { -4, -4, -4, -1, 0 };
    const double same[] = { 7, 7, 7, 7, 7, 7 };
    double lo, hi, level, shift;

    /* p = 1/65: [1, 3] */
    shift = smmulab_hodges_lehmann(a8, 8, b8, 8, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 2);
    g_assert_cmpfloat(lo, ==, 1);
    g_assert_cmpfloat(hi, ==, 3);
    g_assert_cmpfloat(level, ==, 1 - A);
    /*
     * p = 2837/92378 = 0.031 (zero-inflated): (0, 2).  The classical
     * interval from the untied distribution was [0, 2], 0 inside beside a
     * significant p; the test at 0 (and at 2) rejects, just inside not.
     */
    shift = smmulab_hodges_lehmann(a10, 10, b10, 10, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 1);
    g_assert_cmpfloat(lo, ==, OPEN_LO(0.0));
    g_assert_cmpfloat(lo, >, 0);
    g_assert_cmpfloat(hi, ==, OPEN_HI(2.0));
    /* p = 7/572: [1, 3.5] */
    shift = smmulab_hodges_lehmann(a6, 6, b7, 7, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 2.5);
    g_assert_cmpfloat(lo, ==, 1);
    g_assert_cmpfloat(hi, ==, 3.5);
    /* 2 + 5, p = 1/21 (no interval from the untied distribution): [1, 2] */
    shift = smmulab_hodges_lehmann(two, 2, five, 5, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 1.5);
    g_assert_cmpfloat(lo, ==, 1);
    g_assert_cmpfloat(hi, ==, 2);
    /*
     * p = 1/21 at 0, but 2/21 at every shift below -5 (b's top values
     * untied, a's tied): (-inf, -1]
     */
    shift = smmulab_hodges_lehmann(ones, 2, low, 5, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, -5);
    g_assert_true(isinf(lo) && lo < 0);
    g_assert_cmpfloat(hi, ==, -1);
    g_assert_cmpfloat(level, ==, 1 - A);
    /* All tied: the test rejects every shift but 0: [0, 0] */
    shift = smmulab_hodges_lehmann(same, 3, same, 3, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 0);
    g_assert_true(isnan(lo));   /* 3 + 3: 2/20 at the extremes */
    shift = smmulab_hodges_lehmann(same, 6, same, 6, A, &lo, &hi, &level);
    g_assert_cmpfloat(lo, ==, 0);
    g_assert_cmpfloat(hi, ==, 0);
}

/*
 * The interval against its definition, and "0 outside the interval"
 * against "the test at 0 is significant", over 6000 random data sets
 * (continuous, integer, zero-inflated integer, halves; 2 to 12 values a
 * side, where 0 is often a difference).  The set of theta not significant
 * is recomputed here with the test itself on a + theta (exact: the
 * values are multiples of 2^-15) at every difference and between each
 * two.  The statements could disagree only one way, p significant with 0
 * in a gap of that set, or with no interval: those are counted, and must
 * stay rare (none were seen here, nor in 26000 more of up to 30 a side).
 */
static void test_interval_agrees_with_p(void)
{
    GRand *r = g_rand_new_with_seed(23);
    int trial, sig = 0, at_diff = 0, gaps = 0, sets = 0, open_ends = 0;
    int infinite = 0, none_sig = 0, untied_agree = 0;

    for (trial = 0; trial < 6000; trial++) {
        int kind = trial % 4;
        size_t na = g_rand_int_range(r, 2, 13), nb = g_rand_int_range(r, 2, 13);
        double a[12], b[12], e[12], d[144], lo, hi, level, p;
        double elo = NAN, ehi = NAN;
        double shift = g_rand_int_range(r, -2 * 32768, 4 * 32768) / 32768.0;
        size_t q = 0, M = 0, i, j, c, first = SIZE_MAX, last = 0;
        size_t below = 0, above = 0;
        bool acc[289], outside;

        random_sample(r, a, kind, na, 0);
        random_sample(r, b, kind, nb, shift);
        for (i = 0; i < na; i++) {
            for (j = 0; j < nb; j++) {
                d[M++] = b[j] - a[i];
            }
        }
        qsort(d, M, sizeof(*d), cmp_dbl);
        for (i = 0; i < M; i++) {
            if (!q || d[i] != d[q - 1]) {
                d[q++] = d[i];
            }
        }
        /* The test at every candidate: difference k at 2k + 1 */
        for (c = 0; c <= 2 * q; c++) {
            double t = c % 2 ? d[c / 2] : c == 0 ? d[0] - fabs(d[0]) - 1 :
                       c == 2 * q ? d[q - 1] + fabs(d[q - 1]) + 1 :
                       d[c / 2 - 1] + (d[c / 2] - d[c / 2 - 1]) / 2;

            for (i = 0; i < na; i++) {
                e[i] = a[i] + t;
            }
            acc[c] = !smmulab_significant(
                smmulab_mann_whitney(e, na, b, nb, NULL, NULL), A);
            if (acc[c]) {
                first = first == SIZE_MAX ? c : first;
                last = c;
                below += t < 0;
                above += t > 0;
            }
        }
        if (first != SIZE_MAX && (first > 0 || last < 2 * q)) {
            elo = first == 0 ? -INFINITY : first % 2 ? d[first / 2] :
                  OPEN_LO(d[first / 2 - 1]);
            ehi = last == 2 * q ? INFINITY : last % 2 ? d[last / 2] :
                  OPEN_HI(d[last / 2]);
        }
        smmulab_hodges_lehmann(a, na, b, nb, A, &lo, &hi, &level);
        if (isnan(elo)) {
            g_assert_true(isnan(lo) && isnan(hi));
            g_assert_cmpfloat(level, ==, 0);
        } else {
            g_assert_cmpfloat(lo, ==, elo);
            g_assert_cmpfloat(hi, ==, ehi);
            g_assert_cmpfloat(level, >=, 1 - A);
            open_ends += (first > 0 && !(first % 2)) +
                         (last < 2 * q && !(last % 2));
            infinite += isinf(lo) || isinf(hi);
        }
        p = smmulab_mann_whitney(a, na, b, nb, NULL, NULL);
        if (isnan(lo)) {
            /* no interval: the test would have to reject nowhere near 0 */
            none_sig += smmulab_significant(p, A);
            continue;
        }
        sets++;
        sig += smmulab_significant(p, A);
        for (i = 0; i < q; i++) {
            at_diff += d[i] == 0;
        }
        outside = lo > 0 || hi < 0;
        /* Outside: always significant */
        if (outside) {
            g_assert_true(smmulab_significant(p, A));
        }
        /* Significant inside: only in a gap, accepted theta on both sides */
        if (!outside && smmulab_significant(p, A)) {
            g_assert_cmpuint(below, >, 0);
            g_assert_cmpuint(above, >, 0);
            gaps++;
        }
        untied_agree += kind == 0 && outside == smmulab_significant(p, A);
    }
    g_rand_free(r);
    g_test_message("%d intervals (%d with an infinite end), %d significant, "
                   "0 a difference in %d, %d open ends; significant with 0 "
                   "in a gap: %d; significant without an interval: %d",
                   sets, infinite, sig, at_diff, open_ends, gaps, none_sig);
    g_assert_cmpint(sets, >, 5000);
    g_assert_cmpint(sig, >, 1500);
    g_assert_cmpint(at_diff, >, 2500);
    g_assert_cmpint(open_ends, >, 4000);
    g_assert_cmpint(infinite, >, 50);
    g_assert_cmpint(gaps + none_sig, <=, sets / 500);
    /* continuous values: always one statement */
    g_assert_cmpint(untied_agree, >, 1300);
}

/*
 * Without ties the ends are those of the classical interval [D(K),
 * D(mn + 1 - K)], K the largest with 2 P(U <= K - 1) < alpha, open or
 * closed, and the level is the classical one's.  K found here with the
 * test itself at theta where U = 0, 1, ...: between D(u) and D(u + 1), u
 * of the differences lie below theta.
 */
static void test_interval_classical(void)
{
    GRand *r = g_rand_new_with_seed(31);
    int trial, open = 0;

    for (trial = 0; trial < 1500; trial++) {
        size_t na = g_rand_int_range(r, 3, 21), nb = g_rand_int_range(r, 3, 21);
        double a[20], b[20], e[20], d[400], lo, hi, level, tail = 0, p;
        size_t M = 0, i, j, K;

        for (i = 0; i < na; i++) {
            a[i] = g_rand_double_range(r, -1, 1);
        }
        for (i = 0; i < nb; i++) {
            b[i] = g_rand_double_range(r, -0.6, 1.4);
        }
        for (i = 0; i < na; i++) {
            for (j = 0; j < nb; j++) {
                d[M++] = b[j] - a[i];
            }
        }
        qsort(d, M, sizeof(*d), cmp_dbl);
        for (K = 0; K < M / 2; K++) {
            /* U of a + theta is K: theta between D(K) and D(K + 1) */
            double t = K ? d[K - 1] + (d[K] - d[K - 1]) / 2 : d[0] - 1;

            for (i = 0; i < na; i++) {
                e[i] = a[i] + t;
            }
            p = smmulab_mann_whitney(e, na, b, nb, NULL, NULL);
            if (!smmulab_significant(p, A)) {
                break;
            }
            tail = p;
        }
        smmulab_hodges_lehmann(a, na, b, nb, A, &lo, &hi, &level);
        if (!K) {
            g_assert_true(isnan(lo) && isnan(hi));
            continue;
        }
        g_assert_true(lo == d[K - 1] || lo == OPEN_LO(d[K - 1]));
        g_assert_true(hi == d[M - K] || hi == OPEN_HI(d[M - K]));
        g_assert_cmpfloat_with_epsilon(level, 1 - tail, 1e-13);
        open += (lo != d[K - 1]) + (hi != d[M - K]);
    }
    g_rand_free(r);
    g_test_message("the classical ends in 1500 data sets, %d of 3000 open",
                   open);
    g_assert_cmpint(open, >, 100);
}

/*
 * 100 + 100 runs, the runner's most: the test and the interval in well
 * under a second (CPU time, so that a busy machine does not fail it),
 * untied, with a few ties and zero-inflated
 */
static void test_mann_whitney_large(void)
{
    GRand *r = g_rand_new_with_seed(37);
    double a[100], b[100], lo, hi, level, p, t0, t[3];
    int kind;
    size_t i;

    for (kind = 0; kind < 3; kind++) {
        for (i = 0; i < 100; i++) {
            a[i] = g_rand_double_range(r, 0, 2);
            b[i] = g_rand_double_range(r, 0.3, 2.3);
            if (kind == 1) {
                a[i] = floor(a[i] * 100) / 100;
                b[i] = floor(b[i] * 100) / 100;
            } else if (kind == 2) {
                a[i] = g_rand_double(r) < 0.4 ? 0 : g_rand_int_range(r, 0, 10);
                b[i] = g_rand_double(r) < 0.4 ? 0 :
                       g_rand_int_range(r, 1, 11);
            }
        }
        t0 = cpu_s();
        p = smmulab_mann_whitney(a, 100, b, 100, NULL, NULL);
        smmulab_hodges_lehmann(a, 100, b, 100, A, &lo, &hi, &level);
        t[kind] = cpu_s() - t0;
        g_assert_true(p > 0 && p < 1);
        g_assert_true(lo < hi && level >= 1 - A);
        g_assert_cmpint(lo > 0 || hi < 0, ==, smmulab_significant(p, A));
    }
    /*
     * Either way round the same p to the last bit, where the counts pass
     * 2^53 and round (the smaller group is always the one counted)
     */
    for (kind = 0; kind < 12; kind++) {
        size_t na = g_rand_int_range(r, 30, 80), nb = na + 5 + kind;

        for (i = 0; i < nb; i++) {
            a[i] = g_rand_int_range(r, 0, 50);
            b[i] = g_rand_int_range(r, 3, 53);
        }
        g_assert_cmpfloat(smmulab_mann_whitney(a, na, b, nb, NULL, NULL), ==,
                          smmulab_mann_whitney(b, nb, a, na, NULL, NULL));
    }
    g_rand_free(r);
    g_test_message("100+100 test and interval: %.0f ms untied, %.0f ms with "
                   "values to 0.01, %.0f ms zero-inflated (CPU)",
                   t[0] * 1e3, t[1] * 1e3, t[2] * 1e3);
    for (kind = 0; kind < 3; kind++) {
        g_assert_cmpfloat(t[kind], <, 2);
    }
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
     * The n from which the power stays at 80 %, not the first to reach
     * it (issue 40: 2/7 against 0/7 has 83 % at 23, 76 % at 25, and
     * stays from 27; scipy.stats.fisher_exact by enumeration)
     */
    g_assert_cmpfloat(smmulab_fisher_power(23, 2.0 / 7, 23, 0, A), >=, 0.8);
    g_assert_cmpfloat(smmulab_fisher_power(25, 2.0 / 7, 25, 0, A), <, 0.8);
    g_assert_cmpuint(smmulab_fisher_n_needed(2.0 / 7, 0, A, SMMULAB_POWER,
                                             100), ==, 27);
    /*
     * Mann-Whitney on normal data: at 8 + 8, about 1.5 standard deviations
     * (the t-test needs 1.5; the rank test's efficiency is 3/pi);
     * python simulation of 100000 draws: power 0.80 at about 1.56.
     */
    d = smmulab_mwu_detectable(8, 8, A, SMMULAB_POWER);
    g_assert_cmpfloat(d, >, 1.42);
    g_assert_cmpfloat(d, <, 1.62);
    g_assert_true(isnan(smmulab_mwu_detectable(3, 3, A, SMMULAB_POWER)));
    g_assert_cmpfloat(smmulab_mwu_power(3, 3, 5, A), ==, 0);
    g_assert_cmpuint(smmulab_mwu_n_needed(d, A, SMMULAB_POWER, 100), >=, 7);
    g_assert_cmpuint(smmulab_mwu_n_needed(d, A, SMMULAB_POWER, 100), <=, 9);
    g_assert_cmpuint(smmulab_mwu_n_needed(0.01, A, SMMULAB_POWER, 100), ==,
                     0);
}

/*
 * The Mann-Whitney power figures: within 3.5 Monte Carlo standard errors
 * of numpy simulations of 200000 draws with the exact critical values
 * (python: U counted pair by pair, K from the exact counts), 4000 draws
 * here; the needed n the smallest from which the power holds
 */
static void test_mwu_power(void)
{
    static const struct {
        size_t na, nb;
        double delta, power;
    } ref[] = {
        { 8, 8, 1.5, 0.77293 },
        { 8, 8, 0, 0.049883 },       /* the exact size: 2 P(U <= 13) */
        { 20, 20, 0.5, 0.32138 },
        { 5, 12, 1.2, 0.526445 },
        { 12, 12, 1.0, 0.606745 },
    };
    double d, pw, se;
    unsigned n, m;
    size_t i;
    int odd = 0;

    g_assert_cmpfloat_with_epsilon(smmulab_power_se(0.8),
                                   sqrt(0.8 * 0.2 / 4000), 1e-15);
    /* under a point at 80 %: 4000 draws (1600 would give exactly 1) */
    g_assert_cmpfloat(smmulab_power_se(0.8), <, 0.0065);
    for (i = 0; i < G_N_ELEMENTS(ref); i++) {
        pw = smmulab_mwu_power(ref[i].na, ref[i].nb, ref[i].delta, A);
        se = sqrt(ref[i].power * (1 - ref[i].power) / SMMULAB_POWER_DRAWS);
        g_assert_cmpfloat(fabs(pw - ref[i].power), <=, 3.5 * se);
        /* a share of all 4000 draws (some an odd number of them) */
        g_assert_cmpfloat(fmod(pw * 4000, 1), ==, 0);
        odd += fmod(pw * 4000, 2) == 1;
    }
    g_assert_cmpint(odd, >, 0);
    /* Reproducible, and the same either way round */
    g_assert_cmpfloat(smmulab_mwu_power(9, 7, 1, A), ==,
                      smmulab_mwu_power(9, 7, 1, A));
    /*
     * n needed: the smallest n from which the power (the same draws)
     * stays at 80 % up to max, not just the first n that reaches it
     */
    for (d = 0.75; d <= 1.8; d += 0.5) {
        n = smmulab_mwu_n_needed(d, A, SMMULAB_POWER, 40);
        g_assert_cmpuint(n, >, 4);
        g_assert_cmpfloat(smmulab_mwu_power(n - 1, n - 1, d, A), <,
                          SMMULAB_POWER);
        for (m = n; m <= 40; m++) {
            g_assert_cmpfloat(smmulab_mwu_power(m, m, d, A), >=,
                              SMMULAB_POWER);
        }
        g_assert_cmpuint(smmulab_mwu_n_needed(-d, A, SMMULAB_POWER, 40), ==,
                         n);
    }
    /*
     * The exact test's size drops from 0.0499 at 8 + 8 to 0.040 at 9 + 9,
     * and at 0.3 SD its power with it: 0.092 at 8, 0.081 at 9, 0.094 at
     * 10.  9 % is first reached at 8 but held only from 10 (bisection
     * gave 8)
     */
    g_assert_cmpfloat(smmulab_mwu_power(8, 8, 0.3, A), >=, 0.09);
    g_assert_cmpfloat(smmulab_mwu_power(9, 9, 0.3, A), <, 0.09);
    g_assert_cmpuint(smmulab_mwu_n_needed(0.3, A, 0.09, 16), ==, 10);
    g_assert_cmpuint(smmulab_mwu_n_needed(0, A, SMMULAB_POWER, 100), ==, 0);
}

/*
 * The signed-rank test without ties or zeros, against scipy 1.10.1's
 * stats.wilcoxon(d, method="exact") (tests/unit/abtest-paired-ref.py).
 */
static double wsr(const double *d, size_t n, double *w, size_t *m)
{
    bool exact;
    double p = smmulab_wilcoxon_signed_rank(d, n, w, m, &exact);

    g_assert_true(exact);
    return p;
}

static void test_wilcoxon_scipy(void)
{
    /* Hollander & Wolfe's depression scores, y - x: R and scipy 0.0390625 */
    const double dep[] = { -0.952, 0.147, -1.022, -0.43, -0.62, -0.59, -0.49,
                           0.08, -0.01 };
    const double six[] = { 0.5, 1.2, 2.3, 0.7, 3.1, 1.9 };
    const double six1[] = { -0.2, 1.2, 2.3, 0.7, 3.1, 1.9 };
    const double twelve[] = { 1.1, -0.4, 2.6, 0.3, -1.7, 0.9, 1.4, -0.2, 2.2,
                              0.6, -0.8, 1.9 };
    const double u25[] = { 0.314, -0.029, -2.473, 3.645, 0.547, 1.712, 0.751,
                           -0.32, 1.217, -1.718, 0.694, 0.964, -0.579,
                           -0.601, 0.972, 0.992, -0.742, -1.041, 2.493,
                           0.913, 0.429, -0.768, -0.489, -0.158, -0.159 };
    const double u60[] = { -0.3235, 2.308, 0.8282, -1.1675, 0.7164, -1.7018,
                           -0.6103, -0.133, 1.1345, -0.9989, 0.1548, 0.3396,
                           -1.2528, -0.1907, 1.1314, 0.2406, -0.5094,
                           -0.0148, 0.5282, -0.5663, -1.5321, 1.2506, 0.1605,
                           -0.1372, -0.1051, 1.3861, 0.3597, 1.5161, 2.0971,
                           -1.3033, 0.5346, 0.7069, 2.4854, 0.7064, 1.532,
                           -0.8889, 0.5206, 0.4918, 0.8841, -0.7639, -0.4657,
                           -0.3432, -0.4739, 0.5345, 0.335, 0.8154, 1.3961,
                           -1.7877, -0.0245, 0.4291, -0.3675, -1.9226,
                           -0.7223, -1.0689, 0.5255, -2.2758, 0.654, -0.5599,
                           -0.4031, 0.8623 };
    double d[1001], w, p;
    size_t m, k;
    bool exact;

    p = wsr(dep, 9, &w, &m);
    g_assert_cmpfloat_with_epsilon(p, 0.0390625, 1e-13);
    g_assert_cmpfloat(w, ==, 5);
    g_assert_cmpuint(m, ==, 9);
    /* B - A or A - B: the same two-sided p */
    for (k = 0; k < 9; k++) {
        d[k] = -dep[k];
    }
    g_assert_cmpfloat_with_epsilon(wsr(d, 9, &w, &m), 0.0390625, 1e-13);
    g_assert_cmpfloat(w, ==, 40);
    /* Six of one sign: 2/64, the smallest p at n = 6; one flipped: 4/64 */
    g_assert_cmpfloat_with_epsilon(wsr(six, 6, &w, &m), 0.03125, 1e-13);
    g_assert_cmpfloat(w, ==, 21);
    g_assert_true(smmulab_significant(wsr(six, 6, &w, &m), A));
    g_assert_cmpfloat_with_epsilon(wsr(six1, 6, &w, &m), 0.0625, 1e-13);
    g_assert_cmpfloat(w, ==, 20);
    g_assert_false(smmulab_significant(wsr(six1, 6, &w, &m), A));
    /* Five of one sign: 0.0625, never significant */
    g_assert_cmpfloat_with_epsilon(wsr(six, 5, &w, &m), 0.0625, 1e-13);
    g_assert_cmpfloat_with_epsilon(wsr(twelve, 12, &w, &m), 0.10986328125,
                                   1e-13);
    g_assert_cmpfloat(w, ==, 60);
    g_assert_cmpfloat_with_epsilon(wsr(u25, 25, &w, &m), 0.3525196313858032,
                                   1e-13);
    g_assert_cmpfloat(w, ==, 198);
    g_assert_cmpfloat_with_epsilon(wsr(u60, 60, &w, &m), 0.5221849012400235,
                                   1e-13);
    g_assert_cmpfloat(w, ==, 1003);
    /* |d| = 1..n, negative at k % 3 == 0: exact at 200 ... */
    for (k = 0; k < 1001; k++) {
        d[k] = (k + 1.0) * (k % 3 ? 1 : -1);
    }
    p = wsr(d, 200, &w, &m);
    g_assert_cmpfloat(fabs(p / 3.6125716716466785e-05 - 1), <, 1e-10);
    /* ... and past 1000 differences the normal approximation, as scipy's */
    p = smmulab_wilcoxon_signed_rank(d, 1001, &w, &m, &exact);
    g_assert_false(exact);
    g_assert_cmpfloat(fabs(p / 6.510674281286089e-20 - 1), <, 1e-9);
    /* One difference, none */
    g_assert_cmpfloat(wsr(six, 1, &w, &m), ==, 1);
    g_assert_cmpfloat(wsr(six, 0, &w, &m), ==, 1);
    g_assert_cmpuint(m, ==, 0);
}

/*
 * Ties and zeros: every sign assignment enumerated with exact integers
 * (tests/unit/abtest-paired-ref.py), p as a fraction.
 */
static void test_wilcoxon_ties_zeros(void)
{
    const double zeros[] = { 0, 0, 1, 2, 3, 4, 5, 6 };
    const double ties[] = { 1, 1, 1, 2, 2, -1, 3, 3, 3, 4 };
    const double zinf[] = { 0, 2, 0, -1, 3, 0, 2, 4, 1, -2, 5, 0, 2 };
    const double across[] = { -2, 2, 2, -1, 1, 3, 3, 3 };
    const double counts[] = { 0, 3, 0, 1, 0, 2, 5, 0, 1, 1, 0, -1, 4, 0, 2,
                              0, 3, 1 };
    const double halves[] = { 0.5, -0.5, 1.5, 1.5, 2, 0, -1, 2.5, 2, 3 };
    const double none[] = { 0, 0, 0 };
    double w;
    size_t m;

    /* Zeros dropped (Wilcoxon): six positive left, 2/64 */
    g_assert_cmpfloat_with_epsilon(wsr(zeros, 8, &w, &m), 1.0 / 32, 1e-13);
    g_assert_cmpuint(m, ==, 6);
    g_assert_cmpfloat(w, ==, 21);
    g_assert_cmpfloat_with_epsilon(wsr(ties, 10, &w, &m), 5.0 / 512, 1e-13);
    g_assert_cmpfloat(w, ==, 52.5);
    g_assert_cmpfloat_with_epsilon(wsr(zinf, 13, &w, &m), 1.0 / 16, 1e-13);
    g_assert_cmpuint(m, ==, 9);
    g_assert_cmpfloat(w, ==, 39);
    g_assert_cmpfloat_with_epsilon(wsr(across, 8, &w, &m), 13.0 / 128, 1e-13);
    g_assert_cmpfloat(w, ==, 30.5);
    g_assert_cmpfloat_with_epsilon(wsr(counts, 18, &w, &m), 3.0 / 512, 1e-13);
    g_assert_cmpuint(m, ==, 11);
    g_assert_cmpfloat(w, ==, 63);
    g_assert_cmpfloat_with_epsilon(wsr(halves, 10, &w, &m), 9.0 / 256, 1e-13);
    g_assert_cmpuint(m, ==, 9);
    g_assert_cmpfloat(w, ==, 40.5);
    g_assert_cmpfloat(wsr(none, 3, &w, &m), ==, 1);
    g_assert_cmpuint(m, ==, 0);
    g_assert_cmpfloat(w, ==, 0);
}

/*
 * The p of the signed-rank test by brute force: every one of the 2^m sign
 * assignments of the mid-ranks of the nonzero |d| (each counted as the
 * number below plus half the others equal), two-sided by distance from
 * the mean.
 */
static double wsr_brute(const double *d, size_t n)
{
    double a[24], r[24], obs = 0, mean, dev;
    size_t m = 0, i, j, hit = 0;
    bool pos[24];
    unsigned long s;

    for (i = 0; i < n; i++) {
        if (d[i] != 0) {
            pos[m] = d[i] > 0;
            a[m++] = fabs(d[i]);
        }
    }
    if (!m) {
        return 1;
    }
    for (i = 0; i < m; i++) {
        double below = 0, equal = 0;

        for (j = 0; j < m; j++) {
            below += a[j] < a[i];
            equal += a[j] == a[i];
        }
        r[i] = below + (equal + 1) / 2;
        obs += pos[i] ? r[i] : 0;
    }
    mean = m * (m + 1) / 4.0;
    dev = fabs(obs - mean);
    for (s = 0; s < 1UL << m; s++) {
        double w = 0;

        for (i = 0; i < m; i++) {
            w += s >> i & 1 ? r[i] : 0;
        }
        hit += fabs(w - mean) >= dev - 1e-9;
    }
    return (double)hit / (1UL << m);
}

/* A random small data set: continuous, integer, zero-inflated or halves */
static size_t random_diffs(GRand *r, double *d, int kind, size_t lo,
                           size_t hi)
{
    size_t n = g_rand_int_range(r, lo, hi + 1), i;
    double shift = g_rand_double_range(r, -1, 2);

    for (i = 0; i < n; i++) {
        switch (kind) {
        case 0:
            d[i] = g_rand_double_range(r, -1.5, 1.5) + shift;
            break;
        case 1:
            d[i] = g_rand_int_range(r, -2, 5);
            break;
        case 2:
            d[i] = g_rand_double(r) < 0.4 ? 0 : g_rand_int_range(r, -3, 7);
            break;
        default:
            d[i] = g_rand_int_range(r, -4, 9) / 2.0;
            break;
        }
    }
    return n;
}

/* The dynamic programming against every sign assignment, 4000 data sets */
static void test_wilcoxon_brute_force(void)
{
    GRand *r = g_rand_new_with_seed(7);
    int trial, tied = 0, zeros = 0, sig = 0;

    for (trial = 0; trial < 4000; trial++) {
        double d[16], s[16], p;
        size_t n = random_diffs(r, d, trial % 4, 1, 14), i, m;

        p = smmulab_wilcoxon_signed_rank(d, n, NULL, &m, NULL);
        g_assert_cmpfloat_with_epsilon(p, wsr_brute(d, n), 1e-12);
        tied += trial % 4 != 0;
        for (i = 0; i < n; i++) {
            zeros += d[i] == 0;
            s[i] = fabs(d[i]);
        }
        sig += smmulab_significant(p, A);
        /*
         * The smallest p these |d| can give, whatever the signs: all
         * positive; ties do not change it, zeros do
         */
        g_assert_cmpfloat_with_epsilon(smmulab_wilcoxon_min_p_data(d, n),
                                       smmulab_wilcoxon_signed_rank(s, n,
                                                                    NULL,
                                                                    NULL,
                                                                    NULL),
                                       1e-13);
        g_assert_cmpfloat_with_epsilon(smmulab_wilcoxon_min_p_data(d, n),
                                       smmulab_wilcoxon_min_p(m), 1e-15);
    }
    g_rand_free(r);
    g_assert_cmpint(zeros, >, 1000);
    g_assert_cmpint(sig, >, 400);
    g_assert_cmpfloat_with_epsilon(smmulab_wilcoxon_min_p(6), 1.0 / 32, 1e-15);
    g_assert_cmpfloat_with_epsilon(smmulab_wilcoxon_min_p(5), 1.0 / 16, 1e-15);
    g_assert_cmpfloat(smmulab_wilcoxon_min_p(1), ==, 1);
    g_assert_cmpfloat(smmulab_wilcoxon_min_p(0), ==, 1);
}


/*
 * The paired shift and its interval, against the same inversion in exact
 * fractions with every sign assignment enumerated (abtest-paired-ref.py)
 * and, without ties, the classical [W(K), W(M + 1 - K)] and its level.
 */
static void test_hodges_lehmann_paired(void)
{
    const double dep[] = { -0.952, 0.147, -1.022, -0.43, -0.62, -0.59, -0.49,
                           0.08, -0.01 };
    const double six[] = { 0.5, 1.2, 2.3, 0.7, 3.1, 1.9 };
    const double six1[] = { -0.2, 1.2, 2.3, 0.7, 3.1, 1.9 };
    const double twelve[] = { 1.1, -0.4, 2.6, 0.3, -1.7, 0.9, 1.4, -0.2, 2.2,
                              0.6, -0.8, 1.9 };
    const double zinf[] = { 0, 2, 0, -1, 3, 0, 2, 4, 1, -2, 5, 0, 2 };
    const double across[] = { -2, 2, 2, -1, 1, 3, 3, 3 };
    const double halves[] = { 0.5, -0.5, 1.5, 1.5, 2, 0, -1, 2.5, 2, 3 };
    const double open0[] = { 2, 4, 4, 4, -2, -1, 3, 0, 0, 2, 3, 1 };
    const double seven[] = { 3, 1, 4, 1, 5, 9, 2 };
    const double one[] = { 1.5 };
    double lo, hi, level, shift;

    /* -0.46 (-0.786, -0.01): classical [W(6), W(40)], level 1 - 5/128 */
    shift = smmulab_hodges_lehmann_paired(dep, 9, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, -0.46, EPS);
    g_assert_cmpfloat_with_epsilon(lo, -0.786, EPS);
    g_assert_cmpfloat_with_epsilon(hi, -0.01, EPS);
    g_assert_cmpfloat_with_epsilon(level, 1 - 5.0 / 128, 1e-13);
    /* Six of one sign: [W(1), W(21)] = [min, max], level 1 - 2/64 */
    shift = smmulab_hodges_lehmann_paired(six, 6, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, 1.55, EPS);
    g_assert_cmpfloat(lo, ==, 0.5);
    g_assert_cmpfloat(hi, ==, 3.1);
    g_assert_cmpfloat_with_epsilon(level, 1 - 2.0 / 64, 1e-13);
    shift = smmulab_hodges_lehmann_paired(six1, 6, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, 1.5, EPS);
    g_assert_cmpfloat(lo, ==, -0.2);
    g_assert_cmpfloat(hi, ==, 3.1);
    /* Five pairs: never significant, no interval */
    shift = smmulab_hodges_lehmann_paired(six, 5, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, 1.5, EPS);
    g_assert_true(isnan(lo) && isnan(hi));
    g_assert_cmpfloat(level, ==, 0);
    shift = smmulab_hodges_lehmann_paired(twelve, 12, A, &lo, &hi, &level);
    g_assert_cmpfloat_with_epsilon(shift, 0.7, EPS);
    g_assert_cmpfloat_with_epsilon(lo, -0.25, EPS);
    g_assert_cmpfloat_with_epsilon(hi, 1.55, EPS);
    g_assert_cmpfloat_with_epsilon(level, 0.95751953125, 1e-13);
    /* Discrete data, exact in binary: the ends, open or closed, exactly */
    shift = smmulab_hodges_lehmann_paired(zinf, 13, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 1);
    g_assert_cmpfloat(lo, ==, 0);                     /* [0, 2.5) */
    g_assert_cmpfloat(hi, ==, OPEN_HI(2.5));
    g_assert_cmpfloat(level, ==, 1 - A);
    shift = smmulab_hodges_lehmann_paired(across, 8, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 1.75);
    g_assert_cmpfloat(lo, ==, 0);                     /* [0, 3] */
    g_assert_cmpfloat(hi, ==, 3);
    shift = smmulab_hodges_lehmann_paired(halves, 10, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 1.25);
    g_assert_cmpfloat(lo, ==, 0.25);                  /* [0.25, 2.25) */
    g_assert_cmpfloat(hi, ==, OPEN_HI(2.25));
    /*
     * (0, 3]: p = 0.0254 at 0 (a zero dropped, five |d| = 2 tied) but
     * 0.05 or more just above 0: the open end keeps "0 is outside"
     */
    shift = smmulab_hodges_lehmann_paired(open0, 12, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 1.75);
    g_assert_cmpfloat(lo, ==, OPEN_LO(0.0));
    g_assert_cmpfloat(lo, >, 0);
    g_assert_cmpfloat(hi, ==, 3);
    g_assert_true(smmulab_significant(
        smmulab_wilcoxon_signed_rank(open0, 12, NULL, NULL, NULL), A));
    shift = smmulab_hodges_lehmann_paired(seven, 7, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 3);
    g_assert_cmpfloat(lo, ==, 1);                     /* [1, 6.5] */
    g_assert_cmpfloat(hi, ==, 6.5);
    shift = smmulab_hodges_lehmann_paired(one, 1, A, &lo, &hi, &level);
    g_assert_cmpfloat(shift, ==, 1.5);
    g_assert_true(isnan(lo));
    g_assert_true(isnan(smmulab_hodges_lehmann_paired(one, 0, A, &lo, &hi,
                                                      &level)));
}

/*
 * The interval against its definition, and "0 outside the interval" against
 * "the test at 0 is significant", over 6000 random data sets (continuous,
 * integer, zero-inflated integer, halves; 6 to 14 pairs, where 0 is often
 * a Walsh average).  The set of theta not significant is recomputed here
 * with the test itself at every Walsh average and between each two.  The
 * statements can disagree only one way, p significant with 0 in a gap of
 * that set (a zero difference dropped at a data value); those are
 * counted, and must stay rare.
 */
static void test_paired_interval_agrees(void)
{
    GRand *r = g_rand_new_with_seed(11);
    int trial, sig = 0, at_walsh = 0, gaps = 0, sets = 0, open_ends = 0;

    for (trial = 0; trial < 6000; trial++) {
        double d[16], e[16], w[128], lo, hi, level, p, elo = NAN, ehi = NAN;
        size_t n = random_diffs(r, d, trial % 4, 6, 14), M = 0, q = 0, i, j;
        size_t c, first = SIZE_MAX, last = 0, below = 0, above = 0;
        bool acc[260], outside;

        for (i = 0; i < n; i++) {
            for (j = i; j < n; j++) {
                w[M++] = (d[i] + d[j]) / 2;
            }
        }
        qsort(w, M, sizeof(*w), cmp_dbl);
        for (i = 0; i < M; i++) {
            if (!q || w[i] != w[q - 1]) {
                w[q++] = w[i];
            }
        }
        /* The test at every candidate: Walsh average k at 2k + 1 */
        for (c = 0; c <= 2 * q; c++) {
            double t = c % 2 ? w[c / 2] : c == 0 ? w[0] - fabs(w[0]) - 1 :
                       c == 2 * q ? w[q - 1] + fabs(w[q - 1]) + 1 :
                       w[c / 2 - 1] + (w[c / 2] - w[c / 2 - 1]) / 2;

            for (i = 0; i < n; i++) {
                e[i] = d[i] - t;
            }
            acc[c] = !smmulab_significant(
                smmulab_wilcoxon_signed_rank(e, n, NULL, NULL, NULL), A);
            if (acc[c]) {
                first = first == SIZE_MAX ? c : first;
                last = c;
                /* candidates not significant on either side of 0 */
                below += t < 0;
                above += t > 0;
            }
        }
        if (first != 0 && last != 2 * q) {
            elo = first % 2 ? w[first / 2] : OPEN_LO(w[first / 2 - 1]);
            ehi = last % 2 ? w[last / 2] : OPEN_HI(w[last / 2]);
            open_ends += !(first % 2) + !(last % 2);
        }
        smmulab_hodges_lehmann_paired(d, n, A, &lo, &hi, &level);
        if (isnan(elo)) {
            g_assert_true(isnan(lo) && isnan(hi));
            g_assert_cmpfloat(level, ==, 0);
        } else {
            g_assert_cmpfloat(lo, ==, elo);
            g_assert_cmpfloat(hi, ==, ehi);
        }
        p = smmulab_wilcoxon_signed_rank(d, n, NULL, NULL, NULL);
        if (isnan(lo)) {
            /* no interval: no outcome at this n is significant */
            g_assert_false(smmulab_significant(p, A));
            continue;
        }
        sets++;
        sig += smmulab_significant(p, A);
        for (i = 0; i < q; i++) {
            at_walsh += w[i] == 0;
        }
        outside = lo > 0 || hi < 0;
        /* Outside: always significant */
        if (outside) {
            g_assert_true(smmulab_significant(p, A));
        }
        /* Significant inside: only in a gap, accepted theta on both sides */
        if (!outside && smmulab_significant(p, A)) {
            g_assert_cmpuint(below, >, 0);
            g_assert_cmpuint(above, >, 0);
            gaps++;
        }
    }
    g_rand_free(r);
    g_test_message("%d intervals, %d significant, 0 a Walsh average in %d, "
                   "%d open ends; significant with 0 in a gap: %d",
                   sets, sig, at_walsh, open_ends, gaps);
    g_assert_cmpint(sets, >, 5000);
    g_assert_cmpint(sig, >, 1500);
    g_assert_cmpint(at_walsh, >, 1500);
    g_assert_cmpint(open_ends, >, 1000);
    g_assert_cmpint(gaps, <=, sets / 500);
}

/*
 * The p of @d - theta, theta between the Walsh averages @w[k - 1] and
 * @w[k] (sorted, distinct)
 */
static double wsr_between(const double *d, size_t n, const double *w,
                          size_t k)
{
    double e[32];
    size_t i;

    for (i = 0; i < n; i++) {
        e[i] = d[i] - (w[k - 1] + (w[k] - w[k - 1]) / 2);
    }
    return smmulab_wilcoxon_signed_rank(e, n, NULL, NULL, NULL);
}

/*
 * Without ties the interval contains the classical one, [W(K), W(M+1-K)]
 * with K the largest with 2 P(W+ <= K - 1) < alpha, and is it unless the
 * test at a data value outside (a difference dropped there) is not
 * significant; its level is the classical one's.  K found here with the
 * test itself at theta where W+ = 0, 1, ...: between W(M - k) and
 * W(M + 1 - k), k of the Walsh averages lie above theta (Tukey).
 */
static void test_paired_interval_classical(void)
{
    GRand *r = g_rand_new_with_seed(13);
    int trial, same = 0;

    for (trial = 0; trial < 1500; trial++) {
        double d[32], w[528], lo, hi, level, tail, p;
        size_t n = g_rand_int_range(r, 6, 31), M = 0, i, j, K;

        for (i = 0; i < n; i++) {
            d[i] = g_rand_double_range(r, -1, 1.5);
        }
        for (i = 0; i < n; i++) {
            for (j = i; j < n; j++) {
                w[M++] = (d[i] + d[j]) / 2;
            }
        }
        qsort(w, M, sizeof(*w), cmp_dbl);
        /* W+ = 0 (all positive) is significant from 6 pairs */
        tail = smmulab_wilcoxon_min_p(n);
        for (K = 1; K < M / 2; K++) {
            p = wsr_between(d, n, w, M - K);
            if (!smmulab_significant(p, A)) {
                break;
            }
            tail = p;
        }
        smmulab_hodges_lehmann_paired(d, n, A, &lo, &hi, &level);
        g_assert_cmpfloat_with_epsilon(level, 1 - tail, 1e-13);
        g_assert_cmpfloat(lo, <=, nextafter(w[K - 1], INFINITY));
        g_assert_cmpfloat(hi, >=, nextafter(w[M - K], -INFINITY));
        same += fabs(lo - w[K - 1]) < 1e-15 && fabs(hi - w[M - K]) < 1e-15;
    }
    g_rand_free(r);
    g_test_message("the classical interval in %d of 1500", same);
    g_assert_cmpint(same, >, 1300);
}

/* 10000 pairs of ~0.01: the interval at 100 pairs in well under a second */
static void test_paired_sizes(void)
{
    GRand *r = g_rand_new_with_seed(17);
    double d[200], lo, hi, level, p;
    gint64 t0;
    size_t i;

    for (i = 0; i < 200; i++) {
        d[i] = g_rand_double_range(r, -1, 1.4);
    }
    g_rand_free(r);
    t0 = g_get_monotonic_time();
    smmulab_hodges_lehmann_paired(d, 100, A, &lo, &hi, &level);
    p = smmulab_wilcoxon_signed_rank(d, 200, NULL, NULL, NULL);
    g_test_message("100-pair interval and 200-pair test: %.0f ms",
                   (g_get_monotonic_time() - t0) / 1e3);
    g_assert_true(lo < hi && level > 0.95 && level < 0.951);
    g_assert_true(p > 0 && p < 1);
    g_assert_cmpint(g_get_monotonic_time() - t0, <, 2000000);
}

/* McNemar, against scipy 1.10.1's stats.binomtest(b, b + c, 0.5) */
static void test_mcnemar(void)
{
    static const struct {
        unsigned b, c;
        double p;
    } ref[] = {
        { 0, 6, 0.03125 },
        { 1, 5, 0.21875 },
        { 0, 5, 0.0625 },
        { 2, 9, 0.0654296875 },
        { 10, 25, 0.016673847800120715 },
        { 40, 60, 0.05688793364098088 },
        { 3, 3, 1.0 },
        { 7, 0, 0.015625 },
        { 100, 140, 0.01166409231767769 },
    };
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(ref); i++) {
        double p = smmulab_mcnemar_exact(ref[i].b, ref[i].c);

        g_assert_cmpfloat(fabs(p / ref[i].p - 1), <, 1e-12);
        /* two-sided: the same either way round */
        g_assert_cmpfloat_with_epsilon(smmulab_mcnemar_exact(ref[i].c,
                                                             ref[i].b),
                                       p, 1e-15);
    }
    g_assert_cmpfloat(smmulab_mcnemar_exact(0, 0), ==, 1);
    /* every outcome enumerated in exact fractions (abtest-paired-ref.py) */
    g_assert_cmpfloat_with_epsilon(smmulab_mcnemar_power(20, 0.05, 0.55, A),
                                   0.8549237447037381, 1e-12);
    g_assert_cmpfloat_with_epsilon(smmulab_mcnemar_power(6, 0, 0.5, A),
                                   0.015625, 1e-12);
    g_assert_cmpfloat_with_epsilon(smmulab_mcnemar_power(10, 0.1, 0.3, A),
                                   0.027100171, 1e-12);
}

/* The standard normal distribution function */
static double phi(double x)
{
    return erfc(-x / sqrt(2)) / 2;
}

static void test_wilcoxon_power(void)
{
    double pw, d, se;
    unsigned n, m;

    /*
     * At 6 pairs only "all of one sign" is significant: the power is
     * exactly Phi(delta)^6 + Phi(-delta)^6; within 3.5 standard errors
     * of 4000 draws
     */
    for (d = 0; d <= 2; d += 0.5) {
        double exact = pow(phi(d), 6) + pow(phi(-d), 6);

        pw = smmulab_wilcoxon_power(6, d, A);
        se = sqrt(exact * (1 - exact) / 4000);
        g_assert_cmpfloat(fabs(pw - exact), <=, 3.5 * se + 1e-12);
    }
    /* 80 % at 6 pairs: Phi(delta) = 0.8^(1/6), delta = 1.793 */
    d = smmulab_wilcoxon_detectable(6, A, SMMULAB_POWER);
    g_assert_cmpfloat(fabs(d - 1.793), <, 0.08);
    g_assert_true(isnan(smmulab_wilcoxon_detectable(5, A, SMMULAB_POWER)));
    g_assert_cmpfloat(smmulab_wilcoxon_power(5, 3, A), ==, 0);
    /* numpy, 200000 draws (abtest-paired-ref.py): 0.5410 and 0.7844 */
    pw = smmulab_wilcoxon_power(20, 0.5, A);
    g_assert_cmpfloat(fabs(pw - 0.5410), <, 3.5 * sqrt(0.25 / 4000));
    pw = smmulab_wilcoxon_power(10, 1, A);
    g_assert_cmpfloat(fabs(pw - 0.7844), <, 3.5 * sqrt(0.17 / 4000));
    /* The null: the exact test's size at 20 pairs, 2 P(W+ <= 52) = 0.0478 */
    pw = smmulab_wilcoxon_power(20, 0, A);
    g_assert_cmpfloat(fabs(pw - 0.0478), <, 3.5 * sqrt(0.05 / 4000));
    /* Paired t needs 0.66 SD at 20 pairs; the rank test's efficiency 0.955 */
    d = smmulab_wilcoxon_detectable(20, A, SMMULAB_POWER);
    g_assert_cmpfloat(d, >, 0.63);
    g_assert_cmpfloat(d, <, 0.72);
    /* Reproducible */
    g_assert_cmpfloat(smmulab_wilcoxon_power(20, 0.5, A), ==,
                      smmulab_wilcoxon_power(20, 0.5, A));
    /*
     * n needed: the smallest n from which the power (the same draws)
     * stays at 80 % up to max, not just the first n that reaches it
     */
    for (d = 0.5; d <= 1.6; d += 0.55) {
        n = smmulab_wilcoxon_n_needed(d, A, SMMULAB_POWER, 40);
        g_assert_cmpuint(n, >, 6);
        g_assert_cmpfloat(smmulab_wilcoxon_power(n - 1, d, A), <,
                          SMMULAB_POWER);
        for (m = n; m <= 40; m++) {
            g_assert_cmpfloat(smmulab_wilcoxon_power(m, d, A), >=,
                              SMMULAB_POWER);
        }
        g_assert_cmpuint(smmulab_wilcoxon_n_needed(-d, A, SMMULAB_POWER, 40),
                         ==, n);
    }
    /*
     * The exact test's size drops from 0.049 at 10 pairs to 0.043 at 11,
     * and at 0.2 SD its power with it: 0.089 at 10, 0.083 and 0.083 at 11
     * and 12, 0.105 at 13.  8.5 % is first reached at 10 but held from 13
     */
    g_assert_cmpfloat(smmulab_wilcoxon_power(10, 0.2, A), >=, 0.085);
    g_assert_cmpfloat(smmulab_wilcoxon_power(11, 0.2, A), <, 0.085);
    g_assert_cmpuint(smmulab_wilcoxon_n_needed(0.2, A, 0.085, 16), ==, 13);
    g_assert_cmpuint(smmulab_wilcoxon_n_needed(0.01, A, SMMULAB_POWER, 100),
                     ==, 0);
    g_assert_cmpuint(smmulab_wilcoxon_n_needed(0, A, SMMULAB_POWER, 100), ==,
                     0);
}

/*
 * The range of the true SD about an estimate: sqrt(df / chi2.ppf(0.975,
 * df)) and sqrt(df / chi2.ppf(0.025, df)), the quantiles from tables
 */
static void test_sd_range(void)
{
    double lo, hi;

    /* chi2.ppf(0.975, 10) = 20.4832, chi2.ppf(0.025, 10) = 3.24697 */
    smmulab_sd_range(10, 0.95, &lo, &hi);
    g_assert_cmpfloat_with_epsilon(lo, 0.698717, 1e-5);
    g_assert_cmpfloat_with_epsilon(hi, 1.754934, 1e-5);
    /* 12.8325 and 0.831212 */
    smmulab_sd_range(5, 0.95, &lo, &hi);
    g_assert_cmpfloat_with_epsilon(lo, 0.624208, 1e-5);
    g_assert_cmpfloat_with_epsilon(hi, 2.452614, 1e-5);
    /* 5.02389 and 0.000982069 */
    smmulab_sd_range(1, 0.95, &lo, &hi);
    g_assert_cmpfloat_with_epsilon(lo, 0.446149, 1e-5);
    g_assert_cmpfloat_with_epsilon(hi, 31.9102, 1e-3);
    /* 238.86 and 160.92 (Wilson-Hilferty, good to 1e-4 here) */
    smmulab_sd_range(198, 0.95, &lo, &hi);
    g_assert_cmpfloat_with_epsilon(lo, 0.91046, 2e-4);
    g_assert_cmpfloat_with_epsilon(hi, 1.10924, 2e-4);
    smmulab_sd_range(0, 0.95, &lo, &hi);
    g_assert_true(isnan(lo) && isnan(hi));
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
    g_test_add_func("/abtest/mann-whitney/brute-force",
                    test_mann_whitney_brute_force);
    g_test_add_func("/abtest/hodges-lehmann", test_hodges_lehmann);
    g_test_add_func("/abtest/hodges-lehmann-ties", test_hodges_lehmann_ties);
    g_test_add_func("/abtest/interval-agrees-with-p",
                    test_interval_agrees_with_p);
    g_test_add_func("/abtest/interval-classical", test_interval_classical);
    g_test_add_func("/abtest/mann-whitney/large", test_mann_whitney_large);
    g_test_add_func("/abtest/wilcoxon/scipy", test_wilcoxon_scipy);
    g_test_add_func("/abtest/wilcoxon/ties-zeros", test_wilcoxon_ties_zeros);
    g_test_add_func("/abtest/wilcoxon/brute-force",
                    test_wilcoxon_brute_force);
    g_test_add_func("/abtest/hodges-lehmann-paired",
                    test_hodges_lehmann_paired);
    g_test_add_func("/abtest/paired-interval-agrees",
                    test_paired_interval_agrees);
    g_test_add_func("/abtest/paired-interval-classical",
                    test_paired_interval_classical);
    g_test_add_func("/abtest/paired-sizes", test_paired_sizes);
    g_test_add_func("/abtest/mcnemar", test_mcnemar);
    g_test_add_func("/abtest/wilcoxon/power", test_wilcoxon_power);
    g_test_add_func("/abtest/holm", test_holm);
    g_test_add_func("/abtest/power", test_power);
    g_test_add_func("/abtest/mann-whitney/power", test_mwu_power);
    g_test_add_func("/abtest/sd-range", test_sd_range);
    g_test_add_func("/abtest/summary", test_summary);
    g_test_add_func("/abtest/repeat-seed", test_repeat_seed);
    return g_test_run();
}
