//===- KernelMapping.cpp - a linalg op as guarded GPU threads -------------===//

#include "codegen/GPU/KernelMapping.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/SmallBitVector.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;

/// The largest grid.x CUDA allows.
static constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();

/// Whether distinct points of the parallel loops write distinct output
/// elements: every output map is a projected permutation that uses each
/// parallel loop and no reduction loop.
static bool outputsPartitionedByParallelLoops(linalg::LinalgOp op) {
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

FailureOr<KernelPlan> mlir::tandem::planKernelLaunch(linalg::LinalgOp op) {
  KernelPlan plan;
  plan.bounds = op.getStaticLoopRanges();
  if (llvm::any_of(plan.bounds, ShapedType::isDynamic))
    return op.emitOpError() << "has dynamic loop bounds: GPU kernels need "
                               "static shapes";
  plan.accumulateInRegisters = outputsPartitionedByParallelLoops(op);
  if (plan.accumulateInRegisters)
    for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::parallel) {
        plan.threadDims.push_back(dim);
        plan.total *= plan.bounds[dim];
      }
  // One block of 256 threads at most; a small op gets whole warps.
  int64_t threads = std::min<int64_t>(
      kThreadsPerBlock, llvm::alignTo(std::max<int64_t>(plan.total, 1), 32));
  int64_t blocks = llvm::divideCeil(std::max<int64_t>(plan.total, 1), threads);
  if (blocks > kMaxGridX)
    return op.emitOpError() << "needs " << blocks << " blocks of " << threads
                            << " threads, more than a 1-D grid holds";
  plan.launch = {blocks, 1, 1, threads, 1, 1};
  return plan;
}

namespace {

/// Builds the loop nest and the payload of one linalg op on buffers.
class KernelBodyEmitter {
public:
  KernelBodyEmitter(OpBuilder &builder, linalg::LinalgOp op,
                    const KernelPlan &plan, IRMapping &mapping)
      : b(builder), op(op), plan(plan), mapping(mapping), loc(op.getLoc()),
        ivs(plan.bounds.size()) {}

  void emit(Value givenIndex) {
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
  void delinearize(Value id) {
    Value rest = id;
    for (unsigned dim : llvm::reverse(plan.threadDims)) {
      Value bound = index(plan.bounds[dim]);
      ivs[dim] = arith::RemUIOp::create(b, loc, rest, bound);
      rest = arith::DivUIOp::create(b, loc, rest, bound);
    }
  }

  /// The indices of `operand` at the current point.
  SmallVector<Value> indicesOf(OpOperand &operand) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      AffineExpr expr = map.getResult(i);
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        indices.push_back(ivs[dim.getPosition()]);
        continue;
      }
      // Only the loops the index uses (outputs are indexed before the
      // serial loops exist).
      AffineMap sub = map.getSubMap({i});
      llvm::SmallBitVector unused = getUnusedDimsBitVector({sub});
      SmallVector<Value> operands;
      for (unsigned d = 0; d < sub.getNumDims(); ++d)
        if (!unused.test(d))
          operands.push_back(ivs[d]);
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, compressUnusedDims(sub), operands));
    }
    return indices;
  }

  Value load(OpOperand &operand) {
    Value value = mapping.lookupOrDefault(operand.get());
    if (!isa<MemRefType>(value.getType()))
      return value; // a scalar operand
    return memref::LoadOp::create(b, loc, value, indicesOf(operand));
  }

  /// Runs the payload at the current point on `outputs` (the current output
  /// values); returns the yielded ones.
  SmallVector<Value> payload(ValueRange outputs) {
    Block *body = op.getBlock();
    // Values from above the op (constants) were cloned into the kernel.
    IRMapping payloadMap = mapping;
    unsigned arg = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument blockArg = body->getArgument(arg++);
      if (!blockArg.use_empty())
        payloadMap.map(blockArg, load(*input));
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
          plan.threadDims.size() == plan.bounds.size()) {
        outputs.push_back(zero(init.get()));
        continue;
      }
      outputs.push_back(load(init));
    }
    return outputs;
  }

  /// A placeholder for an output the payload does not read.
  Value zero(Value buffer) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    return arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  }

  void storeOutputs(ValueRange values) {
    for (auto [value, init] : llvm::zip(values, op.getDpsInitsMutable()))
      memref::StoreOp::create(b, loc, value, mapping.lookup(init.get()),
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
    storeOutputs(results);
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

  OpBuilder &b;
  linalg::LinalgOp op;
  const KernelPlan &plan;
  IRMapping &mapping;
  Location loc;
  SmallVector<Value> ivs;
};

} // namespace

void mlir::tandem::emitMappedKernelBody(OpBuilder &builder, linalg::LinalgOp op,
                                        const KernelPlan &plan,
                                        IRMapping &mapping, Value threadIndex) {
  KernelBodyEmitter(builder, op, plan, mapping).emit(threadIndex);
}
