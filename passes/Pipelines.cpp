//===- Pipelines.cpp - named pass pipelines -------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tandem;

void mlir::tandem::buildOptimizeGraphPipeline(OpPassManager &pm) {
  // Folding first exposes constant BatchNorm parameters and biases.
  pm.addPass(createCanonicalizerPass());
  // Weight rearrangements (ConvTranspose's kernel) become constants before
  // BatchNorm folding looks for constant weights.
  pm.addPass(createTandemFoldConstantMovement());
  // Masks and scales computed from constants (with the moves above
  // folded where they fed a fold).
  pm.addPass(createTandemFoldConstantSubgraphs());
  pm.addPass(createTandemFoldBatchNorm());
  // After folding, which may have made the filters constant.
  pm.addPass(createTandemTrimConvTaps());
  pm.addPass(createTandemNormalizeBias());
  // After bias normalisation: a linear layer's bias is a bias_add then.
  pm.addPass(createTandemFoldChannelScale());
  // After the folds that change one projection's weights alone.
  pm.addPass(createTandemMergeSiblingMatmuls());
  // Empty tensors last: the rewrites above turn gemms into matmuls, which
  // fold over K = 0.
  pm.addPass(createTandemFoldEmptyTensors());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tandem::registerTandemPipelines() {
  PassPipelineRegistration<>(
      "tandem-optimize-graph",
      "graph optimisation: folding, constant data movement, constant "
      "subgraphs, BatchNorm folding, "
      "conv taps that read only padding, "
      "bias normalisation, constant channel scales, sibling matmuls, "
      "empty tensors, CSE and DCE",
      buildOptimizeGraphPipeline);
}
