#!/usr/bin/env python3
"""Prints "PASSED FAILED" counts from a lit JSON results file (lit -o).

With --failed, prints one "FAIL: NAME (CODE)" line per failing test instead.
"""
import json
import sys

args = sys.argv[1:]
failed_only = "--failed" in args
args = [a for a in args if a != "--failed"]
tests = json.load(open(args[0]))["tests"]
ok = ("PASS", "XFAIL", "UNSUPPORTED", "SKIPPED")
if failed_only:
    for t in tests:
        if t["code"] not in ok:
            print(f"FAIL: {t['name']} ({t['code']})")
    sys.exit(0)
passed = sum(t["code"] in ("PASS", "XFAIL") for t in tests)
skipped = sum(t["code"] in ("UNSUPPORTED", "SKIPPED") for t in tests)
print(passed, len(tests) - passed - skipped)
