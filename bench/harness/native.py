"""The harness's C helpers (bench/native/*.c): built with cc on demand into
the work directory, and the FMA peak measurement."""
import os
import re
import shutil
import subprocess

from .util import BenchError, newer

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = os.path.join(os.path.dirname(HERE), "native")

# Debian's libopenblas-dev (pthread flavour). Linked by path so that the
# libblas.so.3 alternative does not matter.
OPENBLAS_INCLUDE = "/usr/include/x86_64-linux-gnu/openblas-pthread"
OPENBLAS_LIBDIR = "/usr/lib/x86_64-linux-gnu/openblas-pthread"


def _cc():
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise BenchError("no C compiler (cc) to build bench/native")
    return cc


def build(ctx, name, extra_flags=()):
    """Compiles bench/native/NAME.c into WORK/bin/NAME unless up to date."""
    src = os.path.join(NATIVE, name + ".c")
    out = os.path.join(ctx.work, "bin", name)
    if newer(out, src, __file__):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cmd = [_cc(), "-O2", "-Wall", "-o", out + ".tmp", src, "-lpthread"] + \
        list(extra_flags)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError("building %s failed:\n$ %s\n%s" %
                         (name, " ".join(cmd), proc.stderr[-3000:]))
    os.replace(out + ".tmp", out)
    return out


def openblas_available():
    return os.path.exists(os.path.join(OPENBLAS_INCLUDE, "cblas.h")) and \
        os.path.exists(os.path.join(OPENBLAS_LIBDIR, "libopenblas.so"))


def build_sgemm(ctx):
    if not openblas_available():
        raise BenchError(
            "OpenBLAS is missing (%s/cblas.h, %s/libopenblas.so): run "
            "bash bench/setup.sh (installs Debian's libopenblas-dev)" %
            (OPENBLAS_INCLUDE, OPENBLAS_LIBDIR))
    return build(ctx, "sgemm_bench",
                 ["-I" + OPENBLAS_INCLUDE, "-L" + OPENBLAS_LIBDIR,
                  "-lopenblas", "-Wl,-rpath," + OPENBLAS_LIBDIR])


def fma_peak(ctx, threads, seconds, tries=3):
    """(isa, GFLOP/s) of the FMA microbenchmark on THREADS threads; the
    best of TRIES tries of SECONDS each (a peak is a maximum)."""
    exe = build(ctx, "fma_peak")
    best, isa = 0.0, None
    for _ in range(tries):
        proc = subprocess.run([exe, str(threads), str(seconds)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise BenchError("fma_peak failed: " + proc.stderr.strip())
        values = dict(line.split(None, 1) for line in
                      proc.stdout.splitlines() if " " in line)
        isa = values["isa"].strip()
        best = max(best, float(values["gflops"]))
    return isa, best


# Below this many GB/s of coherence's "other-read" stores (a core rewriting
# lines the other core has read), two threads sit on cores that share no L3:
# on the 2-vCPU VMs 2.1-2.3 GB/s then, 6-9 GB/s with a shared L3
# (docs/Performance.md, The machine).
SPLIT_L3_GBPS = 4.0


def other_read_gbps(ctx):
    """coherence's "other-read" GB/s on two threads (about 5 ms): how fast
    a core rewrites lines the other core holds."""
    exe = build(ctx, "coherence")
    proc = subprocess.run([exe, "512", "20"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError("coherence failed: " + proc.stderr.strip())
    for line in proc.stdout.splitlines():
        name, _, value = line.partition(" ")
        if name == "other-read":
            return float(value)
    raise BenchError("coherence printed no other-read line")


_PACKED = re.compile(r"\bv(fmadd|fmsub|fnmadd|fnmsub)\d*ps\b|\bv(mul|add)ps\b")
_SCALAR = re.compile(r"\bv(fmadd|fmsub|fnmadd|fnmsub)\d*ss\b|\bv?(mul|add)ss\b")


def _imports(so_path, symbol):
    """Whether the shared library has SYMBOL as an undefined dynamic symbol
    (None when nm is missing)."""
    nm = shutil.which("nm") or shutil.which("llvm-nm-22")
    if not nm:
        return None
    proc = subprocess.run([nm, "-D", "--undefined-only", so_path],
                          capture_output=True, text=True)
    return proc.returncode == 0 and any(
        line.split()[-1] == symbol for line in proc.stdout.splitlines()
        if line.split())


# Runtime kernels compiled models call for their contractions; their code
# is in the runtime library, not in the model's shared library.
_RUNTIME_KERNELS = ("tandem_sgemm_f32", "tandem_sgemm_bias_f32",
                    "tandem_conv2d_f32")


def _census_file(objdump, path, counts):
    proc = subprocess.run([objdump, "-d", "--no-show-raw-insn", path],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return False
    for line in proc.stdout.splitlines():
        if _PACKED.search(line):
            for reg in ("zmm", "ymm", "xmm"):
                if "%" + reg in line:
                    counts[reg] += 1
                    break
        elif _SCALAR.search(line):
            counts["scalar"] += 1
    return True


def _archive_references(archive, symbol):
    """Whether some member of the static library leaves SYMBOL undefined,
    i.e. calls it."""
    nm = shutil.which("nm") or shutil.which("llvm-nm-22")
    if not nm or not os.path.exists(archive):
        return False
    proc = subprocess.run([nm, "--undefined-only", archive],
                          capture_output=True, text=True)
    return any(line.split()[-1] == symbol
               for line in proc.stdout.splitlines() if line.split())


def vector_census(so_path, runtime_archive=None):
    """Counts packed vs scalar f32 multiply/add/FMA instructions in the
    shared library's code (objdump), by register width, plus the runtime
    library's when the model calls its kernels (tandem_sgemm_f32,
    tandem_conv2d_f32), and whether the work reaches tandem_parallel_for
    (directly, or through those kernels). None without objdump."""
    objdump = shutil.which("objdump") or shutil.which("llvm-objdump-22")
    if not objdump:
        return None
    counts = {"zmm": 0, "ymm": 0, "xmm": 0, "scalar": 0,
              "parallel_for": _imports(so_path, "tandem_parallel_for"),
              "runtime_kernels": []}
    if not _census_file(objdump, so_path, counts):
        return None
    counts["runtime_kernels"] = [k for k in _RUNTIME_KERNELS
                                 if _imports(so_path, k)]
    if counts["runtime_kernels"] and runtime_archive and \
            os.path.exists(runtime_archive):
        _census_file(objdump, runtime_archive, counts)
        if not counts["parallel_for"]:
            counts["parallel_for"] = _archive_references(
                runtime_archive, "tandem_parallel_for")
    return counts
