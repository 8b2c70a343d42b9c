//===- Passes.h - Tandem passes ---------------------------------*- C++ -*-===//
//
// Declarations of every Tandem pass (generated from Passes.td) and their
// registration.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PASSES_H
#define TANDEM_PASSES_PASSES_H

#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace mlir::tandem {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Patterns of -tandem-fold-batch-norm and -tandem-normalize-bias, for
/// pipelines that run them together with other patterns. A weight they
/// replace is freed at once when `weightScope` (weightReleaseScope of the
/// pass's root, passes/Optimize/ConstantData.h) is given, else when the
/// pass ends.
void populateFoldBatchNormPatterns(RewritePatternSet &patterns,
                                   Operation *weightScope = nullptr);
void populateNormalizeBiasPatterns(RewritePatternSet &patterns,
                                   Operation *weightScope = nullptr);

/// The graph optimisation phase: canonicalisation (constant folding with a
/// size cap, identity and no-op removal, reshape/transpose chains), BatchNorm
/// folding, conv taps that only read padding, bias normalisation, CSE.
/// Registered as tandem-optimize-graph.
void buildOptimizeGraphPipeline(OpPassManager &pm);

/// The fusion kinds' names in FusionKind order, "loop, input, output or
/// multi_output": the one list that option help and diagnostics print.
std::string fusionKindList();

/// Registers the named pipelines (tandem-optimize-graph).
void registerTandemPipelines();

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PASSES_H
