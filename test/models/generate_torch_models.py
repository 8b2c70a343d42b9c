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


def grouped_convs():
    """Grouped convolutions as ResNeXt and RegNet have them: 4 groups with a
    BatchNorm and ReLU, a strided 8-group one, and a depthwise one with two
    filters per channel (groups = channels, which is not the depthwise
    kernel's multiplier-1 form)."""
    return nn.Sequential(
        nn.Conv2d(16, 32, 3, padding=1, groups=4), nn.BatchNorm2d(32),
        nn.ReLU(), nn.Conv2d(32, 64, 3, stride=2, padding=1, groups=8),
        nn.Conv2d(64, 128, 3, padding=1, groups=64), nn.ReLU())


def encoder_layer():
    return nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=512,
                                      batch_first=True, dropout=0.1)


class EncoderWithMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = encoder_layer()

    def forward(self, x, mask):
        return self.layer(x, src_key_padding_mask=mask)


class LstmTagger(nn.Module):
    """A 2-layer bidirectional LSTM tagger (batch first) with a classifier."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(64, 96, num_layers=2, bidirectional=True,
                            batch_first=True)
        self.out = nn.Linear(192, 10)

    def forward(self, x):
        return self.out(self.lstm(x)[0])


class GruEncoder(nn.Module):
    """A GRU over a sequence (time first); the last hidden state."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(32, 64)

    def forward(self, x):
        return self.gru(x)[1]


class UNetSmall(nn.Module):
    """A two-level UNet: GroupNorm, ReLU, max-pool down, ConvTranspose and
    bilinear Upsample up, skip concatenations."""

    def __init__(self):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1),
                                 nn.GroupNorm(4, o), nn.ReLU())
        self.d1, self.d2, self.mid = block(3, 16), block(16, 32), block(32, 64)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.u2 = block(64, 32)
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear",
                               align_corners=False)
        self.u1 = block(48, 16)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(self.pool(a))
        m = self.mid(self.pool(b))
        u = self.u2(torch.cat([self.up2(m), b], 1))
        return self.head(self.u1(torch.cat([self.up1(u), a], 1)))


class GptBlock(nn.Module):
    """A GPT-style block: causal self-attention (a Trilu mask of the
    scores), LayerNorm before each half, GELU MLP."""

    def __init__(self, hidden=128, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(),
                                 nn.Linear(4 * hidden, hidden))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        scores = q @ k.transpose(-2, -1) / (c // self.heads) ** 0.5
        future = torch.triu(torch.ones_like(scores), diagonal=1).bool()
        scores = scores.masked_fill(future, float("-inf"))
        att = torch.softmax(scores, -1) @ v
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.ln2(x))


class AudioEncoder(nn.Module):
    """A 1-D convolutional audio encoder: strided Conv1d, GroupNorm, GELU,
    then a mean over time."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, 32, 10, stride=5), nn.GroupNorm(32, 32), nn.GELU(),
            nn.Conv1d(32, 64, 3, stride=2), nn.GELU(),
            nn.Conv1d(64, 64, 3, stride=2, padding=1), nn.GELU())

    def forward(self, x):
        return self.net(x).mean(-1)


class DetectionHead(nn.Module):
    """A YOLO-style neck and head: LeakyReLU convs, nearest Resize up,
    concatenation with the finer map, a 1x1 prediction conv."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(64, 32, 1), nn.LeakyReLU(0.1))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.c2 = nn.Sequential(nn.Conv2d(64, 32, 3, padding=1),
                                nn.LeakyReLU(0.1))
        self.pred = nn.Conv2d(32, 3 * 9, 1)

    def forward(self, coarse, fine):
        return self.pred(self.c2(torch.cat([self.up(self.c1(coarse)), fine],
                                           1)))


class VideoClassifier(nn.Module):
    """A small 3-D CNN video classifier (C3D-style): Conv3d + BatchNorm3d +
    ReLU blocks, MaxPool3d, a temporal-only conv, AdaptiveAvgPool3d and a
    Linear head. BatchNorm statistics are random, so that they matter."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(3, 16, 3, padding=1), nn.BatchNorm3d(16), nn.ReLU(),
            nn.MaxPool3d((1, 2, 2)),
            nn.Conv3d(16, 32, 3, stride=(1, 2, 2), padding=1),
            nn.BatchNorm3d(32), nn.ReLU(),
            nn.MaxPool3d(2, ceil_mode=True),
            nn.Conv3d(32, 32, (3, 1, 1), padding=(1, 0, 0)),
            nn.BatchNorm3d(32), nn.ReLU(),
            nn.AdaptiveAvgPool3d(1))
        self.fc = nn.Linear(32, 10)
        for m in self.modules():
            if isinstance(m, nn.BatchNorm3d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.5, 0.5)
                nn.init.uniform_(m.running_mean, -0.5, 0.5)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def vision(name):
    return lambda: getattr(torchvision.models, name)(weights=None)


def segmentation(name):
    """A torchvision segmentation model with random weights, its backbone's
    too (no download), returning the dict's "out" tensor."""
    class Out(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = getattr(torchvision.models.segmentation, name)(
                weights=None, weights_backbone=None)

        def forward(self, x):
            return self.model(x)["out"]
    return Out


def trained_bn(ctor):
    """`ctor` with BatchNorm statistics and affine parameters drawn at random,
    as a trained network has them: folded into the convolutions they give
    non-zero biases and uneven scales (torchvision's fresh BatchNorm folds
    to a zero bias, which leaves the kernels' bias paths untested)."""
    def build():
        model = ctor()
        gen = torch.Generator().manual_seed(5)
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                with torch.no_grad():
                    c = m.num_features
                    m.weight.copy_(torch.rand(c, generator=gen) + 0.5)
                    m.bias.copy_(torch.rand(c, generator=gen) - 0.5)
                    m.running_mean.copy_(torch.rand(c, generator=gen) - 0.5)
                    m.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
        return model
    return build


IMAGE = [(1, 3, 224, 224)]
# name: (constructor, input shapes, input dtypes, opset)
MODELS = {
    "resnet18": (vision("resnet18"), IMAGE, None, 13),
    "mobilenet_v2": (vision("mobilenet_v2"), IMAGE, None, 14),
    # The same with trained-like BatchNorms (non-zero folded biases).
    "resnet18_bn": (trained_bn(vision("resnet18")), IMAGE, None, 13),
    "mobilenet_v2_bn": (trained_bn(vision("mobilenet_v2")), IMAGE, None, 14),
    "squeezenet1_0": (vision("squeezenet1_0"), IMAGE, None, 13),
    "mobilenet_v3_small": (vision("mobilenet_v3_small"), IMAGE, None, 17),
    "shufflenet_v2_x0_5": (vision("shufflenet_v2_x0_5"), IMAGE, None, 13),
    "efficientnet_b0": (vision("efficientnet_b0"), IMAGE, None, 15),
    "mnasnet0_5": (vision("mnasnet0_5"), IMAGE, None, 13),
    "resnet50": (vision("resnet50"), IMAGE, None, 17),
    # Grouped 3x3 convolutions (32 groups of 4 to 32 channels).
    "resnext50_32x4d": (trained_bn(vision("resnext50_32x4d")), IMAGE, None,
                        17),
    "densenet121": (vision("densenet121"), IMAGE, None, 13),
    "googlenet": (lambda: torchvision.models.googlenet(weights=None,
                                                      aux_logits=False,
                                                      init_weights=True),
                  IMAGE, None, 14),
    "regnet_x_400mf": (vision("regnet_x_400mf"), IMAGE, None, 16),
    "alexnet": (vision("alexnet"), IMAGE, None, 13),
    "convnext_tiny": (vision("convnext_tiny"), IMAGE, None, 17),
    # Shifted-window attention: Dropout in training mode with ratio 0, and
    # ScatterND indices built through Expand (import fixes of 2026-12-06).
    "swin_t": (vision("swin_t"), IMAGE, None, 17),
    # Window and grid attention between NCHW MBConv blocks: reshapes and
    # permutes between the partitions, K scaled before its transpose.
    "maxvit_t": (vision("maxvit_t"), IMAGE, None, 17),
    # Segmentation heads: dilated depthwise convs, bilinear Resize, and
    # DeepLab's ASPP convs whose outer taps only read padding at 224x224.
    "deeplabv3_mobilenet_v3_large": (segmentation(
        "deeplabv3_mobilenet_v3_large"), IMAGE, None, 17),
    "lraspp_mobilenet_v3_large": (segmentation("lraspp_mobilenet_v3_large"),
                                  IMAGE, None, 17),
    "transformer_encoder": (encoder_layer, [(1, 128, 256)], None, 14),
    "transformer_encoder_mask": (EncoderWithMask, [(1, 128, 256), (1, 128)],
                                 [torch.float32, torch.bool], 17),
    "bert_block": (BertBlock, [(1, 128, 256), (1, 128)], None, 13),
    "bert_block_opset17": (BertBlock, [(1, 128, 256), (1, 128)], None, 17),
    "mlp": (Mlp, [(64, 784)], None, 13),
    "conv_bn_relu": (conv_bn_relu, [(1, 3, 64, 64)], None, 13),
    "grouped_convs": (trained_bn(grouped_convs), [(1, 16, 20, 20)], None, 13),
    # Models that need the wider op set: recurrent layers, ConvTranspose,
    # GroupNorm, Resize, Trilu, 1-D and 3-D convolutions, LeakyRelu.
    "lstm_tagger": (LstmTagger, [(2, 16, 64)], None, 14),
    "gru_encoder": (GruEncoder, [(12, 2, 32)], None, 14),
    "unet_small": (UNetSmall, [(1, 3, 64, 64)], None, 17),
    "gpt_block": (GptBlock, [(1, 64, 128)], None, 17),
    "audio_encoder": (AudioEncoder, [(1, 1, 4000)], None, 17),
    "detection_head": (DetectionHead, [(1, 64, 13, 13), (1, 32, 26, 26)],
                       None, 13),
    "video_classifier": (VideoClassifier, [(1, 3, 8, 56, 56)], None, 17),
    # Exports whose batch and sequence dims are symbolic (dynamic_axes),
    # compiled at other sizes than the export traced (DYNAMIC): the bound
    # dims must propagate through the Shape/Gather/Concat subgraphs.
    "gpt_block_dynamic": (GptBlock, [(2, 64, 128)], None, 17),
    "bert_block_dynamic": (BertBlock, [(2, 32, 256), (2, 32)], None, 17),
}

# name: (symbolic dims of each input, the shapes to compile at). Models not
# listed export their batch dim as symbolic and compile at the traced shape.
DYNAMIC = {
    "gpt_block_dynamic": ([{0: "batch", 1: "seq"}], [(1, 40, 128)]),
    "bert_block_dynamic": ([{0: "batch", 1: "seq"}, {0: "batch", 1: "seq"}],
                           [(3, 20, 256), (3, 20)]),
}

# The representative subset CI runs; --set full adds the large models.
CI_SET = ["resnet18", "mobilenet_v2", "resnet18_bn", "mobilenet_v2_bn",
          "squeezenet1_0", "mobilenet_v3_small",
          "shufflenet_v2_x0_5", "efficientnet_b0", "mnasnet0_5",
          "transformer_encoder", "transformer_encoder_mask", "bert_block",
          "bert_block_opset17", "mlp", "conv_bn_relu", "grouped_convs",
          "lstm_tagger",
          "gru_encoder", "unet_small", "gpt_block", "audio_encoder",
          "detection_head", "video_classifier", "gpt_block_dynamic",
          "bert_block_dynamic"]


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
    dims, compile_shapes = DYNAMIC.get(
        name, ([{0: "batch"}] * len(names), shapes))
    path = os.path.join(out_dir, name + ".onnx")
    # Export with autograd on: torch then skips the fused, non-exportable
    # fast path of nn.TransformerEncoderLayer.
    torch.onnx.export(model, tuple(inputs), path, opset_version=opset,
                      input_names=names, output_names=["output"],
                      do_constant_folding=True,
                      dynamic_axes=dict(zip(names, dims)))
    with open(os.path.join(out_dir, name + ".shape"), "w") as f:
        f.write(" ".join("--input-shape %s=%s" % (n, "x".join(map(str, s)))
                         for n, s in zip(names, compile_shapes)) + "\n")


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
