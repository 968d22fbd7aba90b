#!/usr/bin/python3
"""
Reference values for the independent-design tests of runner/abtest.c
(Mann-Whitney with ties, its Hodges-Lehmann interval by inversion, the
smallest p of tied data, power), pinned in tests/unit/test-abtest.c:
scipy 1.10.1's stats.mannwhitneyu(method="exact") for untied data, and
for ties every choice of the first sample among the pooled values
enumerated with mid-ranks in exact integers (doubled), the interval found
by evaluating that test at every difference and between each two in
exact fractions.
"""
from fractions import Fraction as F
from itertools import combinations
from math import comb
import sys

import numpy as np
from scipy import stats

ALPHA = F(1, 20)


def ranks2(pooled):
    # doubled mid-ranks: 2 * (number below) + (number equal) + 1
    return [2 * sum(y < v for y in pooled) + sum(y == v for y in pooled) + 1
            for v in pooled]


def dist(pooled, k):
    r = ranks2(pooled)
    n = len(pooled)
    sums = {}
    for c in combinations(range(n), k):
        s = sum(r[i] for i in c)
        sums[s] = sums.get(s, 0) + 1
    return r, sums


def enumerate_p(a, b):
    a = [F(x) for x in a]
    b = [F(x) for x in b]
    pooled = a + b
    k = len(a)
    n = len(pooled)
    r, sums = dist(pooled, k)
    obs = sum(r[:k])
    mean2 = k * (n + 1)              # doubled-rank sum's mean, doubled
    dev = abs(obs - mean2)
    hit = sum(c for s, c in sums.items() if abs(s - mean2) >= dev)
    return F(hit, comb(n, k))


def min_p(a, b):
    a = [F(x) for x in a]
    b = [F(x) for x in b]
    pooled = a + b
    k = len(a)
    n = len(pooled)
    r, sums = dist(pooled, k)
    mean2 = k * (n + 1)
    best = None
    for s in sums:
        dev = abs(s - mean2)
        p = F(sum(c for t, c in sums.items() if abs(t - mean2) >= dev),
              comb(n, k))
        best = p if best is None or p < best else best
    return best


def hl(a, b, alpha=ALPHA):
    """Shift of b against a, and the interval (lo, lo_open, hi, hi_open),
    None for an infinite end, or None: the inverted tie-aware test."""
    a = [F(x) for x in a]
    b = [F(x) for x in b]
    d = sorted(y - x for x in a for y in b)
    m = len(d)
    shift = d[m // 2] if m % 2 else (d[m // 2 - 1] + d[m // 2]) / 2
    u = sorted(set(d))
    q = len(u)

    def cand(c):
        if c % 2:
            return u[c // 2]
        if c == 0:
            return u[0] - 1
        if c == 2 * q:
            return u[-1] + 1
        return (u[c // 2 - 1] + u[c // 2]) / 2

    acc = [enumerate_p([x + cand(c) for x in a], b) >= alpha
           for c in range(2 * q + 1)]
    if not any(acc):
        return shift, None
    cl = acc.index(True)
    ch = 2 * q - acc[::-1].index(True)
    if cl == 0 and ch == 2 * q:
        return shift, None
    lo = (None, True) if cl == 0 else (u[cl // 2], False) if cl % 2 else \
        (u[cl // 2 - 1], True)
    hi = (None, True) if ch == 2 * q else (u[ch // 2], False) if ch % 2 else \
        (u[ch // 2], True)
    holes = [c for c in range(cl, ch + 1) if not acc[c]]
    return shift, (lo, hi, holes)


def show(name, a, b):
    p = enumerate_p(a, b)
    mp = min_p(a, b)
    shift, iv = hl(a, b)
    print(f"{name}: p = {p} = {float(p)!r}; min p = {mp} = {float(mp)!r};"
          f" shift {shift}; interval {iv}")
    if len(set(a + b)) == len(a + b):
        print("   scipy exact p:", stats.mannwhitneyu(a, b, method="exact").pvalue)


CASES = {
    "two-five": ([1, 2], [3, 3, 3, 3, 3]),
    "issue-like": ([1, 1], [-4, -4, -4, -1, 0]),
    "a8b8": ([0, 0, 1, 1, 2, 3, 0, 1], [1, 2, 2, 3, 3, 4, 2, 5]),
    "a10b10": ([0, 0, 0, 1, 0, 2, 0, 0, 1, 0], [1, 0, 2, 1, 3, 1, 2, 0, 4, 1]),
    "a6b7": ([1.5, 2.5, 2.5, 4, 1.5, 3], [2.5, 4, 5, 5, 6, 4, 7]),
}

if __name__ == "__main__":
    for name, (a, b) in CASES.items():
        show(name, a, b)


def untied_K(na, nb, alpha=ALPHA):
    """K: the largest with 2 P(U <= K - 1) < alpha (exact counts)."""
    # N[u] for sizes (i, j) by the recurrence, as integers
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def N(i, j):
        if i == 0 or j == 0:
            return (1,)
        a = N(i - 1, j)
        b = N(i, j - 1)
        out = [0] * (i * j + 1)
        for u, c in enumerate(b):
            out[u] += c
        for u, c in enumerate(a):
            out[u + j] += c
        return tuple(out)

    cnt = N(na, nb)
    total = comb(na + nb, na)
    K, cum = 0, 0
    while 2 * F(cum + cnt[K], total) < alpha:
        cum += cnt[K]
        K += 1
    return K, 2 * F(cum, total)


def power_sim(na, nb, delta, draws=200000, seed=1):
    K, size = untied_K(na, nb)
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, draws, 20000):
        m = min(20000, draws - start)
        x = rng.standard_normal((m, na))
        y = rng.standard_normal((m, nb)) + delta
        u = (x[:, :, None] > y[:, None, :]).sum(axis=(1, 2))
        hits += int(np.sum((u <= K - 1) | (u >= na * nb + 1 - K)))
    return K, float(size), hits / draws
