/*
 * smmulab: the statistics behind A/B verdicts
 *
 * Fisher's exact test for "runs with a lockup (or timeout)", the exact
 * Mann-Whitney U test for a value measured once per run, the
 * Hodges-Lehmann shift with its distribution-free interval, their paired
 * counterparts (the signed-rank test, the paired shift, McNemar's test),
 * Holm's adjustment, and the power and sample-size figures a "no
 * difference" needs.  Small samples are the rule here (a handful of boots
 * per variant), so everything is exact where it can be, and reproducible
 * where it simulates (fixed seeds).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abtest.h"

/* Simulations behind the Mann-Whitney power figures */
#define MWU_POWER_SIMS 2000
/* Work (cells x elements) up to which the rank-sum count is exact */
#define MWU_EXACT_WORK 1.2e9
/*
 * Nonzero differences up to which the signed-rank distribution is counted
 * exactly (its counts stay below 2^1000, within a double's range)
 */
#define WSR_EXACT_MAX 1000
/* Simulations behind the signed-rank power figures */
#define WSR_POWER_SIMS 4000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

void smmulab_summarize(const double *x, size_t n, SmmulabSummary *s)
{
    double *sorted, ss = 0;
    size_t i;

    memset(s, 0, sizeof(*s));
    s->n = n;
    s->mean = s->median = s->min = s->max = s->sd = NAN;
    if (!n) {
        s->sum = NAN;
        return;
    }
    for (i = 0; i < n; i++) {
        s->sum += x[i];
        if (!i || x[i] < s->min) {
            s->min = x[i];
        }
        if (!i || x[i] > s->max) {
            s->max = x[i];
        }
    }
    s->mean = s->sum / n;
    for (i = 0; i < n; i++) {
        ss += (x[i] - s->mean) * (x[i] - s->mean);
    }
    s->sd = n > 1 ? sqrt(ss / (n - 1)) : NAN;
    sorted = malloc(n * sizeof(*sorted));
    memcpy(sorted, x, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_double);
    s->median = n % 2 ? sorted[n / 2]
                      : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
}

bool smmulab_significant(double p, double alpha)
{
    return p < alpha * (1 - 1e-9);
}

char *smmulab_format_p(double p, double alpha)
{
    bool sig = smmulab_significant(p, alpha);
    char buf[64];
    int d;

    if (isnan(p)) {
        return strdup("n/a");
    }
    for (d = 2; d <= 17; d++) {
        snprintf(buf, sizeof(buf), "%.*g", d, p);
        if (smmulab_significant(strtod(buf, NULL), alpha) == sig) {
            break;
        }
    }
    return strdup(buf);
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

        /* at most as likely, with room for rounding (as R's fisher.test) */
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

/*
 * Doubled mid-ranks (so that they are integers) of the pooled sample, in
 * pooled order; the tie term sum(t^3 - t) for the normal approximation.
 */
static long *doubled_ranks(const double *a, size_t na, const double *b,
                           size_t nb, double *tie_sum)
{
    size_t n = na + nb, i, j;
    Ranked *r = malloc(n * sizeof(*r));
    long *rank = malloc(n * sizeof(*rank));

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
            rank[r[k].i] = (long)(i + 1 + j);  /* 2 x mid-rank */
        }
    }
    free(r);
    return rank;
}

/*
 * The number of ways to pick @k of the @n (integer) scores @r, by the sum
 * of the scores picked: counts[s] for s = 0..sum(r).  Counts are doubles:
 * exact up to 2^53, then relative error ~1e-16 per addition.
 */
static double *subset_sum_counts(const long *r, size_t n, size_t k,
                                 long *total)
{
    long tot = 0, sum = 0, s;
    size_t i, j, width;
    double *f, *out;

    for (i = 0; i < n; i++) {
        sum += r[i];
    }
    width = sum + 1;
    f = calloc((k + 1) * width, sizeof(*f));
    f[0] = 1;
    for (i = 0; i < n; i++) {
        tot += r[i];
        for (j = (i + 1 < k ? i + 1 : k); j >= 1; j--) {
            double *to = f + j * width, *from = f + (j - 1) * width;

            for (s = tot; s >= r[i]; s--) {
                to[s] += from[s - r[i]];
            }
        }
    }
    out = malloc(width * sizeof(*out));
    memcpy(out, f + k * width, width * sizeof(*out));
    free(f);
    *total = sum;
    return out;
}

double smmulab_mann_whitney(const double *a, size_t na, const double *b,
                            size_t nb, double *u, bool *exact)
{
    size_t n = na + nb, i, k;
    double tie_sum, p, uu;
    long *rank, obs = 0, sum_all = 0;
    const long *pick;

    if (u) {
        *u = NAN;
    }
    if (exact) {
        *exact = true;
    }
    if (!na || !nb) {
        return 1;
    }
    rank = doubled_ranks(a, na, b, nb, &tie_sum);
    for (i = 0; i < na; i++) {
        obs += rank[i];
    }
    for (i = 0; i < n; i++) {
        sum_all += rank[i];
    }
    uu = obs / 2.0 - na * (na + 1) / 2.0;
    if (u) {
        *u = uu;
    }
    /* Count subsets of the smaller group's size: the same test */
    k = na <= nb ? na : nb;
    pick = na <= nb ? rank : rank + na;
    if (na > nb) {
        obs = 0;
        for (i = 0; i < nb; i++) {
            obs += pick[i];
        }
    }
    if ((double)n * (k + 1) * (sum_all + 1) <= MWU_EXACT_WORK) {
        long mean2 = (long)k * (long)(n + 1), dev = labs(obs - mean2), s;
        long width;
        double *cnt = subset_sum_counts(rank, n, k, &width);
        double hit = 0, total = 0;

        for (s = 0; s <= width; s++) {
            total += cnt[s];
            if (labs(s - mean2) >= dev) {
                hit += cnt[s];
            }
        }
        free(cnt);
        p = hit / total;
    } else {
        double mu = na * nb / 2.0;
        double var = na * nb / 12.0 *
                     ((n + 1) - tie_sum / ((double)n * (n - 1)));
        double z;

        if (exact) {
            *exact = false;
        }
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

double smmulab_mann_whitney_min_p(size_t na, size_t nb)
{
    if (!na || !nb) {
        return 1;
    }
    return 2 / choose(na + nb, na) > 1 ? 1 : 2 / choose(na + nb, na);
}

/*
 * The largest K with 2 P(U <= K - 1) < alpha, U the Mann-Whitney
 * statistic of na + nb runs without ties; 0 when even U = 0 is not
 * significant.  *@tail gets 2 P(U <= K - 1).  Exact (the rank-sum count)
 * while that is cheap, else from the normal approximation.
 */
static size_t mwu_critical(size_t na, size_t nb, double alpha, double *tail)
{
    size_t n = na + nb, k = na <= nb ? na : nb, K = 0, i;
    double sum_all = (double)n * (n + 1) / 2;

    *tail = 0;
    if (!na || !nb) {
        return 0;
    }
    if ((double)n * (k + 1) * (sum_all + 1) <= MWU_EXACT_WORK) {
        long *r = malloc(n * sizeof(*r)), width, base = k * (k + 1) / 2;
        double *cnt, total = 0, cum = 0;

        for (i = 0; i < n; i++) {
            r[i] = i + 1;
        }
        cnt = subset_sum_counts(r, n, k, &width);
        for (long s = 0; s <= width; s++) {
            total += cnt[s];
        }
        /* U = W - k(k+1)/2; grow K while 2 P(U <= K) stays below alpha */
        for (;;) {
            double next = cum + cnt[base + K];

            if (!smmulab_significant(2 * next / total, alpha)) {
                break;
            }
            cum = next;
            K++;
        }
        *tail = 2 * cum / total;
        free(cnt);
        free(r);
        return K;
    }
    {
        double mu = na * nb / 2.0, sd = sqrt(na * nb * (n + 1) / 12.0);

        /* U = K is significant: the continuity-corrected normal tail */
        while (K < na * nb / 2 &&
               smmulab_significant(erfc((mu - K - 0.5) / sd / sqrt(2)),
                                   alpha)) {
            *tail = erfc((mu - K - 0.5) / sd / sqrt(2));
            K++;
        }
        return K;
    }
}

double smmulab_hodges_lehmann(const double *a, size_t na, const double *b,
                              size_t nb, double alpha, double *lo,
                              double *hi, double *level)
{
    size_t m = na * nb, i, j, K;
    double *d, shift, tail;

    *lo = *hi = NAN;
    *level = 0;
    if (!na || !nb) {
        return NAN;
    }
    d = malloc(m * sizeof(*d));
    for (i = 0; i < na; i++) {
        for (j = 0; j < nb; j++) {
            d[i * nb + j] = b[j] - a[i];
        }
    }
    qsort(d, m, sizeof(*d), cmp_double);
    shift = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
    K = mwu_critical(na, nb, alpha, &tail);
    if (K) {
        *lo = d[K - 1];
        *hi = d[m - K];
        *level = 1 - tail;
    }
    free(d);
    return shift;
}

/*
 * The signed ranks of d - @theta: over the nonzero differences (zeros
 * dropped, Wilcoxon's treatment), the doubled mid-ranks of |d_i - theta|
 * (integers), ascending, in @score; returns their number m.  *@obs gets
 * the sum of the positive differences' scores (2 W+), *@tie_sum the tie
 * term sum(t^3 - t) for the normal approximation.
 */
static size_t signed_scores(const double *d, size_t n, double theta,
                            long *score, long *obs, double *tie_sum)
{
    Ranked *r = malloc((n ? n : 1) * sizeof(*r));
    size_t m = 0, i, j, k;

    for (i = 0; i < n; i++) {
        double x = d[i] - theta;

        if (x != 0) {
            r[m].v = fabs(x);
            r[m].i = x > 0;     /* here: whether the difference is positive */
            m++;
        }
    }
    qsort(r, m, sizeof(*r), cmp_ranked);
    *obs = 0;
    *tie_sum = 0;
    for (i = 0; i < m; i = j) {
        double t;

        for (j = i + 1; j < m && r[j].v == r[i].v; j++) {
            /* same |d| */
        }
        t = j - i;
        *tie_sum += t * t * t - t;
        for (k = i; k < j; k++) {
            score[k] = (long)(i + 1 + j);  /* 2 x mid-rank */
            if (r[k].i) {
                *obs += score[k];
            }
        }
    }
    free(r);
    return m;
}

/*
 * The null distribution of 2 W+ for the @m ascending scores @score, which
 * sum to m(m + 1): cum[v] counts the sign assignments (of 2^m) whose
 * positive scores sum to at most v, v = 0..m(m + 1).  Counts are doubles,
 * exact up to 2^53, then relative error ~1e-16 per addition.
 */
static double *wsr_cum(const long *score, size_t m)
{
    long total = (long)m * (long)(m + 1), tot = 0, s;
    double *f = calloc(total + 1, sizeof(*f));
    size_t i;

    f[0] = 1;
    for (i = 0; i < m; i++) {
        /* ascending scores keep the reachable range, tot, small */
        tot += score[i];
        for (s = tot; s >= score[i]; s--) {
            f[s] += f[s - score[i]];
        }
    }
    for (s = 1; s <= total; s++) {
        f[s] += f[s - 1];
    }
    return f;
}

/*
 * Two-sided p of 2 W+ = @obs under @cum: P(|2W+ - m(m+1)/2| >= |obs -
 * m(m+1)/2|), which by the symmetry of the distribution (flip every sign)
 * is twice the lower tail; summed from the small end, so tiny p-values
 * keep their precision.
 */
static double wsr_p(const double *cum, size_t m, long obs)
{
    long mean2 = (long)m * (long)(m + 1) / 2, dev = labs(obs - mean2);
    double p;

    if (!m || !dev) {
        return 1;
    }
    p = 2 * cum[mean2 - dev] / ldexp(1, m);
    return p > 1 ? 1 : p;
}

/* The normal approximation, tie- and continuity-corrected, past the limit */
static double wsr_normal_p(size_t m, long obs, double tie_sum)
{
    double mu = m * (m + 1.0) / 4;
    double var = m * (m + 1.0) * (2.0 * m + 1) / 24 - tie_sum / 48;
    double z;

    if (var <= 0) {
        return 1;
    }
    z = (fabs(obs / 2.0 - mu) - 0.5) / sqrt(var);
    return z <= 0 ? 1 : erfc(z / sqrt(2));
}

/*
 * Distributions already counted, by their scores: the interval's scan
 * meets the same tie structure at many theta (without repeated values in
 * the data, one between each two Walsh averages, one per rank where a
 * pair ties on them).
 */
typedef struct WsrCacheEntry {
    uint64_t key;
    size_t m;
    long *score;
    double *cum;
} WsrCacheEntry;

typedef struct WsrCache {
    WsrCacheEntry *e;
    size_t len, cap;
} WsrCache;

static const double *wsr_cache_get(WsrCache *c, const long *score, size_t m)
{
    uint64_t key = 0xcbf29ce484222325ULL ^ m;     /* FNV-1a */
    WsrCacheEntry *e;
    size_t i;

    for (i = 0; i < m; i++) {
        key = (key ^ (uint64_t)score[i]) * 0x100000001b3ULL;
    }
    for (i = 0; i < c->len; i++) {
        e = &c->e[i];
        if (e->key == key && e->m == m &&
            !memcmp(e->score, score, m * sizeof(*score))) {
            return e->cum;
        }
    }
    if (c->len == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->e = realloc(c->e, c->cap * sizeof(*c->e));
    }
    e = &c->e[c->len++];
    e->key = key;
    e->m = m;
    e->score = malloc((m ? m : 1) * sizeof(*score));
    memcpy(e->score, score, m * sizeof(*score));
    e->cum = wsr_cum(score, m);
    return e->cum;
}

static void wsr_cache_free(WsrCache *c)
{
    size_t i;

    for (i = 0; i < c->len; i++) {
        free(c->e[i].score);
        free(c->e[i].cum);
    }
    free(c->e);
}

/*
 * The signed-rank p of d - @theta: the one computation behind the test
 * and its interval, so that the two agree to the last bit.  @score: room
 * for n scores.  *@m, *@obs, *@exact: as the test reports them.
 */
static double wsr_p_at(const double *d, size_t n, double theta, WsrCache *c,
                       long *score, size_t *m, long *obs, bool *exact)
{
    double tie_sum;

    *m = signed_scores(d, n, theta, score, obs, &tie_sum);
    *exact = *m <= WSR_EXACT_MAX;
    if (!*m) {
        return 1;
    }
    if (!*exact) {
        return wsr_normal_p(*m, *obs, tie_sum);
    }
    return wsr_p(wsr_cache_get(c, score, *m), *m, *obs);
}

double smmulab_wilcoxon_signed_rank(const double *d, size_t n, double *w_plus,
                                    size_t *n_used, bool *exact)
{
    long *score = malloc((n ? n : 1) * sizeof(*score)), obs;
    WsrCache c = { 0 };
    size_t m;
    bool ex;
    double p = wsr_p_at(d, n, 0, &c, score, &m, &obs, &ex);

    if (w_plus) {
        *w_plus = obs / 2.0;
    }
    if (n_used) {
        *n_used = m;
    }
    if (exact) {
        *exact = ex;
    }
    wsr_cache_free(&c);
    free(score);
    return p;
}

double smmulab_wilcoxon_min_p(size_t n)
{
    double p = ldexp(1, 1 - (int)(n < 2000 ? n : 2000));

    return p > 1 ? 1 : p;
}

double smmulab_wilcoxon_min_p_data(const double *d, size_t n)
{
    size_t i, m = 0;

    for (i = 0; i < n; i++) {
        m += d[i] != 0;
    }
    return smmulab_wilcoxon_min_p(m);
}

/*
 * The largest K with 2 P(W+ <= K - 1) < alpha, W+ the signed-rank
 * statistic of @n differences without ties or zeros; 0 when even W+ = 0
 * is not significant.  *@tail gets 2 P(W+ <= K - 1).  The same
 * computation as the test's p (exact up to WSR_EXACT_MAX, else normal).
 */
static size_t wsr_critical(size_t n, double alpha, double *tail)
{
    size_t K = 0, M = n * (n + 1) / 2, i;

    *tail = 0;
    if (!n) {
        return 0;
    }
    if (n <= WSR_EXACT_MAX) {
        long *r = malloc(n * sizeof(*r));
        double *cum;

        for (i = 0; i < n; i++) {
            r[i] = 2 * (i + 1);
        }
        cum = wsr_cum(r, n);
        /* W+ = K is significant: grow K (2 W+ = 2K; the test's p) */
        while (K <= M / 2 && smmulab_significant(wsr_p(cum, n, 2 * K), alpha)) {
            *tail = wsr_p(cum, n, 2 * K);
            K++;
        }
        free(cum);
        free(r);
        return K;
    }
    while (K <= M / 2 &&
           smmulab_significant(wsr_normal_p(n, 2 * K, 0), alpha)) {
        *tail = wsr_normal_p(n, 2 * K, 0);
        K++;
    }
    return K;
}

/*
 * Whether @d has a repeated value: then |d - theta| ties even between
 * Walsh averages, and the untied distribution does not apply there
 */
static bool has_repeats(const double *d, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof(*s));
    bool rep = false;
    size_t i;

    memcpy(s, d, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    for (i = 1; i < n && !rep; i++) {
        rep = s[i] == s[i - 1];
    }
    free(s);
    return rep;
}

/*
 * Candidate @c (0..2q) of the interval's scan over the @q distinct sorted
 * Walsh averages @w: c = 2k + 1 is w[k] itself, c = 2k a point of the open
 * stretch below w[k] (above every one for k = q), where p is constant.
 */
static double hl_candidate(const double *w, size_t q, size_t c)
{
    if (c % 2) {
        return w[c / 2];
    }
    if (c == 0) {
        return w[0] - fabs(w[0]) - 1;
    }
    if (c == 2 * q) {
        return w[q - 1] + fabs(w[q - 1]) + 1;
    }
    return w[c / 2 - 1] + (w[c / 2] - w[c / 2 - 1]) / 2;
}

/* Whether the signed-rank test of @d - @theta is not significant */
static bool hl_accepts(const double *d, size_t n, double theta, double alpha,
                       WsrCache *cache, long *score)
{
    size_t m;
    long obs;
    bool ex;

    return !smmulab_significant(wsr_p_at(d, n, theta, cache, score, &m, &obs,
                                         &ex), alpha);
}

double smmulab_hodges_lehmann_paired(const double *d, size_t n, double alpha,
                                     double *lo, double *hi, double *level)
{
    size_t M = n * (n + 1) / 2, q = 0, i, j, k = 0, cl, ch;
    WsrCache cache = { 0 };
    double *w, shift, tail;
    long *score;

    *lo = *hi = NAN;
    *level = 0;
    if (!n) {
        return NAN;
    }
    w = malloc(M * sizeof(*w));
    for (i = 0; i < n; i++) {
        for (j = i; j < n; j++) {
            w[k++] = (d[i] + d[j]) / 2;
        }
    }
    qsort(w, M, sizeof(*w), cmp_double);
    shift = M % 2 ? w[M / 2] : (w[M / 2 - 1] + w[M / 2]) / 2;
    /* The distinct Walsh averages: where the test's p can change */
    for (i = 0; i < M; i++) {
        if (!q || w[i] != w[q - 1]) {
            w[q++] = w[i];
        }
    }
    score = malloc(n * sizeof(*score));
    /*
     * Scan in from each end to the first candidate at which the test is
     * not significant: the interval spans from the Walsh average at or
     * below the first to the one at or above the last.
     */
    for (cl = 0; cl <= 2 * q &&
                 !hl_accepts(d, n, hl_candidate(w, q, cl), alpha, &cache,
                             score); cl++) {
        /* significant: below the interval */
    }
    /* Not significant at either end: no outcome at this n is */
    if (cl > 0 && cl < 2 * q) {
        for (ch = 2 * q; ch > cl &&
                         !hl_accepts(d, n, hl_candidate(w, q, ch), alpha,
                                     &cache, score); ch--) {
            /* significant: above the interval */
        }
        if (ch < 2 * q) {
            /*
             * An end where the first candidate not significant is a
             * stretch is open: the test at the Walsh average itself is
             * significant; the next double inward stands for it.
             */
            *lo = cl % 2 ? w[cl / 2] : nextafter(w[cl / 2 - 1], INFINITY);
            *hi = ch % 2 ? w[ch / 2] : nextafter(w[ch / 2], -INFINITY);
            if (has_repeats(d, n)) {
                *level = 1 - alpha;
            } else {
                wsr_critical(n, alpha, &tail);
                *level = 1 - tail;
            }
        }
    }
    wsr_cache_free(&cache);
    free(score);
    free(w);
    return shift;
}

double smmulab_mcnemar_exact(unsigned b, unsigned c)
{
    unsigned n = b + c, k = b < c ? b : c, i;
    double p = 0;

    if (!n) {
        return 1;
    }
    for (i = 0; i <= k; i++) {
        p += exp(log_choose(n, i) - n * M_LN2);
    }
    p *= 2;
    return p > 1 ? 1 : p;
}

double smmulab_mcnemar_power(unsigned n, double p10, double p01,
                             double alpha)
{
    double pc = 1 - p10 - p01, pw = 0;
    unsigned b, c;

    if (pc < 0) {
        pc = 0;
    }
    /* (b, c, rest) is trinomial */
    for (b = 0; b <= n; b++) {
        for (c = 0; b + c <= n; c++) {
            double lp;

            if (!smmulab_significant(smmulab_mcnemar_exact(b, c), alpha)) {
                continue;
            }
            if ((b && p10 <= 0) || (c && p01 <= 0) || (n - b - c && pc <= 0)) {
                continue;
            }
            lp = lgamma(n + 1.0) - lgamma(b + 1.0) - lgamma(c + 1.0) -
                 lgamma(n - b - c + 1.0);
            lp += (b ? b * log(p10) : 0) + (c ? c * log(p01) : 0) +
                  (n - b - c ? (n - b - c) * log(pc) : 0);
            pw += exp(lp);
        }
    }
    return pw > 1 ? 1 : pw;
}

typedef struct Pv {
    double p;
    size_t i;
} Pv;

static int cmp_pv(const void *a, const void *b)
{
    const Pv *x = a, *y = b;

    if (x->p != y->p) {
        return x->p < y->p ? -1 : 1;
    }
    return x->i < y->i ? -1 : x->i > y->i;
}

void smmulab_holm(double *p, size_t n)
{
    Pv *v = malloc((n ? n : 1) * sizeof(*v));
    double run = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        v[i].p = p[i];
        v[i].i = i;
    }
    qsort(v, n, sizeof(*v), cmp_pv);
    for (i = 0; i < n; i++) {
        double adj = (n - i) * v[i].p;

        run = adj > run ? adj : run;
        p[v[i].i] = run > 1 ? 1 : run;
    }
    free(v);
}

/* P(X = k), X ~ Binomial(n, r) */
static double binom_pmf(unsigned k, unsigned n, double r)
{
    if (r <= 0) {
        return k == 0;
    }
    if (r >= 1) {
        return k == n;
    }
    return exp(log_choose(n, k) + k * log(r) + (n - k) * log1p(-r));
}

/* The outcomes (ka, kb) Fisher's test calls significant, row-major */
static unsigned char *fisher_region(unsigned na, unsigned nb, double alpha)
{
    unsigned char *rej = malloc((size_t)(na + 1) * (nb + 1));
    unsigned ka, kb;

    for (ka = 0; ka <= na; ka++) {
        for (kb = 0; kb <= nb; kb++) {
            rej[ka * (nb + 1) + kb] =
                smmulab_significant(smmulab_fisher_exact(ka, na, kb, nb),
                                    alpha);
        }
    }
    return rej;
}

static double region_power(const unsigned char *rej, unsigned na, double ra,
                           unsigned nb, double rb)
{
    double pw = 0;
    unsigned ka, kb;

    for (ka = 0; ka <= na; ka++) {
        double pa = binom_pmf(ka, na, ra);

        for (kb = 0; kb <= nb && pa > 0; kb++) {
            if (rej[ka * (nb + 1) + kb]) {
                pw += pa * binom_pmf(kb, nb, rb);
            }
        }
    }
    return pw;
}

double smmulab_fisher_power(unsigned na, double ra, unsigned nb, double rb,
                            double alpha)
{
    unsigned char *rej = fisher_region(na, nb, alpha);
    double pw = region_power(rej, na, ra, nb, rb);

    free(rej);
    return pw;
}

double smmulab_fisher_detectable(unsigned na, unsigned nb, double rb,
                                 bool up, double alpha, double power)
{
    unsigned char *rej = fisher_region(na, nb, alpha);
    double found = NAN;
    int step;

    /* In steps of 0.5 percentage points, away from the baseline's rate */
    for (step = 1; step <= 200; step++) {
        double ra = rb + (up ? step : -step) * 0.005;

        if (ra < -1e-12 || ra > 1 + 1e-12) {
            break;
        }
        ra = ra < 0 ? 0 : ra > 1 ? 1 : ra;
        if (region_power(rej, na, ra, nb, rb) >= power) {
            found = ra;
            break;
        }
    }
    free(rej);
    return found;
}

unsigned smmulab_fisher_n_needed(double ra, double rb, double alpha,
                                 double power, unsigned max)
{
    unsigned n;

    if (fabs(ra - rb) < 1e-12) {
        return 0;
    }
    for (n = 2; n <= max; n++) {
        if (smmulab_fisher_power(n, ra, n, rb, alpha) >= power) {
            return n;
        }
    }
    return 0;
}

/* xorshift64*: a fixed, portable stream for the power simulations */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static double uniform01(uint64_t *s)
{
    return ((next_rand(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal draws (Box-Muller) from a fixed seed */
static void normals(double *x, size_t n, uint64_t *s)
{
    size_t i;

    for (i = 0; i < n; i += 2) {
        double r = sqrt(-2 * log(uniform01(s))), t = 2 * M_PI * uniform01(s);

        x[i] = r * cos(t);
        if (i + 1 < n) {
            x[i + 1] = r * sin(t);
        }
    }
}

/* U of @a (pairs a > b) for samples without ties: sort, then merge */
static size_t u_sorted(double *a, size_t na, double *b, size_t nb)
{
    size_t i, j = 0, u = 0;

    qsort(a, na, sizeof(*a), cmp_double);
    qsort(b, nb, sizeof(*b), cmp_double);
    for (i = 0; i < na; i++) {
        while (j < nb && b[j] < a[i]) {
            j++;
        }
        u += j;
    }
    return u;
}

/* Simulated power, @draws holding MWU_POWER_SIMS x (na + nb) normals */
static double mwu_power_draws(const double *draws, size_t na, size_t nb,
                              double delta, size_t K)
{
    double *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b));
    size_t sim, i, hits = 0;

    for (sim = 0; sim < MWU_POWER_SIMS; sim++) {
        const double *x = draws + sim * (na + nb);
        size_t u;

        memcpy(a, x, na * sizeof(*a));
        for (i = 0; i < nb; i++) {
            b[i] = x[na + i] + delta;
        }
        u = u_sorted(a, na, b, nb);
        hits += u + 1 <= K || u >= na * nb + 1 - K;
    }
    free(a);
    free(b);
    return (double)hits / MWU_POWER_SIMS;
}

static double *power_draws(size_t na, size_t nb)
{
    uint64_t seed = 0x5eed5eed5eedULL;
    double *d = malloc(MWU_POWER_SIMS * (na + nb) * sizeof(*d));

    normals(d, MWU_POWER_SIMS * (na + nb), &seed);
    return d;
}

double smmulab_mwu_power(size_t na, size_t nb, double delta, double alpha)
{
    double tail, *d, pw;
    size_t K = mwu_critical(na, nb, alpha, &tail);

    if (!K) {
        return 0;
    }
    d = power_draws(na, nb);
    pw = mwu_power_draws(d, na, nb, delta, K);
    free(d);
    return pw;
}

double smmulab_mwu_detectable(size_t na, size_t nb, double alpha,
                              double power)
{
    double tail, *d, lo = 0, hi = 16;
    size_t K = mwu_critical(na, nb, alpha, &tail);
    int it;

    if (!K) {
        return NAN;
    }
    d = power_draws(na, nb);
    if (mwu_power_draws(d, na, nb, hi, K) < power) {
        free(d);
        return NAN;
    }
    for (it = 0; it < 30; it++) {
        double mid = (lo + hi) / 2;

        if (mwu_power_draws(d, na, nb, mid, K) >= power) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    free(d);
    return hi;
}

unsigned smmulab_mwu_n_needed(double delta, double alpha, double power,
                              unsigned max)
{
    unsigned lo = 2, hi = max;

    delta = fabs(delta);
    if (isnan(delta) || delta == 0 ||
        smmulab_mwu_power(max, max, delta, alpha) < power) {
        return 0;
    }
    /* Power grows with n: bisect */
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;

        if (smmulab_mwu_power(mid, mid, delta, alpha) >= power) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/*
 * Draw @sim of the signed-rank power figures: normals from a seed of its
 * own, so that a draw of n differences is the start of a longer one (the
 * power at n is the same whichever function asks).
 */
static void wsr_draw(double *z, size_t n, size_t sim)
{
    uint64_t s = smmulab_repeat_seed(0x5eed5eed5eedULL, (unsigned)sim);

    normals(z, n, &s);
}

/* W+ of @z + @delta, for differences without ties or zeros */
static size_t wsr_wplus(const double *z, size_t n, double delta, Ranked *r)
{
    size_t i, w = 0;

    for (i = 0; i < n; i++) {
        r[i].v = fabs(z[i] + delta);
        r[i].i = z[i] + delta > 0;
    }
    qsort(r, n, sizeof(*r), cmp_ranked);
    for (i = 0; i < n; i++) {
        w += r[i].i ? i + 1 : 0;
    }
    return w;
}

/* Simulated power, @z holding WSR_POWER_SIMS draws of n */
static double wsr_power_draws(const double *z, size_t n, double delta,
                              size_t K)
{
    Ranked *r = malloc(n * sizeof(*r));
    size_t sim, hits = 0, M = n * (n + 1) / 2;

    for (sim = 0; sim < WSR_POWER_SIMS; sim++) {
        size_t w = wsr_wplus(z + sim * n, n, delta, r);

        hits += w + 1 <= K || w >= M + 1 - K;
    }
    free(r);
    return (double)hits / WSR_POWER_SIMS;
}

static double *wsr_draws(size_t n)
{
    double *z = malloc(WSR_POWER_SIMS * n * sizeof(*z));
    size_t sim;

    for (sim = 0; sim < WSR_POWER_SIMS; sim++) {
        wsr_draw(z + sim * n, n, sim);
    }
    return z;
}

double smmulab_wilcoxon_power(size_t n, double delta, double alpha)
{
    double tail, *z, pw;
    size_t K = wsr_critical(n, alpha, &tail);

    if (!K) {
        return 0;
    }
    z = wsr_draws(n);
    pw = wsr_power_draws(z, n, delta, K);
    free(z);
    return pw;
}

double smmulab_wilcoxon_detectable(size_t n, double alpha, double power)
{
    double tail, *z, lo = 0, hi = 16;
    size_t K = wsr_critical(n, alpha, &tail);
    int it;

    if (!K) {
        return NAN;
    }
    z = wsr_draws(n);
    if (wsr_power_draws(z, n, hi, K) < power) {
        free(z);
        return NAN;
    }
    /*
     * With the draws fixed, the upper tail's rejections only grow with
     * delta; the lower tail's shrink, but they are a few of alpha / 2 at
     * most, far below any power asked for: bisect.
     */
    for (it = 0; it < 30; it++) {
        double mid = (lo + hi) / 2;

        if (wsr_power_draws(z, n, mid, K) >= power) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    free(z);
    return hi;
}

unsigned smmulab_wilcoxon_n_needed(double delta, double alpha, double power,
                                   unsigned max)
{
    size_t *K, *hits, sim, n, i;
    double *z, tail;
    unsigned found = 0;

    delta = fabs(delta);
    if (isnan(delta) || delta == 0 || !max) {
        return 0;
    }
    K = malloc((max + 1) * sizeof(*K));
    hits = calloc(max + 1, sizeof(*hits));
    z = malloc(max * sizeof(*z));
    for (n = 1; n <= max; n++) {
        K[n] = wsr_critical(n, alpha, &tail);
    }
    /*
     * Each draw's W+ at every n at once, adding one difference at a time:
     * W+ counts the Walsh averages above 0 (Tukey), so the n-th difference
     * adds those it forms with itself and the ones before.  The same
     * draws, and W+, as smmulab_wilcoxon_power() at each n.
     */
    for (sim = 0; sim < WSR_POWER_SIMS; sim++) {
        size_t w = 0;

        wsr_draw(z, max, sim);
        for (n = 1; n <= max; n++) {
            size_t M = n * (n + 1) / 2;

            z[n - 1] += delta;
            for (i = 0; i < n; i++) {
                w += z[i] + z[n - 1] > 0;
            }
            hits[n] += K[n] && (w + 1 <= K[n] || w >= M + 1 - K[n]);
        }
    }
    /* Down from max while the power holds */
    for (n = max; n >= 1 && (double)hits[n] / WSR_POWER_SIMS >= power; n--) {
        found = n;
    }
    free(z);
    free(hits);
    free(K);
    return found;
}

unsigned long long smmulab_repeat_seed(unsigned long long scenario_seed,
                                       unsigned rep)
{
    uint64_t z = scenario_seed + (rep + 1) * 0x9E3779B97F4A7C15ULL;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return z ? z : 1;
}
