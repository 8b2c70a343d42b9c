//===- OpCost.cpp - work and traffic estimates of tandem ops --------------===//

#include "passes/Analysis/OpCost.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::tandem;

int64_t mlir::tandem::tensorElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 1;
  return tensor.getNumElements();
}

int64_t mlir::tandem::tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  return tensor.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

/// Flops of the op itself (the bytes are computed uniformly): what its
/// CostOpInterface says, from its FlopsPerElement or DataMovement trait or
/// its own formula (TandemOpCosts.cpp). Zero-cost tandem ops and ops of other
/// dialects do no arithmetic here.
static double computeFlops(Operation *op) {
  if (auto cost = dyn_cast<CostOpInterface>(op))
    return cost.getFlops();
  return 0;
}

/// Whether `op` is dense linear algebra: it has the matrix fusion role.
static bool isMatrixOp(Operation *op) {
  return op->hasTrait<tandem::OpTrait::MatrixRole>();
}

OpCost mlir::tandem::estimateOpCost(Operation *op) {
  OpCost cost;
  // Metadata-only ops (constants, reshapes, terminators): no kernel, no
  // traffic.
  if (op->hasTrait<tandem::OpTrait::ZeroCost>())
    return cost;
  cost.flops = computeFlops(op);
  cost.isMatrix = isMatrixOp(op);
  if (auto fusion = dyn_cast<FusionOp>(op))
    cost.isMatrix = llvm::any_of(fusion.getBody().front(),
                                 [](Operation &o) { return isMatrixOp(&o); });
  for (Value operand : op->getOperands())
    cost.bytesRead += tensorBytes(operand.getType());
  for (Type result : op->getResultTypes())
    cost.bytesWritten += tensorBytes(result);
  return cost;
}
