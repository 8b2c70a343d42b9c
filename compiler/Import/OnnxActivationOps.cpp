//===- OnnxActivationOps.cpp - ONNX activations -> tandem elementwise -----===//
//
// LeakyRelu, PRelu, Elu, Selu, Celu, Softplus, Softsign, Mish,
// ThresholdedRelu and Shrink, each decomposed into elementwise tandem ops
// (cmp, where, exp, log, ...) that fusion merges into one loop. The
// formulas follow onnxruntime's kernels, so special values (infinities, NaN,
// signed zeros) come out as onnxruntime computes them.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

/// Input 0 when it is a float tensor; otherwise a diagnostic.
FailureOr<Value> floatInput(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(cast<RankedTensorType>(x->getType()).getElementType()))
    return im.error() << "expects a float input, got " << x->getType(),
           failure();
  return x;
}

Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Builds `y = f(im, x)` for a float input `x` (in f32 for f16 and bf16)
/// and binds output 0.
LogicalResult
convertFloatActivation(GraphImporter &im,
                       function_ref<Value(GraphImporter &, Value, Type)> f) {
  FailureOr<Value> x = floatInput(im);
  if (failed(x))
    return failure();
  im.setOutput(0, computeInF32(im, *x, [&](Value wide) {
                 return f(im, wide, elementTypeOf(wide));
               }));
  return success();
}

/// x < 0 ? alpha * x : x.
LogicalResult convertLeakyRelu(GraphImporter &im) {
  double alpha = im.attrFloat("alpha", 0.01f);
  return convertFloatActivation(im, [&](GraphImporter &im, Value x, Type t) {
    Value negative =
        im.create<CmpOp>(CmpPredicate::LT, x, im.scalarConstant(t, 0.0));
    Value scaled = im.create<MulOp>(x, im.scalarConstant(t, alpha));
    return im.create<WhereOp>(negative, scaled, x);
  });
}

/// x < 0 ? slope * x : x, `slope` broadcasting to x (unidirectionally).
LogicalResult convertPRelu(GraphImporter &im) {
  if (failed(checkSameElementType(im, 0, 1)))
    return failure();
  FailureOr<Value> x = im.input(0), slope = im.input(1);
  if (failed(x) || failed(slope))
    return failure();
  // Unidirectional broadcasting (opset 7 on): the slope's dims align with
  // the input's trailing dims. A [C] slope against an N x C x ... input (the
  // opset-6 pytorch-converted PReLU tests) does not, and onnxruntime rejects
  // those models too.
  auto xt = cast<RankedTensorType>(x->getType());
  auto st = cast<RankedTensorType>(slope->getType());
  bool broadcasts = st.getRank() <= xt.getRank();
  for (int64_t d = 1; broadcasts && d <= st.getRank(); ++d) {
    int64_t s = st.getDimSize(st.getRank() - d);
    broadcasts = s == 1 || s == xt.getDimSize(xt.getRank() - d);
  }
  if (!broadcasts)
    return im.error() << "slope " << st
                      << " does not broadcast unidirectionally to the input "
                      << xt
                      << " (its dims align with the input's last ones; a "
                         "per-channel slope has shape [C, 1, ...]; "
                         "onnxruntime rejects this slope too)",
           failure();
  Type t = elementTypeOf(*x);
  Value negative =
      im.create<CmpOp>(CmpPredicate::LT, *x, im.scalarConstant(t, 0.0));
  Value scaled = im.create<MulOp>(*x, *slope);
  Value y = im.create<WhereOp>(negative, scaled, *x);
  im.setOutput(0, y);
  return success();
}

/// x < 0 ? alpha * (exp(x) - 1) : x.
LogicalResult convertElu(GraphImporter &im) {
  double alpha = im.attrFloat("alpha", 1.0f);
  return convertFloatActivation(im, [&](GraphImporter &im, Value x, Type t) {
    Value negative =
        im.create<CmpOp>(CmpPredicate::LT, x, im.scalarConstant(t, 0.0));
    Value expm1 =
        im.create<SubOp>(im.create<ExpOp>(x), im.scalarConstant(t, 1.0));
    Value scaled = im.create<MulOp>(expm1, im.scalarConstant(t, alpha));
    return im.create<WhereOp>(negative, scaled, x);
  });
}

/// gamma * (x > 0 ? x : alpha * exp(x) - alpha).
LogicalResult convertSelu(GraphImporter &im) {
  double alpha = im.attrFloat("alpha", 1.67326319217681884765625f);
  double gamma = im.attrFloat("gamma", 1.05070102214813232421875f);
  return convertFloatActivation(im, [&](GraphImporter &im, Value x, Type t) {
    Value positive =
        im.create<CmpOp>(CmpPredicate::GT, x, im.scalarConstant(t, 0.0));
    Value alphaC = im.scalarConstant(t, alpha);
    Value negativePart =
        im.create<SubOp>(im.create<MulOp>(im.create<ExpOp>(x), alphaC), alphaC);
    Value selected = im.create<WhereOp>(positive, x, negativePart);
    return im.create<MulOp>(selected, im.scalarConstant(t, gamma));
  });
}

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
LogicalResult convertCelu(GraphImporter &im) {
  double alpha = im.attrFloat("alpha", 1.0f);
  if (alpha == 0.0)
    return im.error() << "alpha must be non-zero", failure();
  return convertFloatActivation(im, [&](GraphImporter &im, Value x, Type t) {
    Value zero = im.scalarConstant(t, 0.0);
    Value alphaC = im.scalarConstant(t, alpha);
    Value expm1 =
        im.create<SubOp>(im.create<ExpOp>(im.create<DivOp>(x, alphaC)),
                         im.scalarConstant(t, 1.0));
    Value negativePart =
        im.create<MinOp>(im.create<MulOp>(expm1, alphaC), zero);
    return im.create<AddOp>(im.create<MaxOp>(x, zero), negativePart);
  });
}

/// max(x, 0) + log(exp(-|x|) + 1): onnxruntime's stable form (x + log(exp(-x)
/// + 1) for positive x, log(exp(x) + 1) otherwise), which stays finite for
/// large |x|.
Value softplus(GraphImporter &im, Value x, Type t) {
  Value decay = im.create<ExpOp>(im.create<NegOp>(im.create<AbsOp>(x)));
  Value tail =
      im.create<LogOp>(im.create<AddOp>(decay, im.scalarConstant(t, 1.0)));
  return im.create<AddOp>(im.create<ReluOp>(x), tail);
}

LogicalResult convertSoftplus(GraphImporter &im) {
  return convertFloatActivation(im, softplus);
}

/// x * tanh(softplus(x)).
LogicalResult convertMish(GraphImporter &im) {
  return convertFloatActivation(im, [](GraphImporter &im, Value x, Type t) {
    return im.create<MulOp>(x, im.create<TanhOp>(softplus(im, x, t)));
  });
}

/// x / (1 + |x|).
LogicalResult convertSoftsign(GraphImporter &im) {
  return convertFloatActivation(im, [](GraphImporter &im, Value x, Type t) {
    Value denominator =
        im.create<AddOp>(im.create<AbsOp>(x), im.scalarConstant(t, 1.0));
    return im.create<DivOp>(x, denominator);
  });
}

/// x > alpha ? x : 0.
LogicalResult convertThresholdedRelu(GraphImporter &im) {
  double alpha = im.attrFloat("alpha", 1.0f);
  return convertFloatActivation(im, [&](GraphImporter &im, Value x, Type t) {
    Value above =
        im.create<CmpOp>(CmpPredicate::GT, x, im.scalarConstant(t, alpha));
    return im.create<WhereOp>(above, x, im.scalarConstant(t, 0.0));
  });
}

/// x < -lambd ? x + bias : (x > lambd ? x - bias : 0). Integer inputs are
/// compared and shifted in f32 and truncated back, as onnxruntime does.
LogicalResult convertShrink(GraphImporter &im) {
  double bias = im.attrFloat("bias", 0.0f);
  double lambd = im.attrFloat("lambd", 0.5f);
  FailureOr<Value> input = im.input(0);
  if (failed(input))
    return failure();
  Type original = elementTypeOf(*input);
  if (original.isInteger(1))
    return im.error() << "expects a numeric input, got " << input->getType(),
           failure();
  Value x = *input;
  Type t = original;
  if (!isa<FloatType>(t)) {
    t = im.builder().getF32Type();
    x = im.create<CastOp>(x, t);
  }
  Value below =
      im.create<CmpOp>(CmpPredicate::LT, x, im.scalarConstant(t, -lambd));
  Value above =
      im.create<CmpOp>(CmpPredicate::GT, x, im.scalarConstant(t, lambd));
  Value biasC = im.scalarConstant(t, bias);
  Value inner = im.create<WhereOp>(above, im.create<SubOp>(x, biasC),
                                   im.scalarConstant(t, 0.0));
  Value y = im.create<WhereOp>(below, im.create<AddOp>(x, biasC), inner);
  if (t != original)
    y = im.create<CastOp>(y, original);
  im.setOutput(0, y);
  return success();
}

} // namespace

Value mlir::tandem::onnx_import::computeInF32(GraphImporter &im, Value x,
                                              function_ref<Value(Value)> fn) {
  Type type = elementTypeOf(x);
  if (!type.isF16() && !type.isBF16())
    return fn(x);
  Value y = fn(im.create<CastOp>(x, im.builder().getF32Type()));
  return y ? Value(im.create<CastOp>(y, type)) : y;
}

void mlir::tandem::onnx_import::registerActivationConverters(
    ConverterMap &map) {
  map["LeakyRelu"] = convertLeakyRelu;
  map["PRelu"] = convertPRelu;
  map["Elu"] = convertElu;
  map["Selu"] = convertSelu;
  map["Celu"] = convertCelu;
  map["Softplus"] = convertSoftplus;
  map["Softsign"] = convertSoftsign;
  map["Mish"] = convertMish;
  map["ThresholdedRelu"] = convertThresholdedRelu;
  map["Shrink"] = convertShrink;
}
