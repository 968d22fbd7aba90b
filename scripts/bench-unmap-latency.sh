#!/bin/bash
# Guest evidence for the slow CMDQ model (docs/model.md, "Guest evidence").
#
# Boots the guest on a 256-entry, no-RIL SMMU whose commands cost
# cmdq-cmd-ns each, runs dma_map_benchmark (one page, one thread), and puts
# side by side: what Linux reports about the queue, the model's own CMD_SYNC
# wait, and the unmap latency the guest measured.  An unmap is one TLBI and
# one CMD_SYNC, so the model time is 2 x cmdq-cmd-ns, and the guest, polling
# CONS with exponential backoff (10 spins, then udelay 1, 2, 4, ... us),
# sees the completion at its first poll after that.  A third boot runs the
# slow configuration under icount, to show how late the host timer applied
# retirements with and without it (the model's late-* counters).
#
#   scripts/bench-unmap-latency.sh [BUILDDIR] [CMD_NS] [SECONDS]
set -euo pipefail
SMMULAB_TAG=smmulab-bench
. "$(dirname "$0")/common.sh"

B=${1:-$SMMULAB_ROOT/build}
cmd_ns=${2:-50000}
secs=${3:-3}
logd=$B/logs/bench-unmap-latency
mkdir -p "$logd"

# run NAME PROPS...: boot once, leave console.log and stats.json in $logd/NAME
# ($boot_extra: more boot.sh options, e.g. -I 0 for icount)
boot_extra=()
run() {
    local name=$1
    shift
    local props=() p
    for p in "$@"; do props+=(-s "$p"); done
    mkdir -p "$logd/$name"
    log "booting ($name): cmdqs=8 ril=off $*, dma-bench 1 thread ${secs}s"
    "$SMMULAB_ROOT/scripts/boot.sh" -q -b "$B" -l "$logd/$name/console.log" \
        -S "$logd/$name/stats.json" -t 300 -c 2 -s cmdqs=8 -s ril=off "${props[@]}" \
        "${boot_extra[@]}" \
        -w dma-bench -a "smmulab.threads=1 smmulab.seconds=$secs" \
        || die "the benchmark boot failed (log: $logd/$name/console.log)"
}
js() { sed -n "s/^ *\"$2\" : \([0-9a-z]*\),\{0,1\}$/\1/p" "$logd/$1/stats.json" | head -n1; }
res() { sed -n "s/^RESULT workload=dma-bench .* $2=\([0-9]*\).*/\1/p" "$logd/$1/console.log" | head -n1; }

run fast
run slow "cmdq-cmd-ns=$cmd_ns"
boot_extra=(-I 0)
run icount "cmdq-cmd-ns=$cmd_ns"

con=$logd/slow/console.log
entries=$(sed -n 's/.*arm-smmu-v3 [^ ]*: allocated \([0-9]*\) entries for cmdq.*/\1/p' "$con" | head -n1)
features=$(sed -n 's/.*arm-smmu-v3 [^ ]*: ias .*(features \(0x[0-9a-f]*\)).*/\1/p' "$con" | head -n1)
ril=unknown
[ -z "$features" ] || { [ $((features & (1 << 15))) = 0 ] && ril=no || ril=yes; }
model=$((2 * cmd_ns))
# Linux's poll: 10 spins, then udelay 1, 2, 4, ... us; first poll >= model
poll=0 d=1
while [ $((poll * 1000)) -lt "$model" ]; do poll=$((poll + d)); d=$((d * 2)); done
poll=$((poll * 1000))
u0=$(res fast unmap_mean_ns) u1=$(res slow unmap_mean_ns)
syncs=$(js slow syncs) total=$(js slow total-sync-wait-ns)

row() { printf '%-38s %14s %14s\n' "$@"; }
echo
row "" "fast (cost 0)" "slow"
row "cmdq-cmd-ns" 0 "$cmd_ns"
row "Linux: command queue entries" \
    "$(sed -n 's/.*allocated \([0-9]*\) entries for cmdq.*/\1/p' "$logd/fast/console.log" | head -n1)" "${entries:-?}"
row "Linux: range invalidation" no "$ril"
row "model: CMD_SYNCs retired" "$(js fast syncs)" "${syncs:-?}"
row "model: longest CMD_SYNC wait (ns)" "$(js fast max-sync-wait-ns)" "$(js slow max-sync-wait-ns)"
row "model: mean CMD_SYNC wait (ns)" 0 "$(( ${syncs:-0} ? total / syncs : 0 ))"
row "guest: unmap mean (ns)" "$u0" "$u1"
row "guest: unmap stddev (ns)" "$(res fast unmap_stddev_ns)" "$(res slow unmap_stddev_ns)"
row "guest: map mean (ns)" "$(res fast map_mean_ns)" "$(res slow map_mean_ns)"
echo
echo "How late retirements were applied (host timer slack; an interrupt or a"
echo "translation sees it, a register access does not):"
row "" "slow" "slow, icount"
row "guest: unmap mean (ns)" "$u1" "$(res icount unmap_mean_ns)"
row "model: commands retired" "$(js slow retired)" "$(js icount retired)"
row "model: retired late" "$(js slow late-retired)" "$(js icount late-retired)"
row "model: latest (ns)" "$(js slow late-max-ns)" "$(js icount late-max-ns)"
row "model: mean over all retired (ns)" "$(js slow late-mean-ns)" "$(js icount late-mean-ns)"
echo
echo "model time of an unmap (TLBI + CMD_SYNC):        $model ns"
echo "Linux's first CONS poll at or after it:          $poll ns"
echo "guest unmap, slow minus fast (the added wait):   $((u1 - u0)) ns"

ok=1
[ "${entries:-}" = 256 ] || { log "FAIL: Linux did not report a 256-entry queue"; ok=0; }
[ "$ril" = no ] || { log "FAIL: Linux still sees range invalidation"; ok=0; }
[ "$(js slow max-sync-wait-ns)" = "$model" ] || { log "FAIL: the model's longest CMD_SYNC wait is not $model ns"; ok=0; }
[ "$u1" -ge "$model" ] || { log "FAIL: the guest saw an unmap faster than the model time"; ok=0; }
if [ $ok = 1 ]; then
    log "consistent: model wait exactly $model ns; guest unmap >= it; added wait $((u1 - u0)) ns vs first poll $poll ns"
fi
[ $ok = 1 ]
