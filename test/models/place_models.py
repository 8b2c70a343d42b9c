#!/usr/bin/env python3
"""Integration test: places the torch-exported models on a CPU + H100 target.

usage: place_models.py --tandemc BIN --models DIR [--set ci|full] [NAME...]

For each model, runs `tandemc --compile-to=partitioned --target=cpu,gpu:sm_90
--cpu-model=generic` with a JSON placement report, then checks the expectations
below against the partitioned IR and the report: how many values cross each
way, and which share of the compute ops lands on the GPU. Prints
"torch-placement: N passed, M failed".
"""
import argparse
import json
import os
import re
import subprocess
import sys

# name: (values copied host->device, values copied device->host,
#        minimum share of compute ops on the GPU)
EXPECT = {
    # A CNN runs on the GPU as a whole: the image goes up, the logits down.
    "resnet18": (1, 1, 0.95),
    "resnet50": (1, 1, 0.95),
    "mobilenet_v2": (1, 1, 0.95),
    # The encoder layer too: its input up, its output down.
    "transformer_encoder": (1, 1, 0.9),
    # The MLP (batch 64) is worth the GPU as well.
    "mlp": (1, 1, 0.9),
}
CI = ["resnet18", "mobilenet_v2", "transformer_encoder", "mlp"]


def transfers(ir):
    """Values copied per direction, from the transfer ops of the schedule."""
    up = down = 0
    for line in ir.splitlines():
        m = re.search(r"tandem\.transfer (.*) from \"(/device:\w+:\d+)\" to "
                      r"\"(/device:\w+:\d+)\"", line)
        if not m:
            continue
        count = len(m.group(1).split(","))
        if "CPU" in m.group(2) and "GPU" in m.group(3):
            up += count
        elif "GPU" in m.group(2) and "CPU" in m.group(3):
            down += count
    return up, down


def check(tandemc, models, name, tmp):
    onnx_path = os.path.join(models, name + ".onnx")
    flags = open(os.path.join(models, name + ".shape")).read().split()
    report_path = os.path.join(tmp, name + ".placement.json")
    proc = subprocess.run(
        [tandemc, onnx_path, "--emit=mlir", "--compile-to=partitioned",
         "--target=cpu,gpu:sm_90", "--cpu-model=generic",
         "--placement-report=" + report_path,
         "--mlir-elide-resource-strings-if-larger=16"] + flags,
        capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return "tandemc failed: " + proc.stderr.strip()[:2000]
    want_up, want_down, want_share = EXPECT[name]
    up, down = transfers(proc.stdout)
    if (up, down) != (want_up, want_down):
        return "copies host->device %d, device->host %d; expected %d, %d" % (
            up, down, want_up, want_down)
    report = json.load(open(report_path))
    ops = [op for f in report["functions"] for op in f["ops"]
           if op["op"] != "tandem.constant"]
    on_gpu = sum(1 for op in ops if "GPU" in op["device"])
    share = on_gpu / max(1, len(ops))
    if share < want_share:
        host = [op["node"] + " (" + op["op"] + ", " + op["reason"] + ")"
                for op in ops if "GPU" not in op["device"]]
        return "%.0f%% of %d ops on the GPU, expected %.0f%%; on the host: %s" % (
            100 * share, len(ops), 100 * want_share, ", ".join(host[:20]))
    print("     %s: %d/%d ops on the GPU, %d+%d values copied, %.1f us "
          "estimated (%.1f us on the CPU alone)" % (
              name, on_gpu, len(ops), up, down,
              report["functions"][0]["estimated_latency_us"],
              report["functions"][0]["host_only_latency_us"]))
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--set", choices=["ci", "full"], default="ci")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or (CI if args.set == "ci" else list(EXPECT))
    tmp = os.path.join(args.models, "placement")
    os.makedirs(tmp, exist_ok=True)
    passed = failed = 0
    for name in names:
        problem = check(args.tandemc, args.models, name, tmp)
        if problem:
            failed += 1
            print("FAIL %s: %s" % (name, problem))
        else:
            passed += 1
            print("PASS %s" % name)
    print("torch-placement: %d passed, %d failed" % (passed, failed))
    return 1 if failed or not names else 0


if __name__ == "__main__":
    sys.exit(main())
