//===- ReductionToLinalg.cpp - reductions, pools and norms to linalg ------===//
//
// reduce_sum/mean/max (a reducing linalg.generic, then expand_shape for
// keepdims), global_avg_pool, max/avg pooling (tensor.pad plus
// linalg.pooling_nchw_max/sum, with per-position divisors for avg pooling),
// numerically stable softmax and layer_norm.
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
    constexpr bool isMax = std::is_same_v<OpTy, ReduceMaxOp>;
    Value init = isMax ? lowestValue(rewriter, loc, elem)
                       : scalarConstant(rewriter, loc, elem, 0.0);
    Value result = reduceAxes(rewriter, loc, input, axes, init,
                              isMax ? maxScalars : addScalars);
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
  /// The avg-pool divisor of output `o` (PyTorch/ONNX semantics: the
  /// window is clipped to the padded extent, and to the input unless
  /// padding counts).
  int64_t divisor(int64_t o, bool countIncludePad) const {
    int64_t start = o * stride - padBegin;
    int64_t end = std::min(start + kernel, in + padEnd);
    if (countIncludePad)
      return end - start;
    return std::min(end, in) - std::max<int64_t>(start, 0);
  }
};

/// Geometry of both spatial dims, or an error when a window lies wholly in
/// the padding (its max or average would be undefined).
template <typename OpTy>
FailureOr<std::array<PoolDim, 2>> poolGeometry(OpTy op, ArrayRef<int64_t> dil,
                                               bool checkWindows) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getType());
  std::array<PoolDim, 2> dims;
  for (int64_t i = 0; i < 2; ++i) {
    dims[i] = {inType.getDimSize(2 + i), outType.getDimSize(2 + i),
               op.getKernelShape()[i],   op.getStrides()[i],
               dil.empty() ? 1 : dil[i], op.getPads()[i],
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
    auto geometry = poolGeometry(op, op.getDilations(), /*checkWindows=*/true);
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
    input = padWithConstant(
        rewriter, loc, input, {0, 0, h.padBegin, w.padBegin},
        {0, 0, h.padEnd + h.extraEnd(), w.padEnd + w.extraEnd()}, lowest);
    Value window = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{h.kernel, w.kernel}, elem);
    Value init = createFilled(rewriter, loc, type, lowest);
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("strides",
                              rewriter.getI64TensorAttr(op.getStrides())),
        rewriter.getNamedAttr("dilations",
                              rewriter.getI64TensorAttr(op.getDilations()))};
    Value result = linalg::PoolingNchwMaxOp::create(
                       rewriter, loc, TypeRange{type},
                       ValueRange{input, window}, ValueRange{init}, attrs)
                       .getResult(0);
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
    auto geometry = poolGeometry(op, {}, /*checkWindows=*/!includePad);
    if (failed(geometry))
      return failure();
    auto [h, w] = *geometry;
    // 16-bit floats sum in f32.
    Type outElem = elem;
    elem = accumulatorType(elem);
    type = type.clone(elem);
    Value zero = scalarConstant(rewriter, loc, elem, 0.0);
    Value input = padWithConstant(
        rewriter, loc, castTensor(rewriter, loc, adaptor.getInput(), elem),
        {0, 0, h.padBegin, w.padBegin},
        {0, 0, h.padEnd + h.extraEnd(), w.padEnd + w.extraEnd()}, zero);
    Value window = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{h.kernel, w.kernel}, elem);
    Value init = createFilled(rewriter, loc, type, zero);
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("strides",
                              rewriter.getI64TensorAttr(op.getStrides())),
        rewriter.getNamedAttr("dilations", rewriter.getI64TensorAttr({1, 1}))};
    Value sum = linalg::PoolingNchwSumOp::create(rewriter, loc, TypeRange{type},
                                                 ValueRange{input, window},
                                                 ValueRange{init}, attrs)
                    .getResult(0);
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
    AffineMap maps[] = {
        rewriter.getMultiDimIdentityMap(4),
        AffineMap::get(
            4, 0, {getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)}, ctx)};
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
               ReduceToGeneric<ReduceMaxOp>, GlobalAvgPoolToGeneric,
               MaxPoolToLinalg, AvgPoolToLinalg, SoftmaxToLinalg,
               LayerNormToLinalg>(patterns.getContext());
}
