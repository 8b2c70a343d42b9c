"""tandem.compile: paths and ModelProtos, options passed to tandemc, and
CompileError carrying tandemc's diagnostics."""
import os
import shutil

import numpy as np
import pytest

import tandem
from tandem.compiler import _flag

import onnx_models
from conftest import ATOL, RTOL


def test_from_path_and_proto(tmp_path):
    proto = onnx_models.two_io()
    src = tmp_path / "two_io.onnx"
    src.write_bytes(proto.SerializeToString())
    a = tandem.compile(src, tmp_path / "a.so", name="from_path")
    assert isinstance(a, tandem.Artifact) and os.path.isfile(a.path)
    assert a.name == "from_path" and a.placement == "cpu"
    assert [s.name for s in a.inputs] == ["a", "b"]
    assert a.command[0] == tandem.find_tandemc()
    assert "--emit=shared" in a.command
    b = tandem.compile(proto)  # no output: a temporary directory
    assert os.path.isfile(b.path) and b.name == "model"
    x, y = (np.ones((2, 3), np.float32),) * 2
    ref = onnx_models.reference(proto, {"a": x, "b": y})
    with b.load(threads=1) as m:
        np.testing.assert_allclose(m(x, y)[1], ref["prod"], rtol=RTOL,
                                   atol=ATOL)
    assert os.fspath(b) == b.path
    shutil.rmtree(os.path.dirname(b.path))


def test_input_shapes(tmp_path):
    proto = onnx_models.mlp()
    art = tandem.compile(proto, tmp_path / "m3.so", name="m3",
                         input_shapes={"x": [3, 16]})
    assert art.inputs[0].shape == (3, 16) and art.outputs[0].shape == (3, 8)
    x = np.random.default_rng(0).standard_normal((3, 16)).astype(np.float32)
    ref = onnx_models.reference(proto, {"x": x})["y"]
    np.testing.assert_allclose(art.load()(x), ref, rtol=RTOL, atol=ATOL)
    # Without a binding the symbolic batch defaults to 1 (with a warning).
    one = tandem.compile(proto, tmp_path / "m1.so")
    assert one.inputs[0].shape == (1, 16)
    assert "warning" in one.diagnostics


def test_options_become_flags():
    assert _flag("gpu_tf32", True) == ["--gpu-tf32"]
    assert _flag("gpu_tf32", False) == []
    assert _flag("gpu_precision", "bf16") == ["--gpu-precision=bf16"]
    assert _flag("cuda_arch", "sm_80,sm_90") == ["--cuda-arch=sm_80,sm_90"]
    assert _flag("place", ["a*=gpu", "b=cpu"]) == ["--place=a*=gpu",
                                                   "--place=b=cpu"]


def test_compile_errors(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage that is not protobuf\xff\xff")
    out = tmp_path / "bad.so"
    with pytest.raises(tandem.CompileError) as e:
        tandem.compile(bad, out)
    assert "cannot parse the file as an ONNX model" in e.value.diagnostics
    assert "bad.onnx" in str(e.value) and e.value.returncode == 1
    assert not out.exists()
    with pytest.raises(tandem.CompileError) as e:
        tandem.compile(onnx_models.unsupported(), tmp_path / "nonzero.so")
    assert "NonZero" in e.value.diagnostics and "unsupported" in str(e.value)
    assert not (tmp_path / "nonzero.so").exists()
    with pytest.raises(tandem.CompileError, match="no such file"):
        tandem.compile(tmp_path / "missing.onnx")
    with pytest.raises(tandem.CompileError) as e:
        tandem.compile(onnx_models.two_io(), tmp_path / "x.so",
                       target="cpu,gpu:nosuchgpu")
    assert "nosuchgpu" in e.value.diagnostics
    with pytest.raises(TypeError, match="path or an onnx.ModelProto"):
        tandem.compile(42)


def test_find_tandemc(monkeypatch, tmp_path):
    monkeypatch.setenv("TANDEMC", str(tmp_path / "nope"))
    with pytest.raises(tandem.CompileError, match="TANDEMC=.*not an "
                       "executable"):
        tandem.find_tandemc()
    monkeypatch.delenv("TANDEMC")
    assert os.access(tandem.find_tandemc(), os.X_OK)
