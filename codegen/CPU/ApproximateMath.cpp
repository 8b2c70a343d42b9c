//===- ApproximateMath.cpp - inline polynomial exp, erf and tanh ----------===//
//
// tandem-approximate-math: rewrites f32 math.exp, math.expm1, math.erf and
// math.tanh into MLIR's polynomial approximations (plain arith ops), so that
// LLVM vectorises the loops around them instead of calling libm's scalar
// expf/erff once per element (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMAPPROXIMATEMATH
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {

struct ApproximateMathPass
    : tandem::impl::TandemApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return name == math::ExpOp::getOperationName() ||
             name == math::ExpM1Op::getOperationName() ||
             name == math::ErfOp::getOperationName() ||
             name == math::TanhOp::getOperationName();
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
