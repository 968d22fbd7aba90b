#!/bin/bash
# scripts/build-kernel.sh --tree without building a kernel: on small fake
# trees, the kit's series is applied whole or not at all, the user's tree
# stays as it was, a changed tree is prepared again, and what the script
# refuses.  TAP output.  (The real builds: make check-tree, docs/testing.md.)
#
#   tests/tree-series.sh BUILDDIR
set -uo pipefail
B=$(cd "${1:?usage: tree-series.sh BUILDDIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BK=$ROOT/scripts/build-kernel.sh
n=0
fails=0
tmp=$(mktemp -d "$B/tree-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }

# every file of a tree with its contents, inode and time: what "read only"
# must leave as it was
fingerprint() {
    (cd "$1" && find . -type f -printf '%p %i %T@\n' | sort && \
        find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

# fake_tree DIR VERSION PATCHLEVEL: the least build-kernel.sh accepts
fake_tree() {
    mkdir -p "$1/drivers/iommu/arm/arm-smmu-v3"
    printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = 0\n' "$2" "$3" >"$1/Makefile"
    echo '/* not the driver */' >"$1/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c"
}

prepare() {
    "$BK" --tree "$1" --prepare-only "$2" >"$tmp/out" 2>&1
}

# 1. A tree the series does not apply to: built without it, and said so
fake_tree "$tmp/old" 6 1
before=$(fingerprint "$tmp/old")
if prepare "$tmp/old" "$tmp/b-old" &&
   grep -q '^not applied: patches/linux/0001-.* does not apply$' "$tmp/b-old/guest/series" &&
   grep -q "building without the kit's series" "$tmp/out"; then
    ok "a tree the series does not apply to: without it ($(cat "$tmp/b-old/guest/series"))"
else
    notok "a tree the series does not apply to: $(tail -n 3 "$tmp/out" | tr '\n' ' ')"
fi
if [ "$(fingerprint "$tmp/old")" = "$before" ] &&
   [ -z "$(find "$tmp/old" -newer "$tmp/b-old/linux/src/.smmulab-stamp")" ]; then
    ok "the tree is left as it was (contents, inodes, times)"
else
    notok "the tree changed under --tree"
fi

# 2. The tree changes (a file replaced, as editors do): prepared again
sleep 1
echo '/* changed */' >"$tmp/old/new.c" && mv "$tmp/old/new.c" \
    "$tmp/old/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c"
prepare "$tmp/old" "$tmp/b-old"
if grep -q 'changed' "$tmp/b-old/linux/src/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c"; then
    ok "a changed tree is prepared again"
else
    notok "a changed tree is not prepared again: $(tail -n 2 "$tmp/out" | tr '\n' ' ')"
fi

# 3. A tree the series applies to: the files it touches, from the kit's
# own 6.12 (already unpacked when the kit's kernel is built)
pristine=$("$ROOT/scripts/linux-src.sh" 2>/dev/null | tail -n1)
if [ -d "$pristine" ]; then
    fake_tree "$tmp/fit" 6 12
    for f in $(sed -n 's,^+++ b/,,p' "$ROOT"/patches/linux/*.patch | sort -u); do
        [ -f "$pristine/$f" ] || continue
        mkdir -p "$tmp/fit/$(dirname "$f")"
        cp "$pristine/$f" "$tmp/fit/$f"
    done
    before=$(fingerprint "$tmp/fit")
    npatch=$(ls "$ROOT"/patches/linux/*.patch | wc -l)
    if prepare "$tmp/fit" "$tmp/b-fit" &&
       [ "$(cat "$tmp/b-fit/guest/series")" = "applied ($npatch patches)" ] &&
       ! cmp -s "$tmp/fit/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c" \
           "$tmp/b-fit/linux/src/drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c"; then
        ok "a tree the series applies to: applied, all $npatch patches"
    else
        notok "a tree the series applies to: $(cat "$tmp/b-fit/guest/series" 2>/dev/null) $(tail -n 3 "$tmp/out" | tr '\n' ' ')"
    fi
    if [ "$(fingerprint "$tmp/fit")" = "$before" ]; then
        ok "patching the work tree leaves the tree as it was"
    else
        notok "patching the work tree changed the tree (hard links not broken?)"
    fi

    # 4. All or nothing: a tree the first patches apply to and a later one
    # does not gets none of them.  The later one: the last patch to touch
    # a file that no patch before it touches (emptied here, so that every
    # patch before it applies and it does not)
    last= lastfile=
    seen=
    for p in "$ROOT"/patches/linux/*.patch; do
        for f in $(sed -n 's,^+++ b/,,p' "$p"); do
            case " $seen " in *" $f "*) ;; *) last=$p lastfile=$f ;; esac
        done
        seen="$seen $(sed -n 's,^+++ b/,,p' "$p" | tr '\n' ' ')"
    done
    cp -a "$tmp/fit" "$tmp/half"
    : >"$tmp/half/$lastfile"
    if prepare "$tmp/half" "$tmp/b-half" &&
       grep -q "^not applied: patches/linux/$(basename "$last") does not apply$" \
           "$tmp/b-half/guest/series" &&
       diff -r -x '.smmulab-*' "$tmp/half" "$tmp/b-half/linux/src" >/dev/null; then
        ok "a later patch ($(basename "$last")) does not apply: no patch applied (the work tree is the tree)"
    else
        notok "a later patch ($(basename "$last")) does not apply: $(cat "$tmp/b-half/guest/series" 2>/dev/null); work tree differs: $(diff -rq -x '.smmulab-*' "$tmp/half" "$tmp/b-half/linux/src" | head -n 2 | tr '\n' ' ')"
    fi
else
    skip "no unpacked 6.12 tree (scripts/linux-src.sh) for a tree the series applies to"
    skip "patching leaves the tree as it was"
    skip "all or nothing"
fi

# 4b. The series by release: patches/linux-X.Y/ of the newest X.Y not
# after the tree's (7.3's for 7.3 and 7.4), 6.12's otherwise (7.2)
for r in 7.3:linux-7.3 7.4:linux-7.3 7.2:linux; do
    rel=${r%%:*} want=${r#*:}
    fake_tree "$tmp/r$rel" "${rel%%.*}" "${rel#*.}"
    if prepare "$tmp/r$rel" "$tmp/b-r$rel" &&
       grep -q "^not applied: patches/$want/0001-.* does not apply$" "$tmp/b-r$rel/guest/series"; then
        ok "a $rel tree is tried with patches/$want/"
    else
        notok "a $rel tree: $(cat "$tmp/b-r$rel/guest/series" 2>/dev/null), expected patches/$want/"
    fi
done

# 5. What --tree refuses
fake_tree "$tmp/ancient" 5 15
if ! prepare "$tmp/ancient" "$tmp/b-ancient" &&
   grep -q 'Linux 5.15 .*--tree takes 6.1 or later' "$tmp/out"; then
    ok "a 5.15 tree is refused: $(tail -n1 "$tmp/out")"
else
    notok "a 5.15 tree is not refused: $(tail -n1 "$tmp/out")"
fi
if ! prepare "$tmp/old" "$tmp/old/build" &&
   grep -q 'inside --tree' "$tmp/out" && [ ! -e "$tmp/old/build" ]; then
    ok "a build directory inside the tree is refused"
else
    notok "a build directory inside the tree: $(tail -n1 "$tmp/out")"
fi

echo "1..$n"
[ $fails = 0 ]
