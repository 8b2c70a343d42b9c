#!/usr/bin/env python3
"""End to end on small models whose GPU code is row kernels of the less
common shapes: a softmax over a middle axis and over the first axis (rows
that are not the leading loops), a hard-swish, mean over H and W and scale
of channels-last tensors (an NHWC squeeze-and-excitation block: rows of
channels, the innermost dimension), and a Swin-style window attention's
softmax over 49 keys with its scale and bias, and a LayerNorm over rows of
24 (rows shorter than a block reduction's 64 points).

usage: run_row_ops.py --tandemc BIN --tandem-run BIN --work DIR
                      [--gpu none|all] [--gpu-twins linalg|mapped]
                      [--devices D,...] [--write-only] [NAME...]

Each model is checked like run_e2e.py does (onnxruntime reference, rtol
1e-4), on the CPU or, with --gpu all, with every op placed on the GPU and
run on the --devices (with --gpu-twins mapped the kernels' CPU twins run
their GPU mapping: blocks, barriers, shared memory). Prints "PASS name" /
"FAIL name: why" and "row-ops: N passed, M failed".
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_e2e  # noqa: E402

F = TensorProto.FLOAT


def vi(name, shape=None):
    return helper.make_tensor_value_info(name, F, shape)


def weight(name, *shape):
    values = np.random.RandomState(len(name) + sum(shape)).randn(*shape)
    return numpy_helper.from_array(values.astype(np.float32), name)


def build(nodes, inputs, outputs, inits=()):
    return run_e2e.build_model(nodes, inputs, outputs, inits, 17, 8)


def softmax_axis(shape, axis):
    return lambda: build(
        [helper.make_node("Softmax", ["x"], ["s"], axis=axis),
         helper.make_node("Mul", ["s", "x"], ["y"])],
        [vi("x", shape)], [vi("y")])


def nhwc_squeeze_excite():
    # x: N x H x W x C; hard-swish, mean over H and W, a 1 x C scale through
    # a hard-sigmoid, times the hard-swish.
    return build(
        [helper.make_node("HardSwish", ["x"], ["h"]),
         helper.make_node("ReduceMean", ["h"], ["m"], axes=[1, 2],
                          keepdims=1),
         helper.make_node("Mul", ["m", "w"], ["mw"]),
         helper.make_node("HardSigmoid", ["mw"], ["s"], alpha=1 / 6,
                          beta=0.5),
         helper.make_node("Mul", ["h", "s"], ["y"])],
        [vi("x", [1, 14, 14, 96])], [vi("y")],
        [weight("w", 1, 1, 1, 96)])


def window_softmax():
    # Swin: scores of 16 windows x 3 heads x 49 queries over 49 keys, scaled,
    # plus a relative-position bias, softmax over the keys.
    return build(
        [helper.make_node("Mul", ["x", "scale"], ["xs"]),
         helper.make_node("Add", ["xs", "bias"], ["b"]),
         helper.make_node("Softmax", ["b"], ["y"], axis=-1)],
        [vi("x", [16, 3, 49, 49])], [vi("y")],
        [numpy_helper.from_array(np.array(0.17, np.float32), "scale"),
         weight("bias", 3, 49, 49)])


def short_layer_norm():
    return build(
        [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"],
                          axis=-1, epsilon=1e-5)],
        [vi("x", [64, 24])], [vi("y")], [weight("g", 24), weight("b", 24)])


MODELS = {"softmax_middle_axis": softmax_axis([2, 40, 30], 1),
          "softmax_first_axis": softmax_axis([24, 5, 7], 0),
          "nhwc_squeeze_excite": nhwc_squeeze_excite,
          "window_softmax": window_softmax,
          "short_layer_norm": short_layer_norm}


def main():
    return run_e2e.op_models_main("row-ops", MODELS)


if __name__ == "__main__":
    sys.exit(main())
