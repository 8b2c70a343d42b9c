//===- CPUPipeline.cpp - from linalg on tensors to the LLVM dialect -------===//

#include "codegen/CPU/CPUPipeline.h"

#include "codegen/HostSchedule/Passes.h"
#include "codegen/Passes.h"
#include "passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tandem;

void mlir::tandem::buildInlineAndBufferizePipeline(OpPassManager &pm,
                                                   bool allowUnknownOps,
                                                   bool foldIntoContractions,
                                                   bool kernelActivations) {
  // One function per model: the host partitions are inlined into the
  // schedule first, so that bufferisation sees the whole model (outputs
  // written in place, no result copies).
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  if (foldIntoContractions)
    pm.addPass(createTandemFoldIntoContractions());
  TandemFuseElementwiseOptions fuse;
  fuse.hardswish = kernelActivations;
  fuse.silu = kernelActivations;
  pm.addPass(createTandemFuseElementwise(fuse));
  // GPU partitions only: long reductions over few points in two steps.
  pm.addPass(createTandemSplitReductions());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowUnknownOps = allowUnknownOps;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // Results that reshape an allocation: written into the output, not
  // copied.
  pm.addPass(createTandemWriteResultsInPlace());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tandem::buildCPUBufferizePipeline(OpPassManager &pm) {
  buildInlineAndBufferizePipeline(pm, /*allowUnknownOps=*/false,
                                  /*foldIntoContractions=*/true,
                                  /*kernelActivations=*/true);
  // A depthwise conv reading a zero-padded copy reads the copy's source
  // instead (tandem_dwconv2d_pad_f32): rewritten before the plan, so that
  // the padded buffer needs no arena slot and the source stays live up to
  // the conv.
  TandemCallCPUKernelsOptions implicitPads;
  implicitPads.implicitPadsOnly = true;
  pm.addPass(createTandemCallCPUKernels(implicitPads));
  // One arena holds every intermediate buffer; whatever the plan cannot
  // hold is deallocated.
  pm.addPass(createTandemPlanMemory());
  bufferization::buildBufferDeallocationPipeline(pm);
}

void mlir::tandem::buildCPULowerToLLVMPipeline(OpPassManager &pm,
                                               bool winograd) {
  // f32 contractions become calls of the runtime's packed, threaded sgemm
  // (matched on linalg ops, so before any loops exist); everything else
  // becomes loops, parallel dimensions scf.parallel, whose large outermost
  // ones are outlined into chunk bodies.
  TandemCallCPUKernelsOptions kernels;
  kernels.winograd = winograd;
  pm.addPass(createTandemCallCPUKernels(kernels));
  // A model with GPU partitions: its host schedule becomes calls of the
  // runtime's tandem_sched_* functions (no-op without one).
  pm.addPass(createTandemLowerHostSchedule());
  pm.addPass(createTandemNarrowPadFills());
  pm.addPass(createTandemLowerMemRefCopies());
  // Empty arguments get a type the bare-pointer convention accepts.
  pm.addNestedPass<func::FuncOp>(createTandemFlattenEmptyArguments());
  // Elementwise ops on whole planes, not rows, so their loops vectorise.
  pm.addPass(createTandemCollapseInnerLoops());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  // Reduction loops keep their accumulator in a register, so that LLVM
  // vectorises them.
  pm.addPass(createTandemPromoteReductions());
  pm.addPass(createTandemOutlineParallelLoops());
  // The loop nests of very long functions get functions of their own, so
  // that LLVM's code generation stays linear in the graph's size.
  pm.addPass(createTandemOutlineLoopNests());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Only tanh and rsqrt are expanded (into exp and sqrt): every other math
  // op has an LLVM intrinsic or a libm function with C semantics, where the
  // expansions are not exact (powf as exp(y * log(x)) is NaN for a negative
  // base and for 0^0; asinh, sinh, ... lose precision).
  math::MathExpandOpsPassOptions expand;
  expand.opMnemonics = {"tanh", "rsqrt"};
  pm.addPass(math::createMathExpandOpsPass(expand));
  // exp, erf and tanh inline as polynomials LLVM vectorises.
  pm.addPass(createTandemApproximateMath());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  // LLVM intrinsics first; what has none (tanh, erf, ...) calls libm.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  // GPU kernels compiled for the host get their tandem_cpu_kernel_fn
  // wrappers (no-op without kernels).
  pm.addPass(createTandemBuildCPUTwins());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Calls of the outlined bodies run on the model's thread pool.
  pm.addPass(createTandemDispatchParallelCalls());
  // Constant tensors become flat byte arrays: one LLVM constant each.
  pm.addPass(createTandemFlattenWeightGlobals());
}
