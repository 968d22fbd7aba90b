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

# fn_ir FILE MODE FN: FN's instructions, inclusive (with its callees) or
# self (exclusive)
fn_ir() {
    local flag=yes
    [ "$2" = self ] && flag=no
    annotate "$1" --inclusive=$flag | \
        awk -v fn="$3" '$0 !~ /=>/ && index($0, ":" fn " [") {
                 gsub(",", "", $1); s += $1 } END { print s + 0 }'
}

# What the costs-0 path adds to upstream's path, hook by hook: inclusive for
# hooks that only account, self for those that also run upstream's
# consume loop (prod_written -> kick -> smmuv3_cmdq_consume).  The
# per-command hook, smmuv3_cmdq_retired(), is inline in
# smmuv3_cmdq_consume() and has no line of its own: the rest of the
# difference is there.
hooks="incl:smmuv3_cmdq_mmio_enter incl:smmuv3_cmdq_cons_read
       self:smmuv3_cmdq_prod_written self:smmuv3_cmdq_kick incl:smmu_cmdq_stats_pending"

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
echo "costs 0, per command: what the hooks add to upstream's path"
printf '%-30s' "hook"
for kind in sync tlbi; do printf ' %14s' "$kind"; done
echo
for h in $hooks; do
    mode=${h%%:*} fn=${h#*:}
    printf '%-30s' "$fn ($mode)"
    for kind in sync tlbi; do
        a=$(fn_ir "$logd/callgrind.$kind.off.$n1" "$mode" "$fn")
        b=$(fn_ir "$logd/callgrind.$kind.off.$n2" "$mode" "$fn")
        printf ' %14s' "$(awk -v a="$a" -v b="$b" -v n1="$n1" -v n2="$n2" \
                             'BEGIN { printf "%.0f", (b - a) / (n2 - n1) }')"
    done
    echo
done
echo "(callgrind outputs in $logd)"
