//===- FoldConstantSubgraphs.cpp - computations on constants, folded ------===//
//
// Exports compute masks and scales from constants at run time: Swin's
// shifted-window attention mask (selects over window labels, a transpose,
// a broadcast subtraction, comparisons and selects), a causal mask's
// select, pow(head_dim, -0.5). The op folders evaluate such ops only up to
// 1024 result elements, so that the canonicaliser never duplicates a
// weight; this pass evaluates whole constant subgraphs up to
// kMaxComputedElements per value, through the same folders, and replaces
// what leaves them by constants. Subgraphs that only move a weight
// (reshapes, transposes) are left to tandem-fold-constant-movement's
// policy.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Tandem/IR/DataFolds.h"
#include "dialects/Tandem/IR/TandemOps.h"
#include "dialects/Tandem/IR/TandemTraits.h"
#include "passes/Optimize/ConstantData.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFOLDCONSTANTSUBGRAPHS
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// Values (inputs, intermediates and results) of a folded subgraph have at
/// most this many elements (4 MiB of f32).
constexpr int64_t kMaxComputedElements = int64_t(1) << 20;

/// Whether `value` has a static shape of at most kMaxComputedElements.
bool smallEnough(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() &&
         type.getNumElements() <= kMaxComputedElements;
}

/// Whether `op` may be evaluated once its operands are constants: a pure
/// tandem op without regions with one small result.
bool evaluable(Operation *op) {
  return isa<TandemDialect>(op->getDialect()) && !isa<ConstantOp>(op) &&
         op->getNumResults() == 1 && op->getNumRegions() == 0 &&
         isPure(op) && smallEnough(op->getResult(0));
}

/// The value of constant `op` as an attribute the folders read (a dense
/// one; an f32 dense_resource blob is copied into one), or null.
Attribute foldableValue(ConstantOp op) {
  Attribute value = op.getValue();
  if (isa<DenseElementsAttr>(value))
    return value;
  auto type = cast<RankedTensorType>(op.getType());
  if (!smallEnough(op.getResult()))
    return {};
  std::optional<F32Values> floats = viewF32Elements(value, type);
  if (!floats)
    return {};
  return DenseElementsAttr::get(type, floats->values());
}

/// The constant for folded value `attr` of `op`'s result type, at `op`: a
/// non-splat f32 one through createF32Constant, which stores it inline or
/// as a dense_resource blob as the importer stores weights.
Value materialize(OpBuilder &builder, Operation *op, Attribute attr) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  auto dense = cast<DenseElementsAttr>(attr);
  if (type.getElementType().isF32() && !dense.isSplat()) {
    auto values = dense.getValues<float>();
    return createF32Constant(builder, op->getLoc(), type,
                             std::vector<float>(values.begin(), values.end()),
                             constantNameHint(op->getLoc()));
  }
  return ConstantOp::create(builder, op->getLoc(), dense);
}

/// Folds the constant subgraphs of `block`; the constants left unused are
/// erased (eraseDeadWeight in `weightScope`). Returns whether it changed
/// the block.
bool foldConstantSubgraphs(Block &block, Operation *weightScope) {
  // Values computable from constants, and whether their subgraph computes
  // (holds an elementwise op) rather than only moving data.
  llvm::DenseMap<Value, bool> computes;
  SmallVector<Operation *> candidates;
  for (Operation &op : block) {
    if (isa<ConstantOp>(op)) {
      computes[op.getResult(0)] = false;
      continue;
    }
    if (!evaluable(&op) || op.getNumOperands() == 0 ||
        !llvm::all_of(op.getOperands(),
                      [&](Value v) { return computes.count(v); }))
      continue;
    bool computing = op.hasTrait<tandem::OpTrait::Elementwise>();
    for (Value operand : op.getOperands())
      computing |= computes.lookup(operand);
    computes[op.getResult(0)] = computing;
    candidates.push_back(&op);
  }
  // The subgraphs' outputs (used outside them) that compute, and the ops
  // they need.
  llvm::SmallPtrSet<Operation *, 16> isCandidate(candidates.begin(),
                                                 candidates.end());
  SmallVector<Operation *> outputs;
  llvm::SetVector<Operation *> needed;
  for (Operation *op : llvm::reverse(candidates)) {
    bool output = computes.lookup(op->getResult(0)) &&
                  llvm::any_of(op->getUsers(), [&](Operation *user) {
                    return !isCandidate.contains(user);
                  });
    if (output)
      outputs.push_back(op);
    if (output || needed.contains(op))
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp(); isCandidate.count(def))
          needed.insert(def);
    if (output)
      needed.insert(op);
  }
  if (outputs.empty())
    return false;
  // Evaluate in block order.
  llvm::DenseMap<Value, Attribute> values;
  ScopedFoldElementLimit limit(kMaxComputedElements);
  for (Operation *op : candidates) {
    if (!needed.contains(op))
      continue;
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      Attribute value = values.lookup(operand);
      if (!value)
        if (auto constant = operand.getDefiningOp<ConstantOp>()) {
          value = foldableValue(constant);
          values[operand] = value;
        }
      operands.push_back(value);
    }
    if (llvm::is_contained(operands, Attribute()))
      continue;
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) || results.size() != 1)
      continue;
    if (auto attr = dyn_cast<Attribute>(results.front()))
      values[op->getResult(0)] = isa<DenseElementsAttr>(attr) ? attr : nullptr;
    else
      values[op->getResult(0)] = values.lookup(cast<Value>(results.front()));
  }
  bool changed = false;
  IRRewriter rewriter(block.getParentOp()->getContext());
  for (Operation *op : outputs) {
    Attribute value = values.lookup(op->getResult(0));
    if (!value)
      continue;
    rewriter.setInsertionPoint(op);
    Value constant = materialize(rewriter, op, value);
    rewriter.replaceAllUsesWith(op->getResult(0), constant);
    changed = true;
  }
  // What the constants replaced, innermost users first, then the
  // constants they read.
  llvm::SetVector<Value> inputs;
  for (Operation *op : llvm::reverse(candidates)) {
    if (!op->use_empty())
      continue;
    for (Value operand : op->getOperands())
      if (operand.getDefiningOp<ConstantOp>())
        inputs.insert(operand);
    rewriter.eraseOp(op);
  }
  for (Value input : inputs)
    eraseDeadWeight(rewriter, input, weightScope);
  return changed;
}

struct FoldConstantSubgraphsPass
    : mlir::tandem::impl::TandemFoldConstantSubgraphsBase<
          FoldConstantSubgraphsPass> {
  void runOnOperation() override {
    Operation *weightScope = weightReleaseScope(getOperation());
    getOperation()->walk([&](Block *block) {
      if (llvm::any_of(*block, llvm::IsaPred<ConstantOp>))
        foldConstantSubgraphs(*block, weightScope);
    });
  }
};

} // namespace
