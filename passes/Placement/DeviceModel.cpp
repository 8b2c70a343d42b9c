//===- DeviceModel.cpp - the cost model's devices, --target, JSON overrides
//-===//

#include "passes/Placement/DeviceModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <map>
#include <mutex>

using namespace mlir::tandem;

double DeviceModel::estimateUs(double flops, double bytes,
                               double outputElements, Precision precision,
                               bool matrix, bool launches,
                               double blocks) const {
  if (flops == 0 && bytes == 0)
    return 0; // metadata only: no kernel
  double workItems = std::max({outputElements, flops / 256, bytes / 64});
  double occupancy =
      std::clamp(workItems / std::max(1.0, saturationElements), 0.0, 1.0);
  // The smallest op still runs on one whole core / SM.
  occupancy = std::max(occupancy, 1.0 / std::max(1.0, computeUnits));
  if (blocks > 0)
    occupancy = std::min(occupancy,
                         std::min(1.0, blocks / std::max(1.0, computeUnits)));
  double peak = (matrix ? matrixGflops : vectorGflops).get(precision);
  double computeUs = peak > 0 ? flops / (peak * occupancy * 1e3) : 0;
  double memoryUs = memoryGBs > 0 ? bytes / (memoryGBs * occupancy * 1e3) : 0;
  return (launches ? launchUs : 0) + std::max(computeUs, memoryUs);
}

const DeviceModel *TargetConfig::find(const DeviceName &name) const {
  for (const DeviceModel &d : devices)
    if (d.name == name)
      return &d;
  return nullptr;
}

DeviceModel *TargetConfig::find(const DeviceName &name) {
  for (DeviceModel &d : devices)
    if (d.name == name)
      return &d;
  return nullptr;
}

bool TargetConfig::hasGpu() const {
  return llvm::any_of(devices, [](const DeviceModel &d) { return d.isGpu(); });
}

double TargetConfig::transferUs(const DeviceName &from, const DeviceName &to,
                                double bytes) const {
  if (from == to)
    return 0;
  double us = 0;
  if (const DeviceModel *src = find(from); src && src->isGpu())
    us += src->transferLatencyUs + bytes / (src->deviceToHostGBs * 1e3);
  if (const DeviceModel *dst = find(to); dst && dst->isGpu())
    us += dst->transferLatencyUs + bytes / (dst->hostToDeviceGBs * 1e3);
  return us;
}

void TargetConfig::print(llvm::raw_ostream &os) const {
  for (const DeviceModel &d : devices) {
    os << llvm::format("%-14s %-8s %-7s vector %8.0f GFLOP/s  matrix %8.0f "
                       "GFLOP/s (f32)  memory %6.0f GB/s  launch %4.1f us",
                       d.displayName().c_str(), d.preset.c_str(),
                       d.arch.c_str(), d.vectorGflops.f32, d.matrixGflops.f32,
                       d.memoryGBs, d.launchUs);
    if (d.isGpu())
      os << llvm::format("  link %.0f/%.0f GB/s + %.0f us", d.hostToDeviceGBs,
                         d.deviceToHostGBs, d.transferLatencyUs);
    os << "\n";
  }
}

//===----------------------------------------------------------------------===//
// Presets: each device kind's target registers its own
//===----------------------------------------------------------------------===//

DeviceModel mlir::tandem::DevicePreset::toModel(DeviceName device) const {
  DeviceModel d;
  d.name = device;
  d.preset = name;
  d.arch = arch;
  d.vectorGflops = vector;
  d.matrixGflops = matrix;
  d.memoryGBs = memoryGBs;
  d.launchUs = launchUs;
  d.saturationElements = saturationElements;
  d.computeUnits = units;
  d.hostToDeviceGBs = h2dGBs;
  d.deviceToHostGBs = d2hGBs;
  d.transferLatencyUs = latencyUs;
  return d;
}

namespace {
/// The registered sources, by kind. Registered once at start-up (before any
/// compilation), read afterwards.
std::map<DeviceName::Kind, const CostPresetSource *> &presetSources() {
  static std::map<DeviceName::Kind, const CostPresetSource *> sources;
  return sources;
}
std::mutex presetMutex;

const CostPresetSource *sourceOf(DeviceName::Kind kind) {
  std::lock_guard<std::mutex> lock(presetMutex);
  auto it = presetSources().find(kind);
  return it == presetSources().end() ? nullptr : it->second;
}
} // namespace

void mlir::tandem::registerCostPresets(DeviceName::Kind kind,
                                       const CostPresetSource *source) {
  std::lock_guard<std::mutex> lock(presetMutex);
  presetSources()[kind] = source;
}

std::vector<std::string> mlir::tandem::cpuPresetNames() {
  const CostPresetSource *source = sourceOf(DeviceName::Kind::CPU);
  return source ? source->costPresetNames() : std::vector<std::string>();
}

std::vector<std::string> mlir::tandem::gpuPresetNames() {
  const CostPresetSource *source = sourceOf(DeviceName::Kind::GPU);
  return source ? source->costPresetNames() : std::vector<std::string>();
}

std::optional<DeviceModel> mlir::tandem::getCpuPreset(llvm::StringRef preset) {
  const CostPresetSource *source = sourceOf(DeviceName::Kind::CPU);
  return source ? source->costPreset(preset, 0) : std::nullopt;
}

std::optional<DeviceModel> mlir::tandem::getGpuPreset(llvm::StringRef preset,
                                                      unsigned index) {
  const CostPresetSource *source = sourceOf(DeviceName::Kind::GPU);
  return source ? source->costPreset(preset, index) : std::nullopt;
}

/// "a, b, c", or why there are none.
static std::string presetList(const std::vector<std::string> &names) {
  return names.empty() ? std::string("none: no target registered its cost "
                                     "presets (codegen's registerTargets)")
                       : llvm::join(names, ", ");
}

std::optional<TargetConfig>
mlir::tandem::parseTargets(llvm::StringRef targets, llvm::StringRef cpuPreset,
                           std::string &error) {
  TargetConfig config;
  std::optional<DeviceModel> cpu = getCpuPreset(cpuPreset);
  if (!cpu) {
    error = "unknown CPU preset '" + cpuPreset.str() +
            "' (expected one of: " + presetList(cpuPresetNames()) + ")";
    return std::nullopt;
  }
  config.devices.push_back(*cpu);
  llvm::SmallVector<llvm::StringRef> entries;
  targets.split(entries, ',', -1, /*KeepEmpty=*/false);
  unsigned gpus = 0;
  for (llvm::StringRef entry : entries) {
    entry = entry.trim();
    if (entry.equals_insensitive("cpu"))
      continue; // the host is always there
    auto [kind, preset] = entry.split(':');
    if (!kind.equals_insensitive("gpu")) {
      error = "unknown target '" + entry.str() +
              "' (expected 'cpu' or 'gpu:<arch or part>', e.g. gpu:sm_90)";
      return std::nullopt;
    }
    std::optional<DeviceModel> gpu =
        getGpuPreset(preset.empty() ? "sm_90" : preset, gpus);
    if (!gpu) {
      error = "unknown GPU '" + preset.str() + "' in target '" + entry.str() +
              "' (expected one of: " + presetList(gpuPresetNames()) + ")";
      return std::nullopt;
    }
    config.devices.push_back(*gpu);
    ++gpus;
  }
  return config;
}

//===----------------------------------------------------------------------===//
// JSON overrides
//===----------------------------------------------------------------------===//

/// Reads a positive number into `out`.
static bool readNumber(const llvm::json::Value &value, llvm::StringRef where,
                       double &out, std::string &error) {
  std::optional<double> number = value.getAsNumber();
  if (!number || *number <= 0) {
    error = where.str() + ": expected a positive number";
    return false;
  }
  out = *number;
  return true;
}

/// Reads a number (all precisions) or {"f32": .., "f16": .., "bf16": ..}.
static bool readPeak(const llvm::json::Value &value, llvm::StringRef where,
                     PeakGflops &out, std::string &error) {
  if (const llvm::json::Object *object = value.getAsObject()) {
    for (const auto &[key, v] : *object) {
      double *field = key == "f32"    ? &out.f32
                      : key == "f16"  ? &out.f16
                      : key == "bf16" ? &out.bf16
                                      : nullptr;
      std::string inner = (where + "." + key.str()).str();
      if (!field) {
        error = inner + ": unknown precision (expected f32, f16 or bf16)";
        return false;
      }
      if (!readNumber(v, inner, *field, error))
        return false;
    }
    return true;
  }
  double all;
  if (!readNumber(value, where, all, error))
    return false;
  out = PeakGflops{all, all, all};
  return true;
}

/// Applies one device's settings.
static bool applyFields(DeviceModel &device, const llvm::json::Object &fields,
                        llvm::StringRef key, std::string &error) {
  for (const auto &[field, value] : fields) {
    std::string where = (key + "." + field.str()).str();
    bool ok;
    if (field == "vector_gflops")
      ok = readPeak(value, where, device.vectorGflops, error);
    else if (field == "matrix_gflops")
      ok = readPeak(value, where, device.matrixGflops, error);
    else if (field == "memory_gbps")
      ok = readNumber(value, where, device.memoryGBs, error);
    else if (field == "launch_us")
      ok = readNumber(value, where, device.launchUs, error);
    else if (field == "saturation_elements")
      ok = readNumber(value, where, device.saturationElements, error);
    else if (field == "compute_units")
      ok = readNumber(value, where, device.computeUnits, error);
    else if (field == "host_to_device_gbps" || field == "device_to_host_gbps" ||
             field == "transfer_latency_us") {
      if (!device.isGpu()) {
        error = where + ": only GPUs have a host link";
        return false;
      }
      double &slot = field == "host_to_device_gbps" ? device.hostToDeviceGBs
                     : field == "device_to_host_gbps"
                         ? device.deviceToHostGBs
                         : device.transferLatencyUs;
      ok = readNumber(value, where, slot, error);
    } else {
      error = where +
              ": unknown field (expected vector_gflops, matrix_gflops, "
              "memory_gbps, launch_us, saturation_elements, compute_units, "
              "host_to_device_gbps, device_to_host_gbps or "
              "transfer_latency_us)";
      return false;
    }
    if (!ok)
      return false;
  }
  return true;
}

std::optional<TargetConfig>
mlir::tandem::loadTargets(llvm::StringRef targets, llvm::StringRef cpuPreset,
                          llvm::StringRef deviceConfigPath,
                          std::string &error) {
  std::optional<TargetConfig> config = parseTargets(targets, cpuPreset, error);
  if (!config || deviceConfigPath.empty())
    return config;
  auto file = llvm::MemoryBuffer::getFile(deviceConfigPath);
  if (!file) {
    error = ("cannot read device config '" + deviceConfigPath +
             "': " + file.getError().message())
                .str();
    return std::nullopt;
  }
  if (!applyDeviceConfig(*config, (*file)->getBuffer(), error)) {
    error = (deviceConfigPath + ": " + error).str();
    return std::nullopt;
  }
  return config;
}

bool mlir::tandem::applyDeviceConfig(TargetConfig &config, llvm::StringRef json,
                                     std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    error = "invalid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root) {
    error = "expected a JSON object keyed by device name";
    return false;
  }
  for (const auto &[key, value] : *root) {
    const llvm::json::Object *fields = value.getAsObject();
    if (!fields) {
      error = key.str() + ": expected an object of device settings";
      return false;
    }
    llvm::SmallVector<DeviceModel *> selected;
    if (key == "cpu" || key == "gpu") {
      for (DeviceModel &d : config.devices)
        if (d.isGpu() == (key == "gpu"))
          selected.push_back(&d);
    } else {
      std::optional<DeviceName> name = parseDeviceName(key);
      if (!name) {
        error = key.str() + ": not a device name (" + kDeviceNameHelp.str() +
                ", 'cpu' or 'gpu')";
        return false;
      }
      if (DeviceModel *d = config.find(*name))
        selected.push_back(d);
    }
    if (selected.empty()) {
      error = key.str() + ": the target has no such device";
      return false;
    }
    for (DeviceModel *d : selected)
      if (!applyFields(*d, *fields, key, error))
        return false;
  }
  return true;
}
