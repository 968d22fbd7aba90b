#!/bin/bash
# The series on the second base, QEMU 10.2.x (make check-qemu-10.2;
# docs/testing.md, "The series on QEMU 10.2"), in order, stopping at the
# first failure:
#   1. patches/qemu-10.2/ carries the changes of patches/qemu/
#      (scripts/series-mirror.py);
#   2. the 10.2.x source (scripts/qemu-src.sh --release 10.2: Debian sid's
#      newest 10.2.x, or QEMU_SRC=DIR|TARBALL);
#   3. patches/qemu-10.2/ is what scripts/rebase-series-10.2.sh writes from
#      patches/qemu/ on that source (not compared when QEMU_SRC is set: the
#      copies are Debian's 10.2.x's);
#   4. the series (its 10.2 amendments folded in), then 10.2's build fix
#      (compat/), applied with no fuzz and
#      the project's files overlaid, built with smmulab's configuration
#      (scripts/build-qemu.sh --base 10.2), and the same 10.2 without them
#      (--flavor upstream), for the test's cases that need a QEMU without
#      smmulab (migration to it, opcode 0x07 on it);
#   5. the tests: the timing unit test, smmuv3-cmdq-test (the model's
#      qtest), QEMU's device-introspect-test and qom-test on the built
#      QEMU, and the lock-step quanta's bare-metal tests
#      (tests/quantum-bm.sh) and the line-transfer model's
#      (tests/line-bm.sh).
# Ends with one line: the counts of passed, failed and skipped test cases
# and the wall time.  Logs in BUILDDIR/logs/check-qemu-10.2-*.log.
#
#   scripts/check-qemu-10.2.sh [BUILDDIR]
set -euo pipefail
SMMULAB_TAG=smmulab-check-qemu-10.2
. "$(dirname "$0")/common.sh"

B=$(mkdir -p "${1:-$SMMULAB_ROOT/build}" && cd "${1:-$SMMULAB_ROOT/build}" && pwd)
LOGS=$B/logs
mkdir -p "$LOGS"
start=$SECONDS
S=$SMMULAB_ROOT/scripts

log "1/5 patches/qemu-10.2/ against patches/qemu/"
python3 "$S/series-mirror.py" "$SMMULAB_ROOT" | tail -n1

log "2/5 the QEMU 10.2.x source"
src=$("$S/qemu-src.sh" --release 10.2 | tail -n1)
[ -d "$src" ] || exit 1
version=$(cat "$src/VERSION")
if [ -n "${QEMU_SRC:-}" ]; then
    what="QEMU $version (QEMU_SRC=$QEMU_SRC)"
else
    what="QEMU $version (Debian's qemu ${src##*/qemu-})"
fi
log "$what: $src"

log "3/5 patches/qemu-10.2/ is the rebase of patches/qemu/"
if [ -n "${QEMU_SRC:-}" ]; then
    log "not compared: QEMU_SRC is set (the copies are rebased onto Debian's 10.2.x)"
else
    "$S/rebase-series-10.2.sh" --check "$B" | tail -n1
fi

log "4/5 building (patches applied with no fuzz)"
"$S/build-qemu.sh" --base 10.2 "$B" qemu-system-aarch64 \
    tests/unit/test-smmuv3-cmdq-timing tests/qtest/smmuv3-cmdq-test \
    tests/qtest/device-introspect-test tests/qtest/qom-test
"$S/build-qemu.sh" --base 10.2 --flavor upstream "$B" qemu-system-aarch64
O=$B/qemu-10.2/build
"$O/qemu-system-aarch64" --version | head -n1

log "5/5 the tests"
passed=0 failed=0 skipped=0 summary=()
# run_tap NAME CMD...: run a TAP test in $O, count its cases
run_tap() {
    local name=$1 logf=$LOGS/check-qemu-10.2-$1.log p f s rc=0
    shift
    (cd "$O" && "$@") >"$logf" 2>&1 || rc=$?
    p=$(grep -c '^ok ' "$logf" || true)
    s=$(grep -c '^ok .*# *SKIP' "$logf" || true)
    f=$(grep -c '^not ok ' "$logf" || true)
    p=$((p - s))
    if [ $rc != 0 ] && [ "$f" = 0 ]; then
        f=1      # it failed before or after its cases (a crash, an abort)
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    summary+=("$name $p/$s/$f")
    log "$name: $p passed, $s skipped, $f failed (log: $logf)"
    [ "$f" = 0 ] || grep -E '^not ok|^Bail out|ERROR|assert' "$logf" | head -n 10 >&2 || true
}
export QTEST_QEMU_BINARY=./qemu-system-aarch64
export SMMULAB_QEMU_UPSTREAM=$B/qemu-10.2-upstream/build/qemu-system-aarch64
run_tap test-smmuv3-cmdq-timing tests/unit/test-smmuv3-cmdq-timing --tap
run_tap smmuv3-cmdq-test tests/qtest/smmuv3-cmdq-test --tap
run_tap device-introspect-test tests/qtest/device-introspect-test --tap
run_tap qom-test tests/qtest/qom-test --tap
# lock-step quanta on the series' bare-metal guests, built from the 10.2 tree
run_tap quantum-bm bash "$SMMULAB_ROOT/tests/quantum-bm.sh" "$O/qemu-system-aarch64" \
    "$B/qemu-10.2/src" "$LOGS/check-qemu-10.2-quantum-bm"
run_tap line-model bash "$SMMULAB_ROOT/tests/line-bm.sh" "$O/qemu-system-aarch64" \
    "$B/qemu-10.2/src" "$LOGS/check-qemu-10.2-line-model"

t=$((SECONDS - start))
log "$what, ${summary[*]} (passed/skipped/failed)"
echo "$passed passed, $failed failed, $skipped skipped on QEMU $version in $((t / 60)) min $((t % 60)) s (load $(cut -d' ' -f1-3 /proc/loadavg))"
[ $failed = 0 ]
