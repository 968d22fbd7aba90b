#!/bin/bash
# Check the series `make series` writes (scripts/make-series.sh).
#
#   scripts/test-series.sh BUILDDIR          the cheap form (make check)
#   scripts/test-series.sh --each BUILDDIR   bisectable: build after every
#                                            patch (make check-series)
#
# Both: write the series; apply it with `git am` to pristine QEMU 10.0.x;
# run QEMU's scripts/checkpatch.pl on every patch (an error fails, warnings
# are printed); check that the result is, file for file, the tree the
# project's QEMU was built and tested from (BUILDDIR/qemu/src, so a built
# QEMU is needed first).
# --each also configures once and, after each patch, builds
# qemu-system-aarch64, checks that the SMMU has exactly the properties the
# patches so far introduce (the table below: none early, none missing),
# and, where the series has them, builds and runs the timing unit test and
# the smmuv3-cmdq qtest.
set -euo pipefail
SMMULAB_TAG=smmulab-test-series
. "$(dirname "$0")/common.sh"

each=0
if [ "${1:-}" = --each ]; then
    each=1
    shift
fi
B=$(cd "${1:?usage: test-series.sh [--each] BUILDDIR}" && pwd)
R=$B/series-work/qemu
W=$B/qemu/src
LOGS=$B/logs
[ -f "$W/.smmulab-stamp" ] || die "$W is not prepared: build QEMU first (make build)"

"$SMMULAB_ROOT/scripts/make-series.sh" "$B"
mapfile -t series < <(ls "$B/series"/[0-9]*.patch | grep -v '/0000-cover-letter')
cover=$B/series/0000-cover-letter.patch
[ -f "$cover" ] || die "no cover letter"
grep -q "^Subject: \[PATCH 0*0/${#series[@]}\] $(head -n1 "$SMMULAB_ROOT/patches/qemu/cover-letter")" \
    "$cover" || die "the cover letter's subject is not patches/qemu/cover-letter's"
! grep -q '\*\*\*' "$cover" || die "the cover letter still has format-patch placeholders"

# The series' author (series_author in common.sh: never a placeholder)
series_author
git_r() {
    git -C "$R" -c user.name="$author_name" -c user.email="$author_email" \
        -c gc.auto=0 "$@"
}

# The properties each patch introduces, by its subject (the specification:
# a property must appear with the patch that implements it, not before)
props_of() {
    case $1 in
    *"make the queue sizes configurable"*)
        echo cmdqs eventqs ;;
    *"add the ril property"*)
        echo ril ;;
    *"complete CMD_SYNC by MSI"*)
        echo msi sev ;;
    *"retire commands at a configured pace"*)
        echo cmdq-cmd-ns cmdq-sync-ns cmdq-cfgi-ns cmdq-tlbi-page-ns \
             cmdq-jitter-ns cmdq-seed ;;
    *"report the command queue's counters"*)
        echo x-cmdq-stats ;;
    esac
}
all_props="cmdqs eventqs ril msi sev cmdq-cmd-ns cmdq-sync-ns cmdq-cfgi-ns
           cmdq-tlbi-page-ns cmdq-jitter-ns cmdq-seed x-cmdq-stats"

git_r am --abort >/dev/null 2>&1 || true
git_r checkout -q -f -B am-test pristine
git_r clean -q -fd

O=$B/series-work/build
if [ $each = 1 ]; then
    qemu_cc "$B/series-work"
    # smmulab's device set (a build configuration, not part of the series)
    dev=configs/devices/aarch64-softmmu/smmulab.mak
    mkdir -p "$O"
fi

have=""
k=0
start=$SECONDS
for p in "${series[@]}"; do
    k=$((k + 1))
    if ! git_r am -q "$p" >"$LOGS/series-am.log" 2>&1; then
        cat "$LOGS/series-am.log" >&2
        die "git am refuses $(basename "$p") on QEMU + the patches before it"
    fi
    subj=$(git_r log -1 --format=%s)
    # A real author and Signed-off-by (the DCO), never a placeholder
    who=$(git_r log -1 --format='%an <%ae>')
    case $who in *localhost*|*example.com*|"<>") die "$(basename "$p"): author $who is a placeholder" ;; esac
    git_r log -1 --format=%B | grep -qxF "Signed-off-by: $who" || \
        die "$(basename "$p"): no Signed-off-by of its author $who"
    # QEMU's style checker: errors fail, warnings (e.g. MAINTAINERS for a
    # new file) are shown
    if ! (cd "$R" && perl scripts/checkpatch.pl --no-color "$p") >"$LOGS/series-checkpatch.log" 2>&1; then
        grep -B1 -A4 '^ERROR' "$LOGS/series-checkpatch.log" >&2 || cat "$LOGS/series-checkpatch.log" >&2
        die "checkpatch.pl: errors in $(basename "$p")"
    fi
    warn=$(grep -c '^WARNING' "$LOGS/series-checkpatch.log" || true)
    have="$have $(props_of "$subj")"
    log "$(printf '%04d' $k) applies, checkpatch 0 errors, $warn warning(s): $subj"
    [ $each = 1 ] || continue

    # Build this point of the series
    # (only when it differs: a new mtime regenerates the build, and the
    # first regeneration of a tree with .git turns configure's
    # --disable-werror into meson's werror=true, which rebuilds it all)
    cmp -s "$SMMULAB_ROOT/$dev" "$R/$dev" || cp "$SMMULAB_ROOT/$dev" "$R/$dev"
    qemu_fake_firmware "$R"
    if [ ! -f "$O/build.ninja" ]; then
        mapfile -t cargs < <(qemu_configure_args)
        (cd "$O" && run_logged "$LOGS/series-configure.log" "QEMU configure (series)" \
            "$R/configure" --cc="$cc" "${cargs[@]}" --with-pkgversion=smmulab-series)
    fi
    targets=(qemu-system-aarch64)
    qtest=0
    if [ -f "$R/tests/qtest/smmuv3-cmdq-test.c" ]; then
        targets+=(tests/qtest/smmuv3-cmdq-test)
        qtest=1
    fi
    unit=0
    if [ -f "$R/tests/unit/test-smmuv3-cmdq-timing.c" ]; then
        targets+=(tests/unit/test-smmuv3-cmdq-timing)
        unit=1
    fi
    ninja_progress "$LOGS/series-build.log" "building after $(printf '%04d' $k)" \
        -C "$O" -j "$SMMULAB_JOBS" "${targets[@]}"
    help=$("$O/qemu-system-aarch64" -device arm-smmuv3,help 2>&1)
    for prop in $all_props; do
        if grep -q "^  $prop=" <<<"$help"; then
            case " $have " in
            *" $prop "*) ;;
            *) die "after $(printf '%04d' $k): property $prop exists before the patch that implements it" ;;
            esac
        else
            case " $have " in
            *" $prop "*) die "after $(printf '%04d' $k): property $prop missing" ;;
            esac
        fi
    done
    log "$(printf '%04d' $k) builds; properties:${have:- none yet}"
    if [ $unit = 1 ]; then
        "$O/tests/unit/test-smmuv3-cmdq-timing" --tap >"$LOGS/series-unit.log" 2>&1 || {
            grep '^not ok' "$LOGS/series-unit.log" >&2 || tail -20 "$LOGS/series-unit.log" >&2
            die "after $(printf '%04d' $k): test-smmuv3-cmdq-timing fails; log: $LOGS/series-unit.log"
        }
        log "$(printf '%04d' $k) test-smmuv3-cmdq-timing: $(grep -c '^ok' "$LOGS/series-unit.log") passed"
    fi
    if [ $qtest = 1 ]; then
        (cd "$O" && QTEST_QEMU_BINARY=./qemu-system-aarch64 \
            tests/qtest/smmuv3-cmdq-test --tap >"$LOGS/series-qtest.log" 2>&1) || {
            grep '^not ok' "$LOGS/series-qtest.log" >&2 || tail -20 "$LOGS/series-qtest.log" >&2
            die "after $(printf '%04d' $k): smmuv3-cmdq-test fails; log: $LOGS/series-qtest.log"
        }
        log "$(printf '%04d' $k) smmuv3-cmdq-test: $(grep -c '^ok' "$LOGS/series-qtest.log") passed"
    fi
done

# The series' result is the tree the project built and tested, but for
# smmulab's local patches (patches/qemu/local/), taken back out of a copy
# of the files they touch
mapfile -t changed < <(git_r diff --name-only pristine HEAD)
mapfile -t overlay < <(series_files)
shopt -s nullglob
local_patches=("$SMMULAB_ROOT"/patches/qemu/local/*.patch)
shopt -u nullglob
L=$B/series-work/local-reversed
rm -rf "$L"
mkdir -p "$L"
declare -A in_local=()
for lp in "${local_patches[@]}"; do
    for f in $(sed -n 's,^+++ b/,,p' "$lp"); do
        if [ -z "${in_local[$f]:-}" ]; then
            mkdir -p "$L/$(dirname "$f")"
            cp "$W/$f" "$L/$f"
            in_local[$f]=1
        fi
    done
done
for ((i = ${#local_patches[@]} - 1; i >= 0; i--)); do
    patch -d "$L" -p1 -R --batch --quiet <"${local_patches[$i]}" || \
        die "$(basename "${local_patches[$i]}") does not come back out of the built tree"
done
ndiff=0
for f in $(printf '%s\n' "${changed[@]}" "${overlay[@]}" | sort -u); do
    built=$W/$f
    [ -z "${in_local[$f]:-}" ] || built=$L/$f
    if ! cmp -s "$R/$f" "$built"; then
        echo "differs from the built tree: $f" >&2
        ndiff=$((ndiff + 1))
    fi
done
[ $ndiff = 0 ] || die "$ndiff file(s) of the series differ from $W"
log "git am of ${#series[@]} patches gives the built tree (${#changed[@]} files) in $((SECONDS - start)) s"
