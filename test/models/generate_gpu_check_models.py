#!/usr/bin/env python3
"""Exports the models of scripts/gpu-check that need compressible weights.

Run with Debian's CPU torch (/usr/bin/python3). Nothing is downloaded.

usage: generate_gpu_check_models.py OUT_DIR [NAME...]

NAME is resnet50_lowentropy, mobilenet_v2_lowentropy or
bert_base_layer_lowentropy (default all three).
Writes OUT_DIR/NAME.onnx (and .shape): models with seeded random weights
that compress well, so that the compiled artifacts fit the 64 MiB a device
run carries (see docs/GPU.md, "Real GPU check"). Random float weights do
not compress (ResNet-50's are 100 MB, the BERT-base layer's 28 MB,
MobileNetV2's 14 MB); these still exercise real numerics.

resnet50_lowentropy is torchvision's ResNet-50:

- every conv and the classifier draw k = round(N(0, 1)) clipped to
  [-4, 3] (8 levels, about 2.1 bits of entropy) times a per-layer power of
  two close to the Kaiming std, so a weight is a short-mantissa float (the
  artifacts carry two sets of ResNet-50 weights: OIHW, and OHWI for NHWC
  convolutions);
- every BatchNorm has eps = 0 and per-channel running_var in {1, 4},
  gamma in {0.5, 1} times a per-layer power of two (1/4 on the last BN of
  a bottleneck, which keeps the residual stream bounded), running_mean and
  beta on a 1/8 grid. Folding BN into the conv (tandemc does at compile
  time) multiplies each output channel by a power of two, so the folded
  weights stay on the same few values per layer.

The network's outputs at batch 1 and 32 are checked not to be degenerate.

mobilenet_v2_lowentropy is torchvision's MobileNetV2 with the same rules,
but k = round(2 * N(0, 1)) in [-8, 7] (16 levels, about 3 bits) times a
power of two near the std / 2 (the last BN of each residual
inverted-residual block is the scaled one); checked at batch 1 and 8.

bert_base_layer_lowentropy is the benchmark's BERT-base-sized layer
(bench/harness/export_torch.py: hidden 768, 12 heads, FFN 3072, sequence
128), imported, with every Linear weight on the same 16-level grid times a
power of two near 1 / sqrt(fan_in) / 2, biases and LayerNorm betas on a
1/8 grid, LayerNorm gammas 1. Its second input is named `mask` (1 attends,
0 masks out), so that scripts/gpu-check draws it as a 0/1 mask rather than
uniform values (which would make every softmax row one-hot). Its outputs
are checked to be finite and to vary across the sequence and with the
input.
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 0


def pow2_near(x):
    return 2.0 ** round(math.log2(x))


def grid_weight(shape, std, gen, spread=2.0):
    """k = round(spread * N(0, 1)) clipped to [-4 spread, 4 spread - 1],
    times a power of two near std / spread."""
    k = torch.clamp(torch.round(spread * torch.randn(shape, generator=gen)),
                    -4 * spread, 4 * spread - 1)
    return k * pow2_near(std / spread)


def lowentropy_convnet(model, last_bns, gen, spread=2.0):
    """The grid weights and power-of-two BatchNorms described above."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Conv2d):
                fan_in = m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1]
                m.weight.copy_(grid_weight(m.weight.shape, math.sqrt(2.0 / fan_in), gen,
                                           spread))
            elif isinstance(m, nn.BatchNorm2d):
                c = m.num_features
                m.eps = 0.0
                layer_scale = 0.25 if id(m) in last_bns else 1.0
                m.running_var.copy_(torch.where(torch.rand(c, generator=gen) < 0.5,
                                                torch.tensor(1.0), torch.tensor(4.0)))
                gamma = torch.where(torch.rand(c, generator=gen) < 0.5,
                                    torch.tensor(0.5), torch.tensor(1.0))
                # gamma / sqrt(var) in {1/4, 1/2, 1}: the variance stays
                # about the same as with gamma = 1 / sqrt(var) = 1 ...
                m.weight.copy_(gamma * 2.0 * layer_scale)
                m.running_mean.copy_(torch.randint(-2, 3, (c,), generator=gen) / 8.0)
                m.bias.copy_(torch.randint(-2, 3, (c,), generator=gen) / 8.0)
            elif isinstance(m, nn.Linear):
                m.weight.copy_(grid_weight(m.weight.shape, math.sqrt(1.0 / m.in_features), gen,
                                           spread))
                m.bias.copy_(torch.randint(-4, 5, (m.out_features,), generator=gen) / 8.0)
    return model.eval()


def lowentropy_resnet50():
    gen = torch.Generator().manual_seed(SEED)
    model = torchvision.models.resnet50(weights=None)
    last_bns = {id(block.bn3) for layer in (model.layer1, model.layer2,
                                            model.layer3, model.layer4)
                for block in layer}
    # round(N(0, 1)) in [-4, 3]: about 2.1 bits a weight, so that its two
    # weight sets (OIHW for FP32 and NCHW rows, OHWI for NHWC ones) fit.
    return lowentropy_convnet(model, last_bns, gen, spread=1.0)


def lowentropy_mobilenet_v2():
    gen = torch.Generator().manual_seed(SEED)
    model = torchvision.models.mobilenet_v2(weights=None)
    last_bns = {id(block.conv[-1]) for block in model.features
                if getattr(block, "use_res_connect", False)}
    return lowentropy_convnet(model, last_bns, gen)


def check_outputs(model, name="resnet50_lowentropy", batches=(1, 32)):
    gen = torch.Generator().manual_seed(SEED + 1)
    for batch in batches:
        x = torch.rand((batch, 3, 224, 224), generator=gen) * 2 - 1
        with torch.no_grad():
            y = model(x)
        ok = bool(torch.isfinite(y).all()) and float(y.std()) > 1e-3
        line = "%s batch %d: outputs in [%.3g, %.3g], std %.3g" % (
            name, batch, float(y.min()), float(y.max()), float(y.std()))
        if batch > 1:
            # Random convnets map every input close to one class pattern
            # (all inputs share an argmax); what varies with the input must
            # still be well above the 1e-3 relative tolerance of the
            # comparison.
            across = float(y.std(dim=0).mean())
            ok = ok and across > 1e-2 * float(y.std())
            line += ", std across the batch %.3g" % across
        print(line)
        if not ok:
            sys.exit("%s: degenerate outputs at batch %d" % (name, batch))


def bert_base_ctor():
    """bench/harness/export_torch.py's bert_base_layer constructor."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "harness"))
    import export_torch
    ctor, shapes, _, opset = export_torch.BENCH_MODELS["bert_base_layer"]
    return ctor, shapes, opset


def lowentropy_bert_base():
    gen = torch.Generator().manual_seed(SEED)
    ctor, _, _ = bert_base_ctor()
    model = ctor()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                m.weight.copy_(grid_weight(m.weight.shape,
                                           math.sqrt(1.0 / m.in_features), gen))
                m.bias.copy_(torch.randint(-2, 3, (m.out_features,),
                                           generator=gen) / 8.0)
            elif isinstance(m, nn.LayerNorm):
                m.weight.fill_(1.0)
                m.bias.copy_(torch.randint(-2, 3, m.bias.shape,
                                           generator=gen) / 8.0)
    return model.eval()


def bert_inputs(batch, gen):
    _, shapes, _ = bert_base_ctor()
    x = torch.rand((batch,) + tuple(shapes[0][1:]), generator=gen) * 2 - 1
    mask = torch.ones((batch,) + tuple(shapes[1][1:]))
    mask[..., -8:] = 0.0
    return x, mask


def check_bert_outputs(model):
    gen = torch.Generator().manual_seed(SEED + 1)
    x, mask = bert_inputs(1, gen)
    x2, _ = bert_inputs(1, gen)
    with torch.no_grad():
        y, y2 = model(x, mask), model(x2, mask)
    across = float(y.std(dim=1).mean())
    moved = float((y - y2).abs().mean())
    print("bert_base_layer_lowentropy: outputs in [%.3g, %.3g], std %.3g, "
          "std across the sequence %.3g, mean change with the input %.3g" % (
              float(y.min()), float(y.max()), float(y.std()), across, moved))
    if not (bool(torch.isfinite(y).all()) and across > 0.1 and moved > 0.1):
        sys.exit("bert_base_layer_lowentropy: degenerate outputs")


def export_convnet(out_dir, name, model):
    x = torch.rand((1, 3, 224, 224))
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, (x,), path, opset_version=17,
                      input_names=["input0"], output_names=["output"],
                      do_constant_folding=True,
                      dynamic_axes={"input0": {0: "batch"}})
    with open(os.path.join(out_dir, name + ".shape"), "w") as f:
        f.write("--input-shape input0=1x3x224x224\n")


def export_resnet50(out_dir):
    model = lowentropy_resnet50()
    check_outputs(model)
    export_convnet(out_dir, "resnet50_lowentropy", model)


def export_mobilenet_v2(out_dir):
    model = lowentropy_mobilenet_v2()
    check_outputs(model, "mobilenet_v2_lowentropy", (1, 8))
    export_convnet(out_dir, "mobilenet_v2_lowentropy", model)


def export_bert_base(out_dir):
    model = lowentropy_bert_base()
    check_bert_outputs(model)
    _, shapes, opset = bert_base_ctor()
    x, mask = bert_inputs(1, torch.Generator().manual_seed(SEED + 2))
    path = os.path.join(out_dir, "bert_base_layer_lowentropy.onnx")
    torch.onnx.export(model, (x, mask), path, opset_version=opset,
                      input_names=["input0", "mask"], output_names=["output"],
                      do_constant_folding=True,
                      dynamic_axes={"input0": {0: "batch"},
                                    "mask": {0: "batch"}})
    with open(os.path.join(out_dir, "bert_base_layer_lowentropy.shape"),
              "w") as f:
        f.write("--input-shape input0=%s --input-shape mask=%s\n" % tuple(
            "x".join(map(str, s)) for s in shapes))


EXPORTS = {"resnet50_lowentropy": export_resnet50,
           "mobilenet_v2_lowentropy": export_mobilenet_v2,
           "bert_base_layer_lowentropy": export_bert_base}


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    out_dir, names = sys.argv[1], sys.argv[2:] or list(EXPORTS)
    for name in names:
        if name not in EXPORTS:
            sys.exit("generate_gpu_check_models.py: unknown model %s (from "
                     "%s)" % (name, ", ".join(EXPORTS)))
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        EXPORTS[name](out_dir)


if __name__ == "__main__":
    sys.exit(main())
