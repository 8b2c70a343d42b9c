//===- TandemExecDialect.h - the host schedule dialect ----------*- C++ -*-===//
//
// Declares the tandem_exec dialect, its event type and its stream attribute.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEMEXEC_IR_TANDEMEXECDIALECT_H
#define TANDEM_DIALECTS_TANDEMEXEC_IR_TANDEMEXECDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/Tandem/IR/TandemDialect.h"

#include "dialects/TandemExec/IR/TandemExecDialect.h.inc"
#include "dialects/TandemExec/IR/TandemExecEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/TandemExec/IR/TandemExecTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TandemExec/IR/TandemExecAttrs.h.inc"

namespace mlir::tandem::exec {

/// Whether `type` is a memref in a GPU's memory space (a `#tandem.device`
/// of kind GPU).
bool isDeviceMemRef(Type type);

/// The GPU number of a memref in a GPU's memory space (its `#tandem.device`
/// index); std::nullopt for other memrefs.
std::optional<unsigned> deviceIndexOf(Type type);

/// Bytes of a statically shaped memref of int or float elements (i1 takes a
/// byte); -1 for other element types (index, complex, ...). Ops verify that
/// the result fits int64 (the ShapeSizesFit trait).
int64_t memRefBytes(MemRefType type);

} // namespace mlir::tandem::exec

#endif // TANDEM_DIALECTS_TANDEMEXEC_IR_TANDEMEXECDIALECT_H
