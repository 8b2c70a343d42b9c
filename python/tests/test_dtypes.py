"""The element types beyond f32 through the package: uint8, int8, int16,
uint16/32/64 and float64 tensors keep their NumPy dtypes in the model's
specs, runs take and return arrays of them, and unsigned tensors compute
as unsigned (uint8 200 > 100, 250 // 3 == 83)."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper

import tandem
from tandem import _capi

# (ONNX type, NumPy dtype, runtime name) of each type beyond the first six.
TYPES = [(T.DOUBLE, np.float64, "f64"), (T.INT8, np.int8, "i8"),
         (T.UINT8, np.uint8, "u8"), (T.INT16, np.int16, "i16"),
         (T.UINT16, np.uint16, "u16"), (T.UINT32, np.uint32, "u32"),
         (T.UINT64, np.uint64, "u64")]


def _model(elem):
    """(a, b) -> (Max(a, b), a > b, Div(a, b)) on [6] tensors."""
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("Max", ["a", "b"], ["m"]),
         helper.make_node("Greater", ["a", "b"], ["gt"]),
         helper.make_node("Div", ["a", "b"], ["q"])], "g",
        [vi("a", elem, [6]), vi("b", elem, [6])],
        [vi("m", elem, [6]), vi("gt", T.BOOL, [6]), vi("q", elem, [6])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def test_dtype_codes_follow_the_abi():
    # runtime.h appends the new dtypes after bool (values 6..12).
    assert [_capi.DTYPE_NAMES[c] for c in range(6, 13)] == \
        [name for _, _, name in TYPES]


@pytest.mark.parametrize("elem,dtype,name", TYPES,
                         ids=[name for _, _, name in TYPES])
def test_runs_match_onnxruntime(tmp_path, elem, dtype, name):
    proto = _model(elem)
    art = tandem.compile(proto, tmp_path / ("m_%s.so" % name), name="m")
    model = tandem.load(art.path, threads=1)
    assert [(s.dtype_name, s.dtype) for s in model.inputs] == \
        [(name, np.dtype(dtype))] * 2
    assert [s.dtype_name for s in model.outputs] == [name, "bool", name]
    if np.issubdtype(dtype, np.unsignedinteger):
        # Past the signed range: a signed lowering would get these wrong.
        top = np.iinfo(dtype).max
        a = np.array([200, 250, 7, top, top - 1, 1], dtype)
        b = np.array([100, 3, 9, 2, top, 1], dtype)
    elif np.issubdtype(dtype, np.integer):
        a = np.array([-7, 100, 0, -128, 5, 9], dtype)
        b = np.array([2, -3, 5, 1, -5, 9], dtype)
    else:
        a = np.array([0.5, -1.0, 1e-300, 3.0, -2.0, 7.0], dtype)
        b = np.array([0.25, 2.0, 1e-300, -3.0, -2.0, 1e300], dtype)
    got = model(a, b)
    # NumPy's semantics, with ONNX's integer Div truncating toward zero
    # (onnxruntime has no int16/uint16 Max to compare with).
    if np.issubdtype(dtype, np.floating):
        q = a / b
    elif np.issubdtype(dtype, np.unsignedinteger):
        q = a // b
    else:
        q = np.fix(a.astype(np.float64) / b).astype(dtype)
    ref = [np.maximum(a, b), a > b, q]
    if name not in ("i16", "u16"):
        session = ort.InferenceSession(proto.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        for r, o in zip(ref, session.run(None, {"a": a, "b": b})):
            np.testing.assert_array_equal(r, o)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype
        np.testing.assert_array_equal(g, r)


def test_wrong_signedness_is_an_error(tmp_path):
    art = tandem.compile(_model(T.UINT8), tmp_path / "u8.so", name="u8")
    model = tandem.load(art.path, threads=1)
    with pytest.raises(tandem.InvalidArgumentError, match="u8"):
        model(np.zeros(6, np.int8), np.zeros(6, np.uint8))
