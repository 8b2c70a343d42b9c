//===- DeviceNameTest.cpp - TensorFlow-style device name parsing ----------===//

#include "dialects/Tandem/IR/DeviceName.h"

#include "gtest/gtest.h"

using namespace mlir::tandem;

namespace {

TEST(DeviceName, ParsesCanonicalNames) {
  auto cpu = parseDeviceName("/device:CPU:0");
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->kind, DeviceName::Kind::CPU);
  EXPECT_EQ(cpu->index, 0u);

  auto gpu = parseDeviceName("/device:GPU:3");
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->kind, DeviceName::Kind::GPU);
  EXPECT_EQ(gpu->index, 3u);
}

TEST(DeviceName, ParsesFullyQualifiedAndShortForms) {
  EXPECT_EQ(parseDeviceName("/job:localhost/replica:0/task:0/device:GPU:1"),
            (DeviceName{DeviceName::Kind::GPU, 1}));
  EXPECT_EQ(parseDeviceName("gpu:2"), (DeviceName{DeviceName::Kind::GPU, 2}));
  EXPECT_EQ(parseDeviceName("cpu"), (DeviceName{DeviceName::Kind::CPU, 0}));
  EXPECT_EQ(parseDeviceName("  /device:cpu:0 "),
            (DeviceName{DeviceName::Kind::CPU, 0}));
}

TEST(DeviceName, RejectsMalformedNames) {
  for (const char *bad : {"", "/device:TPU:0", "/device:GPU:", "/device:GPU:-1",
                          "/device:GPU:x", "/gpu:0", "/job:localhost/replica:0",
                          "gpu:1:2", "/device:GPU:1234567", "GPU0"})
    EXPECT_FALSE(parseDeviceName(bad)) << "accepted '" << bad << "'";
}

TEST(DeviceName, FormatsCanonically) {
  EXPECT_EQ(formatDeviceName({DeviceName::Kind::GPU, 1}), "/device:GPU:1");
  EXPECT_EQ(formatDeviceName({DeviceName::Kind::CPU, 0}), "/device:CPU:0");
  // Round trip.
  EXPECT_EQ(formatDeviceName(*parseDeviceName("gpu:7")), "/device:GPU:7");
}

} // namespace
