#!/usr/bin/env python3
"""Runs tandemc over the ONNX backend node tests that are in scope.

A node test is in scope when every node in its graph is a default-domain op
that the importer supports (`tandemc --list-onnx-ops`). Each in-scope test
must import (`tandemc --emit=mlir --compile-to=import`), or be listed in
unsupported.txt with the reason. When the importer needs the value of a
graph input at compile time (axes, pads, shapes fed as inputs), the input is
bound to the first data set's value with `--bind-input` and the import
retried. Tests outside the scope are listed in the table with the ops they
need. run_numeric.py compares numbers.

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


SUITES = ["node", "pytorch-converted", "pytorch-operator"]


def suite_dir(suite):
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test",
                        "data", suite)


def node_test_dir():
    return suite_dir("node")


def list_tests(suites, name_filter=""):
    """(key, model path) of every test of `suites`: node tests keyed by
    name, the others by SUITE/name."""
    found = []
    for suite in suites:
        root = suite_dir(suite)
        for name in sorted(os.listdir(root)):
            key = name if suite == "node" else suite + "/" + name
            model = os.path.join(root, name, "model.onnx")
            if os.path.exists(model) and (not name_filter or
                                          re.search(name_filter, key)):
                found.append((key, model))
    return found


def suite_counts(suites):
    return ", ".join("%d %s" % (len(list_tests([s])), s) for s in suites)


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


def write_unsupported(table):
    """Rewrites unsupported.txt with `table`, keeping its header comment."""
    path = os.path.join(HERE, "unsupported.txt")
    header = [l for l in open(path) if l.startswith("#")]
    with open(path, "w") as f:
        f.writelines(header)
        for name in sorted(table):
            f.write("%s %s\n" % (name, table[name]))


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


BIND_HINT = re.compile(r"--bind-input (\S+)=FILE\.pb")
NEEDS_VALUE = re.compile(r"must be known at compile time|must be a constant")


def small_int_inputs(model_path):
    """Graph inputs that look like shape operands: integer, rank <= 1."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    ints = {onnx.TensorProto.INT64, onnx.TensorProto.INT32}
    return [i.name for i in model.graph.input if i.name not in inits and
            i.type.tensor_type.elem_type in ints and
            len(i.type.tensor_type.shape.dim) <= 1]


def graph_inputs(model_path):
    """Names of the graph inputs the caller feeds (not initializers), in
    order: input_K.pb of a data set holds the K-th."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def first_error(stderr, returncode):
    errors = [l for l in stderr.splitlines() if "error:" in l]
    message = errors[0] if errors else (stderr.strip().splitlines() or
                                        ["exit %d" % returncode])[-1]
    return message.split("error:", 1)[-1].strip()


def compile_bound(cmd, model_path, data_set, timeout=120):
    """Runs tandemc `cmd`; while it fails asking for a graph input's value
    at compile time (axes, pads, shape, ... fed as graph inputs, as the node
    tests do), binds that input to the data set's value with --bind-input
    and retries. When the value it needs is computed from graph inputs (so
    the error names none), it binds the shape-like ones (integer, rank <= 1).
    Returns (ok, message, bound input names)."""
    bound = []
    inputs = graph_inputs(model_path)
    for _ in range(len(inputs) + 1):
        flags = ["--bind-input=%s=%s" % (name, os.path.join(
            data_set, "input_%d.pb" % inputs.index(name))) for name in bound]
        try:
            proc = subprocess.run(cmd + flags, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, "timed out after %d s" % timeout, bound
        if proc.returncode == 0:
            return True, "", bound
        hinted = [n for n in BIND_HINT.findall(proc.stderr)
                  if n not in bound and n in inputs]
        if hinted and data_set is not None:
            bound.extend(hinted)
            continue
        # A value computed from graph inputs must be known: bind the
        # shape-like ones (integer, rank <= 1) the error could not name.
        shape_like = [n for n in small_int_inputs(model_path) if n not in bound]
        if (data_set is None or not shape_like or
                not NEEDS_VALUE.search(proc.stderr)):
            return False, first_error(proc.stderr, proc.returncode), bound
        bound.extend(shape_like)
    return False, first_error(proc.stderr, proc.returncode), bound


def first_data_set(model_path):
    sets = sorted(d for d in os.listdir(os.path.dirname(model_path))
                  if d.startswith("test_data_set_"))
    return os.path.join(os.path.dirname(model_path), sets[0]) if sets else None


def run_one(tandemc, model_path, out_path):
    return compile_bound([tandemc, model_path, "--emit=mlir",
                          "--compile-to=import", "-o", out_path],
                         model_path, first_data_set(model_path))


def out_of_scope_reason(ops, domains, supported):
    others = sorted(d for d in domains if d not in ("", "ai.onnx"))
    missing = [op for op in ops if op not in supported]
    parts = []
    if missing:
        parts.append("uses ops the importer does not convert: " +
                     ", ".join(missing))
    if others:
        parts.append("uses nodes of domain " + ", ".join(others))
    return "; ".join(parts) or "has no nodes"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--write-docs")
    parser.add_argument("--work", help="folder for the imported IR")
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--suite", action="append", choices=SUITES,
                        help="test suite of the wheel (repeatable; default: "
                             "all of %s)" % ", ".join(SUITES))
    parser.add_argument("--update-list", action="store_true",
                        help="rewrite unsupported.txt with the in-scope tests "
                             "that do not import and their reasons (no "
                             "--filter)")
    args = parser.parse_args()
    if args.update_list and (args.filter or args.suite):
        parser.error("--update-list rewrites the whole list; drop --filter "
                     "and --suite")
    args.suite = args.suite or SUITES

    supported = set(subprocess.run([args.tandemc, "--list-onnx-ops"],
                                   capture_output=True, text=True,
                                   check=True).stdout.split())
    unsupported = load_unsupported()
    tests, outside = [], []
    for name, model in list_tests(args.suite, args.filter):
        in_scope, ops, opset = scope(model, supported)
        if in_scope:
            tests.append((name, model, ops, opset))
        else:
            m = onnx.load(model, load_external_data=False)
            domains = {n.domain for n in m.graph.node}
            outside.append((name, ops, opset,
                            out_of_scope_reason(ops, domains, supported)))

    work = args.work or tempfile.mkdtemp(prefix="tandem-conformance-")
    os.makedirs(work, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda t: run_one(args.tandemc, t[1], os.path.join(
                work, t[0].replace("/", "__") + ".mlir")), tests))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)

    if args.update_list:
        write_unsupported({name: message for (name, *_), (ok, message, _) in
                           zip(tests, results) if not ok})
        unsupported = load_unsupported()
    rows, passed, failed, listed, with_bound = [], 0, 0, 0, 0
    for (name, _, ops, opset), (ok, message, bound) in zip(tests, results):
        reason = unsupported.get(name)
        if ok and reason is None:
            status = "pass"
            detail = ("inputs bound at compile time: " + ", ".join(bound)
                      if bound else "")
            passed += 1
            with_bound += bool(bound)
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
    for name, ops, opset, reason in outside:
        rows.append((name, ", ".join(ops), opset, "out of scope", reason))
    rows.sort()
    known = {t[0] for t in tests}
    for name in sorted(set(unsupported) - known):
        suite = name.split("/")[0] if "/" in name else "node"
        if suite in args.suite and (not args.filter or
                                    re.search(args.filter, name)):
            print("FAIL %s: listed in unsupported.txt but not an in-scope "
                  "test" % name)
            failed += 1

    total = len(tests) + len(outside)
    summary = ("onnx-backend: %d passed, %d failed, %d unsupported, %d out "
               "of scope (of %d backend tests: %s; %d import with inputs "
               "bound at compile time; onnx %s)" %
               (passed, failed, listed, len(outside), total,
                suite_counts(args.suite), with_bound, onnx.__version__))
    if args.write_docs:
        with open(args.write_docs, "w") as f:
            f.write("# ONNX backend conformance\n\n")
            f.write("Generated by `test/onnx-backend/run_conformance.py "
                    "--write-docs` (run by `scripts/test.sh`) over all %d "
                    "backend tests of onnx %s (%s; the pytorch ones are "
                    "named SUITE/test). A test is in scope when all its "
                    "ops are ones the importer supports; the others are "
                    "listed with the ops they need. Each in-scope test is "
                    "imported (`tandemc --compile-to=import`). The node "
                    "tests feed operands such as axes, pads and shapes as "
                    "graph inputs; Tandem compiles static graphs, so when "
                    "the importer needs such an input's value the runner "
                    "fixes it to the test's value with `--bind-input` (the "
                    "note column names those inputs). The tests that import "
                    "are then compiled, run and compared with their "
                    "expected outputs by `test/onnx-backend/run_numeric.py` "
                    "(on the CPU, and with `--gpu mapped` on the GPU code "
                    "path), whose counts `scripts/test.sh` prints.\n\n"
                    % (total, onnx.__version__, suite_counts(args.suite)))
            f.write("**%d import, %d failed, %d unsupported** of %d "
                    "in-scope tests (%d of them with inputs bound at compile "
                    "time); %d of the %d tests use ops outside the "
                    "importer's scope.\n\n"
                    % (passed, failed, listed, len(tests), with_bound,
                       len(outside), total))
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
