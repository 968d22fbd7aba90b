#!/bin/bash
# Unpack Debian's linux-source-6.12 (Linux 6.12 LTS with Debian's patches,
# installed by scripts/deps.sh) once into $SMMULAB_CACHE and print the path of
# that pristine tree as the last line.  LINUX_SRC=DIR uses a 6.12 tree of the
# user's instead (read only).
set -euo pipefail
SMMULAB_TAG=smmulab-linux-src
. "$(dirname "$0")/common.sh"

check_version() {
    local dir=$1 v p
    [ -f "$dir/Makefile" ] && [ -f "$dir/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c" ] || \
        die "$dir is not a Linux source tree with arm-smmu-v3"
    v=$(sed -n 's/^VERSION = //p' "$dir/Makefile" | head -n1)
    p=$(sed -n 's/^PATCHLEVEL = //p' "$dir/Makefile" | head -n1)
    if [ "$v.$p" != 6.12 ] && [ "${SMMULAB_ANY_LINUX:-0}" != 1 ]; then
        die "Linux $v.$p in $dir is not 6.12 (set SMMULAB_ANY_LINUX=1 to try anyway)"
    fi
}

if [ -n "${LINUX_SRC:-}" ]; then
    [ -d "$LINUX_SRC" ] || die "LINUX_SRC=$LINUX_SRC is not a directory"
    src=$(cd "$LINUX_SRC" && pwd)
    check_version "$src"
    echo "$src"
    exit 0
fi

tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball missing: run scripts/deps.sh (installs linux-source-6.12) or set LINUX_SRC"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
dest=$SMMULAB_CACHE/linux-$ver
if ! dir_complete "$dest"; then
    mkdir -p "$SMMULAB_CACHE"
    rm -rf "$dest" "$dest.tmp"
    mkdir -p "$dest.tmp"
    log "unpacking $tarball ($ver) into $dest"
    tar -xf "$tarball" -C "$dest.tmp" || { rm -rf "$dest.tmp"; die "cannot unpack $tarball"; }
    mv "$dest.tmp/linux-source-6.12" "$dest"
    rmdir "$dest.tmp"
    mark_complete "$dest"
fi
check_version "$dest"
echo "$dest"
