//===- ReshapeMaps.cpp - index maps across collapses and expands ----------===//

#include "codegen/GPU/ReshapeMaps.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::tandem;

AffineMap mlir::tandem::delinearizeMap(ArrayRef<ReassociationIndices> groups,
                         ArrayRef<int64_t> fine, MLIRContext *context) {
  SmallVector<AffineExpr> exprs(fine.size());
  for (auto [coarse, group] : llvm::enumerate(groups)) {
    SmallVector<int64_t> sizes;
    for (int64_t dim : group)
      sizes.push_back(fine[dim]);
    SmallVector<int64_t> strides = computeSuffixProduct(sizes);
    AffineExpr index = getAffineDimExpr(coarse, context);
    // A unit dimension's index is 0; one after only unit dimensions needs
    // no modulo (the coarse index stays below its size times its stride).
    bool outer = false;
    for (auto [k, dim] : llvm::enumerate(group)) {
      if (fine[dim] == 1) {
        exprs[dim] = getAffineConstantExpr(0, context);
        continue;
      }
      AffineExpr expr = strides[k] == 1 ? index : index.floorDiv(strides[k]);
      exprs[dim] = outer ? expr % fine[dim] : expr;
      outer = true;
    }
  }
  return AffineMap::get(groups.size(), 0, exprs, context);
}

AffineMap mlir::tandem::linearizeMap(ArrayRef<ReassociationIndices> groups,
                       ArrayRef<int64_t> fine, MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  for (const ReassociationIndices &group : groups) {
    AffineExpr expr = getAffineConstantExpr(0, context);
    for (int64_t dim : group)
      expr = expr * fine[dim] + getAffineDimExpr(dim, context);
    exprs.push_back(expr);
  }
  return AffineMap::get(fine.size(), 0, exprs, context);
}
