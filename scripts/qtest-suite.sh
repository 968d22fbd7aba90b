#!/bin/bash
# QEMU's own aarch64 qtest suite on the patched tree (make qtest-suite):
# every test meson registers in the qtest-aarch64 suite of build/qemu,
# run the way upstream runs them (--tap -k), one at a time.
#
# Debian's QEMU source (+ds) ships no firmware: bios-tables-test boots edk2
# and qos-test starts NICs with their iPXE option ROMs.  This script takes
# Debian's own builds of them (apt-get install qemu-efi-aarch64 ipxe-qemu)
# into the build tree.
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

# Option ROMs of the NICs (qos-test starts e1000e), from Debian's iPXE build
roms=/usr/lib/ipxe/qemu
[ -d "$roms" ] || die "$roms missing: apt-get install ipxe-qemu (qos-test starts NICs with their ROMs)"
# (QEMU run from its build tree looks for them in its qemu-bundle)
datadir=$(sed -n 's/^#define CONFIG_QEMU_DATADIR "\(.*\)"$/\1/p' "$Q/config-host.h")
mkdir -p "$Q/qemu-bundle$datadir"
for f in "$roms"/efi-*.rom; do
    [ -s "$Q/qemu-bundle$datadir/$(basename "$f")" ] || cp "$f" "$Q/qemu-bundle$datadir/"
done

command -v xorrisofs >/dev/null || \
    log "note: xorrisofs missing, cdrom-test will skip (apt-get install xorriso)"

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
