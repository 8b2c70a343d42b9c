//===- TandemAttrs.cpp - tandem attributes and enums ----------------------===//
//
// The #tandem.device attribute's TensorFlow-style syntax, and the generated
// enum and attribute definitions.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemAttrs.h"

#include "dialects/Tandem/IR/DeviceName.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tandem;

#include "dialects/Tandem/IR/TandemEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tandem/IR/TandemAttrs.cpp.inc"

void TandemDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Tandem/IR/TandemAttrs.cpp.inc"
      >();
}

std::string DeviceAttr::getName() const {
  return formatDeviceName(getDeviceName());
}

Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  std::string text;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&text) || parser.parseGreater())
    return {};
  std::optional<DeviceName> name = parseDeviceName(text);
  if (!name) {
    parser.emitError(loc) << "invalid device name '" << text
                          << "': " << kDeviceNameHelp;
    return {};
  }
  return getDeviceAttr(parser.getContext(), *name);
}

void DeviceAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getName() << "\">";
}

DeviceAttr mlir::tandem::getDeviceAttr(MLIRContext *context,
                                       const DeviceName &name) {
  return DeviceAttr::get(context, name.kind, name.index);
}

DeviceAttr mlir::tandem::getDevice(Operation *op) {
  return op->getAttrOfType<DeviceAttr>(TandemDialect::getDeviceAttrName());
}

void mlir::tandem::setDevice(Operation *op, DeviceAttr device) {
  op->setAttr(TandemDialect::getDeviceAttrName(), device);
}
