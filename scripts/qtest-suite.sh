#!/bin/bash
# QEMU's own aarch64 qtest suite on the patched tree (make qtest-suite):
# every test meson registers in the qtest-aarch64 suite of build/qemu,
# run the way upstream runs them (--tap -k), one at a time.
#
# Debian's QEMU source (+ds) ships no edk2 firmware, which bios-tables-test
# boots; this script takes Debian's own build of it from qemu-efi-aarch64
# (apt-get install qemu-efi-aarch64) into the build tree.
#
#   scripts/qtest-suite.sh [BUILDDIR]
set -euo pipefail
SMMULAB_TAG=smmulab-qtest-suite
. "$(dirname "$0")/common.sh"

B=$(cd "${1:-$SMMULAB_ROOT/build}" && pwd)
Q=$B/qemu/build
M=$Q/pyvenv/bin/meson
[ -x "$M" ] || die "$Q is not configured: build first (make build)"

# bios-tables-test's firmware, as its meson rule would have made it
code=/usr/share/AAVMF/AAVMF_CODE.fd
vars=/usr/share/AAVMF/AAVMF_VARS.fd
[ -s "$code" ] && [ -s "$vars" ] || \
    die "$code missing: apt-get install qemu-efi-aarch64 (bios-tables-test boots it)"
mkdir -p "$Q/pc-bios"
for f in edk2-aarch64-code.fd:$code edk2-arm-vars.fd:$vars; do
    dst=$Q/pc-bios/${f%%:*}
    [ -s "$dst" ] || cp "${f#*:}" "$dst"
done

mapfile -t tests < <("$M" test -C "$Q" --list --suite qtest-aarch64 2>/dev/null | sed 's|.*/||')
[ ${#tests[@]} -gt 0 ] || die "no test in the qtest-aarch64 suite of $Q"
log "building ${#tests[@]} qtests: ${tests[*]}"
targets=(qemu-system-aarch64)
for t in "${tests[@]}"; do
    targets+=("tests/qtest/$t")
done
ninja -C "$Q" "${targets[@]}" >"$B/logs/qtest-suite-build.log" 2>&1 || \
    die "build failed; log: $B/logs/qtest-suite-build.log"
log "running them (log: $Q/meson-logs/testlog.txt)"
"$M" test -C "$Q" --no-rebuild --suite qtest-aarch64 --num-processes 1 \
    --print-errorlogs
