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
