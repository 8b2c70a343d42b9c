//===- ReductionToLinalg.cpp - reductions, pools and norms to linalg ------===//
//
// reduce_sum/mean/max/min/prod (a reducing linalg.generic, then
// expand_shape for keepdims), arg_max/arg_min (a two-output (value, index)
// reduction), cumsum (a masked reduction over the axis), top_k (ranks, then
// a pick of the first k), global_avg_pool,
// max/avg pooling (tensor.pad plus linalg.pooling_nchw_max/sum, with
// per-position divisors for avg pooling), numerically stable softmax and
// layer_norm.
//
//===----------------------------------------------------------------------===//

#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::linalg_lowering;

namespace {

/// Combines one input element with the running value.
using CombineFn = function_ref<Value(OpBuilder &, Location, Value, Value)>;

bool isFloat(Type t) { return isa<FloatType>(t); }

Value addScalars(OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l.getType()))
    return arith::AddFOp::create(b, loc, l, r);
  return arith::AddIOp::create(b, loc, l, r);
}

Value maxScalars(OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l.getType()))
    return arith::MaximumFOp::create(b, loc, l, r);
  if (isUnsignedInt(l.getType()))
    return arith::MaxUIOp::create(b, loc, l, r);
  return arith::MaxSIOp::create(b, loc, l, r);
}

Value minScalars(OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l.getType()))
    return arith::MinimumFOp::create(b, loc, l, r);
  if (isUnsignedInt(l.getType()))
    return arith::MinUIOp::create(b, loc, l, r);
  return arith::MinSIOp::create(b, loc, l, r);
}

Value mulScalars(OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l.getType()))
    return arith::MulFOp::create(b, loc, l, r);
  return arith::MulIOp::create(b, loc, l, r);
}

/// Reduces `input` over the sorted `axes`, starting from `initValue` and
/// folding with `combine(element, acc)`. The result drops the reduced dims.
Value reduceAxes(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> axes, Value initValue, CombineFn combine) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (llvm::is_contained(axes, d)) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    shape.push_back(type.getDimSize(d));
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  auto outType = RankedTensorType::get(shape, initValue.getType());
  Value init = createFilled(b, loc, outType, initValue);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(type.getRank()),
      AffineMap::get(type.getRank(), 0, outExprs, ctx)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{input}, ValueRange{init},
             maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       combine(nb, nloc, args[0], args[1]));
             })
      .getResult(0);
}

/// The map reading a tensor that lacks `axes` inside a loop nest over all
/// `rank` dims.
AffineMap reducedMap(MLIRContext *ctx, int64_t rank, ArrayRef<int64_t> axes) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// Divides every element of `value` by the constant `count`.
Value divideBy(OpBuilder &b, Location loc, Value value, int64_t count) {
  auto type = cast<RankedTensorType>(value.getType());
  return buildElementwise(
      b, loc, type, value, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value c = scalarConstant(nb, nloc, type.getElementType(),
                                 static_cast<double>(count));
        if (isFloat(type.getElementType()))
          return Value(arith::DivFOp::create(nb, nloc, args[0], c));
        if (isUnsignedInt(type))
          return Value(arith::DivUIOp::create(nb, nloc, args[0], c));
        return Value(arith::DivSIOp::create(nb, nloc, args[0], c));
      });
}

/// `value` (integers) with the sign bit of every element flipped, as a
/// tensor of `to` (an integer type of the same width).
Value flipSignBit(OpBuilder &b, Location loc, Value value, Type to) {
  auto type = cast<RankedTensorType>(value.getType());
  unsigned width = to.getIntOrFloatBitWidth();
  return buildElementwise(
      b, loc, type.clone(to), value,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value bits = convertScalar(nb, nloc, args[0], to);
        Value sign = arith::ConstantOp::create(
            nb, nloc, nb.getIntegerAttr(to, APInt::getSignMask(width)));
        return arith::XOrIOp::create(nb, nloc, bits, sign);
      });
}

template <typename OpTy> struct ReduceToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type elem = accumulatorType(inType.getElementType());
    Value input = castTensor(rewriter, loc, adaptor.getInput(), elem);
    ArrayRef<int64_t> axes = op.getAxes();
    Value init;
    CombineFn combine = addScalars;
    if constexpr (std::is_same_v<OpTy, ReduceMaxOp>) {
      init = lowestValue(rewriter, loc, elem);
      combine = maxScalars;
    } else if constexpr (std::is_same_v<OpTy, ReduceMinOp>) {
      init = highestValue(rewriter, loc, elem);
      combine = minScalars;
    } else if constexpr (std::is_same_v<OpTy, ReduceProdOp>) {
      init = scalarConstant(rewriter, loc, elem, 1.0);
      combine = mulScalars;
    } else {
      init = scalarConstant(rewriter, loc, elem, 0.0);
    }
    Value result = reduceAxes(rewriter, loc, input, axes, init, combine);
    if constexpr (std::is_same_v<OpTy, ReduceMeanOp>) {
      int64_t count = 1;
      for (int64_t a : axes)
        count *= inType.getDimSize(a);
      result = divideBy(rewriter, loc, result, count);
    }
    auto type = cast<RankedTensorType>(op.getType());
    result = castTensor(rewriter, loc, result, type.getElementType());
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, result, type));
    return success();
  }
};

/// arg_max/arg_min: one reduction along the axis with two outputs, the
/// value picked so far and its index. The elements are scanned in order; the
/// first one is taken unconditionally and a later one replaces the pick when
/// it compares strictly better (or equal, with select_last_index), as
/// onnxruntime scans: ordered comparisons are false for NaN, so a NaN is
/// picked only in the first position and then stays.
template <typename OpTy> struct ArgReduceToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;
    bool last = op.getSelectLastIndex();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type elem = accumulatorType(inType.getElementType());
    Value input = castTensor(rewriter, loc, adaptor.getInput(), elem);
    int64_t rank = inType.getRank();
    int64_t axis = op.getAxis();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<int64_t> shape;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d != axis)
        shape.push_back(inType.getDimSize(d));
    }
    Type i64 = rewriter.getI64Type();
    // The initial values are never read: position 0 is taken as it is.
    Value valueInit =
        createFilled(rewriter, loc, RankedTensorType::get(shape, elem),
                     scalarConstant(rewriter, loc, elem, 0.0));
    Value indexInit =
        createFilled(rewriter, loc, RankedTensorType::get(shape, i64),
                     scalarConstant(rewriter, loc, i64, 0.0));
    AffineMap reduced = reducedMap(ctx, rank, {axis});
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   reduced, reduced};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueInit.getType(), indexInit.getType()},
        ValueRange{input}, ValueRange{valueInit, indexInit}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value v = args[0], best = args[1], bestIndex = args[2];
          Value k = arith::IndexCastOp::create(
              b, nloc, i64, linalg::IndexOp::create(b, nloc, axis));
          Value first = arith::CmpIOp::create(
              b, nloc, arith::CmpIPredicate::eq, k,
              arith::ConstantIntOp::create(b, nloc, i64, 0));
          Value better;
          if (isFloat(elem)) {
            auto pred = isMax ? (last ? arith::CmpFPredicate::OGE
                                      : arith::CmpFPredicate::OGT)
                              : (last ? arith::CmpFPredicate::OLE
                                      : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, nloc, pred, v, best);
          } else {
            // Unsigned elements compare as unsigned.
            bool u = isUnsignedInt(elem);
            auto pred = isMax ? (last ? (u ? arith::CmpIPredicate::uge
                                           : arith::CmpIPredicate::sge)
                                      : (u ? arith::CmpIPredicate::ugt
                                           : arith::CmpIPredicate::sgt))
                              : (last ? (u ? arith::CmpIPredicate::ule
                                           : arith::CmpIPredicate::sle)
                                      : (u ? arith::CmpIPredicate::ult
                                           : arith::CmpIPredicate::slt));
            better = arith::CmpIOp::create(b, nloc, pred, v, best);
          }
          Value take = arith::OrIOp::create(b, nloc, first, better);
          linalg::YieldOp::create(
              b, nloc,
              ValueRange{arith::SelectOp::create(b, nloc, take, v, best),
                         arith::SelectOp::create(b, nloc, take, k, bestIndex)});
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, generic.getResult(1),
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// cumsum: every output element reduces the whole axis, adding the input
/// elements at or before it (after, with reverse; strictly, with exclusive)
/// and zero for the others. The loop nest is the output's dims plus one
/// reduction dim k over the axis: O(n^2) per row of n, but each output
/// element is independent, so the nest is parallel and maps to GPU threads.
struct CumSumToGeneric : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elem = accumulatorType(resultType.getElementType());
    auto type = resultType.clone(elem);
    Value input = castTensor(rewriter, loc, adaptor.getInput(), elem);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, inExprs, ctx),
                                   AffineMap::get(rank + 1, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value init = createFilled(rewriter, loc, type,
                              scalarConstant(rewriter, loc, elem, 0));
    arith::CmpIPredicate pred = reverse
                                    ? (exclusive ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::uge)
                                    : (exclusive ? arith::CmpIPredicate::ult
                                                 : arith::CmpIPredicate::ule);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{input}, ValueRange{init},
            maps, iterators,
            [&](OpBuilder &b, Location nloc, ValueRange args) {
              Value i = linalg::IndexOp::create(b, nloc, axis);
              Value k = linalg::IndexOp::create(b, nloc, rank);
              Value include = arith::CmpIOp::create(b, nloc, pred, k, i);
              Value term =
                  arith::SelectOp::create(b, nloc, include, args[0],
                                          scalarConstant(b, nloc, elem, 0.0));
              linalg::YieldOp::create(b, nloc,
                                      addScalars(b, nloc, args[1], term));
            })
            .getResult(0);
    rewriter.replaceOp(
        op, castTensor(rewriter, loc, result, resultType.getElementType()));
    return success();
  }
};

/// top_k: (1) each element's rank, the number of elements before it in the
/// order (better value first, NaN above every number, lower index first on
/// ties): a masked count over the axis, O(n^2) per row; (2) for output j on
/// the axis, the element of rank j: a masked pick over the axis with two
/// outputs (value, index), O(k n). Every output element is independent.
struct TopKToGeneric : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    Type elem = accumulatorType(inType.getElementType());
    Value input = castTensor(rewriter, loc, adaptor.getInput(), elem);
    int64_t rank = inType.getRank();
    int64_t axis = op.getAxis();
    bool largest = op.getLargest();
    MLIRContext *ctx = rewriter.getContext();
    Type i64 = rewriter.getI64Type();
    // Maps over (dims of a tensor..., extra): the tensor itself, and the
    // tensor with its axis coordinate replaced by the extra dim.
    SmallVector<AffineExpr> own, alongExtra;
    for (int64_t d = 0; d < rank; ++d) {
      own.push_back(getAffineDimExpr(d, ctx));
      alongExtra.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    }
    AffineMap ownMap = AffineMap::get(rank + 1, 0, own, ctx);
    AffineMap extraMap = AffineMap::get(rank + 1, 0, alongExtra, ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);

    auto ranksType = inType.clone(i64);
    Value zeros = createFilled(rewriter, loc, ranksType,
                               scalarConstant(rewriter, loc, i64, 0));
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{ranksType}, ValueRange{input, input},
            ValueRange{zeros}, ArrayRef<AffineMap>{ownMap, extraMap, ownMap},
            iterators,
            [&](OpBuilder &b, Location nloc, ValueRange args) {
              Value xi = args[0], xm = args[1];
              Value i = linalg::IndexOp::create(b, nloc, axis);
              Value m = linalg::IndexOp::create(b, nloc, rank);
              Value earlier = arith::CmpIOp::create(
                  b, nloc, arith::CmpIPredicate::ult, m, i);
              Value before;
              if (isFloat(elem)) {
                using P = arith::CmpFPredicate;
                Value nanM = arith::CmpFOp::create(b, nloc, P::UNO, xm, xm);
                Value nanI = arith::CmpFOp::create(b, nloc, P::UNO, xi, xi);
                Value t = arith::ConstantIntOp::create(b, nloc, 1, 1);
                // NaN ranks above every number.
                Value nanFirst =
                    largest ? arith::AndIOp::create(
                                  b, nloc, nanM,
                                  arith::XOrIOp::create(b, nloc, nanI, t))
                            : arith::AndIOp::create(
                                  b, nloc, nanI,
                                  arith::XOrIOp::create(b, nloc, nanM, t));
                Value better = arith::CmpFOp::create(
                    b, nloc, largest ? P::OGT : P::OLT, xm, xi);
                Value equal = arith::OrIOp::create(
                    b, nloc, arith::CmpFOp::create(b, nloc, P::OEQ, xm, xi),
                    arith::AndIOp::create(b, nloc, nanM, nanI));
                before = arith::OrIOp::create(
                    b, nloc, arith::OrIOp::create(b, nloc, nanFirst, better),
                    arith::AndIOp::create(b, nloc, equal, earlier));
              } else {
                using P = arith::CmpIPredicate;
                Value better = arith::CmpIOp::create(
                    b, nloc, largest ? P::sgt : P::slt, xm, xi);
                Value equal = arith::CmpIOp::create(b, nloc, P::eq, xm, xi);
                before = arith::OrIOp::create(
                    b, nloc, better,
                    arith::AndIOp::create(b, nloc, equal, earlier));
              }
              Value one = arith::ExtUIOp::create(b, nloc, i64, before);
              linalg::YieldOp::create(
                  b, nloc,
                  ValueRange{arith::AddIOp::create(b, nloc, args[2], one)});
            })
            .getResult(0);

    auto pickedType = valuesType.clone(elem);
    auto indicesType = valuesType.clone(i64);
    Value valueInit = createFilled(rewriter, loc, pickedType,
                                   scalarConstant(rewriter, loc, elem, 0.0));
    Value indexInit = createFilled(rewriter, loc, indicesType,
                                   scalarConstant(rewriter, loc, i64, 0.0));
    auto pick = linalg::GenericOp::create(
        rewriter, loc, TypeRange{pickedType, indicesType},
        ValueRange{input, ranks}, ValueRange{valueInit, indexInit},
        ArrayRef<AffineMap>{extraMap, extraMap, ownMap, ownMap}, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value j = arith::IndexCastOp::create(
              b, nloc, i64, linalg::IndexOp::create(b, nloc, axis));
          Value i = arith::IndexCastOp::create(
              b, nloc, i64, linalg::IndexOp::create(b, nloc, rank));
          Value match = arith::CmpIOp::create(b, nloc, arith::CmpIPredicate::eq,
                                              args[1], j);
          linalg::YieldOp::create(
              b, nloc,
              ValueRange{
                  arith::SelectOp::create(b, nloc, match, args[0], args[2]),
                  arith::SelectOp::create(b, nloc, match, i, args[3])});
        });
    rewriter.replaceOp(op, {castTensor(rewriter, loc, pick.getResult(0),
                                       valuesType.getElementType()),
                            pick.getResult(1)});
    return success();
  }
};

struct GlobalAvgPoolToGeneric : OpConversionPattern<GlobalAvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    SmallVector<int64_t> axes;
    int64_t count = 1;
    for (int64_t d = 2; d < inType.getRank(); ++d) {
      axes.push_back(d);
      count *= inType.getDimSize(d);
    }
    Type acc = accumulatorType(inType.getElementType());
    Value input = castTensor(rewriter, loc, adaptor.getInput(), acc);
    Value sum = reduceAxes(rewriter, loc, input, axes,
                           scalarConstant(rewriter, loc, acc, 0.0), addScalars);
    Value mean = castTensor(rewriter, loc, divideBy(rewriter, loc, sum, count),
                            inType.getElementType());
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, mean,
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// Window geometry of one spatial dim of a pool.
struct PoolDim {
  int64_t in, out, kernel, stride, dilation, padBegin, padEnd;
  /// Extra end padding so that the last (ceil-mode) window fits.
  int64_t extraEnd() const {
    int64_t needed = (out - 1) * stride + dilation * (kernel - 1) + 1;
    return std::max<int64_t>(0, needed - (in + padBegin + padEnd));
  }
  /// Whether output `o`'s window covers at least one input element.
  bool touchesInput(int64_t o) const {
    for (int64_t j = 0; j < kernel; ++j) {
      int64_t i = o * stride - padBegin + j * dilation;
      if (i >= 0 && i < in)
        return true;
    }
    return false;
  }
  /// The avg-pool divisor of output `o` (onnxruntime/PyTorch semantics: the
  /// window's taps that lie in the padded extent, or in the input unless
  /// padding counts; a ceil-mode window's overhang never counts).
  int64_t divisor(int64_t o, bool countIncludePad) const {
    int64_t lo = countIncludePad ? -padBegin : 0;
    int64_t hi = countIncludePad ? in + padEnd : in;
    int64_t count = 0;
    for (int64_t j = 0; j < kernel; ++j) {
      int64_t i = o * stride - padBegin + j * dilation;
      count += i >= lo && i < hi;
    }
    return count;
  }
};

/// The low and high padding of a pool's input with spatial dims `h`, `w`
/// (the ceil-mode overhang included): H and W are dims 2 and 3 of NCHW, 1
/// and 2 of NHWC (`channelsLast`).
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
spatialPads(const PoolDim &h, const PoolDim &w, bool channelsLast) {
  if (channelsLast)
    return {{0, h.padBegin, w.padBegin, 0},
            {0, h.padEnd + h.extraEnd(), w.padEnd + w.extraEnd(), 0}};
  return {{0, 0, h.padBegin, w.padBegin},
          {0, 0, h.padEnd + h.extraEnd(), w.padEnd + w.extraEnd()}};
}

/// A named pooling op over the padded `input` and its `window` into `init`
/// (of type `type`), with `strides` and `dilations`: `NhwcOp` when
/// `channelsLast`, `NchwOp` otherwise.
template <typename NchwOp, typename NhwcOp>
Value createPool(OpBuilder &b, Location loc, bool channelsLast,
                 RankedTensorType type, Value input, Value window, Value init,
                 ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("strides", b.getI64TensorAttr(strides)),
      b.getNamedAttr("dilations", b.getI64TensorAttr(dilations))};
  if (channelsLast)
    return NhwcOp::create(b, loc, TypeRange{type}, ValueRange{input, window},
                          ValueRange{init}, attrs)
        .getResult(0);
  return NchwOp::create(b, loc, TypeRange{type}, ValueRange{input, window},
                        ValueRange{init}, attrs)
      .getResult(0);
}

/// Geometry of both spatial dims (from dimension `spatial` on: 2 in NCHW,
/// 1 in NHWC), or an error when a window lies wholly in the padding (its
/// max or average would be undefined).
template <typename OpTy>
FailureOr<std::array<PoolDim, 2>> poolGeometry(OpTy op, ArrayRef<int64_t> dil,
                                               bool checkWindows,
                                               int64_t spatial = 2) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getType());
  std::array<PoolDim, 2> dims;
  for (int64_t i = 0; i < 2; ++i) {
    dims[i] = {inType.getDimSize(spatial + i),
               outType.getDimSize(spatial + i),
               op.getKernelShape()[i],
               op.getStrides()[i],
               dil.empty() ? 1 : dil[i],
               op.getPads()[i],
               op.getPads()[2 + i]};
    if (!checkWindows)
      continue;
    for (int64_t o = 0; o < dims[i].out; ++o)
      if (!dims[i].touchesInput(o))
        return op.emitOpError("has a window lying entirely in the padding ")
               << "(spatial dim " << i << ", output index " << o << ")";
  }
  return dims;
}

struct MaxPoolToLinalg : OpConversionPattern<MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType();
    bool last = op.isChannelsLast();
    auto geometry = poolGeometry(op, op.getDilations(), /*checkWindows=*/true,
                                 /*spatial=*/last ? 1 : 2);
    if (failed(geometry))
      return failure();
    auto [h, w] = *geometry;
    // linalg.pooling_nchw_max takes the signed maximum of integers; unsigned
    // ones pool with their sign bit flipped (which maps unsigned order onto
    // signed order) as signless values, and are flipped back.
    Value input = adaptor.getInput();
    Type resultElem = elem;
    if (isUnsignedInt(elem)) {
      elem = IntegerType::get(getContext(), elem.getIntOrFloatBitWidth());
      type = type.clone(elem);
      input = flipSignBit(rewriter, loc, input, elem);
    }
    Value lowest = lowestValue(rewriter, loc, elem);
    auto [low, high] = spatialPads(h, w, last);
    input = padWithConstant(rewriter, loc, input, low, high, lowest);
    Value window = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{h.kernel, w.kernel}, elem);
    Value init = createFilled(rewriter, loc, type, lowest);
    Value result =
        createPool<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>(
            rewriter, loc, last, type, input, window, init, op.getStrides(),
            op.getDilations());
    if (resultElem != elem)
      result = flipSignBit(rewriter, loc, result, resultElem);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AvgPoolToLinalg : OpConversionPattern<AvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType();
    bool includePad = op.getCountIncludePad();
    SmallVector<int64_t> dilations(op.getDilations());
    if (dilations.empty())
      dilations.assign(2, 1);
    bool last = op.isChannelsLast();
    auto geometry = poolGeometry(op, dilations, /*checkWindows=*/!includePad,
                                 /*spatial=*/last ? 1 : 2);
    if (failed(geometry))
      return failure();
    auto [h, w] = *geometry;
    // 16-bit floats sum in f32.
    Type outElem = elem;
    elem = accumulatorType(elem);
    type = type.clone(elem);
    Value zero = scalarConstant(rewriter, loc, elem, 0.0);
    auto [low, high] = spatialPads(h, w, last);
    Value input = padWithConstant(
        rewriter, loc, castTensor(rewriter, loc, adaptor.getInput(), elem), low,
        high, zero);
    Value window = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{h.kernel, w.kernel}, elem);
    Value init = createFilled(rewriter, loc, type, zero);
    Value sum = createPool<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>(
        rewriter, loc, last, type, input, window, init, op.getStrides(),
        dilations);
    // Divisors per output position; one scalar when they are all equal.
    SmallVector<double> divisors;
    bool uniform = true;
    for (int64_t oh = 0; oh < h.out; ++oh)
      for (int64_t ow = 0; ow < w.out; ++ow) {
        divisors.push_back(static_cast<double>(h.divisor(oh, includePad) *
                                               w.divisor(ow, includePad)));
        uniform &= divisors.back() == divisors.front();
      }
    if (uniform) {
      Value avg =
          divideBy(rewriter, loc, sum, static_cast<int64_t>(divisors.front()));
      rewriter.replaceOp(op, castTensor(rewriter, loc, avg, outElem));
      return success();
    }
    auto divType = RankedTensorType::get({h.out, w.out}, elem);
    SmallVector<Attribute> values;
    for (double d : divisors)
      values.push_back(rewriter.getFloatAttr(elem, d));
    Value divTensor = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(divType, values));
    MLIRContext *ctx = getContext();
    // The divisors index the output's spatial dims: 2 and 3, or 1 and 2.
    unsigned spatial = last ? 1 : 2;
    AffineMap maps[] = {rewriter.getMultiDimIdentityMap(4),
                        AffineMap::get(4, 0,
                                       {getAffineDimExpr(spatial, ctx),
                                        getAffineDimExpr(spatial + 1, ctx)},
                                       ctx)};
    Value avg = buildElementwiseWithMaps(
        rewriter, loc, type, ValueRange{sum, divTensor}, maps,
        [](OpBuilder &b, Location nloc, ValueRange args) {
          return arith::DivFOp::create(b, nloc, args[0], args[1]);
        });
    rewriter.replaceOp(op, castTensor(rewriter, loc, avg, outElem));
    return success();
  }
};

struct SoftmaxToLinalg : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    // 16-bit floats compute in f32.
    Type elem = accumulatorType(resultType.getElementType());
    auto type = resultType.clone(elem);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    Value x = castTensor(rewriter, loc, adaptor.getInput(), elem);
    // max, exp(x - max), sum, divide.
    Value max = reduceAxes(rewriter, loc, x, {axis},
                           lowestValue(rewriter, loc, elem), maxScalars);
    AffineMap maps[] = {rewriter.getMultiDimIdentityMap(rank),
                        reducedMap(getContext(), rank, {axis})};
    Value e = buildElementwiseWithMaps(
        rewriter, loc, type, ValueRange{x, max}, maps,
        [](OpBuilder &b, Location nloc, ValueRange args) {
          return math::ExpOp::create(
              b, nloc, arith::SubFOp::create(b, nloc, args[0], args[1]));
        });
    Value sum =
        reduceAxes(rewriter, loc, e, {axis},
                   scalarConstant(rewriter, loc, elem, 0.0), addScalars);
    Value result = buildElementwiseWithMaps(
        rewriter, loc, type, ValueRange{e, sum}, maps,
        [](OpBuilder &b, Location nloc, ValueRange args) {
          return arith::DivFOp::create(b, nloc, args[0], args[1]);
        });
    rewriter.replaceOp(
        op, castTensor(rewriter, loc, result, resultType.getElementType()));
    return success();
  }
};

struct LayerNormToLinalg : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    // 16-bit floats compute in f32.
    Type elem = accumulatorType(resultType.getElementType());
    auto type = resultType.clone(elem);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> axes;
    int64_t count = 1;
    for (int64_t d = axis; d < rank; ++d) {
      axes.push_back(d);
      count *= type.getDimSize(d);
    }
    MLIRContext *ctx = getContext();
    Value x = castTensor(rewriter, loc, adaptor.getInput(), elem);
    Value zero = scalarConstant(rewriter, loc, elem, 0.0);
    Value mean =
        divideBy(rewriter, loc,
                 reduceAxes(rewriter, loc, x, axes, zero, addScalars), count);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = reducedMap(ctx, rank, axes);
    SmallVector<int64_t> leading;
    for (int64_t d = 0; d < axis; ++d)
      leading.push_back(d);
    AffineMap trailing = reducedMap(ctx, rank, leading);
    Value centred = buildElementwiseWithMaps(
        rewriter, loc, type, ValueRange{x, mean}, {identity, reduced},
        [](OpBuilder &b, Location nloc, ValueRange args) {
          return arith::SubFOp::create(b, nloc, args[0], args[1]);
        });
    Value sumSq = reduceAxes(
        rewriter, loc, centred, axes, zero,
        [](OpBuilder &b, Location nloc, Value v, Value acc) -> Value {
          return arith::AddFOp::create(b, nloc, acc,
                                       arith::MulFOp::create(b, nloc, v, v));
        });
    double epsilon = op.getEpsilonAttr().getValueAsDouble();
    SmallVector<Value> inputs = {
        centred, sumSq, castTensor(rewriter, loc, adaptor.getScale(), elem)};
    SmallVector<AffineMap> maps = {identity, reduced, trailing};
    if (Value bias = adaptor.getBias()) {
      inputs.push_back(castTensor(rewriter, loc, bias, elem));
      maps.push_back(trailing);
    }
    Value result = buildElementwiseWithMaps(
        rewriter, loc, type, inputs, maps,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Type t = args[0].getType();
          Value var = arith::DivFOp::create(
              b, nloc, args[1],
              scalarConstant(b, nloc, t, static_cast<double>(count)));
          Value inv = math::RsqrtOp::create(
              b, nloc,
              arith::AddFOp::create(b, nloc, var,
                                    scalarConstant(b, nloc, t, epsilon)));
          Value v = arith::MulFOp::create(
              b, nloc, arith::MulFOp::create(b, nloc, args[0], inv), args[2]);
          if (args.size() > 3)
            v = arith::AddFOp::create(b, nloc, v, args[3]);
          return v;
        });
    rewriter.replaceOp(
        op, castTensor(rewriter, loc, result, resultType.getElementType()));
    return success();
  }
};

} // namespace

void mlir::tandem::linalg_lowering::populateReductionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReduceToGeneric<ReduceSumOp>, ReduceToGeneric<ReduceMeanOp>,
               ReduceToGeneric<ReduceMaxOp>, ReduceToGeneric<ReduceMinOp>,
               ReduceToGeneric<ReduceProdOp>, ArgReduceToGeneric<ArgMaxOp>,
               ArgReduceToGeneric<ArgMinOp>, CumSumToGeneric, TopKToGeneric,
               GlobalAvgPoolToGeneric, MaxPoolToLinalg, AvgPoolToLinalg,
               SoftmaxToLinalg, LayerNormToLinalg>(patterns.getContext());
}
