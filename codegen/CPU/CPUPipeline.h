//===- CPUPipeline.h - from linalg on tensors to the LLVM dialect -*- C++
//-*-===//
//
// The CPU back half of the pipeline: bufferisation in destination-passing
// style (outputs become writable arguments, no result copies), then
// lowering to the LLVM dialect with bare-pointer calling conventions, which
// the artifact's entry point calls.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_CPU_CPUPIPELINE_H
#define TANDEM_CODEGEN_CPU_CPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace mlir::tandem {

/// linalg on tensors -> memrefs: one-shot bufferisation across function
/// boundaries, results turned into output arguments, partitions inlined,
/// intermediate buffers planned into one arena (tandem-plan-memory), and
/// deallocation of whatever the plan cannot hold.
LogicalResult buildCPUBufferizePipeline(OpPassManager &pm);

/// memrefs -> LLVM dialect: loops, then every dialect to LLVM, with bare
/// pointers for memref arguments (all shapes are static).
LogicalResult buildCPULowerToLLVMPipeline(OpPassManager &pm);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_CPU_CPUPIPELINE_H
