#!/usr/bin/env python3
"""End to end on small models of the integer and quantised contractions
(MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv), Col2Im, and a
small conv net quantised by onnxruntime.quantization.quantize_static in
both QOperator (QLinearConv/QLinearMatMul) and QDQ format, and an MLP
quantised by quantize_dynamic (DynamicQuantizeLinear + MatMulInteger).

usage: run_quant_ops.py --tandemc BIN --tandem-run BIN --work DIR
                        [--gpu none|all] [--gpu-twins linalg|mapped]
                        [--devices D,...] [--write-only] [NAME...]

Float graph inputs are quantised inside the models (QuantizeLinear), so the
int8/uint8 operands cover their whole range. The reference for the
integer and quantised contractions (MatMulInteger, ConvInteger,
QLinearMatMul, QLinearConv) is their ONNX definition evaluated in numpy in
int64, requantised as onnxruntime does (numpy_reference): onnxruntime's
x86 uint8 x int8 kernels on AVX2 without VNNI add pairs of products in
saturating int16 (vpmaddubsw), so its output there is off by thousands
(MatMulInteger) on such CPUs, and its kernels reject the per-row and
per-channel zero points; onnx's reference implementation fails on those
and on per-channel QLinearConv scales. Where onnxruntime does not
saturate, the two agree exactly (checked on the AVX2 Zen 4 VM). The nets
quantised by onnxruntime (uint8 activations, int8 weights) are checked
against onnx's reference implementation for the same reason
(onnx_reference, with numpy's QLinearConv), Col2Im against onnxruntime.
Integer outputs
must match exactly; float outputs (Col2Im, the quantised nets' dequantised
logits) within rtol 1e-4. Tandem computes the QDQ net's
DequantizeLinear -> Conv/MatMul -> QuantizeLinear chains in float as
written, as onnx's reference does (onnxruntime rewrites them into its
QLinearConv and QLinearMatMul kernels). With
--gpu all, every op is pinned to the GPU (integer ones stay on the CPU) and
the model runs on each --devices value; all runs must give the same bytes.
Prints "PASS name" / "FAIL name: why" and "quant-ops: N passed, M failed".
With --write-only, only writes the models (DIR/NAME.onnx), for the import
tests.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_e2e  # noqa: E402
from onnx_reference import make_inputs  # noqa: E402

F, U8, I8, I32, I64 = (TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8,
                       TensorProto.INT32, TensorProto.INT64)
RNG = np.random.default_rng(7)


def vi(name, elem, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, value, dtype):
    return numpy_helper.from_array(np.array(value, dtype), name)


def build(nodes, inputs, outputs, inits=(), opset=13, check=True):
    return run_e2e.build_model(nodes, inputs, outputs, inits, opset, 8, check)


def quantize(src, dst, scale, zp, dtype):
    """QuantizeLinear of float input `src` to `dst` (the zero point's type):
    nodes and initializers."""
    return ([helper.make_node("QuantizeLinear", [src, dst + "_s", dst + "_z"],
                              [dst])],
            [const(dst + "_s", scale, np.float32), const(dst + "_z", zp, dtype)])


def int8s(shape):
    return RNG.integers(-128, 128, shape).astype(np.int8)


def uint8s(shape):
    return RNG.integers(0, 256, shape).astype(np.uint8)


def matmul_integer():
    """MatMulInteger: uint8 x int8 with a scalar a_zero_point and a
    per-column b_zero_point, int8 x uint8 with none, a batched A against a
    2-D B, and int8 x int8 with a [1, N] b_zero_point."""
    qa, ia = quantize("x", "a", 0.02, 131, np.uint8)
    qs, is_ = quantize("x", "sa", 0.015, -3, np.int8)
    qb, ib = quantize("x3", "a3", 0.03, 120, np.uint8)
    n = helper.make_node
    return build(qa + qs + qb + [
        n("MatMulInteger", ["a", "b", "az", "bz"], ["y_u8s8"]),
        n("MatMulInteger", ["sa", "bu"], ["y_s8u8"]),
        n("MatMulInteger", ["a3", "b", "az", "bz"], ["y_batched"]),
        n("MatMulInteger", ["sa", "b", "saz", "bz2"], ["y_s8s8"]),
    ], [vi("x", F, [4, 16]), vi("x3", F, [2, 3, 16])],
        [vi("y_u8s8", I32), vi("y_s8u8", I32), vi("y_batched", I32),
         vi("y_s8s8", I32)],
        ia + is_ + ib + [
            numpy_helper.from_array(int8s((16, 5)), "b"),
            numpy_helper.from_array(uint8s((16, 5)), "bu"),
            const("az", 127, np.uint8), const("saz", 5, np.int8),
            const("bz", [0, -3, 7, 127, -128], np.int8),
            const("bz2", [[1, -1, 2, -2, 100]], np.int8)])


def matmul_integer_per_row():
    """MatMulInteger's per-row a_zero_point ([M] and [M, 1] forms), which
    onnxruntime's kernel rejects (checked against onnx's reference)."""
    qa, ia = quantize("x", "a", 0.02, 128, np.uint8)
    n = helper.make_node
    return build(qa + [
        n("MatMulInteger", ["a", "b", "az", "bz"], ["y_rows"]),
        n("MatMulInteger", ["a", "b", "az2"], ["y_rows2"]),
    ], [vi("x", F, [4, 16])], [vi("y_rows", I32), vi("y_rows2", I32)],
        ia + [numpy_helper.from_array(int8s((16, 5)), "b"),
              const("az", [0, 100, 200, 255], np.uint8),
              const("az2", [[3], [9], [27], [81]], np.uint8),
              const("bz", [1, 2, 3, 4, 5], np.int8)])


def conv_integer():
    """ConvInteger: uint8 x int8 with zero points, pads and strides; grouped
    and dilated without zero points; 1-D with auto_pad."""
    qa, ia = quantize("x", "q", 0.02, 140, np.uint8)
    q1, i1 = quantize("x1", "q1", 0.05, 100, np.uint8)
    n = helper.make_node
    return build(qa + q1 + [
        n("ConvInteger", ["q", "w", "xz", "wz"], ["y_pad"], pads=[1, 1, 1, 1],
          strides=[2, 1]),
        n("ConvInteger", ["q", "wg"], ["y_group"], group=2, dilations=[2, 2]),
        n("ConvInteger", ["q1", "w1", "xz1"], ["y_1d"], auto_pad="SAME_UPPER"),
    ], [vi("x", F, [1, 4, 7, 7]), vi("x1", F, [2, 3, 9])],
        [vi("y_pad", I32), vi("y_group", I32), vi("y_1d", I32)],
        ia + i1 + [numpy_helper.from_array(int8s((6, 4, 3, 3)), "w"),
                   numpy_helper.from_array(int8s((4, 2, 2, 2)), "wg"),
                   numpy_helper.from_array(int8s((5, 3, 3)), "w1"),
                   const("xz", 140, np.uint8), const("wz", -2, np.int8),
                   const("xz1", 90, np.uint8)])


def conv_integer_per_channel():
    """ConvInteger's per-output-channel w_zero_point, which onnxruntime's
    kernel rejects (checked against onnx's reference)."""
    qa, ia = quantize("x", "q", 0.02, 128, np.uint8)
    return build(qa + [
        helper.make_node("ConvInteger", ["q", "w", "xz", "wz"], ["y"],
                         pads=[1, 1, 1, 1])],
        [vi("x", F, [1, 3, 5, 5])], [vi("y", I32)],
        ia + [numpy_helper.from_array(int8s((4, 3, 3, 3)), "w"),
              const("xz", 128, np.uint8),
              const("wz", [0, 5, -5, 100], np.int8)])


def qlinear_matmul():
    """QLinearMatMul: uint8 x int8 -> uint8 with per-column b scales and
    zero points; int8 x int8 -> int8 per-tensor; a batched A; power-of-two
    scales that put products exactly halfway (round half to even) and
    results past the output range (saturation)."""
    qa, ia = quantize("x", "a", 0.02, 128, np.uint8)
    qs, is_ = quantize("x", "sa", 0.015, 0, np.int8)
    q3, i3 = quantize("x3", "a3", 0.25, 3, np.uint8)
    n = helper.make_node
    return build(qa + qs + q3 + [
        n("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
          ["y_u8"]),
        n("QLinearMatMul", ["sa", "sas", "saz", "sb", "sbs", "sbz", "sys",
                            "syz"], ["y_s8"]),
        n("QLinearMatMul", ["a3", "a3s", "a3z", "b", "half", "bz", "one",
                            "yz"], ["y_half"]),
    ], [vi("x", F, [4, 16]), vi("x3", F, [2, 3, 16])],
        [vi("y_u8", U8), vi("y_s8", I8), vi("y_half", U8)],
        ia + is_ + i3 + [
            numpy_helper.from_array(int8s((16, 5)), "b"),
            numpy_helper.from_array(int8s((16, 6)), "sb"),
            const("as", 0.02, np.float32), const("az", 128, np.uint8),
            const("bs", [0.01, 0.02, 0.005, 0.03, 0.001], np.float32),
            const("bz", [0, 1, -1, 5, -7], np.int8),
            const("ys", 0.6, np.float32), const("yz", 120, np.uint8),
            const("sas", 0.015, np.float32), const("saz", 0, np.int8),
            const("sbs", 0.004, np.float32), const("sbz", 0, np.int8),
            const("sys", 0.05, np.float32), const("syz", -10, np.int8),
            const("a3s", 0.25, np.float32), const("a3z", 3, np.uint8),
            const("half", 0.5, np.float32), const("one", 1.0, np.float32)])


def qlinear_conv():
    """QLinearConv: uint8 x int8 with per-channel w scales, an int32 bias,
    pads and strides; int8 x int8 depthwise per-tensor; 1-D; a
    power-of-two multiplier (ties, round half to even)."""
    qa, ia = quantize("x", "q", 0.02, 128, np.uint8)
    qs, is_ = quantize("x", "sq", 0.02, 0, np.int8)
    q1, i1 = quantize("x1", "q1", 0.05, 100, np.uint8)
    n = helper.make_node
    return build(qa + qs + q1 + [
        n("QLinearConv", ["q", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
          ["y_u8"], pads=[1, 1, 1, 1], strides=[2, 2]),
        n("QLinearConv", ["sq", "xs", "sxz", "wd", "wds", "wdz", "ys2",
                          "syz"], ["y_dw"], group=4, pads=[0, 1, 0, 1]),
        n("QLinearConv", ["q1", "x1s", "x1z", "w1", "w1s", "w1z", "half",
                          "yz"], ["y_1d"], pads=[2, 0]),
    ], [vi("x", F, [1, 4, 7, 7]), vi("x1", F, [2, 3, 9])],
        [vi("y_u8", U8), vi("y_dw", I8), vi("y_1d", U8)],
        ia + is_ + i1 + [
            numpy_helper.from_array(int8s((6, 4, 3, 3)), "w"),
            numpy_helper.from_array(int8s((4, 1, 3, 3)), "wd"),
            numpy_helper.from_array(int8s((5, 3, 3)), "w1"),
            const("xs", 0.02, np.float32), const("xz", 128, np.uint8),
            const("ws", [0.01, 0.02, 0.005, 0.03, 0.001, 0.002], np.float32),
            const("wz", [0, 0, 0, 0, 0, 0], np.int8),
            const("ys", 0.1, np.float32), const("yz", 128, np.uint8),
            const("b", RNG.integers(-5000, 5000, 6), np.int32),
            const("sxz", 0, np.int8), const("wds", 0.01, np.float32),
            const("wdz", 0, np.int8), const("ys2", 0.002, np.float32),
            const("syz", 3, np.int8),
            const("x1s", 0.05, np.float32), const("x1z", 100, np.uint8),
            const("w1s", 0.25, np.float32), const("w1z", 0, np.int8),
            const("half", 0.5, np.float32)])


def col2im():
    """Col2Im: 2-D with overlapping blocks, strides, pads and dilations;
    1-D; 3-D."""
    n = helper.make_node
    ints = lambda name, v: const(name, v, np.int64)  # noqa: E731
    return build([
        n("Col2Im", ["x", "img", "blk"], ["y_plain"]),
        n("Col2Im", ["x2", "img2", "blk"], ["y_strided"], strides=[2, 1],
          pads=[1, 0, 1, 2], dilations=[1, 2]),
        n("Col2Im", ["x1", "img1", "blk1"], ["y_1d"], strides=[3], pads=[2, 1]),
        n("Col2Im", ["x3", "img3", "blk3"], ["y_3d"]),
    ], [vi("x", F, [2, 2 * 6, 9]), vi("x2", F, [1, 3 * 6, 6]),
        vi("x1", F, [2, 2 * 3, 4]), vi("x3", F, [1, 2 * 8, 8])],
        [vi("y_plain", F), vi("y_strided", F), vi("y_1d", F), vi("y_3d", F)],
        [ints("img", [4, 5]), ints("blk", [2, 3]), ints("img2", [5, 4]),
         ints("img1", [9]), ints("blk1", [3]), ints("img3", [3, 3, 3]),
         ints("blk3", [2, 2, 2])], opset=18)


def float_net():
    """A small float conv net for onnxruntime's quantiser: two convs with
    ReLU, a reshape and a matmul classifier."""
    n = helper.make_node
    w = lambda name, *s: numpy_helper.from_array(  # noqa: E731
        (RNG.standard_normal(s) * 0.3).astype(np.float32), name)
    return build([
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1],
          strides=[2, 2]),
        n("Relu", ["c2"], ["r2"]),
        n("Reshape", ["r2", "shape"], ["flat"]),
        n("MatMul", ["flat", "w3"], ["logits"]),
    ], [vi("x", F, [1, 3, 8, 8])], [vi("logits", F, [1, 10])],
        [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", 8, 8, 3, 3), w("b2", 8),
         const("shape", [1, 128], np.int64), w("w3", 128, 10)])


def quantized_net(fmt):
    """float_net quantised statically (uint8 activations, int8 per-channel
    weights) in QOperator or QDQ format; None without
    onnxruntime.quantization."""
    import tempfile

    from onnxruntime import quantization as q

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(3)
            self.data = iter([{"x": rng.standard_normal(
                (1, 3, 8, 8)).astype(np.float32)} for _ in range(8)])

        def get_next(self):
            return next(self.data, None)

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "f.onnx"), os.path.join(tmp, "q.onnx")
        onnx.save(float_net(), src)
        q.quantize_static(src, dst, Reader(),
                          quant_format=(q.QuantFormat.QDQ if fmt == "qdq" else
                                        q.QuantFormat.QOperator),
                          per_channel=True, activation_type=q.QuantType.QUInt8,
                          weight_type=q.QuantType.QInt8)
        return onnx.load(dst)


def float_mlp():
    """A small float MLP for onnxruntime's dynamic quantiser."""
    n = helper.make_node
    w = lambda name, *s: numpy_helper.from_array(  # noqa: E731
        (RNG.standard_normal(s) * 0.3).astype(np.float32), name)
    return build([
        n("MatMul", ["x", "w1"], ["h"]), n("Add", ["h", "b1"], ["hb"]),
        n("Relu", ["hb"], ["r"]),
        n("MatMul", ["r", "w2"], ["o"]), n("Add", ["o", "b2"], ["logits"]),
    ], [vi("x", F, [4, 32])], [vi("logits", F, [4, 10])],
        [w("w1", 32, 64), w("b1", 64), w("w2", 64, 10), w("b2", 10)])


def dynamic_mlp():
    """float_mlp quantised by onnxruntime.quantization.quantize_dynamic:
    DynamicQuantizeLinear of the activations, MatMulInteger with the int8
    weights, and the float rescale."""
    import tempfile

    from onnxruntime import quantization as q
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "f.onnx"), os.path.join(tmp, "q.onnx")
        onnx.save(float_mlp(), src)
        q.quantize_dynamic(src, dst, weight_type=q.QuantType.QInt8)
        return onnx.load(dst)


# name: (builder, reference): "ort", "numpy" (numpy_reference) or "onnx"
# (onnx_reference); see the module docstring for why the integer models
# do not use onnxruntime.
MODELS = {
    "matmul_integer": (matmul_integer, "numpy"),
    "matmul_integer_per_row": (matmul_integer_per_row, "numpy"),
    "conv_integer": (conv_integer, "numpy"),
    "conv_integer_per_channel": (conv_integer_per_channel, "numpy"),
    "qlinear_matmul": (qlinear_matmul, "numpy"),
    "qlinear_conv": (qlinear_conv, "numpy"),
    "col2im": (col2im, "ort"),
    "qoperator_net": (lambda: quantized_net("qoperator"), "onnx"),
    "qdq_net": (lambda: quantized_net("qdq"), "onnx"),
    "dynamic_mlp": (dynamic_mlp, "onnx"),
}


def one_node(op, inputs, input_infos, inits=(), opset=13, out=I32, **attrs):
    """One `op` node named 'bad' (error cases for the import test)."""
    return build([helper.make_node(op, inputs, ["y"], name="bad", **attrs)],
                 input_infos, [vi("y", out)], inits, opset, check=False)


# Written with --write-only for test/tools/tandemc/import-quant-ops.test.
IMPORT_MODELS = {
    "mmi_float": lambda: one_node(
        "MatMulInteger", ["a", "b"], [vi("a", F, [2, 3]), vi("b", F, [3, 2])]),
    "mmi_zp_type": lambda: one_node(
        "MatMulInteger", ["a", "b", "az"], [vi("a", U8, [2, 3])],
        [numpy_helper.from_array(int8s((3, 2)), "b"),
         const("az", 1, np.int8)]),
    "mmi_zp_shape": lambda: one_node(
        "MatMulInteger", ["a", "b", "", "bz"], [vi("a", U8, [2, 3])],
        [numpy_helper.from_array(int8s((3, 2)), "b"),
         const("bz", [1, 2, 3], np.int8)]),
    "ci_x_zp": lambda: one_node(
        "ConvInteger", ["x", "w", "xz"], [vi("x", U8, [1, 2, 4, 4])],
        [numpy_helper.from_array(int8s((3, 2, 2, 2)), "w"),
         const("xz", [1, 2], np.uint8)]),
    "qlc_bias": lambda: one_node(
        "QLinearConv", ["x", "s", "xz", "w", "s", "wz", "s", "yz", "b"],
        [vi("x", U8, [1, 2, 4, 4])],
        [numpy_helper.from_array(int8s((3, 2, 2, 2)), "w"),
         const("s", 0.1, np.float32), const("xz", 0, np.uint8),
         const("wz", 0, np.int8), const("yz", 0, np.uint8),
         const("b", [1.0, 2.0, 3.0], np.float32)], out=U8),
    "qlmm_y_scale": lambda: one_node(
        "QLinearMatMul", ["a", "s", "az", "b", "s", "bz", "ys", "yz"],
        [vi("a", U8, [2, 3])],
        [numpy_helper.from_array(int8s((3, 2)), "b"),
         const("s", 0.1, np.float32), const("az", 0, np.uint8),
         const("bz", 0, np.int8), const("ys", [0.1, 0.2], np.float32),
         const("yz", 0, np.uint8)], out=U8),
    "qlmm_1d_rows": lambda: one_node(
        "QLinearMatMul", ["a", "as", "az", "b", "s", "bz", "s", "yz"],
        [vi("a", U8, [2, 3])],
        [const("b", [1, -2, 3], np.int8),
         const("as", [0.1, 0.2], np.float32), const("s", 0.1, np.float32),
         const("az", 0, np.uint8), const("bz", 0, np.int8),
         const("yz", 0, np.uint8)], out=U8),
    "col2im_runtime_shape": lambda: one_node(
        "Col2Im", ["x", "img", "blk"],
        [vi("x", F, [1, 4, 9]), vi("img", I64, [2])],
        [const("blk", [2, 2], np.int64)], opset=18, out=F),
    "col2im_bad_columns": lambda: one_node(
        "Col2Im", ["x", "img", "blk"], [vi("x", F, [1, 4, 8])],
        [const("img", [4, 4], np.int64), const("blk", [2, 2], np.int64)],
        opset=18, out=F),
    "prelu_channel_slope": lambda: one_node(
        "PRelu", ["x", "slope"], [vi("x", F, [2, 3, 4])],
        [const("slope", [0.1, 0.2, 0.3], np.float32)], out=F),
}


def integer_conv(x, w, node):
    """The convolution of int64 `x` [N, C, *spatial] by int64 `w`
    [K, C/group, *kernel] with `node`'s pads, strides, dilations and
    group (1-D or 2-D): int64 [N, K, *out]."""
    attr = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    rank = x.ndim - 2
    pads = list(attr.get("pads", [0] * 2 * rank))
    strides = list(attr.get("strides", [1] * rank))
    dilations = list(attr.get("dilations", [1] * rank))
    group = attr.get("group", 1)
    auto_pad = attr.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        for d in range(rank):
            size, k = x.shape[2 + d], w.shape[2 + d]
            total = max(0, (-(-size // strides[d]) - 1) * strides[d] +
                        (k - 1) * dilations[d] + 1 - size)
            small, large = total // 2, total - total // 2
            pads[d], pads[d + rank] = ((small, large)
                                       if auto_pad == "SAME_UPPER"
                                       else (large, small))
    elif auto_pad == "VALID":
        pads = [0] * 2 * rank
    x = np.pad(x, [(0, 0), (0, 0)] +
               [(pads[d], pads[d + rank]) for d in range(rank)])
    kernel = w.shape[2:]
    out = [(x.shape[2 + d] - dilations[d] * (kernel[d] - 1) - 1) //
           strides[d] + 1 for d in range(rank)]
    cg, kg = x.shape[1] // group, w.shape[0] // group
    y = np.zeros((x.shape[0], w.shape[0], *out), np.int64)
    for tap in np.ndindex(*kernel):
        window = x[(slice(None), slice(None)) + tuple(
            slice(tap[d] * dilations[d],
                  tap[d] * dilations[d] + (out[d] - 1) * strides[d] + 1,
                  strides[d]) for d in range(rank))]
        for g in range(group):
            y[:, g * kg:(g + 1) * kg] += np.einsum(
                "nc...,oc->no...", window[:, g * cg:(g + 1) * cg],
                w[g * kg:(g + 1) * kg][(slice(None), slice(None)) + tap])
    return y


def per_channel(v, rank):
    """A 1-D per-channel `v` shaped to broadcast along the leading dim of
    `rank` trailing dims (a scalar or already shaped `v` as it is)."""
    return v.reshape((-1,) + (1,) * (rank - 1)) if v.ndim == 1 else v


def qlinear_conv_reference(x, x_scale, x_zero, w, w_scale, w_zero, y_scale,
                           y_zero, bias, node):
    """QLinearConv `node` by its ONNX definition: the int64 convolution of
    (x - x_zero) by (w - w_zero), plus the int32 `bias` (None: none),
    requantised."""
    wide = lambda v: v.astype(np.int64)  # noqa: E731
    acc = integer_conv(wide(x) - wide(x_zero),
                       wide(w) - per_channel(wide(w_zero), w.ndim), node)
    if bias is not None:
        acc += per_channel(wide(bias), acc.ndim - 1)
    return requantize(acc, per_channel(qlinear_scale(x_scale, w_scale,
                                                     y_scale), acc.ndim - 1),
                      y_zero)


def numpy_reference(model_path, feeds):
    """The ONNX definition of the models' MatMulInteger, ConvInteger and
    QLinearConv nodes (after their QuantizeLinear inputs), evaluated in
    numpy: (a - a_zero_point) @ (b - b_zero_point) and the convolution of
    (x - x_zero_point) by (w - w_zero_point) in int64; QLinearConv adds its
    bias and requantises as onnxruntime does, the sum (as float32) times
    the float32 x_scale * w_scale / y_scale, rounded half to even, plus
    y_zero_point, saturated."""
    from onnx.reference import ReferenceEvaluator
    model = onnx.load(model_path)
    values = {i.name: numpy_helper.to_array(i)
              for i in model.graph.initializer}
    quant = [n for n in model.graph.node if n.op_type == "QuantizeLinear"]
    sub = helper.make_model(helper.make_graph(
        quant, "q", list(model.graph.input),
        [vi(n.output[0], TensorProto.UNDEFINED) for n in quant],
        list(model.graph.initializer)),
        opset_imports=list(model.opset_import))
    values.update(zip([n.output[0] for n in quant],
                      ReferenceEvaluator(sub).run(None, feeds)))
    wide = lambda name: values[name].astype(np.int64)  # noqa: E731
    outputs = []
    for node in model.graph.node:
        ins = list(node.input) + [""] * 9
        if node.op_type == "MatMulInteger":
            a, b = wide(ins[0]), wide(ins[1])
            if ins[2]:
                az = wide(ins[2])
                a = a - (az.reshape(-1, 1) if az.ndim == 1 else az)
            if ins[3]:
                b = b - wide(ins[3])
            outputs.append((a @ b).astype(np.int32))
        elif node.op_type == "ConvInteger":
            x, w = wide(ins[0]), wide(ins[1])
            if ins[2]:
                x = x - wide(ins[2])
            if ins[3]:
                w = w - per_channel(wide(ins[3]), w.ndim)
            outputs.append(integer_conv(x, w, node).astype(np.int32))
        elif node.op_type == "QLinearMatMul":
            a = wide(ins[0]) - wide(ins[2])
            b = wide(ins[3]) - wide(ins[5])
            outputs.append(requantize(
                a @ b, qlinear_scale(values[ins[1]], values[ins[4]],
                                     values[ins[6]]), values[ins[7]]))
        elif node.op_type == "QLinearConv":
            outputs.append(qlinear_conv_reference(
                *(values[name] for name in ins[:8]),
                values[ins[8]] if ins[8] else None, node))
    return outputs


def qlinear_scale(a_scale, b_scale, y_scale):
    """The requantisation multiplier a_scale * b_scale / y_scale in
    float32, as onnxruntime computes it."""
    return (a_scale.astype(np.float32) * b_scale.astype(np.float32) /
            y_scale.astype(np.float32)).astype(np.float32)


def requantize(acc, scale, y_zero):
    """An int64 sum `acc` as `y_zero`'s type, as onnxruntime requantises:
    the sum as float32 times the float32 `scale` (shaped to broadcast
    against `acc`), rounded half to even, plus y_zero, saturated."""
    y = np.rint(acc.astype(np.float32) * scale)
    info = np.iinfo(y_zero.dtype)
    return np.clip(y + y_zero.astype(np.int64), info.min,
                   info.max).astype(y_zero.dtype)


def onnx_reference(model_path, feeds):
    """The model run by onnx's reference implementation, with numpy's
    QLinearConv (onnx's fails on per-channel scales) and the default
    domain's opset raised to 21 (it implements DequantizeLinear only from
    19 on; the int8/uint8 forms mean the same since 13)."""
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.op_run import OpRun

    class QLinearConv(OpRun):
        op_domain = ""

        def _run(self, x, x_scale, x_zero, w, w_scale, w_zero, y_scale,
                 y_zero, bias=None, **_):
            return (qlinear_conv_reference(x, x_scale, x_zero, w, w_scale,
                                           w_zero, y_scale, y_zero, bias,
                                           self.onnx_node),)

    model = onnx.load(model_path)
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = max(opset.version, 21)
    return ReferenceEvaluator(model, new_ops=[QLinearConv]).run(None, feeds)


def reference(model_path, kind, feeds):
    """The reference outputs of the model on `feeds`."""
    if kind == "numpy":
        return numpy_reference(model_path, feeds)
    if kind == "onnx":
        return onnx_reference(model_path, feeds)
    import onnxruntime as ort
    session = ort.InferenceSession(model_path,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def check(args, name, path, kind):
    """Compiles and runs the model; None when it matches the reference."""
    work = args.work
    feeds = make_inputs(path, [])
    inputs, refs = [], []
    for i, value in enumerate(feeds.values()):
        inputs.append(os.path.join(work, "%s.in%d.npy" % (name, i)))
        np.save(inputs[-1], value)
    exact = True
    for k, ref in enumerate(reference(path, kind, feeds)):
        refs.append(os.path.join(work, "%s.ref%d.npy" % (name, k)))
        np.save(refs[-1], np.asarray(ref, order="C"))
        exact &= np.issubdtype(np.asarray(ref).dtype, np.integer)
    lib = os.path.join(work, name + ".so")
    flags = run_e2e.gpu_flags(args.gpu, name)
    if args.gpu != "none":
        flags.append("--gpu-twins=" + args.gpu_twins)
    proc = subprocess.run([args.tandemc, path, "--emit=shared", "-o", lib] +
                          flags, capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0:
        return "tandemc failed: " + proc.stderr.strip()[-2000:]
    # Integer outputs exactly; float ones (Col2Im's sums, dequantised
    # logits) within rounding.
    tolerance = ["--rtol", "0", "--atol", "0"] if exact else \
        ["--rtol", "1e-4", "--atol", "1e-5"]
    outputs = {}
    for device in args.devices:
        out_dir = os.path.join(work, "%s.out%s" % (name, device or ""))
        cmd = [args.tandem_run, lib, "--input"] + inputs + ["--compare"] + \
            refs + tolerance + ["--output-dir", out_dir]
        if device:
            cmd += ["--device", device]
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=1200)
        if proc.returncode != 0:
            return "tandem-run %s: %s" % (device or "", (
                proc.stdout + proc.stderr).strip()[-2000:])
        outputs[device] = {f: open(os.path.join(out_dir, f), "rb").read()
                           for f in sorted(os.listdir(out_dir))}
    first = list(outputs.values())[0]
    for device, out in outputs.items():
        if out != first:
            return "outputs on %s differ" % device
    return None


def main():
    def seed(name):
        # Each model's weights depend on its name only.
        global RNG
        RNG = np.random.default_rng(sum(map(ord, name)))

    return run_e2e.op_models_main(
        "quant-ops", {name: make for name, (make, _) in MODELS.items()},
        IMPORT_MODELS,
        lambda args, name, path: check(args, name, path, MODELS[name][1]),
        seed)


if __name__ == "__main__":
    sys.exit(main())
