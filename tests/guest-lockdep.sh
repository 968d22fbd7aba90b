#!/bin/bash
# Guest kit test, lockdep flavor: the kit kernel built with PROVE_LOCKING
# (scripts/build-kernel.sh --lockdep BUILDDIR/lockdep) boots every
# non-default variant under a short workload, and lockdep reports nothing:
# the patches' lockdep_assert_held() on the probe locks hold, and no lock
# order they add is inverted.
#
#   tests/guest-lockdep.sh BUILDDIR
set -uo pipefail
B=${1:?usage: guest-lockdep.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
L=$B/lockdep/guest
LOGD=$B/logs/guest-lockdep
mkdir -p "$LOGD"
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

# boot NAME boot.sh-args...: status ok, lockdep on, and silent
boot() {
    local name=$1 log=$LOGD/$1.log rc bad
    shift
    "$ROOT/scripts/boot.sh" -q -b "$B" -k "$L/Image" -i "$L/initramfs.cpio" \
        -l "$log" -t 300 "$@" >"$LOGD/$name.verdict" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        ok "$name: $(sed 's/^smmulab-boot: //' "$LOGD/$name.verdict")"
    else
        notok "$name: boot status $rc ($(cat "$LOGD/$name.verdict"))"
    fi
    if grep -q 'Lock dependency validator' "$log"; then
        ok "$name: lockdep is on"
    else
        notok "$name: no lockdep banner in $log (not the lockdep kernel?)"
    fi
    bad=$(grep -E 'WARNING:|BUG:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|turning off the locking correctness validator' "$log" | head -n 3)
    if [ -z "$bad" ]; then
        ok "$name: lockdep and the kernel reported nothing"
    else
        notok "$name: $(echo "$bad" | tr -d '\r' | tr '\n' ' ')"
    fi
}

slow=(-s cmdqs=8 -s ril=off -s cmdq-cmd-ns=2000 -s cmdq-sync-ns=2000)
boot cmdq-variants -w map-unmap -c 2 "${slow[@]}" \
    -a "smmulab.seconds=2 smmulab.size=2M arm_smmu_v3.cmdq_lock=legacy arm_smmu_v3.cmdq_wait=space-kit arm_smmu_v3.cmdq_poll=fixed arm_smmu_v3.walk_flush=asid arm_smmu_v3.tlbi_max_pages=128"
boot storm-add -w unmap-storm -c 4 "${slow[@]}" -a "smmulab.seconds=2 smmulab.total=8M arm_smmu_v3.cmdq_alloc=add"
boot probe-hashed -w probe-storm -T pfs=2 -a "iommu.probe_lock=hashed iommu.alias_walk=bus"
boot groups-hashed -w group-storm -a "smmulab.rounds=5 iommu.probe_lock=hashed iommu.probe_lock_buckets=4"

echo "1..$n"
if [ $fails != 0 ]; then
    echo "guest-lockdep: $fails of $n checks failed (logs: $LOGD)"
    exit 1
fi
