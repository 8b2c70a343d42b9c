#!/usr/bin/env python3
"""Compiles one ONNX model with Apache TVM (Relax) for the harness's TVM
peer, in a process of its own so that TVM's LLVM stays out of the
harness's.

usage: tvm_build.py MODEL.onnx OUT.so NAME=D0xD1... [NAME=...]

The model is imported with `tvm.relax.frontend.onnx.from_onnx` at the given
static input shapes (weights become constants), compiled untuned for the
host CPU, `{"kind": "llvm", "mcpu": <LLVM's host CPU name>}`, with the
schedules of PIPELINE below, and exported as a shared library (OUT.so) that
peer_worker.py loads into a `relax.VirtualMachine`. OUT.json gets the
compile facts the report prints. On an error it prints `error MESSAGE` as
its last line and exits 1.
"""
import json
import os
import sys
import time
import traceback

# What "untuned" means here, printed in the report: tvm.compile's default
# CPU pipeline (relax.backend.cpu_generic: LegalizeOps to TIR, FuseOps,
# FuseTIR, memory planning) with dlight's CPU default schedules (GEMV and
# Reduction: parallel outer spatial loop, vectorised inner loop where they
# can) applied to the legalised TIR. The Reduction rule takes the fused
# matmul/conv + bias/ReLU kernels; a kernel neither rule matches (a lone
# MatMul, for one) stays the legalised loop nest as LLVM compiles it, on
# one thread. No tiling for caches, no meta-schedule tuning.
PIPELINE = ("relax.backend.cpu_generic passes (LegalizeOps, FuseOps, "
            "FuseTIR, ...) + dlight ApplyDefaultSchedule(cpu.GEMV, "
            "cpu.Reduction), no meta-schedule tuning")


def host_target(tvm):
    from tvm.target import codegen
    return {"kind": "llvm", "mcpu": codegen.llvm_get_system_cpu()}


def pipeline(tvm, target):
    """tvm.compile's default CPU pipeline with dlight's CPU rules after
    legalisation."""
    from tvm.relax.backend.cpu_generic import pipeline as cpu_generic
    from tvm.s_tir import dlight

    @tvm.transform.module_pass(opt_level=0)
    def _pipeline(mod, _ctx):
        with target:
            seq = tvm.transform.Sequential(
                cpu_generic.library_dispatch_passes(target)
                + cpu_generic.legalize_passes(target)
                + [dlight.ApplyDefaultSchedule(dlight.cpu.GEMV(),
                                               dlight.cpu.Reduction())]
                + cpu_generic.dataflow_lower_passes(target)
                + cpu_generic.finalize_passes(target))
            return seq(mod)

    return _pipeline


def main(argv):
    if len(argv) < 2:
        raise RuntimeError("usage: tvm_build.py MODEL.onnx OUT.so "
                           "NAME=D0xD1...")
    src, out = argv[0], argv[1]
    shapes = {}
    for spec in argv[2:]:
        name, dims = spec.rsplit("=", 1)
        shapes[name] = [int(d) for d in dims.split("x")]
    import onnx
    import tvm
    from tvm.relax.frontend.onnx import from_onnx
    start = time.time()
    model = onnx.load(src)
    mod = from_onnx(model, shape_dict=shapes)
    imported = time.time()
    target = tvm.target.Target(host_target(tvm))
    executable = tvm.compile(mod, target,
                             relax_pipeline=pipeline(tvm, target))
    executable.export_library(out + ".tmp.so")
    os.replace(out + ".tmp.so", out)
    seconds = time.time() - start
    meta = {"tvm": tvm.__version__, "target": str(target),
            "pipeline": PIPELINE, "import_s": imported - start,
            "compile_s": seconds,
            "inputs": [vi.name for vi in model.graph.input
                       if vi.name not in {i.name for i in
                                          model.graph.initializer}]}
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump(meta, f)
    print("built %s in %.1f s" % (out, seconds), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:  # the harness reports the last line
        sys.stdout.write(traceback.format_exc())
        print("error %s: %s" % (type(e).__name__,
                                " ".join(str(e).split())[:400]), flush=True)
        sys.exit(1)
