#!/usr/bin/env python3
"""Sweeps every elementwise ONNX op over special values against onnxruntime.

For each case, builds a one-op ONNX model, compiles it with
`tandemc --emit=shared` (and, with --modes gpu, placed on the GPU with CPU
twins that run the GPU kernels' mapping, on the emulated device), runs it
with `tandem-run` and compares the output with onnxruntime's on the same
inputs. Float inputs are special values: +-0, +-inf, NaN, denormals,
negative values, integers and halves, values near the exp/log overflow
bounds, and the largest floats; a binary op gets every pair of them. Integer
inputs include the type's extremes, bools every combination.

Each op also runs (on the CPU) at every other opset in 13..22 where its
schema version differs, so every op version Tandem accepts is compared.

A float output matches when NaN positions agree, infinities agree in
position and sign, and the finite values agree to rtol 1e-5 / atol 1e-6
(libm against onnxruntime's vectorised math; both are within a few ulp of
the exact result). Integer and bool outputs must be equal.

usage: run_special_values.py --tandemc BIN --tandem-run BIN --work DIR
                             [--modes cpu,gpu] [--filter REGEX] [--jobs N]

Prints a line per failure and ends with "special-values: N passed, M failed"
(one count per case and mode); exits non-zero on any failure. Run it with
the venv's Python (numpy, onnx, onnxruntime).
"""
import argparse
import concurrent.futures
import itertools
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

INF = float("inf")
NAN = float("nan")

FLOAT_SPECIALS = np.array(
    [0.0, -0.0, INF, -INF, NAN, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754944e-38,
     1e-7, -1e-7, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 2.5, -2.5,
     3.0, -3.0, 0.999999, -0.999999, 1.000001, 10.0, -10.0, 88.7, -88.7,
     89.5, -89.5, 100.0, -100.0, 1e10, -1e10, 1e30, -1e30, 3.4e38, -3.4e38],
    dtype=np.float32)

INT_SPECIALS = {
    np.int32: [0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 33, 63, 64,
               2**31 - 1, -2**31, 2**30, -2**30],
    np.int64: [0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 63, 64, 65,
               2**63 - 1, -2**63, 2**40, -2**40],
}

ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT,
              np.dtype(np.float16): TensorProto.FLOAT16,
              np.dtype(np.int32): TensorProto.INT32,
              np.dtype(np.int64): TensorProto.INT64,
              np.dtype(np.uint32): TensorProto.UINT32,
              np.dtype(np.uint64): TensorProto.UINT64,
              np.dtype(np.bool_): TensorProto.BOOL}

UNSIGNED = {np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


# f16 specials: the float ones rounded to f16 (beyond 65504 they become
# inf, below 6e-8 zero) and f16's own extremes and denormals.
with np.errstate(over="ignore"):
    HALF_FROM_FLOAT = FLOAT_SPECIALS.astype(np.float16)
HALF_SPECIALS = np.concatenate([
    HALF_FROM_FLOAT,
    np.array([65504.0, -65504.0, 6e-8, -6e-8, 6.1e-5, 1e-4, 11.0, -11.0,
              0.99951, 1.0009], np.float16)])


def unary_half():
    return [HALF_SPECIALS.copy()]


def unary_half_no_nan():
    """onnxruntime's f16 Sign gives 0 for NaN where its f32 Sign (and
    Tandem's, in both types) gives NaN: f16 Sign is compared without NaN."""
    return [HALF_SPECIALS[~np.isnan(HALF_SPECIALS)].copy()]


def unary_half_no_exp_overflow():
    """onnxruntime's f16 Softplus is log(exp(x) + 1) in f16: inf once exp(x)
    overflows (x > 11.09), where Softplus(89.5) is 89.5 (Tandem's answer):
    compared without finite inputs above 11.1."""
    x = HALF_SPECIALS
    return [x[~((x > 11.1) & np.isfinite(x))].copy()]


def unary_float():
    return [FLOAT_SPECIALS.copy()]


def binary_float():
    a, b = zip(*itertools.product(FLOAT_SPECIALS, repeat=2))
    return [np.array(a, np.float32), np.array(b, np.float32)]


def unary_int(dtype):
    return lambda: [np.array(INT_SPECIALS[dtype], dtype)]


def binary_int(dtype, nonzero_rhs=False, no_minus_one=False):
    def make():
        a, b = zip(*itertools.product(INT_SPECIALS[dtype], repeat=2))
        a, b = np.array(a, dtype), np.array(b, dtype)
        keep = np.ones(a.shape, bool)
        if nonzero_rhs:
            keep &= b != 0
        if no_minus_one:
            keep &= b != -1
        return [a[keep], b[keep]]
    return make


def shift_amounts(dtype):
    """Shifts of every special value by 0..width+1 (and huge amounts)."""
    def make():
        bits = np.dtype(dtype).itemsize * 8
        amounts = list(range(bits + 2)) + [-1, 2**30]
        a, b = zip(*itertools.product(INT_SPECIALS[dtype], amounts))
        return [np.array(a, dtype), np.array(b, dtype)]
    return make


def unary_bool():
    return [np.array([False, True])]


def binary_bool():
    return [np.array([False, False, True, True]),
            np.array([False, True, False, True])]


def where_inputs():
    x, y = binary_float()
    cond = (np.arange(x.size) % 3) == 0
    return [cond, x, y]


def float_and(other):
    def make():
        return [FLOAT_SPECIALS.copy(), other.copy()]
    return make


def three_float():
    a = FLOAT_SPECIALS
    return [a.copy(), a[::-1].copy(), np.roll(a, 7).copy()]


# (name, op type, attributes, input builder, output type or None for the
# first input's, opset, how many trailing inputs are initializers)
CASES = []


def case(name, op, inputs, attrs=None, out=None, opset=18, consts=0):
    CASES.append((name, op, attrs or {}, inputs, out, opset, consts))


for op in ["Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Neg",
           "Abs", "Reciprocal", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
           "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil",
           "Round", "Sign", "Softplus", "Softsign", "Mish", "Identity",
           "Dropout"]:
    case(op.lower(), op, unary_float)
# The same in f16 (onnxruntime computes them in f32 and rounds; Tandem's
# trigonometric functions do too): Celu and IsInf have no f16 kernel in
# onnxruntime's CPU provider.
for op in ["Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Neg",
           "Abs", "Reciprocal", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
           "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil",
           "Round", "Sign", "Softplus", "Softsign", "Mish", "LeakyRelu",
           "Elu", "Selu", "ThresholdedRelu", "Shrink", "HardSigmoid",
           "HardSwish"]:
    case(op.lower() + "_f16", op,
         {"Sign": unary_half_no_nan,
          "Softplus": unary_half_no_exp_overflow}.get(op, unary_half))
case("isnan_f16", "IsNaN", unary_half, out=TensorProto.BOOL)
case("leaky_relu", "LeakyRelu", unary_float, {"alpha": 0.1})
case("elu", "Elu", unary_float, {"alpha": 0.7})
case("selu", "Selu", unary_float)
case("celu", "Celu", unary_float, {"alpha": 1.3})
case("thresholded_relu", "ThresholdedRelu", unary_float, {"alpha": 1.5})
case("shrink", "Shrink", unary_float, {"lambd": 1.5, "bias": 0.5})
case("hard_sigmoid", "HardSigmoid", unary_float)
case("hard_swish", "HardSwish", unary_float)
case("gelu", "Gelu", unary_float, opset=20)
case("gelu_tanh", "Gelu", unary_float, {"approximate": "tanh"}, opset=20)
case("clip", "Clip", lambda: [FLOAT_SPECIALS.copy(),
                              np.array(-1.5, np.float32),
                              np.array(2.0, np.float32)], consts=2)
case("isnan", "IsNaN", unary_float, out=TensorProto.BOOL)
case("isinf", "IsInf", unary_float, out=TensorProto.BOOL)
case("isinf_positive", "IsInf", unary_float, {"detect_negative": 0},
     out=TensorProto.BOOL)
case("isinf_negative", "IsInf", unary_float, {"detect_positive": 0},
     out=TensorProto.BOOL)
case("isinf_neither", "IsInf", unary_float,
     {"detect_negative": 0, "detect_positive": 0}, out=TensorProto.BOOL)
case("cast_f16", "Cast", unary_float, {"to": TensorProto.FLOAT16},
     out=TensorProto.FLOAT16)
case("cast_bool", "Cast", unary_float, {"to": TensorProto.BOOL},
     out=TensorProto.BOOL)
case("size", "Size", unary_float, out=TensorProto.INT64)
case("castlike_f16", "CastLike",
     float_and(np.zeros(1, np.float16)), out=TensorProto.FLOAT16)

for op in ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean",
           "PRelu"]:
    case(op.lower(), op, binary_float)
case("mod_fmod", "Mod", binary_float, {"fmod": 1})
for op in ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"]:
    case(op.lower(), op, binary_float, out=TensorProto.BOOL)
case("where", "Where", where_inputs, out=TensorProto.FLOAT)
case("max3", "Max", three_float)
case("mean3", "Mean", three_float)
case("pow_int_exponent", "Pow",
     lambda: [np.repeat(FLOAT_SPECIALS, 7),
              np.tile(np.array([-3, -2, -1, 0, 1, 2, 3], np.int64),
                      FLOAT_SPECIALS.size)])

for dtype, tag in ((np.int32, "i32"), (np.int64, "i64")):
    for op in ["Add", "Sub", "Mul", "Max", "Min"]:
        case("%s_%s" % (op.lower(), tag), op, binary_int(dtype))
    case("div_" + tag, "Div", binary_int(dtype, True, True))
    case("mod_" + tag, "Mod", binary_int(dtype, True), {"fmod": 0})
    case("mod_fmod_" + tag, "Mod", binary_int(dtype, True, True),
         {"fmod": 1})
    for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
        case("%s_%s" % (op.lower(), tag), op, binary_int(dtype))
    case("bitwisenot_" + tag, "BitwiseNot", unary_int(dtype))
    for op in ["Neg", "Abs", "Sign", "Relu"]:
        case("%s_%s" % (op.lower(), tag), op, unary_int(dtype))
    case("prelu_" + tag, "PRelu",
         lambda d=dtype: [np.array(INT_SPECIALS[d][:12], d),
                          np.array(3, d)])
    case("shrink_" + tag, "Shrink",
         lambda d=dtype: [np.array([-9, -5, -2, -1, 0, 1, 2, 5, 9], d)],
         {"lambd": 1.5, "bias": 1.5})
    for direction in ("LEFT", "RIGHT"):
        case("bitshift_%s_%s" % (direction.lower(), tag), "BitShift",
             shift_amounts(dtype), {"direction": direction})
    case("cast_f32_" + tag, "Cast", unary_int(dtype),
         {"to": TensorProto.FLOAT}, out=TensorProto.FLOAT)
    case("equal_" + tag, "Equal", binary_int(dtype), out=TensorProto.BOOL)
    case("less_" + tag, "Less", binary_int(dtype), out=TensorProto.BOOL)

case("not", "Not", unary_bool)
for op in ["And", "Or", "Xor", "Equal"]:
    case(op.lower(), op, binary_bool, out=TensorProto.BOOL)
case("cast_bool_f32", "Cast", unary_bool, {"to": TensorProto.FLOAT},
     out=TensorProto.FLOAT)


def opset_variants():
    """The first case of each op again at every other opset in 13..22 where
    the op's schema version differs (the version in effect at 13 and each
    later since_version), so every op version Tandem accepts runs once."""
    variants, seen = [], set()
    for name, op, attrs, inputs, out, opset, consts in CASES:
        if op in seen:
            continue
        seen.add(op)
        versions = {}
        for o in range(13, 23):
            try:
                v = onnx.defs.get_schema(op, o).since_version
            except onnx.defs.SchemaError:
                continue
            versions.setdefault(v, o)
        try:
            base = onnx.defs.get_schema(op, opset).since_version
        except onnx.defs.SchemaError:
            base = None
        for v, o in sorted(versions.items()):
            if v != base:
                variants.append(("%s@%d" % (name, o), op, attrs, inputs, out,
                                 o, consts))
    return variants


def build_model(op, attrs, inputs, out, opset, consts, unsigned=False):
    """A one-node model; `unsigned` gives integer inputs and the output the
    unsigned type of the same width (onnxruntime's BitShift is unsigned
    only, Tandem shifts signless bit patterns)."""
    def elem(a):
        dt = a.dtype
        if unsigned and dt in UNSIGNED:
            dt = np.dtype(UNSIGNED[dt])
        return ONNX_TYPES[dt]
    names = ["x%d" % i for i in range(len(inputs))]
    split = len(inputs) - consts
    infos = [helper.make_tensor_value_info(n, elem(a), list(a.shape))
             for n, a in zip(names[:split], inputs[:split])]
    inits = [numpy_helper.from_array(a, n)
             for n, a in zip(names[split:], inputs[split:])]
    out_type = out if out is not None else elem(inputs[0])
    node = helper.make_node(op, names, ["y"], name="node", **attrs)
    graph = helper.make_graph(
        [node], "sweep", infos,
        [helper.make_tensor_value_info("y", out_type, None)], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def with_static_output(model, shape):
    """The model with its output's shape filled in (tandemc wants it)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    out = inferred.graph.output[0]
    if not out.type.tensor_type.HasField("shape"):
        out.type.tensor_type.shape.CopyFrom(
            onnx.TensorShapeProto(dim=[onnx.TensorShapeProto.Dimension(
                dim_value=d) for d in shape]))
    return inferred


def compare(got, want):
    """None when `got` matches `want`, else a description."""
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if got.dtype != want.dtype:
        return "dtype %s, expected %s" % (got.dtype, want.dtype)
    if want.dtype.kind != "f":
        bad = np.flatnonzero(got != want)
        if bad.size:
            return "%d of %d differ, first at %d: %r, expected %r" % (
                bad.size, want.size, bad[0], got.flat[bad[0]],
                want.flat[bad[0]])
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.seterr(invalid="ignore", over="ignore")
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    inf = np.isinf(g) | np.isinf(w)
    finite = ~(nan_g | nan_w | inf)
    bad = (nan_g != nan_w) | (inf & ~(nan_g | nan_w) & (g != w))
    # f16: one f16 ulp (2^-10 relative, 2^-24 absolute at the denormals).
    atol, rtol = (6e-8, 1e-3) if want.dtype == np.float16 else (1e-6, 1e-5)
    bad |= finite & (np.abs(g - w) > atol + rtol * np.abs(w))
    idx = np.flatnonzero(bad)
    if idx.size:
        return "%d of %d differ, first at %d: %r, expected %r" % (
            idx.size, want.size, idx[0], got.flat[idx[0]], want.flat[idx[0]])
    return None


def describe_inputs(inputs, index):
    return ", ".join(repr(a.flat[index] if a.size > 1 else a.flat[0])
                     for a in inputs)


def run_case(args, mode, name, op, attrs, make_inputs, out, opset, consts):
    inputs = make_inputs()
    unsigned = op == "BitShift"
    ref_model = build_model(op, attrs, inputs, out, opset, consts, unsigned)
    session = ort.InferenceSession(ref_model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    feeds = {}
    for i, a in enumerate(inputs[:len(inputs) - consts]):
        feeds["x%d" % i] = (a.view(UNSIGNED[a.dtype])
                            if unsigned and a.dtype in UNSIGNED else a)
    want = session.run(None, feeds)[0]
    if unsigned:
        want = want.view(inputs[0].dtype)

    work = os.path.join(args.work, mode, name)
    os.makedirs(work, exist_ok=True)
    model_path = os.path.join(work, "model.onnx")
    onnx.save(with_static_output(build_model(op, attrs, inputs, out, opset,
                                             consts), want.shape), model_path)
    lib = os.path.join(work, "model.so")
    flags = []
    if mode == "gpu":
        flags = ["--target=cpu,gpu:sm_90", "--place", "*=gpu",
                 "--gpu-twins=mapped"]
    proc = subprocess.run([args.tandemc, model_path, "--emit=shared", "-o",
                           lib] + flags, capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        return "tandemc: " + proc.stderr.strip()[-500:]
    paths = []
    for i, a in enumerate(inputs[:len(inputs) - consts]):
        paths.append(os.path.join(work, "in%d.npy" % i))
        np.save(paths[-1], np.array(a, order="C"))
    out_dir = os.path.join(work, "out")
    cmd = [args.tandem_run, lib, "--threads", "1", "--input"] + paths + \
        ["--output-dir", out_dir]
    if mode == "gpu":
        cmd += ["--device", "emulated"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return "tandem-run: " + (proc.stdout + proc.stderr).strip()[-500:]
    got = np.load(os.path.join(out_dir, "y.npy"))
    problem = compare(got, want)
    if problem:
        bad = np.flatnonzero(
            (got != want) & ~(np.isnan(got.astype(np.float64)) &
                              np.isnan(want.astype(np.float64)))
            if want.dtype.kind == "f" else got != want)
        if bad.size:
            problem += " (inputs %s)" % describe_inputs(inputs, bad[0])
    return problem


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tandemc", required=True)
    parser.add_argument("--tandem-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--modes", default="cpu,gpu",
                        help="cpu, gpu (placed on the GPU, mapped twins on "
                             "the emulated device), or both")
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in ("cpu", "gpu"):
            parser.error("unknown mode '%s'" % m)
    # The other opset versions run on the CPU only: the GPU path does not
    # depend on the opset.
    jobs = [(mode,) + c for mode in modes
            for c in CASES + (opset_variants() if mode == "cpu" else [])
            if not args.filter or re.search(args.filter, c[0])]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda j: run_case(args, *j), jobs))
    passed = failed = 0
    for job, problem in zip(jobs, results):
        if problem is None:
            passed += 1
        else:
            failed += 1
            print("FAIL %s [%s]: %s" % (job[1], job[0], problem))
    print("special-values: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
