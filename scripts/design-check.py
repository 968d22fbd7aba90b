#!/usr/bin/env python3
"""The paired or independent design, measured on real runs.

    scripts/design-check.py [--draws N] [--seed S] REPORT_DIR...

Each REPORT_DIR is a runner output directory of a scenario run with
design=paired (repeat r of every variant booted with one seed), e.g. the
main job with several seeds.  For every metric line of its report.json
(values and baseline_values are the pairs), over the pairs of all the
directories together:

  r        the correlation of the two variants' values within a pair
           (Pearson, and Spearman's rank correlation), the quantity that
           decides which design is more powerful (docs/scenarios.md,
           "Paired or independent runs");
  power    at the report's n pairs, by resampling the real pairs (draws
           with replacement): the share of draws in which the paired
           design's test (exact Wilcoxon signed-rank on the differences)
           says p < 0.05, against the share in which the independent
           design's test does (exact Mann-Whitney, with each variant's
           runs drawn from different pairs, as independent seeds give
           them).

Exact tests in plain Python (no scipy needed); the draws are seeded, so a
rerun prints the same figures.
"""
import argparse
import itertools
import json
import math
import os
import random
import sys


def midranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def signed_rank_p(d):
    """Exact two-sided Wilcoxon signed-rank p, zeros dropped, mid-ranks"""
    d = [x for x in d if x != 0]
    m = len(d)
    if m == 0:
        return 1.0
    r2 = [int(round(2 * x)) for x in midranks([abs(x) for x in d])]
    w = sum(r for r, x in zip(r2, d) if x > 0)
    total = sum(r2)
    dist = {0: 1}
    for r in r2:
        nd = dict(dist)
        for s, c in dist.items():
            nd[s + r] = nd.get(s + r, 0) + c
        dist = nd
    dev = abs(2 * w - total)
    hit = sum(c for s, c in dist.items() if abs(2 * s - total) >= dev)
    return min(1.0, hit / 2 ** m)


def mann_whitney_p(a, b):
    """Exact two-sided Mann-Whitney p with mid-ranks (enumeration)"""
    xs = list(a) + list(b)
    r2 = [int(round(2 * x)) for x in midranks(xs)]
    na, n, total = len(a), len(xs), sum(r2)
    # |S - E| >= |obs - E| with E = na * total / n, compared in integers
    dev = abs(n * sum(r2[:na]) - na * total)
    hit = tot = 0
    for c in itertools.combinations(r2, na):
        tot += 1
        hit += abs(n * sum(c) - na * total) >= dev
    return hit / tot


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    lines = {}
    npairs = None
    for d in a.dirs:
        try:
            rep = json.load(open(os.path.join(d, "report.json")))
        except (OSError, ValueError) as e:
            sys.exit(f"design-check: {d}: {e}")
        if rep["scenario"].get("design", "paired") != "paired":
            sys.exit(f"design-check: {d}: not a paired run (design="
                     f"{rep['scenario'].get('design')})")
        for v in rep["verdicts"]:
            if "values" not in v or not v.get("paired"):
                continue
            key = (v.get("point") or "", v["variant"], v["baseline"],
                   v["metric"])
            e = lines.setdefault(key, {"label": v["label"], "a": [], "b": [],
                                       "primary": v["primary"]})
            e["a"] += v["values"]
            e["b"] += v["baseline_values"]
            npairs = v["na"] if npairs is None else min(npairs, v["na"])
    if not lines:
        sys.exit("design-check: no paired metric line in these reports")
    rng = random.Random(a.seed)
    n = npairs
    print(f"{len(a.dirs)} report(s); resampled at n = {n} pairs, "
          f"{a.draws} draws, alpha 0.05 two-sided")
    print(f"{'metric':52} {'pairs':>5} {'r':>6} {'rho_s':>6} "
          f"{'paired':>7} {'indep':>7}")
    for key, e in lines.items():
        x, y = e["a"], e["b"]
        m = len(x)
        r = pearson(x, y)
        rs = pearson(midranks(x), midranks(y))
        sp = si = 0
        for _ in range(a.draws):
            idx = [rng.randrange(m) for _ in range(n)]
            sp += signed_rank_p([x[i] - y[i] for i in idx]) < 0.05
            ia = [rng.randrange(m) for _ in range(n)]
            ib = [rng.randrange(m) for _ in range(n)]
            si += mann_whitney_p([x[i] for i in ia], [y[i] for i in ib]) < 0.05
        name = (("* " if e["primary"] else "  ") + key[1] + " vs " + key[2] +
                ": " + e["label"])[:52]
        print(f"{name:52} {m:5d} {r:6.2f} {rs:6.2f} "
              f"{100 * sp / a.draws:6.1f}% {100 * si / a.draws:6.1f}%")
    print("(* the primary endpoint; power's Monte Carlo error at most "
          f"{50 / math.sqrt(a.draws):.1f} points)")


if __name__ == "__main__":
    main()
