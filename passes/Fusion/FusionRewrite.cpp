//===- FusionRewrite.cpp - outline planned groups into tandem.fusion ------===//
//
// Turns each PlannedFusion into a tandem.fusion op: external values become
// operands and block arguments, small constants are cloned into the body,
// values used outside become results (several make it multi_output), and
// the members move into the body without their tandem.device attributes.
// A producer the planner duplicated into a group that later took the
// original too is then one op again (common subexpressions of the body are
// merged).
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/FusionPlanner.h"

#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tandem;

/// Outlines one planned fusion; returns the fusion op.
static FusionOp outlineOne(PlannedFusion &planned, const FusionConfig &config) {
  DenseSet<Operation *> members(planned.ops.begin(), planned.ops.end());
  Operation *last = planned.ops.back();
  MLIRContext *context = last->getContext();

  // Operands: external values in order of first use; small constants are
  // cloned instead.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> inlined;
  for (Operation *op : planned.ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && members.contains(def))
        continue;
      if (def && isInlinableConstant(def, config))
        inlined.insert(def);
      else
        inputs.insert(operand);
    }
  // Results: member values used outside the group.
  SmallVector<Value> outputs;
  for (Operation *op : planned.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        outputs.push_back(result);

  FusionKind kind =
      outputs.size() > 1 ? FusionKind::MultiOutput : planned.baseKind;
  planned.kind = kind;
  planned.numInputs = inputs.size();
  planned.numOutputs = outputs.size();
  SmallVector<Location> memberLocs = {planned.root->getLoc()};
  for (Operation *op : planned.ops)
    if (op != planned.root)
      memberLocs.push_back(op->getLoc());
  Location loc = FusedLoc::get(context, memberLocs);

  OpBuilder builder(last);
  auto fusion = FusionOp::create(
      builder, loc, ValueRange(outputs).getTypes(), inputs.getArrayRef(),
      FusionKindAttr::get(context, kind), builder.getStringAttr(planned.name));
  if (DeviceAttr device = getDevice(planned.root))
    setDevice(fusion, device);

  SmallVector<Location> argLocs(inputs.size(), loc);
  Block *body =
      builder.createBlock(&fusion.getBody(), {},
                          ValueRange(inputs.getArrayRef()).getTypes(), argLocs);
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, body->getArguments()))
    mapping.map(input, arg);
  for (Operation *constant : inlined) {
    Operation *clone = builder.clone(*constant, mapping);
    clone->removeAttr(TandemDialect::getDeviceAttrName());
  }
  for (Operation *op : planned.ops) {
    Operation *clone = builder.clone(*op, mapping);
    clone->removeAttr(TandemDialect::getDeviceAttrName());
  }
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(builder, loc, yielded);

  for (auto [output, result] : llvm::zip(outputs, fusion.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(planned.ops))
    op->erase();
  for (Operation *constant : inlined)
    if (constant->use_empty())
      constant->erase();
  // The planner duplicates a cheap producer into each consuming group; when
  // a group later merges with the original as well (a multi-output fusion
  // of a transpose chain and its LayerNorm), the body holds both copies.
  IRRewriter rewriter(context);
  DominanceInfo dominance(fusion);
  eliminateCommonSubExpressions(rewriter, dominance, fusion);
  return fusion;
}

void mlir::tandem::outlineFusions(Block &block, FusionPlan &plan,
                                  const FusionConfig &config) {
  for (Operation *op : llvm::reverse(plan.deadOps)) {
    // Dead ops of a duplicated producer may still feed each other.
    op->dropAllUses();
    op->erase();
  }
  plan.deadOps.clear();
  for (PlannedFusion &planned : plan.fusions)
    outlineOne(planned, config);
  // A fusion sits where its last member was; users of its earlier members
  // may precede it.
  sortTopologically(&block);
}
