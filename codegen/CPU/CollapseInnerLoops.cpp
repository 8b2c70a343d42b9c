//===- CollapseInnerLoops.cpp - elementwise loops over whole planes -------===//
//
// An elementwise linalg.generic on an NCHW buffer becomes, once lowered, a
// loop nest whose innermost loop runs over one row: 14 iterations for a
// 14x14 plane, 7 for a 7x7 one. LLVM's loop vectorizer leaves loops of fewer
// than 16 known iterations scalar, so the activations, residual adds and
// squeeze-excitation scales of MobileNet-style models ran one float at a
// time. When every operand holds the trailing loop dimensions contiguously
// (or does not depend on them, as a per-channel scale), those dimensions
// become one: the innermost loop then runs over the whole plane (196, 49
// iterations) and vectorises. The outer dimensions, which the thread pool
// splits, are kept.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMCOLLAPSEINNERLOOPS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {

/// Whether `type`'s dims [first, last] are contiguous in memory (each
/// stride the next one's times its size), statically.
bool contiguousDims(MemRefType type, int64_t first, int64_t last) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)))
    return false;
  for (int64_t d = first; d < last; ++d)
    if (ShapedType::isDynamic(strides[d]) ||
        ShapedType::isDynamic(strides[d + 1]) ||
        strides[d] != strides[d + 1] * type.getDimSize(d + 1))
      return false;
  return true;
}

/// The trailing loop dims [first, rank) of `op` that may become one loop:
/// all parallel, first >= 1, in every operand either absent or contiguous
/// results in order, in contiguous memory. Empty if fewer than two.
ReassociationIndices collapsibleTail(linalg::GenericOp op) {
  int64_t rank = op.getNumLoops();
  if (rank < 3 || op.getNumParallelLoops() != rank ||
      !op.hasPureBufferSemantics())
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return {};
  // Only short innermost loops need it.
  constexpr int64_t kShortLoop = 64;
  if (ranges.back() >= kShortLoop)
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (int64_t first = 1; first + 1 < rank; ++first) {
    ReassociationIndices tail =
        llvm::to_vector(llvm::seq<int64_t>(first, rank));
    if (!linalg::areDimSequencesPreserved(maps, {tail}))
      continue;
    bool ok = true;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type) {
        ok = false;
        break;
      }
      AffineMap map = op.getMatchingIndexingMap(&operand);
      // The operand's results that are tail dims: contiguous in order
      // (areDimSequencesPreserved), so [lo, hi] in its dims.
      int64_t lo = -1, hi = -1;
      for (auto [i, expr] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim) {
          ok = false;
          break;
        }
        if (dim.getPosition() >= unsigned(first)) {
          if (lo < 0)
            lo = i;
          hi = i;
        }
      }
      if (!ok)
        break;
      if (lo >= 0 && hi > lo && !contiguousDims(type, lo, hi)) {
        ok = false;
        break;
      }
    }
    if (ok)
      return tail;
  }
  return {};
}

struct CollapseInnerLoopsPass
    : mlir::tandem::impl::TandemCollapseInnerLoopsBase<CollapseInnerLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, ReassociationIndices>> work;
    getOperation()->walk([&](linalg::GenericOp op) {
      ReassociationIndices tail = collapsibleTail(op);
      if (!tail.empty())
        work.push_back({op, tail});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, tail] : work) {
      SmallVector<ReassociationIndices> folded = {tail};
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, folded, rewriter);
      if (failed(collapsed))
        continue;
      // Buffer semantics: no results to replace.
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
