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

/// The most elements the folders compute for a non-splat result: 1024 (so
/// the canonicaliser never duplicates a weight), unless a
/// ScopedFoldElementLimit on this thread says otherwise. Splats always fold.
int64_t foldElementLimit();

/// Sets foldElementLimit() on this thread while it lives (restoring the
/// previous limit after): tandem-fold-constant-subgraphs evaluates the
/// constant subgraphs of a model with larger results than the
/// canonicaliser does.
class ScopedFoldElementLimit {
public:
  explicit ScopedFoldElementLimit(int64_t limit);
  ~ScopedFoldElementLimit();
  ScopedFoldElementLimit(const ScopedFoldElementLimit &) = delete;
  ScopedFoldElementLimit &operator=(const ScopedFoldElementLimit &) = delete;

private:
  int64_t previous;
};

/// `op` applied to the small constant `input`, or null.
Attribute foldBroadcastToConstant(BroadcastToOp op, Attribute input);
/// `op` applied to the small constant `input`, or null.
Attribute foldSliceConstant(SliceOp op, Attribute input);
/// `op` converting the small constant `input` between an integer (or bool)
/// and a float type, or null.
Attribute foldIntFloatCast(CastOp op, Attribute input);

} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_DATAFOLDS_H
