"""Tandem from Python: compile ONNX models with tandemc and run them.

    import tandem
    model = tandem.compile("model.onnx").load()
    y = model(x)                      # NumPy (or any DLPack) in, NumPy out

tandem.compile drives tandemc; tandem.load runs a compiled `.so` through the
runtime's C API (ctypes, libtandem_runtime.so shipped in the package);
tandem.serve (needs ray[serve]) serves an artifact on Ray Serve. See
docs/Python.md and docs/Serving.md.
"""
from .compiler import Artifact, compile, find_tandemc
from .errors import (BusyError, CompileError, InternalError,
                     InvalidArgumentError, ModelClosedError, OutOfMemoryError,
                     TandemError, UnavailableError)
from .model import BoundRun, Model, ModelInfo, TensorSpec, inspect, load

__version__ = "0.1.0"

__all__ = [
    "Artifact", "BoundRun", "BusyError", "CompileError", "InternalError",
    "InvalidArgumentError", "Model", "ModelClosedError", "ModelInfo",
    "OutOfMemoryError", "TandemError", "TensorSpec", "UnavailableError",
    "compile", "find_tandemc", "inspect", "load", "runtime_library",
]


def runtime_library() -> str:
    """The path of the libtandem_runtime.so this package runs models with."""
    from . import _capi
    return _capi.library_path()
