#!/bin/bash
# The bisect end to end (make check-bisect, docs/testing.md): on a small
# history of its own (tests/bisect-history.sh: Debian's 6.12, the kit's
# series as commits, a planted lockup, two harmless commits),
# scripts/smmulab-bisect.sh with tests/scenarios/bisect.ini must name the
# planted commit, write its log and a report per step, and leave the tree
# as it was; a second bisect of the same history must take the same steps
# to the same decisions.  TAP output.
#
#   tests/bisect-e2e.sh BUILDDIR
set -uo pipefail
B=$(cd "${1:?usage: bisect-e2e.sh BUILDDIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

T=$B/bisect-linux
OUT=$B/bisect-e2e
hist=$(nice -n 10 "$ROOT/tests/bisect-history.sh" "$T" | tail -n 3) || {
    echo "Bail out! the test's history could not be made"
    exit 1
}
read -r good bad planted <<<"$(echo $hist)"
echo "# history: good ${good:0:12}, bad ${bad:0:12}, planted ${planted:0:12}"
head0=$(git -C "$T" rev-parse HEAD)
branch0=$(git -C "$T" symbolic-ref -q HEAD)

t0=$(date +%s)
BISECT_NICE=10 "$ROOT/scripts/smmulab-bisect.sh" --build "$B" --out "$OUT" \
    "$T" "$good" "$bad" "$ROOT/tests/scenarios/bisect.ini" 2>&1 | sed 's/^/# /'
rc=${PIPESTATUS[0]}
t1=$(date +%s)
echo "# the bisect took $((t1 - t0)) s"

[ $rc = 0 ] && ok "the bisect ended (rc 0)" || notok "the bisect failed (rc $rc)"
first=$(sed -n 's/^first bad commit: \([0-9a-f]*\).*/\1/p' "$OUT/result.txt" 2>/dev/null)
if [ -n "$first" ] && [ "$first" = "$planted" ]; then
    ok "it names the planted commit ${planted:0:12}"
else
    notok "it names '${first:-nothing}', not the planted commit $planted"
fi
grep -q "^# first bad commit: \[$planted\]" "$OUT/bisect.log" 2>/dev/null &&
    ok "bisect.log (git bisect log) says so" || notok "bisect.log missing or without the planted commit"
steps=$(ls -d "$OUT"/steps/*/ 2>/dev/null | wc -l)
reports=$(ls "$OUT"/steps/*/report.txt 2>/dev/null | wc -l)
lines=$(grep -cE '^[0-9a-f]{12} (good|bad|skip)' "$OUT/summary.txt" 2>/dev/null)
if [ "$steps" -gt 0 ] && [ "$reports" = "$steps" ] && [ "$lines" = "$steps" ]; then
    ok "$steps steps, each with report.txt and a summary line"
else
    notok "steps $steps, reports $reports, summary lines ${lines:-0}"
fi
sed 's/^/#   /' "$OUT/summary.txt" 2>/dev/null
if [ "$(git -C "$T" rev-parse HEAD)" = "$head0" ] &&
    [ "$(git -C "$T" symbolic-ref -q HEAD)" = "$branch0" ] &&
    [ ! -e "$T/.git/BISECT_START" ] && [ -z "$(git -C "$T" status --porcelain --untracked-files=no)" ]; then
    ok "the tree is back where it was, not bisecting, clean"
else
    notok "the tree was not restored"
fi
# The same bisect again (the step kernels come out of ccache): seeded
# icount repeats make every step's runs, p values and decisions the same
t0=$(date +%s)
BISECT_NICE=10 "$ROOT/scripts/smmulab-bisect.sh" --build "$B" --out "$OUT-again" \
    "$T" "$good" "$bad" "$ROOT/tests/scenarios/bisect.ini" >"$B/logs/bisect-again.log" 2>&1
rc=$?
t1=$(date +%s)
echo "# the second bisect took $((t1 - t0)) s"
if [ $rc = 0 ] && cmp -s "$OUT/summary.txt" "$OUT-again/summary.txt" &&
    cmp -s "$OUT/result.txt" "$OUT-again/result.txt"; then
    ok "a second bisect of the same history takes the same steps with the same n, p values and decisions, and names the same commit"
else
    notok "the second bisect differs (rc $rc): $(diff "$OUT/summary.txt" "$OUT-again/summary.txt" 2>&1 | tr '\n' ' ')"
fi
# ... from the same kernels, bit for bit, and so the same runs: every
# figure of every step's comparison (the reports' lines but for paths)
same=0
diffs=""
for k in good-kernel/Image bad-kernel/Image $(cd "$OUT" && ls steps/*/Image); do
    if cmp -s "$OUT/$k" "$OUT-again/$k"; then
        same=$((same + 1))
    else
        diffs+=" $k"
    fi
done
strip() {
    grep -vE '^  (smmulab-bisect: |scenario |built from: |host: )' "$1" |
        sed "s#$OUT-again/#$OUT/#g"
}
for r in $(cd "$OUT" && ls steps/*/report.txt); do
    cmp -s <(strip "$OUT/$r") <(strip "$OUT-again/$r") || diffs+=" $r"
done
if [ -z "$diffs" ] && [ $same -gt 2 ]; then
    ok "both bisects built the same $same kernel Images and every step's report has the same figures"
else
    notok "the two bisects differ in:$diffs"
fi
echo "1..$n"
[ $fails = 0 ]
