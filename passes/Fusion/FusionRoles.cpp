//===- FusionRoles.cpp - what each tandem op is to fusion -----------------===//
//
// Reads the fusion role (matrix root, reduction root, elementwise, layout,
// window, barrier) and the Transcendental marker from each op's traits
// (TandemOps.td), and says which constants are small enough to clone.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/FusionPlanner.h"

#include "dialects/Tandem/IR/TandemOps.h"

using namespace mlir;
using namespace mlir::tandem;

FusionRole mlir::tandem::getFusionRole(Operation *op) {
  // Each tandem op declares its role as a trait (TandemOps.td); ops of other
  // dialects are barriers.
  if (op->hasTrait<tandem::OpTrait::MatrixRole>())
    return FusionRole::Matrix;
  if (op->hasTrait<tandem::OpTrait::ReductionRole>())
    return FusionRole::Reduction;
  if (op->hasTrait<tandem::OpTrait::Elementwise>() ||
      op->hasTrait<tandem::OpTrait::ElementwiseRole>())
    return FusionRole::Elementwise;
  if (op->hasTrait<tandem::OpTrait::LayoutRole>())
    return FusionRole::Layout;
  if (op->hasTrait<tandem::OpTrait::WindowRole>())
    return FusionRole::Window;
  return FusionRole::Barrier;
}

bool mlir::tandem::isTranscendental(Operation *op) {
  return op->hasTrait<tandem::OpTrait::Transcendental>();
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
