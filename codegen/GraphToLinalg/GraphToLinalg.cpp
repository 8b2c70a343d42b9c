//===- GraphToLinalg.cpp - the -tandem-lower-to-linalg pass ---------------===//
//
// Gathers the per-family patterns and runs them with the dialect conversion
// framework: first inside each tandem.fusion (whose lowered ops are tagged
// with tandem.kernel and inlined at the fusion's place), then over the rest
// of the module.
//
//===----------------------------------------------------------------------===//

#include "codegen/GraphToLinalg/GraphToLinalg.h"

#include "codegen/GPU/GPUFunctions.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "codegen/Passes.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMLOWERTOLINALG
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

void mlir::tandem::populateTandemToLinalgPatterns(RewritePatternSet &patterns) {
  linalg_lowering::populateElementwiseToLinalgPatterns(patterns);
  linalg_lowering::populateShapeToLinalgPatterns(patterns);
  linalg_lowering::populateContractionToLinalgPatterns(patterns);
  linalg_lowering::populateReductionToLinalgPatterns(patterns);
}

void mlir::tandem::configureTandemToLinalgTarget(ConversionTarget &target,
                                                 bool allowFusions) {
  // scf and llvm: the run-time index checks of gathers.
  target.addLegalDialect<arith::ArithDialect, func::FuncDialect,
                         linalg::LinalgDialect, LLVM::LLVMDialect,
                         math::MathDialect, scf::SCFDialect,
                         tensor::TensorDialect>();
  target.addIllegalDialect<TandemDialect>();
  target.addLegalOp<TransferOp>();
  if (allowFusions)
    target.addLegalOp<FusionOp, YieldOp>();
}

namespace {

/// Never folds: graph-level folding is the optimiser's job, and the lowering
/// must emit the same code whether or not an operand happens to be constant.
ConversionConfig conversionConfig() {
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
  return config;
}

/// Lowers the body of `fusion` in place, tags what it produced with the
/// fusion's name, and inlines it where the fusion was.
LogicalResult lowerAndInlineFusion(FusionOp fusion,
                                   const ConversionTarget &target,
                                   const FrozenRewritePatternSet &patterns) {
  Block &body = fusion.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  if (failed(applyPartialConversion(ops, target, patterns, conversionConfig())))
    return failure();

  StringAttr name = fusion.getNameAttr();
  for (Operation &op : body.without_terminator())
    op.setAttr(TandemDialect::getKernelAttrName(), name);

  IRRewriter rewriter(fusion.getContext());
  YieldOp yield = fusion.getYield();
  SmallVector<Value> results(yield.getValues());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&body, fusion, fusion.getInputs());
  rewriter.replaceOp(fusion, results);
  return success();
}

/// Makes the results of every return in `module` distinct values: a value
/// returned again is returned as a copy, since each model output is written
/// into a caller buffer of its own.
void copyRepeatedResults(ModuleOp module) {
  module.walk([](func::ReturnOp ret) {
    OpBuilder b(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<RankedTensorType>(value.getType());
      bool repeated = llvm::any_of(
          ret->getOpOperands().take_front(operand.getOperandNumber()),
          [&](OpOperand &earlier) { return earlier.get() == value; });
      if (!repeated || !type || !type.hasStaticShape())
        continue;
      Value empty = tensor::EmptyOp::create(b, ret.getLoc(), type.getShape(),
                                            type.getElementType());
      operand.set(
          linalg::CopyOp::create(b, ret.getLoc(), value, empty).getResult(0));
    }
  });
}

struct LowerToLinalgPass
    : mlir::tandem::impl::TandemLowerToLinalgBase<LowerToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patternList(ctx);
    populateTandemToLinalgPatterns(patternList);
    FrozenRewritePatternSet patterns(std::move(patternList));

    ConversionTarget target(*ctx);
    configureTandemToLinalgTarget(target, /*allowFusions=*/true);

    SmallVector<FusionOp> fusions;
    getOperation().walk([&](FusionOp fusion) { fusions.push_back(fusion); });
    for (FusionOp fusion : fusions)
      if (failed(lowerAndInlineFusion(fusion, target, patterns)))
        return signalPassFailure();

    ConversionTarget finalTarget(*ctx);
    configureTandemToLinalgTarget(finalTarget, /*allowFusions=*/false);
    if (failed(applyPartialConversion(getOperation(), finalTarget, patterns,
                                      conversionConfig())))
      return signalPassFailure();
    copyRepeatedResults(getOperation());
    // The patterns chose the unsigned arith ops from the tandem types;
    // arith, linalg and LLVM take signless integers only.
    linalg_lowering::makeSignless(getOperation());
    // f32 <-> bf16 conversions on the host become integer ops (round to
    // nearest even), not calls of libgcc's __truncsfbf2, which g++ 12's
    // libgcc lacks and the model's shared library does not link. GPU
    // partitions keep arith.truncf, which NVVM converts natively.
    RewritePatternSet bf16Patterns(ctx);
    arith::populateExpandBFloat16Patterns(bf16Patterns);
    FrozenRewritePatternSet bf16(std::move(bf16Patterns));
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>())
      if (!isGPUPartition(func))
        walkAndApplyPatterns(func, bf16);
  }
};

} // namespace
