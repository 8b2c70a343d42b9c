//===- InlineGatherReads.cpp - pointwise producers computed where read ----===//

#include "codegen/GPU/InlineGatherReads.h"

#include "codegen/GPU/GPUFunctions.h"
#include "codegen/GPU/ReshapeMaps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The ops of `op`'s body, nested ones included.
size_t bodyOps(Operation *op) {
  size_t count = 0;
  op->walk([&](Operation *) { ++count; });
  return count - 1;
}

/// A read of one element of a producer's result, through views of it: the
/// views from the read tensor back to the producer's result (extract_slices
/// of unit strides and the same rank, collapse_shapes and expand_shapes of
/// static shapes).
struct ProducerRead {
  linalg::LinalgOp producer;
  SmallVector<Operation *> views;
};

/// The pointwise producer `value` is read from (through the views
/// ProducerRead allows), or nullopt.
std::optional<ProducerRead> producerOf(Value value) {
  ProducerRead read;
  while (Operation *def = value.getDefiningOp()) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
      if (slice.getSourceType().getRank() != slice.getType().getRank() ||
          !llvm::all_of(slice.getStaticStrides(),
                        [](int64_t s) { return s == 1; }) ||
          llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic))
        return std::nullopt;
      value = slice.getSource();
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
      if (!collapse.getSrcType().hasStaticShape())
        return std::nullopt;
      value = collapse.getSrc();
    } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
      if (!expand.getResultType().hasStaticShape())
        return std::nullopt;
      value = expand.getSrc();
    } else {
      break;
    }
    read.views.push_back(def);
  }
  auto producer = value.getDefiningOp<linalg::LinalgOp>();
  if (!producer || !producer.hasPureTensorSemantics() ||
      producer->getNumResults() != 1 || producer.getNumDpsInits() != 1 ||
      producer.getNumLoops() != producer.getNumParallelLoops() ||
      !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
           .isIdentity() ||
      producer->getNumRegions() != 1)
    return std::nullopt;
  read.producer = producer;
  return read;
}

/// The indices in `view`'s source of the element at `indices` in its
/// result (a view ProducerRead allows).
SmallVector<Value> sourceIndices(OpBuilder &b, Location loc, Operation *view,
                                 ArrayRef<Value> indices) {
  SmallVector<Value> source;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(view)) {
    for (auto [index, offset] : llvm::zip(indices, slice.getStaticOffsets()))
      source.push_back(offset ? arith::AddIOp::create(
                                    b, loc, index,
                                    arith::ConstantIndexOp::create(b, loc,
                                                                   offset))
                                    .getResult()
                              : index);
    return source;
  }
  AffineMap map = sourceIndexMap(view);
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    source.push_back(
        affine::AffineApplyOp::create(b, loc, map.getSubMap({i}), indices));
  return source;
}

/// Whether every use of `value` is, through views ProducerRead allows, a
/// tensor.extract inside the payload of a linalg op other than `producer`.
bool onlyGatherReads(Value value, Operation *producer) {
  for (Operation *user : value.getUsers()) {
    if (isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
            tensor::ExpandShapeOp>(user)) {
      if (!onlyGatherReads(user->getResult(0), producer))
        return false;
      continue;
    }
    auto read = dyn_cast<tensor::ExtractOp>(user);
    auto reader = read ? read->getParentOfType<linalg::LinalgOp>()
                       : linalg::LinalgOp();
    if (!reader || reader == producer)
      return false;
  }
  return true;
}

struct InlineGatherRead : OpRewritePattern<tensor::ExtractOp> {
  InlineGatherRead(MLIRContext *context, size_t maxBodyOps)
      : OpRewritePattern(context), maxBodyOps(maxBodyOps) {}

  LogicalResult matchAndRewrite(tensor::ExtractOp read,
                                PatternRewriter &rewriter) const override {
    auto reader = read->getParentOfType<linalg::LinalgOp>();
    auto func = read->getParentOfType<func::FuncOp>();
    if (!reader || !func || !isGPUPartition(func))
      return failure();
    std::optional<ProducerRead> source = producerOf(read.getTensor());
    if (!source)
      return failure();
    linalg::LinalgOp producer = source->producer;
    if (producer->getBlock() != reader->getBlock() ||
        !onlyGatherReads(producer->getResult(0), producer) ||
        bodyOps(producer) + bodyOps(reader) > maxBodyOps)
      return failure();
    Location loc = read.getLoc();
    // The element's indices in the producer's loops (its output map is the
    // identity).
    SmallVector<Value> indices(read.getIndices());
    for (Operation *view : source->views)
      indices = sourceIndices(rewriter, loc, view, indices);
    // Each input's element through its map; the output's initial value
    // only when the payload reads it.
    Block *body = producer.getBlock();
    IRMapping mapping;
    for (OpOperand &operand : producer->getOpOperands()) {
      BlockArgument arg = producer.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      Value value = operand.get();
      if (!isa<RankedTensorType>(value.getType())) {
        mapping.map(arg, value);
        continue;
      }
      AffineMap map = producer.getMatchingIndexingMap(&operand);
      SmallVector<Value> at;
      for (AffineExpr expr : map.getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
          at.push_back(indices[dim.getPosition()]);
          continue;
        }
        at.push_back(affine::AffineApplyOp::create(
            rewriter, loc, AffineMap::get(map.getNumDims(), 0, expr),
            indices));
      }
      mapping.map(arg, tensor::ExtractOp::create(rewriter, loc, value, at));
    }
    // The payload, its loop indices replaced by the element's.
    SmallVector<Operation *> cloned;
    for (Operation &op : body->without_terminator())
      cloned.push_back(rewriter.clone(op, mapping));
    for (Operation *op : cloned)
      op->walk([&](linalg::IndexOp index) {
        rewriter.replaceOp(index, indices[index.getDim()]);
      });
    Value element = mapping.lookupOrDefault(
        body->getTerminator()->getOperand(0));
    rewriter.replaceOp(read, element);
    return success();
  }

  size_t maxBodyOps;
};

} // namespace

void mlir::tandem::populateInlineGatherReadPatterns(RewritePatternSet &patterns,
                                                     size_t maxBodyOps) {
  patterns.add<InlineGatherRead>(patterns.getContext(), maxBodyOps);
}
