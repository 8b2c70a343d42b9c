"""The runtime registry: who runs the models.

A Runtime says which models it supports and opens a Session for one
(model, thread count, inputs). A Session times batches of runs and returns
its outputs for the agreement check. Every timing is one call's wall time
in milliseconds (time.perf_counter_ns around the call, or clock_gettime in
the C helpers); the harness interleaves the sessions' batches.

Add a runtime by subclassing Runtime and adding it to RUNTIMES. XLA (jax),
IREE and TVM run in a worker process each (peer_worker.py), pinned to the
thread count's CPUs.
"""
import json
import os
import re
import subprocess
import sys
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


# Runs the command given after the file name and writes its peak RSS (KiB)
# there. A child forked from the harness itself would report the harness's
# own peak RSS as its floor (Linux keeps the largest RSS across fork and
# exec in ru_maxrss), so the command is started from this small process.
_RSS_HELPER = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.call(sys.argv[2:])\n"
    "with open(sys.argv[1], 'w') as f:\n"
    "    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN)"
    ".ru_maxrss))\n"
    "sys.exit(rc if rc >= 0 else 128 - rc)\n")


def run_measured(cmd, env=None):
    """Runs CMD; returns (exit status, stdout+stderr, wall seconds, the
    command's peak RSS in KiB, or None if unknown)."""
    import sys
    import tempfile
    fd, rss_path = tempfile.mkstemp(prefix="tandem-bench-rss-")
    os.close(fd)
    try:
        start = time.time()
        proc = subprocess.run([sys.executable, "-c", _RSS_HELPER, rss_path]
                              + list(cmd), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env)
        seconds = time.time() - start
        try:
            with open(rss_path) as f:
                max_rss_kb = int(f.read())
        except ValueError:
            max_rss_kb = None
    finally:
        os.remove(rss_path)
    return proc.returncode, proc.stdout.decode(errors="replace"), seconds, \
        max_rss_kb


class PeerUnavailable(BenchError):
    """A peer runtime cannot run a model (its compiler failed, an op is not
    supported): reported in the table's row, not fatal."""


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


def _tandem_package(ctx):
    """The tandem Python package of this checkout (python/), running models
    with the runtime library of ctx.build (which may be another checkout's
    build directory)."""
    lib = os.path.join(ctx.build, "lib", "libtandem_runtime.so")
    if not os.path.exists(lib):
        raise BenchError("%s is missing: build the target "
                         "tandem_runtime_shared" % lib)
    os.environ.setdefault("TANDEM_RUNTIME_LIBRARY", lib)
    pkg = os.path.join(ctx.root, "python")
    if pkg not in sys.path:
        sys.path.insert(0, pkg)
    import tandem
    loaded = tandem.runtime_library()
    if os.path.realpath(loaded) != os.path.realpath(lib):
        raise BenchError("the tandem package runs %s, not %s (unset "
                         "TANDEM_RUNTIME_LIBRARY?)" % (loaded, lib))
    return tandem


class TandemSession(Session):
    """A tandem.Model on fixed buffers (Model.bind): each timed call is one
    tandem_model_run through ctypes, as `tandem-run --bench` times it."""

    def __init__(self, runtime, ctx, so_path, threads, inputs):
        tandem = _tandem_package(ctx)
        self.so_path, self.threads, self.inputs = so_path, threads, inputs
        self.model = None
        try:
            model = tandem.load(so_path, threads=threads)
        except tandem.TandemError as e:
            raise BenchError("%s: %s" % (so_path, e))
        self.model = model
        if len(model.inputs) != len(inputs):
            raise BenchError("%s: %d inputs, the harness made %d" %
                             (so_path, len(model.inputs), len(inputs)))
        arrays = []
        for i, ((name, array), spec) in enumerate(zip(inputs, model.inputs)):
            if spec.dtype_name != "f32" or spec.shape != array.shape:
                raise BenchError("%s: input %d ('%s') is %s[%s], the harness "
                                 "made %s" % (so_path, i, spec.name,
                                              spec.dtype_name, spec.shape,
                                              array.shape))
            arrays.append(np.ascontiguousarray(array, np.float32))
        for i, spec in enumerate(model.outputs):
            if spec.dtype_name != "f32":
                raise BenchError("%s: output %d is not f32" % (so_path, i))
        # Touch the output pages now, not in the first timed run.
        outs = [np.zeros(s.shape, np.float32) for s in model.outputs]
        try:
            self.bound = model.bind(arrays, out=outs)
        except tandem.TandemError as e:
            raise BenchError("%s: %s" % (so_path, e))
        self.ran = False

    def run(self, runs, warmup):
        run = self.bound
        times = []
        self.ran = True
        for i in range(warmup + runs):
            start = time.perf_counter_ns()
            run()
            elapsed = _ms_since(start)
            if i >= warmup:
                times.append(elapsed)
        return times

    def outputs(self):
        """The outputs of the last run of this session (the code that is
        timed); runs once if it has not run yet."""
        if not self.ran:
            self.run(1, 0)
        return [a.copy() for a in self.bound.outputs]

    def close(self):
        if self.model is not None:
            self.model.close()
            self.model = None


class Tandem(Runtime):
    name = "tandem"

    def describe(self, ctx):
        return ("tandem: %s, `tandemc --emit=shared --cpu=native`, "
                "timed in-process through the runtime C API "
                "(`tandem_model_run` via the tandem Python package, "
                "Model.bind on fixed buffers; the call `tandem-run "
                "--bench` times)" % self.provenance(ctx))

    def provenance(self, ctx):
        """Which sources the measured tandemc was built from: this
        checkout's commit, or, when --build points at another checkout's
        build directory, that checkout and when tandemc was built."""
        src = None
        try:
            with open(os.path.join(ctx.build, "CMakeCache.txt")) as f:
                for line in f:
                    if line.startswith("CMAKE_HOME_DIRECTORY:"):
                        src = line.split("=", 1)[1].strip()
        except OSError:
            pass
        if not src or os.path.realpath(src) == os.path.realpath(ctx.root):
            return "commit %s" % ctx.revision
        head = subprocess.run(["git", "-C", src, "log", "-1",
                               "--format=%h %cI"], capture_output=True,
                              text=True).stdout.strip() or "?"
        built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(
            os.path.getmtime(ctx.tandemc))) if os.path.exists(
                ctx.tandemc) else "?"
        return ("tandemc and runtime from %s, built from %s (whose HEAD at "
                "report time is %s; tandemc built %s), not from this "
                "checkout (%s)" % (ctx.build, src, head, built,
                                   ctx.revision))

    def compile(self, ctx, model):
        onnx_path = model.onnx_path(ctx)
        out = os.path.join(ctx.work, "tandem", model.name + ".so")
        if newer(out, onnx_path, ctx.tandemc):
            return out
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd = [ctx.tandemc, onnx_path, "--emit=shared", "--cpu=native", "-o",
               out + ".tmp.so"] + model.tandemc_flags(ctx)
        ctx.log("compiling: " + " ".join(cmd))
        returncode, output, seconds, max_rss_kb = run_measured(cmd)
        if returncode != 0:
            raise BenchError("tandemc failed on %s:\n$ %s\n%s" %
                             (model.name, " ".join(cmd), output[-3000:]))
        os.replace(out + ".tmp.so", out)
        # Kept next to the library: a later run that reuses it still
        # reports how it was made.
        with open(out + ".stats.json", "w") as f:
            json.dump({"compile_s": seconds, "max_rss_kb": max_rss_kb,
                       "command": cmd}, f)
        ctx.log("compiled %s in %.1f s, peak RSS %s KiB" % (
            model.name, seconds, max_rss_kb))
        return out

    def stats(self, ctx, model):
        """Compile time and peak RSS of the tandemc run that made the
        model's library, the library's size, and the arena and weight
        bytes from its model descriptor."""
        so = self.compile(ctx, model)
        st = {"so_bytes": os.path.getsize(so)}
        try:
            with open(so + ".stats.json") as f:
                st.update(json.load(f))
        except (OSError, ValueError):
            pass
        info = _tandem_package(ctx).inspect(so)
        st["arena_bytes"] = info.arena_bytes
        st["weight_bytes"] = info.weight_bytes
        return st

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


#===--- XLA (jax.jit), IREE and TVM: a worker process each ---------------===#


def _have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


class WorkerSession(Session):
    """A peer_worker.py child that holds the model and times calls itself.
    It pins itself to THREADS CPUs before its runtime starts (see
    peer_worker.py); the harness records its CPU-time / wall-time ratio
    over the timed runs, which shows how many cores it kept busy."""

    def __init__(self, runtime, ctx, model, threads, inputs, target,
                 extra=()):
        self.runtime, self.model, self.threads = runtime, model, threads
        d = os.path.join(ctx.work, "io")
        os.makedirs(d, exist_ok=True)
        base = os.path.join(d, "%s.%s.T%d" % (model.name, runtime.name,
                                              threads))
        self.inputs_path = base + ".in.npz"
        self.outputs_path = base + ".out.npz"
        if runtime.name in ("iree", "tvm"):  # positional
            arrays = {"in%d" % i: a for i, (_, a) in enumerate(inputs)}
        else:
            arrays = dict(inputs)
        np.savez(self.inputs_path, **arrays)
        self.log_path = base + ".log"
        cmd = [runtime.python(ctx), os.path.join(ctx.root, "bench",
                                                 "harness", "peer_worker.py"),
               runtime.name, target, str(threads), self.inputs_path] + \
            list(extra)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, bufsize=1)
        self.cpu_ms = self.wall_ms = 0.0
        self.max_threads = 0
        info = json.loads(self._expect("ready"))
        runtime.info.setdefault(threads, {}).update(info)
        if "compile_s" in info:
            runtime.compile_s.setdefault(model.name, info["compile_s"])

    def _expect(self, word):
        line = self.proc.stdout.readline()
        if not line.startswith(word):
            self.close()
            with open(self.log_path) as f:
                tail = f.read()[-1500:]
            message = line.strip() or "worker exited"
            raise PeerUnavailable("%s on %s: %s\n%s" % (
                self.runtime.name, self.model.name, message, tail))
        return line[len(word):].strip()

    def _send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except OSError:
            pass  # it died: _expect reports its log

    def run(self, runs, warmup):
        self._send("run %d %d" % (runs, warmup))
        r = json.loads(self._expect("times"))
        self.cpu_ms += r["cpu_ms"]
        self.wall_ms += r["wall_ms"]
        self.max_threads = max(self.max_threads, r["threads"])
        st = self.runtime.load.setdefault((self.model.name, self.threads),
                                          [0.0, 0.0])
        st[0] += r["cpu_ms"]
        st[1] += r["wall_ms"]
        return r["times"]

    def outputs(self):
        self._send("outputs %s" % self.outputs_path)
        self._expect("saved")
        with np.load(self.outputs_path) as z:
            return [z["out%d" % i] for i in range(len(z.files))]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class PeerRuntime(Runtime):
    module = None

    def __init__(self):
        self.info = {}   # threads -> the worker's ready line
        self.load = {}   # (model, threads) -> [cpu ms, wall ms]
        self.failures = {}  # model -> message
        self.compile_s = {}  # model -> seconds (XLA: jit compile)

    def python(self, ctx):
        import sys
        return sys.executable

    def available(self):
        return _have(self.module)

    def thread_check(self):
        """'T threads: cpu/wall X' per thread count, from the timed runs."""
        per = {}
        for (model, t), (cpu, wall) in self.load.items():
            c, w = per.get(t, (0.0, 0.0))
            per[t] = (c + cpu, w + wall)
        return ", ".join("%.2f at %d thread%s" % (
            c / w if w else 0.0, t, "" if t == 1 else "s")
            for t, (c, w) in sorted(per.items()))


class Xla(PeerRuntime):
    """jax.jit of the model translated by onnx_to_jax.py, XLA's CPU
    backend, in a peer_worker.py child pinned to T CPUs."""
    name = "xla"
    module = "jax"

    def describe(self, ctx):
        import jax
        flags = "; ".join("T=%d: XLA_FLAGS='%s', CPUs %s" % (
            t, i.get("xla_flags", ""), i.get("cpus")) for t, i in
            sorted(self.info.items()))
        return ("xla: jax %s (jaxlib XLA CPU), the ONNX graph translated "
                "by bench/harness/onnx_to_jax.py (weights passed as "
                "arguments), `jax.jit(...).lower(...).compile()`, timed "
                "around the call + block_until_ready in a worker process "
                "pinned to T CPUs with sched_setaffinity before jax "
                "starts; %s; process "
                "CPU time / wall time over the timed runs: %s" % (
                    jax.__version__, flags or "-", self.thread_check()
                    or "-"))

    def open(self, ctx, model, threads, inputs):
        return WorkerSession(self, ctx, model, threads, inputs,
                             model.onnx_path(ctx))



IREE_COMPILE_FLAGS = ["--iree-hal-target-device=local",
                      "--iree-hal-local-target-device-backends=llvm-cpu",
                      "--iree-llvmcpu-target-cpu=host"]


class Iree(PeerRuntime):
    """iree-import-onnx + iree-compile (llvm-cpu, host CPU), run with the
    local-task driver in a peer_worker.py child pinned to T CPUs,
    --task_topology_group_count=T."""
    name = "iree"
    module = "iree.runtime"

    def __init__(self):
        super().__init__()
        self.compiled = {}  # model -> (vmfb, function, seconds)

    def _tool(self, name):
        """The command line of the venv's console script NAME, run by the
        venv's Python: a venv that was moved or copied keeps its old path
        in the scripts' #! lines."""
        import sys
        return [sys.executable,
                os.path.join(os.path.dirname(sys.executable), name)]

    def describe(self, ctx):
        try:
            from importlib.metadata import version
            v = "iree-base-compiler %s, iree-base-runtime %s" % (
                version("iree-base-compiler"), version("iree-base-runtime"))
        except Exception:  # metadata missing: still describe the setup
            v = "iree"
        return ("iree: %s; the ONNX model with its input shapes made "
                "static and upgraded to opset 17 (onnx.version_converter) "
                "if older, `iree-import-onnx`, `iree-compile %s`; run "
                "through iree.runtime, local-task driver, "
                "--task_topology_group_count=T, in a worker process pinned "
                "to T CPUs; inputs placed on the device once, each call "
                "timed until its outputs are on the host; process CPU "
                "time / wall time over the timed runs: %s" % (
                    v, " ".join(IREE_COMPILE_FLAGS),
                    self.thread_check() or "-"))

    def prepare(self, ctx, model):
        """Compiles MODEL once (cached in WORK/iree); a failure is kept and
        reported in the model's row."""
        if model.name in self.compiled or model.name in self.failures:
            return
        try:
            self.compiled[model.name] = self._compile(ctx, model)
        except PeerUnavailable as e:
            self.failures[model.name] = str(e)
            ctx.log("iree: %s" % e)

    def _compile(self, ctx, model):
        import onnx
        from onnx import version_converter
        d = os.path.join(ctx.work, "iree")
        os.makedirs(d, exist_ok=True)
        base = os.path.join(d, model.name)
        src = model.onnx_path(ctx)
        vmfb = base + ".vmfb"
        meta = base + ".json"
        if newer(vmfb, src) and newer(meta, src):
            with open(meta) as f:
                m = json.load(f)
            return vmfb, m["function"], m["compile_s"]
        start = time.time()
        # Static input shapes (the torch exports have a dynamic batch).
        m = onnx.load(src)
        shapes = dict((n, s) for n, s, _ in model.input_specs(ctx))
        for vi in m.graph.input:
            if vi.name in shapes:
                for dim, v in zip(vi.type.tensor_type.shape.dim,
                                  shapes[vi.name]):
                    dim.ClearField("dim_param")
                    dim.dim_value = v
        for vi in m.graph.output:
            for dim in vi.type.tensor_type.shape.dim:
                dim.ClearField("dim_param")
                dim.ClearField("dim_value")
        del m.graph.value_info[:]
        opset = next((o.version for o in m.opset_import
                      if o.domain in ("", "ai.onnx")), 0)
        try:
            if opset < 17:
                m = version_converter.convert_version(m, 17)
            m = onnx.shape_inference.infer_shapes(m)
            onnx.save(m, base + ".onnx")
        except Exception as e:  # the converter raises several kinds
            raise PeerUnavailable("opset upgrade failed: %s" % e)
        steps = [
            ("iree-import-onnx", self._tool("iree-import-onnx") +
             [base + ".onnx", "-o", base + ".mlir"]),
            ("iree-compile", self._tool("iree-compile") + [base + ".mlir"] +
             IREE_COMPILE_FLAGS + ["-o", vmfb + ".tmp"]),
        ]
        for what, cmd in steps:
            ctx.log("iree: " + " ".join(cmd))
            rc, out, _, _ = run_measured(cmd)
            if rc != 0:
                lines = [ln for ln in out.splitlines() if "error" in ln]
                raise PeerUnavailable("%s failed (exit %d): %s" % (
                    what, rc, (lines[0] if lines else out[-300:]).strip()))
        seconds = time.time() - start
        function = None
        with open(base + ".mlir") as f:
            for line in f:
                mm = re.search(r"func\.func @([\w$.-]+)\(", line)
                if mm:
                    function = mm.group(1)
                    break
        if not function:
            raise PeerUnavailable("no function in %s.mlir" % base)
        os.replace(vmfb + ".tmp", vmfb)
        for tmp in (base + ".mlir", base + ".onnx"):
            os.remove(tmp)  # large (weights inline); the .vmfb has them
        with open(meta, "w") as f:
            json.dump({"function": function, "compile_s": seconds}, f)
        return vmfb, function, seconds

    def compile_seconds(self, model_name):
        c = self.compiled.get(model_name)
        return c[2] if c else None

    def open(self, ctx, model, threads, inputs):
        self.prepare(ctx, model)
        if model.name in self.failures:
            raise PeerUnavailable(self.failures[model.name])
        vmfb, function, _ = self.compiled[model.name]
        return WorkerSession(self, ctx, model, threads, inputs, vmfb,
                             ["--function", function])


#===--- TVM (Relax, untuned) ---------------------------------------------===#


def _host_key():
    """The CPU's model name and flags: a TVM library compiled for another
    host CPU (the machine changes between sessions) is rebuilt."""
    import hashlib
    name = flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and not name:
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "%s %s" % (name, hashlib.sha1(flags.encode()).hexdigest()[:12])


class Tvm(PeerRuntime):
    """Apache TVM: the ONNX model imported into Relax
    (tvm.relax.frontend.onnx.from_onnx) and compiled untuned for the host
    CPU by tvm_build.py (a process of its own, cached in WORK/tvm), run by
    a relax.VirtualMachine in a peer_worker.py child pinned to T CPUs with
    TVM_NUM_THREADS=T."""
    name = "tvm"
    module = "tvm"

    def __init__(self):
        super().__init__()
        self.compiled = {}  # model -> (library, meta)

    def available(self):
        # Importing tvm loads its compiler and LLVM into the harness's
        # process; finding the package is enough here.
        import importlib.util
        return importlib.util.find_spec("tvm") is not None

    def describe(self, ctx):
        try:
            from importlib.metadata import version
            v = "apache-tvm %s" % version("apache-tvm")
        except Exception:  # metadata missing: still describe the setup
            v = "apache-tvm"
        targets = sorted({m.get("target", "?")
                          for _, m in self.compiled.values()})
        pipelines = sorted({m.get("pipeline", "?")
                            for _, m in self.compiled.values()})
        return ("tvm: %s, untuned; the ONNX model at static input shapes "
                "through `tvm.relax.frontend.onnx.from_onnx`, "
                "`tvm.compile` for target %s with %s (bench/harness/"
                "tvm_build.py), exported as a shared library; run by "
                "`relax.VirtualMachine` on tvm.cpu() in a worker process "
                "pinned to T CPUs, TVM_NUM_THREADS=T; inputs placed once, "
                "each call timed until it returns its outputs; process CPU "
                "time / wall time over the timed runs: %s" % (
                    v, ", ".join(targets) or "{kind: llvm, mcpu: <host>}",
                    "; ".join(pipelines) or "the default CPU pipeline",
                    self.thread_check() or "-"))

    def prepare(self, ctx, model):
        """Compiles MODEL once (cached in WORK/tvm, rebuilt for another
        model file, tvm_build.py, TVM version or host CPU); a failure is
        kept and reported in the model's row."""
        if model.name in self.compiled or model.name in self.failures:
            return
        try:
            self.compiled[model.name] = self._compile(ctx, model)
        except PeerUnavailable as e:
            self.failures[model.name] = str(e)
            ctx.log("tvm: %s" % e)

    def _compile(self, ctx, model):
        d = os.path.join(ctx.work, "tvm")
        os.makedirs(d, exist_ok=True)
        lib = os.path.join(d, model.name + ".so")
        meta_path = os.path.join(d, model.name + ".json")
        src = model.onnx_path(ctx)
        builder = os.path.join(ctx.root, "bench", "harness", "tvm_build.py")
        host = _host_key()
        try:
            from importlib.metadata import version
            installed = version("apache-tvm")
        except Exception:  # metadata missing: rebuild every time
            installed = None
        if newer(lib, src, builder) and newer(meta_path, src, builder):
            try:
                with open(meta_path) as f:
                    meta = json.load(f)
                if meta.get("host") == host and installed and \
                        meta.get("tvm") == installed:
                    return lib, meta
            except (OSError, ValueError):
                pass
        shapes = ["%s=%s" % (n, "x".join(str(v) for v in s))
                  for n, s, _ in model.input_specs(ctx)]
        cmd = [self.python(ctx), builder, src, lib] + shapes
        ctx.log("tvm: " + " ".join(cmd))
        rc, out, seconds, max_rss_kb = run_measured(cmd)
        if rc != 0:
            lines = [ln for ln in out.splitlines() if ln.startswith("error ")]
            raise PeerUnavailable("tvm_build.py failed (exit %d): %s" % (
                rc, (lines[-1][len("error "):] if lines
                     else out[-300:]).strip()))
        with open(meta_path) as f:
            meta = json.load(f)
        meta.update(host=host, build_s=seconds, max_rss_kb=max_rss_kb)
        with open(meta_path, "w") as f:
            json.dump(meta, f)
        ctx.log("tvm: compiled %s in %.1f s" % (model.name, seconds))
        return lib, meta

    def compile_seconds(self, model_name):
        c = self.compiled.get(model_name)
        return c[1].get("compile_s") if c else None

    def open(self, ctx, model, threads, inputs):
        self.prepare(ctx, model)
        if model.name in self.failures:
            raise PeerUnavailable(self.failures[model.name])
        lib, _ = self.compiled[model.name]
        return WorkerSession(self, ctx, model, threads, inputs, lib)


#===--- OpenVINO ---------------------------------------------------------===#


class OpenVinoSession(Session):
    def __init__(self, ov, path, threads, inputs, shapes):
        core = ov.Core()
        model = core.read_model(path)
        # Static input shapes (the torch exports have a dynamic batch).
        model.reshape({name: ov.PartialShape(list(shape))
                       for name, shape in shapes.items()})
        config = {"INFERENCE_NUM_THREADS": threads,
                  "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1,
                  "INFERENCE_PRECISION_HINT": "f32"}
        self.compiled = core.compile_model(model, "CPU", config)
        self.request = self.compiled.create_infer_request()
        self.inputs = [(n, np.ascontiguousarray(a)) for n, a in inputs]
        # Inputs as tensors sharing the arrays' memory: no copy per run.
        for name, array in self.inputs:
            self.request.set_tensor(name, ov.Tensor(array, shared_memory=True))
        self.request.infer()

    def run(self, runs, warmup):
        infer = self.request.infer
        times = []
        for i in range(warmup + runs):
            start = time.perf_counter_ns()
            infer()
            elapsed = _ms_since(start)
            if i >= warmup:
                times.append(elapsed)
        return times

    def outputs(self):
        self.request.infer()
        return [np.array(self.request.get_output_tensor(i).data)
                for i in range(len(self.compiled.outputs))]


class OpenVino(PeerRuntime):
    """OpenVINO's CPU plugin, in process like onnxruntime."""
    name = "openvino"
    module = "openvino"

    def _ov(self):
        import openvino
        return openvino

    def describe(self, ctx):
        return ("OpenVINO %s, CPU plugin, INFERENCE_NUM_THREADS=T, "
                "PERFORMANCE_HINT=LATENCY, NUM_STREAMS=1, "
                "INFERENCE_PRECISION_HINT=f32, inputs as shared tensors "
                "(in-process)" % self._ov().__version__)

    def open(self, ctx, model, threads, inputs):
        shapes = dict((n, s) for n, s, _ in model.input_specs(ctx))
        try:
            return OpenVinoSession(self._ov(), model.onnx_path(ctx), threads,
                                   inputs, shapes)
        except RuntimeError as e:  # OpenVINO's conversion/compile errors
            raise PeerUnavailable("openvino: %s" % str(e).splitlines()[0])


# The registry. Keys are the names --runtimes accepts.
RUNTIMES = {r.name: r for r in [Tandem(), OnnxRuntime(), OpenVino(),
                                OpenBlas(), Xla(), Iree(), Tvm()]}

