#!/usr/bin/env python3
"""Benchmarks Tandem's GPU peers on the models scripts/gpu-check stages:
PyTorch eager, torch.compile, JAX/XLA and onnxruntime (CUDA execution
provider, where present), each at fp32, tf32 and bf16 (docs/GPU.md, "Real
GPU check").

usage: gpu_peers.py [--device cuda|cpu] [--models NAME:BATCH,...]
                    [--models-dir DIR] [--peers eager,compile,jax,ort]
                    [--order peer|model]
                    [--precisions fp32,tf32,bf16] [--runs N] [--warmup W]
                    [--max-measure-s S] [--budget-s S] [--cell-timeout-s S]
                    [--compile-mode MODE] [--python PY] [--torch-python PY]
                    [--jax-python PY] [--ort-python PY] [--out FILE]
       gpu_peers.py strip IN.onnx OUT.onnx

Each (peer, model, batch) is a *cell* that runs in a child process of its
own (this script with `worker`), under a timeout: a hang or a crash costs
that cell's rows, never the table. A cell measures every precision in turn
and writes one JSON line per precision as soon as it has it, so a cell
stopped half-way keeps what it measured. The cells run one after the other
(one GPU): eager, JAX and onnxruntime on each model in --models order
first, torch.compile (the slowest to set up) last, or with --order model
every peer on the first model, then the next; whatever does not fit in
--budget-s is reported as "skipped (budget)". A failure is a row with the
error's first line.

The models:
- torch (eager, compile): the constructors of
  test/models/generate_torch_models.py (torchvision's resnet50 and
  mobilenet_v2 with random weights, the Transformer layer, the MLP,
  Conv+BN+ReLU) and bench/harness/export_torch.py (bert_base_layer),
  imported, in eval mode, at the input shapes of those scripts with the
  batch replaced;
- jax, onnxruntime: DIR/NAME.onnx (and DIR/NAME.shape when there, the
  tandemc --input-shape flags). scripts/gpu-check stages *stripped* ONNX
  files (`gpu_peers.py strip`): the graph with every large float
  initializer replaced by its shape, mean and standard deviation, so the
  archive does not carry the weights a second time; the worker draws them
  again (normal, same mean and std, seeded). A full ONNX file works as is.

Precisions (on --device cuda):
- fp32: torch.backends.cuda.matmul.allow_tf32 = cudnn.allow_tf32 = False;
  jax.default_matmul_precision("float32"); onnxruntime use_tf32=0.
- tf32: both torch flags True; jax "tensorfloat32"; onnxruntime use_tf32=1.
- bf16: torch.autocast("cuda", dtype=torch.bfloat16) with fp32 weights
  (matmuls and convolutions in bf16, their outputs bf16, softmax and
  normalisations in f32); jax "bfloat16": f32 tensors, dots and
  convolutions at XLA's fastest operand precision (Precision.DEFAULT; on
  NVIDIA GPUs XLA may compute f32 operands at DEFAULT as TF32), which is
  the semantics of tandemc --gpu-precision; onnxruntime: n/a (it runs the
  fp32 graph).
On --device cpu (for the tests: torch on the CPU, jax's CPU backend,
onnxruntime's CPU provider) fp32 and bf16 run (torch.autocast("cpu")),
tf32 is "n/a on cpu".

Timing: W warm-up calls, then up to N timed calls (fewer once they add up
to --max-measure-s, at least 3), each synchronised (torch.cuda.synchronize,
block_until_ready, onnxruntime's synchronous run); inputs (and weights) are
put on the device once. torch.compile's and jax.jit's compile times are
measured separately (the first call, resp. lower().compile()) and are not
in the latencies. The table gives the median and minimum in ms and
items/s = batch / median.

Only the standard library is imported here; each worker imports its
runtime lazily, so the script runs with numpy 1.x / torch 1.13 (Debian)
and numpy 2.x / torch 2.x alike.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PEERS = ["eager", "compile", "jax", "ort"]
PRECISIONS = ["fp32", "tf32", "bf16"]
# The order cells run in: the cheap peers for every model first, so that a
# tight budget loses torch.compile cells (tens of seconds each) first.
RUN_ORDER = ["eager", "jax", "ort", "compile"]
DEFAULT_MODELS = ("resnet50:1,resnet50:32,bert_base_layer:1,"
                  "transformer_encoder:1,mobilenet_v2:1")
JAX_PRECISION = {"fp32": "float32", "tf32": "tensorfloat32",
                 "bf16": "bfloat16"}
# The location `strip` writes into a stripped initializer's external data.
STRIPPED = "stripped-by-gpu_peers.py"
# Float initializers with at least this many elements are stripped (the
# ones onnx_to_jax passes as parameters start above 64; small constants
# stay, they may feed shape computations).
STRIP_MIN_ELEMENTS = 256


def peer_label(peer, device):
    return {"eager": "torch eager", "compile": "torch.compile",
            "jax": "jax/xla",
            "ort": "onnxruntime-gpu" if device == "cuda"
            else "onnxruntime"}[peer]


def first_line(text):
    for line in str(text).strip().splitlines():
        if line.strip():
            return line.strip()[:200]
    return str(text).strip()[:200] or "(no message)"


def error_text(e):
    """An exception as a row's error: its type and first line."""
    return "%s: %s" % (type(e).__name__, first_line(e))


class Stopped(Exception):
    """SIGTERM (scripts/gpu-check's timeout) or SIGINT: write the table
    with what was measured."""


def log(msg):
    print("[gpu-peers] " + msg, file=sys.stderr, flush=True)


#===--- the worker: one peer, one model, every precision -----------------===#


class Emitter:
    """Appends one JSON object a line to the result file."""

    def __init__(self, path):
        self.path = path

    def __call__(self, obj):
        with open(self.path, "a") as f:
            f.write(json.dumps(obj) + "\n")


def measure(step, batch, warmup, runs, max_s):
    """step() runs one synchronised call. Returns the row's numbers."""
    for _ in range(warmup):
        step()
    times = []
    spent = 0.0
    for _ in range(runs):
        t0 = time.perf_counter()
        step()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
        if spent > max_s and len(times) >= 3:
            break
    times.sort()
    median = times[len(times) // 2] if len(times) % 2 else \
        (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
    return {"median_ms": median * 1e3, "min_ms": times[0] * 1e3,
            "items_s": batch / median if median > 0 else None,
            "runs": len(times), "warmup": warmup}


def read_shape_file(models_dir, name):
    """{input: [dims]} from NAME.shape (tandemc --input-shape flags)."""
    path = os.path.join(models_dir, name + ".shape")
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        words = f.read().split()
    for i, w in enumerate(words):
        spec = None
        if w == "--input-shape" and i + 1 < len(words):
            spec = words[i + 1]
        elif w.startswith("--input-shape="):
            spec = w.split("=", 1)[1]
        if spec and "=" in spec:
            k, dims = spec.rsplit("=", 1)
            out[k] = [int(d) for d in dims.split("x")]
    return out


def load_onnx(models_dir, name):
    """The ONNX model NAME with stripped initializers drawn again, and its
    input specs [(name, dims without batch, numpy dtype)]."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    path = os.path.join(models_dir, name + ".onnx")
    if not os.path.exists(path):
        raise RuntimeError("no %s" % path)
    model = onnx.load(path, load_external_data=False)
    rng = np.random.default_rng(0)
    drawn = 0
    for init in model.graph.initializer:
        if init.data_location != onnx.TensorProto.EXTERNAL:
            continue
        meta = {e.key: e.value for e in init.external_data}
        if meta.get("location") != STRIPPED:
            raise RuntimeError("%s: initializer %s has external data (%s); "
                               "not supported" % (path, init.name,
                                                  meta.get("location")))
        dtype = np_dtype(init.data_type)
        dims = tuple(init.dims)
        arr = rng.standard_normal(dims, dtype=np.float32)
        arr = (arr * float(meta["std"]) + float(meta["mean"])).astype(dtype)
        init.CopyFrom(numpy_helper.from_array(arr, init.name))
        drawn += 1
    inits = {i.name for i in model.graph.initializer}
    shapes = read_shape_file(models_dir, name)
    specs = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        if vi.name in shapes:
            dims = shapes[vi.name]
        else:
            dims = [d.dim_value if d.HasField("dim_value") else 1
                    for d in tt.shape.dim]
        specs.append((vi.name, list(dims[1:]), np_dtype(tt.elem_type)))
    return model, specs, drawn


def np_dtype(onnx_type):
    import numpy as np
    table = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16,
             6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
             11: np.float64}
    if onnx_type not in table:
        raise RuntimeError("ONNX element type %d not supported" % onnx_type)
    return table[onnx_type]


def numpy_inputs(specs, batch):
    import numpy as np
    rng = np.random.default_rng(1)
    out = []
    for name, dims, dtype in specs:
        shape = [batch] + list(dims)
        if dtype == np.bool_:
            x = np.zeros(shape, np.bool_)
            x[..., -8:] = True
        elif np.issubdtype(dtype, np.floating):
            x = rng.uniform(-1.0, 1.0, shape).astype(dtype)
        else:
            x = np.zeros(shape, dtype)
        out.append((name, x))
    return out


def torch_registry():
    """{name: (constructor, input shapes, input dtypes)} from
    test/models/generate_torch_models.py and bench/harness/export_torch.py,
    imported (not copied)."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "harness"))
    import export_torch  # puts test/models on sys.path
    gen = export_torch.gen
    reg = dict(gen.MODELS)
    reg.update(export_torch.BENCH_MODELS)
    return {k: (v[0], v[1], v[2]) for k, v in reg.items()}


def worker_torch(a, emit):
    import contextlib
    import torch
    dev = a.device
    info = {"torch": torch.__version__}
    if dev == "cuda":
        info["torch_cuda"] = torch.version.cuda
        if not torch.cuda.is_available():
            emit({"info": info})
            raise RuntimeError("torch %s: CUDA not available (built for CUDA "
                               "%s)" % (torch.__version__, torch.version.cuda))
        info["cudnn"] = torch.backends.cudnn.version()
        info["gpu"] = torch.cuda.get_device_name(0)
    emit({"info": info})
    compiled = a.peer == "compile"
    if compiled and not hasattr(torch, "compile"):
        for p in a.precisions:
            emit({"precision": p, "status": "not available (torch %s has no "
                  "torch.compile)" % torch.__version__})
        return
    reg = torch_registry()
    if a.model not in reg:
        raise RuntimeError("no torch definition of %s" % a.model)
    ctor, shapes, dtypes = reg[a.model]
    torch.manual_seed(0)
    model = ctor().eval().to(dev)
    gen = torch.Generator().manual_seed(1)
    xs = []
    for shape, dtype in zip(shapes, dtypes or [torch.float32] * len(shapes)):
        shape = (a.batch,) + tuple(shape[1:])
        if dtype == torch.bool:
            t = torch.zeros(shape, dtype=torch.bool)
            t[..., -8:] = True
        else:
            t = torch.rand(shape, generator=gen, dtype=dtype) * 2 - 1
        xs.append(t.to(dev))
    if dev == "cuda":
        torch.backends.cudnn.benchmark = True
        sync = torch.cuda.synchronize
    else:
        def sync():
            pass
    for p in a.precisions:
        if p == "tf32" and dev == "cpu":
            emit({"precision": p, "status": "n/a on cpu"})
            continue
        try:
            notes = []
            if dev == "cuda":
                torch.backends.cuda.matmul.allow_tf32 = p == "tf32"
                torch.backends.cudnn.allow_tf32 = p == "tf32"
            if p == "bf16":
                def ctx():
                    return torch.autocast(dev, dtype=torch.bfloat16)
                notes.append("autocast bf16")
            else:
                ctx = contextlib.nullcontext
            if dev == "cuda":
                notes.append("allow_tf32=%s" % (p == "tf32"))
                notes.append("cudnn.benchmark")
            with torch.inference_mode():
                fn = model
                if compiled:
                    if a.compile_mode == "default":
                        fn = torch.compile(model)
                    else:
                        fn = torch.compile(model, mode=a.compile_mode)

                def step():
                    with ctx():
                        fn(*xs)
                    sync()
                if compiled:
                    t0 = time.perf_counter()
                    step()
                    notes.append("compile+first call %.1f s (mode %s)" % (
                        time.perf_counter() - t0, a.compile_mode))
                row = measure(step, a.batch, a.warmup, a.runs,
                              a.max_measure_s)
            row.update({"precision": p, "notes": notes})
            emit(row)
        except Exception as e:  # noqa: BLE001: a row, not a crash
            emit({"precision": p, "error": error_text(e)})


class _PrecisionConfig:
    """jax.default_matmul_precision where jax lacks the context manager."""

    def __init__(self, jax, value):
        self.jax, self.value = jax, value

    def __enter__(self):
        self.old = self.jax.config.jax_default_matmul_precision
        self.jax.config.update("jax_default_matmul_precision", self.value)

    def __exit__(self, *exc):
        self.jax.config.update("jax_default_matmul_precision", self.old)


def worker_jax(a, emit):
    os.environ.setdefault("JAX_PLATFORMS",
                          "cuda" if a.device == "cuda" else "cpu")
    import jax
    sys.path.insert(0, HERE)
    from harness import onnx_to_jax
    try:
        devices = jax.devices()
    except Exception as e:  # noqa: BLE001: no backend for JAX_PLATFORMS
        emit({"info": {"jax": jax.__version__}})
        raise RuntimeError("jax %s has no %s backend (JAX_PLATFORMS=%s): "
                           "%s %s" % (jax.__version__, a.device,
                                      os.environ.get("JAX_PLATFORMS"),
                                      type(e).__name__, first_line(e)))
    info = {"jax": jax.__version__, "jax_backend": jax.default_backend(),
            "jax_device": getattr(devices[0], "device_kind", str(devices[0]))}
    emit({"info": info})
    if a.device == "cuda" and jax.default_backend() != "gpu":
        raise RuntimeError("jax has no GPU backend (devices: %s)" % devices)
    model, specs, drawn = load_onnx(a.models_dir, a.model)
    fn, params, names, _ = onnx_to_jax.translate(model)
    feeds = dict(numpy_inputs(specs, a.batch))
    del model
    ps = jax.device_put(params)
    xs = [jax.device_put(feeds[n]) for n in names]
    for p in a.precisions:
        if p == "tf32" and a.device == "cpu":
            emit({"precision": p, "status": "n/a on cpu"})
            continue
        try:
            notes = ["default_matmul_precision %s" % JAX_PRECISION[p]]
            if drawn:
                notes.append("weights drawn (stripped ONNX)")
            pctx = getattr(jax, "default_matmul_precision", None)
            # A State object in newer jax: no bool() on it.
            ctx = pctx(JAX_PRECISION[p]) if pctx is not None else \
                _PrecisionConfig(jax, JAX_PRECISION[p])
            with ctx:
                t0 = time.perf_counter()
                compiled = jax.jit(fn).lower(ps, *xs).compile()
                notes.append("jit compile %.1f s" % (time.perf_counter() - t0))

            def step():
                jax.block_until_ready(compiled(ps, *xs))
            row = measure(step, a.batch, a.warmup, a.runs, a.max_measure_s)
            row.update({"precision": p, "notes": notes})
            emit(row)
        except Exception as e:  # noqa: BLE001
            emit({"precision": p, "error": error_text(e)})


def worker_ort(a, emit):
    import onnxruntime as ort
    providers = ort.get_available_providers()
    emit({"info": {"onnxruntime": ort.__version__,
                   "ort_providers": providers}})
    if a.probe:
        return
    want = "CUDAExecutionProvider" if a.device == "cuda" else \
        "CPUExecutionProvider"
    if want not in providers:
        for p in a.precisions:
            emit({"precision": p, "status": "not present (providers: %s)" %
                  ", ".join(providers)})
        return
    model, specs, drawn = load_onnx(a.models_dir, a.model)
    blob = model.SerializeToString()
    del model
    feeds = numpy_inputs(specs, a.batch)
    for p in a.precisions:
        if p == "bf16" or (p == "tf32" and a.device == "cpu"):
            emit({"precision": p, "status": "n/a (onnxruntime runs the fp32 "
                  "graph)" if p == "bf16" else "n/a on cpu"})
            continue
        try:
            notes = ["graph opt all"]
            if drawn:
                notes.append("weights drawn (stripped ONNX)")
            if a.device == "cuda":
                opts = {"device_id": "0",
                        "use_tf32": "1" if p == "tf32" else "0"}
                try:
                    sess = ort.InferenceSession(
                        blob, providers=[("CUDAExecutionProvider", opts)])
                except Exception:  # an older ORT without use_tf32
                    sess = ort.InferenceSession(
                        blob, providers=["CUDAExecutionProvider"])
                    notes.append("use_tf32 rejected: provider defaults")
                else:
                    notes.append("use_tf32=%s" % opts["use_tf32"])
                if sess.get_providers()[0] != "CUDAExecutionProvider":
                    raise RuntimeError("CUDA EP did not load (session "
                                       "providers: %s)" %
                                       ", ".join(sess.get_providers()))
                binding = sess.io_binding()
                for name, x in feeds:
                    binding.bind_ortvalue_input(
                        name, ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
                for o in sess.get_outputs():
                    binding.bind_output(o.name, "cuda")
                notes.append("io_binding on cuda")

                def step():
                    sess.run_with_iobinding(binding)
                    if hasattr(binding, "synchronize_outputs"):
                        binding.synchronize_outputs()
            else:
                sess = ort.InferenceSession(
                    blob, providers=["CPUExecutionProvider"])
                feed = dict(feeds)

                def step():
                    sess.run(None, feed)
            row = measure(step, a.batch, a.warmup, a.runs, a.max_measure_s)
            row.update({"precision": p, "notes": notes})
            emit(row)
        except Exception as e:  # noqa: BLE001
            emit({"precision": p, "error": error_text(e)})


def worker_main(argv):
    p = argparse.ArgumentParser(prog="gpu_peers.py worker")
    p.add_argument("--peer", required=True, choices=PEERS)
    p.add_argument("--model", default="")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--precisions", default="fp32")
    p.add_argument("--device", default="cuda")
    p.add_argument("--models-dir", default=".")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--max-measure-s", type=float, default=5.0)
    p.add_argument("--compile-mode", default="default")
    p.add_argument("--probe", action="store_true")
    p.add_argument("--result", required=True)
    a = p.parse_args(argv)
    a.precisions = a.precisions.split(",")
    emit = Emitter(a.result)
    fn = {"eager": worker_torch, "compile": worker_torch, "jax": worker_jax,
          "ort": worker_ort}[a.peer]
    try:
        fn(a, emit)
    except Exception as e:  # noqa: BLE001: setup failed: every row says so
        import traceback
        traceback.print_exc()
        emit({"setup_error": error_text(e)})
        return 1
    return 0


#===--- strip: the graph without its weights -----------------------------===#


def strip_main(argv):
    if len(argv) != 2:
        sys.exit("usage: gpu_peers.py strip IN.onnx OUT.onnx")
    import onnx
    from onnx import numpy_helper
    src, dst = argv
    model = onnx.load(src)
    stripped = kept = 0
    for init in model.graph.initializer:
        n = 1
        for d in init.dims:
            n *= d
        if init.data_type not in (1, 10, 11) or n < STRIP_MIN_ELEMENTS:
            kept += 1
            continue
        arr = numpy_helper.to_array(init).astype("float64")
        mean, std = float(arr.mean()), float(arr.std())
        name, dtype, dims = init.name, init.data_type, list(init.dims)
        init.Clear()
        init.name, init.data_type = name, dtype
        init.dims.extend(dims)
        init.data_location = onnx.TensorProto.EXTERNAL
        for k, v in (("location", STRIPPED), ("mean", repr(mean)),
                     ("std", repr(std))):
            e = init.external_data.add()
            e.key, e.value = k, v
        stripped += 1
    # Serialised by hand: onnx.save would look for the external data.
    with open(dst, "wb") as f:
        f.write(model.SerializeToString())
    print("%s: %d initializers stripped, %d kept, %d -> %d bytes" % (
        os.path.basename(dst), stripped, kept, os.path.getsize(src),
        os.path.getsize(dst)))
    return 0


#===--- the driver -------------------------------------------------------===#


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Benchmarks PyTorch eager, torch.compile, JAX/XLA and "
        "onnxruntime on scripts/gpu-check's models (docs/GPU.md)")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--models", default=DEFAULT_MODELS,
                   help="NAME:BATCH,... in priority order (default %s)" %
                   DEFAULT_MODELS)
    p.add_argument("--models-dir", default=os.path.join(ROOT, "build",
                                                        "models"),
                   help="where NAME.onnx (and NAME.shape) are, for jax and "
                   "onnxruntime (default build/models)")
    p.add_argument("--peers", default=",".join(PEERS))
    p.add_argument("--precisions", default=",".join(PRECISIONS))
    p.add_argument("--runs", type=int, default=30,
                   help="timed calls per row (default 30)")
    p.add_argument("--warmup", type=int, default=5,
                   help="untimed calls before them (default 5)")
    p.add_argument("--max-measure-s", type=float, default=3.0,
                   help="stop a row's timed calls once they took this long "
                   "(at least 3 calls; default 3)")
    p.add_argument("--budget-s", type=float, default=240.0,
                   help="wall-clock budget for all cells (default 240)")
    p.add_argument("--cell-timeout-s", type=float, default=150.0,
                   help="the most one cell (a peer on a model, every "
                   "precision) may take (default 150)")
    p.add_argument("--min-cell-s", type=float, default=10.0,
                   help="do not start a cell with less budget left "
                   "(default 10)")
    p.add_argument("--order", choices=["peer", "model"], default="peer",
                   help="peer: eager, jax, onnxruntime on every model, then "
                   "torch.compile on every model (default); model: every "
                   "peer on the first model, then the next")
    p.add_argument("--compile-mode", default="default",
                   help="torch.compile mode (default: torch's default mode)")
    p.add_argument("--python", default=sys.executable,
                   help="interpreter of the workers (default this one)")
    p.add_argument("--torch-python", help="for eager and compile")
    p.add_argument("--jax-python", help="for jax")
    p.add_argument("--ort-python", help="for onnxruntime")
    p.add_argument("--out", help="write the table here (default stdout)")
    a = p.parse_args(argv)
    a.models = [parse_model(m) for m in a.models.split(",") if m]
    a.peers = [x for x in a.peers.split(",") if x]
    a.precisions = [x for x in a.precisions.split(",") if x]
    for x in a.peers:
        if x not in PEERS:
            p.error("unknown peer %s (from %s)" % (x, ", ".join(PEERS)))
    for x in a.precisions:
        if x not in PRECISIONS:
            p.error("unknown precision %s (from %s)" % (
                x, ", ".join(PRECISIONS)))
    return a


def parse_model(spec):
    name, _, batch = spec.partition(":")
    return name, int(batch or 1)


class Driver:
    def __init__(self, a):
        self.a = a
        self.start = time.monotonic()
        self.deadline = self.start + a.budget_s
        self.info = {}
        self.rows = []  # (model, batch, peer, precision, fields)
        self.tmp = tempfile.mkdtemp(prefix="gpu-peers.")

    def python_for(self, peer):
        a = self.a
        own = {"eager": a.torch_python, "compile": a.torch_python,
               "jax": a.jax_python, "ort": a.ort_python}[peer]
        return own or a.python

    def remaining(self):
        return self.deadline - time.monotonic()

    def spawn(self, peer, model, batch, precisions, timeout, probe=False):
        """Runs one worker; returns (records, rc, timed_out, log tail)."""
        a = self.a
        tag = "%s-%s-%d" % (peer, model or "probe", batch)
        result = os.path.join(self.tmp, tag + ".jsonl")
        logfile = os.path.join(self.tmp, tag + ".log")
        cmd = [self.python_for(peer), os.path.abspath(__file__), "worker",
               "--peer", peer, "--model", model, "--batch", str(batch),
               "--precisions", ",".join(precisions), "--device", a.device,
               "--models-dir", a.models_dir, "--runs", str(a.runs),
               "--warmup", str(a.warmup),
               "--max-measure-s", str(a.max_measure_s),
               "--compile-mode", a.compile_mode, "--result", result]
        if probe:
            cmd.append("--probe")
        timed_out = False
        t0 = time.monotonic()
        with open(logfile, "w") as lf:
            try:
                proc = subprocess.Popen(
                    cmd, stdout=lf, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL, start_new_session=True)
            except OSError as e:
                return [], None, False, ["cannot start %s: %s" % (cmd[0], e)]
            rc = None
            try:
                rc = proc.wait(timeout=max(1.0, timeout))
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                # The whole group (inductor's compile workers too), also
                # when this process is being stopped (Stopped).
                if rc is None:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except OSError:
                        pass
                    rc = proc.wait()
        records = []
        if os.path.exists(result):
            with open(result) as f:
                for line in f:
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        pass
        with open(logfile, errors="replace") as f:
            tail = f.read().strip().splitlines()[-15:]
        log("%s %s b%d: %d records, exit %s%s, %.1f s" % (
            peer, model or "(probe)", batch, len(records), rc,
            " (killed: timeout)" if timed_out else "",
            time.monotonic() - t0))
        if timed_out or rc != 0:
            for line in tail:
                log("  | " + line)
        return records, rc, timed_out, tail

    def add(self, model, batch, peer, precision, record=None, **fields):
        fields = dict(record or {}, **fields)
        fields.pop("precision", None)
        self.rows.append((model, batch, peer, precision, fields))

    def run_cell(self, peer, model, batch):
        a = self.a
        if self.remaining() < a.min_cell_s:
            for p in a.precisions:
                self.add(model, batch, peer, p, status="skipped (budget)")
            return
        timeout = min(a.cell_timeout_s, self.remaining())
        budget_bound = timeout < a.cell_timeout_s
        records, rc, timed_out, tail = self.spawn(peer, model, batch,
                                                  a.precisions, timeout)
        got = {}
        setup_error = None
        for r in records:
            if "info" in r:
                self.info.update(r["info"])
            elif "setup_error" in r:
                setup_error = r["setup_error"]
            elif "precision" in r:
                got[r["precision"]] = r
        for p in a.precisions:
            r = got.get(p)
            if r is not None:
                self.add(model, batch, peer, p, r)
            elif setup_error:
                self.add(model, batch, peer, p, error=setup_error)
            elif timed_out:
                self.add(model, batch, peer, p, status=(
                    "skipped (budget: stopped at the deadline)"
                    if budget_bound else
                    "timed out (cell over %.0f s)" % a.cell_timeout_s))
            elif rc is None:
                self.add(model, batch, peer, p, error=first_line(
                    tail[-1] if tail else "no result"))
            elif rc == 0:
                self.add(model, batch, peer, p,
                         error="worker exited 0 without a result")
            else:
                last = first_line(tail[-1]) if tail else "no output"
                self.add(model, batch, peer, p,
                         error="worker exited %s: %s" % (rc, last))

    def probe_ort(self):
        """onnxruntime's providers, once: 'not present' rows if it has no
        provider for the device."""
        records, rc, _, tail = self.spawn("ort", "", 0, ["fp32"],
                                          min(60.0, max(1.0,
                                                        self.remaining())),
                                          probe=True)
        for r in records:
            if "info" in r:
                self.info.update(r["info"])
        if "ort_providers" not in self.info:
            return "onnxruntime not importable: %s" % (
                first_line(tail[-1]) if tail else "exit %s" % rc)
        want = "CUDAExecutionProvider" if self.a.device == "cuda" else \
            "CPUExecutionProvider"
        if want not in self.info["ort_providers"]:
            return "not present (providers: %s)" % ", ".join(
                self.info["ort_providers"])
        return None

    def run(self):
        a = self.a
        peers = [peer for peer in RUN_ORDER if peer in a.peers]
        if a.order == "peer":
            cells = [(peer, model, batch) for peer in peers
                     for model, batch in a.models]
        else:
            cells = [(peer, model, batch) for model, batch in a.models
                     for peer in peers]
        done = 0
        try:
            ort_absent = None
            if "ort" in a.peers and self.remaining() >= a.min_cell_s:
                ort_absent = self.probe_ort()
            for peer, model, batch in cells:
                if peer == "ort" and ort_absent:
                    self.add(model, batch, peer, "-", status=ort_absent)
                else:
                    try:
                        self.run_cell(peer, model, batch)
                    except (OSError, ValueError, KeyError, TypeError) as e:
                        self.add(model, batch, peer, "-", error="driver: %s" %
                                 first_line(e))
                done += 1
        except Stopped:
            log("stopped: writing what was measured")
            for peer, model, batch in cells[done:]:
                for p in a.precisions:
                    self.add(model, batch, peer, p, status="skipped (stopped)")
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def gpu_name(self):
        if "gpu" in self.info:
            return self.info["gpu"]
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=name",
                                  "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=20)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError):
            pass
        return "none found" if self.a.device == "cuda" else "(cpu run)"

    def versions(self):
        i = self.info
        torch = "torch %s" % i["torch"] if "torch" in i else \
            "torch: not reported"
        if i.get("cudnn"):
            torch += " (CUDA %s, cuDNN %s)" % (i["torch_cuda"], i["cudnn"])
        elif "torch_cuda" in i:
            torch += " (CUDA %s)" % i["torch_cuda"]
        jax = "jax: not reported"
        if "jax_backend" in i:
            jax = "jax %s (%s: %s)" % (i["jax"], i["jax_backend"],
                                       i.get("jax_device"))
        elif "jax" in i:
            jax = "jax %s (no backend)" % i["jax"]
        ort = "onnxruntime %s (providers: %s)" % (
            i["onnxruntime"], ", ".join(i.get("ort_providers", []))) \
            if "onnxruntime" in i else "onnxruntime: not reported"
        return "Versions: %s; %s; %s; GPU: %s; device %s" % (
            torch, jax, ort, self.gpu_name(), self.a.device)

    def table(self):
        a = self.a
        order_m = {m: i for i, m in enumerate(a.models)}
        order_p = {p: i for i, p in enumerate(PEERS)}
        order_x = {p: i for i, p in enumerate(PRECISIONS + ["-"])}
        rows = sorted(self.rows, key=lambda r: (
            order_m.get((r[0], r[1]), 99), order_p[r[2]], order_x[r[3]]))
        lines = [self.versions(), "",
                 "| model | batch | peer | precision | median ms | min ms | "
                 "items/s | notes |",
                 "|---|---|---|---|---|---|---|---|"]
        for model, batch, peer, prec, f in rows:
            if "median_ms" in f:
                notes = ["%d runs, %d warm-up" % (f["runs"], f["warmup"])]
                notes += f.get("notes", [])
                cells = ["%.3f" % f["median_ms"], "%.3f" % f["min_ms"],
                         "%.1f" % f["items_s"] if f.get("items_s") else "-",
                         "; ".join(notes)]
            else:
                text = f.get("status") or "error: %s" % f.get("error")
                cells = ["-", "-", "-", text]
            cells = [c.replace("|", "/").replace("\n", " ") for c in cells]
            lines.append("| %s | %d | %s | %s | %s |" % (
                model, batch, peer_label(peer, a.device), prec,
                " | ".join(cells)))
        used = time.monotonic() - self.start
        skipped = sum(1 for r in self.rows
                      if "skipped" in r[4].get("status", ""))
        lines += ["", "Budget: %.0f of %.0f s used; %d rows skipped for it. "
                  "torch.compile mode: %s (inductor); compile times are not "
                  "in the latencies. Settings per precision: docs/GPU.md, "
                  "\"Real GPU check\"." % (used, a.budget_s, skipped,
                                           a.compile_mode)]
        return "\n".join(lines) + "\n"


def main(argv):
    if argv and argv[0] == "worker":
        return worker_main(argv[1:])
    if argv and argv[0] == "strip":
        return strip_main(argv[1:])
    a = parse_args(argv)
    a.models_dir = os.path.abspath(a.models_dir)
    def stop(signum, frame):
        raise Stopped()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    d = Driver(a)
    d.run()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    text = d.table()
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
