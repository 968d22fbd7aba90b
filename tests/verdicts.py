#!/usr/bin/env python3
"""The verdict contract on crafted runs, as a test (issue 40's cases).

    tests/verdicts.py SMMULAB_RUN

Writes runs.json files whose values are chosen, has the runner report
each (`smmulab-run report DIR`), and checks report.json and report.txt:

- a sweep of two points where Holm's step-down rejects a line whose
  Bonferroni interval holds 0 (a = 1..6 against b = 1.5, 6.5..10.5):
  no DIFFERENT beside that interval;
- twelve pairs whose signed-rank test rejects 0 in a gap of the shifts
  it accepts (d = 0, 3, 0, 3, -1, 3, 3, -1, 0, 2, 3, -1: p = 0.047,
  interval [-0.5, 3.0]): no DIFFERENT;
- six bit-identical runs of 10.0 against six of 12.0: no DIFFERENT, no
  interval, and the line says why; the same values from runs that differ
  are DIFFERENT (so the case is not vacuous);
- Fisher's needed n for 2/7 against 0/7: 27 (from which the power stays
  at 80 %), not 23 (the first n that reaches it);
- an open interval end away from 0 printed "(" (a = 1..6 against b =
  11..16.5: the test at either end's difference rejects);
- the power line's shift with the SD's 95 % range (0.70-1.75 at 6+6);
- and on every line of every report: a DIFFERENT (or an exploratory
  signal) has an interval that excludes 0, and a line whose interval
  excludes 0 is DIFFERENT (or a signal).

TAP output.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def scenario(design="independent", primary="ops_per_cpu_s", points=None):
    sc = {
        "file": "crafted.ini", "name": "crafted", "workload": "map-unmap",
        "repeat": 6, "icount": True, "control": False, "smmu": "cmdqs=8",
        "machine": "2 vCPUs", "primary": primary, "design": design,
        "seed": "1",
        "variants": [{"name": "a", "append": "x=1"},
                     {"name": "b", "append": "x=2"}],
    }
    if points:
        sc["sweep_key"] = "smmu.cmdqs"
        sc["sweep_values"] = [str(p) for p in points]
    return sc


def run(variant, rep, value, seed, index, point=None, lockups=0,
        identical=False):
    """One run; its RESULT line differs from every other's unless
    @identical (then it is the same for every run of its variant)"""
    tag = "same" if identical else f"{index}"
    r = {"variant": variant, "control": False, "rep": rep, "index": index,
         "verdict": "ok", "log": "none.log", "seed": seed,
         "soft_lockups": lockups,
         "summary": {"ops_per_thread_per_sec": str(value)},
         "result_lines": [f"bench ops={value} run={tag}"]}
    if point is not None:
        r["point"] = str(point)
    return r


def independent(values_a, values_b, point=None, start=0, identical=False,
                lockups=None):
    runs = []
    for name, vals in (("a", values_a), ("b", values_b)):
        for i, v in enumerate(vals):
            lk = lockups[name][i] if lockups else 0
            runs.append(run(name, i + 1, v, f"{name}{i + 1}",
                            start + len(runs) + 1, point, lk, identical))
    return runs


def report(tmp, name, sc, runs, run_bin):
    d = os.path.join(tmp, name)
    os.mkdir(d)
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump({"scenario": sc, "provenance": {}, "runs": runs}, f)
    p = subprocess.run([run_bin, "report", d], capture_output=True,
                       text=True)
    if p.returncode:
        raise RuntimeError(f"report failed: {p.stderr.strip()[:300]}")
    return (json.load(open(os.path.join(d, "report.json"))),
            open(os.path.join(d, "report.txt")).read())


def excludes0(v):
    iv = v.get("interval")
    if not iv:
        return False
    lo, hi = iv
    return (lo is not None and lo > 0) or (hi is not None and hi < 0)


def agreement(rep):
    """Lines where the verdict and the interval disagree"""
    bad = []
    for v in rep["verdicts"]:
        said = v["differs"] if v["primary"] else v.get("signal", False)
        if "shift" not in v:
            continue
        if said and not excludes0(v):
            bad.append(f"{v['text']}: called different, interval "
                       f"{v.get('interval')}")
        if not said and excludes0(v):
            bad.append(f"{v['text']}: not called different, interval "
                       f"{v.get('interval')}")
    return bad


def primary_line(rep, point=None):
    for v in rep["verdicts"]:
        if v["primary"] and v.get("point") == point:
            return v
    raise KeyError(point)


def main():
    run_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="smmulab-verdicts-")
    results = []

    def check(ok, what):
        results.append((bool(ok), what))

    try:
        reports = {}
        # 1. Holm rejects, the Bonferroni interval holds 0
        a = [1, 2, 3, 4, 5, 6]
        b = [1.5, 6.5, 7.5, 8.5, 9.5, 10.5]
        runs = independent(a, b, point=7)
        runs += independent([1, 2, 3, 4, 5, 6], [21, 22, 23, 24, 25, 26],
                            point=8, start=len(runs))
        rep, txt = report(tmp, "holm", scenario(points=[7, 8]), runs,
                          run_bin)
        reports["holm"] = rep
        v = primary_line(rep, "7")
        check(abs(v["p"] - 0.041) < 0.001 and abs(v["p_holm"] - 0.041) <
              0.001 and not excludes0(v) and not v["differs"] and
              "DIFFERENT" not in v["text"],
              f"sweep, Holm rejects where the 97.5 % interval holds 0: no "
              f"DIFFERENT ({v['text']})")
        # 2. the paired gap
        d = [0, 3, 0, 3, -1, 3, 3, -1, 0, 2, 3, -1]
        runs = []
        for i, di in enumerate(d):
            base = 100 + 10 * i
            runs.append(run("a", i + 1, base, str(i + 1), len(runs) + 1))
            runs.append(run("b", i + 1, base + di, str(i + 1),
                            len(runs) + 1))
        sc = scenario(design="paired")
        sc["repeat"] = 12
        rep, txt = report(tmp, "gap", sc, runs, run_bin)
        reports["gap"] = rep
        v = primary_line(rep)
        check(abs(v["p"] - 0.046875) < 1e-6 and not excludes0(v) and
              not v["differs"] and "DIFFERENT" not in v["text"],
              f"paired, 0 in a gap of the accepted shifts: no DIFFERENT "
              f"({v['text']})")
        # 3. identical repeats, and the same values from runs that differ
        rep, txt = report(tmp, "identical", scenario(),
                          independent([10.0] * 6, [12.0] * 6,
                                      identical=True), run_bin)
        reports["identical"] = rep
        v = primary_line(rep)
        check(not v["differs"] and v.get("interval") is None and
              "DIFFERENT" not in v["text"] and
              "repeat another bit for bit" in v["text"] and
              v.get("repeated_runs") == 5 and
              v.get("baseline_repeated_runs") == 5 and
              not any(x.get("signal") for x in rep["verdicts"]),
              f"six identical runs of 10.0 against six of 12.0: no verdict, "
              f"no interval, and why ({v['text']})")
        rep, txt = report(tmp, "distinct", scenario(),
                          independent([10.0] * 6, [12.0] * 6), run_bin)
        reports["distinct"] = rep
        v = primary_line(rep)
        check(v["differs"] and "repeated_runs" not in v,
              f"the same values from runs that differ: DIFFERENT "
              f"({v['text']})")
        # 4. Fisher's needed n
        lk = {"a": [1, 1, 0, 0, 0, 0, 0], "b": [0] * 7}
        sc = scenario(primary="runs_with_soft_lockup")
        sc["repeat"] = 7
        rep, txt = report(tmp, "fisher", sc,
                          independent([5.0 + i for i in range(7)],
                                      [6.0 + i for i in range(7)],
                                      lockups=lk), run_bin)
        reports["fisher"] = rep
        v = primary_line(rep)
        check(v["power"].get("n_needed") == 27 and
              "would need n=27+27" in v["power_text"],
              f"Fisher 2/7 vs 0/7: the n from which power stays at 80 % "
              f"is 27 ({v['power_text']})")
        # 5. open ends away from 0, and the SD line
        rep, txt = report(tmp, "open", scenario(),
                          independent([1, 2, 3, 4, 5, 6],
                                      [11, 12, 13, 14, 15, 16.5]), run_bin)
        reports["open"] = rep
        v = primary_line(rep)
        check(v.get("interval_open") == [True, True] and
              "(7.0, 13.0)" in v["text"],
              f"open ends away from 0 print as ( and ) ({v['text']})")
        check("0.70-1.75 times" in v.get("sd_text", "") and
              "0.70-1.75 times" in txt and
              v["power"].get("sd_range") and
              abs(v["power"]["sd_range"][0] - 0.6987) < 1e-3,
              f"the power line's shift with the SD's 95 % range "
              f"({v.get('sd_text')})")
        # 6. agreement on every line of every report
        bad = [f"{k}: {x}" for k, r in reports.items() for x in agreement(r)]
        check(not bad, "every line: DIFFERENT (or signal) exactly where the "
              "interval excludes 0" + (": " + "; ".join(bad)[:600]
                                       if bad else ""))
    except Exception as e:
        results.append((False, f"crashed: {e}"))
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
