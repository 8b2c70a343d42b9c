//===- TandemExecDialect.cpp - the host schedule dialect ------------------===//
//
// Registration of the tandem_exec dialect and its event type, and the memref
// helpers its ops and passes share.
//
//===----------------------------------------------------------------------===//

#include "dialects/TandemExec/IR/TandemExecDialect.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/TandemExec/IR/TandemExecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

#include "dialects/TandemExec/IR/TandemExecDialect.cpp.inc"
#include "dialects/TandemExec/IR/TandemExecEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/TandemExec/IR/TandemExecTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TandemExec/IR/TandemExecAttrs.cpp.inc"

void TandemExecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/TandemExec/IR/TandemExecOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

void TandemExecDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/TandemExec/IR/TandemExecAttrs.cpp.inc"
      >();
}

std::string StreamAttr::getLabel() const {
  std::string label = stringifyStreamKind(getKind()).str();
  if (getDevice() != 0)
    label += "[" + std::to_string(getDevice()) + "]";
  return label;
}

void TandemExecDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/TandemExec/IR/TandemExecTypes.cpp.inc"
      >();
}

bool mlir::tandem::exec::isDeviceMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  auto device = dyn_cast_or_null<DeviceAttr>(memref.getMemorySpace());
  return device && device.isGPU();
}

std::optional<unsigned> mlir::tandem::exec::deviceIndexOf(Type type) {
  if (!isDeviceMemRef(type))
    return std::nullopt;
  return cast<DeviceAttr>(cast<MemRefType>(type).getMemorySpace()).getIndex();
}

int64_t mlir::tandem::exec::memRefBytes(MemRefType type) {
  if (!type.getElementType().isIntOrFloat())
    return -1; // index, complex, vector...: no bit width to ask for
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}
