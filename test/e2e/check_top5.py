#!/usr/bin/env python3
"""Runs a deploy program (examples/deploy) and checks its top-5 against a
reference output.

usage: check_top5.py REF.npy [--rtol R] [--atol A] -- PROGRAM [ARGS...]

PROGRAM prints "top-5 of N:" and then one "  INDEX VALUE" line per rank, as
examples/deploy/main.c does. Rank k matches when the reference has VALUE
at INDEX and the reference's k-th largest value is VALUE, both within
|got - ref| <= atol + rtol * |ref| (so near-ties may swap). Prints each rank
next to the reference, then "top-5 matches the reference" and exits 0, or
"top-5 MISMATCH" and exits 1.
"""
import argparse
import subprocess
import sys

import numpy as np


def parse_top5(text):
    lines = text.splitlines()
    header = [i for i, l in enumerate(lines) if l.startswith("top-5 of ")]
    if not header:
        raise ValueError("no 'top-5 of N:' line in the program's output")
    count = int(lines[header[0]][len("top-5 of "):].rstrip(":"))
    ranks = []
    for line in lines[header[0] + 1:header[0] + 1 + min(count, 5)]:
        index, value = line.split()
        ranks.append((int(index), float(value)))
    return count, ranks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ref")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("no program to run")

    proc = subprocess.run(program, capture_output=True, text=True,
                          timeout=600)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        print("top-5 MISMATCH: %s exited with %d" % (program[0],
                                                    proc.returncode))
        return 1
    ref = np.load(args.ref).astype(np.float64).ravel()
    try:
        count, ranks = parse_top5(proc.stdout)
    except ValueError as e:
        print("top-5 MISMATCH: %s" % e)
        return 1
    expected = np.sort(ref)[::-1][:5]
    ok = count == ref.size and len(ranks) == min(ref.size, 5)
    if not ok:
        print("top-5 MISMATCH: %d ranks of %d outputs, expected %d of %d" %
              (len(ranks), count, min(ref.size, 5), ref.size))
        return 1

    def close(got, want):
        return abs(got - want) <= args.atol + args.rtol * abs(want)

    for k, (index, value) in enumerate(ranks):
        good = (0 <= index < ref.size and close(value, ref[index]) and
                close(value, expected[k]))
        ok = ok and good
        print("rank %d: index %d value %.6f, reference index %d value %.6f%s"
              % (k, index, value, int(np.argsort(-ref, kind="stable")[k]),
                 expected[k], "" if good else "  <- MISMATCH"))
    print("top-5 matches the reference" if ok else "top-5 MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
