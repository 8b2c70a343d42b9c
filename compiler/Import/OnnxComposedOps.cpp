//===- OnnxComposedOps.cpp - ONNX ops built from other tandem ops ---------===//
//
// Ops with no tandem op of their own, each decomposed at import into ops
// that fusion and codegen already handle: LogSoftmax, the derived
// reductions (ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum,
// ReduceLogSumExp), GlobalMaxPool, GlobalLpPool, LpPool, the normalisations
// (InstanceNormalization, GroupNormalization, MeanVarianceNormalization,
// LpNormalization, LRN), the data movers whose result is a fixed
// rearrangement (Tile, DepthToSpace, SpaceToDepth), Trilu (a select with a
// constant mask), OneHot (a compare with a constant iota) and the
// producers of constants (Range, EyeLike).
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
Type elemOf(Value v) { return typeOf(v).getElementType(); }

/// Input 0 when it is a float tensor; otherwise a diagnostic.
FailureOr<Value> floatInput(GraphImporter &im, unsigned i = 0) {
  FailureOr<Value> x = im.input(i);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return im.error() << "expects a float input, got " << x->getType(),
           failure();
  return x;
}

/// Binds output 0 to `fn(x)` for float input 0, computed in f32 for f16 and
/// bf16 inputs (statistics and exponentials lose too much in 16 bits). `fn`
/// returns null after emitting a diagnostic.
LogicalResult bindFloat(GraphImporter &im, function_ref<Value(Value)> fn) {
  FailureOr<Value> x = floatInput(im);
  if (failed(x))
    return failure();
  Value y = computeInF32(im, *x, fn);
  if (!y)
    return failure();
  im.setOutput(0, y);
  return success();
}

/// A constant tensor of `shape` and integer or float type `elem`.
Value numericConstant(GraphImporter &im, ArrayRef<int64_t> shape, Type elem,
                      ArrayRef<double> values) {
  if (isa<FloatType>(elem))
    return im.floatConstant(shape, elem, values);
  KnownInts k{SmallVector<int64_t>(shape), {}, elem};
  for (double v : values)
    k.values.push_back(static_cast<int64_t>(v));
  return im.materialize(k);
}

/// `x` with its reduced dims dropped (the shape a keepdims=0 reduction over
/// `axes` gives).
Value dropDims(GraphImporter &im, Value x, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(typeOf(x).getShape()))
    if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
      shape.push_back(size);
  return im.create<ReshapeOp>(x, shape);
}

/// |x|^p for p = 1, 2 or any other float p.
Value absPow(GraphImporter &im, Value x, double p) {
  if (p == 1.0)
    return im.create<AbsOp>(x);
  if (p == 2.0)
    return im.create<MulOp>(x, x);
  return im.create<PowOp>(im.create<AbsOp>(x), im.scalarConstant(elemOf(x), p));
}

/// x^(1/p) for x >= 0.
Value root(GraphImporter &im, Value x, double p) {
  if (p == 1.0)
    return x;
  if (p == 2.0)
    return im.create<SqrtOp>(x);
  return im.create<PowOp>(x, im.scalarConstant(elemOf(x), 1.0 / p));
}

//===----------------------------------------------------------------------===//
// Softmax family and derived reductions
//===----------------------------------------------------------------------===//

Value channelVector(GraphImporter &im, Value v, int64_t rank);
Value castTo(GraphImporter &im, Value v, Type elem);

/// log(softmax(x)) along `axis`.
Value logSoftmax(GraphImporter &im, Value x, int64_t axis) {
  SmallVector<int64_t> axes{axis};
  Value shifted =
      im.create<SubOp>(x, im.create<ReduceMaxOp>(x, axes, /*keepdims=*/true));
  Value sum = im.create<ReduceSumOp>(im.create<ExpOp>(shifted), axes,
                                     /*keepdims=*/true);
  return im.create<SubOp>(shifted, im.create<LogOp>(sum));
}

/// log(softmax(x)) = (x - max) - log(sum(exp(x - max))), stable for large
/// |x| (log of a softmax that underflowed would be -inf).
LogicalResult convertLogSoftmax(GraphImporter &im) {
  FailureOr<RankedTensorType> t = im.requiredInputType(0);
  if (failed(t))
    return failure();
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", -1), t->getRank(), "axis");
  if (failed(axis))
    return failure();
  if (t->getRank() == 0)
    return im.error() << "expects an input of rank 1 or more", failure();
  return bindFloat(im, [&](Value x) { return logSoftmax(im, x, *axis); });
}

/// The negative log-likelihood of `logProb` (N x C x D1...) at the class
/// indices `target` (N x D1...), weighted by `weight` (C, optional), with
/// targets equal to `ignoreIndex` weighing 0, reduced by `reduction` (none,
/// sum or mean: the weighted mean, sum(loss) / sum(weights)). The class is
/// picked with a compare against a constant iota, so no index can read out
/// of bounds: a target outside [0, C) picks nothing.
Value negativeLogLikelihood(GraphImporter &im, Value logProb, Value target,
                            Value weight, std::optional<int64_t> ignoreIndex,
                            StringRef reduction) {
  RankedTensorType t = typeOf(logProb), tt = typeOf(target);
  Type elem = t.getElementType();
  int64_t c = t.getDimSize(1), rank = t.getRank();
  Type i64 = im.builder().getI64Type();
  target = castTo(im, target, i64);
  SmallVector<int64_t> unsq(tt.getShape());
  unsq.insert(unsq.begin() + 1, 1);
  SmallVector<int64_t> iotaShape(rank, 1);
  iotaShape[1] = c;
  KnownInts iota{iotaShape, {}, i64};
  for (int64_t i = 0; i < c; ++i)
    iota.values.push_back(i);
  Value hit =
      im.create<CmpOp>(CmpPredicate::EQ, im.create<ReshapeOp>(target, unsq),
                       im.materialize(iota));
  Value zero = im.scalarConstant(elem, 0.0);
  SmallVector<int64_t> classAxis{1};
  Value picked = im.create<ReduceSumOp>(im.create<WhereOp>(hit, logProb, zero),
                                        classAxis, /*keepdims=*/false);
  Value w;
  if (weight) {
    Value wb = channelVector(im, castTo(im, weight, elem), rank);
    w = im.create<ReduceSumOp>(im.create<WhereOp>(hit, wb, zero), classAxis,
                               false);
  }
  if (ignoreIndex) {
    Value keep = im.create<CmpOp>(
        CmpPredicate::NE, target,
        im.scalarConstant(i64, static_cast<double>(*ignoreIndex)));
    Value one = im.scalarConstant(elem, 1.0);
    w = im.create<WhereOp>(keep, w ? w : one, zero);
  }
  Value loss = im.create<NegOp>(w ? im.create<MulOp>(picked, w) : picked);
  if (reduction == "none")
    return loss;
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < tt.getRank(); ++d)
    all.push_back(d);
  Value total = im.create<ReduceSumOp>(loss, all, false);
  if (reduction == "sum")
    return total;
  if (!w)
    return im.create<ReduceMeanOp>(loss, all, false);
  if (typeOf(w).getShape() != typeOf(loss).getShape())
    w = im.create<BroadcastToOp>(w, typeOf(loss).getShape());
  return im.create<DivOp>(total, im.create<ReduceSumOp>(w, all, false));
}

/// Checks the loss ops' shared operands and attributes.
LogicalResult checkLoss(GraphImporter &im, Value input, Value target,
                        Value weight, StringRef reduction) {
  RankedTensorType t = typeOf(input), tt = typeOf(target);
  if (t.getRank() < 2)
    return im.error() << "expects an N x C x ... input, got " << t, failure();
  SmallVector<int64_t> expected(t.getShape());
  expected.erase(expected.begin() + 1);
  if (tt.getShape() != ArrayRef<int64_t>(expected) ||
      !isa<IntegerType>(tt.getElementType()))
    return im.error() << "the target must be an integer tensor of shape N x "
                         "D1 x ... matching the input "
                      << t << ", got " << tt,
           failure();
  if (weight && typeOf(weight).getNumElements() != t.getDimSize(1))
    return im.error() << "the weight must have one value per class ("
                      << t.getDimSize(1) << ")",
           failure();
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return im.error() << "unknown reduction '" << reduction
                      << "' (expected none, sum or mean)",
           failure();
  return success();
}

std::optional<int64_t> ignoreIndexAttr(GraphImporter &im) {
  if (!im.attr("ignore_index"))
    return std::nullopt;
  return im.attrInt("ignore_index", 0);
}

LogicalResult convertNegativeLogLikelihoodLoss(GraphImporter &im) {
  FailureOr<Value> input = floatInput(im), target = im.input(1);
  FailureOr<Value> weight = im.optionalInput(2);
  if (failed(input) || failed(target) || failed(weight))
    return failure();
  std::string reduction = im.attrString("reduction", "mean");
  if (failed(checkLoss(im, *input, *target, *weight, reduction)))
    return failure();
  Value y = computeInF32(im, *input, [&](Value x) {
    return negativeLogLikelihood(im, x, *target, *weight, ignoreIndexAttr(im),
                                 reduction);
  });
  if (!y)
    return failure();
  im.setOutput(0, y);
  return success();
}

/// SoftmaxCrossEntropyLoss: the NLL of log_softmax(scores) over the class
/// axis; output 1, when used, is that log_softmax.
LogicalResult convertSoftmaxCrossEntropyLoss(GraphImporter &im) {
  FailureOr<Value> scores = floatInput(im), labels = im.input(1);
  FailureOr<Value> weight = im.optionalInput(2);
  if (failed(scores) || failed(labels) || failed(weight))
    return failure();
  std::string reduction = im.attrString("reduction", "mean");
  if (failed(checkLoss(im, *scores, *labels, *weight, reduction)))
    return failure();
  Value logProb;
  Value y = computeInF32(im, *scores, [&](Value x) {
    Value lp = logSoftmax(im, x, 1);
    logProb = lp;
    return negativeLogLikelihood(im, lp, *labels, *weight, ignoreIndexAttr(im),
                                 reduction);
  });
  if (!y || !logProb)
    return failure();
  im.setOutput(0, y);
  if (im.node().output_size() > 1 && !im.node().output(1).empty())
    im.setOutput(1, castTo(im, logProb, elemOf(*scores)));
  return success();
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere (an arg_max
/// compared with a constant iota).
LogicalResult convertHardmax(GraphImporter &im) {
  FailureOr<Value> x = floatInput(im);
  if (failed(x))
    return failure();
  RankedTensorType t = typeOf(*x);
  if (t.getRank() == 0)
    return im.error() << "expects an input of rank 1 or more", failure();
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", -1), t.getRank(), "axis");
  if (failed(axis))
    return failure();
  Value index = im.create<ArgMaxOp>(*x, *axis, /*keepdims=*/true,
                                    /*select_last_index=*/false);
  SmallVector<int64_t> iotaShape(t.getRank(), 1);
  iotaShape[*axis] = t.getDimSize(*axis);
  KnownInts iota{iotaShape, {}, im.builder().getI64Type()};
  for (int64_t i = 0; i < t.getDimSize(*axis); ++i)
    iota.values.push_back(i);
  Value hit = im.create<CmpOp>(CmpPredicate::EQ, index, im.materialize(iota));
  Type elem = t.getElementType();
  im.setOutput(0, im.create<WhereOp>(hit, im.scalarConstant(elem, 1.0),
                                     im.scalarConstant(elem, 0.0)));
  return success();
}

/// A reduction built as post(reduce_sum(pre(x))): ReduceL1, ReduceL2,
/// ReduceSumSquare and ReduceLogSum (axes as an input from opset 18).
LogicalResult convertSumReduction(GraphImporter &im,
                                  function_ref<Value(Value)> pre,
                                  function_ref<Value(Value)> post) {
  FailureOr<Value> x = im.input(0);
  FailureOr<ReduceAxes> axes = resolveReduceAxes(im, 18);
  if (failed(x) || failed(axes))
    return failure();
  auto compute = [&](Value v) -> Value {
    Value mapped = pre(v);
    if (axes->noop)
      return post ? post(mapped) : mapped;
    Value sum = im.create<ReduceSumOp>(mapped, axes->axes, axes->keepDims);
    return post ? post(sum) : sum;
  };
  im.setOutput(0, isa<FloatType>(elemOf(*x)) ? computeInF32(im, *x, compute)
                                             : compute(*x));
  return success();
}

/// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the maximum, which
/// neither overflows nor loses the large terms.
LogicalResult convertReduceLogSumExp(GraphImporter &im) {
  FailureOr<Value> x = floatInput(im);
  FailureOr<ReduceAxes> axes = resolveReduceAxes(im, 18);
  if (failed(x) || failed(axes))
    return failure();
  im.setOutput(0, computeInF32(im, *x, [&](Value v) -> Value {
                 if (axes->noop)
                   return im.create<LogOp>(im.create<ExpOp>(v));
                 Value m = im.create<ReduceMaxOp>(v, axes->axes, true);
                 Value sum = im.create<ReduceSumOp>(
                     im.create<ExpOp>(im.create<SubOp>(v, m)), axes->axes,
                     axes->keepDims);
                 if (!axes->keepDims)
                   m = dropDims(im, m, axes->axes);
                 return im.create<AddOp>(im.create<LogOp>(sum), m);
               }));
  return success();
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// The spatial axes 2..rank-1 of an N x C x D1 x ... input.
FailureOr<SmallVector<int64_t>> spatialAxes(GraphImporter &im, Value x) {
  int64_t rank = typeOf(x).getRank();
  if (rank < 3)
    return im.error() << "expects an N x C x D1 x ... input, got "
                      << x.getType(),
           failure();
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  return axes;
}

LogicalResult convertGlobalMaxPool(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<int64_t>> axes = spatialAxes(im, *x);
  if (failed(axes))
    return failure();
  im.setOutput(0, im.create<ReduceMaxOp>(*x, *axes, /*keepdims=*/true));
  return success();
}

/// (sum over the spatial dims of |x|^p)^(1/p).
LogicalResult convertGlobalLpPool(GraphImporter &im) {
  double p = static_cast<double>(im.attrInt("p", 2));
  if (p <= 0)
    return im.error() << "p must be positive, got " << p, failure();
  return bindFloat(im, [&](Value x) -> Value {
    FailureOr<SmallVector<int64_t>> axes = spatialAxes(im, x);
    if (failed(axes))
      return {};
    return root(im, im.create<ReduceSumOp>(absPow(im, x, p), *axes, true), p);
  });
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

/// (x - mean) / sqrt(var + epsilon) over `axes` (kept as size-1 dims).
Value normalize(GraphImporter &im, Value x, ArrayRef<int64_t> axes,
                double epsilon) {
  Value mean = im.create<ReduceMeanOp>(x, axes, true);
  Value centered = im.create<SubOp>(x, mean);
  Value var =
      im.create<ReduceMeanOp>(im.create<MulOp>(centered, centered), axes, true);
  Value eps = im.scalarConstant(elemOf(x), epsilon);
  return im.create<MulOp>(centered,
                          im.create<RsqrtOp>(im.create<AddOp>(var, eps)));
}

/// A per-channel vector [C] reshaped to [C, 1, ..., 1] so it broadcasts over
/// an N x C x D1 x ... tensor of `rank`.
Value channelVector(GraphImporter &im, Value v, int64_t rank) {
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = typeOf(v).getNumElements();
  return im.create<ReshapeOp>(v, shape);
}

/// Casts `v` to `elem` when it differs (scale and bias of an f16 input are
/// f16 while the computation runs in f32).
Value castTo(GraphImporter &im, Value v, Type elem) {
  return elemOf(v) == elem ? v : Value(im.create<CastOp>(v, elem));
}

LogicalResult convertInstanceNorm(GraphImporter &im) {
  FailureOr<Value> scale = im.input(1), bias = im.input(2);
  if (failed(scale) || failed(bias))
    return failure();
  double eps = im.attrFloat("epsilon", 1e-5f);
  return bindFloat(im, [&](Value x) -> Value {
    FailureOr<SmallVector<int64_t>> axes = spatialAxes(im, x);
    if (failed(axes))
      return {};
    int64_t rank = typeOf(x).getRank();
    if (typeOf(*scale).getNumElements() != typeOf(x).getDimSize(1) ||
        typeOf(*bias).getNumElements() != typeOf(x).getDimSize(1)) {
      im.error() << "scale and B must have one value per channel ("
                 << typeOf(x).getDimSize(1) << ")";
      return {};
    }
    Value y = normalize(im, x, *axes, eps);
    Value s = channelVector(im, castTo(im, *scale, elemOf(x)), rank);
    Value b = channelVector(im, castTo(im, *bias, elemOf(x)), rank);
    return im.create<AddOp>(im.create<MulOp>(y, s), b);
  });
}

/// GroupNormalization: statistics per (sample, group) over the group's
/// channels and all spatial dims. Scale and bias are per group in opset 18
/// and per channel from opset 21.
LogicalResult convertGroupNorm(GraphImporter &im) {
  FailureOr<Value> scale = im.input(1), bias = im.input(2);
  if (failed(scale) || failed(bias))
    return failure();
  int64_t groups = im.attrInt("num_groups", 0);
  double eps = im.attrFloat("epsilon", 1e-5f);
  return bindFloat(im, [&](Value x) -> Value {
    RankedTensorType t = typeOf(x);
    if (t.getRank() < 3) {
      im.error() << "expects an N x C x D1 x ... input, got " << t;
      return {};
    }
    int64_t n = t.getDimSize(0), c = t.getDimSize(1);
    if (groups <= 0 || c % groups != 0) {
      im.error() << "num_groups (" << groups
                 << ") must be positive and divide the channels (" << c << ")";
      return {};
    }
    int64_t perGroup = typeOf(*scale).getNumElements();
    bool perChannel = im.opset() >= 21;
    if (perGroup != (perChannel ? c : groups) ||
        typeOf(*bias).getNumElements() != perGroup) {
      im.error() << "scale and bias must have " << (perChannel ? c : groups)
                 << " values (one per " << (perChannel ? "channel" : "group")
                 << " at opset " << im.opset() << ")";
      return {};
    }
    int64_t rest = t.getNumElements() / std::max<int64_t>(n * groups, 1);
    Value grouped = im.create<ReshapeOp>(x, ArrayRef<int64_t>{n, groups, rest});
    Value y = normalize(im, grouped, {2}, eps);
    Value s = castTo(im, *scale, elemOf(x)), b = castTo(im, *bias, elemOf(x));
    if (!perChannel) {
      s = im.create<ReshapeOp>(s, ArrayRef<int64_t>{groups, 1});
      b = im.create<ReshapeOp>(b, ArrayRef<int64_t>{groups, 1});
      y = im.create<AddOp>(im.create<MulOp>(y, s), b);
      return im.create<ReshapeOp>(y, t.getShape());
    }
    y = im.create<ReshapeOp>(y, t.getShape());
    return im.create<AddOp>(
        im.create<MulOp>(y, channelVector(im, s, t.getRank())),
        channelVector(im, b, t.getRank()));
  });
}

/// ONNX's function body: (x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9).
LogicalResult convertMeanVarianceNorm(GraphImporter &im) {
  std::vector<int64_t> axes =
      im.attrInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  FailureOr<RankedTensorType> t = im.requiredInputType(0);
  if (failed(t))
    return failure();
  SmallVector<int64_t> normalized;
  for (int64_t a : axes) {
    FailureOr<int64_t> n = im.normalizeAxis(a, t->getRank(), "axes");
    if (failed(n))
      return failure();
    normalized.push_back(*n);
  }
  llvm::sort(normalized);
  normalized.erase(std::unique(normalized.begin(), normalized.end()),
                   normalized.end());
  return bindFloat(im, [&](Value x) -> Value {
    Value mean = im.create<ReduceMeanOp>(x, normalized, true);
    Value meanSq =
        im.create<ReduceMeanOp>(im.create<MulOp>(x, x), normalized, true);
    Value var = im.create<SubOp>(meanSq, im.create<MulOp>(mean, mean));
    Value std = im.create<AddOp>(im.create<SqrtOp>(var),
                                 im.scalarConstant(elemOf(x), 1e-9));
    return im.create<DivOp>(im.create<SubOp>(x, mean), std);
  });
}

/// x / ||x||_p along `axis` (p = 1 or 2).
LogicalResult convertLpNorm(GraphImporter &im) {
  int64_t p = im.attrInt("p", 2);
  if (p != 1 && p != 2)
    return im.error() << "p must be 1 or 2, got " << p, failure();
  FailureOr<RankedTensorType> t = im.requiredInputType(0);
  if (failed(t))
    return failure();
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", -1), t->getRank(), "axis");
  if (failed(axis))
    return failure();
  return bindFloat(im, [&](Value x) -> Value {
    SmallVector<int64_t> axes{*axis};
    Value norm =
        root(im, im.create<ReduceSumOp>(absPow(im, x, p), axes, true), p);
    return im.create<DivOp>(x, norm);
  });
}

/// x / (bias + alpha / size * sum of x^2 over a window of `size` channels)
/// ^ beta. The window sum is an average pool (counting the zero padding) of
/// x^2 viewed as N x 1 x C x rest, times `size`.
LogicalResult convertLRN(GraphImporter &im) {
  int64_t size = im.attrInt("size", 0);
  if (size <= 0)
    return im.error() << "size must be positive, got " << size, failure();
  double alpha = im.attrFloat("alpha", 1e-4f),
         beta = im.attrFloat("beta", 0.75f);
  double bias = im.attrFloat("bias", 1.0f);
  return bindFloat(im, [&](Value x) -> Value {
    RankedTensorType t = typeOf(x);
    if (t.getRank() < 3) {
      im.error() << "expects an N x C x D1 x ... input, got " << t;
      return {};
    }
    int64_t n = t.getDimSize(0), c = t.getDimSize(1);
    int64_t rest = t.getNumElements() / std::max<int64_t>(n * c, 1);
    Value sq = im.create<ReshapeOp>(im.create<MulOp>(x, x),
                                    ArrayRef<int64_t>{n, 1, c, rest});
    int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
    Value avg = im.create<AvgPool2DOp>(
        sq, ArrayRef<int64_t>{size, 1}, ArrayRef<int64_t>{1, 1},
        ArrayRef<int64_t>{lo, 0, hi, 0}, /*ceil=*/false,
        /*countIncludePad=*/true);
    Type elem = t.getElementType();
    Value scaled = im.create<MulOp>(avg, im.scalarConstant(elem, alpha));
    Value denom = im.create<PowOp>(
        im.create<AddOp>(scaled, im.scalarConstant(elem, bias)),
        im.scalarConstant(elem, beta));
    return im.create<DivOp>(x, im.create<ReshapeOp>(denom, t.getShape()));
  });
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Tile: x viewed as [1, d0, 1, d1, ...], broadcast to [r0, d0, r1, d1, ...]
/// and viewed as [r0 * d0, r1 * d1, ...]. Known integers fold.
LogicalResult convertTile(GraphImporter &im) {
  FailureOr<RankedTensorType> t = im.requiredInputType(0);
  if (failed(t))
    return failure();
  FailureOr<std::vector<int64_t>> repeats = im.constantDims(1, "repeats");
  if (failed(repeats))
    return failure();
  int64_t rank = t->getRank();
  if (static_cast<int64_t>(repeats->size()) != rank)
    return im.error() << "repeats has " << repeats->size()
                      << " entries, the input has rank " << rank,
           failure();
  if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return im.error() << "repeats must not be negative", failure();
  SmallVector<int64_t> viewed, broadcast, result;
  for (int64_t d = 0; d < rank; ++d) {
    viewed.append({1, t->getDimSize(d)});
    broadcast.append({(*repeats)[d], t->getDimSize(d)});
    result.push_back((*repeats)[d] * t->getDimSize(d));
  }
  if (const KnownInts *k = im.knownInput(0)) {
    KnownInts r{result, {}, k->elementType};
    int64_t count = shape::numElements(result);
    SmallVector<int64_t> strides = stridesOf(t->getShape());
    for (int64_t i = 0; i < count; ++i) {
      int64_t rem = i, src = 0;
      for (int64_t d = rank - 1; d >= 0; --d) {
        src += (rem % result[d]) % t->getDimSize(d) * strides[d];
        rem /= result[d];
      }
      r.values.push_back(k->values[src]);
    }
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  if (llvm::all_of(*repeats, [](int64_t r) { return r == 1; })) {
    im.setOutput(0, *x);
    return success();
  }
  Value v = im.create<ReshapeOp>(*x, viewed);
  v = im.create<BroadcastToOp>(v, broadcast);
  im.setOutput(0, im.create<ReshapeOp>(v, result));
  return success();
}

/// Reshape, transpose, reshape: the three steps of DepthToSpace and
/// SpaceToDepth.
LogicalResult rearrange(GraphImporter &im, Value x, ArrayRef<int64_t> split,
                        ArrayRef<int64_t> perm, ArrayRef<int64_t> result) {
  Value v = im.create<ReshapeOp>(x, split);
  v = im.create<TransposeOp>(v, perm);
  im.setOutput(0, im.create<ReshapeOp>(v, result));
  return success();
}

LogicalResult convertDepthToSpace(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  RankedTensorType t = typeOf(*x);
  int64_t b = im.attrInt("blocksize", 0);
  std::string mode = im.attrString("mode", "DCR");
  if (t.getRank() != 4)
    return im.error() << "expects an N x C x H x W input, got " << t, failure();
  int64_t n = t.getDimSize(0), c = t.getDimSize(1), h = t.getDimSize(2),
          w = t.getDimSize(3);
  if (b <= 0 || c % (b * b) != 0)
    return im.error() << "blocksize (" << b
                      << ") must be positive with its square dividing the "
                         "channels ("
                      << c << ")",
           failure();
  int64_t oc = c / (b * b);
  SmallVector<int64_t> result{n, oc, h * b, w * b};
  if (mode == "DCR")
    return rearrange(im, *x, {n, b, b, oc, h, w}, {0, 3, 4, 1, 5, 2}, result);
  if (mode == "CRD")
    return rearrange(im, *x, {n, oc, b, b, h, w}, {0, 1, 4, 2, 5, 3}, result);
  return im.error() << "unknown mode '" << mode << "' (expected DCR or CRD)",
         failure();
}

LogicalResult convertSpaceToDepth(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  RankedTensorType t = typeOf(*x);
  int64_t b = im.attrInt("blocksize", 0);
  if (t.getRank() != 4)
    return im.error() << "expects an N x C x H x W input, got " << t, failure();
  int64_t n = t.getDimSize(0), c = t.getDimSize(1), h = t.getDimSize(2),
          w = t.getDimSize(3);
  if (b <= 0 || h % b != 0 || w % b != 0)
    return im.error() << "blocksize (" << b
                      << ") must be positive and divide H (" << h << ") and W ("
                      << w << ")",
           failure();
  return rearrange(im, *x, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4},
                   {n, c * b * b, h / b, w / b});
}

/// Trilu: x where the constant mask of its last two dims keeps it, else 0.
/// Upper keeps j - i >= k, lower keeps j - i <= k.
LogicalResult convertTrilu(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  RankedTensorType t = typeOf(*x);
  if (t.getRank() < 2)
    return im.error() << "expects an input of rank 2 or more, got " << t,
           failure();
  int64_t k = 0;
  if (im.hasInput(1)) {
    FailureOr<std::vector<int64_t>> kv = im.constantInts(1, "k");
    if (failed(kv))
      return failure();
    if (kv->size() != 1)
      return im.error() << "k must be a scalar", failure();
    k = (*kv)[0];
  }
  bool upper = im.attrInt("upper", 1) != 0;
  int64_t rows = t.getDimSize(t.getRank() - 2),
          cols = t.getDimSize(t.getRank() - 1);
  SmallVector<bool> keep;
  keep.reserve(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      keep.push_back(upper ? j - i >= k : j - i <= k);
  auto maskType = RankedTensorType::get({rows, cols}, im.builder().getI1Type());
  Value mask = im.create<ConstantOp>(
      cast<ElementsAttr>(DenseElementsAttr::get(maskType, keep)));
  Value zero = im.scalarConstant(t.getElementType(), 0.0);
  im.setOutput(0, im.create<WhereOp>(mask, *x, zero));
  return success();
}

/// OneHot: on where (indices, negative ones wrapped by depth) equal the
/// position along `axis`, off elsewhere; an index outside [-depth, depth)
/// gives a row of off values, as the spec says.
LogicalResult convertOneHot(GraphImporter &im) {
  FailureOr<Value> indices = im.input(0), values = im.input(2);
  if (failed(indices) || failed(values))
    return failure();
  FailureOr<std::optional<double>> depthValue = im.constantScalar(1, "depth");
  if (failed(depthValue))
    return failure();
  if (!*depthValue || **depthValue < 1 || **depthValue > (1 << 30))
    return im.error() << "depth must be a scalar in [1, 2^30]", failure();
  auto depth = static_cast<int64_t>(**depthValue);
  if (typeOf(*values).getNumElements() != 2)
    return im.error() << "values must hold [off, on], got "
                      << values->getType(),
           failure();
  RankedTensorType it = typeOf(*indices);
  int64_t outRank = it.getRank() + 1;
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", -1), outRank, "axis");
  if (failed(axis))
    return failure();
  Type i64 = im.builder().getI64Type();
  Value idx = castTo(im, *indices, i64);
  Value depthC = im.scalarConstant(i64, static_cast<double>(depth));
  Value negative =
      im.create<CmpOp>(CmpPredicate::LT, idx, im.scalarConstant(i64, 0));
  idx = im.create<WhereOp>(negative, im.create<AddOp>(idx, depthC), idx);
  SmallVector<int64_t> idxShape(it.getShape());
  idxShape.insert(idxShape.begin() + *axis, 1);
  idx = im.create<ReshapeOp>(idx, idxShape);
  SmallVector<int64_t> iotaShape(outRank, 1);
  iotaShape[*axis] = depth;
  KnownInts iota{iotaShape, {}, i64};
  for (int64_t i = 0; i < depth; ++i)
    iota.values.push_back(i);
  Value hit = im.create<CmpOp>(CmpPredicate::EQ, idx, im.materialize(iota));
  Value flat = im.create<ReshapeOp>(*values, ArrayRef<int64_t>{2});
  auto pick = [&](int64_t i) -> Value {
    Value s =
        im.create<SliceOp>(flat, ArrayRef<int64_t>{i}, ArrayRef<int64_t>{i + 1},
                           ArrayRef<int64_t>{1});
    return im.create<ReshapeOp>(s, ArrayRef<int64_t>{});
  };
  im.setOutput(0, im.create<WhereOp>(hit, pick(1), pick(0)));
  return success();
}

//===----------------------------------------------------------------------===//
// Constant producers
//===----------------------------------------------------------------------===//

/// Range with constant start, limit and delta: max(ceil((limit - start) /
/// delta), 0) values start + i * delta. Integer ranges stay known integers
/// (they feed shape computations).
LogicalResult convertRange(GraphImporter &im) {
  FailureOr<RankedTensorType> t = im.requiredInputType(0);
  if (failed(t))
    return failure();
  Type elem = t->getElementType();
  double v[3];
  const char *names[3] = {"start", "limit", "delta"};
  for (unsigned i = 0; i < 3; ++i) {
    FailureOr<std::optional<double>> s = im.constantScalar(i, names[i]);
    if (failed(s))
      return failure();
    if (!*s)
      return im.error() << "input #" << i << " (" << names[i] << ") is missing",
             failure();
    v[i] = **s;
  }
  if (v[2] == 0)
    return im.error() << "delta must not be 0", failure();
  double count = std::max(std::ceil((v[1] - v[0]) / v[2]), 0.0);
  if (!(count <= (1 << 30)))
    return im.error() << "the range has " << count
                      << " elements; at most 2^30 are supported",
           failure();
  auto n = static_cast<int64_t>(count);
  if (!isa<FloatType>(elem)) {
    KnownInts k{{n}, {}, elem};
    for (int64_t i = 0; i < n; ++i)
      k.values.push_back(static_cast<int64_t>(v[0]) +
                         i * static_cast<int64_t>(v[2]));
    im.setKnownOutput(0, std::move(k));
    return success();
  }
  SmallVector<double> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(v[0] + static_cast<double>(i) * v[2]);
  im.setOutput(0, im.floatConstant({n}, elem, values));
  return success();
}

/// EyeLike: ones on the k-th diagonal of a matrix shaped like the input.
LogicalResult convertEyeLike(GraphImporter &im) {
  FailureOr<RankedTensorType> t = im.requiredInputType(0);
  if (failed(t))
    return failure();
  if (t->getRank() != 2)
    return im.error() << "expects a 2-D input, got " << *t, failure();
  Type elem = t->getElementType();
  if (const onnx::AttributeProto *dtype = im.attr("dtype")) {
    elem = im.elementType(static_cast<int32_t>(dtype->i()));
    if (!elem)
      return im.error() << "unsupported dtype "
                        << onnxTypeName(static_cast<int32_t>(dtype->i())),
             failure();
  }
  int64_t k = im.attrInt("k", 0);
  int64_t rows = t->getDimSize(0), cols = t->getDimSize(1);
  SmallVector<double> values(rows * cols, 0.0);
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols)
      values[i * cols + i + k] = 1.0;
  im.setOutput(0, numericConstant(im, {rows, cols}, elem, values));
  return success();
}

/// CenterCropPad: each axis cropped (start (in - out) / 2) or zero-padded
/// (before (out - in) / 2) to its target size.
LogicalResult convertCenterCropPad(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  FailureOr<std::vector<int64_t>> target = im.constantDims(1, "shape");
  if (failed(x) || failed(target))
    return failure();
  RankedTensorType t = typeOf(*x);
  int64_t rank = t.getRank();
  SmallVector<int64_t> axes;
  if (std::optional<std::vector<int64_t>> a = im.attrInts("axes")) {
    for (int64_t v : *a) {
      FailureOr<int64_t> n = im.normalizeAxis(v, rank, "axes");
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (target->size() != axes.size())
    return im.error() << "shape has " << target->size() << " entries for "
                      << axes.size() << " axes",
           failure();
  SmallVector<int64_t> starts(rank, 0), limits(t.getShape()), steps(rank, 1),
      low(rank, 0), high(rank, 0);
  for (auto [i, d] : llvm::enumerate(axes)) {
    int64_t in = t.getDimSize(d), out = (*target)[i];
    if (out < 0)
      return im.error() << "shape must not be negative", failure();
    if (out < in) {
      starts[d] = (in - out) / 2;
      limits[d] = starts[d] + out;
    } else {
      low[d] = (out - in) / 2;
      high[d] = out - in - low[d];
    }
  }
  Value y = im.create<SliceOp>(*x, starts, limits, steps);
  if (llvm::any_of(low, [](int64_t v) { return v; }) ||
      llvm::any_of(high, [](int64_t v) { return v; }))
    y = im.create<PadOp>(y, low, high, PadMode::Constant, APFloat(0.0));
  im.setOutput(0, y);
  return success();
}

/// Compress with a condition known at compile time: a gather of the kept
/// positions (of the flattened input when there is no axis).
LogicalResult convertCompress(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  FailureOr<std::vector<int64_t>> condition = im.constantInts(1, "condition");
  if (failed(x) || failed(condition))
    return failure();
  Value data = *x;
  int64_t axis = 0;
  if (im.attr("axis")) {
    FailureOr<int64_t> a =
        im.normalizeAxis(im.attrInt("axis", 0), typeOf(*x).getRank(), "axis");
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    data = im.create<ReshapeOp>(data,
                                ArrayRef<int64_t>{typeOf(*x).getNumElements()});
  }
  int64_t size = typeOf(data).getDimSize(axis);
  if (static_cast<int64_t>(condition->size()) > size)
    return im.error() << "condition has " << condition->size()
                      << " entries, more than the " << size
                      << " along the axis",
           failure();
  KnownInts kept{{0}, {}, im.builder().getI64Type()};
  for (auto [i, c] : llvm::enumerate(*condition))
    if (c)
      kept.values.push_back(static_cast<int64_t>(i));
  kept.shape[0] = static_cast<int64_t>(kept.values.size());
  im.setOutput(0, im.create<GatherOp>(data, im.materialize(kept), axis));
  return success();
}

/// The generalised cosine windows: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n /
/// N), N the size (periodic) or size - 1 (symmetric); constants.
LogicalResult convertWindow(GraphImporter &im, double a0, double a1,
                            double a2) {
  FailureOr<std::vector<int64_t>> size = im.constantInts(0, "size");
  if (failed(size))
    return failure();
  if (size->size() != 1 || (*size)[0] < 0 || (*size)[0] > (1 << 30))
    return im.error() << "size must be a scalar in [0, 2^30]", failure();
  int64_t n = (*size)[0];
  Type elem = im.builder().getF32Type();
  if (const onnx::AttributeProto *dtype = im.attr("output_datatype")) {
    elem = im.elementType(static_cast<int32_t>(dtype->i()));
    if (!elem)
      return im.error() << "unsupported output_datatype "
                        << onnxTypeName(static_cast<int32_t>(dtype->i())),
             failure();
  }
  double denominator =
      static_cast<double>(im.attrInt("periodic", 1) != 0 ? n : n - 1);
  SmallVector<double> values;
  for (int64_t i = 0; i < n; ++i) {
    double angle = 2 * M_PI * static_cast<double>(i) / denominator;
    values.push_back(a0 - a1 * std::cos(angle) + a2 * std::cos(2 * angle));
  }
  im.setOutput(0, numericConstant(im, {n}, elem, values));
  return success();
}

/// Writes `updates` (flattened) into `data` (flattened) at the known flat
/// positions `targets` (one per update element, in order), combining with
/// `reduction`. Each round handles the k-th update of every position: a
/// select between the running result and op(result, gathered update), with
/// constant masks and gather indices, so duplicates apply in order (the
/// last write wins for "none", as onnxruntime does).
LogicalResult scatterFlat(GraphImporter &im, Value data, Value updates,
                          ArrayRef<int64_t> targets, StringRef reduction) {
  RankedTensorType dt = typeOf(data);
  int64_t size = dt.getNumElements();
  if (size > (int64_t(1) << 24))
    return im.error() << "scatter into " << size
                      << " elements with constant indices is limited to "
                         "2^24",
           failure();
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return im.error() << "unknown reduction '" << reduction << "'", failure();
  // rounds[k][i]: the update index of the k-th write to position i, or -1.
  std::vector<std::vector<int64_t>> rounds;
  std::vector<int64_t> seen(size, 0);
  for (auto [u, t] : llvm::enumerate(targets)) {
    int64_t k = seen[t]++;
    if (static_cast<int64_t>(rounds.size()) <= k)
      rounds.emplace_back(size, -1);
    rounds[k][t] = static_cast<int64_t>(u);
  }
  Type i64 = im.builder().getI64Type(), i1 = im.builder().getI1Type();
  Value flatData = im.create<ReshapeOp>(data, ArrayRef<int64_t>{size});
  Value flatUpdates = im.create<ReshapeOp>(
      updates, ArrayRef<int64_t>{typeOf(updates).getNumElements()});
  Value result = flatData;
  for (const std::vector<int64_t> &round : rounds) {
    KnownInts source{{size}, {}, i64}, mask{{size}, {}, i1};
    for (int64_t u : round) {
      source.values.push_back(std::max<int64_t>(u, 0));
      mask.values.push_back(u >= 0);
    }
    Value picked = im.create<GatherOp>(flatUpdates, im.materialize(source), 0);
    Value combined = picked;
    if (reduction == "add")
      combined = im.create<AddOp>(result, picked);
    else if (reduction == "mul")
      combined = im.create<MulOp>(result, picked);
    else if (reduction == "max")
      combined = im.create<MaxOp>(result, picked);
    else if (reduction == "min")
      combined = im.create<MinOp>(result, picked);
    result = im.create<WhereOp>(im.materialize(mask), combined, result);
  }
  im.setOutput(0, im.create<ReshapeOp>(result, dt.getShape()));
  return success();
}

/// ScatterND with indices known at compile time.
LogicalResult convertScatterND(GraphImporter &im) {
  FailureOr<Value> data = im.input(0), updates = im.input(2);
  FailureOr<std::vector<int64_t>> indices = im.constantInts(1, "indices");
  FailureOr<RankedTensorType> it = im.requiredInputType(1);
  if (failed(data) || failed(updates) || failed(indices) || failed(it))
    return failure();
  RankedTensorType dt = typeOf(*data);
  int64_t k = it->getShape().empty() ? 0 : it->getShape().back();
  if (it->getRank() < 1 || k < 1 || k > dt.getRank())
    return im.error() << "indices " << *it << " must end in a dim of 1 to "
                      << dt.getRank() << " coordinates",
           failure();
  int64_t slice = 1;
  for (int64_t d = k; d < dt.getRank(); ++d)
    slice *= dt.getDimSize(d);
  SmallVector<int64_t> strides = stridesOf(dt.getShape());
  int64_t tuples = static_cast<int64_t>(indices->size()) / k;
  if (typeOf(*updates).getNumElements() != tuples * slice)
    return im.error() << "updates " << updates->getType() << " do not match "
                      << tuples << " slices of " << slice << " elements",
           failure();
  std::vector<int64_t> targets;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t v = (*indices)[t * k + j], n = dt.getDimSize(j);
      if (v < 0)
        v += n;
      if (v < 0 || v >= n)
        return im.error() << "index " << (*indices)[t * k + j]
                          << " is out of range for dim " << j << " of size "
                          << n,
               failure();
      base += v * strides[j];
    }
    for (int64_t e = 0; e < slice; ++e)
      targets.push_back(base + e);
  }
  return scatterFlat(im, *data, *updates, targets,
                     im.attrString("reduction", "none"));
}

/// ScatterElements (and the older Scatter) with indices known at compile
/// time: update element p goes to p with its `axis` coordinate replaced.
LogicalResult convertScatterElements(GraphImporter &im) {
  FailureOr<Value> data = im.input(0), updates = im.input(2);
  FailureOr<std::vector<int64_t>> indices = im.constantInts(1, "indices");
  if (failed(data) || failed(updates) || failed(indices))
    return failure();
  RankedTensorType dt = typeOf(*data), ut = typeOf(*updates);
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", 0), dt.getRank(), "axis");
  if (failed(axis))
    return failure();
  if (ut.getRank() != dt.getRank() ||
      static_cast<int64_t>(indices->size()) != ut.getNumElements())
    return im.error() << "indices and updates " << ut
                      << " must have one shape, of the data's rank",
           failure();
  SmallVector<int64_t> strides = stridesOf(dt.getShape());
  std::vector<int64_t> targets;
  for (int64_t e = 0; e < ut.getNumElements(); ++e) {
    int64_t rem = e, flat = 0;
    for (int64_t d = ut.getRank() - 1; d >= 0; --d) {
      int64_t c = rem % ut.getDimSize(d);
      rem /= ut.getDimSize(d);
      if (d == *axis) {
        int64_t v = (*indices)[e], n = dt.getDimSize(d);
        if (v < 0)
          v += n;
        if (v < 0 || v >= n)
          return im.error()
                     << "index " << (*indices)[e]
                     << " is out of range for axis " << d << " of size " << n,
                 failure();
        c = v;
      } else if (c >= dt.getDimSize(d)) {
        return im.error() << "updates " << ut << " exceed the data " << dt
                          << " along dim " << d,
               failure();
      }
      flat += c * strides[d];
    }
    targets.push_back(flat);
  }
  return scatterFlat(im, *data, *updates, targets,
                     im.attrString("reduction", "none"));
}

} // namespace

void mlir::tandem::onnx_import::registerComposedConverters(ConverterMap &map) {
  map["LogSoftmax"] = convertLogSoftmax;
  map["Hardmax"] = convertHardmax;
  map["NegativeLogLikelihoodLoss"] = convertNegativeLogLikelihoodLoss;
  map["SoftmaxCrossEntropyLoss"] = convertSoftmaxCrossEntropyLoss;
  map["ReduceL1"] = [](GraphImporter &im) {
    return convertSumReduction(
        im, [&](Value x) -> Value { return im.create<AbsOp>(x); }, nullptr);
  };
  map["ReduceL2"] = [](GraphImporter &im) {
    return convertSumReduction(
        im, [&](Value x) -> Value { return im.create<MulOp>(x, x); },
        [&](Value s) -> Value { return im.create<SqrtOp>(s); });
  };
  map["ReduceSumSquare"] = [](GraphImporter &im) {
    return convertSumReduction(
        im, [&](Value x) -> Value { return im.create<MulOp>(x, x); }, nullptr);
  };
  map["ReduceLogSum"] = [](GraphImporter &im) {
    return convertSumReduction(
        im, [](Value x) { return x; },
        [&](Value s) -> Value { return im.create<LogOp>(s); });
  };
  map["ReduceLogSumExp"] = convertReduceLogSumExp;
  map["GlobalMaxPool"] = convertGlobalMaxPool;
  map["GlobalLpPool"] = convertGlobalLpPool;
  map["InstanceNormalization"] = convertInstanceNorm;
  map["GroupNormalization"] = convertGroupNorm;
  map["MeanVarianceNormalization"] = convertMeanVarianceNorm;
  map["LpNormalization"] = convertLpNorm;
  map["LRN"] = convertLRN;
  map["Tile"] = convertTile;
  map["DepthToSpace"] = convertDepthToSpace;
  map["SpaceToDepth"] = convertSpaceToDepth;
  map["Trilu"] = convertTrilu;
  map["OneHot"] = convertOneHot;
  map["Range"] = convertRange;
  map["EyeLike"] = convertEyeLike;
  map["CenterCropPad"] = convertCenterCropPad;
  map["Compress"] = convertCompress;
  map["ScatterND"] = convertScatterND;
  map["ScatterElements"] = convertScatterElements;
  // Opset 10 models reach the importer converted (Scatter becomes
  // ScatterElements); from opset 11 on Scatter no longer exists.
  map["Scatter"] = [](GraphImporter &im) {
    return im.error() << "Scatter was removed in opset 11 and is not an op "
                         "of opset "
                      << im.opset() << "; use ScatterElements",
           failure();
  };
  map["HannWindow"] = [](GraphImporter &im) {
    return convertWindow(im, 0.5, 0.5, 0.0);
  };
  map["HammingWindow"] = [](GraphImporter &im) {
    return convertWindow(im, 25.0 / 46.0, 21.0 / 46.0, 0.0);
  };
  map["BlackmanWindow"] = [](GraphImporter &im) {
    return convertWindow(im, 0.42, 0.5, 0.08);
  };
}
