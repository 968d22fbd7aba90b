/*
 * Host unit tests of the A/B statistics (runner/abtest.c), against values
 * computed independently (exact fractions, published examples).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <math.h>

#include "abtest.h"

#define EPS 1e-9

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

static double mwu(const double *a, size_t na, const double *b, size_t nb,
                  double *u)
{
    return smmulab_mann_whitney(a, na, b, nb, u);
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

static void test_mann_whitney_normal(void)
{
    double a[30], b[30], u, p;
    int i;

    for (i = 0; i < 30; i++) {
        a[i] = i + 1;
        b[i] = i + 31;
    }
    /* R: wilcox.test(1:30, 31:60, exact = FALSE) p = 3.02e-11 */
    p = mwu(a, 30, b, 30, &u);
    g_assert_cmpfloat(u, ==, 0);
    g_assert_cmpfloat_with_epsilon(p, 3.019859359162151e-11, 1e-14);
}

static void test_summary(void)
{
    const double x[] = { 4, 1, 7 };
    SmmulabSummary s;

    smmulab_summarize(x, 3, &s);
    g_assert_cmpuint(s.n, ==, 3);
    g_assert_cmpfloat_with_epsilon(s.mean, 4, EPS);
    g_assert_cmpfloat(s.min, ==, 1);
    g_assert_cmpfloat(s.max, ==, 7);
    g_assert_cmpfloat(s.sum, ==, 12);
    smmulab_summarize(x, 0, &s);
    g_assert_true(isnan(s.mean) && isnan(s.min) && isnan(s.max));
}

static void test_change(void)
{
    const double a[] = { 100, 110, 90, 105, 95 };
    const double b[] = { 60, 65, 55, 62, 58 };
    const double c[] = { 98, 112, 91, 104, 96 };
    const double z[] = { 0, 0 };
    double lo, hi, d, lo2, hi2;

    d = smmulab_change_pct(a, 5, b, 5, 0.95, 4000, &lo, &hi);
    g_assert_cmpfloat_with_epsilon(d, -40, EPS);
    /* A clear drop: the interval holds the change and excludes 0 */
    g_assert_cmpfloat(lo, <=, d);
    g_assert_cmpfloat(hi, >=, d);
    g_assert_cmpfloat(hi, <, 0);
    g_assert_cmpfloat(lo, >, -50);
    /* Reproducible */
    smmulab_change_pct(a, 5, b, 5, 0.95, 4000, &lo2, &hi2);
    g_assert_cmpfloat(lo, ==, lo2);
    g_assert_cmpfloat(hi, ==, hi2);
    /* No real difference: the interval holds 0 */
    d = smmulab_change_pct(a, 5, c, 5, 0.95, 4000, &lo, &hi);
    g_assert_cmpfloat(lo, <, 0);
    g_assert_cmpfloat(hi, >, 0);
    /* A baseline mean of 0 has no relative change */
    g_assert_true(isnan(smmulab_change_pct(z, 2, b, 5, 0.95, 100, &lo, &hi)));
    g_assert_true(isnan(lo) && isnan(hi));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/abtest/fisher", test_fisher);
    g_test_add_func("/abtest/mann-whitney/exact", test_mann_whitney_exact);
    g_test_add_func("/abtest/mann-whitney/normal", test_mann_whitney_normal);
    g_test_add_func("/abtest/summary", test_summary);
    g_test_add_func("/abtest/change", test_change);
    return g_test_run();
}
