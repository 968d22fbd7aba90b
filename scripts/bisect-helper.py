#!/usr/bin/env python3
"""smmulab-bisect.sh's helper: the scenario of one step, the pooled
comparisons, and the decision (docs/scenarios.md, "Bisect a lockup").

  bisect-helper.py check SCENARIO [VARIANT]
      one line: VARIANT REPEAT SEED PRIMARY, or an error (exit 2)
  bisect-helper.py scenario SCENARIO VARIANT OUT.ini KERNEL INITRD REPEAT
      the scenario with that variant only, booting KERNEL and INITRD,
      control=off, REPEAT runs
  bisect-helper.py pool RUNNER OUTDIR REFDIR... -- TESTDIR...
      the runs of the REFDIRs as variant "ref" against those of the
      TESTDIRs as "test" in OUTDIR/runs.json, reported by the runner
      (--report); one line: DIFFERS P NREF NTEST
  bisect-helper.py decide DIFFERS_VS_GOOD DIFFERS_VS_BAD
      good, bad or more
"""
import configparser
import json
import os
import subprocess
import sys


def die(msg):
    print("smmulab-bisect: error: %s" % msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    cp = configparser.ConfigParser(delimiters=("=",), comment_prefixes=("#",),
                                   interpolation=None, strict=False,
                                   empty_lines_in_values=False)
    cp.optionxform = str
    try:
        with open(path) as f:
            cp.read_file(f)
    except (OSError, configparser.Error) as e:
        die("%s: %s" % (path, str(e).splitlines()[0]))
    return cp


def check(path, variant=None):
    cp = load(path)
    if not cp.has_section("scenario") or not cp.get("scenario", "primary",
                                                    fallback="").strip():
        die("%s has no primary= in [scenario]: a bisect decides on the "
            "primary endpoint" % path)
    if cp.has_section("sweep"):
        die("%s has a [sweep]: a bisect takes one point" % path)
    names = list(cp["variants"].keys()) if cp.has_section("variants") else []
    if not names:
        die("%s has no [variants]" % path)
    if variant is None:
        variant = names[0]
    elif variant not in names:
        die("%s has no variant %s (it has: %s)" % (path, variant,
                                                   " ".join(names)))
    return (cp, variant, cp.getint("scenario", "repeat", fallback=1),
            cp.get("scenario", "seed", fallback="0").strip() or "0",
            cp.get("scenario", "primary").strip())


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "check":
        _, v, rep, seed, primary = check(argv[2], argv[3] if len(argv) > 3 else None)
        print(v, rep, seed, primary)
    elif cmd == "scenario":
        src, variant, out, kernel, initrd, repeat = argv[2:8]
        cp, variant, _, _, _ = check(src, variant)
        append = cp["variants"][variant]
        for s in list(cp.sections()):
            if s.startswith("variant."):
                cp.remove_section(s)
        cp.remove_section("variants")
        cp["variants"] = {variant: append}
        cp["variant." + variant] = {"kernel": kernel, "initrd": initrd}
        # the runner wants the scenario's default kernel too
        if not cp.has_section("guest"):
            cp["guest"] = {}
        cp["guest"]["kernel"] = kernel
        cp["guest"]["initrd"] = initrd
        sc = cp["scenario"]
        sc["control"] = "off"
        sc["repeat"] = repeat
        sc.pop("baseline", None)
        if "name" not in sc:
            sc["name"] = os.path.splitext(os.path.basename(src))[0]
        with open(out, "w") as f:
            f.write("# smmulab-bisect: one step of %s\n" % src)
            cp.write(f, space_around_delimiters=False)
    elif cmd == "pool":
        runner, outdir = argv[2:4]
        rest = argv[4:]
        sep = rest.index("--")
        sides = (("ref", rest[:sep]), ("test", rest[sep + 1:]))
        runs, scenario, n = [], None, {}
        for name, dirs in sides:
            rep = 0
            for d in dirs:
                with open(os.path.join(d, "runs.json")) as f:
                    j = json.load(f)
                if scenario is None:
                    scenario = j
                for r in j["runs"]:
                    if r.get("control"):
                        continue
                    rep += 1
                    r = dict(r)
                    r["variant"] = name
                    r["rep"] = rep
                    r["index"] = len(runs) + 1
                    # logs stay in their own directories
                    for k in ("log", "cmdline"):
                        if r.get(k):
                            r[k] = os.path.relpath(os.path.join(d, r[k]), outdir)
                    runs.append(r)
            n[name] = rep
        sc = dict(scenario["scenario"])
        v = sc["variants"][0]
        sc["variants"] = [dict(v, name="ref"), dict(v, name="test")]
        sc["baseline"] = "ref"
        sc["repeat"] = max(n.values())
        sc["control"] = False
        # runs of two kernels from separate batches (and pooled batches of
        # unequal size) never pair up, whatever seeds they booted with
        sc["design"] = "independent"
        sc["description"] = "smmulab-bisect: %d run(s) of %s against %d of %s" % (
            n["ref"], " ".join(sides[0][1]), n["test"], " ".join(sides[1][1]))
        os.makedirs(outdir, exist_ok=True)
        out = dict(scenario)
        out["scenario"] = sc
        out["runs"] = runs
        with open(os.path.join(outdir, "runs.json"), "w") as f:
            json.dump(out, f, indent=1)
        subprocess.run([runner, "--report", outdir], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(outdir, "report.json")) as f:
            rj = json.load(f)
        prim = [x for x in rj["verdicts"] if x.get("primary")]
        if len(prim) != 1:
            die("%s/report.json: %d primary verdicts, not 1" % (outdir, len(prim)))
        p = prim[0]
        print("yes" if p["differs"] else "no", "%.4g" % p["p"], n["ref"], n["test"])
    elif cmd == "decide":
        dg, db = argv[2] == "yes", argv[3] == "yes"
        if dg and not db:
            print("bad")
        elif db and not dg:
            print("good")
        else:
            print("more")
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
