//===- NormalizeBias.cpp - one form for biases: matmul + bias_add ---------===//
//
// Exporters spell "dense layer plus bias" several ways: ONNX Gemm (often
// with transB and alpha/beta), MatMul followed by Add, Conv followed by Add
// of a [C,1,1] tensor. Fusion and codegen match one form only:
//
//   * gemm(a, B, c)        -> bias_add(matmul(a, B'), beta * c)
//                             (B' = alpha * op(B), folded when constant);
//   * add(matmul, c[N])    -> bias_add(matmul, c, axis = last);
//   * add(conv2d, c[C,1,1])-> conv2d with bias c (constants fold into an
//                             existing bias), or bias_add(conv2d, c, axis 1);
//   * bias_add(conv2d, b)  -> conv2d with bias b.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Analysis/NodeName.h"
#include "passes/Optimize/ConstantData.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMNORMALIZEBIAS
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

/// When every dim of `type` but `keep` (counted from the end of a rank
/// `rank` result it broadcasts against) is 1, returns that dim's size.
static std::optional<int64_t> singleDim(RankedTensorType type, int64_t rank,
                                        int64_t keep) {
  if (type.getRank() > rank || type.getRank() == 0)
    return std::nullopt;
  int64_t offset = rank - type.getRank();
  std::optional<int64_t> size;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d + offset == keep)
      size = type.getDimSize(d);
    else if (type.getDimSize(d) != 1)
      return std::nullopt;
  }
  return size;
}

/// `value` (N elements) as a 1-D [N] tensor: a new constant or a reshape.
static Value asVector(PatternRewriter &rewriter, Location loc, Value value,
                      int64_t n) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  auto vectorType = RankedTensorType::get({n}, type.getElementType());
  return ReshapeOp::create(rewriter, loc, vectorType, value,
                           rewriter.getDenseI64ArrayAttr({n}));
}

namespace {
/// gemm -> matmul (+ bias_add).
struct GemmToMatmul : WeightRewritePattern<GemmOp> {
  using WeightRewritePattern::WeightRewritePattern;

  LogicalResult matchAndRewrite(GemmOp gemm,
                                PatternRewriter &rewriter) const override {
    if (gemm.getTransA())
      return rewriter.notifyMatchFailure(gemm, "transposed A");
    float alpha = gemm.getAlpha().convertToFloat();
    float beta = gemm.getBeta().convertToFloat();
    auto bType = gemm.getB().getType();
    int64_t n = gemm.getType().getDimSize(1);
    int64_t k = gemm.getA().getType().getDimSize(1);
    std::optional<F32Values> b = viewF32Constant(gemm.getB());
    if (alpha != 1.0f && !b)
      return rewriter.notifyMatchFailure(gemm, "alpha with non-constant B");
    // The bias must be per column, and constant unless beta is 1.
    Value c = gemm.getC();
    std::optional<std::vector<float>> cData;
    if (c) {
      auto cType = cast<RankedTensorType>(c.getType());
      std::optional<int64_t> size = singleDim(cType, 2, 1);
      cData = readF32Constant(c);
      bool perColumn = size && (*size == n || (*size == 1 && cData));
      if (!perColumn)
        return rewriter.notifyMatchFailure(gemm, "c is not per column");
      if (beta != 1.0f && !cData)
        return rewriter.notifyMatchFailure(gemm, "beta with non-constant c");
    }

    Location loc = gemm.getLoc();
    auto kn = RankedTensorType::get({k, n}, bType.getElementType());
    Value rhs = gemm.getB();
    if (b) {
      if (gemm.getTransB() || alpha != 1.0f) {
        std::vector<float> data(k * n);
        for (int64_t r = 0; r < k; ++r)
          for (int64_t col = 0; col < n; ++col)
            data[r * n + col] =
                alpha * (*b)[gemm.getTransB() ? col * k + r : r * n + col];
        rhs = createF32Constant(rewriter, gemm.getB().getLoc(), kn,
                                std::move(data),
                                getDisplayName(gemm) + "_weight");
      }
    } else if (gemm.getTransB()) {
      rhs = TransposeOp::create(rewriter, loc, kn, rhs,
                                rewriter.getDenseI64ArrayAttr({1, 0}));
    }
    Value result =
        MatmulOp::create(rewriter, loc, gemm.getType(), gemm.getA(), rhs);
    if (c) {
      Value bias;
      if (cData) {
        std::vector<float> data(n);
        for (int64_t j = 0; j < n; ++j)
          data[j] = beta * (*cData)[cData->size() == 1 ? 0 : j];
        bias = createF32Constant(
            rewriter, c.getLoc(),
            RankedTensorType::get({n}, gemm.getType().getElementType()), data,
            getDisplayName(gemm) + "_bias");
      } else {
        bias = asVector(rewriter, loc, c, n);
      }
      result = BiasAddOp::create(rewriter, loc, gemm.getType(), result, bias,
                                 /*axis=*/uint64_t(1));
    }
    Value weight = gemm.getB();
    rewriter.replaceOp(gemm, result);
    eraseDeadWeight(rewriter, weight, weightScope);
    return success();
  }
};

/// add(matmul, c[N]) -> bias_add(matmul, c, axis = last).
struct AddToBiasAdd : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(add.getType());
    if (!isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(add, "not floating point");
    for (auto [x, c] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      Operation *producer = x.getDefiningOp();
      if (!producer || !isa<MatmulOp, Conv2DOp>(producer) ||
          x.getType() != resultType)
        continue;
      int64_t rank = resultType.getRank();
      auto conv = dyn_cast<Conv2DOp>(producer);
      int64_t axis = conv ? conv.getChannelDim() : rank - 1;
      std::optional<int64_t> size =
          singleDim(cast<RankedTensorType>(c.getType()), rank, axis);
      if (!size || *size != resultType.getDimSize(axis))
        continue;
      Value bias = asVector(rewriter, add.getLoc(), c, *size);
      rewriter.replaceOpWithNewOp<BiasAddOp>(add, resultType, x, bias,
                                             uint64_t(axis));
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not a bias of a matmul or conv");
  }
};

/// bias_add(conv2d(x, W[, b0]), b, axis 1) -> conv2d(x, W, b0 + b).
struct BiasAddIntoConv : OpRewritePattern<BiasAddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BiasAddOp biasAdd,
                                PatternRewriter &rewriter) const override {
    auto conv = biasAdd.getInput().getDefiningOp<Conv2DOp>();
    if (!conv || !conv->hasOneUse() ||
        biasAdd.getAxis() != static_cast<uint64_t>(conv.getChannelDim()))
      return rewriter.notifyMatchFailure(biasAdd, "not a conv channel bias");
    Value bias = biasAdd.getBias();
    if (Value old = conv.getBias()) {
      auto a = readF32Constant(old), b = readF32Constant(bias);
      if (!a || !b)
        return rewriter.notifyMatchFailure(biasAdd, "non-constant biases");
      for (size_t i = 0; i < a->size(); ++i)
        (*a)[i] += (*b)[i];
      rewriter.setInsertionPoint(conv);
      bias = createF32Constant(rewriter, old.getLoc(),
                               cast<RankedTensorType>(old.getType()), *a,
                               getDisplayName(conv) + "_bias");
    } else if (Operation *def = bias.getDefiningOp();
               def && !isa<ConstantOp>(def)) {
      // A computed bias must dominate the conv.
      if (!def->isBeforeInBlock(conv))
        return rewriter.notifyMatchFailure(biasAdd, "bias computed later");
    }
    Operation *merged = rewriter.clone(*conv);
    merged->setOperands({conv.getInput(), conv.getFilter(), bias});
    merged->setLoc(rewriter.getFusedLoc({conv.getLoc(), biasAdd.getLoc()}));
    rewriter.replaceOp(biasAdd, merged->getResults());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct NormalizeBiasPass
    : tandem::impl::TandemNormalizeBiasBase<NormalizeBiasPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateNormalizeBiasPatterns(patterns, weightReleaseScope(getOperation()));
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::tandem::populateNormalizeBiasPatterns(RewritePatternSet &patterns,
                                                 Operation *weightScope) {
  patterns.add<GemmToMatmul>(patterns.getContext(), weightScope);
  patterns.add<AddToBiasAdd, BiasAddIntoConv>(patterns.getContext());
}
