"""tandem.serve on a local Ray cluster (loopback only): two replicas of the
MLP behind Serve's HTTP proxy on 127.0.0.1, a bounded burst of concurrent
requests checked against onnxruntime, bad requests, the health report, and
killed replicas: one killed while idle is routed around and replaced with
no failed request; one killed under load fails at most the requests it was
running (Serve does not replay those), each of which succeeds on one retry.

Bounded: one Ray instance of 2 CPUs (0.5 per replica), at most 64 requests
per burst, every wait with a deadline."""
import concurrent.futures
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

import tandem

import onnx_models
from conftest import ATOL, RTOL

# Ray binds its own servers to the node address; with this it takes
# 127.0.0.1 as that address (everything listens on loopback only).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray")
serve = pytest.importorskip("ray.serve")
import tandem.serve as tserve  # noqa: E402  (needs ray)

APP = "tandem-test"
BURST = 64
CLIENTS = 16


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url, body, timeout=30):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            return e.code, json.loads(text or b"{}")
        except ValueError:  # Serve's own errors are plain text
            return e.code, {"error": text.decode(errors="replace")}


def _get(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def test_cli_serves(mlp):
    """`python -m tandem.serve model.so --replicas 1 --port P` starts a
    local Ray instance and serves; Ctrl-C stops it. (First in this file:
    it runs before the module's own Ray instance starts.)"""
    import signal
    import subprocess
    import sys
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tandem.serve", mlp.path, "--replicas", "1",
         "--port", str(port), "--ray-cpus", "1", "--num-cpus", "0.5"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = ""
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            line = proc.stdout.readline()
            if line.startswith("tandem.serve:"):
                break
        assert line.startswith("tandem.serve: mlp (cpu) on "
                               "http://127.0.0.1:%d/, 1 replica" % port), line
        x = np.linspace(-1, 1, 16, dtype=np.float32)
        status, body = _post("http://127.0.0.1:%d/" % port,
                             {"inputs": {"x": x.tolist()}})
        assert status == 200
        ref = onnx_models.reference(mlp.proto, {"x": np.stack([x] * 4)})
        np.testing.assert_allclose(np.array(body["outputs"]["y"],
                                            np.float32), ref["y"][0],
                                   rtol=RTOL, atol=ATOL)
        assert _get("http://127.0.0.1:%d/" % port)["device"] == "cpu"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def cluster():
    """A local Ray instance whose workers get the tandem package the way a
    cluster's nodes would: shipped as the job's py_modules, not through
    this process's PYTHONPATH (removed from the environment Ray starts
    with). Run from the source tree, the package has no runtime of its own,
    so its location goes along in TANDEM_RUNTIME_LIBRARY."""
    env = dict(os.environ)
    os.environ.pop("PYTHONPATH", None)
    if not os.path.isfile(os.path.join(tserve.package_dir(), "_lib",
                                       "libtandem_runtime.so")):
        os.environ["TANDEM_RUNTIME_LIBRARY"] = tandem.runtime_library()
    try:
        ray.init(include_dashboard=False, num_cpus=2,
                 object_store_memory=100 * 1024 * 1024, log_to_driver=False,
                 runtime_env={"py_modules": [tserve.package_dir()]})
    finally:
        os.environ.clear()
        os.environ.update(env)
    assert [n["NodeManagerAddress"] for n in ray.nodes()] == ["127.0.0.1"]
    port = _free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    yield "http://127.0.0.1:%d" % port
    serve.shutdown()
    ray.shutdown()


@pytest.fixture(scope="module")
def mlp_app(cluster, mlp):
    # ship: the replicas load the model from bytes sent with the
    # deployment, not from this path.
    app = tserve.deployment(mlp.artifact, replicas=2, num_cpus=0.5,
                            batch_wait_timeout_s=0.02, ship=True,
                            health_check_period_s=1)
    serve.run(app, name=APP, route_prefix="/mlp")
    return cluster + "/mlp"


def _burst(url, rows):
    """POSTs every row at once from CLIENTS threads; returns the
    (status, body) of each, in order."""
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(
            lambda r: _post(url, {"inputs": {"x": r.tolist()}}), rows))


def _check_answers(mlp, rows, answers):
    ref = onnx_models.reference(mlp.proto, {"x": np.stack(rows)})["y"]
    failed = [(i, a) for i, a in enumerate(answers) if a[0] != 200]
    assert failed == []
    for i, (_, body) in enumerate(answers):
        np.testing.assert_allclose(np.array(body["outputs"]["y"], np.float32),
                                   ref[i], rtol=RTOL, atol=ATOL)
    return {body["replica"] for _, body in answers}


def _replicas(name):
    st = serve.status().applications[APP].deployments[name]
    return st.replica_states.get("RUNNING", 0), st.status


def test_burst_matches_onnxruntime(mlp_app, mlp):
    rng = np.random.default_rng(7)
    rows = [rng.standard_normal(16).astype(np.float32) for _ in range(BURST)]
    seen = _check_answers(mlp, rows, _burst(mlp_app, rows))
    assert len(seen) == 2  # both replicas answered
    health = [_get(mlp_app) for _ in range(8)]
    by_replica = {h["replica"]: h for h in health}
    for h in by_replica.values():
        assert h["model"] == "mlp" and h["placement"] == "cpu"
        assert h["device"] == "cpu" and h["fallback_reason"] is None
        assert h["healthy"] and h["batch_size"] == 4
        assert h["max_batch_size"] == 4
        # The package came as py_modules, the model as bytes.
        assert "runtime_resources" in h["package"]
        assert h["model_path"] != mlp.path
        assert h["package"] != tserve.package_dir()
    # Serve batched the requests: fewer model runs than rows, none over 4.
    total_rows = sum(h["rows"] for h in by_replica.values())
    total_batches = sum(h["batches"] for h in by_replica.values())
    if len(by_replica) == 2:
        assert total_rows == BURST
    assert total_batches < total_rows <= 4 * total_batches


def test_bad_requests(mlp_app):
    status, body = _post(mlp_app, {"inputs": {"x": [1.0, 2.0]}})
    assert status == 400
    assert "input 'x': expected shape [16], got [2]" in body["error"]
    status, body = _post(mlp_app, {"inputs": {}})
    assert status == 400 and "missing input 'x'" in body["error"]
    status, body = _post(mlp_app, {"inputs": {"x": [0.0] * 16, "z": 1}})
    assert status == 400 and "unknown input 'z'" in body["error"]
    status, body = _post(mlp_app, {"x": [0.0] * 16})
    assert status == 400 and "expected {\"inputs\"" in body["error"]
    status, body = _post(mlp_app, b"{not json")
    assert status == 400 and "not JSON" in body["error"]
    status, body = _post(mlp_app, {"inputs": {"x": ["a"] * 16}})
    assert status == 400 and "not an array of f32" in body["error"]


def test_handle_api(mlp_app, mlp):
    handle = serve.get_app_handle(APP)
    x = np.arange(16, dtype=np.float32) / 16
    out = handle.infer.remote({"x": x}).result(timeout_s=30)
    ref = onnx_models.reference(mlp.proto, {"x": np.stack([x] * 4)})["y"][0]
    np.testing.assert_allclose(out["y"], ref, rtol=RTOL, atol=ATOL)


def _replica_actors(name):
    return [a for a in ray.util.list_named_actors(all_namespaces=True)
            if a["name"].startswith("SERVE_REPLICA::%s#%s#" % (APP, name))]


def _wait_for_two(name, gone):
    deadline = time.time() + 90
    while time.time() < deadline:
        ids = [a["name"].rsplit("#", 1)[1] for a in _replica_actors(name)]
        if _replicas(name)[0] == 2 and gone not in ids and len(ids) == 2:
            return ids
        time.sleep(0.5)
    pytest.fail("no replacement replica within 90 s: %s" % (_replicas(name),))


def test_killed_replica_is_replaced(mlp_app, mlp):
    name = "tandem-mlp"
    assert _replicas(name)[0] == 2
    actors = _replica_actors(name)
    assert len(actors) == 2
    victim = actors[0]
    victim_id = victim["name"].rsplit("#", 1)[1]
    ray.kill(ray.get_actor(victim["name"], namespace=victim["namespace"]),
             no_restart=True)
    rng = np.random.default_rng(8)
    # Right after the kill: every request still answered (Serve routes
    # around the dead replica), all correct.
    rows = [rng.standard_normal(16).astype(np.float32) for _ in range(32)]
    seen = _check_answers(mlp, rows, _burst(mlp_app, rows))
    assert victim_id not in seen
    # Serve starts a replacement; wait (bounded) for two RUNNING again.
    current = _wait_for_two(name, victim_id)
    rows = [rng.standard_normal(16).astype(np.float32) for _ in range(BURST)]
    seen = _check_answers(mlp, rows, _burst(mlp_app, rows))
    assert set(current) == seen  # the replacement serves too


def test_replica_killed_under_load(mlp_app, mlp):
    """A replica killed while requests run on it: Serve does not replay
    the requests it was executing (they get HTTP 500, or under heavy load
    hang until the client's timeout), so at most its max_ongoing_requests
    (8) fail, and each succeeds on one retry; every answer is right and a
    replacement comes up."""
    name = "tandem-mlp"
    victim = _replica_actors(name)[0]
    victim_id = victim["name"].rsplit("#", 1)[1]
    rng = np.random.default_rng(9)
    # Enough rows that the burst outlasts the kill itself (ray.kill can take
    # longer than a fast machine needs for a hundred requests).
    rows = [rng.standard_normal(16).astype(np.float32) for _ in range(400)]
    done = [0]
    lock = threading.Lock()

    def attempt(r):
        try:
            return _post(mlp_app, {"inputs": {"x": r.tolist()}}, timeout=20)
        except (socket.timeout, urllib.error.URLError) as e:
            # Under heavy load a request that was on the dying replica
            # can hang instead of failing: the client's timeout ends it.
            return 0, {"error": repr(e)}

    def one(r):
        first = attempt(r)
        with lock:
            done[0] += 1
        if first[0] == 200:
            return first, False
        return attempt(r), True

    def killer():
        deadline = time.time() + 30
        while done[0] < 40 and time.time() < deadline:
            time.sleep(0.01)
        actor = ray.get_actor(victim["name"], namespace=victim["namespace"])
        # When the kill is issued, not when ray.kill returns.
        killed_at.append(done[0])
        ray.kill(actor, no_restart=True)
        killed_at.append(done[0])
    killed_at = []
    k = threading.Thread(target=killer)
    k.start()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(one, rows))
    k.join()
    # The kill landed mid-burst, with requests still running and queued.
    assert killed_at and 40 <= killed_at[0] < len(rows) - 2 * CLIENTS, \
        "kill issued after %s and done after %s of %d requests" % (
            killed_at[0], killed_at[-1], len(rows))
    retried = sum(r for _, r in results)
    assert retried <= 8
    _check_answers(mlp, rows, [a for a, _ in results])
    _wait_for_two(name, victim_id)


def test_gpu_artifact_placement(mlp_gpu, mlp):
    """A GPU artifact asks Ray for a GPU, a CPU one for CPUs only; the
    health check fails on a CPU fallback when a device is required."""
    gpu = tandem.inspect(mlp_gpu.path)
    cpu = tandem.inspect(mlp.path)
    assert tserve._actor_options(gpu, None, None) == {"num_cpus": 1,
                                                      "num_gpus": 1}
    assert tserve._actor_options(cpu, 0.5, None) == {"num_cpus": 0.5}
    assert tserve._actor_options(gpu, 2, 0.5) == {"num_cpus": 2,
                                                  "num_gpus": 0.5}
    cls = tserve.TandemDeployment.func_or_class
    replica = cls(mlp_gpu.path, device="cpu", require_device=True)
    h = replica.health()
    assert h["placement"] == "gpu" and h["device"] == "cpu"
    assert h["fallback_reason"] == "device 'cpu' requested"
    assert not h["healthy"]
    with pytest.raises(RuntimeError, match="runs its GPU partitions on the "
                       "CPU: device 'cpu' requested"):
        replica.check_health()
    ok = cls(mlp_gpu.path, device="emulated", require_device=True)
    ok.check_health()
    assert ok.health()["device"] == "emulated"
    ok.model.close()
    with pytest.raises(RuntimeError, match="closed"):
        ok.check_health()


def test_cli_errors(tmp_path, capsys):
    assert tserve.main([str(tmp_path / "missing.so")]) == 1
    assert "no such file" in capsys.readouterr().err
    junk = tmp_path / "junk.so"
    junk.write_text("x")
    assert tserve.main([str(junk)]) == 1
    assert "cannot load the model" in capsys.readouterr().err
