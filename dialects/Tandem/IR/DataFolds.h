//===- DataFolds.h - constant folds shared by the op folders ----*- C++ -*-===//
//
// Constant evaluations of ops whose folders also fold identities in
// TandemFolds.cpp; defined in TandemDataFolds.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_DATAFOLDS_H
#define TANDEM_DIALECTS_TANDEM_IR_DATAFOLDS_H

#include "dialects/Tandem/IR/TandemOps.h"

namespace mlir::tandem {

/// `op` applied to the small constant `input`, or null.
Attribute foldBroadcastToConstant(BroadcastToOp op, Attribute input);
/// `op` applied to the small constant `input`, or null.
Attribute foldSliceConstant(SliceOp op, Attribute input);
/// `op` converting the small constant `input` between an integer (or bool)
/// and a float type, or null.
Attribute foldIntFloatCast(CastOp op, Attribute input);

} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_DATAFOLDS_H
