#!/usr/bin/env python3
"""Exports the integration-test models to ONNX with torch and torchvision.

Run with Debian's CPU torch (/usr/bin/python3 with python3-torch and
python3-torchvision). Weights are random (fixed seed); nothing is downloaded.

usage: generate_torch_models.py OUT_DIR [--set ci|full] [NAME...]

Each model is written as OUT_DIR/NAME.onnx; NAME.shape holds the input
shapes to pass to tandemc as --input-shape flags.
"""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torchvision

torch.manual_seed(0)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(784, 512), nn.ReLU(),
                                    nn.Linear(512, 512), nn.ReLU(),
                                    nn.Linear(512, 10))

    def forward(self, x):
        return self.layers(x)


class BertBlock(nn.Module):
    """A BERT-style encoder block: self-attention with an additive mask,
    residual + LayerNorm, GELU feed-forward, residual + LayerNorm."""

    def __init__(self, hidden=256, heads=4, ffn=1024):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.q = nn.Linear(hidden, hidden)
        self.k = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, hidden)
        self.o = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ff1 = nn.Linear(hidden, ffn)
        self.ff2 = nn.Linear(ffn, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x, mask):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = q @ k.transpose(-1, -2) / (self.head_dim ** 0.5)
        scores = scores + (1.0 - mask[:, None, None, :]) * -10000.0
        ctx = torch.softmax(scores, dim=-1) @ v
        b, h, s, d = ctx.shape
        ctx = ctx.transpose(1, 2).reshape(b, s, h * d)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.ff2(nn.functional.gelu(self.ff1(x))))


def conv_bn_relu():
    return nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32),
                         nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1),
                         nn.BatchNorm2d(32), nn.ReLU())


def encoder_layer():
    return nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=512,
                                      batch_first=True, dropout=0.1)


class EncoderWithMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = encoder_layer()

    def forward(self, x, mask):
        return self.layer(x, src_key_padding_mask=mask)


def vision(name):
    return lambda: getattr(torchvision.models, name)(weights=None)


IMAGE = [(1, 3, 224, 224)]
# name: (constructor, input shapes, input dtypes, opset)
MODELS = {
    "resnet18": (vision("resnet18"), IMAGE, None, 13),
    "mobilenet_v2": (vision("mobilenet_v2"), IMAGE, None, 14),
    "squeezenet1_0": (vision("squeezenet1_0"), IMAGE, None, 13),
    "mobilenet_v3_small": (vision("mobilenet_v3_small"), IMAGE, None, 17),
    "shufflenet_v2_x0_5": (vision("shufflenet_v2_x0_5"), IMAGE, None, 13),
    "efficientnet_b0": (vision("efficientnet_b0"), IMAGE, None, 15),
    "mnasnet0_5": (vision("mnasnet0_5"), IMAGE, None, 13),
    "resnet50": (vision("resnet50"), IMAGE, None, 17),
    "densenet121": (vision("densenet121"), IMAGE, None, 13),
    "googlenet": (lambda: torchvision.models.googlenet(weights=None,
                                                      aux_logits=False,
                                                      init_weights=True),
                  IMAGE, None, 14),
    "regnet_x_400mf": (vision("regnet_x_400mf"), IMAGE, None, 16),
    "alexnet": (vision("alexnet"), IMAGE, None, 13),
    "convnext_tiny": (vision("convnext_tiny"), IMAGE, None, 17),
    "transformer_encoder": (encoder_layer, [(1, 128, 256)], None, 14),
    "transformer_encoder_mask": (EncoderWithMask, [(1, 128, 256), (1, 128)],
                                 [torch.float32, torch.bool], 17),
    "bert_block": (BertBlock, [(1, 128, 256), (1, 128)], None, 13),
    "bert_block_opset17": (BertBlock, [(1, 128, 256), (1, 128)], None, 17),
    "mlp": (Mlp, [(64, 784)], None, 13),
    "conv_bn_relu": (conv_bn_relu, [(1, 3, 64, 64)], None, 13),
}

# The representative subset CI runs; --set full adds the large models.
CI_SET = ["resnet18", "mobilenet_v2", "squeezenet1_0", "mobilenet_v3_small",
          "shufflenet_v2_x0_5", "efficientnet_b0", "mnasnet0_5",
          "transformer_encoder", "transformer_encoder_mask", "bert_block",
          "bert_block_opset17", "mlp", "conv_bn_relu"]


def export(name, out_dir):
    ctor, shapes, dtypes, opset = MODELS[name]
    model = ctor().eval()
    dtypes = dtypes or [torch.float32] * len(shapes)
    inputs = []
    for shape, dtype in zip(shapes, dtypes):
        if dtype == torch.bool:
            t = torch.zeros(shape, dtype=torch.bool)
            t[..., -8:] = True  # pad the last positions
        else:
            t = torch.rand(shape, dtype=dtype)
        inputs.append(t)
    names = ["input%d" % i for i in range(len(inputs))]
    path = os.path.join(out_dir, name + ".onnx")
    # Export with autograd on: torch then skips the fused, non-exportable
    # fast path of nn.TransformerEncoderLayer.
    torch.onnx.export(model, tuple(inputs), path, opset_version=opset,
                      input_names=names, output_names=["output"],
                      do_constant_folding=True,
                      dynamic_axes={n: {0: "batch"} for n in names})
    with open(os.path.join(out_dir, name + ".shape"), "w") as f:
        f.write(" ".join("--input-shape %s=%s" % (n, "x".join(map(str, s)))
                         for n, s in zip(names, shapes)) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--set", choices=["ci", "full"], default="ci")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or (CI_SET if args.set == "ci" else list(MODELS))
    os.makedirs(args.out_dir, exist_ok=True)
    for name in names:
        target = os.path.join(args.out_dir, name + ".onnx")
        if os.path.exists(target):
            continue
        print("exporting", name, flush=True)
        export(name, args.out_dir)


if __name__ == "__main__":
    sys.exit(main())
