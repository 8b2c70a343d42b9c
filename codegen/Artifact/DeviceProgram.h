//===- DeviceProgram.h - what the artifact knows of GPU work ----*- C++ -*-===//
//
// The device program of a model with GPU partitions, as the object's
// `tandem_device_program_t` describes it (docs/GPU.md): kernels, device
// images, the weights uploaded at creation, the device arena, the number of
// events, the partitions and the library convolutions' descriptors.
// tandem-lower-host-schedule records it in the module; the driver adds the
// device images.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_ARTIFACT_DEVICEPROGRAM_H
#define TANDEM_CODEGEN_ARTIFACT_DEVICEPROGRAM_H

#include "mlir/IR/BuiltinOps.h"

#include "runtime/include/tandem/abi.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tandem {

/// One device image of the kernels, as the GPU code generator produces it
/// and the object embeds it (a tandem_device_image_t).
struct DeviceImage {
  /// "sm_90", ...; for a fatbin, the archs it holds joined by ','.
  std::string arch;
  /// TANDEM_IMAGE_PTX, TANDEM_IMAGE_CUBIN or TANDEM_IMAGE_FATBIN (abi.h).
  int32_t format = TANDEM_IMAGE_PTX;
  /// PTX text without its terminating NUL (the object adds it), or the
  /// binary.
  std::string bytes;
};

/// One kernel: its entry point in the images and its number of device
/// pointers. Its CPU twin is `<name>__twin`.
struct DeviceKernelInfo {
  std::string name;
  int32_t numArgs = 0;
};

/// One weight uploaded when the model is created: the constant global
/// holding its data, the GPU whose arena holds it and its place there.
struct DeviceWeightInfo {
  std::string global;
  int32_t device = 0;
  uint64_t offset = 0, bytes = 0;
};

struct DeviceProgram {
  std::vector<DeviceKernelInfo> kernels;
  std::vector<DeviceWeightInfo> weights;
  /// GPU and CPU partitions, in the order of the schedule.
  std::vector<std::string> partitions;
  /// Per GPU (/device:GPU:0 first), the bytes of its device arena.
  std::vector<uint64_t> arenaBytes;
  int32_t numEvents = 0;
  /// The constant globals holding the library convolutions' descriptors
  /// (tandem_conv_desc_t), in schedule order.
  std::vector<std::string> convs;
};

/// Reads the `tandem_exec.program` attribute that tandem-lower-host-schedule
/// leaves on `module`; std::nullopt for a model without GPU partitions.
/// Fails with a diagnostic when the attribute is malformed.
FailureOr<std::optional<DeviceProgram>> readDeviceProgram(ModuleOp module);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_ARTIFACT_DEVICEPROGRAM_H
