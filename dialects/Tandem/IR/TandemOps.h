//===- TandemOps.h - tandem graph ops ---------------------------*- C++ -*-===//
//
// Declares the ops of the tandem dialect and the shared type-inference entry
// points that their TableGen base classes call.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_TANDEMOPS_H
#define TANDEM_DIALECTS_TANDEM_IR_TANDEMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/Tandem/IR/TandemTraits.h"

#include "dialects/Tandem/IR/TandemInterfaces.h.inc"

namespace mlir::tandem {

/// Infers the NumPy-broadcast result of `operands`. The element type is
/// `elementType` when given, else that of the first operand. Emits a
/// diagnostic at `loc` (when present) naming `opName` on failure.
LogicalResult inferBroadcastResultType(std::optional<Location> loc,
                                       StringRef opName, ValueRange operands,
                                       Type elementType,
                                       SmallVectorImpl<Type> &types);

/// Infers the result of a reduction of `input` over `axes`.
LogicalResult inferReduceResultType(std::optional<Location> loc,
                                    StringRef opName, Value input,
                                    ArrayRef<int64_t> axes, bool keepDims,
                                    SmallVectorImpl<Type> &types);

/// Infers the i64 result of an arg_max/arg_min of `input` along `axis`.
LogicalResult inferArgReduceResultType(std::optional<Location> loc,
                                       StringRef opName, Value input,
                                       int64_t axis, bool keepDims,
                                       SmallVectorImpl<Type> &types);

} // namespace mlir::tandem

#define GET_OP_CLASSES
#include "dialects/Tandem/IR/TandemOps.h.inc"

#endif // TANDEM_DIALECTS_TANDEM_IR_TANDEMOPS_H
