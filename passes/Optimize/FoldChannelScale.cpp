//===- FoldChannelScale.cpp - constant channel scales into the weights ----===//
//
// A layer scale multiplies the output of a conv or a linear layer by a
// constant per channel (PoolFormer, ConvNeXt, CaiT, DeiT III: `gamma * x`
// before the residual add). The product distributes over the layer's sum:
// conv(x, W, b) * s = conv(x, W * s, b * s) per output channel, and so for
// a matmul's columns. Folded, the scale costs nothing at run time, and the
// residual add after it meets the conv or GEMM directly, where a library
// call may absorb it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Analysis/NodeName.h"
#include "passes/Optimize/ConstantData.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFOLDCHANNELSCALE
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

/// The factor per index of axis `axis` of a tensor of type `type` that the
/// f32 constant `scale` multiplies it by under broadcasting, when `scale`
/// varies along that axis only (its shape, aligned with `type`'s from the
/// right, is 1 everywhere else; a scalar scales every channel alike).
static std::optional<std::vector<float>>
channelFactors(Value scale, RankedTensorType type, int64_t axis) {
  auto scaleType = dyn_cast<RankedTensorType>(scale.getType());
  if (!scaleType || !scaleType.hasStaticShape() || !type.hasStaticShape() ||
      scaleType.getRank() > type.getRank() || axis < 0 ||
      axis >= type.getRank())
    return std::nullopt;
  int64_t offset = type.getRank() - scaleType.getRank();
  int64_t channels = type.getDimSize(axis);
  for (auto [i, size] : llvm::enumerate(scaleType.getShape()))
    if (size != 1 &&
        (static_cast<int64_t>(i) + offset != axis || size != channels))
      return std::nullopt;
  std::optional<std::vector<float>> values = readF32Constant(scale);
  if (!values)
    return std::nullopt;
  if (values->size() == 1)
    return std::vector<float>(channels, values->front());
  return values;
}

/// The matmul a scale along the last axis of `value` folds into: `value`'s
/// producer (used once) when it is a matmul with a constant 2-D right side,
/// or a bias_add along the last axis of such a matmul with a constant bias
/// (both used once); null otherwise. `biasAdd` is set in the second case.
static MatmulOp scalableMatmul(Value value, BiasAddOp &biasAdd) {
  biasAdd = value.getDefiningOp<BiasAddOp>();
  if (biasAdd) {
    if (!biasAdd->hasOneUse() ||
        static_cast<int64_t>(biasAdd.getAxis()) !=
            biasAdd.getType().getRank() - 1 ||
        !readF32Constant(biasAdd.getBias()))
      return {};
    value = biasAdd.getInput();
  }
  auto matmul = value.getDefiningOp<MatmulOp>();
  if (!matmul || !matmul->hasOneUse() ||
      matmul.getRhs().getType().getRank() != 2 ||
      !matmul.getRhs().getDefiningOp<ConstantOp>())
    return {};
  return matmul;
}

/// The axis along which a scale of `value` folds into its producer: a
/// conv2d's channels (constant filter and bias), a matmul's columns
/// (scalableMatmul), a gemm's columns (constant B and a per-column or
/// no C); none otherwise or when the producer has other users.
static std::optional<int64_t> foldableAxis(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return std::nullopt;
  if (auto conv = dyn_cast<Conv2DOp>(producer)) {
    if (!conv.getFilter().getDefiningOp<ConstantOp>() ||
        (conv.getBias() && !conv.getBias().getDefiningOp<ConstantOp>()))
      return std::nullopt;
    return conv.getChannelDim();
  }
  if (auto gemm = dyn_cast<GemmOp>(producer)) {
    if (!gemm.getB().getDefiningOp<ConstantOp>() ||
        (gemm.getC() && !gemm.getC().getDefiningOp<ConstantOp>()))
      return std::nullopt;
    return 1;
  }
  BiasAddOp biasAdd;
  if (scalableMatmul(value, biasAdd))
    return cast<RankedTensorType>(value.getType()).getRank() - 1;
  return std::nullopt;
}

/// The name new constants get: the producer's node name plus a suffix.
static std::string hint(Operation *op) {
  return getDisplayName(op) + "_scaled";
}

namespace {

/// mul(producer, scale) with a constant scale along the axis foldableAxis
/// gives: the producer with its weights (and bias) scaled per channel.
struct FoldScaleIntoProducer : WeightRewritePattern<MulOp> {
  using WeightRewritePattern::WeightRewritePattern;

  LogicalResult matchAndRewrite(MulOp mul,
                                PatternRewriter &rewriter) const override {
    for (auto [value, scale] : {std::pair(mul.getLhs(), mul.getRhs()),
                                std::pair(mul.getRhs(), mul.getLhs())}) {
      auto type = cast<RankedTensorType>(mul.getType());
      std::optional<int64_t> axis = foldableAxis(value);
      if (!axis || value.getType() != type || !type.getElementType().isF32())
        continue;
      std::optional<std::vector<float>> factors =
          channelFactors(scale, type, *axis);
      if (!factors)
        continue;
      Operation *producer = value.getDefiningOp();
      if (auto conv = dyn_cast<Conv2DOp>(producer))
        return foldIntoConv(rewriter, mul, conv, *factors);
      if (auto gemm = dyn_cast<GemmOp>(producer))
        return foldIntoGemm(rewriter, mul, gemm, *factors);
      BiasAddOp biasAdd;
      return foldIntoMatmul(rewriter, mul, scalableMatmul(value, biasAdd),
                            biasAdd, *factors);
    }
    return rewriter.notifyMatchFailure(
        mul, "no constant channel scale of a conv, gemm or matmul");
  }

private:
  /// Replaces `mul` by `folded` (a clone of `old` with new operands) and
  /// erases `old` and the weight it leaves unused.
  void replace(PatternRewriter &rewriter, MulOp mul, Operation *old,
               Operation *folded, Value weight) const {
    replaceWithFolded(rewriter, mul, old, folded, weight, weightScope);
  }

  /// A constant of `values` shaped as `like`, before `at`.
  Value constant(PatternRewriter &rewriter, Operation *at, Value like,
                 std::vector<float> values) const {
    rewriter.setInsertionPoint(at);
    return createF32Constant(rewriter, like.getLoc(),
                             cast<RankedTensorType>(like.getType()),
                             std::move(values), hint(at));
  }

  LogicalResult foldIntoConv(PatternRewriter &rewriter, MulOp mul,
                             Conv2DOp conv,
                             const std::vector<float> &factors) const {
    std::vector<float> filter = *readF32Constant(conv.getFilter());
    scaleRows(filter, factors);
    Value newFilter =
        constant(rewriter, conv, conv.getFilter(), std::move(filter));
    Value newBias = conv.getBias();
    if (newBias) {
      std::vector<float> bias = *readF32Constant(newBias);
      scaleRows(bias, factors);
      newBias = constant(rewriter, conv, newBias, std::move(bias));
    }
    Operation *folded = rewriter.clone(*conv);
    folded->setOperand(1, newFilter);
    if (newBias)
      folded->setOperand(2, newBias);
    replace(rewriter, mul, conv, folded, conv.getFilter());
    return success();
  }

  LogicalResult foldIntoGemm(PatternRewriter &rewriter, MulOp mul, GemmOp gemm,
                             const std::vector<float> &factors) const {
    // (alpha A B + beta C) s = alpha A (B s) + beta (C s), C per column or
    // one value (then broadcast to the columns).
    std::optional<std::vector<float>> c;
    if (Value cValue = gemm.getC()) {
      c = readF32Constant(cValue);
      auto cType = cast<RankedTensorType>(cValue.getType());
      if (!c || cType.getRank() > 1 ||
          (c->size() != factors.size() && c->size() != 1))
        return rewriter.notifyMatchFailure(mul, "c is not per column");
      if (c->size() == 1)
        c = std::vector<float>(factors.size(), c->front());
      scaleRows(*c, factors);
    }
    std::vector<float> b = *readF32Constant(gemm.getB());
    if (gemm.getTransB())
      scaleRows(b, factors);
    else
      scaleColumns(b, factors);
    Value newB = constant(rewriter, gemm, gemm.getB(), std::move(b));
    Operation *folded = rewriter.clone(*gemm);
    folded->setOperand(1, newB);
    if (c) {
      rewriter.setInsertionPoint(gemm);
      auto cType = RankedTensorType::get({static_cast<int64_t>(c->size())},
                                         rewriter.getF32Type());
      folded->setOperand(2,
                         createF32Constant(rewriter, gemm.getC().getLoc(),
                                           cType, std::move(*c), hint(gemm)));
    }
    replace(rewriter, mul, gemm, folded, gemm.getB());
    return success();
  }

  LogicalResult foldIntoMatmul(PatternRewriter &rewriter, MulOp mul,
                               MatmulOp matmul, BiasAddOp biasAdd,
                               const std::vector<float> &factors) const {
    std::vector<float> w = *readF32Constant(matmul.getRhs());
    scaleColumns(w, factors);
    Value newW = constant(rewriter, matmul, matmul.getRhs(), std::move(w));
    Operation *scaled = rewriter.clone(*matmul);
    scaled->setOperand(1, newW);
    std::vector<float> bias;
    if (biasAdd) {
      bias = *readF32Constant(biasAdd.getBias());
      scaleRows(bias, factors);
    }
    // A bias of zeros (a freshly initialised layer's) adds nothing: the
    // scaled matmul replaces both.
    if (llvm::all_of(bias, [](float b) { return b == 0.0f; })) {
      Value weight = matmul.getRhs();
      Value oldBias = biasAdd ? biasAdd.getBias() : Value();
      replace(rewriter, mul, biasAdd ? biasAdd.getOperation() : matmul, scaled,
              weight);
      if (biasAdd) {
        rewriter.eraseOp(matmul);
        eraseDeadWeight(rewriter, oldBias, weightScope);
      }
      return success();
    }
    Value newBias =
        constant(rewriter, biasAdd, biasAdd.getBias(), std::move(bias));
    Operation *folded = rewriter.clone(*biasAdd);
    folded->setOperands({scaled->getResult(0), newBias});
    Value weight = matmul.getRhs(), oldBias = biasAdd.getBias();
    replace(rewriter, mul, biasAdd, folded, oldBias);
    rewriter.eraseOp(matmul);
    eraseDeadWeight(rewriter, weight, weightScope);
    return success();
  }
};

/// mul(transpose(y), scale) with a constant scale along one axis of the
/// transpose, whose axis in y a scale folds into y's producer along
/// (foldableAxis) -> transpose(mul(y, scale')), scale' the same factors
/// along that axis of y, for FoldScaleIntoProducer: ConvNeXt's layer scale
/// after its channels-last MLP goes back to NCHW.
struct ScaleBeforeTranspose : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp mul,
                                PatternRewriter &rewriter) const override {
    for (auto [value, scale] : {std::pair(mul.getLhs(), mul.getRhs()),
                                std::pair(mul.getRhs(), mul.getLhs())}) {
      auto transpose = value.getDefiningOp<TransposeOp>();
      auto type = cast<RankedTensorType>(mul.getType());
      if (!transpose || !transpose->hasOneUse() || value.getType() != type)
        continue;
      Value input = transpose.getInput();
      std::optional<int64_t> inputAxis = foldableAxis(input);
      if (!inputAxis)
        continue;
      // The transpose's output axis that holds the input's.
      ArrayRef<int64_t> perm = transpose.getPerm();
      auto axis = llvm::find(perm, *inputAxis) - perm.begin();
      std::optional<std::vector<float>> factors =
          channelFactors(scale, type, axis);
      if (!factors)
        continue;
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> shape(inputType.getRank(), 1);
      shape[*inputAxis] = static_cast<int64_t>(factors->size());
      rewriter.setInsertionPoint(mul);
      Value newScale = createF32Constant(
          rewriter, scale.getLoc(),
          RankedTensorType::get(shape, rewriter.getF32Type()),
          std::move(*factors), getDisplayName(mul) + "_moved");
      Value scaled =
          MulOp::create(rewriter, mul.getLoc(), inputType, input, newScale);
      rewriter.replaceOpWithNewOp<TransposeOp>(mul, type, scaled,
                                               transpose.getPermAttr());
      rewriter.eraseOp(transpose);
      return success();
    }
    return rewriter.notifyMatchFailure(
        mul, "no constant channel scale of a transposed conv or matmul");
  }
};

struct FoldChannelScalePass
    : tandem::impl::TandemFoldChannelScaleBase<FoldChannelScalePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldScaleIntoProducer>(&getContext(),
                                        weightReleaseScope(getOperation()));
    patterns.add<ScaleBeforeTranspose>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
