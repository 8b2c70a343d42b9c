#!/usr/bin/env python3
"""Numerics of -tandem-lower-to-linalg against NumPy.

For every op family, builds small tandem programs from random constants, lowers
them with tandem-opt (tandem-lower-to-linalg, then the upstream bufferize and
LLVM pipeline), runs them with mlir-runner, parses what printMemrefF32 prints
and compares it with a NumPy reference. Prints one line per case and a final
"N passed, M failed"; exits non-zero on any mismatch.

Usage: run_numeric.py --opt TANDEM_OPT --runner PATH --libdir DIR
       [--family NAME] [--jobs N] [--keep DIR]
"""

import argparse
import concurrent.futures
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

PIPELINE = (
    "builtin.module(tandem-lower-to-linalg,"
    "one-shot-bufferize{bufferize-function-boundaries=1 "
    "function-boundary-type-conversion=identity-layout-map},"
    "convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,"
    "lower-affine,convert-math-to-llvm,convert-math-to-libm,"
    "finalize-memref-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,"
    "convert-cf-to-llvm,convert-index-to-llvm,reconcile-unrealized-casts)")

MLIR_TYPES = {np.float32: "f32", np.float16: "f16", np.int64: "i64",
              np.int32: "i32", np.bool_: "i1"}


def mlir_elem(dtype):
    return MLIR_TYPES[np.dtype(dtype).type]


def tensor_type(shape, elem):
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims}x{elem}>" if shape else f"tensor<{elem}>"


def literal(arr):
    """A dense<...> literal for `arr`."""
    def fmt(v):
        if arr.dtype == np.bool_:
            return "true" if v else "false"
        if np.issubdtype(arr.dtype, np.integer):
            return str(int(v))
        return repr(float(v))

    def rec(a):
        if a.ndim == 0:
            return fmt(a.item())
        return "[" + ", ".join(rec(x) for x in a) + "]"
    return f"dense<{rec(arr)}>"


class Prog:
    """Builds the body of a test: constants, ops, and the printed outputs."""

    def __init__(self):
        self.lines = []
        self.count = 0
        self.outputs = []  # (ssa, shape)

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def const(self, arr):
        name = self.fresh()
        ty = tensor_type(arr.shape, mlir_elem(arr.dtype))
        self.lines.append(f"{name} = tandem.constant {literal(arr)} : {ty}")
        return name

    def op(self, text):
        """`text` is a full op without the result, e.g. 'tandem.relu %v1 : ...'."""
        name = self.fresh()
        self.lines.append(f"{name} = {text}")
        return name

    def raw(self, text):
        self.lines.append(text)

    def out(self, ssa, shape, elem="f32"):
        if elem != "f32":
            ssa = self.op(f"tandem.cast {ssa} {{to = f32}} : "
                          f"{tensor_type(shape, elem)} -> "
                          f"{tensor_type(shape, 'f32')}")
        self.outputs.append((ssa, tuple(shape)))

    def module(self):
        body = ["func.func private @printMemrefF32(memref<*xf32>)",
                "func.func @main() {"]
        body += ["  " + l for l in self.lines]
        for i, (ssa, shape) in enumerate(self.outputs):
            tt = tensor_type(shape, "f32")
            mt = tt.replace("tensor", "memref")
            body.append(f"  %m{i} = bufferization.to_buffer {ssa} : {tt} to {mt}")
            body.append(f"  %u{i} = memref.cast %m{i} : {mt} to memref<*xf32>")
            body.append(f"  call @printMemrefF32(%u{i}) : (memref<*xf32>) -> ()")
        body += ["  return", "}"]
        return "\n".join(body) + "\n"


CASES = []  # (family, name, builder)


def case(family):
    def register(fn):
        CASES.append((family, fn.__name__, fn))
        return fn
    return register


RNG = np.random.default_rng(1234)


def rand(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def randint(*shape, lo=-9, hi=10, dtype=np.int64):
    return RNG.integers(lo, hi, size=shape).astype(dtype)


def t(shape, elem="f32"):
    return tensor_type(shape, elem)


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

def erf(x):
    return np.vectorize(math.erf)(x.astype(np.float64))


UNARY = {
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "erf": erf,
    "neg": lambda x: -x,
    "abs": np.abs,
}


def make_unary(name, fn):
    def build():
        p = Prog()
        positive = name in ("log", "sqrt", "rsqrt")
        x = rand(7, 13, lo=0.1 if positive else -3.0, hi=3.0)
        v = p.op(f"tandem.{name} {p.const(x)} : {t((7, 13))}")
        p.out(v, (7, 13))
        return p, [fn(x.astype(np.float64))]
    build.__name__ = f"unary_{name}"
    case("elementwise")(build)


for _n, _f in UNARY.items():
    make_unary(_n, _f)


@case("elementwise")
def unary_int_relu_neg_abs():
    p = Prog()
    x = randint(5, 6)
    c = p.const(x)
    outs = []
    for name, fn in (("relu", lambda a: np.maximum(a, 0)), ("neg", np.negative),
                     ("abs", np.abs)):
        p.out(p.op(f"tandem.{name} {c} : {t((5, 6), 'i64')}"), (5, 6), "i64")
        outs.append(fn(x))
    return p, outs


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply,
    "div": np.divide, "max": np.maximum, "min": np.minimum,
}
BCAST_SHAPES = [((7, 13), (13,)), ((7, 1), (1, 13)), ((3, 1, 5), (4, 5)),
                ((2, 3), ())]


def make_binary(name, fn):
    def build():
        p = Prog()
        refs = []
        for ls, rs in BCAST_SHAPES:
            l, r = rand(*ls), rand(*rs, lo=0.5, hi=2.0)
            os_ = np.broadcast_shapes(ls, rs)
            v = p.op(f"tandem.{name} {p.const(l)}, {p.const(r)} : "
                     f"({t(ls)}, {t(rs)}) -> {t(os_)}")
            p.out(v, os_)
            refs.append(fn(l.astype(np.float64), r.astype(np.float64)))
        return p, refs
    build.__name__ = f"binary_{name}_broadcast"
    case("elementwise")(build)


for _n, _f in BINARY.items():
    make_binary(_n, _f)


@case("elementwise")
def binary_pow():
    p = Prog()
    l, r = rand(7, 13, lo=0.1, hi=3.0), rand(13, lo=-2.0, hi=2.0)
    v = p.op(f"tandem.pow {p.const(l)}, {p.const(r)} : "
             f"({t((7, 13))}, {t((13,))}) -> {t((7, 13))}")
    p.out(v, (7, 13))
    return p, [np.power(l.astype(np.float64), r.astype(np.float64))]


@case("elementwise")
def binary_int():
    p = Prog()
    l, r = randint(4, 5), randint(5, lo=1, hi=7) * np.array([1, -1, 1, -1, 1])
    lc, rc = p.const(l), p.const(r)
    refs = []
    fns = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
           "div": lambda a, b: np.trunc(a / b).astype(np.int64),
           "max": np.maximum, "min": np.minimum}
    for name, fn in fns.items():
        v = p.op(f"tandem.{name} {lc}, {rc} : ({t((4, 5), 'i64')}, "
                 f"{t((5,), 'i64')}) -> {t((4, 5), 'i64')}")
        p.out(v, (4, 5), "i64")
        refs.append(fn(l, r))
    l32, r32 = randint(3, 4, dtype=np.int32), randint(3, 1, dtype=np.int32)
    v = p.op(f"tandem.add {p.const(l32)}, {p.const(r32)} : ({t((3, 4), 'i32')}, "
             f"{t((3, 1), 'i32')}) -> {t((3, 4), 'i32')}")
    p.out(v, (3, 4), "i32")
    refs.append(l32 + r32)
    return p, refs


CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
       "gt": np.greater, "ge": np.greater_equal}


@case("elementwise")
def cmp_float_and_int():
    p = Prog()
    l = np.round(rand(6, 7)).astype(np.float32)
    r = np.round(rand(7)).astype(np.float32)
    li, ri = randint(6, 1, lo=-2, hi=3), randint(7, lo=-2, hi=3)
    lc, rc, lic, ric = p.const(l), p.const(r), p.const(li), p.const(ri)
    refs = []
    for pred, fn in CMP.items():
        v = p.op(f"tandem.cmp {pred}, {lc}, {rc} : ({t((6, 7))}, {t((7,))}) "
                 f"-> {t((6, 7), 'i1')}")
        p.out(v, (6, 7), "i1")
        refs.append(fn(l, r))
        v = p.op(f"tandem.cmp {pred}, {lic}, {ric} : ({t((6, 1), 'i64')}, "
                 f"{t((7,), 'i64')}) -> {t((6, 7), 'i1')}")
        p.out(v, (6, 7), "i1")
        refs.append(fn(li, ri))
    return p, refs


@case("elementwise")
def where_broadcast():
    p = Prog()
    cond = RNG.integers(0, 2, size=(7, 1)).astype(np.bool_)
    x, y = rand(7, 13), rand()
    v = p.op(f"tandem.where {p.const(cond)}, {p.const(x)}, {p.const(y)} : "
             f"({t((7, 1), 'i1')}, {t((7, 13))}, {t(())}) -> {t((7, 13))}")
    p.out(v, (7, 13))
    xi, yi = randint(4), randint(3, 4)
    ci = RNG.integers(0, 2, size=(3, 1)).astype(np.bool_)
    v = p.op(f"tandem.where {p.const(ci)}, {p.const(xi)}, {p.const(yi)} : "
             f"({t((3, 1), 'i1')}, {t((4,), 'i64')}, {t((3, 4), 'i64')}) -> "
             f"{t((3, 4), 'i64')}")
    p.out(v, (3, 4), "i64")
    return p, [np.where(cond, x, y), np.where(ci, xi, yi)]


@case("elementwise")
def cast_all_kinds():
    p = Prog()
    x = rand(5, 6, lo=-4.0, hi=4.0)
    x[0, 0] = 0.0
    xc = p.const(x)
    refs = []
    # f32 -> i64 truncates toward zero.
    v = p.op(f"tandem.cast {xc} {{to = i64}} : {t((5, 6))} -> {t((5, 6), 'i64')}")
    p.out(v, (5, 6), "i64")
    refs.append(np.trunc(x))
    # f32 -> i1 compares with zero.
    v = p.op(f"tandem.cast {xc} {{to = i1}} : {t((5, 6))} -> {t((5, 6), 'i1')}")
    p.out(v, (5, 6), "i1")
    refs.append(x != 0)
    # f32 -> f16 (-> f32 when printed).
    v = p.op(f"tandem.cast {xc} {{to = f16}} : {t((5, 6))} -> {t((5, 6), 'f16')}")
    p.out(v, (5, 6), "f16")
    refs.append(x.astype(np.float16))
    # f32 -> bf16 -> f16 (through f32).
    v = p.op(f"tandem.cast {xc} {{to = bf16}} : {t((5, 6))} -> {t((5, 6), 'bf16')}")
    v = p.op(f"tandem.cast {v} {{to = f16}} : {t((5, 6), 'bf16')} -> "
             f"{t((5, 6), 'f16')}")
    p.out(v, (5, 6), "f16")
    refs.append(x)  # compared loosely below
    # i64 -> i32 -> f32, i1 -> i64.
    xi = randint(5, 6, lo=-1000, hi=1000)
    xic = p.const(xi)
    v = p.op(f"tandem.cast {xic} {{to = i32}} : {t((5, 6), 'i64')} -> "
             f"{t((5, 6), 'i32')}")
    p.out(v, (5, 6), "i32")
    refs.append(xi)
    b = RNG.integers(0, 2, size=(5, 6)).astype(np.bool_)
    v = p.op(f"tandem.cast {p.const(b)} {{to = i64}} : {t((5, 6), 'i1')} -> "
             f"{t((5, 6), 'i64')}")
    p.out(v, (5, 6), "i64")
    refs.append(b.astype(np.int64))
    return p, refs, {3: (2e-2, 2e-2)}


@case("elementwise")
def clip_bounds():
    p = Prog()
    x = rand(7, 13, lo=-8.0, hi=8.0)
    xc = p.const(x)
    refs = []
    for attrs, ref in (("{min = 0.0 : f32, max = 6.0 : f32}", np.clip(x, 0, 6)),
                       ("{min = -1.5 : f32}", np.maximum(x, -1.5)),
                       ("{max = 2.5 : f32}", np.minimum(x, 2.5))):
        p.out(p.op(f"tandem.clip {xc} {attrs} : {t((7, 13))}"), (7, 13))
        refs.append(ref)
    xi = randint(3, 4)
    p.out(p.op(f"tandem.clip {p.const(xi)} {{min = -2.0 : f32, max = 3.0 : f32}}"
               f" : {t((3, 4), 'i64')}"), (3, 4), "i64")
    refs.append(np.clip(xi, -2, 3))
    return p, refs


@case("elementwise")
def gelu_both():
    p = Prog()
    x = rand(7, 13, lo=-4.0, hi=4.0)
    xc = p.const(x)
    xd = x.astype(np.float64)
    p.out(p.op(f"tandem.gelu {xc} : {t((7, 13))}"), (7, 13))
    p.out(p.op(f"tandem.gelu {xc} {{approximate = "
               f"#tandem.gelu_approximation<tanh>}} : {t((7, 13))}"), (7, 13))
    exact = xd * 0.5 * (1 + erf(xd / math.sqrt(2)))
    approx = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                     (xd + 0.044715 * xd ** 3)))
    return p, [exact, approx]


@case("elementwise")
def bias_add_axes():
    p = Prog()
    x, b = rand(2, 5, 3, 4), rand(5)
    y, c = rand(7, 13), rand(13)
    p.out(p.op(f"tandem.bias_add {p.const(x)}, {p.const(b)} {{axis = 1 : i64}} :"
               f" ({t((2, 5, 3, 4))}, {t((5,))}) -> {t((2, 5, 3, 4))}"),
          (2, 5, 3, 4))
    p.out(p.op(f"tandem.bias_add {p.const(y)}, {p.const(c)} {{axis = 1 : i64}} :"
               f" ({t((7, 13))}, {t((13,))}) -> {t((7, 13))}"), (7, 13))
    return p, [x + b[None, :, None, None], y + c]


@case("elementwise")
def batch_norm():
    p = Prog()
    x = rand(2, 5, 3, 4)
    s, b, m, v = rand(5), rand(5), rand(5), rand(5, lo=0.1, hi=2.0)
    r = p.op(f"tandem.batch_norm {p.const(x)}, {p.const(s)}, {p.const(b)}, "
             f"{p.const(m)}, {p.const(v)} {{epsilon = 1.0e-03 : f32}} : "
             f"({t((2, 5, 3, 4))}, {t((5,))}, {t((5,))}, {t((5,))}, {t((5,))})"
             f" -> {t((2, 5, 3, 4))}")
    p.out(r, (2, 5, 3, 4))
    bc = lambda a: a.astype(np.float64)[None, :, None, None]
    return p, [(x - bc(m)) / np.sqrt(bc(v) + 1e-3) * bc(s) + bc(b)]


@case("elementwise")
def f16_add_mul():
    p = Prog()
    l, r = rand(7, 13).astype(np.float16), rand(13).astype(np.float16)
    lc, rc = p.const(l), p.const(r)
    a = p.op(f"tandem.add {lc}, {rc} : ({t((7, 13), 'f16')}, {t((13,), 'f16')})"
             f" -> {t((7, 13), 'f16')}")
    m = p.op(f"tandem.mul {a}, {rc} : ({t((7, 13), 'f16')}, {t((13,), 'f16')})"
             f" -> {t((7, 13), 'f16')}")
    p.out(m, (7, 13), "f16")
    return p, [(l + r) * r], {0: (1e-2, 1e-2)}


# ---------------------------------------------------------------------------
# Shape
# ---------------------------------------------------------------------------

@case("shape")
def constant_and_reshape():
    p = Prog()
    x = rand(2, 3, 4)
    xc = p.const(x)
    refs = []
    for shape in ((6, 4), (2, 12), (4, 6), (24,), (2, 3, 2, 2), (1, 24, 1)):
        v = p.op(f"tandem.reshape {xc} {{shape = array<i64: "
                 f"{', '.join(map(str, shape))}>}} : {t((2, 3, 4))} -> {t(shape)}")
        p.out(v, shape)
        refs.append(x.reshape(shape))
    s = np.array([[1.5]], dtype=np.float32)
    v = p.op(f"tandem.reshape {p.const(s)} {{shape = array<i64>}} : "
             f"{t((1, 1))} -> {t(())}")
    v2 = p.op(f"tandem.reshape {v} {{shape = array<i64: 1, 1, 1>}} : "
              f"{t(())} -> {t((1, 1, 1))}")
    p.out(v, ())
    p.out(v2, (1, 1, 1))
    p.out(xc, (2, 3, 4))
    xi = randint(6)
    v = p.op(f"tandem.reshape {p.const(xi)} {{shape = array<i64: 2, 3>}} : "
             f"{t((6,), 'i64')} -> {t((2, 3), 'i64')}")
    p.out(v, (2, 3), "i64")
    return p, refs + [s.reshape(()), s.reshape(1, 1, 1), x, xi.reshape(2, 3)]


@case("shape")
def transpose_perms():
    p = Prog()
    x = rand(2, 3, 5)
    xc = p.const(x)
    refs = []
    for perm in ((2, 0, 1), (1, 0, 2), (0, 2, 1)):
        shape = tuple(x.shape[i] for i in perm)
        v = p.op(f"tandem.transpose {xc} {{perm = array<i64: "
                 f"{', '.join(map(str, perm))}>}} : {t(x.shape)} -> {t(shape)}")
        p.out(v, shape)
        refs.append(x.transpose(perm))
    return p, refs


@case("shape")
def concat_axes():
    p = Prog()
    a, b, c = rand(2, 3, 4), rand(2, 1, 4), rand(2, 5, 4)
    v = p.op(f"tandem.concat {p.const(a)}, {p.const(b)}, {p.const(c)} "
             f"{{axis = 1 : i64}} : ({t(a.shape)}, {t(b.shape)}, {t(c.shape)})"
             f" -> {t((2, 9, 4))}")
    p.out(v, (2, 9, 4))
    ai, bi = randint(3), randint(2)
    v = p.op(f"tandem.concat {p.const(ai)}, {p.const(bi)} {{axis = 0 : i64}} : "
             f"({t((3,), 'i64')}, {t((2,), 'i64')}) -> {t((5,), 'i64')}")
    p.out(v, (5,), "i64")
    return p, [np.concatenate([a, b, c], 1), np.concatenate([ai, bi])]


@case("shape")
def slice_steps():
    p = Prog()
    x = rand(7, 13)
    refs = []
    xc = p.const(x)
    for starts, limits, steps in (((1, 0), (7, 13), (2, 3)),
                                  ((0, 2), (7, 9), (1, 1)),
                                  ((6, 12), (7, 13), (1, 5))):
        sl = tuple(slice(s, l, st) for s, l, st in zip(starts, limits, steps))
        ref = x[sl]
        j = lambda v: ", ".join(map(str, v))
        v = p.op(f"tandem.slice {xc} {{starts = array<i64: {j(starts)}>, "
                 f"limits = array<i64: {j(limits)}>, steps = array<i64: "
                 f"{j(steps)}>}} : {t(x.shape)} -> {t(ref.shape)}")
        p.out(v, ref.shape)
        refs.append(ref)
    return p, refs


@case("shape")
def pad_modes():
    p = Prog()
    x = rand(5, 6)
    xc = p.const(x)
    refs = []
    low, high = (2, 1), (3, 4)
    np_pads = list(zip(low, high))
    shape = tuple(d + l + h for d, l, h in zip(x.shape, low, high))
    for mode, ref in (("constant", np.pad(x, np_pads, constant_values=1.5)),
                      ("reflect", np.pad(x, np_pads, mode="reflect")),
                      ("edge", np.pad(x, np_pads, mode="edge"))):
        v = p.op(f"tandem.pad {xc} {{pads_low = array<i64: 2, 1>, pads_high = "
                 f"array<i64: 3, 4>, mode = #tandem.pad_mode<{mode}>, "
                 f"value = 1.5 : f64}} : {t(x.shape)} -> {t(shape)}")
        p.out(v, shape)
        refs.append(ref)
    xi = randint(2, 3)
    v = p.op(f"tandem.pad {p.const(xi)} {{pads_low = array<i64: 0, 1>, "
             f"pads_high = array<i64: 1, 0>, value = 7.0 : f64}} : "
             f"{t((2, 3), 'i64')} -> {t((3, 4), 'i64')}")
    p.out(v, (3, 4), "i64")
    refs.append(np.pad(xi, [(0, 1), (1, 0)], constant_values=7))
    return p, refs


@case("shape")
def gather_axes():
    p = Prog()
    data = rand(6, 5, 4)
    dc = p.const(data)
    idx0 = RNG.integers(0, 6, size=(2, 3)).astype(np.int64)
    v = p.op(f"tandem.gather {dc}, {p.const(idx0)} {{axis = 0 : i64}} : "
             f"({t(data.shape)}, {t((2, 3), 'i64')}) -> {t((2, 3, 5, 4))}")
    p.out(v, (2, 3, 5, 4))
    idx1 = np.array([4, 0, -1, 2], dtype=np.int32)
    v = p.op(f"tandem.gather {dc}, {p.const(idx1)} {{axis = 1 : i64}} : "
             f"({t(data.shape)}, {t((4,), 'i32')}) -> {t((6, 4, 4))}")
    p.out(v, (6, 4, 4))
    idx2 = np.array(3, dtype=np.int64)
    v = p.op(f"tandem.gather {dc}, {p.const(idx2)} {{axis = 2 : i64}} : "
             f"({t(data.shape)}, {t((), 'i64')}) -> {t((6, 5))}")
    p.out(v, (6, 5))
    table = randint(7)
    v = p.op(f"tandem.gather {p.const(table)}, {p.const(idx0)} {{axis = 0 : i64}}"
             f" : ({t((7,), 'i64')}, {t((2, 3), 'i64')}) -> {t((2, 3), 'i64')}")
    p.out(v, (2, 3), "i64")
    return p, [np.take(data, idx0, 0), np.take(data, idx1, 1),
               np.take(data, idx2, 2), np.take(table, idx0, 0)]


@case("shape")
def broadcast_to_shapes():
    p = Prog()
    x, y = rand(3, 1), rand()
    p.out(p.op(f"tandem.broadcast_to {p.const(x)} {{shape = array<i64: 2, 3, 4>}}"
               f" : {t((3, 1))} -> {t((2, 3, 4))}"), (2, 3, 4))
    p.out(p.op(f"tandem.broadcast_to {p.const(y)} {{shape = array<i64: 5>}}"
               f" : {t(())} -> {t((5,))}"), (5,))
    return p, [np.broadcast_to(x, (2, 3, 4)), np.broadcast_to(y, (5,))]


# ---------------------------------------------------------------------------
# Contraction
# ---------------------------------------------------------------------------

@case("contraction")
def matmul_shapes():
    p = Prog()
    refs = []
    for ls, rs in (((7, 13), (13, 5)), ((2, 7, 13), (13, 5)),
                   ((2, 3, 4, 5), (2, 3, 5, 6)), ((2, 1, 4, 5), (3, 5, 6)),
                   ((4, 5), (2, 5, 3))):
        l, r = rand(*ls), rand(*rs)
        ref = np.matmul(l.astype(np.float64), r.astype(np.float64))
        v = p.op(f"tandem.matmul {p.const(l)}, {p.const(r)} : "
                 f"({t(ls)}, {t(rs)}) -> {t(ref.shape)}")
        p.out(v, ref.shape)
        refs.append(ref)
    return p, refs


@case("contraction")
def matmul_f16():
    p = Prog()
    l, r = rand(7, 13).astype(np.float16), rand(2, 13, 5).astype(np.float16)
    v = p.op(f"tandem.matmul {p.const(l)}, {p.const(r)} : ({t((7, 13), 'f16')}, "
             f"{t((2, 13, 5), 'f16')}) -> {t((2, 7, 5), 'f16')}")
    p.out(v, (2, 7, 5), "f16")
    l2 = rand(3, 7, 13).astype(np.float16)
    v = p.op(f"tandem.matmul {p.const(l2)}, {p.const(r[0])} : "
             f"({t((3, 7, 13), 'f16')}, {t((13, 5), 'f16')}) -> "
             f"{t((3, 7, 5), 'f16')}")
    p.out(v, (3, 7, 5), "f16")
    f = lambda a: a.astype(np.float64)
    return p, [np.matmul(f(l), f(r)), np.matmul(f(l2), f(r[0]))], \
        {0: (2e-2, 2e-2), 1: (2e-2, 2e-2)}


@case("contraction")
def gemm_variants():
    p = Prog()
    refs = []
    m, k, n = 5, 7, 4
    for ta, tb, alpha, beta, cshape in ((False, False, 1.0, 1.0, None),
                                        (True, False, 1.0, 1.0, (n,)),
                                        (False, True, 0.5, 2.0, (m, 1)),
                                        (True, True, 1.5, 0.25, (m, n)),
                                        (False, True, 2.0, 1.0, None)):
        a = rand(k, m) if ta else rand(m, k)
        b = rand(n, k) if tb else rand(k, n)
        operands = f"{p.const(a)}, {p.const(b)}"
        types = f"{t(a.shape)}, {t(b.shape)}"
        ref = alpha * (a.T if ta else a).astype(np.float64) @ \
            (b.T if tb else b).astype(np.float64)
        if cshape:
            c = rand(*cshape)
            operands += f", {p.const(c)}"
            types += f", {t(cshape)}"
            ref = ref + beta * c
        v = p.op(f"tandem.gemm {operands} {{trans_a = {str(ta).lower()}, "
                 f"trans_b = {str(tb).lower()}, alpha = {alpha} : f32, "
                 f"beta = {beta} : f32}} : ({types}) -> {t((m, n))}")
        p.out(v, (m, n))
        refs.append(ref)
    return p, refs


def conv_ref(x, w, b, strides, pads, dil, groups):
    x = np.pad(x.astype(np.float64),
               [(0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])])
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd - dil[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dil[0]: i * dil[0] + strides[0] * (oh - 1) + 1:
                           strides[0],
                           j * dil[1]: j * dil[1] + strides[1] * (ow - 1) + 1:
                           strides[1]]
                wk = w[g * og:(g + 1) * og, :, i, j].astype(np.float64)
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw",
                                                         patch, wk)
    if b is not None:
        out += b[None, :, None, None]
    return out


CONVS = [
    # (x shape, w shape, strides, pads, dilations, groups, bias)
    ((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
    ((2, 3, 9, 7), (5, 3, 3, 2), (2, 1), (1, 0, 2, 1), (1, 1), 1, True),
    ((1, 2, 11, 10), (3, 2, 3, 3), (1, 2), (2, 2, 2, 2), (2, 3), 1, True),
    ((1, 4, 7, 7), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2, True),
    ((2, 5, 9, 9), (5, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 5, True),
    ((1, 3, 6, 6), (6, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3, False),
    ((1, 6, 5, 5), (4, 6, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True),
]


def conv2d_cases(nhwc):
    """CONVS as tandem.conv2d ops; with `nhwc` in layout = "NHWC" (input
    N x H x W x C, filter O x KH x KW x C/groups, result N x OH x OW x O;
    grouped and depthwise ones through the tandem.conv_groups generic)."""
    p = Prog()
    refs = []
    to_last = (0, 2, 3, 1)
    for xs, ws, st, pd, dl, g, has_b in CONVS:
        x, w = rand(*xs), rand(*ws)
        b = rand(ws[0]) if has_b else None
        ref = conv_ref(x, w, b, st, pd, dl, g)
        layout = ""
        if nhwc:
            ref = ref.transpose(to_last)
            x = np.ascontiguousarray(x.transpose(to_last))
            w = np.ascontiguousarray(w.transpose(to_last))
            layout = ', layout = "NHWC"'
        operands = f"{p.const(x)}, {p.const(w)}"
        types = f"{t(x.shape)}, {t(w.shape)}"
        if has_b:
            operands += f", {p.const(b)}"
            types += f", {t((ws[0],))}"
        j = lambda v: ", ".join(map(str, v))
        v = p.op(f"tandem.conv2d {operands} {{strides = array<i64: {j(st)}>, "
                 f"pads = array<i64: {j(pd)}>, dilations = array<i64: {j(dl)}>,"
                 f" groups = {g} : i64{layout}}} : ({types}) -> {t(ref.shape)}")
        p.out(v, ref.shape)
        refs.append(ref)
    return p, refs


@case("contraction")
def conv2d_variants():
    return conv2d_cases(nhwc=False)


@case("contraction")
def conv2d_nhwc_variants():
    return conv2d_cases(nhwc=True)


@case("contraction")
def conv2d_f16():
    p = Prog()
    x, w = rand(1, 3, 6, 6).astype(np.float16), rand(4, 3, 3, 3).astype(np.float16)
    b = rand(4).astype(np.float16)
    ref = conv_ref(x, w, b.astype(np.float64), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    v = p.op(f"tandem.conv2d {p.const(x)}, {p.const(w)}, {p.const(b)} {{strides "
             f"= array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = "
             f"array<i64: 1, 1>}} : ({t(x.shape, 'f16')}, {t(w.shape, 'f16')}, "
             f"{t((4,), 'f16')}) -> {t(ref.shape, 'f16')}")
    p.out(v, ref.shape, "f16")
    return p, [ref], {0: (2e-2, 3e-2)}


# ---------------------------------------------------------------------------
# Reduction
# ---------------------------------------------------------------------------

@case("shape")
def gather_elements():
    p = Prog()
    data = rand(4, 5, 3)
    dc = p.const(data)
    refs = []
    for axis, shape in ((0, (6, 5, 3)), (1, (4, 2, 3)), (2, (3, 5, 7))):
        n = data.shape[axis]
        idx = RNG.integers(-n, n, size=shape).astype(np.int64)
        v = p.op(f"tandem.gather_elements {dc}, {p.const(idx)} {{axis = {axis}"
                 f" : i64}} : ({t(data.shape)}, {t(shape, 'i64')}) -> "
                 f"{t(shape)}")
        p.out(v, shape)
        sub = data[tuple(slice(0, shape[d]) if d != axis else slice(None)
                         for d in range(3))]
        refs.append(np.take_along_axis(sub, np.where(idx < 0, idx + n, idx),
                                       axis))
    ints = randint(3, 4)
    idx = np.array([[1, -1], [0, 3], [-4, 2]], dtype=np.int32)
    v = p.op(f"tandem.gather_elements {p.const(ints)}, {p.const(idx)} "
             f"{{axis = 1 : i64}} : ({t((3, 4), 'i64')}, {t((3, 2), 'i32')}) "
             f"-> {t((3, 2), 'i64')}")
    p.out(v, (3, 2), "i64")
    refs.append(np.take_along_axis(ints, np.where(idx < 0, idx + 4, idx), 1))
    return p, refs


@case("shape")
def gather_nd():
    p = Prog()
    data = rand(4, 5, 3)
    dc = p.const(data)
    pairs = np.stack([RNG.integers(-4, 4, size=(2, 3)),
                      RNG.integers(-5, 5, size=(2, 3))], -1).astype(np.int64)
    v = p.op(f"tandem.gather_nd {dc}, {p.const(pairs)} : ({t(data.shape)}, "
             f"{t(pairs.shape, 'i64')}) -> {t((2, 3, 3))}")
    p.out(v, (2, 3, 3))
    w = np.where(pairs < 0, pairs + np.array([4, 5]), pairs)
    refs = [data[w[..., 0], w[..., 1]]]
    rows = RNG.integers(0, 5, size=(4, 2, 1)).astype(np.int32)
    v = p.op(f"tandem.gather_nd {dc}, {p.const(rows)} {{batch_dims = 1 : i64}}"
             f" : ({t(data.shape)}, {t(rows.shape, 'i32')}) -> {t((4, 2, 3))}")
    p.out(v, (4, 2, 3))
    refs.append(np.stack([data[b][rows[b, :, 0]] for b in range(4)]))
    return p, refs


@case("reduction")
def reduce_ops():
    p = Prog()
    x = rand(3, 5, 4)
    xc = p.const(x)
    refs = []
    for name, fn in (("reduce_sum", np.sum), ("reduce_mean", np.mean),
                     ("reduce_max", np.max)):
        for axes, keep in (((1,), False), ((0, 2), True), ((0, 1, 2), False),
                           ((2,), True)):
            ref = fn(x.astype(np.float64), axis=axes, keepdims=keep)
            v = p.op(f"tandem.{name} {xc} {{axes = array<i64: "
                     f"{', '.join(map(str, axes))}>, keepdims = "
                     f"{str(keep).lower()}}} : {t(x.shape)} -> {t(ref.shape)}")
            p.out(v, ref.shape)
            refs.append(ref)
    xi = randint(4, 6)
    v = p.op(f"tandem.reduce_sum {p.const(xi)} {{axes = array<i64: 1>, keepdims "
             f"= false}} : {t((4, 6), 'i64')} -> {t((4,), 'i64')}")
    p.out(v, (4,), "i64")
    refs.append(xi.sum(1))
    return p, refs


@case("reduction")
def reduce_min_prod():
    p = Prog()
    x = rand(3, 5, 4, lo=0.5, hi=1.5)
    xc = p.const(x)
    refs = []
    for name, fn in (("reduce_min", np.min), ("reduce_prod", np.prod)):
        for axes, keep in (((1,), False), ((0, 2), True), ((0, 1, 2), False)):
            ref = fn(x.astype(np.float64), axis=axes, keepdims=keep)
            v = p.op(f"tandem.{name} {xc} {{axes = array<i64: "
                     f"{', '.join(map(str, axes))}>, keepdims = "
                     f"{str(keep).lower()}}} : {t(x.shape)} -> {t(ref.shape)}")
            p.out(v, ref.shape)
            refs.append(ref)
    for name, fn in (("reduce_min", np.min), ("reduce_prod", np.prod)):
        xi = randint(4, 6, lo=-4, hi=5, dtype=np.int32)
        v = p.op(f"tandem.{name} {p.const(xi)} {{axes = array<i64: 1>, "
                 f"keepdims = false}} : {t((4, 6), 'i32')} -> {t((4,), 'i32')}")
        p.out(v, (4,), "i32")
        refs.append(fn(xi, axis=1))
    return p, refs


def arg_ref(x, axis, largest, last):
    """ArgMax/ArgMin with first or last index on ties (no NaN)."""
    if last:
        flipped = np.flip(x, axis)
        r = (np.argmax if largest else np.argmin)(flipped, axis=axis)
        return x.shape[axis] - 1 - r
    return (np.argmax if largest else np.argmin)(x, axis=axis)


@case("reduction")
def arg_max_min():
    p = Prog()
    # Small integers as floats: plenty of ties.
    x = RNG.integers(-2, 3, size=(3, 5, 4)).astype(np.float32)
    xc = p.const(x)
    xi = RNG.integers(-2, 3, size=(4, 6)).astype(np.int64)
    xic = p.const(xi)
    refs = []
    for name, largest in (("arg_max", True), ("arg_min", False)):
        for last in (False, True):
            for axis in (0, 1, 2):
                ref = arg_ref(x, axis, largest, last)
                v = p.op(f"tandem.{name} {xc} {{axis = {axis} : i64, keepdims "
                         f"= false, select_last_index = {str(last).lower()}}}"
                         f" : {t(x.shape)} -> {t(ref.shape, 'i64')}")
                p.out(v, ref.shape, "i64")
                refs.append(ref)
            ref = np.expand_dims(arg_ref(xi, 1, largest, last), 1)
            v = p.op(f"tandem.{name} {xic} {{axis = 1 : i64, "
                     f"select_last_index = {str(last).lower()}}}"
                     f" : {t(xi.shape, 'i64')} -> {t(ref.shape, 'i64')}")
            p.out(v, ref.shape, "i64")
            refs.append(ref)
    return p, refs


def cumsum_ref(x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    r = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        r = r - x
    return np.flip(r, axis) if reverse else r


@case("reduction")
def cumsum():
    p = Prog()
    x = rand(3, 6, 4)
    xc = p.const(x)
    xi = randint(2, 7, dtype=np.int64)
    xic = p.const(xi)
    refs = []
    for exclusive in (False, True):
        for reverse in (False, True):
            flags = (f"exclusive = {str(exclusive).lower()}, "
                     f"reverse = {str(reverse).lower()}")
            for axis in (0, 1, 2):
                v = p.op(f"tandem.cumsum {xc} {{axis = {axis} : i64, {flags}}}"
                         f" : {t(x.shape)} -> {t(x.shape)}")
                p.out(v, x.shape)
                refs.append(cumsum_ref(x.astype(np.float64), axis, exclusive,
                                       reverse))
            v = p.op(f"tandem.cumsum {xic} {{axis = 1 : i64, {flags}}}"
                     f" : {t(xi.shape, 'i64')} -> {t(xi.shape, 'i64')}")
            p.out(v, xi.shape, "i64")
            refs.append(cumsum_ref(xi, 1, exclusive, reverse))
    return p, refs


def top_k_ref(x, k, axis, largest):
    """Values and indices, best first, ties by lower index (no NaN)."""
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx


@case("reduction")
def top_k():
    p = Prog()
    x = RNG.integers(-3, 4, size=(3, 6, 4)).astype(np.float32)
    x += rand(3, 6, 4, lo=0, hi=1) * (RNG.random((3, 6, 4)) < 0.5)
    xc = p.const(x)
    xi = randint(5, 7, dtype=np.int32)
    refs = []
    for axis, k, largest in ((0, 2, True), (1, 4, False), (2, 4, True),
                             (1, 1, True)):
        v, i = top_k_ref(x, k, axis, largest)
        r = p.fresh()
        p.raw(f"{r}:2 = tandem.top_k {xc} {{axis = {axis} : i64, k = {k} : "
              f"i64, largest = {str(largest).lower()}}} : {t(x.shape)} -> "
              f"{t(v.shape)}, {t(v.shape, 'i64')}")
        p.out(f"{r}#0", v.shape)
        p.out(f"{r}#1", v.shape, "i64")
        refs += [v, i]
    v, i = top_k_ref(xi, 3, 1, False)
    r = p.fresh()
    p.raw(f"{r}:2 = tandem.top_k {p.const(xi)} {{axis = 1 : i64, k = 3 : i64,"
          f" largest = false}} : {t(xi.shape, 'i32')} -> {t(v.shape, 'i32')}, "
          f"{t(v.shape, 'i64')}")
    p.out(f"{r}#0", v.shape, "i32")
    p.out(f"{r}#1", v.shape, "i64")
    return p, refs + [v, i]


@case("reduction")
def global_avg_pool():
    p = Prog()
    x = rand(2, 3, 5, 7)
    p.out(p.op(f"tandem.global_avg_pool {p.const(x)} : {t(x.shape)} -> "
               f"{t((2, 3, 1, 1))}"), (2, 3, 1, 1))
    y = rand(2, 3, 5)
    p.out(p.op(f"tandem.global_avg_pool {p.const(y)} : {t(y.shape)} -> "
               f"{t((2, 3, 1))}"), (2, 3, 1))
    return p, [x.mean((2, 3), keepdims=True), y.mean(2, keepdims=True)]


def pool_out(n, k, s, pb, pe, d, ceil):
    span = n + pb + pe - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + pb:
        out -= 1
    return out


def pool_ref(x, k, s, pads, dil, ceil, kind, include_pad=False):
    n, c, h, w = x.shape
    oh = pool_out(h, k[0], s[0], pads[0], pads[2], dil[0], ceil)
    ow = pool_out(w, k[1], s[1], pads[1], pads[3], dil[1], ceil)
    out = np.zeros((n, c, oh, ow))
    x = x.astype(np.float64)
    for i in range(oh):
        for j in range(ow):
            hs, ws_ = i * s[0] - pads[0], j * s[1] - pads[1]
            rows = [hs + a * dil[0] for a in range(k[0])]
            cols = [ws_ + b * dil[1] for b in range(k[1])]
            vr = [r for r in rows if 0 <= r < h]
            vc = [cc for cc in cols if 0 <= cc < w]
            win = x[:, :, vr][:, :, :, vc]
            if kind == "max":
                out[:, :, i, j] = win.max((2, 3))
            else:
                # The divisor counts the taps in the input, or with
                # include_pad in the padded input (never a ceil-mode
                # window's overhang), as onnxruntime and PyTorch do.
                if include_pad:
                    cnt = (sum(r < h + pads[2] for r in rows) *
                           sum(cc < w + pads[3] for cc in cols))
                else:
                    cnt = len(vr) * len(vc)
                out[:, :, i, j] = win.sum((2, 3)) / cnt
    return out


POOLS = [
    # (x shape, kernel, strides, pads, dilations, ceil)
    ((1, 2, 8, 8), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    ((2, 3, 7, 7), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), True),
    ((1, 2, 9, 6), (3, 2), (2, 1), (1, 0, 1, 1), (1, 1), True),
    ((1, 1, 10, 9), (3, 3), (3, 2), (1, 1, 0, 1), (2, 1), True),
    ((1, 3, 5, 5), (5, 5), (1, 1), (0, 0, 0, 0), (1, 1), False),
    # Dilated in both dims with a ceil-mode overhang: 7 = 2 + 5, taps 0, 2.
    ((1, 2, 7, 8), (2, 3), (2, 2), (1, 0, 1, 1), (2, 2), True),
]


def pool_cases(kind, nhwc):
    """POOLS as tandem.max_pool2d or tandem.avg_pool2d ops (the average ones
    with and without count_include_pad); with `nhwc` in layout = "NHWC"
    (input and result N x H x W x C)."""
    p = Prog()
    refs = []
    to_last = (0, 2, 3, 1)
    j = lambda v: ", ".join(map(str, v))
    for xs, k, s, pd, dl, ceil in POOLS:
        for include in (False,) if kind == "max" else (False, True):
            x = rand(*xs)
            ref = pool_ref(x, k, s, pd, dl, ceil, kind, include)
            attrs = (f"kernel_shape = array<i64: {j(k)}>, strides = "
                     f"array<i64: {j(s)}>, pads = array<i64: {j(pd)}>, "
                     f"ceil_mode = {str(ceil).lower()}")
            if kind == "avg":
                attrs += f", count_include_pad = {str(include).lower()}"
            if kind == "max" or dl != (1, 1):
                attrs += f", dilations = array<i64: {j(dl)}>"
            if nhwc:
                ref = ref.transpose(to_last)
                x = np.ascontiguousarray(x.transpose(to_last))
                attrs += ', layout = "NHWC"'
            v = p.op(f"tandem.{kind}_pool2d {p.const(x)} {{{attrs}}} : "
                     f"{t(x.shape)} -> {t(ref.shape)}")
            p.out(v, ref.shape)
            refs.append(ref)
    return p, refs


@case("reduction")
def max_pool():
    return pool_cases("max", nhwc=False)


@case("reduction")
def max_pool_nhwc():
    return pool_cases("max", nhwc=True)


@case("reduction")
def avg_pool():
    return pool_cases("avg", nhwc=False)


@case("reduction")
def avg_pool_nhwc():
    return pool_cases("avg", nhwc=True)


@case("reduction")
def softmax_axes():
    p = Prog()
    x = rand(3, 4, 5, lo=-6.0, hi=6.0)
    xc = p.const(x)
    refs = []
    for axis in (2, 0, 1):
        v = p.op(f"tandem.softmax {xc} {{axis = {axis} : i64}} : {t(x.shape)} -> "
                 f"{t(x.shape)}")
        p.out(v, x.shape)
        e = np.exp(x - x.max(axis, keepdims=True))
        refs.append(e / e.sum(axis, keepdims=True))
    return p, refs


@case("reduction")
def layer_norm_axes():
    p = Prog()
    x = rand(2, 3, 7)
    xc = p.const(x)
    refs = []
    for axis, bias in ((2, True), (1, False), (0, True)):
        a = axis % 3
        pshape = x.shape[a:]
        g = rand(*pshape)
        operands, types = f"{xc}, {p.const(g)}", f"{t(x.shape)}, {t(pshape)}"
        xd = x.astype(np.float64)
        axes = tuple(range(a, 3))
        mean = xd.mean(axes, keepdims=True)
        var = ((xd - mean) ** 2).mean(axes, keepdims=True)
        ref = (xd - mean) / np.sqrt(var + 1e-5) * g
        if bias:
            b = rand(*pshape)
            operands += f", {p.const(b)}"
            types += f", {t(pshape)}"
            ref = ref + b
        v = p.op(f"tandem.layer_norm {operands} {{axis = {axis} : i64, epsilon ="
                 f" 1.0e-05 : f32}} : ({types}) -> {t(x.shape)}")
        p.out(v, x.shape)
        refs.append(ref)
    return p, refs


@case("reduction")
def f16_reductions_accumulate_in_f32():
    p = Prog()
    x = rand(2, 3, 40, lo=-4.0, hi=4.0).astype(np.float16)
    xc = p.const(x)
    xd = x.astype(np.float64)
    h = lambda s: t(s, "f16")
    refs = []
    v = p.op(f"tandem.reduce_mean {xc} {{axes = array<i64: 2>}} : {h(x.shape)} "
             f"-> {h((2, 3, 1))}")
    p.out(v, (2, 3, 1), "f16")
    refs.append(xd.mean(2, keepdims=True))
    v = p.op(f"tandem.softmax {xc} {{axis = 2 : i64}} : {h(x.shape)} -> "
             f"{h(x.shape)}")
    p.out(v, x.shape, "f16")
    e = np.exp(xd - xd.max(2, keepdims=True))
    refs.append(e / e.sum(2, keepdims=True))
    g = rand(40).astype(np.float16)
    v = p.op(f"tandem.layer_norm {xc}, {p.const(g)} {{axis = 2 : i64}} : "
             f"({h(x.shape)}, {h((40,))}) -> {h(x.shape)}")
    p.out(v, x.shape, "f16")
    mean = xd.mean(2, keepdims=True)
    var = ((xd - mean) ** 2).mean(2, keepdims=True)
    refs.append((xd - mean) / np.sqrt(var + 1e-5) * g)
    y = rand(1, 2, 7, 7).astype(np.float16)
    v = p.op(f"tandem.avg_pool2d {p.const(y)} {{kernel_shape = array<i64: 3, 3>,"
             f" strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}} : "
             f"{h(y.shape)} -> {h((1, 2, 4, 4))}")
    p.out(v, (1, 2, 4, 4), "f16")
    refs.append(pool_ref(y, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, "avg"))
    v = p.op(f"tandem.global_avg_pool {p.const(y)} : {h(y.shape)} -> "
             f"{h((1, 2, 1, 1))}")
    p.out(v, (1, 2, 1, 1), "f16")
    refs.append(y.astype(np.float64).mean((2, 3), keepdims=True))
    return p, refs, {i: (5e-3, 5e-3) for i in range(len(refs))}


# ---------------------------------------------------------------------------
# Fusion
# ---------------------------------------------------------------------------

@case("fusion")
def fusion_inlined():
    p = Prog()
    x, w, b = rand(1, 3, 6, 6), rand(4, 3, 3, 3), rand(4)
    y = rand(4)
    xc, wc, bc, yc = p.const(x), p.const(w), p.const(b), p.const(y)
    out = t((1, 4, 4, 4))
    name = p.fresh()
    p.raw(f"{name} = tandem.fusion output \"conv_relu\" ({xc}, {wc}, {bc}) : "
          f"({t(x.shape)}, {t(w.shape)}, {t((4,))}) -> {out} {{")
    p.raw(f"^bb0(%a: {t(x.shape)}, %f: {t(w.shape)}, %c: {t((4,))}):")
    p.raw(f"  %0 = tandem.conv2d %a, %f, %c {{dilations = array<i64: 1, 1>, "
          f"pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}} : "
          f"({t(x.shape)}, {t(w.shape)}, {t((4,))}) -> {out}")
    p.raw(f"  %1 = tandem.relu %0 : {out}")
    p.raw(f"  tandem.yield %1 : {out}")
    p.raw("}")
    name2 = p.fresh()
    p.raw(f"{name2}:2 = tandem.fusion multi_output \"exp_neg\" ({yc}) : "
          f"({t((4,))}) -> ({t((4,))}, {t((4,))}) {{")
    p.raw(f"^bb0(%a: {t((4,))}):")
    p.raw(f"  %0 = tandem.exp %a : {t((4,))}")
    p.raw(f"  %1 = tandem.neg %0 : {t((4,))}")
    p.raw(f"  tandem.yield %0, %1 : {t((4,))}, {t((4,))}")
    p.raw("}")
    p.out(name, (1, 4, 4, 4))
    p.out(f"{name2}#0", (4,))
    p.out(f"{name2}#1", (4,))
    ref = np.maximum(conv_ref(x, w, b, (1, 1), (0, 0, 0, 0), (1, 1), 1), 0)
    return p, [ref, np.exp(y), -np.exp(y)]


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

FLOAT_RE = re.compile(r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)",
                      re.IGNORECASE)


def parse_outputs(text):
    chunks = text.split("Unranked Memref")[1:]
    results = []
    for chunk in chunks:
        sizes = re.search(r"sizes = \[([^\]]*)\]", chunk).group(1)
        shape = tuple(int(s) for s in sizes.split(",") if s.strip())
        data = chunk.split("data =", 1)[1]
        values = [float(v) for v in FLOAT_RE.findall(data)]
        results.append(np.array(values, dtype=np.float64).reshape(shape))
    return results


def run_case(args, family, name, builder):
    built = builder()
    prog, refs = built[0], built[1]
    tols = built[2] if len(built) > 2 else {}
    module = prog.module()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(args.keep or tmp, f"{family}_{name}.mlir")
        with open(path, "w") as f:
            f.write(module)
        lowered = subprocess.run(
            [args.opt, f"--pass-pipeline={PIPELINE}", path],
            capture_output=True, text=True)
        if lowered.returncode != 0:
            return False, f"lowering failed:\n{lowered.stderr[-3000:]}"
        libs = ",".join(os.path.join(args.libdir, l) for l in (
            "libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
        ran = subprocess.run(
            [args.runner, "-e", "main", "-entry-point-result=void",
             f"-shared-libs={libs}"], input=lowered.stdout,
            capture_output=True, text=True, timeout=120)
        if ran.returncode != 0:
            return False, f"mlir-runner failed:\n{ran.stderr[-3000:]}"
    got = parse_outputs(ran.stdout)
    if len(got) != len(refs):
        return False, f"expected {len(refs)} outputs, got {len(got)}"
    for i, (g, r) in enumerate(zip(got, refs)):
        r = np.asarray(r, dtype=np.float64)
        rtol, atol = tols.get(i, (1e-4, 1e-5))
        if g.shape != r.shape:
            return False, f"output {i}: shape {g.shape} != reference {r.shape}"
        if not np.allclose(g, r, rtol=rtol, atol=atol):
            err = np.abs(g - r).max()
            return False, (f"output {i}: max abs error {err:.3g} "
                           f"(rtol {rtol}, atol {atol})\n got {g.ravel()[:8]}\n"
                           f" ref {r.ravel()[:8]}")
    return True, f"{len(refs)} outputs"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--opt", required=True, help="tandem-opt binary")
    parser.add_argument("--runner", required=True)
    parser.add_argument("--libdir", required=True)
    parser.add_argument("--family", action="append")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", help="directory to keep the test modules in")
    args = parser.parse_args()
    selected = [c for c in CASES if not args.family or c[0] in args.family]
    if not selected:
        print("no cases selected")
        return 1
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [(c, pool.submit(run_case, args, *c)) for c in selected]
        for (family, name, _), future in futures:
            ok, detail = future.result()
            status = "PASS" if ok else "FAIL"
            print(f"{status}: {family}/{name}: {detail}")
            passed += ok
            failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
