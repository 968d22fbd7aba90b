/*
 * smmulab: the statistics behind A/B verdicts
 *
 * Fisher's exact test for "runs with a lockup (or timeout)", the
 * Mann-Whitney U test for a metric measured once per run, and a bootstrap
 * interval of the relative change of the mean.  Small samples are the rule
 * here (a handful of boots per variant), so the tests are exact where they
 * can be.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abtest.h"

void smmulab_summarize(const double *x, size_t n, SmmulabSummary *s)
{
    size_t i;

    s->n = n;
    s->sum = 0;
    s->mean = s->min = s->max = NAN;
    for (i = 0; i < n; i++) {
        s->sum += x[i];
        if (!i || x[i] < s->min) {
            s->min = x[i];
        }
        if (!i || x[i] > s->max) {
            s->max = x[i];
        }
    }
    if (n) {
        s->mean = s->sum / n;
    } else {
        s->sum = NAN;
    }
}

/* log C(n, k) */
static double log_choose(unsigned n, unsigned k)
{
    return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

double smmulab_fisher_exact(unsigned ka, unsigned na, unsigned kb,
                            unsigned nb)
{
    unsigned k = ka + kb, n = na + nb, lo, hi, x;
    double p_obs, p = 0;

    if (!na || !nb || ka > na || kb > nb) {
        return 1;
    }
    /* Tables with the same margins: x events in group a */
    lo = k > nb ? k - nb : 0;
    hi = k < na ? k : na;
    p_obs = exp(log_choose(na, ka) + log_choose(nb, kb) - log_choose(n, k));
    for (x = lo; x <= hi; x++) {
        double px = exp(log_choose(na, x) + log_choose(nb, k - x) -
                        log_choose(n, k));

        /* at most as likely, with room for rounding */
        if (px <= p_obs * (1 + 1e-7)) {
            p += px;
        }
    }
    return p > 1 ? 1 : p;
}

typedef struct Ranked {
    double v;
    size_t i;
} Ranked;

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const Ranked *)a)->v, y = ((const Ranked *)b)->v;

    return x < y ? -1 : x > y;
}

/* Mid-ranks (1-based) of the pooled sample, in pooled order; tie term */
static double *mid_ranks(const double *a, size_t na, const double *b,
                         size_t nb, double *tie_sum)
{
    size_t n = na + nb, i, j;
    Ranked *r = malloc(n * sizeof(*r));
    double *rank = malloc(n * sizeof(*rank));

    for (i = 0; i < n; i++) {
        r[i].v = i < na ? a[i] : b[i - na];
        r[i].i = i;
    }
    qsort(r, n, sizeof(*r), cmp_ranked);
    *tie_sum = 0;
    for (i = 0; i < n; i = j) {
        double t;

        for (j = i + 1; j < n && r[j].v == r[i].v; j++) {
            /* same value */
        }
        t = j - i;
        *tie_sum += t * t * t - t;
        for (size_t k = i; k < j; k++) {
            rank[r[k].i] = (i + 1 + j) / 2.0;
        }
    }
    free(r);
    return rank;
}

/* C(n, k) as a double, for counting arrangements */
static double choose(size_t n, size_t k)
{
    double c = 1;
    size_t i;

    if (k > n - k) {
        k = n - k;
    }
    for (i = 1; i <= k; i++) {
        c = c * (n - k + i) / i;
    }
    return c;
}

/*
 * Share of the C(n, k) ways to pick @k of the @n ranks whose rank sum is at
 * least as far from its mean as @obs.  Rank sums are kept doubled, so that
 * mid-ranks stay integers.
 */
static double exact_tail(const double *rank, size_t n, size_t k, double obs)
{
    size_t idx[64], i;
    double mean = k * (n + 1) / 2.0, dev = fabs(obs - mean);
    double hit = 0, total = 0;

    for (i = 0; i < k; i++) {
        idx[i] = i;
    }
    for (;;) {
        double s = 0;

        for (i = 0; i < k; i++) {
            s += rank[idx[i]];
        }
        total++;
        if (fabs(s - mean) >= dev - 1e-9) {
            hit++;
        }
        /* next combination in lexicographic order */
        i = k;
        while (i > 0 && idx[i - 1] == n - k + i - 1) {
            i--;
        }
        if (!i) {
            break;
        }
        idx[i - 1]++;
        for (; i < k; i++) {
            idx[i] = idx[i - 1] + 1;
        }
    }
    return hit / total;
}

double smmulab_mann_whitney(const double *a, size_t na, const double *b,
                            size_t nb, double *u)
{
    size_t n = na + nb, i;
    double tie_sum, r1 = 0, p, *rank;

    if (u) {
        *u = NAN;
    }
    if (!na || !nb) {
        return 1;
    }
    rank = mid_ranks(a, na, b, nb, &tie_sum);
    for (i = 0; i < na; i++) {
        r1 += rank[i];
    }
    if (u) {
        *u = r1 - na * (na + 1) / 2.0;
    }
    if (na < 64 && choose(n, na) <= SMMULAB_MWU_EXACT_MAX) {
        p = exact_tail(rank, n, na, r1);
    } else {
        double mu = na * nb / 2.0;
        double var = na * nb / 12.0 * ((n + 1) - tie_sum / ((double)n * (n - 1)));
        double z, uu = r1 - na * (na + 1) / 2.0;

        if (var <= 0) {
            p = 1;
        } else {
            z = (fabs(uu - mu) - 0.5) / sqrt(var);
            p = z <= 0 ? 1 : erfc(z / sqrt(2));
        }
    }
    free(rank);
    return p > 1 ? 1 : p;
}

double smmulab_mann_whitney_min_p(size_t na, size_t nb)
{
    if (!na || !nb) {
        return 1;
    }
    return 2 / choose(na + nb, na) > 1 ? 1 : 2 / choose(na + nb, na);
}

/* xorshift64*: a fixed, portable stream for the bootstrap */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static double resample_mean(const double *x, size_t n, uint64_t *s)
{
    double sum = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        sum += x[next_rand(s) % n];
    }
    return sum / n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double smmulab_change_pct(const double *a, size_t na, const double *b,
                          size_t nb, double level, unsigned iters,
                          double *lo, double *hi)
{
    SmmulabSummary sa, sb;
    uint64_t seed = 0x5eed5eed5eedULL;
    double *r;
    unsigned i, kept = 0;

    *lo = *hi = NAN;
    smmulab_summarize(a, na, &sa);
    smmulab_summarize(b, nb, &sb);
    if (!na || !nb || sa.mean == 0) {
        return NAN;
    }
    r = malloc((iters ? iters : 1) * sizeof(*r));
    for (i = 0; i < iters; i++) {
        double ma = resample_mean(a, na, &seed);
        double mb = resample_mean(b, nb, &seed);

        if (ma != 0) {
            r[kept++] = (mb / ma - 1) * 100;
        }
    }
    if (kept) {
        size_t l, h;

        qsort(r, kept, sizeof(*r), cmp_double);
        l = (size_t)floor((1 - level) / 2 * (kept - 1));
        h = (size_t)ceil((1 - (1 - level) / 2) * (kept - 1));
        *lo = r[l];
        *hi = r[h];
    }
    free(r);
    return (sb.mean / sa.mean - 1) * 100;
}
