#!/usr/bin/env python3
"""Exports the models of scripts/gpu-check that need compressible weights.

Run with Debian's CPU torch (/usr/bin/python3). Nothing is downloaded.

usage: generate_gpu_check_models.py OUT_DIR

Writes OUT_DIR/resnet50_lowentropy.onnx (and .shape): torchvision's
ResNet-50 with seeded random weights that compress well, so that the
compiled artifact fits the 64 MiB a device run carries (see docs/GPU.md,
"Real GPU check"). Random float weights (100 MB) do not compress; these
still exercise real numerics:

- every conv and the classifier draw k = round(2 * N(0, 1)) clipped to
  [-8, 7] (16 levels, about 3 bits of entropy) times a per-layer power of
  two close to the Kaiming std / 2, so a weight is a short-mantissa float;
- every BatchNorm has eps = 0 and per-channel running_var in {1, 4},
  gamma in {0.5, 1} times a per-layer power of two (1/4 on the last BN of
  a bottleneck, which keeps the residual stream bounded), running_mean and
  beta on a 1/8 grid. Folding BN into the conv (tandemc does at compile
  time) multiplies each output channel by a power of two, so the folded
  weights stay on the same few values per layer.

The network's outputs at batch 1 and 32 are checked not to be degenerate.
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torchvision

SEED = 0


def pow2_near(x):
    return 2.0 ** round(math.log2(x))


def grid_weight(shape, std, gen):
    k = torch.clamp(torch.round(2.0 * torch.randn(shape, generator=gen)), -8, 7)
    return k * pow2_near(std / 2.0)


def lowentropy_resnet50():
    gen = torch.Generator().manual_seed(SEED)
    model = torchvision.models.resnet50(weights=None)
    last_bns = {id(block.bn3) for layer in (model.layer1, model.layer2,
                                            model.layer3, model.layer4)
                for block in layer}
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Conv2d):
                fan_in = m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1]
                m.weight.copy_(grid_weight(m.weight.shape, math.sqrt(2.0 / fan_in), gen))
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
                m.weight.copy_(grid_weight(m.weight.shape, math.sqrt(1.0 / m.in_features), gen))
                m.bias.copy_(torch.randint(-4, 5, (m.out_features,), generator=gen) / 8.0)
    return model.eval()


def check_outputs(model):
    gen = torch.Generator().manual_seed(SEED + 1)
    for batch in (1, 32):
        x = torch.rand((batch, 3, 224, 224), generator=gen) * 2 - 1
        with torch.no_grad():
            y = model(x)
        ok = bool(torch.isfinite(y).all()) and float(y.std()) > 1e-3
        line = "resnet50_lowentropy batch %d: outputs in [%.3g, %.3g], std %.3g" % (
            batch, float(y.min()), float(y.max()), float(y.std()))
        if batch > 1:
            # Random ResNets map every input close to one class pattern (all
            # inputs share an argmax); what varies with the input must still
            # be well above the 1e-3 relative tolerance of the comparison.
            across = float(y.std(dim=0).mean())
            ok = ok and across > 1e-2 * float(y.std())
            line += ", std across the batch %.3g" % across
        print(line)
        if not ok:
            sys.exit("resnet50_lowentropy: degenerate outputs at batch %d" % batch)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    model = lowentropy_resnet50()
    check_outputs(model)
    x = torch.rand((1, 3, 224, 224))
    path = os.path.join(out_dir, "resnet50_lowentropy.onnx")
    torch.onnx.export(model, (x,), path, opset_version=17,
                      input_names=["input0"], output_names=["output"],
                      do_constant_folding=True,
                      dynamic_axes={"input0": {0: "batch"}})
    with open(os.path.join(out_dir, "resnet50_lowentropy.shape"), "w") as f:
        f.write("--input-shape input0=1x3x224x224\n")


if __name__ == "__main__":
    sys.exit(main())
