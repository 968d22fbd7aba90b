#!/bin/bash
# Runner tests without booting: scenario validation (good and bad files),
# reports made again from recorded runs and compared with golden files,
# command line errors.  TAP output.
#
#   tests/runner.sh BUILDDIR
set -uo pipefail
B=${1:?usage: runner.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN=$(cd "$B" && pwd)/runner/smmulab-run
cd "$ROOT"
n=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

for f in configs/*.ini tests/scenarios/good-*.ini; do
    [ "$f" = configs/topologies.ini ] && continue
    if out=$("$RUN" --check "$f" 2>&1); then
        ok "$f is valid: $(echo "$out" | head -n1 | sed 's/^[^:]*: ok: //')"
    else
        notok "$f: $out"
    fi
done

for f in tests/scenarios/bad-*.ini; do
    want=$(sed -n 's/^# expect: //p' "$f")
    "$RUN" --check "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc = 2 ] && [ "$lines" = 1 ] && grep -qF -- "$want" "$tmp/err" && \
       [ ! -s "$tmp/out" ]; then
        ok "$f rejected: $(cat "$tmp/err")"
    else
        notok "$f: exit $rc, $lines line(s) on stderr, want one line with '$want': $(cat "$tmp/err")"
    fi
done

"$RUN" --check tests/scenarios/nonexistent.ini >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q 'nonexistent.ini' "$tmp/err"; then
    ok "missing scenario file: $(cat "$tmp/err")"
else
    notok "missing scenario file: exit $rc: $(cat "$tmp/err")"
fi
"$RUN" --report "$tmp" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q 'runs.json' "$tmp/err"; then
    ok "--report without runs.json: $(cat "$tmp/err")"
else
    notok "--report without runs.json: exit $rc: $(cat "$tmp/err")"
fi

# Every ini block of the docs loads as it is
for doc in README.md docs/*.md; do
    awk -v out="$tmp/snippet-$(basename "$doc" .md)" '
        /^```ini$/ { f = out "-" ++k ".ini"; inblock = 1; next }
        /^```$/ { inblock = 0 }
        inblock { print > f }' "$doc"
done
for f in "$tmp"/snippet-*.ini; do
    [ -e "$f" ] || continue
    if out=$("$RUN" --check "$f" 2>&1); then
        ok "docs snippet $(basename "$f") loads: $(echo "$out" | head -n1 | sed 's/^[^:]*: ok: //')"
    else
        notok "docs snippet $(basename "$f"): $out"
    fi
done

# The design: which runs share a seed.  Independent (default): every
# variant draws its own per repeat; paired: repeat r of every variant boots
# with one seed
for design in independent paired; do
    printf '[scenario]\nrepeat=3\ndesign=%s\n[workload]\nkind=map-unmap\nseconds=1\n[variants]\nlegacy=arm_smmu_v3.cmdq_lock=legacy\nfair=arm_smmu_v3.cmdq_lock=fair\n' \
        "$design" >"$tmp/design-$design.ini"
    "$RUN" --list --no-control "$tmp/design-$design.ini" >"$tmp/design-$design.list" 2>&1
done
if python3 - "$tmp/design-independent.list" "$tmp/design-paired.list" <<'PY'
import json, sys
ind, par = ([json.loads(l) for l in open(f)] for f in sys.argv[1:3])
def seeds(runs, v):
    return [r["seed"] for r in runs if r["variant"] == v and not r["control"]]
ok = (seeds(par, "legacy") == seeds(par, "fair") and
      len(set(seeds(par, "legacy"))) == 3 and
      seeds(ind, "legacy") == seeds(par, "legacy") and
      not set(seeds(ind, "fair")) & set(seeds(ind, "legacy")) and
      len(set(seeds(ind, "fair"))) == 3)
sys.exit(not ok)
PY
then
    ok "design: paired shares each repeat's seed, independent gives each variant its own"
else
    notok "design: seeds as listed: $(cat "$tmp"/design-*.list)"
fi

# runs.json read defensively: each key of a run and of the scenario
# dropped, and given another type, in turn: one line naming the run and
# the key (or a report), never a crash or a GLib warning
if out=$(python3 - tests/golden/lockups/runs.json "$RUN" "$tmp/edited" <<'PY'
import copy, json, os, subprocess, sys
src, run, d = sys.argv[1:4]
doc = json.load(open(src))
bad, total = [], 0
os.makedirs(d, exist_ok=True)
for where in ("run", "scenario"):
    keys = list((doc["runs"][0] if where == "run" else doc["scenario"]).keys())
    for k in keys:
        for mode in ("drop", "retype"):
            e = copy.deepcopy(doc)
            o = e["runs"][0] if where == "run" else e["scenario"]
            if mode == "drop":
                del o[k]
            else:
                o[k] = [] if not isinstance(o[k], list) else "x"
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
            json.dump(e, open(os.path.join(d, "runs.json"), "w"))
            p = subprocess.run([run, "--report", d], capture_output=True,
                               text=True)
            total += 1
            lines = p.stderr.strip().splitlines()
            if (p.returncode < 0 or p.returncode >= 128 or
                    "CRITICAL" in p.stderr or "WARNING" in p.stderr or
                    (p.returncode and len(lines) != 1)):
                bad.append(f"{where} {mode} {k}: rc {p.returncode} "
                           f"{p.stderr.strip()[:120]}")
print(f"{total} edits, {len(bad)} bad" + (": " + "; ".join(bad[:3]) if bad else ""))
sys.exit(1 if bad else 0)
PY
); then
    ok "runs.json edited key by key: $out"
else
    notok "runs.json edited key by key: $out"
fi

# Options checked like the keys they stand for, one line and exit 2 each;
# and the runner from another directory finds its build and topologies
for bad in "--repeat=1000 --check" "--repeat=0 --check" "--console-cap=0 --check" \
           "--list --shard=x" "--list --only=0"; do
    # shellcheck disable=SC2086
    "$RUN" $bad configs/ril.ini >"$tmp/opt.out" 2>"$tmp/opt.err"
    rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$tmp/opt.err")" = 1 ] && [ ! -s "$tmp/opt.out" ]; then
        ok "$bad refused: $(cat "$tmp/opt.err")"
    else
        notok "$bad: exit $rc: $(cat "$tmp/opt.err" "$tmp/opt.out" | head -n 3)"
    fi
done
if out=$(cd / && "$RUN" --check "$ROOT/configs/ril.ini" 2>&1); then
    ok "from another directory: --check finds its build and topologies"
else
    notok "from another directory: $out"
fi
if "$RUN" --version | grep -q '^smmulab-run [0-9]'; then
    ok "--version: $("$RUN" --version)"
else
    notok "--version: $("$RUN" --version 2>&1)"
fi

# The metric ids in docs are the runner's own list, generated
if diff -q <("$RUN" --metrics) docs/metrics.md >/dev/null; then
    ok "docs/metrics.md is smmulab-run --metrics ($(grep -c '^| `' docs/metrics.md) ids)"
else
    notok "docs/metrics.md differs from smmulab-run --metrics (regenerate it): $(diff <("$RUN" --metrics) docs/metrics.md | head -n 3 | tr '\n' ' ')"
fi

# One command with subcommands: each has its own --help, and does what the
# option of the same name did
for c in run check list shard report merge resume metrics lockups stats topology kparams; do
    if "$RUN" "$c" --help >"$tmp/sub.out" 2>&1 && grep -q "smmulab-\(run $c\|$c\)\b" "$tmp/sub.out"; then
        ok "smmulab-run $c --help"
    else
        notok "smmulab-run $c --help: $(head -n 3 "$tmp/sub.out")"
    fi
done
if cmp -s <("$RUN" check configs/default.ini 2>&1) <("$RUN" --check configs/default.ini 2>&1) &&
   cmp -s <("$RUN" list --shard 2/3 configs/default.ini 2>&1) <("$RUN" --list --shard 2/3 configs/default.ini 2>&1) &&
   cmp -s <("$RUN" metrics) docs/metrics.md; then
    ok "check, list and metrics print what --check, --list and --metrics do"
else
    notok "check, list or metrics differ from the options of the same names"
fi
mkdir -p "$tmp/sub-report" && cp tests/golden/lockups/runs.json "$tmp/sub-report/"
if "$RUN" report "$tmp/sub-report" >/dev/null 2>&1 && cmp -s "$tmp/sub-report/report.txt" tests/golden/lockups/report.txt; then
    ok "report DIR remakes the report"
else
    notok "report DIR: $(head -n 3 "$tmp/sub-report/report.txt" 2>&1)"
fi
"$RUN" help >"$tmp/help.out" 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^  [a-z]' "$tmp/help.out")" = 12 ]; then
    ok "help lists the 12 commands"
else
    notok "help: exit $rc: $(head -n 5 "$tmp/help.out")"
fi
"$RUN" check >/dev/null 2>"$tmp/sub.err"
rc=$?
if [ $rc = 2 ] && grep -q 'usage: smmulab-run check SCENARIO.ini' "$tmp/sub.err"; then
    ok "a command without its argument: usage, exit 2"
else
    notok "check without a scenario: exit $rc: $(cat "$tmp/sub.err")"
fi

# scripts/boot.sh: --help and -h print the usage (exit 0); a bad option or
# value is one line and exit 5, not QEMU's 4
if scripts/boot.sh --help | grep -q '^Exit status' && scripts/boot.sh -h >/dev/null; then
    ok "boot.sh --help and -h: usage, exit 0"
else
    notok "boot.sh --help: $(scripts/boot.sh --help 2>&1 | head -n 2)"
fi
for a in "-Z" "-t abc" "-t" "-I x" "-P 1000"; do
    # shellcheck disable=SC2086
    scripts/boot.sh $a >"$tmp/boot.out" 2>"$tmp/boot.err"
    rc=$?
    if [ $rc = 5 ] && [ "$(wc -l <"$tmp/boot.err")" = 1 ]; then
        ok "boot.sh $a: exit 5, $(cat "$tmp/boot.err")"
    else
        notok "boot.sh $a: exit $rc: $(cat "$tmp/boot.err" | head -n 2)"
    fi
done

# The answers that were silent: every wrong input one line and the exit
# the table in docs/scenarios.md gives (2 usage or an input refused, 1 a
# record that cannot be read), nothing written where it is refused.
# one_line NAME WANT_RC GREP CMD...: exit WANT_RC, one stderr line with GREP
one_line() {
    local name=$1 want=$2 pat=$3
    shift 3
    "$@" >"$tmp/one.out" 2>"$tmp/one.err"
    local rc=$?
    if [ $rc = "$want" ] && [ "$(wc -l <"$tmp/one.err")" = 1 ] &&
       grep -qF -- "$pat" "$tmp/one.err"; then
        ok "$name: exit $rc, $(cat "$tmp/one.err")"
    else
        notok "$name: exit $rc (want $want), want one line with '$pat': $(head -c 300 "$tmp/one.err")"
    fi
}
# runs.json: a wrong type anywhere, named by its path, exit 1; no runs, exit 1
for edit in "runs[0].kernel.exclusive_trylock_failures=x" \
            "runs[1].stats.opcodes.CMD_SYNC=x" "runs[0].timeline[0][1]=x" \
            "runs[0].events[0]=[1]" "runs[0].summary.threads=1" \
            "runs[0].result_lines[0]=1" "runs[0].lockup_cpus.0=x" \
            "runs[0].cpus_at_lockups.snapshots[0].cpus[0][0]=x" \
            "scenario.sweep_values=x" "provenance.qemu=[]" "runs=[]"; do
    mkdir -p "$tmp/retype" && rm -f "$tmp/retype"/*
    python3 - tests/golden/main-job/runs.json "$tmp/retype/runs.json" "$edit" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
path, val = sys.argv[3].split("=", 1)
val = json.loads(val) if val[:1] in "[{0123456789" else val
keys = [int(k) if k.isdigit() and "[" + k + "]" in path else k
        for k in re.findall(r"[^.\[\]]+", path)]
o = d
for k in keys[:-1]:
    o = o[k]
if keys[-1] == "CMD_SYNC" and keys[-1] not in o:
    keys[-1] = sorted(o)[0]
o[keys[-1]] = val
json.dump(d, open(sys.argv[2], "w"))
PY
    want=${edit%%=*}
    [ "$edit" = "runs=[]" ] && want='"runs" is empty'
    [[ "$edit" = *CMD_SYNC* ]] && want="runs[1].stats.opcodes."
    [ "$edit" = "runs[0].events[0]=[1]" ] && want="runs[0].events[0] has 1 element(s), not 2"
    one_line "report of a runs.json with $edit" 1 "$want" "$RUN" report "$tmp/retype"
done
# merge: a shard alone is refused, naming the boots missing; --partial
# merges what there is.  Shards cut from the main job's record.
python3 - tests/golden/main-job/runs.json "$tmp/shard" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for i in (1, 2):
    part = dict(d, runs=[r for r in d["runs"] if r["index"] % 2 == i % 2])
    os.makedirs(f"{sys.argv[2]}{i}", exist_ok=True)
    json.dump(part, open(f"{sys.argv[2]}{i}/runs.json", "w"))
    for r in part["runs"]:
        for k in ("log", "cmdline"):
            open(f"{sys.argv[2]}{i}/{r[k]}", "w").close()
PY
one_line "merge of shard 1 of 2 alone" 2 "boot(s) 2, 4, 6, 8, 10, 12, 14 of the plan's 14" \
    "$RUN" merge --out "$tmp/merged-half" "$tmp/shard1"
if [ ! -e "$tmp/merged-half" ]; then
    ok "the refused merge wrote nothing"
else
    notok "the refused merge left $tmp/merged-half"
fi
if "$RUN" merge --partial --out "$tmp/merged-partial" "$tmp/shard1" >"$tmp/one.out" 2>"$tmp/one.err" &&
   grep -q '^  runs: 7 of 7 ok' "$tmp/one.out" && grep -q 'without 2, 4, 6' "$tmp/one.err"; then
    ok "merge --partial: $(cat "$tmp/one.err")"
else
    notok "merge --partial: $(head -c 300 "$tmp/one.err")"
fi
if "$RUN" merge --out "$tmp/merged-whole" "$tmp/shard2" "$tmp/shard1" >/dev/null 2>&1 &&
   cmp -s "$tmp/merged-whole/report.txt" tests/golden/main-job/report.txt; then
    ok "merge of both shards: the main job's report"
else
    notok "merge of both shards: not the main job's report"
fi
# A build of its own, with a QEMU that only plays one (FAKE_QEMU: sleep,
# or print the console FILE): the runner and boot.sh without booting
fake=$tmp/fake
mkdir -p "$fake/guest" "$fake/runner" "$fake/logs"
cat >"$fake/qemu-system-aarch64" <<'SH'
#!/bin/bash
[ "${1:-}" != --version ] || { echo "QEMU emulator version 10.0.0 (a fake)"; exit 0; }
case ${FAKE_QEMU:-} in
sleep) exec sleep 60 ;;
console=*) cat "${FAKE_QEMU#console=}"; exit 0 ;;
esac
exit 1
SH
chmod +x "$fake/qemu-system-aarch64"
: >"$fake/guest/Image"
: >"$fake/guest/initramfs.cpio"
for t in smmulab-topology smmulab-kparams; do
    ln -sf "$(cd "$B" && pwd)/runner/$t" "$fake/runner/$t"
done
printf '[scenario]\nrepeat=1\ncontrol=false\n[workload]\nkind=none\n[variants]\nlegacy=arm_smmu_v3.cmdq_lock=legacy\nfair=arm_smmu_v3.cmdq_lock=fair\n' >"$tmp/two.ini"
one_line "--shard 3/3 of a two-boot plan" 2 "--shard 3/3: the plan has 2 boot(s)" \
    "$RUN" run --build "$fake" --shard 3/3 --out "$tmp/shard33" "$tmp/two.ini"
if [ ! -e "$tmp/shard33" ]; then
    ok "the refused shard wrote nothing"
else
    notok "the refused shard left $tmp/shard33"
fi
: >"$tmp/regular"
one_line "--out at a regular file" 2 "--out $tmp/regular: not a directory" \
    "$RUN" run --build "$fake" --out "$tmp/regular" "$tmp/two.ini"
one_line "report of a missing directory" 2 "no such directory" "$RUN" report "$tmp/nowhere"
one_line "resume of a missing directory" 2 "no such directory" "$RUN" resume "$tmp/nowhere"
mkdir -p "$tmp/empty-dir"
one_line "report of a directory without runs.json" 1 "runs.json" "$RUN" report "$tmp/empty-dir"
one_line "resume of a directory without runs.json" 1 "runs.json" "$RUN" resume "$tmp/empty-dir"
# A binary scenario: refused in one line, its bytes not echoed
printf '\177ELF\002\001\001\000\000\000[x]\nk=\377\376\n' >"$tmp/binary.ini"
one_line "a binary scenario file" 2 "not a scenario file" "$RUN" check "$tmp/binary.ini"
if LC_ALL=C grep -q "$(printf 'ELF\|\377')" "$tmp/one.err"; then
    notok "the binary's bytes echoed: $(cat -v "$tmp/one.err")"
fi
# Interrupted: the boot's line says so and names resume; resume from
# another directory finds the scenario given relative to the first
(cd "$tmp" && FAKE_QEMU=sleep exec "$RUN" run --build "$fake" --out int two.ini \
    >"$tmp/int.out" 2>"$tmp/int.err") &
runner=$!
for _ in $(seq 50); do
    grep -q 'output in' "$tmp/int.err" 2>/dev/null && break
    sleep 0.2
done
sleep 1
kill -INT $runner
wait $runner
rc=$?
if [ $rc = 130 ] && grep -q '^\[1/2\] legacy rep 1 .* interrupted (smmulab-run resume DIR' "$tmp/int.err" &&
   grep -q 'complete the plan with smmulab-run resume int$' "$tmp/int.err"; then
    ok "interrupted: exit 130, the boot's line says interrupted, resume named"
else
    notok "interrupted: exit $rc: $(grep -v '^smmulab-run: two' "$tmp/int.err" | head -c 400)"
fi
(cd / && "$RUN" resume --build "$fake" "$tmp/int" >"$tmp/res.out" 2>"$tmp/res.err")
rc=$?
if [ $rc = 3 ] && grep -q 'resuming: 0 of them ended already, 2 to run' "$tmp/res.err"; then
    ok "resume from another directory: the scenario found, the plan run (exit 3: the fake QEMU fails)"
else
    notok "resume from another directory: exit $rc: $(head -c 300 "$tmp/res.err")"
fi
# Table means with the digits they need: a count of 0 or 1 a run
mkdir -p "$tmp/mean"
python3 - tests/golden/lockups/runs.json "$tmp/mean/runs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = 0
for r in d["runs"]:
    if r["variant"] == "legacy" and not r["control"]:
        r["kernel"]["shared_lock_waits"] = k % 2
        k += 1
json.dump(d, open(sys.argv[2], "w"))
PY
"$RUN" report "$tmp/mean" >/dev/null 2>&1
if grep -qE '^driver: shared lock waits +0\.[0-9] \[0\.\.1\]' "$tmp/mean/report.txt"; then
    ok "a mean of counts 0 and 1: $(grep '^driver: shared lock waits' "$tmp/mean/report.txt" | tr -s ' ')"
else
    notok "mean of counts 0 and 1: $(grep '^driver: shared lock waits' "$tmp/mean/report.txt")"
fi
# A DIFFERENT without a control says so on its own line
mkdir -p "$tmp/noctl"
python3 - tests/golden/control-lockup-independent/runs.json "$tmp/noctl/runs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["scenario"]["control"] = False
d["runs"] = [r for r in d["runs"] if not r["control"]]
json.dump(d, open(sys.argv[2], "w"))
PY
"$RUN" report "$tmp/noctl" >/dev/null 2>&1
if grep -q ': DIFFERENT (no control run)$' "$tmp/noctl/report.txt" &&
   ! grep -q 'no control run' tests/golden/control-lockup-independent/report.txt; then
    ok "DIFFERENT without a control: $(grep -o 'DIFFERENT (no control run)' "$tmp/noctl/report.txt")"
else
    notok "DIFFERENT without a control: $(grep 'DIFFERENT' "$tmp/noctl/report.txt" | head -n 2)"
fi
# boot.sh: the kernel's parameters checked before the boot against the
# Image's list, and after it against what the kernel said it ran
printf 'arm_smmu_v3.cmdq_lock\tchoice\tfair\tfair|legacy\n' >"$fake/guest/Image.params"
FAKE_QEMU=exit one_line "boot.sh -a arm_smmu_v3.cmdq_lok=fair" 5 "arm_smmu_v3.cmdq_lok" \
    scripts/boot.sh -b "$fake" -q -w map-unmap -a arm_smmu_v3.cmdq_lok=fair
rm "$fake/guest/Image.params"
printf '[    0.000000] Kernel command line: console=ttyAMA0 nosuchparam=1\n[    0.000001] Unknown kernel command line parameters "nosuchparam=1", will be passed to user space.\nRESULT status=ok\n' >"$tmp/console.log"
FAKE_QEMU=console=$tmp/console.log scripts/boot.sh -b "$fake" -q -w map-unmap -a nosuchparam=1 \
    >"$tmp/boot.out" 2>"$tmp/boot.err"
rc=$?
if [ $rc = 6 ] && grep -q 'verdict: misconfigured.*nosuchparam' "$tmp/boot.out" "$tmp/boot.err"; then
    ok "boot.sh: a parameter the kernel refused: exit 6, $(grep -h verdict "$tmp/boot.out" "$tmp/boot.err")"
else
    notok "boot.sh with a refused parameter: exit $rc: $(tail -qn 2 "$tmp/boot.out" "$tmp/boot.err")"
fi
# check refuses a value the Image's own list refuses, for the kit's early
# parameters too (their choices read from the setup functions)
if [ -f "$B/guest/Image.params" ]; then
    printf '[scenario]\nrepeat=1\n[workload]\nkind=none\n[variants]\nglobal=\nhashd=iommu.probe_lock=hashd\n' >"$tmp/hashd.ini"
    one_line "check of iommu.probe_lock=hashd" 2 "iommu.probe_lock=hashd: not a value it takes (hashed, global)" \
        "$RUN" check --build "$B" "$tmp/hashd.ini"
else
    ok "# SKIP check of iommu.probe_lock=hashd: no $B/guest/Image.params"
fi
# help names each tool with its real usage: every option it shows is the
# tool's, every argument in the tool's own usage line; and make run
# (build-main) builds each tool help and README name
"$RUN" help >"$tmp/help.out" 2>&1
for t in lockups stats topology kparams; do
    "$RUN" "$t" --help >"$tmp/tool.help" 2>&1
    if out=$(python3 - "$t" "$tmp/help.out" "$tmp/tool.help" <<'PY'
import re, sys
t, helpf, toolf = sys.argv[1:]
lines = open(helpf).read().split("\n")
params = next((l.split(None, 1)[1] for l in lines
               if l.startswith("  " + t + " ")), None)
tool = open(toolf).read()
usage = next((l for l in tool.split("\n") if "smmulab-" + t + " [OPTION" in l), "")
if not params or not usage:
    sys.exit("help shows no usage, or the tool no Usage line")
opts = set(re.findall(r"^\s+(?:-\w, )?(--[a-z-]+)", tool, re.M))
pos = [w for w in re.findall(r"[A-Z][A-Z_]*(?:\.\.\.)?",
                             usage.split("]", 1)[1].split(" - ")[0])]
toks = re.findall(r"--[a-z-]+|[A-Z][A-Z_]*(?:\.\.\.)?", params)
bad = []
for i, w in enumerate(toks):
    if w.startswith("--"):
        if w not in opts:
            bad.append(w + " is no option of the tool")
    elif i and toks[i - 1].startswith("--") and toks[i - 1] + "=" + w in tool:
        pass    # an option's argument, as the tool names it
    elif w not in pos:
        bad.append(w + " is not an argument of the tool (" + usage.strip() + ")")
for w in pos:
    if w not in toks:
        bad.append("the tool's " + w + " missing")
print(params if not bad else "; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then
        ok "help: $t $out (the tool's usage)"
    else
        notok "help: $t: $out"
    fi
done
missing=""
for t in smmulab-run $(grep -o 'smmulab-[a-z]*' README.md "$tmp/help.out" | sed 's/.*://' | sort -u); do
    case $t in smmulab-run|smmulab-lockups|smmulab-stats|smmulab-topology|smmulab-kparams) ;; *) continue ;; esac
    sed -n '/^HOST_TOOLS/,/[^\\]$/p' Makefile | grep -q "\b$t\b" || missing="$missing $t"
done
if [ -z "$missing" ] && grep -q '^build-main:.*' Makefile &&
   grep -A1 '^build-main:' Makefile | grep -q 'HOST_TOOLS'; then
    ok "make run (build-main) builds every host tool help and README name"
else
    notok "make run does not build:$missing"
fi

# Golden reports: remade from recorded runs, byte for byte
for g in tests/golden/*/; do
    name=$(basename "$g")
    mkdir -p "$tmp/$name"
    cp "$g/runs.json" "$tmp/$name/"
    if ! "$RUN" --report "$tmp/$name" >"$tmp/$name.out" 2>&1; then
        notok "golden $name: smmulab-run --report failed: $(cat "$tmp/$name.out")"
        continue
    fi
    for f in report.txt report.json report.svg report.html; do
        if cmp -s "$g/$f" "$tmp/$name/$f"; then
            ok "golden $name: $f as recorded"
        else
            notok "golden $name: $f differs: $(diff "$g/$f" "$tmp/$name/$f" | head -n 5 | tr '\n' ' ')"
        fi
    done
done

# README's example is the main job as shipped: the golden main-job runs
# are the plan configs/default.ini gives (each boot's variant, seed and
# kernel parameters), and every line of the example (but "..." and the
# output path) is a line of that golden's report, in order
if out=$(python3 - "$RUN" configs/default.ini tests/golden/main-job README.md 2>&1 <<'PY'
import json, re, subprocess, sys
run, ini, golden, readme = sys.argv[1:]
plan = [json.loads(l) for l in subprocess.run(
    [run, "list", ini], capture_output=True, text=True,
    check=True).stdout.splitlines()]
runs = {r["index"]: r for r in json.load(open(golden + "/runs.json"))["runs"]}
for p in plan:
    r = runs.get(p["index"])
    if r is None:
        sys.exit("boot %d of %s is not in the golden" % (p["index"], ini))
    got = (r["variant"], bool(r["control"]), r["seed"])
    want = (p["variant"], bool(p["control"]), p["seed"])
    if got != want:
        sys.exit("boot %d: golden %s, %s plans %s" % (p["index"], got, ini, want))
if len(runs) != len(plan):
    sys.exit("golden has %d runs, %s plans %d" % (len(runs), ini, len(plan)))
text = open(readme).read()
m = re.search(r"prints a report like this.*?```\n(.*?)```", text, re.S)
if not m:
    sys.exit("README has no example report")
report = open(golden + "/report.txt").read().split("\n")
at = 0
for line in m.group(1).split("\n"):
    if not line.strip() or line.strip() == "..." or line.startswith("report: "):
        continue
    try:
        at = report.index(line, at) + 1
    except ValueError:
        sys.exit("README example line not in the main job's report (in order): " + line[:100])
print("%d boots as planned, %d example lines" % (len(plan), len(m.group(1).split("\n"))))
PY
); then
    ok "README's example is the main job's report: $out"
else
    notok "README's example: $out"
fi

# README's first A/B is a scenario check takes as it is (runner-e2e runs
# it), and its claims table and results.md's are what scripts/claims.py
# makes from the recorded runs (each record held to its plan and report)
awk '/^## Your first A\/B/ { s = 1 } s && /^```ini$/ { b = 1; next }
     b && /^```$/ { exit } b { print }' README.md >"$tmp/first.ini"
if [ -s "$tmp/first.ini" ] && out=$("$RUN" check "$tmp/first.ini" 2>&1) &&
   echo "$out" | grep -q "^$tmp/first.ini: ok: .* 10 boots"; then
    ok "README's first A/B: $(echo "$out" | head -n1 | sed 's/^[^:]*: ok: //')"
else
    notok "README's first A/B: $out"
fi
if out=$(python3 scripts/claims.py check "$RUN" 2>&1); then
    ok "claims tables: $out"
else
    notok "claims tables: $out"
fi

# docs/start.md's table of the upstream threads (README's before issue
# 41, in words) holds figures of named runs:
# each shipped scenario named in a row (`NAME`, configs/NAME.ini) whose run
# is recorded (tests/readme/NAME/: runs.json, or runs.json.gz, and the
# report.txt it gives; default's is the main-job golden) is held to that
# run: the record is the
# plan the shipped file gives with the record's seed, its report is remade
# from its runs as recorded, and every "mean [min..max]" and "p = P" the row
# gives after the name (up to the next name) is in that report.  Names
# without a record are listed in the result line.
if out=$(python3 - "$RUN" docs/start.md 2>&1 <<'PY'
import gzip, json, os, re, subprocess, sys, tempfile, shutil
run, readme = sys.argv[1:]
def load_runs(d):
    # a record's runs.json may be kept gzipped (runs.json.gz)
    if os.path.exists(d + "/runs.json"):
        return open(d + "/runs.json", "rb").read()
    return gzip.open(d + "/runs.json.gz").read()
names = {f[:-4] for f in os.listdir("configs") if f.endswith(".ini")}
names.discard("topologies")
def record(name):
    if name == "default":
        return "tests/golden/main-job"
    d = "tests/readme/" + name
    return d if os.path.isdir(d) else None
text = open(readme).read()
m = re.search(r"\n## The four upstream threads\n(.*?)\n\n\*\*", text, re.S)
if not m:
    sys.exit(readme + " has no threads table")
rows = [l for l in m.group(1).split("\n")
        if l.startswith("| ") and not l.startswith("| thread") and not l.startswith("|---")]
if not rows:
    sys.exit("the threads table has no rows")
held, unheld, figures = set(), set(), 0
checked = {}
for row in rows:
    cell = row.rstrip(" |").split(" | ")[-1]
    # a row's figures belong to the scenario named last before them: other
    # words in backticks (`full`, `space-kit`) do not end its segment
    segs, parts = [], re.split(r"`([a-z0-9-]+)`", cell)
    for i in range(1, len(parts), 2):
        if parts[i] in names:
            segs.append([parts[i], parts[i + 1]])
        elif segs:
            segs[-1][1] += "`%s`%s" % (parts[i], parts[i + 1])
    for name, seg in segs:
        d = record(name)
        if d is None:
            unheld.add(name)
            continue
        if d not in checked:
            raw = load_runs(d)
            runs = json.loads(raw)
            sc = runs["scenario"]
            if sc.get("file") != "configs/%s.ini" % name:
                sys.exit("%s: recorded from %s, not configs/%s.ini" % (d, sc.get("file"), name))
            plan = [json.loads(l) for l in subprocess.run(
                [run, "list", "--seed", str(sc["seed"]), "configs/%s.ini" % name],
                capture_output=True, text=True, check=True).stdout.splitlines()]
            got = sorted((r["index"], r["variant"], bool(r["control"]), str(r["seed"]))
                         for r in runs["runs"])
            want = sorted((p["index"], p["variant"], bool(p["control"]), str(p["seed"]))
                          for p in plan)
            if got != want:
                sys.exit("%s: its runs are not the plan configs/%s.ini gives with seed %s"
                         % (d, name, sc["seed"]))
            tmp = tempfile.mkdtemp()
            open(tmp + "/runs.json", "wb").write(raw)
            subprocess.run([run, "report", tmp], capture_output=True, check=True)
            rep = open(tmp + "/report.txt").read()
            shutil.rmtree(tmp)
            if rep != open(d + "/report.txt").read():
                sys.exit("%s: report.txt is not what its runs.json gives" % d)
            checked[d] = rep
        rep = checked[d]
        held.add(name)
        for f in re.findall(r"-?[0-9][0-9.]* \[-?[0-9][0-9.]*\.\.-?[0-9][0-9.]*\]", seg):
            figures += 1
            if f not in rep:
                sys.exit("the threads table, %s: %s is not in %s/report.txt" % (name, f, d))
        for pv in re.findall(r"\bp = ([0-9][0-9.e-]*[0-9])", seg):
            figures += 1
            if "p=" + pv not in rep:
                sys.exit("the threads table, %s: p = %s is not in %s/report.txt" % (name, pv, d))
print("%d figures of %s held to their recorded runs; not recorded: %s"
      % (figures, ", ".join(sorted(held)), ", ".join(sorted(unheld)) or "none"))
PY
); then
    ok "docs/start.md's threads table: $out"
else
    notok "docs/start.md's threads table: $out"
fi

# The space wait compared like with like: runs recorded under
# cmdq_alloc=add keep their wait for queue room in add_space_wait_*
# (space_wait_* stay 0 there), and the report's space-wait rows read
# whichever allocator ran; the add path's publication wait has rows of its
# own.  The lockups golden's runs with fair relabelled add and its space
# counters renamed: the rows must come out as the golden's.
mkdir -p "$tmp/alloc"
python3 - tests/golden/lockups/runs.json "$tmp/alloc/runs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["scenario"]["variants"]:
    if v["name"] == "fair":
        v["name"], v["append"] = "add", "arm_smmu_v3.cmdq_alloc=add"
for r in d["runs"]:
    k = r["kernel"]
    if r["variant"] == "legacy" and not r["control"]:
        # cmpxchg's space waits slept 1 s, 0.5 s in the longest
        k.update(space_wait_sleep_ns=1000000000,
                 space_wait_max_sleep_ns=500000000)
    if r["variant"] != "fair":
        continue
    r["variant"] = "add"
    for c in ("space_waits", "space_wait_ns", "space_wait_max_ns"):
        k["add_" + c], k[c] = k[c], 0
    k.update(add_publish_waits=7, add_publish_wait_ns=2000000,
             add_publish_wait_max_ns=1234567)
    if not r["control"]:
        # add's slept 3 s, 1.5 s in its longest; cmpxchg's counters 0
        k.update(space_wait_sleep_ns=0, space_wait_max_sleep_ns=0,
                 add_space_wait_sleep_ns=3000000000,
                 add_space_wait_max_sleep_ns=1500000000)
json.dump(d, open(sys.argv[2], "w"))
PY
if "$RUN" --report "$tmp/alloc" >"$tmp/alloc.out" 2>&1; then
    # soft lockups are counted unlike under add (interrupts off in its
    # publication wait): said once in the header where add meets cmpxchg,
    # and not where the variants share an allocator
    # (and a variant that asked for add but whose kernel said it ran
    # cmpxchg counts as cmpxchg)
    python3 - "$tmp/alloc/runs.json" "$tmp/alloc-refused/runs.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    r["ran"] = "arm_smmu_v3.cmdq_lock=fair; arm_smmu_v3.cmdq_alloc=" + (
        "cmpxchg (add requested: 128 entries < 2 x 65 possible CPUs)"
        if r["variant"] == "add" else "cmpxchg")
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(d, open(sys.argv[2], "w"))
PY
    "$RUN" --report "$tmp/alloc-refused" >/dev/null 2>&1
    if grep -q '^  note: soft lockup counts are not comparable across cmdq_alloc' "$tmp/alloc/report.txt" && \
       ! grep -q 'not comparable across cmdq_alloc' tests/golden/lockups/report.txt && \
       [ -f "$tmp/alloc-refused/report.txt" ] && \
       ! grep -q 'not comparable across cmdq_alloc' "$tmp/alloc-refused/report.txt"; then
        ok "add against cmpxchg: the report says their soft lockup counts are not comparable (not where add was refused)"
    else
        notok "no cmdq_alloc note in a report comparing add with cmpxchg (or one where both ran cmpxchg)"
    fi
    for row in "batches waiting for space" "longest space wait (ms)" "space wait, total (ms)"; do
        got=$(grep "^driver: $row " "$tmp/alloc/report.txt" | head -n1)
        want=$(grep "^driver: $row " tests/golden/lockups/report.txt | head -n1)
        if [ -n "$want" ] && [ "$got" = "$want" ]; then
            ok "add's space wait read from add_space_*: $row as under fair"
        else
            notok "add's space wait: '$got', expected '$want'"
        fi
    done
    # the driver-mechanism verdict on the longest space wait, likewise
    got=$(grep -F "add vs legacy: driver: longest space wait (ms)" "$tmp/alloc/report.txt")
    want=$(grep -F "fair vs legacy: driver: longest space wait (ms)" tests/golden/lockups/report.txt)
    if [ -n "$want" ] && [ "$got" = "${want/fair vs/add vs}" ]; then
        ok "the verdict compares add's space wait: ${got# *}"
    else
        notok "verdict on add's space wait: '$got', expected '${want/fair vs/add vs}'"
    fi
    # the udelay() sleep of the space waits, read from whichever
    # allocator's counters the variant has (legacy: cmpxchg, add: add)
    if grep -qE '^driver: space wait, udelay\(\) slept \(ms\) +1000\.0 +3000\.0 ' "$tmp/alloc/report.txt" && \
       grep -qE '^driver: udelay\(\) slept in the longest space wait \(ms\) +500\.0 +1500\.0 ' "$tmp/alloc/report.txt"; then
        ok "the space waits' udelay() sleep read from either allocator's counters"
    else
        notok "udelay() rows: $(grep 'udelay' "$tmp/alloc/report.txt" | tr '\n' '|')"
    fi
    if grep -qE '^driver: add: longest publication wait \(us\) .* 1234\.6 ' "$tmp/alloc/report.txt"; then
        ok "add's publication wait on a row of its own"
    else
        notok "no row 'driver: add: longest publication wait (us)' with 1234.6 in $tmp/alloc/report.txt"
    fi
else
    notok "smmulab-run --report on add runs: $(cat "$tmp/alloc.out")"
fi

# report.html read by a browser: the primary verdict first and coloured,
# real tables, rows zero in every column folded, evidence collapsible
# (Debian's chromium, headless; the golden report with a DIFFERENT primary)
if command -v chromium >/dev/null; then
    g=tests/golden/control-lockup-independent
    timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom \
        "file://$ROOT/$g/report.html" >"$tmp/dom.html" 2>/dev/null
    first_h2=$(grep -o '<h2>[^<]*</h2>' "$tmp/dom.html" | head -n1)
    if [ "$first_h2" = "<h2>Primary endpoint</h2>" ] && \
       grep -q 'class="primary differs" data-bg="rgb(253, 236, 234)"' "$tmp/dom.html" && \
       [ "$(grep -c '<table class="metrics">' "$tmp/dom.html")" -ge 2 ] && \
       grep -q '<details class="zero-rows"><summary>[0-9]* row(s) zero in every column' "$tmp/dom.html" && \
       grep -q '<details class="evidence"><summary>legacy rep 1: ' "$tmp/dom.html" && \
       grep -q '<table class="exploratory">' "$tmp/dom.html" && \
       ! grep -q '<pre>smmulab report' "$tmp/dom.html"; then
        ok "report.html in chromium: primary verdict first, coloured; tables; zero rows folded; evidence collapsible"
    else
        notok "report.html in chromium: first heading '$first_h2'; $(grep -o 'class="primary[^>]*' "$tmp/dom.html" | head -n1)"
    fi
else
    ok "# SKIP report.html in chromium: chromium not installed"
fi

# Every CPU's place at a lockup, from a console written by hand
# (tests/lockup/console.log): the stuck CPU and every CPU that answered the
# backtrace IPI, an idle one, one asked that never answered, a trace cut by
# an interleaved line, one stopped at a function's entry (its caller only
# in "lr : "), a later kernel's "(P)" mark; placed by symbol name
# (no debug object: the waits inlined into arm_smmu_cmdq_issue_cmdlist
# stay unresolved)
LOCKUPS=$(cd "$B" && pwd)/runner/smmulab-lockups
if out=$("$LOCKUPS" --json --dwarf /nonexistent tests/lockup/console.log | python3 -c '
import json, sys
o = json.load(sys.stdin)
want = {"shared lock": 1, "CMD_SYNC": 2, "CMDQ, wait unresolved": 1,
        "elsewhere": 1, "idle": 1, "no backtrace": 1}
s = o["snapshots"]
ok = (o["lockups"] == 2 and o["all_cpus"] == 1 and o["places"] == want and
      [c[0] for c in s[0]["cpus"]] == [0, 1, 2, 3, 4, 5] and s[0]["stuck"] == 3 and
      s[1]["cpus"] == [[1, "elsewhere", "bench_thread_fn"]] and
      o["resolved"].startswith("no debug object at /nonexistent"))
print(o["places"])
sys.exit(0 if ok else 1)
' 2>&1); then
    ok "smmulab-lockups: every CPU of a hand-written console placed: $out"
else
    notok "smmulab-lockups: $out"
fi
"$LOCKUPS" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q '^smmulab-lockups: no console log given' "$tmp/err"; then
    ok "smmulab-lockups without a log: exit 2, one line"
else
    notok "smmulab-lockups without a log: exit $rc: $(cat "$tmp/err")"
fi
"$LOCKUPS" "$tmp/missing.log" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; then
    ok "smmulab-lockups on a missing log: exit 1: $(cat "$tmp/err")"
else
    notok "smmulab-lockups on a missing log: exit $rc: $(cat "$tmp/err")"
fi

# The DWARF path on an object compiled here (no kernel needed): a wait
# inlined into arm_smmu_cmdq_issue_cmdlist() whose call is its last
# instruction, so the return address (the next instruction) is already
# outside it.  A return address is looked up 4 bytes back (the stuck CPU's
# second frame: CMD_SYNC), an interrupted PC as it is (CPU 1 at the call:
# CMD_SYNC; CPU 2 at the next instruction: "CMDQ, other")
cat >"$tmp/drv.c" <<'SRC'
void ext_poll(void);
void ext_after(int);

static inline __attribute__((always_inline)) void arm_smmu_cmdq_poll_until_sync(void)
{
	ext_poll();
}

void arm_smmu_cmdq_issue_cmdlist(int sync)
{
	if (sync)
		arm_smmu_cmdq_poll_until_sync();
	else
		ext_after(0);
	ext_after(1);
}
SRC
if aarch64-linux-gnu-gcc -O2 -g -fno-optimize-sibling-calls -c "$tmp/drv.c" -o "$tmp/drv.o"; then
    size=$(aarch64-linux-gnu-objdump -t "$tmp/drv.o" | awk '$NF == "arm_smmu_cmdq_issue_cmdlist" { print $5 }')
    bl=$(aarch64-linux-gnu-objdump -dr "$tmp/drv.o" | awk '/R_AARCH64_CALL26\text_poll/ { sub(":", "", $1); print $1 }')
    size=$(printf 0x%x $((0x$size)))
    call=$(printf 0x%x $((0x$bl)))
    ret=$(printf 0x%x $((0x$bl + 4)))
    after=$(aarch64-linux-gnu-addr2line -afi -j .text -e "$tmp/drv.o" "$ret")
    cat >"$tmp/drv.log" <<LOG
[    1.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 3s! [x:1]
[    1.000001] Call trace:
[    1.000002]  ext_poll+0x8/0x20
[    1.000003]  arm_smmu_cmdq_issue_cmdlist+$ret/$size
[    1.000004] Sending NMI from CPU 0 to CPUs 1-2:
[    1.000005] NMI backtrace for cpu 1
[    1.000006] Call trace:
[    1.000007]  arm_smmu_cmdq_issue_cmdlist+$call/$size
[    1.000008] NMI backtrace for cpu 2
[    1.000009] Call trace:
[    1.000010]  arm_smmu_cmdq_issue_cmdlist+$ret/$size
LOG
    got=$("$LOCKUPS" --json --dwarf "$tmp/drv.o" "$tmp/drv.log" |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshots"][0]["cpus"])')
    want="[[0, 'CMD_SYNC', 'arm_smmu_cmdq_poll_until_sync'], [1, 'CMD_SYNC', 'arm_smmu_cmdq_poll_until_sync'], [2, 'CMDQ, other', 'arm_smmu_cmdq_issue_cmdlist, drv.c:15']]"
    if echo "$after" | grep -q arm_smmu_cmdq_poll_until_sync; then
        ok "# SKIP smmulab-lockups on a compiled object: this compiler keeps the instruction after the call in the inlined wait"
    elif [ "$got" = "$want" ]; then
        ok "smmulab-lockups on a compiled object: a return address looked up at its call, a PC as it is: $got"
    else
        notok "smmulab-lockups on a compiled object: got $got, want $want"
    fi
else
    notok "smmulab-lockups on a compiled object: aarch64-linux-gnu-gcc failed"
fi

echo "1..$n"
[ $fails = 0 ]
