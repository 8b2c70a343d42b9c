//===- TandemAttrs.h - tandem attributes and enums --------------*- C++ -*-===//
//
// Declares the tandem enums and attributes, including #tandem.device.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_TANDEMATTRS_H
#define TANDEM_DIALECTS_TANDEM_IR_TANDEMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/Tandem/IR/DeviceName.h"
#include "dialects/Tandem/IR/TandemEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tandem/IR/TandemAttrs.h.inc"

namespace mlir::tandem {

/// Returns the device attribute for a parsed device name.
DeviceAttr getDeviceAttr(MLIRContext *context, const DeviceName &name);

/// Returns the placement of `op` (its `tandem.device` attribute), or null.
DeviceAttr getDevice(Operation *op);

/// Sets the placement of `op`.
void setDevice(Operation *op, DeviceAttr device);

} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_TANDEMATTRS_H
