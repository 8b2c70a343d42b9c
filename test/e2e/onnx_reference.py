#!/usr/bin/env python3
"""Inputs and onnxruntime reference outputs for an ONNX model.

usage: onnx_reference.py MODEL WORK [--name NAME] [TANDEMC_FLAGS...]

Draws one input per graph input with a fixed seed (f32/f64 standard normal,
int32/int64 in [0, 4), uint8 in [0, 256), other integers in [-8, 8) or
[0, 16), bools with p = 0.2), runs the model with onnxruntime,
and writes WORK/NAME.in<i>.npy, WORK/NAME.in<i>.bin (the raw little-endian
bytes, for programs such as examples/deploy) and WORK/NAME.ref<k>.npy.
Symbolic dims are 1 unless an --input-shape NAME=AxB flag among
TANDEMC_FLAGS binds them. Prints the paths of the inputs and references.

run_e2e.py, the install test (test/install/) and scripts/demo.sh all use
it. Run it with the venv's Python (numpy, onnx, onnxruntime).
"""
import argparse
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

SEED = 1234


def shape_of(value_info, overrides):
    dims = []
    for i, d in enumerate(value_info.type.tensor_type.shape.dim):
        if d.HasField("dim_value"):
            dims.append(d.dim_value)
        else:
            dims.append(overrides.get(value_info.name, {}).get(i, 1))
    return dims


def parse_shape_flags(flags):
    """--input-shape NAME=AxBxC flags -> {name: {dim: size}}."""
    out = {}
    for i, f in enumerate(flags):
        spec = None
        if f.startswith("--input-shape="):
            spec = f.split("=", 1)[1]
        elif f == "--input-shape" and i + 1 < len(flags):
            spec = flags[i + 1]
        if spec:
            name, dims = spec.rsplit("=", 1)
            out[name] = {j: int(d) for j, d in enumerate(dims.split("x"))}
    return out


_OTHER_INTS = {onnx.TensorProto.INT8: np.int8, onnx.TensorProto.INT16: np.int16,
               onnx.TensorProto.UINT16: np.uint16,
               onnx.TensorProto.UINT32: np.uint32,
               onnx.TensorProto.UINT64: np.uint64}


def make_inputs(model_path, flags):
    """{graph input name: array} for the model's non-initializer inputs."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    overrides = parse_shape_flags(flags)
    rng = np.random.default_rng(SEED)
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        shape = shape_of(vi, overrides)
        elem = vi.type.tensor_type.elem_type
        if elem == onnx.TensorProto.FLOAT:
            value = rng.standard_normal(shape).astype(np.float32)
        elif elem == onnx.TensorProto.BOOL:
            value = rng.random(shape) < 0.2
        elif elem in (onnx.TensorProto.INT64, onnx.TensorProto.INT32):
            value = rng.integers(0, 4, shape).astype(
                np.int64 if elem == onnx.TensorProto.INT64 else np.int32)
        elif elem == onnx.TensorProto.DOUBLE:
            value = rng.standard_normal(shape)
        elif elem == onnx.TensorProto.UINT8:
            # Image-like: every pixel value, past 127 included.
            value = rng.integers(0, 256, shape).astype(np.uint8)
        elif elem in _OTHER_INTS:
            value = rng.integers(-8, 8, shape).astype(_OTHER_INTS[elem])
            if np.issubdtype(value.dtype, np.unsignedinteger):
                value = rng.integers(0, 16, shape).astype(_OTHER_INTS[elem])
        else:
            raise RuntimeError("input %s has an unsupported type" % vi.name)
        feeds[vi.name] = value
    return feeds


def write_reference(model_path, flags, work, name):
    """Writes the inputs and onnxruntime's outputs; returns their paths as
    (input .npy paths, reference .npy paths)."""
    os.makedirs(work, exist_ok=True)
    feeds = make_inputs(model_path, flags)
    inputs = []
    for i, value in enumerate(feeds.values()):
        path = os.path.join(work, "%s.in%d.npy" % (name, i))
        np.save(path, value)
        np.ascontiguousarray(value).tofile(path[:-len(".npy")] + ".bin")
        inputs.append(path)
    session = ort.InferenceSession(model_path,
                                   providers=["CPUExecutionProvider"])
    refs = []
    for k, ref in enumerate(session.run(None, feeds)):
        path = os.path.join(work, "%s.ref%d.npy" % (name, k))
        # np.asarray keeps a rank-0 output rank 0 (ascontiguousarray would
        # make it [1]).
        np.save(path, np.asarray(ref, order="C"))
        refs.append(path)
    return inputs, refs


def main():
    parser = argparse.ArgumentParser(
        description="Write inputs and onnxruntime reference outputs.")
    parser.add_argument("model")
    parser.add_argument("work")
    parser.add_argument("--name", default="model",
                        help="file name prefix (default: model)")
    args, flags = parser.parse_known_args()
    inputs, refs = write_reference(args.model, flags, args.work, args.name)
    for path in inputs + refs:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
