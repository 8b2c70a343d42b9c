//===- CudaToolkit.h - ptxas and fatbinary, when installed ------*- C++ -*-===//
//
// The CUDA toolkit's offline tools, run as subprocesses: ptxas assembles PTX
// into a cubin, fatbinary packs PTX and cubins into one fatbin. Code
// generation never needs them: without the toolkit a model carries PTX only.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_CUDATOOLKIT_H
#define TANDEM_CODEGEN_GPU_CUDATOOLKIT_H

#include "codegen/GPU/GPUPipeline.h"

#include "mlir/IR/Location.h"

#include <string>
#include <vector>

namespace mlir::tandem {

/// The tools of a CUDA toolkit installed under one root.
class CudaToolkit {
public:
  /// Looks for `root`/bin/ptxas and `root`/bin/fatbinary.
  explicit CudaToolkit(llvm::StringRef root);

  bool hasPtxas() const { return !ptxas.empty(); }
  bool hasFatbinary() const { return !fatbinary.empty(); }

  /// `ptxas -arch=<arch>` on `ptx`; the cubin, or an error at `loc` with
  /// ptxas's message.
  FailureOr<std::string> assemble(llvm::StringRef ptx, llvm::StringRef arch,
                                  Location loc) const;

  /// One fatbin holding every PTX and cubin image.
  FailureOr<std::string> pack(const std::vector<DeviceImage> &ptx,
                              const std::vector<DeviceImage> &cubins,
                              Location loc) const;

private:
  std::string ptxas;
  std::string fatbinary;
};

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_CUDATOOLKIT_H
