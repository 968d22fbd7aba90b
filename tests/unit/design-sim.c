/*
 * smmulab: which A/B design should be the default, paired or independent?
 *
 * Repeat r of every variant boots with the same seed, so under icount A's
 * run r and B's run r are a pair, correlated by whatever the seed decides
 * in both.  This program simulates, for n = 6 pairs (the main job's
 * repeat), 10 and 20, and a within-pair correlation rho from -0.9 to 0.9:
 *
 *   (a) the paired design, analysed as pairs: the exact signed-rank test
 *       of B - A (smmulab_wilcoxon_signed_rank);
 *   (b) the paired design analysed as if independent, as the runner does
 *       today: Mann-Whitney of A against B (smmulab_mann_whitney);
 *   (c) the independent design (a seed per variant and repeat, so rho = 0
 *       by construction), Mann-Whitney.
 *
 * for normal values (bivariate normal) and zero-inflated ones (0 with
 * probability 1/2, else lognormal; the pair's correlation through a shared
 * latent normal, a Gaussian copula), and reports the false-positive rate
 * at no shift and the power at a shift of B by 1 and 2 standard deviations
 * of one run's value, two-sided at 0.05, with Monte Carlo standard errors.
 * Then the event endpoint (a lockup in a run, yes or no): McNemar's test of
 * paired outcomes against Fisher's of independent ones (and of paired
 * outcomes taken as independent), exactly, every outcome enumerated, the
 * pair's correlation again through a latent normal.
 *
 * Not a test: build with meson (design-sim) or
 *   gcc -O2 -Irunner tests/unit/design-sim.c runner/abtest.c \
 *       $(pkg-config --cflags --libs glib-2.0) -lm -o design-sim
 * and run as  ./design-sim [draws]  (default 20000 per cell; seconds).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abtest.h"

#define ALPHA SMMULAB_ALPHA
#define NMAX 20

static const double rhos[] = { -0.9, -0.5, 0, 0.3, 0.5, 0.64, 0.9 };
static const size_t sizes[] = { 6, 10, 20 };
static const double shifts[] = { 0, 1, 2 };

/* xorshift64* seeded by splitmix64: a fixed, portable stream per cell */
typedef struct Rng {
    uint64_t s;
    bool have;
    double spare;
} Rng;

static void rng_init(Rng *r, uint64_t seed)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    r->s = (z ^ (z >> 31)) | 1;
    r->have = false;
}

static double uniform01(Rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (((r->s * 0x2545F4914F6CDD1DULL) >> 11) + 0.5) *
           (1.0 / 9007199254740992.0);
}

/* A standard normal (Box-Muller, both values used) */
static double normal(Rng *r)
{
    double u, t;

    if (r->have) {
        r->have = false;
        return r->spare;
    }
    u = sqrt(-2 * log(uniform01(r)));
    t = 2 * M_PI * uniform01(r);
    r->spare = u * sin(t);
    r->have = true;
    return u * cos(t);
}

static double phi_cdf(double x)
{
    return erfc(-x / sqrt(2)) / 2;
}

/* The inverse of phi_cdf: Acklam's approximation, one Halley step */
static double phi_inv(double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549732539343734e+00,
                                4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
                                2.445134137142996e+00, 3.754408661907416e+00 };
    double q, r, x, e, u;

    if (p <= 0) {
        return -INFINITY;
    }
    if (p >= 1) {
        return INFINITY;
    }
    if (p < 0.02425 || p > 1 - 0.02425) {
        q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
             c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        x = p < 0.5 ? x : -x;
    } else {
        q = p - 0.5;
        r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r +
             a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r +
                           b[4]) * r + 1);
    }
    e = phi_cdf(x) - p;
    u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/*
 * Zero-inflated value of a latent standard normal z: 0 when z < 0 (prob.
 * 1/2), else the lognormal quantile of where z lies in its upper half, so
 * that the value is exp(N(0, 1)) given it is not 0 and monotone in z.
 */
static double zero_inflated(double z)
{
    return z < 0 ? 0 : exp(phi_inv(erf(z / sqrt(2))));
}

/* Its standard deviation: E X = e^(1/2) / 2, E X^2 = e^2 / 2 */
static double zero_inflated_sd(void)
{
    double m = exp(0.5) / 2;

    return sqrt(exp(2) / 2 - m * m);
}

/*
 * The Mann-Whitney p of smmulab_mann_whitney(), with the rank-sum
 * distribution of each tie structure counted once: the simulation meets
 * the same structures again and again.  Checked against
 * smmulab_mann_whitney() on the first draws of every cell.
 */
static GHashTable *mwu_cache;

typedef struct MwuDist {
    long width;
    double *cnt, total;
} MwuDist;

static void mwu_dist_free(gpointer p)
{
    MwuDist *m = p;

    g_free(m->cnt);
    g_free(m);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;

    return x < y ? -1 : x > y;
}

typedef struct Val {
    double v;
    int i;
} Val;

static int cmp_val(const void *a, const void *b)
{
    double x = ((const Val *)a)->v, y = ((const Val *)b)->v;

    return x < y ? -1 : x > y;
}

static double mwu_p(const double *a, const double *b, size_t n)
{
    size_t N = 2 * n, i, j, k;
    long rank[2 * NMAX], sorted[2 * NMAX], obs = 0, sum = 0, s, tot = 0;
    long mean2 = (long)n * (long)(N + 1), dev;
    Val v[2 * NMAX];
    GBytes *key;
    MwuDist *dist;
    double hit = 0;

    for (i = 0; i < N; i++) {
        v[i].v = i < n ? a[i] : b[i - n];
        v[i].i = i;
    }
    qsort(v, N, sizeof(*v), cmp_val);
    for (i = 0; i < N; i = j) {
        for (j = i + 1; j < N && v[j].v == v[i].v; j++) {
            /* tied */
        }
        for (k = i; k < j; k++) {
            rank[v[k].i] = (long)(i + 1 + j);
        }
    }
    for (i = 0; i < n; i++) {
        obs += rank[i];
    }
    memcpy(sorted, rank, N * sizeof(*rank));
    qsort(sorted, N, sizeof(*sorted), cmp_long);
    key = g_bytes_new(sorted, N * sizeof(*sorted));
    dist = g_hash_table_lookup(mwu_cache, key);
    if (!dist) {
        /* ways to pick n of the N scores, by their sum (exact below 2^53) */
        double *f;

        for (i = 0; i < N; i++) {
            sum += sorted[i];
        }
        f = g_new0(double, (n + 1) * (sum + 1));
        f[0] = 1;
        for (i = 0; i < N; i++) {
            tot += sorted[i];
            for (j = (i + 1 < n ? i + 1 : n); j >= 1; j--) {
                double *to = f + j * (sum + 1), *from = f + (j - 1) * (sum + 1);

                for (s = tot; s >= sorted[i]; s--) {
                    to[s] += from[s - sorted[i]];
                }
            }
        }
        dist = g_new0(MwuDist, 1);
        dist->width = sum;
        dist->cnt = g_memdup2(f + n * (sum + 1), (sum + 1) * sizeof(*f));
        for (s = 0; s <= sum; s++) {
            dist->total += dist->cnt[s];
        }
        g_free(f);
        g_hash_table_insert(mwu_cache, g_bytes_ref(key), dist);
    }
    g_bytes_unref(key);
    dev = labs(obs - mean2);
    for (s = 0; s <= dist->width; s++) {
        if (labs(s - mean2) >= dev) {
            hit += dist->cnt[s];
        }
    }
    return hit / dist->total > 1 ? 1 : hit / dist->total;
}

typedef struct Cell {
    long rej_sr, rej_mwu, draws;
} Cell;

/* One pair of runs: latent normals with correlation rho, then values */
static void draw_pair(Rng *r, double rho, bool zinf, double *x, double *y)
{
    double z1 = normal(r), z2 = rho * z1 + sqrt(1 - rho * rho) * normal(r);

    *x = zinf ? zero_inflated(z1) : z1;
    *y = zinf ? zero_inflated(z2) : z2;
}

static int checked;

/*
 * @draws data sets of @n pairs at correlation @rho, B shifted by @shift
 * standard deviations: rejections by the signed-rank test of B - A and by
 * Mann-Whitney of A against B
 */
static Cell run_cell(size_t n, double rho, bool zinf, double shift,
                     long draws, uint64_t seed)
{
    double a[NMAX], b[NMAX], d[NMAX], sd = zinf ? zero_inflated_sd() : 1;
    Cell c = { 0, 0, draws };
    Rng r;
    long t;
    size_t i;

    rng_init(&r, seed);
    for (t = 0; t < draws; t++) {
        double p_mwu;

        for (i = 0; i < n; i++) {
            draw_pair(&r, rho, zinf, &a[i], &b[i]);
            b[i] += shift * sd;
            d[i] = b[i] - a[i];
        }
        p_mwu = mwu_p(a, b, n);
        if (t < 40) {
            double ref = smmulab_mann_whitney(a, n, b, n, NULL, NULL);

            if (fabs(p_mwu - ref) > 1e-12 * ref) {
                fprintf(stderr, "cached Mann-Whitney %.17g != %.17g\n",
                        p_mwu, ref);
                exit(1);
            }
            checked++;
        }
        c.rej_sr += smmulab_significant(
            smmulab_wilcoxon_signed_rank(d, n, NULL, NULL, NULL), ALPHA);
        c.rej_mwu += smmulab_significant(p_mwu, ALPHA);
    }
    return c;
}

/* "  5.0 0.15": a rate and its standard error, in percent */
static void print_rate(long k, long n)
{
    double p = (double)k / n;

    printf(" %5.1f %4.2f", 100 * p, 100 * sqrt(p * (1 - p) / n));
}

/* The values' own (Pearson) correlation at latent rho, by simulation */
static double value_corr(double rho, bool zinf)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, x, y;
    const long N = 400000;
    Rng r;
    long t;

    rng_init(&r, 0xc0 + (uint64_t)(1000 * (rho + 1)));
    for (t = 0; t < N; t++) {
        draw_pair(&r, rho, zinf, &x, &y);
        sx += x;
        sy += y;
        sxx += x * x;
        syy += y * y;
        sxy += x * y;
    }
    return (sxy / N - sx / N * sy / N) /
           sqrt((sxx / N - sx / N * sx / N) * (syy / N - sy / N * sy / N));
}

static void values_table(bool zinf, long draws)
{
    double r[G_N_ELEMENTS(rhos)];
    size_t si, ri, hi;

    for (ri = 0; ri < G_N_ELEMENTS(rhos); ri++) {
        r[ri] = value_corr(rhos[ri], zinf);
    }

    printf("\n%s values.  Rejections in %% (Monte Carlo standard error), "
           "%ld draws per cell; alpha 0.05 two-sided.\n"
           "SR = paired design, signed-rank test of B - A; pMW = paired "
           "design, Mann-Whitney (today's analysis);\n"
           "iMW = independent design, Mann-Whitney (rho = 0 by "
           "construction, the same figure in every row).\n"
           "Shift of B in standard deviations of one run's value%s.\n",
           zinf ? "ZERO-INFLATED (0 w.p. 1/2, else lognormal; rho is the "
                  "latent normal's correlation, r the values')"
                : "NORMAL", draws,
           zinf ? " (sd 1.736)" : "");
    for (si = 0; si < G_N_ELEMENTS(sizes); si++) {
        size_t n = sizes[si];
        Cell ind[G_N_ELEMENTS(shifts)];

        for (hi = 0; hi < G_N_ELEMENTS(shifts); hi++) {
            /* independent design: the same runs at rho = 0 */
            ind[hi] = run_cell(n, 0, zinf, shifts[hi], draws,
                               0x1d00 + 97 * n + 7 * hi + zinf);
        }
        printf("\nn = %zu pairs (smallest p: signed-rank %.2g, Mann-Whitney "
               "%.2g)\n", n, smmulab_wilcoxon_min_p(n),
               smmulab_mann_whitney_min_p(n, n));
        printf("  rho     r |    false positives (shift 0)    |"
               "       power at 1 SD              |       power at 2 SD\n");
        printf("            |    SR        pMW        iMW     |"
               "    SR        pMW        iMW      |    SR        pMW"
               "        iMW\n");
        for (ri = 0; ri < G_N_ELEMENTS(rhos); ri++) {
            printf("%5.2f %5.2f |", rhos[ri], r[ri]);
            for (hi = 0; hi < G_N_ELEMENTS(shifts); hi++) {
                Cell c = run_cell(n, rhos[ri], zinf, shifts[hi], draws,
                                  0xab00 + 97 * n + 13 * ri + 7 * hi + zinf);

                print_rate(c.rej_sr, c.draws);
                print_rate(c.rej_mwu, c.draws);
                print_rate(ind[hi].rej_mwu, ind[hi].draws);
                printf(" |");
            }
            printf("\n");
        }
    }
}

/*
 * P(X < h, Y < k) for standard normals of correlation rho: the integral
 * of phi(x) Phi((k - rho x) / sqrt(1 - rho^2)) over x < h (Simpson)
 */
static double bvn_cdf(double h, double k, double rho)
{
    const int N = 20000;
    double lo = -12, step, sum = 0, s = sqrt(1 - rho * rho);
    int i;

    if (h <= lo) {
        return 0;
    }
    step = (h - lo) / N;
    for (i = 0; i <= N; i++) {
        double x = lo + i * step;
        double f = exp(-x * x / 2) / sqrt(2 * M_PI) *
                   phi_cdf((k - rho * x) / s);

        sum += f * (i == 0 || i == N ? 1 : i % 2 ? 4 : 2);
    }
    return sum * step / 3;
}

/*
 * Fisher's test applied to paired outcomes as if independent: every
 * outcome (n11, n10, n01, n00) of the pairs enumerated
 */
static double fisher_paired_power(unsigned n, double p11, double p10,
                                  double p01)
{
    double p00 = 1 - p11 - p10 - p01, pw = 0;
    unsigned a, b, c;

    for (a = 0; a <= n; a++) {
        for (b = 0; a + b <= n; b++) {
            for (c = 0; a + b + c <= n; c++) {
                unsigned e = n - a - b - c;
                double lp;

                if (!smmulab_significant(smmulab_fisher_exact(a + b, n, a + c,
                                                              n), ALPHA)) {
                    continue;
                }
                lp = lgamma(n + 1.0) - lgamma(a + 1.0) - lgamma(b + 1.0) -
                     lgamma(c + 1.0) - lgamma(e + 1.0);
                if ((a && p11 <= 0) || (b && p10 <= 0) || (c && p01 <= 0) ||
                    (e && p00 <= 0)) {
                    continue;
                }
                lp += (a ? a * log(p11) : 0) + (b ? b * log(p10) : 0) +
                      (c ? c * log(p01) : 0) + (e ? e * log(p00) : 0);
                pw += exp(lp);
            }
        }
    }
    return pw;
}

static void events_table(void)
{
    static const double rates[][2] = { { 0.2, 0.2 }, { 0.5, 0.5 },
                                       { 0.2, 0.7 }, { 0.1, 0.5 } };
    static const unsigned ns[] = { 6, 10, 20 };
    size_t k, ni, ri;

    printf("\nEVENT endpoint (a lockup in a run, yes/no), exact (every "
           "outcome enumerated), rejections in %%.\n"
           "McN = paired design, McNemar's exact test; pF = paired design, "
           "Fisher as if independent;\n"
           "iF = independent design, Fisher.  A pair's outcomes correlated "
           "through a latent normal of correlation rho.\n");
    for (k = 0; k < G_N_ELEMENTS(rates); k++) {
        double ra = rates[k][0], rb = rates[k][1];

        printf("\nrate A %.1f, B %.1f (%s)\n", ra, rb,
               ra == rb ? "false positives" : "power");
        printf("  rho  | P(only A) P(only B) |");
        for (ni = 0; ni < G_N_ELEMENTS(ns); ni++) {
            printf("       n = %-2u          |", ns[ni]);
        }
        printf("\n       |                     |");
        for (ni = 0; ni < G_N_ELEMENTS(ns); ni++) {
            printf("  McN    pF     iF    |");
        }
        printf("\n");
        for (ri = 0; ri < G_N_ELEMENTS(rhos); ri++) {
            double rho = rhos[ri], p11;

            /* event when the latent normal is below its rate's quantile */
            p11 = ra <= 0 || rb <= 0 ? 0
                  : bvn_cdf(phi_inv(ra), phi_inv(rb), rho);
            printf("%5.2f  |  %7.4f   %7.4f  |", rho, ra - p11, rb - p11);
            for (ni = 0; ni < G_N_ELEMENTS(ns); ni++) {
                unsigned n = ns[ni];

                printf(" %5.1f  %5.1f  %5.1f |",
                       100 * smmulab_mcnemar_power(n, ra - p11, rb - p11,
                                                   ALPHA),
                       100 * fisher_paired_power(n, p11, ra - p11, rb - p11),
                       100 * smmulab_fisher_power(n, ra, n, rb, ALPHA));
            }
            printf("\n");
        }
    }
}

int main(int argc, char **argv)
{
    long draws = argc > 1 ? atol(argv[1]) : 20000;
    size_t i;

    /* self-checks of the helpers */
    for (i = 0; i < G_N_ELEMENTS(rhos); i++) {
        double exact = 0.25 + asin(rhos[i]) / (2 * M_PI);

        if (fabs(bvn_cdf(0, 0, rhos[i]) - exact) > 1e-9) {
            fprintf(stderr, "bvn_cdf(0, 0, %g) = %.12g, not %.12g\n",
                    rhos[i], bvn_cdf(0, 0, rhos[i]), exact);
            return 1;
        }
    }
    if (fabs(phi_inv(0.975) - 1.959963984540054) > 1e-12 ||
        fabs(phi_inv(0.001) + 3.090232306167814) > 1e-12) {
        fprintf(stderr, "phi_inv is off\n");
        return 1;
    }
    mwu_cache = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                      (GDestroyNotify)g_bytes_unref,
                                      mwu_dist_free);
    values_table(false, draws);
    values_table(true, draws);
    events_table();
    printf("\n(cached Mann-Whitney checked against smmulab_mann_whitney() "
           "on %d data sets)\n", checked);
    g_hash_table_destroy(mwu_cache);
    return 0;
}
