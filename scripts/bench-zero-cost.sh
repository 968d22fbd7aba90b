#!/bin/bash
# Zero-cost benchmark: does smmulab cost anything when every cost is 0?
#
# The same QEMU source built with and without the project's patches and
# files (same configure flags), the same guest and workload:
#
#  A. guest-measured map+unmap latency and throughput (map-unmap, 4 KiB,
#     2 vCPUs, real time), the two QEMUs alternated RUNS times;
#  B. host CPU time (user + sys) of QEMU for the identical deterministic
#     guest run (icount: the guest executes exactly the same instructions
#     in both), alternated RUNS times.
#
# Alternation is ABBA (upstream first in odd rounds, smmulab first in even
# ones), so that drift and order effects fall on both alike.
#
# Prints means, standard deviations and the smmulab/upstream ratios.
#
#   scripts/bench-zero-cost.sh [BUILDDIR] [RUNS] [SECONDS]
set -euo pipefail
SMMULAB_TAG=smmulab-bench-zero
. "$(dirname "$0")/common.sh"

B=${1:-$SMMULAB_ROOT/build}
runs=${2:-5}
secs=${3:-3}
logd=$B/logs/bench-zero-cost
mkdir -p "$logd"
up=$B/qemu-system-aarch64-upstream
sm=$B/qemu-system-aarch64
for q in "$up" "$sm"; do
    [ -x "$q" ] || die "$q missing: build first (make build)"
done

field() { tr -d '\r' <"$1" | grep '^RESULT workload=map-unmap threads=' | tr ' ' '\n' | sed -n "s/^$2=//p"; }

declare -A vals
order() { if [ $(($1 % 2)) = 1 ]; then echo upstream smmulab; else echo smmulab upstream; fi; }
for i in $(seq 1 "$runs"); do
    for who in $(order "$i"); do
        q=$up; [ $who = smmulab ] && q=$sm
        log=$logd/real-$who-$i.log
        "$SMMULAB_ROOT/scripts/boot.sh" -q -b "$B" -Q "$q" -l "$log" -t 300 -c 2 \
            -w map-unmap -a "smmulab.seconds=$secs smmulab.threads=2" >/dev/null \
            || die "boot failed (log: $log)"
        vals[$who-ops]+="$(field "$log" ops_per_sec) "
        vals[$who-unmap]+="$(field "$log" unmap_mean_ns) "
        vals[$who-map]+="$(field "$log" map_mean_ns) "
        log "A run $i/$runs $who: $(field "$log" ops_per_sec) map+unmap/s"
    done
done
for i in $(seq 1 "$runs"); do
    for who in $(order "$i"); do
        q=$up; [ $who = smmulab ] && q=$sm
        log=$logd/icount-$who-$i.log
        TIMEFORMAT='%U %S'
        t=$( { time "$SMMULAB_ROOT/scripts/boot.sh" -q -b "$B" -Q "$q" -l "$log" \
                 -t 600 -c 2 -I 3 -w map-unmap \
                 -a "smmulab.seconds=1 smmulab.threads=2" >/dev/null; } 2>&1 | tail -n1)
        cpu=$(echo "$t" | awk '{ printf "%.3f", $1 + $2 }')
        vals[$who-cpu]+="$cpu "
        log "B run $i/$runs $who: $cpu s host CPU"
    done
done
# the icount runs must be identical guest executions
a=$(tr -d '\r' <"$logd/icount-upstream-1.log" | grep '^RESULT workload=map-unmap threads=')
b=$(tr -d '\r' <"$logd/icount-smmulab-1.log" | grep '^RESULT workload=map-unmap threads=')
same=no; [ "$a" = "$b" ] && same=yes

stats() { echo "$1" | tr ' ' '\n' | awk 'NF { n++; s += $1; q += $1 * $1 }
    END { m = s / n; v = q / n - m * m; printf "%.1f %.1f", m, (v > 0 ? sqrt(v) : 0) }'; }
median() { echo "$1" | tr ' ' '\n' | awk 'NF' | sort -g | awk '{ a[NR] = $1 }
    END { printf "%.1f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
row() {
    local name=$1 key=$2 um us sm_ ss mu ms
    read -r um us <<<"$(stats "${vals[upstream-$key]}")"
    read -r sm_ ss <<<"$(stats "${vals[smmulab-$key]}")"
    mu=$(median "${vals[upstream-$key]}") ms=$(median "${vals[smmulab-$key]}")
    printf '%-42s %18s %18s %7s %7s\n' "$name" "$um ± $us" "$sm_ ± $ss" \
        "$(awk -v a="$sm_" -v b="$um" 'BEGIN { printf "%.3f", a / b }')" \
        "$(awk -v a="$ms" -v b="$mu" 'BEGIN { printf "%.3f", a / b }')"
}
echo
printf '%-42s %18s %18s %7s %7s\n' "($runs runs each, ABBA)" "upstream mean±sd" "smmulab mean±sd" \
    ratio "ratio of medians"
row "A. guest map+unmaps per second" ops
row "A. guest unmap latency mean (ns)" unmap
row "A. guest map latency mean (ns)" map
row "B. host CPU seconds, identical icount run" cpu
echo "B. guest RESULT lines identical in both QEMUs: $same"
echo "(ratio = smmulab / upstream; logs in $logd)"
