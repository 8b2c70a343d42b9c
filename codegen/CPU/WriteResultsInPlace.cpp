//===- WriteResultsInPlace.cpp - reshaped results written into outputs ----===//
//
// buffer-results-to-out-params writes a function's result into its output
// parameter in place when the result is an allocation (hoisting it), but a
// result that is a reshape of one (a Flatten, a Squeeze, a head merge's
// Reshape last in a model) is copied into the output: a copy kernel in a
// GPU partition, a memcpy on the CPU. Such an allocation becomes a view of
// the output instead, so its writers write the output directly.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMWRITERESULTSINPLACE
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The static, identity-layout allocation `value` reshapes (through
/// expand_shapes and collapse_shapes, innermost last in `chain`), or null.
memref::AllocOp reshapedAllocation(Value value,
                                   SmallVectorImpl<Operation *> &chain) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      break;
    chain.push_back(def);
    value = def->getOperand(0);
  }
  auto alloc = value.getDefiningOp<memref::AllocOp>();
  if (!alloc || chain.empty() || !alloc.getType().hasStaticShape() ||
      !alloc.getType().getLayout().isIdentity() ||
      !alloc.getDynamicSizes().empty() || !alloc.getSymbolOperands().empty())
    return {};
  return alloc;
}

/// Rewrites `copy` (of a reshaped allocation into an output parameter used
/// by nothing else) so that the allocation is a view of the parameter.
/// Returns whether it did.
bool writeInPlace(memref::CopyOp copy, IRRewriter &rewriter) {
  auto output = dyn_cast<BlockArgument>(copy.getTarget());
  auto outputType = dyn_cast<MemRefType>(copy.getTarget().getType());
  if (!output || !isa<func::FuncOp>(output.getOwner()->getParentOp()) ||
      !outputType || !outputType.getLayout().isIdentity() ||
      !output.hasOneUse())
    return false;
  SmallVector<Operation *> chain;
  memref::AllocOp alloc = reshapedAllocation(copy.getSource(), chain);
  if (!alloc || alloc->getBlock() != copy->getBlock())
    return false;
  // The inverse reshapes, from the output back to the allocation's shape.
  rewriter.setInsertionPoint(alloc);
  Value view = output;
  for (Operation *op : chain) {
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
      view = memref::CollapseShapeOp::create(rewriter, op->getLoc(), view,
                                             expand.getReassociationIndices());
      continue;
    }
    auto collapse = cast<memref::CollapseShapeOp>(op);
    view = memref::ExpandShapeOp::create(
        rewriter, op->getLoc(), collapse.getSrcType().getShape(), view,
        collapse.getReassociationIndices());
  }
  if (view.getType() != alloc.getType()) {
    // A layout the allocation does not have: undo.
    for (Value v = view; v != output;) {
      Operation *def = v.getDefiningOp();
      v = def->getOperand(0);
      rewriter.eraseOp(def);
    }
    return false;
  }
  rewriter.eraseOp(copy);
  rewriter.replaceOp(alloc, view);
  for (Operation *op : chain)
    if (op->use_empty())
      rewriter.eraseOp(op);
  return true;
}

struct WriteResultsInPlacePass
    : tandem::impl::TandemWriteResultsInPlaceBase<WriteResultsInPlacePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      writeInPlace(copy, rewriter);
  }
};

} // namespace
