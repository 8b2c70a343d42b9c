#!/usr/bin/env python3
"""Exports models from the timm and transformers libraries to ONNX, as a new
user would: the libraries' own model code with random weights (fixed seed;
nothing is downloaded), `torch.onnx.export` with its defaults at opset 17
and, for the language models, dynamic batch and sequence axes that
--input-shape binds (the shape subgraphs of position ids and masks then
fold at import).

Run with Debian's CPU torch (/usr/bin/python3); timm and transformers come
from .venv/hub-pydeps (scripts/requirements-hub.txt, installed by
scripts/setup.sh).

usage: generate_hub_models.py OUT_DIR [--set ci|full] [NAME...]

Each model is written as OUT_DIR/NAME.onnx with NAME.shape (the tandemc
flags that bind its input shapes).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", ".venv", "hub-pydeps"))

import torch  # noqa: E402


def timm_model(name):
    def build():
        import timm
        model = timm.create_model(name, pretrained=False)
        return model, torch.randn(1, 3, 224, 224), "pixel_values"
    return build


def hf_text(kind, **config):
    def build():
        import transformers as T
        cls = {"bert": (T.BertConfig, T.BertModel),
               "gpt2": (T.GPT2Config, T.GPT2Model),
               "distilbert": (T.DistilBertConfig, T.DistilBertModel),
               "t5": (T.T5Config, T.T5EncoderModel)}[kind]
        model = cls[1](cls[0](**config))
        model.config.return_dict = False
        return model, torch.randint(0, 1000, (1, 32)), "input_ids"
    return build


def hf_vit():
    import transformers as T
    model = T.ViTModel(T.ViTConfig(num_hidden_layers=2))
    model.config.return_dict = False
    return model, torch.randn(1, 3, 224, 224), "pixel_values"


MODELS = {
    "timm_efficientnet_b0": timm_model("efficientnet_b0"),
    "timm_mobilenetv3_large_100": timm_model("mobilenetv3_large_100"),
    "timm_convnext_tiny": timm_model("convnext_tiny"),
    "timm_vit_small_patch16_224": timm_model("vit_small_patch16_224"),
    "timm_resnet50": timm_model("resnet50"),
    # Grouped 3x3 convs of 8 channels a group with squeeze-excitation
    # (tandem_grouped_conv2d_f32's direct blocks).
    "timm_regnety_004": timm_model("regnety_004"),
    "hf_bert": hf_text("bert", num_hidden_layers=2),
    # All 12 layers (436 MB of weights): bench/compile_memory.py.
    "hf_bert_base": hf_text("bert"),
    "hf_gpt2": hf_text("gpt2", n_layer=2),
    "hf_distilbert": hf_text("distilbert", n_layers=2),
    "hf_t5_encoder": hf_text("t5", num_layers=2),
    "hf_vit": hf_vit,
}
# CI's subset: one convnet and one vision transformer from timm, one encoder
# and one decoder from transformers.
CI_SET = ["timm_efficientnet_b0", "timm_vit_small_patch16_224", "hf_bert",
          "hf_gpt2"]


def export(name, out_dir):
    torch.manual_seed(0)
    model, example, input_name = MODELS[name]()
    model.eval()
    path = os.path.join(out_dir, name + ".onnx")
    dims = "x".join(str(d) for d in example.shape)
    # Language models are exported with dynamic batch and sequence dims,
    # which the user binds with --input-shape; the vision ones static.
    dynamic = ({input_name: {0: "batch", 1: "sequence"}}
               if input_name == "input_ids" else None)
    with torch.no_grad():
        torch.onnx.export(model, (example,), path, opset_version=17,
                          input_names=[input_name], dynamic_axes=dynamic)
    with open(os.path.join(out_dir, name + ".shape"), "w") as f:
        f.write("--input-shape %s=%s\n" % (input_name, dims))
    print("exported %s" % name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--set", choices=["ci", "full"], default="ci")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or (CI_SET if args.set == "ci" else list(MODELS))
    os.makedirs(args.out_dir, exist_ok=True)
    for name in names:
        if not os.path.exists(os.path.join(args.out_dir, name + ".onnx")):
            export(name, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
