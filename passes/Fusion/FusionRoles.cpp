//===- FusionRoles.cpp - what each tandem op is to fusion -----------------===//
//
// Classifies ops into fusion roles (matrix root, reduction root,
// elementwise, layout, window, barrier), and says which ops are
// transcendental and which constants are small enough to clone.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/FusionPlanner.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tandem;

FusionRole mlir::tandem::getFusionRole(Operation *op) {
  if (isa<Conv2DOp, MatmulOp, GemmOp>(op))
    return FusionRole::Matrix;
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
          ArgMaxOp, ArgMinOp, SoftmaxOp, LayerNormOp, GlobalAvgPoolOp>(op))
    return FusionRole::Reduction;
  if (op->hasTrait<tandem::OpTrait::Elementwise>() || isa<BatchNormOp>(op))
    return FusionRole::Elementwise;
  if (isa<ReshapeOp, TransposeOp, BroadcastToOp, CastOp, SliceOp, ConcatOp,
          PadOp, GatherOp, GatherElementsOp, GatherNDOp>(op))
    return FusionRole::Layout;
  // A cumsum reads each input element once per output element after (or
  // before) it on its axis: a fused producer would be recomputed each time.
  // top_k likewise, when it ranks the elements of a row.
  if (isa<MaxPool2DOp, AvgPool2DOp, CumSumOp, TopKOp>(op))
    return FusionRole::Window;
  return FusionRole::Barrier;
}

bool mlir::tandem::isTranscendental(Operation *op) {
  return isa<ExpOp, LogOp, TanhOp, ErfOp, PowOp, SqrtOp, RsqrtOp, SigmoidOp,
             GeluOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp,
             CoshOp, AsinhOp, AcoshOp, AtanhOp>(op);
}

bool mlir::tandem::isInlinableConstant(Operation *op,
                                       const FusionConfig &config) {
  auto constant = dyn_cast<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense)
    return false; // dense_resource blobs are weights
  return dense.isSplat() || static_cast<uint64_t>(dense.getNumElements()) <=
                                config.maxInlineConstantElements;
}
