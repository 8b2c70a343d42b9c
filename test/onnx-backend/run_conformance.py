#!/usr/bin/env python3
"""Runs tandemc over the ONNX backend node tests that are in scope.

A node test is in scope when every node in its graph is a default-domain op
that the importer supports (`tandemc --list-onnx-ops`). Each in-scope test
must import (`tandemc --emit=mlir --compile-to=import`), or be listed in
unsupported.txt with the reason. Numeric comparison against the tests'
expected outputs joins once CPU execution exists.

usage: run_conformance.py --tandemc BIN [--work DIR] [--write-docs FILE]
                          [--filter REGEX]

The imported IR goes to DIR/<test>.mlir (a fresh temporary folder, removed
afterwards, when --work is not given).

Prints one line "onnx-backend: N passed, M failed, K unsupported ..." and
exits non-zero on any failure: an in-scope test that does not import and is
not listed, or a listed test that now imports (a stale entry).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))


def node_test_dir():
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test",
                        "data", "node")


def load_unsupported():
    table = {}
    with open(os.path.join(HERE, "unsupported.txt")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(" ")
            table[name] = reason.strip()
    return table


def scope(model_path, supported):
    """Returns (in_scope, ops, opset) for a node test model."""
    model = onnx.load(model_path, load_external_data=False)
    ops = sorted({n.op_type for n in model.graph.node})
    domains = {n.domain for n in model.graph.node}
    opset = max((o.version for o in model.opset_import
                 if o.domain in ("", "ai.onnx")), default=0)
    in_scope = (bool(ops) and domains <= {"", "ai.onnx"} and
                all(op in supported for op in ops))
    return in_scope, ops, opset


def run_one(tandemc, model_path, out_path):
    try:
        proc = subprocess.run(
            [tandemc, model_path, "--emit=mlir", "--compile-to=import",
             "-o", out_path],
            capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return False, "timed out after 120 s"
    if proc.returncode == 0:
        return True, ""
    errors = [l for l in proc.stderr.splitlines() if "error:" in l]
    message = errors[0] if errors else (proc.stderr.strip().splitlines() or
                                        ["exit %d" % proc.returncode])[-1]
    message = message.split("error:", 1)[-1].strip()
    return False, message


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--write-docs")
    parser.add_argument("--work", help="folder for the imported IR")
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    supported = set(subprocess.run([args.tandemc, "--list-onnx-ops"],
                                   capture_output=True, text=True,
                                   check=True).stdout.split())
    unsupported = load_unsupported()
    root = node_test_dir()
    tests = []
    out_of_scope = 0
    for name in sorted(os.listdir(root)):
        if args.filter and not re.search(args.filter, name):
            continue
        model = os.path.join(root, name, "model.onnx")
        if not os.path.exists(model):
            continue
        in_scope, ops, opset = scope(model, supported)
        if in_scope:
            tests.append((name, model, ops, opset))
        else:
            out_of_scope += 1

    work = args.work or tempfile.mkdtemp(prefix="tandem-conformance-")
    os.makedirs(work, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda t: run_one(args.tandemc, t[1],
                              os.path.join(work, t[0] + ".mlir")), tests))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)

    rows, passed, failed, listed = [], 0, 0, 0
    for (name, _, ops, opset), (ok, message) in zip(tests, results):
        reason = unsupported.get(name)
        if ok and reason is None:
            status, detail = "pass", ""
            passed += 1
        elif ok:
            status, detail = "FAIL", "listed as unsupported but imports"
            failed += 1
        elif reason is not None:
            status, detail = "unsupported", reason
            listed += 1
        else:
            status, detail = "FAIL", message
            failed += 1
        rows.append((name, ", ".join(ops), opset, status, detail))
        if status == "FAIL":
            print("FAIL %s: %s" % (name, detail))
    known = {t[0] for t in tests}
    for name in sorted(set(unsupported) - known):
        if not args.filter or re.search(args.filter, name):
            print("FAIL %s: listed in unsupported.txt but not an in-scope "
                  "test" % name)
            failed += 1

    summary = ("onnx-backend: %d passed, %d failed, %d unsupported "
               "(%d in scope, %d out of scope, onnx %s)" %
               (passed, failed, listed, len(tests), out_of_scope,
                onnx.__version__))
    if args.write_docs:
        with open(args.write_docs, "w") as f:
            f.write("# ONNX backend conformance\n\n")
            f.write("Generated by `test/onnx-backend/run_conformance.py "
                    "--write-docs` (run by `scripts/test.sh`) over the node "
                    "tests of onnx %s. A test is in scope when all its ops "
                    "are ones the importer supports. Each in-scope test "
                    "is imported (`tandemc --compile-to=import`); the ones "
                    "that import are then compiled, run and compared with "
                    "their expected outputs by "
                    "`test/onnx-backend/run_numeric.py` (on the CPU, and "
                    "with `--gpu mapped` on the GPU code path), whose "
                    "counts `scripts/test.sh` prints.\n\n"
                    % onnx.__version__)
            f.write("**%d passed, %d failed, %d unsupported** of %d in-scope "
                    "tests; %d of the %d node tests use ops outside the "
                    "importer's scope.\n\n"
                    % (passed, failed, listed, len(tests), out_of_scope,
                       len(tests) + out_of_scope))
            f.write("| test | ops | opset | import | note |\n")
            f.write("|---|---|---|---|---|\n")
            for name, ops, opset, status, detail in rows:
                f.write("| %s | %s | %d | %s | %s |\n" %
                        (name, ops, opset, status,
                         detail.replace("|", "\\|")))
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
