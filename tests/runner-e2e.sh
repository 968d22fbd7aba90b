#!/bin/bash
# Runner end to end: a short real scenario (deterministic, with control),
# and a robustness scenario whose guests panic, hang and flood the console
# before a good run.  TAP output.
#
#   tests/runner-e2e.sh BUILDDIR
set -uo pipefail
B=${1:?usage: runner-e2e.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
RUN=$B/runner/smmulab-run
OUT=$B/logs/runner-e2e
cd "$ROOT"
rm -rf "$OUT"
mkdir -p "$OUT"
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
check() {
    local what=$1
    shift
    if "$@"; then ok "$what"; else notok "$what"; fi
}

"$RUN" --build "$B" --out "$OUT/e2e" tests/scenarios/e2e.ini >"$OUT/e2e.out" 2>"$OUT/e2e.err"
rc=$?
check "e2e: exit 0 (got $rc)" [ $rc = 0 ]
for f in report.txt report.json report.svg runs.json; do
    check "e2e: $f written" test -s "$OUT/e2e/$f"
done
check "e2e: 3 console logs and command lines kept" \
    [ "$(ls "$OUT"/e2e/*.log | wc -l)" = 3 -a "$(ls "$OUT"/e2e/*.cmdline | wc -l)" = 3 ]
check "e2e: all runs ok" grep -q '^  runs: 3 of 3 ok' "$OUT/e2e.out"
check "e2e: seeded repeats differ under icount" \
    grep -q '^  repeats: seeded repeats (a rerun of this file gives them again bit for bit): 1 of 1 repeated runs differ' "$OUT/e2e.out"
check "e2e: each run booted with its seed" \
    python3 -c "import json,sys; r=json.load(open('$OUT/e2e/runs.json'))['runs']; s=[x['seed'] for x in r]; c=[open('$OUT/e2e/'+x['cmdline']).read() for x in r]; sys.exit(not (s[0] != s[1] and s[2] == s[0] and all('smmulab.seed=' + a in b for a, b in zip(s, c)) and 'cmdq-seed=' + s[0] in c[0]))"
# The same file again, recording timelines: the same runs and the same
# report, bit for bit (under icount: tracing does not move the guest), but
# for where it was written, its command line and the timelines' names
"$RUN" --build "$B" --trace --out "$OUT/e2e-again" tests/scenarios/e2e.ini >"$OUT/e2e-again.out" 2>&1
# same_report A B: the same report.json but for host times and provenance
same_report() {
    python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(d + "/report.json")) for d in sys.argv[1:3])
for k in ("provenance",):
    a.pop(k, None); b.pop(k, None)
def strip(r):
    # host-time figures: how long the host took, not what the guest did
    for k in ("wall_s", "timeline", "events", "clock_s", "trace"):
        r.pop(k, None)
    return r
a["runs"] = [strip(r) for r in a["runs"]]
b["runs"] = [strip(r) for r in b["runs"]]
# the provenance lines: the host, and what the tree was when each ran
prov = ("host:", "built from:")
a["header"] = [l for l in a["header"] if not l.startswith(prov)]
b["header"] = [l for l in b["header"] if not l.startswith(prov)]
diff = [k for k in a if a[k] != b.get(k)]
print("differs in: " + ", ".join(diff) if diff else
      f"{len(a['runs'])} runs, {len(a['verdicts'])} verdict lines, "
      f"{len(a['table'])} table rows equal")
sys.exit(1 if diff else 0)
PY
}
if out=$(same_report "$OUT/e2e" "$OUT/e2e-again"); then
    ok "e2e: a second invocation gives the same report.json (host times and provenance aside): $out"
else
    notok "e2e: a second invocation differs: $out"
fi
# The timeline, read as a viewer would: JSON, timestamps in order, the
# tracks named, one slice per command the model retired, linked from the page
if out=$(python3 - "$OUT/e2e-again" <<'PY'
import json, sys
d = sys.argv[1]
run = json.load(open(d + "/runs.json"))["runs"][0]
ev = json.load(open(d + "/" + run["trace"]))["traceEvents"]
tracks = {e["args"]["name"] for e in ev if e["ph"] == "M"}
want = {"SMMU model (virtual time)", "command at the head", "CMD_SYNC waits",
        "queue full", "guest (its own clock)"}
ts = [e["ts"] for e in ev if e["ph"] != "M"]
cmds = sum(1 for e in ev if e["ph"] == "X" and e["tid"] == 1)
syncs = sum(1 for e in ev if e["ph"] == "X" and e["name"] == "CMD_SYNC" and e["tid"] == 2)
counter = sum(1 for e in ev if e["ph"] == "C")
html = open(d + "/report.html").read()
ok = (want <= tracks and ts == sorted(ts) and cmds == run["stats"]["retired"]
      and syncs == run["stats"]["syncs"] and counter == cmds and cmds > 1000
      and 'class="trace" href="' + run["trace"] + '"' in html)
print(f"{len(ev)} events, {cmds} commands (model: {run['stats']['retired']}), "
      f"{syncs} CMD_SYNC waits, tracks {sorted(tracks)}")
sys.exit(0 if ok else 1)
PY
); then
    ok "e2e: --trace timeline loads: $out"
else
    notok "e2e: --trace timeline: $out"
fi
check "e2e: control clean, result reliable" grep -q 'the comparison stands' "$OUT/e2e.out"
check "e2e: table has the variant and its control" \
    grep -qE '^ +fair \| +control:fair' "$OUT/e2e.out"
check "e2e: model counters in the table" grep -qE '^model: CMD_SYNCs +[1-9]' "$OUT/e2e.out"
check "e2e: progress shown" grep -q '^\[1/3\] fair rep 1 .*retired=' "$OUT/e2e.err"
check "e2e: report names where it is" grep -q "^report: $OUT/e2e/report.html, report.txt" "$OUT/e2e.out"
check "e2e: provenance in the report" \
    grep -qE '^  built from: smmulab [0-9a-f]{7,}.*; QEMU emulator version 10\.0\.[0-9]+ \(smmulab\); Linux 6\.12\.[0-9]+ \(Image [0-9a-f]{12}, config [0-9a-f]{12}\); patches: qemu [0-9a-f]{12}, linux [0-9a-f]{12}$' "$OUT/e2e.out"
check "e2e: host and command line in the report" \
    grep -qE "^  host: .+, [0-9]+ cores; smmulab-run [0-9.]+: .*smmulab-run --build $B --out $OUT/e2e tests/scenarios/e2e.ini$" "$OUT/e2e.out"
check "e2e: runs.json names logs relative to itself" \
    python3 -c "import json,sys; r=json.load(open('$OUT/e2e/runs.json'))['runs']; sys.exit(not all('/' not in x['log'] and '/' not in x['cmdline'] and x['kernel_version'].startswith('6.12') for x in r))"

# Complete counts: more CMD_SYNC timeouts than the kernel prints, counted
"$RUN" --build "$B" --out "$OUT/counts" tests/scenarios/counts.ini >"$OUT/counts.out" 2>"$OUT/counts.err"
rc=$?
check "counts: exit 0 (got $rc)" [ $rc = 0 ]
if out=$(python3 - "$OUT/counts/runs.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
res = {}
for l in r["result_lines"]:
    w = l.split()
    if w[0] in ("kernel-counters-start", "kernel-counters"):
        res[w[0]] = dict(kv.split("=") for kv in w[1:])
ops = int(r["summary"]["ops"])
during = int(res["kernel-counters"]["cmd_sync_timeouts"]) - \
    int(res["kernel-counters-start"]["cmd_sync_timeouts"])
secs = int(r["summary"]["elapsed_ns"]) / 1e9
ok = (r["timeouts_exact"] and during == ops and ops > 10 and secs < 5 and
      r["cmd_sync_timeouts"] == int(res["kernel-counters"]["cmd_sync_timeouts"]) and
      r["cmd_sync_timeouts_printed"] < r["cmd_sync_timeouts"])
print(f"{during} timeouts during {ops} flushes in {secs:.1f} s; run total "
      f"{r['cmd_sync_timeouts']}, {r['cmd_sync_timeouts_printed']} printed, "
      f"{r['suppressed']} reported suppressed")
sys.exit(0 if ok else 1)
PY
); then
    ok "counts: every timeout counted: $out"
else
    notok "counts: timeouts not counted exactly: $out"
fi
check "counts: report says the count is exact" grep -q '^  timeouts: counted by the kit kernel' "$OUT/counts.out"
check "counts: evidence names the run and its log" \
    grep -qE "^  fair rep 1: 0 soft lockup\(s\), 0 CMDQ and [0-9]+ CMD_SYNC timeout\(s\) \(counted by the kernel\)" "$OUT/counts.out"

# report.html: the text, the chart and a timeline per run, drawn by a
# real browser (Debian's chromium, headless)
check "e2e: report.html has a timeline per run" \
    [ "$(grep -c '<svg class="timeline"' "$OUT/e2e/report.html")" = 3 ]
check "e2e: latency distribution from the guest's histograms, a line per column" \
    [ "$(grep -c '<polyline' "$OUT/e2e/report-cdf.svg")" = 2 ]
check "e2e: the timelines have the model's samples" \
    [ "$(grep -c '<polyline points="[0-9]' "$OUT/e2e/report.html")" -ge 3 ]
if command -v chromium >/dev/null; then
    timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom \
        "file://$OUT/e2e/report.html" >"$OUT/e2e.dom" 2>/dev/null
    check "e2e: chromium drew the chart, the latency distribution and all 3 timelines ($(grep -o 'data-drawn="yes"' "$OUT/e2e.dom" | wc -l) drawings)" \
        [ "$(grep -o 'data-drawn="yes"' "$OUT/e2e.dom" | wc -l)" = 5 ]
else
    ok "# SKIP e2e: chromium not installed (apt-get install chromium)"
fi

# Every CPU's place at a lockup (docs/guest.md, "Every CPU at a lockup"):
# the main job's storm, one run under icount with all_cpu_backtrace=on.
# Every lockup lists all 8 CPUs, every frame resolved through the driver's
# debug object, and some CPUs are found in waits that run with interrupts
# off (CMD_SYNC, shared lock): only a pseudo-NMI backtrace reaches them
# there; without one they answer at a local_irq_restore() ("CMDQ, other")
"$RUN" --build "$B" --out "$OUT/cpus" tests/scenarios/cpus-at-lockup.ini \
    >"$OUT/cpus.out" 2>"$OUT/cpus.err"
rc=$?
check "cpus-at-lockup: exit 0 (got $rc)" [ $rc = 0 ]
if out=$(python3 - "$OUT/cpus/runs.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
o = r.get("cpus_at_lockups")
if not o:
    print("no cpus_at_lockups in the run (soft lockups: %s)" % r["soft_lockups"])
    sys.exit(1)
p = o["places"]
every = all(len(s["cpus"]) == 8 for s in o["snapshots"])
irqs_off = p.get("CMD_SYNC", 0) + p.get("shared lock", 0)
print("%d lockups, all with every CPU: %s; %s; resolved: %s" %
      (o["lockups"], o["all_cpus"] == o["lockups"] and every, p, o["resolved"]))
ok = (o["lockups"] > 0 and o["all_cpus"] == o["lockups"] and every and
      o["resolved"].startswith("DWARF of ") and
      not p.get("no backtrace") and not p.get("CMDQ, wait unresolved") and
      p.get("queue space", 0) > 0 and irqs_off > 0)
sys.exit(0 if ok else 1)
PY
); then
    ok "cpus-at-lockup: every CPU placed at every lockup, some in interrupts-off waits: $out"
else
    notok "cpus-at-lockup: $out"
fi
check "cpus-at-lockup: report sums the places per variant" \
    grep -qE '^  legacy: [0-9]+ lockup\(s\) in 1 run\(s\), every CPU.s backtrace at [0-9]+: .*queue space [0-9]+' "$OUT/cpus.out"
check "cpus-at-lockup: the evidence lists the first lockup CPU by CPU" \
    grep -qE '^      lockup 1 at [0-9.]+ s, CPU#[0-9] stuck: CPU#0 .*CPU#7 ' "$OUT/cpus.out"
# smmulab-lockups on the run's console: the runner's places again; with
# another build's object (the lockdep kernel's) it refuses to guess
log1=$(ls "$OUT"/cpus/01-*.log)
if out=$(python3 - "$OUT/cpus/runs.json" "$B/runner/smmulab-lockups" "$log1" <<'PY'
import json, subprocess, sys
r = json.load(open(sys.argv[1]))["runs"][0]["cpus_at_lockups"]
c = json.loads(subprocess.check_output([sys.argv[2], "--json", sys.argv[3]]))
print(c["places"])
sys.exit(0 if c["places"] == r["places"] else 1)
PY
); then
    ok "smmulab-lockups on the run's log gives the runner's places: $out"
else
    notok "smmulab-lockups on the run's log: $out"
fi
if [ -f "$B/lockdep/guest/arm-smmu-v3.debug.o" ]; then
    check "smmulab-lockups with another build's debug object: waits left unresolved, saying why" \
        sh -c "'$B/runner/smmulab-lockups' --dwarf '$B/lockdep/guest/arm-smmu-v3.debug.o' '$log1' | grep -Eq 'another build than the kernel that ran: arm_smmu_cmdq_issue_cmdlist(_variant)? is 0x[0-9a-f]* bytes in the kernel that ran'"
else
    ok "# SKIP smmulab-lockups with another build's object: no $B/lockdep/guest/arm-smmu-v3.debug.o"
fi

# kill the QEMU of the "killed" variant once it runs (SIGKILL: QEMU dies)
( for _ in $(seq 1 600); do
      if pkill -KILL -f 'smmulab[.]tag=killme'; then exit 0; fi
      sleep 0.1
  done ) &
killer=$!
"$RUN" --build "$B" --out "$OUT/rob" --console-cap 262144 tests/scenarios/robustness.ini \
    >"$OUT/rob.out" 2>"$OUT/rob.err"
rc=$?
kill $killer 2>/dev/null
wait $killer 2>/dev/null
check "robustness: exit 3 for failed runs (got $rc)" [ $rc = 3 ]
check "robustness: panic reported" grep -q '^  run panic rep 1: panic: .*Kernel panic' "$OUT/rob.out"
check "robustness: hang reported as timeout" grep -q '^  run hang rep 1: timeout: no end after 10s' "$OUT/rob.out"
check "robustness: flood reported as timeout" grep -q '^  run flood rep 1: timeout' "$OUT/rob.out"
check "robustness: a killed QEMU reported" grep -q '^  run killed rep 1: qemu-failed: QEMU ended' "$OUT/rob.out"
check "robustness: the good run after them ran and passed" grep -q '^  runs: 1 of 5 ok' "$OUT/rob.out"
check "robustness: flood flagged in runs.json" grep -q '"console_flood" : true' "$OUT/rob/runs.json"
size=$(stat -c %s "$OUT"/rob/03-flood-rep1.log 2>/dev/null || echo 0)
check "robustness: flood log capped at 256 KiB (got $size bytes)" [ "$size" -le 262144 -a "$size" -gt 0 ]
check "robustness: every run's log kept" [ "$(ls "$OUT"/rob/*.log | wc -l)" = 5 ]

# Kernel against kernel: a variant boots its own Image (here a copy)
cp "$B/guest/Image" "$OUT/other-Image"
cat >"$OUT/kernels.ini" <<EOF
[scenario]
name=kernels
timeout=60
control=off
[machine]
cpus=1
memory=256M
[workload]
kind=none
[variants]
kit=
other=
[variant.other]
kernel=$OUT/other-Image
EOF
"$RUN" --build "$B" --out "$OUT/kernels" "$OUT/kernels.ini" >"$OUT/kernels.out" 2>"$OUT/kernels.err"
rc=$?
check "kernels: exit 0 (got $rc)" [ $rc = 0 ]
check "kernels: the variant booted its own Image" grep -qF -- "'-kernel' '$OUT/other-Image'" "$OUT/kernels/02-other-rep1.cmdline"
check "kernels: the other variant booted the kit's" grep -qF -- "'-kernel' '$B/guest/Image'" "$OUT/kernels/01-kit-rep1.cmdline"
check "kernels: runs.json records it" grep -q "\"kernel\" : \"$OUT/other-Image\"" "$OUT/kernels/runs.json"
h=$(sha256sum "$OUT/other-Image" | cut -c1-12)
check "kernels: provenance records the own Image's hash" grep -q "\"other\" : \"$h" "$OUT/kernels/runs.json"
check "kernels: the report names each variant's kernel" \
    grep -qF "for other (own kernel $OUT/other-Image, Image $h)" "$OUT/kernels/report.txt"

# Fan out: the plan in three shards run by GNU parallel, merged, reports
# the same as one process's (but for the command line in its provenance)
"$RUN" --build "$B" --out "$OUT/whole" tests/scenarios/shards.ini >"$OUT/whole.out" 2>"$OUT/whole.err"
check "shards: the whole plan ran (exit $?)" test -s "$OUT/whole/report.txt"
"$RUN" --list tests/scenarios/shards.ini >"$OUT/shards.list"
check "shards: --list gives one JSON line per boot" \
    python3 -c "import json; l=[json.loads(x) for x in open('$OUT/shards.list')]; assert [x['index'] for x in l]==[1,2,3] and all(x['cpus']==2 for x in l)"
if command -v parallel >/dev/null; then
    parallel -j2 "$RUN" --build "$B" --out "$OUT/shard{}" --shard {}/3 \
        tests/scenarios/shards.ini ::: 1 2 3 >"$OUT/shards.out" 2>"$OUT/shards.err"
    check "shards: three shards ran under GNU parallel (exit $?)" \
        test -s "$OUT/shard1/runs.json" -a -s "$OUT/shard2/runs.json" -a -s "$OUT/shard3/runs.json"
    "$RUN" --merge --out "$OUT/merged" "$OUT/shard3" "$OUT/shard1" "$OUT/shard2" >"$OUT/merged.out" 2>&1
    check "shards: merged (exit $?)" test -s "$OUT/merged/report.txt"
    check "shards: merged report identical to the one-process run's" \
        cmp -s <(grep -v '^  host:' "$OUT/whole/report.txt") <(grep -v '^  host:' "$OUT/merged/report.txt")
    check "shards: every log merged beside runs.json" [ "$(ls "$OUT"/merged/*.log | wc -l)" = 3 ]
    check "shards: merged runs in plan order (given shards 3, 1, 2)" \
        python3 -c "import json,sys; r=json.load(open('$OUT/merged/runs.json'))['runs']; sys.exit([x['index'] for x in r] != [1, 2, 3])"
else
    ok "# SKIP shards: GNU parallel not installed (apt-get install parallel)"
fi
"$RUN" --merge --out "$OUT/bad-merge" "$OUT/whole" "$OUT/e2e" >/dev/null 2>"$OUT/bad-merge.err"
rc=$?
check "shards: runs of another scenario refused (exit $rc: $(cat "$OUT/bad-merge.err"))" [ $rc = 2 ]

# Nothing lost.  --out on a directory that holds a result is refused and
# the result left as it was
sum0=$(cat "$OUT/e2e"/* | md5sum)
"$RUN" --build "$B" --out "$OUT/e2e" tests/scenarios/e2e.ini >/dev/null 2>"$OUT/out-taken.err"
rc=$?
check "--out over a result: refused, exit 2 (got $rc: $(cat "$OUT/out-taken.err"))" \
    sh -c "[ $rc = 2 ] && grep -q 'holds files already' '$OUT/out-taken.err'"
check "--out over a result: the result untouched" [ "$(cat "$OUT/e2e"/* | md5sum)" = "$sum0" ]
# A refused merge writes nothing
"$RUN" --merge --out "$OUT/bad-merge2" "$OUT/e2e" "$OUT/misconfigured" >/dev/null 2>&1
check "a refused merge leaves no directory behind" [ ! -e "$OUT/bad-merge2" ]
# An interrupted run resumed: the boots that ended are kept, the rest run,
# and the report is the uninterrupted one's
"$RUN" --build "$B" --out "$OUT/resumed" tests/scenarios/e2e.ini >"$OUT/resumed-1.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
    k=$(grep -c '"index"' "$OUT/resumed/runs.json" 2>/dev/null)
    [ "${k:-0}" -ge 1 ] && break
    sleep 0.05
done
kill -TERM $pid
wait $pid
rc=$?
ended=$(python3 -c "import json; print(sum(r['verdict'] != 'interrupted' for r in json.load(open('$OUT/resumed/runs.json'))['runs']))")
check "resume: the first invocation interrupted (exit $rc) after $ended of 3 boots" [ $rc = 143 ]
"$RUN" --build "$B" --resume "$OUT/resumed" >"$OUT/resumed-2.out" 2>&1
rc=$?
check "resume: exit 0 (got $rc)" [ $rc = 0 ]
check "resume: says what it resumes" grep -q "resuming: $ended of them ended already, $((3 - ended)) to run" "$OUT/resumed-2.out"
if out=$(same_report "$OUT/e2e" "$OUT/resumed"); then
    ok "resume: the same report.json as the uninterrupted run's: $out"
else
    notok "resume: differs from the uninterrupted run: $out"
fi
"$RUN" --build "$B" --resume "$OUT/resumed" tests/scenarios/e2e.ini >/dev/null 2>"$OUT/resume-usage.err"
rc=$?
check "resume: a scenario beside --resume is a usage error (exit $rc)" [ $rc = 2 ]

# A QEMU whose monitor stops answering (SIGSTOP) ends as a timeout, within
# the scenario's 10 s plus the QMP and kill grace periods
( for _ in $(seq 1 300); do
      if pgrep -f 'smmulab[.]tag=stopme' >/dev/null; then
          sleep 3
          pkill -STOP -f 'smmulab[.]tag=stopme'
          exit 0
      fi
      sleep 0.1
  done ) &
stopper=$!
t0=$(date +%s)
timeout 60 "$RUN" --build "$B" --out "$OUT/stopped" tests/scenarios/signals.ini >"$OUT/stopped.out" 2>"$OUT/stopped.err"
rc=$?
t1=$(date +%s)
wait $stopper 2>/dev/null
check "stopped QEMU: exit 3 (got $rc)" [ $rc = 3 ]
check "stopped QEMU: reported as timeout" grep -q '^  run stopped rep 1: timeout: no end after 10s' "$OUT/stopped.out"
check "stopped QEMU: the runner ended in $((t1 - t0)) s (limit 10 s + 10 s grace)" [ $((t1 - t0)) -le 25 ]
check "stopped QEMU: no QEMU left" sh -c "! pgrep -f 'smmulab[.]tag=stopme'"

# interrupt NAME SIGNAL: run long.ini, send SIGNAL to the runner once its
# first QEMU runs, and leave no QEMU behind
interrupt() {
    local name=$1 sig=$2 pid i
    "$RUN" --build "$B" --out "$OUT/$name" tests/scenarios/long.ini >"$OUT/$name.out" 2>"$OUT/$name.err" &
    pid=$!
    for i in $(seq 1 300); do
        pgrep -f 'smmulab[.]tag=orphan' >/dev/null && break
        sleep 0.1
    done
    sleep 2
    kill -"$sig" $pid
    wait $pid
    rc=$?
    sleep 1
    check "runner killed with SIG$sig: no QEMU left" sh -c "! pgrep -f 'smmulab[.]tag=orphan'"
}
interrupt sigterm TERM
check "runner killed with SIGTERM: exit 143 (got $rc)" [ $rc = 143 ]
check "runner killed with SIGTERM: the interrupted run recorded" \
    grep -q '"verdict" : "interrupted"' "$OUT/sigterm/runs.json"
check "runner killed with SIGTERM: report written, naming it" \
    grep -q '^  run long rep 1: interrupted' "$OUT/sigterm/report.txt"
ls /tmp/smmulab-qmp-* 2>/dev/null >"$OUT/sockets-before"
interrupt sigkill KILL
pkill -KILL -f 'smmulab[.]tag=orphan' 2>/dev/null
check "runner killed with SIGKILL: no QMP socket left behind" \
    sh -c "ls /tmp/smmulab-qmp-* 2>/dev/null | cmp -s - '$OUT/sockets-before'"
check "QMP over the abstract socket: every e2e run has the model's counters" \
    python3 -c "import json,sys; r=json.load(open('$OUT/e2e/runs.json'))['runs']; sys.exit(not all('stats' in x for x in r))"


# What ran.  The kit kernel's parameter list, read from its vmlinux
P=$B/guest/Image.params
check "Image.params: cmdq_lock a choice of fair and legacy, fair by default" \
    grep -qP '^arm_smmu_v3\.cmdq_lock\tchoice\tfair\tfair\|legacy$' "$P"
check "Image.params: tlbi_max_pages a uint, 0; iommu.probe_lock a choice of hashed and global, global by default (read from its setup function); probe_lock_buckets early; watchdog_thresh a __setup" \
    sh -c "grep -qP '^arm_smmu_v3\.tlbi_max_pages\tuint\t0\t-$' '$P' && grep -qP '^iommu\.probe_lock\tchoice\tglobal\thashed\|global$' '$P' && grep -qP '^iommu\.probe_lock_buckets\tearly\t' '$P' && grep -qP '^watchdog_thresh\tsetup\t' '$P'"
"$RUN" --build "$B" --check configs/default.ini >"$OUT/check-params.out" 2>&1
check "--check prints each variant's parameters as they will run" \
    grep -q '^  variant legacy: arm_smmu_v3.cmdq_lock=legacy' "$OUT/check-params.out"
# A kernel without its list (a copy of the kit's Image) is checked at boot
# only: a value the kernel refuses fails the run with one line naming it,
# and the run counts for nothing
cp "$B/guest/Image" "$OUT/Image-nolist"
misconf() {
    cat >"$OUT/$1.ini" <<EOF
[scenario]
repeat=1
timeout=120
[machine]
cpus=2
icount=on
[workload]
kind=map-unmap
seconds=1
[variants]
$2=$3
$4=$5
[variant.$2]
kernel=$OUT/Image-nolist
[variant.$4]
kernel=$OUT/Image-nolist
EOF
    "$RUN" --build "$B" --no-control --out "$OUT/$1" "$OUT/$1.ini" >"$OUT/$1.out" 2>"$OUT/$1.err"
}
misconf misconfigured legacy arm_smmu_v3.cmdq_lock=legacy fairr arm_smmu_v3.cmdq_lock=fairr
rc=$?
check "misconfigured: exit 3 (got $rc)" [ $rc = 3 ]
check "misconfigured: the run fails naming the parameter the kernel refused" \
    grep -q "fairr rep 1: misconfigured: arm_smmu_v3.cmdq_lock=fairr: refused by the kernel: .*\`fairr' invalid for parameter \`arm_smmu_v3.cmdq_lock'" "$OUT/misconfigured.err"
check "misconfigured: the report names the run, each variant's parameters and what ran" \
    sh -c "grep -q '^  run fairr rep 1: misconfigured: arm_smmu_v3.cmdq_lock=fairr' '$OUT/misconfigured/report.txt' && grep -q '^    legacy: arm_smmu_v3.cmdq_lock=legacy; ran: .*arm_smmu_v3.cmdq_lock=legacy; arm_smmu_v3.cmdq_wait=full' '$OUT/misconfigured/report.txt' && grep -q '^    fairr: arm_smmu_v3.cmdq_lock=fairr; ran: .*arm_smmu_v3.cmdq_lock=fair;' '$OUT/misconfigured/report.txt'"
check "misconfigured: the HTML report has the variants table" \
    grep -q '<h2>Variants</h2>' "$OUT/misconfigured/report.html"
check "misconfigured: its run is not counted (no comparison with legacy)" \
    python3 -c "import json,sys; r=json.load(open('$OUT/misconfigured/report.json')); sys.exit(any(v.get('variant')=='fairr' for v in r['verdicts']))"
# Two variants that ran alike (the default written out: without the list
# the runner cannot tell before booting) are an A/A, stopped
misconf aa-at-boot stock "" fair arm_smmu_v3.cmdq_lock=fair
rc=$?
check "A/A at boot: exit 2 (got $rc)" [ $rc = 2 ]
check "A/A at boot: one line naming both variants" \
    grep -q "variants stock and fair ran identically configured (.*arm_smmu_v3.cmdq_lock=fair.*): an A/A; stopped" "$OUT/aa-at-boot.err"

# Lock-step quanta from a scenario: [machine] quantum= reaches QEMU (swept:
# 0, stock icount, and 10 us), the report names the mode, and the 4 vCPUs
# run in parallel in virtual time in quanta (per CPU about 4 times the rate
# of stock icount, where they share one clock)
"$RUN" --build "$B" --out "$OUT/quantum" tests/scenarios/quantum.ini >"$OUT/quantum.out" 2>&1
rc=$?
check "quantum: exit 0 (got $rc)" [ $rc = 0 ]
check "quantum: QEMU ran -icount shift=4,sleep=off,quantum=10000 at that point, stock icount at 0" \
    sh -c "grep -q 'shift=4,sleep=off,quantum=10000' '$OUT'/quantum/*-10000-rep1.cmdline && grep -q 'shift=4,sleep=off[^,]' '$OUT'/quantum/*-0-rep1.cmdline"
check "quantum: the report names the mode" \
    grep -q '^  machine: 4 vCPUs, .*icount on (deterministic), lock-step quanta swept' "$OUT/quantum/report.txt"
if out=$(python3 - "$OUT/quantum" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1] + "/runs.json"))["runs"]
rate = {r["point"]: float(r["summary"]["ops_per_thread_per_sec"]) for r in runs}
print(f"map+unmaps per CPU: {rate['0']:.0f} stock, {rate['10000']:.0f} in "
      f"quanta of 10 us ({rate['10000'] / rate['0']:.2f}x)")
sys.exit(not 3.2 < rate["10000"] / rate["0"] < 4.8)
PY
); then
    ok "quantum: $out"
else
    notok "quantum: not parallel: $out"
fi
# README's first A/B as it stands there: run whole (10 boots, about 80 s),
# its primary line the one README quotes when the Image is the one README
# names (else of that shape), and resume of the finished directory runs
# nothing and gives the report again
awk '/^## Your first A\/B/ { s = 1 } s && /^```ini$/ { b = 1; next }
     b && /^```$/ { exit } b { print }' README.md >"$OUT/first.ini"
(cd "$OUT" && "$RUN" check first.ini >first-check.out 2>&1 &&
 "$RUN" run --build "$B" --out ab first.ini >first.out 2>first.err)
rc=$?
check "first A/B: check, then run: exit 0 (got $rc)" [ $rc = 0 ]
line=$(grep -m1 '^  fair vs legacy: driver: exclusive trylocks failed (%) shift ' "$OUT/ab/report.txt")
quoted=$(sed -n '/^## Your first A\/B/,/^## The main job/p' README.md | grep -m1 '^  fair vs legacy: ')
image=$(sed -n 's/.*line that may say DIFFERENT.  Here (Image \([0-9a-f]*\)) it said:.*/\1/p' README.md)
built=$(sha256sum "$B/guest/Image" | cut -c1-12)
if [ -n "$line" ] && { [ "$line" = "$quoted" ] || { [ -n "$image" ] && [ "$built" != "$image" ]; }; }; then
    ok "first A/B: the primary line$([ "$line" = "$quoted" ] && echo " README quotes" || echo " (Image $built, README's $image: not compared)"): ${line#  }"
else
    notok "first A/B: primary line '$line', README quotes '$quoted' (Image $built, README's $image)"
fi
(cd "$OUT" && "$RUN" resume --build "$B" ab >first-resume.out 2>&1)
rc=$?
check "first A/B: resume of the finished run: exit 0 (got $rc), nothing to run" \
    sh -c "[ $rc = 0 ] && grep -q 'resuming: 10 of them ended already, 0 to run' '$OUT/first-resume.out'"

# The line-transfer model: the report names T and the hottest lines, each
# with the kernel function of its PC (System.map beside the Image)
"$RUN" --build "$B" --out "$OUT/line" tests/scenarios/line-ns.ini >"$OUT/line.out" 2>"$OUT/line.err"
rc=$?
hot=$(grep -A1 '^  cache lines: a transfer of a contended line costs 1600 ns' "$OUT/line.out" | sed -n 2p)
if [ $rc = 0 ] &&
   grep -q "a contended cache line's transfer 1600 ns (line-ns, 100 instructions)" "$OUT/line.out" &&
   [[ "$hot" =~ ^\ \ \ \ cmpxchg:\ [a-z_][a-z0-9_.]*\+0x[0-9a-f]+\ .*\ [1-9][0-9]*\ transfers$ ]] &&
   python3 -c "import json,sys; r=json.load(open('$OUT/line/runs.json'))['runs'][0]['lines']; sys.exit(not (r['line_ns'] == 1600 and r['transfers'] > 0 and r['stall_ns'] == 16 * r['stall_insns']))" &&
   grep -q '^cache lines: transfers  *[1-9]' "$OUT/line.out"; then
    ok "line-ns=1600: the report names T and the hottest line: ${hot#    }"
else
    notok "line-ns=1600 (exit $rc): $(grep -A2 'cache lines' "$OUT/line.out" | head -n 4 | tr '\n' ' ') $(head -c 200 "$OUT/line.err")"
fi
# Without line-ns=, no word of it
if ! grep -q 'cache lines' "$OUT/e2e.out"; then
    ok "without line-ns=: the report says nothing of cache lines"
else
    notok "without line-ns=, the report speaks of cache lines: $(grep 'cache lines' "$OUT/e2e.out" | head -n 2)"
fi

echo "1..$n"
[ $fails = 0 ]
