//===- NarrowPadFills.cpp - fill only the border of padded buffers --------===//
//
// A bufferised tensor.pad fills the whole padded buffer, then copies the
// source over its interior. When nothing touches the buffer between the fill
// and the copy, only the border needs the pad value: the fill becomes one
// fill per border slab (for each dim d: the part inside the interior along
// dims < d, outside it along d, and whole along dims > d).
//
//===----------------------------------------------------------------------===//

#include "codegen/LinalgPayloads.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMNARROWPADFILLS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// True for a static, unit-stride subview of `buffer` covering a box of
/// it (same rank).
bool isStaticBox(memref::SubViewOp sub, Value buffer) {
  return sub.getSource() == buffer && sub.hasUnitStride() &&
         !ShapedType::isDynamicShape(sub.getStaticOffsets()) &&
         !ShapedType::isDynamicShape(sub.getStaticSizes()) &&
         int64_t(sub.getStaticSizes().size()) ==
             cast<MemRefType>(buffer.getType()).getRank();
}

/// The copy that overwrites a static box of `buffer` after `fill` in the
/// same block, through a subview used by that copy only, with no other
/// access to `buffer` in between; or null. `interior` is the subview.
memref::CopyOp interiorCopy(Operation *fill, Value buffer,
                            memref::SubViewOp &interior) {
  for (Operation *op = fill->getNextNode(); op; op = op->getNextNode()) {
    if (auto sub = dyn_cast<memref::SubViewOp>(op)) {
      if (sub.getSource() != buffer)
        continue; // views of other buffers are harmless
      auto copy = sub->hasOneUse()
                      ? dyn_cast<memref::CopyOp>(*sub->user_begin())
                      : nullptr;
      if (!copy || copy.getTarget() != sub.getResult() ||
          !isStaticBox(sub, buffer) || copy->getBlock() != fill->getBlock())
        return {};
      continue; // checked again when its copy is reached
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      auto sub = copy.getTarget().getDefiningOp<memref::SubViewOp>();
      if (sub && sub.getSource() == buffer) {
        interior = sub;
        return copy;
      }
    }
    // Anything else that uses the buffer, or may hide a use in a region,
    // ends the search.
    if (op->getNumRegions() > 0 ||
        llvm::is_contained(op->getOperands(), buffer))
      return {};
  }
  return {};
}

struct NarrowPadFillsPass
    : tandem::impl::TandemNarrowPadFillsBase<NarrowPadFillsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> fills;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::FillOp, linalg::MapOp>(op))
        fills.push_back(op);
    });
    for (Operation *fill : fills)
      narrow(fill);
  }

  void narrow(Operation *fill) {
    Value buffer;
    Value value = filledValue(fill, buffer);
    if (!value)
      return;
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape())
      return;
    memref::SubViewOp interior;
    if (!interiorCopy(fill, buffer, interior))
      return;
    ArrayRef<int64_t> offsets = interior.getStaticOffsets();
    ArrayRef<int64_t> sizes = interior.getStaticSizes();
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rank = type.getRank();

    OpBuilder b(fill);
    Location loc = fill->getLoc();
    auto fillSlab = [&](ArrayRef<int64_t> slabOffsets,
                        ArrayRef<int64_t> slabSizes) {
      if (llvm::any_of(slabSizes, [](int64_t s) { return s == 0; }))
        return;
      SmallVector<int64_t> ones(rank, 1);
      Value slab = memref::SubViewOp::create(b, loc, buffer, slabOffsets,
                                             slabSizes, ones);
      linalg::FillOp::create(b, loc, value, slab);
    };
    for (int64_t d = 0; d < rank; ++d) {
      SmallVector<int64_t> off(rank, 0), size(shape.begin(), shape.end());
      for (int64_t e = 0; e < d; ++e) {
        off[e] = offsets[e];
        size[e] = sizes[e];
      }
      off[d] = 0;
      size[d] = offsets[d];
      fillSlab(off, size); // before the interior along d
      off[d] = offsets[d] + sizes[d];
      size[d] = shape[d] - off[d];
      fillSlab(off, size); // after it
    }
    fill->erase();
  }
};

} // namespace
