#!/bin/bash
# Guest kit test: one kernel runs every driver variant and every workload
# (short runs); variant names appear in the log; the numbers are sane; a
# guest that panics or hangs is reported as such.
#
#   tests/guest-variants.sh BUILDDIR
set -uo pipefail
B=${1:?usage: guest-variants.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOGD=$B/logs/guest-variants
mkdir -p "$LOGD"
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

# boot NAME EXPECTED_STATUS boot.sh-args...
boot() {
    local name=$1 want=$2 rc
    shift 2
    "$ROOT/scripts/boot.sh" -q -b "$B" -l "$LOGD/$name.log" "$@" >"$LOGD/$name.verdict" 2>&1
    rc=$?
    if [ "$rc" = "$want" ]; then
        ok "$name: boot status $rc ($(sed 's/^smmulab-boot: //' "$LOGD/$name.verdict"))"
    else
        notok "$name: boot status $rc, expected $want ($(cat "$LOGD/$name.verdict"))"
    fi
}

has() {
    local name=$1 what=$2 pattern=$3
    if grep -qE "$pattern" "$LOGD/$name.log"; then
        ok "$name: $what"
    else
        notok "$name: $what (no /$pattern/ in $LOGD/$name.log)"
    fi
}

# field NAME KEY: KEY=VALUE from the workload's summary RESULT line
field() {
    grep -E "^RESULT workload=[a-z-]+ (threads|pfs)=" "$LOGD/$1.log" | tail -n1 | \
        tr -d '\r' | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# sane NAME: non-zero ops, p50 <= p99 <= p99.9 <= max for map and unmap
sane() {
    local name=$1 ops k p50 p99 p999 max
    ops=$(field "$name" ops)
    if [ -n "$ops" ] && [ "$ops" -gt 0 ]; then ok "$name: $ops ops"; else notok "$name: no ops"; fi
    for k in map unmap; do
        p50=$(field "$name" ${k}_p50_ns) p99=$(field "$name" ${k}_p99_ns)
        p999=$(field "$name" ${k}_p999_ns) max=$(field "$name" ${k}_max_ns)
        if [ -n "$p50" ] && [ "$p50" -gt 0 ] && [ "$p50" -le "$p99" ] && \
           [ "$p99" -le "$p999" ] && [ "$p999" -le "$max" ]; then
            ok "$name: $k p50 $p50 <= p99 $p99 <= p99.9 $p999 <= max $max ns"
        else
            notok "$name: $k percentiles not ordered: p50=$p50 p99=$p99 p99.9=$p999 max=$max"
        fi
    done
    # each thread's fastest and slowest, within the run's maximum
    if tr -d '\r' <"$LOGD/$name.log" | grep -E "^RESULT workload=[a-z-]+ thread=" | \
       awk -v mm="$(field "$name" map_max_ns)" -v um="$(field "$name" unmap_max_ns)" '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          if (!(v["map_min_ns"] > 0 && v["map_min_ns"] <= v["map_max_ns"] && v["map_max_ns"] <= mm &&
                v["unmap_min_ns"] > 0 && v["unmap_min_ns"] <= v["unmap_max_ns"] && v["unmap_max_ns"] <= um)) bad++
          n++ }
        END { exit !(n > 0 && !bad) }'; then
        ok "$name: every thread's min <= max <= the run's max, map and unmap"
    else
        notok "$name: per-thread min/max missing or out of order"
    fi
}

slow=(-s cmdqs=8 -s ril=off -s cmdq-cmd-ns=2000 -s cmdq-sync-ns=2000)

boot default 0 -w map-unmap -c 2 -a "smmulab.seconds=1"
has default "default variants printed" 'cmdq_lock=fair cmdq_wait=full'
has default "default probe variants printed" 'iommu: probe_lock=global'
has default "alias walk printed" 'iommu: alias_walk=all'
sane default

# The release booted.  From 7.3 on (docs/guest.md, "Linux 7.3"):
# - the driver has an invalidation threshold of its own
#   (arm_smmu_inv_size_too_big(): without RIL, a range of 512 commands or
#   more at 4 KiB goes by ASID), which tlbi_max_pages replaces in the kit's
#   series for it (patches/linux-7.3/);
# - a PCI device's IOMMU is probed when the device is added (the IOMMU
#   core runs the bus's dma_configure() itself), not when its driver binds
release=$(tr -d '\r' <"$LOGD/default.log" | sed -n 's/.*Linux version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -n1)
own_threshold=0
probe_at_add=0
if [ -n "$release" ]; then
    read -r rv rp <<<"$release"
    if [ "$rv" -gt 7 ] || { [ "$rv" = 7 ] && [ "$rp" -ge 3 ]; }; then
        own_threshold=1
        probe_at_add=1
    fi
fi
# An unmap storm of 2 MiB chunks is a storm of TLBIs by address (512 per
# chunk without RIL) only where no threshold of the driver's turns each
# chunk into one TLBI by ASID: from 7.3 on, tlbi_max_pages beyond any
# range keeps the storm the workload it is on 6.12
storm=""
[ $own_threshold = 0 ] || storm=" arm_smmu_v3.tlbi_max_pages=4294967295"

boot legacy-space 0 -w map-unmap -c 2 "${slow[@]}" \
    -a "smmulab.seconds=1 smmulab.size=64K arm_smmu_v3.cmdq_lock=legacy arm_smmu_v3.cmdq_wait=space-kit"
has legacy-space "legacy lock and space wait printed" 'cmdq_lock=legacy cmdq_wait=space-kit'
sane legacy-space

boot storm-fair 0 -w unmap-storm -c 2 "${slow[@]}" \
    -a "smmulab.seconds=1 smmulab.total=8M arm_smmu_v3.cmdq_wait=space-kit$storm"
has storm-fair "fair lock and space wait printed" 'cmdq_lock=fair cmdq_wait=space-kit'
has storm-fair "2 MiB chunks" '^RESULT workload=unmap-storm threads=2 .*size=2097152 total=8388608 chunks=4 '
sane storm-fair

boot probe-global 0 -w probe-storm -T pfs=2 -a "iommu.probe_lock=global iommu.alias_walk=all"
has probe-global "global lock, full alias walk printed" 'iommu: probe_lock=global'
has probe-global "all 16 VFs joined IOMMU groups" '^RESULT workload=probe-storm pfs=2 vfs_per_pf=8 vfs_total=16 vfs_in_groups=16 '

boot probe-hashed 0 -w probe-storm -T pfs=2 -a "iommu.probe_lock=hashed iommu.alias_walk=bus"
has probe-hashed "hashed lock printed" 'iommu: probe_lock=hashed'
has probe-hashed "bus alias walk printed" 'iommu: alias_walk=bus'
has probe-hashed "all 16 VFs joined IOMMU groups" '^RESULT workload=probe-storm pfs=2 vfs_per_pf=8 vfs_total=16 vfs_in_groups=16 '

# kc NAME KEY: a kit kernel counter at the end of the run
kc() {
    tr -d '\r' <"$LOGD/$1.log" | grep -E '^RESULT kernel-counters ' | tail -n1 | \
        tr ' ' '\n' | sed -n "s/^$2=//p"
}

# ksum NAME REGEX: the sum of the kit kernel counters whose names match
# REGEX at the end of the run (empty without a counters line)
ksum() {
    tr -d '\r' <"$LOGD/$1.log" | grep -E '^RESULT kernel-counters ' | tail -n1 | \
        tr ' ' '\n' | grep -E "^($2)=" | awk -F= '{ s += $2 } END { if (NR) print s + 0 }'
}

# check NAME WHAT EXPR: an arithmetic test on numbers read from the log
check() {
    if [ -n "$3" ] && (( $3 )) 2>/dev/null; then ok "$1: $2 ($3)"; else notok "$1: $2 ($3)"; fi
}

if [ $probe_at_add = 1 ]; then
    # The functions of a rescanned slot are IOMMU-probed one by one as the
    # scan adds them, under the PCI core's rescan lock, not at once when
    # their drivers bind: no probe runs beside another, and the workload
    # cannot contend the probe locks.  And before pci_scan_slot() marks
    # functions 1-3 multifunction (only function 0's header says so in
    # QEMU), so each of them gets a group of its own: every re-added slot
    # splits, under either lock, as on the stock 7.3.4 kernel without the
    # kit's series (docs/guest.md, "Linux 7.3").  Should a release group
    # them again, these checks fail: the workload is then worth running.
    boot groups-global 1 -w group-storm -a "smmulab.rounds=40 iommu.probe_lock=global"
    boot groups-hashed 1 -w group-storm -a "smmulab.rounds=40 iommu.probe_lock=hashed"
    for v in global hashed; do
        has groups-$v "every re-added slot split, as in the stock kernel (39 of 40 rounds; round 0 is the boot's grouping)" \
            '^RESULT workload=group-storm slots=8 functions_per_slot=4 rounds=40 split_slots=312 split_rounds=39 merged_slots=0 '
    done
    check groups-hashed "group formation lock taken, never contended: the probes ran one by one" \
        "$(kc groups-hashed group_lock_acquisitions) >= 40 * 32 && $(kc groups-hashed group_lock_contended) == 0"
    boot buckets-1 0 -w none -a "iommu.probe_lock=hashed iommu.probe_lock_buckets=1"
    has buckets-1 "one bucket printed" 'iommu: probe_lock=hashed buckets=1[^0-9]'
else
    # Group formation stays serialised under hashed probe locks: the functions
    # of each multifunction device (no ACS) end in one group, round after round,
    # and in the same partition as under the global lock.  The group formation
    # lock is taken (and contended) only when hashed.
    boot groups-global 0 -w group-storm -a "smmulab.rounds=40 iommu.probe_lock=global"
    boot groups-hashed 0 -w group-storm -a "smmulab.rounds=40 iommu.probe_lock=hashed"
    for v in global hashed; do
        has groups-$v "40 rounds, no slot split, one partition" \
            '^RESULT workload=group-storm slots=8 functions_per_slot=4 rounds=40 split_slots=0 split_rounds=0 merged_slots=0 distinct_partitions=1 '
    done
    if [ -n "$(grep -h '^RESULT workload=group-storm round=' "$LOGD"/groups-global.log)" ] && \
       diff <(grep '^RESULT workload=group-storm round=' "$LOGD/groups-global.log" | tr -d '\r') \
            <(grep '^RESULT workload=group-storm round=' "$LOGD/groups-hashed.log" | tr -d '\r') >/dev/null; then
        ok "groups: every round's partition the same under global and hashed"
    else
        notok "groups: partitions differ between global and hashed"
    fi
    check groups-global "no group formation lock when global" "$(kc groups-global group_lock_acquisitions) == 0"
    check groups-hashed "group formation lock taken once per probe" "$(kc groups-hashed group_lock_acquisitions) == 40 * 32"
    check groups-hashed "and contended: the functions did probe at once" "$(kc groups-hashed group_lock_contended) > 0"

    # The bucket count is the table in use: one bucket makes the hashed lock
    # as contended as the global one, many buckets spread the functions out.
    boot buckets-1 0 -w group-storm -a "smmulab.rounds=20 iommu.probe_lock=hashed iommu.probe_lock_buckets=1"
    boot buckets-256 0 -w group-storm -a "smmulab.rounds=20 iommu.probe_lock=hashed iommu.probe_lock_buckets=256"
    has buckets-1 "one bucket printed" 'iommu: probe_lock=hashed buckets=1[^0-9]'
    check buckets "probe lock contended: 1 bucket > 4 x 256 buckets" \
        "$(kc buckets-1 probe_lock_contended) > 4 * $(kc buckets-256 probe_lock_contended)"
fi

# Walk flushes: a 2 MiB buffer of 4 KiB pages is one whole level-3 table.
# pages: 512 TLBIs per walk flush; asid: one TLBI by ASID.  Counted by the
# driver and by the model (commands per map+unmap).
wf=(-w map-unmap -c 2 -s ril=off)
boot walk-pages 0 "${wf[@]}" -S "$LOGD/walk-pages.stats" \
    -a "smmulab.seconds=1 smmulab.threads=1 smmulab.size=2M arm_smmu_v3.walk_flush=pages"
boot walk-asid 0 "${wf[@]}" -S "$LOGD/walk-asid.stats" \
    -a "smmulab.seconds=1 smmulab.threads=1 smmulab.size=2M arm_smmu_v3.walk_flush=asid"
has walk-asid "walk_flush=asid printed" 'walk_flush=asid tlbi_max_pages=0'
# pages is the driver's code, which counts no walk flush (issue 28)
check walk-pages "walk flushes not counted on the default path, none by ASID" \
    "$(kc walk-pages walk_flushes) == 0 && $(kc walk-pages walk_flushes_by_asid) == 0"
check walk-asid "every walk flush by ASID" \
    "$(kc walk-asid walk_flushes) > 0 && $(kc walk-asid walk_flushes_by_asid) == $(kc walk-asid walk_flushes)"
# The counters count slow paths only: one thread alone on a fast queue
# (thousands of insertions, none contended) leaves every CMDQ wait and
# cmpxchg counter of the default path at 0 (a counter bumped on every
# insertion, as cmpxchg_attempts was, fails this)
check walk-pages "uncontended: no default-path counter moved in $(field walk-pages ops) map+unmaps of 2 MiB" \
    "$(field walk-pages ops) > 0 && $(ksum walk-pages 'shared_lock_[a-z_]*|exclusive_[a-z_]*|space_wait[a-z_]*|cmdq_timeouts|cmd_sync_timeouts|cmpxchg_[a-z_]*') == 0"
# mstat NAME KEY: a model counter from the -S file of boot NAME
mstat() {
    sed -n "s/.*\"$2\" *: *\([0-9]*\).*/\1/p" "$LOGD/$1.stats"
}
cmds_per_op() {
    local retired ops
    retired=$(mstat "$1" retired)
    ops=$(field "$1" ops)
    [ -n "$retired" ] && [ -n "$ops" ] && [ "$ops" -gt 0 ] && echo $((retired / ops))
}
if [ $own_threshold = 1 ]; then
    # pages is the driver's code, whose own threshold already takes the
    # 512 TLBIs of a 2 MiB walk flush as one by ASID; a threshold beyond
    # any range (tlbi_max_pages, which replaces the driver's there) gives
    # the invalidation by page of the releases before it
    check walk-pages "model: under 16 commands per 2 MiB map+unmap (the driver's own threshold, Linux ${release/ /.})" \
        "$(cmds_per_op walk-pages) < 16"
    boot walk-pages-nolimit 0 "${wf[@]}" -S "$LOGD/walk-pages-nolimit.stats" \
        -a "smmulab.seconds=1 smmulab.threads=1 smmulab.size=2M arm_smmu_v3.tlbi_max_pages=4294967295"
    check walk-pages-nolimit "model: with tlbi_max_pages=4294967295, over 512 commands per 2 MiB map+unmap" \
        "$(cmds_per_op walk-pages-nolimit) > 512"
    check walk-pages-nolimit "and no range by ASID" "$(kc walk-pages-nolimit range_invalidations_by_asid) == 0"
else
    check walk-pages "model: over 512 commands per 2 MiB map+unmap" "$(cmds_per_op walk-pages) > 512"
fi
check walk-asid "model: under 16 commands per 2 MiB map+unmap" "$(cmds_per_op walk-asid) < 16"

# tlbi_max_pages: a 1 MiB leaf range (256 pages) over 128 goes by ASID
boot tlbi-max 0 "${wf[@]}" -a "smmulab.seconds=1 smmulab.threads=1 smmulab.size=1M arm_smmu_v3.tlbi_max_pages=128"
boot tlbi-nomax 0 "${wf[@]}" -a "smmulab.seconds=1 smmulab.threads=1 smmulab.size=1M"
check tlbi-max "1 MiB ranges invalidated by ASID over 128 pages" "$(kc tlbi-max range_invalidations_by_asid) > 0"
check tlbi-nomax "no threshold, no ASID invalidation" "$(kc tlbi-nomax range_invalidations_by_asid) == 0"

# cmdq_alloc: each mode counts only in its own path.  With add, a slow
# queue that fills makes reservations wait for their slots (the full-queue
# handling that design needs) and the run still ends cleanly.
boot alloc-cmpxchg 0 -w map-unmap -c 2 -a "smmulab.seconds=1 arm_smmu_v3.cmdq_alloc=cmpxchg"
boot alloc-add 0 -w map-unmap -c 2 -a "smmulab.seconds=1 arm_smmu_v3.cmdq_alloc=add"
has alloc-add "add mode and its batch bound printed" 'cmdq_alloc=add: 262144 cmdq entries for 2 possible CPUs, at most 64 commands per batch'
has alloc-cmpxchg "cmpxchg printed" 'tlbi_max_pages=[0-9]+ cmdq_alloc=cmpxchg[[:space:]]*$'
check alloc-cmpxchg "no add counter moved" "$(ksum alloc-cmpxchg 'add_[a-z_]*') == 0"
has alloc-add "add printed as what runs" 'tlbi_max_pages=[0-9]+ cmdq_alloc=add[[:space:]]*$'
check alloc-add "add reservations counted, no cmpxchg" \
    "$(kc alloc-add add_reservations) > 0 && $(ksum alloc-add 'cmpxchg_[a-z_]*') == 0"
sane alloc-add
boot alloc-add-full 0 -w unmap-storm -c 4 "${slow[@]}" \
    -a "smmulab.seconds=2 smmulab.total=8M arm_smmu_v3.cmdq_alloc=add$storm"
has alloc-add-full "batch bound for 4 CPUs" 'at most 63 commands per batch'
check alloc-add-full "the queue filled: reservations waited for their slots" "$(kc alloc-add-full add_space_waits) > 0"
# The add path's waits are timed under their own names: the wait for its
# slots (the counterpart of space_wait_*, which stays 0 under add) and a
# gathered CPU's wait for its owner to publish
check alloc-add-full "add space waits timed: 0 < longest <= total" \
    "$(kc alloc-add-full add_space_wait_max_ns) > 0 && $(kc alloc-add-full add_space_wait_max_ns) <= $(kc alloc-add-full add_space_wait_ns)"
check alloc-add-full "gathered CPUs waited for publication, timed: 0 < longest <= total" \
    "$(kc alloc-add-full add_publish_waits) > 0 && $(kc alloc-add-full add_publish_wait_max_ns) > 0 && $(kc alloc-add-full add_publish_wait_max_ns) <= $(kc alloc-add-full add_publish_wait_ns)"
check alloc-add-full "the cmpxchg path's space wait untouched" \
    "$(kc alloc-add-full space_waits) == 0 && $(kc alloc-add-full space_wait_ns) == 0"
check alloc-add-full "no CMDQ or CMD_SYNC timeout" \
    "$(kc alloc-add-full cmdq_timeouts) == 0 && $(kc alloc-add-full cmd_sync_timeouts) == 0"
sane alloc-add-full
# The same under cmpxchg: its space wait is timed.  Contention (2 or 4
# CPUs) is counted as reservations that lost a cmpxchg() and every lost
# cmpxchg(); how much there is varies from run to run (0 to over 100 here)
boot alloc-cmpxchg-full 0 -w unmap-storm -c 4 "${slow[@]}" \
    -a "smmulab.seconds=2 smmulab.total=8M arm_smmu_v3.cmdq_alloc=cmpxchg$storm"
check alloc-cmpxchg-full "space waits timed, none by add" \
    "$(kc alloc-cmpxchg-full space_wait_max_ns) > 0 && $(ksum alloc-cmpxchg-full 'add_[a-z_]*') == 0"
for v in alloc-cmpxchg alloc-cmpxchg-full; do
    check $v "contention counted: reservations that lost $(kc $v cmpxchg_contended) <= lost cmpxchg() $(kc $v cmpxchg_failures), both or neither 0" \
        "$(kc $v cmpxchg_contended) <= $(kc $v cmpxchg_failures) && ($(kc $v cmpxchg_contended) > 0) == ($(kc $v cmpxchg_failures) > 0)"
done

# cmdq_poll: queue_poll() sleeps in udelay() after every 10 polls and
# doubles the delay (upstream, the default), so a space wait that keeps its
# poll state sleeps longer and longer; fixed keeps every sleep at 1 us.
# The space waits count their sleeps and the time slept (a kernel without
# the knob has neither counter, and fails here).
for p in upstream fixed; do
    boot poll-$p 0 -w unmap-storm -c 4 "${slow[@]}" \
        -a "smmulab.seconds=2 smmulab.total=8M arm_smmu_v3.cmdq_wait=space-kit arm_smmu_v3.cmdq_poll=$p$storm"
done
has poll-fixed "cmdq_poll=fixed printed" 'cmdq_wait=space-kit cmdq_poll=fixed '
has poll-upstream "cmdq_poll=upstream printed" 'cmdq_wait=space-kit cmdq_poll=upstream '
check poll-upstream "space waits slept, backing off: $(kc poll-upstream space_wait_sleep_ns) ns in $(kc poll-upstream space_wait_sleeps) sleeps" \
    "$(kc poll-upstream space_wait_sleeps) > 0 && $(kc poll-upstream space_wait_sleep_ns) > 1000 * $(kc poll-upstream space_wait_sleeps)"
check poll-fixed "space waits slept 1 us a time: $(kc poll-fixed space_wait_sleep_ns) ns in $(kc poll-fixed space_wait_sleeps) sleeps" \
    "$(kc poll-fixed space_wait_sleeps) > 0 && $(kc poll-fixed space_wait_sleep_ns) == 1000 * $(kc poll-fixed space_wait_sleeps)"
for p in upstream fixed; do
    check poll-$p "the longest space wait's sleep within it: $(kc poll-$p space_wait_max_sleep_ns) <= $(kc poll-$p space_wait_max_ns) ns" \
        "$(kc poll-$p space_wait_max_sleep_ns) <= $(kc poll-$p space_wait_max_ns)"
done
# the add path's space wait backs off alike (alloc-add-full: upstream)
check alloc-add-full "add space waits slept, backing off" \
    "$(kc alloc-add-full add_space_wait_sleeps) > 0 && $(kc alloc-add-full add_space_wait_sleep_ns) > 1000 * $(kc alloc-add-full add_space_wait_sleeps) && $(kc alloc-add-full add_space_wait_max_sleep_ns) <= $(kc alloc-add-full add_space_wait_max_ns)"

# A queue that stops retiring: the first TLBI by address costs 1000 s of
# the model's time, so the queue fills and never drains (boot and probe
# issue none).  Under add every CPU then waits for its slots with
# interrupts off, where the soft lockup detector cannot see it, and with
# jiffies stopped the rate limit silences the "CMDQ timeout" warnings after
# ten.  The waits must go on reporting the stall (after 2, 4, 8, 16, ...
# timeouts of 1 s), and the run ends as a hang.
# (A TLBI by ASID, which 7.3's threshold would send, is not slowed: $storm.)
boot add-stall 3 -w unmap-storm -c 4 -s cmdqs=8 -s ril=off -s cmdq-tlbi-page-ns=1000000000000 -t 45 \
    -a "smmulab.seconds=2 smmulab.total=8M arm_smmu_v3.cmdq_alloc=add$storm"
has add-stall "the space wait warns" 'CMDQ timeout waiting for [0-9]+ slots at 0x'
has add-stall "and still reports the stall after 16 timeouts, past the rate limit" \
    'CMDQ timeout waiting for [0-9]+ slots at 0x[0-9a-f]+, stalled: 16 timeouts, interrupts off'

# add's wait for publication, with a stalled owner (fault injection,
# cmdq_add_stall_ms: the first owner that gathered another CPU waits 1.5 s
# before publishing).  The gathered CPUs poll with interrupts off and must
# warn after the 1 s timeout: a wait in WFE without the timer's event
# stream would not wake to check it (on TCG, WFE returns at once, so this
# run cannot tell the two apart; it shows that the warning is reached and
# counted).  Those warnings are not space-wait timeouts: the console's
# "CMDQ timeout" lines and cmdq_timeouts count the same events.
boot add-publish-stall 0 -w unmap-storm -c 4 "${slow[@]}" \
    -a "smmulab.seconds=2 smmulab.total=8M arm_smmu_v3.cmdq_alloc=add arm_smmu_v3.cmdq_add_stall_ms=1500$storm"
has add-publish-stall "the fault injection announced" 'fault injection: the first cmdq_alloc=add owner that gathers another CPU waits 1500 ms'
has add-publish-stall "a gathered CPU warns of the stalled publication" \
    'CMDQ publication timeout waiting for the owner to publish slots at 0x'
check add-publish-stall "and counts it: add_publish_timeouts $(kc add-publish-stall add_publish_timeouts)" \
    "$(kc add-publish-stall add_publish_timeouts) > 0"
check add-publish-stall "console \"CMDQ timeout\" lines $(grep -c 'CMDQ timeout' "$LOGD/add-publish-stall.log") == cmdq_timeouts $(kc add-publish-stall cmdq_timeouts)" \
    "$(grep -c 'CMDQ timeout' "$LOGD/add-publish-stall.log") == $(kc add-publish-stall cmdq_timeouts)"
sane add-publish-stall

# One CPU waiting for space alone (1 vCPU; 20 ms a command, so a batch of
# 64 waits 1.3 s for its slots).  cmdq_wait=v3, the posted code, gets the
# exclusive lock on every round and returns without polling: it never
# reaches its timeout check, and waits past 1 s without a word.  The
# kit's space-kit polls after every round and warns.
for w in v3 space-kit; do
    boot lone-$w 0 -w unmap-storm -c 1 -s cmdqs=8 -s ril=off -s cmdq-cmd-ns=20000000 \
        -a "smmulab.seconds=1 smmulab.total=2M arm_smmu_v3.cmdq_wait=$w$storm"
    has lone-$w "cmdq_wait=$w printed" "cmdq_wait=$w cmdq_poll=upstream "
    check lone-$w "a space wait past the 1 s timeout: $(kc lone-$w space_wait_max_ns) ns" \
        "$(kc lone-$w space_wait_max_ns) > 1000000000"
done
check lone-v3 "v3 alone: every trylock won ($(kc lone-v3 exclusive_trylocks)), no timeout counted or printed" \
    "$(kc lone-v3 exclusive_trylock_failures) == 0 && $(kc lone-v3 cmdq_timeouts) == 0 && $(grep -c 'CMDQ timed out' "$LOGD/lone-v3.log") == 0"
check lone-space-kit "space-kit alone: timeouts counted $(kc lone-space-kit cmdq_timeouts) and printed" \
    "$(kc lone-space-kit cmdq_timeouts) > 0 && $(grep -c 'CMDQ timeout waiting for' "$LOGD/lone-space-kit.log") > 0"

# add on a queue too small for it (128 entries, under 2 per possible CPU)
# runs cmpxchg, and the variant line says so.  65 possible CPUs without
# booting 65: the machine's device tree with 63 more CPU nodes, which
# PSCI cannot start (dtc from the kernel build).  -U: the kernel does not
# run what was asked, on purpose (boot.sh would say misconfigured, exit 6)
dtc=$B/linux/obj/scripts/dtc/dtc
small=(-w map-unmap -c 2 -s cmdqs=7 -U -a "smmulab.seconds=1 arm_smmu_v3.cmdq_alloc=add")
if [ -x "$dtc" ]; then
    "$ROOT/scripts/boot.sh" -q -b "$B" -l "$LOGD/dumpdtb.log" "${small[@]}" -- \
        -machine dumpdtb="$LOGD/virt.dtb" >/dev/null 2>&1
    "$dtc" -q -I dtb -O dts "$LOGD/virt.dtb" 2>/dev/null | awk '
        { print }
        /^\t\tcpu@1 \{/ { incpu = 1 }
        incpu && /^\t\t\};/ {
            for (i = 0; i < 63; i++)
                printf "\t\tcpu@%x {\n\t\t\treg = <0x%x>;\n\t\t\tenable-method = \"psci\";\n\t\t\tcompatible = \"arm,cortex-a57\";\n\t\t\tdevice_type = \"cpu\";\n\t\t};\n", 65536 + i, 65536 + i
            incpu = 0
        }' | "$dtc" -q -I dts -O dtb -o "$LOGD/virt65.dtb" 2>/dev/null
    boot alloc-add-small 0 "${small[@]}" -- -dtb "$LOGD/virt65.dtb"
    has alloc-add-small "65 possible CPUs" 'nr_cpu_ids=65'
    has alloc-add-small "the variant line names cmpxchg, add requested" \
        'cmdq_alloc=cmpxchg \(add requested: 128 entries < 2 x 65 possible CPUs\)'
    check alloc-add-small "and cmpxchg ran: no add reservation" \
        "$(kc alloc-add-small add_reservations) == 0"
    sane alloc-add-small
else
    ok "# SKIP add on a small queue: no $dtc (build the kernel)"
fi

# CMD_SYNC by MSI: with msi=on the driver's MSI-polling wait runs (every
# CMD_SYNC completes by an MSI write, no CONS read while busy); with
# msi=off it polls CONS.  Read from the model's counters.
for m in off on; do
    boot msi-$m 0 -w map-unmap -c 2 -s cmdqs=8 -s ril=off -s cmdq-cmd-ns=20000 -s msi=$m \
        -S "$LOGD/msi-$m.stats" -a "smmulab.seconds=1 smmulab.threads=1"
done
has msi-on "the driver found IDR0.MSI (no MSI parent: wired irqs)" 'msi_domain absent - falling back to wired irqs'
check msi-on "every CMD_SYNC completed by MSI, no CONS read while busy" \
    "$(mstat msi-on msi-writes) > 0 && $(mstat msi-on msi-writes) == $(mstat msi-on syncs) && $(mstat msi-on cons-reads-busy) == 0"
check msi-off "no MSI, CONS polled" \
    "$(mstat msi-off msi-writes) == 0 && $(mstat msi-off cons-reads-busy) > 0"

boot bogus-variants 0 -w none -U -a "arm_smmu_v3.cmdq_lock=bogus arm_smmu_v3.cmdq_wait=bogus iommu.probe_lock=bogus iommu.alias_walk=bogus arm_smmu_v3.walk_flush=bogus arm_smmu_v3.cmdq_alloc=bogus arm_smmu_v3.cmdq_poll=bogus iommu.probe_lock_buckets=5"
has bogus-variants "walk_flush=bogus refused" "\`bogus' invalid for parameter \`arm_smmu_v3.walk_flush'"
has bogus-variants "cmdq_alloc=bogus refused" "\`bogus' invalid for parameter \`arm_smmu_v3.cmdq_alloc'"
has bogus-variants "probe_lock_buckets=5 refused" 'iommu.probe_lock_buckets=5: not a power of two from 1 to 256, using 64'
has bogus-variants "cmdq_lock=bogus refused" "\`bogus' invalid for parameter \`arm_smmu_v3.cmdq_lock'"
has bogus-variants "cmdq_wait=bogus refused" "\`bogus' invalid for parameter \`arm_smmu_v3.cmdq_wait'"
has bogus-variants "cmdq_poll=bogus refused" "\`bogus' invalid for parameter \`arm_smmu_v3.cmdq_poll'"
has bogus-variants "probe_lock=bogus refused" 'iommu.probe_lock=bogus: unknown, using global'
has bogus-variants "alias_walk=bogus refused" 'iommu.alias_walk=bogus: unknown, using all'
has bogus-variants "the defaults in force" 'cmdq_lock=fair cmdq_wait=full cmdq_poll=upstream '

boot too-big 1 -w unmap-storm -c 2 -a "smmulab.seconds=1 smmulab.size=64M smmulab.total=64G"
has too-big "a request beyond the guest's memory refused" 'SMMULAB: error: unmap-storm: 2 thread\(s\) of 67108864-byte mappings \(1024 per thread\) pin more than half'

boot bad-param 1 -w map-unmap -a "smmulab.size=5000"
has bad-param "bad parameter reported" 'SMMULAB: error: smmulab.size=5000 is not a multiple of 4K'

boot panic 2 -w none -a smmulab.selftest=panic -t 60
has panic "panic seen" 'Kernel panic'

boot hang 3 -w none -a smmulab.selftest=hang -t 8

echo "1..$n"
if [ $fails != 0 ]; then
    echo "guest-variants: $fails of $n checks failed (logs: $LOGD)"
    exit 1
fi
