#!/usr/bin/python3
"""Print the closing line of a meson test run, from BUILDDIR/meson-logs/testlog.json:
'N passed, N failed, N skipped' (exit 1 when something failed or nothing ran)."""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "build/meson-logs/testlog.json"
passed = failed = skipped = 0
try:
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line).get("result")
            if r in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r == "SKIP":
                skipped += 1
            else:
                failed += 1
except OSError as e:
    print(f"smmulab: no test log: {e}", file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
