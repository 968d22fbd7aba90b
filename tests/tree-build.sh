#!/bin/bash
# A kernel built by scripts/build-kernel.sh --tree, booted: its compare.ini
# (the kit's kernel against it) runs, and the report says whether that
# kernel has the kit's series as DIR/guest/series says it was built.
# make check-tree TREE=DIR runs it after the build.  TAP output.
#
#   tests/tree-build.sh BUILDDIR TREEBUILD
set -uo pipefail
B=${1:?usage: tree-build.sh BUILDDIR TREEBUILD}
T=$(cd "${2:?usage: tree-build.sh BUILDDIR TREEBUILD}" && pwd)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

series=$(cat "$T/guest/series")
out=$T/report
rm -rf "$out"
"$B/runner/smmulab-run" --build "$B" --out "$out" "$T/compare.ini" >"$T/logs/check-tree.log" 2>&1
rc=$?
txt=$out/report.txt
if [ $rc = 0 ] && grep -q '^  runs: 2 of 2 ok$' "$txt"; then
    ok "compare.ini: both kernels ran ($(grep -h '^RESULT workload=' "$out"/*tree*.log | head -n1 | cut -c1-60))"
else
    notok "compare.ini: smmulab-run exit $rc, $(grep '^  runs:' "$txt" 2>/dev/null); log $T/logs/check-tree.log"
fi
# the tree variant's kernel version and how many driver counters it gave
read -r version counters < <(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    if r["variant"] == "tree":
        print(r.get("kernel_version"), len(r.get("kernel", {})))' "$out/runs.json")
line=$(grep "^  kernel without the kit's series" "$txt")
case $series in
applied*)
    if [ -z "$line" ] && [ "${counters:-0}" -gt 0 ] &&
       grep -q 'arm-smmu-v3 .*: cmdq_lock=fair ' "$out"/*-tree-rep1.log; then
        ok "Linux $version, series $series: its variant line, $counters driver counters, no 'without' line"
    else
        notok "Linux $version, series $series: $counters driver counters; report says '$line'"
    fi
    ;;
*)
    if echo "$line" | grep -q ": tree (Linux $version)$" && [ "$counters" = 0 ]; then
        ok "Linux $version, series $series: the report says so: $line"
    else
        notok "Linux $version, series $series: no line naming variant tree alone: '$line'"
    fi
    ;;
esac
echo "report: $txt"
echo "1..$n"
[ $fails = 0 ]
