//===- FoldIntoContractions.cpp - transposes and adds into contractions ---===//
//
// Two kinds of op around a contraction cost a pass over its operand or
// result that the CPU's sgemm can do itself:
//
// - Transposes. Attention transposes K into Kᵀ for QKᵀ (a strided gather),
//   Q and V from [seq, heads, dim] to [heads, seq, dim], and the result
//   back. The sgemm reads and writes its operands through any strides, so
//   a transpose that only feeds a contraction (or only reads one's result)
//   becomes part of the contraction's indexing maps.
// - Adds. A dense layer's bias and a residual connection are added to a
//   matmul's (or a convolution's) result in a pass of their own. The
//   kernels accumulate onto C, so the addend becomes the contraction's
//   init instead of a zero fill.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFOLDINTOCONTRACTIONS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The map reading a transpose's input where `map` reads its result:
/// result dim i is input dim perm[i].
AffineMap throughTransposeInput(AffineMap map, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> results(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    results[p] = map.getResult(i);
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

/// The map writing a transpose's result where `map` writes its input.
AffineMap throughTransposeResult(AffineMap map, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> results;
  for (int64_t p : perm)
    results.push_back(map.getResult(p));
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

/// A contraction on tensors this pass may rewrite: two inputs, one init,
/// every map a projected permutation.
bool isFoldableContraction(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInputs() == 2 &&
         op.getNumDpsInits() == 1 && op->getNumResults() == 1 &&
         linalg::isaContractionOpInterface(op) &&
         llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation(/*allowZeroInResults=*/false);
         });
}

/// An NCHW convolution on tensors: its kernels accumulate onto their output
/// as the sgemm does, so an add after it folds the same way.
bool isFoldableConv(linalg::LinalgOp op) {
  return isa<linalg::Conv2DNchwFchwOp>(op.getOperation()) &&
         op.hasPureTensorSemantics() && op->getNumResults() == 1;
}

/// Erases the transpose, fill or empty tensor defining `value` when nothing
/// uses it any more, and then its own dead operands.
void eraseDeadProducers(IRRewriter &rewriter, Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || !def->use_empty() ||
      !isa<linalg::TransposeOp, linalg::FillOp, tensor::EmptyOp>(def))
    return;
  SmallVector<Value> operands = def->getOperands();
  rewriter.eraseOp(def);
  for (Value operand : operands)
    eraseDeadProducers(rewriter, operand);
}

/// Folds the transposes around `op`; returns whether it changed anything.
bool foldTransposes(IRRewriter &rewriter, linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> inputs = op.getDpsInputs();
  bool changed = false;
  for (unsigned i = 0; i < inputs.size(); ++i) {
    auto transpose = inputs[i].getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !inputs[i].hasOneUse())
      continue;
    maps[i] = throughTransposeInput(maps[i], transpose.getPermutation());
    inputs[i] = transpose.getInput();
    changed = true;
  }

  // The result: when a transpose is its only reader and the init is a fill
  // of an empty tensor, the contraction fills and writes the transpose's
  // result directly.
  Value init = op.getDpsInits().front();
  Value result = op->getResult(0);
  linalg::TransposeOp resultTranspose;
  linalg::FillOp fill;
  if (result.hasOneUse()) {
    resultTranspose = dyn_cast<linalg::TransposeOp>(*result.user_begin());
    fill = init.getDefiningOp<linalg::FillOp>();
    if (!resultTranspose || !fill ||
        !resultTranspose.getInit().getDefiningOp<tensor::EmptyOp>())
      resultTranspose = nullptr;
  }
  if (!changed && !resultTranspose)
    return false;

  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  if (resultTranspose) {
    auto empty = resultTranspose.getInit().getDefiningOp<tensor::EmptyOp>();
    Value newEmpty = rewriter.clone(*empty)->getResult(0);
    init =
        linalg::FillOp::create(rewriter, fill.getLoc(), fill.value(), newEmpty)
            .getResult(0);
    maps.back() =
        throughTransposeResult(maps.back(), resultTranspose.getPermutation());
  }
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      op.getIteratorTypesArray());
  IRMapping mapping;
  op->getRegion(0).cloneInto(&generic.getRegion(), mapping);
  generic->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  SmallVector<Value> oldOperands = op->getOperands();
  if (resultTranspose) {
    rewriter.replaceOp(resultTranspose, generic->getResults());
    rewriter.eraseOp(op);
  } else {
    rewriter.replaceOp(op, generic->getResults());
  }
  // What only the old op read: its input transposes, and its init's fill
  // and empty tensor when the result moved. Dead tensor ops would still
  // get buffers.
  for (Value operand : oldOperands)
    eraseDeadProducers(rewriter, operand);
  return true;
}

/// True if `init` is a fill of +0.0 or -0.0.
bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr value;
  return fill && matchPattern(fill.value(), m_Constant(&value)) &&
         value.getValue().isZero();
}

/// Folds `add` = X + Y, where X is the whole result of an f32 contraction
/// or NCHW convolution that nothing else reads (or that result expanded by a
/// tensor.expand_shape nothing else reads), into that contraction: its init
/// becomes Y (the old init was a zero fill and Y has X's type), Y broadcast
/// along `add`'s map for Y, or the old init plus Y. Returns whether it did.
bool foldAdd(IRRewriter &rewriter, DominanceInfo &dominance,
             linalg::GenericOp add) {
  if (!add.hasPureTensorSemantics() || add.getNumDpsInputs() != 2 ||
      add.getNumDpsInits() != 1 || add.getNumReductionLoops() != 0 ||
      add->getNumResults() != 1)
    return false;
  auto resultType = dyn_cast<RankedTensorType>(add.getResult(0).getType());
  Block &body = add.getRegion().front();
  auto sum = dyn_cast<arith::AddFOp>(body.front());
  if (!resultType || !resultType.getElementType().isF32() || !sum ||
      body.getTerminator()->getOperand(0) != sum.getResult() ||
      !llvm::is_contained(sum->getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(sum->getOperands(), body.getArgument(1)) ||
      !add.getMatchingIndexingMap(add.getDpsInitOperand(0)).isIdentity())
    return false;
  for (unsigned x = 0; x < 2; ++x) {
    OpOperand *xOperand = add.getDpsInputOperand(x);
    OpOperand *yOperand = add.getDpsInputOperand(1 - x);
    Value y = yOperand->get();
    AffineMap yMap = add.getMatchingIndexingMap(yOperand);
    // The contraction's result, possibly through an expand_shape (a 2-D
    // matmul of a [1, seq, dim] activation is expanded back to 3-D).
    Value contracted = xOperand->get();
    auto expand = contracted.getDefiningOp<tensor::ExpandShapeOp>();
    if (expand) {
      if (!contracted.hasOneUse())
        continue;
      contracted = expand.getSrc();
    }
    auto producer = contracted.getDefiningOp<linalg::LinalgOp>();
    if (!producer ||
        !(isFoldableContraction(producer) || isFoldableConv(producer)) ||
        !contracted.hasOneUse() || !xOperand->get().hasOneUse() ||
        producer->hasAttr("tandem.epilogue") ||
        xOperand->get().getType() != resultType ||
        !add.getMatchingIndexingMap(xOperand).isIdentity() ||
        !yMap.isProjectedPermutation(/*allowZeroInResults=*/false) ||
        !dominance.properlyDominates(y, producer))
      continue;

    Value init = producer.getDpsInits().front();
    bool zero = isZeroFill(init);
    rewriter.setInsertionPoint(producer);
    Location loc = add.getLoc();
    // The new init in the add's shape, then in the contraction's.
    Value newInit = y;
    if (!zero || y.getType() != resultType || !yMap.isIdentity()) {
      // One elementwise op: Y broadcast, or the old init plus Y.
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, resultType.getShape(), resultType.getElementType());
      AffineMap identity =
          rewriter.getMultiDimIdentityMap(resultType.getRank());
      SmallVector<Value> inputs = {y};
      SmallVector<AffineMap> maps = {yMap, identity};
      if (!zero) {
        Value old = init;
        if (expand)
          old = tensor::ExpandShapeOp::create(rewriter, loc, resultType, init,
                                              expand.getReassociationIndices());
        inputs.insert(inputs.begin(), old);
        maps.insert(maps.begin(), identity);
      }
      newInit =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{resultType}, inputs, ValueRange{empty},
              maps,
              SmallVector<utils::IteratorType>(resultType.getRank(),
                                               utils::IteratorType::parallel),
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value v = zero ? args[0]
                               : arith::AddFOp::create(b, l, args[0], args[1])
                                     .getResult();
                linalg::YieldOp::create(b, l, v);
              })
              .getResult(0);
    }
    if (expand)
      newInit = tensor::CollapseShapeOp::create(
          rewriter, loc, init.getType(), newInit,
          expand.getReassociationIndices());
    rewriter.modifyOpInPlace(
        producer, [&] { producer.getDpsInitsMutable()[0].set(newInit); });
    rewriter.replaceOp(add, xOperand->get());
    eraseDeadProducers(rewriter, init);
    return true;
  }
  return false;
}

struct FoldIntoContractionsPass
    : public tandem::impl::TandemFoldIntoContractionsBase<
          FoldIntoContractionsPass> {
  void runOnOperation() override {
    // Transposes first: a result transpose needs the zero-filled init that
    // an add would replace.
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isFoldableContraction(op))
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : contractions)
      foldTransposes(rewriter, op);

    // Adds in program order, so that a bias folds before the residual that
    // is added after it.
    SmallVector<linalg::GenericOp> adds;
    getOperation()->walk([&](linalg::GenericOp op) { adds.push_back(op); });
    DominanceInfo dominance(getOperation());
    for (linalg::GenericOp add : adds)
      foldAdd(rewriter, dominance, add);
  }
};

} // namespace
