//===- Target.h - one device kind's code generator --------------*- C++ -*-===//
//
// The seam between the device-independent compiler and each device kind's
// code generation: a Target per kind (CPUTarget.cpp, CUDATarget.cpp). Today
// it owns what placement asks (which ops the kind runs, and why not), which
// it answers through placement's DeviceSupportInterface; the pipelines and
// kernel compilation are reached through the CPU and GPU pipeline headers.
// A new device kind is a DeviceName::Kind, a Target here and a runtime
// backend (docs/Architecture.md, "Adding a device kind").
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_TARGET_TARGET_H
#define TANDEM_CODEGEN_TARGET_TARGET_H

#include "dialects/Tandem/IR/DeviceName.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tandem {

/// One device kind's code generator.
class Target {
public:
  virtual ~Target() = default;
  /// The device kind this target compiles for.
  virtual DeviceName::Kind kind() const = 0;
  /// "cpu", "cuda".
  virtual llvm::StringRef name() const = 0;
  /// Why this target cannot compile `op` (one op, not a fusion), or
  /// std::nullopt when it can.
  virtual std::optional<std::string> whyUnsupported(Operation *op) const = 0;
};

/// The CPU target (LLVM): runs every tandem op.
const Target &getCPUTarget();
/// The CUDA target (NVVM/PTX and cuBLASLt).
const Target &getCUDATarget();
/// The target of each device kind, in DeviceName::Kind order.
llvm::ArrayRef<const Target *> getTargets();
/// The target of `kind`, or null when no target compiles for it.
const Target *lookupTarget(DeviceName::Kind kind);

/// Attaches the targets' op support to the tandem dialect as placement's
/// DeviceSupportInterface.
void registerTargetInterfaces(DialectRegistry &registry);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_TARGET_TARGET_H
