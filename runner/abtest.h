/*
 * smmulab: the statistics behind A/B verdicts (pure C, no I/O)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_ABTEST_H
#define SMMULAB_ABTEST_H

#include <stddef.h>

/* n, mean and range of a sample; all NaN (n = 0) for an empty one */
typedef struct SmmulabSummary {
    size_t n;
    double mean, min, max, sum;
} SmmulabSummary;

void smmulab_summarize(const double *x, size_t n, SmmulabSummary *s);

/*
 * Fisher's exact test, two-sided, of @ka events in @na runs against @kb in
 * @nb: the probability, with the margins fixed, of a table at most as
 * likely as the one observed.  1 when either group is empty.
 */
double smmulab_fisher_exact(unsigned ka, unsigned na, unsigned kb,
                            unsigned nb);

/*
 * Mann-Whitney U (Wilcoxon rank-sum) test, two-sided, of @a against @b.
 * Exact: the permutation distribution of the rank sum of @a (mid-ranks
 * for ties) is enumerated while there are at most SMMULAB_MWU_EXACT_MAX
 * arrangements; beyond, the normal approximation with tie and continuity
 * corrections.  Returns the p-value (1 when a sample is empty) and, in
 * @u if not NULL, U of @a (pairs a > b, ties counting one half).
 */
#define SMMULAB_MWU_EXACT_MAX 2000000
double smmulab_mann_whitney(const double *a, size_t na, const double *b,
                            size_t nb, double *u);

/* The smallest two-sided p an exact Mann-Whitney test can give at na, nb */
double smmulab_mann_whitney_min_p(size_t na, size_t nb);

/*
 * Change of the mean of @b relative to the mean of @a, in percent, with a
 * percentile bootstrap interval (@level, e.g. 0.95) from @iters resamples
 * of each sample, drawn from a fixed seed so that a report is reproducible.
 * NaN when a mean of @a is 0 or a sample is empty.
 */
double smmulab_change_pct(const double *a, size_t na, const double *b,
                          size_t nb, double level, unsigned iters,
                          double *lo, double *hi);

#endif
