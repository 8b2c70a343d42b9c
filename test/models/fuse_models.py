#!/usr/bin/env python3
"""Integration test: fuses the torch-exported models with tandemc.

usage: fuse_models.py --tandemc BIN --models DIR [--table] [NAME...]

For each DIR/NAME.onnx (with its NAME.shape flags) runs
`tandemc --emit=mlir --compile-to=fused --fusion-report=...` and checks that
every op except constants and transfers sits in a tandem.fusion, that the
report's kernel count is the number of fusions, and, for the models below,
the kernel count and the shape of the fusions derived from the architecture.
Prints "fuse-models: N passed, M failed"; with --table, also the Markdown
table of docs/Fusion.md (model, ops before fusion, kernels, kinds).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

# Kernel counts derived from the architectures (see docs/Fusion.md):
# - ResNet-18: 20 convs (BN folded into their bias by the exporter), each an
#   output fusion with its ReLU, and the residual Add + ReLU in the second
#   conv of each of the 8 blocks (the 3 downsample convs stay alone); the
#   max pool; global average pool + flatten; the fc Gemm: 20 + 1 + 1 + 1.
# - MobileNetV2: 52 convs, each an output fusion with its ReLU6 (Clip) or,
#   for the 10 residual blocks' projection convs, the residual Add; global
#   average pool + flatten; the classifier Gemm: 52 + 1 + 1.
# - Transformer encoder layer (opset 14, LayerNorm decomposed): input
#   reshape; QKV matmul + bias; the Q/K/V split, head reshapes, transposes
#   and 1/sqrt(d) scaling as one multi-output loop fusion; Q.K^T matmul;
#   softmax; attention.V matmul; head merge (transpose + reshape); output
#   projection Gemm + residual Add; LayerNorm 1; linear1 + bias + ReLU;
#   linear2 + bias + residual Add; LayerNorm 2: 12.
EXPECTED_KERNELS = {
    "resnet18": 23,
    "mobilenet_v2": 54,
    "transformer_encoder": 12,
}


def run_tandemc(tandemc, models, name, workdir):
    onnx_path = os.path.join(models, name + ".onnx")
    flags = open(os.path.join(models, name + ".shape")).read().split()
    report_path = os.path.join(workdir, name + ".json")
    proc = subprocess.run([tandemc, onnx_path, "--emit=mlir",
                           "--compile-to=fused",
                           "--fusion-report=" + report_path,
                           "--mlir-elide-resource-strings-if-larger=16"]
                          + flags, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return None, None, "tandemc failed: " + proc.stderr.strip()[:2000]
    report = json.load(open(report_path))["functions"][0]
    return proc.stdout, report, None


def top_level_ops(ir):
    """Op names directly in the function body (4-space indent)."""
    ops = []
    for line in ir.splitlines():
        m = re.match(r"^    (?:%\S+ = )?([a-z_]+\.[a-z_0-9]+)", line)
        if m:
            ops.append(m.group(1))
    return ops


def members_of(report, pattern):
    """The fusions with a member whose node name matches `pattern`."""
    return [(m, f) for f in report["fusions"] for m in f["members"]
            if re.search(pattern, m)]


def check_resnet18(ir, report):
    convs = members_of(report, r"/Conv$")
    if len(convs) != 20:
        return "expected 20 convs in fusions, found %d" % len(convs)
    for conv, fusion in convs:
        if fusion["kind"] != "output":
            return "%s is in a %s fusion" % (conv, fusion["kind"])
        relus = [m for m in fusion["members"] if m.endswith("/Relu")]
        if "downsample" in conv:
            if fusion["members"] != [conv]:
                return "downsample %s fused with %s" % (conv,
                                                        fusion["members"])
        elif len(relus) != 1:
            return "%s's fusion %s lacks its ReLU" % (conv, fusion["members"])
    for add, fusion in members_of(report, r"/Add$"):
        kinds = [m.rsplit("/", 1)[1] for m in fusion["members"]]
        if fusion["kind"] != "output" or kinds != ["Conv", "Add", "Relu"]:
            return "residual %s is in %s" % (add, fusion["members"])
    relus = members_of(report, r"/Relu$")
    if len(relus) != 17 or any(f["kind"] != "output" for _, f in relus):
        return "not every ReLU is a conv epilogue"
    # BatchNorm is folded into the conv's bias operand by the exporter.
    conv_lines = [l for l in ir.splitlines() if "tandem.conv2d" in l]
    if len(conv_lines) != 20 or any(
            not re.search(r"tandem\.conv2d %\w+, %\w+, %\w+ ", l)
            for l in conv_lines):
        return "a conv lost its folded-BN bias"
    return None


def check_mobilenet_v2(ir, report):
    convs = members_of(report, r"/Conv$")
    if len(convs) != 52 or any(f["kind"] != "output" for _, f in convs):
        return "expected 52 convs, each in an output fusion"
    for op in ("Clip", "Add"):
        for member, fusion in members_of(report, "/%s$" % op):
            if not any(m.endswith("/Conv") for m in fusion["members"]):
                return "%s is not a conv epilogue" % member
    if len(members_of(report, r"/Clip$")) != 35:
        return "expected 35 ReLU6"
    return None


def check_transformer_encoder(ir, report):
    kinds = collections.Counter(f["kind"] for f in report["fusions"])
    if kinds != {"output": 6, "input": 3, "loop": 2, "multi_output": 1}:
        return "unexpected fusion kinds %s" % dict(kinds)
    for norm in ("norm1", "norm2"):
        fusions = {id(f): f for _, f in members_of(report, "/%s/" % norm)}
        if len(fusions) != 1:
            return "the decomposed %s spans %d fusions" % (norm, len(fusions))
        fusion = list(fusions.values())[0]
        if fusion["kind"] != "input" or len(fusion["members"]) != 9:
            return "%s is %s" % (norm, fusion["members"])
    return None


CHECKS = {
    "resnet18": check_resnet18,
    "mobilenet_v2": check_mobilenet_v2,
    "transformer_encoder": check_transformer_encoder,
}


def check(ir, report, name):
    stray = sorted(set(op for op in top_level_ops(ir) if op not in (
        "tandem.constant", "tandem.fusion", "tandem.transfer")))
    if stray:
        return "ops outside fusions: " + ", ".join(stray)
    fusions = top_level_ops(ir).count("tandem.fusion")
    if fusions != report["kernels"]:
        return "report says %d kernels, the IR has %d fusions" % (
            report["kernels"], fusions)
    expected = EXPECTED_KERNELS.get(name)
    if expected is not None and report["kernels"] != expected:
        return "expected %d kernels, got %d" % (expected, report["kernels"])
    if name in CHECKS:
        return CHECKS[name](ir, report)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--table", action="store_true",
                        help="print the kernel-count table of docs/Fusion.md")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or sorted(EXPECTED_KERNELS)
    passed = failed = 0
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            ir, report, problem = run_tandemc(args.tandemc, args.models, name,
                                              workdir)
            if not problem:
                problem = check(ir, report, name)
                kinds = collections.Counter(f["kind"]
                                            for f in report["fusions"])
                rows.append((name, report["ops"], report["kernels"], kinds))
            if problem:
                failed += 1
                print("FAIL %s: %s" % (name, problem))
            else:
                passed += 1
                print("PASS %s: %d ops -> %d kernels" % (
                    name, report["ops"], report["kernels"]))
    if args.table:
        print("| model | ops before fusion | kernels | loop | input | "
              "output | multi_output |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, ops, kernels, kinds in rows:
            print("| %s | %d | %d | %d | %d | %d | %d |" % (
                name, ops, kernels, kinds["loop"], kinds["input"],
                kinds["output"], kinds["multi_output"]))
    print("fuse-models: %d passed, %d failed" % (passed, failed))
    return 1 if failed or not names else 0


if __name__ == "__main__":
    sys.exit(main())
