"""tandem.serve: a compiled model as a Ray Serve deployment.

    app = tandem.serve.deployment("model.so", replicas=2)
    ray.serve.run(app)                           # or tandem.serve.run(...)

    python -m tandem.serve model.so --replicas 2 --port 8000 [--address ...]

Each replica loads the model once. Requests carry one sample each; Serve's
dynamic batching (@serve.batch) gathers up to the artifact's batch size (the
leading dimension every input and output shares), the replica pads a partial
batch with zeros, runs it once and hands each caller its row. Replicas ask
Ray for CPUs, or a GPU when the artifact has GPU partitions
(`ray_actor_options`); the health check fails when the model is closed or,
with require_device, when it fell back to the CPU. GET on the route reports
the device and the fallback reason. docs/Serving.md has the protocol.

Needs `ray[serve]` (not a dependency of the base package).
"""
import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Union

import numpy as np
from ray import serve
from starlette.requests import Request
from starlette.responses import JSONResponse

from .errors import TandemError
from .model import BoundRun, ModelInfo, inspect, load

__all__ = ["TandemDeployment", "deployment", "package_dir", "run", "main"]

DEFAULT_BATCH_WAIT_S = 0.005


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


@serve.deployment
class TandemDeployment:
    """One replica: a tandem.Model and a batch queue in front of it.

    HTTP: POST {"inputs": {"x": <nested list>}} -> {"outputs": {"y": ...},
    "replica": "<id>"}; GET -> the health report. Python: a handle's
    `infer.remote({"x": array})` returns {"y": array}."""

    def __init__(self, path: Optional[str], *, model_bytes: Optional[bytes] =
                 None, file_name: str = "model.so", threads: int = 1,
                 device: Optional[str] = "auto",
                 max_batch_size: Optional[int] = None,
                 batch_wait_timeout_s: float = DEFAULT_BATCH_WAIT_S,
                 require_device: bool = False) -> None:
        if model_bytes is not None:
            # Shipped with the deployment: this node may not see the path.
            self._dir = tempfile.mkdtemp(prefix="tandem-serve-")
            path = os.path.join(self._dir, os.path.basename(file_name))
            with open(path, "wb") as f:
                f.write(model_bytes)
        if path is None:
            raise ValueError("TandemDeployment needs a path or model_bytes")
        self.info: ModelInfo = inspect(path)
        self.model = load(path, threads=threads, device=device,
                          log_fallback=False)
        self.require_device = require_device
        self.batch = self.info.batch_size()
        if max_batch_size is not None and self.batch is not None:
            size = max(1, min(max_batch_size, self.batch))
        else:
            size = self.batch or 1
        # Attributes @serve.batch adds to the method.
        batched: Any = self._infer_batch
        batched.set_max_batch_size(size)
        batched.set_batch_wait_timeout_s(batch_wait_timeout_s)
        self.max_batch_size = size
        try:
            self.replica = serve.get_replica_context().replica_id.unique_id
        except Exception:  # outside Serve (unit use)
            self.replica = "local"
        # The batched path reuses one set of full-batch buffers (batches
        # run one at a time: max_concurrent_batches is 1).
        self._bound: Optional[BoundRun] = None
        if self.batch is not None:
            ins = [np.zeros(s.shape, s.dtype) for s in self.info.inputs]
            self._bound = self.model.bind(ins)
        self.requests = 0
        self.batches = 0
        self.rows = 0
        if model_bytes is not None:
            # Loaded (dlopen keeps the mapping): the copy can go, so that a
            # replica that is killed leaves nothing behind.
            shutil.rmtree(self._dir, ignore_errors=True)

    # --- health -------------------------------------------------------

    def check_health(self) -> None:
        """Serve's periodic health check: raising marks the replica
        unhealthy and Serve replaces it."""
        if self.model.closed:
            raise RuntimeError("model '%s' is closed" % self.info.name)
        reason = self.model.fallback_reason
        if self.require_device and reason:
            raise RuntimeError("model '%s' runs its GPU partitions on the "
                               "CPU: %s" % (self.info.name, reason))

    def health(self) -> Dict[str, Any]:
        """What GET returns: the model, where it runs and why."""
        return {
            "model": self.info.name,
            "replica": self.replica,
            "placement": self.info.placement,
            "device": self.model.device,
            "fallback_reason": self.model.fallback_reason,
            "healthy": not self.model.closed and not (
                self.require_device and self.model.fallback_reason),
            "batch_size": self.batch,
            "max_batch_size": self.max_batch_size,
            "inputs": [{"name": s.name, "shape": list(s.shape),
                        "dtype": s.dtype_name} for s in self.info.inputs],
            "outputs": [{"name": s.name, "shape": list(s.shape),
                         "dtype": s.dtype_name} for s in self.info.outputs],
            "requests": self.requests,
            "batches": self.batches,
            "rows": self.rows,
            "pid": os.getpid(),
            "model_path": self.info.path,
            "package": package_dir(),
        }

    # --- requests -----------------------------------------------------

    def _sample(self, inputs: Any) -> Dict[str, np.ndarray]:
        """Checks one request's inputs: every input by name, shaped like
        one row of the batch (or the whole input when the model has no
        batch dimension). Raises ValueError with the reason."""
        if not isinstance(inputs, dict):
            raise ValueError("'inputs' must be an object of input name -> "
                             "array")
        specs = self.info.inputs
        unknown = set(inputs) - {s.name for s in specs}
        if unknown:
            raise ValueError("unknown input%s %s (inputs: %s)" % (
                "" if len(unknown) == 1 else "s",
                ", ".join("'%s'" % u for u in sorted(unknown)),
                ", ".join(s.name for s in specs)))
        sample = {}
        for s in specs:
            if s.name not in inputs:
                raise ValueError("missing input '%s' (inputs: %s)" % (
                    s.name, ", ".join(x.name for x in specs)))
            shape = s.shape[1:] if self.batch is not None else s.shape
            value = inputs[s.name]
            if isinstance(value, np.ndarray):
                if value.dtype != s.dtype:
                    raise ValueError("input '%s': expected dtype %s, got %s"
                                     % (s.name, s.dtype_name, value.dtype))
                arr = value
            else:
                try:
                    arr = np.asarray(value, dtype=s.dtype)
                except (TypeError, ValueError) as e:
                    raise ValueError("input '%s': not an array of %s: %s" %
                                     (s.name, s.dtype_name, e)) from None
            if arr.shape != tuple(shape):
                raise ValueError("input '%s': expected shape %s, got %s" % (
                    s.name, list(shape), list(arr.shape)))
            sample[s.name] = arr
        return sample

    def _run_rows(self, samples: List[Dict[str, np.ndarray]]):
        """Runs up to one batch of samples: fills the bound buffers, pads
        the rest with zeros, runs once, copies each row out."""
        n = len(samples)
        bound = self._bound
        assert bound is not None  # only batched models come here
        for spec, buf in zip(self.info.inputs, bound.inputs):
            for i, sample in enumerate(samples):
                buf[i] = sample[spec.name]
            if n < buf.shape[0]:
                buf[n:] = 0
        bound()
        self.batches += 1
        self.rows += n
        return [{spec.name: out[i].copy() for spec, out in
                 zip(self.info.outputs, bound.outputs)} for i in range(n)]

    @serve.batch(max_batch_size=1, batch_wait_timeout_s=DEFAULT_BATCH_WAIT_S)
    async def _infer_batch(self, samples: List[Dict[str, np.ndarray]]):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._run_rows, samples)

    async def infer(self, inputs: Dict[str, Any]) -> Dict[str, np.ndarray]:
        """One sample in, its outputs out (the handle API)."""
        sample = self._sample(inputs)
        self.requests += 1
        if self.batch is not None:
            return await self._infer_batch(sample)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: self.model.run(sample))

    async def __call__(self, request: Request):
        if request.method == "GET":
            return JSONResponse(self.health())
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError) as e:
            return _error(400, "the body is not JSON: %s" % e)
        if not isinstance(body, dict) or "inputs" not in body:
            return _error(400, "expected {\"inputs\": {name: array, ...}}")
        try:
            outputs = await self.infer(body["inputs"])
        except ValueError as e:  # includes tandem.InvalidArgumentError
            return _error(400, "model '%s': %s" % (self.info.name, e))
        except TandemError as e:
            return _error(500, str(e))
        return JSONResponse({"outputs": {k: v.tolist() for k, v in
                                         outputs.items()},
                             "replica": self.replica})


def package_dir() -> str:
    """The directory of this tandem package (with its runtime library when
    installed): what runtime_env py_modules ships to a cluster's nodes."""
    return os.path.dirname(os.path.abspath(__file__))


def _actor_options(info: ModelInfo, num_cpus: Optional[float],
                   num_gpus: Optional[float]) -> Dict[str, Any]:
    """CPUs for a CPU-only artifact, a GPU (and a CPU for the host side)
    for one with GPU partitions; explicit values win."""
    if info.placement == "gpu":
        return {"num_cpus": 1 if num_cpus is None else num_cpus,
                "num_gpus": 1 if num_gpus is None else num_gpus}
    opts: Dict[str, Any] = {"num_cpus": 1 if num_cpus is None else num_cpus}
    if num_gpus:
        opts["num_gpus"] = num_gpus
    return opts


def deployment(artifact: Union[str, os.PathLike, Any], *, replicas: int = 1,
               num_cpus: Optional[float] = None,
               num_gpus: Optional[float] = None,
               threads: Optional[int] = None, device: Optional[str] = "auto",
               max_batch_size: Optional[int] = None,
               batch_wait_timeout_s: float = DEFAULT_BATCH_WAIT_S,
               max_ongoing_requests: Optional[int] = None,
               require_device: bool = False, ship: bool = False,
               name: Optional[str] = None,
               health_check_period_s: Optional[float] = None,
               ray_actor_options: Optional[Dict[str, Any]] = None):
    """A Ray Serve application serving ARTIFACT (a tandem.Artifact or a
    path to a compiled `.so`), ready for serve.run().

    replicas: number of replicas (each loads the model once).
    num_cpus / num_gpus: per replica (default: 1 CPU; plus 1 GPU when the
        artifact has GPU partitions). ray_actor_options overrides both.
    threads: intra-op threads per replica (default: num_cpus rounded
        down, at least 1).
    device: as tandem.load (where GPU partitions run).
    max_batch_size: cap on the dynamic batch (default and maximum: the
        artifact's batch size; 1 when it has none).
    require_device: the health check fails when GPU partitions fell back
        to the CPU.
    ship: carry the artifact's bytes in the deployment, so that replicas on
        nodes that cannot read the path still load it (each writes them to
        a temporary file). The tandem package must be importable there too:
        installed, or shipped with ray.init(runtime_env={"py_modules":
        [tandem.serve.package_dir()]}) as run(ship=True) does.
    name: the deployment's name (default: tandem-<model name>).
    """
    path = os.path.abspath(os.fspath(artifact))
    info = inspect(path)
    opts = dict(ray_actor_options) if ray_actor_options else \
        _actor_options(info, num_cpus, num_gpus)
    if threads is None:
        threads = max(1, int(opts.get("num_cpus", 1) or 1))
    batch = info.batch_size() or 1
    size = min(max_batch_size, batch) if max_batch_size else batch
    if max_ongoing_requests is None:
        max_ongoing_requests = max(2 * size, 8)
    options: Dict[str, Any] = dict(
        name=name or "tandem-%s" % info.name, num_replicas=replicas,
        ray_actor_options=opts, max_ongoing_requests=max_ongoing_requests)
    if health_check_period_s is not None:
        options["health_check_period_s"] = health_check_period_s
    kwargs: Dict[str, Any] = dict(
        threads=threads, device=device, max_batch_size=max_batch_size,
        batch_wait_timeout_s=batch_wait_timeout_s,
        require_device=require_device)
    target: Optional[str] = path
    if ship:
        with open(path, "rb") as f:
            kwargs["model_bytes"] = f.read()
        kwargs["file_name"] = os.path.basename(path)
        target = None
    dep: Any = TandemDeployment  # a serve.Deployment once decorated
    return dep.options(**options).bind(target, **kwargs)


def run(artifact: Union[str, os.PathLike, Any], *, host: str = "127.0.0.1",
        port: int = 8000, address: Optional[str] = None,
        route_prefix: str = "/", app_name: str = "tandem",
        ray_cpus: Optional[int] = None, blocking: bool = False,
        ship: bool = False, **options: Any):
    """Starts Ray (a local instance with RAY_CPUS CPUs, or connects to the
    cluster at ADDRESS), Serve's HTTP proxy on HOST:PORT, and the
    deployment of ARTIFACT (tandem.serve.deployment(**options)); returns
    the DeploymentHandle. With blocking=True, serves until interrupted.

    ship: for nodes that have neither the tandem package nor the model
    file: the package (with its runtime library) goes to every worker as
    the job's runtime_env py_modules, and the model's bytes travel with the
    deployment. Needs Ray started here (not already initialized)."""
    import ray
    if not ray.is_initialized():
        kwargs: Dict[str, Any] = {}
        if ship:
            kwargs["runtime_env"] = {"py_modules": [package_dir()]}
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(include_dashboard=False, num_cpus=ray_cpus, **kwargs)
    elif ship:
        raise TandemError("tandem.serve.run(ship=True) starts Ray itself; "
                          "with Ray already initialized, pass runtime_env="
                          "{'py_modules': [tandem.serve.package_dir()]} to "
                          "ray.init and use deployment(ship=True)")
    serve.start(http_options={"host": host, "port": port})
    handle = serve.run(deployment(artifact, ship=ship, **options),
                       name=app_name, route_prefix=route_prefix)
    if blocking:
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            serve.shutdown()
    return handle


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m tandem.serve",
        description="Serve a compiled Tandem model (tandemc --emit=shared) "
        "over HTTP on Ray Serve: POST {\"inputs\": {name: array}} to "
        "http://HOST:PORT/ROUTE; GET reports the device and fallback.")
    p.add_argument("model", help="the compiled model (.so)")
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--host", default="127.0.0.1",
                   help="address the HTTP proxy listens on (default "
                   "127.0.0.1; 0.0.0.0 for every interface)")
    p.add_argument("--address", default=None,
                   help="an existing Ray cluster (e.g. ray://head:10001 or "
                   "auto); default: start a local Ray instance")
    p.add_argument("--route", default="/", help="route prefix")
    p.add_argument("--name", default=None, help="deployment name")
    p.add_argument("--num-cpus", type=float, default=None,
                   help="CPUs per replica (default 1)")
    p.add_argument("--num-gpus", type=float, default=None,
                   help="GPUs per replica (default 1 for artifacts with GPU "
                   "partitions, else 0)")
    p.add_argument("--threads", type=int, default=None,
                   help="intra-op threads per replica (default: --num-cpus)")
    p.add_argument("--device", default="auto",
                   help="where GPU partitions run: auto, cuda, cuda:N, "
                   "emulated, cpu")
    p.add_argument("--max-batch-size", type=int, default=None)
    p.add_argument("--batch-wait-ms", type=float,
                   default=DEFAULT_BATCH_WAIT_S * 1000)
    p.add_argument("--require-device", action="store_true",
                   help="fail the health check on a CPU fallback")
    p.add_argument("--ship", action="store_true",
                   help="send the tandem package (runtime_env py_modules) "
                   "and the model's bytes to the replicas, for clusters "
                   "whose nodes have neither")
    p.add_argument("--ray-cpus", type=int, default=None,
                   help="CPUs of the local Ray instance (default: all)")
    args = p.parse_args(argv)
    if not os.path.isfile(args.model):
        print("python -m tandem.serve: %s: no such file" % args.model,
              file=sys.stderr)
        return 1
    try:
        info = inspect(args.model)
    except TandemError as e:
        print("python -m tandem.serve: %s" % e, file=sys.stderr)
        return 1
    run(args.model, host=args.host, port=args.port, address=args.address,
        route_prefix=args.route, ray_cpus=args.ray_cpus,
        replicas=args.replicas, num_cpus=args.num_cpus,
        num_gpus=args.num_gpus, threads=args.threads, device=args.device,
        max_batch_size=args.max_batch_size,
        batch_wait_timeout_s=args.batch_wait_ms / 1000.0,
        require_device=args.require_device, ship=args.ship, name=args.name)
    print("tandem.serve: %s (%s) on http://%s:%d%s, %d replica%s; Ctrl-C "
          "stops" % (info.name, info.placement, args.host, args.port,
                     args.route, args.replicas,
                     "" if args.replicas == 1 else "s"), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        serve.shutdown()
    return 0


if __name__ == "__main__":
    # Serve the class of the importable module tandem.serve, not of
    # __main__, so that replicas import it instead of unpickling a copy.
    from tandem.serve import main as _main
    sys.exit(_main())
