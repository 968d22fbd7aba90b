#!/bin/bash
# Smoke boot: smmulab's guest boots on -M virt,iommu=smmuv3, arm-smmu-v3
# probes, the benchmark device joins an IOMMU group, and dma_map_benchmark
# produces non-zero map and unmap latencies.
#
#   tests/smoke.sh BUILDDIR
set -uo pipefail
B=${1:?usage: smoke.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
log=$B/logs/smoke.log

"$ROOT/scripts/boot.sh" -q -b "$B" -l "$log" -t 180 \
    -w dma-bench -a "smmulab.threads=1 smmulab.seconds=1"
rc=$?
fails=0
check() {
    local what=$1 pattern=$2
    if grep -qE "$pattern" "$log"; then
        echo "ok - $what"
    else
        echo "not ok - $what (no /$pattern/ in $log)"
        fails=$((fails + 1))
    fi
}
check "arm-smmu-v3 probed" 'arm-smmu-v3 [^ ]+: ias [0-9]+-bit, oas [0-9]+-bit'
check "device joined an IOMMU group" '[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]: Adding to iommu group [0-9]+'
check "benchmark produced results" \
    '^RESULT workload=dma-bench .*map_mean_ns=[1-9][0-9]* .*unmap_mean_ns=[1-9][0-9]*'
check "guest powered off cleanly" '^RESULT status=ok'
if [ $rc != 0 ] || [ $fails != 0 ]; then
    echo "smoke: FAILED (boot status $rc, $fails check(s) failed; log: $log)"
    exit 1
fi
grep '^RESULT workload=dma-bench' "$log"
echo "smoke: passed"
