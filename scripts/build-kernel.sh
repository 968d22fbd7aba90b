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
#   scripts/build-kernel.sh --tree TREE DIR   any Linux tree from 6.1 on
#       (read only), with the kit's series when all of it applies and
#       without it otherwise (DIR/guest/series says which; the series is
#       patches/linux-X.Y/ of the newest release X.Y not after TREE's, or
#       patches/linux/, 6.12's, when there is none), the kit's
#       config (plus guest/kernel-releases.config: options other releases
#       name differently; an option TREE does not have is left out with a
#       note), module and initramfs as above, and DIR/compare.ini, a
#       scenario booting the kit's kernel and this one
#   --prepare-only (after --tree TREE): stop after the work tree and the
#       series decision (tests)
#   --as-is (after --tree TREE): never apply the kit's series, build TREE
#       as it is (a bisect, whose history may hold the series as commits)
#
# Work tree BUILDDIR/linux/src (hard links into the cached pristine tree or
# TREE, broken by patch where it writes), objects in BUILDDIR/linux/obj.
set -euo pipefail
SMMULAB_TAG=smmulab-kernel
. "$(dirname "$0")/common.sh"

stock=0
lockdep=0
tree=""
prepare_only=0
as_is=0
case "${1:-}" in
--stock) stock=1; shift ;;
--lockdep) lockdep=1; shift ;;
--tree)
    [ -d "${2:-}" ] || die "--tree ${2:-}: not a directory"
    tree=$(cd "$2" && pwd)
    shift 2
    while :; do
        case "${1:-}" in
        --prepare-only) prepare_only=1; shift ;;
        --as-is) as_is=1; shift ;;
        *) break ;;
        esac
    done
    ;;
esac
: "${1:?usage: build-kernel.sh [--stock|--lockdep|--tree TREE [--prepare-only] [--as-is]] BUILDDIR}"
if [ -n "$tree" ]; then
    case $(realpath -m "$1")/ in
    "$(realpath "$tree")"/*) die "BUILDDIR $1 is inside --tree $tree, which stays read only" ;;
    esac
fi
B=$(mkdir -p "$1" && cd "$1" && pwd)
W=$B/linux/src
O=$B/linux/obj
LOGS=$B/logs
FRAGS=("$SMMULAB_ROOT/guest/kernel.config")
[ $lockdep = 0 ] || FRAGS+=("$SMMULAB_ROOT/guest/kernel-lockdep.config")
[ -z "$tree" ] || FRAGS+=("$SMMULAB_ROOT/guest/kernel-releases.config")
mkdir -p "$O" "$LOGS" "$B/guest"

if [ -n "$tree" ]; then
    [ -f "$tree/Makefile" ] && \
        [ -f "$tree/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c" ] || \
        die "$tree is not a Linux source tree with arm-smmu-v3"
    v=$(sed -n 's/^VERSION = //p' "$tree/Makefile" | head -n1)
    p=$(sed -n 's/^PATCHLEVEL = //p' "$tree/Makefile" | head -n1)
    if [ "$v" -lt 6 ] 2>/dev/null || { [ "$v" = 6 ] && [ "$p" -lt 1 ]; }; then
        die "Linux $v.$p in $tree: --tree takes 6.1 or later"
    fi
    pristine=$tree
else
    pristine=$("$SMMULAB_ROOT/scripts/linux-src.sh" | tail -n1)
    [ -d "$pristine" ] || exit 1
fi

# The series: 6.12's (patches/linux/), or for a tree of another release
# the one of patches/linux-X.Y/ with the newest X.Y not after the tree's
series_dir=$SMMULAB_ROOT/patches/linux
if [ -n "$tree" ]; then
    best=""
    for d in "$SMMULAB_ROOT"/patches/linux-*.*/; do
        [ -d "$d" ] || continue
        r=$(basename "$d")
        r=${r#linux-}
        sv=${r%%.*} sp=${r#*.}
        case $sv$sp in ''|*[!0-9]*) continue ;; esac
        if [ "$sv" -lt "$v" ] || { [ "$sv" = "$v" ] && [ "$sp" -le "$p" ]; }; then
            if [ -z "$best" ] || [ "$sv" -gt "${best%%.*}" ] ||
               { [ "$sv" = "${best%%.*}" ] && [ "$sp" -gt "${best#*.}" ]; }; then
                best=$sv.$sp
            fi
        fi
    done
    [ -z "$best" ] || series_dir=$SMMULAB_ROOT/patches/linux-$best
fi
# which series, in the "applied" line, when not 6.12's
series_of=""
[ "$series_dir" = "$SMMULAB_ROOT/patches/linux" ] || series_of=" of ${series_dir#"$SMMULAB_ROOT"/}"
shopt -s nullglob
patches=("$series_dir"/*.patch)
shopt -u nullglob
[ $stock = 0 ] || patches=()
[ $as_is = 0 ] || patches=()
stamp="$pristine $(files_hash "${patches[@]}")"

# Files a patch series touches, so that a change of series rebuilds them even
# when they go back to an older (pristine) mtime.
patched_files() {
    local p
    for p in "$@"; do
        sed -n 's,^+++ b/,,p' "$p"
    done | sort -u
}

# A tree of the user's may change between builds: any file or directory
# newer than the work tree's stamp prepares it again
tree_changed() {
    [ -n "$tree" ] && [ -f "$W/.smmulab-stamp" ] || return 1
    [ -n "$(find "$tree" -path "$tree/.git" -prune -o \
        -newer "$W/.smmulab-stamp" -print -quit)" ]
}

# make_work_tree: W as a copy of the pristine tree, hard links when the
# cache is on the same file system
make_work_tree() {
    rm -rf "$W"
    mkdir -p "$(dirname "$W")"
    cp -al "$pristine" "$W" 2>/dev/null || { rm -rf "$W"; cp -a "$pristine" "$W"; }
    rm -f "$W/.smmulab-complete"
    # Out-of-tree builds refuse a configured source tree, and git would
    # write its index: this copy drops both (unlinking leaves TREE as it is)
    if [ -n "$tree" ]; then
        rm -rf "$W/.git"
        if [ -e "$W/.config" ] || [ -d "$W/include/config" ]; then
            log "$tree is configured or built in place: cleaning the copy (make mrproper)"
            run_logged "$LOGS/kernel-mrproper.log" "make mrproper in the copy" \
                make -C "$W" ARCH=arm64 mrproper
        fi
    fi
}

# apply_series PATCH...: all of them to W, each checked with --dry-run
# first; on the first that does not apply, its name in $failed, return 1
apply_series() {
    local p name
    for p in "$@"; do
        name=${p#"$SMMULAB_ROOT"/}
        if ! patch -d "$W" -p1 --batch --forward --dry-run <"$p" >"$LOGS/linux-patch.log" 2>&1; then
            failed=$name
            return 1
        fi
        patch -d "$W" -p1 --batch --forward --quiet <"$p"
        log "applied $name"
    done
}

if [ "$(cat "$W/.smmulab-stamp" 2>/dev/null)" != "$stamp" ] || tree_changed; then
    old_files=$(cat "$W/.smmulab-patched" 2>/dev/null || true)
    log "preparing work tree from $pristine"
    # the last work tree, to keep the times of files whose contents stay
    rm -rf "$W.old"
    [ ! -d "$W" ] || mv "$W" "$W.old"
    make_work_tree
    series="applied (${#patches[@]} patches$series_of)"
    [ ${#patches[@]} -gt 0 ] || series="not applied (--stock)"
    [ $as_is = 0 ] || series="not applied (--as-is)"
    failed=""
    if ! apply_series "${patches[@]}"; then
        if [ -z "$tree" ]; then
            cat "$LOGS/linux-patch.log" >&2
            die "$failed does not apply to $(basename "$pristine"); log: $LOGS/linux-patch.log"
        fi
        # All or nothing: start again without any of it
        log "$failed does not apply to $tree (log: $LOGS/linux-patch.log): building without the kit's series (no driver variants or counters)"
        series="not applied: $failed does not apply"
        patches=()
        make_work_tree
    fi
    new_files=$(patched_files "${patches[@]}")
    # patch(1) replaces files, which breaks the hard links; for the rest,
    # copy before touching so the pristine tree keeps its times.  A file
    # the same as in the last work tree keeps that one's time.
    printf '%s\n%s\n' "$old_files" "$new_files" | sort -u | while read -r f; do
        [ -n "$f" ] && [ -f "$W/$f" ] || continue
        cp --remove-destination "$W/$f" "$W/$f.smmulab-tmp"
        mv "$W/$f.smmulab-tmp" "$W/$f"
        if [ -f "$W.old/$f" ] && cmp -s "$W/$f" "$W.old/$f"; then
            touch -r "$W.old/$f" "$W/$f"
        else
            touch "$W/$f"
        fi
    done
    rm -rf "$W.old"
    echo "$new_files" >"$W/.smmulab-patched"
    echo "$series" >"$W/.smmulab-series"
    echo "$stamp" >"$W/.smmulab-stamp"
fi
if [ -n "$tree" ]; then
    series=$(cat "$W/.smmulab-series")
elif [ ${#patches[@]} -gt 0 ]; then
    series="applied (${#patches[@]} patches)"
else
    series="not applied (--stock)"
fi
echo "$series" >"$B/guest/series"
log "kit's patch series: $series"
[ $prepare_only = 0 ] || exit 0

# The same tree builds the same Image, so that icount runs repeat across
# builds and machines: a fixed build date that date(1) can read (kbuild
# also stamps the files of the built-in initramfs with it; an unreadable
# one, "smmulab" until 2026-12-02, left the build's wall clock there) and
# a fixed build number (kbuild's own counts the links: "#6" after six)
kmake=(make -C "$W" O="$O" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
       KBUILD_BUILD_TIMESTAMP="2026-01-01 00:00:00 UTC" KBUILD_BUILD_VERSION=1
       KBUILD_BUILD_USER=smmulab KBUILD_BUILD_HOST=smmulab)
if command -v ccache >/dev/null && [ "${SMMULAB_CCACHE:-1}" = 1 ]; then
    export CCACHE_DIR=${CCACHE_DIR:-$SMMULAB_CACHE/ccache}
    export CCACHE_BASEDIR=$B
    export CCACHE_NOHASHDIR=1
    kmake+=(CC="ccache aarch64-linux-gnu-gcc")
fi

cfg_stamp="$stamp $(files_hash "${FRAGS[@]}")"
# a tree of the user's may have changed its Kconfig (an edit elsewhere
# does not configure again)
if [ -n "$tree" ]; then
    cfg_stamp+=" $(cd "$W" && find . -name 'Kconfig*' -o -name 'tiny*.config' |
        LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)"
fi
if [ ! -f "$O/.config" ] || [ "$(cat "$O/.smmulab-config" 2>/dev/null)" != "$cfg_stamp" ]; then
    log "configuring: tinyconfig + ${FRAGS[*]#"$SMMULAB_ROOT"/}"
    run_logged "$LOGS/kernel-config.log" "kernel tinyconfig" "${kmake[@]}" tinyconfig
    run_logged "$LOGS/kernel-config.log" "merging ${FRAGS[*]#"$SMMULAB_ROOT"/}" \
        env ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
        "$W/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" "${FRAGS[@]}"
    run_logged "$LOGS/kernel-config.log" "kernel olddefconfig" "${kmake[@]}" olddefconfig
    # Every option of the fragment must have survived Kconfig's dependencies.
    # A tree of the user's may be a release without some of them (renamed,
    # removed, not yet there): those are left out with a note.
    if [ -n "$tree" ]; then
        grep -rhoE --include='Kconfig*' '^[[:space:]]*(menu)?config [A-Za-z0-9_]+' "$W" |
            awk '{ print "CONFIG_" $2 }' | sort -u >"$O/.smmulab-symbols"
    fi
    bad=()
    absent=()
    while IFS= read -r line; do
        case $line in
        CONFIG_*=*) opt=${line%%=*} ;;
        *) continue ;;
        esac
        if [ -n "$tree" ] && ! grep -qxF "$opt" "$O/.smmulab-symbols"; then
            absent+=("$opt")
            continue
        fi
        case $line in
        CONFIG_*=n) grep -q "^$opt=" "$O/.config" && bad+=("$line") ;;
        *) grep -qxF "$line" "$O/.config" || bad+=("$line") ;;
        esac
    done < <(cat "${FRAGS[@]}")
    if [ ${#absent[@]} -gt 0 ]; then
        log "not in this release (left out): ${absent[*]}"
    fi
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
# The runner names the line-transfer model's hottest lines from it
install_if_changed "$O/System.map" "$B/guest/System.map"
log "$B/guest/Image ($(stat -c %s "$B/guest/Image") bytes)"

# The kernel's parameters, read from its vmlinux, beside the Image: the
# runner refuses a variant whose parameter this kernel does not know or
# whose value it does not take (runner/kparams.h)
kernel_params() {
    local kp=${SMMULAB_KIT:-$B}/runner/smmulab-kparams
    if [ ! -x "$kp" ]; then
        rm -f "$B/guest/Image.params"
        log "no $kp (build the kit first): no parameter list beside the Image"
        return 0
    fi
    if "$kp" "$O/vmlinux" "$B/guest/Image.params.new" 2>"$LOGS/kparams.log"; then
        install_if_changed "$B/guest/Image.params.new" "$B/guest/Image.params"
        rm -f "$B/guest/Image.params.new"
        log "$B/guest/Image.params ($(grep -vc '^#' "$B/guest/Image.params") parameters)"
    else
        rm -f "$B/guest/Image.params" "$B/guest/Image.params.new"
        log "no parameter list: $(cat "$LOGS/kparams.log")"
    fi
}
kernel_params

# The SMMUv3 driver's object compiled again with DWARF, by kbuild's own
# command for it plus -g, so that the runner (runner/lockup.c) can tell
# which wait inlined into arm_smmu_cmdq_issue_cmdlist() a backtrace's
# offset is in.  -g must not change the code: the .text of both objects
# is compared, and a different one is not kept.  Seconds, not the minutes
# a kernel with CONFIG_DEBUG_INFO takes.
driver_debug_object() {
    local rel=drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.o
    local dbg=$B/guest/arm-smmu-v3.debug.o
    local cmdf=$O/drivers/iommu/arm/arm-smmu-v3/.arm-smmu-v3.o.cmd cmd
    # kept from a build of the same object (kbuild rewrites both when it
    # compiles the driver again)
    if [ "$dbg" -nt "$O/$rel" ] && [ "$dbg" -nt "$cmdf" ]; then
        return 0
    fi
    rm -f "$dbg"
    # "savedcmd_" since 6.3, "cmd_" before
    cmd=$(sed -n -E "1s#^(saved)?cmd_$rel := ##p" "$cmdf" 2>/dev/null || true)
    case $cmd in
    *" -o $rel "*) ;;
    *) log "no kbuild command for $rel: lockup reports will not name the CMDQ waits"
       return 0 ;;
    esac
    cmd=${cmd//" -o $rel "/" -o $dbg.tmp "}
    cmd=${cmd//"-Wp,-MMD,drivers/iommu/arm/arm-smmu-v3/.arm-smmu-v3.o.d"/"-Wp,-MMD,$dbg.d"}
    if ! (cd "$O" && bash -c "$cmd -g") >"$LOGS/driver-debug.log" 2>&1; then
        log "the driver with -g did not compile (log: $LOGS/driver-debug.log): lockup reports will not name the CMDQ waits"
        rm -f "$dbg.tmp" "$dbg.d"
        return 0
    fi
    aarch64-linux-gnu-objcopy -O binary -j .text "$O/$rel" "$dbg.text0"
    aarch64-linux-gnu-objcopy -O binary -j .text "$dbg.tmp" "$dbg.text1"
    if cmp -s "$dbg.text0" "$dbg.text1"; then
        mv "$dbg.tmp" "$dbg"
        log "$dbg (the driver with DWARF; same .text as the kernel's)"
    else
        log "the driver's code changed with -g: $dbg not kept, lockup reports will not name the CMDQ waits"
    fi
    rm -f "$dbg.tmp" "$dbg.d" "$dbg.text0" "$dbg.text1"
}
driver_debug_object

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

if [ $stock = 1 ] || [ $lockdep = 1 ] || [ -n "$tree" ]; then
    # The kit's init with this kernel's module, as guest/meson.build packs it
    K=${SMMULAB_KIT:-$SMMULAB_ROOT/build}/guest
    [ -x "$K/mkcpio" ] && [ -x "$K/init" ] || \
        die "$K/init and $K/mkcpio missing: build the kit first (make build)"
    "$K/mkcpio" "$B/guest/initramfs.cpio" \
        'dir dev 755' 'nod dev/console 600 c 5 1' 'dir proc 755' \
        'dir sys 755' 'dir lib 755' 'dir lib/modules 755' \
        "file init $K/init 755" \
        "file lib/modules/smmulab_bench.ko $B/guest/smmulab_bench.ko 644"
    if [ -n "$tree" ]; then
        what="$tree, kit's series $series"
    elif [ $stock = 1 ]; then
        what="stock kernel, no patch series"
    else
        what="lockdep kernel"
    fi
    log "$B/guest/initramfs.cpio ($what)"
fi

if [ -n "$tree" ]; then
    # A scenario to start from: the kit's kernel against this one
    cat >"$B/compare.ini" <<EOF
# Written by scripts/build-kernel.sh --tree $tree
# The kit's kernel against that tree's (kit's series $series):
# map+unmap for 2 s on 2 vCPUs under icount, on a 256-entry queue without
# RIL whose commands take 1 us.  Edit freely (docs/scenarios.md).
[scenario]
description=kit kernel against $(basename "$tree") (kit's series ${series%%:*})
repeat=1
timeout=300
control=off

[machine]
cpus=2
icount=on

[smmu]
cmdqs=8
ril=off
cmdq-cmd-ns=1000

[workload]
kind=map-unmap
seconds=2

[variants]
kit=
tree=

[variant.tree]
kernel=$B/guest/Image
initrd=$B/guest/initramfs.cpio
EOF
    log "$B/compare.ini: the kit's kernel against this one (make scenario S=$B/compare.ini)"
fi
