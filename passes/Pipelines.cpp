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
  // Empty tensors last: the rewrites above turn gemms into matmuls, which
  // fold over K = 0.
  pm.addPass(createTandemFoldEmptyTensors());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tandem::registerTandemPipelines() {
  PassPipelineRegistration<>(
      "tandem-optimize-graph",
      "graph optimisation: folding, BatchNorm folding, bias normalisation, "
      "empty tensors, CSE and DCE",
      buildOptimizeGraphPipeline);
}
