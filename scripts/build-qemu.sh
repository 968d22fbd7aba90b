#!/bin/bash
# Build smmulab's qemu-system-aarch64: pristine QEMU 10.0.x (scripts/qemu-src.sh)
# + the project's QEMU-side files copied in at the same paths (the overlay)
# + the hook patch series patches/qemu/*.patch and smmulab's local patches
#   patches/qemu/local/*.patch (never posted), configured for aarch64-softmmu.
#
#   scripts/build-qemu.sh [--flavor FLAVOR] BUILDDIR [ninja targets...]
#
# Flavors:
#   smmulab   (default) work tree BUILDDIR/qemu/src, build tree
#             BUILDDIR/qemu/build, result BUILDDIR/qemu-system-aarch64
#   asan      the same work tree (prepared by a smmulab build first), built
#             with --enable-asan --enable-ubsan in BUILDDIR/qemu/build-asan,
#             result BUILDDIR/qemu-system-aarch64-asan (for the fuzzer)
#   upstream  QEMU without the project's patches and files (only its device
#             set), same configure flags, in BUILDDIR/qemu-upstream, result
#             BUILDDIR/qemu-system-aarch64-upstream (for the zero-cost
#             benchmark and the migration compatibility test)
#
# --base 10.2 (before or after --flavor; smmulab and upstream only): the
# second base (docs/build.md, "QEMU 10.2: a second base"): QEMU 10.2.x
# (scripts/qemu-src.sh --release 10.2; QEMU_SRC names a 10.2.x tree or
# tarball there) with the rebased series patches/qemu-10.2/*.patch (what
# a patch needs on 10.2 beyond the rebase folded into it) and 10.2's own
# build fixes (patches/qemu-10.2/compat/*.patch), each applied
# with no fuzz, in BUILDDIR/qemu-10.2, result
# BUILDDIR/qemu-system-aarch64-10.2; the upstream flavor (10.2 with only
# its build fixes) in BUILDDIR/qemu-10.2-upstream, result
# BUILDDIR/qemu-system-aarch64-10.2-upstream.  The local tools' patches
# (patches/qemu/local/) are not applied there.
#
# Results are symlinks.  Incremental: the work tree is rebuilt from the
# pristine tree only when the patch series changes, and an overlay file is
# copied only when its content differs, so editing one project file
# recompiles only what depends on it.
set -euo pipefail
SMMULAB_TAG=smmulab-qemu
. "$(dirname "$0")/common.sh"

flavor=smmulab
base=10.0
while :; do
    case ${1:-} in
    --flavor) flavor=${2:?--flavor needs smmulab, asan or upstream}; shift 2 ;;
    --base) base=${2:?--base needs 10.0 or 10.2}; shift 2 ;;
    *) break ;;
    esac
done
B=$(mkdir -p "${1:?usage: build-qemu.sh [--flavor F] [--base 10.2] BUILDDIR [targets]}" && cd "$1" && pwd)
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(qemu-system-aarch64)

extra_configure=()
case $flavor in
smmulab)
    W=$B/qemu/src O=$B/qemu/build link=qemu-system-aarch64 ;;
asan)
    W=$B/qemu/src O=$B/qemu/build-asan link=qemu-system-aarch64-asan
    extra_configure=(--enable-asan --enable-ubsan) ;;
upstream)
    W=$B/qemu-upstream/src O=$B/qemu-upstream/build
    link=qemu-system-aarch64-upstream ;;
*)
    die "unknown flavor $flavor (smmulab, asan, upstream)" ;;
esac
case $base in
10.0) ;;
10.2)
    [ "$flavor" != asan ] || die "--base 10.2 builds the smmulab and upstream flavors only"
    if [ "$flavor" = upstream ]; then
        W=$B/qemu-10.2-upstream/src O=$B/qemu-10.2-upstream/build
        link=qemu-system-aarch64-10.2-upstream
    else
        W=$B/qemu-10.2/src O=$B/qemu-10.2/build link=qemu-system-aarch64-10.2
    fi ;;
*)
    die "--base $base: the bases are 10.0 and 10.2" ;;
esac
suffix=
[ "$base" = 10.0 ] || suffix=-$base
_tag=smmulab-qemu-$flavor$suffix
LOGS=$B/logs
mkdir -p "$W" "$O" "$LOGS"

pristine=$("$SMMULAB_ROOT/scripts/qemu-src.sh" --release "$base" | tail -n1)
[ -d "$pristine" ] || exit 1
version=$(cat "$pristine/VERSION")

# The overlay: every QEMU-side file of the project, at its path in QEMU's
# tree (for upstream, only the device set, so both build the same machine).
overlay_dirs=("${QEMU_SIDE[@]}" configs/devices)
[ "$flavor" != upstream ] || overlay_dirs=(configs/devices)
overlay_list() { project_files "${overlay_dirs[@]}"; }

shopt -s nullglob
# the series, then smmulab's local patches (not posted: make-series.sh);
# on 10.2 the rebased series, then its build fixes, with no fuzz
patches=("$SMMULAB_ROOT"/patches/qemu/*.patch "$SMMULAB_ROOT"/patches/qemu/local/*.patch)
fuzz=()
if [ "$base" = 10.2 ]; then
    patches=("$SMMULAB_ROOT"/patches/qemu-10.2/*.patch "$SMMULAB_ROOT"/patches/qemu-10.2/compat/*.patch)
    fuzz=(--fuzz=0)
    [ -n "$(echo "$SMMULAB_ROOT"/patches/qemu-10.2/0*.patch)" ] || die "no patches in patches/qemu-10.2/"
fi
[ "$flavor" != upstream ] || patches=()
# 10.2 without smmulab still needs 10.2's own build fixes
[ "$flavor-$base" != upstream-10.2 ] || patches=("$SMMULAB_ROOT"/patches/qemu-10.2/compat/*.patch)
shopt -u nullglob
stamp="$pristine $version $(files_hash "${patches[@]}")"

if [ "$flavor" = asan ]; then
    # Shares the smmulab work tree: never prepare it from here
    [ "$(cat "$W/.smmulab-stamp" 2>/dev/null)" = "$stamp" ] || \
        die "the work tree $W is not prepared: build the smmulab flavor first"
elif [ "$(cat "$W/.smmulab-stamp" 2>/dev/null)" != "$stamp" ]; then
    log "preparing work tree from QEMU $version ($pristine)"
    rm -f "$W/.smmulab-stamp" "$W/.smmulab-overlay"
    # --checksum and no time preservation: only files whose content differs
    # are rewritten, and they get a new mtime, so ninja rebuilds just them.
    rsync -r --links --perms --checksum --delete \
        --exclude=/.smmulab-stamp --exclude=/.git "$pristine/" "$W/"
    for p in "${patches[@]}"; do
        name=${p#"$SMMULAB_ROOT"/}
        if ! patch -d "$W" -p1 --batch --forward "${fuzz[@]}" --dry-run <"$p" >"$LOGS/qemu-patch.log" 2>&1; then
            cat "$LOGS/qemu-patch.log" >&2
            die "$name does not apply to QEMU $version; log: $LOGS/qemu-patch.log"
        fi
        patch -d "$W" -p1 --batch --forward "${fuzz[@]}" --quiet <"$p"
        log "applied $name"
    done
    echo "$stamp" >"$W/.smmulab-stamp"
fi
# placeholders for the blobs Debian strips (only those missing: a tree
# prepared before a placeholder was added gets it too)
[ "$flavor" = asan ] || qemu_fake_firmware "$W"

# Copy overlay files whose content changed; restore files a previous overlay
# brought in that the project no longer has.
if [ "$flavor" = asan ]; then
    new_overlay=$(cat "$W/.smmulab-overlay")     # the smmulab build's
else
    new_overlay=$(overlay_list)
fi
if [ -f "$W/.smmulab-overlay" ]; then
    comm -23 "$W/.smmulab-overlay" <(echo "$new_overlay") | while read -r f; do
        if [ -f "$pristine/$f" ]; then
            cp "$pristine/$f" "$W/$f"
        else
            rm -f "$W/$f"
        fi
        log "overlay: removed $f"
    done
fi
ncopied=0
while read -r f; do
    [ -n "$f" ] || continue
    if ! cmp -s "$SMMULAB_ROOT/$f" "$W/$f"; then
        mkdir -p "$(dirname "$W/$f")"
        cp "$SMMULAB_ROOT/$f" "$W/$f"
        ncopied=$((ncopied + 1))
    fi
done <<<"$new_overlay"
echo "$new_overlay" >"$W/.smmulab-overlay"
[ $ncopied = 0 ] || log "overlay: $ncopied file(s) updated"

qemu_cc "$B"

mapfile -t configure_args < <(qemu_configure_args)
configure_args+=(--with-pkgversion=smmulab$suffix "${extra_configure[@]}")
[ "$flavor" != upstream ] || configure_args+=(--with-pkgversion=smmulab$suffix-upstream)
cfg_stamp="$cc ${configure_args[*]} ${SMMULAB_QEMU_CONFIGURE:-}"
if [ ! -f "$O/build.ninja" ] || [ "$(cat "$O/.smmulab-configure" 2>/dev/null)" != "$cfg_stamp" ]; then
    log "configuring (aarch64-softmmu, minimal features)"
    rm -rf "$O"
    mkdir -p "$O"
    # shellcheck disable=SC2086
    (cd "$O" && run_logged "$LOGS/qemu-$flavor$suffix-configure.log" "QEMU configure" \
        "$W/configure" --cc="$cc" "${configure_args[@]}" ${SMMULAB_QEMU_CONFIGURE:-})
    echo "$cfg_stamp" >"$O/.smmulab-configure"
fi

ninja_progress "$LOGS/qemu-$flavor$suffix-build.log" "building QEMU $flavor (${targets[*]})" \
    -C "$O" -j "$SMMULAB_JOBS" "${targets[@]}"
ln -sfn "${O#"$B"/}/qemu-system-aarch64" "$B/$link"
