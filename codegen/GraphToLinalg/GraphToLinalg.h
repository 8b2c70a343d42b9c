//===- GraphToLinalg.h - tandem to linalg lowering --------------*- C++ -*-===//
//
// Entry points of the tandem -> linalg-on-tensors lowering: the pattern set
// and the conversion target shared by -tandem-lower-to-linalg and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GRAPHTOLINALG_GRAPHTOLINALG_H
#define TANDEM_CODEGEN_GRAPHTOLINALG_GRAPHTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tandem {

/// Adds the conversion patterns of every tandem compute op (elementwise,
/// shape, contraction, reduction families) to `patterns`.
void populateTandemToLinalgPatterns(RewritePatternSet &patterns);

/// Marks linalg, tensor, arith, math and func legal and every tandem op but
/// `tandem.transfer` (and, with `allowFusions`, `tandem.fusion` and
/// `tandem.yield`) illegal.
void configureTandemToLinalgTarget(ConversionTarget &target, bool allowFusions);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GRAPHTOLINALG_GRAPHTOLINALG_H
