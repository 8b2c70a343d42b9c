//===- CPUPresets.cpp - the CPU target's placement cost presets -----------===//
//
// The numbers the placement cost model uses for CPUs: "host" (this
// machine, from its core count and vector ISA) and a few server parts.
//
//===----------------------------------------------------------------------===//

#include "codegen/Target/Presets.h"

#include <algorithm>
#include <thread>

using namespace mlir::tandem;

namespace {
/// CPU presets: cores x SIMD lanes x 2 (FMA) x 2 ports x clock. Half
/// precision is converted to f32 on these CPUs, so it runs at the f32 rate.
/// A CPU "kernel" is a call into a thread pool: about a microsecond; 1024
/// elements per core are enough to amortise it.
const DevicePreset kCpuPresets[] = {
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

/// This machine: its cores and vector width at an assumed 2.5 GHz.
DeviceModel hostModel() {
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
  DevicePreset p{"host",
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
  DeviceModel d = p.toModel(DeviceName{DeviceName::Kind::CPU, 0});
  d.arch = arch;
  return d;
}

} // namespace

std::vector<std::string> mlir::tandem::cpuCostPresetNames() {
  std::vector<std::string> names = {"host"};
  for (const DevicePreset &p : kCpuPresets)
    names.push_back(p.name);
  return names;
}

std::optional<DeviceModel> mlir::tandem::cpuCostPreset(llvm::StringRef preset) {
  if (preset == "host")
    return hostModel();
  for (const DevicePreset &p : kCpuPresets)
    if (preset == p.name)
      return p.toModel(DeviceName{DeviceName::Kind::CPU, 0});
  return std::nullopt;
}
