//===- AttentionOperands.cpp - head splits and merges read in place -------===//

#include "codegen/GPU/AttentionOperands.h"

#include "codegen/GPU/ReshapeMaps.h"

#include "codegen/LinalgPayloads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The reshapes (expand/collapse, static shapes) from `root` to `view`,
/// outermost first; none when another op lies between.
std::optional<SmallVector<Operation *>> reshapesBetween(Value view,
                                                        Value root) {
  SmallVector<Operation *> reshapes;
  while (view != root) {
    Operation *def = view.getDefiningOp();
    if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      return std::nullopt;
    reshapes.push_back(def);
    view = def->getOperand(0);
  }
  return reshapes;
}

/// The map between the indices of `view` and those of `root`, which it
/// views through expand/collapse shapes: from the view's to the root's
/// (`toRoot`) or back. None through other ops.
std::optional<AffineMap> reshapeIndices(Value view, Value root, bool toRoot) {
  std::optional<SmallVector<Operation *>> reshapes =
      reshapesBetween(view, root);
  if (!reshapes)
    return std::nullopt;
  MLIRContext *context = view.getContext();
  AffineMap map = AffineMap::getMultiDimIdentityMap(
      cast<MemRefType>((toRoot ? view : root).getType()).getRank(), context);
  SmallVector<Operation *> steps(*reshapes);
  if (!toRoot)
    std::reverse(steps.begin(), steps.end());
  for (Operation *reshape : steps) {
    // The fine side of the reshape and its groups: an expand's result, a
    // collapse's source.
    auto expand = dyn_cast<memref::ExpandShapeOp>(reshape);
    auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape);
    SmallVector<ReassociationIndices> groups =
        expand ? expand.getReassociationIndices()
               : collapse.getReassociationIndices();
    ArrayRef<int64_t> fine = expand ? expand.getResultType().getShape()
                                    : collapse.getSrcType().getShape();
    // Towards the root an expand's indices linearise, a collapse's
    // delinearise; away from it the other way round.
    AffineMap step = bool(expand) == toRoot
                         ? linearizeMap(groups, fine, context)
                         : delinearizeMap(groups, fine, context);
    map = step.compose(map);
  }
  return map;
}

/// The buffer `value` views through expand/collapse shapes only.
Value reshapeRoot(Value value) {
  while (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  return value;
}

/// The ops that use `buffer` directly or through views (the views left
/// out).
SmallVector<Operation *> usersThroughViews(Value buffer) {
  SmallVector<Operation *> users;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<ViewLikeOpInterface>(user)) {
        worklist.append(user->result_begin(), user->result_end());
        continue;
      }
      if (!llvm::is_contained(users, user))
        users.push_back(user);
    }
  }
  return users;
}

/// Whether the ops strictly between `from` and `to` (in one block, `from`
/// first) neither write nor free a buffer of `readOnly` and do not touch
/// one of `untouched` at all (buffers as viewedBuffer gives them).
bool leftAlone(Operation *from, Operation *to, ArrayRef<Value> readOnly,
               ArrayRef<Value> untouched) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return false;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (isa<MemoryEffects::Allocate>(instance.getEffect()))
        continue;
      Value value = instance.getValue();
      if (!value)
        return false;
      Value buffer = viewedBuffer(value);
      if (llvm::is_contained(untouched, buffer))
        return false;
      if (llvm::is_contained(readOnly, buffer) &&
          !isa<MemoryEffects::Read>(instance.getEffect()))
        return false;
    }
  }
  return true;
}

/// The operands of a contraction being rewritten: their values, indexing
/// maps and the loops' iterator types.
struct Operands {
  SmallVector<Value> values;
  SmallVector<AffineMap> maps;
  SmallVector<utils::IteratorType> iterators;
};

/// Splits loop `loop` of `operands` into loops of trip counts `sizes`
/// (row-major), so that the output (the last operand) is written through
/// a view that splits the output's dimension that the loop indexes alike
/// (Swin's windows x heads, split back into windows and heads by its head
/// merge). Each operand indexed by the loop alone at some dimension reads
/// the finer buffer a collapse_shape made it from, or a new expand_shape
/// view of it (appended to `views`, built at `builder`'s point); others
/// index the split loops' linearisation. Fails, `operands` unchanged, when
/// the output cannot be viewed so (the views built so far are in `views`
/// for the caller to erase).
LogicalResult splitLoop(OpBuilder &builder, Location loc, Operands &operands,
                        unsigned loop, ArrayRef<int64_t> sizes,
                        SmallVectorImpl<Operation *> &views) {
  MLIRContext *context = builder.getContext();
  unsigned loops = operands.iterators.size(), extra = sizes.size() - 1;
  SmallVector<AffineExpr> oldLoops;
  for (unsigned l = 0; l < loops; ++l) {
    if (l < loop) {
      oldLoops.push_back(getAffineDimExpr(l, context));
      continue;
    }
    if (l > loop) {
      oldLoops.push_back(getAffineDimExpr(l + extra, context));
      continue;
    }
    AffineExpr linear = getAffineConstantExpr(0, context);
    for (auto [k, size] : llvm::enumerate(sizes))
      linear = linear * size + getAffineDimExpr(loop + k, context);
    oldLoops.push_back(linear);
  }
  AffineMap sub = AffineMap::get(loops + extra, 0, oldLoops, context);
  AffineExpr split = getAffineDimExpr(loop, context);
  Operands result;
  result.iterators = operands.iterators;
  result.iterators.insert(result.iterators.begin() + loop, extra,
                          operands.iterators[loop]);
  for (auto [index, value, map] :
       llvm::enumerate(operands.values, operands.maps)) {
    bool output = index + 1 == operands.values.size();
    auto type = cast<MemRefType>(value.getType());
    auto position = llvm::find(map.getResults(), split);
    if (position == map.getResults().end()) {
      if (output)
        return failure();
      result.values.push_back(value);
      result.maps.push_back(map.compose(sub));
      continue;
    }
    unsigned dim = position - map.getResults().begin();
    // The finer buffer, and the reassociation from it to `value`.
    Value finer;
    auto collapse = value.getDefiningOp<memref::CollapseShapeOp>();
    if (collapse) {
      SmallVector<ReassociationIndices> groups =
          collapse.getReassociationIndices();
      ArrayRef<int64_t> source = collapse.getSrcType().getShape();
      bool matches = llvm::all_of(llvm::enumerate(groups), [&](auto group) {
        if (group.index() != dim)
          return group.value().size() == 1;
        return llvm::equal(
            llvm::map_range(group.value(),
                            [&](int64_t d) { return source[d]; }),
            sizes);
      });
      if (matches)
        finer = collapse.getSrc();
    }
    if (!finer && type.getLayout().isIdentity()) {
      SmallVector<ReassociationIndices> groups;
      SmallVector<int64_t> shape;
      for (unsigned d = 0; d < type.getRank(); ++d) {
        ReassociationIndices group;
        for (int64_t size : d == dim ? sizes : ArrayRef(type.getShape()[d])) {
          group.push_back(shape.size());
          shape.push_back(size);
        }
        groups.push_back(group);
      }
      auto expand = memref::ExpandShapeOp::create(
          builder, loc, MemRefType::get(shape, type.getElementType()), value,
          groups);
      views.push_back(expand);
      finer = expand;
    }
    if (!finer) {
      if (output)
        return failure();
      result.values.push_back(value);
      result.maps.push_back(map.compose(sub));
      continue;
    }
    SmallVector<AffineExpr> results;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      if (d != dim) {
        results.push_back(expr.compose(sub));
        continue;
      }
      for (unsigned k = 0; k <= extra; ++k)
        results.push_back(getAffineDimExpr(loop + k, context));
    }
    result.values.push_back(finer);
    result.maps.push_back(AffineMap::get(loops + extra, 0, results, context));
  }
  operands = std::move(result);
  return success();
}

class TransposeFolder {
public:
  TransposeFolder(RowChain &chain, SmallVectorImpl<Operation *> &ops,
                  llvm::DenseMap<Operation *, KernelPrologue> &prologues,
                  const llvm::SmallPtrSetImpl<Operation *> &chained)
      : chain(chain), ops(ops), prologues(prologues), chained(chained),
        rewriter(chain.stages.front().op->getContext()) {}

  /// Folds a transpose into input `input` of stage `stage`.
  bool foldInput(size_t stage, unsigned input) {
    linalg::LinalgOp contraction = chain.stages[stage].op;
    OpOperand *operand = contraction.getDpsInputOperand(input);
    Value root = reshapeRoot(operand->get());
    if (!root.getDefiningOp<memref::AllocOp>())
      return false;
    // The transpose writes the buffer; the contraction only reads it,
    // through this operand.
    auto transpose = dyn_cast_or_null<linalg::GenericOp>(
        singleOtherUser(root, contraction));
    if (!transpose ||
        !(foldable(transpose) ||
          (scaleFactor(transpose) && takenAlone(transpose))) ||
        transpose.getDpsInitOperand(0)->get() != root ||
        !transpose->isBeforeInBlock(contraction) ||
        llvm::count_if(contraction->getOperands(), [&](Value value) {
          return viewedBuffer(value) == root;
        }) != 1)
      return false;
    OpOperand *source = transpose.getDpsInputOperand(0);
    if (!leftAlone(transpose, contraction, {viewedBuffer(source->get())}, {}))
      return false;
    std::optional<AffineMap> toRoot =
        reshapeIndices(operand->get(), root, /*toRoot=*/true);
    if (!toRoot)
      return false;
    AffineMap map =
        simplifyAffineMap(transpose.getMatchingIndexingMap(source).compose(
            toRoot->compose(contraction.getMatchingIndexingMap(operand))));
    SmallVector<Value> inputs = contraction.getDpsInputs();
    inputs[input] = source->get();
    SmallVector<AffineMap> maps = contraction.getIndexingMapsArray();
    maps[input] = map;
    // The stage reads the source coalesced, a warp per point when it reads
    // it along the reduction (K in place), and reads every other input
    // coalesced that it did before.
    ContractionReads before = contractionReads(contraction);
    ContractionReads after = contractionReads(
        ArrayRef(maps).take_front(inputs.size()), ValueRange(inputs).getTypes(),
        contraction.getIteratorTypesArray(), hasBlockCombiners(contraction));
    if (!after.coalesced[input])
      return false;
    for (auto [was, is] : llvm::zip(before.coalesced, after.coalesced))
      if (was && !is)
        return false;
    linalg::GenericOp folded =
        replaceStage(stage, inputs, contraction.getDpsInits(), maps);
    if (!isPermutationCopy(transpose))
      applyScale(transpose, folded, input);
    eraseOp(contraction);
    eraseOp(transpose);
    eraseBuffer(root);
    return true;
  }

  /// Folds a transpose of the output of the last stage into it.
  bool foldOutput() {
    size_t stage = chain.stages.size() - 1;
    linalg::LinalgOp contraction = chain.stages[stage].op;
    if (contraction.getNumDpsInits() != 1)
      return false;
    OpOperand *init = contraction.getDpsInitOperand(0);
    Value root = reshapeRoot(init->get());
    auto prologue = prologues.find(contraction);
    if (!root.getDefiningOp<memref::AllocOp>() || prologue == prologues.end())
      return false;
    linalg::LinalgOp producer = prologue->second.initProducer;
    auto fill = producer ? dyn_cast<linalg::FillOp>(producer.getOperation())
                         : linalg::FillOp();
    if (!fill || prologue->second.ops.size() != 1)
      return false;
    // The transpose reads the buffer; the fill and the contraction write
    // it.
    Operation *reader = nullptr;
    for (Operation *user : usersThroughViews(root)) {
      if (user == contraction || user == fill ||
          isa<memref::DeallocOp>(user))
        continue;
      if (reader)
        return false;
      reader = user;
    }
    auto transpose = dyn_cast_or_null<linalg::GenericOp>(reader);
    if (!transpose || !foldable(transpose) ||
        !contraction->isBeforeInBlock(transpose) ||
        reshapeRoot(transpose.getDpsInputOperand(0)->get()) != root)
      return false;
    Value target = transpose.getDpsInitOperand(0)->get();
    Value targetBuffer = viewedBuffer(target);
    // The target must exist where the contraction runs: an argument, or
    // an allocation (moved up) of which nothing between reads or writes.
    Operation *targetDef = target.getDefiningOp();
    if (targetDef && !(isa<memref::AllocOp>(targetDef) &&
                       targetDef->getNumOperands() == 0))
      return false;
    if (!leftAlone(contraction, transpose, {}, {targetBuffer}))
      return false;
    OpOperand *read = transpose.getDpsInputOperand(0);
    auto readType = cast<MemRefType>(read->get().getType());
    Operands operands{llvm::to_vector(contraction->getOperands()),
                      contraction.getIndexingMapsArray(),
                      contraction.getIteratorTypesArray()};
    rewriter.setInsertionPoint(contraction);
    SmallVector<Operation *> views;
    auto undoViews = [&] {
      for (Operation *view : llvm::reverse(views))
        rewriter.eraseOp(view);
    };
    // Where the transpose reads a finer view of the output than the
    // contraction writes (Swin's windows x heads split back into windows
    // and heads), the contraction's loop splits alike first.
    auto writtenType = cast<MemRefType>(init->get().getType());
    if (readType.getShape() != writtenType.getShape()) {
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(writtenType, readType);
      auto isSplit = [](const ReassociationIndices &group) {
        return group.size() > 1;
      };
      if (readType.getRank() <= writtenType.getRank() || !groups ||
          llvm::count_if(*groups, isSplit) != 1)
        return false;
      auto split = llvm::find_if(*groups, isSplit);
      auto dim = dyn_cast<AffineDimExpr>(
          operands.maps.back().getResult(split - groups->begin()));
      if (!dim)
        return false;
      SmallVector<int64_t> sizes;
      for (int64_t d : *split)
        sizes.push_back(readType.getShape()[d]);
      if (failed(splitLoop(rewriter, contraction.getLoc(), operands,
                           dim.getPosition(), sizes, views)) ||
          cast<MemRefType>(operands.values.back().getType()).getShape() !=
              readType.getShape()) {
        undoViews();
        return false;
      }
    }
    // The contraction now writes a view of the shape the transpose reads:
    // both row-major views of the same buffer, so they index it alike.
    AffineMap map = simplifyAffineMap(
        inversePermutation(transpose.getMatchingIndexingMap(read))
            .compose(operands.maps.back()));
    unsigned thread =
        llvm::count(operands.iterators, utils::IteratorType::parallel) - 1;
    // Unit dimensions of the target that the map indexes by 0 (a head
    // merge's batch of 1) are collapsed away: outputs are written through
    // projected permutations.
    auto targetType = cast<MemRefType>(target.getType());
    SmallVector<int64_t> kept;
    SmallVector<AffineExpr> results;
    for (auto [size, expr] : llvm::zip(targetType.getShape(), map.getResults())) {
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (size == 1 && constant && constant.getValue() == 0)
        continue;
      kept.push_back(size);
      results.push_back(expr);
    }
    bool dropsUnits = kept.size() != size_t(targetType.getRank());
    std::optional<SmallVector<ReassociationIndices>> dropUnits;
    if (dropsUnits)
      dropUnits =
          getReassociationIndicesForCollapse(targetType.getShape(), kept);
    map = AffineMap::get(map.getNumDims(), 0, results, map.getContext());
    if (kept.empty() || (dropsUnits && !dropUnits) ||
        !map.isProjectedPermutation() ||
        !coalescedAlong(thread, map,
                        MemRefType::get(kept, targetType.getElementType()))) {
      undoViews();
      return false;
    }
    if (targetDef && contraction->isBeforeInBlock(targetDef))
      targetDef->moveBefore(fill);
    rewriter.setInsertionPoint(contraction);
    if (dropsUnits) {
      views.push_back(memref::CollapseShapeOp::create(rewriter, fill.getLoc(),
                                                      target, *dropUnits));
      target = views.back()->getResult(0);
    }
    auto zero = linalg::FillOp::create(rewriter, fill.getLoc(),
                                       fill.getDpsInputs()[0], target);
    zero->setDiscardableAttrs(fill->getDiscardableAttrDictionary());
    operands.maps.back() = map;
    ArrayRef<Value> values = operands.values;
    linalg::GenericOp folded =
        replaceStage(stage, values.drop_back(), ValueRange{target},
                     operands.maps, operands.iterators);
    SmallVector<linalg::LinalgOp> stages;
    for (const RowStage &rowStage : chain.stages)
      stages.push_back(rowStage.op);
    KernelPrologue zeroPrologue = matchKernelPrologue(folded);
    if (!rowsStayApart(stages, chain.rows) || !rowLoopsOf(folded, chain.rows) ||
        zeroPrologue.initProducer != zero) {
      // Undo: the contraction stays as it was.
      chain.stages[stage].op = contraction;
      llvm::replace(ops, folded.getOperation(), contraction.getOperation());
      prologues.erase(folded);
      rewriter.eraseOp(folded);
      rewriter.eraseOp(zero);
      undoViews();
      return false;
    }
    chain.stages[stage].prologue = zeroPrologue;
    prologues[folded] = std::move(zeroPrologue);
    eraseOp(contraction);
    eraseOp(fill);
    eraseOp(transpose);
    eraseBuffer(root);
    return true;
  }

private:
  /// Whether `transpose` is a transpose no chain took and that runs as a
  /// kernel of its own.
  bool foldable(linalg::GenericOp transpose) const {
    return isPermutationCopy(transpose) && takenAlone(transpose);
  }

  /// Whether `op` is in no chain and runs as a kernel of its own.
  bool takenAlone(linalg::GenericOp op) const {
    return !chained.contains(op) && !prologues.count(op) &&
           llvm::is_contained(ops, op);
  }

  /// The f32 constant a transpose that also scales multiplies by (MaxViT's
  /// K * scale before its head-major transpose: as isPermutationCopy, but
  /// its body multiplies the element by the constant), or null.
  static Value scaleFactor(linalg::GenericOp op) {
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        !op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isPermutation())
      return {};
    Block *body = op.getBody();
    auto ops = body->without_terminator();
    if (std::distance(ops.begin(), ops.end()) != 1)
      return {};
    auto mul = dyn_cast<arith::MulFOp>(*ops.begin());
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    if (!mul || yield->getOperand(0) != mul.getResult() ||
        !mul.getType().isF32())
      return {};
    Value in = body->getArgument(0);
    if (mul.getLhs() != in && mul.getRhs() != in)
      return {};
    Value factor = mul.getLhs() == in ? mul.getRhs() : mul.getLhs();
    return matchPattern(factor, m_Constant()) ? factor : Value();
  }

  /// Makes input `input` of the contraction `folded`, which now reads
  /// `transpose`'s input, scaled as `transpose` scaled it (scaleFactor):
  /// its payload multiplies the element first, the same product (constant
  /// and operand order kept) the transpose wrote.
  void applyScale(linalg::GenericOp transpose, linalg::GenericOp folded,
                  unsigned input) {
    Value factor = scaleFactor(transpose);
    Block &body = folded.getRegion().front();
    BlockArgument element = body.getArgument(input);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&body);
    IRMapping mapping;
    mapping.map(transpose.getBody()->getArgument(0), element);
    mapping.map(factor, rewriter.clone(*factor.getDefiningOp())->getResult(0));
    Operation *scaled = rewriter.clone(
        *transpose.getBody()->without_terminator().begin(), mapping);
    element.replaceAllUsesExcept(scaled->getResult(0), scaled);
  }

  /// The one op besides `op` that uses `buffer` (through views,
  /// deallocations aside), or null.
  static Operation *singleOtherUser(Value buffer, Operation *op) {
    Operation *other = nullptr;
    for (Operation *user : usersThroughViews(buffer)) {
      if (user == op || isa<memref::DeallocOp>(user))
        continue;
      if (other)
        return nullptr;
      other = user;
    }
    return other;
  }

  /// Replaces stage `stage` by a generic with the same payload over
  /// `inputs` and `outputs` through `maps` (and its loops, or loops of
  /// `iterators`), right before it (the old op stays, for the caller to
  /// erase).
  linalg::GenericOp
  replaceStage(size_t stage, ValueRange inputs, ValueRange outputs,
               ArrayRef<AffineMap> maps,
               std::optional<ArrayRef<utils::IteratorType>> iterators = {}) {
    linalg::LinalgOp old = chain.stages[stage].op;
    rewriter.setInsertionPoint(old);
    auto generic = linalg::GenericOp::create(
        rewriter, old.getLoc(), TypeRange{}, inputs, outputs, maps,
        iterators ? llvm::to_vector(*iterators) : old.getIteratorTypesArray());
    IRMapping mapping;
    old->getRegion(0).cloneInto(&generic.getRegion(), mapping);
    generic->setDiscardableAttrs(old->getDiscardableAttrDictionary());
    chain.stages[stage].op = generic;
    llvm::replace(ops, old.getOperation(), generic.getOperation());
    if (auto it = prologues.find(old); it != prologues.end())
      prologues[generic] = it->second;
    return generic;
  }

  /// Erases `op`, which no longer has a kernel of its own.
  void eraseOp(Operation *op) {
    llvm::erase(ops, op);
    prologues.erase(op);
    rewriter.eraseOp(op);
  }

  /// Erases allocation `buffer` with its deallocations and views, when
  /// nothing else uses it now.
  void eraseBuffer(Value buffer) {
    SmallVector<Operation *> users = usersThroughViews(buffer);
    if (!llvm::all_of(users, llvm::IsaPred<memref::DeallocOp>))
      return;
    for (Operation *user : users)
      rewriter.eraseOp(user);
    // Views, innermost last.
    SmallVector<Operation *> views;
    SmallVector<Value> worklist = {buffer};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        views.push_back(user);
        worklist.append(user->result_begin(), user->result_end());
      }
    }
    for (Operation *view : llvm::reverse(views))
      if (view->use_empty())
        rewriter.eraseOp(view);
    if (buffer.use_empty())
      rewriter.eraseOp(buffer.getDefiningOp());
  }

  RowChain &chain;
  SmallVectorImpl<Operation *> &ops;
  llvm::DenseMap<Operation *, KernelPrologue> &prologues;
  const llvm::SmallPtrSetImpl<Operation *> &chained;
  IRRewriter rewriter;
};

} // namespace

bool mlir::tandem::movableBefore(linalg::LinalgOp op, Operation *before) {
  SmallVector<Value> read, written;
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      read.push_back(viewedBuffer(input->get()));
  for (Value init : op.getDpsInits())
    written.push_back(viewedBuffer(init));
  return movableBefore(op, read, written, before);
}

bool mlir::tandem::movableBefore(Operation *op, ArrayRef<Value> read,
                                 ArrayRef<Value> written, Operation *before) {
  if (op->getBlock() != before->getBlock() || !op->isBeforeInBlock(before))
    return false;
  return leftAlone(op, before, read, written);
}

unsigned mlir::tandem::foldAttentionTransposes(
    RowChain &chain, SmallVectorImpl<Operation *> &ops,
    llvm::DenseMap<Operation *, KernelPrologue> &prologues,
    const llvm::SmallPtrSetImpl<Operation *> &chained) {
  if (!chain.attention || chain.stages.size() < 2)
    return 0;
  TransposeFolder folder(chain, ops, prologues, chained);
  unsigned folded = 0;
  // The scores' contraction is the first stage with reductions (a query's
  // scale may come before it); P V is the last.
  size_t scores = 0;
  while (scores + 1 < chain.stages.size() &&
         chain.stages[scores].op.getNumReductionLoops() == 0)
    ++scores;
  for (size_t stage : {scores, chain.stages.size() - 1})
    for (unsigned input = 0;
         input < chain.stages[stage].op.getNumDpsInputs(); ++input)
      folded += folder.foldInput(stage, input);
  folded += folder.foldOutput();
  return folded;
}
