#!/usr/bin/env python3
"""Throughput of a compiled model served on Ray Serve (tandem.serve): 1 vs
2 replicas on a local Ray instance, HTTP on 127.0.0.1.

usage: .venv/bin/python bench/serve_bench.py [--build build] [--replicas 1,2]
           [--requests 600] [--clients 16] [--batch 8] [--width 1024]

Builds an MLP (x[N,W] -> 2W -> 2W -> W, ReLU between; fixed random weights)
with onnx.helper, compiles it with tandemc for batch --batch, and measures
 - the model alone in-process (tandem.Model, 1 thread), rows per second;
 - for each replica count: a deployment with that many replicas (1 intra-op
   thread each, num_cpus 0.5), warm-up, then --requests one-row POSTs from
   --clients client threads, then the same rows through the Python
   DeploymentHandle (no HTTP, no JSON); requests per second and the
   latency percentiles. Every answer is checked against onnxruntime.
Prints a Markdown table (docs/Serving.md has the recorded one). Not a
test: the figures depend on the machine and its load.
"""
import argparse
import concurrent.futures
import json
import os
import platform
import shutil
import socket
import sys
import tempfile
import time
import urllib.request

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mlp(width):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)

    def w(name, *shape):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(
                np.float32), name)
    nodes, inits, prev = [], [], "x"
    dims = [width, 2 * width, 2 * width, width]
    for i in range(3):
        nodes.append(helper.make_node("MatMul", [prev, "w%d" % i],
                                      ["m%d" % i], name="fc%d" % i))
        nodes.append(helper.make_node("Add", ["m%d" % i, "b%d" % i],
                                      ["a%d" % i], name="bias%d" % i))
        inits += [w("w%d" % i, dims[i], dims[i + 1]), w("b%d" % i,
                                                        dims[i + 1])]
        prev = "a%d" % i
        if i < 2:
            nodes.append(helper.make_node("Relu", [prev], ["r%d" % i],
                                          name="relu%d" % i))
            prev = "r%d" % i
    nodes[-1].output[0] = "y"
    graph = helper.make_graph(
        nodes, "serve_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["N", width])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, body):
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as r:
        out = json.loads(r.read())
        status = r.status
    return status, out, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--replicas", default="1,2")
    ap.add_argument("--requests", type=int, default=600)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--batch-wait-ms", type=float, default=5.0)
    args = ap.parse_args()

    os.environ.setdefault("TANDEM_RUNTIME_LIBRARY", os.path.join(
        args.build, "lib", "libtandem_runtime.so"))
    os.environ.setdefault("TANDEMC", os.path.join(args.build, "bin",
                                                  "tandemc"))
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    # Replicas import the package from the same place.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(ROOT, "python")] +
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    import onnxruntime as ort
    import tandem

    work = tempfile.mkdtemp(prefix="tandem-serve-bench-")
    proto = mlp(args.width)
    art = tandem.compile(proto, os.path.join(work, "serve_mlp.so"),
                         name="serve_mlp", cpu="native",
                         input_shapes={"x": (args.batch, args.width)})
    sess = ort.InferenceSession(proto.SerializeToString(),
                                providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    rows = rng.standard_normal((args.requests, args.width)).astype(np.float32)
    ref = sess.run(["y"], {"x": rows})[0]
    bodies = [json.dumps({"inputs": {"x": r.tolist()}}).encode()
              for r in rows]

    # The model alone, in-process, one thread: the ceiling of one replica.
    with art.load(threads=1) as m:
        x = rows[:args.batch].copy()
        bound = m.bind([x])
        for _ in range(5):
            bound()
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < 2.0:
            bound()
            n += 1
        alone = n * args.batch / (time.perf_counter() - start)
        np.testing.assert_allclose(bound.outputs[0], ref[:args.batch],
                                   rtol=1e-3, atol=1e-4)

    import ray
    from ray import serve
    import tandem.serve as tserve
    ray.init(include_dashboard=False, num_cpus=2, log_to_driver=False,
             object_store_memory=100 * 1024 * 1024)
    port = free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    url = "http://127.0.0.1:%d/m" % port
    results = []
    try:
        for replicas in [int(r) for r in args.replicas.split(",")]:
            app = tserve.deployment(
                art, replicas=replicas, num_cpus=0.5, threads=1,
                batch_wait_timeout_s=args.batch_wait_ms / 1000)
            handle = serve.run(app, name="bench", route_prefix="/m")
            with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
                list(pool.map(lambda b: post(url, b), bodies[:64]))  # warm-up
                start = time.perf_counter()
                answers = list(pool.map(lambda b: post(url, b), bodies))
                wall = time.perf_counter() - start
            bad = 0
            for i, (status, out, _) in enumerate(answers):
                if status != 200 or not np.allclose(
                        np.array(out["outputs"]["y"], np.float32), ref[i],
                        rtol=1e-3, atol=1e-4):
                    bad += 1
            lat = sorted(a[2] * 1000 for a in answers)
            served = len({a[1].get("replica") for a in answers})
            results.append(("HTTP JSON", replicas, served,
                            len(answers) / wall, lat[len(lat) // 2],
                            lat[int(len(lat) * 0.99)], bad))
            # The same rows through the Python handle (NumPy arrays over
            # Ray, no HTTP proxy, no JSON), --clients requests in flight.
            def call(row):
                t = time.perf_counter()
                y = handle.infer.remote({"x": row}).result(timeout_s=60)
                return y["y"], time.perf_counter() - t
            with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
                list(pool.map(call, rows[:64]))
                start = time.perf_counter()
                outs = list(pool.map(call, rows))
                wall = time.perf_counter() - start
            bad = sum(not np.allclose(y, ref[i], rtol=1e-3, atol=1e-4)
                      for i, (y, _) in enumerate(outs))
            lat = sorted(o[1] * 1000 for o in outs)
            results.append(("handle", replicas, served, len(outs) / wall,
                            lat[len(lat) // 2], lat[int(len(lat) * 0.99)],
                            bad))
            serve.delete("bench")
    finally:
        serve.shutdown()
        ray.shutdown()
        shutil.rmtree(work, ignore_errors=True)

    load = os.getloadavg()
    print("# tandem.serve throughput, %s" % time.strftime("%Y-%m-%d %H:%M"))
    print()
    print("- Machine: %s, %d logical CPUs, load average %.2f %.2f %.2f at "
          "the end" % (platform.processor() or platform.machine(),
                       os.cpu_count(), *load))
    print("- Model: MLP %d -> %d -> %d -> %d (ReLU), batch %d, "
          "`tandemc --cpu=native`; %d one-row JSON POSTs from %d client "
          "threads in this process, replicas of 0.5 CPU and 1 intra-op "
          "thread, batch wait %.1f ms" % (
              args.width, 2 * args.width, 2 * args.width, args.width,
              args.batch, args.requests, args.clients, args.batch_wait_ms))
    print("- The model alone (in-process, 1 thread, batch %d): %.0f rows/s"
          % (args.batch, alone))
    print()
    print("| path | replicas | replicas that answered (HTTP) | requests/s "
          "| p50 ms | p99 ms | wrong or failed |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print("| %s | %d | %d | %.0f | %.1f | %.1f | %d |" % r)
    for path in ("HTTP JSON", "handle"):
        rs = [r for r in results if r[0] == path]
        if len(rs) >= 2 and rs[0][3] > 0:
            print()
            print("%s: %d replicas give %.2fx the requests/s of %d" % (
                path, rs[-1][1], rs[-1][3] / rs[0][3], rs[0][1]))
    return 0 if all(r[6] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
