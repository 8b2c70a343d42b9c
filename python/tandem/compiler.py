"""tandem.compile: drives the `tandemc` compiler and returns an Artifact.

tandemc is found through $TANDEMC, then the build directory recorded when
the package was installed, then a source checkout's build/bin next to the
package, then PATH. Every compile is `tandemc --emit=shared`: the artifact is
a shared library that tandem.load() runs.
"""
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from .errors import CompileError

__all__ = ["Artifact", "compile", "find_tandemc"]

TANDEMC_ENV = "TANDEMC"


def find_tandemc() -> str:
    """The tandemc executable this package uses (see the module doc)."""
    env = os.environ.get(TANDEMC_ENV)
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise CompileError("%s=%s is not an executable file" %
                               (TANDEMC_ENV, env))
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    try:
        from . import _build_config  # type: ignore[attr-defined]
        candidates.append(os.path.join(_build_config.BUILD_DIR, "bin",
                                       "tandemc"))
    except ImportError:
        pass
    candidates.append(os.path.normpath(os.path.join(here, "..", "..", "build",
                                                    "bin", "tandemc")))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which("tandemc")
    if found:
        return found
    raise CompileError(
        "cannot find tandemc: looked in %s and on PATH; build Tandem "
        "(ninja -C build tandemc) or set %s" % (", ".join(candidates),
                                                TANDEMC_ENV))


def _flag(key: str, value: Any) -> List[str]:
    flag = "--" + key.replace("_", "-")
    if value is True:
        return [flag]
    if value is False or value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _flag(key, v)]
    return ["%s=%s" % (flag, value)]


class Artifact:
    """A compiled model: the shared library at `path`, and the tandemc
    command that made it. load() creates a runnable instance; info (or
    inputs / outputs / placement) reads its descriptor."""

    def __init__(self, path: Union[str, os.PathLike],
                 command: Iterable[str] = (), diagnostics: str = "") -> None:
        self.path = os.path.abspath(os.fspath(path))
        self.command = list(command)
        #: tandemc's stderr (warnings) from a successful compile.
        self.diagnostics = diagnostics
        self._info = None

    @property
    def info(self):
        """The descriptor's content (a tandem.ModelInfo)."""
        if self._info is None:
            from .model import inspect
            self._info = inspect(self.path)
        return self._info

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def inputs(self):
        return self.info.inputs

    @property
    def outputs(self):
        return self.info.outputs

    @property
    def placement(self) -> str:
        """"gpu" when the artifact has GPU partitions, else "cpu"."""
        return self.info.placement

    def load(self, **options: Any):
        """tandem.load(self.path, **options)."""
        from .model import load
        return load(self.path, **options)

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return "Artifact(%r)" % self.path


def compile(model: Any, output: Optional[Union[str, os.PathLike]] = None, *,
            target: str = "cpu", name: Optional[str] = None,
            input_shapes: Optional[Mapping[str, Iterable[int]]] = None,
            cpu: Optional[str] = None, tandemc: Optional[str] = None,
            timeout: Optional[float] = None, **options: Any) -> Artifact:
    """Compiles MODEL (a path to an .onnx or .mlir file, or an
    onnx.ModelProto) with `tandemc --emit=shared` into OUTPUT (default: a
    new temporary directory, `<name>.so`) and returns the Artifact.

    target: tandemc --target ("cpu", "cpu,gpu:sm_90", ...).
    name: tandemc --name (the symbol prefix and the model's name).
    input_shapes: {"x": (1, 3, 224, 224)} binds input shapes
        (--input-shape x=1x3x224x224).
    cpu: tandemc --cpu ("native", "x86-64-v3", ...; default portable).
    tandemc: the executable (default: find_tandemc()).
    timeout: seconds before the compile is stopped (CompileError).
    options: any other tandemc flag, underscores for dashes: place=[...],
        cuda_arch="sm_80,sm_90", gpu_precision="bf16", memory_report="-", ...
        True adds the bare flag, a list repeats it.

    Raises CompileError (with tandemc's diagnostics) when tandemc fails;
    nothing is left at OUTPUT then.
    """
    exe = tandemc or find_tandemc()
    tmpdir = None
    src_dir = None
    try:
        if isinstance(model, (str, os.PathLike)):
            src = os.fspath(model)
            if not os.path.isfile(src):
                raise CompileError("%s: no such file" % src)
        elif type(model).__name__ == "ModelProto":
            import onnx
            src_dir = tempfile.mkdtemp(prefix="tandem-src-")
            src = os.path.join(src_dir, (name or "model") + ".onnx")
            onnx.save_model(model, src)
        else:
            raise TypeError("tandem.compile takes a path or an "
                            "onnx.ModelProto, got %s" % type(model).__name__)
        if output is None:
            tmpdir = tempfile.mkdtemp(prefix="tandem-")
            output = os.path.join(tmpdir, (name or "model") + ".so")
        output = os.path.abspath(os.fspath(output))
        cmd = [exe, src, "--emit=shared", "-o", output, "--target=" + target]
        if name:
            cmd.append("--name=" + name)
        if cpu:
            cmd.append("--cpu=" + cpu)
        for key, shape in (input_shapes or {}).items():
            cmd.append("--input-shape=%s=%s" % (
                key, "x".join(str(int(d)) for d in shape)))
        for key, value in options.items():
            cmd += _flag(key, value)
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CompileError("tandemc timed out after %s s on %s" %
                               (timeout, src), command=cmd) from None
        diagnostics = proc.stderr.decode(errors="replace")
        if proc.returncode != 0:
            text = diagnostics.strip()
            if len(text) > 4000:
                text = text[:4000] + "\n... (CompileError.diagnostics has all)"
            raise CompileError(text or "tandemc failed with exit status %d"
                               % proc.returncode, diagnostics,
                               proc.returncode, cmd)
        if not os.path.isfile(output):
            raise CompileError("tandemc exited 0 but wrote no %s" % output,
                               diagnostics, 0, cmd)
        tmpdir = None  # keep it: it holds the artifact
        return Artifact(output, cmd, diagnostics)
    finally:
        if src_dir:
            shutil.rmtree(src_dir, ignore_errors=True)
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)
