"""Translates an ONNX graph, weights included, onto jax.numpy / jax.lax, so
that XLA (through jax.jit) runs the same model the other runtimes run.

    fn, params, inputs, outputs = translate(onnx.load(path))
    jitted = jax.jit(fn)
    ys = jitted(params, *xs)          # a tuple, one array per graph output

Tensors are kept NCHW: Conv maps onto lax.conv_general_dilated with
dimension numbers ("NCHW", "OIHW", "NCHW"), pooling onto lax.reduce_window.

Values the graph computes from shapes and constants alone (Shape, Gather,
Unsqueeze, Concat, Slice, Cast... feeding a Reshape) are evaluated with
numpy while tracing, so they are static, as XLA needs them. Float
initializers of more than STATIC_MAX_ELEMENTS elements are passed to the
jitted function as arguments (the usual jax inference setup); the rest are
constants in the traced graph.

An op (or attribute value) this module does not handle raises
UnsupportedOp naming the node and the op.

The benchmark's model set (torch exports of ResNet, MobileNetV2, Transformer
and BERT-style encoder layers, an MLP, Conv+BN+ReLU) uses: Conv, Gemm,
MatMul, Add, Sub, Mul, Div, Pow, Sqrt, Erf, Relu, Clip, MaxPool,
GlobalAveragePool, Flatten, Reshape, Transpose, Concat, Softmax,
ReduceMean, Shape, Gather, Constant, Unsqueeze, Slice, Cast, Identity.
Also handled: BatchNormalization (inference), AveragePool,
LayerNormalization, Tanh, Sigmoid, Exp, Log, Neg, Abs, Reciprocal, Max,
Min, Squeeze, ReduceSum, Where, Equal, Expand, ConstantOfShape, Dropout.
"""
import math

import numpy as np
from onnx import numpy_helper

STATIC_MAX_ELEMENTS = 64

# ONNX TensorProto element types.
_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32,
           7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64}


class UnsupportedOp(Exception):
    """An ONNX node the translator cannot map."""


def _static(v):
    return isinstance(v, (np.ndarray, np.generic))


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def translate(model):
    """Returns (fn, params, input_names, output_names): fn(params, *inputs)
    -> tuple of outputs, params a dict of numpy arrays."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    graph = model.graph
    opset = next((o.version for o in model.opset_import
                  if o.domain in ("", "ai.onnx")), 13)
    static, params = {}, {}
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        if arr.dtype.kind == "f" and arr.size > STATIC_MAX_ELEMENTS:
            params[init.name] = arr
        else:
            static[init.name] = arr
    inits = set(static) | set(params)
    input_names = [vi.name for vi in graph.input if vi.name not in inits]
    output_names = [vi.name for vi in graph.output]
    nodes = list(graph.node)

    # Fail early, before any tracing, on an op we do not know.
    for node in nodes:
        if node.domain not in ("", "ai.onnx"):
            raise UnsupportedOp("node '%s' (op %s, domain %s): domain not "
                                "supported" % (node.name, node.op_type,
                                               node.domain))
        if node.op_type not in _OPS:
            raise UnsupportedOp("node '%s' (op %s): not supported by "
                                "bench/harness/onnx_to_jax.py" %
                                (node.name, node.op_type))

    env_ops = _Env(jnp, lax, jax, opset)

    def fn(weights, *xs):
        values = dict(static)
        values.update(weights)
        values.update(zip(input_names, xs))
        for node in nodes:
            ins = [values[n] if n else None for n in node.input]
            try:
                outs = _OPS[node.op_type](env_ops, node, ins, _attrs(node))
            except UnsupportedOp as e:
                raise UnsupportedOp("node '%s' (op %s): %s" % (
                    node.name, node.op_type, e)) from None
            if not isinstance(outs, (tuple, list)):
                outs = (outs,)
            for name, v in zip(node.output, outs):
                if name:
                    values[name] = v
        return tuple(values[n] for n in output_names)

    return fn, params, input_names, output_names


class _Env:
    def __init__(self, jnp, lax, jax, opset):
        self.jnp, self.lax, self.jax, self.opset = jnp, lax, jax, opset

    def xp(self, *vals):
        """numpy when every value is static (constant folding at trace
        time), else jax.numpy."""
        return np if all(_static(v) for v in vals if v is not None) \
            else self.jnp


def _need_static(v, what):
    if not _static(v):
        raise UnsupportedOp("%s must be a constant (computed from shapes "
                            "and initializers only)" % what)
    return np.asarray(v)


#===--- element-wise -----------------------------------------------------===#


def _binary(np_fn):
    def op(e, node, ins, a):
        x, y = ins
        xp = e.xp(x, y)
        return getattr(xp, np_fn)(x, y)
    return op


def _div(e, node, ins, a):
    x, y = ins
    xp = e.xp(x, y)
    if np.issubdtype(np.asarray(x).dtype if _static(x) else x.dtype,
                     np.integer):
        return xp.trunc(xp.true_divide(x, y)).astype(
            np.asarray(x).dtype if _static(x) else x.dtype)
    return xp.divide(x, y)


def _pow(e, node, ins, a):
    x, y = ins
    xp = e.xp(x, y)
    out = xp.power(x, y)
    dtype = x.dtype
    return out.astype(dtype) if out.dtype != dtype else out


def _unary(name):
    def op(e, node, ins, a):
        (x,) = ins[:1]
        xp = e.xp(x)
        if name == "erf":
            if xp is np:
                return np.vectorize(math.erf)(x).astype(x.dtype)
            return e.jax.scipy.special.erf(x)
        if name == "sigmoid":
            return 1 / (1 + xp.exp(-x)) if xp is np else e.jax.nn.sigmoid(x)
        if name == "relu":
            return xp.maximum(x, xp.zeros((), x.dtype))
        if name == "reciprocal":
            return 1 / x
        return getattr(xp, name)(x)
    return op


def _clip(e, node, ins, a):
    x = ins[0]
    lo = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("min")
    hi = ins[2] if len(ins) > 2 and ins[2] is not None else a.get("max")
    xp = e.xp(x)
    if lo is not None:
        x = xp.maximum(x, xp.asarray(lo, x.dtype))
    if hi is not None:
        x = xp.minimum(x, xp.asarray(hi, x.dtype))
    return x


def _variadic(np_fn):
    def op(e, node, ins, a):
        xp = e.xp(*ins)
        out = ins[0]
        for v in ins[1:]:
            out = getattr(xp, np_fn)(out, v)
        return out
    return op


def _cast(e, node, ins, a):
    to = a["to"]
    if to not in _DTYPES:
        raise UnsupportedOp("Cast to ONNX type %d" % to)
    return ins[0].astype(_DTYPES[to])


def _where(e, node, ins, a):
    return e.xp(*ins).where(*ins)


#===--- shapes -----------------------------------------------------------===#


def _shape(e, node, ins, a):
    shape = np.array(ins[0].shape, np.int64)
    start, end = a.get("start", 0), a.get("end", None)
    return shape[start:end]


def _constant(e, node, ins, a):
    if "value" in a:
        return numpy_helper.to_array(a["value"])
    for key, dtype in (("value_float", np.float32), ("value_int", np.int64),
                       ("value_floats", np.float32),
                       ("value_ints", np.int64)):
        if key in a:
            return np.array(a[key], dtype)
    raise UnsupportedOp("Constant without a value / value_* attribute")


def _constant_of_shape(e, node, ins, a):
    shape = _need_static(ins[0], "the shape")
    value = numpy_helper.to_array(a["value"]) if "value" in a else \
        np.zeros(1, np.float32)
    return np.full(tuple(int(d) for d in shape), value.reshape(-1)[0],
                   value.dtype)


def _gather(e, node, ins, a):
    data, idx = ins
    axis = a.get("axis", 0)
    if _static(data) and _static(idx):
        idx = np.where(idx < 0, idx + data.shape[axis], idx)
        return np.take(data, idx, axis=axis)
    return e.jnp.take(data, idx, axis=axis)


def _axes(e, node, ins, a, what="axes"):
    if len(ins) > 1 and ins[1] is not None:
        return [int(v) for v in _need_static(ins[1], what)]
    return list(a.get("axes", [])) or None


def _unsqueeze(e, node, ins, a):
    x = ins[0]
    axes = _axes(e, node, ins, a)
    rank = x.ndim + len(axes)
    for ax in sorted(ax % rank for ax in axes):
        x = e.xp(x).expand_dims(x, ax)
    return x


def _squeeze(e, node, ins, a):
    x = ins[0]
    axes = _axes(e, node, ins, a)
    if axes is None:
        return e.xp(x).squeeze(x)
    return e.xp(x).squeeze(x, tuple(ax % x.ndim for ax in axes))


def _concat(e, node, ins, a):
    return e.xp(*ins).concatenate(ins, axis=a["axis"])


def _reshape(e, node, ins, a):
    x = ins[0]
    shape = [int(d) for d in _need_static(ins[1], "the target shape")]
    if not a.get("allowzero", 0):
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return e.xp(x).reshape(x, shape)


def _flatten(e, node, ins, a):
    x = ins[0]
    axis = a.get("axis", 1) % (x.ndim + 1) if x.ndim else 0
    lead = int(np.prod(x.shape[:axis]))
    return e.xp(x).reshape(x, (lead, -1))


def _transpose(e, node, ins, a):
    x = ins[0]
    perm = a.get("perm") or list(range(x.ndim))[::-1]
    return e.xp(x).transpose(x, perm)


def _slice(e, node, ins, a):
    x = ins[0]
    if e.opset < 10:
        starts, ends = a["starts"], a["ends"]
        axes = a.get("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts = _need_static(ins[1], "starts")
        ends = _need_static(ins[2], "ends")
        axes = _need_static(ins[3], "axes") if len(ins) > 3 and \
            ins[3] is not None else range(len(starts))
        steps = _need_static(ins[4], "steps") if len(ins) > 4 and \
            ins[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, t, ax, st in zip(starts, ends, axes, steps):
        dim = x.shape[int(ax)]
        s, t, st = int(s), int(t), int(st)
        # Clamp as ONNX does (ends like INT64_MAX / INT64_MIN).
        s = max(min(s, dim), -dim - 1)
        t = max(min(t, dim), -dim - 1)
        if st < 0 and t < -dim:
            t = None
        index[int(ax) % x.ndim] = slice(s, t, st)
    return x[tuple(index)]


def _expand(e, node, ins, a):
    x = ins[0]
    shape = [int(d) for d in _need_static(ins[1], "the shape")]
    out = np.broadcast_shapes(tuple(x.shape), tuple(shape))
    return e.xp(x).broadcast_to(x, out)


#===--- contractions -----------------------------------------------------===#


def _matmul(e, node, ins, a):
    return e.xp(*ins).matmul(ins[0], ins[1])


def _gemm(e, node, ins, a):
    x, w = ins[0], ins[1]
    c = ins[2] if len(ins) > 2 else None
    xp = e.xp(x, w, c)
    if a.get("transA", 0):
        x = x.T
    if a.get("transB", 0):
        w = w.T
    y = xp.matmul(x, w)
    alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
    if alpha != 1.0:
        y = y * np.float32(alpha)
    if c is not None:
        y = y + (c if beta == 1.0 else c * np.float32(beta))
    return y


def _pads(a, spatial, what):
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        if auto == "SAME_LOWER":
            raise UnsupportedOp("%s auto_pad SAME_LOWER" % what)
        return "SAME"
    if auto == "VALID":
        return [(0, 0)] * spatial
    pads = a.get("pads", [0] * (2 * spatial))
    return [(int(pads[i]), int(pads[i + spatial])) for i in range(spatial)]


def _conv(e, node, ins, a):
    x, w = ins[0], ins[1]
    b = ins[2] if len(ins) > 2 else None
    spatial = x.ndim - 2
    dims = "NCHW"[:2] + "DHW"[3 - spatial:] if spatial <= 3 else None
    if dims is None or spatial < 1:
        raise UnsupportedOp("Conv of rank %d" % x.ndim)
    kdims = "OI" + dims[2:]
    y = e.lax.conv_general_dilated(
        x, w, window_strides=a.get("strides", [1] * spatial),
        padding=_pads(a, spatial, "Conv"),
        rhs_dilation=a.get("dilations", [1] * spatial),
        dimension_numbers=(dims, kdims, dims),
        feature_group_count=a.get("group", 1))
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * spatial)
    return y


#===--- normalisation and pooling ----------------------------------------===#


def _batchnorm(e, node, ins, a):
    if a.get("training_mode", 0):
        raise UnsupportedOp("BatchNormalization with training_mode=1")
    x, scale, bias, mean, var = ins[:5]
    eps = a.get("epsilon", 1e-5)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    xp = e.jnp
    inv = scale / xp.sqrt(var + np.float32(eps))
    return x * inv.reshape(shape) + (bias - mean * inv).reshape(shape)


def _layernorm(e, node, ins, a):
    x, scale = ins[0], ins[1]
    bias = ins[2] if len(ins) > 2 else None
    axis = a.get("axis", -1) % x.ndim
    eps = a.get("epsilon", 1e-5)
    axes = tuple(range(axis, x.ndim))
    jnp = e.jnp
    mean = jnp.mean(x, axis=axes, keepdims=True)
    d = x - mean
    var = jnp.mean(d * d, axis=axes, keepdims=True)
    y = d * e.lax.rsqrt(var + np.float32(eps)) * scale
    return y + bias if bias is not None else y


def _softmax(e, node, ins, a):
    x = ins[0]
    axis = a.get("axis", -1 if e.opset >= 13 else 1)
    if e.opset < 13 and axis % x.ndim != x.ndim - 1:
        raise UnsupportedOp("opset < 13 Softmax over a non-last axis")
    return e.jax.nn.softmax(x, axis=axis)


def _reduce(name):
    def op(e, node, ins, a):
        x = ins[0]
        if e.opset >= 18 or name == "sum" and e.opset >= 13:
            axes = _axes(e, node, ins, a)
        else:
            axes = a.get("axes")
        if axes is None and a.get("noop_with_empty_axes", 0):
            return x
        keep = bool(a.get("keepdims", 1))
        axes = None if axes is None else tuple(ax % x.ndim for ax in axes)
        return getattr(e.xp(x), name)(x, axis=axes, keepdims=keep)
    return op


def _pool(kind):
    def op(e, node, ins, a):
        x = ins[0]
        spatial = x.ndim - 2
        if a.get("ceil_mode", 0):
            raise UnsupportedOp("ceil_mode=1")
        if a.get("storage_order", 0):
            raise UnsupportedOp("storage_order=1")
        kernel = tuple(a["kernel_shape"])
        strides = tuple(a.get("strides", [1] * spatial))
        dil = tuple(a.get("dilations", [1] * spatial))
        pads = _pads(a, spatial, kind)
        if pads == "SAME":
            raise UnsupportedOp("auto_pad SAME")
        window = (1, 1) + kernel
        wstrides = (1, 1) + strides
        wdil = (1, 1) + dil
        padding = [(0, 0), (0, 0)] + pads
        lax, jnp = e.lax, e.jnp
        if kind == "MaxPool":
            return lax.reduce_window(x, -jnp.inf, lax.max, window, wstrides,
                                     padding, window_dilation=wdil)
        total = lax.reduce_window(x, 0.0, lax.add, window, wstrides, padding,
                                  window_dilation=wdil)
        if a.get("count_include_pad", 0) or all(p == (0, 0) for p in pads):
            return total / np.float32(np.prod(kernel))
        ones = jnp.ones((1, 1) + x.shape[2:], x.dtype)
        count = lax.reduce_window(ones, 0.0, lax.add, window, wstrides,
                                  padding, window_dilation=wdil)
        return total / count
    return op


def _global_avg(e, node, ins, a):
    x = ins[0]
    return e.jnp.mean(x, axis=tuple(range(2, x.ndim)), keepdims=True)


def _global_max(e, node, ins, a):
    x = ins[0]
    return e.jnp.max(x, axis=tuple(range(2, x.ndim)), keepdims=True)


def _identity(e, node, ins, a):
    return ins[0]


_OPS = {
    "Add": _binary("add"), "Sub": _binary("subtract"),
    "Mul": _binary("multiply"), "Div": _div, "Pow": _pow,
    "Equal": _binary("equal"),
    "Max": _variadic("maximum"), "Min": _variadic("minimum"),
    "Sqrt": _unary("sqrt"), "Erf": _unary("erf"), "Tanh": _unary("tanh"),
    "Exp": _unary("exp"), "Log": _unary("log"), "Neg": _unary("negative"),
    "Abs": _unary("abs"), "Reciprocal": _unary("reciprocal"),
    "Sigmoid": _unary("sigmoid"), "Relu": _unary("relu"),
    "Clip": _clip, "Cast": _cast, "Where": _where,
    "Shape": _shape, "Constant": _constant,
    "ConstantOfShape": _constant_of_shape, "Gather": _gather,
    "Unsqueeze": _unsqueeze, "Squeeze": _squeeze, "Concat": _concat,
    "Reshape": _reshape, "Flatten": _flatten, "Transpose": _transpose,
    "Slice": _slice, "Expand": _expand,
    "MatMul": _matmul, "Gemm": _gemm, "Conv": _conv,
    "BatchNormalization": _batchnorm, "LayerNormalization": _layernorm,
    "Softmax": _softmax, "ReduceMean": _reduce("mean"),
    "ReduceSum": _reduce("sum"),
    "MaxPool": _pool("MaxPool"), "AveragePool": _pool("AveragePool"),
    "GlobalAveragePool": _global_avg, "GlobalMaxPool": _global_max,
    "Identity": _identity, "Dropout": _identity,
}
