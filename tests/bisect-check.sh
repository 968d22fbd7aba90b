#!/bin/bash
# scripts/smmulab-bisect.sh without booting: its one-line errors on bad
# input, the decision of a step, and the pooled comparisons on recorded
# runs (tests/bisect/: four runs of the test's scenario on a kernel
# without the lockup, four on one with it).  TAP output.  (The bisect
# itself, booted: make check-bisect, docs/testing.md.)
#
#   tests/bisect-check.sh BUILDDIR
set -uo pipefail
B=$(cd "${1:?usage: bisect-check.sh BUILDDIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BI=$ROOT/scripts/smmulab-bisect.sh
H=$ROOT/scripts/bisect-helper.py
RUNNER=$B/runner/smmulab-run
FIX=$ROOT/tests/bisect
n=0
fails=0
tmp=$(mktemp -d "$B/bisect-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

# a two-commit git tree and a scenario with a primary endpoint
G=(git -c user.name=t -c user.email=t@t)
mkdir "$tmp/repo"
(cd "$tmp/repo" && git init -q && echo a >f && git add f && "${G[@]}" commit -qm one &&
    echo b >f && "${G[@]}" commit -qam two)
cat >"$tmp/p.ini" <<'EOF'
[scenario]
primary=runs_with_soft_lockup
repeat=4
[workload]
kind=map-unmap
[variants]
tree=
EOF
grep -v '^primary=' "$tmp/p.ini" >"$tmp/noprimary.ini"
mkdir "$tmp/notgit"

# refuses EXPECT WHAT ARGS...: a non-zero exit, one line on stderr that
# holds EXPECT, the tree left as it was
refuses() {
    local expect=$1 what=$2
    shift 2
    local head0 out rc
    head0=$(git -C "$tmp/repo" rev-parse HEAD)
    out=$("$BI" --build "$B" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ $rc != 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
        [[ $out == *"$expect"* ]] &&
        [ "$(git -C "$tmp/repo" rev-parse HEAD)" = "$head0" ]; then
        ok "$what: $out"
    else
        notok "$what: rc=$rc, wanted one line with '$expect', got: $out"
    fi
}
refuses "not a git work tree" "not a git tree" "$tmp/notgit" HEAD~1 HEAD "$tmp/p.ini"
refuses "unknown commit nope" "unknown commit" "$tmp/repo" nope HEAD "$tmp/p.ini"
refuses "same commit" "good == bad" "$tmp/repo" HEAD "$(git -C "$tmp/repo" rev-parse HEAD)" "$tmp/p.ini"
refuses "no primary=" "scenario without primary=" "$tmp/repo" HEAD~1 HEAD "$tmp/noprimary.ini"
refuses "no variant nope" "unknown variant" --variant nope "$tmp/repo" HEAD~1 HEAD "$tmp/p.ini"
refuses "not an ancestor" "good after bad" "$tmp/repo" HEAD HEAD~1 "$tmp/p.ini"
echo c >"$tmp/repo/f"
refuses "uncommitted changes" "dirty tree" "$tmp/repo" HEAD~1 HEAD "$tmp/p.ini"
git -C "$tmp/repo" checkout -q f

# past the checks: GOOD checked out and built; a tree that does not build
# ends in one line, the tree back on its branch (the EXIT trap)
branch0=$(git -C "$tmp/repo" symbolic-ref HEAD)
out=$("$BI" --build "$B" --out "$tmp/out" "$tmp/repo" HEAD~1 HEAD "$tmp/p.ini" 2>&1 >/dev/null)
rc=$?
if [ $rc != 0 ] && [[ $out == *"does not build"* ]] &&
    [ "$(git -C "$tmp/repo" symbolic-ref -q HEAD)" = "$branch0" ]; then
    ok "GOOD does not build: '$out', the tree back on its branch"
else
    notok "GOOD does not build: rc=$rc '$out', HEAD $(git -C "$tmp/repo" symbolic-ref -q HEAD || echo detached)"
fi

# the decision of a step from its two comparisons
for c in "yes no bad" "no yes good" "no no more" "yes yes more"; do
    set -- $c
    got=$("$H" decide "$1" "$2")
    if [ "$got" = "$3" ]; then
        ok "differs from good: $1, from bad: $2 -> $got"
    else
        notok "differs from good: $1, from bad: $2 -> $got, not $3"
    fi
done

# the pooled comparisons on recorded runs: the exact tests at n=4+4 and
# n=4+8, and the step's decision from them
if [ ! -x "$RUNNER" ]; then
    notok "$RUNNER missing"
else
    pool() { "$H" pool "$RUNNER" "$tmp/$1" "${@:2}"; }
    got=$(pool gb "$FIX/good" -- "$FIX/bad")
    [ "$got" = "yes 0.02857 4 4" ] && ok "good against bad: differ, exact p=2/70 ($got)" ||
        notok "good against bad: '$got', not 'yes 0.02857 4 4'"
    got=$(pool gg "$FIX/good" -- "$FIX/good")
    [ "${got%% *}" = no ] && ok "good against good: no difference ($got)" ||
        notok "good against good: '$got'"
    # a second batch of bad: its runs as bad's, but runs of their own
    # (their RESULT lines differ, as a second batch's would)
    mkdir "$tmp/bad2"
    python3 - "$FIX/bad/runs.json" "$tmp/bad2/runs.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for r in j["runs"]:
    r["result_lines"] = r.get("result_lines", []) + ["batch=2"]
json.dump(j, open(sys.argv[2], "w"))
PY
    got=$(pool gbb "$FIX/good" -- "$FIX/bad" "$tmp/bad2")
    [ "${got% *}" = "yes 0.00202 4" ] && [ "${got##* }" = 8 ] &&
        ok "good against two batches of bad pooled: n=4+8 ($got)" ||
        notok "good against bad pooled n=4+8: '$got', not 'yes 0.00202 4 8'"
    # one batch pooled twice: its runs repeat each other bit for bit, not
    # independent samples, so no verdict (issue 40)
    got=$(pool gbsame "$FIX/good" -- "$FIX/bad" "$FIX/bad")
    [ "${got%% *}" = no ] && ok "one batch of bad pooled twice: no verdict ($got)" ||
        notok "one batch of bad pooled twice: '$got', not 'no ...'"
    # a step whose runs are bad's: bad; good's: good
    read -r dg _ < <(pool s1 "$FIX/good" -- "$FIX/bad")
    read -r db _ < <(pool s2 "$FIX/bad" -- "$FIX/bad")
    got=$("$H" decide "$dg" "$db")
    [ "$got" = bad ] && ok "a step that locks up like bad: bad" || notok "a step like bad: $got"
    read -r dg _ < <(pool s3 "$FIX/good" -- "$FIX/good")
    read -r db _ < <(pool s4 "$FIX/bad" -- "$FIX/good")
    got=$("$H" decide "$dg" "$db")
    [ "$got" = good ] && ok "a step that runs like good: good" || notok "a step like good: $got"
    [ -f "$tmp/s4/report.txt" ] && ok "each comparison writes the runner's report.txt" ||
        notok "no report.txt in a comparison"
fi

echo "1..$n"
[ $fails = 0 ]
