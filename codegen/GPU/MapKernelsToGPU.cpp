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

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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

/// Builds the gpu.func of `kernel` at the end of `gpuModule`.
LogicalResult mapKernel(func::FuncOp kernel, gpu::GPUModuleOp gpuModule) {
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

  OpBuilder builder = OpBuilder::atBlockTerminator(gpuModule.getBody());
  auto gpuFunc = gpu::GPUFuncOp::create(
      builder, kernel.getLoc(), kernel.getSymName(), kernel.getFunctionType());
  gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                   builder.getUnitAttr());
  gpuFunc.setKnownBlockSizeAttr(
      builder.getDenseI32ArrayAttr({static_cast<int32_t>(plan->launch[3]),
                                    static_cast<int32_t>(plan->launch[4]),
                                    static_cast<int32_t>(plan->launch[5])}));
  Block &entry = gpuFunc.getBody().front();
  builder.setInsertionPointToStart(&entry);
  IRMapping mapping;
  mapping.map(kernel.getArguments(), entry.getArguments());
  for (Operation &inner : kernel.getBody().getOps()) {
    if (&inner == op->getOperation()) {
      emitMappedKernelBody(builder, *op, *plan, mapping);
      continue;
    }
    if (isa<func::ReturnOp>(inner))
      continue;
    builder.clone(inner, mapping);
  }
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
