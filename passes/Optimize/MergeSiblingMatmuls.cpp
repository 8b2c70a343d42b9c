//===- MergeSiblingMatmuls.cpp - one matmul for the projections of a value ===//
//
// Transformers in HuggingFace's style project one hidden state three times
// (query, key and value as separate Linear layers), LLaMA-style MLPs twice
// (gate and up). Each projection is its own GEMM: three launches where one
// wider GEMM reads the activation once and fills the device better. As
// GPT-2 does in its weights (one c_attn, then a split), the matmuls of one
// value by constant weights become one matmul by their weights side by
// side, with their biases side by side, and each result a slice of it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Analysis/NodeName.h"
#include "passes/Optimize/ConstantData.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMMERGESIBLINGMATMULS
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// One projection of the shared value: its matmul by a constant 2-D f32
/// weight, and the bias_add along the last axis by a constant that is the
/// matmul's only user, if any.
struct Projection {
  MatmulOp matmul;
  BiasAddOp biasAdd;
  int64_t columns = 0;
};

/// The projection `op` is, when it is a matmul of `lhs` (its left side) by
/// a constant 2-D f32 weight with an f32 result.
std::optional<Projection> projectionOf(Operation *op, Value lhs) {
  auto matmul = dyn_cast<MatmulOp>(op);
  if (!matmul || matmul.getLhs() != lhs)
    return std::nullopt;
  auto rhsType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  auto type = dyn_cast<RankedTensorType>(matmul.getType());
  if (!rhsType || !type || rhsType.getRank() != 2 ||
      !rhsType.hasStaticShape() || !type.hasStaticShape() ||
      type.getRank() < 2 || !rhsType.getElementType().isF32() ||
      !type.getElementType().isF32() || !viewF32Constant(matmul.getRhs()))
    return std::nullopt;
  Projection projection{matmul, {}, rhsType.getDimSize(1)};
  if (matmul->hasOneUse())
    if (auto biasAdd = dyn_cast<BiasAddOp>(*matmul->user_begin());
        biasAdd && biasAdd.getInput() == matmul.getResult() &&
        static_cast<int64_t>(biasAdd.getAxis()) == type.getRank() - 1 &&
        viewF32Constant(biasAdd.getBias()) &&
        cast<RankedTensorType>(biasAdd.getBias().getType()).getRank() == 1)
      projection.biasAdd = biasAdd;
  return projection;
}

/// Merges `projections` (at least two of one left side, in program order).
void merge(RewriterBase &rewriter, MutableArrayRef<Projection> projections,
           Operation *weightScope) {
  MatmulOp first = projections.front().matmul;
  Location loc = first.getLoc();
  auto firstType = cast<RankedTensorType>(first.getType());
  int64_t k = first.getRhs().getType().getDimSize(0);
  int64_t total = 0;
  bool anyBias = false;
  for (Projection &p : projections) {
    total += p.columns;
    anyBias |= static_cast<bool>(p.biasAdd);
  }
  // The weights side by side (row-major: each row of K is every
  // projection's row in turn), the biases too (zero where one has none).
  std::vector<float> weights;
  weights.reserve(k * total);
  SmallVector<std::optional<F32Values>> parts;
  for (Projection &p : projections)
    parts.push_back(viewF32Constant(p.matmul.getRhs()));
  for (int64_t row = 0; row < k; ++row)
    for (auto [p, part] : llvm::zip(projections, parts))
      for (int64_t column = 0; column < p.columns; ++column)
        weights.push_back((*part)[row * p.columns + column]);
  std::vector<float> bias;
  if (anyBias)
    for (Projection &p : projections) {
      if (!p.biasAdd) {
        bias.insert(bias.end(), p.columns, 0.0f);
        continue;
      }
      std::optional<F32Values> values = viewF32Constant(p.biasAdd.getBias());
      bias.insert(bias.end(), values->values().begin(), values->values().end());
    }
  parts.clear();

  rewriter.setInsertionPoint(first);
  std::string hint = getDisplayName(first) + "_merged";
  Value weight = createF32Constant(
      rewriter, first.getRhs().getLoc(),
      RankedTensorType::get({k, total}, rewriter.getF32Type()),
      std::move(weights), hint + "_weight");
  SmallVector<int64_t> shape(firstType.getShape());
  shape.back() = total;
  auto type = RankedTensorType::get(shape, rewriter.getF32Type());
  SmallVector<Location> locations;
  for (Projection &p : projections)
    locations.push_back(p.matmul.getLoc());
  Location fused = rewriter.getFusedLoc(locations);
  Value biasValue;
  if (anyBias)
    biasValue = createF32Constant(
        rewriter, loc, RankedTensorType::get({total}, rewriter.getF32Type()),
        std::move(bias), hint + "_bias");
  // The left side as it is now: an earlier merge may have replaced the
  // value the group was found under with a slice.
  Value merged =
      MatmulOp::create(rewriter, fused, type, first.getLhs(), weight);
  if (biasValue)
    merged = BiasAddOp::create(rewriter, fused, type, merged, biasValue,
                               /*axis=*/uint64_t(type.getRank() - 1));
  // Each projection's result is its columns of the merged one: all the
  // slices first (the insertion point is before the first projection,
  // which the replacements erase).
  int64_t offset = 0;
  int64_t rank = type.getRank();
  SmallVector<std::pair<Operation *, Value>> replacements;
  for (Projection &p : projections) {
    SmallVector<int64_t> starts(rank, 0), limits(shape), steps(rank, 1);
    starts.back() = offset;
    limits.back() = offset + p.columns;
    offset += p.columns;
    Operation *last =
        p.biasAdd ? p.biasAdd.getOperation() : p.matmul.getOperation();
    replacements.push_back(
        {last,
         SliceOp::create(rewriter, last->getLoc(), last->getResult(0).getType(),
                         merged, rewriter.getDenseI64ArrayAttr(starts),
                         rewriter.getDenseI64ArrayAttr(limits),
                         rewriter.getDenseI64ArrayAttr(steps))});
  }
  for (auto [p, replacement] : llvm::zip(projections, replacements)) {
    Value oldWeight = p.matmul.getRhs();
    Value oldBias = p.biasAdd ? p.biasAdd.getBias() : Value();
    MatmulOp matmul = p.matmul;
    rewriter.replaceOp(replacement.first, replacement.second);
    if (p.biasAdd)
      rewriter.eraseOp(matmul);
    eraseDeadWeight(rewriter, oldWeight, weightScope);
    if (oldBias)
      eraseDeadWeight(rewriter, oldBias, weightScope);
  }
}

struct MergeSiblingMatmulsPass
    : tandem::impl::TandemMergeSiblingMatmulsBase<MergeSiblingMatmulsPass> {
  void runOnOperation() override {
    Operation *weightScope = weightReleaseScope(getOperation());
    IRRewriter rewriter(&getContext());
    // Every value's projections, found before any merge (a merge replaces
    // results that may be another group's left side, but each matmul and
    // bias_add belongs to one group only).
    llvm::MapVector<Value, SmallVector<Projection>> groups;
    getOperation()->walk([&](MatmulOp matmul) {
      Value lhs = matmul.getLhs();
      if (std::optional<Projection> p = projectionOf(matmul, lhs))
        groups[lhs].push_back(*p);
    });
    for (auto &[value, projections] : groups) {
      // Same block, same batch shape (the result's leading dims) as the
      // first.
      Operation *front = projections.front().matmul;
      ArrayRef<int64_t> batch =
          cast<RankedTensorType>(front->getResult(0).getType())
              .getShape()
              .drop_back();
      llvm::erase_if(projections, [&](Projection &p) {
        return p.matmul->getBlock() != front->getBlock() ||
               p.matmul.getType().getShape().drop_back() != batch;
      });
      if (projections.size() < 2)
        continue;
      llvm::sort(projections, [](Projection &a, Projection &b) {
        return a.matmul->isBeforeInBlock(b.matmul);
      });
      merge(rewriter, projections, weightScope);
    }
  }
};

} // namespace
