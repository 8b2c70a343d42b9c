#!/usr/bin/env python3
"""Builds hostile ONNX models for tandemc's robustness tests (hostile-models.test).

usage: make_hostile_models.py OUT_DIR NAME [NAME...]

Each model is small and malformed in one way a crafted or broken export can
be: duplicate names, wrongly typed attributes, sizes far past any machine,
external data that points outside the model's folder or at a device, empty
tensors. Built with onnx.helper only (no checker), so the malformations
survive.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

# The same model, tensor and ints helpers as the other lit models.
from make_models import ints, model, tensor


def relu(x="x", y="y", name="relu"):
    return helper.make_node("Relu", [x], [y], name=name)


def dup_graph_outputs():
    return model([relu()], [tensor("x", [4])], [tensor("y", [4]), tensor("y", [4])])


def identity_two_outputs():
    """One value behind two graph outputs (an Identity forwards it)."""
    return model([relu(), helper.make_node("Identity", ["y"], ["z"], name="id")],
                 [tensor("x", [4])], [tensor("y", [4]), tensor("z", [4])])


def input_as_output():
    """A graph input returned as an output."""
    return model([relu()], [tensor("x", [4])],
                 [tensor("x", [4]), tensor("y", [4])])


def dup_node_outputs():
    return model([relu(name="first"),
                  helper.make_node("Sigmoid", ["x"], ["y"], name="second")],
                 [tensor("x", [4])], [tensor("y", [4])])


def dup_graph_inputs():
    return model([helper.make_node("Add", ["x", "x"], ["y"], name="add")],
                 [tensor("x", [4]), tensor("x", [4])], [tensor("y", [4])])


def input_shadows_initializer_type():
    """An initializer that a node output overwrites."""
    return model([relu("x", "w")], [tensor("x", [4])], [tensor("w", [4])],
                 [numpy_helper.from_array(np.ones(4, np.float32), "w")])


def dup_initializers():
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [tensor("x", [4])], [tensor("y", [4])],
                 [numpy_helper.from_array(np.ones(4, np.float32), "w"),
                  numpy_helper.from_array(np.full(4, 2, np.float32), "w")])


def wrong_attr_type():
    """Softmax's axis given as a FLOAT attribute."""
    node = helper.make_node("Softmax", ["x"], ["y"], name="softmax")
    node.attribute.append(helper.make_attribute("axis", 1.0))
    return model([node], [tensor("x", [2, 3])], [tensor("y", [2, 3])])


def wrong_ints_attr_type():
    """Transpose's perm given as a STRING attribute."""
    node = helper.make_node("Transpose", ["x"], ["y"], name="transpose")
    node.attribute.append(helper.make_attribute("perm", "1,0"))
    return model([node], [tensor("x", [2, 3])], [tensor("y", [3, 2])])


def huge_constant_of_shape():
    """A 200-byte model whose ConstantOfShape output is 4 TB."""
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [1.0])
    return model([helper.make_node("ConstantOfShape", ["shape"], ["c"],
                                   name="fill", value=value),
                  helper.make_node("Add", ["x", "c"], ["y"], name="add")],
                 [tensor("x", [1])], [tensor("y", [1 << 20, 1 << 20])],
                 [ints("shape", [1 << 20, 1 << 20])])


def huge_output():
    """An input and output of 4 TB each."""
    return model([relu()], [tensor("x", [1 << 20, 1 << 20])],
                 [tensor("y", [1 << 20, 1 << 20])])


def external(out_dir, name, location):
    """A model whose initializer's external data lies at `location`."""
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([4])
    w.data_location = TensorProto.EXTERNAL
    entry = w.external_data.add()
    entry.key = "location"
    entry.value = location
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
              [tensor("x", [4])], [tensor("y", [4])], [w])
    open(os.path.join(out_dir, name + ".onnx"), "wb").write(m.SerializeToString())


def external_models(out_dir):
    # A data file beside the model's folder, reached with '..', an absolute
    # path and a symbolic link; a device; a FIFO; a folder.
    models = os.path.join(out_dir, "models")
    os.makedirs(models, exist_ok=True)
    secret = os.path.join(out_dir, "secret.bin")
    open(secret, "wb").write(np.arange(4, dtype=np.float32).tobytes())
    link = os.path.join(models, "link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(secret, link)
    fifo = os.path.join(models, "fifo.bin")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    os.makedirs(os.path.join(models, "folder.bin"), exist_ok=True)
    external(models, "ext_dotdot", "../secret.bin")
    external(models, "ext_absolute", secret)
    external(models, "ext_symlink", "link.bin")
    external(models, "ext_dev_zero", "/dev/zero")
    external(models, "ext_fifo", "fifo.bin")
    external(models, "ext_folder", "folder.bin")
    external(models, "ext_empty", "")


def empty_add():
    return model([helper.make_node("Add", ["x", "b"], ["y"], name="add")],
                 [tensor("x", [0, 3]), tensor("b", [3])], [tensor("y", [0, 3])])


def empty_matmul():
    """[2,0] x [0,3]: the sum over nothing is 0."""
    return model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
                 [tensor("a", [2, 0]), tensor("b", [0, 3])], [tensor("y", [2, 3])])


def empty_reduce_max():
    """A max over an empty axis (onnx: -inf for float since opset 18)."""
    return model([helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="rmax",
                                   keepdims=0)],
                 [tensor("x", [2, 0])], [tensor("y", [2])], [ints("axes", [1])],
                 opset=18)


def empty_reduce_sum():
    return model([helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="rsum",
                                   keepdims=0)],
                 [tensor("x", [2, 0])], [tensor("y", [2])], [ints("axes", [1])])


def gather_const_oob():
    """Constant indices far outside the table."""
    table = numpy_helper.from_array(np.ones((10, 4), np.float32), "table")
    return model([helper.make_node("Gather", ["table", "idx"], ["y"], name="embed")],
                 [tensor("x", [1])], [tensor("y", [2, 4])],
                 [table, ints("idx", [3, 1000000])])


def gather_runtime():
    """A token embedding whose indices arrive at run time."""
    rng = np.random.default_rng(0)
    table = numpy_helper.from_array(rng.standard_normal((10, 4)).astype(np.float32),
                                    "table")
    return model([helper.make_node("Gather", ["table", "ids"], ["y"], name="embed")],
                 [tensor("ids", [2, 3], TensorProto.INT64)], [tensor("y", [2, 3, 4])],
                 [table])


def gather_elements_const_oob():
    """GatherElements with a constant index past the axis."""
    return model([helper.make_node("GatherElements", ["x", "idx"], ["y"],
                                   name="pick", axis=1)],
                 [tensor("x", [2, 4])], [tensor("y", [2, 1])],
                 [numpy_helper.from_array(np.array([[3], [-5]], np.int64),
                                          "idx")])


def gather_elements_runtime():
    """GatherElements whose indices arrive at run time."""
    return model([helper.make_node("GatherElements", ["x", "ids"], ["y"],
                                   name="pick", axis=1)],
                 [tensor("x", [2, 4]), tensor("ids", [2, 3], TensorProto.INT64)],
                 [tensor("y", [2, 3])])


def gather_nd_runtime():
    """GatherND whose index pairs (into dims of 3 and 4) arrive at run
    time."""
    return model([helper.make_node("GatherND", ["x", "ids"], ["y"],
                                   name="pairs")],
                 [tensor("x", [3, 4]), tensor("ids", [2, 2], TensorProto.INT64)],
                 [tensor("y", [2])])


def hostile_names():
    """Tensor names that would end a C comment, break a line or open a
    string in the generated header."""
    x = "x*/ syntax error if this leaks /*"
    y = 'y\nwith "quotes" and \\ a backslash'
    return model([helper.make_node("Relu", [x], [y], name="relu")],
                 [tensor(x, [4])], [tensor(y, [4])])


MODELS = {
    "hostile_names": hostile_names,
    "dup_graph_outputs": dup_graph_outputs,
    "identity_two_outputs": identity_two_outputs,
    "input_as_output": input_as_output,
    "dup_node_outputs": dup_node_outputs,
    "dup_graph_inputs": dup_graph_inputs,
    "input_shadows_initializer_type": input_shadows_initializer_type,
    "dup_initializers": dup_initializers,
    "wrong_attr_type": wrong_attr_type,
    "wrong_ints_attr_type": wrong_ints_attr_type,
    "huge_constant_of_shape": huge_constant_of_shape,
    "huge_output": huge_output,
    "empty_add": empty_add,
    "empty_matmul": empty_matmul,
    "empty_reduce_max": empty_reduce_max,
    "empty_reduce_sum": empty_reduce_sum,
    "gather_const_oob": gather_const_oob,
    "gather_runtime": gather_runtime,
    "gather_elements_const_oob": gather_elements_const_oob,
    "gather_elements_runtime": gather_elements_runtime,
    "gather_nd_runtime": gather_nd_runtime,
}


def main():
    out_dir, names = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        if name == "external":
            external_models(out_dir)
            continue
        m = MODELS[name]()
        open(os.path.join(out_dir, name + ".onnx"), "wb").write(m.SerializeToString())


if __name__ == "__main__":
    main()
