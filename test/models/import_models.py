#!/usr/bin/env python3
"""Integration test: imports the torch-exported models with tandemc.

usage: import_models.py --tandemc BIN --models DIR [--set ci|full] [NAME...]

For each DIR/NAME.onnx (with its NAME.shape flags) runs
`tandemc --emit=mlir --compile-to=graph` and checks that the result is
static tandem IR: the import succeeds, no i64 shape arithmetic survives, and
every op is a tandem op. Prints "torch-models: N passed, M failed".
"""
import argparse
import os
import re
import subprocess
import sys


def check(tandemc, models, name):
    onnx_path = os.path.join(models, name + ".onnx")
    flags = open(os.path.join(models, name + ".shape")).read().split()
    proc = subprocess.run([tandemc, onnx_path, "--emit=mlir",
                           "--compile-to=graph",
                           "--mlir-elide-resource-strings-if-larger=16"] + flags,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return "tandemc failed: " + proc.stderr.strip()[:2000]
    ir = proc.stdout
    ops = set(re.findall(r"=\s+([a-z_]+\.[a-z_0-9]+)", ir))
    foreign = sorted(op for op in ops if not op.startswith("tandem."))
    if foreign:
        return "non-tandem ops in the graph: " + ", ".join(foreign)
    # Shape subgraphs must have folded away: no op computes on i64 tensors
    # except gathers that index with them.
    for line in ir.splitlines():
        if "xi64>" in line and "tandem.constant" not in line and \
                "tandem.gather" not in line and "tandem.cast" not in line:
            return "shape arithmetic left in the IR: " + line.strip()[:300]
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--set", choices=["ci", "full"])
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names
    if args.set:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import generate_torch_models as models
        names = models.CI_SET if args.set == "ci" else list(models.MODELS)
    if not names:
        names = sorted(f[:-5] for f in os.listdir(args.models)
                       if f.endswith(".onnx"))
    passed = failed = 0
    for name in names:
        problem = check(args.tandemc, args.models, name)
        if problem:
            failed += 1
            print("FAIL %s: %s" % (name, problem))
        else:
            passed += 1
            print("PASS %s" % name)
    print("torch-models: %d passed, %d failed" % (passed, failed))
    return 1 if failed or not names else 0


if __name__ == "__main__":
    sys.exit(main())
