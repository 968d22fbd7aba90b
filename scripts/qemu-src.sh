#!/bin/bash
# Obtain the pristine QEMU 10.0.x source that smmulab overlays, and print its
# path as the last line of output.
#
#   QEMU_SRC unset     Debian's source package "qemu" (suite trixie, added by
#                      scripts/deps.sh), downloaded and verified by apt, unpacked
#                      without Debian's own patches into $SMMULAB_CACHE.
#   QEMU_SRC=DIR       a QEMU source tree (checkout or unpacked tarball); read only.
#   QEMU_SRC=TARBALL   a qemu-10.0.x.tar.{xz,bz2,gz}, unpacked once into the cache.
#
# Only QEMU 10.0.x is accepted; SMMULAB_ANY_QEMU=1 lets another version
# through, at the user's own risk (the patch series may not apply).
set -euo pipefail
SMMULAB_TAG=smmulab-qemu-src
. "$(dirname "$0")/common.sh"

check_version() {
    local dir=$1 v
    [ -f "$dir/VERSION" ] && [ -f "$dir/hw/arm/smmuv3.c" ] || \
        die "$dir is not a QEMU source tree (no VERSION or hw/arm/smmuv3.c)"
    v=$(cat "$dir/VERSION")
    case $v in
    10.0.*) ;;
    *)
        if [ "${SMMULAB_ANY_QEMU:-0}" = 1 ]; then
            log "warning: QEMU $v is not 10.0.x; continuing because SMMULAB_ANY_QEMU=1"
        else
            die "QEMU $v in $dir is not 10.0.x (set SMMULAB_ANY_QEMU=1 to try anyway)"
        fi
        ;;
    esac
}

mkdir -p "$SMMULAB_CACHE"

if [ -n "${QEMU_SRC:-}" ]; then
    if [ -d "$QEMU_SRC" ]; then
        src=$(cd "$QEMU_SRC" && pwd)
        check_version "$src"
        echo "$src"
        exit 0
    fi
    [ -f "$QEMU_SRC" ] || die "QEMU_SRC=$QEMU_SRC: no such file or directory"
    case $QEMU_SRC in
    *.tar.xz|*.tar.bz2|*.tar.gz|*.tgz|*.tar) ;;
    *) die "QEMU_SRC=$QEMU_SRC: not a directory nor a .tar.{xz,bz2,gz} tarball" ;;
    esac
    key=$(sha256sum "$QEMU_SRC" | cut -c1-16)
    dest=$SMMULAB_CACHE/qemu-tarball-$key
    if ! dir_complete "$dest"; then
        rm -rf "$dest" "$dest.tmp"
        mkdir -p "$dest.tmp"
        log "unpacking $QEMU_SRC into $dest"
        tar -xf "$QEMU_SRC" -C "$dest.tmp" || { rm -rf "$dest.tmp"; die "cannot unpack $QEMU_SRC"; }
        top=$(find "$dest.tmp" -maxdepth 2 -name VERSION -printf '%h\n' | head -n1)
        [ -n "$top" ] || { rm -rf "$dest.tmp"; die "$QEMU_SRC holds no QEMU tree (no VERSION file)"; }
        mv "$top" "$dest"
        rm -rf "$dest.tmp"
        mark_complete "$dest"
    fi
    check_version "$dest"
    echo "$dest"
    exit 0
fi

# Debian's source package: the newest 10.0.x version apt knows.
command -v apt-cache >/dev/null || die "no apt-cache: set QEMU_SRC to a QEMU 10.0.x tree"
ver=$(apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p' | \
    grep -E '^([0-9]+:)?10\.0\.' | sort -V | tail -n1 || true)
[ -n "$ver" ] || die "apt knows no QEMU 10.0.x source package; run scripts/deps.sh (adds deb-src trixie) or set QEMU_SRC"
upver=${ver#*:}
dest=$SMMULAB_CACHE/qemu-$upver
if ! dir_complete "$dest"; then
    dl=$SMMULAB_CACHE/dl
    mkdir -p "$dl"
    chmod 755 "$dl"
    log "downloading Debian source package qemu=$ver (about 40 MB)"
    (cd "$dl" && run_logged "$dl/apt-get-source.log" "apt-get source qemu=$ver" \
        apt-get source -q --download-only "qemu=$ver")
    dsc=$dl/qemu_${upver}.dsc
    [ -f "$dsc" ] || die "apt-get source left no $dsc"
    rm -rf "$dest" "$dest.tmp"
    log "unpacking QEMU $upver (apt verified it against the signed Sources index)"
    run_logged "$dl/dpkg-source.log" "dpkg-source -x $dsc" \
        dpkg-source --skip-patches -x "$dsc" "$dest.tmp"
    mv "$dest.tmp" "$dest"
    mark_complete "$dest"
fi
check_version "$dest"
echo "$dest"
