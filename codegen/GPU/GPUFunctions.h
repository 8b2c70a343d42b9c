//===- GPUFunctions.h - which functions are GPU partitions and kernels -*- C++
//-*-===//
//
// Predicates over the functions of a partitioned model that the GPU passes
// and the driver share.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_GPUFUNCTIONS_H
#define TANDEM_CODEGEN_GPU_GPUFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tandem {

/// True when `func` is a partition (`tandem.partition`) placed on a GPU.
bool isGPUPartition(func::FuncOp func);

/// True when `module` has at least one GPU partition.
bool hasGPUPartitions(ModuleOp module);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_GPUFUNCTIONS_H
