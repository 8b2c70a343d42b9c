#!/usr/bin/env python3
"""End to end on small models of the reduce, arg, gather, scan and top-k ops
(ReduceMin, ReduceProd, ArgMax, ArgMin, GatherElements, GatherND, CumSum,
TopK) with
their axes and K as attributes or constant inputs, as exports write them: the ONNX
backend node tests feed those as graph inputs, which Tandem needs at compile
time, so these models cover the attribute combinations instead.

usage: run_index_ops.py --tandemc BIN --tandem-run BIN --work DIR
                        [--gpu none|all] [--gpu-twins linalg|mapped]
                        [--devices D,...] [--write-only] [NAME...]

Each model is checked like run_e2e.py does (onnxruntime reference, rtol
1e-4), on the CPU or, with --gpu all, with every op the GPU runs placed on
it and run on the --devices. Values with ties (floor(2x)) and NaN (sqrt of
negative inputs) check ArgMax/ArgMin's tie-breaking and NaN rule against
onnxruntime's. Prints "PASS name" / "FAIL name: why" and
"index-ops: N passed, M failed". With --write-only, only writes the models
(DIR/NAME.onnx), for the import and ptxas tests.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_e2e  # noqa: E402

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32


def vi(name, elem, shape=None):
    """A value info; outputs leave the shape to onnx's shape inference."""
    return helper.make_tensor_value_info(name, elem, shape)


def ints(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype), name)


def build(nodes, inputs, outputs, inits=(), opset=18, check=True):
    return run_e2e.build_model(nodes, inputs, outputs, inits, opset, 8, check)


def reduce_opset13():
    """Axes as attributes (opset 13): one, several, none (all), negative."""
    n = helper.make_node
    return build([
        n("ReduceMin", ["x"], ["min1"], axes=[1], keepdims=0),
        n("ReduceProd", ["x"], ["prod02"], axes=[0, -1]),
        n("ReduceMin", ["x"], ["min_all"], keepdims=0),
        n("ReduceProd", ["x"], ["prod_all"]),
    ], [vi("x", F, [3, 4, 5])],
        [vi("min1", F), vi("prod02", F), vi("min_all", F), vi("prod_all", F)],
        opset=13)


def reduce_opset18():
    """Axes as constant inputs (opset 18), noop_with_empty_axes, integers."""
    n = helper.make_node
    return build([
        n("ReduceMin", ["x", "ax_last"], ["min_last"]),
        n("ReduceProd", ["x", "ax1"], ["prod1"], keepdims=0),
        n("ReduceMin", ["x"], ["noop"], noop_with_empty_axes=1),
        n("Relu", ["x"], ["r"]),
        n("ReduceMin", ["r", "ax1"], ["min_relu"], keepdims=0),
        n("ReduceMin", ["i64", "ax1"], ["min_i64"], keepdims=0),
        n("ReduceProd", ["i32", "ax_last"], ["prod_i32"]),
    ], [vi("x", F, [3, 4, 5]), vi("i64", I64, [3, 6]), vi("i32", I32, [3, 6])],
        [vi("min_last", F), vi("prod1", F), vi("noop", F), vi("min_relu", F),
         vi("min_i64", I64), vi("prod_i32", I32)],
        [ints("ax1", [1]), ints("ax_last", [-1])])


def arg_reduce():
    """ArgMax/ArgMin on every axis, with ties (floor(2x)) and NaN (sqrt of
    negatives), first and last index, keepdims or not, and integers."""
    n = helper.make_node
    nodes = [
        n("Mul", ["x", "two"], ["x2"]),
        n("Floor", ["x2"], ["ties"]),
        n("Sqrt", ["x"], ["nans"]),
    ]
    outputs = []
    k = 0
    for src in ("x", "ties", "nans", "i64"):
        for op in ("ArgMax", "ArgMin"):
            for axis, keep, last in ((0, 1, 0), (1, 0, 1), (-1, 1, 0),
                                     (2, 0, 1)):
                if src == "i64" and axis == 2:
                    continue
                name = "out%d" % k
                k += 1
                nodes.append(n(op, [src], [name], axis=axis, keepdims=keep,
                               select_last_index=last))
                outputs.append(vi(name, I64))
    return build(nodes, [vi("x", F, [4, 6, 5]), vi("i64", I64, [5, 7])],
                 outputs,
                 [numpy_helper.from_array(np.array(2.0, np.float32), "two")],
                 opset=13)


def gather_elements():
    """Run-time indices on both axes, constant negative ones, and a fused
    producer of the data."""
    n = helper.make_node
    return build([
        n("GatherElements", ["x", "rows"], ["by_row"], axis=0),
        n("GatherElements", ["x", "cols"], ["by_col"], axis=1),
        n("Relu", ["x"], ["r"]),
        n("GatherElements", ["r", "neg"], ["neg_out"], axis=-1),
    ], [vi("x", F, [4, 5]), vi("rows", I64, [3, 5]), vi("cols", I64, [4, 2])],
        [vi("by_row", F), vi("by_col", F), vi("neg_out", F)],
        [ints("neg", [[-1, 0, -5], [4, -2, 1]])], opset=13)


def gather_nd():
    """GatherND: run-time index tuples of one and two indices, constant
    negative ones, batch_dims 1 and 2, a slice per tuple and a fused
    producer of the data."""
    n = helper.make_node
    return build([
        n("GatherND", ["x", "rows"], ["slices"]),
        n("Relu", ["x"], ["r"]),
        n("GatherND", ["r", "pairs"], ["elements"]),
        n("GatherND", ["b", "per_batch"], ["batched"], batch_dims=1),
        n("GatherND", ["b", "tuples2"], ["batched2"], batch_dims=2),
    ], [vi("x", F, [4, 5, 3]), vi("rows", I64, [2, 1]),
        vi("b", F, [2, 5, 4]), vi("per_batch", I64, [2, 3, 1]),
        vi("tuples2", I64, [2, 5, 1])],
        [vi("slices", F), vi("elements", F), vi("batched", F),
         vi("batched2", F)],
        [ints("pairs", [[[0, -1], [3, 4]], [[-4, 0], [2, 2]]])], opset=13)


def cumsum():
    """Every exclusive/reverse combination on both axes of a float input,
    and int64 position ids (CumSum of a mask, minus one) as exports build
    them."""
    n = helper.make_node
    nodes, outputs = [], []
    k = 0
    for axis in ("ax0", "axm1"):
        for exclusive in (0, 1):
            for reverse in (0, 1):
                name = "out%d" % k
                k += 1
                nodes.append(n("CumSum", ["x", axis], [name],
                               exclusive=exclusive, reverse=reverse))
                outputs.append(vi(name, F))
    nodes += [n("Tanh", ["x"], ["t"]),
              n("CumSum", ["t", "axm1"], ["tanh_cumsum"]),
              n("CumSum", ["mask", "ax1_i32"], ["running"]),
              n("Sub", ["running", "one"], ["position_ids"])]
    outputs += [vi("tanh_cumsum", F), vi("position_ids", I64)]
    return build(nodes, [vi("x", F, [3, 7]), vi("mask", I64, [2, 9])],
                 outputs,
                 [ints("ax0", 0), ints("axm1", -1),
                  ints("ax1_i32", [1], np.int32), ints("one", 1)], opset=14)


def top_k():
    """TopK with a constant K: largest and smallest, every axis, ties
    (floor(2x)), NaN (sqrt of negatives), K = 1 and K = the axis size,
    integers."""
    n = helper.make_node
    nodes = [n("Mul", ["x", "two"], ["x2"]), n("Floor", ["x2"], ["ties"]),
             n("Sqrt", ["x"], ["nans"])]
    outputs = []
    cases = [("x", "k3", 1, 1), ("x", "k1", 0, 0), ("ties", "k3", 2, 1),
             ("ties", "k5", -1, 0), ("nans", "k3", 1, 1), ("nans", "k5", 2, 0),
             ("i64", "k3", 1, 1), ("i64", "k5", 0, 0)]
    for k, (src, kname, axis, largest) in enumerate(cases):
        nodes.append(n("TopK", [src, kname], ["v%d" % k, "i%d" % k],
                       axis=axis, largest=largest, sorted=1))
        outputs += [vi("v%d" % k, I64 if src == "i64" else F),
                    vi("i%d" % k, I64)]
    return build(nodes, [vi("x", F, [4, 6, 5]), vi("i64", I64, [5, 7])],
                 outputs,
                 [numpy_helper.from_array(np.array(2.0, np.float32), "two"),
                  ints("k1", [1]), ints("k3", [3]), ints("k5", [5])])


def one_node(op, inputs, input_infos, inits=(), opset=18, **attrs):
    """One `op` node named 'bad' (error cases for the import test)."""
    return build([helper.make_node(op, inputs, ["y"], name="bad", **attrs)],
                 input_infos, [vi("y", F)], inits, opset, check=False)


# Written with --write-only for test/tools/tandemc/import-index-ops.test.
IMPORT_MODELS = {
    "cumsum_runtime_axis": lambda: one_node(
        "CumSum", ["x", "axis"], [vi("x", F, [2, 3]), vi("axis", I64, [])],
        opset=14),
    "cumsum_two_axes": lambda: one_node(
        "CumSum", ["x", "axis"], [vi("x", F, [2, 3])],
        [ints("axis", [0, 1])], opset=14),
    "argmax_bad_axis": lambda: one_node(
        "ArgMax", ["x"], [vi("x", F, [2, 3])], opset=13, axis=2),
    "reduce_prod_runtime_axes": lambda: one_node(
        "ReduceProd", ["x", "axes"], [vi("x", F, [2, 3]),
                                      vi("axes", I64, [1])]),
    "gather_elements_too_large": lambda: one_node(
        "GatherElements", ["x", "idx"], [vi("x", F, [2, 3]),
                                         vi("idx", I64, [3, 3])],
        opset=13, axis=1),
    # A constant mask's running sum folds to position ids at import.
    # Bool ReduceMin/ReduceMax (opset 20): all/any.
    "reduce_bool": lambda: build(
        [helper.make_node("ReduceMin", ["b", "ax"], ["all"], keepdims=0),
         helper.make_node("ReduceMax", ["b", "ax"], ["any"], keepdims=0)],
        [vi("b", TensorProto.BOOL, [3, 4])],
        [vi("all", TensorProto.BOOL), vi("any", TensorProto.BOOL)],
        [ints("ax", [1])], opset=20),
    # Shape -> ReduceProd -> Reshape (an element count), and ReduceMin/Max/
    # Sum of known integers, fold at import.
    "reduce_known": lambda: build(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("ReduceProd", ["s"], ["n"]),
         helper.make_node("Reshape", ["x", "n"], ["flat"]),
         helper.make_node("ReduceMin", ["c", "ax"], ["cmin"], keepdims=0),
         helper.make_node("ReduceMax", ["c", "ax"], ["cmax"]),
         helper.make_node("ReduceSum", ["c", "ax"], ["csum"], keepdims=0)],
        [vi("x", F, [2, 3, 4])],
        [vi("flat", F), vi("cmin", I64), vi("cmax", I64), vi("csum", I64)],
        [ints("c", [[3, -1, 7], [2, 5, 0]]), ints("ax", [1])]),
    "gather_nd_const_oob": lambda: one_node(
        "GatherND", ["x", "idx"], [vi("x", F, [3, 4])],
        [ints("idx", [[2, 3], [0, 4]])], opset=13),
    "top_k_runtime_k": lambda: one_node(
        "TopK", ["x", "k"], [vi("x", F, [2, 3]), vi("k", I64, [1])]),
    "top_k_too_large": lambda: one_node(
        "TopK", ["x", "k"], [vi("x", F, [2, 3])], [ints("k", [4])]),
    "cumsum_folds": lambda: build(
        [helper.make_node("CumSum", ["mask", "axis"], ["ids"], exclusive=1)],
        [vi("x", F, [1])], [vi("ids", I64)],
        [ints("mask", [[1, 1, 0, 1], [0, 1, 1, 1]]), ints("axis", 1)],
        opset=14),
}


MODELS = {"reduce_opset13": reduce_opset13, "reduce_opset18": reduce_opset18,
          "arg_reduce": arg_reduce, "gather_elements": gather_elements,
          "gather_nd": gather_nd, "cumsum": cumsum, "top_k": top_k}


def main():
    return run_e2e.op_models_main("index-ops", MODELS, IMPORT_MODELS)


if __name__ == "__main__":
    sys.exit(main())
