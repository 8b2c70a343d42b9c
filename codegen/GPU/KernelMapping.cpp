//===- KernelMapping.cpp - a linalg op as guarded GPU threads -------------===//

#include "codegen/GPU/KernelMapping.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;

/// The largest grid.x CUDA allows.
static constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();

bool mlir::tandem::outputsPartitionedByParallelLoops(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!map.isProjectedPermutation())
      return false;
    llvm::SmallBitVector used(map.getNumDims());
    for (AffineExpr expr : map.getResults())
      used.set(cast<AffineDimExpr>(expr).getPosition());
    for (auto [dim, iterator] : llvm::enumerate(iterators))
      if (used.test(dim) != (iterator == utils::IteratorType::parallel))
        return false;
  }
  return true;
}

/// The reduction kind of `combiner`, if it is associative and commutative
/// with a known identity (so partial results may meet in any order).
static std::optional<arith::AtomicRMWKind> combinerKind(Operation *combiner) {
  using Kind = std::optional<arith::AtomicRMWKind>;
  return llvm::TypeSwitch<Operation *, Kind>(combiner)
      .Case([](arith::AddFOp) { return arith::AtomicRMWKind::addf; })
      .Case([](arith::MulFOp) { return arith::AtomicRMWKind::mulf; })
      .Case([](arith::MaximumFOp) { return arith::AtomicRMWKind::maximumf; })
      .Case([](arith::MinimumFOp) { return arith::AtomicRMWKind::minimumf; })
      .Case([](arith::MaxNumFOp) { return arith::AtomicRMWKind::maxnumf; })
      .Case([](arith::MinNumFOp) { return arith::AtomicRMWKind::minnumf; })
      .Case([](arith::AddIOp) { return arith::AtomicRMWKind::addi; })
      .Case([](arith::MulIOp) { return arith::AtomicRMWKind::muli; })
      .Case([](arith::MaxSIOp) { return arith::AtomicRMWKind::maxs; })
      .Case([](arith::MinSIOp) { return arith::AtomicRMWKind::mins; })
      .Case([](arith::MaxUIOp) { return arith::AtomicRMWKind::maxu; })
      .Case([](arith::MinUIOp) { return arith::AtomicRMWKind::minu; })
      .Case([](arith::AndIOp) { return arith::AtomicRMWKind::andi; })
      .Case([](arith::OrIOp) { return arith::AtomicRMWKind::ori; })
      .Case([](arith::XOrIOp) { return arith::AtomicRMWKind::xori; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `value`, inside the payload `body`, is computed from one of
/// `outputs` (the payload's output arguments).
static bool readsOutputs(Value value, Block *body,
                         ArrayRef<BlockArgument> outputs) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return llvm::is_contained(outputs, arg);
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != body)
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return readsOutputs(operand, body, outputs);
  });
}

SmallVector<Operation *> mlir::tandem::blockCombiners(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto outputs =
      llvm::to_vector(body->getArguments().take_back(op.getNumDpsInits()));
  SmallVector<Operation *> combiners;
  for (unsigned i = 0; i < outputs.size(); ++i) {
    SmallVector<Operation *> chain;
    Value reduced = matchReduction(outputs, i, chain);
    if (!reduced || chain.size() != 1 || !combinerKind(chain.front()) ||
        readsOutputs(reduced, body, outputs))
      return {};
    Type type = outputs[i].getType();
    if (!type.isF32() && !type.isInteger(32))
      return {};
    combiners.push_back(chain.front());
  }
  return combiners;
}

bool mlir::tandem::hasBlockCombiners(linalg::LinalgOp op) {
  return !blockCombiners(op).empty();
}

Value mlir::tandem::combinerIdentity(OpBuilder &builder, Location loc,
                                     Operation *combiner) {
  return arith::getIdentityValue(
      *combinerKind(combiner), combiner->getResult(0).getType(), builder, loc);
}

/// Whether `op`'s payload is `out + a * b` (or `a * b + out`, `b * a`) of
/// its two inputs and its one output.
static bool isMulAddBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getNumArguments() != 3)
    return false;
  auto ops = body->without_terminator();
  if (std::distance(ops.begin(), ops.end()) != 2)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&*ops.begin());
  auto add = dyn_cast<arith::AddFOp>(&*std::next(ops.begin()));
  if (!mul || !add)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1),
        out = body->getArgument(2);
  bool product = (mul.getLhs() == a && mul.getRhs() == b) ||
                 (mul.getLhs() == b && mul.getRhs() == a);
  bool sum = (add.getLhs() == out && add.getRhs() == mul) ||
             (add.getLhs() == mul && add.getRhs() == out);
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  return product && sum && yield.getNumOperands() == 1 &&
         yield.getOperand(0) == add.getResult();
}

/// Turns `plan` (every parallel loop a thread loop) into a tiled
/// contraction's when `op` qualifies (planKernelLaunch); false otherwise.
static bool planTiledContraction(linalg::LinalgOp op, KernelPlan &plan) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isMulAddBody(op))
    return false;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getElementType().isF32())
      return false;
  }
  AffineMap aMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap bMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    int64_t bound = plan.bounds[dim];
    if (iterator == utils::IteratorType::reduction) {
      plan.reductionDims.push_back(dim);
      plan.reductionSize *= bound;
      continue;
    }
    bool inA = aMap.isFunctionOfDim(dim), inB = bMap.isFunctionOfDim(dim);
    if (inA && !inB) {
      plan.mDims.push_back(dim);
      plan.mSize *= bound;
    } else if (inB && !inA) {
      plan.nDims.push_back(dim);
      plan.nSize *= bound;
    } else {
      plan.batchDims.push_back(dim);
      plan.batchSize *= bound;
    }
  }
  if (plan.mSize < kMinTiledSide || plan.nSize < kMinTiledSide ||
      plan.reductionSize < kTileK)
    return false;
  auto innermostIsReduction = [&](AffineMap map) {
    if (map.getNumResults() == 0)
      return false;
    AffineExpr last = map.getResult(map.getNumResults() - 1);
    return llvm::any_of(plan.reductionDims, [&](unsigned dim) {
      return last.isFunctionOfDim(dim);
    });
  };
  plan.aKFast = innermostIsReduction(aMap);
  plan.bKFast = innermostIsReduction(bMap);
  int64_t blocks = plan.batchSize * llvm::divideCeil(plan.mSize, kTileM) *
                   llvm::divideCeil(plan.nSize, kTileN);
  if (blocks > kMaxGridX)
    return false;
  plan.tiled = true;
  plan.launch = {blocks, 1, 1, kTiledThreads, 1, 1};
  return true;
}

/// The products of `op`'s parallel and of its reduction trip counts
/// (`bounds`, static): its output points and the reduction per point.
static std::pair<int64_t, int64_t>
pointsAndReduction(linalg::LinalgOp op, ArrayRef<int64_t> bounds) {
  int64_t points = 1, reduction = 1;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (iterator == utils::IteratorType::parallel ? points : reduction) *=
        bounds[dim];
  return {points, reduction};
}

/// Whether planKernelLaunch gives `op`, with a thread per output point
/// possible, a block per output point instead: a long enough reduction
/// over few enough points, with block combiners.
static bool fitsBlockReduction(linalg::LinalgOp op, int64_t points,
                               int64_t reduction) {
  return reduction >= kMinBlockReduction && points < kMaxBlockReductionPoints &&
         !blockCombiners(op).empty();
}

/// `plan` (a thread per output point of `op`) with `op`'s reduction loops
/// and their trip count, as a block reduction needs them.
static KernelPlan withReductionLoops(linalg::LinalgOp op, KernelPlan plan) {
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction) {
      plan.reductionDims.push_back(dim);
      plan.reductionSize *= plan.bounds[dim];
    }
  return plan;
}

FailureOr<KernelPlan> mlir::tandem::planKernelLaunch(linalg::LinalgOp op) {
  KernelPlan plan;
  plan.bounds = op.getStaticLoopRanges();
  if (llvm::any_of(plan.bounds, ShapedType::isDynamic))
    return op.emitOpError() << "has dynamic loop bounds: GPU kernels need "
                               "static shapes";
  plan.accumulateInRegisters = outputsPartitionedByParallelLoops(op);
  plan.epilogue = fusedEpilogueOf(op);
  if (plan.epilogue != FusedEpilogue::None) {
    if (!plan.accumulateInRegisters ||
        !llvm::all_of(op.getDpsInits(), [](Value init) {
          return isa<FloatType>(getElementTypeOrSelf(init.getType()));
        }))
      return op.emitOpError() << "has a tandem.epilogue but not float outputs "
                                 "written once per point";
  }
  if (plan.accumulateInRegisters)
    for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::parallel) {
        plan.threadDims.push_back(dim);
        plan.total *= plan.bounds[dim];
      }
  if (plan.accumulateInRegisters) {
    KernelPlan tiled = plan;
    if (planTiledContraction(op, tiled))
      return tiled;
  }
  if (plan.accumulateInRegisters) {
    KernelPlan blocks = withReductionLoops(op, plan);
    if (fitsBlockReduction(op, blocks.total, blocks.reductionSize)) {
      // One block per output point, whole warps, 256 threads at most.
      blocks.blockReduction = true;
      int64_t threads = std::min<int64_t>(
          kThreadsPerBlock, llvm::alignTo(blocks.reductionSize, 32));
      blocks.launch = {blocks.total, 1, 1, threads, 1, 1};
      return blocks;
    }
  }
  plan.launch = flatLaunchDims(plan.total);
  if (plan.launch[0] > kMaxGridX)
    return op.emitOpError()
           << "needs " << plan.launch[0] << " blocks of " << plan.launch[3]
           << " threads, more than a 1-D grid holds";
  return plan;
}

bool mlir::tandem::matchPointwiseEpilogue(linalg::LinalgOp op,
                                          linalg::LinalgOp epilogue) {
  // Pooling ops are convolution-like too, but no library takes them.
  if (!op || !epilogue || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || !op.hasPureBufferSemantics() ||
      linalg::isaContractionOpInterface(op) ||
      (linalg::isaConvolutionOpInterface(op) &&
       !op->getName().getStringRef().starts_with("linalg.pooling_")) ||
      op->hasAttr(TandemDialect::getConvGroupsAttrName()) ||
      !outputsPartitionedByParallelLoops(op) ||
      fusedEpilogueOf(op) != FusedEpilogue::None)
    return false;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return false;
  // A thread per output point (planKernelLaunch): no block reduction.
  auto [points, reduction] = pointsAndReduction(op, bounds);
  if (fitsBlockReduction(op, points, reduction))
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(epilogue.getOperation());
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic.getNumDpsInits() != 1 || generic.hasIndexSemantics())
    return false;
  Value output = op.getDpsInits()[0];
  auto type = dyn_cast<MemRefType>(output.getType());
  OpOperand &result = generic.getDpsInitsMutable()[0];
  auto resultType = dyn_cast<MemRefType>(result.get().getType());
  if (!type || !resultType || result.get() == output ||
      resultType.getShape() != type.getShape() ||
      !generic.getMatchingIndexingMap(&result).isIdentity())
    return false;
  unsigned reads = 0;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input->get() != output)
      continue;
    if (!generic.getMatchingIndexingMap(input).isIdentity())
      return false;
    ++reads;
  }
  return reads == 1;
}

namespace {

/// Builds the loop nest and the payload of one linalg op on buffers.
class KernelBodyEmitter {
public:
  KernelBodyEmitter(OpBuilder &builder, linalg::LinalgOp op,
                    const KernelPlan &plan, IRMapping &mapping,
                    const KernelPrologue &prologue,
                    linalg::LinalgOp epilogue = {})
      : b(builder), op(op), plan(plan), mapping(mapping), prologue(prologue),
        epilogue(epilogue), loc(op.getLoc()), ivs(plan.bounds.size()) {}

  void emit(Value givenIndex) {
    if (plan.tiled) {
      emitTiled(givenIndex);
      return;
    }
    if (plan.blockReduction) {
      emitBlockReduction(givenIndex);
      return;
    }
    if (plan.rowStrided) {
      emitRowStrided(givenIndex);
      return;
    }
    Value id = givenIndex ? givenIndex : threadIndex();
    Value total = index(plan.total);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id, total);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    delinearize(id);
    SmallVector<unsigned> serialDims;
    for (unsigned dim = 0; dim < plan.bounds.size(); ++dim)
      if (!llvm::is_contained(plan.threadDims, dim))
        serialDims.push_back(dim);
    if (plan.accumulateInRegisters)
      emitAccumulating(serialDims);
    else
      emitSerial(serialDims, 0);
  }

  /// The tail of a split reduction's kernel (emitSplitTail): the block
  /// counts itself in `counter`; the last of the `blocks` resets it and
  /// runs the op's output points one after the other, its threads sharing
  /// each point's reduction. `hostBlock`: given on the host, where the
  /// partial results' blocks run one after the other.
  void emitSplitTail(Value counter, int64_t blocks, Value hostBlock) {
    combiners = blockCombiners(op);
    assert(!combiners.empty() && plan.blockReduction &&
           "a split reduction's tail without block combiners");
    OpBuilder::InsertionGuard insertion(b);
    Type i32 = b.getI32Type();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, i32, value);
    };
    // Fences around the count (the atomic read-modify-write itself may be
    // relaxed, as NVPTX emits it): the partial results that thread 0
    // stored are visible before its count (release), and the last block
    // reads the others' after seeing the last count (acquire; its other
    // threads through the barrier that follows), as CUDA's
    // threadFenceReduction sample does with __threadfence().
    auto arrive = [&]() -> Value {
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
      Value old = memref::AtomicRMWOp::create(
          b, loc, arith::AtomicRMWKind::addi, constant(1), counter,
          ValueRange{index(0)});
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old,
                                   constant(blocks - 1));
    };
    auto eachPoint = [&](auto reduce) {
      auto loop =
          scf::ForOp::create(b, loc, index(0), index(plan.total), index(1));
      b.setInsertionPoint(loop.getBody()->getTerminator());
      delinearize(loop.getInductionVar());
      reduce();
    };
    if (hostBlock) {
      enterIf(arrive());
      memref::StoreOp::create(b, loc, constant(0), counter, index(0));
      eachPoint([&] { reduceBlockOnHost(); });
      return;
    }
    // Thread 0 counts; the block learns the verdict through shared memory.
    gpu::BarrierOp::create(b, loc);
    Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value flag = workgroupBuffer(1, i32);
    {
      OpBuilder::InsertionGuard inner(b);
      enterIf(constantIs(thread, 0));
      Value last = arrive();
      memref::StoreOp::create(b, loc, arith::ExtUIOp::create(b, loc, i32, last),
                              flag, index(0));
      enterIf(last);
      memref::StoreOp::create(b, loc, constant(0), counter, index(0));
    }
    gpu::BarrierOp::create(b, loc);
    Value verdict = memref::LoadOp::create(b, loc, flag, index(0));
    enterIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, verdict,
                                  constant(0)));
    eachPoint([&] {
      // The previous point's warp totals are read before they are
      // overwritten.
      gpu::BarrierOp::create(b, loc);
      reduceBlockOnGPU();
    });
  }

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// blockIdx.x * blockDim.x + threadIdx.x.
  Value threadIndex() {
    Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value size = index(plan.launch[3]);
    Value base = arith::MulIOp::create(b, loc, block, size);
    return arith::AddIOp::create(b, loc, base, thread);
  }

  /// Row-major delinearisation of `id` over the thread loops.
  void delinearize(Value id) { delinearize(plan.threadDims, id); }

  /// Row-major delinearisation of `id` over the loops `dims`.
  void delinearize(ArrayRef<unsigned> dims, Value id) {
    Value rest = id;
    for (unsigned dim : llvm::reverse(dims)) {
      Value bound = index(plan.bounds[dim]);
      ivs[dim] = arith::RemUIOp::create(b, loc, rest, bound);
      rest = arith::DivUIOp::create(b, loc, rest, bound);
    }
  }

  /// The indices of `operand` at the current point; for a row-local
  /// buffer (RowKernels.h), the one index into its row.
  SmallVector<Value> indicesOf(OpOperand &operand) {
    if (rowLocalBuffer(operand.get()))
      return {rowLocalIndex(operand)};
    return pointIndicesOf(operand);
  }

  /// The indices of `operand` at the current point, as its indexing map
  /// gives them.
  SmallVector<Value> pointIndicesOf(OpOperand &operand) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      indices.push_back(indexOf(map, i));
    return indices;
  }

  /// Result `i` of `map` at the current point.
  Value indexOf(AffineMap map, unsigned i) {
    AffineExpr expr = map.getResult(i);
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      return ivs[dim.getPosition()];
    // Only the loops the index uses (outputs are indexed before the
    // serial loops exist).
    AffineMap sub = map.getSubMap({i});
    llvm::SmallBitVector unused = getUnusedDimsBitVector({sub});
    SmallVector<Value> operands;
    for (unsigned d = 0; d < sub.getNumDims(); ++d)
      if (!unused.test(d))
        operands.push_back(ivs[d]);
    return affine::AffineApplyOp::create(b, loc, compressUnusedDims(sub),
                                         operands);
  }

  /// The row-local buffer `value` views (through the reshapes the row
  /// kernel allows), or null.
  Value rowLocalBuffer(Value value) const {
    if (plan.rowLocalBuffers.empty())
      return Value();
    value = viewedBuffer(value);
    return llvm::is_contained(plan.rowLocalBuffers, value) ? value : Value();
  }

  /// The position in its block's row of the element `operand` accesses: the
  /// row-major linearisation of its indices other than the row loops
  /// (which formRowChains checked come first, unit dimensions aside).
  Value rowLocalIndex(OpOperand &operand) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    ArrayRef<int64_t> shape =
        cast<MemRefType>(operand.get().getType()).getShape();
    Value linear = index(0);
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
      if (shape[i] == 1 || (dim && dim.getPosition() < plan.rowLoops &&
                            plan.bounds[dim.getPosition()] != 1))
        continue;
      Value scaled = arith::MulIOp::create(b, loc, linear, index(shape[i]));
      linear = arith::AddIOp::create(b, loc, scaled, indexOf(map, i));
    }
    return linear;
  }

  /// The buffer to load from or store to for `operand`.
  Value bufferOf(Value operand) {
    if (Value local = rowLocalBuffer(operand))
      return mapping.lookup(local);
    return mapping.lookupOrDefault(operand);
  }

  Value load(OpOperand &operand) {
    if (const KernelPrologue::PaddedInput *padded =
            prologue.paddedInput(operand.get()))
      return loadPadded(*padded, indicesOf(operand));
    Value value = bufferOf(operand.get());
    if (!isa<MemRefType>(value.getType()))
      return value; // a scalar operand
    return memref::LoadOp::create(b, loc, value, indicesOf(operand));
  }

  /// The element of a padded buffer at `indices`: the source's, shifted by
  /// the interior's offsets, when every shifted index is in the source's
  /// bounds (one unsigned compare each), else the pad value.
  Value loadPadded(const KernelPrologue::PaddedInput &padded,
                   ArrayRef<Value> indices) {
    ArrayRef<int64_t> shape =
        cast<MemRefType>(padded.source.getType()).getShape();
    ArrayRef<int64_t> paddedShape =
        cast<MemRefType>(padded.buffer.getType()).getShape();
    SmallVector<Value> shifted;
    Value inBounds;
    for (auto [d, at] : llvm::enumerate(indices)) {
      if (padded.low[d] == 0 && shape[d] == paddedShape[d]) {
        shifted.push_back(at);
        continue;
      }
      Value moved = arith::SubIOp::create(b, loc, at, index(padded.low[d]));
      shifted.push_back(moved);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           moved, index(shape[d]));
      inBounds =
          inBounds ? arith::AndIOp::create(b, loc, inBounds, inside).getResult()
                   : inside;
    }
    Value source = mapping.lookup(padded.source);
    if (!inBounds)
      return memref::LoadOp::create(b, loc, source, shifted);
    Value padValue = mapping.lookupOrDefault(padded.padValue);
    auto branch = scf::IfOp::create(b, loc, padValue.getType(), inBounds,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(branch.thenBlock());
    Value element = memref::LoadOp::create(b, loc, source, shifted);
    scf::YieldOp::create(b, loc, element);
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, padValue);
    return branch.getResult(0);
  }

  /// Runs `body` on an emitter of the pointwise op `other`, whose loops
  /// are the dimensions of `init`'s buffer (identity output map), at
  /// `init`'s indices at the current point.
  template <typename Fn>
  auto atOutputPoint(linalg::LinalgOp other, OpOperand &init, Fn body) {
    KernelPlan pointwise;
    pointwise.bounds = other.getStaticLoopRanges();
    KernelPrologue none;
    KernelBodyEmitter inner(b, other, pointwise, mapping, none);
    SmallVector<Value> indices = pointIndicesOf(init);
    inner.ivs.assign(indices.begin(), indices.end());
    return body(inner);
  }

  /// The initial value of output `init` at the current point: the init
  /// producer's value there, or the element loaded.
  Value initialValue(OpOperand &init) {
    linalg::LinalgOp producer = prologue.initProducer;
    if (!producer)
      return load(init);
    // The producer's loops are the buffer's dimensions (identity output
    // map), so its point is the output's indices.
    return atOutputPoint(producer, init, [&](KernelBodyEmitter &inner) {
      Value placeholder = inner.zero(producer.getDpsInits()[0]);
      return inner.payload(ValueRange{placeholder}).front();
    });
  }

  /// Runs the payload at the current point on `outputs` (the current output
  /// values); returns the yielded ones. An input read from `given` (a
  /// buffer) takes `givenValue` instead of a load.
  SmallVector<Value> payload(ValueRange outputs, Value given = {},
                             Value givenValue = {}) {
    Block *body = op.getBlock();
    // Values from above the op (constants) were cloned into the kernel.
    IRMapping payloadMap = mapping;
    unsigned arg = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument blockArg = body->getArgument(arg++);
      if (blockArg.use_empty())
        continue;
      payloadMap.map(blockArg, given && input->get() == given ? givenValue
                                                              : load(*input));
    }
    for (Value output : outputs)
      payloadMap.map(body->getArgument(arg++), output);
    SmallVector<Value> yielded;
    for (Operation &inner : *body) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        payloadMap.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      if (auto yield = dyn_cast<linalg::YieldOp>(inner)) {
        for (Value v : yield.getValues())
          yielded.push_back(payloadMap.lookupOrDefault(v));
        continue;
      }
      b.clone(inner, payloadMap);
    }
    return yielded;
  }

  SmallVector<Value> loadOutputs() {
    SmallVector<Value> outputs;
    Block *body = op.getBlock();
    unsigned firstOutput = op.getNumDpsInputs();
    for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      // Outputs the payload never reads need no load, unless a reduction
      // carries them.
      if (body->getArgument(firstOutput + i).use_empty() &&
          plan.threadDims.size() + plan.stridedDims.size() ==
              plan.bounds.size()) {
        outputs.push_back(zero(init.get()));
        continue;
      }
      outputs.push_back(initialValue(init));
    }
    return outputs;
  }

  /// A placeholder for an output the payload does not read.
  Value zero(Value buffer) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    return arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  }

  /// Stores each output's final value, through the epilogue. With a
  /// pointwise epilogue op, the value goes to it instead: its loops are
  /// the output's dimensions, so its point is the output's indices; it
  /// reads the value in place of its load of the output and stores its own
  /// results (the output is local to the kernel and never written).
  void storeFinalOutputs(ValueRange values) {
    SmallVector<Value> finals;
    for (Value value : values)
      finals.push_back(applyFusedEpilogue(b, loc, value, plan.epilogue));
    if (!epilogue) {
      storeOutputs(finals);
      return;
    }
    OpOperand &init = op.getDpsInitsMutable()[0];
    atOutputPoint(epilogue, init, [&](KernelBodyEmitter &inner) {
      SmallVector<Value> outputs;
      for (OpOperand &output : epilogue.getDpsInitsMutable()) {
        BlockArgument arg = epilogue.getMatchingBlockArgument(&output);
        outputs.push_back(arg.use_empty() ? inner.zero(output.get())
                                          : inner.load(output));
      }
      inner.storeOutputs(inner.payload(outputs, init.get(), finals.front()));
    });
  }

  void storeOutputs(ValueRange values) {
    for (auto [value, init] : llvm::zip(values, op.getDpsInitsMutable()))
      memref::StoreOp::create(b, loc, value, bufferOf(init.get()),
                              indicesOf(init));
  }

  /// Thread per output point: outputs are loaded once, carried through the
  /// serial (reduction) loops in registers, and stored once.
  void emitAccumulating(ArrayRef<unsigned> serialDims) {
    SmallVector<Value> outputs = loadOutputs();
    SmallVector<Value> results = accumulate(serialDims, outputs);
    // The serial loops are closed: their indices are out of scope (and
    // unused by the output maps).
    for (unsigned dim : serialDims)
      ivs[dim] = Value();
    storeFinalOutputs(results);
  }

  SmallVector<Value> accumulate(ArrayRef<unsigned> dims, ValueRange outputs) {
    if (dims.empty())
      return payload(outputs);
    unsigned dim = dims.front();
    auto loop = scf::ForOp::create(b, loc, index(0), index(plan.bounds[dim]),
                                   index(1), outputs);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(loop.getBody());
    ivs[dim] = loop.getInductionVar();
    SmallVector<Value> inner =
        accumulate(dims.drop_front(), loop.getRegionIterArgs());
    scf::YieldOp::create(b, loc, inner);
    b.setInsertionPointAfter(loop);
    return SmallVector<Value>(loop.getResults());
  }

  /// One thread runs every loop, loading and storing at each point (the
  /// op's sequential semantics, for outputs the parallel loops do not
  /// partition).
  void emitSerial(ArrayRef<unsigned> dims, unsigned depth) {
    if (depth == dims.size()) {
      SmallVector<Value> outputs;
      for (OpOperand &init : op.getDpsInitsMutable())
        outputs.push_back(load(init));
      storeOutputs(payload(outputs));
      return;
    }
    unsigned dim = dims[depth];
    auto loop =
        scf::ForOp::create(b, loc, index(0), index(plan.bounds[dim]), index(1));
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    ivs[dim] = loop.getInductionVar();
    emitSerial(dims, depth + 1);
  }

  /// A pointwise or contraction stage of a row kernel: the block's row,
  /// then its threads stride over the row's parallel points (on the host,
  /// `hostBlock` given, one loop runs them all), each running the
  /// reduction loops, if any, serially in registers.
  void emitRowStrided(Value hostBlock) {
    delinearize(
        hostBlock
            ? hostBlock
            : gpu::BlockIdOp::create(b, loc, gpu::Dimension::x).getResult());
    Value start =
        hostBlock
            ? index(0)
            : gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x).getResult();
    if (plan.warpPerPoint) {
      emitWarpPerPoint(hostBlock ? Value() : start);
      return;
    }
    if (plan.pointGroups > 1) {
      emitPointGroups(hostBlock ? Value() : start);
      return;
    }
    Value step = index(hostBlock ? 1 : blockThreads());
    auto loop =
        scf::ForOp::create(b, loc, start, index(plan.stridedSize), step);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    delinearize(plan.stridedDims, loop.getInductionVar());
    if (plan.reductionDims.empty()) {
      storeFinalOutputs(payload(loadOutputs()));
      return;
    }
    // A contraction stage: each point's reductions run in the thread.
    emitAccumulating(plan.reductionDims);
  }

  /// A contraction stage with a warp per point (KernelPlan::warpPerPoint)
  /// of the block's row (delinearised). `thread`: the thread's index on the
  /// GPU; null on the host, where one loop runs the points and one the
  /// lanes, then the same butterfly the shuffles perform.
  void emitWarpPerPoint(Value thread) {
    combiners = blockCombiners(op);
    assert(!combiners.empty() && "planned a warp per point without combiners");
    if (thread) {
      Value warpSize = index(kWarpSize);
      Value lane = arith::RemUIOp::create(b, loc, thread, warpSize);
      Value warp = arith::DivUIOp::create(b, loc, thread, warpSize);
      auto loop = scf::ForOp::create(b, loc, warp, index(plan.stridedSize),
                                     index(blockWarps()));
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      delinearize(plan.stridedDims, loop.getInductionVar());
      SmallVector<Value> totals = warpReduce(partials(lane, kWarpSize));
      enterIf(constantIs(lane, 0));
      storeTotals(totals);
      return;
    }
    SmallVector<Value> lanes;
    for (Operation *combiner : combiners)
      lanes.push_back(hostScratch(kWarpSize, combiner->getResult(0).getType()));
    auto loop =
        scf::ForOp::create(b, loc, index(0), index(plan.stridedSize), index(1));
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    delinearize(plan.stridedDims, loop.getInductionVar());
    {
      auto laneLoop =
          scf::ForOp::create(b, loc, index(0), index(kWarpSize), index(1));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(laneLoop.getBody()->getTerminator());
      Value lane = laneLoop.getInductionVar();
      for (auto [value, buffer] : llvm::zip(partials(lane, kWarpSize), lanes))
        memref::StoreOp::create(b, loc, value, buffer, lane);
    }
    butterflyOnHost(lanes, kWarpSize);
    SmallVector<Value> totals;
    for (Value buffer : lanes)
      totals.push_back(memref::LoadOp::create(b, loc, buffer, index(0)));
    storeTotals(totals);
  }

  /// A contraction stage whose points split their reductions among
  /// KernelPlan::pointGroups groups of threads, of the block's row
  /// (delinearised). Thread g * points + p runs point p's reduction points
  /// g, g + groups, ... from the identities and leaves its partials in
  /// shared memory; after a barrier, thread p combines the groups' partials
  /// in group order with the output's initial value and stores the total.
  /// `thread`: the thread's index on the GPU; null on the host, where loops
  /// run the groups' partials into scratch, then the same combinations.
  void emitPointGroups(Value thread) {
    combiners = blockCombiners(op);
    assert(!combiners.empty() && "planned point groups without combiners");
    int64_t points = plan.stridedSize, groups = plan.pointGroups;
    SmallVector<Value> slots;
    for (Operation *combiner : combiners) {
      Type type = combiner->getResult(0).getType();
      slots.push_back(thread ? workgroupBuffer(points * groups, type)
                             : hostScratch(points * groups, type));
    }
    // The partials of point `point` in group `group` (slot `slot`).
    auto partialsOf = [&](Value point, Value group, Value slot) {
      delinearize(plan.stridedDims, point);
      for (auto [value, buffer] : llvm::zip(partials(group, groups), slots))
        memref::StoreOp::create(b, loc, value, buffer, slot);
    };
    // The groups' partials of point `point` combined in group order, then
    // with the output's initial value, stored.
    auto totalOf = [&](Value point) {
      delinearize(plan.stridedDims, point);
      SmallVector<Value> totals;
      for (auto [i, buffer] : llvm::enumerate(slots)) {
        Value total = memref::LoadOp::create(b, loc, buffer, point);
        for (int64_t group = 1; group < groups; ++group) {
          Value slot =
              arith::AddIOp::create(b, loc, point, index(group * points));
          total =
              combine(i, total, memref::LoadOp::create(b, loc, buffer, slot));
        }
        totals.push_back(total);
      }
      storeTotals(totals);
    };
    OpBuilder::InsertionGuard insertion(b);
    if (thread) {
      {
        OpBuilder::InsertionGuard inner(b);
        enterIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, thread,
                                      index(points * groups)));
        Value point = arith::RemUIOp::create(b, loc, thread, index(points));
        Value group = arith::DivUIOp::create(b, loc, thread, index(points));
        partialsOf(point, group, thread);
      }
      gpu::BarrierOp::create(b, loc);
      enterIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, thread,
                                    index(points)));
      totalOf(thread);
      return;
    }
    {
      auto loop = scf::ForOp::create(b, loc, index(0), index(points * groups),
                                     index(1));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value slot = loop.getInductionVar();
      Value point = arith::RemUIOp::create(b, loc, slot, index(points));
      Value group = arith::DivUIOp::create(b, loc, slot, index(points));
      partialsOf(point, group, slot);
    }
    auto loop = scf::ForOp::create(b, loc, index(0), index(points), index(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    totalOf(loop.getInductionVar());
  }

  //===------------------------------------------------------------------===//
  // Block reductions: one block per output point.
  //===------------------------------------------------------------------===//

  /// The whole block reduction. `hostBlock`: the block index, when the
  /// block runs on the host (emulation); otherwise the code is the block's
  /// on the GPU.
  void emitBlockReduction(Value hostBlock) {
    combiners = blockCombiners(op);
    assert(!combiners.empty() && "planned a block reduction without one");
    delinearize(
        hostBlock
            ? hostBlock
            : gpu::BlockIdOp::create(b, loc, gpu::Dimension::x).getResult());
    if (!hostBlock) {
      reduceBlockOnGPU();
      return;
    }
    reduceBlockOnHost();
  }

  int64_t blockThreads() const { return plan.launch[3]; }
  int64_t blockWarps() const { return blockThreads() / kWarpSize; }

  Value identity(unsigned output) {
    return combinerIdentity(b, loc, combiners[output]);
  }

  /// combine(lhs, rhs) with output `output`'s combiner (fast-math flags
  /// included).
  Value combine(unsigned output, Value lhs, Value rhs) {
    Operation *combined = b.clone(*combiners[output]);
    combined->setOperands({lhs, rhs});
    return combined->getResult(0);
  }

  /// Thread `thread`'s partial results: the payload over reduction points
  /// thread, thread + step, ... (step: the block's threads by default) from
  /// the identities.
  SmallVector<Value> partials(Value thread, int64_t step = 0) {
    SmallVector<Value> init;
    for (unsigned i = 0; i < combiners.size(); ++i)
      init.push_back(identity(i));
    auto loop = scf::ForOp::create(b, loc, thread, index(plan.reductionSize),
                                   index(step ? step : blockThreads()), init);
    {
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPointToStart(loop.getBody());
      delinearize(plan.reductionDims, loop.getInductionVar());
      scf::YieldOp::create(b, loc, payload(loop.getRegionIterArgs()));
    }
    for (unsigned dim : plan.reductionDims)
      ivs[dim] = Value();
    return SmallVector<Value>(loop.getResults());
  }

  /// Combines each total with the output's initial value and stores it.
  void storeTotals(ValueRange totals) {
    SmallVector<Value> results;
    for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable()))
      results.push_back(combine(i, totals[i], initialValue(init)));
    storeFinalOutputs(results);
  }

  /// Every lane of the warp ends with the combination of all 32 lanes'
  /// values: a butterfly of xor shuffles.
  SmallVector<Value> warpReduce(ValueRange values) {
    SmallVector<Value> reduced(values);
    for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2)
      for (unsigned i = 0; i < reduced.size(); ++i) {
        auto shuffle = gpu::ShuffleOp::create(b, loc, reduced[i], offset,
                                              kWarpSize, gpu::ShuffleMode::XOR);
        reduced[i] = combine(i, reduced[i], shuffle.getShuffleResult());
      }
    return reduced;
  }

  Value constantIs(Value value, int64_t constant) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, value,
                                 index(constant));
  }

  /// Opens `scf.if cond` and moves the insertion point into it.
  void enterIf(Value cond) {
    auto branch = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
  }

  /// A new shared-memory (workgroup) buffer of the enclosing GPU function:
  /// `size` elements of type `element`.
  Value workgroupBuffer(int64_t size, Type element) {
    auto function =
        b.getInsertionBlock()->getParentOp()->getParentOfType<gpu::GPUFuncOp>();
    if (!function)
      function = cast<gpu::GPUFuncOp>(b.getInsertionBlock()->getParentOp());
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    return function.addWorkgroupAttribution(
        MemRefType::get({size}, element, AffineMap(), workgroup), loc);
  }

  /// Each thread's partials, the warps' shuffle butterflies, the warp
  /// totals through shared memory, warp 0's butterfly over them, and thread
  /// 0's store.
  void reduceBlockOnGPU() {
    OpBuilder::InsertionGuard insertion(b);
    Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    SmallVector<Value> values = warpReduce(partials(thread));
    SmallVector<Value> shared;
    for (Value value : values)
      shared.push_back(workgroupBuffer(blockWarps(), value.getType()));
    Value warpSize = index(kWarpSize);
    Value lane = arith::RemUIOp::create(b, loc, thread, warpSize);
    Value warp = arith::DivUIOp::create(b, loc, thread, warpSize);
    {
      OpBuilder::InsertionGuard inner(b);
      enterIf(constantIs(lane, 0));
      for (auto [value, buffer] : llvm::zip(values, shared))
        memref::StoreOp::create(b, loc, value, buffer, warp);
    }
    gpu::BarrierOp::create(b, loc);
    enterIf(constantIs(warp, 0));
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          lane, index(blockWarps()));
    Value slot = arith::SelectOp::create(b, loc, inRange, lane, index(0));
    SmallVector<Value> warpTotals;
    for (auto [i, buffer] : llvm::enumerate(shared)) {
      Value loaded = memref::LoadOp::create(b, loc, buffer, slot);
      warpTotals.push_back(
          arith::SelectOp::create(b, loc, inRange, loaded, identity(i)));
    }
    SmallVector<Value> totals = warpReduce(warpTotals);
    enterIf(constantIs(lane, 0));
    storeTotals(totals);
  }

  /// A scratch buffer for the host emulation, allocated once at the entry
  /// of the enclosing function (the host loop over blocks would otherwise
  /// grow the stack with every block).
  Value hostScratch(int64_t size, Type element) {
    OpBuilder::InsertionGuard insertion(b);
    Operation *function = b.getInsertionBlock()->getParentOp();
    while (!isa<FunctionOpInterface>(function))
      function = function->getParentOp();
    b.setInsertionPointToStart(&function->getRegion(0).front());
    return memref::AllocaOp::create(b, loc, MemRefType::get({size}, element));
  }

  /// On the host: `lanes` values per output in `buffers`, each group of 32
  /// replaced by its combination, in the order of the shuffle butterfly
  /// (lane l takes combine(v[l], v[l ^ offset]) for offset 16, 8, ..., 1).
  void butterflyOnHost(ArrayRef<Value> buffers, int64_t lanes) {
    for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
      SmallVector<Value> before;
      for (Value buffer : buffers) {
        auto type = cast<MemRefType>(buffer.getType());
        Value copy = hostScratch(type.getDimSize(0), type.getElementType());
        memref::CopyOp::create(b, loc, buffer, copy);
        before.push_back(copy);
      }
      auto loop = scf::ForOp::create(b, loc, index(0), index(lanes), index(1));
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value l = loop.getInductionVar();
      Value partner = arith::XOrIOp::create(b, loc, l, index(offset));
      for (auto [i, buffer] : llvm::enumerate(buffers)) {
        Value mine = memref::LoadOp::create(b, loc, before[i], l);
        Value theirs = memref::LoadOp::create(b, loc, before[i], partner);
        memref::StoreOp::create(b, loc, combine(i, mine, theirs), buffer, l);
      }
    }
  }

  /// The block's threads one after the other, then the exchanges of
  /// reduceBlockOnGPU in the same order.
  void reduceBlockOnHost() {
    SmallVector<Value> lanes, warps;
    for (Operation *combiner : combiners) {
      Type type = combiner->getResult(0).getType();
      lanes.push_back(hostScratch(blockThreads(), type));
      warps.push_back(hostScratch(kWarpSize, type));
    }
    {
      auto loop =
          scf::ForOp::create(b, loc, index(0), index(blockThreads()), index(1));
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value thread = loop.getInductionVar();
      for (auto [value, buffer] : llvm::zip(partials(thread), lanes))
        memref::StoreOp::create(b, loc, value, buffer, thread);
    }
    butterflyOnHost(lanes, blockThreads());
    for (auto [i, buffer] : llvm::enumerate(warps)) {
      for (int64_t l = 0; l < kWarpSize; ++l) {
        Value value =
            l < blockWarps()
                ? memref::LoadOp::create(b, loc, lanes[i], index(l * kWarpSize))
                      .getResult()
                : identity(i);
        memref::StoreOp::create(b, loc, value, buffer, index(l));
      }
    }
    butterflyOnHost(warps, kWarpSize);
    SmallVector<Value> totals;
    for (Value buffer : warps)
      totals.push_back(memref::LoadOp::create(b, loc, buffer, index(0)));
    storeTotals(totals);
  }

  //===------------------------------------------------------------------===//
  // Tiled contractions (KernelPlan::tiled).
  //===------------------------------------------------------------------===//

  static constexpr int64_t kThreadsN = kTileN / kMicroTile;

  /// `lhs <u rhs` of two index values.
  Value below(Value lhs, int64_t rhs) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lhs,
                                 index(rhs));
  }

  Value add(Value lhs, int64_t rhs) {
    return arith::AddIOp::create(b, loc, lhs, index(rhs));
  }

  /// `cond ? make() : 0.0f`, with make's ops inside the branch.
  Value guarded(Value cond, llvm::function_ref<Value()> make) {
    Type f32 = b.getF32Type();
    auto branch = scf::IfOp::create(b, loc, f32, cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, make());
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(
        b, loc,
        Value(arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0))));
    return branch.getResult(0);
  }

  /// Thread `thread`'s part of one step's tile loads: kTileK x kTileM
  /// elements of A at k0 into `aTile` (index kk * kTileM + mm) and
  /// kTileK x kTileN of B into `bTile`, zero past the edges.
  void loadTiles(Value thread, Value m0, Value n0, Value k0, Value aTile,
                 Value bTile) {
    for (int side = 0; side < 2; ++side) {
      bool isA = side == 0;
      bool kFast = isA ? plan.aKFast : plan.bKFast;
      int64_t width = isA ? kTileM : kTileN;
      int64_t extent = isA ? plan.mSize : plan.nSize;
      ArrayRef<unsigned> dims = isA ? plan.mDims : plan.nDims;
      OpOperand *operand = op.getDpsInputOperand(isA ? 0 : 1);
      for (int64_t e = 0; e < kTileK * width / kTiledThreads; ++e) {
        Value slot = add(thread, e * kTiledThreads);
        Value kk, mm;
        if (kFast) {
          kk = arith::RemUIOp::create(b, loc, slot, index(kTileK));
          mm = arith::DivUIOp::create(b, loc, slot, index(kTileK));
        } else {
          mm = arith::RemUIOp::create(b, loc, slot, index(width));
          kk = arith::DivUIOp::create(b, loc, slot, index(width));
        }
        Value m = arith::AddIOp::create(b, loc, isA ? m0 : n0, mm);
        Value k = arith::AddIOp::create(b, loc, k0, kk);
        Value inside = arith::AndIOp::create(b, loc, below(m, extent),
                                             below(k, plan.reductionSize));
        Value value = guarded(inside, [&] {
          delinearize(dims, m);
          delinearize(plan.reductionDims, k);
          return load(*operand);
        });
        Value at = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, kk, index(width)), mm);
        memref::StoreOp::create(b, loc, value, isA ? aTile : bTile, at);
      }
    }
  }

  /// The output point of micro-tile element (i, j) of the thread at
  /// (tx, ty): m0 + ty + 16 i, n0 + tx + 16 j, and whether it exists.
  std::pair<Value, Value> outputPoint(Value m0, Value n0, Value tx, Value ty,
                                      int64_t i, int64_t j, Value &inside) {
    Value m = add(arith::AddIOp::create(b, loc, m0, ty), i * kThreadsN);
    Value n = add(arith::AddIOp::create(b, loc, n0, tx), j * kThreadsN);
    inside = arith::AndIOp::create(b, loc, below(m, plan.mSize),
                                   below(n, plan.nSize));
    return {m, n};
  }

  /// The initial value of micro-tile element (i, j): the output's (or its
  /// init producer's) there, 0 outside the output.
  Value initialAccumulator(Value m0, Value n0, Value tx, Value ty, int64_t i,
                           int64_t j) {
    Value inside;
    auto [m, n] = outputPoint(m0, n0, tx, ty, i, j, inside);
    return guarded(inside, [&, m = m, n = n] {
      delinearize(plan.mDims, m);
      delinearize(plan.nDims, n);
      return initialValue(op.getDpsInitsMutable()[0]);
    });
  }

  /// Stores micro-tile element (i, j), through the epilogue, when it is in
  /// the output.
  void storeAccumulator(Value m0, Value n0, Value tx, Value ty, int64_t i,
                        int64_t j, Value value) {
    Value inside;
    auto [m, n] = outputPoint(m0, n0, tx, ty, i, j, inside);
    OpBuilder::InsertionGuard insertion(b);
    enterIf(inside);
    delinearize(plan.mDims, m);
    delinearize(plan.nDims, n);
    storeFinalOutputs(ValueRange{value});
  }

  /// acc + a * b, as the payload computes it.
  Value multiplyAdd(Value acc, Value lhs, Value rhs) {
    Value product = arith::MulFOp::create(b, loc, lhs, rhs);
    return arith::AddFOp::create(b, loc, acc, product);
  }

  /// The tiled contraction: on the GPU (`hostBlock` null) the block's
  /// threads with their accumulators in registers and the tiles in shared
  /// memory, a barrier after the loads and after the products of each step;
  /// on the host the same loads and products, thread after thread between
  /// the barriers, with the accumulators in a scratch buffer.
  void emitTiled(Value hostBlock) {
    Value block =
        hostBlock
            ? hostBlock
            : gpu::BlockIdOp::create(b, loc, gpu::Dimension::x).getResult();
    int64_t tilesN = llvm::divideCeil(plan.nSize, kTileN);
    int64_t tilesM = llvm::divideCeil(plan.mSize, kTileM);
    Value nTile = arith::RemUIOp::create(b, loc, block, index(tilesN));
    Value rest = arith::DivUIOp::create(b, loc, block, index(tilesN));
    Value mTile = arith::RemUIOp::create(b, loc, rest, index(tilesM));
    Value batch = arith::DivUIOp::create(b, loc, rest, index(tilesM));
    delinearize(plan.batchDims, batch);
    Value m0 = arith::MulIOp::create(b, loc, mTile, index(kTileM));
    Value n0 = arith::MulIOp::create(b, loc, nTile, index(kTileN));
    Type f32 = b.getF32Type();
    Value aTile, bTile;
    if (hostBlock) {
      aTile = hostScratch(kTileK * kTileM, f32);
      bTile = hostScratch(kTileK * kTileN, f32);
    } else {
      aTile = workgroupBuffer(kTileK * kTileM, f32);
      bTile = workgroupBuffer(kTileK * kTileN, f32);
    }
    constexpr int64_t kPerThread = kMicroTile * kMicroTile;
    auto splitThread = [&](Value thread) {
      return std::pair<Value, Value>{
          arith::RemUIOp::create(b, loc, thread, index(kThreadsN)),
          arith::DivUIOp::create(b, loc, thread, index(kThreadsN))};
    };
    // One step's products for the thread at (tx, ty): kTileK rank-1
    // updates of its micro-tile.
    auto products = [&](Value tx, Value ty, ValueRange accumulators) {
      auto loop = scf::ForOp::create(b, loc, index(0), index(kTileK), index(1),
                                     accumulators);
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPointToStart(loop.getBody());
      Value kk = loop.getInductionVar();
      Value aRow = arith::MulIOp::create(b, loc, kk, index(kTileM));
      Value bRow = arith::MulIOp::create(b, loc, kk, index(kTileN));
      SmallVector<Value> as, bs, next;
      for (int64_t i = 0; i < kMicroTile; ++i)
        as.push_back(memref::LoadOp::create(
            b, loc, aTile,
            ValueRange{
                add(arith::AddIOp::create(b, loc, aRow, ty), i * kThreadsN)}));
      for (int64_t j = 0; j < kMicroTile; ++j)
        bs.push_back(memref::LoadOp::create(
            b, loc, bTile,
            ValueRange{
                add(arith::AddIOp::create(b, loc, bRow, tx), j * kThreadsN)}));
      for (int64_t i = 0; i < kMicroTile; ++i)
        for (int64_t j = 0; j < kMicroTile; ++j)
          next.push_back(multiplyAdd(
              loop.getRegionIterArgs()[i * kMicroTile + j], as[i], bs[j]));
      scf::YieldOp::create(b, loc, next);
      return SmallVector<Value>(loop.getResults());
    };
    Value step = index(kTileK);
    if (!hostBlock) {
      Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      auto [tx, ty] = splitThread(thread);
      SmallVector<Value> accumulators;
      for (int64_t i = 0; i < kMicroTile; ++i)
        for (int64_t j = 0; j < kMicroTile; ++j)
          accumulators.push_back(initialAccumulator(m0, n0, tx, ty, i, j));
      auto steps = scf::ForOp::create(
          b, loc, index(0), index(plan.reductionSize), step, accumulators);
      {
        OpBuilder::InsertionGuard insertion(b);
        b.setInsertionPointToStart(steps.getBody());
        loadTiles(thread, m0, n0, steps.getInductionVar(), aTile, bTile);
        gpu::BarrierOp::create(b, loc);
        SmallVector<Value> next = products(tx, ty, steps.getRegionIterArgs());
        gpu::BarrierOp::create(b, loc);
        scf::YieldOp::create(b, loc, next);
      }
      for (int64_t i = 0; i < kMicroTile; ++i)
        for (int64_t j = 0; j < kMicroTile; ++j)
          storeAccumulator(m0, n0, tx, ty, i, j,
                           steps.getResult(i * kMicroTile + j));
      return;
    }
    // The host: every thread's accumulators in a scratch buffer.
    Value accumulators = hostScratch(kTiledThreads * kPerThread, f32);
    auto forThreads = [&](llvm::function_ref<void(Value)> body) {
      auto loop =
          scf::ForOp::create(b, loc, index(0), index(kTiledThreads), index(1));
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      body(loop.getInductionVar());
    };
    auto slotOf = [&](Value thread, int64_t e) {
      return add(arith::MulIOp::create(b, loc, thread, index(kPerThread)), e);
    };
    forThreads([&](Value thread) {
      auto [tx, ty] = splitThread(thread);
      for (int64_t i = 0; i < kMicroTile; ++i)
        for (int64_t j = 0; j < kMicroTile; ++j)
          memref::StoreOp::create(
              b, loc, initialAccumulator(m0, n0, tx, ty, i, j), accumulators,
              slotOf(thread, i * kMicroTile + j));
    });
    auto steps =
        scf::ForOp::create(b, loc, index(0), index(plan.reductionSize), step);
    {
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPoint(steps.getBody()->getTerminator());
      Value k0 = steps.getInductionVar();
      forThreads(
          [&](Value thread) { loadTiles(thread, m0, n0, k0, aTile, bTile); });
      forThreads([&](Value thread) {
        auto [tx, ty] = splitThread(thread);
        SmallVector<Value> current;
        for (int64_t e = 0; e < kPerThread; ++e)
          current.push_back(
              memref::LoadOp::create(b, loc, accumulators, slotOf(thread, e)));
        SmallVector<Value> next = products(tx, ty, current);
        for (int64_t e = 0; e < kPerThread; ++e)
          memref::StoreOp::create(b, loc, next[e], accumulators,
                                  slotOf(thread, e));
      });
    }
    forThreads([&](Value thread) {
      auto [tx, ty] = splitThread(thread);
      for (int64_t i = 0; i < kMicroTile; ++i)
        for (int64_t j = 0; j < kMicroTile; ++j)
          storeAccumulator(
              m0, n0, tx, ty, i, j,
              memref::LoadOp::create(b, loc, accumulators,
                                     slotOf(thread, i * kMicroTile + j)));
    });
  }

  static_assert(kMinBlockReduction > kWarpSize,
                "block reductions assume at least two warps per block");

  /// Each output's combiner, for block reductions.
  SmallVector<Operation *> combiners;

  OpBuilder &b;
  linalg::LinalgOp op;
  const KernelPlan &plan;
  IRMapping &mapping;
  const KernelPrologue &prologue;
  /// A pointwise op that takes the op's output where it is computed
  /// (emitMappedKernelBody), or null.
  linalg::LinalgOp epilogue;
  Location loc;
  SmallVector<Value> ivs;
};

} // namespace

void mlir::tandem::emitMappedKernelBody(OpBuilder &builder, linalg::LinalgOp op,
                                        const KernelPlan &plan,
                                        IRMapping &mapping, Value threadIndex,
                                        const KernelPrologue &prologue,
                                        linalg::LinalgOp epilogue) {
  assert((!epilogue ||
          (plan.accumulateInRegisters && !plan.tiled && !plan.blockReduction &&
           !plan.rowStrided && op.getNumDpsInits() == 1)) &&
         "a pointwise epilogue needs a thread per output point");
  KernelBodyEmitter(builder, op, plan, mapping, prologue, epilogue)
      .emit(threadIndex);
}

FailureOr<KernelPlan> mlir::tandem::planSplitTail(linalg::LinalgOp combine,
                                                  int64_t threads) {
  FailureOr<KernelPlan> plan = planKernelLaunch(combine);
  if (failed(plan))
    return failure();
  if (!plan->accumulateInRegisters || plan->tiled ||
      plan->epilogue != FusedEpilogue::None || plan->total > kMaxTailPoints ||
      blockCombiners(combine).empty())
    return combine.emitOpError()
           << "cannot combine split partial results in the last block: it "
              "needs block combiners and at most "
           << kMaxTailPoints << " output points written once each";
  if (!plan->blockReduction) {
    *plan = withReductionLoops(combine, *plan);
    plan->blockReduction = true;
  }
  plan->launch = {plan->total, 1, 1, threads, 1, 1};
  return plan;
}

bool mlir::tandem::matchSplitTail(linalg::LinalgOp partial,
                                  linalg::LinalgOp combine) {
  if (!partial || !combine ||
      !combine->hasAttr(TandemDialect::getSplitCombineAttrName()) ||
      !partial.hasPureBufferSemantics() || !combine.hasPureBufferSemantics() ||
      llvm::any_of(partial.getStaticLoopRanges(), ShapedType::isDynamic) ||
      llvm::any_of(combine.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  // Every input of the combination is a buffer of partial results.
  SmallVector<Value> partials = llvm::map_to_vector(
      partial.getDpsInits(), [](Value init) { return viewedBuffer(init); });
  if (combine.getNumDpsInputs() == 0 ||
      llvm::any_of(combine.getDpsInputs(), [&](Value input) {
        return !llvm::is_contained(partials, viewedBuffer(input));
      }))
    return false;
  if (!hasBlockCombiners(combine) ||
      !outputsPartitionedByParallelLoops(combine))
    return false;
  if (pointsAndReduction(combine, combine.getStaticLoopRanges()).first >
      kMaxTailPoints)
    return false;
  FailureOr<KernelPlan> plan = planKernelLaunch(partial);
  return succeeded(plan) && plan->blockReduction;
}

void mlir::tandem::emitSplitTail(OpBuilder &builder, linalg::LinalgOp combine,
                                 const KernelPlan &plan, IRMapping &mapping,
                                 Value counter, int64_t blocks, Value hostBlock,
                                 const KernelPrologue &prologue) {
  KernelBodyEmitter(builder, combine, plan, mapping, prologue)
      .emitSplitTail(counter, blocks, hostBlock);
}
