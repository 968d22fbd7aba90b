#!/bin/bash
# Write smmulab's QEMU changes as one git-am-able series, as a qemu-devel
# posting would carry them: the hook patches of patches/qemu/, each with
# the project's new files (hw/, include/, tests/qtest/, the timing unit
# test in tests/unit/: series_files in common.sh, which leaves out the
# tools patches/qemu/local/ builds) folded into the first patch whose
# tree refers to them, and a cover letter (patches/qemu/cover-letter:
# subject line, blank line, blurb).  patches/qemu/local/ is not posted.
#
#   scripts/make-series.sh BUILDDIR
#
# Result: BUILDDIR/series/0000-cover-letter.patch, 0001-*.patch, ...
# Work repository: BUILDDIR/series-work/qemu (pristine QEMU 10.0.x as its
# first commit, then the series; kept for scripts/test-series.sh).
#
# A file is "referred to" when its name is listed in the meson.build of
# its directory ('smmuv3-cmdq.c'; a test by its name, 'smmuv3-cmdq-test',
# 'test-smmuv3-cmdq-timing') or #included
# ("smmuv3-cmdq-internal.h", "hw/arm/smmuv3-cmdq.h") by a file under hw/,
# include/ or tests/, QEMU's or a project file already folded in.  A project file that no patch
# refers to is an error: it would be missing from the series.
set -euo pipefail
SMMULAB_TAG=smmulab-series
. "$(dirname "$0")/common.sh"

B=$(mkdir -p "${1:?usage: make-series.sh BUILDDIR}" && cd "$1" && pwd)
R=$B/series-work/qemu
OUT=$B/series
LOGS=$B/logs
mkdir -p "$LOGS"

pristine=$("$SMMULAB_ROOT/scripts/qemu-src.sh" | tail -n1)
[ -d "$pristine" ] || exit 1
version=$(cat "$pristine/VERSION")

shopt -s nullglob
patches=("$SMMULAB_ROOT"/patches/qemu/[0-9]*.patch)
shopt -u nullglob
[ ${#patches[@]} -gt 0 ] || die "no patches in patches/qemu/"
cover=$SMMULAB_ROOT/patches/qemu/cover-letter
[ -f "$cover" ] || die "$cover missing"

# The project's QEMU-side files that belong in QEMU's tree (the device
# config under configs/devices/ is smmulab's build choice, not a change;
# the local tools are not posted: series_files in common.sh)
mapfile -t overlay < <(series_files)

# The series' author (series_author in common.sh: never a placeholder)
series_author
git_r() {
    git -C "$R" -c user.name="$author_name" -c user.email="$author_email" \
        -c core.autocrlf=false -c gc.auto=0 "$@"
}

# The work repository: pristine QEMU as one commit, made once per source.
# Every file of it, the ones QEMU's .gitignore names too (the subprojects
# Debian's source carries, which configure needs).
repo_stamp="$pristine (all files)"
if [ "$(cat "$R/.git/smmulab-pristine" 2>/dev/null)" != "$repo_stamp" ]; then
    log "making a git repository of QEMU $version ($pristine)"
    rm -rf "$R"
    mkdir -p "$(dirname "$R")"
    cp -a "$pristine" "$R"
    rm -f "$R/.smmulab-complete"
    git_r init -q
    git_r add -A -f
    git_r commit -q -m "QEMU $version"
    git_r tag -f pristine >/dev/null
    echo "$repo_stamp" >"$R/.git/smmulab-pristine"
fi
git_r am --abort >/dev/null 2>&1 || true
git_r checkout -q -f -B series pristine
git_r clean -q -fd

# Does QEMU's tree (or a project file folded in) refer to project file $1?
referred() {
    local f=$1 base
    base=$(basename "$f")
    case $f in
    *.h)
        git_r grep -q -F -e "#include \"$base\"" -e "#include \"${f#include/}\"" \
            -- hw include tests 2>/dev/null ;;
    *.c)
        # a test is listed by its name ('smmuv3-cmdq-test')
        [ "${f#tests/}" = "$f" ] || base=${base%.c}
        grep -qF -- "'$base'" "$R/$(dirname "$f")/meson.build" 2>/dev/null ;;
    *)
        return 1 ;;
    esac
}

declare -A folded=()
n=0
for p in "${patches[@]}"; do
    n=$((n + 1))
    name=${p#"$SMMULAB_ROOT"/}
    if ! git_r am -q "$p" >"$LOGS/series-am.log" 2>&1; then
        cat "$LOGS/series-am.log" >&2
        die "$name does not apply with git am after the patches before it"
    fi
    added=()
    # Fold in until nothing new is referred to (a header a folded file needs)
    while :; do
        more=0
        for f in "${overlay[@]}"; do
            [ -z "${folded[$f]:-}" ] || continue
            if referred "$f"; then
                mkdir -p "$R/$(dirname "$f")"
                cp "$SMMULAB_ROOT/$f" "$R/$f"
                git_r add "$f"
                folded[$f]=$n
                added+=("$f")
                more=1
            fi
        done
        [ $more = 1 ] || break
    done
    if [ ${#added[@]} -gt 0 ]; then
        git_r commit -q --amend --no-edit
        log "$(printf '%04d' $n): $(git_r log -1 --format=%s) + ${added[*]}"
    else
        log "$(printf '%04d' $n): $(git_r log -1 --format=%s)"
    fi
done

for f in "${overlay[@]}"; do
    [ -n "${folded[$f]:-}" ] || \
        die "$f is referred to by no patch: the series would not carry it"
done

rm -rf "$OUT"
mkdir -p "$OUT"
subject=$(head -n1 "$cover")
git_r format-patch -q --cover-letter --no-signature -o "$OUT" pristine..series
# Fill format-patch's cover letter placeholders
python3 - "$OUT/0000-cover-letter.patch" "$cover" <<'EOF'
import sys
path, cover = sys.argv[1], sys.argv[2]
lines = open(cover).read().split('\n')
subject, blurb = lines[0], '\n'.join(lines[2:]).rstrip('\n')
text = open(path).read()
if '*** SUBJECT HERE ***' not in text or '*** BLURB HERE ***' not in text:
    sys.exit('format-patch cover letter without its placeholders')
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', blurb)
open(path, 'w').write(text)
EOF
log "wrote $(ls "$OUT" | wc -l) files to $OUT (cover letter and $n patches)"
