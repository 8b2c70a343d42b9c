"""Writes the ONNX models and .npy files of dtypes.test into a directory.

Usage: make_dtype_models.py DIR
Models: u8_ops (uint8 Div, Greater, Max, Mod, Cast to float and back),
i8_i16 (int8/int16 arithmetic with an int8 initializer in int32_data and
an int16 one in raw_data), f64 (float64 Add, Tanh, a double_data
initializer, Cast to float), u64 (uint64 Max with a uint64_data
initializer), plus inputs and expected outputs computed with NumPy.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
vi = helper.make_tensor_value_info


def save_model(name, nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def save(name, array):
    np.save(os.path.join(out, name), array)


# uint8: 200 > 100, 250 / 3 = 83, max and mod as unsigned, 255 -> 255.0,
# and float -> uint8 (truncating).
save_model("u8_ops", [
    helper.make_node("Div", ["a", "b"], ["div"]),
    helper.make_node("Greater", ["a", "b"], ["gt"]),
    helper.make_node("Max", ["a", "b"], ["max"]),
    helper.make_node("Mod", ["a", "b"], ["mod"]),
    helper.make_node("Cast", ["a"], ["as_float"], to=T.FLOAT),
    helper.make_node("Cast", ["as_float"], ["back"], to=T.UINT8),
], [vi("a", T.UINT8, [4]), vi("b", T.UINT8, [4])], [
    vi("div", T.UINT8, [4]), vi("gt", T.BOOL, [4]), vi("max", T.UINT8, [4]),
    vi("mod", T.UINT8, [4]), vi("as_float", T.FLOAT, [4]),
    vi("back", T.UINT8, [4])])
a = np.array([200, 250, 7, 255], np.uint8)
b = np.array([100, 3, 9, 2], np.uint8)
save("u8_a.npy", a)
save("u8_b.npy", b)
save("u8_div.npy", a // b)
save("u8_gt.npy", a > b)
save("u8_max.npy", np.maximum(a, b))
save("u8_mod.npy", a % b)
save("u8_float.npy", a.astype(np.float32))
save("u8_back.npy", a)

# int8 and int16, initializers in int32_data (int8) and raw_data (int16).
w8 = helper.make_tensor("w8", T.INT8, [3], [-128, 5, 127])
w16 = numpy_helper.from_array(np.array([-300, 2, 1000], np.int16), "w16")
save_model("i8_i16", [
    helper.make_node("Add", ["x8", "w8"], ["sum8"]),
    helper.make_node("Less", ["x8", "w8"], ["lt8"]),
    helper.make_node("Mul", ["x16", "w16"], ["prod16"]),
    helper.make_node("Cast", ["x8"], ["wide"], to=T.UINT16),
], [vi("x8", T.INT8, [3]), vi("x16", T.INT16, [3])], [
    vi("sum8", T.INT8, [3]), vi("lt8", T.BOOL, [3]),
    vi("prod16", T.INT16, [3]), vi("wide", T.UINT16, [3])], [w8, w16])
x8 = np.array([-1, 100, 0], np.int8)
x16 = np.array([7, -4, 30], np.int16)
save("i8_x8.npy", x8)
save("i16_x16.npy", x16)
with np.errstate(over="ignore"):
    save("i8_sum8.npy", x8 + np.array([-128, 5, 127], np.int8))
save("i8_lt8.npy", x8 < np.array([-128, 5, 127], np.int8))
save("i16_prod16.npy", x16 * np.array([-300, 2, 1000], np.int16))
save("i8_wide.npy", x8.astype(np.uint16))

# float64 with a double_data initializer.
wd = helper.make_tensor("wd", T.DOUBLE, [3], [0.125, -2.5, 1e-10])
save_model("f64", [
    helper.make_node("Add", ["x", "wd"], ["s"]),
    helper.make_node("Tanh", ["s"], ["t"]),
    helper.make_node("Cast", ["t"], ["t32"], to=T.FLOAT),
], [vi("x", T.DOUBLE, [3])], [vi("t", T.DOUBLE, [3]),
                              vi("t32", T.FLOAT, [3])], [wd])
xd = np.array([0.5, 1.0, 1e-12], np.float64)
td = np.tanh(xd + np.array([0.125, -2.5, 1e-10]))
save("f64_x.npy", xd)
save("f64_t.npy", td)
save("f64_t32.npy", td.astype(np.float32))

# uint64 past 2^63 with a uint64_data initializer.
wu = helper.make_tensor("wu", T.UINT64, [2], [2**64 - 1, 5])
save_model("u64", [helper.make_node("Max", ["x", "wu"], ["m"])],
           [vi("x", T.UINT64, [2])], [vi("m", T.UINT64, [2])], [wu])
xu = np.array([2**63 + 1, 2**63], np.uint64)
save("u64_x.npy", xu)
save("u64_m.npy", np.maximum(xu, np.array([2**64 - 1, 5], np.uint64)))
