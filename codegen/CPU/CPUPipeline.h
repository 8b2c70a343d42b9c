//===- CPUPipeline.h - linalg on tensors to the LLVM dialect ----*- C++ -*-===//
//
// The CPU back half of the pipeline: bufferisation in destination-passing
// style (outputs become writable arguments, no result copies), then
// lowering to the LLVM dialect with bare-pointer calling conventions, which
// the artifact's entry point calls. The pipelines are built from typed
// create*Pass() calls and option structs, so a misspelt pass or option
// fails the build.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_CPU_CPUPIPELINE_H
#define TANDEM_CODEGEN_CPU_CPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace mlir::tandem {

/// The bufferisation that the CPU and GPU pipelines share: host partitions
/// inlined into the model function (inline, symbol-dce), elementwise
/// fusion (tandem-fuse-elementwise), one-shot bufferisation across function
/// boundaries with identity layouts, results turned into output arguments,
/// canonicalisation. `allowUnknownOps` leaves ops that have no
/// bufferisation (the GPU pipeline's transfers) between to_tensor/to_buffer.
/// `foldIntoContractions` folds transposes and adds into the contractions
/// they feed or read (tandem-fold-into-contractions): the CPU sgemm takes
/// any strides and accumulates onto C, while the GPU's library calls expect
/// the named ops. `kernelActivations` lets HardSwish and SiLU become a
/// contraction's or convolution's fused epilogue, which only the CPU
/// kernels apply.
void buildInlineAndBufferizePipeline(OpPassManager &pm, bool allowUnknownOps,
                                     bool foldIntoContractions,
                                     bool kernelActivations);

/// linalg on tensors -> memrefs: buildInlineAndBufferizePipeline, then the
/// intermediate buffers planned into one arena (tandem-plan-memory), and
/// deallocation of whatever the plan cannot hold.
void buildCPUBufferizePipeline(OpPassManager &pm);

/// memrefs -> LLVM dialect: loops, then every dialect to LLVM, with bare
/// pointers for memref arguments (all shapes are static). `winograd` lets
/// 3x3 convolutions run as Winograd (tandem-call-cpu-kernels).
void buildCPULowerToLLVMPipeline(OpPassManager &pm, bool winograd = true);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_CPU_CPUPIPELINE_H
