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

/// Whether `op` has static loops, at least three, the innermost short
/// enough (under 64 iterations) that LLVM may leave it scalar or barely
/// vectorised.
bool hasShortInnerLoop(linalg::GenericOp op) {
  constexpr int64_t kShortLoop = 64;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  return ranges.size() >= 3 && !llvm::any_of(ranges, ShapedType::isDynamic) &&
         ranges.back() < kShortLoop;
}

/// The number of trailing loop dims of `op` that are reductions when they
/// are all its reductions (a global average pool's (h, w)), else 0.
int64_t trailingReductions(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
  int64_t count = 0;
  while (count < int64_t(kinds.size()) &&
         kinds[kinds.size() - 1 - count] == utils::IteratorType::reduction)
    ++count;
  return count == int64_t(op.getNumReductionLoops()) ? count : 0;
}

/// The trailing loop dims [first, rank) of `op` that may become one loop:
/// all parallel in an elementwise op, or exactly its reduction dims when
/// those come last (then `first` is the first of them); first >= 1, in
/// every operand either absent or contiguous results in order, in
/// contiguous memory. Empty if fewer than two.
ReassociationIndices collapsibleTail(linalg::GenericOp op) {
  int64_t rank = op.getNumLoops();
  if (!hasShortInnerLoop(op) || !op.hasPureBufferSemantics())
    return {};
  int64_t reductions = trailingReductions(op);
  if (op.getNumParallelLoops() != rank && reductions < 2)
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // A reduction tail merges all the reduction dims or none: a tail that
  // mixed parallel and reduction dims is not one loop.
  int64_t firstTail = reductions ? rank - reductions : 1;
  int64_t lastTail = reductions ? rank - reductions : rank - 2;
  for (int64_t first = std::max<int64_t>(firstTail, 1); first <= lastTail;
       ++first) {
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

/// Rewrites in place the operands of `op` that read a size-1 dim at a
/// constant 0 (a per-channel scale as [N, C, 1, 1], indexed (n, c, 0, 0))
/// as views without those dims (memref.collapse_shape merging each into a
/// neighbour), so that every indexing map is a projected permutation, which
/// collapsing the loop dims requires. Returns false, changing nothing, if
/// some operand cannot be.
bool dropConstantUnitDims(linalg::GenericOp op, OpBuilder &b) {
  struct Change {
    OpOperand *operand;
    SmallVector<ReassociationIndices> groups;
    AffineMap map;
  };
  SmallVector<Change> changes;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.isProjectedPermutation())
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getLayout().isIdentity())
      return false;
    // Each kept (dim expr) result starts a group; constant-0 results of
    // size 1 join the group before them (the first group if none).
    SmallVector<ReassociationIndices> groups;
    SmallVector<AffineExpr> kept;
    ReassociationIndices leading;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      if (isa<AffineDimExpr>(expr)) {
        groups.push_back({int64_t(i)});
        kept.push_back(expr);
        continue;
      }
      auto c = dyn_cast<AffineConstantExpr>(expr);
      if (!c || c.getValue() != 0 || type.getDimSize(i) != 1)
        return false;
      if (groups.empty())
        leading.push_back(i);
      else
        groups.back().push_back(i);
    }
    if (groups.empty())
      return false;
    groups.front().insert(groups.front().begin(), leading.begin(),
                          leading.end());
    llvm::sort(groups.front());
    changes.push_back(
        {&operand, groups,
         AffineMap::get(map.getNumDims(), 0, kept, op.getContext())});
  }
  if (changes.empty())
    return true;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (Change &change : changes) {
    Value view = memref::CollapseShapeOp::create(
        b, op.getLoc(), change.operand->get(), change.groups);
    change.operand->set(view);
    maps[change.operand->getOperandNumber()] = change.map;
  }
  op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
  return true;
}

struct CollapseInnerLoopsPass
    : mlir::tandem::impl::TandemCollapseInnerLoopsBase<CollapseInnerLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation()->walk([&](linalg::GenericOp op) {
      if ((op.getNumParallelLoops() == op.getNumLoops() ||
           trailingReductions(op) > 1) &&
          op.hasPureBufferSemantics())
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<std::pair<linalg::GenericOp, ReassociationIndices>> work;
    for (linalg::GenericOp op : candidates) {
      if (!hasShortInnerLoop(op))
        continue;
      // Unit dims read at a constant index become views without them (the
      // op computes the same either way).
      rewriter.setInsertionPoint(op);
      if (!dropConstantUnitDims(op, rewriter))
        continue;
      ReassociationIndices tail = collapsibleTail(op);
      if (!tail.empty())
        work.push_back({op, tail});
    }
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
