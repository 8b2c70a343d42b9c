//===- DeviceModel.cpp - device presets, --target and JSON overrides ------===//

#include "passes/Placement/DeviceModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <thread>

using namespace mlir::tandem;

double DeviceModel::estimateUs(double flops, double bytes,
                               double outputElements, Precision precision,
                               bool matrix, bool launches) const {
  if (flops == 0 && bytes == 0)
    return 0; // metadata only: no kernel
  double workItems = std::max({outputElements, flops / 256, bytes / 64});
  double occupancy =
      std::clamp(workItems / std::max(1.0, saturationElements), 0.0, 1.0);
  // The smallest op still runs on one whole core / SM.
  occupancy = std::max(occupancy, 1.0 / std::max(1.0, computeUnits));
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
// Presets
//===----------------------------------------------------------------------===//

namespace {
/// One row of the preset tables. GFLOP/s are dense (no sparsity).
struct Preset {
  const char *name;
  const char *arch;
  PeakGflops vector, matrix;
  double memoryGBs, launchUs, saturationElements, units;
  double h2dGBs, d2hGBs, latencyUs;
};
} // namespace

/// CPU presets: cores x SIMD lanes x 2 (FMA) x 2 ports x clock. Half
/// precision is converted to f32 on these CPUs, so it runs at the f32 rate.
/// A CPU "kernel" is a call into a thread pool: about a microsecond; 1024
/// elements per core are enough to amortise it.
static const Preset kCpuPresets[] = {
    // 8 cores, AVX2, 3 GHz, dual-channel DDR5.
    {"generic",
     "x86-64",
     {768, 768, 768},
     {768, 768, 768},
     60,
     1.0,
     8 * 1024,
     8,
     0,
     0,
     0},
    // Xeon Platinum 8480+: 56 cores, AVX-512 (AMX for bf16), 2 GHz, 8xDDR5.
    {"xeon-8480",
     "x86-64",
     {7168, 7168, 7168},
     {7168, 7168, 114688},
     300,
     2.0,
     56 * 1024,
     56,
     0,
     0,
     0},
    // EPYC 9654: 96 cores, AVX-512 (256-bit datapath), 2.4 GHz, 12xDDR5.
    {"epyc-9654",
     "x86-64",
     {7373, 7373, 7373},
     {7373, 7373, 7373},
     460,
     2.0,
     96 * 1024,
     96,
     0,
     0,
     0},
    // Grace (Neoverse V2): 72 cores, 4x128-bit SVE2, 3.1 GHz, LPDDR5X.
    {"grace",
     "aarch64",
     {3571, 7142, 7142},
     {3571, 7142, 7142},
     500,
     1.5,
     72 * 1024,
     72,
     0,
     0,
     0},
};

/// GPU presets from the vendors' data sheets (SXM parts). f32 matrix work is
/// plain SGEMM (no TF32 unless a model opts into it); f16/bf16 matrix work
/// runs on tensor cores. Host links are PCIe with pinned buffers.
static const Preset kGpuPresets[] = {
    {"h100",
     "sm_90",
     {66900, 133800, 133800},
     {66900, 989400, 989400},
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
     {66900, 989400, 989400},
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
     {19500, 312000, 312000},
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
     {30300, 121000, 121000},
     300,
     5.0,
     58 * 1536,
     58,
     25,
     25,
     10},
};

/// Arch aliases: the part a bare arch stands for.
static const std::pair<const char *, const char *> kGpuArchAliases[] = {
    {"sm_90", "h100"}, {"sm_80", "a100"}, {"sm_89", "l4"}};

static DeviceModel fromPreset(const Preset &p, DeviceName name) {
  DeviceModel d;
  d.name = name;
  d.preset = p.name;
  d.arch = p.arch;
  d.vectorGflops = p.vector;
  d.matrixGflops = p.matrix;
  d.memoryGBs = p.memoryGBs;
  d.launchUs = p.launchUs;
  d.saturationElements = p.saturationElements;
  d.computeUnits = p.units;
  d.hostToDeviceGBs = p.h2dGBs;
  d.deviceToHostGBs = p.d2hGBs;
  d.transferLatencyUs = p.latencyUs;
  return d;
}

/// This machine: its cores and vector width at an assumed 2.5 GHz.
static DeviceModel hostModel() {
  double cores = std::max(1u, std::thread::hardware_concurrency());
  double lanes = 4; // SSE / NEON
  std::string arch = "aarch64";
#if defined(__x86_64__)
  arch = "x86-64";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    lanes = 16;
  else if (__builtin_cpu_supports("avx2"))
    lanes = 8;
#endif
  double gflops = cores * lanes * 2 /*FMA*/ * 2 /*ports*/ * 2.5;
  Preset p{"host",
           "",
           {gflops, gflops, gflops},
           {gflops, gflops, gflops},
           std::min(10.0 * cores, 400.0),
           1.0,
           cores * 1024,
           cores,
           0,
           0,
           0};
  DeviceModel d = fromPreset(p, DeviceName{DeviceName::Kind::CPU, 0});
  d.arch = arch;
  return d;
}

std::vector<std::string> mlir::tandem::cpuPresetNames() {
  std::vector<std::string> names = {"host"};
  for (const Preset &p : kCpuPresets)
    names.push_back(p.name);
  return names;
}

std::vector<std::string> mlir::tandem::gpuPresetNames() {
  std::vector<std::string> names;
  for (const Preset &p : kGpuPresets)
    names.push_back(p.name);
  for (auto [alias, part] : kGpuArchAliases)
    names.push_back(alias);
  return names;
}

std::optional<DeviceModel> mlir::tandem::getCpuPreset(llvm::StringRef preset) {
  if (preset == "host")
    return hostModel();
  for (const Preset &p : kCpuPresets)
    if (preset == p.name)
      return fromPreset(p, DeviceName{DeviceName::Kind::CPU, 0});
  return std::nullopt;
}

std::optional<DeviceModel> mlir::tandem::getGpuPreset(llvm::StringRef preset,
                                                      unsigned index) {
  std::string lower = preset.lower();
  for (auto [alias, part] : kGpuArchAliases)
    if (lower == alias)
      lower = part;
  for (const Preset &p : kGpuPresets)
    if (lower == p.name)
      return fromPreset(p, DeviceName{DeviceName::Kind::GPU, index});
  return std::nullopt;
}

std::optional<TargetConfig>
mlir::tandem::parseTargets(llvm::StringRef targets, llvm::StringRef cpuPreset,
                           std::string &error) {
  TargetConfig config;
  std::optional<DeviceModel> cpu = getCpuPreset(cpuPreset);
  if (!cpu) {
    error = "unknown CPU preset '" + cpuPreset.str() +
            "' (expected one of: " + llvm::join(cpuPresetNames(), ", ") + ")";
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
              "' (expected one of: " + llvm::join(gpuPresetNames(), ", ") + ")";
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
