# Shared helpers for smmulab's build scripts.  Source, do not execute.
# shellcheck shell=bash

SMMULAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SMMULAB_CACHE=${SMMULAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/smmulab}
SMMULAB_JOBS=${SMMULAB_JOBS:-$(nproc)}
export SMMULAB_ROOT SMMULAB_CACHE

_tag=${SMMULAB_TAG:-smmulab}

log() { echo "$_tag: $*"; }
die() { echo "$_tag: error: $*" >&2; exit 1; }

# run_logged LOGFILE WHAT CMD...: run CMD with its output in LOGFILE; on
# failure print one line naming WHAT and the log, and the log's tail.
run_logged() {
    local logfile=$1 what=$2
    shift 2
    mkdir -p "$(dirname "$logfile")"
    if ! "$@" >"$logfile" 2>&1; then
        tail -n 25 "$logfile" >&2
        die "$what failed; full log: $logfile"
    fi
}

# ninja_progress LOGFILE WHAT ninja-args...: run ninja, showing one updating
# progress line ([n/total]) on a terminal, a line per 10% otherwise.
ninja_progress() {
    local logfile=$1 what=$2
    shift 2
    mkdir -p "$(dirname "$logfile")"
    local rc=0 last=-1
    set +e
    NINJA_STATUS='[%f/%t] ' ninja "$@" 2>&1 | tee "$logfile" | \
    while IFS= read -r line; do
        case $line in
        \[*/*\]*)
            local f=${line#[} t
            t=${f#*/}; t=${t%%]*}; f=${f%%/*}
            [ "$t" -gt 0 ] 2>/dev/null || continue
            local pct=$((f * 100 / t))
            if [ -t 1 ]; then
                printf '\r%s: %s [%d/%d] %d%%' "$_tag" "$what" "$f" "$t" "$pct"
            elif [ $((pct / 10)) != "$last" ]; then
                last=$((pct / 10))
                echo "$_tag: $what [$f/$t] $pct%"
            fi
            ;;
        esac
    done
    rc=${PIPESTATUS[0]}
    set -e
    [ -t 1 ] && echo
    if [ "$rc" != 0 ]; then
        grep -E -A5 'error|FAILED' "$logfile" | head -n 30 >&2
        die "$what failed; full log: $logfile"
    fi
}

# make_progress LOGFILE WHAT TOTAL COUNTFILE make-args...: run a kbuild
# make with its output in LOGFILE, showing progress as ninja_progress does:
# kbuild prints a line per step ("  CC      init/main.o"), counted against
# the last full build's count kept in COUNTFILE, or TOTAL (the count
# measured when the script was written) before there is one.  A build that
# is mostly done already only counts what it still does.
make_progress() {
    local logfile=$1 what=$2 total=$3 countfile=$4
    shift 4
    mkdir -p "$(dirname "$logfile")"
    [ -s "$countfile" ] && total=$(cat "$countfile")
    local rc=0 last=-1 n=0
    set +e
    "$@" 2>&1 | tee "$logfile" | \
    while IFS= read -r line; do
        case $line in
        "  "[A-Z]*) n=$((n + 1)) ;;
        *) continue ;;
        esac
        local pct=$((n * 100 / total))
        [ $pct -gt 99 ] && pct=99
        if [ -t 1 ]; then
            printf '\r%s: %s [%d/~%d] %d%%' "$_tag" "$what" "$n" "$total" "$pct"
        elif [ $((pct / 10)) != "$last" ]; then
            last=$((pct / 10))
            echo "$_tag: $what [$n/~$total] $pct%"
        fi
    done
    rc=${PIPESTATUS[0]}
    set -e
    [ -t 1 ] && echo
    if [ "$rc" != 0 ]; then
        tail -n 25 "$logfile" >&2
        die "$what failed; full log: $logfile"
    fi
    n=$(grep -c '^  [A-Z]' "$logfile" || true)
    # a full build's count only: a rebuild of a few files would mislead
    if [ "$n" -gt $((total / 2)) ]; then
        mkdir -p "$(dirname "$countfile")"
        echo "$n" >"$countfile"
    fi
}

# sha of a list of files (content and names), for stamps
files_hash() {
    local f
    for f in "$@"; do
        echo "$f"
        cat "$f"
    done | sha256sum | cut -c1-16
}

# Run a step only once: atomic directories.  A directory is complete only
# when DIR/.smmulab-complete exists; anything else is removed and redone.
dir_complete() { [ -f "$1/.smmulab-complete" ]; }
mark_complete() { date -u +%FT%TZ > "$1/.smmulab-complete"; }

# QEMU's configure arguments for every smmulab build of it (build-qemu.sh,
# test-series.sh), one per line: aarch64-softmmu, minimal features, the
# device set of configs/devices/aarch64-softmmu/smmulab.mak
qemu_configure_args() {
    printf '%s\n' \
        --target-list=aarch64-softmmu \
        --python=/usr/bin/python3 \
        --disable-download \
        --without-default-features \
        --without-default-devices \
        --with-devices-aarch64=smmulab \
        --enable-fdt=system \
        --enable-trace-backends=log \
        --disable-docs \
        --disable-install-blobs \
        --disable-werror \
        --disable-rust \
        --disable-user
}

# project_files PATH...: the project's files under those of PATH...
# (directories or files) that exist, relative to its root and sorted (the
# QEMU overlay and series)
project_files() {
    local d dirs=()
    for d in "$@"; do
        [ -e "$SMMULAB_ROOT/$d" ] && dirs+=("$d")
    done
    [ ${#dirs[@]} -gt 0 ] || return 0
    (cd "$SMMULAB_ROOT" && find "${dirs[@]}" -type f ! -name '*~' ! -name '.*' | \
        LC_ALL=C sort)
}

# The project's QEMU-side files: at their paths in QEMU's tree (the
# overlay), and those of them the upstream series carries (series_files).
# The unit test of the timing arithmetic is QEMU's tests/unit test too;
# the fuzzer and the stream tool are smmulab's own, built in QEMU's tree
# by the local patches (patches/qemu/local/), never posted.
QEMU_SIDE=(hw include tests/qtest tests/unit/test-smmuv3-cmdq-timing.c)
SERIES_EXCLUDED=(tests/qtest/smmuv3-cmdq-fuzz.c tests/qtest/smmuv3-cmdq-stream.c)
series_files() {
    project_files "${QEMU_SIDE[@]}" | grep -v -x -F "${SERIES_EXCLUDED[@]/#/-e}" || true
}

# qemu_fake_firmware TREE: Debian's QEMU source strips the firmware blobs
# configure expects; empty placeholders let it run
qemu_fake_firmware() {
    local fd
    for fd in edk2-aarch64-code edk2-arm-code edk2-arm-vars edk2-i386-code \
              edk2-i386-secure-code edk2-i386-vars edk2-x86_64-code \
              edk2-x86_64-secure-code edk2-riscv-code edk2-riscv-vars \
              edk2-loongarch64-code edk2-loongarch64-vars; do
        [ -e "$1/pc-bios/$fd.fd.bz2" ] || : >"$1/pc-bios/$fd.fd.bz2"
    done
    # 10.2 (pc-bios/dtb/): the device trees, compiled from their .dts only
    # when dtc is installed, expected as files otherwise
    for fd in "$1"/pc-bios/dtb/*.dts; do
        [ -e "$fd" ] || continue
        [ -e "${fd%.dts}.dtb" ] || : >"${fd%.dts}.dtb"
    done
}

# qemu_cc BASEDIR: the compiler for a QEMU build (ccache with paths made
# relative to BASEDIR, unless SMMULAB_CCACHE=0), in $cc
qemu_cc() {
    if command -v ccache >/dev/null && [ "${SMMULAB_CCACHE:-1}" = 1 ]; then
        export CCACHE_DIR=${CCACHE_DIR:-$SMMULAB_CACHE/ccache}
        export CCACHE_BASEDIR=$1
        export CCACHE_NOHASHDIR=1
        cc="ccache gcc"
    else
        cc=gcc
    fi
}

# series_author: set author_name and author_email for the QEMU series:
# SMMULAB_AUTHOR_NAME/EMAIL, else git's user.name/user.email, else the
# author of the project's last commit (a fresh clone without a
# configuration); never a placeholder: dies without one
series_author() {
    local ident_name ident_email
    ident_name=$(git -C "$SMMULAB_ROOT" config user.name 2>/dev/null ||
        git -C "$SMMULAB_ROOT" log -1 --format=%an 2>/dev/null || true)
    ident_email=$(git -C "$SMMULAB_ROOT" config user.email 2>/dev/null ||
        git -C "$SMMULAB_ROOT" log -1 --format=%ae 2>/dev/null || true)
    author_name=${SMMULAB_AUTHOR_NAME:-$ident_name}
    author_email=${SMMULAB_AUTHOR_EMAIL:-$ident_email}
    [ -n "$author_name" ] && [ -n "$author_email" ] ||
        die "no author identity: set git config user.name and user.email (or SMMULAB_AUTHOR_NAME and SMMULAB_AUTHOR_EMAIL)"
}

# debian_mirror: the Debian mirror this machine already uses for bookworm
# (deb822 or one-line sources), http://deb.debian.org/debian without one:
# where qemu-src.sh --release 10.2 takes sid's sources from (the same
# lookup as scripts/deps.sh's, which runs without this file)
debian_mirror() {
    local mirror
    mirror=$(awk 'BEGIN { RS = ""; FS = "\n" }
        { u = ""; s = 0
          for (i = 1; i <= NF; i++) {
              if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); u = a[2] }
              if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) s = 1
          }
          if (s && u != "") { print u; exit } }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
        mirror=$(awk '$1 == "deb" && / bookworm / {
            for (i = 2; i <= NF; i++) if ($i ~ /^(https?|ftp):/) { print $i; exit } }' \
            /etc/apt/sources.list || true)
    fi
    echo "${mirror:-http://deb.debian.org/debian}"
}
