//===- RowKernels.cpp - several linalg ops as one block per row -----------===//

#include "codegen/GPU/RowKernels.h"
#include "codegen/GPU/SplitReductions.h"

#include "codegen/GPU/AttentionOperands.h"
#include "codegen/LinalgPayloads.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tandem;

/// The longest chain formRowChains builds (it checks each extension
/// against the whole chain).
static constexpr size_t kMaxRowStages = 16;

/// With fewer rows (blocks) than this a row kernel keeps most of a large GPU
/// (132 SMs) idle, so a neighbour with more than kMaxPointsPerRow points per
/// row, which runs on every SM as a kernel of its own, stays one.
static constexpr int64_t kMinRowsForWideNeighbours = 128;

/// A chain grows only from a reduction of rows of at least this many
/// points: a block per row has two warps (planRowStages), more than three
/// quarters of which shorter rows would leave idle.
static constexpr int64_t kMinRowPoints = 16;
static constexpr int64_t kMaxPointsPerRow = 16 * kThreadsPerBlock;

int64_t mlir::tandem::rowCount(ArrayRef<int64_t> rows) {
  int64_t count = 1;
  for (int64_t bound : rows)
    count *= bound;
  return count;
}

bool mlir::tandem::coalescedAlong(unsigned loop, AffineMap map,
                                  MemRefType type) {
  MLIRContext *context = map.getContext();
  for (auto [position, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isFunctionOfDim(loop))
      continue;
    if (position + 1 != map.getNumResults())
      return false;
    AffineExpr rest = simplifyAffineExpr(expr - getAffineDimExpr(loop, context),
                                         map.getNumDims(), 0);
    if (rest.isFunctionOfDim(loop))
      return false;
    auto [strides, offset] = type.getStridesAndOffset();
    if (strides.empty() || strides.back() != 1)
      return false;
  }
  return true;
}

ContractionReads
mlir::tandem::contractionReads(ArrayRef<AffineMap> maps, TypeRange types,
                               ArrayRef<utils::IteratorType> iterators,
                               bool warpCombiners) {
  auto last = [&](utils::IteratorType kind) -> std::optional<unsigned> {
    for (unsigned dim = iterators.size(); dim-- > 0;)
      if (iterators[dim] == kind)
        return dim;
    return std::nullopt;
  };
  std::optional<unsigned> thread = last(utils::IteratorType::parallel);
  std::optional<unsigned> lane = last(utils::IteratorType::reduction);
  SmallVector<bool> byThread, byLane;
  for (auto [map, type] : llvm::zip(maps, types)) {
    auto memref = dyn_cast<MemRefType>(type);
    byThread.push_back(!memref || !thread ||
                       coalescedAlong(*thread, map, memref));
    byLane.push_back(!memref || !lane || coalescedAlong(*lane, map, memref));
  }
  ContractionReads reads;
  bool laneOnly = false, threadOnly = false;
  for (auto [t, l] : llvm::zip(byThread, byLane)) {
    laneOnly |= l && !t;
    threadOnly |= t && !l;
  }
  reads.warpPerPoint = warpCombiners && lane && laneOnly && !threadOnly;
  reads.coalesced = reads.warpPerPoint ? byLane : byThread;
  return reads;
}

ContractionReads mlir::tandem::contractionReads(linalg::LinalgOp op) {
  SmallVector<AffineMap> maps;
  SmallVector<Type> types;
  for (OpOperand *input : op.getDpsInputOperands()) {
    maps.push_back(op.getMatchingIndexingMap(input));
    types.push_back(input->get().getType());
  }
  return contractionReads(maps, types, op.getIteratorTypesArray(),
                          hasBlockCombiners(op));
}

std::optional<unsigned> mlir::tandem::rowLoopsOf(linalg::LinalgOp op,
                                                 ArrayRef<int64_t> rows) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t want = rowCount(rows), have = 1;
  unsigned loops = 0;
  for (; loops < bounds.size(); ++loops) {
    if (iterators[loops] != utils::IteratorType::parallel)
      break;
    if (bounds[loops] <= 0)
      return std::nullopt;
    // Unit loops after the last row loop are row loops too.
    if (have == want && bounds[loops] != 1)
      break;
    if (have > want / bounds[loops])
      return std::nullopt;
    have *= bounds[loops];
  }
  if (have != want)
    return std::nullopt;
  return loops;
}

namespace {

/// What kind of stage an op can be in a chain.
/// Pointwise: every loop past the rows parallel. Reduction: every loop past
/// the rows an associative reduction (a block reduction). Contraction:
/// parallel loops, then reductions that each thread runs serially (the
/// scores Q K^T and the output P V of an attention).
enum class StageKind { None, Pointwise, Reduction, Contraction };

/// The product of the trip counts of `op`'s loops past the first `loops`.
int64_t innerSize(linalg::LinalgOp op, unsigned loops) {
  return rowCount(
      ArrayRef<int64_t>(op.getStaticLoopRanges()).drop_front(loops));
}

/// The buffer `value` views, when only reshapes (which keep the row-major
/// order of the elements) lie between them; null otherwise.
Value reshapedBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      return isa<ViewLikeOpInterface>(def) ? Value() : value;
    value = cast<ViewLikeOpInterface>(def).getViewSource();
  }
  return value;
}

/// Whether `op` can be a stage of a chain over rows `rows`, and of which
/// kind (StageKind), from its loops past its row loops (rowLoopsOf; a
/// pointwise stage may have none). Each output is written once per point,
/// the payload touches no memory, the prologue pads nothing, and it is no
/// convolution; a contraction can only be a Contraction stage.
StageKind stageKind(linalg::LinalgOp op, const KernelPrologue &prologue,
                    ArrayRef<int64_t> rows) {
  if (!op || !op.hasPureBufferSemantics() || !prologue.paddedInputs.empty() ||
      linalg::isaConvolutionOpInterface(op))
    return StageKind::None;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic) ||
      !outputsPartitionedByParallelLoops(op))
    return StageKind::None;
  // Nested regions too: a gathering concat loads inside `scf.if`s.
  if (op.getBlock()
          ->walk([](Operation *inner) {
            return isa_and_nonnull<memref::MemRefDialect>(inner->getDialect())
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted())
    return StageKind::None;
  std::optional<unsigned> loops = rowLoopsOf(op, rows);
  if (!loops)
    return StageKind::None;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto rest = ArrayRef<utils::IteratorType>(iterators).drop_front(*loops);
  auto isParallel = [](utils::IteratorType iterator) {
    return iterator == utils::IteratorType::parallel;
  };
  size_t inner = 0;
  while (inner < rest.size() && isParallel(rest[inner]))
    ++inner;
  bool trailingReductions = llvm::none_of(rest.drop_front(inner), isParallel);
  if (!trailingReductions)
    return StageKind::None;
  if (inner > 0 && inner < rest.size())
    return StageKind::Contraction;
  if (linalg::isaContractionOpInterface(op))
    return StageKind::None;
  if (inner == rest.size())
    return StageKind::Pointwise;
  return hasBlockCombiners(op) ? StageKind::Reduction : StageKind::None;
}

/// The product of the trip counts of the parallel loops of `op` past its
/// `loops` row loops (the points its threads stride over).
int64_t parallelInnerSize(linalg::LinalgOp op, unsigned loops) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t size = 1;
  for (unsigned dim = loops; dim < bounds.size(); ++dim)
    if (iterators[dim] == utils::IteratorType::parallel)
      size *= bounds[dim];
  return size;
}

/// Whether the single reduction of `op` is a maximum (a softmax's first
/// stage).
bool isMaxReduction(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (op.getNumDpsInits() != 1)
    return false;
  SmallVector<Operation *> chain;
  Value reduced = matchReduction(
      llvm::to_vector(body->getArguments().take_back(1)), 0, chain);
  return reduced && chain.size() == 1 &&
         isa<arith::MaximumFOp, arith::MaxNumFOp>(chain.front());
}

/// Whether an op of `readers` reads a buffer that `writer` writes.
bool readsOutputOf(ArrayRef<linalg::LinalgOp> readers,
                   linalg::LinalgOp writer) {
  llvm::SmallPtrSet<Value, 4> written;
  for (Value init : writer.getDpsInits())
    written.insert(viewedBuffer(init));
  return llvm::any_of(readers, [&](linalg::LinalgOp reader) {
    return llvm::any_of(reader.getDpsInputs(), [&](Value input) {
      return isa<MemRefType>(input.getType()) &&
             written.contains(viewedBuffer(input));
    });
  });
}

/// The rows of `op` when it reduces rows of at least kMinRowPoints points
/// (its reductions trailing): a chain can grow from it. Rows from
/// kMinBlockReduction points on get a block each however many there are
/// (a softmax over 8192 keys for 4 heads has 32768 rows; alone, such a
/// reduction is a block reduction only below kMaxBlockReductionPoints
/// rows). Shorter ones (a Swin window attention's 49 keys, the 7 x 7 maps
/// of a late stage's pool) are a thread per row alone, but a block per row
/// (two warps) in a chain whose other stages would each be a launch, when
/// there are fewer than kMaxBlockReductionPoints rows.
std::optional<SmallVector<int64_t>> anchorRows(linalg::LinalgOp op,
                                               const KernelPrologue &prologue) {
  if (!op || !op.hasPureBufferSemantics() || op->hasAttr(kSplitCombineAttrName))
    return std::nullopt;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return std::nullopt;
  unsigned parallel = op.getNumParallelLoops();
  SmallVector<int64_t> rows;
  for (int64_t bound : ArrayRef<int64_t>(bounds).take_front(parallel))
    if (bound != 1)
      rows.push_back(bound);
  int64_t points = innerSize(op, parallel);
  if (stageKind(op, prologue, rows) != StageKind::Reduction ||
      rowLoopsOf(op, rows) != parallel || points < kMinRowPoints ||
      (points < kMinBlockReduction &&
       rowCount(rows) >= kMaxBlockReductionPoints))
    return std::nullopt;
  return rows;
}

/// The row loops of `op` over rows `rows` other than unit ones.
SmallVector<unsigned> rowDimsOf(linalg::LinalgOp op, ArrayRef<int64_t> rows) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<unsigned> rowDims;
  for (unsigned dim = 0, loops = *rowLoopsOf(op, rows); dim < loops; ++dim)
    if (bounds[dim] != 1)
      rowDims.push_back(dim);
  return rowDims;
}

/// Whether the access of `operand` to a value of type `type` (map `map`)
/// holds the rows first: dropping unit dimensions, its first indices are
/// the row loops `rowDims` in order, over dimensions of those loops' trip
/// counts (`bounds`, the op's), and no other index uses them.
bool leadingRows(MemRefType type, AffineMap map, ArrayRef<unsigned> rowDims,
                 ArrayRef<int64_t> bounds) {
  unsigned matched = 0;
  for (auto [size, expr] : llvm::zip(type.getShape(), map.getResults())) {
    bool usesRow = llvm::any_of(rowDims, [&, expr = expr](unsigned dim) {
      return expr.isFunctionOfDim(dim);
    });
    if (size == 1 && !usesRow)
      continue;
    if (matched < rowDims.size()) {
      if (expr != getAffineDimExpr(rowDims[matched], map.getContext()) ||
          size != bounds[rowDims[matched]])
        return false;
      ++matched;
      continue;
    }
    if (usesRow)
      return false;
  }
  return matched == rowDims.size();
}

/// The dimensions of a value of type `type` that an access through `map`
/// indexes by the row loops `rowDims` (one per row loop, in order), counted
/// among the dimensions other than unit ones: each a dimension of its
/// loop's trip count (`bounds`, the op's) indexed by that loop alone, no
/// other index using a row loop. None otherwise.
std::optional<SmallVector<unsigned>> rowPositions(MemRefType type,
                                                  AffineMap map,
                                                  ArrayRef<unsigned> rowDims,
                                                  ArrayRef<int64_t> bounds) {
  SmallVector<unsigned> positions(rowDims.size(), ~0u);
  unsigned nonUnit = 0;
  for (auto [size, expr] : llvm::zip(type.getShape(), map.getResults())) {
    auto row = llvm::find_if(rowDims, [&, expr = expr](unsigned loop) {
      return expr.isFunctionOfDim(loop);
    });
    unsigned position = size == 1 ? ~0u : nonUnit++;
    if (row == rowDims.end())
      continue;
    size_t k = row - rowDims.begin();
    if (expr != getAffineDimExpr(*row, map.getContext()) ||
        size != bounds[*row] || positions[k] != ~0u)
      return std::nullopt;
    positions[k] = position;
  }
  if (llvm::is_contained(positions, ~0u))
    return std::nullopt;
  return positions;
}

/// The loop order of pointwise generic `op` that puts a loop of each of
/// the trip counts of `rows` first, in order (for each, the first loop of
/// that count not taken yet), then the others in order: an NHWC hard-swish
/// over rows of channels, a softmax's exponentials over rows of a middle
/// axis's other dimensions. None when `op` is not such a generic, has no
/// such loops, or already has them first.
std::optional<SmallVector<unsigned>> rowsFirstOrder(Operation *op,
                                                    ArrayRef<int64_t> rows) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return std::nullopt;
  SmallVector<int64_t> bounds = generic.getStaticLoopRanges();
  SmallVector<bool> taken(bounds.size(), false);
  SmallVector<unsigned> order;
  for (int64_t row : rows) {
    auto loop =
        llvm::find_if(llvm::seq<unsigned>(0, bounds.size()), [&](unsigned dim) {
          return !taken[dim] && bounds[dim] == row;
        });
    if (loop == llvm::seq<unsigned>(0, bounds.size()).end())
      return std::nullopt;
    taken[*loop] = true;
    order.push_back(*loop);
  }
  for (unsigned dim = 0; dim < bounds.size(); ++dim)
    if (!taken[dim])
      order.push_back(dim);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return std::nullopt;
  return order;
}

/// Whether `op` has an operand that is `buffer` or a view of it.
bool touchesBuffer(Operation *op, Value buffer) {
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return isa<MemRefType>(operand.getType()) &&
           viewedBuffer(operand) == buffer;
  });
}

/// Whether the stage that runs `ops` (its prologue's, then its own) may
/// write `to` over `from`, which it reads last: it is pointwise, reads
/// `from` and writes `to` through operands of one type and one indexing map
/// (each thread reads an element before it writes the same one) and never
/// reads `to`, and its prologue touches neither.
bool writesInPlace(ArrayRef<Operation *> ops, Value from, Value to) {
  auto op = dyn_cast<linalg::LinalgOp>(ops.back());
  if (!op || op.getNumLoops() != op.getNumParallelLoops())
    return false;
  if (llvm::any_of(ops.drop_back(), [&](Operation *prologue) {
        return touchesBuffer(prologue, from) || touchesBuffer(prologue, to);
      }))
    return false;
  OpOperand *read = nullptr, *write = nullptr;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    Value buffer = viewedBuffer(operand.get());
    bool init = op.isDpsInit(&operand);
    if (buffer == from) {
      if (init || read)
        return false;
      read = &operand;
    } else if (buffer == to) {
      if (!init || write || !op.getMatchingBlockArgument(&operand).use_empty())
        return false;
      write = &operand;
    }
  }
  return read && write && read->get().getType() == write->get().getType() &&
         op.getMatchingIndexingMap(read) == op.getMatchingIndexingMap(write);
}

} // namespace

bool mlir::tandem::rowsStayApart(ArrayRef<linalg::LinalgOp> chain,
                                 ArrayRef<int64_t> rows) {
  llvm::SmallPtrSet<Value, 8> written;
  for (linalg::LinalgOp op : chain)
    for (Value init : op.getDpsInits())
      written.insert(viewedBuffer(init));
  // Per buffer: whether every access holds the rows first, whether every
  // access is direct (to the buffer, or a view of it that only adds or
  // drops unit dimensions), and the dimensions of the rows of direct
  // accesses.
  struct Accesses {
    bool leading = true, direct = true;
    SmallVector<SmallVector<unsigned>> positions;
  };
  llvm::DenseMap<Value, Accesses> buffers;
  for (linalg::LinalgOp op : chain) {
    SmallVector<unsigned> rowDims = rowDimsOf(op, rows);
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<MemRefType>(value.getType());
      if (!type || !written.contains(viewedBuffer(value)))
        continue;
      Value root = reshapedBuffer(value);
      if (!root || !type.getLayout().isIdentity() ||
          !cast<MemRefType>(root.getType()).getLayout().isIdentity())
        return false;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      Accesses &accesses = buffers[root];
      accesses.leading &= leadingRows(type, map, rowDims, bounds);
      auto nonUnit = [](ShapedType shaped) {
        return llvm::to_vector(llvm::make_filter_range(
            shaped.getShape(), [](int64_t size) { return size != 1; }));
      };
      if (nonUnit(type) != nonUnit(cast<MemRefType>(root.getType()))) {
        accesses.direct = false;
        continue;
      }
      std::optional<SmallVector<unsigned>> positions =
          rowPositions(type, map, rowDims, bounds);
      if (!positions)
        return false;
      accesses.positions.push_back(std::move(*positions));
    }
  }
  return llvm::all_of(buffers, [](const auto &entry) {
    const Accesses &accesses = entry.second;
    return accesses.leading ||
           (accesses.direct && llvm::all_equal(ArrayRef(accesses.positions)));
  });
}

SmallVector<unsigned>
mlir::tandem::rowLocalSlots(ArrayRef<SmallVector<Operation *>> stageOps,
                            ArrayRef<Value> buffers) {
  // The first and last stage touching each buffer (all of them when none
  // does, which then shares with no other).
  SmallVector<std::pair<size_t, size_t>> spans;
  for (Value buffer : buffers) {
    size_t first = stageOps.size(), last = 0;
    for (auto [stage, ops] : llvm::enumerate(stageOps)) {
      if (llvm::any_of(ops, [&, buffer = buffer](Operation *op) {
            return touchesBuffer(op, buffer);
          })) {
        first = std::min(first, stage);
        last = std::max(last, stage);
      }
    }
    if (first > last)
      std::tie(first, last) = std::make_pair(size_t(0), stageOps.size());
    spans.push_back({first, last});
  }
  auto order = llvm::to_vector(llvm::seq<unsigned>(0, buffers.size()));
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return spans[a].first < spans[b].first;
  });
  // Each slot's element type, the last stage of the buffers in it, and the
  // buffer that stage touches.
  struct Slot {
    Type element;
    size_t last;
    unsigned buffer;
  };
  SmallVector<Slot> slots;
  SmallVector<unsigned> slotOf(buffers.size());
  for (unsigned buffer : order) {
    Type element = cast<MemRefType>(buffers[buffer].getType()).getElementType();
    size_t first = spans[buffer].first, last = spans[buffer].second;
    auto free = llvm::find_if(slots, [&](const Slot &slot) {
      return slot.element == element &&
             (slot.last < first ||
              (slot.last == first &&
               writesInPlace(stageOps[first], buffers[slot.buffer],
                             buffers[buffer])));
    });
    if (free == slots.end()) {
      slotOf[buffer] = slots.size();
      slots.push_back({element, last, buffer});
      continue;
    }
    slotOf[buffer] = free - slots.begin();
    free->last = last;
    free->buffer = buffer;
  }
  return slotOf;
}

bool mlir::tandem::rowsContiguous(ArrayRef<linalg::LinalgOp> chain,
                                  ArrayRef<int64_t> rows, Value buffer) {
  for (linalg::LinalgOp op : chain) {
    SmallVector<unsigned> rowDims = rowDimsOf(op, rows);
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()) &&
          viewedBuffer(operand.get()) == buffer &&
          !leadingRows(cast<MemRefType>(operand.get().getType()),
                       op.getMatchingIndexingMap(&operand), rowDims, bounds))
        return false;
  }
  return true;
}

bool mlir::tandem::hoistParallelLoops(RewriterBase &rewriter,
                                      linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op) ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      order.push_back(dim);
  unsigned parallel = order.size();
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator != utils::IteratorType::parallel)
      order.push_back(dim);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return false;
  // Only reductions move: an op whose other loops are not all reductions
  // keeps its order.
  if (!llvm::all_of(ArrayRef<unsigned>(order).drop_front(parallel),
                    [&](unsigned dim) {
                      return iterators[dim] == utils::IteratorType::reduction;
                    }))
    return false;
  return succeeded(linalg::interchangeGenericOp(rewriter, op, order));
}

SmallVector<RowChain> mlir::tandem::formRowChains(
    MutableArrayRef<Operation *> ops,
    const llvm::DenseMap<Operation *, KernelPrologue> &prologues) {
  static const KernelPrologue none;
  auto prologueOf = [&](size_t i) -> const KernelPrologue & {
    auto it = prologues.find(ops[i]);
    return it == prologues.end() ? none : it->second;
  };
  auto linalgAt = [&](size_t i) { return dyn_cast<linalg::LinalgOp>(ops[i]); };
  SmallVector<RowChain> chains;
  size_t taken = 0; // ops before this index belong to a chain already
  for (size_t anchor = taken; anchor < ops.size(); ++anchor) {
    std::optional<SmallVector<int64_t>> rows =
        anchorRows(linalgAt(anchor), prologueOf(anchor));
    if (!rows)
      continue;
    int64_t width =
        innerSize(linalgAt(anchor), linalgAt(anchor).getNumParallelLoops());
    auto kindAt = [&](size_t i) {
      return stageKind(linalgAt(i), prologueOf(i), *rows);
    };
    auto narrow = [&](size_t i) {
      linalg::LinalgOp op = linalgAt(i);
      return parallelInnerSize(op, *rowLoopsOf(op, *rows)) <= width;
    };
    // An attention's contractions may be wider than the row, up to a
    // block's threads: DistilBERT's P V has 64 columns per query row over
    // 32 keys.
    auto narrowContraction = [&](size_t i) {
      linalg::LinalgOp op = linalgAt(i);
      return parallelInnerSize(op, *rowLoopsOf(op, *rows)) <=
             std::max(width, kThreadsPerBlock);
    };
    bool fewRows = rowCount(*rows) < kMinRowsForWideNeighbours;
    auto fits = [&](size_t i) {
      StageKind kind = kindAt(i);
      if (kind == StageKind::None || kind == StageKind::Contraction ||
          !narrow(i) || ops[i]->hasAttr(kSplitCombineAttrName))
        return false;
      int64_t points = innerSize(linalgAt(i), *rowLoopsOf(linalgAt(i), *rows));
      return points <= width && (!fewRows || points <= kMaxPointsPerRow);
    };
    auto chainOps = [&](size_t from, size_t to) {
      SmallVector<linalg::LinalgOp> chain;
      for (size_t i = from; i < to; ++i)
        chain.push_back(linalgAt(i));
      return chain;
    };
    // Whether op `i` can join the chain of ops [from, to) (which include
    // it): it fits and the rows stay apart, as it is or with its row loops
    // moved first (rowsFirstOrder; undone when it does not join).
    auto joins = [&](size_t i, size_t from, size_t to) {
      if (fits(i) && rowsStayApart(chainOps(from, to), *rows))
        return true;
      std::optional<SmallVector<unsigned>> order =
          rowsFirstOrder(ops[i], *rows);
      if (!order)
        return false;
      auto generic = cast<linalg::GenericOp>(ops[i]);
      IRRewriter rewriter(generic);
      if (failed(linalg::interchangeGenericOp(rewriter, generic, *order)))
        return false;
      if (fits(i) && rowsStayApart(chainOps(from, to), *rows))
        return true;
      SmallVector<unsigned> undo(order->size());
      for (auto [position, dim] : llvm::enumerate(*order))
        undo[dim] = position;
      (void)linalg::interchangeGenericOp(rewriter, generic, undo);
      return false;
    };
    // Grow backwards over elementwise neighbours, then forwards over the
    // rest of the chain, one op at a time while the rows stay apart.
    size_t begin = anchor, end = anchor + 1;
    bool attention = false;
    if (!rowsStayApart(chainOps(begin, end), *rows))
      continue;
    while (begin > taken && end - begin < kMaxRowStages &&
           joins(begin - 1, begin - 1, end))
      --begin;
    while (end < ops.size() && end - begin < kMaxRowStages &&
           joins(end, begin, end + 1))
      ++end;
    // An attention: a softmax's chain with the contraction that computes
    // its scores (Q K^T) before it and the one that weighs the values with
    // its probabilities (P V) after it; each thread of a block computes
    // scores or outputs of the block's query row, and the scores and
    // probabilities stay in the block's shared memory.
    if (begin > taken && end < ops.size() && end - begin + 2 <= kMaxRowStages &&
        isMaxReduction(linalgAt(anchor)) &&
        kindAt(begin - 1) == StageKind::Contraction &&
        kindAt(end) == StageKind::Contraction && narrowContraction(begin - 1) &&
        narrowContraction(end) &&
        readsOutputOf(chainOps(begin, end), linalgAt(begin - 1)) &&
        llvm::any_of(chainOps(begin, end),
                     [&](linalg::LinalgOp stage) {
                       return readsOutputOf({linalgAt(end)}, stage);
                     }) &&
        rowsStayApart(chainOps(begin - 1, end + 1), *rows)) {
      --begin;
      ++end;
      attention = true;
    }
    // The query's producer (the head split's transpose, with a scale)
    // joins as the first stage when it can move right before the scores'
    // contraction: each block computes its own query row into shared
    // memory instead of a kernel writing every query out.
    if (attention && begin > taken && end - begin < kMaxRowStages) {
      Value query = viewedBuffer(linalgAt(begin).getDpsInputs().front());
      for (size_t i = begin; i-- > taken;) {
        linalg::LinalgOp producer = linalgAt(i);
        if (!producer || llvm::none_of(producer.getDpsInits(), [&](Value init) {
              return viewedBuffer(init) == query;
            }))
          continue;
        // A plain transpose is left to foldAttentionTransposes, which reads
        // through it without shared memory.
        if (isPermutationCopy(producer) || !prologueOf(i).empty() ||
            kindAt(i) != StageKind::Pointwise || !narrowContraction(i) ||
            !movableBefore(producer, ops[begin]))
          break;
        producer->moveBefore(ops[begin]);
        std::rotate(ops.begin() + i, ops.begin() + i + 1, ops.begin() + begin);
        if (rowsStayApart(chainOps(begin - 1, end), *rows))
          --begin;
        break;
      }
    }
    if (end - begin < 2)
      continue;
    RowChain chain;
    chain.rows = *rows;
    chain.attention = attention;
    for (size_t i = begin; i < end; ++i)
      chain.stages.push_back({linalgAt(i), prologueOf(i), KernelPlan()});
    chains.push_back(std::move(chain));
    taken = end;
    anchor = end - 1;
  }
  return chains;
}

FailureOr<SmallVector<RowStage, 0>> mlir::tandem::planRowStages(
    ArrayRef<std::pair<linalg::LinalgOp, KernelPrologue>> ops,
    ArrayRef<int64_t> rows) {
  assert(!ops.empty() && "a row kernel without ops");
  int64_t widest = 1;
  SmallVector<StageKind> kinds;
  SmallVector<bool> warpPerPoint;
  SmallVector<linalg::LinalgOp> chain;
  for (const auto &entry : ops) {
    linalg::LinalgOp op = entry.first;
    StageKind kind = stageKind(op, entry.second, rows);
    if (kind == StageKind::None)
      return op.emitOpError()
             << "cannot be a stage of a row kernel over rows of trip counts ["
             << rows
             << "]: its leading loops must be parallel with those trip "
                "counts (unit loops aside), the others all parallel, all "
                "associative reductions, or parallel then reductions";
    kinds.push_back(kind);
    chain.push_back(op);
    int64_t width = kind == StageKind::Reduction
                        ? innerSize(op, *rowLoopsOf(op, rows))
                        : parallelInnerSize(op, *rowLoopsOf(op, rows));
    // A warp per point: as many warps as points, up to the block's.
    warpPerPoint.push_back(kind == StageKind::Contraction &&
                           contractionReads(op).warpPerPoint);
    if (warpPerPoint.back())
      width *= kWarpSize;
    widest = std::max(widest, width);
  }
  if (!rowsStayApart(chain, rows))
    return chain.front().emitOpError()
           << "starts a row kernel whose stages read rows other than their "
              "own of a buffer the kernel writes";
  // Whole warps, at least two (the block reduction's exchange).
  int64_t threads =
      std::clamp<int64_t>(llvm::alignTo(widest, 32), 64, kThreadsPerBlock);
  int64_t count = rowCount(rows);
  SmallVector<RowStage, 0> stages;
  for (auto [entry, kind, warps] : llvm::zip(ops, kinds, warpPerPoint)) {
    linalg::LinalgOp op = entry.first;
    RowStage stage{op, entry.second, KernelPlan()};
    KernelPlan &plan = stage.plan;
    plan.bounds = op.getStaticLoopRanges();
    plan.epilogue = fusedEpilogueOf(op);
    plan.total = count;
    plan.launch = {count, 1, 1, threads, 1, 1};
    plan.rowLoops = *rowLoopsOf(op, rows);
    for (unsigned dim = 0; dim < plan.bounds.size(); ++dim) {
      if (dim < plan.rowLoops) {
        plan.threadDims.push_back(dim);
        continue;
      }
      if (kind == StageKind::Reduction ||
          op.getIteratorTypesArray()[dim] == utils::IteratorType::reduction) {
        plan.reductionDims.push_back(dim);
        plan.reductionSize *= plan.bounds[dim];
      } else {
        plan.stridedDims.push_back(dim);
        plan.stridedSize *= plan.bounds[dim];
      }
    }
    plan.blockReduction = kind == StageKind::Reduction;
    plan.rowStrided = !plan.blockReduction;
    plan.warpPerPoint = warps;
    // A thread per point leaves more than half the block idle: the idle
    // threads take shares of the reductions.
    if (kind == StageKind::Contraction && !plan.warpPerPoint &&
        hasBlockCombiners(op) && 2 * plan.stridedSize <= threads)
      plan.pointGroups =
          std::min(threads / plan.stridedSize, plan.reductionSize);
    stages.push_back(std::move(stage));
  }
  return stages;
}

FailureOr<SmallVector<RowStage, 0>>
mlir::tandem::planRowKernelStages(func::FuncOp kernel, ArrayRef<int64_t> rows) {
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : kernel.getBody().getOps()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      ops.push_back(linalgOp);
    else if (isa<memref::CopyOp>(op))
      return kernel.emitOpError() << "is a row kernel with a copy";
  }
  if (ops.empty())
    return kernel.emitOpError() << "is a kernel without a linalg op";
  llvm::SmallPtrSet<Operation *, 16> absorbed;
  SmallVector<std::pair<linalg::LinalgOp, KernelPrologue>, 0> stages;
  for (linalg::LinalgOp op : llvm::reverse(ops)) {
    if (absorbed.contains(op))
      continue;
    KernelPrologue prologue = matchKernelPrologue(op);
    absorbed.insert(prologue.ops.begin(), prologue.ops.end());
    stages.emplace_back(op, std::move(prologue));
  }
  std::reverse(stages.begin(), stages.end());
  return planRowStages(stages, rows);
}
