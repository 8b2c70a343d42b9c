//===- PlanDeviceMemory.cpp - the tandem-plan-device-memory pass ----------===//
//
// Gives every device buffer of a host schedule (tandem_exec.alloc and
// tandem_exec.weight) a static offset in the device arena of its GPU, from
// lifetimes over the schedule.
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"
#include "passes/MemoryPlan/ArenaPlanner.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

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

    // Each GPU has its own arena. Weights first: one slot per global and
    // GPU, live for the whole run.
    using WeightKey = std::pair<unsigned, StringAttr>;
    llvm::MapVector<WeightKey, llvm::SmallVector<WeightOp>> weights;
    llvm::SmallVector<exec::AllocOp> allocs;
    unsigned numGpus = 0;
    auto gpuOf = [&](Type type) {
      unsigned gpu = deviceIndexOf(type).value_or(0);
      numGpus = std::max(numGpus, gpu + 1);
      return gpu;
    };
    for (Operation &op : body) {
      if (auto weight = dyn_cast<WeightOp>(op))
        weights[{gpuOf(weight.getType()), weight.getGlobalAttr().getAttr()}]
            .push_back(weight);
      else if (auto alloc = dyn_cast<exec::AllocOp>(op))
        allocs.push_back(alloc), gpuOf(alloc.getType());
    }
    if (weights.empty() && allocs.empty())
      return success();
    // Per GPU, its slots; `owner` says which weight group or alloc each is.
    llvm::SmallVector<llvm::SmallVector<ArenaSlot>> slots(numGpus);
    llvm::SmallVector<std::pair<unsigned, size_t>> weightSlot, allocSlot;
    for (auto &[key, ops] : weights) {
      weightSlot.push_back({key.first, slots[key.first].size()});
      slots[key.first].push_back({memRefBytes(ops.front().getType()), 0, last});
    }
    for (exec::AllocOp alloc : allocs) {
      // Live from its first use to its last: buffers are often allocated
      // well before the launch that first writes them.
      unsigned start = last, end = 0;
      bool copied = false;
      // Its users and its views' (a library conv reads a reshape of it).
      SmallVector<Operation *> users(alloc->getUsers());
      for (size_t i = 0; i < users.size(); ++i)
        if (isa<ViewLikeOpInterface>(users[i]))
          for (Operation *viewUser : users[i]->getUsers())
            users.push_back(viewUser);
      for (Operation *user : users) {
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
      unsigned gpu = gpuOf(alloc.getType());
      allocSlot.push_back({gpu, slots[gpu].size()});
      slots[gpu].push_back(
          {std::max<int64_t>(memRefBytes(alloc.getType()), 1), start, end});
    }
    llvm::SmallVector<int64_t> totals;
    for (auto &gpuSlots : slots)
      totals.push_back(assignArenaOffsets(gpuSlots, alignment));
    for (auto [group, place] : llvm::zip(weights, weightSlot))
      for (WeightOp weight : group.second)
        weight.setOffset(slots[place.first][place.second].offset);
    for (auto [alloc, place] : llvm::zip(allocs, allocSlot))
      alloc.setOffset(slots[place.first][place.second].offset);
    OpBuilder builder(func.getContext());
    func->setAttr(TandemExecDialect::getDeviceArenaBytesAttrName(),
                  builder.getDenseI64ArrayAttr(totals));
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
