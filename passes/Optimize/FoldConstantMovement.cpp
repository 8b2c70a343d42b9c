//===- FoldConstantMovement.cpp - data movement on constants, folded ------===//
//
// Transposes and gathers with constant indices of f32 constants are computed
// at compile time, and so are reshapes that feed them. The importer builds such
// chains on weights (ConvTranspose's flipped, channel-swapped kernel; Resize
// and loss masks); folded, the weights reach the conv as one constant (which
// BatchNorm folding then also sees) and nothing moves them at run time.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Optimize/ConstantData.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFOLDCONSTANTMOVEMENT
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// Folded results stay below this many elements (256 MiB of f32), so a
/// gather that multiplies a constant is not materialised without bound.
constexpr int64_t kMaxFoldedElements = int64_t(64) << 20;

/// The integer values of a constant index tensor.
std::optional<SmallVector<int64_t>> readIndices(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseIntElementsAttr>(c.getValue()) : nullptr;
  if (!dense)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &i : dense.getValues<APInt>())
    values.push_back(i.getSExtValue());
  return values;
}

/// Replaces `op`'s result by a constant computed by `compute` from the f32
/// constant `input`: compute(out, in) fills `out`, sized to the result.
/// `input`, left unused, is erased (eraseDeadWeight in `weightScope`).
LogicalResult replaceByConstant(
    Operation *op, Value input, PatternRewriter &rewriter,
    Operation *weightScope,
    function_ref<bool(std::vector<float> &, const F32Values &)> compute) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements)
    return failure();
  std::optional<F32Values> in = viewF32Constant(input);
  if (!in)
    return failure();
  std::vector<float> out(type.getNumElements());
  if (!compute(out, *in))
    return failure();
  rewriter.replaceOp(op, createF32Constant(rewriter, op->getLoc(), type,
                                           std::move(out),
                                           constantNameHint(op->getLoc())));
  eraseDeadWeight(rewriter, input, weightScope);
  return success();
}

struct FoldTranspose : WeightRewritePattern<TransposeOp> {
  using WeightRewritePattern::WeightRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    return replaceByConstant(op, op.getInput(), rewriter, weightScope,
                             [&](auto &out, const auto &in) {
                               out = transposeF32(in, inType.getShape(),
                                                  op.getPerm());
                               return true;
                             });
  }
};

struct FoldGather : WeightRewritePattern<GatherOp> {
  using WeightRewritePattern::WeightRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> indices = readIndices(op.getIndices());
    if (!indices)
      return failure();
    auto inType = cast<RankedTensorType>(op.getData().getType());
    int64_t axis = op.getAxis(), size = inType.getDimSize(axis);
    for (int64_t &i : *indices) {
      if (i < 0)
        i += size;
      if (i < 0 || i >= size)
        return failure(); // lowering reports it
    }
    return replaceByConstant(
        op, op.getData(), rewriter, weightScope,
        [&](auto &out, const auto &in) {
          ArrayRef<int64_t> shape = inType.getShape();
          int64_t outer = 1, inner = 1;
          for (int64_t d = 0; d < axis; ++d)
            outer *= shape[d];
          for (int64_t d = axis + 1; d < inType.getRank(); ++d)
            inner *= shape[d];
          auto count = static_cast<int64_t>(indices->size());
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < count; ++j)
              for (int64_t k = 0; k < inner; ++k)
                out[(o * count + j) * inner + k] =
                    in[(o * size + (*indices)[j]) * inner + k];
          return true;
        });
  }
};

struct FoldReshape : WeightRewritePattern<ReshapeOp> {
  using WeightRewritePattern::WeightRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    // A reshape costs nothing at run time; fold it only to feed the folds
    // above, not to copy every reshaped weight.
    if (op->use_empty() || !llvm::all_of(op->getUsers(), [](Operation *user) {
          return isa<TransposeOp, GatherOp, ReshapeOp>(user);
        }))
      return failure();
    return replaceByConstant(op, op.getInput(), rewriter, weightScope,
                             [](auto &out, const auto &in) {
                               out.assign(in.values().begin(),
                                          in.values().end());
                               return true;
                             });
  }
};

struct FoldConstantMovementPass
    : mlir::tandem::impl::TandemFoldConstantMovementBase<
          FoldConstantMovementPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTranspose, FoldGather, FoldReshape>(
        &getContext(), weightReleaseScope(getOperation()));
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
