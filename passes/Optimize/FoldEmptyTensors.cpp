//===- FoldEmptyTensors.cpp - tensors with a zero dim become constants ----===//
//
// ONNX allows tensors with a zero-size dim, and exporters make them (an empty
// slice, a zero-length concat operand). No kernel should ever run on one:
//
//   * an op whose results are all empty becomes empty constants;
//   * an op with an empty operand but a non-empty result computes a value
//     that does not depend on the data: a matmul over K = 0 is 0, a sum 0, a
//     mean NaN, a max -inf (the lowest integer for integers), a min +inf
//     (the highest integer), a product 1, and a concat drops its empty
//     operands;
//   * any other op with an empty operand and a non-empty result is an error
//     at its node, never an internal failure later.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFOLDEMPTYTENSORS
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

/// True for a statically shaped tensor type with no element.
static bool isEmptyTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() == 0;
}

/// Ops that this pass leaves alone: constants are already folded, and
/// regions and transfers are formed later.
static bool isFoldable(Operation *op) {
  return isa<TandemDialect>(op->getDialect()) &&
         !isa<ConstantOp, FusionOp, YieldOp, TransferOp>(op) &&
         op->getNumResults() > 0 && isMemoryEffectFree(op);
}

/// A tandem.constant of `type` with every element `value`.
static Value splat(PatternRewriter &rewriter, Location loc, Type type,
                   Attribute value) {
  auto tensor = cast<RankedTensorType>(type);
  return ConstantOp::create(
      rewriter, loc, cast<ElementsAttr>(DenseElementsAttr::get(tensor, value)));
}

/// The value a reduction over no element gives, of `elementType`; null when
/// the reduction has none.
static Attribute emptyReductionValue(Operation *op, Type elementType) {
  auto floatType = dyn_cast<FloatType>(elementType);
  if (isa<ReduceSumOp>(op))
    return floatType ? Attribute(FloatAttr::get(floatType, 0.0))
                     : Attribute(IntegerAttr::get(elementType, 0));
  if (isa<ReduceMeanOp>(op) && floatType)
    return FloatAttr::get(floatType,
                          APFloat::getQNaN(floatType.getFloatSemantics()));
  if (isa<ReduceProdOp>(op))
    return floatType ? Attribute(FloatAttr::get(floatType, 1.0))
                     : Attribute(IntegerAttr::get(elementType, 1));
  if (isa<ReduceMinOp>(op)) {
    if (floatType)
      return FloatAttr::get(floatType,
                            APFloat::getInf(floatType.getFloatSemantics(),
                                            /*Negative=*/false));
    unsigned width = elementType.getIntOrFloatBitWidth();
    return IntegerAttr::get(elementType, width == 1
                                             ? APInt(1, 1)
                                             : APInt::getSignedMaxValue(width));
  }
  if (isa<ReduceMaxOp>(op)) {
    if (floatType)
      return FloatAttr::get(floatType,
                            APFloat::getInf(floatType.getFloatSemantics(),
                                            /*Negative=*/true));
    unsigned width = elementType.getIntOrFloatBitWidth();
    return IntegerAttr::get(elementType, width == 1
                                             ? APInt(1, 0)
                                             : APInt::getSignedMinValue(width));
  }
  return {};
}

namespace {

struct FoldEmpty : RewritePattern {
  FoldEmpty(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isFoldable(op))
      return failure();
    Location loc = op->getLoc();
    // Every result empty: constants, whatever the operands.
    if (llvm::all_of(op->getResultTypes(), isEmptyTensor)) {
      SmallVector<Value> results;
      for (Type type : op->getResultTypes())
        results.push_back(ConstantOp::create(
            rewriter, loc,
            cast<ElementsAttr>(DenseElementsAttr::get(
                cast<RankedTensorType>(type), ArrayRef<Attribute>{}))));
      rewriter.replaceOp(op, results);
      return success();
    }
    if (!llvm::any_of(op->getOperandTypes(), isEmptyTensor))
      return failure();

    // A concat without its empty pieces.
    if (auto concat = dyn_cast<ConcatOp>(op)) {
      SmallVector<Value> pieces;
      for (Value input : concat.getInputs())
        if (!isEmptyTensor(input.getType()))
          pieces.push_back(input);
      if (pieces.size() == 1 && pieces.front().getType() == concat.getType()) {
        rewriter.replaceOp(op, pieces.front());
        return success();
      }
      rewriter.replaceOpWithNewOp<ConcatOp>(op, concat.getType(), pieces,
                                            concat.getAxisAttr());
      return success();
    }
    // Data-independent results.
    Type type = op->getResult(0).getType();
    Type elementType = cast<RankedTensorType>(type).getElementType();
    Attribute value;
    if (isa<MatmulOp>(op))
      value = rewriter.getZeroAttr(elementType);
    else if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp,
                 ReduceProdOp>(op))
      value = emptyReductionValue(op, elementType);
    if (!value || op->getNumResults() != 1)
      return failure();
    rewriter.replaceOp(op, splat(rewriter, loc, type, value));
    return success();
  }
};

struct FoldEmptyTensorsPass
    : mlir::tandem::impl::TandemFoldEmptyTensorsBase<FoldEmptyTensorsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldEmpty>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What is left computes on no data but promises some.
    WalkResult result = getOperation()->walk([](Operation *op) {
      if (!isFoldable(op) ||
          llvm::all_of(op->getResultTypes(), isEmptyTensor) ||
          !llvm::any_of(op->getOperandTypes(), isEmptyTensor))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' has an empty operand (a zero-size dim) but a "
                         "non-empty result, which is not supported";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
