#!/usr/bin/env python3
"""Tandem's CPU benchmark harness: one entry point for every runtime and
model in the registries (bench/harness/runtimes.py, bench/harness/models.py).

usage: run.py [--quick | --smoke] [--threads 1,2] [--models a,b|all]
              [--runtimes a,b] [--runs N] [--warmup W] [--rounds R]
              [--budget-s S] [--out FILE] [--no-build] [--no-lock]

Builds Tandem if needed, makes the models (ONNX MatMuls with onnx.helper,
the networks with Debian's torch through bench/harness/export_torch.py),
compiles them with `tandemc --emit=shared --cpu=native` (and with IREE and
TVM), measures the machine's FP32 FMA peak, then for each thread count and
model times every runtime that supports it, interleaved: R rounds, each
running a batch of every runtime in a rotating order. It checks that the
runtimes' outputs agree with onnxruntime's on the same inputs, prints a
Markdown table and the performance floor's PASS/FAIL lines, and writes them
to bench/results/<date>-<host>.md, with the raw timings (.json) and a
latency chart (.png) next to it.

Holds the machine's build/benchmark lock (/tmp/tandem-build.lock) from the
build to the last timing. Run with the project's venv Python (bench/run.sh
does).
"""
import argparse
import datetime
import json
import os
import platform
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
    from harness import models as models_mod
    from harness import native, report
    from harness import runtimes as runtimes_mod
    from harness.util import BenchError, Lock, log
except ImportError as e:  # numpy / onnx / onnxruntime missing
    sys.exit("bench: error: %s; run with the project's venv (bash "
             "bench/setup.sh, then .venv/bin/python bench/run.py, or just "
             "bash bench/run.sh)" % e)

ROOT = os.path.dirname(HERE)

# Agreement rule against the numerics reference (onnxruntime):
# |got - ref| <= RTOL * |ref| + ATOL_REL * max |ref|.
RTOL, ATOL_REL = 1e-3, 1e-4
# The fewest timed runs a cell gets when --budget-s caps it.
MIN_CAPPED_RUNS = 3


class Context:
    """Paths and tools every module needs."""

    def __init__(self, args):
        self.root = ROOT
        self.build = os.path.abspath(args.build)
        self.work = os.path.abspath(args.work) if args.work else \
            os.path.join(self.build, "bench")
        self.models_dir = os.path.abspath(args.models_dir) if \
            args.models_dir else os.path.join(self.build, "models")
        self.tandemc = os.path.join(self.build, "bin", "tandemc")
        self.tandem_run = os.path.join(self.build, "bin", "tandem-run")
        self.torch_python = args.torch_python
        self.log = log
        self.revision = git_revision()
        os.makedirs(self.work, exist_ok=True)


def git_revision():
    """The checkout's commit, noting uncommitted changes to tracked files
    (taken at the start: what was built and measured)."""
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                            "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (head or "unknown") + (" (with uncommitted changes)" if dirty
                                  else "")


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Tandem CPU benchmark harness (see docs/Performance.md)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true",
                      help="fewer runs (10, 2 warm-up, 2 rounds): a quick "
                      "look, not the recorded figures")
    mode.add_argument("--smoke", action="store_true",
                      help="a seconds-long self-test: matmul_64, 3 runs, no "
                      "build, written under build/bench/")
    p.add_argument("--threads", default="1,2",
                   help="comma-separated thread counts (default 1,2)")
    p.add_argument("--models", help="comma-separated, from: " +
                   ", ".join(models_mod.MODELS) + "; or all (default: " +
                   ", ".join(models_mod.DEFAULT_MODELS) + ")")
    p.add_argument("--runtimes", help="comma-separated, from: " +
                   ", ".join(runtimes_mod.RUNTIMES))
    p.add_argument("--runs", type=int, help="timed runs per cell "
                   "(default 30; 10 with --quick, 3 with --smoke)")
    p.add_argument("--warmup", type=int, help="untimed runs before the "
                   "first round (default 3; 2 --quick, 1 --smoke)")
    p.add_argument("--rounds", type=int, help="interleaving rounds "
                   "(default 5; 2 --quick, 1 --smoke)")
    p.add_argument("--budget-s", type=float, default=60.0,
                   help="cap on one cell's timed seconds: a runtime whose "
                   "warm-up says RUNS runs would take longer gets fewer "
                   "(at least 3), marked 'capped' (default 60; 0: no cap)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"),
                   help="Tandem build directory (default build/)")
    p.add_argument("--work", help="where models, compiled libraries and "
                   "helpers go (default BUILD/bench)")
    p.add_argument("--models-dir", help="where the torch-exported models "
                   "are (exported there when missing; default "
                   "BUILD/models)")
    p.add_argument("--no-build", action="store_true",
                   help="use the tools already in the build directory")
    p.add_argument("--lock", default="/tmp/tandem-build.lock",
                   help="the build/benchmark lock file")
    p.add_argument("--no-lock", action="store_true",
                   help="do not take the lock (e.g. already under flock)")
    p.add_argument("--torch-python", default="/usr/bin/python3",
                   help="Python with torch/torchvision for exporting models")
    p.add_argument("--out", help="report file (default bench/results/"
                   "<date>-<host>[-quick].md; build/bench/smoke.md for "
                   "--smoke)")
    p.add_argument("--no-chart", action="store_true",
                   help="do not draw the PNG chart next to the report")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when a floor check fails or outputs "
                   "disagree")
    args = p.parse_args(argv)
    if args.smoke:
        defaults = (3, 1, 1)
        args.no_build = True
    elif args.quick:
        defaults = (10, 2, 2)
    else:
        defaults = (30, 3, 5)
    args.runs = args.runs if args.runs is not None else defaults[0]
    args.warmup = args.warmup if args.warmup is not None else defaults[1]
    args.rounds = args.rounds if args.rounds is not None else defaults[2]
    if args.runs < 1 or args.warmup < 0 or args.rounds < 1:
        p.error("--runs and --rounds must be >= 1, --warmup >= 0")
    try:
        args.threads = sorted({int(t) for t in args.threads.split(",")})
    except ValueError:
        p.error("--threads takes comma-separated integers, e.g. 1,2")
    if any(t < 1 for t in args.threads):
        p.error("--threads must be >= 1")
    args.models = _pick(p, "--models", args.models, models_mod.MODELS,
                        models_mod.SMOKE_MODELS if args.smoke
                        else models_mod.DEFAULT_MODELS)
    args.runtimes = _pick(p, "--runtimes", args.runtimes,
                          runtimes_mod.RUNTIMES, list(runtimes_mod.RUNTIMES))
    args.notes = []
    for rt in list(args.runtimes):
        if isinstance(rt, runtimes_mod.PeerRuntime) and not rt.available():
            # jax / iree are optional: bench/setup.sh installs them.
            args.runtimes.remove(rt)
            args.notes.append("%s is not installed in this venv (bash "
                              "bench/setup.sh installs it): runtime %s "
                              "left out" % (rt.module, rt.name))
    openblas = runtimes_mod.RUNTIMES["openblas"]
    if args.smoke and openblas in args.runtimes and \
            not native.openblas_available():
        # The smoke test runs in CI, where OpenBLAS may be absent.
        args.runtimes.remove(openblas)
        args.notes.append("OpenBLAS is not installed (bash bench/setup.sh "
                          "installs it): left out of this smoke run")
    return args


# A 1-minute load average above this at the start means other work was
# running (the harness itself has not started timing yet); at the end the
# run's own threads count, so the limit there is the largest thread count
# plus this.
LOAD_LIMIT = 1.0


def busy_machine(load_start, load_end, threads):
    """Why the run is not for the record (other work on the machine), or
    ''."""
    if load_start[0] > LOAD_LIMIT:
        return "the 1-minute load average was %.2f at the start (over %.1f)" % (
            load_start[0], LOAD_LIMIT)
    limit = max(threads) + LOAD_LIMIT
    if load_end[0] > limit:
        return ("the 1-minute load average was %.2f at the end (over %.1f "
                "for %d benchmark threads)" % (load_end[0], limit,
                                               max(threads)))
    return ""


def _pick(parser, flag, value, registry, default):
    names = value.split(",") if value else default
    if flag == "--models" and value == "all":
        names = models_mod.ALL_MODELS
    unknown = [n for n in names if n not in registry]
    if unknown:
        parser.error("%s: unknown %s (known: %s)" % (
            flag, ", ".join(unknown), ", ".join(registry)))
    return [registry[n] for n in names]


def build_tandem(ctx):
    if not os.path.exists(os.path.join(ctx.build, "build.ninja")):
        log("configuring " + ctx.build)
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "configure.sh"),
                        ctx.build], check=True)
    log("building tandemc, tandem-run and the runtime (ninja)")
    proc = subprocess.run(["ninja", "-C", ctx.build, "tandemc", "tandem-run",
                           "tandem_runtime_shared"])
    if proc.returncode != 0:
        raise BenchError("the Tandem build failed (ninja -C %s)" % ctx.build)


def compare(got, ref):
    """'ok' or 'MISMATCH (...)' under the agreement rule."""
    if len(got) != len(ref):
        return "MISMATCH (%d outputs vs %d)" % (len(got), len(ref))
    worst = 0.0
    for g, r in zip(got, ref):
        g = np.asarray(g, np.float64).reshape(-1)
        r = np.asarray(r, np.float64).reshape(-1)
        if g.shape != r.shape:
            return "MISMATCH (shape)"
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        tol = RTOL * np.abs(r) + ATOL_REL * scale
        err = np.abs(g - r)
        if not np.all(err <= tol):  # NaN fails too
            bad = int(np.sum(~(err <= tol)))
            return "MISMATCH (%d of %d, max err %.3g, max ref %.3g)" % (
                bad, r.size, float(np.nanmax(err)), scale)
        if scale:
            worst = max(worst, float(np.max(err)) / scale)
    return "ok (%.0e)" % worst if worst else "ok"


def measure_cell(args, ctx, model, threads, peaks, flops):
    """Times every selected runtime on MODEL at THREADS threads,
    interleaved. Returns the Results."""
    inputs = model.make_inputs(ctx)
    runtimes = [r for r in args.runtimes if r.supports(model)]
    sessions = []
    failed = []
    try:
        for rt in runtimes:
            try:
                sessions.append((rt, rt.open(ctx, model, threads, inputs)))
            except runtimes_mod.PeerUnavailable as e:
                # A peer that cannot run this model gets a row that says
                # why; the others go on.
                log("%s cannot run %s: %s" % (rt.name, model.name, e))
                r = report.Result(rt.name, model, threads, [], args.runs,
                                  flops, peaks, threads)
                r.fail(str(e))
                failed.append(r)
        runtimes = [rt for rt, _ in sessions]
        # Warm up. The first warm-up run estimates a run's time: a runtime
        # so slow that RUNS runs would exceed the budget gets no more
        # warm-up runs and fewer timed runs (at least MIN_CAPPED_RUNS).
        plan = {}
        for rt, s in sessions:
            est = s.run(1, 0)[0] if args.warmup else 0.0
            runs, more = args.runs, max(args.warmup - 1, 0)
            if args.budget_s > 0 and est * 1e-3 * runs > args.budget_s:
                runs = max(MIN_CAPPED_RUNS,
                           min(runs, int(args.budget_s / (est * 1e-3))))
                more = 0
                log("%s on %s at %d threads: %.0f ms a run, capped at %d "
                    "runs" % (rt.name, model.name, threads, est, runs))
            if more:
                s.run(1, more - 1)
            plan[rt.name] = (runs, 0 if runs < args.runs else 1)
        # Agreement with onnxruntime (else the first runtime).
        outs = {rt.name: s.outputs() for rt, s in sessions}
        ref_name = "onnxruntime" if "onnxruntime" in outs else runtimes[0].name
        checks = {}
        for rt, _ in sessions:
            checks[rt.name] = "ref" if rt.name == ref_name else \
                compare(outs[rt.name], outs[ref_name])
        times = {rt.name: [] for rt, _ in sessions}
        split_runs = {rt.name: 0 for rt, _ in sessions}
        for rnd in range(args.rounds):
            # Sample the FMA peak once a round too: on a VM whose vCPUs the
            # host moves around, the 2-thread peak changes over minutes.
            peaks[threads] = max(peaks[threads], native.fma_peak(
                ctx, threads, args.peak_s / 4, tries=1)[1])
            order = sessions[rnd % len(sessions):] + \
                sessions[:rnd % len(sessions)]
            for rt, s in order:
                total, batch_warmup = plan[rt.name]
                # Spread TOTAL runs over the rounds as evenly as possible.
                n = total // args.rounds + (1 if rnd < total % args.rounds
                                            else 0)
                if n:
                    # Where the threads' cores share an L3 decides how
                    # fast lines cross between them, and the host moves
                    # the vCPUs every few seconds: probe before the batch
                    # and after it, and count the batch's runs as on split
                    # L3s when either probe says so.
                    split = threads > 1 and \
                        native.other_read_gbps(ctx) < native.SPLIT_L3_GBPS
                    batch = s.run(n, batch_warmup)
                    split = split or (threads > 1 and native.other_read_gbps(
                        ctx) < native.SPLIT_L3_GBPS)
                    times[rt.name] += batch
                    if split:
                        split_runs[rt.name] += len(batch)
        results = []
        for rt, _ in sessions:
            if not times[rt.name]:
                continue
            r = report.Result(rt.name, model, threads, times[rt.name],
                              args.runs, flops, peaks, threads)
            r.check = checks[rt.name]
            r.ok = not r.check.startswith("MISMATCH")
            r.split_l3_runs = split_runs[rt.name]
            results.append(r)
            log("%-12s %-12s T=%d median %.3f ms  min %.3f ms  (%d runs) %s"
                % (rt.name, model.name, threads, r.median, r.min,
                   len(r.times), r.check))
        return results + failed
    finally:
        for _, s in sessions:
            s.close()


def compile_stats(args, ctx):
    """{model: {...}}: Tandem's compile time, peak RSS, library, arena and
    weight sizes; IREE's import + compile time; XLA's jit compile time;
    TVM's import + compile + export time."""
    names = {rt.name: rt for rt in args.runtimes}
    stats = {}
    for model in args.models:
        if model.kind != "network":
            continue
        st = {}
        if "tandem" in names:
            st.update(names["tandem"].stats(ctx, model))
        if "iree" in names:
            iree = names["iree"]
            st["iree_compile_s"] = iree.compile_seconds(model.name)
            if model.name in iree.failures:
                st["iree_compile_s"] = "failed"
        if "xla" in names:
            xla = names["xla"]
            st["xla_compile_s"] = xla.compile_s.get(model.name)
        if "tvm" in names:
            tvm = names["tvm"]
            st["tvm_compile_s"] = tvm.compile_seconds(model.name)
            if model.name in tvm.failures:
                st["tvm_compile_s"] = "failed"
        stats[model.name] = st
    return stats


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv):
    args = parse_args(argv)
    ctx = Context(args)
    lock = Lock(None if args.no_lock else args.lock)
    started = datetime.datetime.now()
    with lock:
        load_start = os.getloadavg()
        if not args.no_build:
            build_tandem(ctx)
        for tool in (ctx.tandemc, ctx.tandem_run):
            if any(r.name == "tandem" for r in args.runtimes) and \
                    not os.path.exists(tool):
                raise BenchError("%s is missing: build Tandem (ninja -C %s) "
                                 "or drop --no-build" % (tool, ctx.build))
        # Prepare every model first (exports, compiles): no timing yet.
        flops = {}
        for model in args.models:
            model.onnx_path(ctx)
            flops[model.name] = model.flops(ctx)
            for rt in args.runtimes:
                if not rt.supports(model):
                    continue
                if rt.name == "tandem":
                    rt.compile(ctx, model)
                elif hasattr(rt, "prepare"):
                    rt.prepare(ctx, model)  # IREE: failures go in the table
        peak_s = args.peak_s = 0.2 if args.smoke else 1.0
        peaks, isa = {}, None
        for t in args.threads:
            isa, peaks[t] = native.fma_peak(ctx, t, peak_s)
            log("FMA peak at %d thread%s: %.1f GFLOP/s (%s)" % (
                t, "" if t == 1 else "s", peaks[t], isa))
        results = []
        for t in args.threads:
            for model in args.models:
                results += measure_cell(args, ctx, model, t, peaks,
                                        flops[model.name])
        # Once more at the end: a peak is a maximum, and a busy moment at
        # the start should not make the runtimes look better than they are.
        for t in args.threads:
            peaks[t] = max(peaks[t], native.fma_peak(ctx, t, peak_s)[1])
            log("FMA peak at %d thread%s, start and end: %.1f GFLOP/s" % (
                t, "" if t == 1 else "s", peaks[t]))
    census = None
    mm = [m for m in args.models if m.name == "matmul_1024"]
    tandem = runtimes_mod.RUNTIMES["tandem"]
    if mm and tandem in args.runtimes:
        census = native.vector_census(
            tandem.compile(ctx, mm[0]),
            os.path.join(ctx.build, "lib", "libtandem_runtime.a"))

    # The report.
    host = socket.gethostname()
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    if not args.smoke and not args.quick and args.runs < 30:
        mode = "custom"
    lines = ["# Tandem CPU benchmark, %s, %s" % (
        started.strftime("%Y-%m-%d %H:%M"), host), ""]
    lines.append("- Command: `bench/run.py%s`" % "".join(" " + a for a in argv))
    mode_line = "- Mode: %s: %d timed runs per cell after %d warm-up run%s, " \
        "in %d interleaved round%s (one extra warm-up run per batch)" % (
            mode, args.runs, args.warmup, "" if args.warmup == 1 else "s",
            args.rounds, "" if args.rounds == 1 else "s")
    if args.budget_s > 0:
        mode_line += "; a cell whose runs would take over %g s gets fewer " \
            "(at least %d, marked capped) and no warm-up beyond the first " \
            "run" % (args.budget_s, MIN_CAPPED_RUNS)
    if args.runs < 30:
        mode_line += "; fewer than 30 runs: not the recorded figures"
    lines.append(mode_line)
    load_end = os.getloadavg()
    busy = busy_machine(load_start, load_end, args.threads)
    if busy:
        lines.append("- **NOT FOR THE RECORD: %s.** Timings taken next to "
                     "other work are not comparable; rerun on a quiet "
                     "machine." % busy)
    lines.append("- Load average (1, 5, 15 min) at the start: %s; at the "
                 "end: %s (builds that take the lock wait for the run; "
                 "anything else on the machine shows here)" % (
                     ", ".join("%.2f" % x for x in load_start),
                     ", ".join("%.2f" % x for x in load_end)))
    lines.append("- Machine: %s, %d logical CPUs; FP32 FMA peak measured by "
                 "bench/native/fma_peak.c (%s; the best of 3 tries of %g s "
                 "at the start, one short try in every round, 3 at the "
                 "end): %s" % (
                     cpu_name(), os.cpu_count(), isa, peak_s, ", ".join(
                         "%.1f GFLOP/s at %d thread%s" % (
                             peaks[t], t, "" if t == 1 else "s")
                         for t in args.threads)))
    for rt in args.runtimes:
        lines.append("- " + rt.describe(ctx))
    for note in args.notes:
        lines.append("- Note: " + note)
    lines.append("- GFLOP/s: %s / median time; matmuls 2n^3, networks the "
                 "Conv/MatMul/Gemm multiply-adds x2 from ONNX shape "
                 "inference. %% of peak: of the FMA peak at the same thread "
                 "count. vs ref: reference median / this median (> 1 is "
                 "faster); the reference is OpenBLAS for matmuls, "
                 "onnxruntime for networks." % "FLOPs")
    lines.append("- check: outputs on the same inputs against onnxruntime's, "
                 "|got - ref| <= %g |ref| + %g max|ref| (the worst error "
                 "relative to max|ref| in brackets)" % (RTOL, ATOL_REL))
    lines += ["", report.table(results), ""]
    chart_at = len(lines)
    chart_name = None
    stats = compile_stats(args, ctx)
    if stats:
        lines += [report.compile_table(stats), ""]
    lines += ["Performance floor:", "",
              report.floors(results, census, args.threads), ""]

    if args.out:
        out = args.out
    elif args.smoke:
        out = os.path.join(ctx.work, "smoke.md")
    else:
        out = os.path.join(HERE, "results", "%s-%s%s%s.md" % (
            started.strftime("%Y-%m-%d"), host,
            "-quick" if args.quick else "",
            "-not-for-record" if busy else ""))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if not args.smoke and not args.no_chart:
        png = os.path.splitext(out)[0] + ".png"
        try:
            if report.chart(results, png, "%s, %s, %s" % (
                    started.strftime("%Y-%m-%d %H:%M"), host, mode)):
                chart_name = os.path.basename(png)
        except ImportError:
            args.notes.append("matplotlib is missing: no chart")
    if chart_name:
        lines[chart_at:chart_at] = ["Latency relative to onnxruntime (lower is "
                        "faster): ![chart](%s)" % chart_name, ""]
    text = "\n".join(lines)
    print(text)

    with open(out, "w") as f:
        f.write(text)
    # The raw timings next to it, for later analysis and charts.
    raw = os.path.splitext(out)[0] + ".json"
    with open(raw, "w") as f:
        json.dump({"started": started.isoformat(timespec="seconds"),
                   "host": host, "cpu": cpu_name(), "argv": argv,
                   "mode": mode, "revision": ctx.revision, "isa": isa,
                   "not_for_record": busy,
                   "peak_gflops": {str(t): p for t, p in peaks.items()},
                   "runtimes": {rt.name: rt.describe(ctx)
                                for rt in args.runtimes},
                   "results": [r.to_json() for r in results],
                   "compile": stats}, f, indent=1)
    log("wrote %s and %s" % (out, raw))
    if args.strict and ("**FAIL**" in text or "MISMATCH" in text):
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as e:
        sys.exit("bench: error: %s" % e)
    except KeyboardInterrupt:
        sys.exit("bench: interrupted")
