#!/bin/bash
# Build smmulab's guest kernel: Linux 6.12 (scripts/linux-src.sh) with the
# patch series patches/linux/*.patch, for arm64, from tinyconfig plus
# guest/kernel.config.  Results: BUILDDIR/guest/Image and the project's
# module BUILDDIR/guest/smmulab_bench.ko (guest/module/).
#
#   scripts/build-kernel.sh BUILDDIR
#   scripts/build-kernel.sh --stock DIR   the same kernel without the patch
#       series (a stock 6.12 to compare against): DIR/guest/Image, its
#       module, and DIR/guest/initramfs.cpio with the kit's init (needs a
#       built BUILDDIR=build for the init and mkcpio)
#   scripts/build-kernel.sh --lockdep DIR   the kit kernel with lockdep
#       (guest/kernel-lockdep.config on top), so the patches' lock
#       assertions run: DIR/guest/Image, its module and initramfs, as above
#
# Work tree BUILDDIR/linux/src (hard links into the cached pristine tree,
# broken by patch where it writes), objects in BUILDDIR/linux/obj.
set -euo pipefail
SMMULAB_TAG=smmulab-kernel
. "$(dirname "$0")/common.sh"

stock=0
lockdep=0
case "${1:-}" in
--stock) stock=1; shift ;;
--lockdep) lockdep=1; shift ;;
esac
B=$(mkdir -p "${1:?usage: build-kernel.sh [--stock|--lockdep] BUILDDIR}" && cd "$1" && pwd)
W=$B/linux/src
O=$B/linux/obj
LOGS=$B/logs
FRAGS=("$SMMULAB_ROOT/guest/kernel.config")
[ $lockdep = 0 ] || FRAGS+=("$SMMULAB_ROOT/guest/kernel-lockdep.config")
mkdir -p "$O" "$LOGS" "$B/guest"

pristine=$("$SMMULAB_ROOT/scripts/linux-src.sh" | tail -n1)
[ -d "$pristine" ] || exit 1

shopt -s nullglob
patches=("$SMMULAB_ROOT"/patches/linux/*.patch)
shopt -u nullglob
[ $stock = 0 ] || patches=()
stamp="$pristine $(files_hash "${patches[@]}")"

# Files a patch series touches, so that a change of series rebuilds them even
# when they go back to an older (pristine) mtime.
patched_files() {
    local p
    for p in "$@"; do
        sed -n 's,^+++ b/,,p' "$p"
    done | sort -u
}

if [ "$(cat "$W/.smmulab-stamp" 2>/dev/null)" != "$stamp" ]; then
    old_files=$(cat "$W/.smmulab-patched" 2>/dev/null || true)
    log "preparing work tree from $pristine"
    rm -rf "$W"
    mkdir -p "$(dirname "$W")"
    # hard links when the cache is on the same file system, else a copy
    cp -al "$pristine" "$W" 2>/dev/null || { rm -rf "$W"; cp -a "$pristine" "$W"; }
    rm -f "$W/.smmulab-complete"
    for p in "${patches[@]}"; do
        name=${p#"$SMMULAB_ROOT"/}
        if ! patch -d "$W" -p1 --batch --forward --dry-run <"$p" >"$LOGS/linux-patch.log" 2>&1; then
            cat "$LOGS/linux-patch.log" >&2
            die "$name does not apply to $(basename "$pristine"); log: $LOGS/linux-patch.log"
        fi
        patch -d "$W" -p1 --batch --forward --quiet <"$p"
        log "applied $name"
    done
    new_files=$(patched_files "${patches[@]}")
    # patch(1) replaces files, which breaks the hard links; for the rest,
    # copy before touching so the pristine tree keeps its times.
    printf '%s\n%s\n' "$old_files" "$new_files" | sort -u | while read -r f; do
        [ -n "$f" ] && [ -f "$W/$f" ] || continue
        cp --remove-destination "$W/$f" "$W/$f.smmulab-tmp"
        mv "$W/$f.smmulab-tmp" "$W/$f"
        touch "$W/$f"
    done
    echo "$new_files" >"$W/.smmulab-patched"
    echo "$stamp" >"$W/.smmulab-stamp"
fi

kmake=(make -C "$W" O="$O" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
       KBUILD_BUILD_TIMESTAMP="smmulab" KBUILD_BUILD_USER=smmulab
       KBUILD_BUILD_HOST=smmulab)
if command -v ccache >/dev/null && [ "${SMMULAB_CCACHE:-1}" = 1 ]; then
    export CCACHE_DIR=${CCACHE_DIR:-$SMMULAB_CACHE/ccache}
    export CCACHE_BASEDIR=$B
    export CCACHE_NOHASHDIR=1
    kmake+=(CC="ccache aarch64-linux-gnu-gcc")
fi

cfg_stamp="$stamp $(files_hash "${FRAGS[@]}")"
if [ ! -f "$O/.config" ] || [ "$(cat "$O/.smmulab-config" 2>/dev/null)" != "$cfg_stamp" ]; then
    log "configuring: tinyconfig + ${FRAGS[*]#"$SMMULAB_ROOT"/}"
    run_logged "$LOGS/kernel-config.log" "kernel tinyconfig" "${kmake[@]}" tinyconfig
    run_logged "$LOGS/kernel-config.log" "merging ${FRAGS[*]#"$SMMULAB_ROOT"/}" \
        env ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
        "$W/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" "${FRAGS[@]}"
    run_logged "$LOGS/kernel-config.log" "kernel olddefconfig" "${kmake[@]}" olddefconfig
    # Every option of the fragment must have survived Kconfig's dependencies.
    bad=()
    while IFS= read -r line; do
        case $line in
        CONFIG_*=n) opt=${line%%=*}
            grep -q "^$opt=" "$O/.config" && bad+=("$line") ;;
        CONFIG_*=*) grep -qxF "$line" "$O/.config" || bad+=("$line") ;;
        esac
    done < <(cat "${FRAGS[@]}")
    if [ ${#bad[@]} -gt 0 ]; then
        die "kernel config lacks ${bad[*]} (unmet dependencies?); see $O/.config"
    fi
    echo "$cfg_stamp" >"$O/.smmulab-config"
fi

log "building Image (log: $LOGS/kernel-build.log)"
# kbuild steps of a cold build, as counted here (the kit kernel; lockdep's
# is close): the first build's progress is measured against it, later ones
# against the last full build's own count
make_progress "$LOGS/kernel-build.log" "building Image" 1180 \
    "$O/.smmulab-steps" "${kmake[@]}" -j"$SMMULAB_JOBS" Image modules
# Copy only what changed, so that what depends on it is not rebuilt
install_if_changed() {
    cmp -s "$1" "$2" || { cp "$1" "$2.tmp" && mv "$2.tmp" "$2"; }
}
install_if_changed "$O/arch/arm64/boot/Image" "$B/guest/Image"
log "$B/guest/Image ($(stat -c %s "$B/guest/Image") bytes)"

# The project's benchmark module, built out of tree against this kernel.
# Kbuild writes next to the sources, so build a copy.
M=$B/guest/module
mkdir -p "$M"
for f in "$SMMULAB_ROOT"/guest/module/*; do
    cmp -s "$f" "$M/$(basename "$f")" || cp "$f" "$M/"
done
run_logged "$LOGS/module-build.log" "smmulab_bench module build" \
    "${kmake[@]}" M="$M" modules
install_if_changed "$M/smmulab_bench.ko" "$B/guest/smmulab_bench.ko"
log "$B/guest/smmulab_bench.ko"

if [ $stock = 1 ] || [ $lockdep = 1 ]; then
    # The kit's init with this kernel's module, as guest/meson.build packs it
    K=${SMMULAB_KIT:-$SMMULAB_ROOT/build}/guest
    [ -x "$K/mkcpio" ] && [ -x "$K/init" ] || \
        die "$K/init and $K/mkcpio missing: build the kit first (make build)"
    "$K/mkcpio" "$B/guest/initramfs.cpio" \
        'dir dev 755' 'nod dev/console 600 c 5 1' 'dir proc 755' \
        'dir sys 755' 'dir lib 755' 'dir lib/modules 755' \
        "file init $K/init 755" \
        "file lib/modules/smmulab_bench.ko $B/guest/smmulab_bench.ko 644"
    log "$B/guest/initramfs.cpio ($([ $stock = 1 ] && echo "stock kernel, no patch series" || echo "lockdep kernel"))"
fi
