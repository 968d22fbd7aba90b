#!/bin/bash
# Runner tests without booting: scenario validation (good and bad files),
# reports made again from recorded runs and compared with golden files,
# command line errors.  TAP output.
#
#   tests/runner.sh BUILDDIR
set -uo pipefail
B=${1:?usage: runner.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN=$(cd "$B" && pwd)/runner/smmulab-run
cd "$ROOT"
n=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

for f in configs/*.ini tests/scenarios/good-*.ini; do
    [ "$f" = configs/topologies.ini ] && continue
    if out=$("$RUN" --check "$f" 2>&1); then
        ok "$f is valid: $(echo "$out" | head -n1 | sed 's/^[^:]*: ok: //')"
    else
        notok "$f: $out"
    fi
done

for f in tests/scenarios/bad-*.ini; do
    want=$(sed -n 's/^# expect: //p' "$f")
    "$RUN" --check "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc = 2 ] && [ "$lines" = 1 ] && grep -qF -- "$want" "$tmp/err" && \
       [ ! -s "$tmp/out" ]; then
        ok "$f rejected: $(cat "$tmp/err")"
    else
        notok "$f: exit $rc, $lines line(s) on stderr, want one line with '$want': $(cat "$tmp/err")"
    fi
done

"$RUN" --check tests/scenarios/nonexistent.ini >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q 'nonexistent.ini' "$tmp/err"; then
    ok "missing scenario file: $(cat "$tmp/err")"
else
    notok "missing scenario file: exit $rc: $(cat "$tmp/err")"
fi
"$RUN" --report "$tmp" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q 'runs.json' "$tmp/err"; then
    ok "--report without runs.json: $(cat "$tmp/err")"
else
    notok "--report without runs.json: exit $rc: $(cat "$tmp/err")"
fi

# Every ini block of the docs loads as it is
for doc in README.md docs/*.md; do
    awk -v out="$tmp/snippet-$(basename "$doc" .md)" '
        /^```ini$/ { f = out "-" ++k ".ini"; inblock = 1; next }
        /^```$/ { inblock = 0 }
        inblock { print > f }' "$doc"
done
for f in "$tmp"/snippet-*.ini; do
    [ -e "$f" ] || continue
    if out=$("$RUN" --check "$f" 2>&1); then
        ok "docs snippet $(basename "$f") loads: $(echo "$out" | head -n1 | sed 's/^[^:]*: ok: //')"
    else
        notok "docs snippet $(basename "$f"): $out"
    fi
done

# Golden reports: remade from recorded runs, byte for byte
for g in tests/golden/*/; do
    name=$(basename "$g")
    mkdir -p "$tmp/$name"
    cp "$g/runs.json" "$tmp/$name/"
    if ! "$RUN" --report "$tmp/$name" >"$tmp/$name.out" 2>&1; then
        notok "golden $name: smmulab-run --report failed: $(cat "$tmp/$name.out")"
        continue
    fi
    for f in report.txt report.json report.svg report.html; do
        if cmp -s "$g/$f" "$tmp/$name/$f"; then
            ok "golden $name: $f as recorded"
        else
            notok "golden $name: $f differs: $(diff "$g/$f" "$tmp/$name/$f" | head -n 5 | tr '\n' ' ')"
        fi
    done
done

# report.html read by a browser: the primary verdict first and coloured,
# real tables, rows zero in every column folded, evidence collapsible
# (Debian's chromium, headless; the golden report with a DIFFERENT primary)
if command -v chromium >/dev/null; then
    g=tests/golden/control-lockup
    timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom \
        "file://$ROOT/$g/report.html" >"$tmp/dom.html" 2>/dev/null
    first_h2=$(grep -o '<h2>[^<]*</h2>' "$tmp/dom.html" | head -n1)
    if [ "$first_h2" = "<h2>Primary endpoint</h2>" ] && \
       grep -q 'class="primary differs" data-bg="rgb(253, 236, 234)"' "$tmp/dom.html" && \
       [ "$(grep -c '<table class="metrics">' "$tmp/dom.html")" -ge 2 ] && \
       grep -q '<details class="zero-rows"><summary>[0-9]* row(s) zero in every column' "$tmp/dom.html" && \
       grep -q '<details class="evidence"><summary>legacy rep 1: ' "$tmp/dom.html" && \
       grep -q '<table class="exploratory">' "$tmp/dom.html" && \
       ! grep -q '<pre>smmulab report' "$tmp/dom.html"; then
        ok "report.html in chromium: primary verdict first, coloured; tables; zero rows folded; evidence collapsible"
    else
        notok "report.html in chromium: first heading '$first_h2'; $(grep -o 'class="primary[^>]*' "$tmp/dom.html" | head -n1)"
    fi
else
    ok "# SKIP report.html in chromium: chromium not installed"
fi

echo "1..$n"
[ $fails = 0 ]
