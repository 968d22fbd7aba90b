#!/bin/bash
# Boot smmulab's guest on qemu-system-aarch64 -M virt,iommu=smmuv3, with a
# hard timeout, and print one verdict line.
#
#   scripts/boot.sh [options] [-- extra QEMU arguments]
#     -b DIR       build directory (default: build)
#     -w WORKLOAD  guest workload (default dma-bench); its vCPUs, memory and
#                  PCI devices come from configs/topologies.ini
#     -T KEY=VAL   override a topology key (repeatable), e.g. -T pfs=2
#     -a ARGS      extra kernel command line (e.g. "smmulab.seconds=3
#                  arm_smmu_v3.cmdq_lock=legacy")
#     -s PROP=VAL  arm-smmuv3 property (repeatable), e.g. -s cmdqs=8 -s ril=off
#     -t SECONDS   hard timeout (default 120)
#     -c CPUS      vCPUs (default: the topology's)
#     -m MEM       guest memory (default: the topology's)
#     -k IMAGE     kernel Image (default: DIR/guest/Image)
#     -i INITRD    initramfs (default: DIR/guest/initramfs.cpio); another
#                  kernel's needs its own, with its module
#     -l LOG       console log (default: DIR/logs/boot.log)
#     -Q QEMU      the QEMU binary (default: DIR/qemu-system-aarch64)
#     -I SHIFT     deterministic: -icount shift=SHIFT,sleep=off, one TCG thread
#     -P NS[,OPT]  with -I: lock-step quanta, -icount quantum=NS[,OPT]: every
#                  vCPU runs NS of virtual time per round, in parallel in
#                  virtual time (QEMU's -icount documentation), e.g.
#                  -P 10000 or -P 10000,quantum-yield=forfeit
#     -S FILE      write the model's x-cmdq-stats (JSON, read over QMP after
#                  the guest powers off) to FILE
#     -q           do not echo the console
#     -U           unchecked: boot the parameters of -a as given, without the
#                  checks below (to see the kernel's own answer to a bad one)
#     -G PORT      stop at the first soft lockup under QEMU's gdbstub: the
#                  guest panics there (softlockup_panic=1), QEMU starts
#                  halted and waits for gdb on tcp::PORT; attach with the
#                  command this prints (gdb-multiarch, the kernel's symbols
#                  from BUILDDIR/linux/obj/vmlinux, the driver's lines from
#                  the arm-smmu-v3.debug.o beside the Image, a breakpoint on
#                  panic).
#                  With -I the stop comes at the same virtual instant on
#                  every rerun (docs/guest.md, "Stopping at a lockup")
#
# The kernel parameters of -a are checked as the runner checks them: before
# the boot against the Image's own list (IMAGE.params, beside it when
# build-kernel.sh built it), and after it against what the kernel said it
# ran (its command line, its refusals, the kit's variant lines); -U skips
# both.
#
# Exit status: 0 the guest ran its workload and powered off (RESULT
# status=ok), or -h/--help; 1 the workload reported an error; 2 kernel
# panic; 3 timeout; 4 QEMU failed to start or died; 5 bad usage (an
# unknown option or a bad value, a kernel parameter the Image's list
# refuses: one line) or the build missing; 6 misconfigured: the guest ran,
# but not with the parameters asked (verdict line says which).
set -euo pipefail
SMMULAB_TAG=smmulab-boot
. "$(dirname "$0")/common.sh"

B=$SMMULAB_ROOT/build
append=""
props=()
timeout=120
workload=dma-bench
topo=()
kernel=""
logf=""
quiet=0
statsf=""
qemu=""
icount=""
quantum=""
initrd=""
gdbport=""
unchecked=0
usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# bad usage: one line, and an exit status of its own (not QEMU's 4)
bad() { echo "$_tag: error: $*" >&2; exit 5; }
case ${1:-} in -h|--help) usage; exit 0 ;; esac
while getopts ":b:w:T:a:s:t:c:m:k:i:l:S:Q:I:P:G:qUh" opt; do
    case $opt in
    b) B=$OPTARG ;;
    w) workload=$OPTARG ;;
    T) topo+=("$OPTARG") ;;
    a) append="$append $OPTARG" ;;
    s) props+=("$OPTARG") ;;
    t) timeout=$OPTARG ;;
    c) topo+=("cpus=$OPTARG") ;;
    m) topo+=("memory=$OPTARG") ;;
    k) kernel=$OPTARG ;;
    i) initrd=$OPTARG ;;
    l) logf=$OPTARG ;;
    S) statsf=$OPTARG ;;
    Q) qemu=$OPTARG ;;
    I) icount=$OPTARG ;;
    P) quantum=$OPTARG ;;
    G) gdbport=$OPTARG ;;
    q) quiet=1 ;;
    U) unchecked=1 ;;
    h) usage; exit 0 ;;
    :) bad "-$OPTARG needs a value (scripts/boot.sh --help)" ;;
    *) bad "-$OPTARG: no such option (scripts/boot.sh --help)" ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" != -- ] || shift

qemu=${qemu:-$B/qemu-system-aarch64}
kernel=${kernel:-$B/guest/Image}
initrd=${initrd:-$B/guest/initramfs.cpio}
logf=${logf:-$B/logs/boot.log}
topology_tool=$B/runner/smmulab-topology   # the machine, shared with the runner
for f in "$qemu" "$kernel" "$initrd" "$topology_tool"; do
    [ -e "$f" ] || bad "$f missing; build first (make build)"
done
case $timeout in ''|*[!0-9]*) bad "-t $timeout: not a number of seconds" ;; esac
mkdir -p "$(dirname "$logf")"

# A parameter the kernel does not know, or a value it refuses, would be
# dropped without a word: refused here, as the runner refuses it
kparams_tool=$B/runner/smmulab-kparams
if [ $unchecked = 0 ] && [ -n "${append// /}" ] && [ -f "$kernel.params" ]; then
    [ -x "$kparams_tool" ] || bad "$kparams_tool missing; build first (make build)"
    why=$("$kparams_tool" --check "$kernel.params" "$append" 2>&1 >/dev/null) ||
        bad "-a:${why#smmulab-kparams:}"
fi

topofile=$SMMULAB_ROOT/configs/topologies.ini
icount_opt=()
if [ -n "$icount" ]; then
    case $icount in ''|*[!0-9]*) bad "-I $icount: not a shift (0..10)" ;; esac
    icount_opt=(--icount "$icount")
fi
[ -z "$quantum" ] || [ -n "$icount" ] || bad "-P $quantum needs -I SHIFT"
# The machine and the guest's command line as the runner builds them
machine=$("$topology_tool" --file "$topofile" --machine "${icount_opt[@]}" \
          "$workload" "${topo[@]}") || exit 5
mapfile -t machine <<<"$machine"
workload_append=$("$topology_tool" --file "$topofile" --append "$workload" "${topo[@]}")
# -G: the first soft lockup panics, so that a breakpoint on panic stops there
[ -z "$gdbport" ] || append="$append softlockup_panic=1"
cmd=("$qemu" "${machine[@]}" -kernel "$kernel" -initrd "$initrd"
     -append "$workload_append$append")
for p in "${props[@]}"; do
    cmd+=(-global "arm-smmuv3.$p")
done
# A second -icount adds to the first (QEMU merges them)
[ -z "$quantum" ] || cmd+=(-icount "quantum=$quantum")
if [ -n "$gdbport" ]; then
    case $gdbport in ''|*[!0-9]*) bad "-G $gdbport: not a TCP port" ;; esac
    cmd+=(-gdb "tcp:127.0.0.1:$gdbport" -S)
    vmlinux=$B/linux/obj/vmlinux
    [ -e "$vmlinux" ] || vmlinux="VMLINUX (the kernel's vmlinux)"
    # The driver's debug object (build-kernel.sh) at its place in the
    # kernel's .text: gdb then shows the driver's lines and inlined waits
    dbg=$(dirname "$kernel")/arm-smmu-v3.debug.o
    dbgsym=""
    if [ -f "$dbg" ] && [ -f "$vmlinux" ]; then
        fn=arm_smmu_cmdq_issue_cmdlist
        # (awk reads to the end: an early exit would fail the pipe)
        v=$(aarch64-linux-gnu-nm "$vmlinux" | awk -v f=$fn '$3 == f && !n++ { print $1 }')
        o=$(aarch64-linux-gnu-objdump -t "$dbg" | awk -v f=$fn '$NF == f && $4 == ".text" && !n++ { print $1 }')
        if [ -n "$v" ] && [ -n "$o" ]; then
            dbgsym=" -ex 'add-symbol-file $dbg 0x$(printf %x $((0x$v - 0x$o)))'"
        fi
    fi
    log "QEMU waits for gdb on port $gdbport; the guest panics at its first soft lockup. Attach with:"
    log "  gdb-multiarch $vmlinux$dbgsym -ex 'target remote 127.0.0.1:$gdbport' -ex 'break panic' -ex continue"
    log "then: info threads (one per vCPU), thread N, bt"
fi
cmd+=("$@")
if [ -n "$statsf" ]; then
    stats_tool=$B/runner/smmulab-stats
    [ -x "$stats_tool" ] || bad "$stats_tool missing; build first (make build)"
    qmp_sock=$(mktemp -u "${TMPDIR:-/tmp}/smmulab-qmp.XXXXXX")
    # -no-shutdown: the guest's power-off stops QEMU without ending it, so
    # the counters can still be read; smmulab-stats then ends QEMU.
    cmd+=(-qmp "unix:$qmp_sock,server=on,wait=off" -no-shutdown)
    mkdir -p "$(dirname "$statsf")"
fi
printf '%q ' "${cmd[@]}" >"${logf%.log}.cmdline"
echo >>"${logf%.log}.cmdline"

start=$(date +%s.%N)
set +e
if [ -n "$statsf" ]; then
    "$stats_tool" --qmp "$qmp_sock" --wait-shutdown "$timeout" --quit \
        >"$statsf" 2>"$statsf.err" &
    stats_pid=$!
fi
if [ $quiet = 1 ]; then
    timeout --kill-after=5 "$timeout" "${cmd[@]}" </dev/null >"$logf" 2>&1
    rc=$?
else
    timeout --kill-after=5 "$timeout" "${cmd[@]}" </dev/null 2>&1 | tee "$logf"
    rc=${PIPESTATUS[0]}
fi
if [ -n "$statsf" ]; then
    wait "$stats_pid" || log "warning: no model counters: $(cat "$statsf.err")"
    rm -f "$qmp_sock" "$statsf.err"
fi
set -e
secs=$(echo "$(date +%s.%N) - $start" | bc)
secs=$(printf '%.1f' "$secs")

if [ $rc = 124 ] || [ $rc = 137 ]; then
    log "verdict: timeout after ${timeout}s (log: $logf)"
    exit 3
elif grep -q 'Kernel panic' "$logf"; then
    log "verdict: kernel panic after ${secs}s: $(grep -m1 'Kernel panic' "$logf" | tr -d '\r') (log: $logf)"
    exit 2
elif [ $rc != 0 ]; then
    log "verdict: QEMU exited with status $rc after ${secs}s: $(grep -m1 -i 'qemu-system-aarch64:' "$logf" || true) (log: $logf)"
    exit 4
elif grep -q '^RESULT status=ok' "$logf" &&
     ! why=$(if [ $unchecked = 0 ] && [ -n "${append// /}" ] && [ -x "$kparams_tool" ]; then
                 "$kparams_tool" --verify "$logf" "$append" 2>&1 >/dev/null
             fi); then
    # the kernel's own word: not the parameters asked for
    log "verdict: misconfigured after ${secs}s:${why#smmulab-kparams:} (log: $logf)"
    exit 6
elif grep -q '^RESULT status=ok' "$logf"; then
    log "verdict: ok in ${secs}s (log: $logf)"
    exit 0
elif grep -q '^RESULT status=error' "$logf"; then
    log "verdict: workload error after ${secs}s: $(grep -m1 '^SMMULAB: error' "$logf" | tr -d '\r') (log: $logf)"
    exit 1
else
    log "verdict: guest stopped without a result after ${secs}s (log: $logf)"
    exit 4
fi
