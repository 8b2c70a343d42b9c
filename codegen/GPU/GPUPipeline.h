//===- GPUPipeline.h - GPU partitions: kernels, PTX, device images -*- C++ -*-//
//
// The GPU half of code generation (docs/GPU.md, steps 1 and 2): the
// bufferisation pipeline that keeps GPU partitions as functions and outlines
// their kernels, and compileGPUKernels(), which maps every kernel function
// to blocks and threads and serialises it to PTX (plus cubin and fatbin
// when the CUDA toolkit is installed) once per CUDA architecture.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_GPUPIPELINE_H
#define TANDEM_CODEGEN_GPU_GPUPIPELINE_H

#include "codegen/Artifact/DeviceProgram.h"
#include "codegen/GPU/GPUFunctions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::tandem {

/// The bufferisation phase of a model with GPU partitions: host partitions
/// are inlined into the schedule as on the CPU, GPU partitions stay
/// functions (destination-passing: outputs become arguments) and each of
/// their linalg ops is outlined into a kernel function
/// (tandem-outline-kernels). Transfers stay tensor ops between
/// `bufferization.to_tensor` / `to_buffer` until the host schedule lowers
/// them; nothing is planned into an arena yet.
void buildGPUBufferizePipeline(OpPassManager &pm);

/// Checks a CUDA architecture name ("sm_80", "sm_90", "sm_90a", ...).
/// Returns the error message, or the empty string when it is known.
std::string validateCudaArch(llvm::StringRef arch);

/// What compileGPUKernels generates.
struct GPUCodegenOptions {
  /// CUDA architectures, one device image set each.
  std::vector<std::string> archs = {"sm_90"};
  /// PTX ISA feature passed to LLVM's NVPTX backend (at least +ptx80 for
  /// sm_90).
  std::string ptxFeatures = "+ptx80";
  /// Build a cubin per arch with ptxas and a fatbin of PTX + cubins when
  /// the CUDA toolkit is found (never required).
  bool useToolkit = true;
  /// Where the CUDA toolkit lives (bin/ptxas, bin/fatbinary,
  /// nvvm/libdevice).
  std::string cudaRoot = "/usr/local/cuda";
};

/// Maps every kernel function of `module` to the GPU and compiles it: one
/// PTX image per arch, and with the CUDA toolkit a cubin per arch and one
/// fatbin. Works on a clone: the kernel functions (the source of the CPU
/// twins) and the partitions are left as they are. Errors are reported on
/// the module.
FailureOr<std::vector<DeviceImage>>
compileGPUKernels(ModuleOp module, const GPUCodegenOptions &options);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_GPUPIPELINE_H
