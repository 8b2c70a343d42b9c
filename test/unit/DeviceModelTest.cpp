//===- DeviceModelTest.cpp - device presets, targets and JSON overrides ---===//

#include "passes/Placement/DeviceModel.h"

#include "codegen/Target/Target.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mlir::tandem;

namespace {
/// The presets come from the targets (codegen/Target), as in tandemc.
class DeviceModelTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { registerTargets(); }
};
} // namespace

TEST_F(DeviceModelTest, EachKindsTargetSuppliesItsPresets) {
  std::vector<std::string> cpu = cpuPresetNames(), gpu = gpuPresetNames();
  EXPECT_EQ(cpu.front(), "host");
  EXPECT_NE(std::find(gpu.begin(), gpu.end(), "h200"), gpu.end());
  EXPECT_NE(std::find(gpu.begin(), gpu.end(), "sm_80"), gpu.end());
  // An arch alias is the part it stands for.
  EXPECT_EQ(getGpuPreset("sm_80", 1)->preset, "a100");
  EXPECT_EQ(getGpuPreset("sm_80", 1)->name.index, 1u);
  EXPECT_FALSE(getGpuPreset("host", 0));
  EXPECT_FALSE(getCpuPreset("h100"));
}

TEST_F(DeviceModelTest, TargetsNameGpusInOrder) {
  std::string error;
  auto config = parseTargets("cpu,gpu:sm_90,gpu:a100", "generic", error);
  ASSERT_TRUE(config) << error;
  ASSERT_EQ(config->devices.size(), 3u);
  EXPECT_EQ(config->devices[0].displayName(), "/device:CPU:0");
  EXPECT_EQ(config->devices[1].displayName(), "/device:GPU:0");
  EXPECT_EQ(config->devices[1].preset, "h100");
  EXPECT_EQ(config->devices[2].displayName(), "/device:GPU:1");
  EXPECT_EQ(config->devices[2].arch, "sm_80");
  EXPECT_TRUE(config->hasGpu());
}

TEST_F(DeviceModelTest, HostIsAlwaysThere) {
  std::string error;
  auto config = parseTargets("gpu:l4", "generic", error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->host().displayName(), "/device:CPU:0");
  EXPECT_EQ(config->devices[1].arch, "sm_89");
}

TEST_F(DeviceModelTest, UnknownTargetsAreErrors) {
  std::string error;
  EXPECT_FALSE(parseTargets("cpu,npu", "generic", error));
  EXPECT_NE(error.find("unknown target 'npu'"), std::string::npos);
  EXPECT_FALSE(parseTargets("gpu:sm_10", "generic", error));
  EXPECT_NE(error.find("unknown GPU 'sm_10'"), std::string::npos);
  EXPECT_FALSE(parseTargets("cpu", "z80", error));
  EXPECT_NE(error.find("unknown CPU preset 'z80'"), std::string::npos);
}

TEST_F(DeviceModelTest, HostPresetIsDetected) {
  auto host = getCpuPreset("host");
  ASSERT_TRUE(host);
  EXPECT_GT(host->vectorGflops.f32, 0);
  EXPECT_GT(host->computeUnits, 0);
}

TEST_F(DeviceModelTest, RooflineAndLaunch) {
  auto h100 = getGpuPreset("h100", 0);
  ASSERT_TRUE(h100);
  // Metadata-only ops cost nothing.
  EXPECT_EQ(h100->estimateUs(0, 0, 1, Precision::F32, false), 0);
  // A big memory-bound op: bytes / bandwidth + launch.
  double bytes = 3350e6; // one millisecond of HBM traffic
  EXPECT_NEAR(h100->estimateUs(1, bytes, 1e9, Precision::F32, false),
              1000 + h100->launchUs, 1e-6);
  // Tensor cores make f16 matrix work faster than f32.
  double f32 = h100->estimateUs(1e12, 1, 1e9, Precision::F32, true);
  double f16 = h100->estimateUs(1e12, 1, 1e9, Precision::F16, true);
  EXPECT_LT(f16 * 10, f32);
  // A kernel's grid bounds the SMs it occupies: the same millisecond of
  // traffic in one block runs on one SM of 132, at 1/132 of the bandwidth;
  // 66 blocks get half; a grid of more blocks than SMs changes nothing.
  double units = h100->computeUnits;
  ASSERT_EQ(units, 132);
  EXPECT_NEAR(h100->estimateUs(1, bytes, 1e9, Precision::F32, false,
                               /*launches=*/true, /*blocks=*/1),
              1000 * units + h100->launchUs, 1e-3);
  EXPECT_NEAR(h100->estimateUs(1, bytes, 1e9, Precision::F32, false, true, 66),
              2000 + h100->launchUs, 1e-6);
  EXPECT_NEAR(
      h100->estimateUs(1, bytes, 1e9, Precision::F32, false, true, 4096),
      1000 + h100->launchUs, 1e-6);
}

TEST_F(DeviceModelTest, TransfersGoThroughTheHost) {
  std::string error;
  auto config = parseTargets("cpu,gpu:h100,gpu:h100", "generic", error);
  ASSERT_TRUE(config);
  DeviceName cpu{DeviceName::Kind::CPU, 0}, gpu0{DeviceName::Kind::GPU, 0},
      gpu1{DeviceName::Kind::GPU, 1};
  EXPECT_EQ(config->transferUs(cpu, cpu, 1e6), 0);
  double up = config->transferUs(cpu, gpu0, 50e6); // 1 ms at 50 GB/s
  EXPECT_NEAR(up, 1000 + 8, 1e-6);
  EXPECT_NEAR(config->transferUs(gpu0, gpu1, 50e6), 2 * up, 1e-6);
}

TEST_F(DeviceModelTest, JsonOverrides) {
  std::string error;
  auto config = parseTargets("cpu,gpu:sm_90,gpu:sm_90", "generic", error);
  ASSERT_TRUE(config);
  EXPECT_TRUE(applyDeviceConfig(*config, R"({
    "gpu": {"memory_gbps": 1000},
    "/device:GPU:1": {"vector_gflops": {"f16": 5}, "launch_us": 2},
    "cpu": {"matrix_gflops": 100}
  })",
                                error))
      << error;
  EXPECT_EQ(config->devices[1].memoryGBs, 1000);
  EXPECT_EQ(config->devices[2].memoryGBs, 1000);
  EXPECT_EQ(config->devices[2].vectorGflops.f16, 5);
  EXPECT_EQ(config->devices[2].launchUs, 2);
  EXPECT_EQ(config->devices[1].launchUs, 4);
  EXPECT_EQ(config->devices[0].matrixGflops.bf16, 100);
}

TEST_F(DeviceModelTest, JsonErrorsNameTheField) {
  std::string error;
  auto config = parseTargets("cpu,gpu", "generic", error);
  ASSERT_TRUE(config);
  EXPECT_FALSE(applyDeviceConfig(*config, "[1]", error));
  EXPECT_NE(error.find("expected a JSON object"), std::string::npos);
  EXPECT_FALSE(applyDeviceConfig(*config, "{", error));
  EXPECT_NE(error.find("invalid JSON"), std::string::npos);
  EXPECT_FALSE(
      applyDeviceConfig(*config, R"({"gpu": {"launch_us": -1}})", error));
  EXPECT_EQ(error, "gpu.launch_us: expected a positive number");
  EXPECT_FALSE(applyDeviceConfig(
      *config, R"({"cpu": {"host_to_device_gbps": 1}})", error));
  EXPECT_EQ(error, "cpu.host_to_device_gbps: only GPUs have a host link");
  EXPECT_FALSE(
      applyDeviceConfig(*config, R"({"gpu:1": {"launch_us": 1}})", error));
  EXPECT_EQ(error, "gpu:1: the target has no such device");
  EXPECT_FALSE(applyDeviceConfig(
      *config, R"({"gpu": {"vector_gflops": {"f8": 1}}})", error));
  EXPECT_NE(error.find("unknown precision"), std::string::npos);
}
