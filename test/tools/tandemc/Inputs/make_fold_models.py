#!/usr/bin/env python3
"""Models whose Reshape target shape comes from a constant subgraph of ops
the KnownInts shape folders do not track (Ceil of floats, Trilu, ScatterND,
Expand, Not + Where, ArgMax, TopK, GatherND, a wrap Pad, an integer Clip and
Einsum, Sigmoid and a float Mod) or do (CumSum, Mod, Range): the importer
must evaluate each at compile time (ConstantEvaluation.cpp). Every shape is [2, 3, 5] or
another factoring of 30, so the Reshape of the 30-element input checks the
value. Also a Trilu mask on float constants that folds into one constant,
and a scalar Clip bound computed as Cast(Ceil(x)).

usage: make_fold_models.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh


def c(name, value):
    return h.make_node("Constant", [], [name],
                       value=nh.from_array(np.array(value), name))


def i64(values):
    return np.array(values, np.int64)


SHAPES = {
    "fold_cumsum": [c("a", i64([2, 3, -2])), c("ax", np.array(0, np.int64)),
                    h.make_node("CumSum", ["a", "ax"], ["s"])],  # 2, 5, 3
    "fold_mod": [c("a", i64([32, 7, 30])), c("b", i64([30, 5, 60])),
                 h.make_node("Mod", ["a", "b"], ["m"]),  # 2, 2, 30
                 c("k", i64([0, 3, -27])),
                 h.make_node("Add", ["m", "k"], ["s"])],  # 2, 5, 3
    "fold_range": [c("st", np.array(1, np.int64)),
                   c("li", np.array(4, np.int64)),
                   c("de", np.array(1, np.int64)),
                   h.make_node("Range", ["st", "li", "de"], ["r"]),
                   c("m", i64([5, 1, 1])),
                   h.make_node("Mul", ["r", "m"], ["s"])],  # 5, 2, 3
    "fold_ceil": [c("a", np.array([1.5, 2.2, 4.9], np.float32)),
                  h.make_node("Ceil", ["a"], ["b"]),
                  h.make_node("Cast", ["b"], ["s"], to=T.INT64)],  # 2, 3, 5
    "fold_not_where": [c("a", np.array([True, False, True])),
                       h.make_node("Not", ["a"], ["b"]),
                       c("p", i64([2, 2, 2])), c("q", i64([3, 3, 5])),
                       h.make_node("Where", ["b", "p", "q"], ["s"])],  # 3,2,5
    "fold_scatternd": [c("a", i64([1, 1, 5])), c("i", i64([[0], [1]])),
                       c("u", i64([2, 3])),
                       h.make_node("ScatterND", ["a", "i", "u"], ["s"])],
    "fold_trilu": [c("a", i64([[2, 3], [4, 5]])),
                   h.make_node("Trilu", ["a"], ["t"], upper=1),  # 2 3 / 0 5
                   h.make_node("ReduceSum", ["t"], ["r"], keepdims=0),  # 10
                   c("ax", i64([0])),
                   h.make_node("Unsqueeze", ["r", "ax"], ["r1"]),
                   c("tail", i64([3])),
                   h.make_node("Concat", ["r1", "tail"], ["s"], axis=0)],
    "fold_expand": [c("one", i64([1])), c("sh", i64([3])),
                    h.make_node("Expand", ["one", "sh"], ["e"]),
                    c("m", i64([2, 3, 5])),
                    h.make_node("Mul", ["e", "m"], ["s"])],
    # Ops with constant folders of their own (TandemComputeFolds.cpp and the
    # float ones in TandemFolds.cpp).
    "fold_argmax": [c("a", i64([[1, 4, 2], [9, 0, 0], [0, 1, 1]])),
                    h.make_node("ArgMax", ["a"], ["i"], axis=1, keepdims=0,
                                select_last_index=1),  # 1, 0, 2
                    c("k", i64([1, 5, 1])),
                    h.make_node("Add", ["i", "k"], ["s"])],  # 2, 5, 3
    "fold_topk": [c("a", i64([3, 5, 2, 9])), c("k", i64([3])),
                  h.make_node("TopK", ["a", "k"], ["v", "ix"]),  # 9 5 3
                  c("d", i64([-4, -2, -1])),
                  h.make_node("Add", ["v", "d"], ["s"])],  # 5, 3, 2
    "fold_gathernd": [c("a", i64([[2, 3], [5, 7]])),
                      c("i", i64([[0, 0], [1, 0], [0, 1]])),
                      h.make_node("GatherND", ["a", "i"], ["s"])],  # 2, 5, 3
    "fold_pad_wrap": [c("a", i64([3, 2])), c("p", i64([1, 0])),
                      h.make_node("Pad", ["a", "p"], ["t"], mode="wrap"),
                      c("k", i64([0, 0, 3])),  # t = 2, 3, 2
                      h.make_node("Add", ["t", "k"], ["s"])],  # 2, 3, 5
    "fold_clip_int": [c("a", i64([-4, 3, 99])),
                      c("lo", np.array(2, np.int64)),
                      c("hi", np.array(5, np.int64)),
                      h.make_node("Clip", ["a", "lo", "hi"], ["s"])],  # 2,3,5
    "fold_einsum_int": [c("a", i64([[1, 0], [1, 1], [0, 1]])),
                        c("b", i64([2, 3])),
                        h.make_node("Einsum", ["a", "b"], ["s"],
                                    equation="ij,j->i")],  # 2, 5, 3
    "fold_sigmoid_fmod": [c("a", np.array([20.0, 20.0, 20.0], np.float32)),
                          h.make_node("Sigmoid", ["a"], ["g"]),  # 1, 1, 1
                          c("b", np.array([2.5, 7.5, 5.5], np.float32)),
                          c("q", np.array([4.0, 4.5, 6.0], np.float32)),
                          h.make_node("Mod", ["b", "q"], ["r"], fmod=1),
                          h.make_node("Mul", ["g", "r"], ["f"]),  # 2.5, 3, 5.5
                          h.make_node("Floor", ["f"], ["fl"]),
                          h.make_node("Cast", ["fl"], ["s"], to=T.INT64)],
}


def reshape_model(nodes):
    nodes = nodes + [h.make_node("Reshape", ["x", "s"], ["y"])]
    graph = h.make_graph(nodes, "g",
                         [h.make_tensor_value_info("x", T.FLOAT, [30])],
                         [h.make_tensor_value_info("y", T.FLOAT, [])])
    return graph


def float_mask_model():
    """y = x + where(trilu(ones), 0, -inf): the mask folds to one constant."""
    nodes = [c("ones", np.ones((3, 3), np.float32)),
             h.make_node("Trilu", ["ones"], ["t"], upper=0),
             c("zero", np.array(0.0, np.float32)),
             h.make_node("Equal", ["t", "zero"], ["masked"]),
             c("ninf", np.array(-np.inf, np.float32)),
             h.make_node("Where", ["masked", "ninf", "zero"], ["bias"]),
             h.make_node("Add", ["x", "bias"], ["y"])]
    return h.make_graph(nodes, "g",
                        [h.make_tensor_value_info("x", T.FLOAT, [3, 3])],
                        [h.make_tensor_value_info("y", T.FLOAT, [])])


def clip_model():
    """Clip's max is Cast(Ceil(2.5)) = 3 (an int in float), min Cast(-1.7) to
    int64 and back = -1: both must be the folded values."""
    nodes = [c("hi", np.array(2.5, np.float32)),
             h.make_node("Ceil", ["hi"], ["hi_c"]),
             c("lo", np.array(-1.7, np.float32)),
             h.make_node("Cast", ["lo"], ["lo_i"], to=T.INT64),
             h.make_node("Cast", ["lo_i"], ["lo_f"], to=T.FLOAT),
             h.make_node("Clip", ["x", "lo_f", "hi_c"], ["y"])]
    return h.make_graph(nodes, "g",
                        [h.make_tensor_value_info("x", T.FLOAT, [4])],
                        [h.make_tensor_value_info("y", T.FLOAT, [])])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    graphs = {name: reshape_model(nodes) for name, nodes in SHAPES.items()}
    graphs["fold_float_mask"] = float_mask_model()
    graphs["fold_clip"] = clip_model()
    for name, graph in graphs.items():
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])
        model.ir_version = 8
        onnx.checker.check_model(onnx.shape_inference.infer_shapes(model))
        onnx.save(model, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
