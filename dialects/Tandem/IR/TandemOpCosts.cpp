//===- TandemOpCosts.cpp - the flops of each tandem op --------------------===//
//
// Tandem_CostOpInterface and the ops' own cost formulas: the arithmetic a
// contraction, pool, reduction, normalisation or fusion performs on its
// static shapes. Elementwise and data-movement ops get theirs from traits
// (TandemTraits.h); passes/Analysis/OpCost.cpp adds the bytes.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"

using namespace mlir;
using namespace mlir::tandem;

#include "dialects/Tandem/IR/TandemInterfaces.cpp.inc"

/// Elements of a statically shaped tensor (1 for anything else, as in
/// passes/Analysis/OpCost.h's tensorElements).
static int64_t elements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 1;
  return tensor.getNumElements();
}

double mlir::tandem::detail::countResultElements(Operation *op) {
  double n = 0;
  for (Type t : op->getResultTypes())
    n += elements(t);
  return n;
}

//===----------------------------------------------------------------------===//
// Contractions: a multiply-add (two flops) per reduced element per output
//===----------------------------------------------------------------------===//

double Conv2DOp::getFlops() {
  auto filter = getFilter().getType();
  // Each output element: C/groups * KH * KW multiply-adds (the filter's
  // dimensions past the first, in either layout).
  double macs =
      filter.getDimSize(1) * filter.getDimSize(2) * filter.getDimSize(3);
  return 2.0 * macs * elements(getType());
}

double MatmulOp::getFlops() {
  auto lhs = getLhs().getType();
  double k = lhs.getDimSize(lhs.getRank() - 1);
  return 2.0 * k * elements(getType());
}

double GemmOp::getFlops() {
  auto a = getA().getType();
  double k = a.getDimSize(getTransA() ? 0 : 1);
  // The product, then alpha/beta scaling and the addition of C.
  return 2.0 * k * elements(getType()) + 2.0 * elements(getType());
}

//===----------------------------------------------------------------------===//
// Windows: one operation per window element per output
//===----------------------------------------------------------------------===//

/// A pool's window size times its output elements.
template <typename PoolOp> static double poolFlops(PoolOp pool) {
  double window = 1;
  for (int64_t k : pool.getKernelShape())
    window *= k;
  return window * elements(pool.getType());
}

double MaxPool2DOp::getFlops() { return poolFlops(*this); }
double AvgPool2DOp::getFlops() { return poolFlops(*this); }

double CumSumOp::getFlops() {
  // The masked reduction: n compares, selects and adds per output element,
  // for a row of n on the axis.
  auto type = getInput().getType();
  double n = type.getDimSize(getAxis());
  return 3.0 * n * elements(type);
}

double TopKOp::getFlops() {
  // Ranks: about 8 operations per pair of elements in a row; the pick: 3 per
  // element for each of the k outputs.
  auto type = getInput().getType();
  double n = type.getDimSize(getAxis());
  return (8.0 * n + 3.0 * getK()) * elements(type);
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

/// One operation per element read.
static double perInputElement(Value input) {
  return double(elements(input.getType()));
}

double GlobalAvgPoolOp::getFlops() { return perInputElement(getInput()); }
double ReduceSumOp::getFlops() { return perInputElement(getInput()); }
double ReduceMeanOp::getFlops() { return perInputElement(getInput()); }
double ReduceMaxOp::getFlops() { return perInputElement(getInput()); }
double ReduceMinOp::getFlops() { return perInputElement(getInput()); }
double ReduceProdOp::getFlops() { return perInputElement(getInput()); }

// A compare and two selects per element.
double ArgMaxOp::getFlops() { return 3.0 * elements(getInput().getType()); }
double ArgMinOp::getFlops() { return 3.0 * elements(getInput().getType()); }

double SoftmaxOp::getFlops() {
  // max, subtract, exp, sum, divide.
  return 16.0 * elements(getType());
}

double LayerNormOp::getFlops() {
  // mean, variance, normalise, scale and shift.
  return 8.0 * elements(getType());
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

double FusionOp::getFlops() {
  // The sum of the body's arithmetic; what fusion saves is traffic.
  double flops = 0;
  for (Operation &inner : getBody().front())
    if (auto cost = dyn_cast<CostOpInterface>(&inner))
      flops += cost.getFlops();
  return flops;
}
