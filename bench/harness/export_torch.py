#!/usr/bin/env python3
"""Exports the benchmark's torch models to ONNX: every model of
test/models/generate_torch_models.py, plus the benchmark's own below. Run
with Debian's CPU torch (/usr/bin/python3); random weights, fixed seed,
nothing downloaded.

usage: export_torch.py OUT_DIR NAME...

Writes OUT_DIR/NAME.onnx and OUT_DIR/NAME.shape (tandemc --input-shape
flags), as generate_torch_models.py does.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "test", "models"))
import generate_torch_models as gen  # noqa: E402

# name: (constructor, input shapes, input dtypes, opset), as in gen.MODELS.
BENCH_MODELS = {
    # A BERT-base-sized encoder layer: hidden 768, 12 heads, FFN 3072,
    # sequence 128, with the additive attention mask as a second input.
    "bert_base_layer": (lambda: gen.BertBlock(hidden=768, heads=12,
                                              ffn=3072),
                        [(1, 128, 768), (1, 128)], None, 13),
    # The compile-memory benchmark's largest convnet: 531 MB of weights,
    # 411 MB of them in one fully connected layer.
    "vgg11": (gen.vision("vgg11"), gen.IMAGE, None, 17),
    # The depthwise-separable convnets a new user brings besides
    # MobileNetV2: 5x5 depthwise convs (both), hardswish and
    # squeeze-excitation (MobileNetV3); trained-like BatchNorm statistics.
    "mnasnet1_0": (gen.trained_bn(gen.vision("mnasnet1_0")), gen.IMAGE, None,
                   17),
    "mobilenet_v3_large": (gen.trained_bn(gen.vision("mobilenet_v3_large")),
                           gen.IMAGE, None, 17),
}


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out_dir, names = argv[0], argv[1:]
    gen.MODELS.update(BENCH_MODELS)
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        if name not in gen.MODELS:
            sys.exit("export_torch.py: unknown model %s" % name)
        if not os.path.exists(os.path.join(out_dir, name + ".onnx")):
            print("exporting", name, flush=True)
            gen.export(name, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
