#!/usr/bin/env python3
"""Every published claim as a table, made from the recorded runs.

    scripts/claims.py readme            README's table: the headline
                                        claims (not a "..." follow-up,
                                        not withdrawn)
    scripts/claims.py results           docs/results.md's table
    scripts/claims.py check RUNNER      both tables as the files hold them,
                                        and every record held to its plan

The claims are tests/readme/claims.tsv (one a line).  Seeds, Image, n and
p come from each scenario's record (tests/readme/NAME/runs.json[.gz] and
report.txt; default's is tests/golden/main-job): p from the report lines
the claim names, and every "mean [min..max]" its result quotes must be in
that report.  check also remakes each report from its runs.json and
holds the runs to the plan the shipped configs/NAME.ini gives with the
record's seed.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = "<!-- claims: made by scripts/claims.py %s; make check holds it -->"
END = "<!-- end of claims -->"
STATUS = {"held twice": ("held in two invocations", "yes"),
          "one invocation": ("one invocation", "no: once"),
          "not reproduced": ("not reproduced", "no"),
          "withdrawn": ("withdrawn", "withdrawn")}


def record_dir(name):
    return os.path.join(ROOT, "tests/golden/main-job" if name == "default"
                        else "tests/readme/" + name)


def load_runs(d):
    p = os.path.join(d, "runs.json")
    if os.path.exists(p):
        return open(p, "rb").read()
    return gzip.open(p + ".gz").read()


def claims():
    rows = []
    for line in open(os.path.join(ROOT, "tests/readme/claims.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) != 7 or f[5] not in STATUS:
            sys.exit("claims.tsv: not 7 fields with a known status: " + line)
        rows.append(dict(zip(("thread", "scenario", "claim", "result",
                              "lines", "status", "other"), f)))
    return rows


def figures(row, cache):
    name = row["scenario"]
    if name not in cache:
        d = record_dir(name)
        doc = json.loads(load_runs(d))
        cache[name] = (doc, open(os.path.join(d, "report.txt")).read())
    doc, rep = cache[name]
    sc = doc["scenario"]
    for f in re.findall(r"-?[0-9][0-9.]* \[-?[0-9][0-9.]*\.\.-?[0-9][0-9.]*\]",
                        row["result"]):
        if f not in rep:
            sys.exit("%s: %s is not in %s/report.txt"
                     % (name, f, record_dir(name)))
    ps = []
    for sel in ([] if row["lines"] == "-" else row["lines"].split("|")):
        hit = [l for l in rep.split("\n") if sel in l and "p=" in l]
        if len(hit) != 1:
            sys.exit("%s: %d report lines with p= hold '%s'"
                     % (name, len(hit), sel))
        ps.append(re.search(r"\bp=([0-9][0-9.e-]*[0-9]|[0-9])", hit[0]).group(1))
    p = "-" if not ps else ps[0] + " (each)" if len(ps) > 1 and \
        len(set(ps)) == 1 else ", ".join(ps)
    # a claim compares two variants: each ran REPEAT times (a point)
    r = sc["repeat"]
    n = "%d+%d" % (r, r) + (" a point" if sc.get("sweep_values") else "")
    seeds = sc.get("seed", "0") + (", " + row["other"] if row["other"] else "")
    image = ((doc.get("provenance") or {}).get("kernel_image_sha256")
             or "?")[:12]
    return dict(row, p=p, n=n, seeds=seeds, image=image)


def table(kind):
    cache, out = {}, []
    if kind == "readme":
        out += ["| thread | scenario | claim | result | p | twice |",
                "|---|---|---|---|---|---|"]
    else:
        out += ["| scenario | claim | status | seeds | Image | n | p |",
                "|---|---|---|---|---|---|---|"]
    for row in claims():
        f = figures(row, cache)
        if kind == "readme":
            if f["claim"].startswith("...") or f["status"] == "withdrawn":
                continue
            out.append("| %s | `%s` | %s | %s | %s | %s |" % (
                f["thread"], f["scenario"], f["claim"], f["result"],
                f["p"], STATUS[f["status"]][1]))
        else:
            out.append("| `%s` | %s | %s | %s | %s | %s | %s |" % (
                f["scenario"], f["claim"], STATUS[f["status"]][0],
                f["seeds"], f["image"], f["n"], f["p"]))
    return "\n".join(out) + "\n"


def held_records(run):
    """Each record: the plan configs/NAME.ini gives with its seed, and the
    report its runs.json gives"""
    for name in sorted({r["scenario"] for r in claims()}):
        d = record_dir(name)
        raw = load_runs(d)
        doc = json.loads(raw)
        sc = doc["scenario"]
        if sc.get("file") != "configs/%s.ini" % name:
            sys.exit("%s: recorded from %s, not configs/%s.ini"
                     % (d, sc.get("file"), name))
        plan = [json.loads(l) for l in subprocess.run(
            [run, "list", "--seed", str(sc["seed"]), "configs/%s.ini" % name],
            capture_output=True, text=True, check=True,
            cwd=ROOT).stdout.splitlines()]
        got = sorted((r["index"], r["variant"], bool(r["control"]),
                      str(r["seed"])) for r in doc["runs"])
        want = sorted((p["index"], p["variant"], bool(p["control"]),
                       str(p["seed"])) for p in plan)
        if got != want:
            sys.exit("%s: its runs are not the plan configs/%s.ini gives "
                     "with seed %s" % (d, name, sc["seed"]))
        tmp = tempfile.mkdtemp()
        try:
            open(tmp + "/runs.json", "wb").write(raw)
            subprocess.run([run, "report", tmp], capture_output=True,
                           check=True)
            if open(tmp + "/report.txt").read() != \
                    open(d + "/report.txt").read():
                sys.exit("%s: report.txt is not what its runs.json gives" % d)
        finally:
            shutil.rmtree(tmp)


def block(path, kind):
    text = open(os.path.join(ROOT, path)).read()
    m = re.search(re.escape(BEGIN % kind) + r"\n\n(.*?)\n" + re.escape(END),
                  text, re.S)
    if not m:
        sys.exit("%s has no claims table (%s ... %s)"
                 % (path, BEGIN % kind, END))
    return m.group(1) + "\n"


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("readme", "results"):
        sys.stdout.write(table(sys.argv[1]))
        return
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        sys.exit(__doc__)
    held_records(sys.argv[2])
    for path, kind in (("README.md", "readme"), ("docs/results.md",
                                                 "results")):
        if block(path, kind) != table(kind):
            sys.exit("%s: the claims table is not what scripts/claims.py "
                     "%s makes from the records (remake it)" % (path, kind))
    print("%d claims of %d records, README's and results.md's tables as "
          "made from them" % (len(claims()),
                              len({r["scenario"] for r in claims()})))


if __name__ == "__main__":
    main()
