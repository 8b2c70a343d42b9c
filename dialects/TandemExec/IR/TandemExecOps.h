//===- TandemExecOps.h - host schedule ops ----------------------*- C++ -*-===//
//
// Declares the ops of the tandem_exec dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEMEXEC_IR_TANDEMEXECOPS_H
#define TANDEM_DIALECTS_TANDEMEXEC_IR_TANDEMEXECOPS_H

#include "dialects/Tandem/IR/TandemTraits.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/TandemExec/IR/TandemExecDialect.h"

namespace mlir::tandem::exec {
/// The device arena, as a side-effect resource of the buffer ops.
struct DeviceArenaResource
    : public SideEffects::Resource::Base<DeviceArenaResource> {
  StringRef getName() final { return "DeviceArena"; }
};

/// The streams and events, as a side-effect resource of the schedule ops.
struct StreamsResource : public SideEffects::Resource::Base<StreamsResource> {
  StringRef getName() final { return "Streams"; }
};
} // namespace mlir::tandem::exec

#define GET_OP_CLASSES
#include "dialects/TandemExec/IR/TandemExecOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tandem::exec {

/// The `precision` attribute of the library calls (`tandem_exec.gemm`,
/// `tandem_exec.conv`) a pass forms with the option value `precision`: null
/// for fp32 (the default, left out of the IR), else the name. Fails with an
/// error on `anchor` when `precision` is not fp32, tf32, bf16 or fp16.
FailureOr<StringAttr> libraryPrecisionAttr(Operation *anchor,
                                           StringRef precision);

/// Registers the bufferisation of `tandem.transfer` into
/// `tandem_exec.transfer` (a BufferizableOpInterface external model).
void registerTransferBufferization(DialectRegistry &registry);

} // namespace mlir::tandem::exec

#endif // TANDEM_DIALECTS_TANDEMEXEC_IR_TANDEMEXECOPS_H
