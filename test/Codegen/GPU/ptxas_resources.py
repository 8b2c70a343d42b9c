#!/usr/bin/env python3
"""Register and local-memory use of every kernel of a PTX file, from
`ptxas -v`: checks that no kernel spills (spill stores or loads), uses a
stack frame (local memory), or needs more than --max-registers registers
per thread (which would cap occupancy).

usage: ptxas_resources.py --ptxas BIN --arch sm_XX [--max-registers N] PTX

Prints "ptxas resources: K kernels, max R registers, S spilling, F with a
stack frame, O over N registers" and one line per offending kernel; exits 1
when any kernel offends or ptxas fails.
"""
import argparse
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--max-registers", type=int, default=128)
    parser.add_argument("ptx")
    args = parser.parse_args()
    proc = subprocess.run([args.ptxas, "-v", "-arch=" + args.arch, args.ptx,
                           "-o", "/dev/null"], capture_output=True, text=True)
    if proc.returncode != 0:
        print("ptxas failed: " + proc.stderr.strip()[-2000:])
        return 1
    kernels = {}
    current = None
    for line in proc.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
            kernels[current] = {"registers": 0, "spill": 0, "stack": 0}
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                      r"(\d+) bytes spill loads", line)
        if m:
            kernels[current]["stack"] = int(m.group(1))
            kernels[current]["spill"] = int(m.group(2)) + int(m.group(3))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            kernels[current]["registers"] = int(m.group(1))
    if not kernels:
        print("ptxas resources: no kernel in " + args.ptx)
        return 1
    spilling = [k for k, v in kernels.items() if v["spill"]]
    stacked = [k for k, v in kernels.items() if v["stack"]]
    over = [k for k, v in kernels.items()
            if v["registers"] > args.max_registers]
    print("ptxas resources: %d kernels, max %d registers, %d spilling, %d "
          "with a stack frame, %d over %d registers" % (
              len(kernels), max(v["registers"] for v in kernels.values()),
              len(spilling), len(stacked), len(over), args.max_registers))
    for name in sorted(set(spilling + stacked + over)):
        v = kernels[name]
        print("  %s: %d registers, %d bytes spilled, %d bytes stack" % (
            name, v["registers"], v["spill"], v["stack"]))
    return 1 if spilling or stacked or over else 0


if __name__ == "__main__":
    sys.exit(main())
