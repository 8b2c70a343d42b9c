//===- MapKernelsToGPU.cpp - kernel functions -> gpu.func -----------------===//
//
// tandem-map-kernels-to-gpu: clones every kernel function into one
// gpu.module as a gpu.func whose threads each compute one point of the
// kernel's linalg op (KernelMapping.h). The kernel functions stay.
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/GPUPipeline.h"
#include "codegen/GPU/KernelMapping.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMMAPKERNELSTOGPU
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The one linalg op of a kernel function.
FailureOr<linalg::LinalgOp> kernelOp(func::FuncOp kernel) {
  linalg::LinalgOp found;
  for (Operation &op : kernel.getBody().getOps()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      continue;
    if (found)
      return kernel.emitOpError() << "is a kernel with more than one linalg op";
    found = linalgOp;
  }
  if (!found)
    return kernel.emitOpError() << "is a kernel without a linalg op";
  return found;
}

/// Checks `kernel` and plans its launch.
FailureOr<std::pair<linalg::LinalgOp, KernelPlan>>
planKernel(func::FuncOp kernel) {
  FailureOr<linalg::LinalgOp> op = kernelOp(kernel);
  if (failed(op))
    return failure();
  FailureOr<KernelPlan> plan = planKernelLaunch(*op);
  if (failed(plan))
    return failure();
  for (Type type : kernel.getArgumentTypes()) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
      return kernel.emitOpError()
             << "has argument type " << type
             << ": kernel arguments are memrefs of static shape";
  }
  return std::make_pair(*op, *plan);
}

/// Clones the body of `kernel` at `builder`'s insertion point (arguments
/// mapped by `mapping`), its linalg op replaced by the mapped code.
void cloneMappedBody(OpBuilder &builder, func::FuncOp kernel,
                     linalg::LinalgOp op, const KernelPlan &plan,
                     IRMapping &mapping, Value threadIndex = {}) {
  for (Operation &inner : kernel.getBody().getOps()) {
    if (&inner == op.getOperation()) {
      emitMappedKernelBody(builder, op, plan, mapping, threadIndex);
      continue;
    }
    if (!isa<func::ReturnOp>(inner))
      builder.clone(inner, mapping);
  }
}

/// Adds `@<kernel>_emulated` after `kernel`: the mapped body run for every
/// block and thread of the grid by serial loops on the host.
FailureOr<func::FuncOp> emulateKernel(func::FuncOp kernel) {
  FailureOr<std::pair<linalg::LinalgOp, KernelPlan>> planned =
      planKernel(kernel);
  if (failed(planned))
    return failure();
  auto [op, plan] = *planned;
  OpBuilder builder(kernel);
  builder.setInsertionPointAfter(kernel);
  Location loc = kernel.getLoc();
  auto emulated = func::FuncOp::create(
      builder, loc, (kernel.getSymName() + "_emulated").str(),
      kernel.getFunctionType());
  Block *entry = emulated.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  IRMapping mapping;
  mapping.map(kernel.getArguments(), entry->getArguments());
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  Value zero = index(0), one = index(1), bx = index(plan.launch[3]);
  auto blocks =
      scf::ForOp::create(builder, loc, zero, index(plan.launch[0]), one);
  builder.setInsertionPoint(blocks.getBody()->getTerminator());
  if (plan.blockReduction) {
    // The block's threads and their exchanges run inside the body.
    cloneMappedBody(builder, kernel, op, plan, mapping,
                    blocks.getInductionVar());
    builder.setInsertionPointToEnd(entry);
    func::ReturnOp::create(builder, loc);
    return emulated;
  }
  auto threads = scf::ForOp::create(builder, loc, zero, bx, one);
  builder.setInsertionPoint(threads.getBody()->getTerminator());
  Value base =
      arith::MulIOp::create(builder, loc, blocks.getInductionVar(), bx);
  Value id =
      arith::AddIOp::create(builder, loc, base, threads.getInductionVar());
  cloneMappedBody(builder, kernel, op, plan, mapping, id);
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, loc);
  return emulated;
}

/// Builds the gpu.func of `kernel` at the end of `gpuModule`.
LogicalResult mapKernel(func::FuncOp kernel, gpu::GPUModuleOp gpuModule) {
  FailureOr<std::pair<linalg::LinalgOp, KernelPlan>> planned =
      planKernel(kernel);
  if (failed(planned))
    return failure();
  auto [op, plan] = *planned;
  OpBuilder builder = OpBuilder::atBlockTerminator(gpuModule.getBody());
  auto gpuFunc = gpu::GPUFuncOp::create(
      builder, kernel.getLoc(), kernel.getSymName(), kernel.getFunctionType());
  gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                   builder.getUnitAttr());
  gpuFunc.setKnownBlockSizeAttr(
      builder.getDenseI32ArrayAttr({static_cast<int32_t>(plan.launch[3]),
                                    static_cast<int32_t>(plan.launch[4]),
                                    static_cast<int32_t>(plan.launch[5])}));
  Block &entry = gpuFunc.getBody().front();
  builder.setInsertionPointToStart(&entry);
  IRMapping mapping;
  mapping.map(kernel.getArguments(), entry.getArguments());
  cloneMappedBody(builder, kernel, op, plan, mapping);
  gpu::ReturnOp::create(builder, kernel.getLoc());
  return success();
}

struct MapKernelsToGPUPass
    : tandem::impl::TandemMapKernelsToGPUBase<MapKernelsToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (isKernelFunction(func) && !func.isExternal())
        kernels.push_back(func);
    if (kernels.empty())
      return;
    if (emulateOnHost) {
      for (func::FuncOp kernel : kernels) {
        FailureOr<func::FuncOp> emulated = emulateKernel(kernel);
        if (failed(emulated))
          return signalPassFailure();
        if (replaceKernels) {
          kernel.getBody().dropAllReferences();
          kernel.getBody().getBlocks().clear();
          kernel.getBody().takeBody(emulated->getBody());
          emulated->erase();
        }
      }
      return;
    }
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), moduleName);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    for (func::FuncOp kernel : kernels)
      if (failed(mapKernel(kernel, gpuModule)))
        return signalPassFailure();
  }
};

} // namespace
