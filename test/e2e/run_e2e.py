#!/usr/bin/env python3
"""End-to-end numeric test: compile models with tandemc, run them with
tandem-run, compare with onnxruntime.

usage: run_e2e.py --tandemc BIN --tandem-run BIN --work DIR
                  [--small base|dtypes|folds] [--models DIR]
                  [--set ci|full|hub-ci|hub-full]
                  [--threads T,...]
                  [--gpu all|island|two-gpus --devices D,...
                   [--gpu-twins mapped]]
                  [NAME...]

Each case is an ONNX model: the small hand-built ones of
test/tools/tandemc/Inputs/make_models.py (or, with --small dtypes, the
uint8 and float64 ones of dtype_models.py; with --small folds, the constant
subgraphs of fold_models.py) and the torch-exported ones in
--models (generate_torch_models.py; with --set hub-ci or hub-full, only the
timm and transformers exports of generate_hub_models.py). For each, the script draws inputs with
a fixed seed and computes the reference outputs with onnxruntime
(onnx_reference.py), compiles the model with `tandemc --emit=shared`, and
runs it with `tandem-run --compare` (rtol 1e-4, atol 1e-5 or 1e-6 x
max|reference| if larger) at each of the
--threads counts (default 1), whose outputs must also be bit-identical.

With --gpu, models are compiled for --target=cpu,gpu:sm_90 with every op
pinned to the GPU (`all`), or with one kind of op pinned to the CPU
between GPU parts (`island`: GPU -> CPU -> GPU copies at every such op),
or for two GPUs (`two-gpus`: --target=cpu,gpu:sm_90,gpu:sm_90, that kind of
op on /device:GPU:1 and every other op on /device:GPU:0, so values cross
between the GPUs through the host); --devices then runs each on those tandem-run --device values (emulated:
separate device memory, streams on threads; cpu: the fallback), which must
all match the reference and give bit-identical outputs. With
--gpu-twins mapped, the kernels' CPU twins run the GPU kernels' own mapping
(blocks, threads, warp shuffles and shared memory emulated on the host;
tandemc --gpu-twins=mapped), so those runs check the code a GPU executes.
With --gpu-precision tf32, bf16 or fp16 (tandemc --gpu-precision), the
GPU library GEMMs and convolutions round their operands to that format on
the emulated device and the CPU fallback as on tensor cores; the outputs
are then compared with PRECISION_TOL's tolerance of the mode (relative,
and absolute as that fraction of max|reference|), and each model's
largest error as a fraction of max|reference| is printed. --gpu-layout
nhwc (tandemc --gpu-layout; auto picks NHWC with those modes) puts the GPU
convolutions channels-last.
Prints "e2e: N passed, M failed". Run it with the
venv's Python (numpy, onnx, onnxruntime).
"""
import argparse
import os
import re
import subprocess
import sys

import numpy
import onnx
from onnx import helper

from onnx_reference import write_reference

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools", "tandemc", "Inputs"))

# (name, source, extra tandemc flags): source "small" models are built here,
# "torch" ones come from --models with their NAME.shape flags.
SMALL = ["mlp", "conv_block", "attention", "mlp_gelu", "windows",
         "window_attention", "partitions", "pool_mixer"]
CI_TORCH = ["mlp", "conv_bn_relu", "grouped_convs", "resnet18", "mobilenet_v2",
            "resnet18_bn", "mobilenet_v2_bn", "squeezenet1_0", "transformer_encoder", "lstm_tagger",
            "gru_encoder", "unet_small", "gpt_block", "audio_encoder",
            "detection_head", "video_classifier", "gpt_block_dynamic",
            "bert_block_dynamic"]
FULL_TORCH = CI_TORCH + ["bert_block", "bert_block_opset17",
                         "transformer_encoder_mask", "mnasnet0_5",
                         "shufflenet_v2_x0_5", "efficientnet_b0",
                         "mobilenet_v3_small", "resnet50",
                         "resnext50_32x4d", "swin_t", "maxvit_t",
                         "densenet121",
                         "googlenet",
                         "deeplabv3_mobilenet_v3_large",
                         "lraspp_mobilenet_v3_large"]
# timm and transformers exports (generate_hub_models.py): --set hub-ci and
# hub-full, where a model that was not exported is a failure.
HUB_CI = ["timm_efficientnet_b0", "timm_vit_small_patch16_224", "hf_bert",
          "hf_gpt2"]
HUB_FULL = HUB_CI + ["timm_mobilenetv3_large_100", "timm_convnext_tiny",
                     "timm_resnet50", "timm_regnety_004", "hf_distilbert",
                     "hf_t5_encoder",
                     "hf_vit", "hf_bert_base"]
SETS = {"ci": CI_TORCH, "full": FULL_TORCH, "hub-ci": HUB_CI,
        "hub-full": HUB_FULL}
RTOL, ATOL = 1e-4, 1e-5
# The absolute tolerance grows with the outputs' scale: at least SCALE_ATOL
# times max|reference| (about 8 float32 ulps of the largest output). A deep
# network's outputs near zero carry rounding from sums of values at the
# outputs' scale: ResNet-50's logits reach 74, and one logit of -0.0055
# differs from onnxruntime's by 2.5e-5 (3.4e-7 of the scale) only because
# the two sum in different orders.
SCALE_ATOL = 1e-6
# --gpu-precision: the tolerance of each mode that rounds GEMM and
# convolution operands, as rtol and as atol / max|reference| (docs/GPU.md,
# "Precision", has the errors measured on the model set).
# The absolute part has no floor: a mode that loses a model's small outputs
# (FP16 flushing values below 2^-24 to zero) fails however small they are.
PRECISION_TOL = {"tf32": 5e-3, "fp16": 5e-3, "bf16": 2e-2}
# --gpu island: the op kind each model keeps on the CPU, between GPU parts.
ISLAND = {"small_mlp": "tandem.relu", "small_conv_block": "tandem.max_pool2d",
          "small_mlp_gelu": "tandem.gelu",
          "small_attention": "tandem.softmax", "mlp": "tandem.relu",
          "small_window_attention": "tandem.softmax",
          "small_pool_mixer": "tandem.avg_pool2d",
          "conv_bn_relu": "tandem.relu", "resnet18": "tandem.add",
          "mobilenet_v2": "tandem.add", "squeezenet1_0": "tandem.concat",
          "transformer_encoder": "tandem.softmax"}


def gpu_flags(mode, name):
    if mode == "all":
        return ["--target=cpu,gpu:sm_90", "--place", "*=gpu"]
    if mode == "island":
        return ["--target=cpu,gpu:sm_90", "--place",
                ISLAND.get(name, "tandem.relu") + "=cpu", "--place", "*=gpu"]
    if mode == "two-gpus":
        return ["--target=cpu,gpu:sm_90,gpu:sm_90", "--place",
                ISLAND.get(name, "tandem.relu") + "=gpu:1", "--place",
                "*=gpu:0"]
    return []


def check(args, name, model_path, flags):
    work = args.work
    inputs, ref_paths = write_reference(model_path, flags, work, name)
    lib = os.path.join(work, name + ".so")
    precision = (getattr(args, "gpu_precision", "fp32")
                 if args.gpu != "none" else "fp32")
    proc = subprocess.run([args.tandemc, model_path, "--emit=shared", "-o",
                           lib] + flags + gpu_flags(args.gpu, name) +
                          (["--gpu-twins=" + args.gpu_twins,
                            "--gpu-precision=" + precision,
                            "--gpu-layout=" + getattr(args, "gpu_layout",
                                                      "auto"),
                            "--gpu-16bit-operands=" +
                            getattr(args, "gpu_16bit_operands", "auto")]
                           if args.gpu != "none" else []),
                          capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0:
        return "tandemc failed: " + proc.stderr.strip()[-2000:]
    outputs = {}
    scale = max(float(abs(numpy.load(p)).max(initial=0.0))
                for p in ref_paths) if ref_paths else 0.0
    atol, rtol = max(ATOL, SCALE_ATOL * scale), RTOL
    if precision in PRECISION_TOL:
        rtol = PRECISION_TOL[precision]
        atol = rtol * scale
    worst = 0.0
    configs = [(t, d) for t in args.threads for d in args.devices]
    for threads, device in configs:
        what = "--threads %d" % threads + (" --device " + device
                                           if device else "")
        out_dir = os.path.join(work, "%s.out%d%s" % (name, threads,
                                                    device or ""))
        cmd = [args.tandem_run, lib, "--threads", str(threads), "--input"] + \
            inputs + ["--compare"] + ref_paths + \
            ["--rtol", str(rtol), "--atol", str(atol), "--output-dir", out_dir]
        if device:
            cmd += ["--device", device]
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=1200)
        if proc.returncode != 0:
            return "tandem-run %s: %s" % (
                what, (proc.stdout + proc.stderr).strip()[-2000:])
        for error in re.findall(r"max abs error ([0-9.eE+-]+|inf|nan)",
                                proc.stdout):
            worst = max(worst, float(error))
        outputs[what] = {
            f: open(os.path.join(out_dir, f), "rb").read()
            for f in sorted(os.listdir(out_dir))}
    # Parallel loops split work without reordering any reduction, and the
    # emulated device and the CPU fallback run the same kernel twins: every
    # configuration must give the same bytes.
    names = list(outputs)
    for what in names[1:]:
        if outputs[what] != outputs[names[0]]:
            return "outputs with %s differ from %s" % (what, names[0])
    if precision != "fp32":
        print("  %s --gpu-precision=%s: max abs error %.3g, %.3g of "
              "max|reference| %.3g" % (name, precision, worst,
                                       worst / scale if scale else worst,
                                       scale))
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--tandem-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--models")
    parser.add_argument("--set", choices=list(SETS), default="ci")
    parser.add_argument("--threads", default="1",
                        help="comma-separated tandem-run --threads values; "
                        "each must match the reference, and all must give "
                        "bit-identical outputs")
    parser.add_argument("--gpu", choices=["none", "all", "island", "two-gpus"],
                        default="none",
                        help="compile with GPU partitions (see above)")
    parser.add_argument("--gpu-twins", choices=["linalg", "mapped"],
                        default="linalg",
                        help="with --gpu: what the kernels' CPU twins run "
                        "(tandemc --gpu-twins)")
    parser.add_argument("--gpu-precision",
                        choices=["fp32", "tf32", "bf16", "fp16"],
                        default="fp32",
                        help="with --gpu: tandemc --gpu-precision, compared "
                        "with the mode's tolerance (PRECISION_TOL)")
    parser.add_argument("--gpu-layout", choices=["auto", "nchw", "nhwc"],
                        default="auto",
                        help="with --gpu: tandemc --gpu-layout (auto: NHWC "
                        "with tf32/bf16/fp16)")
    parser.add_argument("--gpu-16bit-operands",
                        choices=["auto", "always", "never"], default="auto",
                        help="with --gpu: tandemc --gpu-16bit-operands (bf16 "
                        "and fp16 GEMMs reading 16-bit operands)")
    parser.add_argument("--devices", default="",
                        help="comma-separated tandem-run --device values")
    parser.add_argument("--small", choices=["base", "dtypes", "folds"],
                        default="base",
                        help="the hand-built models: make_models.py's f32 "
                        "ones, dtype_models.py's uint8 and f64 ones, or "
                        "fold_models.py's constant subgraphs")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    args.devices = [d for d in args.devices.split(",") if d] or [None]
    os.makedirs(args.work, exist_ok=True)

    import make_models
    cases = []
    hub = args.set.startswith("hub")
    if args.small == "dtypes":
        import dtype_models
        small = dtype_models.MODELS
    elif args.small == "folds":
        import fold_models
        small = fold_models.MODELS
    else:
        small = {name: make_models.MODELS[name] for name in SMALL}
    for name, build in (small.items() if not hub else ()):
        path = os.path.join(args.work, "small_" + name + ".onnx")
        onnx.save(build(), path)
        cases.append(("small_" + name, path, []))
    if args.models:
        for name in SETS[args.set]:
            path = os.path.join(args.models, name + ".onnx")
            if not os.path.exists(path) and hub:
                cases.append((name, path, None))
                continue
            if not os.path.exists(path):
                continue
            flags = open(os.path.join(args.models,
                                      name + ".shape")).read().split()
            cases.append((name, path, flags))
    if args.names:
        cases = [c for c in cases if c[0] in args.names]

    def run(case):
        name, path, flags = case
        if flags is None:
            return "not exported (%s is missing)" % path
        return check(args, name, path, flags)

    passed, failed = run_cases([(c[0], c) for c in cases], run)
    print("e2e: %d passed, %d failed" % (passed, failed))
    return 1 if failed or not cases else 0


def run_cases(cases, check_case):
    """Runs `check_case(item)` for each (name, item) of `cases`, which
    returns a problem or None; prints "PASS name" or "FAIL name: problem"
    (a crash in the harness is a failure too). Returns (passed, failed)."""
    passed = failed = 0
    for name, item in cases:
        try:
            problem = check_case(item)
        except Exception as e:
            problem = "harness error: %s" % e
        if problem:
            failed += 1
            print("FAIL %s: %s" % (name, problem))
        else:
            passed += 1
            print("PASS %s" % name)
        sys.stdout.flush()
    return passed, failed


def build_model(nodes, inputs, outputs, inits, opset, ir_version,
                check=True):
    """A one-graph ONNX model of the per-op drivers (run_*_ops.py), for the
    default domain at `opset`; with `check`, through onnx's strict shape
    inference (outputs get their shapes) and checker."""
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    if check:
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        onnx.checker.check_model(model)
    return model


def op_models_main(label, models, import_models=None, check_model=None,
                   prepare=None):
    """The command line of the per-op drivers (run_*_ops.py): each model of
    `models` (name -> function building the ONNX model) is saved under
    --work and checked with `check_model(args, name, path)` (default: this
    script's check against onnxruntime), or, with --write-only, only saved
    (with the `import_models` too, for the import lit tests). `prepare(name)`
    runs before a model is built (e.g. to seed its weights). Prints
    "LABEL: N passed, M failed"; returns the exit status."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--tandem-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--gpu", choices=["none", "all"], default="none")
    parser.add_argument("--gpu-twins", choices=["linalg", "mapped"],
                        default="linalg")
    parser.add_argument("--gpu-layout", choices=["auto", "nchw", "nhwc"],
                        default="auto")
    parser.add_argument("--devices", default="")
    parser.add_argument("--write-only", action="store_true")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    args.threads = [1]
    args.devices = [d for d in args.devices.split(",") if d] or [None]
    os.makedirs(args.work, exist_ok=True)
    wanted = [n for n in models if not args.names or n in args.names]
    if args.write_only:
        for name, make in (import_models or {}).items():
            if not args.names or name in args.names:
                onnx.save(make(), os.path.join(args.work, name + ".onnx"))
    paths = {}
    for name in wanted:
        paths[name] = os.path.join(args.work, name + ".onnx")
        if prepare:
            prepare(name)
        onnx.save(models[name](), paths[name])
    if args.write_only:
        return 0
    check_model = check_model or (
        lambda a, name, path: check(a, name, path, []))
    passed, failed = run_cases(
        [(name, name) for name in wanted],
        lambda name: check_model(args, name, paths[name]))
    print("%s: %d passed, %d failed" % (label, passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
