//===- PlanMemory.cpp - the tandem-plan-memory pass -----------------------===//
//
// Static memory planning: every intermediate buffer of a function gets a
// compile-time offset in one arena, from liveness, so that nothing is
// allocated while the model runs.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlan/ArenaPlanner.h"
#include "passes/Passes.h"

#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMPLANMEMORY
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {
/// One buffer to place.
struct Buffer {
  memref::AllocOp alloc;
  ArenaSlot slot;
};
} // namespace

/// Bytes of a statically shaped, identity-layout memref; std::nullopt if the
/// plan cannot hold it.
static std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  if (type.getMemorySpace())
    return std::nullopt;
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

/// The last position in `body` where `root` or a view of it is used, and the
/// deallocations of it.
static unsigned lastUse(Value root, Block &body,
                        const llvm::DenseMap<Operation *, unsigned> &position,
                        llvm::SmallVectorImpl<Operation *> &deallocs) {
  unsigned last = 0;
  llvm::SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *owner = use.getOwner();
      if (isa<memref::DeallocOp>(owner)) {
        deallocs.push_back(owner);
        continue;
      }
      if (Operation *top = body.findAncestorOpInBlock(*owner))
        last = std::max(last, position.lookup(top));
      // Views, casts and reshapes alias the buffer: their uses count too.
      if (isa<ViewLikeOpInterface, memref::CastOp, memref::CollapseShapeOp,
              memref::ExpandShapeOp, memref::ReinterpretCastOp>(owner))
        for (Value result : owner->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            worklist.push_back(result);
    }
  }
  return last;
}

namespace {
struct PlanMemoryPass : tandem::impl::TandemPlanMemoryBase<PlanMemoryPass> {
  using Base::Base;

  LogicalResult planFunction(func::FuncOp func) {
    Block &body = func.getBody().front();
    llvm::DenseMap<Operation *, unsigned> position;
    unsigned index = 0;
    for (Operation &op : body)
      position[&op] = index++;

    std::vector<Buffer> buffers;
    llvm::SmallVector<Operation *> deallocs;
    for (Operation &op : body) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      std::optional<int64_t> bytes = staticBytes(alloc.getType());
      if (!bytes)
        continue;
      // A buffer that escapes (returned, stored, passed to a call that may
      // keep it) cannot live in a reused arena slot.
      bool escapes = llvm::any_of(alloc->getUsers(), [](Operation *user) {
        return isa<func::ReturnOp, memref::StoreOp>(user);
      });
      if (escapes)
        continue;
      unsigned start = position[alloc];
      unsigned end =
          std::max(start, lastUse(alloc.getResult(), body, position, deallocs));
      buffers.push_back({alloc, {std::max<int64_t>(*bytes, 1), start, end}});
    }
    if (buffers.empty())
      return success();
    for (Operation &op : body)
      if (auto call = dyn_cast<func::CallOp>(op))
        if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                call, call.getCalleeAttr());
            callee && callee->hasAttr(TandemDialect::getArenaBytesAttrName()))
          return call.emitOpError()
                 << "calls '@" << callee.getSymName()
                 << "', which has its own arena: inline calls before "
                    "tandem-plan-memory";

    llvm::SmallVector<ArenaSlot> slots;
    for (Buffer &buffer : buffers)
      slots.push_back(buffer.slot);
    int64_t total = assignArenaOffsets(slots, alignment);
    for (auto [buffer, slot] : llvm::zip(buffers, slots))
      buffer.slot = slot;
    OpBuilder builder(func.getContext());
    auto arenaType = MemRefType::get({total}, builder.getI8Type());
    unsigned argIndex = func.getNumArguments();
    if (failed(func.insertArgument(
            argIndex, arenaType,
            builder.getDictionaryAttr(builder.getNamedAttr(
                TandemDialect::getArenaAttrName(), builder.getUnitAttr())),
            func.getLoc())))
      return func.emitOpError() << "cannot add the arena argument";
    Value arena = func.getArgument(argIndex);
    for (Buffer &buffer : buffers) {
      builder.setInsertionPoint(buffer.alloc);
      Location loc = buffer.alloc.getLoc();
      Value offset =
          arith::ConstantIndexOp::create(builder, loc, buffer.slot.offset);
      Value view = memref::ViewOp::create(builder, loc, buffer.alloc.getType(),
                                          arena, offset, ValueRange{});
      buffer.alloc.getResult().replaceAllUsesWith(view);
    }
    for (Operation *dealloc : deallocs)
      dealloc->erase();
    for (Buffer &buffer : buffers)
      buffer.alloc.erase();
    func->setAttr(TandemDialect::getArenaBytesAttrName(),
                  builder.getI64IntegerAttr(total));
    return success();
  }

  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError()
          << "tandem-plan-memory: alignment must be a power of two, got "
          << alignment;
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      // A GPU kernel function keeps its signature (its CPU twin's ABI): a
      // buffer local to it stays an allocation.
      if (func.isExternal() || TandemDialect::isKernelFunction(func))
        continue;
      if (failed(planFunction(func)))
        return signalPassFailure();
    }
  }
};
} // namespace
