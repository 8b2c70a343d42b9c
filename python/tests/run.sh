#!/usr/bin/env bash
# The tandem Python package's tests: installs python/ with pip into a
# scratch directory (the way users install it, with the runtime of BUILD
# copied in), then runs pytest on python/tests against that install,
# including the Ray Serve tests (a local Ray instance on 127.0.0.1).
#
#   python/tests/run.sh [BUILD [WORK]]     default: build build/python-tests
#
# Ends with "python: N passed, M failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
WORK="${2:-$BUILD/python-tests}"
PY="${TANDEM_VENV:-$ROOT/.venv}/bin/python"
rm -rf "$WORK"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"

# --no-build-isolation: the venv's setuptools builds it, no download.
if ! TANDEM_BUILD_DIR="$BUILD" "$PY" -m pip install -q \
    --disable-pip-version-check --no-build-isolation --no-deps \
    --target "$WORK/site" "$ROOT/python" > "$WORK/pip.log" 2>&1; then
  cat "$WORK/pip.log"
  echo "python: 0 passed, 1 failed (pip install ./python)"
  exit 1
fi
# setuptools builds in the source tree; leave it clean.
rm -rf "$ROOT/python/build" "$ROOT/python"/*.egg-info

cd "$WORK"
rc=0
PYTHONPATH="$WORK/site" TANDEM_TEST_INSTALLED=1 \
  RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 timeout 600 "$PY" -m pytest \
  -p no:cacheprovider -rfEs -q --junitxml="$WORK/results.xml" \
  --basetemp="$WORK/tmp" "$ROOT/python/tests" || rc=$?
"$PY" - "$WORK/results.xml" "$rc" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("python: 0 passed, 1 failed (no pytest results)")
    sys.exit(1)
suites = [root] if root.tag == "testsuite" else list(root)
tests = sum(int(s.get("tests", 0)) for s in suites)
failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0))
             for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
if sys.argv[2] != "0" and failed == 0:
    failed = 1
print("python: %d passed, %d failed%s" % (
    tests - failed - skipped, failed,
    " (%d skipped)" % skipped if skipped else ""))
sys.exit(1 if failed else 0)
PYEOF
