//===- TandemFolds.cpp - folders and canonicalisations of tandem ops ------===//
//
// Folding of identities (reshape, transpose, slice, pad, cast, broadcast_to,
// concat), algebraic identities (x + 0, x * 1), and constant folding of small
// constants. Large weights are never folded, so they are not duplicated.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"

#include "dialects/Tandem/IR/DataFolds.h"

#include "dialects/Tandem/IR/ShapeInference.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tandem;

/// foldElementLimit() unless a ScopedFoldElementLimit sets another.
static constexpr int64_t kDefaultFoldElementLimit = 1024;
static thread_local int64_t currentFoldElementLimit = kDefaultFoldElementLimit;

int64_t mlir::tandem::foldElementLimit() { return currentFoldElementLimit; }

ScopedFoldElementLimit::ScopedFoldElementLimit(int64_t limit)
    : previous(currentFoldElementLimit) {
  currentFoldElementLimit = limit;
}

ScopedFoldElementLimit::~ScopedFoldElementLimit() {
  currentFoldElementLimit = previous;
}

/// Returns `attr` as a dense (non-resource) constant small enough to fold
/// into a result of `resultType`, or null.
static DenseElementsAttr getFoldableConstant(Attribute attr,
                                             ShapedType resultType) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return {};
  if (!dense.isSplat() && resultType.getNumElements() > foldElementLimit())
    return {};
  return dense;
}

namespace {
/// The scalar evaluators of an elementwise op; either may be empty.
struct ScalarFns {
  function_ref<std::optional<APFloat>(ArrayRef<APFloat>)> onFloat;
  function_ref<std::optional<APInt>(ArrayRef<APInt>)> onInt;
};
} // namespace

/// Evaluates an elementwise op over constant operands, broadcasting them to
/// `resultType` like NumPy. Returns null when an operand is not a small dense
/// constant or an evaluator declines.
template <typename ValueT>
static Attribute
evaluate(ArrayRef<DenseElementsAttr> operands, ShapedType resultType,
         function_ref<std::optional<ValueT>(ArrayRef<ValueT>)> fn) {
  if (!fn)
    return {};
  SmallVector<ValueT, 3> args;
  if (llvm::all_of(operands, [](DenseElementsAttr a) { return a.isSplat(); })) {
    for (DenseElementsAttr a : operands)
      args.push_back(a.getSplatValue<ValueT>());
    std::optional<ValueT> v = fn(args);
    if (!v)
      return {};
    return DenseElementsAttr::get(resultType, ArrayRef<ValueT>(*v));
  }
  ArrayRef<int64_t> outShape = resultType.getShape();
  int64_t rank = outShape.size();
  SmallVector<SmallVector<ValueT>> values;
  for (DenseElementsAttr a : operands)
    values.push_back(llvm::to_vector(a.getValues<ValueT>()));
  SmallVector<ValueT> results;
  results.reserve(resultType.getNumElements());
  SmallVector<int64_t> index(rank, 0);
  for (int64_t flat = 0, e = resultType.getNumElements(); flat < e; ++flat) {
    // Unflatten `flat` into the result index.
    for (int64_t d = rank - 1, rem = flat; d >= 0; --d) {
      index[d] = rem % outShape[d];
      rem /= outShape[d];
    }
    args.clear();
    for (auto [a, vals] : llvm::zip(operands, values)) {
      if (a.isSplat()) {
        args.push_back(vals.front());
        continue;
      }
      ArrayRef<int64_t> inShape = a.getType().getShape();
      int64_t offset = rank - inShape.size(), pos = 0;
      for (auto [d, size] : llvm::enumerate(inShape))
        pos = pos * size + (size == 1 ? 0 : index[offset + d]);
      args.push_back(vals[pos]);
    }
    std::optional<ValueT> v = fn(args);
    if (!v)
      return {};
    results.push_back(*v);
  }
  return DenseElementsAttr::get(resultType, results);
}

static Attribute foldElementwise(ArrayRef<Attribute> operands,
                                 ShapedType resultType, ScalarFns fns) {
  SmallVector<DenseElementsAttr, 3> dense;
  for (Attribute a : operands) {
    DenseElementsAttr d = getFoldableConstant(a, resultType);
    if (!d)
      return {};
    dense.push_back(d);
  }
  Type elementType = resultType.getElementType();
  if (isa<FloatType>(elementType))
    return evaluate<APFloat>(dense, resultType, fns.onFloat);
  if (elementType.isInteger())
    return evaluate<APInt>(dense, resultType, fns.onInt);
  return {};
}

/// Whether `type` (a tensor or scalar) holds unsigned integers (ui8 ...):
/// their integer folds use the unsigned APInt operations.
static bool isUnsignedInt(Type type) {
  return getElementTypeOrSelf(type).isUnsignedInteger();
}

/// Applies a double -> double function and rounds back to `x`'s semantics.
static std::optional<APFloat> mapAsDouble(const APFloat &x,
                                          double (*fn)(double)) {
  APFloat result(fn(x.convertToDouble()));
  bool losesInfo = false;
  result.convert(x.getSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

/// True when `attr` is a splat equal to `value` in its element type.
static bool isSplatOf(Attribute attr, double value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  if (isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().convertToDouble() == value;
  if (dense.getElementType().isUnsignedInteger())
    return value >= 0 && dense.getSplatValue<APInt>().getZExtValue() ==
                             static_cast<uint64_t>(value);
  if (dense.getElementType().isInteger())
    return dense.getSplatValue<APInt>().getSExtValue() ==
           static_cast<int64_t>(value);
  return false;
}

/// Folds `x op identity` to x when that does not change x's type.
static OpFoldResult foldRightIdentity(Value lhs, Attribute rhs, Type resultType,
                                      double identity) {
  if (lhs.getType() == resultType && isSplatOf(rhs, identity))
    return lhs;
  return {};
}

//===----------------------------------------------------------------------===//
// Producers and shape ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x): only the final shape matters.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto dense = getFoldableConstant(adaptor.getInput(), getType()))
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (shape::isIdentityPermutation(getPerm()))
    return getInput();
  // transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : getPerm())
      composed.push_back(inner.getPerm()[p]);
    getInputMutable().assign(inner.getInput());
    setPerm(composed);
    if (shape::isIdentityPermutation(composed))
      return getInput();
    return getResult();
  }
  auto dense = getFoldableConstant(adaptor.getInput(), getType());
  if (!dense)
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(getType());
  // Gather the permuted elements through their raw attribute values.
  ArrayRef<int64_t> inShape = getInput().getType().getShape();
  ArrayRef<int64_t> outShape = getType().getShape();
  SmallVector<int64_t> inStrides(inShape.size(), 1);
  for (int64_t d = static_cast<int64_t>(inShape.size()) - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  SmallVector<Attribute> values = llvm::to_vector(dense.getValues<Attribute>());
  SmallVector<Attribute> result;
  result.reserve(values.size());
  SmallVector<int64_t> index(outShape.size(), 0);
  for (int64_t flat = 0, e = getType().getNumElements(); flat < e; ++flat) {
    int64_t rem = flat, pos = 0;
    for (int64_t d = static_cast<int64_t>(outShape.size()) - 1; d >= 0; --d) {
      index[d] = rem % outShape[d];
      rem /= outShape[d];
    }
    for (auto [d, p] : llvm::enumerate(getPerm()))
      pos += index[d] * inStrides[p];
    result.push_back(values[pos]);
  }
  return DenseElementsAttr::get(getType(), result);
}

namespace {
/// A transpose that only moves size-1 dimensions keeps the element order:
/// it is a reshape, which later passes handle for free.
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!shape::movesOnlyUnitDims(op.getInput().getType().getShape(),
                                  op.getPerm()))
      return rewriter.notifyMatchFailure(op, "moves a non-unit dimension");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getInput(),
                                           op.getType().getShape());
    return success();
  }
};

/// The axis (non-negative) and index of a gather whose indices are one
/// constant scalar, wrapped into its axis; nullopt otherwise (or when out
/// of range: the run-time check reports that).
std::optional<std::pair<int64_t, int64_t>>
constantScalarIndex(GatherOp gather) {
  DenseIntElementsAttr indices;
  if (gather.getIndices().getType().getRank() != 0 ||
      !matchPattern(gather.getIndices(), m_Constant(&indices)))
    return std::nullopt;
  auto dataType = gather.getData().getType();
  int64_t axis = gather.getAxis();
  if (axis < 0)
    axis += dataType.getRank();
  if (axis < 0 || axis >= dataType.getRank())
    return std::nullopt;
  int64_t size = dataType.getDimSize(axis);
  int64_t index = (*indices.begin()).getSExtValue();
  if (index < 0)
    index += size;
  if (ShapedType::isDynamic(size) || index < 0 || index >= size)
    return std::nullopt;
  return std::make_pair(axis, index);
}

/// A transpose read only by gathers of one constant index each
/// (`q, k, v = qkv[0], qkv[1], qkv[2]` after an attention's head split, as
/// torchvision's Swin exports it) or by slices (`qkv.unbind(0)`, as timm's
/// ViT exports it): each gather becomes a transpose of the slice it reads,
/// taken before the transpose (a view, then a squeeze), and each slice a
/// transpose of the same slice of the input, so that no transposed copy of
/// the whole and no copy per part is made; the new transposes compose with
/// the ones after them (k's) and fuse into their consumers like any other.
struct GatherIndicesOfTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = op.getInput().getType();
    if (op->use_empty() || !inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "no static users");
    SmallVector<std::tuple<GatherOp, int64_t, int64_t>> gathers;
    SmallVector<SliceOp> slices;
    for (Operation *user : op->getUsers()) {
      if (auto slice = dyn_cast<SliceOp>(user)) {
        slices.push_back(slice);
        continue;
      }
      auto gather = dyn_cast<GatherOp>(user);
      std::optional<std::pair<int64_t, int64_t>> at =
          gather && gather.getData() == op.getResult()
              ? constantScalarIndex(gather)
              : std::nullopt;
      if (!at)
        return rewriter.notifyMatchFailure(
            op, "read by something other than a constant-index gather");
      gathers.push_back({gather, at->first, at->second});
    }
    ArrayRef<int64_t> perm = op.getPerm();
    ArrayRef<int64_t> shape = inType.getShape();
    int64_t rank = shape.size();
    for (auto [gather, axis, index] : gathers) {
      int64_t dim = perm[axis];
      SmallVector<int64_t> starts(rank, 0), limits(shape), steps(rank, 1);
      starts[dim] = index;
      limits[dim] = index + 1;
      rewriter.setInsertionPoint(gather);
      Location loc = gather.getLoc();
      SmallVector<Operation *> created;
      created.push_back(
          SliceOp::create(rewriter, loc, op.getInput(), starts, limits, steps));
      SmallVector<int64_t> squeezed;
      for (int64_t d = 0; d < rank; ++d)
        if (d != dim)
          squeezed.push_back(shape[d]);
      created.push_back(ReshapeOp::create(
          rewriter, loc, created.back()->getResult(0), squeezed));
      // The transpose over the dimensions left: dimension `dim` is gone.
      SmallVector<int64_t> rest;
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          rest.push_back(perm[d] > dim ? perm[d] - 1 : perm[d]);
      if (!shape::isIdentityPermutation(rest))
        created.push_back(TransposeOp::create(
            rewriter, loc, created.back()->getResult(0), rest));
      // The gather's device (once placed) and other discardable attributes.
      for (Operation *newOp : created)
        for (NamedAttribute attr : gather->getDiscardableAttrs())
          newOp->setAttr(attr.getName(), attr.getValue());
      Value part = created.back()->getResult(0);
      rewriter.replaceOp(gather, part);
    }
    for (SliceOp slice : slices) {
      // Output dimension d is input dimension perm[d].
      SmallVector<int64_t> starts(rank), limits(rank), steps(rank);
      for (int64_t d = 0; d < rank; ++d) {
        starts[perm[d]] = slice.getStarts()[d];
        limits[perm[d]] = slice.getLimits()[d];
        steps[perm[d]] = slice.getSteps()[d];
      }
      rewriter.setInsertionPoint(slice);
      auto part = SliceOp::create(rewriter, slice.getLoc(), op.getInput(),
                                  starts, limits, steps);
      auto moved =
          TransposeOp::create(rewriter, slice.getLoc(), part.getResult(), perm);
      for (Operation *newOp : {part.getOperation(), moved.getOperation()})
        for (NamedAttribute attr : slice->getDiscardableAttrs())
          newOp->setAttr(attr.getName(), attr.getValue());
      rewriter.replaceOp(slice, moved.getResult());
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeOfUnitDimsToReshape, GatherIndicesOfTranspose>(context);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  return foldSliceConstant(*this, adaptor.getInput());
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto dense = getFoldableConstant(adaptor.getInput(), getType());
  if (!dense)
    return {};
  Type from = dense.getElementType(), to = getType().getElementType();
  // Float to float conversions round to nearest even.
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    const llvm::fltSemantics &sem = cast<FloatType>(to).getFloatSemantics();
    return dense.mapValues(to, [&](const APFloat &v) {
      APFloat r = v;
      bool losesInfo = false;
      r.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
      return r.bitcastToAPInt();
    });
  }
  // Integer widening and narrowing (i1 is a zero test; i1 and the unsigned
  // types widen with zeros, as in ONNX Cast: true is 1, ui8 255 is 255).
  if (from.isInteger() && to.isInteger()) {
    unsigned width = to.getIntOrFloatBitWidth();
    bool zeroExtend = from.isInteger(1) || from.isUnsignedInteger();
    return dense.mapValues(to, [&](const APInt &v) {
      if (width == 1)
        return APInt(1, !v.isZero());
      return zeroExtend ? v.zextOrTrunc(width) : v.sextOrTrunc(width);
    });
  }
  return foldIntFloatCast(*this, adaptor.getInput());
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat())
      return dense.resizeSplat(getType());
  return foldBroadcastToConstant(*this, adaptor.getInput());
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
         return a[0] + a[1];
       },
       [](ArrayRef<APInt> a) -> std::optional<APInt> { return a[0] + a[1]; }});
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
         return a[0] - a[1];
       },
       [](ArrayRef<APInt> a) -> std::optional<APInt> { return a[0] - a[1]; }});
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
         return a[0] * a[1];
       },
       [](ArrayRef<APInt> a) -> std::optional<APInt> { return a[0] * a[1]; }});
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  bool isUnsigned = isUnsignedInt(getType());
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
                            return a[0] / a[1];
                          },
                          [&](ArrayRef<APInt> a) -> std::optional<APInt> {
                            // Division by zero is left to run time.
                            if (a[1].isZero())
                              return std::nullopt;
                            return isUnsigned ? a[0].udiv(a[1])
                                              : a[0].sdiv(a[1]);
                          }});
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  // In double, rounded once to the element type (a scale such as
  // pow(head_dim, -0.5) that exports compute from constants).
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
                            APFloat result(std::pow(a[0].convertToDouble(),
                                                    a[1].convertToDouble()));
                            bool losesInfo = false;
                            result.convert(a[0].getSemantics(),
                                           APFloat::rmNearestTiesToEven,
                                           &losesInfo);
                            return result;
                          },
                          {}});
}

namespace {
/// pow(x, 2) -> x * x and pow(x, 3) -> x * x * x, as onnxruntime evaluates
/// them (and a vectorisable multiply instead of a libm call).
struct PowOfSmallIntegerToMul : OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op,
                                PatternRewriter &rewriter) const override {
    Attribute exponent;
    if (op.getLhs().getType() != op.getType() ||
        !matchPattern(op.getRhs(), m_Constant(&exponent)))
      return rewriter.notifyMatchFailure(op, "not a constant exponent");
    bool square = isSplatOf(exponent, 2.0), cube = isSplatOf(exponent, 3.0);
    if (!square && !cube)
      return rewriter.notifyMatchFailure(op, "exponent is not 2 or 3");
    Value x = op.getLhs();
    Value result = MulOp::create(rewriter, op.getLoc(), x, x);
    if (cube)
      result = MulOp::create(rewriter, op.getLoc(), result, x);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void PowOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<PowOfSmallIntegerToMul>(context);
}

/// Folds remainders of small constants, matching the lowering: a float
/// remainder is C's fmod (the sign of the dividend); an integer remainder
/// by zero is 0; unsigned remainders are urem (both fmod forms agree on
/// them).
OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  bool truncated = getFmod();
  bool isUnsigned = isUnsignedInt(getType());
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
         APFloat r = a[0];
         r.mod(a[1]);
         return r;
       },
       [&](ArrayRef<APInt> a) -> std::optional<APInt> {
         const APInt &x = a[0], &y = a[1];
         if (isUnsigned)
           return y.isZero() ? APInt::getZero(x.getBitWidth()) : x.urem(y);
         if (y.isZero() || y.isAllOnes())
           return APInt::getZero(x.getBitWidth());
         APInt r = x.srem(y);
         if (!truncated && !r.isZero() && r.isNegative() != y.isNegative())
           r += y;
         return r;
       }});
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {{}, [](ArrayRef<APInt> a) -> std::optional<APInt> {
                            return a[0] & a[1];
                          }});
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {{}, [](ArrayRef<APInt> a) -> std::optional<APInt> {
                            return a[0] | a[1];
                          }});
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {{}, [](ArrayRef<APInt> a) -> std::optional<APInt> {
                            return a[0] ^ a[1];
                          }});
}

/// A shift by an amount outside [0, bit width) gives 0, as in the lowering.
static std::optional<APInt> shiftBits(const APInt &x, const APInt &amount,
                                      bool left) {
  if (amount.uge(x.getBitWidth()))
    return APInt::getZero(x.getBitWidth());
  unsigned n = amount.getZExtValue();
  return left ? x.shl(n) : x.lshr(n);
}

OpFoldResult ShiftLeftOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {{}, [](ArrayRef<APInt> a) {
                            return shiftBits(a[0], a[1], /*left=*/true);
                          }});
}

OpFoldResult ShiftRightOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {{}, [](ArrayRef<APInt> a) {
                            return shiftBits(a[0], a[1], /*left=*/false);
                          }});
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) {
                            return mapAsDouble(
                                a[0], [](double x) { return std::floor(x); });
                          },
                          {}});
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) {
                            return mapAsDouble(
                                a[0], [](double x) { return std::ceil(x); });
                          },
                          {}});
}

OpFoldResult RoundOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
                            APFloat r = a[0];
                            r.roundToIntegral(APFloat::rmNearestTiesToEven);
                            return r;
                          },
                          {}});
}

/// Folds max and min: `op(x, x)` is x, and small constants evaluate.
/// NaN propagates, as in ONNX Max/Min.
template <typename OpT>
static OpFoldResult foldExtremum(OpT op, ArrayRef<Attribute> operands,
                                 bool isMax) {
  if (op.getLhs() == op.getRhs() && op.getLhs().getType() == op.getType())
    return op.getLhs();
  bool isUnsigned = isUnsignedInt(op.getType());
  return foldElementwise(
      operands, op.getType(),
      {[&](ArrayRef<APFloat> a) -> std::optional<APFloat> {
         return isMax ? llvm::maximum(a[0], a[1]) : llvm::minimum(a[0], a[1]);
       },
       [&](ArrayRef<APInt> a) -> std::optional<APInt> {
         bool ge = isUnsigned ? a[0].uge(a[1]) : a[0].sge(a[1]);
         return ge == isMax ? a[0] : a[1];
       }});
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldExtremum(*this, adaptor.getOperands(), /*isMax=*/true);
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldExtremum(*this, adaptor.getOperands(), /*isMax=*/false);
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  // relu(relu(x)) == relu(x).
  if (getInput().getDefiningOp<ReluOp>())
    return getInput();
  // No unsigned value is negative.
  if (isUnsignedInt(getType()))
    return getInput();
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
                            return a[0].isNegative() && !a[0].isNaN()
                                       ? APFloat::getZero(a[0].getSemantics())
                                       : a[0];
                          },
                          [](ArrayRef<APInt> a) -> std::optional<APInt> {
                            return a[0].isNegative()
                                       ? APInt::getZero(a[0].getBitWidth())
                                       : a[0];
                          }});
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  // neg(neg(x)) == x.
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[](ArrayRef<APFloat> a) -> std::optional<APFloat> { return -a[0]; },
       [](ArrayRef<APInt> a) -> std::optional<APInt> { return -a[0]; }});
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (getInput().getDefiningOp<AbsOp>())
    return getInput();
  if (isUnsignedInt(getType()))
    return getInput();
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[](ArrayRef<APFloat> a) -> std::optional<APFloat> {
         return llvm::abs(a[0]);
       },
       [](ArrayRef<APInt> a) -> std::optional<APInt> { return a[0].abs(); }});
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) {
                            return mapAsDouble(
                                a[0], [](double x) { return std::exp(x); });
                          },
                          {}});
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(adaptor.getOperands(), getType(),
                         {[](ArrayRef<APFloat> a) {
                            return mapAsDouble(
                                a[0], [](double x) { return std::sqrt(x); });
                          },
                          {}});
}

/// Folds a float unary op computing `fn` in double.
static OpFoldResult foldFloatUnary(ArrayRef<Attribute> operands,
                                   ShapedType resultType,
                                   double (*fn)(double)) {
  return foldElementwise(
      operands, resultType,
      {[fn](ArrayRef<APFloat> a) { return mapAsDouble(a[0], fn); }, {}});
}

#define TANDEM_FOLD_FLOAT_UNARY(OP, EXPR)                                      \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldFloatUnary(adaptor.getOperands(), getType(),                    \
                          [](double x) { return EXPR; });                      \
  }
TANDEM_FOLD_FLOAT_UNARY(SigmoidOp, 1.0 / (1.0 + std::exp(-x)))
TANDEM_FOLD_FLOAT_UNARY(TanhOp, std::tanh(x))
TANDEM_FOLD_FLOAT_UNARY(LogOp, std::log(x))
TANDEM_FOLD_FLOAT_UNARY(ErfOp, std::erf(x))
TANDEM_FOLD_FLOAT_UNARY(SinOp, std::sin(x))
TANDEM_FOLD_FLOAT_UNARY(CosOp, std::cos(x))
TANDEM_FOLD_FLOAT_UNARY(TanOp, std::tan(x))
TANDEM_FOLD_FLOAT_UNARY(AsinOp, std::asin(x))
TANDEM_FOLD_FLOAT_UNARY(AcosOp, std::acos(x))
TANDEM_FOLD_FLOAT_UNARY(AtanOp, std::atan(x))
TANDEM_FOLD_FLOAT_UNARY(SinhOp, std::sinh(x))
TANDEM_FOLD_FLOAT_UNARY(CoshOp, std::cosh(x))
TANDEM_FOLD_FLOAT_UNARY(AsinhOp, std::asinh(x))
TANDEM_FOLD_FLOAT_UNARY(AcoshOp, std::acosh(x))
TANDEM_FOLD_FLOAT_UNARY(AtanhOp, std::atanh(x))
#undef TANDEM_FOLD_FLOAT_UNARY

OpFoldResult GeluOp::fold(FoldAdaptor adaptor) {
  if (getApproximate() == GeluApproximation::Tanh)
    return foldFloatUnary(adaptor.getOperands(), getType(), [](double x) {
      return 0.5 * x *
             (1.0 +
              std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    });
  return foldFloatUnary(adaptor.getOperands(), getType(), [](double x) {
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  });
}

/// Folds clip as the lowering computes it: NaN propagates through float
/// bounds; integers clamp to ceil(min) and floor(max).
OpFoldResult ClipOp::fold(FoldAdaptor adaptor) {
  std::optional<double> lo, hi;
  if (auto attr = getMinAttr())
    lo = attr.getValueAsDouble();
  if (auto attr = getMaxAttr())
    hi = attr.getValueAsDouble();
  bool isUnsigned = isUnsignedInt(getType());
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[&](ArrayRef<APFloat> a) -> std::optional<APFloat> {
         APFloat x = a[0];
         auto bound = [&](double v) {
           APFloat b(v);
           bool losesInfo = false;
           b.convert(x.getSemantics(), APFloat::rmNearestTiesToEven,
                     &losesInfo);
           return b;
         };
         if (lo)
           x = llvm::maximum(x, bound(*lo));
         if (hi)
           x = llvm::minimum(x, bound(*hi));
         return x;
       },
       [&](ArrayRef<APInt> a) -> std::optional<APInt> {
         unsigned width = a[0].getBitWidth();
         auto bound = [&](double v) {
           return APInt(width, static_cast<int64_t>(v), /*isSigned=*/true,
                        /*implicitTrunc=*/true);
         };
         APInt x = a[0];
         // Bounds beyond the type's range leave x alone on that side.
         double minV = isUnsigned ? 0.0 : -std::ldexp(1.0, int(width) - 1),
                maxV = isUnsigned ? std::ldexp(1.0, int(width)) - 1
                                  : std::ldexp(1.0, int(width) - 1) - 1;
         if (lo && std::ceil(*lo) > minV) {
           if (std::ceil(*lo) > maxV)
             return std::nullopt;
           APInt b = bound(std::ceil(*lo));
           if (isUnsigned ? x.ult(b) : x.slt(b))
             x = b;
         }
         if (hi && std::floor(*hi) < maxV) {
           if (std::floor(*hi) < minV)
             return std::nullopt;
           APInt b = bound(std::floor(*hi));
           if (isUnsigned ? x.ugt(b) : x.sgt(b))
             x = b;
         }
         return x;
       }});
}

OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      adaptor.getOperands(), getType(),
      {[](ArrayRef<APFloat> a) {
         return mapAsDouble(a[0], [](double x) { return 1.0 / std::sqrt(x); });
       },
       {}});
}
