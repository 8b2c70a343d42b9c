#!/usr/bin/env python3
"""The static GPU plan of the models: for each, compiled with every op on
one GPU (--target=cpu,gpu:PRESET --place '*=gpu'), the kernel launches and
library calls per run and their estimated time on the preset, from
`tandemc --kernel-report` (roofline estimates; nothing runs on a GPU).

usage: bench/gpu_plan.py [--tandemc BIN] [--gpu h200] [--work DIR] [--flag F]...
                         MODEL.onnx[:SHAPE_FILE] ...

SHAPE_FILE defaults to MODEL.shape beside the model (tandemc flags, as
test/models/generate_torch_models.py writes them). Prints a Markdown table:
model, kernel launches, library GEMMs, library convolutions, estimated
compute time (us), copies and their estimated time (us).
"""
import argparse
import json
import os
import subprocess
import sys


def plan(args, model, shape_file):
    name = os.path.splitext(os.path.basename(model))[0]
    flags = open(shape_file).read().split() if os.path.exists(
        shape_file) else []
    report = os.path.join(args.work, name + ".json")
    cmd = [args.tandemc, model, "--target=cpu,gpu:" + args.gpu,
           "--cpu-model=generic", "--place", "*=gpu", "--emit=ptx", "-o",
           os.path.join(args.work, name + ".ptx"), "--kernel-report",
           report] + flags + args.flag
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return "| %s | tandemc failed: %s |" % (
            name, proc.stderr.strip().splitlines()[-1][:200])
    work = [w for m in json.load(open(report)) for w in m["work"]]
    counted = [w for w in work if w["counted"]]
    kernels = [w for w in counted if w["kind"] == "kernel"]
    gemms = [w for w in counted if w["kind"] == "gemm"]
    convs = [w for w in counted if w["kind"] == "conv"]
    copies = [w for w in counted if w["kind"].startswith("copy")]
    compute_us = sum(w["roofline_us"] for w in kernels + gemms + convs)
    gflop = sum(w["flops"] for w in kernels + gemms + convs) / 1e9
    return "| %s | %d | %d | %d | %.3f | %.1f | %d | %.1f |" % (
        name, len(kernels), len(gemms), len(convs), gflop, compute_us,
        len(copies),
        sum(w["roofline_us"] for w in copies))


def main():
    parser = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--tandemc", default=os.path.join(
        here, "..", "build", "bin", "tandemc"))
    parser.add_argument("--gpu", default="h200")
    parser.add_argument("--work", default="/tmp/tandem-gpu-plan")
    parser.add_argument("--flag", action="append", default=[],
                        help="an extra tandemc flag (repeatable), e.g. "
                        "--flag=--gpu-precision=tf32 --flag=--gpu-layout=nchw")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print("| model | kernel launches | library GEMMs | library convs | GFLOP | "
          "estimated compute (us, %s) | copies | estimated copies (us) |" %
          args.gpu)
    print("|---|---|---|---|---|---|---|---|")
    for entry in args.models:
        model, _, shape = entry.partition(":")
        print(plan(args, model, shape or os.path.splitext(model)[0] +
                   ".shape"))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
