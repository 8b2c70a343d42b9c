"""Small ONNX models the Python tests compile, built with onnx.helper from
fixed random weights (as test/tools/tandemc/Inputs/make_models.py does)."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(0)


def _weight(name, *shape):
    return numpy_helper.from_array(
        RNG.standard_normal(shape).astype(np.float32), name)


def _model(nodes, inputs, outputs, inits=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def _tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def mlp():
    """x[N,16] -> Gemm(32) -> Relu -> MatMul(8) + bias -> y[N,8]; the batch
    N is symbolic (bound with input_shapes when compiling)."""
    return _model(
        [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1",
                          transB=1),
         helper.make_node("Relu", ["h"], ["r"], name="relu1"),
         helper.make_node("MatMul", ["r", "w2"], ["m"], name="fc2"),
         helper.make_node("Add", ["m", "b2"], ["y"], name="fc2_bias")],
        [_tensor("x", ["N", 16])], [_tensor("y", ["N", 8])],
        [_weight("w1", 32, 16), _weight("b1", 32), _weight("w2", 32, 8),
         _weight("b2", 8)], name="mlp")


def two_io():
    """a, b [2,3] -> sum = a + b, prod = a * b (tanh'd, so it computes)."""
    return _model(
        [helper.make_node("Add", ["a", "b"], ["sum"], name="add"),
         helper.make_node("Mul", ["a", "b"], ["m"], name="mul"),
         helper.make_node("Tanh", ["m"], ["prod"], name="tanh")],
        [_tensor("a", [2, 3]), _tensor("b", [2, 3])],
        [_tensor("sum", [2, 3]), _tensor("prod", [2, 3])], name="two_io")


def gather():
    """idx i64[5] -> Gather(table[10,4], idx) -> y[5,4], then Relu."""
    return _model(
        [helper.make_node("Gather", ["table", "idx"], ["g"], name="gather",
                          axis=0),
         helper.make_node("Relu", ["g"], ["y"], name="relu")],
        [_tensor("idx", [5], TensorProto.INT64)], [_tensor("y", [5, 4])],
        [_weight("table", 10, 4)], name="gather")


def unsupported():
    """NonZero: an op a static-shape compiler does not support."""
    return _model(
        [helper.make_node("NonZero", ["x"], ["i"], name="nonzero")],
        [_tensor("x", [4, 6])], [_tensor("i", [2, None], TensorProto.INT64)],
        [], name="nonzero")


def reference(model, feeds):
    """onnxruntime's outputs of MODEL (a ModelProto) on FEEDS, by name."""
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts,
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, feeds)))
