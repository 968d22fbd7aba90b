#!/usr/bin/env python3
"""Calibration of the verdicts, as a test: null reports through --report.

    tests/calibration.py SMMULAB_RUN [REPORTS_PER_CASE]

Writes runs.json files of runs drawn with no difference between the
variants (seeded: the same reports every time), has the runner report each
(`smmulab-run report DIR`), and counts what report.json's verdicts say.
Per case, the primary endpoint's false DIFFERENT rate (per report: any
primary line of it, the family-wise rate where a sweep has several) must
stay at or under 5 % within twice its Monte Carlo error, and no
exploratory line may ever say DIFFERENT.  The cases: independent and paired
designs, continuous values, values with ties, values that are 0 in half the
runs, paired runs correlated -0.9 within a pair (where testing pairs as
independent calls DIFFERENT in about 14 % of reports), and a sweep of four
points (four primary lines: without Holm's adjustment about 13 %).  TAP
output.
"""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

N = 6          # runs per variant (pairs): the main job's


def draw(rng, kind, rho):
    """One pair of null values (baseline, variant)"""
    z1 = rng.gauss(0, 1)
    z2 = rho * z1 + math.sqrt(1 - rho * rho) * rng.gauss(0, 1)
    if kind == "normal":
        return 100 + 10 * z1, 100 + 10 * z2
    if kind == "ties":
        # four values only: most runs tie with another
        return float(min(3, int(abs(z1) * 2))), float(min(3, int(abs(z2) * 2)))
    # zero in half the runs, else lognormal (the longest shared-lock wait)
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
    f = lambda z: 0.0 if cdf(z) < 0.5 else round(math.exp(z), 3)
    return f(z1), f(z2)


def runs_json(rng, design, kind, rho, points):
    sc = {
        "file": "calibration.ini", "name": "calibration",
        "workload": "map-unmap", "repeat": N, "icount": True,
        "control": False, "smmu": "cmdqs=8", "machine": "2 vCPUs",
        "primary": "ops_per_cpu_s", "design": design, "seed": "1",
        "variants": [{"name": "a", "append": "x=1"},
                     {"name": "b", "append": "x=2"}],
    }
    if points:
        sc["sweep_key"] = "smmu.cmdqs"
        sc["sweep_values"] = [str(p) for p in points]
    runs = []
    for pt in points or [None]:
        for rep in range(1, N + 1):
            va, vb = draw(rng, kind, rho)
            for name, v in (("a", va), ("b", vb)):
                # paired: one seed per repeat; independent: one per run
                seed = str(rep) if design == "paired" else f"{name}{rep}"
                r = {"variant": name, "control": False, "rep": rep,
                     "index": len(runs) + 1, "verdict": "ok",
                     "log": "none.log", "seed": seed, "soft_lockups": 0,
                     "summary": {"ops_per_thread_per_sec": str(v)}}
                if pt is not None:
                    r["point"] = str(pt)
                runs.append(r)
    return {"scenario": sc, "provenance": {}, "runs": runs}


CASES = [
    # name, design, values, correlation within a pair, sweep points
    ("independent, normal", "independent", "normal", 0.0, None),
    ("independent, ties", "independent", "ties", 0.0, None),
    ("independent, zero in half", "independent", "zeros", 0.0, None),
    ("paired, normal, rho -0.9", "paired", "normal", -0.9, None),
    ("paired, ties, rho -0.5", "paired", "ties", -0.5, None),
    ("paired, zero in half, rho -0.9", "paired", "zeros", -0.9, None),
    ("independent, sweep of 4 points", "independent", "normal", 0.0,
     [7, 8, 9, 10]),
]


def main():
    run = sys.argv[1]
    per = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    tmp = tempfile.mkdtemp(prefix="smmulab-calibration-")
    n = fails = 0
    try:
        for ci, (name, design, kind, rho, points) in enumerate(CASES):
            rng = random.Random(1000 + ci)
            false_primary = expl_diff = primaries = 0
            for k in range(per):
                d = os.path.join(tmp, f"{ci}-{k}")
                os.mkdir(d)
                with open(os.path.join(d, "runs.json"), "w") as f:
                    json.dump(runs_json(rng, design, kind, rho, points), f)
                p = subprocess.run([run, "report", d], capture_output=True,
                                   text=True)
                if p.returncode:
                    print(f"not ok - {name}: report {k} failed: "
                          f"{p.stderr.strip()[:200]}")
                    return 1
                rep = json.load(open(os.path.join(d, "report.json")))
                prim = [v for v in rep["verdicts"] if v["primary"]]
                primaries += len(prim)
                false_primary += any(v["differs"] for v in prim)
                expl_diff += sum(bool(v["differs"]) for v in
                                 rep["verdicts"] if not v["primary"])
                shutil.rmtree(d)
            rate = false_primary / per
            err = math.sqrt(0.05 * 0.95 / per)
            n += 1
            line = (f"{name}: false primary DIFFERENT in {false_primary} of "
                    f"{per} reports ({100 * rate:.1f} %, limit "
                    f"{100 * (0.05 + 2 * err):.1f} %: 5 % and twice its "
                    f"Monte Carlo error), {primaries // per} primary "
                    f"line(s) a report")
            if rate <= 0.05 + 2 * err:
                print(f"ok {n} - {line}")
            else:
                fails += 1
                print(f"not ok {n} - {line}")
            n += 1
            if expl_diff == 0:
                print(f"ok {n} - {name}: no exploratory line says DIFFERENT")
            else:
                fails += 1
                print(f"not ok {n} - {name}: {expl_diff} exploratory "
                      f"line(s) said DIFFERENT")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{n}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
