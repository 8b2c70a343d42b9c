//===- Presets.h - the targets' placement cost presets ----------*- C++ -*-===//
//
// The preset tables of the CPU and CUDA targets (CPUPresets.cpp,
// CUDAPresets.cpp), which the targets give placement as their
// CostPresetSource.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_TARGET_PRESETS_H
#define TANDEM_CODEGEN_TARGET_PRESETS_H

#include "passes/Placement/DeviceModel.h"

namespace mlir::tandem {

/// "host" and the CPU parts; the model of one as /device:CPU:0.
std::vector<std::string> cpuCostPresetNames();
std::optional<DeviceModel> cpuCostPreset(llvm::StringRef preset);

/// The GPU parts and arch aliases; the model of one as /device:GPU:`index`.
std::vector<std::string> cudaCostPresetNames();
std::optional<DeviceModel> cudaCostPreset(llvm::StringRef preset,
                                          unsigned index);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_TARGET_PRESETS_H
