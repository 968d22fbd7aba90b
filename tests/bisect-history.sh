#!/bin/bash
# A small Linux history for the bisect test (make check-bisect,
# docs/testing.md): Debian's 6.12 source as the first commit, the kit's
# series (patches/linux/) as commits, one planted commit that brings a soft
# lockup (a 3 s mdelay with interrupts off while owning the command queue,
# every 256th command list), then two harmless commits.
#
#   tests/bisect-history.sh DIR    makes (or reuses) the git tree DIR and
#       prints three lines: GOOD (the 6.12 commit), BAD (the last one) and
#       PLANTED (the commit the bisect must name)
#
# A copy of the cached pristine tree (never links into it: git checkout
# rewrites files).  Made once (minutes: 1.4 GB into git), then reused while
# the series and this script stay the same.
set -euo pipefail
SMMULAB_TAG=bisect-history
. "$(dirname "$0")/../scripts/common.sh"

D=${1:?usage: tests/bisect-history.sh DIR}
G=(git -C "$D" -c gc.auto=0 -c user.name=smmulab -c user.email=smmulab@localhost
   -c core.autocrlf=false -c advice.detachedHead=false)
# what the history is made of: the series and this script (contents only)
stamp=$(cat "$SMMULAB_ROOT"/patches/linux/*.patch "$0" | sha256sum | cut -c1-16)

if [ "$(cat "$D/.git/smmulab-history" 2>/dev/null)" = "$stamp" ]; then
    # reuse: back to the tip, clean
    "${G[@]}" bisect reset >/dev/null 2>&1 || true
    "${G[@]}" checkout -q -f master
else
    src=$("$SMMULAB_ROOT/scripts/linux-src.sh" | tail -n1)
    [ -d "$src" ] || die "no Linux source (scripts/linux-src.sh)"
    log "making $D from $src (minutes, once)"
    rm -rf "$D"
    mkdir -p "$(dirname "$D")"
    cp -a "$src" "$D"
    rm -f "$D/.smmulab-complete"
    "${G[@]}" init -q -b master
    # Debian's .gitignore ignores the top level: add all of it
    "${G[@]}" add -f -A .
    "${G[@]}" commit -q -m "Linux 6.12 (Debian's source, $(basename "$src"))"
    "${G[@]}" tag good
    log "the kit's series as commits"
    "${G[@]}" am -q "$SMMULAB_ROOT"/patches/linux/*.patch
    F=drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c
    python3 - "$D/$F" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
fn = "static int arm_smmu_cmdq_issue_cmdlist("
i = s.index(fn)
s = (s[:i] + "static atomic_t arm_smmu_settle_count;\n\n" + s[i:])
mark = "/* 4. If we are the owner, take control of the SMMU hardware */\n\tif (owner) {\n"
j = s.index(mark, i) + len(mark)
s = (s[:j] +
     "\t\t/* let the hardware settle now and then */\n"
     "\t\tif (!(atomic_inc_return(&arm_smmu_settle_count) % 256))\n"
     "\t\t\tmdelay(3000);\n" + s[j:])
open(p, "w").write(s)
EOF
    "${G[@]}" commit -q -am "iommu/arm-smmu-v3: Let the hardware settle before taking the queue

(planted by smmulab's bisect test: a 3 s delay with interrupts off while
owning the command queue, every 256th command list)"
    "${G[@]}" tag planted
    echo "smmulab bisect test: harmless" >>"$D/README"
    "${G[@]}" commit -q -am "Documentation: a harmless line"
    sed -i '1a # smmulab bisect test: harmless' "$D/scripts/checkpatch.pl"
    "${G[@]}" commit -q -am "checkpatch: a harmless comment"
    echo "$stamp" >"$D/.git/smmulab-history"
fi
"${G[@]}" rev-parse good master planted
