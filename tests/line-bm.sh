#!/bin/bash
# The line-transfer model of lock-step quanta (-icount quantum=NS,line-ns=T,
# patches/qemu/0021) against the physics it models, on the series'
# bare-metal guest tests/tcg/aarch64/system/line-transfer.c (built here from
# a patched QEMU tree with aarch64-linux-gnu-gcc), shift 4, quantum 10 us:
# TAP output.
#
#  - two vCPUs handing a line back and forth (compare-and-swap: CASAL on
#    neoverse-n1, LDAXR/STLXR on cortex-a57): one hand-off takes T within
#    5 %, at T = 1600 and 4800 ns;
#  - N vCPUs (1, 2, 4, 8, 16) adding to one shared counter (STADD on
#    neoverse-n1, LDXR/STXR on cortex-a57): from 2 vCPUs on, one add per T
#    between them, within 10 %, at both T; one vCPU adds as without the
#    model;
#  - N vCPUs (1, 4, 16) adding to counters on lines of their own: the same
#    adds as without the model, within 1 %;
#  - a rerun gives the same console, and line-ns=0 the console of the mode
#    without the model;
#  - x-query-icount-lines over QMP names the shared counter's line as the
#    hottest, with the PC of an instruction of the function that adds;
#  - the series' run-line-transfer and run-line-transfer-shared guests
#    (EXPECT_NS=1600) pass with the model and fail without it;
#  - line-ns= without quantum=, below one instruction or above 1 ms is
#    refused with one line.
#
#   tests/line-bm.sh QEMU QEMU-TREE OUTDIR
set -uo pipefail
Q=${1:?usage: line-bm.sh QEMU QEMU-TREE OUTDIR}
T=${2:?usage: line-bm.sh QEMU QEMU-TREE OUTDIR}/tests/tcg
BM=${3:?usage: line-bm.sh QEMU QEMU-TREE OUTDIR}
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
rm -rf "$BM"
mkdir -p "$BM"
QUANTUM=shift=4,sleep=off,quantum=10000
LSE_CPU=neoverse-n1
LLSC_CPU=cortex-a57

bmcc() {
    aarch64-linux-gnu-gcc -nostdlib -ggdb -O2 -mno-outline-atomics \
        -I"$T/minilib" "$@"
}
# bm NAME CFLAGS...
bm() {
    local name=$1
    shift
    bmcc "$@" "$T/aarch64/system/line-transfer.c" -o "$BM/$name" \
        -Wl,-T"$T/aarch64/system/kernel.ld" -static -nostdlib \
        "$BM/boot.o" "$BM/printf.o" -lgcc 2>>"$BM/build.log"
}
# run NAME GUEST CPUS CPU ICOUNT [QEMU-ARGS...]: console in $BM/NAME.out
run() {
    local name=$1 guest=$2 cpus=$3 cpu=$4 icount=$5
    shift 5
    timeout 120 "$Q" -M virt,gic-version=3 -cpu "$cpu" -smp "$cpus" \
        -display none -monitor none -serial none -net none \
        -semihosting-config enable=on,target=native,chardev=output \
        -chardev "file,path=$BM/$name.out,id=output" -icount "$icount" \
        -kernel "$BM/$guest" "$@" >"$BM/$name.err" 2>&1
}
# value NAME KEY: KEY's value on the guest's line-transfer: line
value() {
    tr ' ' '\n' <"$BM/$1.out" | sed -n "/^$2\$/{n;p;q}"
}
# within A B PCT: |A/B - 1| <= PCT %
within() {
    python3 -c "import sys; sys.exit(not abs($1 / $2 - 1) <= $3 / 100)"
}
ran() { grep -q '^PASS' "$BM/$1.out" 2>/dev/null; }
what() { echo "$(grep '^line-transfer' "$BM/$1.out" 2>/dev/null) $(head -c 200 "$BM/$1.err" | tr '\n' ' ')"; }

if ! command -v aarch64-linux-gnu-gcc >/dev/null ||
   [ ! -f "$T/aarch64/system/line-transfer.c" ]; then
    skip "the bare-metal guest: no aarch64-linux-gnu-gcc, or no $T/aarch64/system/line-transfer.c"
    echo "1..$n"
    exit 0
fi
if ! { bmcc -x assembler-with-cpp -Wa,--noexecstack -c "$T/aarch64/system/boot.S" -o "$BM/boot.o" &&
       bmcc -c "$T/minilib/printf.c" -o "$BM/printf.o" &&
       bm pp-lse -DPINGPONG=1 -DLSE=1 && bm pp-llsc -DPINGPONG=1 &&
       bm hold-lse-4 -DNCPUS=4 -DLSE=1 -DHOLD=1 &&
       bm expect-pp -DPINGPONG=1 -DLSE=1 -DEXPECT_NS=1600 &&
       bm expect-shared -DNCPUS=4 -DEXPECT_NS=1600; } 2>>"$BM/build.log"; then
    notok "the bare-metal guest does not build: $(head -n 3 "$BM/build.log" | tr '\n' ' ')"
    echo "1..$n"
    exit 1
fi
for c in 1 2 4 8 16; do
    bm sh-lse-$c -DNCPUS=$c -DLSE=1 && bm sh-llsc-$c -DNCPUS=$c &&
        bm pr-lse-$c -DNCPUS=$c -DLSE=1 -DSHARED=0 && bm pr-llsc-$c -DNCPUS=$c -DSHARED=0
done 2>>"$BM/build.log"

# Hand-offs
run pp-off pp-lse 2 $LSE_CPU $QUANTUM
for t in 1600 4800; do
    for k in lse llsc; do
        cpu=$LSE_CPU
        [ $k = lse ] || cpu=$LLSC_CPU
        name=pp-$k-$t
        run $name pp-$k 2 $cpu $QUANTUM,line-ns=$t
        h=$(value $name handoff_ns)
        if ran $name && within "$h" $t 5; then
            ok "line-ns=$t, $cpu: a hand-off of the line takes $h ns (T within 5 %; without the model $(value pp-off handoff_ns) ns, the quantum)"
        else
            notok "line-ns=$t, $cpu: a hand-off takes ${h:-?} ns, not $t within 5 %: $(what $name)"
        fi
    done
done

# One shared line: one add per T between the vCPUs
for t in 1600 4800; do
    for k in lse llsc; do
        cpu=$LSE_CPU
        [ $k = lse ] || cpu=$LLSC_CPU
        for c in 1 2 4 8 16; do
            name=sh-$k-$c-$t
            run $name sh-$k-$c $c $cpu $QUANTUM,line-ns=$t
            r=$(value $name ns_per_add)
            if [ $c = 1 ]; then
                run sh-$k-1-off sh-$k-1 1 $cpu $QUANTUM
                if ran $name && [ "$(value $name adds)" = "$(value sh-$k-1-off adds)" ]; then
                    ok "line-ns=$t, $cpu, one vCPU: $(value $name adds) adds, as without the model"
                else
                    notok "line-ns=$t, $cpu, one vCPU: $(value $name adds) adds against $(value sh-$k-1-off adds) without the model"
                fi
            elif ran $name && within "$r" $t 10; then
                ok "line-ns=$t, $cpu, $c vCPUs on one line: one add per $r ns between them (T within 10 %)"
            else
                notok "line-ns=$t, $cpu, $c vCPUs on one line: one add per ${r:-?} ns, not $t within 10 %: $(what $name)"
            fi
        done
    done
done

# Lines of their own: as without the model
for k in lse llsc; do
    cpu=$LSE_CPU
    [ $k = lse ] || cpu=$LLSC_CPU
    for c in 1 4 16; do
        run pr-$k-$c-off pr-$k-$c $c $cpu $QUANTUM
        run pr-$k-$c-1600 pr-$k-$c $c $cpu $QUANTUM,line-ns=1600
        a=$(value pr-$k-$c-1600 adds)
        b=$(value pr-$k-$c-off adds)
        if ran pr-$k-$c-1600 && ran pr-$k-$c-off && within "$a" "$b" 1; then
            ok "line-ns=1600, $cpu, $c vCPUs on lines of their own: $a adds, without the model $b (within 1 %)"
        else
            notok "line-ns=1600, $cpu, $c vCPUs on lines of their own: ${a:-?} adds against ${b:-?} without the model: $(what pr-$k-$c-1600)"
        fi
    done
done

# The series' own checks (run-line-transfer, run-line-transfer-shared):
# they pass with the model and fail without it
for g in "expect-pp 2 $LSE_CPU" "expect-shared 4 $LLSC_CPU"; do
    set -- $g
    run $1-1600 $1 $2 $3 $QUANTUM,line-ns=1600
    r1=$?
    run $1-off $1 $2 $3 $QUANTUM
    r0=$?
    if [ $r1 = 0 ] && ran $1-1600 && [ $r0 != 0 ] && grep -q '^FAIL' "$BM/$1-off.out"; then
        ok "$1 (EXPECT_NS=1600): passes with line-ns=1600, fails without the model ($(grep '^FAIL' "$BM/$1-off.out"))"
    else
        notok "$1 (EXPECT_NS=1600): status $r1 with the model, $r0 without: $(what $1-1600) / $(what $1-off)"
    fi
done

# Reruns, and line-ns=0
run sh-llsc-16-again sh-llsc-16 16 $LLSC_CPU $QUANTUM,line-ns=1600
if ran sh-llsc-16-1600 && cmp -s "$BM/sh-llsc-16-1600.out" "$BM/sh-llsc-16-again.out"; then
    ok "line-ns=1600, 16 vCPUs on one line: a rerun gives the same console ($(value sh-llsc-16-again adds) adds)"
else
    notok "line-ns=1600, 16 vCPUs on one line: a rerun differs: $(what sh-llsc-16-1600) / $(what sh-llsc-16-again)"
fi
run sh-llsc-16-off sh-llsc-16 16 $LLSC_CPU $QUANTUM
run sh-llsc-16-0 sh-llsc-16 16 $LLSC_CPU $QUANTUM,line-ns=0
if ran sh-llsc-16-off && cmp -s "$BM/sh-llsc-16-off.out" "$BM/sh-llsc-16-0.out"; then
    ok "line-ns=0: the console of the mode without the model ($(value sh-llsc-16-0 adds) adds on one line)"
else
    notok "line-ns=0 differs from the mode without the model: $(what sh-llsc-16-off) / $(what sh-llsc-16-0)"
fi

# The counters over QMP, while the guest holds after its figures
sock=$BM/qmp.sock
run hold hold-lse-4 4 $LSE_CPU $QUANTUM,line-ns=1600 \
    -qmp "unix:$sock,server=on,wait=off" &
qpid=$!
if out=$(timeout 60 python3 - "$sock" "$BM/hold.out" <<'PY'
import json, os, socket, sys, time
for _ in range(600):
    if os.path.exists(sys.argv[2]) and 'PASS' in open(sys.argv[2]).read():
        break
    time.sleep(0.1)
else:
    sys.exit('the guest did not print its figures')
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile('rw')
def cmd(c):
    f.write(json.dumps(c) + '\n'); f.flush()
    while True:
        r = json.loads(f.readline())
        if 'return' in r or 'error' in r:
            return r
json.loads(f.readline())
cmd({'execute': 'qmp_capabilities'})
r = cmd({'execute': 'x-query-icount-lines'})
cmd({'execute': 'quit'})
if 'error' in r:
    sys.exit(r['error']['desc'])
print(r['return']['human-readable-text'])
PY
); then
    printf '%s\n' "$out" >"$BM/hold.qmp"
    counter=$(aarch64-linux-gnu-nm "$BM/hold-lse-4" | awk '$3 == "counter" { print $1 }')
    read -r wlo wsize <<<"$(aarch64-linux-gnu-nm -S "$BM/hold-lse-4" | awk '$4 == "work" { print $1, $2 }')"
    read -r line pc <<<"$(awk '$1 == "line" { print $2, $8; exit }' "$BM/hold.qmp")"
    cpus=$(awk '$1 == "cpu" && $6 > 0' "$BM/hold.qmp" | wc -l)
    if [ -n "$counter" ] && [ -n "$line" ] &&
       [ $((16#$counter)) = $((line)) ] && [ "$cpus" = 4 ] &&
       [ $((pc)) -ge $((16#$wlo)) ] && [ $((pc)) -lt $((16#$wlo + 16#$wsize)) ]; then
        ok "x-query-icount-lines: transfers on all 4 vCPUs, hottest line $line (counter), pc $pc in work()"
    else
        notok "x-query-icount-lines: counter at 0x$counter, work() at 0x$wlo+0x$wsize: $(tr '\n' ';' <"$BM/hold.qmp")"
    fi
else
    notok "x-query-icount-lines over QMP: $out $(what hold)"
fi
kill $qpid 2>/dev/null
wait $qpid 2>/dev/null

# Refusals: one line on stderr, exit status not 0
refuse() {
    local what=$1 want=$2 icount=$3
    local err=$BM/refuse.err
    timeout 10 "$Q" -M virt -display none -monitor none -serial none \
        -net none -S -icount "$icount" </dev/null >/dev/null 2>"$err"
    local rc=$?
    if [ $rc != 0 ] && [ $rc != 124 ] && [ "$(wc -l <"$err")" = 1 ] &&
        grep -qF -- "$want" "$err"; then
        ok "refused: $what: $(cat "$err")"
    else
        notok "not refused as expected: $what (status $rc): $(head -n 3 "$err" | tr '\n' ' ')"
    fi
}
refuse "line-ns without quantum" "line-ns= needs quantum=" shift=4,sleep=off,line-ns=1600
refuse "line-ns below one instruction" "less than one instruction" $QUANTUM,line-ns=15
refuse "line-ns above 1 ms" "line-ns= must be 0 to 1000000" $QUANTUM,line-ns=1000001

echo "1..$n"
[ $fails = 0 ]
