//===- CUDAPresets.cpp - the CUDA target's placement cost presets ---------===//
//
// The numbers the placement cost model uses for CUDA GPUs (data-sheet
// figures of common parts) and the arch aliases that stand for them.
//
//===----------------------------------------------------------------------===//

#include "codegen/Target/Presets.h"

using namespace mlir::tandem;

namespace {
/// GPU presets from the vendors' data sheets (SXM parts). f32 matrix work is
/// plain SGEMM; TF32 (tandemc --gpu-precision=tf32), f16 and bf16 matrix
/// work runs on tensor cores (dense figures, no sparsity). Host links are
/// PCIe with pinned buffers.
const DevicePreset kGpuPresets[] = {
    {"h100",
     "sm_90",
     {66900, 133800, 133800},
     {66900, 989400, 989400, 494700},
     3350,
     4.0,
     132 * 2048,
     132,
     50,
     50,
     8},
    {"h200",
     "sm_90",
     {66900, 133800, 133800},
     {66900, 989400, 989400, 494700},
     4800,
     4.0,
     132 * 2048,
     132,
     50,
     50,
     8},
    {"a100",
     "sm_80",
     {19500, 78000, 39000},
     {19500, 312000, 312000, 156000},
     2039,
     5.0,
     108 * 2048,
     108,
     25,
     25,
     10},
    {"l4",
     "sm_89",
     {30300, 30300, 30300},
     {30300, 121000, 121000, 60000},
     300,
     5.0,
     58 * 1536,
     58,
     25,
     25,
     10},
};

/// Arch aliases: the part a bare arch stands for.
const std::pair<const char *, const char *> kGpuArchAliases[] = {
    {"sm_90", "h100"}, {"sm_80", "a100"}, {"sm_89", "l4"}};

} // namespace

std::vector<std::string> mlir::tandem::cudaCostPresetNames() {
  std::vector<std::string> names;
  for (const DevicePreset &p : kGpuPresets)
    names.push_back(p.name);
  for (auto [alias, part] : kGpuArchAliases)
    names.push_back(alias);
  return names;
}

std::optional<DeviceModel> mlir::tandem::cudaCostPreset(llvm::StringRef preset,
                                                        unsigned index) {
  std::string lower = preset.lower();
  for (auto [alias, part] : kGpuArchAliases)
    if (lower == alias)
      lower = part;
  for (const DevicePreset &p : kGpuPresets)
    if (lower == p.name)
      return p.toModel(DeviceName{DeviceName::Kind::GPU, index});
  return std::nullopt;
}
