"""ctypes declarations of the runtime's C API (runtime/include/tandem/runtime.h).

The package talks to libtandem_runtime.so through ctypes: the runtime stays a
plain C library with no Python build dependency, and the package needs no
compiler at install time (docs/Python.md, "Why ctypes"). The structures
below mirror runtime.h; test_capi.py checks their sizes against the header.

The runtime library is loaded once, RTLD_GLOBAL, because compiled models
(`tandemc --emit=shared`) leave the runtime's symbols (tandem_sgemm_f32,
tandem_parallel_for, ...) undefined and resolve them against the host
process, as tandem-run does by exporting them.
"""
import ctypes
import os
import threading
from typing import Optional

from .errors import BY_CODE, TandemError

# abi.h: TANDEM_ABI_VERSION, TANDEM_ABI_VERSION_MULTI_GPU,
# TANDEM_ABI_VERSION_ONE_GPU and TANDEM_ABI_VERSION_CPU_ONLY.
ABI_VERSION = 4
ABI_VERSION_MULTI_GPU = 3
ABI_VERSION_ONE_GPU = 2
ABI_VERSION_CPU_ONLY = 1

# tandem_dtype_t values -> names, as tandem_dtype_name spells them.
DTYPE_NAMES = {0: "f32", 1: "f16", 2: "bf16", 3: "i64", 4: "i32", 5: "bool",
               6: "f64", 7: "i8", 8: "u8", 9: "i16", 10: "u16", 11: "u32",
               12: "u64"}
DTYPE_CODES = {v: k for k, v in DTYPE_NAMES.items()}

_c_vp = ctypes.c_void_p
_i32 = ctypes.c_int32
_i64 = ctypes.c_int64
_u32 = ctypes.c_uint32
_u64 = ctypes.c_uint64


class TensorDesc(ctypes.Structure):
    """tandem_tensor_desc_t"""
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", _i32), ("shape", ctypes.POINTER(_i64))]


class ModelDescV1(ctypes.Structure):
    """tandem_model_desc_t up to `entry` (all an ABI-1 descriptor has)."""
    _fields_ = [("abi_version", _u32), ("name", ctypes.c_char_p),
                ("num_inputs", _i32), ("num_outputs", _i32),
                ("inputs", ctypes.POINTER(TensorDesc)),
                ("outputs", ctypes.POINTER(TensorDesc)),
                ("arena_bytes", _u64), ("weight_bytes", _u64),
                ("entry", _c_vp)]


class DeviceImage(ctypes.Structure):
    """tandem_device_image_t"""
    _fields_ = [("arch", ctypes.c_char_p), ("format", _i32),
                ("data", _c_vp), ("size", _u64)]


class DeviceProgram(ctypes.Structure):
    """tandem_device_program_t up to `partition_names` (all an ABI-2
    program has)."""
    _fields_ = [("num_kernels", _i32), ("kernels", _c_vp),
                ("num_images", _i32), ("images", ctypes.POINTER(DeviceImage)),
                ("num_weights", _i32), ("weights", _c_vp),
                ("device_arena_bytes", _u64), ("num_events", _i32),
                ("num_partitions", _i32),
                ("partition_names", ctypes.POINTER(ctypes.c_char_p))]


class DeviceProgramV3(ctypes.Structure):
    """tandem_device_program_t of ABI version 3 (adds the GPUs)."""
    _fields_ = DeviceProgram._fields_ + [
        ("num_devices", _i32),
        ("device_arena_sizes", ctypes.POINTER(_u64)),
        ("weight_devices", ctypes.POINTER(_i32))]


class DeviceProgramV4(ctypes.Structure):
    """tandem_device_program_t of ABI version 4 (adds the library
    convolutions' descriptors, read here only for their count)."""
    _fields_ = DeviceProgramV3._fields_ + [
        ("num_convs", _i32), ("convs", _c_vp)]


class ModelDescV2(ctypes.Structure):
    """tandem_model_desc_t of ABI version 2 (adds `device_program`)."""
    _fields_ = ModelDescV1._fields_ + [
        ("device_program", ctypes.POINTER(DeviceProgram))]


class ModelOptions(ctypes.Structure):
    """tandem_model_options_t. Always filled by tandem_model_options_init,
    in a buffer larger than this structure (OPTIONS_BUFFER_BYTES), so that a
    newer runtime that appends fields writes into memory we own."""
    _fields_ = [("intra_op_threads", _i32), ("arena", _c_vp),
                ("arena_bytes", _u64), ("device", ctypes.c_char_p),
                ("cuda_graphs", _i32), ("pipeline_depth", _i32),
                ("log_fallback", _i32), ("trace_path", ctypes.c_char_p)]


OPTIONS_BUFFER_BYTES = 1024


class Tensor(ctypes.Structure):
    """tandem_tensor_t"""
    _fields_ = [("data", _c_vp), ("dtype", ctypes.c_int), ("rank", _i32),
                ("shape", ctypes.POINTER(_i64))]


class ModelStats(ctypes.Structure):
    """tandem_model_stats_t"""
    _fields_ = [(n, _u64) for n in (
        "runs", "kernel_launches", "captured_launches", "graph_captures",
        "graph_launches", "h2d_copies", "h2d_bytes", "d2h_copies",
        "d2h_bytes", "staged_bytes")]


# name -> (restype, argtypes)
_SIGNATURES = {
    "tandem_status_code": (ctypes.c_int, [_c_vp]),
    "tandem_status_message": (ctypes.c_char_p, [_c_vp]),
    "tandem_status_free": (None, [_c_vp]),
    "tandem_status_code_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tandem_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tandem_physical_cores": (_i32, []),
    "tandem_sgemm_f32_isa": (ctypes.c_char_p, []),
    "tandem_model_options_init": (None, [_c_vp]),
    "tandem_model_create": (_c_vp, [_c_vp, _c_vp, _c_vp]),
    "tandem_model_destroy": (None, [_c_vp]),
    "tandem_model_run": (_c_vp, [_c_vp, _c_vp, _c_vp]),
    "tandem_model_run_checked": (_c_vp, [_c_vp, _c_vp, _i32, _c_vp, _i32]),
    "tandem_model_device_name": (ctypes.c_char_p, [_c_vp]),
    "tandem_model_fallback_reason": (ctypes.c_char_p, [_c_vp]),
    "tandem_model_stats": (_c_vp, [_c_vp, _c_vp, _i32]),
    "tandem_model_run_async": (_c_vp, [_c_vp, _c_vp, _c_vp, _c_vp]),
    "tandem_model_wait": (_c_vp, [_c_vp]),
}

RUNTIME_LIBRARY_ENV = "TANDEM_RUNTIME_LIBRARY"
_LIBRARY_NAME = "libtandem_runtime.so"

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_lib_path: Optional[str] = None


def _candidates():
    """Where the runtime library may be, in order: $TANDEM_RUNTIME_LIBRARY,
    the copy shipped inside the package (tandem/_lib/, put there by
    `pip install`), then a source checkout's build directory
    (python/tandem -> build/lib) for use straight from the tree."""
    env = os.environ.get(RUNTIME_LIBRARY_ENV)
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    found = [os.path.join(here, "_lib", _LIBRARY_NAME)]
    try:
        # Written by setup.py at install time; absent in the source tree.
        from . import _build_config  # type: ignore[attr-defined]
        found.append(os.path.join(_build_config.BUILD_DIR, "lib",
                                  _LIBRARY_NAME))
    except ImportError:
        pass
    found.append(os.path.join(here, "..", "..", "build", "lib",
                              _LIBRARY_NAME))
    return found, False


def library() -> ctypes.CDLL:
    """The runtime library, loaded on first use (RTLD_GLOBAL)."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        paths, from_env = _candidates()
        path = next((p for p in paths if os.path.isfile(p)), None)
        if path is None:
            if from_env:
                raise TandemError("%s=%s: no such file" %
                                  (RUNTIME_LIBRARY_ENV, paths[0]))
            raise TandemError(
                "cannot find the Tandem runtime (%s): looked in %s; install "
                "the package with `pip install ./python` after building "
                "(target tandem_runtime_shared), or set %s" %
                (_LIBRARY_NAME, ", ".join(os.path.normpath(p) for p in paths),
                 RUNTIME_LIBRARY_ENV))
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        except OSError as e:
            raise TandemError("cannot load the Tandem runtime %s: %s" %
                              (path, e)) from None
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _lib, _lib_path = lib, os.path.realpath(path)
        return lib


def library_path() -> str:
    """The file the runtime was loaded from (loads it if needed)."""
    library()
    assert _lib_path is not None
    return _lib_path


def take_status(status, context: str = "") -> None:
    """Raises the exception of a non-NULL tandem_status_t (and frees it)."""
    if not status:
        return
    lib = library()
    try:
        code = lib.tandem_status_code(status)
        message = (lib.tandem_status_message(status) or b"").decode(
            errors="replace")
    finally:
        lib.tandem_status_free(status)
    cls = BY_CODE.get(code, TandemError)
    if context:
        message = "%s: %s" % (context, message)
    err = cls(message)
    if cls is TandemError:
        err.code = (lib.tandem_status_code_name(code) or b"UNKNOWN").decode()
    raise err
