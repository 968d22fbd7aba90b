#!/usr/bin/python3
"""
Reference values for the paired tests of runner/abtest.c, pinned in
tests/unit/test-abtest.c: Debian's python3-scipy 1.10.1 where scipy has
the exact answer (stats.wilcoxon(method="exact") without ties or zeros,
stats.binomtest), and, for ties and zeros, every sign assignment
enumerated with the statistic in exact integers (doubled mid-ranks), and
the Hodges-Lehmann interval found by evaluating that enumerated test at
every Walsh average and between each two in exact fractions.  This is an
implementation of its own (no dynamic programming, no floating point in
the tied cases), so the C code is checked against something else.

    /usr/bin/python3 tests/unit/abtest-paired-ref.py

SPDX-License-Identifier: GPL-2.0-or-later
"""
from fractions import Fraction
from math import comb

import numpy as np
from scipy import stats

ALPHA = Fraction(1, 20)


def enumerate_p(d):
    """Exact two-sided p (a Fraction) of the signed-rank test of d:
    zeros dropped, mid-ranks, all 2^m sign assignments; and m, 2 W+."""
    x = [Fraction(v) for v in d if v != 0]
    m = len(x)
    if m == 0:
        return Fraction(1), 0, 0
    a = [abs(v) for v in x]
    # doubled mid-ranks: 2 * (number below) + (number equal) + 1
    r2 = [2 * sum(b < v for b in a) + sum(b == v for b in a) + 1 for v in a]
    obs = sum(r for r, v in zip(r2, x) if v > 0)
    total = sum(r2)                   # m(m + 1)
    signs = (np.arange(2 ** m)[:, None] >> np.arange(m)) & 1
    s = signs @ np.array(r2, dtype=np.int64)
    hit = int(np.sum(np.abs(2 * s - total) >= abs(2 * obs - total)))
    return Fraction(hit, 2 ** m), m, obs


def significant(p):
    return p < ALPHA


def hl_paired(d):
    """Shift, and the interval: (lo, lo_open, hi, hi_open) or None."""
    x = [Fraction(v) for v in d]
    n = len(x)
    w = sorted((x[i] + x[j]) / 2 for i in range(n) for j in range(i, n))
    M = len(w)
    shift = w[M // 2] if M % 2 else (w[M // 2 - 1] + w[M // 2]) / 2
    u = sorted(set(w))
    q = len(u)

    def cand(c):
        if c % 2:
            return u[c // 2]
        if c == 0:
            return u[0] - 1
        if c == 2 * q:
            return u[-1] + 1
        return (u[c // 2 - 1] + u[c // 2]) / 2

    acc = [not significant(enumerate_p([v - cand(c) for v in x])[0])
           for c in range(2 * q + 1)]
    if acc[0] or acc[-1] or not any(acc):
        return shift, None
    cl = acc.index(True)
    ch = 2 * q - acc[::-1].index(True)
    lo = (u[cl // 2], False) if cl % 2 else (u[cl // 2 - 1], True)
    hi = (u[ch // 2], False) if ch % 2 else (u[ch // 2], True)
    return shift, (lo, hi, acc)


def classical(d, alpha=0.05):
    """[W(K), W(M+1-K)] and its level, K from the untied distribution."""
    n = len(d)
    w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    # counts of W+ = 0..M by dynamic programming over 1..n, in integers
    M = n * (n + 1) // 2
    f = [1] + [0] * M
    for k in range(1, n + 1):
        for s in range(M, k - 1, -1):
            f[s] += f[s - k]
    K, cum = 0, 0
    while 2 * Fraction(cum + f[K], 2 ** n) < Fraction(alpha):
        cum += f[K]
        K += 1
    return w[K - 1], w[M - K], 1 - 2 * Fraction(cum, 2 ** n)


def show(name, d):
    print(f"/* {name}: {list(d)} */")


def main():
    print("== untied, no zeros: scipy.stats.wilcoxon(d, method='exact') ==")
    x = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
    y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])
    untied = {
        "depression (Hollander & Wolfe) y - x": list(np.round(y - x, 3)),
        "six positive": [0.5, 1.2, 2.3, 0.7, 3.1, 1.9],
        "six, smallest negative": [-0.2, 1.2, 2.3, 0.7, 3.1, 1.9],
        "five positive": [0.5, 1.2, 2.3, 0.7, 3.1],
        "twelve": [1.1, -0.4, 2.6, 0.3, -1.7, 0.9, 1.4, -0.2, 2.2, 0.6,
                   -0.8, 1.9],
    }
    rng = np.random.default_rng(20240607)
    untied["25 normal(0.4, 1), rounded to 3 places"] = \
        list(np.round(rng.normal(0.4, 1, 25), 3))
    untied["60 normal(0.25, 1), rounded to 4 places"] = \
        list(np.round(rng.normal(0.25, 1, 60), 4))
    for name, d in untied.items():
        d = [float(v) for v in d]
        assert len(set(abs(v) for v in d)) == len(d) and 0 not in d
        r = stats.wilcoxon(d, method="exact")
        wplus = sum(stats.rankdata(np.abs(d))[np.array(d) > 0])
        print(f"{name}: n={len(d)} W+={wplus} scipy p={r.pvalue!r}")
        print("   ", ", ".join(f"{v:g}" for v in d))
        if len(d) <= 16:
            assert abs(float(enumerate_p(d)[0]) - r.pvalue) < 1e-12

    # |d| = 1..n, each negative when k % 3 == 0 (k = 0..n-1): untied
    for n in (200, 1001):
        d = [float(k + 1) * (-1 if k % 3 == 0 else 1) for k in range(n)]
        method = "exact" if n <= 1000 else "approx"
        r = stats.wilcoxon(d, method=method, correction=True)
        print(f"|d| = 1..{n}, negative at k % 3 == 0: {method} "
              f"p={r.pvalue!r}")

    print("\n== ties and zeros: every sign assignment, exact fraction ==")
    tied = {
        "two zeros, six positive": [0, 0, 1, 2, 3, 4, 5, 6],
        "ties": [1, 1, 1, 2, 2, -1, 3, 3, 3, 4],
        "zero-inflated": [0, 2, 0, -1, 3, 0, 2, 4, 1, -2, 5, 0, 2],
        "ties across signs": [-2, 2, 2, -1, 1, 3, 3, 3],
        "18 zero-inflated counts": [0, 3, 0, 1, 0, 2, 5, 0, 1, 1, 0, -1, 4,
                                    0, 2, 0, 3, 1],
        "halves": [0.5, -0.5, 1.5, 1.5, 2, 0, -1, 2.5, 2, 3],
        "all zero": [0, 0, 0],
    }
    for name, d in tied.items():
        p, m, obs = enumerate_p(d)
        print(f"{name}: {d}\n    m={m} W+={obs / 2} p={p} = {float(p)!r}")

    print("\n== paired Hodges-Lehmann (exact fractions) ==")
    hl = dict(untied)
    hl.pop("25 normal(0.4, 1), rounded to 3 places")
    hl.pop("60 normal(0.25, 1), rounded to 4 places")
    hl.update({k: tied[k] for k in ("zero-inflated", "ties across signs",
                                    "halves")})
    hl["open end at 0"] = [2, 4, 4, 4, -2, -1, 3, 0, 0, 2, 3, 1]
    hl["seven integers"] = [3, 1, 4, 1, 5, 9, 2]
    for name, d in hl.items():
        dd = [Fraction(v).limit_denominator(1000) for v in d]
        shift, iv = hl_paired(dd)
        p = enumerate_p(dd)[0]
        if iv is None:
            print(f"{name}: shift={float(shift)!r} no interval")
            continue
        (lo, lo_open), (hi, hi_open), _ = iv
        line = (f"{name}: shift={float(shift)!r} "
                f"{'(' if lo_open else '['}{float(lo)!r}, {float(hi)!r}"
                f"{')' if hi_open else ']'} p(0)={float(p)!r}")
        if name in untied:
            clo, chi, lev = classical([float(v) for v in d])
            line += f"\n    classical [{clo!r}, {chi!r}] level {float(lev)!r}"
        print(line)

    print("\n== McNemar: scipy.stats.binomtest(b, b + c, 0.5).pvalue ==")
    for b, c in [(0, 6), (1, 5), (0, 5), (2, 9), (10, 25), (40, 60), (3, 3),
                 (7, 0), (100, 140)]:
        print(f"b={b} c={c} p={stats.binomtest(b, b + c, 0.5).pvalue!r}")

    print("\n== McNemar power: every outcome enumerated ==")
    for n, p10, p01 in [(20, 0.05, 0.55), (6, 0.0, 0.5), (10, 0.1, 0.3)]:
        pw = Fraction(0)
        P10, P01 = Fraction(p10).limit_denominator(), \
            Fraction(p01).limit_denominator()
        for b in range(n + 1):
            for c in range(n + 1 - b):
                if stats.binomtest(b, b + c, 0.5).pvalue < 0.05 \
                        if b + c else False:
                    pw += comb(n, b) * comb(n - b, c) * P10 ** b * \
                        P01 ** c * (1 - P10 - P01) ** (n - b - c)
        print(f"n={n} p10={p10} p01={p01} power={float(pw)!r}")

    print("\n== signed-rank power, normal differences, 200000 draws ==")
    rng = np.random.default_rng(7)
    for n, delta in [(20, 0.5), (10, 1.0)]:
        # reject region from the exact distribution, as classical() finds K
        M = n * (n + 1) // 2
        K = 0
        f = [1] + [0] * M
        for k in range(1, n + 1):
            for s in range(M, k - 1, -1):
                f[s] += f[s - k]
        cum = 0
        while 2 * Fraction(cum + f[K], 2 ** n) < ALPHA:
            cum += f[K]
            K += 1
        z = rng.normal(delta, 1, (200000, n))
        order = np.argsort(np.abs(z), axis=1)
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.arange(1, n + 1)[None, :], 1)
        w = np.sum(np.where(z > 0, ranks, 0), axis=1)
        pw = np.mean((w <= K - 1) | (w >= M + 1 - K))
        print(f"n={n} delta={delta} K={K} power={pw:.4f} "
              f"(se {np.sqrt(pw * (1 - pw) / 200000):.4f})")


if __name__ == "__main__":
    main()
