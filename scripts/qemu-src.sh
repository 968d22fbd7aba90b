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
#
#   scripts/qemu-src.sh --release 10.2   the second base (docs/build.md,
#       "QEMU 10.2: a second base"): the newest 10.2.x source package of
#       Debian's unstable suite (sid), found and downloaded with an apt state
#       of the script's own in $SMMULAB_CACHE/apt-sid (its sources.list,
#       lists and cache; the system's apt configuration is neither read for
#       sources nor changed), verified by apt against sid's signed Sources
#       index and unpacked as above.  QEMU_SRC=DIR|TARBALL takes a 10.2.x
#       tree instead, and only 10.2.x is accepted.  "--release 10.2.2" is
#       the same as "--release 10.2".
set -euo pipefail
SMMULAB_TAG=smmulab-qemu-src
. "$(dirname "$0")/common.sh"

release=10.0
cached=0
while [ $# -gt 0 ]; do
    case $1 in
    --release)
        release=$(echo "${2:?--release needs a QEMU release: 10.0 or 10.2}" | cut -d. -f1-2)
        case $release in
        10.0|10.2) ;;
        *) die "--release $2: the releases smmulab builds are 10.0 and 10.2" ;;
        esac
        shift 2 ;;
    --cached)
        # only a tree already in the cache (no apt, no network): exit 2
        # without one (make check's qemu-10.2-series test)
        cached=1
        shift ;;
    *)
        die "usage: qemu-src.sh [--release 10.0|10.2] [--cached]" ;;
    esac
done

check_version() {
    local dir=$1 v
    [ -f "$dir/VERSION" ] && [ -f "$dir/hw/arm/smmuv3.c" ] || \
        die "$dir is not a QEMU source tree (no VERSION or hw/arm/smmuv3.c)"
    v=$(cat "$dir/VERSION")
    case $v in
    "$release".*) ;;
    *)
        if [ "${SMMULAB_ANY_QEMU:-0}" = 1 ]; then
            log "warning: QEMU $v is not $release.x; continuing because SMMULAB_ANY_QEMU=1"
        else
            die "QEMU $v in $dir is not $release.x (set SMMULAB_ANY_QEMU=1 to try anyway)"
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

# newest_version: the newest $release.x version of the source package qemu
# that apt (with "${apt[@]}" options) knows, or nothing
newest_version() {
    apt-cache "${apt[@]}" showsrc qemu 2>/dev/null | sed -n 's/^Version: //p' | \
        grep -E "^([0-9]+:)?${release//./\\.}\\." | sort -V | tail -n1 || true
}

if [ $cached = 1 ]; then
    found=
    while read -r d; do
        dir_complete "$d" && found=$d
    done < <(find "$SMMULAB_CACHE" -maxdepth 1 -name "qemu-$release.*" -type d | sort -V)
    [ -n "$found" ] || { log "no QEMU $release.x source in $SMMULAB_CACHE"; exit 2; }
    check_version "$found"
    echo "$found"
    exit 0
fi
command -v apt-cache >/dev/null || die "no apt-cache: set QEMU_SRC to a QEMU $release.x tree"
apt=()
if [ "$release" = 10.0 ]; then
    # Debian's source package: the newest 10.0.x version apt knows (trixie).
    ver=$(newest_version)
    [ -n "$ver" ] || die "apt knows no QEMU 10.0.x source package; run scripts/deps.sh (adds deb-src trixie) or set QEMU_SRC"
    dl=$SMMULAB_CACHE/dl
else
    # sid's, with an apt state of our own: its sources.list names only sid's
    # sources on the mirror the machine uses, signed by Debian's archive key
    A=$SMMULAB_CACHE/apt-sid
    mkdir -p "$A/lists/partial" "$A/archives/partial" "$A/sources.list.d"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) sid main" \
        >"$A/sources.list"
    apt=(-o "Dir::Etc::SourceList=$A/sources.list"
         -o "Dir::Etc::SourceParts=$A/sources.list.d"
         -o "Dir::State=$A" -o "Dir::State::Lists=$A/lists"
         -o "Dir::Cache=$A" -o "Dir::Cache::Archives=$A/archives"
         -o "APT::Sandbox::User=$(id -un)")
    # sid's index, fetched when missing or a day old (kept when the mirror
    # cannot be reached and an index is there)
    if [ -z "$(find "$A/lists" -maxdepth 1 -name '*_sid_*Sources*' -mtime -1)" ]; then
        log "apt-get update for sid's sources (apt state $A)"
        if ! apt-get "${apt[@]}" update >"$A/apt-get-update.log" 2>&1; then
            find "$A/lists" -maxdepth 1 -name '*_sid_*Sources*' | grep -q . || {
                tail -n 5 "$A/apt-get-update.log" >&2
                die "apt-get update for sid failed; log: $A/apt-get-update.log (or set QEMU_SRC to a QEMU 10.2.x tree)"
            }
            log "warning: apt-get update for sid failed, using its index from before"
        fi
    fi
    ver=$(newest_version)
    [ -n "$ver" ] || die "sid's Sources index names no QEMU $release.x (set QEMU_SRC to a QEMU $release.x tree)"
    dl=$SMMULAB_CACHE/dl-$release
fi
upver=${ver#*:}
dest=$SMMULAB_CACHE/qemu-$upver
if ! dir_complete "$dest"; then
    mkdir -p "$dl"
    chmod 755 "$dl"
    log "downloading Debian source package qemu=$ver (about 40 MB)"
    (cd "$dl" && run_logged "$dl/apt-get-source.log" "apt-get source qemu=$ver" \
        apt-get "${apt[@]}" source -q --download-only "qemu=$ver")
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
