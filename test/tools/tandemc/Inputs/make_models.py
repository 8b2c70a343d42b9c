#!/usr/bin/env python3
"""Builds the small ONNX models (and broken files) the tandemc lit tests import.

usage: make_models.py OUT_DIR NAME [NAME...]

Every model is built with onnx.helper from fixed random weights, so tests
need no downloads and no torch.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(0)


def weight(name, *shape):
    return numpy_helper.from_array(RNG.standard_normal(shape).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def model(nodes, inputs, outputs, inits=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def mlp():
    return model(
        [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
         helper.make_node("Relu", ["h"], ["r"], name="relu1"),
         helper.make_node("MatMul", ["r", "w2"], ["m"], name="fc2"),
         helper.make_node("Add", ["m", "b2"], ["y"], name="fc2_bias")],
        [tensor("x", ["batch", 784])], [tensor("y", ["batch", 10])],
        [weight("w1", 512, 784), weight("b1", 512), weight("w2", 512, 10),
         weight("b2", 10)])


def mlp_gelu():
    """A transformer-style MLP: MatMul + bias + Gelu (tanh approximation,
    opset 20), then MatMul + bias."""
    return model(
        [helper.make_node("MatMul", ["x", "w1"], ["m1"], name="fc1"),
         helper.make_node("Add", ["m1", "b1"], ["h"], name="fc1_bias"),
         helper.make_node("Gelu", ["h"], ["g"], name="gelu",
                          approximate="tanh"),
         helper.make_node("MatMul", ["g", "w2"], ["m2"], name="fc2"),
         helper.make_node("Add", ["m2", "b2"], ["y"], name="fc2_bias")],
        [tensor("x", ["batch", 64])], [tensor("y", ["batch", 16])],
        [weight("w1", 64, 256), weight("b1", 256), weight("w2", 256, 16),
         weight("b2", 16)], opset=20)


def conv_block():
    return model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1",
                          kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
         helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"],
                          name="bn1", epsilon=1e-3),
         helper.make_node("Relu", ["n"], ["r"], name="relu1"),
         helper.make_node("MaxPool", ["r"], ["p"], name="pool1",
                          kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
         helper.make_node("Conv", ["p", "dw"], ["d"], name="dwconv",
                          kernel_shape=[3, 3], group=8, auto_pad="SAME_UPPER"),
         helper.make_node("Clip", ["d", "zero", "six"], ["c6"], name="relu6"),
         helper.make_node("HardSwish", ["c6"], ["hs"], name="hswish"),
         helper.make_node("GlobalAveragePool", ["hs"], ["g"], name="gap"),
         helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
         helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="classifier",
                          transB=1)],
        [tensor("x", [1, 3, 16, 16])], [tensor("y", [1, 4])],
        [weight("w", 8, 3, 3, 3), weight("b", 8), weight("s", 8),
         weight("bb", 8), weight("m", 8),
         numpy_helper.from_array(np.ones(8, np.float32), "v"),
         weight("dw", 8, 1, 3, 3),
         numpy_helper.from_array(np.array(0, np.float32), "zero"),
         numpy_helper.from_array(np.array(6, np.float32), "six"),
         weight("fw", 4, 8), weight("fb", 4)])


def shape_subgraph():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as torch exports."""
    return model(
        [helper.make_node("Shape", ["x"], ["s"], name="shape"),
         helper.make_node("Gather", ["s", "i0"], ["n"], name="gather", axis=0),
         helper.make_node("Unsqueeze", ["n", "ax0"], ["nu"], name="unsqueeze"),
         helper.make_node("Concat", ["nu", "minus1"], ["target"], name="concat",
                          axis=0),
         helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")],
        [tensor("x", [2, 3, 4])], [tensor("y", [2, 12])],
        [ints("i0", 0), ints("ax0", [0]), ints("minus1", [-1])])


def attention():
    """A self-attention block with a mask, LayerNorm and an erf GELU."""
    d, h, s = 16, 2, 4
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        helper.make_node("Reshape", ["q", "heads"], ["q4"], name="q_split"),
        helper.make_node("Transpose", ["q4"], ["qt"], name="q_t", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["k", "heads"], ["k4"], name="k_split"),
        helper.make_node("Transpose", ["k4"], ["kt"], name="k_t", perm=[0, 2, 3, 1]),
        helper.make_node("MatMul", ["qt", "kt"], ["sc"], name="scores"),
        helper.make_node("Div", ["sc", "scale"], ["scd"], name="scale"),
        helper.make_node("Equal", ["mask", "zero_i"], ["masked"], name="mask_eq"),
        helper.make_node("Where", ["masked", "ninf", "scd"], ["msc"], name="mask"),
        helper.make_node("Softmax", ["msc"], ["p"], name="softmax", axis=-1),
        helper.make_node("Transpose", ["p"], ["pt"], name="p_t", perm=[0, 1, 3, 2]),
        helper.make_node("ReduceMean", ["pt"], ["pm"], name="mean", axes=[1],
                         keepdims=0),
        helper.make_node("LayerNormalization", ["x", "g", "b"], ["ln"], name="ln",
                         axis=-1, epsilon=1e-12),
        helper.make_node("Div", ["ln", "sqrt2"], ["t"], name="gelu_div"),
        helper.make_node("Erf", ["t"], ["e"], name="gelu_erf"),
        helper.make_node("Add", ["e", "one"], ["e1"], name="gelu_add"),
        helper.make_node("Mul", ["ln", "e1"], ["gm"], name="gelu_mul"),
        helper.make_node("Mul", ["gm", "half"], ["y"], name="gelu_half"),
        helper.make_node("Split", ["y", "split"], ["y0", "y1"], name="split",
                         axis=2),
    ]
    f = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    return model(
        nodes,
        [tensor("x", [1, s, d]), tensor("mask", [1, 1, 1, s], TensorProto.INT64)],
        [tensor("pm", [1, s, s]), tensor("y0", [1, s, 8]),
         tensor("y1", [1, s, 8])],
        [weight("wq", d, d), weight("wk", d, d), ints("heads", [1, s, h, d // h]),
         f("scale", np.sqrt(d // h)), ints("zero_i", 0), f("ninf", -1e9),
         weight("g", d), weight("b", d), f("sqrt2", np.sqrt(2.0)), f("one", 1.0),
         f("half", 0.5), ints("split", [8, 8])])


def window_attention():
    """Swin-style window attention over a batch of windows: q, k and v
    gathered from one transposed qkv projection, scaled scores plus a
    relative position bias, a softmax and P V, the heads merged back and a
    projection. Its batched MatMuls run over windows x heads, which the
    softmax's rows split into windows and heads; a head (32 values) is wider
    than a window (16 tokens)."""
    w, t, c, h = 4, 16, 64, 2
    d = c // h
    f = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    nodes = [
        helper.make_node("MatMul", ["x", "wqkv"], ["qkv"], name="qkv"),
        helper.make_node("Reshape", ["qkv", "qkv_shape"], ["qkv5"],
                         name="qkv_split"),
        helper.make_node("Transpose", ["qkv5"], ["qkv_t"], name="qkv_t",
                         perm=[2, 0, 3, 1, 4]),
        helper.make_node("Gather", ["qkv_t", "i0"], ["q"], name="q", axis=0),
        helper.make_node("Gather", ["qkv_t", "i1"], ["k"], name="k", axis=0),
        helper.make_node("Gather", ["qkv_t", "i2"], ["v"], name="v", axis=0),
        helper.make_node("Mul", ["q", "scale"], ["qs"], name="q_scale"),
        helper.make_node("Transpose", ["k"], ["kt"], name="k_t",
                         perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["qs", "kt"], ["sc"], name="scores"),
        helper.make_node("Add", ["sc", "bias"], ["scb"], name="rel_bias"),
        helper.make_node("Softmax", ["scb"], ["p"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"], name="pv"),
        helper.make_node("Transpose", ["o"], ["ot"], name="o_t",
                         perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ot", "merged"], ["om"], name="merge"),
        helper.make_node("MatMul", ["om", "wo"], ["y"], name="proj"),
    ]
    return model(
        nodes, [tensor("x", [w, t, c])], [tensor("y", [w, t, c])],
        # Weights scaled by 1/sqrt(fan-in), as trained ones are: scores of
        # unit size, whose softmax bf16's rounding does not flip.
        [f("wqkv", RNG.standard_normal((c, 3 * c)) / np.sqrt(c)),
         ints("qkv_shape", [w, t, 3, h, d]), ints("i0", 0), ints("i1", 1),
         ints("i2", 2), f("scale", 1 / np.sqrt(d)),
         weight("bias", 1, h, t, t), ints("merged", [w, t, c]),
         f("wo", RNG.standard_normal((c, c)) / np.sqrt(c))])


def windows():
    """Swin-style data movement: a LayerNorm, then a cyclic shift (torch.roll
    exports two Slices and a Concat per axis), a residual add, and a patch
    merge (four strided Slices concatenated along the channels)."""
    n, c, s = 8, 16, 3

    def cut(x, out, starts, ends, axes, steps=None):
        names = [out + "_" + k for k in ("starts", "ends", "axes", "steps")]
        inits.extend([ints(names[0], starts), ints(names[1], ends),
                      ints(names[2], axes)])
        inputs = [x] + names[:3]
        if steps:
            inits.append(ints(names[3], steps))
            inputs.append(names[3])
        nodes.append(helper.make_node("Slice", inputs, [out], name=out))

    inits = [weight("g", c), weight("b", c)]
    nodes = [helper.make_node("LayerNormalization", ["x", "g", "b"], ["ln"],
                              name="ln", axis=-1, epsilon=1e-5)]
    cut("ln", "h_tail", [s], [n], [1])
    cut("ln", "h_head", [0], [s], [1])
    nodes.append(helper.make_node("Concat", ["h_tail", "h_head"], ["rolled_h"],
                                  name="roll_h", axis=1))
    cut("rolled_h", "w_tail", [s], [n], [2])
    cut("rolled_h", "w_head", [0], [s], [2])
    nodes.append(helper.make_node("Concat", ["w_tail", "w_head"], ["rolled"],
                                  name="roll_w", axis=2))
    nodes.append(helper.make_node("Add", ["rolled", "x"], ["r"], name="res"))
    for i, (h0, w0) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
        cut("r", "p%d" % i, [h0, w0], [n, n], [1, 2], [2, 2])
    nodes.append(helper.make_node("Concat", ["p0", "p1", "p2", "p3"], ["y"],
                                  name="merge", axis=3))
    return model(nodes, [tensor("x", [1, n, n, c])],
                 [tensor("y", [1, n // 2, n // 2, 4 * c])], inits)


def pool_mixer():
    """A PoolFormer block as torch exports timm's poolformer_s12: each
    GroupNorm of one group as Reshape, InstanceNormalization over the whole
    image and Reshape back with its affine map after it; an average pool
    (without the padding in its counts) less its input as the token mixer;
    a 1x1 conv MLP with an exact (erf) GELU; per-channel layer scales
    before both residual adds. Its 16 x 64 x 64 image makes each norm
    reduce 65536 elements to one mean, which GPU partitions split
    (tandem-split-reductions)."""
    c, h = 16, 64
    one = numpy_helper.from_array(np.ones([1], np.float32), "one")
    zero = numpy_helper.from_array(np.zeros([1], np.float32), "zero")
    inits = [one, zero, ints("flat", [1, 1, -1]), ints("image", [1, c, h, h]),
             weight("n1_g", c, 1, 1), weight("n1_b", c, 1, 1),
             weight("n2_g", c, 1, 1), weight("n2_b", c, 1, 1),
             weight("ls1", c, 1, 1), weight("ls2", c, 1, 1),
             weight("fc1_w", 2 * c, c, 1, 1), weight("fc1_b", 2 * c),
             weight("fc2_w", c, 2 * c, 1, 1), weight("fc2_b", c),
             numpy_helper.from_array(np.array(2 ** 0.5, np.float32), "sqrt2"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one_s"),
             numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    nodes = []

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))

    def group_norm(x, out, g, b):
        node("Reshape", [x, "flat"], out + "_flat")
        node("InstanceNormalization", [out + "_flat", "one", "zero"],
             out + "_in", epsilon=1e-5)
        node("Reshape", [out + "_in", "image"], out + "_img")
        node("Mul", [out + "_img", g], out + "_scaled")
        node("Add", [out + "_scaled", b], out)

    group_norm("x", "n1", "n1_g", "n1_b")
    node("AveragePool", ["n1"], "pool", kernel_shape=[3, 3],
         pads=[1, 1, 1, 1], strides=[1, 1], count_include_pad=0)
    node("Sub", ["pool", "n1"], "mixed")
    node("Mul", ["mixed", "ls1"], "mixed_scaled")
    node("Add", ["x", "mixed_scaled"], "r1")
    group_norm("r1", "n2", "n2_g", "n2_b")
    node("Conv", ["n2", "fc1_w", "fc1_b"], "fc1")
    node("Div", ["fc1", "sqrt2"], "gelu_div")
    node("Erf", ["gelu_div"], "gelu_erf")
    node("Add", ["gelu_erf", "one_s"], "gelu_add")
    node("Mul", ["fc1", "gelu_add"], "gelu_mul")
    node("Mul", ["gelu_mul", "half"], "gelu")
    node("Conv", ["gelu", "fc2_w", "fc2_b"], "fc2")
    node("Mul", ["fc2", "ls2"], "mlp_scaled")
    node("Add", ["r1", "mlp_scaled"], "y")
    return model(nodes, [tensor("x", [1, c, h, h])],
                 [tensor("y", [1, c, h, h])], inits)


def partitions():
    """MaxViT-style data movement (torchvision's maxvit_t exports it so):
    an NCHW image into 3 x 3 windows (channels last), a LayerNorm and a
    residual add there, back to NCHW, into a 3 x 3 grid of 2 x 2 cells
    (the image's 6 rows split as 3 x 2, not 2 x 3, then the grid and cell
    axes swapped), the same there, back to NCHW and a per-channel scale (a
    BatchNorm with trivial statistics)."""
    c, h = 32, 6
    inits = [weight("g1", c), weight("b1", c), weight("g2", c),
             weight("b2", c), weight("scale", c, 1, 1)]
    nodes = []

    def reshape(x, out, shape):
        inits.append(ints(out + "_shape", shape))
        nodes.append(helper.make_node("Reshape", [x, out + "_shape"], [out],
                                      name=out))

    def transpose(x, out, perm):
        nodes.append(helper.make_node("Transpose", [x], [out], name=out,
                                      perm=perm))

    def norm_and_add(x, out, g, b):
        nodes.append(helper.make_node("LayerNormalization", [x, g, b],
                                      [out + "_ln"], name=out + "_ln",
                                      axis=-1, epsilon=1e-5))
        nodes.append(helper.make_node("Add", [x, out + "_ln"], [out],
                                      name=out))

    # Windows: (1, c, 2, 3, 2, 3) -> (1, 2, 2, 3, 3, c) -> (1, 4, 9, c).
    reshape("x", "win_split", [1, c, 2, 3, 2, 3])
    transpose("win_split", "win_perm", [0, 2, 4, 3, 5, 1])
    reshape("win_perm", "win", [1, 4, 9, c])
    norm_and_add("win", "win_out", "g1", "b1")
    reshape("win_out", "win_back", [1, 2, 2, 3, 3, c])
    transpose("win_back", "win_nchw_perm", [0, 5, 1, 3, 2, 4])
    reshape("win_nchw_perm", "win_nchw", [1, c, h, h])
    # Grid: (1, c, 3, 2, 3, 2) -> (1, 3, 3, 2, 2, c) -> (1, 9, 4, c),
    # swapped to (1, 4, 9, c).
    reshape("win_nchw", "grid_split", [1, c, 3, 2, 3, 2])
    transpose("grid_split", "grid_perm", [0, 2, 4, 3, 5, 1])
    reshape("grid_perm", "grid_cells", [1, 9, 4, c])
    transpose("grid_cells", "grid", [0, 2, 1, 3])
    norm_and_add("grid", "grid_out", "g2", "b2")
    transpose("grid_out", "grid_unswap", [0, 2, 1, 3])
    reshape("grid_unswap", "grid_back", [1, 3, 3, 2, 2, c])
    transpose("grid_back", "grid_nchw_perm", [0, 5, 1, 3, 2, 4])
    reshape("grid_nchw_perm", "grid_nchw", [1, c, h, h])
    nodes.append(helper.make_node("Mul", ["grid_nchw", "scale"], ["y"],
                                  name="scale_mul"))
    return model(nodes, [tensor("x", [1, c, h, h])],
                 [tensor("y", [1, c, h, h])], inits)


def opset13_squeeze():
    """Squeeze/Unsqueeze axes and ReduceSum axes as inputs (opset 13)."""
    return model(
        [helper.make_node("Unsqueeze", ["x", "ax"], ["u"], name="unsq"),
         helper.make_node("ReduceSum", ["u", "ax"], ["r"], name="rsum",
                          keepdims=1),
         helper.make_node("Squeeze", ["r", "ax"], ["y"], name="sq"),
         helper.make_node("ReduceMean", ["y"], ["m"], name="rmean", axes=[1])],
        [tensor("x", [2, 3])], [tensor("m", [2, 1])], [ints("ax", [0])],
        opset=13)


def opset18_reduce():
    """ReduceMean axes as an input (opset 18)."""
    return model(
        [helper.make_node("ReduceMean", ["x", "ax"], ["m"], name="rmean",
                          keepdims=0)],
        [tensor("x", [2, 3, 4])], [tensor("m", [2, 4])], [ints("ax", [-2])],
        opset=18)


def external_data(out_dir):
    def build():
        return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                     [tensor("x", [64, 64])], [tensor("y", [64, 64])],
                     [weight("w", 64, 64)])
    onnx.save_model(build(), os.path.join(out_dir, "external_data.onnx"),
                    save_as_external_data=True, all_tensors_to_one_file=True,
                    location="external_data.bin", size_threshold=0)
    # The same model whose data file is gone.
    onnx.save_model(build(), os.path.join(out_dir, "missing_external.onnx"),
                    save_as_external_data=True, all_tensors_to_one_file=True,
                    location="missing_external.bin", size_threshold=0)
    os.remove(os.path.join(out_dir, "missing_external.bin"))


def dynamic_dims():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tensor("x", ["N", "C", 8])], [tensor("y", ["N", "C", 8])])


def unsupported_ops():
    """Ops that stay unsupported (data-dependent shapes, another domain);
    NonZero twice, so the error lists it once with both nodes."""
    return model(
        [helper.make_node("Relu", ["x"], ["a"], name="ok"),
         helper.make_node("NonZero", ["a"], ["b"], name="nz1"),
         helper.make_node("NonZero", ["a"], ["b2"], name="nz2"),
         helper.make_node("Unique", ["b"], ["c"], name="uniq"),
         helper.make_node("Inverse", ["c"], ["y"], name="inv",
                          domain="com.microsoft")],
        [tensor("x", [2, 2])], [tensor("y", [2, 2])])


def unsupported_op():
    """One unsupported node, unnamed."""
    return model([helper.make_node("NonZero", ["x"], ["y"])],
                 [tensor("x", [2, 2])], [tensor("y", [2, 4], TensorProto.INT64)])


def math_ops():
    """Every float elementwise op that the GPU runs, each from the same
    inputs and each its own output: the trigonometric, hyperbolic and
    rounding functions, the activations, Pow, Mod, Sign and the NaN/Inf
    tests with logical ops on their results."""
    unary = ["Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
             "Asinh", "Acosh", "Atanh", "Floor", "Ceil", "Round", "Sign",
             "LeakyRelu", "Elu", "Selu", "Celu", "Softplus", "Softsign",
             "Mish", "ThresholdedRelu", "Shrink", "Exp", "Tanh", "Erf"]
    nodes = [helper.make_node(op, ["x"], [op.lower()], name=op.lower())
             for op in unary]
    nodes += [helper.make_node("Pow", ["x", "e"], ["pow"], name="pow"),
              helper.make_node("Mod", ["x", "e"], ["mod"], name="mod", fmod=1),
              helper.make_node("PRelu", ["x", "e"], ["prelu"], name="prelu"),
              helper.make_node("Mean", ["x", "e"], ["mean"], name="mean"),
              helper.make_node("IsNaN", ["x"], ["nan"], name="isnan"),
              helper.make_node("IsInf", ["x"], ["inf"], name="isinf"),
              helper.make_node("Or", ["nan", "inf"], ["special"], name="or"),
              helper.make_node("Not", ["special"], ["finite"], name="not"),
              helper.make_node("Xor", ["nan", "finite"], ["xor"], name="xor")]
    floats = [o.lower() for o in unary] + ["pow", "mod", "prelu", "mean"]
    outputs = [tensor(o, [64]) for o in floats]
    outputs += [tensor(o, [64], TensorProto.BOOL) for o in ("special", "xor")]
    return model(nodes, [tensor("x", [64]), tensor("e", [64])], outputs,
                 opset=18)


def int_ops():
    """The integer and bool ops: Bitwise{And,Or,Xor,Not}, BitShift both
    ways, Mod with fmod 0 and 1, Sign and Abs on int32, And/Or/Xor/Not on
    bools, CastLike, Size; and a constant Mod/BitShift/Not/Neg subgraph on
    int64 initializers that the importer folds (a mask's arithmetic)."""
    i32 = TensorProto.INT32
    nodes = [
        helper.make_node("BitwiseAnd", ["a", "b"], ["band"], name="band"),
        helper.make_node("BitwiseOr", ["a", "b"], ["bor"], name="bor"),
        helper.make_node("BitwiseXor", ["a", "b"], ["bxor"], name="bxor"),
        helper.make_node("BitwiseNot", ["a"], ["bnot"], name="bnot"),
        helper.make_node("BitShift", ["a", "b"], ["shl"], name="shl",
                         direction="LEFT"),
        helper.make_node("BitShift", ["a", "b"], ["shr"], name="shr",
                         direction="RIGHT"),
        helper.make_node("Mod", ["a", "b"], ["mod"], name="mod"),
        helper.make_node("Mod", ["a", "b"], ["fmod"], name="fmod", fmod=1),
        helper.make_node("Sign", ["a"], ["sign"], name="sign"),
        helper.make_node("And", ["p", "q"], ["and"], name="and"),
        helper.make_node("Or", ["p", "q"], ["or"], name="or"),
        helper.make_node("Xor", ["p", "q"], ["xor"], name="xor"),
        helper.make_node("Not", ["p"], ["not"], name="not"),
        helper.make_node("CastLike", ["a", "x"], ["like"], name="like"),
        helper.make_node("Size", ["a"], ["size"], name="size"),
        helper.make_node("Mod", ["c7", "c3"], ["k1"], name="kmod"),
        helper.make_node("BitShift", ["k1", "c3"], ["k2"], name="kshl",
                         direction="LEFT"),
        helper.make_node("BitwiseNot", ["k2"], ["k3"], name="knot"),
        helper.make_node("Neg", ["k3"], ["k4"], name="kneg"),
        helper.make_node("Add", ["size", "k4"], ["sum"], name="ksum"),
    ]
    b = TensorProto.BOOL
    return model(
        nodes,
        [tensor("a", [8], i32), tensor("b", [8], i32), tensor("p", [8], b),
         tensor("q", [8], b), tensor("x", [1])],
        [tensor(n, [8], i32) for n in
         ("band", "bor", "bxor", "bnot", "shl", "shr", "mod", "fmod",
          "sign")] +
        [tensor(n, [8], b) for n in ("and", "or", "xor", "not")] +
        [tensor("like", [8]), tensor("sum", [2], TensorProto.INT64)],
        [ints("c7", [7, -7]), ints("c3", [3])], opset=18)


def bad_op(op, inputs, attrs, dtype=TensorProto.FLOAT, opset=18):
    """One `op` node named 'bad' with inputs of `dtype` (an error case, or
    one op of an unusual type)."""
    names = ["x%d" % i for i in range(inputs)]
    return lambda: model(
        [helper.make_node(op, names, ["y"], name="bad", **attrs)],
        [tensor(n, [4], dtype) for n in names], [tensor("y", [4], dtype)],
        opset=opset)


def missing_initializer():
    return model([helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias")],
                 [tensor("x", [4])], [tensor("y", [4])])


def inconsistent_shapes():
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv_bad",
                                   kernel_shape=[3, 3])],
                 [tensor("x", [1, 3, 8, 8])], [tensor("y", [1, 4, 6, 6])],
                 [weight("w", 4, 2, 3, 3)])


def raw_tensor(name, dims, data):
    """A float tensor whose raw data need not match its dims."""
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.raw_data = data
    return t


def absurd_sizes():
    w = raw_tensor("w", [1000, 1000], np.zeros(4, np.float32).tobytes())
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [tensor("x", [1000, 1000])], [tensor("y", [1000, 1000])], [w])


def overflow_dims():
    w = raw_tensor("w", [2**40, 2**40], b"")
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [tensor("x", [1])], [tensor("y", [1])], [w])


def runtime_axes(out_dir):
    """ReduceSum whose axes are a graph input (a runtime value), and the
    TensorProto files --bind-input reads: the right value, a float tensor
    and a 2-D one."""
    m = model([helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="sum")],
              [tensor("x", [2, 3, 4]), tensor("axes", [1], TensorProto.INT64)],
              [tensor("y", [2, 1, 4])])
    open(os.path.join(out_dir, "runtime_axes.onnx"), "wb").write(
        m.SerializeToString())
    # The axes computed from two graph inputs (base + offset).
    m = model([helper.make_node("Add", ["base", "offset"], ["axes"],
                                name="add"),
               helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="sum")],
              [tensor("x", [2, 3, 4]), tensor("base", [1], TensorProto.INT64),
               tensor("offset", [1], TensorProto.INT64)],
              [tensor("y", [2, 1, 4])])
    open(os.path.join(out_dir, "computed_axes.onnx"), "wb").write(
        m.SerializeToString())
    for name, value in [("axes", np.array([1], np.int64)),
                        ("zero", np.array([0], np.int64)),
                        ("axes_f32", np.array([1], np.float32)),
                        ("axes_2d", np.array([[1]], np.int64))]:
        open(os.path.join(out_dir, name + ".pb"), "wb").write(
            numpy_helper.from_array(value).SerializeToString())


def one_node(op, inputs, output, attrs=None, inits=(), opset=18):
    """A model of one `op` node named 'n': `inputs` are (name, shape, dtype)
    graph inputs, `inits` initializers fed after them."""
    names = [i[0] for i in inputs] + [t.name for t in inits]
    return lambda: model(
        [helper.make_node(op, names, ["y"], name="n", **(attrs or {}))],
        [tensor(n, sh, dt) for n, sh, dt in inputs], [tensor("y", output[0],
                                                             output[1])],
        inits, opset=opset)


F32, I64 = TensorProto.FLOAT, TensorProto.INT64
COMPOSED = {
    "c_logsoftmax": one_node("LogSoftmax", [("x", [2, 5], F32)],
                             ([2, 5], F32), {"axis": 1}, opset=13),
    "c_reduce_l2": one_node("ReduceL2", [("x", [2, 3], F32)], ([2], F32),
                            {"keepdims": 0}, [ints("axes", [1])]),
    "c_reduce_lse": one_node("ReduceLogSumExp", [("x", [2, 3], F32)],
                             ([2], F32), {"keepdims": 0}, [ints("axes", [1])]),
    "c_global_max": one_node("GlobalMaxPool", [("x", [1, 2, 4, 4], F32)],
                             ([1, 2, 1, 1], F32)),
    "c_instance_norm": one_node("InstanceNormalization",
                                [("x", [1, 2, 4, 4], F32)], ([1, 2, 4, 4], F32),
                                {"epsilon": 1e-3},
                                [weight("s", 2), weight("b", 2)]),
    "c_group_norm_bad": one_node("GroupNormalization",
                                 [("x", [1, 6, 4], F32)], ([1, 6, 4], F32),
                                 {"num_groups": 4},
                                 [weight("s", 4), weight("b", 4)]),
    "c_lrn": one_node("LRN", [("x", [1, 5, 3, 3], F32)], ([1, 5, 3, 3], F32),
                      {"size": 3}),
    "c_tile": one_node("Tile", [("x", [2, 3], F32)], ([4, 3], F32), {},
                       [ints("r", [2, 1])]),
    "c_depth_to_space": one_node("DepthToSpace", [("x", [1, 8, 2, 3], F32)],
                                 ([1, 2, 4, 6], F32), {"blocksize": 2,
                                                       "mode": "CRD"}),
    "c_depth_to_space_bad": one_node("DepthToSpace",
                                     [("x", [1, 6, 2, 3], F32)],
                                     ([1, 1, 4, 6], F32), {"blocksize": 2}),
    "c_trilu": one_node("Trilu", [("x", [2, 3, 3], F32)], ([2, 3, 3], F32),
                        {"upper": 0}, [ints("k", 1)]),
    "c_trilu_rank1": one_node("Trilu", [("x", [3], F32)], ([3], F32)),
    "c_onehot": one_node("OneHot", [("i", [3], I64)], ([3, 4], F32),
                         {"axis": -1},
                         [ints("depth", 4),
                          numpy_helper.from_array(
                              np.array([0, 5], np.float32), "v")]),
    "c_range": one_node("Range", [], ([3], I64), {},
                        [ints("a", 1), ints("b", 7), ints("d", 2)]),
    "c_eyelike": one_node("EyeLike", [("x", [2, 3], F32)], ([2, 3], F32),
                          {"k": 1}),
    "c_conv1d": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n", pads=[1, 1],
                          strides=[2])],
        [tensor("x", [1, 2, 9])], [tensor("y", [1, 4, 5])],
        [weight("w", 4, 2, 3)]),
    "c_resize_nearest": one_node(
        "Resize", [("x", [1, 1, 2, 2], F32)], ([1, 1, 4, 4], F32),
        {"mode": "nearest"},
        [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
         numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")]),
    "c_resize_linear": one_node(
        "Resize", [("x", [1, 1, 2, 2], F32)], ([1, 1, 2, 4], F32),
        {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
        [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
         numpy_helper.from_array(np.array([1, 1, 1, 2], np.float32), "s")]),
    # Dropout in training mode with ratio 0 drops nothing (torchvision's
    # Swin exports its attention dropout so); with ratio 0.5 it would.
    "c_dropout_train_zero": one_node(
        "Dropout", [("x", [2, 3], F32)], ([2, 3], F32), None,
        [numpy_helper.from_array(np.array(0.0, np.float32), "ratio"),
         numpy_helper.from_array(np.array(True), "training")]),
    "c_dropout_train_half": one_node(
        "Dropout", [("x", [2, 3], F32)], ([2, 3], F32), None,
        [numpy_helper.from_array(np.array(0.5, np.float32), "ratio"),
         numpy_helper.from_array(np.array(True), "training")]),
    # A Reshape whose shape is an Expand of a constant: known at compile
    # time only if Expand keeps it known.
    "c_expand_known": lambda: model(
        [helper.make_node("Expand", ["two", "n"], ["shape"], name="expand"),
         helper.make_node("Reshape", ["x", "shape"], ["y"], name="n")],
        [tensor("x", [4])], [tensor("y", [2, 2])],
        [ints("two", [2]), ints("n", [2])]),
    "c_resize_both": one_node(
        "Resize", [("x", [1, 1, 2, 2], F32)], ([1, 1, 4, 4], F32),
        {"mode": "linear"},
        [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
         numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s"),
         ints("sizes", [1, 1, 4, 4])]),
    "c_nll": one_node("NegativeLogLikelihoodLoss",
                      [("x", [2, 3], F32), ("t", [2], I64)], ([], F32),
                      {"ignore_index": 1}, [weight("w", 3)]),
    "c_nll_bad_target": one_node("NegativeLogLikelihoodLoss",
                                 [("x", [2, 3], F32), ("t", [3], I64)],
                                 ([], F32)),
    "c_layernorm_stats": lambda: model(
        [helper.make_node("LayerNormalization", ["x", "s"], ["y", "m", "r"],
                          name="n", axis=1)],
        [tensor("x", [2, 4])],
        [tensor("y", [2, 4]), tensor("m", [2, 1]), tensor("r", [2, 1])],
        [weight("s", 4)], opset=17),
    "c_convtranspose": lambda: model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="n",
                          strides=[2, 2], pads=[1, 1, 1, 1],
                          output_padding=[1, 1])],
        [tensor("x", [1, 2, 3, 3])], [tensor("y", [1, 4, 6, 6])],
        [weight("w", 2, 4, 3, 3)]),
    "c_center_crop_pad": one_node("CenterCropPad", [("x", [5, 2], F32)],
                                  ([3, 4], F32), {}, [ints("shape", [3, 4])]),
    "c_compress": one_node("Compress", [("x", [3, 2], F32)], ([2, 2], F32),
                           {"axis": 0},
                           [numpy_helper.from_array(
                               np.array([True, False, True]), "c")]),
    "c_hann": one_node("HannWindow", [], ([4], F32), {},
                       [numpy_helper.from_array(np.array(4, np.int64), "n")],
                       opset=17),
    "c_max_shape": lambda: model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Max", ["s", "m"], ["t"]),
         helper.make_node("Reshape", ["x", "t"], ["y"])],
        [tensor("x", [2, 3])], [tensor("y", [2, 3])], [ints("m", [1, 3])]),
    "c_gru": lambda: model(
        [helper.make_node("GRU", ["x", "w", "r"], ["y", "yh"], name="n",
                          hidden_size=4, direction="bidirectional")],
        [tensor("x", [3, 2, 5])],
        [tensor("y", [3, 2, 2, 4]), tensor("yh", [2, 2, 4])],
        [weight("w", 2, 12, 5), weight("r", 2, 12, 4)]),
    "c_lstm_varlen": lambda: model(
        [helper.make_node("LSTM", ["x", "w", "r", "", "lens"], ["y"],
                          name="n", hidden_size=4)],
        [tensor("x", [3, 2, 5])], [tensor("y", [3, 1, 2, 4])],
        [weight("w", 1, 16, 5), weight("r", 1, 16, 4),
         numpy_helper.from_array(np.array([3, 2], np.int32), "lens")]),
    "c_if": lambda: control_flow("if"),
    "c_data_if": lambda: control_flow("data_if"),
    "c_loop": lambda: control_flow("loop"),
    "c_hardmax": one_node("Hardmax", [("x", [2, 3], F32)], ([2, 3], F32),
                          {"axis": 1}, opset=13),
    "c_scatter_nd": one_node("ScatterND", [("x", [4, 2], F32)],
                             ([4, 2], F32), {"reduction": "add"},
                             [ints("i", [[1], [1]]), weight("u", 2, 2)]),
    "c_scatter_oob": one_node("ScatterElements", [("x", [4], F32)],
                              ([4], F32), {},
                              [ints("i", [7]), weight("u", 1)]),
    "c_qdq": lambda: model(
        [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q"),
         helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"],
                          name="dq")],
        [tensor("x", [2, 3])], [tensor("y", [2, 3])],
        [numpy_helper.from_array(np.array(0.05, np.float32), "s"),
         numpy_helper.from_array(np.array(128, np.uint8), "z")], opset=19),
    "c_lppool": one_node("LpPool", [("x", [1, 1, 4, 4], F32)],
                         ([1, 1, 2, 2], F32), {"kernel_shape": [2, 2],
                                               "strides": [2, 2]}),
}

# 3-D convolutions and pools, dilated average and Lp pools, and their errors
# (import-conv-pool.test).
CONV_POOL = {
    "cp_conv3d": lambda: model(
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="n", group=2,
                          pads=[1, 0, 1, 0, 1, 1], strides=[2, 1, 2],
                          dilations=[1, 2, 1])],
        [tensor("x", [1, 4, 5, 6, 6])], [tensor("y", [1, 6, 2, 3, 3])],
        [weight("w", 6, 2, 3, 3, 3), weight("b", 6)]),
    "cp_conv3d_kd1": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n")],
        [tensor("x", [2, 3, 4, 5, 5])], [tensor("y", [2, 4, 4, 3, 3])],
        [weight("w", 4, 3, 1, 3, 3)]),
    "cp_maxpool3d": one_node("MaxPool", [("x", [1, 2, 4, 6, 6], F32)],
                             ([1, 2, 2, 4, 4], F32),
                             {"kernel_shape": [2, 3, 3],
                              "strides": [2, 2, 2],
                              "pads": [0, 1, 1, 0, 1, 1], "ceil_mode": 1}),
    "cp_avgpool3d": one_node("AveragePool", [("x", [1, 2, 5, 4, 4], F32)],
                             ([1, 2, 1, 2, 2], F32),
                             {"kernel_shape": [3, 2, 2],
                              "strides": [2, 2, 2], "dilations": [2, 1, 1],
                              "count_include_pad": 1}),
    "cp_avgpool_dilated": one_node("AveragePool", [("x", [1, 1, 6, 6], F32)],
                                   ([1, 1, 3, 3], F32),
                                   {"kernel_shape": [2, 2],
                                    "strides": [2, 2], "pads": [1, 1, 1, 1],
                                    "dilations": [2, 2]}),
    "cp_lppool3d": one_node("LpPool", [("x", [1, 1, 4, 5, 5], F32)],
                            ([1, 1, 3, 2, 2], F32),
                            {"kernel_shape": [2, 2, 2], "p": 3,
                             "strides": [1, 2, 2], "dilations": [1, 2, 2],
                             "pads": [0, 0, 1, 0, 0, 0]}),
    "cp_convtranspose3d": lambda: model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="n",
                          strides=[2, 1, 2], output_padding=[1, 0, 0])],
        [tensor("x", [1, 2, 2, 3, 3])], [tensor("y", [1, 3, 5, 5, 7])],
        [weight("w", 2, 3, 2, 3, 3)]),
    "cp_maxpool_indices": lambda: model(
        [helper.make_node("MaxPool", ["x"], ["y", "i"], name="n",
                          kernel_shape=[2, 2], strides=[2, 2],
                          pads=[1, 0, 0, 0], storage_order=1)],
        [tensor("x", [1, 2, 3, 4])],
        [tensor("y", [1, 2, 2, 2]), tensor("i", [1, 2, 2, 2], I64)]),
    "cp_maxpool_indices_int": lambda: model(
        [helper.make_node("MaxPool", ["x"], ["y", "i"], name="n",
                          kernel_shape=[2, 2])],
        [tensor("x", [1, 1, 3, 3], TensorProto.UINT8)],
        [tensor("y", [1, 1, 2, 2], TensorProto.UINT8),
         tensor("i", [1, 1, 2, 2], I64)]),
    "cp_storage_order": one_node("MaxPool", [("x", [1, 1, 3, 3], F32)],
                                 ([1, 1, 2, 2], F32),
                                 {"kernel_shape": [2, 2],
                                  "storage_order": 2}),
    "cp_conv4d": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n")],
        [tensor("x", [1, 1, 3, 3, 3, 3])], [tensor("y", [1, 1, 2, 2, 2, 2])],
        [weight("w", 1, 1, 2, 2, 2, 2)]),
    "cp_conv3d_kernel": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n",
                          kernel_shape=[3, 3, 2])],
        [tensor("x", [1, 2, 4, 4, 4])], [tensor("y", [1, 2, 2, 2, 3])],
        [weight("w", 2, 2, 3, 3, 3)]),
    "cp_conv3d_group": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n", group=3)],
        [tensor("x", [1, 4, 4, 4, 4])], [tensor("y", [1, 3, 2, 2, 2])],
        [weight("w", 3, 1, 3, 3, 3)]),
    "cp_conv3d_depth": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n")],
        [tensor("x", [1, 2, 2, 4, 4])], [tensor("y", [1, 2, 1, 2, 2])],
        [weight("w", 2, 2, 3, 3, 3)]),
    "cp_pool4d": one_node("MaxPool", [("x", [1, 1, 3, 3, 3, 3], F32)],
                          ([1, 1, 2, 2, 2, 2], F32),
                          {"kernel_shape": [2, 2, 2, 2]}),
    "cp_lppool_window": one_node("LpPool", [("x", [1, 1, 3, 3, 3], F32)],
                                 ([1, 1, 1, 1, 1], F32),
                                 {"kernel_shape": [2, 2, 2],
                                  "dilations": [3, 1, 1]}),
    "cp_convtranspose4d": lambda: model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="n")],
        [tensor("x", [1, 1, 2, 2, 2, 2])], [tensor("y", [1, 1, 3, 3, 3, 3])],
        [weight("w", 1, 1, 2, 2, 2, 2)]),
}


EINSUMS = {
    "e_matmul": ("bij, bjk -> bik", [(5, 2, 3), (5, 3, 4)]),
    "e_inner": ("i,i", [(5,), (5,)]),
    "e_sum": ("ij->i", [(3, 4)]),
    "e_transpose": ("ij->ji", [(3, 4)]),
    "e_diagonal": ("...ii ->...i", [(3, 5, 5)]),
    "e_bcast": ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    "e_attention": ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    "e_three": ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
    "e_outer": ("i,j->ij", [(3,), (4,)]),
}


def einsum_model(out_dir, name):
    """An Einsum model and its inputs and numpy.einsum's result as .npy."""
    equation, shapes = EINSUMS[name]
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ref = np.einsum(equation.replace(" ", ""), *arrays).astype(np.float32)
    names = ["x%d" % i for i in range(len(arrays))]
    m = model([helper.make_node("Einsum", names, ["y"], name="n",
                                equation=equation)],
              [tensor(n, list(a.shape)) for n, a in zip(names, arrays)],
              [tensor("y", list(ref.shape))], opset=18)
    open(os.path.join(out_dir, name + ".onnx"), "wb").write(
        m.SerializeToString())
    for n, a in zip(names, arrays):
        np.save(os.path.join(out_dir, "%s.%s.npy" % (name, n)), a)
    np.save(os.path.join(out_dir, name + ".ref.npy"), np.array(ref, order="C"))


def control_flow(kind):
    """If on a shape test (folds: x has 4 rows) and Loop with trip count 3
    adding x to an accumulator, scanning each partial sum; `data_if` has a
    condition computed from data."""
    def branch(name, op):
        return helper.make_graph(
            [helper.make_node(op, ["x"], [name + "_y"])], name, [],
            [tensor(name + "_y", [4, 2])])
    if kind == "if":
        nodes = [helper.make_node("Shape", ["x"], ["s"]),
                 helper.make_node("Gather", ["s", "zero"], ["rows"], axis=0),
                 helper.make_node("Equal", ["rows", "four"], ["c"]),
                 helper.make_node("If", ["c"], ["y"], name="choose",
                                  then_branch=branch("then", "Relu"),
                                  else_branch=branch("else", "Neg"))]
        return model(nodes, [tensor("x", [4, 2])], [tensor("y", [4, 2])],
                     [ints("zero", 0), ints("four", 4)])
    if kind == "data_if":
        nodes = [helper.make_node("ReduceSum", ["x"], ["t"], keepdims=0),
                 helper.make_node("Greater", ["t", "z"], ["c"]),
                 helper.make_node("If", ["c"], ["y"], name="choose",
                                  then_branch=branch("then", "Relu"),
                                  else_branch=branch("else", "Neg"))]
        return model(nodes, [tensor("x", [4, 2])], [tensor("y", [4, 2])],
                     [numpy_helper.from_array(np.array(0, np.float32), "z")])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
         helper.make_node("Identity", ["acc_out"], ["scan"])],
        "body", [tensor("i", [], TensorProto.INT64),
                 tensor("cond_in", [], TensorProto.BOOL),
                 tensor("acc_in", [4, 2])],
        [tensor("cond_out", [], TensorProto.BOOL), tensor("acc_out", [4, 2]),
         tensor("scan", [4, 2])])
    nodes = [helper.make_node("Loop", ["m", "", "zeros"], ["acc", "sums"],
                              name="loop", body=body)]
    return model(nodes, [tensor("x", [4, 2])],
                 [tensor("acc", [4, 2]), tensor("sums", [3, 4, 2])],
                 [ints("m", 3), numpy_helper.from_array(
                     np.zeros((4, 2), np.float32), "zeros")])


def opset(version):
    return lambda: model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                         [tensor("x", [2])], [tensor("y", [2])], opset=version)


def aspp():
    """DeepLab's ASPP on a small map: 3x3 convs of dilation 6 (every outer
    tap in the padding), 2 (all taps read the map) and a depthwise one of
    dilation 6, concatenated; and a 5x5 of stride 2 and dilation 3 whose
    edge taps only read padding."""
    def conv(name, x, w, **attrs):
        return helper.make_node("Conv", [x, w, "b_" + name], [name], name=name,
                                **attrs)
    return model(
        [conv("d6", "x", "w_d6", dilations=[6, 6], pads=[6, 6, 6, 6]),
         conv("d2", "x", "w_d2", dilations=[2, 2], pads=[2, 2, 2, 2]),
         conv("dw6", "x", "w_dw6", dilations=[6, 6], pads=[6, 6, 6, 6],
              group=8),
         conv("s2", "x", "w_s2", dilations=[3, 3], pads=[6, 6, 6, 6],
              strides=[2, 2]),
         helper.make_node("Relu", ["s2"], ["r2"], name="relu"),
         helper.make_node("Concat", ["d6", "d2", "dw6"], ["y"], name="cat",
                          axis=1)],
        [tensor("x", [1, 8, 5, 6])],
        [tensor("y", [1, 24, 5, 6]), tensor("r2", [1, 4, 3, 3])],
        [weight("w_d6", 8, 8, 3, 3), weight("b_d6", 8),
         weight("w_d2", 8, 8, 3, 3), weight("b_d2", 8),
         weight("w_dw6", 8, 1, 3, 3), weight("b_dw6", 8),
         weight("w_s2", 4, 8, 5, 5), weight("b_s2", 4)])


def silu_convs():
    """SiLU (Mul(x, Sigmoid(x)), torch's export of nn.SiLU) after an
    identity 1x1 conv ("a") and an identity depthwise conv ("c"), whose
    outputs equal x exactly, and on x itself ("b", a generated loop); and
    after a 3x3 conv and a 1x1 conv on the same input ("d", "e")."""
    def silu(x, y):
        return [helper.make_node("Sigmoid", [x], [y + "_s"], name=y + "_sig"),
                helper.make_node("Mul", [x, y + "_s"], [y], name=y + "_mul")]
    eye = numpy_helper.from_array(
        np.eye(16, dtype=np.float32).reshape(16, 16, 1, 1), "w_eye")
    centre = np.zeros((16, 1, 3, 3), np.float32)
    centre[:, 0, 1, 1] = 1.0
    return model(
        [helper.make_node("Conv", ["x", "w_eye"], ["pa"], name="conv_eye"),
         *silu("pa", "a"),
         *silu("x", "b"),
         helper.make_node("Conv", ["x", "w_centre"], ["pc"], name="dw_eye",
                          group=16, pads=[1, 1, 1, 1]),
         *silu("pc", "c"),
         helper.make_node("Conv", ["x", "w3", "b3"], ["pd"], name="conv3",
                          pads=[1, 1, 1, 1]),
         *silu("pd", "d"),
         helper.make_node("Conv", ["x", "w1", "b1"], ["pe"], name="conv1"),
         *silu("pe", "e")],
        [tensor("x", [1, 16, 12, 12])],
        [tensor(n, [1, 16, 12, 12]) for n in "abcde"],
        [eye, numpy_helper.from_array(centre, "w_centre"),
         weight("w3", 16, 16, 3, 3), weight("b3", 16),
         weight("w1", 16, 16, 1, 1), weight("b1", 16)])


MODELS = {
    "mlp": mlp,
    "silu_convs": silu_convs,
    "mlp_gelu": mlp_gelu,
    "conv_block": conv_block,
    "aspp": aspp,
    "shape_subgraph": shape_subgraph,
    "attention": attention,
    "windows": windows,
    "window_attention": window_attention,
    "partitions": partitions,
    "pool_mixer": pool_mixer,
    "opset13_squeeze": opset13_squeeze,
    "opset18_reduce": opset18_reduce,
    "dynamic_dims": dynamic_dims,
    "unsupported_ops": unsupported_ops,
    "unsupported_op": unsupported_op,
    "math_ops": math_ops,
    "int_ops": int_ops,
    "bad_mod_float": bad_op("Mod", 2, {}),
    "bad_mod_attr": bad_op("Mod", 2, {"fmod": 2}, TensorProto.INT32),
    "bad_shift": bad_op("BitShift", 2, {"direction": "UP"},
                        TensorProto.INT32),
    "bad_shift_float": bad_op("BitShift", 2, {"direction": "LEFT"}),
    "bad_celu": bad_op("Celu", 1, {"alpha": 0.0}),
    "bad_sin_int": bad_op("Sin", 1, {}, TensorProto.INT32),
    "bad_not_float": bad_op("Not", 1, {}),
    "bad_pow_uint": bad_op("Pow", 2, {}, TensorProto.UINT8),
    "elu_f16": bad_op("Elu", 1, {}, TensorProto.FLOAT16),
    "missing_initializer": missing_initializer,
    "inconsistent_shapes": inconsistent_shapes,
    "absurd_sizes": absurd_sizes,
    "overflow_dims": overflow_dims,
    "opset12": opset(12),
    "opset11_unknown_op": lambda: model(
        [helper.make_node("Frobnicate", ["x"], ["y"])], [tensor("x", [2])],
        [tensor("y", [2])], opset=11),
    "opset23": opset(23),
}


def main():
    out_dir, names = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        path = os.path.join(out_dir, name + ".onnx")
        if name == "external_data":
            external_data(out_dir)
        elif name == "runtime_axes":
            runtime_axes(out_dir)
        elif name in EINSUMS:
            einsum_model(out_dir, name)
        elif name == "truncated":
            data = conv_block().SerializeToString()
            open(path, "wb").write(data[: len(data) // 2])
        elif name == "not_onnx":
            open(path, "w").write("this is a text file, not a model\n" * 4)
        else:
            m = {**MODELS, **COMPOSED, **CONV_POOL}[name]()
            open(path, "wb").write(m.SerializeToString())


if __name__ == "__main__":
    main()
