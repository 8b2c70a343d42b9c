#!/usr/bin/env python3
"""One small model per ONNX op whose import no other lit test checks: the
ops composed from other tandem ops (windows, Lp/MVN normalisation, the
derived reductions, SoftmaxCrossEntropyLoss, SpaceToDepth, GlobalLpPool),
the simple ones (Pad, Slice, AveragePool), RNN, DynamicQuantizeLinear, and
Scatter/Upsample at the old opsets that define them (converted by onnx's
version converter).

usage: make_coverage_models.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

F = T.FLOAT


def vi(name, shape, elem=F):
    return h.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=18):
    graph = h.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8 if opset >= 13 else 6
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    return m


def const(name, values, dtype=np.int64):
    return nh.from_array(np.array(values, dtype), name)


n = h.make_node
MODELS = {
    "cov_pad": lambda: model(
        [n("Pad", ["x", "pads"], ["y"], mode="reflect")],
        [vi("x", [1, 2, 4])], [vi("y", [1, 2, 6])],
        [const("pads", [0, 0, 1, 0, 0, 1])]),
    "cov_slice": lambda: model(
        [n("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
        [vi("x", [4, 10])], [vi("y", [4, 3])],
        [const("starts", [-9]), const("ends", [100]), const("axes", [1]),
         const("steps", [3])]),
    "cov_avgpool": lambda: model(
        [n("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
           pads=[1, 1, 1, 1], count_include_pad=1)],
        [vi("x", [1, 2, 8, 8])], [vi("y", [1, 2, 4, 4])]),
    "cov_windows": lambda: model(
        [n("HannWindow", ["size"], ["hann"]),
         n("HammingWindow", ["size"], ["hamming"], periodic=0),
         n("BlackmanWindow", ["size"], ["blackman"]),
         n("Add", ["hann", "hamming"], ["s"]), n("Add", ["s", "blackman"], ["w"]),
         n("Mul", ["x", "w"], ["y"])],
        [vi("x", [4])], [vi("y", [4])], [const("size", 4)]),
    "cov_lp_mvn": lambda: model(
        [n("LpNormalization", ["x"], ["l"], axis=-1, p=2),
         n("MeanVarianceNormalization", ["l"], ["y"], axes=[0, 2, 3])],
        [vi("x", [2, 3, 4, 5])], [vi("y", [2, 3, 4, 5])]),
    "cov_reductions": lambda: model(
        [n("ReduceL1", ["x", "axes"], ["a"], keepdims=1),
         n("ReduceSumSquare", ["x", "axes"], ["b"], keepdims=1),
         n("ReduceLogSum", ["x", "axes"], ["c"], keepdims=1),
         n("Add", ["a", "b"], ["ab"]), n("Add", ["ab", "c"], ["y"])],
        [vi("x", [2, 3])], [vi("y", [2, 1])], [const("axes", [1])]),
    "cov_global_lp": lambda: model(
        [n("GlobalLpPool", ["x"], ["y"], p=3)],
        [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 1, 1])]),
    "cov_sce": lambda: model(
        [n("SoftmaxCrossEntropyLoss", ["scores", "labels"], ["loss"],
           reduction="mean", ignore_index=2)],
        [vi("scores", [3, 5]), vi("labels", [3], T.INT64)], [vi("loss", [])]),
    "cov_space_to_depth": lambda: model(
        [n("SpaceToDepth", ["x"], ["y"], blocksize=2)],
        [vi("x", [1, 2, 4, 6])], [vi("y", [1, 8, 2, 3])]),
    "cov_rnn": lambda: model(
        [n("RNN", ["x", "w", "r", "b"], ["", "y_h"], hidden_size=3)],
        [vi("x", [2, 1, 4])], [vi("y_h", [1, 1, 3])],
        [nh.from_array(np.full((1, 3, 4), 0.1, np.float32), "w"),
         nh.from_array(np.full((1, 3, 3), 0.2, np.float32), "r"),
         nh.from_array(np.zeros((1, 6), np.float32), "b")]),
    "cov_dynamic_quant": lambda: model(
        [n("DynamicQuantizeLinear", ["x"], ["q", "scale", "zp"])],
        [vi("x", [2, 3])],
        [vi("q", [2, 3], T.UINT8), vi("scale", []), vi("zp", [], T.UINT8)]),
    # Scatter (opset 9-10) and Upsample (opset 9) exist only at old opsets.
    "cov_scatter9": lambda: model(
        [n("Scatter", ["x", "idx", "upd"], ["y"], axis=1)],
        [vi("x", [2, 3])], [vi("y", [2, 3])],
        [const("idx", [[2], [0]]),
         nh.from_array(np.array([[5.0], [6.0]], np.float32), "upd")],
        opset=9),
    "cov_upsample9": lambda: model(
        [n("Upsample", ["x", "scales"], ["y"], mode="nearest")],
        [vi("x", [1, 1, 2, 2])], [vi("y", [1, 1, 4, 4])],
        [nh.from_array(np.array([1, 1, 2, 2], np.float32), "scales")],
        opset=9),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, build in MODELS.items():
        onnx.save(build(), os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
