#!/bin/bash
# Lock-step quanta on the series' bare-metal guests
# (tests/tcg/aarch64/system/quantum-*.c, patches/qemu/: built here from a
# patched QEMU tree with aarch64-linux-gnu-gcc, as QEMU's check-tcg would),
# 4 vCPUs, shift 4: TAP output.
#
#  - the virtual timer is never seen fired before its vCPU's counter
#    reaches the compare value, at 10 us and 1 us, with either yield policy,
#    and under stock icount;
#  - the counter read after a value another vCPU published is behind it by
#    at most one quantum (10 us, 1 us: 625 and 63 ticks), never under stock
#    icount;
#  - vCPUs waiting in WFI for their timers run on (the warp between rounds);
#  - loadvm inside rounds never leaves the guest stopped
#    (tests/quantum/loadvm.py: stock icount snapshots with every vCPU idle
#    and no timer due, loaded 10 times inside rounds).
#
#   tests/quantum-bm.sh QEMU QEMU-TREE OUTDIR
set -uo pipefail
Q=${1:?usage: quantum-bm.sh QEMU QEMU-TREE OUTDIR}
T=${2:?usage: quantum-bm.sh QEMU QEMU-TREE OUTDIR}/tests/tcg
BM=${3:?usage: quantum-bm.sh QEMU QEMU-TREE OUTDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
rm -rf "$BM"
mkdir -p "$BM"
bmcc() {
    aarch64-linux-gnu-gcc -nostdlib -ggdb -O0 -I"$T/minilib" "$@"
}
# bm NAME SOURCE CFLAGS...
bm() {
    local name=$1 src=$2
    shift 2
    bmcc "$@" "$T/aarch64/system/$src.c" -o "$BM/$name" \
        -Wl,-T"$T/aarch64/system/kernel.ld" -static -nostdlib \
        "$BM/boot.o" "$BM/printf.o" -lgcc 2>>"$BM/build.log"
}
# bmrun NAME GUEST ICOUNT: 4 vCPUs, semihosting console in $BM/NAME.out
bmrun() {
    timeout 120 "$Q" -M virt -cpu cortex-a57 -smp 4 -display none \
        -monitor none -serial none -net none \
        -semihosting-config enable=on,target=native,chardev=output \
        -chardev "file,path=$BM/$1.out,id=output" -icount "$3" \
        -kernel "$BM/$2" >"$BM/$1.err" 2>&1
}
if ! command -v aarch64-linux-gnu-gcc >/dev/null || [ ! -f "$T/aarch64/system/quantum-timer.c" ]; then
    skip "the bare-metal guests: no aarch64-linux-gnu-gcc, or no $T/aarch64/system/quantum-timer.c"
elif ! { bmcc -x assembler-with-cpp -Wa,--noexecstack -c "$T/aarch64/system/boot.S" -o "$BM/boot.o" &&
         bmcc -c "$T/minilib/printf.c" -o "$BM/printf.o" &&
         bm quantum-timer quantum-timer && bm quantum-idle quantum-idle &&
         bm counter-10000 quantum-counter -DQUANTUM_NS=10000 &&
         bm counter-1000 quantum-counter -DQUANTUM_NS=1000 &&
         bm counter-0 quantum-counter &&
         bm idle-forever quantum-idle -DTICKS=0 -DPERIOD_US=5000000 &&
         bm busy-forever quantum-idle -DTICKS=0 -DBUSY=1 -DPERIOD_US=5000000; } 2>>"$BM/build.log"; then
    notok "the bare-metal guests do not build: $(head -n 3 "$BM/build.log" | tr '\n' ' ')"
else
    # bmcheck WHAT NAME GUEST ICOUNT: exit 0 and PASS
    bmcheck() {
        local what=$1
        bmrun "$2" "$3" "$4"
        local rc=$?
        if [ $rc = 0 ] && grep -q '^PASS' "$BM/$2.out"; then
            ok "$what: $(grep '^quantum-' "$BM/$2.out")"
        else
            notok "$what (status $rc): $(tr '\n' ' ' <"$BM/$2.out") $(head -n 2 "$BM/$2.err" | tr '\n' ' ')"
        fi
    }
    for qy in 10000 10000,quantum-yield=forfeit 1000 1000,quantum-yield=forfeit; do
        bmcheck "quantum=$qy: the virtual timer never fired early" \
            "timer-${qy//[,=]/-}" quantum-timer "shift=4,sleep=off,quantum=$qy"
    done
    bmcheck "stock icount: the virtual timer never fired early" \
        timer-stock quantum-timer shift=4,sleep=off
    for qn in 10000 1000; do
        bmcheck "quantum=$qn: the counter back across vCPUs by at most one quantum" \
            "counter-$qn" "counter-$qn" "shift=4,sleep=off,quantum=$qn"
    done
    bmcheck "stock icount: the counter never back across vCPUs" \
        counter-stock counter-0 shift=4,sleep=off
    bmcheck "quantum=10000: 4 vCPUs waiting in WFI for their timers run on" \
        idle quantum-idle shift=4,sleep=off,quantum=10000
    mkdir -p "$BM/loadvm"
    if timeout 300 python3 "$ROOT/tests/quantum/loadvm.py" "$Q" "$BM/idle-forever" \
        "$BM/busy-forever" "$BM/loadvm" 20 >"$BM/loadvm.out" 2>&1; then
        ok "quantum=10000: loadvm inside rounds, the guest ran on every time: $(tail -n 1 "$BM/loadvm.out")"
    else
        notok "quantum=10000: loadvm: $(grep -v 'ran on' "$BM/loadvm.out" | tr '\n' ' ')"
    fi
fi

echo "1..$n"
[ $fails = 0 ]
