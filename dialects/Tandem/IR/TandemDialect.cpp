//===- TandemDialect.cpp - the tandem graph dialect -----------------------===//
//
// Dialect registration, constant materialisation and verification of the
// discardable `tandem.device` attribute.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemDialect.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"

using namespace mlir;
using namespace mlir::tandem;

#include "dialects/Tandem/IR/TandemDialect.cpp.inc"

void TandemDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Tandem/IR/TandemOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *TandemDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult TandemDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == getDeviceAttrName()) {
    if (!isa<DeviceAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getDeviceAttrName()
             << "' must be a #tandem.device attribute, got " << attr.getValue();
    return success();
  }
  if (attr.getName() == getArenaBytesAttrName()) {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitError() << "'" << getArenaBytesAttrName()
                             << "' must be an integer attribute";
    return success();
  }
  if (attr.getName() == getPartitionAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getPartitionAttrName() << "' must be a unit attribute";
    return success();
  }
  if (attr.getName() == getKernelAttrName()) {
    // A string on the linalg ops of one fusion; a unit on an outlined GPU
    // kernel function (docs/GPU.md).
    if (!isa<StringAttr, UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getKernelAttrName()
                             << "' must be a string or unit attribute";
    return success();
  }
  if (attr.getName() == getEpilogueAttrName()) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue() != "relu")
      return op->emitError()
             << "'" << getEpilogueAttrName() << "' must be the string \"relu\"";
    return success();
  }
  if (attr.getName() == getParallelGrainAttrName()) {
    auto grain = dyn_cast<IntegerAttr>(attr.getValue());
    if (!grain || grain.getInt() < 1)
      return op->emitError() << "'" << getParallelGrainAttrName()
                             << "' must be a positive integer attribute";
    return success();
  }
  // The launch geometry of a GPU kernel call (docs/GPU.md).
  if (attr.getName() == "tandem.launch_dims") {
    auto dims = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!dims || dims.size() != 6 ||
        llvm::any_of(dims.asArrayRef(), [](int64_t d) { return d < 1; }))
      return op->emitError() << "'tandem.launch_dims' must be an array of 6 "
                                "positive i64 (grid x, y, z, block x, y, z)";
    return success();
  }
  return op->emitError() << "unknown tandem attribute '"
                         << attr.getName().getValue() << "'";
}
