//===- ConstantEvaluation.cpp - import-time values of constant subgraphs --===//
//
// When a converter needs a value at compile time (a shape, axes, pads, a
// scalar) that the KnownInts folders did not track, the importer evaluates
// the IR that computes it with the tandem ops' folders: any subgraph of
// folding ops over constants (a Trilu mask, a Where, a Ceil cast to int64,
// an Expand) yields its value, whatever ONNX ops built it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/DataFolds.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

/// Deeper chains than this are not evaluated (a guard against pathological
/// graphs; shape subgraphs are a few ops deep).
static constexpr int kMaxEvaluationDepth = 256;

/// The constant value of `v` when the ops computing it fold, or null.
static Attribute evaluate(Value v, DenseMap<Value, Attribute> &memo,
                          int depth) {
  if (!v || depth > kMaxEvaluationDepth)
    return {};
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Attribute result;
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast_or_null<ConstantOp>(op)) {
    result = dyn_cast<DenseElementsAttr>(c.getValue());
  } else if (op && op->getNumRegions() == 0 &&
             isa<TandemDialect>(op->getDialect())) {
    unsigned resultNumber = cast<OpResult>(v).getResultNumber();
    // Folders may rewrite their op in place (reshape of reshape) and return
    // its own result; fold again on the new operands then.
    for (int attempt = 0; attempt < 4 && !result; ++attempt) {
      SmallVector<Attribute> operands;
      for (Value operand : op->getOperands()) {
        Attribute a = evaluate(operand, memo, depth + 1);
        if (!a)
          break;
        operands.push_back(a);
      }
      if (operands.size() != op->getNumOperands())
        break;
      SmallVector<OpFoldResult, 2> folded;
      if (failed(op->fold(operands, folded)) ||
          folded.size() != op->getNumResults())
        break;
      if (auto attr = dyn_cast<Attribute>(folded[resultNumber])) {
        result = attr;
      } else if (Value same = cast<Value>(folded[resultNumber]); same != v) {
        result = evaluate(same, memo, depth + 1);
        break;
      }
    }
  }
  memo[v] = result;
  return result;
}

Attribute GraphImporter::evaluateConstant(Value v) const {
  return evaluate(v, evaluationMemo, 0);
}

Attribute GraphImporter::evaluateLargeConstant(Value v) const {
  ScopedFoldElementLimit limit(kMaxConstantIndexElements);
  DenseMap<Value, Attribute> memo;
  return evaluate(v, memo, 0);
}

const KnownInts *GraphImporter::evaluatedInput(unsigned i) const {
  Value v = values.lookup(node().input(i));
  if (!v)
    return nullptr;
  if (auto it = evaluated.find(v); it != evaluated.end())
    return it->second.get();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(evaluateConstant(v));
  if (!dense || !isKnownIntType(dense.getElementType()) ||
      dense.getNumElements() > kMaxKnownElements)
    return nullptr;
  auto k = std::make_unique<KnownInts>();
  k->shape.assign(dense.getType().getShape().begin(),
                  dense.getType().getShape().end());
  k->elementType = dense.getElementType();
  k->values = knownIntValues(dense);
  return (evaluated[v] = std::move(k)).get();
}

std::vector<int64_t> onnx_import::knownIntValues(DenseElementsAttr dense) {
  bool boolean = dense.getElementType().isInteger(1);
  std::vector<int64_t> values;
  values.reserve(dense.getNumElements());
  for (const APInt &e : dense.getValues<APInt>())
    values.push_back(boolean ? static_cast<int64_t>(e.getZExtValue())
                             : e.getSExtValue());
  return values;
}
