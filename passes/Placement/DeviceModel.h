//===- DeviceModel.h - what the placement cost model knows of a device
//-*-C++-*-===//
//
// The devices of a build (--target) and the numbers the cost model reads for
// each one: peak throughput per precision, memory bandwidth, launch overhead,
// and for GPUs the host link. Each device kind's target supplies its presets
// (CostPresetSource, registered by codegen/Target); a JSON file overrides
// any value. Plain C++ on LLVM support, unit-tested without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PLACEMENT_DEVICEMODEL_H
#define TANDEM_PASSES_PLACEMENT_DEVICEMODEL_H

#include "dialects/Tandem/IR/DeviceName.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tandem {

/// The arithmetic an op runs in; integer ops count at the f32 rate. TF32
/// is f32 data on tensor cores (tandemc --gpu-precision=tf32).
enum class Precision { F32, F16, BF16, TF32 };

/// Throughput of one kind of arithmetic, in GFLOP/s.
struct PeakGflops {
  double f32 = 0, f16 = 0, bf16 = 0;
  /// 0: no TF32 units (the f32 rate applies).
  double tf32 = 0;
  double get(Precision p) const {
    switch (p) {
    case Precision::F32:
      return f32;
    case Precision::F16:
      return f16;
    case Precision::BF16:
      return bf16;
    case Precision::TF32:
      return tf32 > 0 ? tf32 : f32;
    }
    return f32;
  }
};

/// Everything the cost model knows of one device.
struct DeviceModel {
  DeviceName name;
  /// The preset it came from ("h100", "host", ...), for reports.
  std::string preset;
  /// Code generation target: "sm_90" for GPUs, "x86-64" / "aarch64" for CPUs.
  std::string arch;
  /// Elementwise / reduction peak.
  PeakGflops vectorGflops;
  /// Dense linear algebra (conv, matmul) peak: tensor cores, AMX, FMA units.
  PeakGflops matrixGflops;
  /// Device memory bandwidth, GB/s.
  double memoryGBs = 0;
  /// Fixed cost of starting one kernel, microseconds.
  double launchUs = 0;
  /// Independent work items an op needs to occupy the whole device; smaller
  /// ops reach a proportional share of peak (see estimateUs).
  double saturationElements = 1;
  /// Cores or SMs: an op too small for the whole device still gets one.
  double computeUnits = 1;
  /// GPUs only: the host link (pinned memory, one direction), GB/s, and the
  /// fixed latency of one copy, microseconds.
  double hostToDeviceGBs = 0, deviceToHostGBs = 0, transferLatencyUs = 0;

  bool isGpu() const { return name.kind == DeviceName::Kind::GPU; }
  std::string displayName() const { return formatDeviceName(name); }

  /// Roofline estimate of an op on this device, microseconds: launch
  /// overhead plus the larger of compute and memory time, with throughput
  /// scaled down for ops too small to fill the device. The op's work items
  /// are its output elements, or its flops / 256 or bytes / 64 when larger
  /// (a reduction or a GEMV splits along its inputs too).
  /// An op fused into another's kernel passes `launches = false`.
  /// `blocks`, when known (a generated kernel's grid), caps the share of
  /// the device the op reaches at `blocks / computeUnits`: a grid of fewer
  /// blocks than SMs leaves the others idle however much work each block
  /// has.
  double estimateUs(double flops, double bytes, double outputElements,
                    Precision precision, bool matrix, bool launches = true,
                    double blocks = 0) const;
};

/// The devices of one build. The host CPU is always device 0.
struct TargetConfig {
  std::vector<DeviceModel> devices;

  /// The device with this name, or null.
  const DeviceModel *find(const DeviceName &name) const;
  DeviceModel *find(const DeviceName &name);
  const DeviceModel &host() const { return devices.front(); }
  bool hasGpu() const;

  /// Time to move `bytes` from `from` to `to`, microseconds; 0 on the same
  /// device. GPU to GPU goes through the host.
  double transferUs(const DeviceName &from, const DeviceName &to,
                    double bytes) const;

  /// Prints one line per device with its numbers.
  void print(llvm::raw_ostream &os) const;
};

/// One row of a preset table. GFLOP/s are dense (no sparsity).
struct DevicePreset {
  const char *name;
  const char *arch;
  PeakGflops vector, matrix;
  double memoryGBs, launchUs, saturationElements, units;
  double h2dGBs, d2hGBs, latencyUs;

  /// The preset as the model of `device`.
  DeviceModel toModel(DeviceName device) const;
};

/// Where a device kind's presets come from: the kind's target
/// (codegen/Target: the CPU target's "host", "generic", ...; the CUDA
/// target's "h100", "h200", "a100", "l4" and the arch aliases "sm_90",
/// "sm_80", "sm_89"). Placement knows no device numbers of its own.
class CostPresetSource {
public:
  virtual ~CostPresetSource() = default;
  /// The preset names, for error messages.
  virtual std::vector<std::string> costPresetNames() const = 0;
  /// The model of preset `name` as device `index` of the kind, or
  /// std::nullopt for a name the kind does not have.
  virtual std::optional<DeviceModel> costPreset(llvm::StringRef name,
                                                unsigned index) const = 0;
};

/// Registers `source` as the presets of `kind` (codegen's registerTargets
/// does, once, before any compilation). `source` must outlive every use.
void registerCostPresets(DeviceName::Kind kind, const CostPresetSource *source);

/// The registered CPU and GPU preset names (empty before registration).
std::vector<std::string> cpuPresetNames();
std::vector<std::string> gpuPresetNames();

/// The model of a CPU preset ("host" is derived from this machine), or of
/// a GPU preset or arch alias as device GPU:`index`; std::nullopt when the
/// kind's target has no such preset or none is registered.
std::optional<DeviceModel> getCpuPreset(llvm::StringRef preset);
std::optional<DeviceModel> getGpuPreset(llvm::StringRef preset, unsigned index);

/// Builds the devices of a `--target` list such as "cpu" or
/// "cpu,gpu:sm_90,gpu:h200": the host CPU (always present, modelled by
/// `cpuPreset`) and the GPUs in order as /device:GPU:0, /device:GPU:1, ...
/// Returns std::nullopt and sets `error` for an unknown entry.
std::optional<TargetConfig> parseTargets(llvm::StringRef targets,
                                         llvm::StringRef cpuPreset,
                                         std::string &error);

/// parseTargets, then the JSON device config in the file
/// `deviceConfigPath` applied (none when empty). Returns std::nullopt and
/// sets `error`: parseTargets' message, "cannot read device config 'F':
/// why", or "F: " and applyDeviceConfig's message.
std::optional<TargetConfig> loadTargets(llvm::StringRef targets,
                                        llvm::StringRef cpuPreset,
                                        llvm::StringRef deviceConfigPath,
                                        std::string &error);

/// Applies a JSON device-config: an object whose keys are device names
/// ("/device:GPU:0", "gpu:1"), or "cpu" / "gpu" for every device of a kind,
/// and whose values set fields by name (see docs/Placement.md). Unknown keys,
/// devices the target lacks and non-positive numbers are errors.
bool applyDeviceConfig(TargetConfig &config, llvm::StringRef json,
                       std::string &error);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PLACEMENT_DEVICEMODEL_H
