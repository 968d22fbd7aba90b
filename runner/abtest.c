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
#define MWU_POWER_SIMS SMMULAB_POWER_DRAWS
/* Work (cells x elements) up to which the rank-sum count is exact */
#define MWU_EXACT_WORK 1.2e9
/*
 * Nonzero differences up to which the signed-rank distribution is counted
 * exactly (its counts stay below 2^1000, within a double's range)
 */
#define WSR_EXACT_MAX 1000
/* Simulations behind the signed-rank power figures */
#define WSR_POWER_SIMS SMMULAB_POWER_DRAWS

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
 * The Mann-Whitney test, counted as U rather than as the rank sum: in the
 * pooled order each of the k counted values (the smaller group's; the
 * two-sided test is the same either way round) scores the m others below
 * it, and half of those tied with it.  2U is an integer in 0..2km, the
 * mid-rank sum less its least value (2U = 2W - k(k + 1)), on a narrower
 * range.  Under the null every choice of the k among the pooled values is
 * equally likely, and only the order of the values matters, and in it only
 * the sizes of the tie blocks: the "shape" of the pooled sample.
 */

/* Whether na + nb is small enough for the exact count (work ~ n k n^2) */
static bool mwu_exact_sizes(size_t na, size_t nb)
{
    size_t n = na + nb, k = na <= nb ? na : nb;

    return (double)n * (k + 1) * ((double)n * (n + 1) + 1) <= MWU_EXACT_WORK;
}

/* C(n, k), its rounding kept below a double's (a long double product) */
static double choose(size_t n, size_t k)
{
    long double c = 1;
    size_t i;

    if (k > n - k) {
        k = n - k;
    }
    for (i = 1; i <= k; i++) {
        c = c * (n - k + i) / i;
    }
    return (double)c;
}

/*
 * The inner loops of the counts below: @to[s] += @mult @from[s], s =
 * 0..@n - 1, the two never overlapping.  GCC's -O2 vectorizes only loops
 * that need no check or remainder; these need one (their lengths vary),
 * and vectorized they run about twice as fast.  Each element is added on
 * its own, so the sums are the same to the last bit either way.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define VECTORIZED \
    __attribute__((optimize("tree-vectorize", "vect-cost-model=cheap")))
#else
#define VECTORIZED
#endif

VECTORIZED static void row_add(double *restrict to,
                               const double *restrict from, long n)
{
    long s;

    for (s = 0; s < n; s++) {
        to[s] += from[s];
    }
}

VECTORIZED static void row_add_scaled(double *restrict to,
                                      const double *restrict from, long n,
                                      double mult)
{
    long s;

    for (s = 0; s < n; s++) {
        to[s] += mult * from[s];
    }
}

/* C(t, x), x = 0..t, in @c */
static void binom_row(size_t t, double *c)
{
    size_t x;

    c[0] = 1;
    for (x = 1; x <= t; x++) {
        c[x] = c[x - 1] * (t - x + 1) / x;
    }
}

/*
 * The null distribution of 2U for the shape @t (@g tie blocks, in order,
 * of k + m values), cumulative up to @x: out[s] counts the C(k + m, k)
 * choices of the k whose 2U is at most s, s = 0..@x.  @reverse: the
 * blocks taken from the top, so that out[s] counts 2km - 2U <= s.  By
 * dynamic programming over the blocks, the state (j counted so far, 2U so
 * far): a block of t values of which x are counted, after b values not
 * counted, adds x (2b + t - x) in C(t, x) ways.  Sums only grow, so a cell
 * up to @x draws on no cell above it: out[0..x] is the same to the last
 * bit whatever @x, and a tail costs less the further out it lies.  Counts
 * are doubles: exact up to 2^53, then relative error ~1e-16 per addition.
 */
static double *mwu_cum(const unsigned *t, size_t g, size_t k, size_t m,
                       long x, bool reverse)
{
    size_t W = (size_t)x + 1, i = 0, bi, j, n = k + m;
    double *f = calloc((k + 1) * W, sizeof(*f));
    double *c = malloc((n + 1) * sizeof(*c)), *out, run = 0;
    long *hi = malloc((k + 1) * sizeof(*hi)), s;

    f[0] = 1;
    hi[0] = 0;
    for (j = 1; j <= k; j++) {
        hi[j] = -1;
    }
    for (bi = 0; bi < g; bi++) {
        size_t tt = t[reverse ? g - 1 - bi : bi];
        size_t jn = i + tt < k ? i + tt : k;

        binom_row(tt, c);
        /* new row jn from old rows jn - xp: downwards, in place */
        for (jn++; jn-- > 0;) {
            size_t xp;

            if (i + tt - jn > m) {
                /* more than m not counted: no way on from here */
                if (hi[jn] >= 0) {
                    memset(f + jn * W, 0, (hi[jn] + 1) * sizeof(*f));
                }
                hi[jn] = -1;
                continue;
            }
            for (xp = 1; xp <= tt && xp <= jn; xp++) {
                size_t jo = jn - xp;
                long add, top;
                double *to, *from, mult = c[xp];

                if (jo > i || hi[jo] < 0) {
                    continue;
                }
                add = (long)xp * (long)(2 * (i - jo) + tt - xp);
                if (add > x) {
                    continue;
                }
                top = hi[jo] < x - add ? hi[jo] : x - add;
                to = f + jn * W + add;
                from = f + jo * W;
                if (mult == 1) {
                    row_add(to, from, top + 1);
                } else {
                    row_add_scaled(to, from, top + 1, mult);
                }
                if (top + add > hi[jn]) {
                    hi[jn] = top + add;
                }
            }
        }
        i += tt;
    }
    out = malloc(W * sizeof(*out));
    for (s = 0; s <= x; s++) {
        run += f[k * W + s];
        out[s] = run;
    }
    free(hi);
    free(c);
    free(f);
    return out;
}

/* A shape whose distribution is (partly) counted */
typedef struct MwuShape {
    uint64_t key;
    size_t g;
    unsigned *t;
    bool palindrome;    /* the same from the top: rev is fwd */
    double *fwd, *rev;  /* mwu_cum() up to xf, and reversed up to xr */
    long xf, xr;
} MwuShape;

/*
 * One comparison of @a and @b (sorted copies) and the distributions it
 * has counted: the test at each shift of the interval's scan meets
 * shapes again (without ties in the data, every shift between two
 * differences has the untied one).
 */
typedef struct Mwu {
    double *a, *b;
    size_t na, nb, k, m;
    bool a_counted;     /* k is a's size (na <= nb) */
    bool exact;
    double total;       /* C(k + m, k) */
    unsigned *t;        /* room for a shape */
    MwuShape *e;
    size_t len, cap;
} Mwu;

static void mwu_init(Mwu *c, const double *a, size_t na, const double *b,
                     size_t nb)
{
    memset(c, 0, sizeof(*c));
    c->na = na;
    c->nb = nb;
    c->a_counted = na <= nb;
    c->k = c->a_counted ? na : nb;
    c->m = c->a_counted ? nb : na;
    c->exact = mwu_exact_sizes(na, nb);
    c->total = choose(na + nb, c->k);
    c->a = malloc((na ? na : 1) * sizeof(*c->a));
    c->b = malloc((nb ? nb : 1) * sizeof(*c->b));
    memcpy(c->a, a, na * sizeof(*a));
    memcpy(c->b, b, nb * sizeof(*b));
    qsort(c->a, na, sizeof(*a), cmp_double);
    qsort(c->b, nb, sizeof(*b), cmp_double);
    c->t = malloc((na + nb + 1) * sizeof(*c->t));
}

static void mwu_free(Mwu *c)
{
    size_t i;

    for (i = 0; i < c->len; i++) {
        if (!c->e[i].palindrome) {
            free(c->e[i].rev);
        }
        free(c->e[i].fwd);
        free(c->e[i].t);
    }
    free(c->e);
    free(c->t);
    free(c->a);
    free(c->b);
}

/*
 * The pooled order of a + theta and b, theta given by (@w, @at): the pair
 * (i, j) puts a_i + theta above b_j when its difference b_j - a_i is
 * below @w, ties them when it equals @w and @at, and puts a_i + theta below
 * b_j otherwise (@at false: theta just below @w; @w infinite: beyond every
 * difference).  Compared through the differences, so that theta is never
 * added to a value: at @w = 0, @at, this is a against b as they are.
 * Fills c->t with the tie blocks' sizes and returns their number; *@u2:
 * 2U of a; *@w2: the sum of floor(t^2 / 4) over the blocks (the most 2U
 * can move when every tie is split), *@wm: the sum of ta tb over the
 * blocks that tie ta of a with tb of b (the most 2U can move when those
 * are split into a's and b's, mwu_accepts()); *@ties: sum t^3 - t.
 */
static size_t mwu_shape(Mwu *c, double w, bool at, long *u2, long *w2,
                        long *wm, double *ties)
{
    const double *a = c->a, *b = c->b;
    size_t i = 0, j = 0, g = 0, na = c->na, nb = c->nb;

    *u2 = *w2 = *wm = 0;
    *ties = 0;
    while (i < na || j < nb) {
        size_t ta = 0, tb = 0, tt;
        int r;

        if (i < na && j < nb) {
            double d = b[j] - a[i];

            r = d < w ? 1 : d > w || !at ? -1 : 0;
        } else {
            r = i < na ? -1 : 1;
        }
        if (r <= 0) {
            for (ta = 1; i + ta < na && a[i + ta] == a[i]; ta++) {
                /* tied in a */
            }
        }
        if (r >= 0) {
            for (tb = 1; j + tb < nb && b[j + tb] == b[j]; tb++) {
                /* tied in b */
            }
        }
        *u2 += (long)ta * (long)(2 * j + tb);
        *wm += (long)(ta * tb);
        i += ta;
        j += tb;
        tt = ta + tb;
        c->t[g++] = tt;
        *w2 += (long)(tt * tt / 4);
        *ties += (double)tt * tt * tt - tt;
    }
    return g;
}

static uint64_t mwu_key(const unsigned *t, size_t g)
{
    uint64_t key = 0xcbf29ce484222325ULL ^ g;     /* FNV-1a */
    size_t i;

    for (i = 0; i < g; i++) {
        key = (key ^ t[i]) * 0x100000001b3ULL;
    }
    return key;
}

/* The entry of shape @t (@g blocks) of key @key, NULL if none */
static MwuShape *mwu_find(Mwu *c, const unsigned *t, size_t g, uint64_t key)
{
    size_t i;

    for (i = 0; i < c->len; i++) {
        MwuShape *e = &c->e[i];

        if (e->key == key && e->g == g &&
            !memcmp(e->t, t, g * sizeof(*t))) {
            return e;
        }
    }
    return NULL;
}

/* The entry of shape @t (@g blocks), made (nothing counted) if new */
static MwuShape *mwu_entry(Mwu *c, const unsigned *t, size_t g)
{
    uint64_t key = mwu_key(t, g);
    MwuShape *e = mwu_find(c, t, g, key);
    size_t i;

    if (e) {
        return e;
    }
    if (c->len == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->e = realloc(c->e, c->cap * sizeof(*c->e));
    }
    e = &c->e[c->len++];
    memset(e, 0, sizeof(*e));
    e->key = key;
    e->g = g;
    e->t = malloc((g ? g : 1) * sizeof(*t));
    memcpy(e->t, t, g * sizeof(*t));
    e->palindrome = true;
    for (i = 0; i < g / 2 && e->palindrome; i++) {
        e->palindrome = t[i] == t[g - 1 - i];
    }
    e->xf = e->xr = -1;
    return e;
}

/* @e's distribution counted at least up to @x, from either end */
static void mwu_cover(Mwu *c, MwuShape *e, long x)
{
    if (e->xf < x) {
        free(e->fwd);
        e->fwd = mwu_cum(e->t, e->g, c->k, c->m, x, false);
        e->xf = x;
    }
    if (e->palindrome) {
        e->rev = e->fwd;
        e->xr = e->xf;
    } else if (e->xr < x) {
        free(e->rev);
        e->rev = mwu_cum(e->t, e->g, c->k, c->m, x, true);
        e->xr = x;
    }
}

/*
 * The exact two-sided p of the counted group's 2U = @obs2 under shape
 * @t: P(|2U - km| >= |obs2 - km|), each tail counted from its own end
 * (so tiny p-values keep their precision, and a shape's p is the same
 * number whichever scan or test asks for it), capped at 1.
 */
static double mwu_exact_p(Mwu *c, const unsigned *t, size_t g, long obs2)
{
    long km = (long)(c->k * c->m), dev = labs(obs2 - km), x = km - dev;
    MwuShape *e;
    double p;

    if (!dev) {
        return 1;
    }
    e = mwu_entry(c, t, g);
    mwu_cover(c, e, x);
    p = (e->fwd[x] + e->rev[x]) / c->total;
    return p > 1 ? 1 : p;
}

/* The same p from @e counted (at least) that far */
static double mwu_entry_p(const Mwu *c, const MwuShape *e, long obs2)
{
    long km = (long)(c->k * c->m), dev = labs(obs2 - km), x = km - dev;
    double p;

    if (!dev) {
        return 1;
    }
    p = (e->fwd[x] + e->rev[x]) / c->total;
    return p > 1 ? 1 : p;
}

/* The normal approximation, tie- and continuity-corrected, past the limit */
static double mwu_normal_p(const Mwu *c, long u2a, double ties)
{
    double n = c->na + c->nb, mu = c->na * (double)c->nb / 2;
    double var = c->na * (double)c->nb / 12 * ((n + 1) - ties / (n * (n - 1)));
    double z;

    if (var <= 0) {
        return 1;
    }
    z = (fabs(u2a / 2.0 - mu) - 0.5) / sqrt(var);
    return z <= 0 ? 1 : erfc(z / sqrt(2));
}

/* The counted group's 2U from a's */
static long mwu_counted(const Mwu *c, long u2a)
{
    return c->a_counted ? u2a : 2 * (long)(c->na * c->nb) - u2a;
}

/*
 * The p of the test of a + theta against b, theta given as to
 * mwu_shape(): the one computation behind the test and its interval.
 */
static double mwu_p_at(Mwu *c, double w, bool at, long *u2a)
{
    long w2, wm;
    double ties;
    size_t g = mwu_shape(c, w, at, u2a, &w2, &wm, &ties);

    if (!c->exact) {
        return mwu_normal_p(c, *u2a, ties);
    }
    return mwu_exact_p(c, c->t, g, mwu_counted(c, *u2a));
}

double smmulab_mann_whitney(const double *a, size_t na, const double *b,
                            size_t nb, double *u, bool *exact)
{
    Mwu c;
    long u2a;
    double p;

    if (u) {
        *u = NAN;
    }
    if (exact) {
        *exact = true;
    }
    if (!na || !nb) {
        return 1;
    }
    mwu_init(&c, a, na, b, nb);
    p = mwu_p_at(&c, 0, true, &u2a);
    if (u) {
        *u = u2a / 2.0;
    }
    if (exact) {
        *exact = c.exact;
    }
    mwu_free(&c);
    return p;
}

double smmulab_mann_whitney_min_p(size_t na, size_t nb)
{
    double p;

    if (!na || !nb) {
        return 1;
    }
    p = 2 / choose(na + nb, na);
    return p > 1 ? 1 : p;
}

double smmulab_mann_whitney_min_p_data(const double *a, size_t na,
                                       const double *b, size_t nb)
{
    Mwu c;
    long u2a, w2, wm, lo = 0, hi, km, dev;
    double ties, p;
    size_t g, i, below = 0;

    if (!na || !nb) {
        return 1;
    }
    mwu_init(&c, a, na, b, nb);
    g = mwu_shape(&c, 0, true, &u2a, &w2, &wm, &ties);
    km = (long)(c.k * c.m);
    /*
     * The most extreme choices of the counted k: the k lowest values
     * (2U = x (t - x) from the block the k-th falls in, x of its t
     * counted) or the k highest
     */
    for (i = 0; i < g; below += c.t[i++]) {
        if (below + c.t[i] >= c.k) {
            lo = (long)(c.k - below) * (long)(below + c.t[i] - c.k);
            break;
        }
    }
    below = 0;
    for (i = g; i-- > 0; below += c.t[i]) {
        if (below + c.t[i] >= c.k) {
            break;
        }
    }
    hi = 2 * km - (long)(c.k - below) * (long)(below + c.t[i] - c.k);
    dev = km - lo > hi - km ? km - lo : hi - km;
    if (c.exact) {
        p = mwu_exact_p(&c, c.t, g, km - dev);
    } else {
        /* the normal approximation at that U, a's or b's alike */
        p = mwu_normal_p(&c, c.a_counted ? km - dev :
                         2 * (long)(c.na * c.nb) - (km - dev), ties);
    }
    mwu_free(&c);
    return p;
}

/*
 * The largest K with 2 P(U <= K - 1) < alpha, U the Mann-Whitney
 * statistic of na + nb values without ties (0 when even U = 0 is not
 * significant), and 2 P(U <= K - 1) in *@tail, from the normal
 * approximation with continuity correction (the test's past its limit)
 */
static size_t mwu_critical_normal(size_t na, size_t nb, double alpha,
                                  double *tail)
{
    double mu = na * (double)nb / 2;
    double sd = sqrt(na * (double)nb * (na + nb + 1) / 12.0);
    size_t K = 0;

    *tail = 0;
    while (K < na * nb / 2 &&
           smmulab_significant(erfc((mu - K - 0.5) / sd / sqrt(2)), alpha)) {
        *tail = erfc((mu - K - 0.5) / sd / sqrt(2));
        K++;
    }
    return K;
}

/*
 * The same, exact, for every (i, j) up to (@na, @nb) at once (sizes the
 * test counts exactly): the counts of U by the recurrence N(u; i, j) =
 * N(u - j; i - 1, j) + N(u; i, j - 1) (the largest value is a's, above
 * all j of b's, or b's), a row of i at a time, u only up to @cap (a cell
 * up to it needs none above it).  @K_diag (if not NULL) gets K at (n,
 * n), n = 0..min(na, nb); *@K and *@tail K at (na, nb) and 2 P(U <= K -
 * 1).  False where the cap fell short of a K.  The test's p for untied
 * data, compared with alpha by smmulab_significant().
 */
static bool mwu_critical_counts(size_t na, size_t nb, double alpha,
                                size_t cap, size_t *K_diag, size_t *K,
                                double *tail)
{
    size_t i, j, width = 0, *off;
    double *prev, *cur;
    bool enough = true;

    /* row i: N(u; i, j) at off[j] + u, u = 0..min(i j, cap) */
    off = malloc((nb + 1) * sizeof(*off));
    for (j = 0; j <= nb; j++) {
        off[j] = width;
        width += (na * j < cap ? na * j : cap) + 1;
    }
    prev = calloc(width, sizeof(*prev));
    cur = calloc(width, sizeof(*cur));
    for (i = 0; i <= na; i++) {
        for (j = 0; j <= nb; j++) {
            double *c = cur + off[j];
            size_t u, top = i * j < cap ? i * j : cap;

            if (!i || !j) {
                c[0] = 1;
            } else {
                const double *up = prev + off[j];
                size_t lt = i * (j - 1) < cap ? i * (j - 1) : cap;

                memcpy(c, cur + off[j - 1], (lt + 1) * sizeof(*c));
                for (u = lt + 1; u <= top; u++) {
                    c[u] = 0;
                }
                if (top >= j) {
                    row_add(c + j, up, top - j + 1);
                }
            }
            if ((K_diag && i == j) || (i == na && j == nb)) {
                double total = choose(i + j, i), cum = 0, t = 0;
                size_t k = 0;

                /* grow k while 2 P(U <= k) stays below alpha */
                while (i && j && k <= top) {
                    double next = cum + c[k];

                    if (!smmulab_significant(2 * next / total, alpha)) {
                        break;
                    }
                    cum = next;
                    t = 2 * cum / total;
                    k++;
                }
                enough &= k <= top || top == i * j;
                if (K_diag && i == j) {
                    K_diag[i] = k;
                }
                if (i == na && j == nb) {
                    *K = k;
                    *tail = t;
                }
            }
        }
        {
            double *sw = prev;

            prev = cur;
            cur = sw;
        }
    }
    free(prev);
    free(cur);
    free(off);
    return enough;
}

/*
 * mwu_critical_counts() with u capped at 1 standard deviation below the
 * mean (p = 0.3 there, far above any alpha: about a third of the work),
 * or, where that falls short, uncapped
 */
static void mwu_critical_walk(size_t na, size_t nb, double alpha,
                              size_t *K_diag, size_t *K, double *tail)
{
    double mu = na * (double)nb / 2;
    double sd = sqrt(na * (double)nb * (na + nb + 1) / 12.0);
    size_t cap = mu > sd ? (size_t)(mu - sd) : 0;

    if (!mwu_critical_counts(na, nb, alpha, cap, K_diag, K, tail)) {
        mwu_critical_counts(na, nb, alpha, na * nb, K_diag, K, tail);
    }
}

static size_t mwu_critical(size_t na, size_t nb, double alpha, double *tail)
{
    size_t K;

    if (!na || !nb) {
        *tail = 0;
        return 0;
    }
    if (!mwu_exact_sizes(na, nb)) {
        return mwu_critical_normal(na, nb, alpha, tail);
    }
    mwu_critical_walk(na, nb, alpha, NULL, &K, tail);
    return K;
}

/*
 * The untied shape's counts, *@ref (made on first use), up to at least
 * @x; counted anew (the cells already counted come out the same) at
 * least up to where a normal approximation puts the tail of p = 0.13,
 * beyond the ends of any 95 % interval, so that a scan seldom counts it
 * twice.  The entry is found again by its index: c->e may move.
 */
static MwuShape *mwu_untied_cover(Mwu *c, size_t *ref, long x)
{
    long km = (long)(c->k * c->m), guess;
    size_t i, n = c->na + c->nb;
    /* 2U's standard deviation, untied */
    double sd = 2 * sqrt(c->k * (double)c->m * (n + 1) / 12);

    if (*ref == SIZE_MAX) {
        unsigned *t = malloc(n * sizeof(*t));

        for (i = 0; i < n; i++) {
            t[i] = 1;
        }
        *ref = mwu_entry(c, t, n) - c->e;
        free(t);
    }
    if (c->e[*ref].xf < x) {
        guess = km - (long)(1.5 * sd);
        mwu_cover(c, &c->e[*ref], x > guess ? x : guess);
    }
    return &c->e[*ref];
}

/* Where a scan stands: what it counted, and what it can lean on */
typedef struct MwuScan {
    size_t ref;     /* the untied shape's entry (SIZE_MAX until needed) */
    size_t last;    /* the shape last counted (SIZE_MAX: none yet) */
    long drift;     /* the most 2U can have moved since, choice for choice */
    long wm_prev;   /* the previous candidate's *wm (mwu_shape()) */
} MwuScan;

/*
 * 2U's tails under a shape @e counted up to @x + @w at least, @w further
 * out and in than @x = km - dev: *@up and *@low bound the p of a shape
 * whose 2U lies within @w of @e's for every choice
 */
static void mwu_bounds(const Mwu *c, const MwuShape *e, long x, long w,
                       double *up, double *low)
{
    long top = 2 * (long)(c->k * c->m);
    long xu = x + w < top ? x + w : top, xl = x - w;

    *up = (e->fwd[xu] + e->rev[xu]) / c->total;
    *low = xl < 0 ? 0 : (e->fwd[xl] + e->rev[xl]) / c->total;
}

/*
 * Whether the test of a + theta against b, theta given by (@w, @at), is
 * not significant: the candidates of @s's scan, one after the other.
 * Counting a shape's distribution costs a dynamic programme; most
 * candidates are decided by bounds instead, from a shape already counted
 * whose 2U, choice for choice (the same values counted), lies within a
 * known distance of this one's:
 *  - the shape counted last, @s->drift away: a step from one candidate
 *    to the next ties (or unties) ta of a with tb of b in each block that
 *    mixes them, which moves 2U by at most ta tb there (the @wm of the
 *    candidate at the difference);
 *  - the untied shape, counted once: splitting every block of t ties
 *    moves 2U by at most floor(t^2 / 4), @w2 in all.
 * Each tail then lies between the counted one that far in and that far
 * out; only where those bounds fall on either side of alpha is the shape
 * itself counted (a little further than it needs, for the bounds of the
 * candidates after it).  The bounds are used only clear of alpha by far
 * more than the rounding of either count.
 */
static bool mwu_accepts(Mwu *c, MwuScan *s, double w, bool at, double alpha)
{
    long u2a, w2, wm, km = (long)(c->k * c->m), obs2, dev, x, slack;
    double ties, thr = alpha * (1 - 1e-9), up, low, p;
    size_t g = mwu_shape(c, w, at, &u2a, &w2, &wm, &ties);
    /* 2U's standard deviation without ties */
    double sd2 = 2 * sqrt(c->k * (double)c->m * (c->na + c->nb + 1) / 12);
    MwuShape *e;

    if (!c->exact) {
        return !smmulab_significant(mwu_normal_p(c, u2a, ties), alpha);
    }
    s->drift += at ? wm : s->wm_prev;
    s->wm_prev = wm;
    obs2 = mwu_counted(c, u2a);
    dev = labs(obs2 - km);
    x = km - dev;
    if (!dev) {
        return true;
    }
    /* a shape met before (without ties between a and b, the same at every
       stretch between two differences while only singletons swap) */
    e = mwu_find(c, c->t, g, mwu_key(c->t, g));
    if (e && e->xf >= x && e->xr >= x) {
        s->last = e - c->e;
        s->drift = 0;
        return !smmulab_significant(mwu_entry_p(c, e, obs2), alpha);
    }
    if (s->last != SIZE_MAX) {
        e = &c->e[s->last];
        if (e->xf >= x + s->drift && e->xr >= x + s->drift) {
            mwu_bounds(c, e, x, s->drift, &up, &low);
            if (up < thr * (1 - 1e-12)) {
                return false;
            }
            if (low > thr * (1 + 1e-12)) {
                return true;
            }
        }
    }
    if (w2 > 0 && w2 < sd2) {
        e = mwu_untied_cover(c, &s->ref, x + w2);
        mwu_bounds(c, e, x, w2, &up, &low);
        if (up < thr * (1 - 1e-12)) {
            return false;
        }
        if (low > thr * (1 + 1e-12)) {
            return true;
        }
    }
    if (w2 > 0) {
        /* further than it needs: candidates further in meet it again */
        slack = 16 + (long)(sd2 / 8) + (2 * w2 < sd2 / 4 ? 2 * w2 : sd2 / 4);
        e = mwu_entry(c, c->t, g);
        mwu_cover(c, e, x + slack < 2 * km ? x + slack : 2 * km);
    } else {
        e = mwu_untied_cover(c, &s->ref, x);
    }
    p = mwu_entry_p(c, e, obs2);
    s->last = e - c->e;
    s->drift = 0;
    return !smmulab_significant(p, alpha);
}

/*
 * 2 P(U <= K - 1), K the largest with that below alpha, U without ties:
 * the exact level of the classical interval, from the counts the scan
 * used (the normal approximation past the exact limit)
 */
static double mwu_untied_tail(Mwu *c, MwuScan *s, double alpha)
{
    long u, km = (long)(c->k * c->m);
    double tail = 0;

    if (!c->exact) {
        mwu_critical(c->na, c->nb, alpha, &tail);
        return tail;
    }
    for (u = 0; 2 * u <= km; u++) {
        const double *f = mwu_untied_cover(c, &s->ref, 2 * u)->fwd;
        double p = 2 * f[2 * u] / c->total;

        if (!smmulab_significant(p, alpha)) {
            break;
        }
        tail = p;
    }
    return tail;
}

/* Candidate @i (0..2q) of the scan over the @q distinct differences @w */
static void mwu_candidate(const double *w, size_t q, size_t i, double *wv,
                          bool *at)
{
    *at = i % 2;
    *wv = i == 2 * q ? INFINITY : w[i / 2];
}

/* Whether sorted @a and @b share a value */
static bool sorted_common(const double *a, size_t na, const double *b,
                          size_t nb)
{
    size_t i = 0, j = 0;

    while (i < na && j < nb) {
        if (a[i] == b[j]) {
            return true;
        }
        a[i] < b[j] ? i++ : j++;
    }
    return false;
}

/* Whether a value of @x (@n, sorted) repeats */
static bool sorted_repeats(const double *x, size_t n)
{
    size_t i;

    for (i = 1; i < n; i++) {
        if (x[i] == x[i - 1]) {
            return true;
        }
    }
    return false;
}

double smmulab_hodges_lehmann_open(const double *a, size_t na,
                                   const double *b, size_t nb, double alpha,
                                   double *lo, double *hi, double *level,
                                   bool open[2])
{
    size_t m = na * nb, i, j, q = 0, cl, ch = 0;
    double *d, shift, wv;
    MwuScan s = { SIZE_MAX, SIZE_MAX, 0, 0 };
    bool at;
    Mwu c;

    *lo = *hi = NAN;
    *level = 0;
    open[0] = open[1] = false;
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
    /* The distinct differences: where the test's p can change */
    for (i = 0; i < m; i++) {
        if (!q || d[i] != d[q - 1]) {
            d[q++] = d[i];
        }
    }
    mwu_init(&c, a, na, b, nb);
    /*
     * Scan in from each end to the first candidate at which the test is
     * not significant: the interval spans from the difference at or
     * below the first to the one at or above the last.
     */
    for (cl = 0; cl <= 2 * q; cl++) {
        mwu_candidate(d, q, cl, &wv, &at);
        if (mwu_accepts(&c, &s, wv, at, alpha)) {
            break;
        }
    }
    if (cl <= 2 * q) {
        s.last = SIZE_MAX;
        s.drift = s.wm_prev = 0;
        for (ch = 2 * q; ch > cl; ch--) {
            mwu_candidate(d, q, ch, &wv, &at);
            if (mwu_accepts(&c, &s, wv, at, alpha)) {
                break;
            }
        }
    }
    /*
     * Not significant beyond either end: no bounded interval (and without
     * ties, no outcome at this n is significant).  Beyond one end only
     * (ties: the smallest p is not at the extremes): that end infinite.
     */
    if (cl <= 2 * q && (cl > 0 || ch < 2 * q)) {
        /* An end the test at its difference rejects is open */
        *lo = cl == 0 ? -INFINITY : cl % 2 ? d[cl / 2] :
              nextafter(d[cl / 2 - 1], INFINITY);
        *hi = ch == 2 * q ? INFINITY : ch % 2 ? d[ch / 2] :
              nextafter(d[ch / 2], -INFINITY);
        open[0] = cl > 0 && cl % 2 == 0;
        open[1] = ch < 2 * q && ch % 2 == 0;
        if (sorted_repeats(c.a, na) || sorted_repeats(c.b, nb) ||
            sorted_common(c.a, na, c.b, nb)) {
            *level = 1 - alpha;
        } else {
            *level = 1 - mwu_untied_tail(&c, &s, alpha);
        }
    }
    mwu_free(&c);
    free(d);
    return shift;
}

double smmulab_hodges_lehmann(const double *a, size_t na, const double *b,
                              size_t nb, double alpha, double *lo,
                              double *hi, double *level)
{
    bool open[2];

    return smmulab_hodges_lehmann_open(a, na, b, nb, alpha, lo, hi, level,
                                       open);
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

double smmulab_hodges_lehmann_paired_open(const double *d, size_t n,
                                          double alpha, double *lo,
                                          double *hi, double *level,
                                          bool open[2])
{
    size_t M = n * (n + 1) / 2, q = 0, i, j, k = 0, cl, ch;
    WsrCache cache = { 0 };
    double *w, shift, tail;
    long *score;

    *lo = *hi = NAN;
    *level = 0;
    open[0] = open[1] = false;
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
            open[0] = cl % 2 == 0;
            open[1] = ch % 2 == 0;
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

double smmulab_hodges_lehmann_paired(const double *d, size_t n, double alpha,
                                     double *lo, double *hi, double *level)
{
    bool open[2];

    return smmulab_hodges_lehmann_paired_open(d, n, alpha, lo, hi, level,
                                              open);
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

/*
 * The outcomes (ka, kb) Fisher's test calls significant, row-major: the
 * p of smmulab_fisher_exact() to the bit (the same terms summed in the
 * same order), each margin's table probabilities computed once
 */
static unsigned char *fisher_region(unsigned na, unsigned nb, double alpha)
{
    unsigned char *rej = malloc((size_t)(na + 1) * (nb + 1));
    double *px = malloc((na + 1) * sizeof(*px));
    unsigned k, n = na + nb, lo, hi, x, y;

    for (k = 0; k <= n; k++) {
        lo = k > nb ? k - nb : 0;
        hi = k < na ? k : na;
        for (x = lo; x <= hi; x++) {
            px[x] = exp(log_choose(na, x) + log_choose(nb, k - x) -
                        log_choose(n, k));
        }
        for (x = lo; x <= hi; x++) {
            double p = 0;

            for (y = lo; y <= hi; y++) {
                if (px[y] <= px[x] * (1 + 1e-7)) {
                    p += px[y];
                }
            }
            rej[x * (nb + 1) + (k - x)] =
                smmulab_significant(p > 1 ? 1 : p, alpha);
        }
    }
    free(px);
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
    unsigned n, found = 0;

    if (fabs(ra - rb) < 1e-12) {
        return 0;
    }
    /*
     * Down from max while the power holds: an exact test's power is not
     * monotone in n (2/7 against 0/7: 83 % at 23, 76 % at 25), and the
     * n a rerun needs is the one from which it stays
     */
    for (n = max; n >= 2; n--) {
        if (smmulab_fisher_power(n, ra, n, rb, alpha) < power) {
            break;
        }
        found = n;
    }
    return found;
}

/* P(a, x), the regularized lower incomplete gamma function */
static double gamma_p(double a, double x)
{
    double sum, term, b, c, d, h, an;
    int i;

    if (x <= 0) {
        return 0;
    }
    if (x < a + 1) {
        /* its series */
        sum = term = 1 / a;
        for (i = 1; i < 1000 && fabs(term) > fabs(sum) * 1e-15; i++) {
            term *= x / (a + i);
            sum += term;
        }
        return sum * exp(-x + a * log(x) - lgamma(a));
    }
    /* 1 - Q(a, x), Q by its continued fraction (Lentz) */
    b = x + 1 - a;
    c = 1 / 1e-300;
    d = 1 / b;
    h = d;
    for (i = 1; i < 1000; i++) {
        an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = fabs(d) < 1e-300 ? 1e-300 : d;
        c = b + an / c;
        c = fabs(c) < 1e-300 ? 1e-300 : c;
        d = 1 / d;
        h *= d * c;
        if (fabs(d * c - 1) < 1e-15) {
            break;
        }
    }
    return 1 - exp(-x + a * log(x) - lgamma(a)) * h;
}

/* The @q quantile of the chi-square distribution with @df degrees */
static double chi2_quantile(double q, unsigned df)
{
    double lo = 0, hi = df + 100.0 * sqrt(df) + 100;
    int i;

    for (i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;

        if (gamma_p(df / 2.0, mid / 2) < q) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return (lo + hi) / 2;
}

void smmulab_sd_range(unsigned df, double conf, double *lo, double *hi)
{
    if (!df) {
        *lo = *hi = NAN;
        return;
    }
    *lo = sqrt(df / chi2_quantile(1 - (1 - conf) / 2, df));
    *hi = sqrt(df / chi2_quantile((1 - conf) / 2, df));
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

double smmulab_power_se(double power)
{
    return sqrt(power * (1 - power) / SMMULAB_POWER_DRAWS);
}

/*
 * Draw @sim of the Mann-Whitney power figures: a's and b's normals from
 * seeds of their own, so that a draw of na + nb is the start of a longer
 * one (the power at every n is the same whichever function asks).
 */
static void mwu_draw(double *x, size_t na, double *y, size_t nb, size_t sim)
{
    uint64_t sx = smmulab_repeat_seed(0x3a11e5eed0aULL, (unsigned)sim);
    uint64_t sy = smmulab_repeat_seed(0x3a11e5eed0bULL, (unsigned)sim);

    normals(x, na, &sx);
    normals(y, nb, &sy);
}

/*
 * U of @x against @y + @delta (pairs x_i > y_j + delta), both sorted
 * ascending and without ties (normal draws): a merge
 */
static size_t u_merge(const double *x, size_t na, const double *y, size_t nb,
                      double delta)
{
    size_t i = 0, j = 0, u = 0;

    /* without branches on the data: a step takes the next y or x */
    while (i < na && j < nb) {
        size_t take_y = y[j] + delta < x[i];

        u += (take_y - 1) & j;
        i += !take_y;
        j += take_y;
    }
    return u + (na - i) * nb;
}

/* Heapsort of @n doubles: qsort() with its calls costs more here */
static void sort_doubles(double *x, size_t n)
{
    size_t i, end, root, child;
    double t;

    for (i = n / 2; i-- > 0;) {
        for (root = i; (child = 2 * root + 1) < n; root = child) {
            child += child + 1 < n && x[child + 1] > x[child];
            if (x[root] >= x[child]) {
                break;
            }
            t = x[root];
            x[root] = x[child];
            x[child] = t;
        }
    }
    for (end = n; end-- > 1;) {
        t = x[0];
        x[0] = x[end];
        x[end] = t;
        for (root = 0; (child = 2 * root + 1) < end; root = child) {
            child += child + 1 < end && x[child + 1] > x[child];
            if (x[root] >= x[child]) {
                break;
            }
            t = x[root];
            x[root] = x[child];
            x[child] = t;
        }
    }
}

/* Every draw of na + nb, each sample sorted (a shift keeps the order) */
typedef struct MwuDraws {
    size_t na, nb;
    double *x, *y;
} MwuDraws;

static void mwu_draws(MwuDraws *d, size_t na, size_t nb)
{
    size_t sim;

    d->na = na;
    d->nb = nb;
    d->x = malloc(MWU_POWER_SIMS * na * sizeof(*d->x));
    d->y = malloc(MWU_POWER_SIMS * nb * sizeof(*d->y));
    for (sim = 0; sim < MWU_POWER_SIMS; sim++) {
        double *x = d->x + sim * na, *y = d->y + sim * nb;

        mwu_draw(x, na, y, nb, sim);
        sort_doubles(x, na);
        sort_doubles(y, nb);
    }
}

/* Simulated power: the share of draws with U in the rejection region */
static double mwu_power_draws(const MwuDraws *d, double delta, size_t K)
{
    size_t sim, hits = 0, nn = d->na * d->nb;

    for (sim = 0; sim < MWU_POWER_SIMS; sim++) {
        size_t u = u_merge(d->x + sim * d->na, d->na, d->y + sim * d->nb,
                           d->nb, delta);

        hits += u + 1 <= K || u >= nn + 1 - K;
    }
    return (double)hits / MWU_POWER_SIMS;
}

double smmulab_mwu_power(size_t na, size_t nb, double delta, double alpha)
{
    double tail, pw;
    size_t K = mwu_critical(na, nb, alpha, &tail);
    MwuDraws d;

    if (!K) {
        return 0;
    }
    mwu_draws(&d, na, nb);
    pw = mwu_power_draws(&d, delta, K);
    free(d.x);
    free(d.y);
    return pw;
}

double smmulab_mwu_detectable(size_t na, size_t nb, double alpha,
                              double power)
{
    double tail, lo = 0, hi = 16;
    size_t K = mwu_critical(na, nb, alpha, &tail);
    MwuDraws d;
    int it;

    if (!K) {
        return NAN;
    }
    mwu_draws(&d, na, nb);
    if (mwu_power_draws(&d, hi, K) >= power) {
        /*
         * With the draws fixed, the upper tail's rejections only grow with
         * delta; the lower tail's shrink, but they are a few of alpha / 2
         * at most, far below any power asked for: bisect.
         */
        for (it = 0; it < 30; it++) {
            double mid = (lo + hi) / 2;

            if (mwu_power_draws(&d, mid, K) >= power) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
    } else {
        hi = NAN;
    }
    free(d.x);
    free(d.y);
    return hi;
}

unsigned smmulab_mwu_n_needed(double delta, double alpha, double power,
                              unsigned max)
{
    size_t *K, *hits, sim, n, i, Kmax, n0;
    double *x, *y, tail;
    unsigned found = 0;

    delta = fabs(delta);
    if (isnan(delta) || delta == 0 || !max) {
        return 0;
    }
    K = malloc((max + 1) * sizeof(*K));
    hits = calloc(max + 1, sizeof(*hits));
    x = malloc(max * sizeof(*x));
    y = malloc(max * sizeof(*y));
    /* exact up to the test's limit, the normal approximation beyond */
    for (n0 = max; n0 > 0 && !mwu_exact_sizes(n0, n0); n0--) {
        K[n0] = mwu_critical_normal(n0, n0, alpha, &tail);
    }
    K[0] = 0;
    if (n0) {
        mwu_critical_walk(n0, n0, alpha, K, &Kmax, &tail);
    }
    /*
     * Each draw's U at every n + n at once, adding one value to each
     * sample at a time: the n-th pair of values adds its pairs with the
     * values before and with each other.  The same draws, and U, as
     * smmulab_mwu_power() at each n + n.
     */
    for (sim = 0; sim < MWU_POWER_SIMS; sim++) {
        size_t u = 0;

        mwu_draw(x, max, y, max, sim);
        for (n = 1; n <= max; n++) {
            double xn = x[n - 1], yn = y[n - 1] + delta;

            for (i = 0; i + 1 < n; i++) {
                u += y[i] + delta < xn;
                u += yn < x[i];
            }
            u += yn < xn;
            hits[n] += K[n] && (u + 1 <= K[n] || u >= n * n + 1 - K[n]);
        }
    }
    /* Down from max while the power holds */
    for (n = max; n >= 1 && (double)hits[n] / MWU_POWER_SIMS >= power; n--) {
        found = n;
    }
    free(x);
    free(y);
    free(hits);
    free(K);
    return found;
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
