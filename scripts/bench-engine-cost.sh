#!/bin/bash
# Engine-cost benchmark: host instructions the SMMU spends per retired
# command, counted by valgrind (callgrind), for a CMD_SYNC-only stream and
# a TLBI-heavy one (63 TLBIs + CMD_SYNC per PROD write), in three QEMUs:
# upstream (built without smmulab), smmulab with every cost 0 (the
# synchronous path: its ratio to upstream is the extension's zero-cost
# overhead), and smmulab with costs on (the timed engine).
#
# Instructions are the inclusive cost of the device's entry points
# (MMIO read and write handlers, the engine's timer callback), so the
# qtest protocol and QEMU's start-up are not counted; two stream lengths
# are measured and the difference divided by the difference in commands.
# Each batch is one PROD write and one CONS read in both modes (with costs
# on, the stream first moves the virtual clock by the batch's cost).
#
#   scripts/bench-engine-cost.sh [BUILDDIR] [N1] [N2]
set -euo pipefail
SMMULAB_TAG=smmulab-bench-engine
. "$(dirname "$0")/common.sh"

B=${1:-$SMMULAB_ROOT/build}
n1=${2:-1000}
n2=${3:-3000}
Q=$B/qemu/build
stream=$Q/tests/qtest/smmuv3-cmdq-stream
logd=$B/logs/bench-engine-cost
mkdir -p "$logd"
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
command -v callgrind_annotate >/dev/null || die "callgrind_annotate missing (valgrind)"
[ -x "$stream" ] || die "$stream missing: build first (make build)"

on_props="-global arm-smmuv3.cmdq-cmd-ns=1000 -global arm-smmuv3.cmdq-sync-ns=500 -global arm-smmuv3.cmdq-tlbi-page-ns=10"
# Virtual time one batch takes with on_props: a CMD_SYNC; 63 TLBIs + CMD_SYNC
declare -A step_on=([sync]=1500 [tlbi]=$((63 * 1010 + 1500)))

# device_ir FILE: inclusive instructions of the device's entry points:
# a function's entry with its binary ("N (P%)  file:function [binary]"),
# the cost of its calls; its other entries, for code inlined from another
# file (ARM_SMMUV3()'s cast, a trace event), are parts of it.
# callgrind_annotate runs from /: from a directory where the build's
# source paths resolve relatively (the project's root, with a build made
# there), it splits a function's entry in two, under its absolute and its
# relative path, and only part of the cost keeps "[binary]" (run so, this
# script printed 1.047x for a lone CMD_SYNC at costs 0 where the same
# binaries measured from / give 1.19x).
annotate() {
    local f
    f=$(readlink -f "$1")
    shift
    (cd / && callgrind_annotate "$@" --threshold=100 --auto=no "$f" 2>/dev/null)
}
device_ir() {
    # not the "=> callee (Nx)" lines of the annotated sources
    annotate "$1" --inclusive=yes | \
        awk '$0 !~ /=>/ && /:(smmu_write_mmio|smmu_read_mmio|cmdq_timer_cb) \[/ {
                 gsub(",", "", $1); s += $1 } END { print s + 0 }'
}

# self_ir FILE: "function instructions" of the self (exclusive) cost of
# every function of the device's files (hw/arm/smmu*), its entries for
# code inlined from other files (a hook, a trace event) and of its copies
# GCC made (".isra.0", ".cold") summed
self_ir() {
    annotate "$1" --inclusive=no | \
        awk '$0 !~ /=>/ && $1 ~ /^[0-9,]+$/ && /:/ {
                 n = $1; gsub(",", "", n)
                 fn = $0; sub(/ \[.*/, "", fn); sub(/.*:/, "", fn)
                 sub(/\.(isra|constprop|part|cold)(\.[0-9]+)?$/, "", fn)
                 s[fn] += n
                 if ($0 ~ /\/hw\/arm\/smmu[^\/]*:/) dev[fn] = 1 }
             END { for (f in s) if (f in dev) print f, s[f] }'
}

# Where the costs-0 path differs from upstream's, function by function
# (the device's own; the functions they call run the same code in both):
# each function's self instructions per command (the difference of the
# two stream lengths), upstream, costs 0 and the difference, where that
# is at least 1 either way.  The hooks are inline in their callers at
# costs 0 (the MMIO handlers and smmuv3_cmdq_consume()), so they show
# there.
self_diff() {
    local kind=$1 f
    for f in upstream.$n1 upstream.$n2 off.$n1 off.$n2; do
        self_ir "$logd/callgrind.$kind.$f" | LC_ALL=C sort >"$logd/self.$kind.$f"
    done
    LC_ALL=C join -a1 -a2 -e0 -o 0,1.2,1.3,2.2,2.3 \
        <(LC_ALL=C join -a1 -a2 -e0 -o 0,1.2,2.2 \
              "$logd/self.$kind.upstream.$n1" "$logd/self.$kind.upstream.$n2") \
        <(LC_ALL=C join -a1 -a2 -e0 -o 0,1.2,2.2 \
              "$logd/self.$kind.off.$n1" "$logd/self.$kind.off.$n2") | \
        awk -v d="$((n2 - n1))" '{
                 up = ($3 - $2) / d; off = ($5 - $4) / d; tu += up; to += off
                 if (off - up >= 1 || up - off >= 1)
                     printf "%-34s %10.1f %10.1f %+10.1f\n", $1, up, off, off - up | "sort -k4,4gr"
             }
             END { close("sort -k4,4gr")
                   printf "%-34s %10.1f %10.1f %+10.1f\n", "(all of the device'"'"'s functions)", tu, to, to - tu }'
}

up=$B/qemu-upstream/build/qemu-system-aarch64
[ -x "$up" ] || die "$up missing: build first (make build)"
declare -A per
for kind in sync tlbi; do
    for mode in upstream off on; do
        props="" step=0 qemu=$Q/qemu-system-aarch64
        [ $mode = on ] && props=$on_props step=${step_on[$kind]}
        [ $mode = upstream ] && qemu=$up
        declare -A ir
        for n in $n1 $n2; do
            out=$logd/callgrind.$kind.$mode.$n
            log "callgrind: $kind stream, $mode, $n commands"
            QTEST_QEMU_BINARY="valgrind --tool=callgrind --callgrind-out-file=$out $qemu" \
                "$stream" --kind $kind --commands "$n" --step "$step" --props "$props" \
                >"$logd/stream.$kind.$mode.$n.log" 2>&1 \
                || die "stream run failed (log: $logd/stream.$kind.$mode.$n.log)"
            ir[$n]=$(device_ir "$out")
        done
        per[$kind-$mode]=$(awk -v a="${ir[$n1]}" -v b="${ir[$n2]}" -v n1="$n1" -v n2="$n2" \
                               'BEGIN { printf "%.0f", (b - a) / (n2 - n1) }')
        log "$kind costs $mode: ${ir[$n1]} and ${ir[$n2]} instructions: ${per[$kind-$mode]} per command"
        unset ir
    done
done
echo
printf '%-30s %10s %10s %10s %12s %12s\n' "instructions per command" upstream "costs 0" "costs on" "0/upstream" "on/costs 0"
for kind in sync tlbi; do
    printf '%-30s %10s %10s %10s %12s %12s\n' \
        "$([ $kind = sync ] && echo "CMD_SYNC only" || echo "63 TLBI + CMD_SYNC batches")" \
        "${per[$kind-upstream]}" "${per[$kind-off]}" "${per[$kind-on]}" \
        "$(awk -v a="${per[$kind-off]}" -v b="${per[$kind-upstream]}" 'BEGIN { printf "%.3f", a / b }')" \
        "$(awk -v a="${per[$kind-on]}" -v b="${per[$kind-off]}" 'BEGIN { printf "%.2f", a / b }')"
done
echo
for kind in sync tlbi; do
    echo "costs 0 against upstream, $([ $kind = sync ] && echo "CMD_SYNC only" || echo "63 TLBI + CMD_SYNC batches"): self instructions per command"
    printf '%-34s %10s %10s %10s\n' function upstream "costs 0" difference
    self_diff $kind
    echo
done
echo "(callgrind outputs in $logd)"
