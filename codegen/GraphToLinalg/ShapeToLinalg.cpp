//===- ShapeToLinalg.cpp - shape and data-movement tandem ops to linalg ---===//
//
// constant (arith.constant, dense_resource kept), reshape (collapse/expand
// shape), transpose (linalg.transpose), concat (insert_slice chain), slice
// (strided extract_slice), pad (tensor.pad, or a gathering linalg.generic for
// reflect/edge), gather and broadcast_to (linalg.generic).
//
//===----------------------------------------------------------------------===//

#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::linalg_lowering;

namespace {

struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // ElementsAttr covers dense and dense_resource alike: the attribute is
    // moved as is, so weights stay in their resource blobs.
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return op.emitOpError("has a value that is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       reshapeTensor(rewriter, op.getLoc(), adaptor.getInput(),
                                     cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct TransposeToLinalg : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value init = createEmpty(rewriter, op.getLoc(), type);
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPerm());
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

struct ConcatToInsertSlices : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    Value result = createEmpty(rewriter, loc, type);
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes,
          strides(type.getRank(), rewriter.getIndexAttr(1));
      for (int64_t size : inputType.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset += inputType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceToExtractSlice : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      offsets.push_back(rewriter.getIndexAttr(op.getStarts()[d]));
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
      strides.push_back(rewriter.getIndexAttr(op.getSteps()[d]));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getInput(), offsets, sizes, strides);
    return success();
  }
};

struct PadToTensor : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    ArrayRef<int64_t> low = op.getPadsLow(), high = op.getPadsHigh();
    if (op.getMode() == PadMode::Constant) {
      Value padValue = scalarConstant(rewriter, loc, type.getElementType(),
                                      op.getValueAttr().getValueAsDouble());
      SmallVector<OpFoldResult> lowRes, highRes;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        lowRes.push_back(rewriter.getIndexAttr(low[d]));
        highRes.push_back(rewriter.getIndexAttr(high[d]));
      }
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, adaptor.getInput(),
                                                 lowRes, highRes, padValue);
      return success();
    }
    // reflect / edge: every output element reads one input element, whose
    // index is mirrored (reflect) or clamped (edge) into range.
    bool reflect = op.getMode() == PadMode::Reflect;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if ((low[d] || high[d]) && inputType.getDimSize(d) == 0)
        return op.emitOpError("cannot pad empty dimension ")
               << d << " in " << stringifyPadMode(op.getMode()) << " mode";
    Value input = adaptor.getInput();
    Value init = createEmpty(rewriter, loc, type);
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(type.getRank())},
        iterators, [&](OpBuilder &b, Location nloc, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < type.getRank(); ++d) {
            Value i = linalg::IndexOp::create(b, nloc, d);
            if (low[d] == 0 && high[d] == 0) {
              indices.push_back(i);
              continue;
            }
            auto cst = [&](int64_t v) -> Value {
              return arith::ConstantIndexOp::create(b, nloc, v);
            };
            int64_t last = inputType.getDimSize(d) - 1;
            i = arith::SubIOp::create(b, nloc, i, cst(low[d]));
            Value zero = cst(0), lastV = cst(last);
            if (reflect) {
              Value neg = arith::CmpIOp::create(
                  b, nloc, arith::CmpIPredicate::slt, i, zero);
              i = arith::SelectOp::create(
                  b, nloc, neg, arith::SubIOp::create(b, nloc, zero, i), i);
              Value over = arith::CmpIOp::create(
                  b, nloc, arith::CmpIPredicate::sgt, i, lastV);
              i = arith::SelectOp::create(
                  b, nloc, over,
                  arith::SubIOp::create(b, nloc, cst(2 * last), i), i);
            } else {
              i = arith::MaxSIOp::create(b, nloc, i, zero);
              i = arith::MinSIOp::create(b, nloc, i, lastV);
            }
            indices.push_back(i);
          }
          Value v = tensor::ExtractOp::create(b, nloc, input, indices);
          linalg::YieldOp::create(b, nloc, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct GatherToGeneric : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += dataType.getRank();
    int64_t axisSize = dataType.getDimSize(axis);
    if (axisSize == 0)
      return op.emitOpError("gathers from empty axis ") << axis;
    int64_t q = indicesType.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t j = 0; j < q; ++j)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + j));
    AffineMap maps[] = {
        AffineMap::get(type.getRank(), 0, indexExprs, getContext())};
    Value result = buildElementwiseWithMaps(
        rewriter, loc, type, indices, maps,
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          // Negative indices count from the end of `axis`.
          Value idx =
              arith::IndexCastOp::create(b, nloc, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, nloc, 0);
          Value isNeg = arith::CmpIOp::create(
              b, nloc, arith::CmpIPredicate::slt, idx, zero);
          Value wrapped = arith::AddIOp::create(
              b, nloc, idx, arith::ConstantIndexOp::create(b, nloc, axisSize));
          idx = arith::SelectOp::create(b, nloc, isNeg, wrapped, idx);
          SmallVector<Value> dataIndices;
          for (int64_t j = 0; j < axis; ++j)
            dataIndices.push_back(linalg::IndexOp::create(b, nloc, j));
          dataIndices.push_back(idx);
          for (int64_t j = axis + 1; j < dataType.getRank(); ++j)
            dataIndices.push_back(linalg::IndexOp::create(b, nloc, j - 1 + q));
          return tensor::ExtractOp::create(b, nloc, data, dataIndices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastToGeneric : OpConversionPattern<BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastToOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        adaptor.getInput(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tandem::linalg_lowering::populateShapeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConstantToArith, ReshapeToTensor, TransposeToLinalg,
               ConcatToInsertSlices, SliceToExtractSlice, PadToTensor,
               GatherToGeneric, BroadcastToGeneric>(patterns.getContext());
}
