"""Small ONNX models whose outputs add constant subgraphs to a graph input,
for run_e2e.py --small folds: the subgraphs fold to constants at import and
in the graph passes (the tandem ops' folders, TandemComputeFolds.cpp and
TandemFolds.cpp), so comparing the outputs with onnxruntime checks the
folded values, not only that they fold.

fold_float_math: the transcendental ops, Gelu (erf and tanh), Clip and a
  float fmod on constants.
fold_reductions: ReduceSum/Mean/Max/Min/Prod, ArgMax/ArgMin (first and last
  index), CumSum (exclusive, reverse) and TopK (largest and smallest, ties)
  on float constants.
fold_gathers: GatherElements, GatherND (with batch_dims), a float and an
  int64 MatMul (through Einsum), and Pad in every mode on constants.
wrap_pad: Pad with mode wrap of the graph input itself (computed at run
  time, not folded).
int_matmul: int64 and int32 MatMul of graph inputs (run time).
large_scatter: ScatterND of the graph input whose 12800 indices a constant
  subgraph computes (BEiT's relative position index).
"""
import numpy as np
from onnx import TensorProto as T
from onnx import helper, numpy_helper

_RNG = np.random.default_rng(11)
F32 = np.float32


def _c(name, value):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(value),
                                                          name))


def _sum_into_output(nodes, terms, shape, opset=20):
    """y = x + sum of the float `terms` (each broadcast to `shape`)."""
    acc = "x"
    for i, t in enumerate(terms):
        nodes.append(helper.make_node("Add", [acc, t], ["acc%d" % i]))
        acc = "acc%d" % i
    nodes.append(helper.make_node("Identity", [acc], ["y"]))
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(nodes, "g", [vi("x", T.FLOAT, shape)],
                              [vi("y", T.FLOAT, shape)])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def float_math():
    a = _RNG.uniform(-0.9, 0.9, (2, 4)).astype(F32)
    nodes = [_c("a", a), _c("big", (np.abs(a) + 1.5).astype(F32)),
             _c("pos", (np.abs(a) + 0.1).astype(F32))]
    terms = []
    for op in ["Sigmoid", "Tanh", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos",
               "Atan", "Sinh", "Cosh", "Asinh", "Atanh"]:
        nodes.append(helper.make_node(op, ["a"], [op.lower()]))
        terms.append(op.lower())
    nodes += [helper.make_node("Log", ["pos"], ["log"]),
              helper.make_node("Acosh", ["big"], ["acosh"]),
              helper.make_node("Gelu", ["a"], ["gelu"]),
              helper.make_node("Gelu", ["a"], ["gelu_tanh"],
                               approximate="tanh"),
              _c("lo", np.array(-0.25, F32)), _c("hi", np.array(0.5, F32)),
              helper.make_node("Clip", ["a", "lo", "hi"], ["clip"]),
              _c("d", np.array([[0.3, -0.4, 0.7, 0.25]] * 2, F32)),
              helper.make_node("Mod", ["a", "d"], ["fmod"], fmod=1)]
    terms += ["log", "acosh", "gelu", "gelu_tanh", "clip", "fmod"]
    return _sum_into_output(nodes, terms, [2, 4])


def reductions():
    # Ties (the 0.5s) and repeated maxima check the index choices.
    a = np.array([[0.5, -1.0, 2.0, 0.5], [3.0, 3.0, -2.0, 0.25],
                  [0.5, 0.75, 0.5, -4.0]], F32)
    nodes = [_c("a", a), _c("ax1", np.array([1], np.int64))]
    terms = []
    for op in ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
               "ReduceProd"]:
        nodes.append(helper.make_node(op, ["a", "ax1"], [op], keepdims=1))
        terms.append(op)
    for op in ["ArgMax", "ArgMin"]:
        for last in (0, 1):
            name = "%s%d" % (op, last)
            nodes += [helper.make_node(op, ["a"], [name + "_i"], axis=1,
                                       select_last_index=last),
                      helper.make_node("Cast", [name + "_i"], [name],
                                       to=T.FLOAT)]
            terms.append(name)
    nodes += [_c("ax0", np.array(1, np.int64)),
              helper.make_node("CumSum", ["a", "ax0"], ["cumsum"]),
              helper.make_node("CumSum", ["a", "ax0"], ["cumsum_er"],
                               exclusive=1, reverse=1),
              _c("k", np.array([4], np.int64)),
              helper.make_node("TopK", ["a", "k"], ["top_v", "top_i"],
                               axis=1),
              helper.make_node("TopK", ["a", "k"], ["low_v", "low_i"],
                               axis=1, largest=0),
              helper.make_node("Cast", ["top_i"], ["top_if"], to=T.FLOAT),
              helper.make_node("Cast", ["low_i"], ["low_if"], to=T.FLOAT)]
    terms += ["cumsum", "cumsum_er", "top_v", "top_if", "low_v", "low_if"]
    return _sum_into_output(nodes, terms, [3, 4])


def gathers():
    data = _RNG.standard_normal((2, 3, 4)).astype(F32)
    ge_idx = np.array([[[0, 2, -1, 1]] * 3] * 2, np.int64)
    nd_idx = np.array([[[1, 0], [2, -1], [0, 3]], [[0, 1], [1, 2], [2, 0]]],
                      np.int64)  # batch_dims 1: [2, 3, 2] -> [2, 3]
    m = _RNG.standard_normal((4, 4)).astype(F32)
    ia = np.array([[1, -2, 3], [4, 0, -1]], np.int64)
    ib = np.array([[2, 1, 0, -3], [1, 1, 2, 0], [0, -1, 5, 2]], np.int64)
    small = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], F32)
    nodes = [_c("data", data), _c("ge_idx", ge_idx), _c("nd_idx", nd_idx),
             _c("m", m), _c("ia", ia), _c("ib", ib), _c("small", small),
             helper.make_node("GatherElements", ["data", "ge_idx"], ["ge"],
                              axis=2),
             helper.make_node("GatherND", ["data", "nd_idx"], ["nd"],
                              batch_dims=1),
             _c("nd_shape", np.array([2, 3, 1], np.int64)),
             helper.make_node("Reshape", ["nd", "nd_shape"], ["nd3"]),
             helper.make_node("MatMul", ["data", "m"], ["mm"]),
             helper.make_node("Einsum", ["ia", "ib"], ["imm"],
                              equation="ij,jk->ik"),
             helper.make_node("Cast", ["imm"], ["imm_c"], to=T.FLOAT),
             _c("imm_shape", np.array([2, 1, 4], np.int64)),
             helper.make_node("Reshape", ["imm_c", "imm_shape"], ["imm_f"]),
             _c("pads", np.array([1, 1, 2, 1], np.int64))]
    terms = ["ge", "nd3", "mm", "imm_f"]
    for mode in ["constant", "reflect", "edge", "wrap"]:
        # [3, 2] padded to [6, 4], every other row: [3, 4], added to x.
        nodes += [helper.make_node("Pad", ["small", "pads"], ["p_" + mode],
                                   mode=mode),
                  _c("st_" + mode, np.array([0, 0], np.int64)),
                  _c("en_" + mode, np.array([6, 4], np.int64)),
                  _c("sp_" + mode, np.array([2, 1], np.int64)),
                  _c("ax_" + mode, np.array([0, 1], np.int64)),
                  helper.make_node("Slice", ["p_" + mode, "st_" + mode,
                                             "en_" + mode, "ax_" + mode,
                                             "sp_" + mode], ["ps_" + mode])]
        terms.append("ps_" + mode)
    return _sum_into_output(nodes, terms, [2, 3, 4])


def wrap_pad():
    vi = helper.make_tensor_value_info
    nodes = [_c("pads", np.array([0, 2, 1, 0, 1, 3], np.int64)),
             helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap")]
    graph = helper.make_graph(nodes, "g", [vi("x", T.FLOAT, [2, 3, 4])],
                              [vi("y", T.FLOAT, [2, 6, 8])])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 19)])


def int_matmul():
    """int64 and int32 MatMul of graph inputs by constants (exact, on the
    CPU), with a negative weight so signedness matters."""
    vi = helper.make_tensor_value_info
    w64 = np.array([[3, -1, 2, 0, 7], [1, 1, -5, 2, 0], [0, 4, 1, -2, 3],
                    [-3, 2, 0, 1, 1]], np.int64)
    nodes = [_c("w64", w64), _c("w32", w64.astype(np.int32)),
             helper.make_node("MatMul", ["x", "w64"], ["y"]),
             helper.make_node("MatMul", ["x32", "w32"], ["y32"])]
    graph = helper.make_graph(
        nodes, "g", [vi("x", T.INT64, [2, 3, 4]), vi("x32", T.INT32, [3, 4])],
        [vi("y", T.INT64, [2, 3, 5]), vi("y32", T.INT32, [3, 5])])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


def large_scatter():
    """BEiT's relative position index, in small: ScatterND of the graph
    input with indices built at compile time from constants by Expand,
    Unsqueeze and Concat (64 x 100 x 2 = 12800 of them, more than the
    importer tracks as known values): row r, column c goes to row 63 - r,
    column (c * 7) mod 100 (a permutation, so the result is exact)."""
    vi = helper.make_tensor_value_info
    rows = (63 - np.arange(64, dtype=np.int64)).reshape(64, 1)
    cols = ((np.arange(100, dtype=np.int64) * 7) % 100).reshape(1, 100)
    nodes = [_c("rows", rows), _c("cols", cols),
             _c("shape", np.array([64, 100], np.int64)),
             _c("last", np.array([2], np.int64)),
             helper.make_node("Expand", ["rows", "shape"], ["r"]),
             helper.make_node("Expand", ["cols", "shape"], ["c"]),
             helper.make_node("Unsqueeze", ["r", "last"], ["r1"]),
             helper.make_node("Unsqueeze", ["c", "last"], ["c1"]),
             helper.make_node("Concat", ["r1", "c1"], ["indices"], axis=2),
             _c("two", np.array(2.0, F32)),
             helper.make_node("Mul", ["x", "two"], ["updates"]),
             helper.make_node("ScatterND", ["x", "indices", "updates"],
                              ["y"])]
    graph = helper.make_graph(nodes, "g", [vi("x", T.FLOAT, [64, 100])],
                              [vi("y", T.FLOAT, [64, 100])])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


MODELS = {"fold_float_math": float_math, "fold_reductions": reductions,
          "fold_gathers": gathers, "wrap_pad": wrap_pad,
          "int_matmul": int_matmul, "large_scatter": large_scatter}
