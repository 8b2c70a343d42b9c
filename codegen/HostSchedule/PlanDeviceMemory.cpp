//===- PlanDeviceMemory.cpp - the tandem-plan-device-memory pass ----------===//
//
// Gives every device buffer of a host schedule (tandem_exec.alloc and
// tandem_exec.weight) a static offset in the device arena, from lifetimes
// over the schedule.
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"
#include "passes/MemoryPlan/ArenaPlanner.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMPLANDEVICEMEMORY
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

namespace {
struct PlanDeviceMemoryPass
    : tandem::impl::TandemPlanDeviceMemoryBase<PlanDeviceMemoryPass> {
  using Base::Base;

  LogicalResult planFunction(func::FuncOp func) {
    Block &body = func.getBody().front();
    llvm::DenseMap<Operation *, unsigned> position;
    unsigned last = 0;
    for (Operation &op : body)
      position[&op] = last++;

    // Weights first: one slot per global, live for the whole run.
    llvm::MapVector<StringAttr, llvm::SmallVector<WeightOp>> weights;
    llvm::SmallVector<exec::AllocOp> allocs;
    for (Operation &op : body) {
      if (auto weight = dyn_cast<WeightOp>(op))
        weights[weight.getGlobalAttr().getAttr()].push_back(weight);
      else if (auto alloc = dyn_cast<exec::AllocOp>(op))
        allocs.push_back(alloc);
    }
    if (weights.empty() && allocs.empty())
      return success();
    llvm::SmallVector<ArenaSlot> slots;
    for (auto &[global, ops] : weights)
      slots.push_back({memRefBytes(ops.front().getType()), 0, last});
    for (exec::AllocOp alloc : allocs) {
      // Live from its first use to its last: buffers are often allocated
      // well before the launch that first writes them.
      unsigned start = last, end = 0;
      bool copied = false;
      for (Operation *user : alloc->getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top)
          return user->emitOpError() << "uses a device buffer outside the "
                                        "schedule's block";
        start = std::min(start, position[top]);
        end = std::max(end, position[top]);
        copied |= isa<CopyOp>(user);
      }
      if (alloc->use_empty())
        start = end = position[alloc];
      // Copy streams run ahead of and behind compute: their buffers keep
      // their place for the whole run.
      if (copied)
        start = 0, end = last;
      slots.push_back(
          {std::max<int64_t>(memRefBytes(alloc.getType()), 1), start, end});
    }
    int64_t total = assignArenaOffsets(slots, alignment);
    OpBuilder builder(func.getContext());
    unsigned i = 0;
    for (auto &[global, ops] : weights) {
      for (WeightOp weight : ops)
        weight.setOffset(slots[i].offset);
      ++i;
    }
    for (exec::AllocOp alloc : allocs)
      alloc.setOffset(slots[i++].offset);
    func->setAttr(TandemExecDialect::getDeviceArenaBytesAttrName(),
                  builder.getI64IntegerAttr(total));
    return success();
  }

  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError()
          << "tandem-plan-device-memory: alignment must be a power of two, "
             "got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(planFunction(func)))
        return signalPassFailure();
  }
};
} // namespace
