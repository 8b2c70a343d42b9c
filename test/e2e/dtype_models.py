"""Small ONNX models of the element types beyond f32, for run_e2e.py
--small dtypes: what real models do with them.

u8_image: a uint8 NCHW image cast to float, normalised, convolved and
  classified (the usual preprocessing inside an exported vision model),
  plus uint8 outputs computed as uint8: the per-channel maximum (ReduceMax),
  the image divided by 3 (Div) and max-pooled (MaxPool), which a signed
  lowering would get wrong for pixels past 127.
f64_mlp: a float64 MLP (MatMul, Add, Tanh, Softmax) and a float64
  ReduceMean.
"""
import numpy as np
from onnx import TensorProto as T
from onnx import helper, numpy_helper

_RNG = np.random.default_rng(7)


def _model(name, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


def _init(name, array):
    return numpy_helper.from_array(array, name)


def u8_image():
    vi = helper.make_tensor_value_info
    inits = [
        _init("scale", np.array(1 / 255, np.float32)),
        _init("mean", np.array([0.485, 0.456, 0.406],
                               np.float32).reshape(1, 3, 1, 1)),
        _init("std", np.array([0.229, 0.224, 0.225],
                              np.float32).reshape(1, 3, 1, 1)),
        _init("w", (_RNG.standard_normal((8, 3, 3, 3)) * 0.3)
              .astype(np.float32)),
        _init("b", _RNG.standard_normal(8).astype(np.float32) * 0.1),
        _init("fc", (_RNG.standard_normal((4, 8)) * 0.5).astype(np.float32)),
        _init("fcb", _RNG.standard_normal(4).astype(np.float32) * 0.1),
        _init("three", np.array(3, np.uint8)),
    ]
    nodes = [
        helper.make_node("Cast", ["x"], ["xf"], to=T.FLOAT),
        helper.make_node("Mul", ["xf", "scale"], ["x01"]),
        helper.make_node("Sub", ["x01", "mean"], ["centred"]),
        helper.make_node("Div", ["centred", "std"], ["normed"]),
        helper.make_node("Conv", ["normed", "w", "b"], ["conv"],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["act"]),
        helper.make_node("GlobalAveragePool", ["act"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc", "fcb"], ["logits"], transB=1),
        helper.make_node("ReduceMax", ["x"], ["brightest"], axes=[2, 3],
                         keepdims=0),
        helper.make_node("Div", ["x", "three"], ["third"]),
        helper.make_node("MaxPool", ["x"], ["max_pooled"],
                         kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
    ]
    return _model("u8_image", nodes, [vi("x", T.UINT8, [1, 3, 16, 16])],
                  [vi("logits", T.FLOAT, [1, 4]),
                   vi("brightest", T.UINT8, [1, 3]),
                   vi("third", T.UINT8, [1, 3, 16, 16]),
                   vi("max_pooled", T.UINT8, [1, 3, 8, 8])], inits)


def f64_mlp():
    vi = helper.make_tensor_value_info
    inits = [
        _init("w1", _RNG.standard_normal((8, 16)) * 0.4),
        _init("b1", _RNG.standard_normal(16) * 0.1),
        _init("w2", _RNG.standard_normal((16, 3)) * 0.4),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        helper.make_node("Tanh", ["hb"], ["a"]),
        helper.make_node("MatMul", ["a", "w2"], ["z"]),
        helper.make_node("Softmax", ["z"], ["p"], axis=-1),
        helper.make_node("ReduceMean", ["a"], ["m"], axes=[1], keepdims=0),
    ]
    return _model("f64_mlp", nodes, [vi("x", T.DOUBLE, [4, 8])],
                  [vi("p", T.DOUBLE, [4, 3]), vi("m", T.DOUBLE, [4])], inits)


MODELS = {"u8_image": u8_image, "f64_mlp": f64_mlp}
