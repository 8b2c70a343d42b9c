//===- GPUFunctions.cpp - which functions are GPU partitions and kernels --===//

#include "codegen/GPU/GPUFunctions.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemDialect.h"

using namespace mlir;
using namespace mlir::tandem;

bool mlir::tandem::isGPUPartition(func::FuncOp func) {
  auto device =
      func->getAttrOfType<DeviceAttr>(TandemDialect::getDeviceAttrName());
  return device && device.isGPU() &&
         func->hasAttr(TandemDialect::getPartitionAttrName());
}

bool mlir::tandem::hasGPUPartitions(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(), isGPUPartition);
}
