#!/bin/bash
# Bisect a lockup: which commit of a Linux tree made a scenario's primary
# endpoint worse (docs/scenarios.md, "Bisect a lockup").
#
#   scripts/smmulab-bisect.sh [OPTIONS] TREE GOOD BAD SCENARIO.ini
#     --variant NAME   the scenario's variant to run (default: the first)
#     --batch N        runs per batch (default: the scenario's repeat=)
#     --cap N          most runs of one commit; past it the commit is
#                      skipped (default: 3 batches)
#     --seed N         the scenario's seed instead of its seed=
#     --build DIR      the kit's build (its QEMU, runner, init; default build)
#     --out DIR        results (default BUILD/bisect-TIME)
#
# Measures GOOD and BAD once (a batch each, built as they are: build-kernel.sh
# --tree --as-is); stops when they do not differ on the primary endpoint.
# Then git bisect run: each step is built (ccache; exit 125, skip, when it
# does not build) and run in seeded batches (batch b with seed SEED+b) until
# its pooled runs differ from GOOD's and not from BAD's (bad), or the other
# way round (good), at the runner's alpha (0.05, exact tests); at the cap it
# is skipped.  The same invocation gives the same bisect.  OUT holds
# bisect.log (git bisect log), summary.txt (a line per step), and per step
# steps/NN-COMMIT/ with its batches, its comparisons and report.txt.
# TREE is left as it was (git bisect reset), also on Ctrl-C.
set -euo pipefail
SMMULAB_TAG=smmulab-bisect
. "$(dirname "$0")/common.sh"
HELPER=$SMMULAB_ROOT/scripts/bisect-helper.py

# ---- one step, under git bisect run -----------------------------------
if [ "${1:-}" = --step ]; then
    : "${BISECT_OUT:?}" "${BISECT_TREE:?}"
    # an error of the step itself must abort the bisect (exit > 127), not
    # mark the commit bad (1..127)
    trap 'log "step failed (line $LINENO): aborting the bisect"; exit 255' ERR
    commit=$(git -C "$BISECT_TREE" rev-parse HEAD)
    short=${commit:0:12}
    n=$(($(cat "$BISECT_OUT/.nsteps" 2>/dev/null || echo 0) + 1))
    echo $n >"$BISECT_OUT/.nsteps"
    S=$BISECT_OUT/steps/$(printf %02d $n)-$short
    mkdir -p "$S"
    subj=$(git -C "$BISECT_TREE" log -1 --format=%s "$commit")
    log "step $n: $short $subj: building"
    if ! SMMULAB_KIT=$BISECT_BUILD nice -n "${BISECT_NICE:-0}" \
        "$SMMULAB_ROOT/scripts/build-kernel.sh" --tree "$BISECT_TREE" --as-is \
        "$BISECT_OUT/kernel" >"$S/build.log" 2>&1; then
        log "step $n: $short does not build (log: $S/build.log): skip"
        echo "$short skip (does not build) n=0 p_good=- p_bad=- $subj" >>"$BISECT_OUT/summary.txt"
        exit 125
    fi
    cp "$BISECT_OUT/kernel/guest/Image" "$BISECT_OUT/kernel/guest/initramfs.cpio" "$S/"
    # the driver's debug object, for the report's lockup places
    dbg=$BISECT_OUT/kernel/guest/arm-smmu-v3.debug.o
    [ ! -f "$dbg" ] || cp "$dbg" "$S/"
    "$HELPER" scenario "$BISECT_SCENARIO" "$BISECT_VARIANT" "$S/scenario.ini" \
        "$S/Image" "$S/initramfs.cpio" "$BISECT_BATCH"
    b=0
    dirs=()
    while :; do
        seed=$(python3 -c "print(($BISECT_SEED + $b) % 2**64)")
        (cd "$BISECT_CWD" && "$BISECT_RUNNER" --build "$BISECT_BUILD" \
            --topologies "$SMMULAB_ROOT/configs/topologies.ini" --seed "$seed" \
            --out "$S/batch-$b" "$S/scenario.ini") >"$S/batch-$b.log" 2>&1 || true
        [ -f "$S/batch-$b/runs.json" ] || {
            tail -n 5 "$S/batch-$b.log" >&2
            log "step $n: the runner wrote no runs.json (log: $S/batch-$b.log)"
            exit 255
        }
        dirs+=("$S/batch-$b")
        read -r dg pg ng nt < <("$HELPER" pool "$BISECT_RUNNER" "$S/vs-good" \
            "$BISECT_OUT/good" -- "${dirs[@]}")
        read -r db pb _ _ < <("$HELPER" pool "$BISECT_RUNNER" "$S/vs-bad" \
            "$BISECT_OUT/bad" -- "${dirs[@]}")
        d=$("$HELPER" decide "$dg" "$db")
        {
            echo "== $short $subj: $d after n=$nt (p vs good $pg, p vs bad $pb)"
            echo "== against GOOD ($ng runs):"
            cat "$S/vs-good/report.txt"
            echo "== against BAD:"
            cat "$S/vs-bad/report.txt"
        } >"$S/report.txt"
        b=$((b + 1))
        if [ "$d" = more ] && [ $((b * BISECT_BATCH)) -ge "$BISECT_CAP" ]; then
            d="skip (cap $BISECT_CAP reached)"
        fi
        if [ "$d" != more ]; then
            line="$short $d n=$nt p_good=$pg p_bad=$pb $subj"
            echo "$line" >>"$BISECT_OUT/summary.txt"
            log "step $n: $line"
            case $d in
            good) exit 0 ;;
            bad) exit 1 ;;
            *) exit 125 ;;
            esac
        fi
        log "step $n: $short undecided at n=$nt (p vs good $pg, p vs bad $pb): another batch"
    done
fi

# ---- the bisect --------------------------------------------------------
variant="" batch="" cap="" seed="" build=build out=""
while [ $# -gt 0 ]; do
    case $1 in
    --variant) variant=${2:?}; shift 2 ;;
    --batch) batch=${2:?}; shift 2 ;;
    --cap) cap=${2:?}; shift 2 ;;
    --seed) seed=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (--help)" ;;
    *) break ;;
    esac
done
[ $# = 4 ] || die "usage: smmulab-bisect.sh [OPTIONS] TREE GOOD BAD SCENARIO.ini (--help)"
TREE=$1 GOOD=$2 BAD=$3 SCEN=$4
[ -d "$TREE" ] && [ "$(git -C "$TREE" rev-parse --show-toplevel 2>/dev/null)" = \
    "$(realpath "$TREE")" ] || die "$TREE is not a git work tree (the top of a clone)"
TREE=$(realpath "$TREE")
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] || \
    die "$TREE has uncommitted changes: commit or stash them first"
GITDIR=$(git -C "$TREE" rev-parse --absolute-git-dir)
[ ! -e "$GITDIR/BISECT_START" ] || \
    die "$TREE is already bisecting (git bisect reset first)"
good=$(git -C "$TREE" rev-parse -q --verify "$GOOD^{commit}") || die "unknown commit $GOOD in $TREE"
bad=$(git -C "$TREE" rev-parse -q --verify "$BAD^{commit}") || die "unknown commit $BAD in $TREE"
[ "$good" != "$bad" ] || die "good and bad are the same commit ($GOOD = $BAD)"
git -C "$TREE" merge-base --is-ancestor "$good" "$bad" || \
    die "$GOOD is not an ancestor of $BAD"
[ -f "$SCEN" ] || die "$SCEN: no such scenario"
SCEN=$(realpath "$SCEN")
read -r variant rep sseed primary < <("$HELPER" check "$SCEN" $variant) || exit 2
batch=${batch:-$rep}
cap=${cap:-$((3 * batch))}
seed=${seed:-$sseed}
case "$batch$cap$seed" in *[!0-9]*) die "--batch, --cap and --seed take numbers" ;; esac
[ "$batch" -ge 1 ] && [ "$cap" -ge "$batch" ] || die "--cap $cap must be at least the batch ($batch)"
BUILD=$(realpath "$build")
RUNNER=$BUILD/runner/smmulab-run
[ -x "$RUNNER" ] || die "$RUNNER missing: build the kit first (make build-main)"
out=${out:-$BUILD/bisect-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
OUT=$(realpath "$out")
case $OUT/ in "$TREE"/*) die "--out $OUT is inside $TREE" ;; esac
# a rerun into the same OUT keeps only the kernel's objects
rm -rf "$OUT/steps" "$OUT/good" "$OUT/bad" "$OUT/good-vs-bad" "$OUT/summary.txt" \
    "$OUT/.nsteps" "$OUT/result.txt" "$OUT/bisect.log" "$OUT/bisect-run.log"
export BISECT_OUT=$OUT BISECT_TREE=$TREE BISECT_BUILD=$BUILD BISECT_RUNNER=$RUNNER \
    BISECT_SCENARIO=$SCEN BISECT_VARIANT=$variant BISECT_BATCH=$batch \
    BISECT_CAP=$cap BISECT_SEED=$seed BISECT_CWD=$PWD
# kbuild numbers each build (#N in the banner), which would make the same
# source boot a different Image, and so other runs, after another build
# history: one number for all, so that the same invocation gives the same
# bisect
export KBUILD_BUILD_VERSION=1

# Leave TREE as it was, whatever happens
orig=$(git -C "$TREE" symbolic-ref -q --short HEAD || git -C "$TREE" rev-parse HEAD)
restore() {
    if [ -e "$GITDIR/BISECT_START" ]; then
        git -C "$TREE" bisect reset >/dev/null 2>&1 || true
    fi
    git -C "$TREE" checkout -q "$orig" 2>/dev/null || true
}
trap restore EXIT
trap 'log "interrupted: $TREE back at $orig"; exit 130' INT TERM

log "$TREE: $GOOD (${good:0:12}) good, $BAD (${bad:0:12}) bad; $SCEN variant $variant, primary $primary; batches of $batch (seed $seed), cap $cap; results in $OUT"
# GOOD and BAD: a batch each, with the seed of every step's first batch
measure_end() { # NAME COMMIT
    local name=$1 c=$2
    git -C "$TREE" checkout -q "$c"
    log "$name (${c:0:12}): building"
    SMMULAB_KIT=$BUILD nice -n "${BISECT_NICE:-0}" \
        "$SMMULAB_ROOT/scripts/build-kernel.sh" --tree "$TREE" --as-is \
        "$OUT/kernel" >"$OUT/$name-build.log" 2>&1 || \
        die "$name ${c:0:12} does not build (log: $OUT/$name-build.log)"
    mkdir -p "$OUT/$name-kernel"
    cp "$OUT/kernel/guest/Image" "$OUT/kernel/guest/initramfs.cpio" "$OUT/$name-kernel/"
    [ ! -f "$OUT/kernel/guest/arm-smmu-v3.debug.o" ] || \
        cp "$OUT/kernel/guest/arm-smmu-v3.debug.o" "$OUT/$name-kernel/"
    "$HELPER" scenario "$SCEN" "$variant" "$OUT/$name.ini" \
        "$OUT/$name-kernel/Image" "$OUT/$name-kernel/initramfs.cpio" "$batch"
    log "$name (${c:0:12}): $batch run(s)"
    "$RUNNER" --build "$BUILD" --topologies "$SMMULAB_ROOT/configs/topologies.ini" \
        --seed "$seed" --out "$OUT/$name" "$OUT/$name.ini" >"$OUT/$name.log" 2>&1 || true
    [ -f "$OUT/$name/runs.json" ] || die "$name: the runner wrote no runs.json (log: $OUT/$name.log)"
}
measure_end good "$good"
measure_end bad "$bad"
read -r d p _ _ < <("$HELPER" pool "$RUNNER" "$OUT/good-vs-bad" "$OUT/good" -- "$OUT/bad")
if [ "$d" != yes ]; then
    echo "smmulab-bisect: nothing to bisect: $GOOD and $BAD do not differ on $primary at n=$batch+$batch (p=$p; report: $OUT/good-vs-bad/report.txt)" >&2
    exit 3
fi
log "good and bad differ on $primary (p=$p, n=$batch+$batch): bisecting"

git -C "$TREE" checkout -q "$orig"
git -C "$TREE" bisect start "$bad" "$good" >/dev/null
set +e
git -C "$TREE" bisect run "$SMMULAB_ROOT/scripts/smmulab-bisect.sh" --step 2>&1 | tee "$OUT/bisect-run.log" |
    grep --line-buffered -E '^smmulab-bisect:|is the first bad commit'
rc=${PIPESTATUS[0]}
set -e
git -C "$TREE" bisect log >"$OUT/bisect.log" 2>/dev/null || true
first=$(sed -n 's/^# first bad commit: \[\([0-9a-f]*\)\].*/\1/p' "$OUT/bisect.log")
if [ $rc = 0 ] && [ -n "$first" ]; then
    echo "first bad commit: $first $(git -C "$TREE" log -1 --format=%s "$first")" | tee "$OUT/result.txt"
    log "bisect log: $OUT/bisect.log; steps: $OUT/summary.txt"
else
    grep -E 'only skipped|first bad|could be any of' "$OUT/bisect-run.log" | tee "$OUT/result.txt" || true
    tail -n 5 "$OUT/bisect-run.log" >&2
    die "the bisect did not name one commit (log: $OUT/bisect-run.log, $OUT/bisect.log)"
fi
