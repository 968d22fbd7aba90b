/*
 * smmulab: the statistics behind A/B verdicts (pure C, no I/O)
 *
 * Every test here is exact at every size the runner allows (up to 100
 * runs per variant, and more after merging shards): Fisher's exact test
 * for runs with an event, the Mann-Whitney U test with mid-ranks for a
 * value measured once per run (its permutation distribution counted by
 * dynamic programming), and the Hodges-Lehmann shift with its exact
 * distribution-free interval.  Comparisons with alpha go through
 * smmulab_significant(), which absorbs floating-point rounding of an
 * exact rational p; printed p-values come from smmulab_format_p(), which
 * never prints a value that reads the other way from the verdict.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_ABTEST_H
#define SMMULAB_ABTEST_H

#include <stdbool.h>
#include <stddef.h>

/* The significance level of every verdict (two-sided) */
#define SMMULAB_ALPHA 0.05
/* The power a sample-size statement is made for */
#define SMMULAB_POWER 0.8

/* n, mean, median and range of a sample; NaN (n = 0) for an empty one */
typedef struct SmmulabSummary {
    size_t n;
    double mean, median, min, max, sum, sd;
} SmmulabSummary;

void smmulab_summarize(const double *x, size_t n, SmmulabSummary *s);

/*
 * Whether @p is below @alpha.  p-values here are rationals computed in
 * floating point (relative error far below 1e-9); a p within a relative
 * 1e-9 under alpha is taken to be alpha itself, so an exact p of 1/20 is
 * not significant at 0.05 however it rounds.
 */
bool smmulab_significant(double p, double alpha);

/*
 * @p printed with as few significant digits (at least 2, "%.2g" style but
 * never in exponent form above 1e-4) as make the printed value read the
 * same way against @alpha as smmulab_significant(): 0.04988 prints
 * "0.0499", never "0.050".  Free with free().
 */
char *smmulab_format_p(double p, double alpha);

/*
 * Fisher's exact test, two-sided, of @ka events in @na runs against @kb in
 * @nb: the probability, with the margins fixed, of a table at most as
 * likely as the one observed.  1 when either group is empty.
 */
double smmulab_fisher_exact(unsigned ka, unsigned na, unsigned kb,
                            unsigned nb);

/*
 * Mann-Whitney U (Wilcoxon rank-sum) test, two-sided, of @a against @b:
 * the exact permutation distribution of the rank sum of @a, with
 * mid-ranks for ties, counted by dynamic programming, up to 110 + 110
 * runs (about a second of work; the runner allows 100 per variant).
 * Beyond, the normal approximation with tie and continuity corrections is
 * used, and *@exact says so.  Returns the p-value (1 when a sample is empty) and, in
 * @u if not NULL, U of @a (pairs a > b, ties counting one half).
 */
double smmulab_mann_whitney(const double *a, size_t na, const double *b,
                            size_t nb, double *u, bool *exact);

/* The smallest two-sided p a Mann-Whitney test can give at na, nb */
double smmulab_mann_whitney_min_p(size_t na, size_t nb);

/*
 * The Hodges-Lehmann shift of @b against @a (the median of every b - a)
 * and its exact distribution-free interval at confidence 1 - @alpha or
 * more: [D(k), D(mn + 1 - k)] of the sorted differences, k the largest
 * with 2 P(U <= k - 1) < alpha under the null distribution of U without
 * ties.  Without ties in the data, 0 lies outside the interval exactly
 * when the Mann-Whitney p is significant.  Returns the shift; *@lo and
 * *@hi are NaN, and *@level 0, when no interval exists at this n (k = 0:
 * n = 3 + 3 cannot have a 95 % one); *@level is the exact confidence.
 */
double smmulab_hodges_lehmann(const double *a, size_t na, const double *b,
                              size_t nb, double alpha, double *lo,
                              double *hi, double *level);

/*
 * Holm's step-down adjustment of @n p-values in place: the family-wise
 * error rate of "adjusted p < alpha" is at most alpha.
 */
void smmulab_holm(double *p, size_t n);

/*
 * Power of Fisher's test at @alpha with @na runs of event rate @ra against
 * @nb runs of rate @rb (exact: every outcome enumerated).
 */
double smmulab_fisher_power(unsigned na, double ra, unsigned nb, double rb,
                            double alpha);

/*
 * The rate nearest to @rb, above it (@up) or below it, that Fisher's test
 * at na + nb detects with at least @power; NaN when no rate in [0, 1] is
 * enough.
 */
double smmulab_fisher_detectable(unsigned na, unsigned nb, double rb,
                                 bool up, double alpha, double power);

/*
 * The smallest n per variant (equal groups, at most @max) at which
 * Fisher's test detects rates @ra against @rb with @power; 0 when @max is
 * not enough (or the rates are equal).
 */
unsigned smmulab_fisher_n_needed(double ra, double rb, double alpha,
                                 double power, unsigned max);

/*
 * The Mann-Whitney test's power at na + nb for a shift of @delta standard
 * deviations between normal samples (a fixed-seed simulation, so the
 * figure is reproducible), and the smallest such shift with @power (NaN
 * when no outcome at this n can reach alpha).
 */
double smmulab_mwu_power(size_t na, size_t nb, double delta, double alpha);
double smmulab_mwu_detectable(size_t na, size_t nb, double alpha,
                              double power);

/*
 * The smallest n per variant (at most @max) at which the Mann-Whitney test
 * detects a shift of @delta standard deviations with @power; 0 when @max
 * is not enough.
 */
unsigned smmulab_mwu_n_needed(double delta, double alpha, double power,
                              unsigned max);

/*
 * The seed of repeat @rep of a scenario whose seed is @scenario_seed: a
 * 64-bit mix (splitmix64) of the two, never 0.  Repeats of one scenario
 * draw independent-looking seeds, and the same scenario seed gives the
 * same seeds every time.
 */
unsigned long long smmulab_repeat_seed(unsigned long long scenario_seed,
                                       unsigned rep);

#endif
