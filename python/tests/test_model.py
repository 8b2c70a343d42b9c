"""tandem.load / tandem.Model: numerics against onnxruntime, the calling
conventions (positional, by name, dicts, out=, DLPack, run_async, bind),
and every kind of bad input."""
import threading

import numpy as np
import pytest

import tandem
from tandem.model import _as_array

import onnx_models
from conftest import ATOL, RTOL

RNG = np.random.default_rng(1)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_descriptor(mlp, two_io, gather):
    m = tandem.load(mlp.path, threads=1)
    assert m.name == "mlp"
    assert [(s.name, s.shape, s.dtype_name) for s in m.inputs] == \
        [("x", (4, 16), "f32")]
    assert [(s.name, s.shape, s.dtype) for s in m.outputs] == \
        [("y", (4, 8), np.dtype(np.float32))]
    assert m.device == "cpu" and m.fallback_reason is None
    assert m.info.placement == "cpu" and m.info.batch_size() == 4
    info = tandem.inspect(two_io.path)
    assert [s.name for s in info.outputs] == ["sum", "prod"]
    assert info.batch_size() == 2
    g = tandem.inspect(gather.path)
    assert g.inputs[0].dtype == np.dtype(np.int64)
    assert g.batch_size() == 5  # idx [5] and y [5,4] share their first dim
    m.close()


def test_matches_onnxruntime(mlp):
    x = rand(4, 16)
    ref = onnx_models.reference(mlp.proto, {"x": x})["y"]
    with tandem.load(mlp.path, threads=1) as m:
        y = m(x)
        assert isinstance(y, np.ndarray) and y.shape == (4, 8)
        np.testing.assert_allclose(y, ref, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(m(x=x), ref, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(m.run({"x": x})["y"], ref, rtol=RTOL,
                                   atol=ATOL)
        np.testing.assert_allclose(m.run([x])["y"], ref, rtol=RTOL,
                                   atol=ATOL)
    with tandem.load(mlp.path, threads=2) as m2:
        assert np.array_equal(m2(x), tandem.load(mlp.path, threads=1)(x))


def test_several_inputs_and_outputs(two_io):
    a, b = rand(2, 3), rand(2, 3)
    ref = onnx_models.reference(two_io.proto, {"a": a, "b": b})
    m = tandem.load(two_io.path)
    s, p = m(a, b)
    np.testing.assert_allclose(s, ref["sum"], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(p, ref["prod"], rtol=RTOL, atol=ATOL)
    s2, p2 = m(b=b, a=a)  # by name, any order
    assert np.array_equal(s, s2) and np.array_equal(p, p2)
    s3, _ = m(a, b=b)
    assert np.array_equal(s, s3)
    out = m.run({"b": b, "a": a})
    assert list(out) == ["sum", "prod"]
    assert np.array_equal(out["prod"], p)


def test_int64_input_and_lists(gather):
    idx = np.array([3, 0, 9, 3, 5], np.int64)
    ref = onnx_models.reference(gather.proto, {"idx": idx})["y"]
    m = tandem.load(gather.path)
    np.testing.assert_allclose(m(idx), ref, rtol=RTOL, atol=ATOL)
    # Lists and other non-arrays are converted to the input's dtype.
    np.testing.assert_allclose(m([3, 0, 9, 3, 5]), ref, rtol=RTOL, atol=ATOL)
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"input 0 \('idx'\): expected i64\[5\], got "
                       r"i32\[5\]"):
        m(idx.astype(np.int32))


def test_out_buffers(mlp, two_io):
    x = rand(4, 16)
    m = tandem.load(mlp.path)
    expect = m(x)
    buf = np.full((4, 8), np.nan, np.float32)
    got = m(x, out=buf)
    assert got is buf and np.array_equal(buf, expect)
    buf2 = np.zeros((4, 8), np.float32)
    assert m.run({"x": x}, out={"y": buf2})["y"] is buf2
    assert np.array_equal(buf2, expect)
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"output 0 \('y'\): expected f32\[4,8\], got "
                       r"f32\[8,4\]"):
        m(x, out=np.zeros((8, 4), np.float32))
    with pytest.raises(tandem.InvalidArgumentError, match="got f64"):
        m(x, out=np.zeros((4, 8)))
    with pytest.raises(tandem.InvalidArgumentError, match="C-contiguous"):
        m(x, out=np.zeros((8, 4), np.float32).T)
    ro = np.zeros((4, 8), np.float32)
    ro.flags.writeable = False
    with pytest.raises(tandem.InvalidArgumentError, match="writable"):
        m(x, out=ro)
    with pytest.raises(tandem.InvalidArgumentError, match="has no output"):
        m.run({"x": x}, out={"z": buf})
    t = tandem.load(two_io.path)
    a, b = rand(2, 3), rand(2, 3)
    outs = [np.empty((2, 3), np.float32) for _ in range(2)]
    s, p = t(a, b, out=outs)
    assert s is outs[0] and p is outs[1]
    with pytest.raises(tandem.InvalidArgumentError,
                       match="has 2 outputs, out= gives 1"):
        t(a, b, out=[outs[0]])


def test_bad_inputs(mlp, two_io):
    m = tandem.load(mlp.path)
    x = rand(4, 16)
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"model 'mlp': input 0 \('x'\): expected "
                       r"f32\[4,16\], got f64\[4,16\]"):
        m(x.astype(np.float64))
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"expected f32\[4,16\], got f32\[16,4\]"):
        m(rand(16, 4))
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"got f32\[4,16,1\]"):
        m(x[..., None])
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
        m(rand(3, 16))
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"model 'mlp': missing input 'x' "
                       r"\(inputs: x\)"):
        m()
    with pytest.raises(tandem.InvalidArgumentError,
                       match="model 'mlp' has no input 'z'"):
        m.run({"x": x, "z": x})
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"takes 1 input \(x\), got 2"):
        m(x, x)
    with pytest.raises(tandem.InvalidArgumentError, match="given twice"):
        m(x, x=x)
    with pytest.raises(tandem.InvalidArgumentError, match="cannot convert"):
        m("not a tensor")
    t = tandem.load(two_io.path)
    with pytest.raises(tandem.InvalidArgumentError,
                       match="missing input 'b'"):
        t(rand(2, 3))
    with pytest.raises(tandem.InvalidArgumentError,
                       match="missing inputs 'a', 'b'"):
        t.run({})
    # Nothing above broke the instance.
    np.testing.assert_allclose(m(x), tandem.load(mlp.path)(x))


def test_closed_model(mlp):
    m = tandem.load(mlp.path)
    x = rand(4, 16)
    m(x)
    m.close()
    assert m.closed
    for call in (lambda: m(x), lambda: m.run({"x": x}),
                 lambda: m.run_async(x), lambda: m.device,
                 lambda: m.fallback_reason, lambda: m.stats()):
        with pytest.raises(tandem.ModelClosedError,
                           match="model 'mlp' is closed"):
            call()
    m.close()  # idempotent
    with tandem.load(mlp.path) as m2:
        bound = m2.bind([x])
    with pytest.raises(tandem.ModelClosedError):
        bound()
    assert "closed" in repr(m2)


def test_load_errors(mlp, tmp_path):
    with pytest.raises(tandem.InvalidArgumentError, match="no such file"):
        tandem.load(tmp_path / "missing.so")
    junk = tmp_path / "junk.so"
    junk.write_text("not a shared library\n")
    with pytest.raises(tandem.InvalidArgumentError,
                       match="cannot load the model as a shared library"):
        tandem.load(junk)
    # A shared library without a model: the runtime itself.
    with pytest.raises(tandem.InvalidArgumentError,
                       match="no tandem_default_model symbol"):
        tandem.load(tandem.runtime_library())
    with pytest.raises(tandem.InvalidArgumentError,
                       match=r"no model descriptor 'nope_descriptor'"):
        tandem.load(mlp.path, name="nope")
    assert tandem.load(mlp.path, name="mlp").name == "mlp"
    with pytest.raises(tandem.InvalidArgumentError, match="threads"):
        tandem.load(mlp.path, threads=-1)
    with pytest.raises(tandem.InvalidArgumentError, match="pipeline_depth"):
        tandem.load(mlp.path, pipeline_depth=0)


class DLPackOnly:
    """A tensor that offers only the DLPack protocol (like a torch or jax
    CPU tensor), wrapping a NumPy array."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack(mlp):
    m = tandem.load(mlp.path)
    x = rand(4, 16)
    expect = m(x)
    spec = m.inputs[0]
    wrapped = DLPackOnly(x)
    arr = _as_array(wrapped, spec, "input 0 ('x')")
    assert np.shares_memory(arr, x)  # zero-copy when C-contiguous
    assert np.array_equal(m(wrapped), expect)
    # A non-contiguous producer is copied, with the same result.
    xt = np.ascontiguousarray(x.T).T
    assert not xt.flags.c_contiguous
    assert np.array_equal(m(DLPackOnly(xt)), expect)
    assert np.array_equal(m(xt), expect)
    with pytest.raises(tandem.InvalidArgumentError, match="got f64"):
        m(DLPackOnly(x.astype(np.float64)))
    # A DLPack out= buffer is written in place.
    buf = np.zeros((4, 8), np.float32)
    m(x, out=DLPackOnly(buf))
    assert np.array_equal(buf, expect)


def test_two_models_two_threads(mlp, two_io):
    """Two instances of two models run at once on two threads, plus a
    third thread sharing the first instance (its calls are serialized,
    never BUSY); every result matches onnxruntime."""
    mm = tandem.load(mlp.path, threads=1)
    tm = tandem.load(two_io.path, threads=1)
    xs = [rand(4, 16) for _ in range(8)]
    abs_ = [(rand(2, 3), rand(2, 3)) for _ in range(8)]
    mref = [onnx_models.reference(mlp.proto, {"x": x})["y"] for x in xs]
    tref = [onnx_models.reference(two_io.proto, {"a": a, "b": b})
            for a, b in abs_]
    errors = []
    barrier = threading.Barrier(3)

    def run_mlp():
        barrier.wait()
        for _ in range(40):
            for x, r in zip(xs, mref):
                if not np.allclose(mm(x), r, rtol=RTOL, atol=ATOL):
                    errors.append("mlp mismatch")

    def run_two():
        barrier.wait()
        for _ in range(40):
            for (a, b), r in zip(abs_, tref):
                s, p = tm(a, b)
                if not (np.allclose(s, r["sum"], rtol=RTOL, atol=ATOL) and
                        np.allclose(p, r["prod"], rtol=RTOL, atol=ATOL)):
                    errors.append("two_io mismatch")

    def wrap(fn):
        def body():
            try:
                fn()
            except Exception as e:  # reported below, not lost in a thread
                errors.append(repr(e))
        return body

    threads = [threading.Thread(target=wrap(f))
               for f in (run_mlp, run_two, run_mlp)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert mm.stats()["runs"] == 2 * 40 * 8


def test_run_async(mlp):
    m = tandem.load(mlp.path, threads=1, pipeline_depth=3)
    xs = [rand(4, 16) for _ in range(10)]
    refs = [onnx_models.reference(mlp.proto, {"x": x})["y"] for x in xs]
    futures = [m.run_async(x) for x in xs]
    for f, r in zip(futures, refs):
        np.testing.assert_allclose(f.result(timeout=30), r, rtol=RTOL,
                                   atol=ATOL)
    buf = np.zeros((4, 8), np.float32)
    f = m.run_async(x=xs[0], out=buf)
    assert f.result(timeout=30) is buf
    np.testing.assert_allclose(buf, refs[0], rtol=RTOL, atol=ATOL)
    # Argument errors are raised at submission, not through the future.
    with pytest.raises(tandem.InvalidArgumentError, match="got f32"):
        m.run_async(rand(2, 16))
    # Sync runs wait for runs in flight instead of failing with BUSY.
    pending = [m.run_async(x) for x in xs]
    np.testing.assert_allclose(m(xs[1]), refs[1], rtol=RTOL, atol=ATOL)
    assert all(p.done() for p in pending)
    # close() waits for what is in flight.
    pending = [m.run_async(x) for x in xs]
    m.close()
    for p, r in zip(pending, refs):
        np.testing.assert_allclose(p.result(timeout=0), r, rtol=RTOL,
                                   atol=ATOL)
    assert m.closed


def test_bind(mlp):
    m = tandem.load(mlp.path, threads=1)
    x = rand(4, 16)
    bound = m.bind({"x": x.copy()})
    bound()
    assert np.array_equal(bound.outputs[0], m(x))
    x2 = rand(4, 16)
    bound.inputs[0][...] = x2  # inputs change in place between calls
    bound()
    assert np.array_equal(bound.outputs[0], m(x2))


def test_gpu_partitions(mlp_gpu):
    """A model with every op on the GPU: its placement, and where it runs
    (emulated device, the CPU asked for, and auto: CUDA when there is a
    GPU, else the CPU fallback with its reason)."""
    info = tandem.inspect(mlp_gpu.path)
    assert info.placement == "gpu" and info.has_device_program
    assert "sm_90" in info.cuda_archs
    assert info.device_arena_bytes > 0
    assert info.device_arena_sizes == [info.device_arena_bytes]
    x = rand(4, 16)
    ref = onnx_models.reference(mlp_gpu.proto, {"x": x})["y"]
    with tandem.load(mlp_gpu.path, device="emulated") as m:
        assert m.device == "emulated" and m.fallback_reason is None
        np.testing.assert_allclose(m(x), ref, rtol=RTOL, atol=ATOL)
        st = m.stats()
        assert st["runs"] == 1 and st["h2d_copies"] >= 1
    with tandem.load(mlp_gpu.path, device="cpu") as m:
        assert m.device == "cpu"
        assert m.fallback_reason == "device 'cpu' requested"
        np.testing.assert_allclose(m(x), ref, rtol=RTOL, atol=ATOL)
    with tandem.load(mlp_gpu.path, log_fallback=False) as m:
        if m.device.startswith("cuda"):
            assert m.fallback_reason is None
        else:
            assert m.device == "cpu" and m.fallback_reason
        np.testing.assert_allclose(m(x), ref, rtol=RTOL, atol=ATOL)
    with pytest.raises(tandem.InvalidArgumentError, match="tpu"):
        tandem.load(mlp_gpu.path, device="tpu")


def test_two_gpus(workdir):
    """The MLP on two GPUs (its ReLU on /device:GPU:1, the rest on GPU:0):
    one device arena per GPU, two emulated devices, and the CPU fallback."""
    proto = onnx_models.mlp()
    art = tandem.compile(proto, workdir / "mlp_two_gpus.so",
                         name="mlp_two_gpus", input_shapes={"x": (4, 16)},
                         target="cpu,gpu:sm_90,gpu:sm_90",
                         place=["tandem.relu=gpu:1", "*=gpu:0"])
    info = tandem.inspect(art.path)
    assert len(info.device_arena_sizes) == 2
    assert all(size > 0 for size in info.device_arena_sizes)
    assert info.device_arena_bytes == sum(info.device_arena_sizes)
    assert "mlp_two_gpus_p1_gpu1" in info.partitions
    x = rand(4, 16)
    ref = onnx_models.reference(proto, {"x": x})["y"]
    with tandem.load(art.path, device="emulated") as m:
        assert m.device == "emulated, emulated"
        np.testing.assert_allclose(m(x), ref, rtol=RTOL, atol=ATOL)
    with tandem.load(art.path, device="cpu") as m:
        np.testing.assert_allclose(m(x), ref, rtol=RTOL, atol=ATOL)
