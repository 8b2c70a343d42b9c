//===- FoldBatchNorm.cpp - fold inference BatchNorm into conv and gemm ----===//
//
// Inference BatchNorm is a per-channel affine map, y = x * s + t with
// s = scale / sqrt(var + eps) and t = bias - mean * s. When the producer is
// a conv2d, gemm or matmul with constant weights (a matmul's over its last
// dimension, also through a reshape that keeps it), the map folds into
// them: the weights scale by s per output channel and the bias becomes
// b * s + t. The BatchNorm disappears, and with it a pass over the
// activation.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Analysis/NodeName.h"
#include "passes/Optimize/ConstantData.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFOLDBATCHNORM
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {
/// The folded affine map of a BatchNorm: y = x * scale + shift.
struct Affine {
  std::vector<float> scale, shift;
};
} // namespace

/// Reads a BatchNorm's constant parameters; std::nullopt if any is not an
/// f32 constant, or if its channels are not dimension `axis` (the one the
/// fold scales in the producer).
static std::optional<Affine> readAffine(BatchNormOp bn, uint64_t axis = 1) {
  if (bn.getAxis() != axis)
    return std::nullopt;
  auto scale = readF32Constant(bn.getScale());
  auto bias = readF32Constant(bn.getBias());
  auto mean = readF32Constant(bn.getMean());
  auto var = readF32Constant(bn.getVariance());
  if (!scale || !bias || !mean || !var)
    return std::nullopt;
  float eps = bn.getEpsilon().convertToFloat();
  Affine affine;
  for (size_t c = 0; c < scale->size(); ++c) {
    float s = (*scale)[c] / std::sqrt((*var)[c] + eps);
    affine.scale.push_back(s);
    affine.shift.push_back((*bias)[c] - (*mean)[c] * s);
  }
  return affine;
}

/// The name new constants get: the producer's node name plus a suffix.
static std::string hint(Operation *op, llvm::StringRef suffix) {
  return getDisplayName(op) + "_" + suffix.str();
}

namespace {
/// batch_norm(conv2d(x, W, b)) -> conv2d(x, W * s, b * s + t).
struct FoldIntoConv : WeightRewritePattern<BatchNormOp> {
  using WeightRewritePattern::WeightRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<Conv2DOp>();
    if (!conv || !conv->hasOneUse() || conv.isChannelsLast())
      return rewriter.notifyMatchFailure(
          bn, "input is not an NCHW conv2d used once");
    auto weights = readF32Constant(conv.getFilter());
    std::optional<Affine> affine = readAffine(bn);
    if (!weights || !affine)
      return rewriter.notifyMatchFailure(bn, "non-constant f32 parameters");
    std::vector<float> bias(affine->scale.size(), 0.0f);
    if (Value b = conv.getBias()) {
      auto values = readF32Constant(b);
      if (!values)
        return rewriter.notifyMatchFailure(bn, "non-constant conv bias");
      bias = *values;
    }
    size_t channels = affine->scale.size();
    scaleRows(*weights, affine->scale);
    for (size_t o = 0; o < channels; ++o)
      bias[o] = bias[o] * affine->scale[o] + affine->shift[o];
    rewriter.setInsertionPoint(conv);
    Value filter = createF32Constant(
        rewriter, conv.getFilter().getLoc(), conv.getFilter().getType(),
        std::move(*weights), hint(conv, "weight_bn"));
    Value newBias = createF32Constant(
        rewriter, bn.getLoc(),
        RankedTensorType::get({int64_t(channels)}, rewriter.getF32Type()), bias,
        hint(conv, "bias_bn"));
    Operation *folded = rewriter.clone(*conv);
    folded->setOperands({conv.getInput(), filter, newBias});
    // The result keeps the conv's node name, fused with the BatchNorm's.
    replaceWithFolded(rewriter, bn, conv, folded, conv.getFilter(),
                      weightScope);
    return success();
  }
};

/// batch_norm(gemm(a, B, c)) over the N columns -> gemm(a, B * s, c'),
/// with c' = (beta * c) * s + t and beta = 1.
struct FoldIntoGemm : WeightRewritePattern<BatchNormOp> {
  using WeightRewritePattern::WeightRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto gemm = bn.getInput().getDefiningOp<GemmOp>();
    if (!gemm || !gemm->hasOneUse())
      return rewriter.notifyMatchFailure(bn, "input is not a gemm used once");
    auto b = readF32Constant(gemm.getB());
    std::optional<Affine> affine = readAffine(bn);
    if (!b || !affine)
      return rewriter.notifyMatchFailure(bn, "non-constant f32 parameters");
    size_t n = affine->scale.size();
    std::vector<float> c(n, 0.0f);
    if (Value cValue = gemm.getC()) {
      auto values = readF32Constant(cValue);
      auto type = cast<RankedTensorType>(cValue.getType());
      // Only per-column (or scalar) C folds into a 1-D bias.
      if (!values ||
          (type.getNumElements() != int64_t(n) && type.getNumElements() != 1))
        return rewriter.notifyMatchFailure(bn, "c is not a per-column const");
      for (size_t j = 0; j < n; ++j)
        c[j] = (*values)[values->size() == 1 ? 0 : j];
    }
    float beta = gemm.getBeta().convertToFloat();
    bool transB = gemm.getTransB();
    auto bType = gemm.getB().getType();
    if (transB)
      scaleRows(*b, affine->scale);
    else
      scaleColumns(*b, affine->scale);
    for (size_t j = 0; j < n; ++j)
      c[j] = beta * c[j] * affine->scale[j] + affine->shift[j];
    rewriter.setInsertionPoint(gemm);
    Value newB = createF32Constant(rewriter, gemm.getB().getLoc(), bType,
                                   std::move(*b), hint(gemm, "weight_bn"));
    Value newC = createF32Constant(
        rewriter, bn.getLoc(),
        RankedTensorType::get({int64_t(n)}, rewriter.getF32Type()), c,
        hint(gemm, "bias_bn"));
    Operation *folded = rewriter.clone(*gemm);
    folded->setOperands({gemm.getA(), newB, newC});
    folded->setAttr("beta", rewriter.getF32FloatAttr(1.0f));
    replaceWithFolded(rewriter, bn, gemm, folded, gemm.getB(), weightScope);
    return success();
  }
};

/// batch_norm(matmul(x, W)) over the last dimension, with 2-D constant W
/// -> bias_add(matmul(x, W * s), t). The matmul may be batched, and a
/// reshape that keeps the last dimension may come between the two (LeViT's
/// Linear + BatchNorm1d over the flattened tokens: a 1 x 196 x 128 matmul
/// read as 196 x 128); it then follows the bias_add.
struct FoldIntoMatmul : WeightRewritePattern<BatchNormOp> {
  using WeightRewritePattern::WeightRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    int64_t rank = bn.getType().getRank();
    Value input = bn.getInput();
    auto reshape = input.getDefiningOp<ReshapeOp>();
    if (reshape && reshape->hasOneUse() && rank >= 1 &&
        reshape.getInput().getType().getRank() >= 1 &&
        reshape.getInput().getType().getShape().back() ==
            bn.getType().getShape().back())
      input = reshape.getInput();
    else
      reshape = {};
    auto matmul = input.getDefiningOp<MatmulOp>();
    if (!matmul || !matmul->hasOneUse() || matmul.getType().getRank() < 2 ||
        matmul.getRhs().getType().getRank() != 2)
      return rewriter.notifyMatchFailure(
          bn, "input is not a matmul by a 2-D weight (through a reshape "
              "that keeps the last dimension)");
    auto w = readF32Constant(matmul.getRhs());
    std::optional<Affine> affine = readAffine(bn, rank - 1);
    if (!w || !affine)
      return rewriter.notifyMatchFailure(
          bn, "non-constant f32 parameters or not over the last dimension");
    auto wType = matmul.getRhs().getType();
    int64_t cols = wType.getDimSize(1);
    scaleColumns(*w, affine->scale);
    rewriter.setInsertionPoint(matmul);
    Value newW = createF32Constant(rewriter, matmul.getRhs().getLoc(), wType,
                                   std::move(*w), hint(matmul, "weight_bn"));
    Value shift =
        createF32Constant(rewriter, bn.getLoc(),
                          RankedTensorType::get({cols}, rewriter.getF32Type()),
                          affine->shift, hint(matmul, "bias_bn"));
    Operation *scaled = rewriter.clone(*matmul);
    scaled->setOperands({matmul.getLhs(), newW});
    rewriter.setInsertionPoint(bn);
    Value biased = BiasAddOp::create(
        rewriter, bn.getLoc(), matmul.getType(), scaled->getResult(0), shift,
        /*axis=*/uint64_t(matmul.getType().getRank() - 1));
    if (reshape)
      biased = ReshapeOp::create(rewriter, reshape.getLoc(), bn.getType(),
                                 biased, reshape.getShapeAttr());
    rewriter.replaceOp(bn, biased);
    Value weight = matmul.getRhs();
    if (reshape)
      rewriter.eraseOp(reshape);
    rewriter.eraseOp(matmul);
    eraseDeadWeight(rewriter, weight, weightScope);
    return success();
  }
};

struct FoldBatchNormPass
    : tandem::impl::TandemFoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldBatchNormPatterns(patterns, weightReleaseScope(getOperation()));
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::tandem::populateFoldBatchNormPatterns(RewritePatternSet &patterns,
                                                 Operation *weightScope) {
  patterns.add<FoldIntoConv, FoldIntoGemm, FoldIntoMatmul>(
      patterns.getContext(), weightScope);
}
