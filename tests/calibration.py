#!/usr/bin/env python3
"""Calibration of the verdicts, as a test: null reports through --report.

    tests/calibration.py SMMULAB_RUN [REPORTS_PER_CASE [SEED [CASES]]]

(CASES: a comma-separated list of case numbers from 1 to run alone, for
seeing one check fail; the pooled and power checks then look at those.)

Writes runs.json files of runs drawn with no difference between the
variants (seeded: the same reports every time unless SEED is given), has
the runner report each (`smmulab-run report DIR`), and checks what
report.json's verdicts say.  Every check reads a value the runner computed:

- per case, the false primary DIFFERENT rate (per report: any primary
  line of it, family-wise where a sweep has several) is not above 5 %
  by a one-sided binomial test at 0.001 (a runner whose true rate is 5 %
  fails it once in a thousand seeds); and pooled over the cases, the same
  test at 0.01 (2000 reports: at most 123), which the runner's exact tests
  (2.8 % of 2000) practically never fail, and a runner whose alpha is
  doubled (7.15 %, 143 of 2000) fails 96 % of the time (a true 8 %: 99.9 %);
- per case, the family-wise rate of exploratory lines below 0.05 after
  Holm (`signal`) under the same bound, and no exploratory line saying
  DIFFERENT in its text;
- on every line of every report: its Holm-adjusted p is Holm's over its
  family's raw p-values (recomputed here), and its verdict (`differs`,
  `signal`) is exactly "adjusted p below 0.05, and for a line with a shift
  an interval that excludes 0" (the verdict follows the interval), so that
  no DIFFERENT stands beside an interval holding 0 and no interval
  excluding 0 beside "no difference";
- every primary line is a test of independent runs (the runs differ, no
  "repeated_runs"), with the n the case ran (5+5; 6+5 after a failed run);
- a shift of 2 SD at 6+6 is called DIFFERENT in at least 70 % of reports
  (power about 85 %): a runner that never says DIFFERENT fails.

The cases: independent and paired designs, continuous values, values with
ties, values that are 0 in half the runs, paired runs correlated -0.9
within a pair (where testing pairs as independent calls DIFFERENT in about
14 % of reports), a sweep of four points (four primary lines: without
Holm's adjustment about 13 %), 5+5 runs, 6+5 (one run failed), and runs
with an event under a Fisher primary (runs_with_soft_lockup).  TAP output.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import random

ALPHA = 0.05


def draw(rng, kind, rho, shift=0.0):
    """One pair of values (baseline, variant)"""
    z1 = rng.gauss(0, 1)
    z2 = rho * z1 + math.sqrt(1 - rho * rho) * rng.gauss(0, 1)
    if kind in ("normal", "events"):
        return 100 + 10 * z1, 100 + 10 * (z2 + shift)
    if kind == "ties":
        # four values only: most runs tie with another
        return float(min(3, int(abs(z1) * 2))), float(min(3, int(abs(z2) * 2)))
    # zero in half the runs, else lognormal (the longest shared-lock wait)
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
    f = lambda z: 0.0 if cdf(z) < 0.5 else round(math.exp(z), 3)
    return f(z1), f(z2)


def runs_json(rng, case):
    n = case.get("n", 6)
    design = case["design"]
    events = case["kind"] == "events"
    sc = {
        "file": "calibration.ini", "name": "calibration",
        "workload": "map-unmap", "repeat": n, "icount": True,
        "control": False, "smmu": "cmdqs=8", "machine": "2 vCPUs",
        "primary": "runs_with_soft_lockup" if events else "ops_per_cpu_s",
        "design": design, "seed": "1",
        "variants": [{"name": "a", "append": "x=1"},
                     {"name": "b", "append": "x=2"}],
    }
    points = case.get("points")
    if points:
        sc["sweep_key"] = "smmu.cmdqs"
        sc["sweep_values"] = [str(p) for p in points]
    runs = []
    for pt in points or [None]:
        for rep in range(1, n + 1):
            va, vb = draw(rng, case["kind"], case.get("rho", 0.0),
                          case.get("shift", 0.0))
            # an exploratory figure, null in every case
            la, lb = draw(rng, case["kind"], case.get("rho", 0.0))
            for name, v, lat in (("a", va, la), ("b", vb, lb)):
                # paired: one seed per repeat; independent: one per run
                seed = str(rep) if design == "paired" else f"{name}{rep}"
                lockups = int(rng.random() < 0.4) if events else 0
                failed = case.get("failed") == (name, rep)
                r = {"variant": name, "control": False, "rep": rep,
                     "index": len(runs) + 1,
                     "verdict": "timeout" if failed else "ok",
                     "log": "none.log", "seed": seed,
                     "soft_lockups": lockups,
                     "summary": {"ops_per_thread_per_sec": str(v),
                                 "unmap_p99_ns": str(1000 * lat)},
                     # runs that differ, as seeded icount runs do
                     "result_lines": [f"bench ops={v} run={len(runs) + 1}"]}
                if pt is not None:
                    r["point"] = str(pt)
                runs.append(r)
    return {"scenario": sc, "provenance": {}, "runs": runs}


CASES = [
    {"name": "independent, normal", "design": "independent",
     "kind": "normal"},
    {"name": "independent, ties", "design": "independent", "kind": "ties"},
    {"name": "independent, zero in half", "design": "independent",
     "kind": "zeros"},
    {"name": "paired, normal, rho -0.9", "design": "paired",
     "kind": "normal", "rho": -0.9},
    {"name": "paired, ties, rho -0.5", "design": "paired", "kind": "ties",
     "rho": -0.5},
    {"name": "paired, zero in half, rho -0.9", "design": "paired",
     "kind": "zeros", "rho": -0.9},
    {"name": "independent, sweep of 4 points", "design": "independent",
     "kind": "normal", "points": [7, 8, 9, 10]},
    {"name": "independent, 5+5", "design": "independent", "kind": "normal",
     "n": 5, "nab": (5, 5)},
    {"name": "independent, 6+5 (a run of b failed)",
     "design": "independent", "kind": "normal", "failed": ("b", 3),
     "nab": (5, 6)},
    {"name": "independent, Fisher primary (soft lockups, rate 40 %)",
     "design": "independent", "kind": "events", "test": "fisher"},
]
POWER_CASE = {"name": "independent, normal, shift of 2 SD",
              "design": "independent", "kind": "normal", "shift": 2.0}


def binom_sf(k, n, p):
    """P(X >= k), X ~ Binomial(n, p) (terms in logs: n is in thousands)"""
    return sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) -
                        math.lgamma(n - i + 1) + i * math.log(p) +
                        (n - i) * math.log1p(-p))
               for i in range(k, n + 1))


def limit(n, level=0.001):
    """The most false DIFFERENTs of n reports a 5 % rate exceeds only with
    probability @level (once in a thousand seeds by default)"""
    k = 0
    while binom_sf(k + 1, n, ALPHA) > level:
        k += 1
    return k


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adj, run = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        run = max(run, (len(ps) - rank) * ps[i])
        adj[i] = min(1.0, run)
    return adj


def excludes0(v):
    iv = v.get("interval")
    if not iv:
        return False
    lo, hi = iv
    return (lo is not None and lo > 0) or (hi is not None and hi < 0)


def consistency(rep):
    """What is wrong with one report's lines, as strings"""
    bad = []
    for primary in (True, False):
        fam = [v for v in rep["verdicts"] if v["primary"] == primary]
        adj = holm([v["p"] for v in fam])
        for v, a in zip(fam, adj):
            if abs(v["p_holm"] - a) > 1e-9 * max(a, 1e-300):
                bad.append(f"p_holm {v['p_holm']} where Holm gives {a}")
            said = v["differs"] if primary else v.get("signal", False)
            want = (a < ALPHA * (1 - 1e-9) and "repeated_runs" not in v and
                    ("shift" not in v or excludes0(v)))
            if said != want:
                bad.append(f"verdict {said}, should be {want}: {v['text']}")
            if "shift" in v and excludes0(v) != said:
                bad.append(f"interval {v.get('interval')} beside verdict "
                           f"{said}: {v['text']}")
            if not primary and ("DIFFERENT" in v["text"] or v["differs"]):
                bad.append(f"exploratory DIFFERENT: {v['text']}")
    return bad


def run_case(run, tmp, ci, case, per, seed):
    rng = random.Random(seed * 7919 + 1000 + ci)
    out = {"false": 0, "signal": 0, "bad": [], "untested": 0, "n": [],
           "tests": set()}
    for k in range(per):
        d = os.path.join(tmp, f"{ci}-{k}")
        os.mkdir(d)
        with open(os.path.join(d, "runs.json"), "w") as f:
            json.dump(runs_json(rng, case), f)
        p = subprocess.run([run, "report", d], capture_output=True,
                           text=True)
        if p.returncode:
            raise RuntimeError(f"{case['name']}: report {k} failed: "
                               f"{p.stderr.strip()[:200]}")
        rep = json.load(open(os.path.join(d, "report.json")))
        prim = [v for v in rep["verdicts"] if v["primary"]]
        out["false"] += any(v["differs"] for v in prim)
        out["signal"] += any(v.get("signal") for v in rep["verdicts"]
                             if not v["primary"])
        out["bad"] += consistency(rep)
        out["untested"] += sum("repeated_runs" in v for v in prim)
        out["n"] += [(v["na"], v["nb"]) for v in prim]
        out["tests"] |= {v["test"] for v in prim}
        shutil.rmtree(d)
    return out


def main():
    run = sys.argv[1]
    per = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    only = ({int(c) for c in sys.argv[4].split(",")} if len(sys.argv) > 4
            else None)
    tmp = tempfile.mkdtemp(prefix="smmulab-calibration-")
    results = []
    total_false = 0
    try:
        lim = limit(per)
        for ci, case in enumerate(CASES):
            if only and ci + 1 not in only:
                continue
            name = case["name"]
            o = run_case(run, tmp, ci, case, per, seed)
            total_false += o["false"]
            results.append((o["false"] <= lim,
                            f"{name}: false primary DIFFERENT in "
                            f"{o['false']} of {per} reports "
                            f"({100 * o['false'] / per:.1f} %; at most {lim}: "
                            f"a 5 % rate exceeds it once in 1000)"))
            results.append((o["signal"] <= lim,
                            f"{name}: an exploratory line below 0.05 after "
                            f"Holm in {o['signal']} of {per} reports (at "
                            f"most {lim})"))
            results.append((not o["bad"],
                            f"{name}: every line's Holm p recomputed, its "
                            f"verdict exactly 'adjusted p < 0.05 and its "
                            f"interval excluding 0', no exploratory "
                            f"DIFFERENT" + (f": {len(o['bad'])} wrong, "
                                            f"first: {o['bad'][0][:300]}"
                                            if o["bad"] else "")))
            want_n = case.get("nab", (case.get("n", 6),) * 2)
            want_t = {case.get("test", "wilcoxon-signed-rank"
                               if case["design"] == "paired" else
                               "mann-whitney")}
            ns = set(o["n"])
            results.append((not o["untested"] and ns == {want_n} and
                            o["tests"] == want_t,
                            f"{name}: every primary line a {want_t} test of "
                            f"independent runs at n={want_n[0]}+{want_n[1]} "
                            f"(seen: n {sorted(ns)}, tests "
                            f"{sorted(o['tests'])}, {o['untested']} lines "
                            f"of repeated runs)"))
        n_all = per * (len(only) if only else len(CASES))
        lim_all = limit(n_all, 0.01)
        results.append((total_false <= lim_all,
                        f"all cases: false primary DIFFERENT in "
                        f"{total_false} of {n_all} reports "
                        f"({100 * total_false / n_all:.2f} %; at most "
                        f"{lim_all}: a 5 % rate exceeds it once in 100, "
                        f"the exact tests' own 3 % practically never, a "
                        f"doubled alpha's 7 % 96 times in 100)"))
        o = run_case(run, tmp, len(CASES), POWER_CASE, 100, seed)
        results.append((o["false"] >= 70 and not o["bad"],
                        f"{POWER_CASE['name']}: DIFFERENT in {o['false']} "
                        f"of 100 reports (at least 70: the power is about "
                        f"85 %)" + (f"; {o['bad'][0][:300]}" if o["bad"]
                                    else "")))
    except Exception as e:
        results.append((False, str(e)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fails = 0
    for i, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {what}")
        fails += not ok
    print(f"1..{len(results)}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
