"""The runtime registry: who runs the models.

A Runtime says which models it supports and opens a Session for one
(model, thread count, inputs). A Session times batches of runs and returns
its outputs for the agreement check. Every timing is one call's wall time
in milliseconds (time.perf_counter_ns around the call, or clock_gettime in
the C helpers); the harness interleaves the sessions' batches.

Add a runtime (XLA via jax, IREE, ...) by subclassing Runtime and adding it
to RUNTIMES.
"""
import ctypes
import os
import re
import subprocess
import time

import numpy as np

from . import native
from .util import BenchError, newer

# Variables the machine's shell sets that throttle OpenBLAS (they pin the
# Haswell kernel and a wrong L2 size). Removed only in the OpenBLAS child's
# environment; the OMP/GOTO ones would override OPENBLAS_NUM_THREADS.
OPENBLAS_ENV_REMOVED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                        "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                        "OMP_NUM_THREADS")


def _ms_since(start_ns):
    return (time.perf_counter_ns() - start_ns) * 1e-6


class Session:
    def run(self, runs, warmup):
        """Runs WARMUP untimed then RUNS timed; returns RUNS times in ms."""
        raise NotImplementedError

    def outputs(self):
        """The outputs on the session's inputs: a list of arrays."""
        raise NotImplementedError

    def close(self):
        pass


class Runtime:
    name = "?"

    def supports(self, model):
        return True

    def describe(self, ctx):
        """One line for the report's setup section."""
        return self.name

    def open(self, ctx, model, threads, inputs):
        raise NotImplementedError


#===--- Tandem -----------------------------------------------------------===#


class _TensorDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class _ModelDesc(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("num_inputs", ctypes.c_int32),
                ("num_outputs", ctypes.c_int32),
                ("inputs", ctypes.POINTER(_TensorDesc)),
                ("outputs", ctypes.POINTER(_TensorDesc)),
                ("arena_bytes", ctypes.c_uint64),
                ("weight_bytes", ctypes.c_uint64),
                ("entry", ctypes.c_void_p)]
    # ABI 2 appends `device_program` (NULL for CPU-only models); ABI 1
    # descriptors end at `entry`, so the field is not read here.


class _ModelOptions(ctypes.Structure):
    _fields_ = [("intra_op_threads", ctypes.c_int32),
                ("arena", ctypes.c_void_p),
                ("arena_bytes", ctypes.c_uint64),
                ("device", ctypes.c_char_p),
                ("cuda_graphs", ctypes.c_int32),
                ("pipeline_depth", ctypes.c_int32),
                ("log_fallback", ctypes.c_int32),
                ("trace_path", ctypes.c_char_p)]


_TANDEM_F32 = 0


class TandemSession(Session):
    def __init__(self, runtime, ctx, so_path, threads, inputs):
        self.runtime, self.ctx, self.so_path = runtime, ctx, so_path
        self.threads, self.inputs = threads, inputs
        rt = runtime.library(ctx)
        self.rt = rt
        # The model's undefined tandem_* symbols resolve against the
        # runtime, loaded RTLD_GLOBAL first.
        self.lib = ctypes.CDLL(so_path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        try:
            desc_ptr = ctypes.c_void_p.in_dll(self.lib, "tandem_default_model")
        except ValueError:
            raise BenchError("%s: no tandem_default_model symbol" % so_path)
        desc = ctypes.cast(desc_ptr, ctypes.POINTER(_ModelDesc)).contents
        current, cpu_only = runtime.abi_versions(ctx)
        if desc.abi_version not in (current, cpu_only):
            raise BenchError(
                "%s: ABI version %d, but runtime.h says %d (or %d for "
                "CPU-only models); the harness's ctypes view of the ABI "
                "(bench/harness/runtimes.py) must be updated" %
                (so_path, desc.abi_version, current, cpu_only))
        self.desc = desc
        if desc.num_inputs != len(inputs):
            raise BenchError("%s: %d inputs, the harness made %d" %
                             (so_path, desc.num_inputs, len(inputs)))
        self.in_arrays = []
        for i, (name, array) in enumerate(inputs):
            d = desc.inputs[i]
            shape = tuple(d.shape[j] for j in range(d.rank))
            if d.dtype != _TANDEM_F32 or shape != array.shape:
                raise BenchError("%s: input %d ('%s') is %s of dtype %d, the "
                                 "harness made %s" % (so_path, i,
                                                      d.name.decode(), shape,
                                                      d.dtype, array.shape))
            self.in_arrays.append(np.ascontiguousarray(array))
        self.out_arrays = []
        for i in range(desc.num_outputs):
            d = desc.outputs[i]
            if d.dtype != _TANDEM_F32:
                raise BenchError("%s: output %d is not f32" % (so_path, i))
            shape = tuple(d.shape[j] for j in range(d.rank))
            # Touch the pages now, not in the first timed run.
            self.out_arrays.append(np.zeros(shape, np.float32))
        self.in_ptrs = (ctypes.c_void_p * len(self.in_arrays))(
            *[a.ctypes.data for a in self.in_arrays])
        self.out_ptrs = (ctypes.c_void_p * len(self.out_arrays))(
            *[a.ctypes.data for a in self.out_arrays])
        options = _ModelOptions()
        rt.tandem_model_options_init(ctypes.byref(options))
        options.intra_op_threads = threads
        model = ctypes.c_void_p()
        status = rt.tandem_model_create(ctypes.byref(desc),
                                        ctypes.byref(options),
                                        ctypes.byref(model))
        self._check(status, "tandem_model_create")
        self.model = model
        self.ran = False

    def _check(self, status, what):
        if status:
            message = self.rt.tandem_status_message(status).decode()
            self.rt.tandem_status_free(status)
            raise BenchError("%s: %s failed: %s" % (self.so_path, what,
                                                    message))

    def run(self, runs, warmup):
        run = self.rt.tandem_model_run
        model, ins, outs = self.model, self.in_ptrs, self.out_ptrs
        times = []
        self.ran = True
        for i in range(warmup + runs):
            start = time.perf_counter_ns()
            status = run(model, ins, outs)
            elapsed = _ms_since(start)
            if status:
                self._check(status, "tandem_model_run")
            if i >= warmup:
                times.append(elapsed)
        return times

    def outputs(self):
        """The outputs of the last run of this session (the code that is
        timed); runs once if it has not run yet."""
        if not self.ran:
            self.run(1, 0)
        return [a.copy() for a in self.out_arrays]

    def close(self):
        if getattr(self, "model", None):
            self.rt.tandem_model_destroy(self.model)
            self.model = None


class Tandem(Runtime):
    name = "tandem"

    def __init__(self):
        self._rt = None
        self._abi = None

    def abi_versions(self, ctx):
        """(TANDEM_ABI_VERSION, TANDEM_ABI_VERSION_CPU_ONLY) of runtime.h."""
        if self._abi is None:
            header = os.path.join(ctx.root, "runtime", "include", "tandem",
                                  "runtime.h")
            with open(header) as f:
                text = f.read()
            found = []
            for name in ("TANDEM_ABI_VERSION", "TANDEM_ABI_VERSION_CPU_ONLY"):
                m = re.search(r"#define\s+%s\s+(\d+)" % name, text)
                if not m:
                    raise BenchError("no %s in %s" % (name, header))
                found.append(int(m.group(1)))
            self._abi = tuple(found)
        return self._abi

    def library(self, ctx):
        if self._rt is None:
            path = os.path.join(ctx.build, "lib", "libtandem_runtime.so")
            if not os.path.exists(path):
                raise BenchError("%s is missing: build the target "
                                 "tandem_runtime_shared" % path)
            rt = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
            vp = ctypes.c_void_p
            rt.tandem_model_options_init.argtypes = [vp]
            rt.tandem_model_options_init.restype = None
            rt.tandem_model_create.argtypes = [vp, vp, vp]
            rt.tandem_model_create.restype = vp
            rt.tandem_model_run.argtypes = [vp, vp, vp]
            rt.tandem_model_run.restype = vp
            rt.tandem_model_destroy.argtypes = [vp]
            rt.tandem_model_destroy.restype = None
            rt.tandem_status_message.argtypes = [vp]
            rt.tandem_status_message.restype = ctypes.c_char_p
            rt.tandem_status_free.argtypes = [vp]
            rt.tandem_status_free.restype = None
            self._rt = rt
        return self._rt

    def describe(self, ctx):
        return ("tandem: commit %s, `tandemc --emit=shared --cpu=native`, "
                "timed in-process through the runtime C API "
                "(`tandem_model_run` via ctypes, the call `tandem-run "
                "--bench` times)" % ctx.revision)

    def compile(self, ctx, model):
        onnx_path = model.onnx_path(ctx)
        out = os.path.join(ctx.work, "tandem", model.name + ".so")
        if newer(out, onnx_path, ctx.tandemc):
            return out
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd = [ctx.tandemc, onnx_path, "--emit=shared", "--cpu=native", "-o",
               out + ".tmp.so"] + model.tandemc_flags(ctx)
        ctx.log("compiling: " + " ".join(cmd))
        start = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BenchError("tandemc failed on %s:\n$ %s\n%s" %
                             (model.name, " ".join(cmd),
                              (proc.stdout + proc.stderr)[-3000:]))
        os.replace(out + ".tmp.so", out)
        ctx.log("compiled %s in %.1f s" % (model.name, time.time() - start))
        return out

    def open(self, ctx, model, threads, inputs):
        return TandemSession(self, ctx, self.compile(ctx, model), threads,
                             inputs)


#===--- onnxruntime ------------------------------------------------------===#


class OrtSession(Session):
    def __init__(self, ort, path, threads, inputs):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning",
                                         "0")
        self.session = ort.InferenceSession(
            path, options, providers=["CPUExecutionProvider"])
        self.inputs = [(n, np.ascontiguousarray(a)) for n, a in inputs]
        feeds = dict(self.inputs)
        first = self.session.run(None, feeds)
        # Preallocated outputs bound by pointer: no allocation (and no page
        # faults on fresh memory) inside the timed calls, as for the others.
        self.out_arrays = [np.zeros_like(o) for o in first]
        self.binding = self.session.io_binding()
        for name, array in self.inputs:
            self.binding.bind_cpu_input(name, array)
        for meta, array in zip(self.session.get_outputs(), self.out_arrays):
            self.binding.bind_output(meta.name, "cpu", 0, array.dtype,
                                     list(array.shape), array.ctypes.data)

    def run(self, runs, warmup):
        run, binding = self.session.run_with_iobinding, self.binding
        times = []
        for i in range(warmup + runs):
            start = time.perf_counter_ns()
            run(binding)
            elapsed = _ms_since(start)
            if i >= warmup:
                times.append(elapsed)
        return times

    def outputs(self):
        return self.session.run(None, dict(self.inputs))


class OnnxRuntime(Runtime):
    name = "onnxruntime"

    def _ort(self):
        import onnxruntime
        return onnxruntime

    def describe(self, ctx):
        return ("onnxruntime %s, CPUExecutionProvider, intra_op_num_threads=T, "
                "inter_op_num_threads=1, session.intra_op.allow_spinning=0, "
                "ORT_ENABLE_ALL, outputs bound with IOBinding (in-process)" %
                self._ort().__version__)

    def open(self, ctx, model, threads, inputs):
        return OrtSession(self._ort(), model.onnx_path(ctx), threads, inputs)


#===--- OpenBLAS ---------------------------------------------------------===#


def openblas_env(threads):
    env = {k: v for k, v in os.environ.items()
           if k not in OPENBLAS_ENV_REMOVED}
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    return env


class OpenBlasSession(Session):
    def __init__(self, runtime, ctx, exe, model, threads, inputs):
        self.runtime, self.ctx, self.exe = runtime, ctx, exe
        self.model, self.threads, self.inputs = model, threads, inputs

    def _call(self, runs, warmup, files=()):
        n = self.model.n
        cmd = [self.exe, str(n), str(n), str(n), str(warmup), str(runs)] + \
            list(files)
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              env=openblas_env(self.threads))
        if proc.returncode != 0:
            raise BenchError("sgemm_bench failed:\n$ %s\n%s" %
                             (" ".join(cmd), proc.stderr))
        times = []
        for line in proc.stdout.splitlines():
            key, _, value = line.partition(" ")
            if key == "ms":
                times.append(float(value))
            elif key.startswith("openblas_"):
                self.runtime.info[key] = value
        if self.runtime.info.get("openblas_threads") != str(self.threads):
            raise BenchError("OpenBLAS ran with %s threads, asked for %d" %
                             (self.runtime.info.get("openblas_threads"),
                              self.threads))
        return times

    def run(self, runs, warmup):
        # A fresh process per batch: its first call starts OpenBLAS's
        # threads and buffers, so it always gets at least one warm-up run.
        return self._call(runs, max(warmup, 1))

    def outputs(self):
        d = os.path.join(self.ctx.work, "io")
        os.makedirs(d, exist_ok=True)
        base = os.path.join(d, self.model.name)
        files = []
        for i, (_, array) in enumerate(self.inputs):
            path = "%s.in%d.f32" % (base, i)
            np.ascontiguousarray(array, np.float32).tofile(path)
            files.append(path)
        files.append(base + ".openblas.out.f32")
        self._call(1, 0, files)
        n = self.model.n
        return [np.fromfile(files[-1], np.float32).reshape(n, n)]


class OpenBlas(Runtime):
    name = "openblas"

    def __init__(self):
        self.info = {}

    def supports(self, model):
        return model.kind == "matmul"

    def describe(self, ctx):
        return ("openblas: Debian libopenblas (pthread), `cblas_sgemm` "
                "row-major NoTrans/NoTrans timed by bench/native/"
                "sgemm_bench.c (a fresh process per batch), "
                "OPENBLAS_NUM_THREADS=T, %s unset for it only; %s, "
                "core %s" % ("/".join(OPENBLAS_ENV_REMOVED[:2]),
                             self.info.get("openblas_config", "?"),
                             self.info.get("openblas_corename", "?")))

    def open(self, ctx, model, threads, inputs):
        return OpenBlasSession(self, ctx, native.build_sgemm(ctx), model,
                               threads, inputs)


# The registry. Keys are the names --runtimes accepts.
RUNTIMES = {r.name: r for r in [Tandem(), OnnxRuntime(), OpenBlas()]}
