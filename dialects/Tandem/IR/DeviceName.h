//===- DeviceName.h - TensorFlow-style device names -------------*- C++ -*-===//
//
// Parsing and printing of device names such as "/device:GPU:0". Plain C++ on
// llvm::StringRef, shared by the #tandem.device attribute and by the driver's
// --place flag.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_DEVICENAME_H
#define TANDEM_DIALECTS_TANDEM_IR_DEVICENAME_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::tandem {

/// The kind and ordinal of a device, independent of any MLIRContext.
struct DeviceName {
  /// The device kinds: the one enum #tandem.device, placement and the
  /// targets share. A new kind is a value here, its name in
  /// deviceKindName, and a Target (codegen/Target).
  enum class Kind { CPU, GPU };
  Kind kind = Kind::CPU;
  unsigned index = 0;

  bool operator==(const DeviceName &o) const {
    return kind == o.kind && index == o.index;
  }
};

/// Parses "/device:GPU:1", TensorFlow's fully qualified
/// "/job:localhost/replica:0/task:0/device:GPU:1", the short "gpu:1" and the
/// bare "gpu" (index 0). Kinds are case-insensitive. Returns std::nullopt for
/// anything else.
std::optional<DeviceName> parseDeviceName(llvm::StringRef text);

/// "CPU", "GPU": the kind as device names spell it.
llvm::StringRef deviceKindName(DeviceName::Kind kind);

/// Returns the canonical name, e.g. "/device:GPU:1".
std::string formatDeviceName(const DeviceName &device);

/// The message shown for a name that parseDeviceName rejects.
constexpr llvm::StringLiteral kDeviceNameHelp =
    "expected '/device:CPU:<n>' or '/device:GPU:<n>'";

} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_DEVICENAME_H
