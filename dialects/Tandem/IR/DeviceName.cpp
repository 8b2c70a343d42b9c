//===- DeviceName.cpp - TensorFlow-style device names ---------------------===//

#include "dialects/Tandem/IR/DeviceName.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir::tandem;

std::optional<DeviceName> mlir::tandem::parseDeviceName(llvm::StringRef text) {
  llvm::StringRef rest = text.trim();
  // Fully qualified TensorFlow names prefix /job:.../replica:.../task:...;
  // keep only the part from "/device:" on.
  if (rest.starts_with("/job:")) {
    size_t pos = rest.find("/device:");
    if (pos == llvm::StringRef::npos)
      return std::nullopt;
    rest = rest.drop_front(pos);
  }
  if (!rest.consume_front("/device:"))
    // Short forms "gpu:1" and "gpu" are accepted only without a leading '/'.
    if (rest.starts_with("/"))
      return std::nullopt;

  auto [kindText, indexText] = rest.split(':');
  DeviceName device;
  if (kindText.equals_insensitive("cpu"))
    device.kind = DeviceName::Kind::CPU;
  else if (kindText.equals_insensitive("gpu"))
    device.kind = DeviceName::Kind::GPU;
  else
    return std::nullopt;

  if (indexText.empty()) {
    // "gpu" alone means index 0, but "gpu:" is malformed.
    if (rest.contains(':'))
      return std::nullopt;
    return device;
  }
  if (!llvm::all_of(indexText, llvm::isDigit) || indexText.size() > 6)
    return std::nullopt;
  unsigned index = 0;
  if (indexText.getAsInteger(10, index))
    return std::nullopt;
  device.index = index;
  return device;
}

llvm::StringRef mlir::tandem::deviceKindName(DeviceName::Kind kind) {
  switch (kind) {
  case DeviceName::Kind::CPU:
    return "CPU";
  case DeviceName::Kind::GPU:
    return "GPU";
  }
  llvm_unreachable("a device kind without a name");
}

std::string mlir::tandem::formatDeviceName(const DeviceName &device) {
  return ("/device:" + deviceKindName(device.kind) + ":" +
          llvm::Twine(device.index))
      .str();
}
