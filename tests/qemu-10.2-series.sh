#!/bin/bash
# The QEMU 10.2 copy of the hook patches (patches/qemu-10.2/), without
# building: it carries the same changes as patches/qemu/
# (scripts/series-mirror.py, its amendments aside), and it and 10.2's
# build fix (compat/) apply with no fuzz to the 10.2 source when that is in the cache (SKIP
# otherwise: no download here).  TAP output.  The build and the qtests on
# 10.2 are make check-qemu-10.2 (docs/testing.md).
#
#   tests/qemu-10.2-series.sh BUILDDIR
set -uo pipefail
B=$(cd "${1:?usage: qemu-10.2-series.sh BUILDDIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
n=0
fails=0
tmp=$(mktemp -d "$B/qemu-10.2-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }

# 1. The same changes as patches/qemu/
if python3 "$ROOT/scripts/series-mirror.py" "$ROOT" >"$tmp/mirror" 2>&1; then
    ok "$(tail -n1 "$tmp/mirror")"
else
    sed 's/^/# /' "$tmp/mirror"
    notok "patches/qemu-10.2/ does not mirror patches/qemu/"
fi

# 2. They apply to the cached 10.2 source with no fuzz: the files they
# touch copied out, patched in order
shopt -s nullglob
patches=("$ROOT"/patches/qemu-10.2/*.patch "$ROOT"/patches/qemu-10.2/compat/*.patch)
shopt -u nullglob
if ! src=$(env -u QEMU_SRC "$ROOT/scripts/qemu-src.sh" --release 10.2 --cached 2>/dev/null | tail -n1) || \
   [ ! -d "$src" ]; then
    skip "no QEMU 10.2.x source in the cache (make check-qemu-10.2 fetches it)"
else
    mkdir -p "$tmp/tree"
    for f in $(sed -n 's,^--- a/,,p' "${patches[@]}" | sort -u); do
        if [ -f "$src/$f" ]; then
            mkdir -p "$tmp/tree/$(dirname "$f")"
            cp "$src/$f" "$tmp/tree/$f"
        fi
    done
    bad=
    for p in "${patches[@]}"; do
        if ! patch -d "$tmp/tree" -p1 --batch --forward --fuzz=0 <"$p" >"$tmp/patch.log" 2>&1; then
            sed 's/^/# /' "$tmp/patch.log"
            bad=${p#"$ROOT"/}
            break
        fi
    done
    if [ -z "$bad" ]; then
        ok "the ${#patches[@]} patches of patches/qemu-10.2/ apply to QEMU $(cat "$src/VERSION") with no fuzz"
    else
        notok "$bad does not apply to QEMU $(cat "$src/VERSION") with no fuzz"
    fi
fi

echo "1..$n"
[ $fails = 0 ]
