//===- ReshapeMaps.cpp - index maps across collapses and expands ----------===//

#include "codegen/GPU/ReshapeMaps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tandem;

AffineMap mlir::tandem::delinearizeMap(ArrayRef<ReassociationIndices> groups,
                         ArrayRef<int64_t> fine, MLIRContext *context) {
  // A dimension in no group (a collapse to rank 0 groups none of its unit
  // dimensions) is indexed at 0.
  SmallVector<AffineExpr> exprs(fine.size(), getAffineConstantExpr(0, context));
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

AffineMap mlir::tandem::sourceIndexMap(Operation *reshape) {
  MLIRContext *context = reshape->getContext();
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape))
    return delinearizeMap(collapse.getReassociationIndices(),
                          collapse.getSrcType().getShape(), context);
  auto expand = cast<tensor::ExpandShapeOp>(reshape);
  return linearizeMap(expand.getReassociationIndices(),
                      expand.getResultType().getShape(), context);
}

namespace {

/// The least and greatest values of an index expression.
struct Range {
  int64_t lo, hi;
};

/// The values `expr` takes with each dimension d in [0, bounds[d]), or
/// nullopt when that is not known.
std::optional<Range> rangeOf(AffineExpr expr, ArrayRef<int64_t> bounds) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    int64_t bound = bounds[dim.getPosition()];
    if (ShapedType::isDynamic(bound) || bound < 1)
      return std::nullopt;
    return Range{0, bound - 1};
  }
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return Range{constant.getValue(), constant.getValue()};
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return std::nullopt;
  std::optional<Range> lhs = rangeOf(binary.getLHS(), bounds);
  std::optional<Range> rhs = rangeOf(binary.getRHS(), bounds);
  if (!lhs || !rhs)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return Range{lhs->lo + rhs->lo, lhs->hi + rhs->hi};
  case AffineExprKind::Mul: {
    if (rhs->lo != rhs->hi)
      return std::nullopt;
    int64_t a = lhs->lo * rhs->lo, b = lhs->hi * rhs->lo;
    return Range{std::min(a, b), std::max(a, b)};
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
  case AffineExprKind::Mod: {
    int64_t divisor = rhs->lo;
    if (rhs->lo != rhs->hi || divisor < 1)
      return std::nullopt;
    if (expr.getKind() == AffineExprKind::Mod)
      return lhs->lo >= 0 && lhs->hi < divisor ? *lhs : Range{0, divisor - 1};
    if (expr.getKind() == AffineExprKind::FloorDiv)
      return Range{llvm::divideFloorSigned(lhs->lo, divisor),
                   llvm::divideFloorSigned(lhs->hi, divisor)};
    return Range{llvm::divideCeilSigned(lhs->lo, divisor),
                 llvm::divideCeilSigned(lhs->hi, divisor)};
  }
  default:
    return std::nullopt;
  }
}

/// The terms of the sum `expr`.
void sumTerms(AffineExpr expr, SmallVectorImpl<AffineExpr> &terms) {
  if (expr.getKind() == AffineExprKind::Add) {
    auto sum = cast<AffineBinaryOpExpr>(expr);
    sumTerms(sum.getLHS(), terms);
    sumTerms(sum.getRHS(), terms);
    return;
  }
  terms.push_back(expr);
}

AffineExpr simplifyWithBounds(AffineExpr expr, ArrayRef<int64_t> bounds) {
  // A dimension of one iteration is 0.
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return bounds[dim.getPosition()] == 1
               ? getAffineConstantExpr(0, expr.getContext())
               : expr;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return expr;
  AffineExpr lhs = simplifyWithBounds(binary.getLHS(), bounds);
  AffineExpr rhs = simplifyWithBounds(binary.getRHS(), bounds);
  AffineExprKind kind = expr.getKind();
  auto divisor = dyn_cast<AffineConstantExpr>(rhs);
  if ((kind == AffineExprKind::FloorDiv || kind == AffineExprKind::Mod) &&
      divisor && divisor.getValue() > 0) {
    int64_t m = divisor.getValue();
    MLIRContext *context = expr.getContext();
    // lhs = m * quotient + remainder, the quotient from the terms whose
    // coefficients m divides.
    SmallVector<AffineExpr> terms;
    sumTerms(lhs, terms);
    AffineExpr quotient = getAffineConstantExpr(0, context);
    AffineExpr remainder = getAffineConstantExpr(0, context);
    for (AffineExpr term : terms) {
      if (auto constant = dyn_cast<AffineConstantExpr>(term)) {
        int64_t q = llvm::divideFloorSigned(constant.getValue(), m);
        quotient = quotient + q;
        remainder = remainder + (constant.getValue() - q * m);
        continue;
      }
      int64_t coefficient = 1;
      AffineExpr factor = term;
      if (term.getKind() == AffineExprKind::Mul)
        if (auto scale = dyn_cast<AffineConstantExpr>(
                cast<AffineBinaryOpExpr>(term).getRHS())) {
          coefficient = scale.getValue();
          factor = cast<AffineBinaryOpExpr>(term).getLHS();
        }
      if (coefficient % m == 0)
        quotient = quotient + factor * (coefficient / m);
      else
        remainder = remainder + term;
    }
    std::optional<Range> range = rangeOf(remainder, bounds);
    if (range && range->lo >= 0 && range->hi < m)
      return kind == AffineExprKind::FloorDiv ? quotient : remainder;
  }
  return getAffineBinaryOpExpr(kind, lhs, rhs);
}

} // namespace

AffineMap mlir::tandem::simplifyWithBounds(AffineMap map,
                                           ArrayRef<int64_t> bounds) {
  SmallVector<AffineExpr> results;
  for (AffineExpr result : map.getResults())
    results.push_back(::simplifyWithBounds(result, bounds));
  return simplifyAffineMap(AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                                          results, map.getContext()));
}
