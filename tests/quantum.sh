#!/bin/bash
# Lock-step quanta (-icount quantum=NS, patches/qemu/0014-0021): TAP output.
#
#  (a) parallel time: fast SMMU, map+unmap on 1 and on 8 vCPUs (a thread
#      per vCPU), shift 4.  In the mode (quantum=10000) the per-CPU rate at
#      8 is within 5 % of the rate at 1; under stock icount 8 vCPUs share
#      the time of one (0.08-0.2 of it).
#  (b) determinism: a second invocation of the 8-vCPU run in the mode gives
#      the same console, kernel timestamps and RESULT lines included; and so
#      does one that gdb (the remote protocol, tests/quantum/gdb-rsp.py)
#      stops at a random point, then at a breakpoint, single-steps and
#      lets go: a round stopped in the middle resumes where it stopped.
#  (c) one vCPU: with quantum-yield=continue (the default) a round is one
#      turn and the mode is stock icount, bit for bit, with a fast SMMU
#      (the runs of (a)) and with a timed one (20 us per command, a TLBI
#      and a CMD_SYNC per flush): the model reads the vCPU's own clock, so
#      a command submitted at the vCPU's time t retires at t + its cost.
#  (d) what the mode refuses, each with one line on stderr and a failing
#      exit: record/replay, MTTCG, sleep=on, align=on, shift=auto, a bad
#      quantum or quantum-yield; migration and savevm, asked over QMP.
#  (e) the mode off is today's QEMU: stock icount runs give, bit for bit,
#      the consoles recorded with the QEMU before the patch
#      (tests/quantum/README: how they were made).
#  (f) gdb single-stepping one vCPU while another sits at a breakpoint
#      (vCont;s:N, gdb's scheduler-locking) completes, and the run ends.
#  (g) the line-transfer model off (no line-ns=, and line-ns=0): the mode
#      as recorded before its patch, 0021 (tests/quantum/README).
# The series' bare-metal tests (timers, the counter, idle vCPUs, loadvm):
# tests/quantum-bm.sh.
#
#   tests/quantum.sh BUILDDIR
set -uo pipefail
B=${1:?usage: quantum.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
Q=$B/qemu-system-aarch64
OUT=$B/logs/quantum
rm -rf "$OUT"
mkdir -p "$OUT"
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }

# boot NAME BOOT-OPTIONS...: scripts/boot.sh, console in $OUT/NAME.log
boot() {
    local name=$1
    shift
    "$ROOT/scripts/boot.sh" -q -b "$B" -l "$OUT/$name.log" -t 240 "$@" \
        >"$OUT/$name.verdict" 2>&1
}
# map-unmap NAME CPUS BOOT-OPTIONS...: fast SMMU, a thread per vCPU, 1 s
map_unmap() {
    local name=$1 cpus=$2
    shift 2
    boot "$name" -I 4 -c "$cpus" -w map-unmap \
        -a "smmulab.seconds=1 smmulab.threads=$cpus" "$@"
}
# field LOG KEY: KEY= of the workload's summary line
field() {
    tr -d '\r' <"$1" | grep -m1 '^RESULT workload=[a-z-]* threads=' |
        tr ' ' '\n' | sed -n "s/^$2=//p"
}
ran() { grep -q '^RESULT status=ok' "$OUT/$1.log" 2>/dev/null; }

# (a) parallel time
map_unmap q1 1 -P 10000
map_unmap q8 8 -P 10000
map_unmap s1 1
map_unmap s8 8
if ran q1 && ran q8 && ran s1 && ran s8; then
    read -r qr sr <<<"$(python3 -c "
q1, q8, s1, s8 = (float(x) for x in '$(field "$OUT/q1.log" ops_per_thread_per_sec) $(field "$OUT/q8.log" ops_per_thread_per_sec) $(field "$OUT/s1.log" ops_per_thread_per_sec) $(field "$OUT/s8.log" ops_per_thread_per_sec)'.split())
print('%.3f %.3f' % (q8 / q1, s8 / s1))")"
    if python3 -c "import sys; sys.exit(not 0.95 <= $qr <= 1.05)"; then
        ok "quantum=10000: map+unmaps per CPU at 8 vCPUs / at 1 = $qr (0.95-1.05)"
    else
        notok "quantum=10000: map+unmaps per CPU at 8 vCPUs / at 1 = $qr, not within 5 %"
    fi
    if python3 -c "import sys; sys.exit(not 0.08 <= $sr <= 0.2)"; then
        ok "stock icount: map+unmaps per CPU at 8 vCPUs / at 1 = $sr (0.08-0.2)"
    else
        notok "stock icount: map+unmaps per CPU at 8 vCPUs / at 1 = $sr, not 0.08-0.2"
    fi
else
    notok "the map-unmap runs did not all finish: $(cat "$OUT"/[qs][18].verdict | tr '\n' ' ')"
    notok "(no ratios)"
fi

# (b) determinism
map_unmap q8-again 8 -P 10000
if ran q8 && cmp -s "$OUT/q8.log" "$OUT/q8-again.log"; then
    ok "quantum=10000, 8 vCPUs: a second invocation gives the same console ($(wc -l <"$OUT/q8.log") lines)"
else
    notok "quantum=10000, 8 vCPUs: a second invocation differs: $(diff "$OUT/q8.log" "$OUT/q8-again.log" | head -n 4 | tr '\n' ' ')"
fi

map=$B/linux/obj/System.map
addr=$(awk '$3 == "iommu_dma_map_sg" { print $1 }' "$map" 2>/dev/null)
if [ -z "$addr" ]; then
    skip "gdb stop and step in the mode: no iommu_dma_map_sg in $map"
else
    port=$((20000 + $$ % 20000))
    # under_gdb NAME ACTIONS...: the 8-vCPU run NAME, started halted for
    # gdb-rsp.py, which does ACTIONS (output in $OUT/NAME.rsp, status $grc)
    under_gdb() {
        local name=$1 pid
        shift
        port=$((port + 1))
        map_unmap "$name" 8 -P 10000 -- -gdb "tcp:127.0.0.1:$port" -S &
        pid=$!
        timeout 120 python3 "$ROOT/tests/quantum/gdb-rsp.py" "$port" "$@" \
            >"$OUT/$name.rsp" 2>&1
        grc=$?
        wait $pid
    }
    under_gdb q8-gdb wait=0.3 "break=$addr" step=3 detach
    steps=$(grep -c '^stop step ' "$OUT/q8-gdb.rsp")
    if [ $grc = 0 ] && grep -q "^stop break .* pc 0x$addr$" "$OUT/q8-gdb.rsp" &&
        [ "$steps" = 3 ] && ran q8-gdb && cmp -s "$OUT/q8.log" "$OUT/q8-gdb.log"; then
        ok "quantum=10000: stopped by gdb, at a breakpoint, 3 steps: the same console as without gdb ($(tr '\n' ';' <"$OUT/q8-gdb.rsp"))"
    else
        notok "quantum=10000 under gdb (rsp status $grc, $steps steps): $(tr '\n' ';' <"$OUT/q8-gdb.rsp") $(diff "$OUT/q8.log" "$OUT/q8-gdb.log" 2>&1 | head -n 4 | tr '\n' ' ')"
    fi
    # gdb under scheduler-locking: another vCPU than the one at the
    # breakpoint single-steps while it stays stopped
    under_gdb q8-gdb-other wait=0.3 "break=$addr" stepother=3 detach
    steps=$(grep -c '^stop stepother ' "$OUT/q8-gdb-other.rsp")
    if [ $grc = 0 ] && [ "$steps" = 3 ] && ran q8-gdb-other; then
        ok "quantum=10000: another vCPU single-steps 3 times while the one at a breakpoint stays stopped, and the run ends ($(tr '\n' ';' <"$OUT/q8-gdb-other.rsp"))"
    else
        notok "quantum=10000: stepping another vCPU (rsp status $grc, $steps steps): $(tr '\n' ';' <"$OUT/q8-gdb-other.rsp") $(cat "$OUT/q8-gdb-other.verdict")"
    fi
fi

# (c) one vCPU: the mode is stock icount
same() {
    local what=$1 a=$2 b=$3
    if ran "$a" && ran "$b" && cmp -s "$OUT/$a.log" "$OUT/$b.log"; then
        ok "$what: the same console ($(wc -l <"$OUT/$a.log") lines, $(field "$OUT/$a.log" ops) ops)"
    else
        notok "$what: the consoles differ: $(diff "$OUT/$a.log" "$OUT/$b.log" 2>&1 | head -n 4 | tr '\n' ' ')"
    fi
}
same "1 vCPU, fast SMMU: quantum=10000 as stock icount" q1 s1
for m in q s; do
    p=(-P 10000)
    [ $m = q ] || p=()
    boot "$m"1-timed -I 4 -c 1 -w asid-flush -s cmdq-cmd-ns=20000 "${p[@]}" \
        -a "smmulab.seconds=1 smmulab.threads=1"
done
same "1 vCPU, 20 us per command: quantum=10000 as stock icount" q1-timed s1-timed

# (d) refusals: one line on stderr, exit status not 0
refuse() {
    local what=$1 want=$2
    shift 2
    local err=$OUT/refuse.err
    timeout 10 "$Q" -M virt -display none -monitor none -serial none -net none \
        -S "$@" </dev/null >/dev/null 2>"$err"
    local rc=$?
    if [ $rc != 0 ] && [ $rc != 124 ] && [ "$(wc -l <"$err")" = 1 ] &&
        grep -qF -- "$want" "$err"; then
        ok "refused: $what: $(cat "$err")"
    else
        notok "not refused as expected: $what (status $rc): $(head -n 3 "$err" | tr '\n' ' ')"
    fi
}
echo "a replay file of before" >"$OUT/replay.bin"
refuse "record/replay" "quantum= is incompatible with record/replay" \
    -icount shift=4,sleep=off,quantum=10000,rr=record,rrfile="$OUT/replay.bin"
if [ "$(cat "$OUT/replay.bin")" = "a replay file of before" ]; then
    ok "a refused rr=record leaves its file as it was"
else
    notok "a refused rr=record changed its file: $(head -c 40 "$OUT/replay.bin" | od -c | head -n 2 | tr '\n' ' ')"
fi
refuse "MTTCG" "No MTTCG when icount is enabled" \
    -accel tcg,thread=multi -icount shift=4,sleep=off,quantum=10000
refuse "sleep=on" "quantum= needs sleep=off" -icount shift=4,quantum=10000
refuse "align=on" "quantum= is incompatible with align=on" \
    -icount shift=4,align=on,quantum=10000
refuse "shift=auto" "quantum= needs a fixed shift=N" \
    -icount shift=auto,sleep=off,quantum=10000
refuse "no shift" "Please specify shift option when using quantum" \
    -icount quantum=10000
refuse "quantum=0" "quantum= must be 1 to" -icount shift=4,sleep=off,quantum=0
refuse "quantum-yield=bad" "quantum-yield= must be continue or forfeit" \
    -icount shift=4,sleep=off,quantum=10000,quantum-yield=bad
refuse "quantum-yield without quantum" "quantum-yield= needs quantum=" \
    -icount shift=4,sleep=off,quantum-yield=forfeit

# Migration and savevm, asked of a QEMU in the mode over QMP
sock=$OUT/qmp.sock
"$Q" -M virt -display none -monitor none -serial none -net none -S \
    -icount shift=4,sleep=off,quantum=10000 \
    -qmp "unix:$sock,server=on,wait=off" >"$OUT/qmp-qemu.out" 2>&1 &
qpid=$!
if out=$(timeout 60 python3 - "$sock" <<'PY'
import json, socket, sys, time
for _ in range(300):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        break
    except OSError:
        time.sleep(0.1)
f = s.makefile("rw")
def cmd(name, **args):
    f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            return r
json.loads(f.readline())
cmd("qmp_capabilities")
want = "-icount quantum= does not support migration or snapshots"
m = cmd("migrate", uri="exec:cat >/dev/null")
v = cmd("human-monitor-command", **{"command-line": "savevm s1"})
cmd("quit")
print("migrate: %s; savevm: %s" % (m.get("error", m)["desc"] if "error" in m
                                    else m, v.get("return", v).strip()))
sys.exit(not ("error" in m and want in m["error"]["desc"]
              and want in v.get("return", "")))
PY
); then
    ok "refused over QMP: $out"
else
    notok "migration or savevm not refused: $out $(cat "$OUT/qmp-qemu.out")"
fi
kill "$qpid" 2>/dev/null
wait "$qpid" 2>/dev/null

# (e) the mode off: today's consoles
G=$ROOT/tests/quantum
stale=""
while read -r sum file; do
    [ "$(sha256sum <"$B/$file" | cut -d' ' -f1)" = "$sum" ] || stale="$stale $file"
done < <(grep -v '^#' "$G/guest.sha256")
# golden NAME CONSOLE WHAT: run NAME's console is CONSOLE, recorded before
# the patch that WHAT names
golden() {
    local name=$1 golden=$2 what=$3
    if [ -n "$stale" ]; then
        skip "$what, $name, as before the patch: the guest differs from the recorded one ($stale; tests/quantum/README)"
    elif cmp -s "$G/$golden" "$OUT/$name.log"; then
        ok "$what, $name: the console recorded before the patch, bit for bit ($(wc -l <"$G/$golden") lines)"
    else
        notok "$what, $name, differs from $golden: $(diff "$G/$golden" "$OUT/$name.log" | head -n 4 | tr '\n' ' ')"
    fi
}
storm=(-w unmap-storm -s cmdqs=8 -s ril=off -s cmdq-cmd-ns=20000
       -a "smmulab.seconds=1 smmulab.size=1M smmulab.total=4M smmulab.seed=1 arm_smmu_v3.cmdq_lock=legacy")
golden s8 stock-map-unmap-8.console "stock icount (no quantum)"
boot s4-timed -I 4 -c 4 "${storm[@]}"
golden s4-timed stock-unmap-storm-4.console "stock icount (no quantum)"

# (g) the line-transfer model off (no line-ns=, and line-ns=0) is the mode
# as recorded before its patch (0021)
golden q8 quantum-map-unmap-8.console "quantum=10000 without line-ns"
map_unmap q8-line0 8 -P 10000,line-ns=0
golden q8-line0 quantum-map-unmap-8.console "quantum=10000,line-ns=0"
boot q4-storm -I 4 -c 4 -P 10000 "${storm[@]}"
golden q4-storm quantum-unmap-storm-4.console "quantum=10000 without line-ns"
boot q4-storm-line0 -I 4 -c 4 -P 10000,line-ns=0 "${storm[@]}"
golden q4-storm-line0 quantum-unmap-storm-4.console "quantum=10000,line-ns=0"

echo "1..$n"
[ $fails = 0 ]
