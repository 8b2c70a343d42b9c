//===- SplitReductions.cpp - long reductions over few points in two steps -===//
//
// tandem-split-reductions: in GPU partitions, a reduction with few output
// points and a long reduction per point (a GroupNorm of one group at batch
// 1: one point, 200704 elements) runs as two linalg ops, partial results
// over slices of the reduction (many blocks), then their combination, as
// XLA's tree reduction rewriter does (SplitReductions.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/SplitReductions.h"
#include "codegen/GPU/GPUFunctions.h"
#include "codegen/GPU/KernelMapping.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMSPLITREDUCTIONS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// Where a reduction splits: the leading reduction loops `whole` become
/// parallel, and loop `dim` (the next reduction loop) splits into `factor`
/// parallel slices of a reduction loop over the rest of its trip count.
struct SplitChoice {
  SmallVector<unsigned> whole;
  unsigned dim = 0;
  int64_t factor = 1;
  /// Partial results per output point: the whole loops' trip counts times
  /// `factor`.
  int64_t splits = 1;
};

} // namespace

/// The split of the reduction loops `reductionDims` (trip counts in
/// `bounds`) of an op with `points` output points: the fewest partial
/// results per point that give at least kSplitTargetBlocks in all, each over
/// at least kSplitMinSlice reduction points (else the most that keep
/// slices that long); none when fewer than kSplitMinSplits remain.
static std::optional<SplitChoice> chooseSplit(ArrayRef<int64_t> bounds,
                                              ArrayRef<unsigned> reductionDims,
                                              int64_t points) {
  int64_t total = 1;
  for (unsigned dim : reductionDims)
    total *= bounds[dim];
  int64_t target = llvm::divideCeil(kSplitTargetBlocks, points);
  std::optional<SplitChoice> best;
  int64_t prefix = 1;
  for (auto [position, dim] : llvm::enumerate(reductionDims)) {
    int64_t trip = bounds[dim];
    bool last = position + 1 == reductionDims.size();
    for (int64_t factor = 1; factor <= trip; ++factor) {
      // All of a loop but the last is the next loop's factor 1.
      if (trip % factor != 0 || (factor == trip && !last))
        continue;
      int64_t splits = prefix * factor;
      if (splits < kSplitMinSplits || total / splits < kSplitMinSlice)
        continue;
      bool better = !best || (best->splits < target
                                  ? splits > best->splits
                                  : splits >= target && splits < best->splits);
      if (better)
        best = SplitChoice{llvm::to_vector(reductionDims.take_front(position)),
                           dim, factor, splits};
    }
    prefix *= trip;
    if (total / prefix < kSplitMinSlice)
      break;
  }
  return best;
}

/// Where an input read through `map` indexes loop `dim`: the position of
/// the one result that is the loop itself (the dimension the split
/// expands), -1 when no result uses the loop, none when a result uses it
/// otherwise (a window's `oh + kh`) or twice.
static std::optional<int64_t> splitPosition(AffineMap map, unsigned dim) {
  int64_t position = -1;
  for (auto [i, result] : llvm::enumerate(map.getResults())) {
    if (!result.isFunctionOfDim(dim))
      continue;
    if (position >= 0 || result != getAffineDimExpr(dim, map.getContext()))
      return std::nullopt;
    position = i;
  }
  return position;
}

/// The split of `op` when it is a reduction to split (SplitReductions.h).
static std::optional<SplitChoice> splitOf(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.hasIndexSemantics() ||
      op.getNumReductionLoops() == 0 || linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op) ||
      !outputsPartitionedByParallelLoops(op) || !hasBlockCombiners(op))
    return std::nullopt;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return std::nullopt;
  int64_t points = 1, reduction = 1;
  SmallVector<unsigned> reductionDims;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (iterator == utils::IteratorType::parallel) {
      points *= bounds[dim];
      continue;
    }
    reduction *= bounds[dim];
    reductionDims.push_back(dim);
  }
  if (points > kSplitMaxPoints || reduction < kSplitMinReduction)
    return std::nullopt;
  std::optional<SplitChoice> choice =
      chooseSplit(bounds, reductionDims, points);
  if (!choice)
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!splitPosition(op.getMatchingIndexingMap(input), choice->dim))
      return std::nullopt;
  return choice;
}

/// Rewrites `op` as its partial results (the same payload over loops where
/// the split's loops are parallel, into tensors of the outputs' shapes
/// followed by the split's, from the combiners' identities) and their
/// combination into the op's outputs.
static void splitReduction(RewriterBase &rewriter, linalg::GenericOp op,
                           const SplitChoice &choice) {
  MLIRContext *context = op.getContext();
  Location loc = op.getLoc();
  SmallVector<Operation *> combiners = blockCombiners(op);
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned loops = op.getNumLoops();

  // The partial op's loops: the split loop becomes (slice, rest), the whole
  // loops parallel. Inputs that read the split loop are expanded there (its
  // entry in `toPartial` is the slice loop, which no other map uses).
  int64_t rest = bounds[choice.dim] / choice.factor;
  SmallVector<AffineExpr> toPartial(loops);
  SmallVector<utils::IteratorType> partialIterators;
  SmallVector<AffineExpr> splitExprs;
  SmallVector<int64_t> splitBounds;
  unsigned splitLoop = 0;
  for (unsigned dim = 0; dim < loops; ++dim) {
    AffineExpr loop = getAffineDimExpr(partialIterators.size(), context);
    if (dim == choice.dim) {
      splitLoop = partialIterators.size();
      toPartial[dim] = loop;
      partialIterators.push_back(utils::IteratorType::parallel);
      partialIterators.push_back(utils::IteratorType::reduction);
      splitExprs.push_back(loop);
      splitBounds.push_back(choice.factor);
      continue;
    }
    toPartial[dim] = loop;
    bool whole = llvm::is_contained(choice.whole, dim);
    partialIterators.push_back(whole ? utils::IteratorType::parallel
                                     : iterators[dim]);
    // The whole loops come before the split one: their slices lead.
    if (whole) {
      splitExprs.push_back(loop);
      splitBounds.push_back(bounds[dim]);
    }
  }
  unsigned partialLoops = partialIterators.size();
  auto toPartialMap = [&](AffineMap map) {
    return map.replaceDimsAndSymbols(toPartial, {}, partialLoops, 0);
  };

  // The combination's loops: the op's parallel loops, then the slices.
  unsigned parallel = op.getNumParallelLoops();
  SmallVector<AffineExpr> toCombine(loops, getAffineConstantExpr(0, context));
  for (unsigned dim = 0, next = 0; dim < loops; ++dim)
    if (iterators[dim] == utils::IteratorType::parallel)
      toCombine[dim] = getAffineDimExpr(next++, context);
  unsigned combineLoops = parallel + splitExprs.size();
  SmallVector<utils::IteratorType> combineIterators(
      parallel, utils::IteratorType::parallel);
  combineIterators.append(splitExprs.size(), utils::IteratorType::reduction);

  rewriter.setInsertionPoint(op);
  SmallVector<AffineMap> partialMaps;
  SmallVector<Value> partialInputs;
  // An input that reads the split loop reads an expansion of the
  // dimension it indexes into (slice, rest): every loop of the partial op
  // stays a plain result of some map (linalg derives loops from shapes).
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    int64_t position = *splitPosition(map, choice.dim);
    if (position < 0) {
      partialMaps.push_back(toPartialMap(map));
      partialInputs.push_back(input->get());
      continue;
    }
    auto type = cast<RankedTensorType>(input->get().getType());
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    SmallVector<AffineExpr> results;
    for (auto [i, result] : llvm::enumerate(map.getResults())) {
      if (static_cast<int64_t>(i) != position) {
        groups.push_back({static_cast<int64_t>(shape.size())});
        shape.push_back(type.getDimSize(i));
        results.push_back(result.replaceDimsAndSymbols(toPartial, {}));
        continue;
      }
      groups.push_back({static_cast<int64_t>(shape.size()),
                        static_cast<int64_t>(shape.size()) + 1});
      shape.append({choice.factor, rest});
      results.push_back(getAffineDimExpr(splitLoop, context));
      results.push_back(getAffineDimExpr(splitLoop + 1, context));
    }
    partialInputs.push_back(tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
        input->get(), groups));
    partialMaps.push_back(AffineMap::get(partialLoops, 0, results, context));
  }
  SmallVector<Value> partialInits;
  SmallVector<Type> partialTypes;
  SmallVector<AffineMap> combineMaps, combineOutputMaps;
  for (auto [output, combiner] :
       llvm::zip(op.getDpsInitsMutable(), combiners)) {
    AffineMap map = op.getMatchingIndexingMap(&output);
    auto type = cast<RankedTensorType>(output.get().getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.append(splitBounds);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    Value identity = combinerIdentity(rewriter, loc, combiner);
    partialInits.push_back(
        linalg::FillOp::create(rewriter, loc, identity, empty).getResult(0));
    partialTypes.push_back(partialInits.back().getType());
    SmallVector<AffineExpr> results(toPartialMap(map).getResults());
    results.append(splitExprs);
    partialMaps.push_back(AffineMap::get(partialLoops, 0, results, context));
    AffineMap outputMap =
        map.replaceDimsAndSymbols(toCombine, {}, combineLoops, 0);
    SmallVector<AffineExpr> inputResults(outputMap.getResults());
    for (unsigned slice = 0; slice < splitExprs.size(); ++slice)
      inputResults.push_back(getAffineDimExpr(parallel + slice, context));
    combineMaps.push_back(
        AffineMap::get(combineLoops, 0, inputResults, context));
    combineOutputMaps.push_back(outputMap);
  }
  combineMaps.append(combineOutputMaps);

  auto partial =
      linalg::GenericOp::create(rewriter, loc, partialTypes, partialInputs,
                                partialInits, partialMaps, partialIterators);
  IRMapping mapping;
  op.getRegion().cloneInto(&partial.getRegion(), mapping);
  partial->setDiscardableAttrs(op->getDiscardableAttrDictionary());

  // An output's initial value that a fill computes is computed again
  // right before the combination, whose kernel then computes it in place
  // (KernelPrologue.h); the partial results would separate the two.
  unsigned outputs = combiners.size();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> inits;
  for (Value init : op.getDpsInits()) {
    auto fill = init.getDefiningOp<linalg::FillOp>();
    inits.push_back(fill ? linalg::FillOp::create(rewriter, fill.getLoc(),
                                                  fill.getInputs(),
                                                  fill.getOutputs())
                               .getResult(0)
                         : init);
    if (fill)
      inits.back().getDefiningOp()->setDiscardableAttrs(
          fill->getDiscardableAttrDictionary());
  }
  auto combine = linalg::GenericOp::create(
      rewriter, loc, op.getResultTypes(), partial.getResults(), inits,
      combineMaps, combineIterators,
      [&](OpBuilder &builder, Location bodyLoc, ValueRange args) {
        SmallVector<Value> results;
        for (unsigned i = 0; i < outputs; ++i) {
          Operation *combined = builder.clone(*combiners[i]);
          combined->setOperands({args[i], args[outputs + i]});
          results.push_back(combined->getResult(0));
        }
        linalg::YieldOp::create(builder, bodyLoc, results);
      });
  combine->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  combine->setAttr(kSplitCombineAttrName, UnitAttr::get(context));
  rewriter.replaceOp(op, combine.getResults());
}

void mlir::tandem::splitLongReductions(func::FuncOp func) {
  SmallVector<std::pair<linalg::GenericOp, SplitChoice>> splits;
  func.walk([&](linalg::GenericOp op) {
    if (std::optional<SplitChoice> choice = splitOf(op))
      splits.push_back({op, *choice});
  });
  IRRewriter rewriter(func.getContext());
  SmallVector<Operation *> fills;
  for (auto &[op, choice] : splits) {
    for (Value init : op.getDpsInits())
      if (auto fill = init.getDefiningOp<linalg::FillOp>())
        fills.push_back(fill);
    splitReduction(rewriter, op, choice);
  }
  // Fills that only the split ops read are computed again where used.
  for (Operation *fill : fills)
    if (fill->use_empty())
      rewriter.eraseOp(fill);
}

namespace {
struct SplitReductionsPass
    : tandem::impl::TandemSplitReductionsBase<SplitReductionsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isGPUPartition(func))
        splitLongReductions(func);
  }
};
} // namespace
