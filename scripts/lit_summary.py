#!/usr/bin/env python3
"""Prints "PASSED FAILED" counts from a lit JSON results file (lit -o)."""
import json
import sys

tests = json.load(open(sys.argv[1]))["tests"]
passed = sum(t["code"] in ("PASS", "XFAIL") for t in tests)
skipped = sum(t["code"] in ("UNSUPPORTED", "SKIPPED") for t in tests)
print(passed, len(tests) - passed - skipped)
