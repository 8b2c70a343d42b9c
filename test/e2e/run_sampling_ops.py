#!/usr/bin/env python3
"""End to end on small models of the sampling and remaining indexing ops
(GridSample, RoiAlign, ReverseSequence, Slice with negative steps, Pow of
integer bases), with their grids, rois, batch indices, sequence lengths and
exponents as run-time inputs.

usage: run_sampling_ops.py --tandemc BIN --tandem-run BIN --work DIR
                           [--gpu none|all] [--gpu-twins linalg|mapped]
                           [--devices D,...] [--write-only] [NAME...]

Each model is checked like run_e2e.py does (onnxruntime reference, rtol
1e-4), on the CPU or, with --gpu all, with every op the GPU runs placed on
it and run on the --devices. GridSample grids are standard normal, so about
a third of the samples fall outside [-1, 1] and exercise the padding modes;
RoiAlign boxes are built from run-time values and reach past the feature
map. Prints "PASS name" / "FAIL name: why" and "sampling-ops: N passed,
M failed". With --write-only, only writes the models (DIR/NAME.onnx), for
the import and ptxas tests.
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


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype), name)


def build(nodes, inputs, outputs, inits=(), opset=20, check=True):
    # IR 8 for the opset converter's checker (onnx 1.12), which older
    # opsets go through.
    return run_e2e.build_model(nodes, inputs, outputs, inits, opset,
                               9 if opset >= 20 else 8, check)


def grid_sample_2d():
    """Every mode x padding_mode x align_corners on a 2-D map (opset 20
    names), from a fused producer of X, and opset 16's bilinear."""
    n = helper.make_node
    nodes = [n("Tanh", ["x"], ["t"])]
    outputs = []
    for mode in ("linear", "nearest", "cubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                name = "%s_%s_%d" % (mode, padding, align)
                nodes.append(n("GridSample", ["t", "grid"], [name], mode=mode,
                               padding_mode=padding, align_corners=align))
                outputs.append(vi(name, F))
    return build(nodes, [vi("x", F, [2, 3, 5, 6]),
                         vi("grid", F, [2, 4, 7, 2])], outputs)


def grid_sample_opset16():
    """Opset 16's mode names (bilinear, bicubic)."""
    n = helper.make_node
    return build([
        n("GridSample", ["x", "grid"], ["bilinear"]),
        n("GridSample", ["x", "grid"], ["bicubic"], mode="bicubic",
          padding_mode="border"),
        n("GridSample", ["x", "grid"], ["nearest"], mode="nearest",
          padding_mode="reflection", align_corners=1),
    ], [vi("x", F, [1, 2, 4, 3]), vi("grid", F, [1, 3, 5, 2])],
        [vi("bilinear", F), vi("bicubic", F), vi("nearest", F)], opset=16)


def grid_sample_3d():
    """Volumetric (5-D) linear and nearest sampling, every padding_mode."""
    n = helper.make_node
    nodes, outputs = [], []
    for mode in ("linear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                name = "%s_%s_%d" % (mode, padding, align)
                nodes.append(n("GridSample", ["x", "grid"], [name], mode=mode,
                               padding_mode=padding, align_corners=align))
                outputs.append(vi(name, F))
    return build(nodes, [vi("x", F, [1, 2, 3, 4, 5]),
                         vi("grid", F, [1, 2, 3, 4, 3])], outputs)


def roi_align():
    """Run-time boxes (corners |a| * 4, sizes |b| * 5 + 0.5, some past the
    10x12 map) and batch indices; avg and max, both coordinate modes,
    sampling ratios 1 to 3, spatial_scale 1 and 0.5."""
    n = helper.make_node
    nodes = [n("Abs", ["a"], ["abs_a"]), n("Mul", ["abs_a", "four"], ["lo"]),
             n("Abs", ["b"], ["abs_b"]), n("Mul", ["abs_b", "five"], ["b5"]),
             n("Add", ["b5", "half"], ["size"]),
             n("Add", ["lo", "size"], ["hi"]),
             n("Concat", ["lo", "hi"], ["rois"], axis=1)]
    outputs = []
    cases = [("avg", "half_pixel", 2, 1.0, 3, 4),
             ("avg", "output_half_pixel", 1, 1.0, 2, 2),
             ("max", "half_pixel", 3, 0.5, 2, 3),
             ("max", "output_half_pixel", 2, 1.0, 4, 3),
             ("avg", "half_pixel", 3, 0.5, 1, 1)]
    for k, (mode, ctm, ratio, scale, oh, ow) in enumerate(cases):
        name = "roi%d" % k
        nodes.append(n("RoiAlign", ["x", "rois", "batch"], [name], mode=mode,
                       coordinate_transformation_mode=ctm,
                       sampling_ratio=ratio, spatial_scale=scale,
                       output_height=oh, output_width=ow))
        outputs.append(vi(name, F))
    return build(nodes, [vi("x", F, [4, 3, 10, 12]), vi("a", F, [6, 2]),
                         vi("b", F, [6, 2]), vi("batch", I64, [6])],
                 outputs,
                 [numpy_helper.from_array(np.array(v, np.float32), name)
                  for name, v in (("four", 4.0), ("five", 5.0),
                                  ("half", 0.5))])


def roi_align_adaptive():
    """sampling_ratio 0 (each box's grid from its size) with constant boxes
    of several sizes, an empty one and one past the map; run-time batch
    indices; avg and max."""
    n = helper.make_node
    rois = np.array([[0.5, 1.0, 9.0, 7.5], [2.0, 2.0, 4.5, 3.0],
                     [3.0, 3.0, 3.0, 3.0], [6.0, 1.0, 14.0, 12.5],
                     [1.0, 0.0, 2.0, 9.0]], np.float32)
    return build([
        n("RoiAlign", ["x", "rois", "batch"], ["avg"], output_height=2,
          output_width=3, spatial_scale=1.0),
        n("RoiAlign", ["x", "rois", "batch"], ["max"], mode="max",
          output_height=3, output_width=2, spatial_scale=0.5,
          coordinate_transformation_mode="output_half_pixel"),
    ], [vi("x", F, [4, 2, 10, 12]), vi("batch", I64, [5])],
        [vi("avg", F), vi("max", F)],
        [numpy_helper.from_array(rois, "rois")], opset=16)


def reverse_sequence():
    """Both axis orders, run-time lengths (0 to 3), trailing dims."""
    n = helper.make_node
    return build([
        n("ReverseSequence", ["x", "lens"], ["by_batch"], batch_axis=0,
          time_axis=1),
        n("ReverseSequence", ["xt", "lens"], ["by_time"], batch_axis=1,
          time_axis=0),
        n("ReverseSequence", ["xi", "lens"], ["ints"], batch_axis=0,
          time_axis=1),
    ], [vi("x", F, [4, 5, 3]), vi("xt", F, [6, 4]), vi("xi", I64, [4, 3]),
        vi("lens", I64, [4])],
        [vi("by_batch", F), vi("by_time", F), vi("ints", I64)], opset=10)


def slice_neg_steps():
    """Negative steps: a full reverse (INT64_MIN end), step -2 with starts
    and ends clamped, mixed positive and negative steps on several axes, and
    one element."""
    n = helper.make_node
    big = np.iinfo(np.int64)
    return build([
        n("Slice", ["x", "s_rev", "e_rev", "a_rev", "st_rev"], ["rev"]),
        n("Slice", ["x", "s_clamp", "e_clamp", "a_clamp", "st_clamp"],
          ["clamped"]),
        n("Slice", ["x", "s_mix", "e_mix", "a_mix", "st_mix"], ["mixed"]),
        n("Slice", ["x", "s_one", "e_one", "a_one", "st_one"], ["one"]),
    ], [vi("x", F, [5, 7, 4])],
        [vi("rev", F), vi("clamped", F), vi("mixed", F), vi("one", F)],
        [const("s_rev", [-1]), const("e_rev", [big.min]),
         const("a_rev", [1]), const("st_rev", [-1]),
         const("s_clamp", [100, -2]), const("e_clamp", [-100, 0]),
         const("a_clamp", [0, 2]), const("st_clamp", [-2, -1]),
         const("s_mix", [1, 6, 3]), const("e_mix", [big.max, 0, -5]),
         const("a_mix", [0, 1, 2]), const("st_mix", [2, -3, -1]),
         const("s_one", [3]), const("e_one", [2]), const("a_one", [-1]),
         const("st_one", [-1])], opset=13)


def pow_int():
    """Integer bases: int32 and int64 run-time bases and exponents (0 to 3),
    negative exponents on bases +-1, 2, -3, and float exponents, fractional
    and integral, on positive bases."""
    n = helper.make_node
    return build([
        n("Pow", ["x32", "e32"], ["p32"]),
        n("Pow", ["x64", "e64m"], ["p64"]),
        n("Sub", ["e64", "three"], ["neg"]),
        n("Pow", ["bases", "neg"], ["p_neg"]),
        n("Abs", ["f"], ["fa"]), n("Mul", ["fa", "two"], ["fe"]),
        n("Pow", ["pos32", "fe"], ["p_float"]),
        n("Floor", ["fe"], ["fi"]),
        n("Pow", ["pos64", "fi"], ["p_integral"]),
    ], [vi("x32", I32, [2, 6]), vi("e32", I32, [2, 6]),
        vi("x64", I64, [2, 6]), vi("e64m", I64, [2, 6]), vi("e64", I64, [4]),
        vi("f", F, [2, 4])],
        [vi("p32", I32), vi("p64", I64), vi("p_neg", I64), vi("p_float", I32),
         vi("p_integral", I64)],
        [const("three", 3), const("bases", [1, -1, 2, -3]),
         const("pos32", [1, 2, 3, 7], np.int32),
         const("pos64", [1, 5, 3, 9]), const("two", 2.0, np.float32)],
        opset=15)


def one_node(op, inputs, input_infos, inits=(), opset=20, out_shape=None,
             **attrs):
    """One `op` node named 'bad' (error cases for the import test)."""
    return build([helper.make_node(op, inputs, ["y"], name="bad", **attrs)],
                 input_infos, [vi("y", F, out_shape)], inits, opset,
                 check=False)


# Written with --write-only for test/tools/tandemc/import-sampling-ops.test.
IMPORT_MODELS = {
    "grid_sample_bad_mode": lambda: one_node(
        "GridSample", ["x", "g"], [vi("x", F, [1, 1, 3, 3]),
                                   vi("g", F, [1, 2, 2, 2])], mode="area"),
    "grid_sample_bad_padding": lambda: one_node(
        "GridSample", ["x", "g"], [vi("x", F, [1, 1, 3, 3]),
                                   vi("g", F, [1, 2, 2, 2])],
        padding_mode="wrap"),
    "grid_sample_3d_opset16": lambda: one_node(
        "GridSample", ["x", "g"], [vi("x", F, [1, 1, 3, 3, 3]),
                                   vi("g", F, [1, 2, 2, 2, 3])], opset=16),
    "grid_sample_bad_grid": lambda: one_node(
        "GridSample", ["x", "g"], [vi("x", F, [1, 1, 3, 3]),
                                   vi("g", F, [1, 2, 2, 3])]),
    "grid_sample_too_many_taps": lambda: one_node(
        "GridSample", ["x", "g"], [vi("x", F, [1, 1, 2, 2, 2, 2, 2]),
                                   vi("g", F, [1, 1, 1, 1, 1, 1, 5])],
        mode="cubic"),
    "roi_align_adaptive_runtime": lambda: one_node(
        "RoiAlign", ["x", "r", "b"], [vi("x", F, [1, 1, 4, 4]),
                                      vi("r", F, [2, 4]), vi("b", I64, [2])],
        opset=16),
    "roi_align_bad_mode": lambda: one_node(
        "RoiAlign", ["x", "r", "b"], [vi("x", F, [1, 1, 4, 4]),
                                      vi("r", F, [2, 4]), vi("b", I64, [2])],
        opset=16, mode="median", sampling_ratio=2),
    "reverse_sequence_bad_axes": lambda: one_node(
        "ReverseSequence", ["x", "l"], [vi("x", F, [2, 3, 4]),
                                        vi("l", I64, [2])], opset=10,
        out_shape=[2, 3, 4], batch_axis=0, time_axis=2),
    "slice_zero_step": lambda: one_node(
        "Slice", ["x", "s", "e", "a", "st"], [vi("x", F, [4])],
        [const("s", [0]), const("e", [4]), const("a", [0]),
         const("st", [0])], opset=13),
    "pow_unsigned_base": lambda: one_node(
        "Pow", ["x", "e"], [vi("x", TensorProto.UINT8, [3]),
                            vi("e", I64, [3])], opset=15),
    # Pow of known integers folds at import.
    "pow_known": lambda: build(
        [helper.make_node("Pow", ["b", "e"], ["p"]),
         helper.make_node("Add", ["p", "x"], ["y"])],
        [vi("x", I64, [4])], [vi("y", I64, [4])],
        [const("b", [2, 3, -1, 2]), const("e", [10, 3, 5, -1])], opset=15),
    # Shape -> Slice with a negative step -> Reshape folds at import.
    "slice_neg_known": lambda: build(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Slice", ["s", "st", "en", "ax", "step"], ["r"]),
         helper.make_node("Reshape", ["x", "r"], ["y"])],
        [vi("x", F, [2, 3, 4])], [vi("y", F, [4, 3, 2])],
        [const("st", [-1]), const("en", [-4]), const("ax", [0]),
         const("step", [-1])], opset=13, check=False),
}


MODELS = {"grid_sample_2d": grid_sample_2d,
          "grid_sample_opset16": grid_sample_opset16,
          "grid_sample_3d": grid_sample_3d, "roi_align": roi_align,
          "roi_align_adaptive": roi_align_adaptive,
          "reverse_sequence": reverse_sequence,
          "slice_neg_steps": slice_neg_steps, "pow_int": pow_int}


def main():
    return run_e2e.op_models_main("sampling-ops", MODELS, IMPORT_MODELS)


if __name__ == "__main__":
    sys.exit(main())
