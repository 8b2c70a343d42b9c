//===- OutlineLoopNests.cpp - loop nests of long functions -> functions ---===//
//
// tandem-outline-loop-nests (docs in codegen/Passes.td): keeps LLVM's code
// generation linear in the size of a graph by giving every loop nest of a
// very long function a function of its own.
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
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMOUTLINELOOPNESTS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kPrefix = "__tandem_loops_";

/// What outlining one loop nest needs: the ops to recreate inside and the
/// values to pass.
struct Captures {
  SmallVector<Operation *> rebuilds;
  SmallVector<Value> arguments;
};

/// The captures of `loop`, or std::nullopt when one cannot be passed.
std::optional<Captures> analyse(Operation *loop) {
  if (loop->getNumResults() != 0)
    return std::nullopt;
  llvm::SetVector<Value> used;
  for (Region &region : loop->getRegions())
    getUsedValuesDefinedAbove(region, used);
  // The loop's own bounds and steps are operands, not region captures.
  for (Value operand : loop->getOperands())
    used.insert(operand);
  Captures captures;
  if (failed(tandem::sortCaptures(used.getArrayRef(), captures.rebuilds,
                                  captures.arguments)))
    return std::nullopt;
  return captures;
}

struct OutlineLoopNestsPass
    : tandem::impl::TandemOutlineLoopNestsBase<OutlineLoopNestsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || func.getSymName().starts_with(kPrefix.str()))
        continue;
      SmallVector<Operation *> loops;
      for (Operation &op : func.getBody().front())
        if (isa<scf::ForOp, scf::ParallelOp>(op))
          loops.push_back(&op);
      if (static_cast<int64_t>(loops.size()) <= minLoops)
        continue;
      unsigned count = 0;
      Operation *last = func; // the functions follow in the nests' order
      for (Operation *loop : loops)
        if (std::optional<Captures> captures = analyse(loop))
          last = outline(func, loop, *captures, count++, last, symbols);
    }
  }

  /// Outlines `loop` of `func` into a function placed after `after`;
  /// returns that function.
  Operation *outline(func::FuncOp func, Operation *loop,
                     const Captures &captures, unsigned index, Operation *after,
                     SymbolTable &symbols) {
    MLIRContext *ctx = &getContext();
    Location loc = loop->getLoc();
    OpBuilder b(ctx);
    SmallVector<Type> inputs;
    for (Value value : captures.arguments)
      inputs.push_back(value.getType());
    std::string name =
        (kPrefix + func.getSymName() + "_" + llvm::Twine(index)).str();
    auto body =
        func::FuncOp::create(b, loc, name, FunctionType::get(ctx, inputs, {}));
    body.setPrivate();
    // Kept apart through LLVM's inliner (the point of outlining): the
    // attribute carries over to the llvm.func as its `noinline`.
    body->setAttr("passthrough", b.getStrArrayAttr({"noinline"}));
    symbols.insert(body, std::next(Block::iterator(after)));

    Block *entry = body.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (Operation *def : captures.rebuilds)
      b.clone(*def, mapping);
    for (auto [value, arg] :
         llvm::zip(captures.arguments, entry->getArguments()))
      mapping.map(value, arg);
    b.clone(*loop, mapping);
    func::ReturnOp::create(b, loc);

    b.setInsertionPoint(loop);
    func::CallOp::create(b, loc, body, captures.arguments);
    loop->erase();
    return body;
  }
};

} // namespace
