//===- ReadThroughReshapes.cpp - reads through reshapes as maps -----------===//

#include "codegen/GPU/ReadThroughReshapes.h"

#include "codegen/GPU/GPUFunctions.h"
#include "codegen/GPU/ReshapeMaps.h"
#include "codegen/LinalgPayloads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// Whether `op` is in a GPU partition.
bool inGPUPartition(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return func && isGPUPartition(func);
}

/// Whether `generic` is a generic on tensors without reductions whose
/// outputs are written in order.
bool isPointwise(linalg::GenericOp generic) {
  return generic && generic.hasPureTensorSemantics() &&
         generic.getNumReductionLoops() == 0 &&
         llvm::all_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
           return generic.getMatchingIndexingMap(&init).isIdentity();
         });
}

/// Whether `op` is a reshape these patterns read through: a collapse_shape
/// or expand_shape of static shapes.
bool isStaticReshape(Operation *op) {
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(op))
    return collapse.getSrcType().hasStaticShape();
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(op))
    return expand.getResultType().hasStaticShape();
  return false;
}

/// `read`'s indexing map carried back through `reshapes` (from the one
/// that makes the value it reads to the first), then through `last` when
/// given; simplified with the reader's loop bounds.
AffineMap composedMap(OpOperand &read, ArrayRef<Operation *> reshapes,
                      AffineMap last = AffineMap()) {
  auto reader = cast<linalg::LinalgOp>(read.getOwner());
  AffineMap map = reader.getMatchingIndexingMap(&read);
  for (Operation *reshape : reshapes)
    map = sourceIndexMap(reshape).compose(map);
  if (last)
    map = last.compose(map);
  return simplifyWithBounds(map, reader.getStaticLoopRanges());
}

/// Points `read` at `source` through `map`.
void readThrough(PatternRewriter &rewriter, OpOperand &read, Value source,
                 AffineMap map) {
  auto reader = cast<linalg::GenericOp>(read.getOwner());
  SmallVector<AffineMap> maps = reader.getIndexingMapsArray();
  maps[read.getOperandNumber()] = map;
  rewriter.modifyOpInPlace(reader, [&] {
    read.set(source);
    reader.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
}

/// Whether `reader` may read an operand through a new map: pointwise with
/// static loop bounds (a reduction's bounds might come from that operand
/// alone).
bool canReadThrough(Operation *reader) {
  auto generic = dyn_cast<linalg::GenericOp>(reader);
  return isPointwise(generic) &&
         !llvm::any_of(generic.getStaticLoopRanges(), ShapedType::isDynamic);
}

/// Whether linalg's reshape propagation reads `reader` through `reshapes`
/// itself (expanding its loops, then fusing with plain maps): one reshape,
/// and every map of the reader a projected permutation (no broadcast's
/// zeros).
bool upstreamReadsThrough(Operation *reader, ArrayRef<Operation *> reshapes) {
  return reshapes.size() == 1 &&
         llvm::all_of(
             cast<linalg::GenericOp>(reader).getIndexingMapsArray(),
             [](AffineMap map) { return map.isProjectedPermutation(); });
}

/// A pattern on generics that asks the caller's fusion policy.
struct ControlledPattern : OpRewritePattern<linalg::GenericOp> {
  ControlledPattern(MLIRContext *context, ReadThroughControl control)
      : OpRewritePattern(context), control(std::move(control)) {}

  ReadThroughControl control;
};

//===----------------------------------------------------------------------===//
// Copies read through
//===----------------------------------------------------------------------===//

/// One read of a copy's result: the generic input `operand`, and the
/// reshapes from the value it reads back to the copy's result.
struct CopyRead {
  OpOperand *operand;
  SmallVector<Operation *> reshapes;
};

/// Collects in `reads` the reads of `value` (the copy's result, or a
/// reshape of it reached through `reshapes`) by generic inputs; false when
/// a use is anything else.
bool collectReads(Value value, SmallVector<Operation *> &reshapes,
                  SmallVector<CopyRead> &reads) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isStaticReshape(user)) {
      reshapes.insert(reshapes.begin(), user);
      bool collected = collectReads(user->getResult(0), reshapes, reads);
      reshapes.erase(reshapes.begin());
      if (!collected)
        return false;
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || !generic.isDpsInput(&use))
      return false;
    reads.push_back({&use, reshapes});
  }
  return true;
}

/// A copy (a transpose, a broadcast: a generic yielding its input as it
/// is) whose every read goes through the reshapes or reads it directly:
/// the readers read the copy's input, and the copy goes away.
struct ReadCopySource : ControlledPattern {
  using ControlledPattern::ControlledPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp copy,
                                PatternRewriter &rewriter) const override {
    if (!isPointwise(copy) || copy.getNumDpsInputs() != 1 ||
        copy.getNumDpsInits() != 1 ||
        copy.getBody()->getOperations().size() != 1 ||
        !yieldsFirstArgument(copy) || !inGPUPartition(copy))
      return failure();
    SmallVector<Operation *> reshapes;
    SmallVector<CopyRead> reads;
    // Directly read copies are linalg's elementwise fusion's, and so is a
    // single reader that its reshape propagation reads through.
    if (!collectReads(copy->getResult(0), reshapes, reads) || reads.empty() ||
        llvm::all_of(
            reads,
            [](const CopyRead &read) { return read.reshapes.empty(); }) ||
        (reads.size() == 1 &&
         upstreamReadsThrough(reads[0].operand->getOwner(), reads[0].reshapes)))
      return failure();
    for (const CopyRead &read : reads)
      if (!canReadThrough(read.operand->getOwner()) ||
          !control(copy, read.operand->getOwner(), /*shared=*/false))
        return failure();
    AffineMap copyRead =
        copy.getMatchingIndexingMap(copy.getDpsInputOperand(0));
    SmallVector<AffineMap> maps;
    for (const CopyRead &read : reads)
      maps.push_back(composedMap(*read.operand, read.reshapes, copyRead));
    Value source = copy.getDpsInputOperand(0)->get();
    for (auto [read, map] : llvm::zip(reads, maps))
      readThrough(rewriter, *read.operand, source, map);
    // The reshapes (each once its users are gone) and the copy are dead.
    llvm::SetVector<Operation *> dead;
    for (const CopyRead &read : reads)
      dead.insert(read.reshapes.begin(), read.reshapes.end());
    while (!dead.empty()) {
      auto unused = llvm::find_if(
          dead, [](Operation *reshape) { return reshape->use_empty(); });
      assert(unused != dead.end() && "a reshape of the copy is still used");
      Operation *reshape = *unused;
      dead.remove(reshape);
      rewriter.eraseOp(reshape);
    }
    rewriter.eraseOp(copy);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Producers read through
//===----------------------------------------------------------------------===//

/// Collects in `early` the reshapes of `value` (transitively) that come
/// before `reader` in its block; false when a user of `value` or of such a
/// reshape, `reader` aside, is neither a static reshape nor after `reader`
/// in its block.
bool usersAfter(Value value, Operation *reader,
                SmallVectorImpl<Operation *> &early) {
  for (Operation *user : value.getUsers()) {
    if (user == reader)
      continue;
    if (user->getBlock() != reader->getBlock())
      return false;
    if (reader->isBeforeInBlock(user))
      continue;
    if (!isStaticReshape(user) ||
        !usersAfter(user->getResult(0), reader, early))
      return false;
    early.push_back(user);
  }
  return true;
}

/// A pointwise reader of a reshape chain of a pointwise generic's single
/// result reads that result itself, so that linalg's elementwise fusion
/// fuses the producer into it. When the result has other users, all after
/// the reader once the reshapes of it before the reader move after it, the
/// control decides with `shared`.
/// Reshapes that upstream's propagation handles (one reshape, used once,
/// that expands the reader's loops with plain maps) are left to it.
struct ReadProducerThroughReshapes : ControlledPattern {
  using ControlledPattern::ControlledPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp reader,
                                PatternRewriter &rewriter) const override {
    if (!canReadThrough(reader) || !inGPUPartition(reader))
      return failure();
    for (OpOperand *input : reader.getDpsInputOperands()) {
      SmallVector<Operation *> reshapes;
      Value value = input->get();
      bool sole = true;
      while (isStaticReshape(value.getDefiningOp())) {
        sole &= value.hasOneUse();
        reshapes.push_back(value.getDefiningOp());
        value = value.getDefiningOp()->getOperand(0);
      }
      sole &= value.hasOneUse();
      auto producer = value.getDefiningOp<linalg::GenericOp>();
      if (reshapes.empty() ||
          (sole && upstreamReadsThrough(reader, reshapes)) ||
          !isPointwise(producer) || producer->getNumResults() != 1 ||
          !control(producer, reader, /*shared=*/!sole))
        continue;
      // The other users of the result, through its reshapes, must come
      // after the reader once those reshapes do.
      SmallVector<Operation *> early;
      if (!sole && !usersAfter(value, reader, early))
        continue;
      readThrough(rewriter, *input, value, composedMap(*input, reshapes));
      for (Operation *reshape : reshapes)
        if (reshape->use_empty())
          rewriter.eraseOp(reshape);
      if (sole)
        return success();
      // The reshapes still used move after the reader, in block order.
      early.clear();
      (void)usersAfter(value, reader, early);
      llvm::sort(early, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      Operation *after = reader;
      for (Operation *reshape : early) {
        rewriter.moveOpAfter(reshape, after);
        after = reshape;
      }
      return success();
    }
    return failure();
  }
};

} // namespace

void mlir::tandem::populateReadThroughReshapePatterns(
    RewritePatternSet &patterns, ReadThroughControl control) {
  patterns.add<ReadCopySource>(patterns.getContext(), control);
  patterns.add<ReadProducerThroughReshapes>(patterns.getContext(),
                                            std::move(control));
}
