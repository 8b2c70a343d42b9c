"""Loading and running compiled models: tandem.load and tandem.Model.

A compiled model is a shared library from `tandemc --emit=shared`. load()
dlopens it (after the runtime, RTLD_GLOBAL), reads its descriptor
(`tandem_default_model`, or `<name>_descriptor`) and creates an instance with
tandem_model_create. Model.run / Model.__call__ take NumPy arrays or any
DLPack producer and return NumPy arrays; run_async returns a
concurrent.futures.Future on the runtime's pipelined API.
"""
import concurrent.futures
import ctypes
import os
import queue
import threading
from typing import (Any, Dict, List, Mapping, Optional, Sequence, Tuple,
                    Union)

import numpy as np

from . import _capi
from .errors import InvalidArgumentError, ModelClosedError, TandemError

__all__ = ["TensorSpec", "Model", "ModelInfo", "BoundRun", "load", "inspect"]


def _bfloat16() -> np.dtype:
    """ml_dtypes.bfloat16 when that optional package is installed (NumPy
    has no bfloat16 of its own), else uint16 holding the raw bits."""
    try:
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        return np.dtype(np.uint16)


_NUMPY_DTYPES: Dict[str, np.dtype] = {
    "f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
    "f64": np.dtype(np.float64),
    "i64": np.dtype(np.int64), "i32": np.dtype(np.int32),
    "i16": np.dtype(np.int16), "i8": np.dtype(np.int8),
    "u64": np.dtype(np.uint64), "u32": np.dtype(np.uint32),
    "u16": np.dtype(np.uint16), "u8": np.dtype(np.uint8),
    "bool": np.dtype(np.bool_)}


def _numpy_dtype(name: str) -> Optional[np.dtype]:
    """The NumPy dtype of a runtime dtype name; None for an unknown one."""
    if name == "bf16":
        return _bfloat16()
    found: Optional[np.dtype] = _NUMPY_DTYPES.get(name)
    return found


def _dtype_label(dtype: np.dtype) -> str:
    """The runtime's name for a NumPy dtype (f32, i64, ...), else NumPy's."""
    for name, d in _NUMPY_DTYPES.items():
        if d == dtype:
            return name
    if dtype.name == "bfloat16":
        return "bf16"
    return dtype.name


def _type_label(dtype_name: str, shape: Sequence[int]) -> str:
    return "%s[%s]" % (dtype_name, ",".join(str(d) for d in shape))


class TensorSpec:
    """One input or output of a compiled model: its name, static shape and
    element type. `dtype` is the NumPy dtype (for bf16: ml_dtypes.bfloat16
    when that package is installed, else uint16 holding the raw bits),
    `dtype_name` the runtime's name ("f32", "f16", "bf16", "f64", "i64",
    "i32", "i16", "i8", "u64", "u32", "u16", "u8", "bool")."""

    __slots__ = ("name", "shape", "dtype_name", "dtype", "_code", "_shape_ptr")

    def __init__(self, name: str, shape: Tuple[int, ...], dtype_name: str,
                 code: int = -1, shape_ptr: Any = None) -> None:
        self.name = name
        self.shape = tuple(shape)
        self.dtype_name = dtype_name
        self.dtype = _numpy_dtype(dtype_name)
        self._code = code
        self._shape_ptr = shape_ptr

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TensorSpec) and
                (self.name, self.shape, self.dtype_name) ==
                (other.name, other.shape, other.dtype_name))

    def __hash__(self) -> int:
        return hash((self.name, self.shape, self.dtype_name))

    def __repr__(self) -> str:
        return "TensorSpec(%r, %s)" % (self.name,
                                       _type_label(self.dtype_name,
                                                   self.shape))


def _specs(descs, count) -> List[TensorSpec]:
    out = []
    for i in range(count):
        d = descs[i]
        shape = tuple(d.shape[j] for j in range(d.rank))
        name = _capi.DTYPE_NAMES.get(d.dtype, "unknown")
        out.append(TensorSpec((d.name or b"").decode(), shape, name,
                              d.dtype, d.shape))
    return out


class ModelInfo:
    """What a compiled model's descriptor says, without creating an
    instance: name, inputs, outputs, arena and weight bytes, and whether it
    has GPU partitions (a device program) with the CUDA architectures of
    its device images."""

    def __init__(self, path: str, name: Optional[str] = None) -> None:
        _capi.library()  # first: the model resolves its symbols against it
        self.path = os.path.abspath(path)
        if not os.path.isfile(self.path):
            raise InvalidArgumentError("%s: no such file" % path)
        try:
            self._so = ctypes.CDLL(self.path, mode=os.RTLD_NOW |
                                   os.RTLD_LOCAL)
        except OSError as e:
            raise InvalidArgumentError(
                "%s: cannot load the model as a shared library: %s" %
                (path, e)) from None
        if name is None:
            try:
                ptr = ctypes.c_void_p.in_dll(self._so,
                                             "tandem_default_model").value
            except ValueError:
                raise InvalidArgumentError(
                    "%s: no tandem_default_model symbol (not a model "
                    "compiled with `tandemc --emit=shared`?)" % path) from None
        else:
            try:
                ptr = ctypes.addressof(ctypes.c_char.in_dll(
                    self._so, name + "_descriptor"))
            except ValueError:
                raise InvalidArgumentError(
                    "%s: no model descriptor '%s_descriptor' in the library "
                    "(is the model named '%s'?)" % (path, name, name)) \
                    from None
        if not ptr:
            raise InvalidArgumentError("%s: tandem_default_model is NULL" %
                                       path)
        v1 = ctypes.cast(ptr, ctypes.POINTER(_capi.ModelDescV1)).contents
        if v1.abi_version not in (_capi.ABI_VERSION,
                                  _capi.ABI_VERSION_MULTI_GPU,
                                  _capi.ABI_VERSION_ONE_GPU,
                                  _capi.ABI_VERSION_CPU_ONLY):
            raise InvalidArgumentError(
                "%s: descriptor ABI version %d, this package knows %d, %d, "
                "%d and %d" % (path, v1.abi_version, _capi.ABI_VERSION,
                               _capi.ABI_VERSION_MULTI_GPU,
                               _capi.ABI_VERSION_ONE_GPU,
                               _capi.ABI_VERSION_CPU_ONLY))
        self._desc_ptr = ptr
        self.abi_version = int(v1.abi_version)
        self.name = (v1.name or b"").decode()
        self.inputs = _specs(v1.inputs, v1.num_inputs)
        self.outputs = _specs(v1.outputs, v1.num_outputs)
        self.arena_bytes = int(v1.arena_bytes)
        self.weight_bytes = int(v1.weight_bytes)
        self.device_arena_bytes = 0
        # Per GPU of the program (/device:GPU:0 first), its arena's bytes;
        # device_arena_bytes is their sum.
        self.device_arena_sizes: List[int] = []
        self.cuda_archs: List[str] = []
        self.partitions: List[str] = []
        self.has_device_program = False
        if self.abi_version >= 2:
            v2 = ctypes.cast(ptr, ctypes.POINTER(_capi.ModelDescV2)).contents
            if v2.device_program:
                prog = v2.device_program.contents
                self.has_device_program = True
                if self.abi_version >= 3:
                    prog3 = ctypes.cast(
                        v2.device_program,
                        ctypes.POINTER(_capi.DeviceProgramV3)).contents
                    self.device_arena_sizes = [
                        int(prog3.device_arena_sizes[i])
                        for i in range(prog3.num_devices)]
                else:
                    self.device_arena_sizes = [int(prog.device_arena_bytes)]
                self.device_arena_bytes = sum(self.device_arena_sizes)
                archs = []
                for i in range(prog.num_images):
                    arch = (prog.images[i].arch or b"").decode()
                    if arch and arch not in archs:
                        archs.append(arch)
                self.cuda_archs = archs
                self.partitions = [
                    (prog.partition_names[i] or b"").decode()
                    for i in range(prog.num_partitions)
                ] if prog.partition_names else []

    @property
    def placement(self) -> str:
        """"gpu" when the model has GPU partitions, else "cpu"."""
        return "gpu" if self.has_device_program else "cpu"

    def batch_size(self) -> Optional[int]:
        """The common leading dimension of every input and output, when
        there is one (the batch the model was compiled for), else None."""
        dims = {s.shape[0] if s.shape else None
                for s in self.inputs + self.outputs}
        if len(dims) == 1 and None not in dims:
            return dims.pop()
        return None

    def __repr__(self) -> str:
        return "ModelInfo(%r, inputs=%r, outputs=%r, placement=%r)" % (
            self.name, self.inputs, self.outputs, self.placement)


def inspect(path: Union[str, os.PathLike], *,
            name: Optional[str] = None) -> ModelInfo:
    """Reads a compiled model's descriptor without creating an instance."""
    return ModelInfo(os.fspath(path), name)


def _from_dlpack(value: Any, what: str) -> np.ndarray:
    """VALUE, a DLPack producer, as a NumPy array sharing its memory."""
    try:
        return np.from_dlpack(value)
    except (BufferError, TypeError, RuntimeError, ValueError) as e:
        raise InvalidArgumentError(
            "%s: cannot import the DLPack tensor (%s): %s" %
            (what, type(value).__name__, e)) from None


def _as_array(value: Any, spec: TensorSpec, what: str) -> np.ndarray:
    """VALUE as a C-contiguous NumPy array of SPEC's dtype and shape.
    NumPy arrays and DLPack producers (zero-copy when C-contiguous) keep
    their dtype, which must match; lists and scalars are converted to it."""
    if isinstance(value, np.ndarray):
        arr = value
    elif hasattr(value, "__dlpack__"):
        arr = _from_dlpack(value, what)
    else:
        if spec.dtype is None:
            raise InvalidArgumentError("%s: %s needs a NumPy array of that "
                                       "dtype" % (what, spec.dtype_name))
        try:
            arr = np.asarray(value, dtype=spec.dtype)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError("%s: cannot convert %s to %s: %s" % (
                what, type(value).__name__, spec.dtype_name, e)) from None
    if arr.dtype != spec.dtype or arr.shape != spec.shape:
        raise InvalidArgumentError("%s: expected %s, got %s" % (
            what, _type_label(spec.dtype_name, spec.shape),
            _type_label(_dtype_label(arr.dtype), arr.shape)))
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return arr


def _as_out(value: Any, spec: TensorSpec, what: str) -> np.ndarray:
    """An out= buffer: written in place, so it must already be a writable,
    C-contiguous array of exactly SPEC's dtype and shape."""
    if isinstance(value, np.ndarray):
        arr = value
    elif hasattr(value, "__dlpack__"):
        arr = _from_dlpack(value, what)
    else:
        raise InvalidArgumentError("%s: out= needs arrays, got %s" %
                                   (what, type(value).__name__))
    if arr.dtype != spec.dtype or arr.shape != spec.shape:
        raise InvalidArgumentError("%s: expected %s, got %s" % (
            what, _type_label(spec.dtype_name, spec.shape),
            _type_label(_dtype_label(arr.dtype), arr.shape)))
    if not arr.flags.c_contiguous or not arr.flags.writeable:
        raise InvalidArgumentError("%s: the out= buffer must be writable "
                                   "and C-contiguous" % what)
    return arr


class _Job:
    """One prepared run: converted inputs, outputs, and the C arrays."""
    __slots__ = ("inputs", "outputs", "in_ptrs", "out_ptrs")

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = inputs, outputs
        self.in_ptrs = (ctypes.c_void_p * max(len(inputs), 1))(
            *[a.ctypes.data for a in inputs])
        self.out_ptrs = (ctypes.c_void_p * max(len(outputs), 1))(
            *[a.ctypes.data for a in outputs])


class Model:
    """An instance of a compiled model (tandem_model_t).

    Create it with tandem.load(). Calls from several threads on one Model
    are serialized (a per-instance lock; the runtime runs one request per
    instance at a time); load one Model per thread to run concurrently.
    close() (or a `with` block) frees the instance; afterwards every call
    raises ModelClosedError."""

    def __init__(self, path: Union[str, os.PathLike], *,
                 threads: Optional[int] = None, device: Optional[str] = "auto",
                 pipeline_depth: int = 1, cuda_graphs: Optional[bool] = None,
                 log_fallback: bool = True, trace_path: Optional[str] = None,
                 name: Optional[str] = None) -> None:
        self._handle = None
        self._closed = True
        info = ModelInfo(os.fspath(path), name)
        self.info = info
        lib = _capi.library()
        self._lib = lib
        buf = (ctypes.c_char * _capi.OPTIONS_BUFFER_BYTES)()
        opts = _capi.ModelOptions.from_buffer(buf)
        lib.tandem_model_options_init(ctypes.addressof(buf))
        if threads is not None:
            if threads < 0:
                raise InvalidArgumentError("threads must be >= 0 (0: the "
                                           "physical cores), got %d" % threads)
            opts.intra_op_threads = threads
        # "auto" leaves the choice to the runtime's default: $TANDEM_DEVICE
        # when set, else a CUDA GPU when there is one, else the CPU.
        device_bytes = None
        if device is not None and device != "auto":
            device_bytes = device.encode()
            opts.device = device_bytes
        if not 1 <= pipeline_depth <= 64:
            raise InvalidArgumentError("pipeline_depth must be 1..64, got %d"
                                       % pipeline_depth)
        opts.pipeline_depth = pipeline_depth
        if cuda_graphs is not None:
            opts.cuda_graphs = 1 if cuda_graphs else 0
        opts.log_fallback = 1 if log_fallback else 0
        trace_bytes = os.fsencode(trace_path) if trace_path else None
        if trace_bytes:
            opts.trace_path = trace_bytes
        handle = ctypes.c_void_p()
        status = lib.tandem_model_create(info._desc_ptr, ctypes.addressof(buf),
                                         ctypes.byref(handle))
        _capi.take_status(status, "%s" % info.path)
        del device_bytes, trace_bytes, buf
        self._handle = handle.value
        self._closed = False
        self._lock = threading.Lock()
        self._cond = threading.Condition()
        self._pending = 0
        self._waiter: Optional[threading.Thread] = None
        self._tickets: "queue.Queue" = queue.Queue()
        self.pipeline_depth = pipeline_depth

    # --- description -----------------------------------------------------

    @property
    def name(self) -> str:
        """The model's name (tandemc --name)."""
        return self.info.name

    @property
    def path(self) -> str:
        return self.info.path

    @property
    def inputs(self) -> List[TensorSpec]:
        """The inputs, in the order __call__ takes them."""
        return list(self.info.inputs)

    @property
    def outputs(self) -> List[TensorSpec]:
        """The outputs, in the order __call__ returns them."""
        return list(self.info.outputs)

    @property
    def device(self) -> str:
        """Where the GPU partitions run: "cpu" (the CPU fallback, and every
        CPU-only model), "emulated" or "cuda:N (<GPU name>)"."""
        self._check_open()
        return (self._lib.tandem_model_device_name(self._handle)
                or b"").decode()

    @property
    def fallback_reason(self) -> Optional[str]:
        """Why a model with GPU partitions runs them on the CPU (e.g. "no
        CUDA driver (...)", "device 'cpu' requested"); None when they run on
        a device or the model has none."""
        self._check_open()
        r = self._lib.tandem_model_fallback_reason(self._handle)
        return r.decode() if r else None

    @property
    def closed(self) -> bool:
        return self._closed

    def stats(self, reset: bool = False) -> Dict[str, int]:
        """The instance's device-work counters (tandem_model_stats)."""
        with self._lock:
            self._check_open()
            st = _capi.ModelStats()
            _capi.take_status(self._lib.tandem_model_stats(
                self._handle, ctypes.byref(st), 1 if reset else 0))
        return {f[0]: int(getattr(st, f[0])) for f in st._fields_}

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.device
        return "<tandem.Model %r %s -> %s on %s>" % (
            self.name, self.info.inputs, self.info.outputs, state)

    # --- running -----------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise ModelClosedError("model '%s' is closed" % self.info.name)

    def _what(self, kind: str, i: int, spec: TensorSpec) -> str:
        return "model '%s': %s %d ('%s')" % (self.info.name, kind, i,
                                             spec.name)

    def _feeds(self, args: Sequence[Any], kwargs: Mapping[str, Any]):
        specs = self.info.inputs
        if len(args) > len(specs):
            raise InvalidArgumentError(
                "model '%s' takes %d input%s (%s), got %d" % (
                    self.info.name, len(specs), "" if len(specs) == 1 else "s",
                    ", ".join(s.name for s in specs), len(args)))
        values: List[Any] = list(args) + [None] * (len(specs) - len(args))
        given = [True] * len(args) + [False] * (len(specs) - len(args))
        index = {s.name: i for i, s in enumerate(specs)}
        for key, value in kwargs.items():
            i = index.get(key)
            if i is None:
                raise InvalidArgumentError(
                    "model '%s' has no input '%s' (inputs: %s)" % (
                        self.info.name, key,
                        ", ".join(s.name for s in specs)))
            if given[i]:
                raise InvalidArgumentError(
                    "model '%s': input '%s' given twice" % (self.info.name,
                                                           key))
            values[i], given[i] = value, True
        missing = [s.name for s, g in zip(specs, given) if not g]
        if missing:
            raise InvalidArgumentError(
                "model '%s': missing input%s %s (inputs: %s)" % (
                    self.info.name, "" if len(missing) == 1 else "s",
                    ", ".join("'%s'" % m for m in missing),
                    ", ".join(s.name for s in specs)))
        return [_as_array(v, s, self._what("input", i, s))
                for i, (v, s) in enumerate(zip(values, specs))]

    def _outs(self, out: Any) -> List[np.ndarray]:
        """The output arrays: the out= buffers, fresh ones for the rest."""
        specs = self.info.outputs
        if out is None:
            return [np.empty(s.shape, s.dtype) for s in specs]
        if isinstance(out, Mapping):
            unknown = set(out) - {s.name for s in specs}
            if unknown:
                raise InvalidArgumentError(
                    "model '%s' has no output %s (outputs: %s)" % (
                        self.info.name,
                        ", ".join("'%s'" % u for u in sorted(unknown)),
                        ", ".join(s.name for s in specs)))
            arrays = []
            for i, s in enumerate(specs):
                if s.name in out:
                    arrays.append(_as_out(out[s.name], s,
                                          self._what("output", i, s)))
                else:
                    arrays.append(np.empty(s.shape, s.dtype))
            return arrays
        if not isinstance(out, (list, tuple)):
            out = [out]
        if len(out) != len(specs):
            raise InvalidArgumentError(
                "model '%s' has %d output%s, out= gives %d" % (
                    self.info.name, len(specs),
                    "" if len(specs) == 1 else "s", len(out)))
        return [_as_out(o, s, self._what("output", i, s))
                for i, (o, s) in enumerate(zip(out, specs))]

    def _tensors(self, specs, arrays):
        ts = (_capi.Tensor * max(len(arrays), 1))()
        for i, (s, a) in enumerate(zip(specs, arrays)):
            ts[i].data = a.ctypes.data
            ts[i].dtype = s._code
            ts[i].rank = len(s.shape)
            ts[i].shape = s._shape_ptr
        return ts

    def _run_sync(self, ins: List[np.ndarray], outs: List[np.ndarray]):
        tin = self._tensors(self.info.inputs, ins)
        tout = self._tensors(self.info.outputs, outs)
        with self._lock:
            self._check_open()
            self._drain()
            status = self._lib.tandem_model_run_checked(
                self._handle, tin, len(ins), tout, len(outs))
        _capi.take_status(status, "model '%s'" % self.info.name)

    def _pack(self, outs: List[np.ndarray], as_dict: bool):
        if as_dict:
            return {s.name: a for s, a in zip(self.info.outputs, outs)}
        return outs[0] if len(outs) == 1 else tuple(outs)

    def __call__(self, *args: Any, out: Any = None, **kwargs: Any):
        """Runs the model on its inputs (positional in descriptor order,
        or by name) and returns the output array, or a tuple of them when
        the model has several. `out` gives preallocated output buffers (an
        array, a sequence, or a dict by name), which are written and
        returned."""
        ins = self._feeds(args, kwargs)
        outs = self._outs(out)
        self._run_sync(ins, outs)
        return self._pack(outs, False)

    def run(self, feeds: Union[Mapping[str, Any], Sequence[Any]],
            out: Any = None) -> Dict[str, np.ndarray]:
        """Runs the model on FEEDS (a dict by input name, or a sequence in
        input order) and returns a dict of the outputs by name."""
        if isinstance(feeds, Mapping):
            ins = self._feeds((), feeds)
        else:
            ins = self._feeds(tuple(feeds), {})
        outs = self._outs(out)
        self._run_sync(ins, outs)
        return self._pack(outs, True)

    def run_async(self, *args: Any, out: Any = None,
                  **kwargs: Any) -> "concurrent.futures.Future":
        """Starts a run on the runtime's pipelined API
        (tandem_model_run_async) and returns a Future of what __call__
        would return. Up to `pipeline_depth` runs are in flight at once;
        when all slots are busy this call blocks until one is free. The
        inputs are kept alive (and must not be modified) until the future
        is done."""
        ins = self._feeds(args, kwargs)
        outs = self._outs(out)
        job = _Job(ins, outs)
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_running_or_notify_cancel()
        ticket = ctypes.c_void_p()
        with self._lock:
            self._check_open()
            status = self._lib.tandem_model_run_async(
                self._handle, job.in_ptrs, job.out_ptrs, ctypes.byref(ticket))
            _capi.take_status(status, "model '%s'" % self.info.name)
            with self._cond:
                self._pending += 1
            if self._waiter is None:
                self._waiter = threading.Thread(
                    target=self._wait_loop, daemon=True,
                    name="tandem-wait-%s" % self.info.name)
                self._waiter.start()
            self._tickets.put((ticket.value, job, future))
        return future

    def _wait_loop(self) -> None:
        """Waits for the tickets in the order they were issued and
        completes their futures."""
        while True:
            item = self._tickets.get()
            if item is None:
                return
            ticket, job, future = item
            status = self._lib.tandem_model_wait(ticket)
            try:
                _capi.take_status(status, "model '%s'" % self.info.name)
                future.set_result(self._pack(job.outputs, False))
            except TandemError as e:
                future.set_exception(e)
            finally:
                with self._cond:
                    self._pending -= 1
                    self._cond.notify_all()

    def _drain(self) -> None:
        """Waits until no async run is in flight (self._lock held, so none
        can start)."""
        with self._cond:
            while self._pending:
                self._cond.wait()

    def bind(self, inputs: Union[Mapping[str, Any], Sequence[Any]],
             out: Any = None) -> "BoundRun":
        """Checks INPUTS and output buffers once and returns a callable
        that runs the model on exactly those buffers (tandem_model_run,
        no per-call checks or allocation): for timing loops and servers
        that reuse buffers. Change the input arrays in place between
        calls; read the results from BoundRun.outputs."""
        if isinstance(inputs, Mapping):
            ins = self._feeds((), inputs)
        else:
            ins = self._feeds(tuple(inputs), {})
        outs = self._outs(out)
        return BoundRun(self, _Job(ins, outs))

    def close(self) -> None:
        """Waits for runs in flight, then frees the instance. Idempotent."""
        if getattr(self, "_closed", True):
            return
        with self._lock:
            if self._closed:
                return
            self._drain()
            if self._waiter is not None:
                self._tickets.put(None)
                self._waiter.join()
                self._waiter = None
            self._lib.tandem_model_destroy(self._handle)
            self._handle = None
            self._closed = True

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to report to
            pass


class BoundRun:
    """A run on fixed buffers, from Model.bind(). Calling it runs the
    model (raising on failure) and returns None; `inputs` and `outputs`
    are the arrays it reads and writes."""

    def __init__(self, model: Model, job: _Job) -> None:
        self._model = model
        self._job = job
        self.inputs: List[np.ndarray] = job.inputs
        self.outputs: List[np.ndarray] = job.outputs

    def __call__(self) -> None:
        m = self._model
        with m._lock:
            m._check_open()
            m._drain()
            status = m._lib.tandem_model_run(m._handle, self._job.in_ptrs,
                                             self._job.out_ptrs)
        if status:
            _capi.take_status(status, "model '%s'" % m.info.name)


def load(path: Union[str, os.PathLike], *, threads: Optional[int] = None,
         device: Optional[str] = "auto", pipeline_depth: int = 1,
         cuda_graphs: Optional[bool] = None, log_fallback: bool = True,
         trace_path: Optional[str] = None,
         name: Optional[str] = None) -> Model:
    """Loads a model compiled with `tandemc --emit=shared` and creates an
    instance.

    threads: intra-op threads (None or 0: the physical cores; 1: no pool).
    device: where GPU partitions run: "auto" ($TANDEM_DEVICE if set, else a
        CUDA GPU if there is one, else the CPU fallback), "cuda", "cuda:N",
        "emulated" or "cpu". Ignored by CPU-only models.
    pipeline_depth: runs run_async keeps in flight (1..64).
    cuda_graphs: CUDA Graphs for GPU partitions (None: $TANDEM_CUDA_GRAPHS,
        else on).
    log_fallback: one line on stderr when GPU partitions fall back to the
        CPU (Model.fallback_reason says why either way).
    trace_path: a Chrome/Perfetto trace written when the model is closed.
    name: the descriptor `<name>_descriptor` instead of the library's
        default model.
    """
    return Model(path, threads=threads, device=device,
                 pipeline_depth=pipeline_depth, cuda_graphs=cuda_graphs,
                 log_fallback=log_fallback, trace_path=trace_path, name=name)
