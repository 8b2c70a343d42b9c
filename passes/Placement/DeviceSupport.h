//===- DeviceSupport.h - what placement asks of a device kind ---*- C++ -*-===//
//
// Placement keeps ops off devices that cannot run them, but it does not
// know how ops are compiled: it asks the tandem dialect's
// DeviceSupportInterface, which the code generator's targets implement
// (codegen/Target/Target.h registers it). So the query lives here and its
// answers live with the code that compiles the ops; no arrow points from
// passes/ to codegen/.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PLACEMENT_DEVICESUPPORT_H
#define TANDEM_PASSES_PLACEMENT_DEVICESUPPORT_H

#include "dialects/Tandem/IR/DeviceName.h"

#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace mlir::tandem {

/// The code generators' answer to "can a device of this kind run this op?",
/// attached to the tandem dialect.
class DeviceSupportInterface
    : public DialectInterface::Base<DeviceSupportInterface> {
public:
  explicit DeviceSupportInterface(Dialect *dialect) : Base(dialect) {}

  /// Why `op` (not a fusion: whyNotOnDevice looks inside those) cannot run
  /// on a device of `kind`, or std::nullopt when it can.
  virtual std::optional<std::string>
  whyUnsupported(Operation *op, DeviceName::Kind kind) const = 0;
};

/// Why `op` cannot run on a device of `kind`, or std::nullopt when it can:
/// a fusion runs where all of its body does. Without a registered
/// DeviceSupportInterface no device kind runs anything but the CPU, and the
/// reason says so.
std::optional<std::string> whyNotOnDevice(Operation *op, DeviceName::Kind kind);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PLACEMENT_DEVICESUPPORT_H
