#!/bin/bash
# Rebase the hook patches (patches/qemu/[0-9]*.patch, written for QEMU
# 10.0.x) onto Debian's QEMU 10.2.x and write them to patches/qemu-10.2/,
# the second base's copy (docs/build.md, "QEMU 10.2: a second base").
#
#   scripts/rebase-series-10.2.sh [BUILDDIR]           rewrite patches/qemu-10.2/
#   scripts/rebase-series-10.2.sh --check [BUILDDIR]   only compare: fail if the
#                                                      rebase gives other patches
#
# How: a git repository (BUILDDIR/rebase-10.2/qemu, BUILDDIR default build)
# holds pristine 10.0.x and pristine 10.2.x as two unrelated commits; the
# series is applied with git am to 10.0 and moved onto 10.2 with git rebase
# (three-way merges).  A conflict is resolved here only when the patch
# only adds lines there (10.2's lines kept, the patch's inserted after the
# line they followed in 10.0, or the line 10.2 made of it), or when
# patches/qemu-10.2/resolutions records it (its three sides exactly):
# scripts/series-mirror.py --resolve.  Any other conflict stops the script
# with its place: resolve it by hand and record it there (docs/build.md).
# The patches are written with git format-patch --zero-commit, so a rerun
# on the same input writes the same bytes.  What a patch needs on 10.2
# beyond the rebase (a function 10.2 renamed) is patches/qemu-10.2/amend/
# NNNN.diff: applied onto the rebased patch NNNN and folded into it, before
# the patches after it are rebased, so each 10.2 patch builds on its own.
# patches/qemu-10.2/compat/ (the 10.2-only build fixes), amend/ and
# resolutions are left alone.  scripts/series-mirror.py then
# checks that the two copies carry the same changes.
#
# The 10.0.x source is Debian's (scripts/qemu-src.sh; QEMU_SRC is not used
# for it); the 10.2.x source is scripts/qemu-src.sh --release 10.2, which
# takes QEMU_SRC (a 10.2.x tree or tarball) when it is set.
set -euo pipefail
SMMULAB_TAG=smmulab-rebase-10.2
. "$(dirname "$0")/common.sh"

check=0
if [ "${1:-}" = --check ]; then
    check=1
    shift
fi
B=$(mkdir -p "${1:-$SMMULAB_ROOT/build}" && cd "${1:-$SMMULAB_ROOT/build}" && pwd)
R=$B/rebase-10.2/qemu
LOGS=$B/logs
OUTDIR=$SMMULAB_ROOT/patches/qemu-10.2
mkdir -p "$LOGS"

src10=$(env -u QEMU_SRC "$SMMULAB_ROOT/scripts/qemu-src.sh" | tail -n1)
src12=$("$SMMULAB_ROOT/scripts/qemu-src.sh" --release 10.2 | tail -n1)
[ -d "$src10" ] && [ -d "$src12" ] || exit 1

shopt -s nullglob
patches=("$SMMULAB_ROOT"/patches/qemu/[0-9]*.patch)
shopt -u nullglob
[ ${#patches[@]} -gt 0 ] || die "no patches in patches/qemu/"

# The identity only commits (never a patch: git am and rebase keep the
# patches' authors; format-patch writes those)
git_r() {
    git -C "$R" -c user.name=smmulab-rebase -c user.email=rebase@smmulab.invalid \
        -c core.autocrlf=false -c gc.auto=0 -c core.abbrev=8 \
        -c merge.conflictStyle=diff3 -c rerere.enabled=false "$@"
}

# pristine_commit SRC NAME: SRC's files as the whole tree of a root
# commit on branch NAME
pristine_commit() {
    git_r symbolic-ref HEAD "refs/heads/$2"
    rm -f "$R/.git/index"
    find "$R" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    (cd "$1" && tar --exclude=./.smmulab-complete -cf - .) | tar -xf - -C "$R"
    git_r add -A -f
    GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" \
        git_r commit -q -m "QEMU $(cat "$1/VERSION") ($1)"
}

repo_stamp="$src10 $src12"
if [ "$(cat "$R/.git/smmulab-bases" 2>/dev/null)" != "$repo_stamp" ]; then
    log "making a git repository of QEMU $(cat "$src10/VERSION") and $(cat "$src12/VERSION")"
    rm -rf "$R"
    mkdir -p "$R"
    git_r init -q
    pristine_commit "$src10" base-10.0
    pristine_commit "$src12" base-10.2
    echo "$repo_stamp" >"$R/.git/smmulab-bases"
fi
git_r rebase --abort >/dev/null 2>&1 || true
git_r am --abort >/dev/null 2>&1 || true
git_r checkout -q -f -B s10.0 base-10.0
git_r clean -q -f -d -x
for p in "${patches[@]}"; do
    git_r am -q "$p" >"$LOGS/rebase-10.2-am.log" 2>&1 || {
        cat "$LOGS/rebase-10.2-am.log" >&2
        die "${p#"$SMMULAB_ROOT"/} does not apply with git am to QEMU 10.0 + the patches before it"
    }
done

git_r checkout -q -B s10.2 s10.0
# The amendments: an exec after the pick of patch NNNN folds amend/NNNN.diff
# into it (series-mirror.py --amend-todo writes it into the todo list)
if ! GIT_SEQUENCE_EDITOR="python3 $SMMULAB_ROOT/scripts/series-mirror.py --amend-todo $OUTDIR/amend" \
        git_r rebase -q -i --onto base-10.2 base-10.0 s10.2 \
        >"$LOGS/rebase-10.2.log" 2>&1; then
    while [ -d "$R/.git/rebase-merge" ] || [ -d "$R/.git/rebase-apply" ]; do
        mapfile -t unmerged < <(git_r diff --name-only --diff-filter=U)
        [ ${#unmerged[@]} -gt 0 ] || {
            cat "$LOGS/rebase-10.2.log" >&2
            die "git rebase stopped without a conflict to resolve (log: $LOGS/rebase-10.2.log)"
        }
        cur=$(git_r log -1 --format=%s REBASE_HEAD 2>/dev/null || echo '?')
        for f in "${unmerged[@]}"; do
            msg=$(cd "$R" && python3 "$SMMULAB_ROOT/scripts/series-mirror.py" \
                --resolve "$OUTDIR/resolutions" "$f") || \
                die "rebasing \"$cur\" onto 10.2: see above (work tree: $R)"
            log "$cur: $msg"
            git_r add "$f"
        done
        GIT_EDITOR=true git_r rebase --continue >>"$LOGS/rebase-10.2.log" 2>&1 || true
    done
fi
n=$(git_r rev-list --count base-10.2..s10.2)
[ "$n" = ${#patches[@]} ] || die "the rebase gave $n commits for ${#patches[@]} patches (one became empty?)"
[ -z "$(git_r status --porcelain --untracked-files=no)" ] || die "the rebase left changes behind in $R"

out=$B/rebase-10.2/patches
rm -rf "$out"
git_r format-patch -q --zero-commit --no-signature -o "$out" base-10.2..s10.2

if [ $check = 1 ]; then
    ndiff=0
    for p in "$out"/*.patch; do
        cmp -s "$p" "$OUTDIR/$(basename "$p")" || {
            echo "differs: patches/qemu-10.2/$(basename "$p")" >&2
            ndiff=$((ndiff + 1))
        }
    done
    nold=$(find "$OUTDIR" -maxdepth 1 -name '[0-9]*.patch' 2>/dev/null | wc -l)
    [ "$nold" = "$n" ] || { echo "patches/qemu-10.2/ has $nold patches, the rebase $n" >&2; ndiff=$((ndiff + 1)); }
    [ $ndiff = 0 ] || die "patches/qemu-10.2/ is not the rebase of patches/qemu/: run scripts/rebase-series-10.2.sh"
    log "patches/qemu-10.2/ is the rebase of patches/qemu/ ($n patches)"
    exit 0
fi
mkdir -p "$OUTDIR"
find "$OUTDIR" -maxdepth 1 -name '[0-9]*.patch' -delete
cp "$out"/*.patch "$OUTDIR/"
log "wrote $n patches to patches/qemu-10.2/ (rebased onto QEMU $(cat "$src12/VERSION"))"
