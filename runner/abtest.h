/*
 * smmulab: the statistics behind A/B verdicts (pure C, no I/O)
 *
 * Every test here is exact at every size the runner allows (up to 100
 * runs per variant, and more after merging shards): Fisher's exact test
 * for runs with an event, the Mann-Whitney U test with mid-ranks for a
 * value measured once per run (its permutation distribution counted by
 * dynamic programming), and the Hodges-Lehmann shift with the interval
 * that inverts that test, ties and all; for paired runs (one seed per repeat,
 * shared by the variants), the Wilcoxon signed-rank test of the
 * differences, its Hodges-Lehmann shift and interval, and McNemar's test.
 * Comparisons with alpha go through smmulab_significant(), which absorbs
 * floating-point rounding of an exact rational p; printed p-values come
 * from smmulab_format_p(), which never prints a value that reads the
 * other way from the verdict.
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
/*
 * The draws behind every simulated power figure (the Mann-Whitney and
 * signed-rank ones): a power p so found has the Monte Carlo standard
 * error sqrt(p (1 - p) / SMMULAB_POWER_DRAWS), 0.63 percentage points at
 * 80 % (smmulab_power_se())
 */
#define SMMULAB_POWER_DRAWS 4000

/* sqrt(@power (1 - @power) / SMMULAB_POWER_DRAWS) */
double smmulab_power_se(double power);

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
 * Mann-Whitney U (Wilcoxon rank-sum) test, two-sided, of @a against @b
 * (finite values): U, with mid-ranks for ties, referred to its exact
 * permutation distribution given the ties (every choice of na of the
 * pooled values equally likely), counted by dynamic programming over the
 * tie blocks of the pooled order; the p is the probability of a U at
 * least as far from its mean as the one observed (compared in integers,
 * 2U, so that no rounding enters), each tail summed from its own end.
 * Exact up to 110 + 110 runs (the runner allows 100 per variant; 30 to
 * 80 ms at 100 + 100, the most where p is large); beyond, the normal
 * approximation with tie and continuity corrections, and *@exact says
 * so.  Without ties this is scipy.stats.mannwhitneyu(a, b,
 * method="exact").  The same p, to the last bit, with @a and @b swapped.
 * Returns the p-value (1 when a sample is empty) and, in @u if not NULL,
 * U of @a (pairs a > b, ties counting one half).
 */
double smmulab_mann_whitney(const double *a, size_t na, const double *b,
                            size_t nb, double *u, bool *exact);

/*
 * The smallest two-sided p a Mann-Whitney test of na + nb values without
 * ties can give: 2 / C(na + nb, na), capped at 1
 */
double smmulab_mann_whitney_min_p(size_t na, size_t nb);

/*
 * The smallest two-sided p the test can give for the values of @a and @b
 * as they are, ties included, whichever na of them are @a's: the choice
 * of the na lowest or the na highest, whichever lies further from the
 * mean.  Ties change it either way: they can raise it (all values equal:
 * 1) or lower it below the untied figure, when one extreme cannot be
 * reached (1, 2 against 3, 3, 3, 3, 3: p = 1/21 = 0.048, where 2 + 5
 * untied values never go below 2/21).  No outcome of these values is
 * significant exactly when this is not; it is at most the test's p.
 */
double smmulab_mann_whitney_min_p_data(const double *a, size_t na,
                                       const double *b, size_t nb);

/*
 * The Hodges-Lehmann shift of @b against @a (the median of every
 * difference b_j - a_i) and its interval, which inverts the
 * Mann-Whitney test above, ties and all: the set of theta at which the
 * test of a + theta against b gives p >= @alpha (not significant).  That
 * p changes only at the differences, so the test is evaluated at each
 * distinct difference and at a point between each two (the values
 * compared through the differences, never shifted), scanning in from
 * either end to the first theta not significant (no monotonicity
 * assumed); the interval is the smallest one with differences as ends
 * that contains the set.  Most of the scan is decided by bounds, not by
 * counting: the p of a shape with ties lies between the untied
 * distribution's tails a known distance (2U moves by at most floor(t^2 /
 * 4) when a block of t ties is split), or those of the shape counted
 * last; only candidates whose bounds straddle alpha are counted.  About
 * 0.15 s at 100 + 100 untied values, up to 0.6 s with many ties, under 1 s
 * at the exact limit of 110 + 110 (beyond, the normal approximation,
 * inverted the same way).
 *
 * An end is open where the test at that difference itself is
 * significant (with one pair tied there, the tie-aware p at a difference
 * can lie below the p just inside it): *@lo (*@hi) is then the next double
 * above (below) the difference, so that "lo > 0 || hi < 0" stays the
 * right reading, and prints as the difference (at 0: as a tiny number,
 * 4.9e-324).  An end is infinite where the test rejects no shift that
 * far out on that side: with ties the smallest p need not lie at the
 * extremes (1, 1 against -4, -4, -4, -1, 0: p = 1/21 at 0, but 2/21 for
 * every shift below -5, so the interval is (-inf, -1]).  *@lo and *@hi
 * are NaN, and *@level 0, when the test rejects no shift far out on
 * either side: without ties, when no outcome at this n is significant
 * (3 + 3 at 0.05).
 *
 * So 0 outside [*@lo, *@hi] means the test at 0 is significant, always;
 * the converse would fail only where the set is not an interval, 0 in a
 * gap of it (accepted theta on both sides), or where it is NaN with the
 * test at 0 significant: neither was seen in 32000 random data sets of 2
 * to 30 values a side, continuous, integer, zero-inflated and halves (the
 * 6000 of test_interval_agrees_with_p, and 26000 more of the same kinds).
 * Without ties in the data the ends are the classical [D(K), D(mn + 1 -
 * K)] of the sorted differences, K the largest with 2 P(U <= K - 1) <
 * alpha (as values: an end is open, one double inside, where the test
 * with that pair tied is significant; 81 % of them in random data).
 *
 * *@level: for data without repeated values, 1 - 2 P(U <= K - 1), the
 * exact confidence of the classical interval (0.968 at 5 + 5), which this
 * one's is at least; with repeated values, 1 - @alpha, which its
 * coverage is at least.  Returns the shift (NaN when a sample is empty).
 */
double smmulab_hodges_lehmann(const double *a, size_t na, const double *b,
                              size_t nb, double alpha, double *lo,
                              double *hi, double *level);

/*
 * The same, and which ends are open: @open[0] (@open[1]) is true where
 * *@lo (*@hi) is the next double inside a difference at which the test
 * itself rejects; the end to print is then that difference, "(" or ")".
 * Never true for an infinite or a NaN end.
 */
double smmulab_hodges_lehmann_open(const double *a, size_t na,
                                   const double *b, size_t nb, double alpha,
                                   double *lo, double *hi, double *level,
                                   bool open[2]);

/*
 * Paired runs.  Repeat r of every variant boots with the same seed
 * (smmulab_repeat_seed()), so under icount variant A's run r and variant
 * B's run r form a pair; the tests below take the paired differences
 * d_i = B_i - A_i (or, for an event, the pairs where only one variant had
 * it).
 *
 * The Wilcoxon signed-rank test, two-sided, of the @n differences @d
 * (finite values): zero differences are dropped (Wilcoxon's treatment,
 * scipy.stats.wilcoxon's default zero_method="wilcox"; *@n_used gets how
 * many are left), the rest ranked by |d| with mid-ranks for ties, and W+
 * (in *@w_plus if not NULL: the rank sum of the positive differences) is
 * referred to its exact permutation distribution, each of the 2^m sign
 * assignments of these m (tied) ranks equally likely, counted by dynamic
 * programming over doubled ranks.  The p-value is the probability
 * of a W+ at least as far from its mean as the one observed (compared in
 * integers, doubled ranks, so that no rounding enters), capped at 1; 1
 * when no difference is nonzero.  Exact up to 1000 nonzero differences
 * (about 0.3 s there, 3 ms at 200); beyond, the normal approximation with
 * tie and continuity corrections, and *@exact says so.  Without ties and
 * zeros this is scipy.stats.wilcoxon(d, method="exact").
 */
double smmulab_wilcoxon_signed_rank(const double *d, size_t n, double *w_plus,
                                    size_t *n_used, bool *exact);

/*
 * The smallest two-sided p a signed-rank test of @n nonzero differences
 * can give: 2 / 2^n (every difference of one sign), capped at 1.  Six
 * pairs give 0.031, five give 0.0625 and can never reach 0.05.
 */
double smmulab_wilcoxon_min_p(size_t n);

/*
 * The same for the differences @d themselves: ties among |d| do not
 * change it (the all-one-sign outcome stays the only one at its distance
 * from the mean, every rank being positive), zero differences do (they
 * are dropped), so this is smmulab_wilcoxon_min_p() of the nonzero ones.
 */
double smmulab_wilcoxon_min_p_data(const double *d, size_t n);

/*
 * The paired Hodges-Lehmann shift: the median of the n(n+1)/2 Walsh
 * averages (d_i + d_j) / 2, i <= j, of all @n differences (zeros
 * included).  Its interval inverts the signed-rank test above, ties and
 * zeros treated as there: the set of theta at which the test of d - theta
 * gives p >= @alpha (not significant).  That p changes only at Walsh
 * averages, so the test is evaluated exactly at each Walsh average and at
 * a point between each two, scanning in from either end to the first
 * theta not significant (no monotonicity assumed); the interval is the
 * smallest one with Walsh averages as ends that contains the set.  An end
 * is open where the test at that Walsh average itself is significant
 * (the tie-aware p at a Walsh average can lie below the p just inside
 * it): *@lo (*@hi) is then the next double above (below) the Walsh
 * average, so that "lo > 0 || hi < 0" stays the right reading, and prints
 * as the Walsh average (at 0: as a tiny number, 4.9e-324).
 *
 * So 0 outside [*@lo, *@hi] means the test at 0 is significant, always;
 * the converse fails only where the set is not an interval, 0 in a gap of
 * it: dropping a zero difference can make the test at a data value not
 * significant between two theta where it is (about 1 in 1000 random data
 * sets of 6 to 14 small integers, 8 of the 6000 data sets of
 * test_paired_interval_agrees; no interval can agree then).  Without
 * ties the interval contains the classical [W(K), W(M + 1 - K)] of the
 * sorted Walsh averages, K the largest with 2 P(W+ <= K - 1) < alpha, and
 * is that one unless such a data value lies outside it.
 *
 * *@level: for differences without repeated values, 1 - 2 P(W+ <= K - 1),
 * the exact confidence of the classical interval (0.961 at 9 pairs),
 * which this one's is at least; with repeated values (discrete data), 1 -
 * @alpha, which its coverage is at least (the exact figure then depends
 * on the unknown distribution).  *@lo and *@hi are NaN, and *@level 0,
 * when no interval exists: fewer than 6 pairs at alpha 0.05, where no
 * outcome is significant.  Returns the shift (NaN when @n is 0).  About
 * 60 ms at 100 pairs, under a second at 200.
 */
double smmulab_hodges_lehmann_paired(const double *d, size_t n, double alpha,
                                     double *lo, double *hi, double *level);

/* The same, and which ends are open (as smmulab_hodges_lehmann_open()) */
double smmulab_hodges_lehmann_paired_open(const double *d, size_t n,
                                          double alpha, double *lo,
                                          double *hi, double *level,
                                          bool open[2]);

/*
 * McNemar's exact test for a yes/no outcome (an event in a run) of paired
 * runs: @b pairs where only A had it, @c where only B had it (pairs where
 * both or neither did carry no information).  The two-sided binomial test
 * of b out of b + c at 1/2, scipy.stats.binomtest(b, b + c, 0.5).pvalue:
 * 2 P(X <= min(b, c)), capped at 1; 1 when b + c is 0.
 */
double smmulab_mcnemar_exact(unsigned b, unsigned c);

/*
 * Power of McNemar's test at @alpha with @n pairs, @p10 the probability
 * that in a pair only A has the event and @p01 that only B has it (exact:
 * every outcome enumerated).
 */
double smmulab_mcnemar_power(unsigned n, double p10, double p01,
                             double alpha);

/*
 * The signed-rank test's power at @n pairs for a shift of @delta standard
 * deviations of the differences, the differences normal (a fixed-seed
 * simulation of SMMULAB_POWER_DRAWS draws: reproducible, its standard
 * error at most 0.8 percentage points, 0.63 at 80 %), and the smallest
 * such shift with @power (NaN when no outcome at this n can reach alpha).
 */
double smmulab_wilcoxon_power(size_t n, double delta, double alpha);
double smmulab_wilcoxon_detectable(size_t n, double alpha, double power);

/*
 * The smallest number of pairs (at most @max) from which the signed-rank
 * test's power for a shift of @delta standard deviations of the
 * differences stays at or above @power up to @max (the power of an exact
 * test is not monotone in n, its attainable levels jump); 0 when @max is
 * not enough.  The same draws as smmulab_wilcoxon_power(); about
 * 4000 x max^2 / 2 operations (30 ms at the runner's max of 100).
 */
unsigned smmulab_wilcoxon_n_needed(double delta, double alpha, double power,
                                   unsigned max);

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
 * The smallest n per variant (equal groups, at most @max) from which
 * Fisher's test's power to detect rates @ra against @rb stays at or above
 * @power up to @max (not monotone in n: 2/7 against 0/7 has 83 % at 23,
 * 76 % at 25, and stays from 27); 0 when @max is not enough (or the rates
 * are equal).  Exact (every outcome enumerated).
 */
unsigned smmulab_fisher_n_needed(double ra, double rb, double alpha,
                                 double power, unsigned max);

/*
 * The Mann-Whitney test's power at na + nb for a shift of @delta standard
 * deviations between normal samples (untied: the exact test's rejection
 * region without ties; a fixed-seed simulation of SMMULAB_POWER_DRAWS
 * draws, each sample's its own stream, so that a draw of na + nb is the
 * start of every longer one: reproducible, its standard error at most 0.8
 * percentage points, 0.63 at 80 %), and the smallest such shift with
 * @power (by bisection on the same draws; NaN when no outcome of untied
 * data at this n can reach alpha).  70 ms and 0.2 s at 100 + 100.
 */
double smmulab_mwu_power(size_t na, size_t nb, double delta, double alpha);
double smmulab_mwu_detectable(size_t na, size_t nb, double alpha,
                              double power);

/*
 * The smallest n per variant (n + n, at most @max) from which the
 * Mann-Whitney test's power for a shift of @delta standard deviations
 * stays at or above @power up to @max (the power of an exact test is not
 * monotone in n, its attainable levels jump); 0 when @max is not enough.
 * The same draws as smmulab_mwu_power() at every n; about 60 ms at the
 * runner's max of 100.
 */
unsigned smmulab_mwu_n_needed(double delta, double alpha, double power,
                              unsigned max);

/*
 * How far a standard deviation estimated with @df degrees of freedom may
 * be from the true one: with confidence @conf the true SD lies within
 * *@lo to *@hi times the estimate (normal data; chi-square: sqrt(df /
 * chi2_{(1+conf)/2}) and sqrt(df / chi2_{(1-conf)/2})).  0.70 to 1.75 at
 * 10 degrees (6 + 6 runs), 0.62 to 2.45 at 5 (6 pairs); NaN at 0.
 */
void smmulab_sd_range(unsigned df, double conf, double *lo, double *hi);

/*
 * The seed of repeat @rep of a scenario whose seed is @scenario_seed: a
 * 64-bit mix (splitmix64) of the two, never 0.  Repeats of one scenario
 * draw independent-looking seeds, and the same scenario seed gives the
 * same seeds every time.
 */
unsigned long long smmulab_repeat_seed(unsigned long long scenario_seed,
                                       unsigned rep);

#endif
