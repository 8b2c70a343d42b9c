//===- TandemDialect.cpp - the tandem graph dialect -----------------------===//
//
// Dialect registration, constant materialisation and verification of the
// discardable `tandem.device` attribute.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemDialect.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

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

bool TandemDialect::isKernelFunction(Operation *op) {
  return isa_and_nonnull<UnitAttr>(op->getAttr(getKernelAttrName()));
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
    // A kernel function (docs/GPU.md) carries it as a unit attribute.
    if (isa<FunctionOpInterface>(op) && isa<UnitAttr>(attr.getValue()))
      return success();
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << getKernelAttrName()
                             << "' must be a string attribute (or a unit "
                                "attribute on a kernel function)";
    return success();
  }
  if (attr.getName() == getEpilogueAttrName()) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || !llvm::is_contained({"relu", "relu6", "hardswish", "silu"},
                                     name.getValue()))
      return op->emitError() << "'" << getEpilogueAttrName()
                             << "' must be the string \"relu\", \"relu6\", "
                                "\"hardswish\" or \"silu\"";
    return success();
  }
  if (attr.getName() == getPackedInputAttrName()) {
    if (op->getName().getStringRef() != "linalg.conv_2d_nchw_fchw" ||
        !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getPackedInputAttrName()
                             << "' must be a unit attribute on a "
                                "linalg.conv_2d_nchw_fchw";
    return success();
  }
  if (attr.getName() == getConvGroupsAttrName()) {
    auto groups = dyn_cast<IntegerAttr>(attr.getValue());
    if (op->getName().getStringRef() != "linalg.generic" || !groups ||
        groups.getInt() < 1)
      return op->emitError() << "'" << getConvGroupsAttrName()
                             << "' must be a positive integer on a "
                                "linalg.generic";
    return success();
  }
  if (attr.getName() == getParallelGrainAttrName()) {
    auto grain = dyn_cast<IntegerAttr>(attr.getValue());
    if (!grain || grain.getInt() < 1)
      return op->emitError() << "'" << getParallelGrainAttrName()
                             << "' must be a positive integer attribute";
    return success();
  }
  // A GPU row kernel's row trip counts.
  if (attr.getName() == getRowKernelAttrName()) {
    auto rows = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || !rows ||
        llvm::any_of(rows.asArrayRef(), [](int64_t n) { return n < 2; }))
      return op->emitError()
             << "'" << getRowKernelAttrName()
             << "' must be an array<i64> of trip counts above 1 on a kernel "
                "function";
    return success();
  }
  if (attr.getName() == getSplitArrivalsAttrName()) {
    // Its last argument's type (a memref<1xi32> until the kernel lowers to
    // LLVM) is tandem-map-kernels-to-gpu's to check.
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getSplitArrivalsAttrName()
                             << "' must be a unit attribute on a function";
    return success();
  }
  if (attr.getName() == getSplitCombineAttrName() ||
      attr.getName() == getKernelEpilogueAttrName()) {
    if (op->getName().getStringRef() != "linalg.generic" ||
        !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute on a "
                                "linalg.generic";
    return success();
  }
  if (attr.getName() == getLaunchDimsAttrName()) {
    auto dims = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!dims || dims.size() != 6 ||
        llvm::any_of(dims.asArrayRef(), [](int64_t d) { return d < 1; }))
      return op->emitError()
             << "'" << getLaunchDimsAttrName()
             << "' must be array<i64: gx, gy, gz, bx, by, bz> of positive "
                "sizes";
    return success();
  }
  return op->emitError() << "unknown tandem attribute '"
                         << attr.getName().getValue() << "'";
}
