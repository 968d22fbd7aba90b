#!/bin/bash
# Unpack Debian's linux-source-6.12 (Linux 6.12 LTS with Debian's patches,
# installed by scripts/deps.sh) once into $SMMULAB_CACHE and print the path of
# that pristine tree as the last line.  LINUX_SRC=DIR uses a 6.12 tree of the
# user's instead (read only).
#
#   scripts/linux-src.sh --release 7.3   the same for Debian's
#       linux-source-7.3 (scripts/deps.sh --linux-7.3 installs it), a tree
#       for make kernel TREE=... (the kit's series patches/linux-7.3/)
set -euo pipefail
SMMULAB_TAG=smmulab-linux-src
. "$(dirname "$0")/common.sh"

release=6.12
if [ "${1:-}" = --release ]; then
    release=${2:?--release needs a Linux release, e.g. 7.3}
    [ -z "${LINUX_SRC:-}" ] || die "--release $release and LINUX_SRC: one or the other"
fi

check_version() {
    local dir=$1 v p
    [ -f "$dir/Makefile" ] && [ -f "$dir/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c" ] || \
        die "$dir is not a Linux source tree with arm-smmu-v3"
    v=$(sed -n 's/^VERSION = //p' "$dir/Makefile" | head -n1)
    p=$(sed -n 's/^PATCHLEVEL = //p' "$dir/Makefile" | head -n1)
    if [ "$v.$p" != "$release" ] && [ "${SMMULAB_ANY_LINUX:-0}" != 1 ]; then
        die "Linux $v.$p in $dir is not $release (set SMMULAB_ANY_LINUX=1 to try anyway)"
    fi
}

if [ -n "${LINUX_SRC:-}" ]; then
    [ -d "$LINUX_SRC" ] || die "LINUX_SRC=$LINUX_SRC is not a directory"
    src=$(cd "$LINUX_SRC" && pwd)
    check_version "$src"
    echo "$src"
    exit 0
fi

tarball=/usr/src/linux-source-$release.tar.xz
if [ ! -f "$tarball" ]; then
    [ "$release" != 7.3 ] || die "$tarball missing: run scripts/deps.sh --linux-7.3 (as root)"
    [ "$release" = 6.12 ] || die "$tarball missing: the kit installs Linux sources for 6.12 (scripts/deps.sh) and 7.3 (scripts/deps.sh --linux-7.3) only"
    die "$tarball missing: run scripts/deps.sh (installs linux-source-6.12) or set LINUX_SRC"
fi
ver=$(dpkg-query -W -f='${Version}' "linux-source-$release" 2>/dev/null || echo unknown)
dest=$SMMULAB_CACHE/linux-$ver
if ! dir_complete "$dest"; then
    mkdir -p "$SMMULAB_CACHE"
    rm -rf "$dest" "$dest.tmp"
    mkdir -p "$dest.tmp"
    log "unpacking $tarball ($ver) into $dest"
    tar -xf "$tarball" -C "$dest.tmp" || { rm -rf "$dest.tmp"; die "cannot unpack $tarball"; }
    mv "$dest.tmp/linux-source-$release" "$dest"
    rmdir "$dest.tmp"
    mark_complete "$dest"
fi
check_version "$dest"
echo "$dest"
