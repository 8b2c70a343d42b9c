#!/usr/bin/env python3
"""End-to-end numerics: torch-exported models, compiled by Tandem, against
onnxruntime.

usage: run_models.py --tandemc BIN --opt TANDEM_OPT --runner MLIR_RUNNER
       --libdir DIR --models DIR [NAME...]

For each model: imports it with `tandemc --compile-to=graph` (so the graph
optimisations run too), adds a `main` that calls the model on random inputs
and prints every result with printMemrefF32, lowers everything with
-tandem-lower-to-linalg and the upstream LLVM pipeline, JIT-runs it with
mlir-runner, and compares with onnxruntime on the same inputs. Absent models
are skipped. Prints "model-numerics: N passed, M failed, K skipped".
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_numeric import PIPELINE, literal, parse_outputs  # noqa: E402

DEFAULT = ["mlp", "transformer_encoder", "bert_block", "mobilenet_v2",
           "resnet18"]
NP_TYPES = {"f32": np.float32, "i64": np.int64, "i32": np.int32,
            "i1": np.bool_}


def build_main(ir, inputs):
    sig = re.search(r"func\.func @(\w+)\((.*?)\) -> \((.*?)\)\s*\{", ir)
    name = sig.group(1)
    arg_types = re.findall(r"tensor<((?:\d+x)*)(f32|i64|i32|i1)>",
                           sig.group(2))
    res_types = re.findall(r"tensor<([^>]*)>", sig.group(3))
    lines = ["func.func private @printMemrefF32(memref<*xf32>)",
             "func.func @main() {"]
    args = []
    for i, (arr, ty) in enumerate(zip(inputs, arg_types)):
        tt = f"tensor<{ty[0]}{ty[1]}>"
        lines.append(f"  %in{i} = arith.constant {literal(arr)} : {tt}")
        args.append((f"%in{i}", tt))
    rts = [f"tensor<{r}>" for r in res_types]
    res = ", ".join(f"%r#{i}" for i in range(len(rts)))
    lines.append(f"  %r:{len(rts)} = func.call @{name}("
                 f"{', '.join(a for a, _ in args)}) : "
                 f"({', '.join(t for _, t in args)}) -> ({', '.join(rts)})")
    for i, rt in enumerate(rts):
        mt = rt.replace("tensor", "memref")
        lines.append(f"  %m{i} = bufferization.to_buffer %r#{i} : {rt} to {mt}")
        lines.append(f"  %u{i} = memref.cast %m{i} : {mt} to memref<*xf32>")
        lines.append(f"  func.call @printMemrefF32(%u{i}) : "
                     f"(memref<*xf32>) -> ()")
    lines += ["  return", "}"]
    head, sep, resources = ir.partition("\n{-#")
    end = head.rstrip().rfind("}")
    return head[:end] + "\n".join(lines) + "\n}\n" + sep + resources, \
        len(rts)


def check(args, name):
    import onnxruntime as ort
    onnx_path = os.path.join(args.models, name + ".onnx")
    flags = open(os.path.join(args.models, name + ".shape")).read().split()
    shapes = dict(f.split("=") for f in flags if "=" in f)
    graph = subprocess.run([args.tandemc, onnx_path, "--emit=mlir",
                            "--compile-to=graph"] + flags,
                           capture_output=True, text=True, timeout=600)
    if graph.returncode != 0:
        return "tandemc failed: " + graph.stderr[-2000:]
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    feeds = {}
    for inp in sess.get_inputs():
        shape = [int(d) for d in shapes[inp.name].split("x")]
        if "int64" in inp.type:
            feeds[inp.name] = rng.integers(0, 100, size=shape).astype(np.int64)
        elif "bool" in inp.type:
            feeds[inp.name] = rng.integers(0, 2, size=shape).astype(np.bool_)
        else:
            feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
    expected = sess.run(None, feeds)
    module, nres = build_main(graph.stdout, list(feeds.values()))
    lowered = subprocess.run([args.opt, f"--pass-pipeline={PIPELINE}"],
                             input=module, capture_output=True, text=True,
                             timeout=600)
    if lowered.returncode != 0:
        return "lowering failed: " + lowered.stderr[-2000:]
    libs = ",".join(os.path.join(args.libdir, lib) for lib in (
        "libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    ran = subprocess.run([args.runner, "-O2", "-e", "main",
                          "-entry-point-result=void", f"-shared-libs={libs}"],
                         input=lowered.stdout, capture_output=True,
                         text=True, timeout=900)
    if ran.returncode != 0:
        return "mlir-runner failed: " + ran.stderr[-2000:]
    got = parse_outputs(ran.stdout)
    if len(got) != len(expected):
        return f"{len(got)} outputs, onnxruntime has {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        e = np.asarray(e, dtype=np.float64)
        if g.shape != e.shape:
            return f"output {i}: shape {g.shape} != {e.shape}"
        if not np.allclose(g, e, rtol=1e-3, atol=1e-4):
            return f"output {i}: max abs error {np.abs(g - e).max():.3g}"
    return None


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--tandemc", "--opt", "--runner", "--libdir", "--models"):
        parser.add_argument(flag, required=True)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    passed = failed = skipped = 0
    for name in args.names or DEFAULT:
        if not os.path.exists(os.path.join(args.models, name + ".onnx")):
            print(f"SKIP: {name}")
            skipped += 1
            continue
        problem = check(args, name)
        print(f"FAIL: {name}: {problem}" if problem else f"PASS: {name}")
        failed += bool(problem)
        passed += not problem
    print(f"model-numerics: {passed} passed, {failed} failed, "
          f"{skipped} skipped")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
