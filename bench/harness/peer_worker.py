#!/usr/bin/env python3
"""Runs one model on XLA (jax.jit), IREE or TVM in a child process of the
harness, so that its thread count can be enforced before the runtime
starts its thread pool (CPU affinity and the runtime's own flags), and so
that jax's, IREE's and TVM's LLVMs stay out of the harness's process.

usage: peer_worker.py xla|iree|tvm MODEL THREADS INPUTS.npz [--cpus 0,1]

MODEL is the .onnx file for xla, the compiled .vmfb for iree, the library
tvm_build.py exported for tvm. The worker
first pins itself to THREADS CPUs (the first THREADS of --cpus, else of its
allowed set), then sets up the runtime (for xla: translate and jit-compile)
and prints one line `ready {json}`. Then it answers commands on stdin, one
a line, each with one line on stdout:

    run N W        W untimed then N timed calls: `times {json}` with the
                   times in ms, the process's CPU time over the timed
                   calls (cpu_ms), their wall time (wall_ms) and the
                   process's thread count (threads)
    outputs PATH   saves the outputs of one call to PATH (.npz, out0...)
    quit

Every call's time is perf_counter_ns around the call including the wait
for its results (block_until_ready for jax, to_host for IREE; TVM's CPU
VM returns when its outputs are written). On an error
it prints `error MESSAGE` and exits 1.
"""
import json
import os
import sys
import time
import traceback


def pin(threads, cpus):
    allowed = sorted(os.sched_getaffinity(0))
    pool = [c for c in cpus if c in allowed] if cpus else allowed
    if len(pool) < threads:
        raise RuntimeError("asked for %d threads, only CPUs %s are allowed" %
                           (threads, pool))
    chosen = pool[:threads]
    os.sched_setaffinity(0, chosen)
    return chosen


def xla_flags(threads):
    """XLA_FLAGS for THREADS intra-op threads. XLA's CPU thread pool takes
    its size from the CPUs the process may run on (the affinity set above);
    at one thread, the Eigen multi-threading is also switched off."""
    flags = os.environ.get("XLA_FLAGS", "")
    if threads == 1:
        flags += " --xla_cpu_multi_thread_eigen=false"
    return flags.strip()


class Xla:
    def __init__(self, path, threads, inputs):
        os.environ["XLA_FLAGS"] = xla_flags(threads)
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        import numpy as np
        import onnx
        sys.path.insert(0, os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        from harness import onnx_to_jax
        model = onnx.load(path)
        fn, params, names, _ = onnx_to_jax.translate(model)
        self.np, self.jax = np, jax
        self.params = jax.device_put(params)
        missing = [n for n in names if n not in inputs]
        if missing:
            raise RuntimeError("no input for %s" % missing)
        self.xs = [jax.device_put(inputs[n]) for n in names]
        start = time.perf_counter()
        self.jitted = jax.jit(fn).lower(self.params, *self.xs).compile()
        self.compile_s = time.perf_counter() - start
        self.info = {"jax": jax.__version__,
                     "xla_flags": os.environ["XLA_FLAGS"],
                     "compile_s": self.compile_s}

    def call(self):
        out = self.jitted(self.params, *self.xs)
        self.jax.block_until_ready(out)
        return out

    def outputs(self):
        return [self.np.asarray(o) for o in self.call()]


class Iree:
    def __init__(self, path, threads, inputs, function):
        import numpy as np
        import iree.runtime as ireert
        # Flags of the local-task driver, before the device is made.
        ireert.flags.parse_flags("--task_topology_group_count=%d" % threads)
        self.np = np
        self.device = ireert.get_device("local-task")
        config = ireert.Config(device=self.device)
        with open(path, "rb") as f:
            vmfb = f.read()
        self.ctx = ireert.SystemContext(config=config)
        vm_module = ireert.VmModule.copy_buffer(self.ctx.instance, vmfb)
        self.ctx.add_vm_module(vm_module)
        module = getattr(self.ctx.modules, vm_module.name)
        self.fn = module[function]
        self.xs = [ireert.asdevicearray(self.device, inputs[k])
                   for k in sorted(inputs, key=lambda k: int(k[2:]))]
        self.info = {"iree_runtime": getattr(ireert, "__version__", "?"),
                     "flags": "--task_topology_group_count=%d" % threads}

    def _results(self):
        out = self.fn(*self.xs)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        return [o.to_host() for o in out]

    def call(self):
        return self._results()

    def outputs(self):
        return [self.np.array(o) for o in self._results()]


class Tvm:
    def __init__(self, path, threads, inputs):
        # TVM's thread pool reads TVM_NUM_THREADS when it starts (the first
        # parallel kernel); set before tvm is imported.
        os.environ["TVM_NUM_THREADS"] = str(threads)
        import numpy as np
        import tvm
        from tvm import relax
        self.np = np
        lib = tvm.runtime.load_module(path)
        self.vm = relax.VirtualMachine(lib, tvm.cpu())
        self.fn = self.vm["main"]
        self.xs = [tvm.runtime.tensor(inputs[k], tvm.cpu())
                   for k in sorted(inputs, key=lambda k: int(k[2:]))]
        self.info = {"tvm": tvm.__version__,
                     "flags": "TVM_NUM_THREADS=%d" % threads}

    def call(self):
        return self.fn(*self.xs)

    def outputs(self):
        out = self.call()
        if hasattr(out, "numpy"):  # one tensor, else an array of them
            out = (out,)
        return [self.np.array(o.numpy()) for o in out]


def main(argv):
    kind, path, threads, inputs_path = argv[:4]
    threads = int(threads)
    cpus = None
    function = "main_graph"
    rest = argv[4:]
    while rest:
        flag = rest.pop(0)
        if flag == "--cpus":
            cpus = [int(c) for c in rest.pop(0).split(",")]
        elif flag == "--function":
            function = rest.pop(0)
        else:
            raise RuntimeError("unknown flag " + flag)
    chosen = pin(threads, cpus)
    import numpy as np
    with np.load(inputs_path) as z:
        inputs = {k: z[k] for k in z.files}
    if kind == "xla":
        rt = Xla(path, threads, inputs)
    elif kind == "iree":
        rt = Iree(path, threads, inputs, function)
    elif kind == "tvm":
        rt = Tvm(path, threads, inputs)
    else:
        raise RuntimeError("unknown runtime " + kind)
    info = dict(rt.info, cpus=chosen)
    print("ready " + json.dumps(info), flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "run":
            n, w = int(cmd[1]), int(cmd[2])
            for _ in range(w):
                rt.call()
            times = []
            cpu0, wall0 = time.process_time(), time.perf_counter()
            for _ in range(n):
                start = time.perf_counter_ns()
                rt.call()
                times.append((time.perf_counter_ns() - start) * 1e-6)
            cpu = (time.process_time() - cpu0) * 1e3
            wall = (time.perf_counter() - wall0) * 1e3
            print("times " + json.dumps({
                "times": times, "cpu_ms": cpu, "wall_ms": wall,
                "threads": len(os.listdir("/proc/self/task"))}), flush=True)
        elif cmd[0] == "outputs":
            outs = rt.outputs()
            np.savez(cmd[1], **{"out%d" % i: o for i, o in enumerate(outs)})
            print("saved", flush=True)
        elif cmd[0] == "quit":
            break
        else:
            raise RuntimeError("unknown command " + line.strip())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:  # reported to the harness as one line
        sys.stderr.write(traceback.format_exc())
        print("error %s: %s" % (type(e).__name__, str(e).replace("\n", " ")),
              flush=True)
        sys.exit(1)
