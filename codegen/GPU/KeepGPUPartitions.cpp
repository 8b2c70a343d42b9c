//===- KeepGPUPartitions.cpp - GPU partitions are not inlined -------------===//
//
// tandem-keep-gpu-partitions: marks every GPU partition function no_inline,
// so that the inliner folds only host partitions into the schedule.
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/GPUPipeline.h"
#include "codegen/Passes.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMKEEPGPUPARTITIONS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {
struct KeepGPUPartitionsPass
    : tandem::impl::TandemKeepGPUPartitionsBase<KeepGPUPartitionsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isGPUPartition(func))
        func.setNoInline(true);
  }
};
} // namespace
