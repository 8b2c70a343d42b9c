//===- Pipelines.cpp - named pass pipelines -------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tandem;

void mlir::tandem::buildOptimizeGraphPipeline(OpPassManager &pm) {
  // Folding first exposes constant BatchNorm parameters and biases.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTandemFoldBatchNorm());
  pm.addPass(createTandemNormalizeBias());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tandem::registerTandemPipelines() {
  PassPipelineRegistration<>(
      "tandem-optimize-graph",
      "graph optimisation: folding, BatchNorm folding, bias normalisation, "
      "CSE and DCE",
      buildOptimizeGraphPipeline);
}
