"""Turns measurements into the Markdown report: setup, table, floor checks."""
import statistics


class Result:
    """The timings of one (runtime, model, threads) cell."""

    def __init__(self, runtime, model, threads, times, runs_wanted, flops,
                 peaks, peak_threads):
        self.runtime, self.model, self.threads = runtime, model, threads
        self.times = sorted(times)
        self.runs_wanted = runs_wanted
        # PEAKS is the run's {threads: GFLOP/s}, final once all is measured.
        self.flops, self.peaks, self.peak_threads = flops, peaks, \
            peak_threads
        self.check = "-"  # agreement with the numerics reference
        self.ok = True
        # Runs timed while the threads' cores shared no L3 (run.py's
        # coherence probe around each batch; 0 on one thread).
        self.split_l3_runs = 0
        self.failed = None  # why the runtime could not run the model

    def fail(self, why):
        self.failed = why
        self.ok = False
        self.check = "FAILED: " + _short(why)

    @property
    def peak(self):
        return self.peaks.get(self.peak_threads)

    def to_json(self):
        return {"runtime": self.runtime, "model": self.model.name,
                "threads": self.threads, "times_ms": self.times,
                "runs_wanted": self.runs_wanted, "flops": self.flops,
                "peak_gflops": self.peak, "check": self.check,
                "failed": self.failed, "split_l3_runs": self.split_l3_runs}

    @property
    def median(self):
        return statistics.median(self.times) if self.times else None

    @property
    def min(self):
        return self.times[0] if self.times else None

    @property
    def gflops(self):
        if not self.flops or not self.times:
            return None
        return self.flops / (self.median * 1e-3) * 1e-9


def _short(why, n=110):
    """One line of a failure message, for a table cell."""
    line = " ".join(why.split("\n")[0].split()).replace("|", "/")
    return line if len(line) <= n else line[:n - 3] + "..."


def _fmt_ms(ms):
    if ms >= 100:
        return "%.1f" % ms
    if ms >= 1:
        return "%.2f" % ms
    return "%.4f" % ms


def _fmt_ratio(x):
    """Two decimals, or two significant digits below 0.1 (0.0047)."""
    return "%.2f" % x if x >= 0.1 else "%.2g" % x


def _index(results):
    return {(r.runtime, r.model.name, r.threads): r for r in results}


def best_peer(results, model_name, threads, by="median"):
    """The fastest other runtime's result on (model, threads) whose outputs
    agree (by its median, or by its minimum with by="min"), or None:
    Tandem's target is a ratio to it."""
    peers = [r for r in results if r.runtime != "tandem" and
             r.model.name == model_name and r.threads == threads and
             not r.failed and r.times and r.ok]
    return min(peers, key=lambda r: getattr(r, by)) if peers else None


# A cell whose median is this much above its minimum ran partly in a slow
# phase of the host (docs/Performance.md, The machine): its median ratios
# mislead, its minima do not.
NOISY_CELL = 1.25


def table(results):
    by = _index(results)
    over = [r for r in results if r.gflops and r.peak and
             r.gflops > r.peak]
    lines = ["| runtime | threads | model | runs | median ms | min ms | "
             "GFLOP/s | % of peak | vs ref | vs best peer | "
             "vs best peer (min) | check |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    noisy = []
    for r in results:
        if r.failed:
            lines.append("| %s | %d | %s | 0 | - | - | - | - | - | - | - "
                         "| %s |" % (r.runtime, r.threads, r.model.name,
                                     r.check))
            continue
        runs = str(len(r.times))
        if len(r.times) < r.runs_wanted:
            runs += " (capped)"
        gf = r.gflops
        gflops = "%.1f" % gf if gf is not None else "-"
        peak = "%.0f%%" % (100 * gf / r.peak) if gf is not None and r.peak \
            else "-"
        ref = by.get((r.model.reference, r.model.name, r.threads))
        if r.runtime == r.model.reference:
            vs = "1.00 (ref)"
        elif ref and ref.times:
            vs = _fmt_ratio(ref.median / r.median)
        else:
            vs = "-"
        # Median over the fastest other runtime's (Tandem's target is
        # <= 0.8 on most models): below 1 is faster than every peer.
        best = best_peer([x for x in results if x is not r], r.model.name,
                         r.threads)
        vs_best = (("%.2f (%s)" % (r.median / best.median, best.runtime))
                   if best else "-")
        # The same by minima, which the host's slow phases do not move.
        best_min = best_peer([x for x in results if x is not r],
                             r.model.name, r.threads, by="min")
        vs_best_min = (("%.2f (%s)" % (r.min / best_min.min,
                                       best_min.runtime))
                       if best_min else "-")
        if r.min and r.median / r.min >= NOISY_CELL:
            noisy.append("%s %s at %d thread%s (%.2fx)" % (
                r.runtime, r.model.name, r.threads,
                "" if r.threads == 1 else "s", r.median / r.min))
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                     "| %s |"
                     % (r.runtime, r.threads, r.model.name, runs,
                        _fmt_ms(r.median), _fmt_ms(r.min), gflops, peak, vs,
                        vs_best, vs_best_min, r.check))
    if noisy:
        lines += ["", "Median at least %.2fx the minimum (the host's slow "
                  "phases; compare these cells by the minima column): %s." %
                  (NOISY_CELL, "; ".join(noisy))]
    split = ["%s %s at %d threads (%d of %d)" % (
        r.runtime, r.model.name, r.threads, r.split_l3_runs, len(r.times))
        for r in results if r.split_l3_runs]
    if split:
        lines += ["", "Runs timed while the two threads' cores shared no L3 "
                  "(the host had moved the vCPUs; coherence's other-read "
                  "below 4 GB/s before or after the batch), which slows "
                  "whatever passes data between the threads, Tandem more "
                  "than the peers (docs/Performance.md, The machine): %s."
                  % "; ".join(split)]
    if over:
        lines += ["", "Above 100%% of peak (%s): the FMA microbenchmark "
                  "never saw the throughput these runs got, so the machine's "
                  "capacity changed during the run (see docs/Performance.md, "
                  "The machine); treat %% of peak at that thread count as "
                  "unreliable." % ", ".join(sorted(
                      {"%s at %d threads" % (r.runtime, r.threads)
                       for r in over}))]
    return "\n".join(lines)


def _ratio_floor(by, title, model, threads, reference, minimum, verb):
    """PASS when reference median / tandem median >= minimum."""
    t = by.get(("tandem", model, threads))
    ref = by.get((reference, model, threads))
    if not t or not ref:
        return "- NOT RUN: %s (needs tandem and %s on %s at %d thread%s)" % (
            title, reference, model, threads, "" if threads == 1 else "s")
    ratio = ref.median / t.median
    ok = ratio >= minimum and t.ok
    detail = "tandem %s ms vs %s %s ms: %s" % (
        _fmt_ms(t.median), reference, _fmt_ms(ref.median), verb(ratio))
    if not t.ok:
        detail += "; tandem's outputs do not agree"
    return "- **%s**: %s (%s)" % ("PASS" if ok else "FAIL", title, detail)


def floors(results, census, threads_list):
    """The issue's performance floor, one PASS/FAIL/NOT RUN line each."""
    by = _index(results)
    lines = [
        _ratio_floor(by, "1024^3 f32 matmul at 1 thread >= 70% of OpenBLAS "
                     "cblas_sgemm", "matmul_1024", 1, "openblas", 0.70,
                     lambda r: "%.3g%% of OpenBLAS" % (100 * r)),
        _ratio_floor(by, "ResNet-18 batch 1 at 1 thread within 2x of "
                     "onnxruntime", "resnet18", 1, "onnxruntime", 0.5,
                     lambda r: "%.3gx onnxruntime's latency" % (1 / r)),
    ]
    # Vectorised: packed f32 FMA/mul/add in the matmul kernel's code.
    # Multithreaded: it calls tandem_parallel_for and, when OpenBLAS itself
    # scales on this machine in this run, scales at least 70% as well. The
    # issue gives no numbers for these; the proxies are stated in the line.
    top = max(threads_list)
    t1 = by.get(("tandem", "matmul_1024", 1))
    tn = by.get(("tandem", "matmul_1024", top))
    o1 = by.get(("openblas", "matmul_1024", 1))
    on = by.get(("openblas", "matmul_1024", top))
    title = "kernels vectorised and multithreaded"
    if census is None or not t1 or top == 1 or not tn:
        lines.append("- NOT RUN: %s (needs tandem on matmul_1024 at 1 and "
                     ">1 threads, and objdump)" % title)
    else:
        packed = census["zmm"] + census["ymm"]
        vec_ok = packed > 0 and packed >= census["scalar"]
        par_ok = bool(census["parallel_for"])
        speedup = t1.median / tn.median
        via = census.get("runtime_kernels") or []
        where = "matmul_1024.so" + (
            " + the runtime kernels it calls (%s)" % ", ".join(via)
            if via else "")
        parts = ["%s: %d zmm, %d ymm, %d xmm packed and %d "
                 "scalar f32 FMA/mul/add instructions -> %s" % (
                     where, census["zmm"], census["ymm"], census["xmm"],
                     census["scalar"],
                     "vectorised" if vec_ok else "NOT vectorised"),
                 "%s tandem_parallel_for" % ("reaches" if par_ok else
                                             "does NOT reach")]
        scale_ok = None
        if o1 and on:
            ref_speedup = o1.median / on.median
            if ref_speedup >= 1.2:
                scale_ok = speedup >= 0.7 * ref_speedup
                parts.append("%d-thread speedup %.2fx vs OpenBLAS's %.2fx "
                             "(needs >= 70%%) -> %s" % (
                                 top, speedup, ref_speedup,
                                 "ok" if scale_ok else "too low"))
            else:
                parts.append("%d-thread speedup %.2fx; OpenBLAS's is only "
                             "%.2fx, so this machine shows no thread "
                             "scaling now: not judged" % (top, speedup,
                                                         ref_speedup))
        else:
            parts.append("%d-thread speedup %.2fx (no OpenBLAS figures to "
                         "judge it against)" % (top, speedup))
        ok = vec_ok and par_ok and scale_ok is not False
        lines.append("- **%s**: %s (%s)" % ("PASS" if ok else "FAIL", title,
                                            "; ".join(parts)))
    return "\n".join(lines)


def _mib(n):
    return "%.1f" % (n / 2.0 ** 20) if isinstance(n, (int, float)) else "-"


def _secs(x):
    if x == "failed":
        return "failed"
    return "%.1f" % x if isinstance(x, (int, float)) else "-"


def compile_table(stats):
    """Compile-side figures per network: Tandem's `tandemc` wall time and
    peak RSS (wait4 rusage of the child), the shared library's size, the
    arena and weight bytes of its model descriptor; IREE's import + compile,
    XLA's jit compile and TVM's import + compile + export wall times."""
    lines = ["Compilation (Tandem: `tandemc --emit=shared --cpu=native` "
             "wall time and peak RSS, the .so's size, the arena and weight "
             "bytes its model descriptor declares; IREE: opset upgrade + "
             "`iree-import-onnx` + `iree-compile`; XLA: `jit(...).lower()"
             ".compile()` in the worker; TVM: `from_onnx` + `tvm.compile` + "
             "`export_library` in tvm_build.py; \"-\" where not measured "
             "in this run, e.g. a library reused from an earlier run):", "",
             "| model | tandemc s | tandemc peak RSS MiB | .so MiB | "
             "arena MiB | weights MiB | IREE compile s | XLA compile s | "
             "TVM compile s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, st in stats.items():
        rss = st.get("max_rss_kb")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, _secs(st.get("compile_s")),
            _mib(rss * 1024) if rss else "-", _mib(st.get("so_bytes")),
            _mib(st.get("arena_bytes")), _mib(st.get("weight_bytes")),
            _secs(st.get("iree_compile_s")), _secs(st.get("xla_compile_s")),
            _secs(st.get("tvm_compile_s"))))
    return "\n".join(lines)


def chart(results, path, title):
    """A PNG bar chart of each runtime's median latency relative to
    onnxruntime's, per network and thread count (log scale; lower is
    faster). Returns False when there is nothing to draw."""
    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    by = _index(results)
    threads = sorted({r.threads for r in results})
    models = []
    for r in results:
        if r.model.name not in models and \
                ("onnxruntime", r.model.name, r.threads) in by:
            models.append(r.model.name)
    # Every runtime with a result, the known ones in a fixed order (so a
    # runtime keeps its colour from one report to the next).
    order = ["tandem", "onnxruntime", "openvino", "xla", "iree", "tvm",
             "openblas"]
    order += sorted({r.runtime for r in results} - set(order))
    runtimes = [n for n in order if any(r.runtime == n for r in results)]
    if not models:
        return False
    fig, axes = plt.subplots(len(threads), 1, squeeze=False,
                             figsize=(max(6, 1.3 * len(models) + 2),
                                      3.6 * len(threads)))
    width = 0.8 / len(runtimes)
    for ax, t in zip(axes[:, 0], threads):
        for i, name in enumerate(runtimes):
            xs, ys = [], []
            for j, m in enumerate(models):
                r, ref = by.get((name, m, t)), by.get(("onnxruntime", m, t))
                if r and r.times and ref and ref.times:
                    xs.append(j + (i - (len(runtimes) - 1) / 2) * width)
                    ys.append(r.median / ref.median)
            bars = ax.bar(xs, ys, width, label=name)
            ax.bar_label(bars, labels=["%.2g" % y for y in ys],
                         fontsize="x-small", padding=1)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        fmt = matplotlib.ticker.FormatStrFormatter("%g")
        ax.yaxis.set_major_formatter(fmt)
        ax.yaxis.set_minor_formatter(fmt)
        ax.tick_params(axis="y", which="minor", labelsize="x-small")
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels(models, rotation=20, ha="right")
        ax.set_ylabel("median latency / onnxruntime's")
        ax.set_title("%d thread%s" % (t, "" if t == 1 else "s"))
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Latency relative to onnxruntime (lower is faster), " +
                 title, fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
