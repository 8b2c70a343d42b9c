//===- OutlineParallelLoops.cpp - scf.parallel -> outlined chunk bodies ---===//
//
// Every outermost scf.parallel that is worth running on several threads is
// moved into a private function over a half-open range of its outermost
// non-unit dimension:
//
//   func.func private @__tandem_par_<fn>_<k>(%begin: index, %end: index,
//                                            <captured values>...)
//       attributes {tandem.parallel_grain = G : i64}
//
// and replaced by a serial call of it over the whole range. The call is
// correct as it stands; tandem-dispatch-parallel-calls later turns it into a
// tandem_parallel_for on the model's thread pool.
//
// Race freedom: a loop is outlined only if every write in its body is a
// memref.store that indexes the chunked dimension's induction variable
// directly, at the same position for all stores into one buffer, along a
// dimension of non-zero stride. Two chunks cover disjoint index ranges, so
// they write disjoint elements; scf.parallel (from linalg's parallel
// iterators) already promises that no iteration reads what another writes.
// Reductions stay inside one iteration (linalg's reduction dimensions are
// scf.for loops in the body), so every element is computed by exactly the
// same operations in the same order as the serial loop: results are
// bit-identical.
//
//===----------------------------------------------------------------------===//

#include "codegen/CPU/OutlineCaptures.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMOUTLINEPARALLELLOOPS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kGrainAttr = "tandem.parallel_grain";
constexpr llvm::StringLiteral kPrefix = "__tandem_par_";

/// Trip count of a loop dimension with constant bounds, or nullopt.
std::optional<uint64_t> tripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb),
                         u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u <= *l ? 0 : llvm::divideCeil(uint64_t(*u - *l), uint64_t(*s));
}

/// The number of operations `block` executes: nested scf.for / scf.parallel
/// bodies count once per iteration (unknown trip counts count once).
uint64_t countWork(Block &block) {
  uint64_t work = 0;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    uint64_t inner = 0;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        inner = llvm::SaturatingAdd(inner, countWork(nested));
    uint64_t trips = 1;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      trips =
          tripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())
              .value_or(1);
    } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      for (auto [lb, ub, step] : llvm::zip(
               loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
        trips = llvm::SaturatingMultiply(trips,
                                         tripCount(lb, ub, step).value_or(1));
    }
    work = llvm::SaturatingAdd(work, uint64_t(1),
                               llvm::SaturatingMultiply(trips, inner));
  }
  return work;
}

/// True if a chunk of the loop over `iv` writes only elements that no other
/// chunk writes (see the file comment).
bool writesAreDisjoint(scf::ParallelOp loop, Value iv) {
  llvm::DenseMap<Value, unsigned> position;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      auto indices = store.getIndices();
      auto it = llvm::find(indices, iv);
      if (it == indices.end())
        return WalkResult::interrupt();
      unsigned pos = it - indices.begin();
      auto [slot, inserted] = position.try_emplace(store.getMemref(), pos);
      if (!inserted && slot->second != pos)
        return WalkResult::interrupt();
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(store.getMemRefType().getStridesAndOffset(strides, offset)) ||
          strides[pos] == 0)
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    // Loops, ifs: their bodies are visited on their own.
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::interrupt(); // calls, unknown ops
    if (!effects.onlyHasEffect<MemoryEffects::Read>() &&
        !isMemoryEffectFree(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// What outlining a loop needs, decided before anything is changed.
struct Plan {
  unsigned dim;                      // the chunked dimension
  uint64_t trips;                    // its trip count
  uint64_t grain;                    // iterations per chunk, at least one
  SmallVector<Value> arguments;      // captures passed to the body
  SmallVector<Operation *> rebuilds; // captures recreated inside it
};

struct OutlineParallelLoopsPass
    : tandem::impl::TandemOutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || func->hasAttr(kGrainAttr))
        continue;
      SmallVector<scf::ParallelOp> loops;
      func.walk([&](scf::ParallelOp loop) {
        if (!loop->getParentOfType<scf::ParallelOp>())
          loops.push_back(loop);
      });
      unsigned count = 0;
      for (scf::ParallelOp loop : loops)
        if (std::optional<Plan> plan = analyse(loop))
          outline(func, loop, *plan, count++, symbols);
    }
  }

  /// Decides whether and how to outline `loop`.
  std::optional<Plan> analyse(scf::ParallelOp loop) {
    if (loop.getNumResults() != 0)
      return std::nullopt;
    SmallVector<uint64_t> trips;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
      if (std::optional<uint64_t> n = tripCount(lb, ub, step))
        trips.push_back(*n);
      else
        return std::nullopt;
    // The outermost dimension with more than one iteration (batch
    // dimensions of size one would leave nothing to split).
    auto it = llvm::find_if(trips, [](uint64_t n) { return n > 1; });
    if (it == trips.end())
      return std::nullopt;
    Plan plan;
    plan.dim = it - trips.begin();
    plan.trips = *it;

    uint64_t work = countWork(*loop.getBody());
    for (uint64_t n : trips)
      work = llvm::SaturatingMultiply(work, n);
    if (work < uint64_t(std::max<int64_t>(minWork, 0)))
      return std::nullopt;
    uint64_t perIteration = std::max<uint64_t>(work / plan.trips, 1);
    plan.grain = std::max<uint64_t>(
        llvm::divideCeil(uint64_t(std::max<int64_t>(chunkWork, 1)),
                         perIteration),
        1);

    if (!writesAreDisjoint(loop, loop.getInductionVars()[plan.dim]))
      return std::nullopt;

    llvm::SetVector<Value> captures;
    getUsedValuesDefinedAbove(loop.getRegion(), captures);
    if (failed(tandem::sortCaptures(captures.getArrayRef(), plan.rebuilds,
                                    plan.arguments)))
      return std::nullopt;
    return plan;
  }

  void outline(func::FuncOp func, scf::ParallelOp loop, const Plan &plan,
               unsigned index, SymbolTable &symbols) {
    MLIRContext *ctx = &getContext();
    Location loc = loop.getLoc();
    OpBuilder b(ctx);
    Type indexType = b.getIndexType();

    SmallVector<Type> inputs = {indexType, indexType};
    for (Value value : plan.arguments)
      inputs.push_back(value.getType());
    std::string name =
        (kPrefix + func.getSymName() + "_" + llvm::Twine(index)).str();
    auto body =
        func::FuncOp::create(b, loc, name, FunctionType::get(ctx, inputs, {}));
    body.setPrivate();
    body->setAttr(kGrainAttr, b.getI64IntegerAttr(plan.grain));
    symbols.insert(body, std::next(Block::iterator(func)));

    Block *entry = body.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    llvm::DenseMap<int64_t, Value> constants; // index constants in the body
    for (Operation *def : plan.rebuilds) {
      Value value = b.clone(*def, mapping)->getResult(0);
      std::optional<int64_t> v = getConstantIntValue(value);
      if (v && value.getType().isIndex())
        constants.try_emplace(*v, value);
    }
    for (auto [value, arg] :
         llvm::zip(plan.arguments, entry->getArguments().drop_front(2)))
      mapping.map(value, arg);

    // Iteration numbers [begin, end) of the chunked dimension in its own
    // induction variable's terms: lb + i * step.
    auto constant = [&](int64_t v) -> Value {
      Value &c = constants[v];
      if (!c)
        c = arith::ConstantIndexOp::create(b, loc, v);
      return c;
    };
    auto bound = [&](Value iteration, int64_t lb, int64_t step) -> Value {
      Value v = iteration;
      if (step != 1)
        v = arith::MulIOp::create(b, loc, v, constant(step));
      if (lb != 0)
        v = arith::AddIOp::create(b, loc, v, constant(lb));
      return v;
    };
    SmallVector<Value> lbs, ubs, steps;
    for (auto [dim, lb, ub, step] : llvm::enumerate(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      int64_t l = *getConstantIntValue(lb), s = *getConstantIntValue(step);
      steps.push_back(constant(s));
      if (dim == plan.dim) {
        lbs.push_back(bound(entry->getArgument(0), l, s));
        ubs.push_back(bound(entry->getArgument(1), l, s));
      } else {
        lbs.push_back(constant(l));
        ubs.push_back(constant(*getConstantIntValue(ub)));
      }
    }
    // Cloning keeps the outer bounds as operands; they are replaced at once.
    auto clone = cast<scf::ParallelOp>(b.clone(*loop, mapping));
    clone.getLowerBoundMutable().assign(lbs);
    clone.getUpperBoundMutable().assign(ubs);
    clone.getStepMutable().assign(steps);
    func::ReturnOp::create(b, loc);

    b.setInsertionPoint(loop);
    SmallVector<Value> operands = {
        arith::ConstantIndexOp::create(b, loc, 0),
        arith::ConstantIndexOp::create(b, loc, plan.trips)};
    operands.append(plan.arguments.begin(), plan.arguments.end());
    func::CallOp::create(b, loc, body, operands);
    loop.erase();
  }
};

} // namespace
