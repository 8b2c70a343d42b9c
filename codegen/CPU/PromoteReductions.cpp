//===- PromoteReductions.cpp - keep reduction accumulators in registers ---===//
//
// A linalg reduction lowered to loops loads its accumulator from the output
// buffer, combines it with one input element and stores it back on every
// iteration of the reduction loop. LLVM cannot keep the accumulator in a
// register: the output and the inputs are views of one arena, so it cannot
// prove that the store does not change what the next load reads. The loop
// then runs one scalar, latency-bound add per element and never vectorises.
//
// This pass carries the accumulator through the loop instead (an iter_arg
// loaded before the loop and stored after it) and lets the combining
// operation be reassociated, so that LLVM vectorises the reduction.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMPROMOTEREDUCTIONS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The accumulator access of a reduction loop: a load of the element that
/// the loop's only store writes back.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// True if `op` (not counting the ops nested in it) only reads memory or
/// does not touch it.
bool onlyReads(Operation *op) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return true; // its nested ops are checked one by one
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::all_of(list, [](const MemoryEffects::EffectInstance &effect) {
    return isa<MemoryEffects::Read>(effect.getEffect());
  });
}

/// The accumulator of `loop` when its body writes memory only through one
/// `memref.store` at loop-invariant indices, in the body's own block, which
/// a load of the same element earlier in that block feeds; else nothing.
std::optional<Accumulator> findAccumulator(scf::ForOp loop) {
  memref::StoreOp store;
  bool ok = true;
  loop.getBody()->walk([&](Operation *op) {
    if (auto s = dyn_cast<memref::StoreOp>(op)) {
      ok &= !store;
      store = s;
    } else if (!onlyReads(op)) {
      ok = false;
    }
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (!ok || !store)
    return std::nullopt;
  // The accumulator's load must be the buffer's only read: any other could
  // see the element the store has not written yet.
  Value buffer = store.getMemRef();
  unsigned reads = 0;
  loop.getBody()->walk(
      [&](memref::LoadOp load) { reads += load.getMemRef() == buffer; });
  if (reads != 1 || store->getBlock() != loop.getBody() ||
      !loop.isDefinedOutsideOfLoop(store.getMemRef()) ||
      !llvm::all_of(store.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return std::nullopt;
  for (Operation &op : *loop.getBody()) {
    if (&op == store.getOperation())
      break;
    auto load = dyn_cast<memref::LoadOp>(op);
    if (load && load.getMemRef() == store.getMemRef() &&
        load.getIndices() == store.getIndices())
      return Accumulator{load, store};
  }
  return std::nullopt;
}

/// Lets the op that combines the accumulator with the loop's values be
/// reassociated, when it is an associative float op one of whose operands
/// is the accumulator, so that LLVM may split the reduction into vector
/// lanes. max and min are exact in any order; a sum's rounding changes.
void allowReassociation(Value accumulator, Value combined) {
  Operation *op = combined.getDefiningOp();
  if (!op || !llvm::is_contained(op->getOperands(), accumulator) ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp>(op))
    return;
  auto fastMath = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue() |
                               arith::FastMathFlags::reassoc;
  op->setAttr(fastMath.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(op->getContext(), flags));
}

/// Carries the accumulator of `loop` as an iter_arg.
void promote(IRRewriter &rewriter, scf::ForOp loop, Accumulator acc) {
  rewriter.setInsertionPoint(loop);
  Value init = memref::LoadOp::create(
      rewriter, acc.load.getLoc(), acc.load.getMemRef(), acc.load.getIndices());
  Value combined = acc.store.getValueToStore();
  FailureOr<LoopLikeOpInterface> grown =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                return SmallVector<Value>{combined};
              });
  if (failed(grown))
    return;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  Value carried = newLoop.getRegionIterArgs().back();
  rewriter.replaceAllUsesWith(acc.load.getResult(), carried);
  allowReassociation(carried, combined);
  rewriter.setInsertionPointAfter(newLoop);
  memref::StoreOp::create(rewriter, acc.store.getLoc(),
                          newLoop.getResults().back(), acc.store.getMemRef(),
                          acc.store.getIndices());
  rewriter.eraseOp(acc.store);
  rewriter.eraseOp(acc.load);
}

struct PromoteReductionsPass
    : public tandem::impl::TandemPromoteReductionsBase<PromoteReductionsPass> {
  void runOnOperation() override {
    // Innermost loops first, so that an outer reduction loop over an inner
    // one sees the inner one's hoisted load and store.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      if (std::optional<Accumulator> acc = findAccumulator(loop))
        promote(rewriter, loop, *acc);
  }
};

} // namespace
