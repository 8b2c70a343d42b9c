#!/usr/bin/env python3
"""Compile memory against weight size: compiles each model with
`tandemc --emit=obj --time-phases` and prints a Markdown table of its
weights, the peak RSS after import, after the graph phases and in all,
the compile time, and the issue's target: peak RSS at most the weights
plus 600 MiB (docs/Performance.md, "Compile memory").

The models are torchvision's VGG-11 (531 MB of weights, 411 MB in one
fully connected layer), transformers' BERT-base (12 layers, 436 MB),
torchvision's ResNet-50 and DenseNet-121, all with random weights,
exported by Debian's torch under /usr/bin/python3 into --models-dir
(bench/harness/export_torch.py, test/models/generate_hub_models.py).

usage: compile_memory.py [--tandemc BIN] [--models-dir DIR] [--work DIR]
                         [MODEL ...]
       (default MODEL: vgg11 hf_bert_base resnet50 densenet121)
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from harness.runtimes import run_measured  # noqa: E402
TORCH_PYTHON = "/usr/bin/python3"
# name: the exporter that makes it.
MODELS = {
    "vgg11": "torch",
    "hf_bert_base": "hub",
    "resnet50": "torch",
    "densenet121": "torch",
}
TARGET_EXTRA_MIB = 600


def export(name, models_dir):
    path = os.path.join(models_dir, name + ".onnx")
    if os.path.exists(path):
        return path
    script = (os.path.join(HERE, "harness", "export_torch.py")
              if MODELS[name] == "torch" else
              os.path.join(ROOT, "test", "models", "generate_hub_models.py"))
    subprocess.run([TORCH_PYTHON, script, models_dir, name], check=True)
    return path


def weight_mib(path):
    """The bytes of the model's initializers, in MiB."""
    model = onnx.load(path, load_external_data=False)
    total = 0
    for init in model.graph.initializer:
        total += len(init.raw_data) if init.HasField("raw_data") else (
            onnx.numpy_helper.to_array(init).nbytes)
    return total / 2**20


def compile_model(tandemc, path, work):
    shape_file = path[:-5] + ".shape"
    flags = shlex.split(open(shape_file).read()) if os.path.exists(
        shape_file) else []
    out = os.path.join(work, os.path.basename(path)[:-5] + ".o")
    # Started from a small process: a child of this one would count this
    # one's peak RSS (the loaded model) as its own.
    rc, output, seconds, _ = run_measured(
        [tandemc, path, "--emit=obj", "-o", out, "--time-phases"] + flags)
    if rc != 0:
        sys.exit("tandemc failed on %s: %s" % (path, output))
    peaks = {}
    for line in output.splitlines():
        m = re.match(r"phase (\S+)\s+[\d.]+ ms\s+peak RSS\s+([\d.]+) MiB",
                     line)
        if m:
            peaks[m.group(1)] = float(m.group(2))
    return seconds, peaks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc",
                        default=os.path.join(ROOT, "build", "bin", "tandemc"))
    parser.add_argument("--models-dir",
                        default=os.path.join(ROOT, "build", "models"))
    parser.add_argument("--work",
                        default=os.path.join(ROOT, "build", "bench",
                                             "compile-memory"))
    parser.add_argument("models", nargs="*", default=list(MODELS))
    args = parser.parse_args()
    for name in args.models:
        if name not in MODELS:
            sys.exit("compile_memory.py: unknown model %s (known: %s)" %
                     (name, ", ".join(MODELS)))
    os.makedirs(args.models_dir, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    print("| model | weights MiB | peak RSS after import MiB | after graph "
          "MiB | peak RSS MiB | compile s | target MiB | met |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    failed = False
    for name in args.models:
        path = export(name, args.models_dir)
        weights = weight_mib(path)
        seconds, peaks = compile_model(args.tandemc, path, args.work)
        peak = max(peaks.values())
        target = weights + TARGET_EXTRA_MIB
        met = peak <= target
        failed |= not met
        print("| %s | %.0f | %.0f | %.0f | %.0f | %.1f | %.0f | %s |" % (
            name, weights, peaks.get("import", 0), peaks.get("graph", 0),
            peak, seconds, target, "yes" if met else "NO"))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
