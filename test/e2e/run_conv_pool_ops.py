#!/usr/bin/env python3
"""End to end on small models of the 3-D convolutions and pools and of the
dilated average and Lp pools (Conv, ConvTranspose, MaxPool, AveragePool,
LpPool over NCDHW inputs; dilated AveragePool and LpPool in 1-D and 2-D;
MaxPool's Indices output),
covering the attribute combinations the ONNX node tests leave out: groups,
asymmetric pads, auto_pad, ceil_mode with count_include_pad, output_shape.

usage: run_conv_pool_ops.py --tandemc BIN --tandem-run BIN --work DIR
                            [--gpu none|all] [--gpu-twins linalg|mapped]
                            [--devices D,...] [--write-only] [NAME...]

Each model is checked like run_e2e.py does (onnxruntime reference, rtol
1e-4), on the CPU or, with --gpu all, with every op the GPU runs placed on
it and run on the --devices. Prints "PASS name" / "FAIL name: why" and
"conv-pool-ops: N passed, M failed". With --write-only, only writes the
models (DIR/NAME.onnx), for the ptxas test.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_e2e  # noqa: E402

F = TensorProto.FLOAT
RNG = np.random.default_rng(7)


def vi(name, shape=None):
    """A float value info; outputs leave the shape to shape inference."""
    return helper.make_tensor_value_info(name, F, shape)


def weight(name, *shape):
    return numpy_helper.from_array(
        RNG.standard_normal(shape).astype(np.float32) * 0.5, name)


def build(nodes, inputs, outputs, inits=(), opset=19):
    return run_e2e.build_model(nodes, inputs, outputs, inits, opset, 9)


def conv3d():
    """Conv 3-D: pads, strides, dilations, groups and bias together; auto_pad
    SAME_UPPER and SAME_LOWER with strides; a 1 x 3 x 3 and a 3 x 1 x 1
    kernel; depthwise; no bias."""
    n = helper.make_node
    return build([
        n("Conv", ["x", "w1", "b1"], ["y1"], group=2, pads=[1, 0, 2, 0, 1, 1],
          strides=[2, 1, 2], dilations=[1, 2, 1]),
        n("Conv", ["x", "w2"], ["y2"], auto_pad="SAME_UPPER",
          strides=[2, 2, 1]),
        n("Conv", ["x", "w2"], ["y3"], auto_pad="SAME_LOWER",
          strides=[1, 2, 2]),
        n("Conv", ["x", "w4", "b4"], ["y4"], pads=[0, 1, 1, 0, 1, 1]),
        n("Conv", ["x", "w5"], ["y5"], strides=[2, 1, 1], pads=[1, 0, 0] * 2),
        n("Conv", ["x", "w6", "b6"], ["y6"], group=4, pads=[1] * 6),
    ], [vi("x", [2, 4, 6, 7, 8])],
        [vi(y) for y in ("y1", "y2", "y3", "y4", "y5", "y6")],
        [weight("w1", 6, 2, 3, 3, 3), weight("b1", 6),
         weight("w2", 5, 4, 2, 3, 2), weight("w4", 3, 4, 1, 3, 3),
         weight("b4", 3), weight("w5", 4, 4, 3, 1, 1),
         weight("w6", 8, 1, 3, 3, 3), weight("b6", 8)])


def pool3d():
    """MaxPool, AveragePool (count_include_pad 0 and 1) and LpPool over
    NCDHW with pads, strides, dilations and ceil_mode; ceil-mode windows
    that overhang the end padding; auto_pad SAME_UPPER."""
    n = helper.make_node
    nodes = [
        n("MaxPool", ["x"], ["max1"], kernel_shape=[2, 3, 3],
          strides=[2, 2, 2], pads=[0, 1, 1, 1, 1, 0], ceil_mode=1),
        n("MaxPool", ["x"], ["max2"], kernel_shape=[2, 2, 2],
          dilations=[2, 1, 2], strides=[1, 2, 1]),
        n("MaxPool", ["x"], ["max3"], kernel_shape=[3, 3, 3],
          auto_pad="SAME_UPPER", strides=[2, 2, 2]),
        n("LpPool", ["x"], ["lp1"], kernel_shape=[2, 2, 3], p=2,
          strides=[1, 2, 2], pads=[1, 0, 1, 0, 1, 1]),
        n("LpPool", ["x"], ["lp2"], kernel_shape=[2, 2, 2], p=3,
          dilations=[2, 2, 1], strides=[2, 1, 2], ceil_mode=1),
    ]
    outs = ["max1", "max2", "max3", "lp1", "lp2"]
    for include in (0, 1):
        nodes += [
            n("AveragePool", ["x"], ["avg%d_pads" % include],
              kernel_shape=[3, 3, 2], strides=[2, 2, 2],
              pads=[1, 1, 0, 1, 0, 1], count_include_pad=include),
            n("AveragePool", ["x"], ["avg%d_ceil" % include],
              kernel_shape=[2, 3, 3], strides=[2, 2, 3],
              pads=[0, 1, 1, 0, 1, 1], ceil_mode=1,
              count_include_pad=include),
            n("AveragePool", ["x"], ["avg%d_dil" % include],
              kernel_shape=[2, 2, 3], strides=[3, 1, 2],
              dilations=[2, 3, 1], pads=[1, 1, 1, 0, 1, 1], ceil_mode=1,
              count_include_pad=include),
        ]
        outs += ["avg%d_pads" % include, "avg%d_ceil" % include,
                 "avg%d_dil" % include]
    return build(nodes, [vi("x", [1, 3, 7, 8, 9])], [vi(o) for o in outs])


def dilated_pools():
    """Dilated AveragePool (count_include_pad 0 and 1, ceil_mode) and LpPool
    in 1-D and 2-D, and a ceil-mode LpPool whose last window overhangs."""
    n = helper.make_node
    nodes, outs = [], []
    for include in (0, 1):
        nodes += [
            n("AveragePool", ["x"], ["a2_%d" % include], kernel_shape=[3, 2],
              strides=[2, 1], dilations=[2, 3], pads=[2, 1, 1, 1],
              ceil_mode=1, count_include_pad=include),
            n("AveragePool", ["s"], ["a1_%d" % include], kernel_shape=[3],
              strides=[2], dilations=[3], pads=[2, 1],
              count_include_pad=include),
        ]
        outs += ["a2_%d" % include, "a1_%d" % include]
    nodes += [
        n("LpPool", ["x"], ["lp2"], kernel_shape=[2, 3], p=2,
          dilations=[3, 2], strides=[1, 2], pads=[1, 0, 0, 2]),
        n("LpPool", ["s"], ["lp1"], kernel_shape=[3], p=1, dilations=[2],
          strides=[3], ceil_mode=1),
        n("LpPool", ["x"], ["lp_ceil"], kernel_shape=[2, 2], p=2,
          strides=[2, 2], ceil_mode=1),
        n("MaxPool", ["x"], ["max2"], kernel_shape=[2, 3], strides=[2, 2],
          dilations=[3, 2], pads=[1, 1, 1, 1], ceil_mode=1),
    ]
    outs += ["lp2", "lp1", "lp_ceil", "max2"]
    return build(nodes, [vi("x", [2, 3, 9, 11]), vi("s", [2, 3, 17])],
                 [vi(o) for o in outs], opset=19)


def max_pool_indices():
    """MaxPool's Indices output in 1-D, 2-D (storage_order 0 and 1, pads,
    ceil_mode, dilations) and 3-D, on floor(2x): ties pick the first
    maximum in window order, as onnxruntime does."""
    n = helper.make_node
    i64 = TensorProto.INT64
    nodes = [n("Mul", ["x", "two"], ["x2"]), n("Floor", ["x2"], ["t"]),
             n("Mul", ["v", "two"], ["v2"]), n("Floor", ["v2"], ["tv"]),
             n("Mul", ["s", "two"], ["s2"]), n("Floor", ["s2"], ["ts"]),
             n("MaxPool", ["t"], ["m0", "i0"], kernel_shape=[3, 3],
               strides=[2, 2], pads=[1, 1, 1, 1]),
             n("MaxPool", ["t"], ["m1", "i1"], kernel_shape=[2, 3],
               strides=[2, 2], pads=[1, 0, 0, 1], ceil_mode=1,
               storage_order=1),
             n("MaxPool", ["t"], ["m2", "i2"], kernel_shape=[2, 2],
               dilations=[2, 3]),
             n("MaxPool", ["tv"], ["m3", "i3"], kernel_shape=[2, 2, 3],
               strides=[2, 1, 2], pads=[0, 1, 1, 1, 0, 1]),
             n("MaxPool", ["ts"], ["m4", "i4"], kernel_shape=[3],
               strides=[2], pads=[1, 1], storage_order=1)]
    outs = [vi("m%d" % i) for i in range(5)] + [
        helper.make_tensor_value_info("i%d" % i, i64, None) for i in range(5)]
    return build(nodes, [vi("x", [2, 3, 7, 8]), vi("v", [1, 2, 5, 4, 6]),
                         vi("s", [2, 2, 9])], outs,
                 [numpy_helper.from_array(np.array(2.0, np.float32), "two")],
                 opset=13)


def conv_transpose3d():
    """ConvTranspose 3-D: strides with output_padding, groups, pads and
    dilations, output_shape (cropping 1, 0 and 1; and 2, 3 and 3 despite
    the pads it overrides; 1-D and 2-D too), auto_pad SAME_UPPER, bias."""
    n = helper.make_node
    return build([
        n("ConvTranspose", ["x", "w1", "b1"], ["y1"], strides=[2, 1, 2],
          output_padding=[1, 0, 1], pads=[0, 1, 1, 1, 0, 0]),
        n("ConvTranspose", ["x", "w2"], ["y2"], group=2, strides=[1, 2, 2],
          dilations=[2, 1, 1]),
        n("ConvTranspose", ["x", "w1"], ["y3"], strides=[2, 2, 2],
          output_shape=[5, 7, 8]),
        n("ConvTranspose", ["x", "w1", "b1"], ["y5"], strides=[2, 2, 2],
          output_shape=[4, 4, 6], pads=[1] * 6),
        n("ConvTranspose", ["x", "w1"], ["y4"], strides=[2, 2, 1],
          auto_pad="SAME_UPPER"),
        # 2-D and 1-D output_shape crops split the same way.
        n("ConvTranspose", ["x2", "w2d"], ["y6"], strides=[2, 2],
          output_shape=[6, 6]),
        n("ConvTranspose", ["x1", "w1d"], ["y7"], strides=[3],
          output_shape=[9]),
    ], [vi("x", [1, 4, 3, 3, 4]), vi("x2", [1, 4, 3, 4]), vi("x1", [2, 4, 4])],
        [vi("y%d" % i) for i in range(1, 8)],
        [weight("w1", 4, 3, 2, 3, 3), weight("b1", 3),
         weight("w2", 4, 2, 3, 2, 2), weight("w2d", 4, 2, 3, 3),
         weight("w1d", 4, 3, 3)])


def video_block():
    """A video-style block: Conv3d, BatchNorm, Relu, MaxPool 3-D, a
    (2+1)D factorised conv pair, GlobalAveragePool and a Gemm."""
    n = helper.make_node
    return build([
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1] * 6),
        n("BatchNormalization", ["c1", "g", "be", "m", "v"], ["bn"]),
        n("Relu", ["bn"], ["r1"]),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[1, 2, 2],
          strides=[1, 2, 2]),
        n("Conv", ["p1", "w2"], ["c2"], pads=[0, 1, 1, 0, 1, 1]),
        n("Relu", ["c2"], ["r2"]),
        n("Conv", ["r2", "w3"], ["c3"], pads=[1, 0, 0, 1, 0, 0]),
        n("GlobalAveragePool", ["c3"], ["gap"]),
        n("Flatten", ["gap"], ["flat"]),
        n("Gemm", ["flat", "fc", "fcb"], ["y"], transB=1),
    ], [vi("x", [2, 3, 4, 12, 12])], [vi("y")],
        [weight("w1", 8, 3, 3, 3, 3), weight("b1", 8), weight("g", 8),
         weight("be", 8), weight("m", 8),
         numpy_helper.from_array(
             RNG.uniform(0.5, 1.5, 8).astype(np.float32), "v"),
         weight("w2", 8, 8, 1, 3, 3), weight("w3", 8, 8, 3, 1, 1),
         weight("fc", 5, 8), weight("fcb", 5)], opset=17)


def conv_pools():
    """A conv (+ReLU) feeding 2-D max and average pools (pads, ceil_mode,
    dilations, count_include_pad 0 and 1), each pool feeding a 1x1 conv:
    with --gpu-layout nhwc every pool reads the conv's NHWC result and
    becomes an NHWC pool."""
    n = helper.make_node
    nodes = [n("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3],
               pads=[1, 1, 1, 1]),
             n("Relu", ["c"], ["r"]),
             n("MaxPool", ["r"], ["m"], kernel_shape=[2, 3], strides=[2, 2],
               dilations=[3, 2], pads=[1, 1, 1, 1], ceil_mode=1),
             n("Conv", ["m", "v"], ["ym"], kernel_shape=[1, 1])]
    outs = ["ym"]
    for include in (0, 1):
        nodes += [n("AveragePool", ["r"], ["a%d" % include],
                    kernel_shape=[3, 2], strides=[2, 1], dilations=[2, 3],
                    pads=[2, 1, 1, 1], ceil_mode=1,
                    count_include_pad=include),
                  n("Conv", ["a%d" % include, "v"], ["ya%d" % include],
                    kernel_shape=[1, 1])]
        outs.append("ya%d" % include)
    return build(nodes, [vi("x", [2, 3, 9, 11])], [vi(o) for o in outs],
                 [weight("w", 4, 3, 3, 3), weight("v", 5, 4, 1, 1)])


MODELS = {"conv3d": conv3d, "pool3d": pool3d,
          "dilated_pools": dilated_pools, "max_pool_indices": max_pool_indices,
          "conv_transpose3d": conv_transpose3d, "video_block": video_block,
          "conv_pools": conv_pools}


def main():
    return run_e2e.op_models_main("conv-pool-ops", MODELS, None)


if __name__ == "__main__":
    sys.exit(main())
