#!/usr/bin/env python3
"""Smoke test: the torch-exported models lower to linalg completely.

usage: lower_models.py --tandemc BIN --opt TANDEM_OPT --models DIR [NAME...]

For each DIR/NAME.onnx that exists (with its NAME.shape flags), imports the
model with `tandemc --emit=mlir --compile-to=graph`, runs
`tandem-opt -tandem-lower-to-linalg`, and checks that the pass succeeds and
that no tandem op but tandem.transfer is left. Models that are absent are
skipped. Prints "lowered-models: N passed, M failed, K skipped".
"""
import argparse
import os
import re
import subprocess
import sys

DEFAULT = ["resnet18", "mobilenet_v2", "transformer_encoder", "mlp",
           "bert_block"]


def check(args, name):
    onnx_path = os.path.join(args.models, name + ".onnx")
    flags = open(os.path.join(args.models, name + ".shape")).read().split()
    graph = subprocess.run([args.tandemc, onnx_path, "--emit=mlir",
                            "--compile-to=graph"] + flags,
                           capture_output=True, text=True, timeout=600)
    if graph.returncode != 0:
        return "tandemc failed: " + graph.stderr.strip()[:2000]
    lowered = subprocess.run([args.opt, "-tandem-lower-to-linalg"],
                             input=graph.stdout, capture_output=True,
                             text=True, timeout=600)
    if lowered.returncode != 0:
        return "lowering failed: " + lowered.stderr.strip()[:2000]
    ops = set(re.findall(r"\b(tandem\.[a-z_0-9]+)\b", lowered.stdout))
    left = sorted(op for op in ops
                  if op not in ("tandem.transfer", "tandem.kernel",
                                "tandem.device", "tandem.partition"))
    if left:
        return "tandem ops left after lowering: " + ", ".join(left)
    count = len(re.findall(r"= linalg\.", lowered.stdout))
    if count == 0:
        return "no linalg op produced"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--opt", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    passed = failed = skipped = 0
    for name in args.names or DEFAULT:
        if not os.path.exists(os.path.join(args.models, name + ".onnx")):
            print(f"SKIP: {name} (not in {args.models})")
            skipped += 1
            continue
        problem = check(args, name)
        if problem:
            print(f"FAIL: {name}: {problem}")
            failed += 1
        else:
            print(f"PASS: {name}")
            passed += 1
    print(f"lowered-models: {passed} passed, {failed} failed, "
          f"{skipped} skipped")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
