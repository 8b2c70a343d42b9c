"""The model registry: what the harness benchmarks.

A model knows how to produce its ONNX file, its input shapes, the extra
tandemc flags it needs, its FLOP count, and which runtime is its
performance reference. Add a model by adding an entry to MODELS; a
runtime picks the models it supports (runtimes.py).
"""
import os
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper, shape_inference

from .util import BenchError


class Model:
    """One benchmark model.

    name       short identifier used on the command line and in the table
    kind       "matmul" (a single ONNX MatMul; OpenBLAS can run it) or
               "network" (a whole ONNX model)
    reference  runtime the 'vs ref' column divides by (perf reference)
    """

    kind = "network"
    reference = "onnxruntime"

    def __init__(self, name):
        self.name = name

    def onnx_path(self, ctx):
        """Makes (if needed) and returns the ONNX file."""
        raise NotImplementedError

    def tandemc_flags(self, ctx):
        return []

    def input_specs(self, ctx):
        """[(name, shape, numpy dtype)] of the graph inputs, concrete."""
        model = onnx.load(self.onnx_path(ctx), load_external_data=False)
        overrides = self.shape_overrides(ctx)
        inits = {i.name for i in model.graph.initializer}
        specs = []
        for vi in model.graph.input:
            if vi.name in inits:
                continue
            elem = vi.type.tensor_type.elem_type
            if elem != TensorProto.FLOAT:
                raise BenchError("%s: input %s is not f32; the harness only "
                                 "draws f32 inputs so far" % (self.name,
                                                              vi.name))
            dims = []
            for i, d in enumerate(vi.type.tensor_type.shape.dim):
                if vi.name in overrides:
                    dims.append(overrides[vi.name][i])
                elif d.HasField("dim_value"):
                    dims.append(d.dim_value)
                else:
                    raise BenchError("%s: input %s has a symbolic dim and no "
                                     "shape override" % (self.name, vi.name))
            specs.append((vi.name, tuple(dims), np.float32))
        return specs

    def shape_overrides(self, ctx):
        return {}

    def make_inputs(self, ctx, seed=1234):
        rng = np.random.default_rng(seed)
        return [(name, rng.uniform(-1.0, 1.0, shape).astype(dtype))
                for name, shape, dtype in self.input_specs(ctx)]

    def flops(self, ctx):
        """FLOPs of one run (2 per multiply-add), or None if unknown."""
        return count_flops(self.onnx_path(ctx), self.input_specs(ctx))


class MatMul(Model):
    """Y[n,n] = A[n,n] @ B[n,n], both operands runtime inputs (nothing can
    be pre-packed at compile time, as for cblas_sgemm)."""

    kind = "matmul"
    reference = "openblas"

    def __init__(self, n):
        super().__init__("matmul_%d" % n)
        self.n = n

    def onnx_path(self, ctx):
        path = os.path.join(ctx.work, self.name + ".onnx")
        if not os.path.exists(path):
            n = self.n
            graph = helper.make_graph(
                [helper.make_node("MatMul", ["A", "B"], ["Y"])], self.name,
                [helper.make_tensor_value_info("A", TensorProto.FLOAT, [n, n]),
                 helper.make_tensor_value_info("B", TensorProto.FLOAT, [n, n])],
                [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n, n])])
            model = helper.make_model(
                graph, opset_imports=[helper.make_opsetid("", 13)],
                producer_name="tandem-bench")
            model.ir_version = 8
            onnx.checker.check_model(model)
            tmp = path + ".tmp"
            onnx.save(model, tmp)
            os.replace(tmp, path)
        return path

    def input_specs(self, ctx):
        n = self.n
        return [("A", (n, n), np.float32), ("B", (n, n), np.float32)]

    def flops(self, ctx):
        return 2 * self.n ** 3


class TorchModel(Model):
    """A model exported with Debian's torch into the models directory
    (build/models, or --models-dir), on demand, by
    bench/harness/export_torch.py: the models of
    test/models/generate_torch_models.py plus the benchmark's own (a
    BERT-base-sized layer). Random weights, fixed seed; nothing is
    downloaded.

    SOURCE is the exported model's name (default NAME); BATCH, when given,
    overrides the leading dimension of every input (the exports have a
    dynamic batch axis), so resnet18_b8 runs resnet18.onnx at batch 8."""

    def __init__(self, name, source=None, batch=None):
        super().__init__(name)
        self.source = source or name
        self.batch = batch

    def onnx_path(self, ctx):
        path = os.path.join(ctx.models_dir, self.source + ".onnx")
        if not os.path.exists(path):
            gen = os.path.join(ctx.root, "bench", "harness", "export_torch.py")
            ctx.log("exporting %s with %s" % (self.source, ctx.torch_python))
            proc = subprocess.run([ctx.torch_python, gen, ctx.models_dir,
                                   self.source], capture_output=True,
                                  text=True)
            if proc.returncode != 0 or not os.path.exists(path):
                raise BenchError(
                    "could not export %s (needs Debian's python3-torch and "
                    "python3-torchvision under %s; scripts/setup.sh installs "
                    "them):\n%s" % (self.source, ctx.torch_python,
                                    (proc.stdout + proc.stderr)[-2000:]))
        return path

    def tandemc_flags(self, ctx):
        self.onnx_path(ctx)
        shape = os.path.join(ctx.models_dir, self.source + ".shape")
        with open(shape) as f:
            flags = f.read().split()
        if self.batch is None:
            return flags
        out = []
        for i, flag in enumerate(flags):
            if i and flags[i - 1] == "--input-shape":
                name, dims = flag.rsplit("=", 1)
                dims = [str(self.batch)] + dims.split("x")[1:]
                flag = "%s=%s" % (name, "x".join(dims))
            out.append(flag)
        return out

    def shape_overrides(self, ctx):
        flags = self.tandemc_flags(ctx)
        out = {}
        for i, flag in enumerate(flags):
            if flag == "--input-shape" and i + 1 < len(flags):
                name, dims = flags[i + 1].rsplit("=", 1)
                out[name] = [int(d) for d in dims.split("x")]
            elif flag.startswith("--input-shape="):
                name, dims = flag.split("=", 1)[1].rsplit("=", 1)
                out[name] = [int(d) for d in dims.split("x")]
        return out


def _dims(value_info):
    return [d.dim_value if d.HasField("dim_value") else None
            for d in value_info.type.tensor_type.shape.dim]


def count_flops(path, input_specs):
    """Multiply-add FLOPs (x2) of the Conv, MatMul and Gemm
    nodes, from ONNX shape inference with the inputs bound. Element-wise
    ops, pooling and normalisation are not counted (they are a few percent
    of a convnet)."""
    model = onnx.load(path, load_external_data=False)
    shapes = dict((name, list(shape)) for name, shape, _ in input_specs)
    for vi in model.graph.input:
        if vi.name in shapes:
            dims = vi.type.tensor_type.shape.dim
            for d, v in zip(dims, shapes[vi.name]):
                d.ClearField("dim_param")
                d.dim_value = v
    inferred = shape_inference.infer_shapes(model)
    known = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + \
            list(inferred.graph.output):
        known[vi.name] = _dims(vi)
    for init in inferred.graph.initializer:
        known[init.name] = list(init.dims)
    total = 0
    for node in inferred.graph.node:
        try:
            if node.op_type == "Conv":
                w = known[node.input[1]]
                y = known[node.output[0]]
                # y: N, Cout, spatial...; w: Cout, Cin/group, kernel...
                macs = 1
                for v in y:
                    macs *= v
                for v in w[1:]:
                    macs *= v
                total += 2 * macs
            elif node.op_type in ("MatMul", "Gemm"):
                a = known[node.input[0]]
                y = known[node.output[0]]
                k = a[-1]
                if node.op_type == "Gemm":
                    trans_a = any(at.name == "transA" and at.i for at in
                                  node.attribute)
                    k = a[0] if trans_a else a[-1]
                macs = k
                for v in y:
                    macs *= v
                total += 2 * macs
        except (KeyError, TypeError, IndexError):
            return None  # a shape shape inference could not give
    return total


# The registry. Keys are the names --models accepts.
MODELS = {m.name: m for m in [
    MatMul(64),  # the smoke test's tiny case
    MatMul(256),
    MatMul(1024),
    MatMul(2048),
    # Issue 8's model set: 224x224 convnets at batch 1 and 8, encoder
    # layers at sequence length 128, the MLP at batch 64, Conv+BN+ReLU.
    TorchModel("resnet18"),
    TorchModel("resnet18_b8", "resnet18", batch=8),
    TorchModel("resnet50"),
    TorchModel("resnet50_b8", "resnet50", batch=8),
    TorchModel("mobilenet_v2"),
    TorchModel("bert_base_layer"),      # hidden 768, 12 heads, FFN 3072
    TorchModel("transformer_encoder"),  # d 256, 4 heads, FFN 512
    TorchModel("mlp"),                  # 784-512-512-10, batch 64
    TorchModel("conv_bn_relu"),         # 2x (3x3 conv, BN, ReLU), 64x64
    TorchModel("mnasnet1_0"),           # 5x5 depthwise convs
    TorchModel("mobilenet_v3_large"),   # 5x5, hardswish, squeeze-excitation
]}

# What a plain run measures, what --models all measures (every model but
# the smoke test's), and what --smoke measures. The plain run has the CPU
# speed issue's targets: ResNet-50 at batch 8 (the 2-thread scaling target)
# and the BERT-base layer with the rest; ResNet-18 at batch 8 and
# ResNet-50 at batch 1 only in --models all (with XLA and IREE at 2 thread
# counts the convnets take longer than the rest together; --budget-s caps
# their slow cells).
DEFAULT_MODELS = ["matmul_256", "matmul_1024", "matmul_2048", "resnet18",
                  "resnet50_b8", "mobilenet_v2", "bert_base_layer",
                  "transformer_encoder", "mlp", "conv_bn_relu"]
ALL_MODELS = [name for name in MODELS if name != "matmul_64"]
SMOKE_MODELS = ["matmul_64"]
