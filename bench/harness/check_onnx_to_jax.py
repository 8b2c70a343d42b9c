#!/usr/bin/env python3
"""Checks bench/harness/onnx_to_jax.py against onnxruntime on small ONNX
graphs that cover the ops it maps, and that an unsupported op is reported
with its node and op. Prints one `PASS name (max err)` or `FAIL ...` line a
graph and exits 1 on any failure (test/bench/onnx_to_jax.test runs it).

usage: check_onnx_to_jax.py
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from harness import onnx_to_jax  # noqa: E402

F = TensorProto.FLOAT
rng = np.random.default_rng(7)


def w(name, *shape, positive=False):
    a = rng.uniform(0.1 if positive else -1, 1, shape).astype(np.float32)
    return numpy_helper.from_array(a, name)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def model(nodes, inputs, outputs, inits, opset=13):
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, F, s)
                     for n, s in inputs],
        [helper.make_tensor_value_info(n, F, None) for n in outputs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m, {n: rng.uniform(-1, 1, s).astype(np.float32)
               for n, s in inputs}


N = helper.make_node
CASES = {
    "conv_bn_relu_pools": model([
        N("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
          strides=[2, 2]),
        N("BatchNormalization", ["c1", "s", "bb", "mu", "var"], ["bn"],
          epsilon=1e-3),
        N("Relu", ["bn"], ["r"]),
        N("Conv", ["r", "wd"], ["dw"], group=8, pads=[1, 1, 1, 1]),
        N("Clip", ["dw", "lo", "hi"], ["cl"]),
        N("MaxPool", ["cl"], ["mp"], kernel_shape=[3, 3], strides=[2, 2],
          pads=[1, 1, 1, 1]),
        N("AveragePool", ["mp"], ["ap"], kernel_shape=[3, 3],
          pads=[1, 1, 1, 1], count_include_pad=0),
        N("GlobalAveragePool", ["ap"], ["gp"]),
        N("Flatten", ["gp"], ["fl"]),
        N("Gemm", ["fl", "wg", "bg"], ["y"], transB=1),
    ], [("x", [2, 3, 17, 17])], ["y"], [
        w("w1", 8, 3, 3, 3), w("b1", 8), w("s", 8), w("bb", 8), w("mu", 8),
        w("var", 8, positive=True), w("wd", 8, 1, 3, 3),
        numpy_helper.from_array(np.float32(0.0), "lo"),
        numpy_helper.from_array(np.float32(0.5), "hi"),
        w("wg", 10, 8), w("bg", 10)]),
    "attention_shapes": model([
        N("MatMul", ["x", "wq"], ["q"]),
        N("Shape", ["q"], ["sh"]),
        N("Gather", ["sh", "zero"], ["b"], axis=0),
        N("Gather", ["sh", "one"], ["s"], axis=0),
        N("Unsqueeze", ["b", "ax0"], ["bu"]),
        N("Unsqueeze", ["s", "ax0"], ["su"]),
        N("Concat", ["bu", "su", "heads", "hd"], ["shape"], axis=0),
        N("Reshape", ["q", "shape"], ["qr"]),
        N("Transpose", ["qr"], ["qt"], perm=[0, 2, 1, 3]),
        N("Transpose", ["qr"], ["kt"], perm=[0, 2, 3, 1]),
        N("MatMul", ["qt", "kt"], ["sc"]),
        N("Div", ["sc", "scale"], ["scd"]),
        N("Softmax", ["scd"], ["p"], axis=-1),
        N("MatMul", ["p", "qt"], ["ctx"]),
        N("Slice", ["ctx", "st", "en", "sax"], ["sl"]),
        N("ReduceMean", ["sl"], ["mean"], axes=[-1]),
        N("Sub", ["sl", "mean"], ["d"]),
        N("Pow", ["d", "two"], ["d2"]),
        N("ReduceMean", ["d2"], ["var"], axes=[-1]),
        N("Add", ["var", "eps"], ["ve"]),
        N("Sqrt", ["ve"], ["sd"]),
        N("Div", ["d", "sd"], ["n"]),
        N("Erf", ["n"], ["e"]),
        N("Tanh", ["e"], ["t"]),
        N("Mul", ["t", "n"], ["y"]),
    ], [("x", [2, 6, 16])], ["y"], [
        w("wq", 16, 16), i64("zero", 0), i64("one", 1), i64("ax0", [0]),
        i64("heads", [4]), i64("hd", [4]), i64("st", [1]),
        i64("en", [2 ** 62]), i64("sax", [3]),
        numpy_helper.from_array(np.float32(2.0), "scale"),
        numpy_helper.from_array(np.float32(2.0), "two"),
        numpy_helper.from_array(np.float32(1e-5), "eps")]),
    "layernorm_opset17": model([
        N("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1,
          epsilon=1e-5),
    ], [("x", [3, 5, 32])], ["y"], [w("g", 32), w("b", 32)], opset=17),
}


def check(name, m, feeds):
    import jax
    fn, params, names, _ = onnx_to_jax.translate(m)
    got = jax.jit(fn)(params, *[feeds[n] for n in names])
    ref = ort.InferenceSession(m.SerializeToString(),
                               providers=["CPUExecutionProvider"]).run(
                                   None, feeds)
    worst = 0.0
    for g, r in zip(got, ref):
        g = np.asarray(g)
        if g.shape != r.shape:
            return "FAIL %s: shape %s vs onnxruntime's %s" % (name, g.shape,
                                                             r.shape)
        worst = max(worst, float(np.max(np.abs(g - r)) /
                                 max(float(np.max(np.abs(r))), 1e-30)))
    return ("PASS %s (max err %.1e)" if worst < 1e-5 else
            "FAIL %s (max err %.1e)") % (name, worst)


def main():
    failed = False
    for name, (m, feeds) in CASES.items():
        line = check(name, m, feeds)
        failed |= line.startswith("FAIL")
        print(line, flush=True)
    m, _ = model([N("Einsum", ["x", "x"], ["y"], name="my_einsum",
                    equation="ij,ij->i")], [("x", [2, 2])], ["y"], [])
    try:
        onnx_to_jax.translate(m)
        print("FAIL unsupported: no error")
        failed = True
    except onnx_to_jax.UnsupportedOp as e:
        print("PASS unsupported: %s" % e)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
