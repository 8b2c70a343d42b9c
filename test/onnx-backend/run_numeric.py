#!/usr/bin/env python3
"""Runs the ONNX backend node tests through the whole compiler and compares
numbers.

For every in-scope node test that imports (run_conformance.py's pass set:
in scope and not listed in unsupported.txt), compiles the model with
`tandemc --emit=shared`, runs it with `tandem-run` on each test data set's
inputs, and compares the outputs with the test's expected outputs
(rtol 1e-3, atol 1e-7 like onnx's backend runner, loosened to atol 1e-5 for
f32). Tests in numeric_unsupported.txt are expected not to compile or match,
with a reason; a listed test that now passes is a failure (stale entry).

usage: run_numeric.py --tandemc BIN --tandem-run BIN --work DIR
                      [--filter REGEX] [--jobs N] [--gpu linalg|mapped]

Graph inputs the importer needs at compile time are bound to each data
set's value (run_conformance.compile_bound), as for the import check.

With --gpu, every op the GPU runs is placed on it and the tests run on the
emulated device (with `mapped`, the CPU twins execute the GPU kernels'
mapping: the GPU code path).

With --onnxruntime, each test's outputs are also compared with
onnxruntime's on the same inputs (same tolerances), wherever onnxruntime
runs the model and itself matches the expected outputs: a Tandem output
that matches the ONNX reference but not onnxruntime is a failure too. The
summary counts the tests so checked, those onnxruntime cannot run and
those where onnxruntime deviates from the reference.

Prints "onnx-numeric: N passed, M failed, K known (...)" and exits non-zero
on any failure. Run it with the venv's Python (onnx, numpy, onnxruntime).
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_conformance  # noqa: E402


def load_known():
    table = {}
    path = os.path.join(HERE, "numeric_unsupported.txt")
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, reason = line.partition(" ")
                table[name] = reason.strip()
    return table


def read_pb(path):
    tensor = onnx.TensorProto()
    tensor.ParseFromString(open(path, "rb").read())
    return numpy_helper.to_array(tensor)


def close(actual, expected):
    """numpy.allclose with the runner's tolerances; NaNs must match."""
    if actual.shape != expected.shape:
        return False
    if actual.dtype.kind in "fc" or expected.dtype.kind in "fc":
        return bool(np.allclose(actual.astype(np.float64),
                                expected.astype(np.float64), rtol=1e-3,
                                atol=1e-5, equal_nan=True))
    return bool(np.array_equal(actual, expected))


def onnxruntime_outputs(model_path, data_set, count):
    """onnxruntime's outputs on `data_set`'s inputs, or None when it cannot
    run the model."""
    import onnxruntime
    try:
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4
        options.intra_op_num_threads = 1
        session = onnxruntime.InferenceSession(
            model_path, options, providers=["CPUExecutionProvider"])
        feeds = {}
        for i, info in enumerate(session.get_inputs()):
            path = os.path.join(data_set, "input_%d.pb" % i)
            if os.path.exists(path):
                feeds[info.name] = read_pb(path)
        return session.run(None, feeds)[:count]
    except Exception:  # any failure to load or run: onnxruntime cannot
        return None


def check_onnxruntime(model_path, data_set, refs, out_dir, output_names):
    """'checked', 'no-ort', 'ort-deviates' or a failure message."""
    ort = onnxruntime_outputs(model_path, data_set, len(refs))
    if ort is None or len(ort) != len(refs):
        return "no-ort"
    expected = [np.load(r) for r in refs]
    if not all(close(np.asarray(o), e) for o, e in zip(ort, expected)):
        return "ort-deviates"
    for name, o in zip(output_names, ort):
        actual = np.load(os.path.join(out_dir, name + ".npy"))
        if not close(actual, np.asarray(o)):
            return "output '%s' differs from onnxruntime's" % name
    return "checked"


def run_one(args, name, model_path):
    """(None when the test passes, else the problem; the onnxruntime
    check's outcome or None)."""
    work = os.path.join(args.work, name.replace("/", "__"))
    os.makedirs(work, exist_ok=True)
    flags = []
    if args.gpu:
        # Every op the GPU can run on /device:GPU:0 (soft placement keeps
        # the rest on the CPU); run on the emulated device.
        flags = ["--target=cpu,gpu:sm_90", "--place", "*=gpu"]
        if args.gpu == "mapped":
            flags += ["--gpu-twins=mapped"]
    model = onnx.load(model_path, load_external_data=False)
    inputs = run_conformance.graph_inputs(model_path)
    lib, bound, ort = None, None, None
    for index, data_set in enumerate(sorted(glob.glob(os.path.join(
            os.path.dirname(model_path), "test_data_set_*")))):
        # Inputs bound at compile time take each data set's value, so a
        # model with bound inputs is compiled once per data set.
        if lib is None or bound:
            lib = os.path.join(work, "model%d.so" % index)
            ok, message, bound = run_conformance.compile_bound(
                [args.tandemc, model_path, "--emit=shared", "-o", lib] + flags,
                model_path, data_set, timeout=300)
            if not ok:
                return "compile: " + message, None
        feeds, refs = [], []
        for i, input_name in enumerate(inputs):
            if input_name in bound:
                continue
            value = read_pb(os.path.join(data_set, "input_%d.pb" % i))
            path = os.path.join(work, "in%d.npy" % i)
            # np.ascontiguousarray would turn a 0-d array into a 1-d one.
            np.save(path, np.array(value, order="C"))
            feeds.append(path)
        for i in range(len(model.graph.output)):
            ref = read_pb(os.path.join(data_set, "output_%d.pb" % i))
            path = os.path.join(work, "ref%d.npy" % i)
            np.save(path, np.array(ref, order="C"))
            refs.append(path)
        cmd = [args.tandem_run, lib, "--threads", "1"]
        if args.gpu:
            cmd += ["--device", "emulated"]
        if feeds:
            cmd += ["--input"] + feeds
        else:
            cmd += ["--random"]
        out_dir = os.path.join(work, "out%d" % index)
        cmd += ["--compare"] + refs + ["--rtol", "1e-3", "--atol", "1e-5",
                                       "--output-dir", out_dir]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            lines = (proc.stdout + proc.stderr).strip().splitlines()
            return "run: " + (lines[-1] if lines else "exit %d" %
                              proc.returncode), None
        if args.onnxruntime:
            outcome = check_onnxruntime(
                model_path, data_set, refs, out_dir,
                [o.name for o in model.graph.output])
            if outcome not in ("checked", "no-ort", "ort-deviates"):
                return "data set %d: %s" % (index, outcome), None
            # The test's outcome is its worst data set's.
            if ort is None or outcome != "checked":
                ort = outcome
    return None, ort


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--tandem-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--gpu", choices=["linalg", "mapped"],
                        help="place every op on the GPU and run on the "
                             "emulated device, the CPU twins running the "
                             "kernels' linalg ops or their GPU mapping")
    parser.add_argument("--suite", action="append",
                        choices=run_conformance.SUITES,
                        help="test suite of the wheel (repeatable; default: "
                             "all)")
    parser.add_argument("--onnxruntime", action="store_true",
                        help="also compare every output with onnxruntime's")
    parser.add_argument("--write-known", action="store_true",
                        help="print numeric_unsupported.txt lines for the "
                             "failures instead of failing")
    args = parser.parse_args()
    args.suite = args.suite or run_conformance.SUITES

    supported = set(subprocess.run([args.tandemc, "--list-onnx-ops"],
                                   capture_output=True, text=True,
                                   check=True).stdout.split())
    import_unsupported = run_conformance.load_unsupported()
    known = load_known()
    tests = []
    for name, model in run_conformance.list_tests(args.suite, args.filter):
        if name in import_unsupported:
            continue
        if run_conformance.scope(model, supported)[0]:
            tests.append((name, model))

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda t: run_one(args, *t), tests))

    passed = failed = listed = 0
    ort_counts = {"checked": 0, "no-ort": 0, "ort-deviates": 0}
    for (name, _), (problem, ort) in zip(tests, results):
        if problem is None and ort:
            ort_counts[ort] += 1
        reason = known.get(name)
        if problem is None and reason is None:
            passed += 1
        elif problem is None:
            failed += 1
            print("FAIL %s: listed in numeric_unsupported.txt but passes" %
                  name)
        elif reason is not None:
            listed += 1
        elif args.write_known:
            print("%s %s" % (name, problem))
        else:
            failed += 1
            print("FAIL %s: %s" % (name, problem))
    if args.onnxruntime:
        print("onnxruntime: %d of the passing tests also match onnxruntime's "
              "outputs; onnxruntime cannot run %d, and deviates from the "
              "expected outputs on %d" %
              (ort_counts["checked"], ort_counts["no-ort"],
               ort_counts["ort-deviates"]))
    total = len(run_conformance.list_tests(args.suite))
    print("onnx-numeric: %d passed, %d failed, %d known (%d compiled and "
          "compared of %d backend tests: %s; onnx %s)" %
          (passed, failed, listed, len(tests), total,
           run_conformance.suite_counts(args.suite), onnx.__version__))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
