#!/usr/bin/env python3
"""Compile time against graph size: tandemc --emit=shared on chains of N
elementwise ops (Add, Mul, Relu, Sub, Tanh on a 1x64 tensor, repeating),
for each N given; prints a Markdown table of the wall time, the phases
that dominate and the peak RSS. Compile time must grow about linearly with
N (docs/Performance.md, "Compile time").

usage: compile_scaling.py [--tandemc BIN] [--work DIR] [N ...]
       (default N: 1000 5000 10000 20000)
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OPS = ["Add", "Mul", "Relu", "Sub", "Tanh"]


def chain(n):
    nodes, prev = [], "x"
    for i in range(n):
        op = OPS[i % len(OPS)]
        out = "t%d" % i
        inputs = [prev] if op in ("Relu", "Tanh") else [prev, "c"]
        nodes.append(helper.make_node(op, inputs, [out]))
        prev = out
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                       [1, 64])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 64])],
        [numpy_helper.from_array(np.full((64,), 0.5, np.float32), "c")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc",
                        default=os.path.join(ROOT, "build", "bin", "tandemc"))
    parser.add_argument("--work",
                        default=os.path.join(ROOT, "build", "bench",
                                             "compile-scaling"))
    parser.add_argument("sizes", nargs="*", type=int,
                        default=[1000, 5000, 10000, 20000])
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print("| nodes | compile s | s per 1000 nodes | bufferized s | lowered s "
          "| LLVM + link s | peak RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        path = os.path.join(args.work, "chain%d.onnx" % n)
        onnx.save(chain(n), path)
        start = time.time()
        proc = subprocess.run([args.tandemc, path, "--emit=shared", "-o",
                               path[:-5] + ".so", "--time-phases"],
                              capture_output=True, text=True)
        seconds = time.time() - start
        if proc.returncode != 0:
            sys.exit("tandemc failed on %d nodes: %s" % (n, proc.stderr))
        phases, rss = {}, 0.0
        for line in (proc.stdout + proc.stderr).splitlines():
            m = re.match(r"phase (\S+)\s+([\d.]+) ms\s+peak RSS\s+([\d.]+) MiB",
                         line)
            if m:
                phases[m.group(1)] = float(m.group(2)) / 1000
                rss = max(rss, float(m.group(3)))
        print("| %d | %.1f | %.2f | %.1f | %.1f | %.1f | %.0f |" % (
            n, seconds, seconds / n * 1000, phases.get("bufferized", 0),
            phases.get("lowered", 0), phases.get("link", 0), rss))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
