//===- TandemDataFolds.cpp - constant folding of data-movement ops --------===//
//
// Folders that evaluate data movement and selection on small constants:
// broadcast_to, concat, slice, gather, cmp and where, and the casts between
// integers and floats. Exports build masks, position ids and shapes from
// constant subgraphs of these ops; the importer asks the folders for the
// values it needs at compile time, and canonicalisation folds the rest.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/DataFolds.h"

#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tandem;

/// `attr` as an inline dense constant when `resultType` is small enough to
/// fold into; null otherwise.
static DenseElementsAttr foldable(Attribute attr, ShapedType resultType) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || resultType.getNumElements() > foldElementLimit())
    return {};
  return dense;
}

/// The row-major multi-index of element `flat` of `shape`.
static void unflatten(int64_t flat, ArrayRef<int64_t> shape,
                      SmallVectorImpl<int64_t> &index) {
  index.assign(shape.size(), 0);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
}

/// The flat position in an operand of shape `inShape`, broadcast NumPy-style
/// to a result, of the result element at `index`.
static int64_t broadcastPosition(ArrayRef<int64_t> index,
                                 ArrayRef<int64_t> inShape) {
  int64_t offset = index.size() - inShape.size(), pos = 0;
  for (auto [d, size] : llvm::enumerate(inShape))
    pos = pos * size + (size == 1 ? 0 : index[offset + d]);
  return pos;
}

/// A constant of `resultType` whose element at each index is element
/// `source(index)` of `dense` (a row-major position); null when `source`
/// declines an index.
static Attribute
remap(DenseElementsAttr dense, ShapedType resultType,
      function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> source) {
  if (dense.isSplat())
    return dense.resizeSplat(resultType);
  SmallVector<Attribute> values = llvm::to_vector(dense.getValues<Attribute>());
  SmallVector<Attribute> result;
  result.reserve(resultType.getNumElements());
  SmallVector<int64_t> index;
  for (int64_t flat = 0, e = resultType.getNumElements(); flat < e; ++flat) {
    unflatten(flat, resultType.getShape(), index);
    std::optional<int64_t> pos = source(index);
    if (!pos || *pos < 0 || *pos >= static_cast<int64_t>(values.size()))
      return {};
    result.push_back(values[*pos]);
  }
  return DenseElementsAttr::get(resultType, result);
}

/// An integer element of `dense` read with its signedness.
static int64_t intAt(DenseElementsAttr dense, ArrayRef<APInt> values,
                     int64_t pos) {
  const APInt &v = dense.isSplat() ? values.front() : values[pos];
  return dense.getElementType().isUnsignedInteger() ||
                 dense.getElementType().isInteger(1)
             ? static_cast<int64_t>(v.getZExtValue())
             : v.getSExtValue();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Attribute mlir::tandem::foldBroadcastToConstant(BroadcastToOp op,
                                                Attribute input) {
  DenseElementsAttr dense = foldable(input, op.getType());
  if (!dense)
    return {};
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
  return remap(dense, op.getType(), [&](ArrayRef<int64_t> index) {
    return std::optional<int64_t>(broadcastPosition(index, inShape));
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  if (getType().getNumElements() > foldElementLimit())
    return {};
  SmallVector<DenseElementsAttr> parts;
  for (Attribute a : adaptor.getInputs()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!dense)
      return {};
    parts.push_back(dense);
  }
  // Row-major: for each index of the dims before `axis`, the inputs' blocks
  // of (axis dim x inner) elements follow one another.
  ArrayRef<int64_t> outShape = getType().getShape();
  int64_t axis = getAxis(), outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= outShape[d];
  for (int64_t d = axis + 1, e = outShape.size(); d < e; ++d)
    inner *= outShape[d];
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr p : parts)
    values.push_back(llvm::to_vector(p.getValues<Attribute>()));
  SmallVector<Attribute> result;
  result.reserve(getType().getNumElements());
  for (int64_t o = 0; o < outer; ++o)
    for (auto [p, vals] : llvm::zip(parts, values)) {
      int64_t block = p.getType().getDimSize(axis) * inner;
      for (int64_t i = 0; i < block; ++i)
        result.push_back(vals[o * block + i]);
    }
  return DenseElementsAttr::get(getType(), result);
}

Attribute mlir::tandem::foldSliceConstant(SliceOp op, Attribute input) {
  DenseElementsAttr dense = foldable(input, op.getType());
  if (!dense)
    return {};
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
  ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
  return remap(dense, op.getType(), [&](ArrayRef<int64_t> index) {
    int64_t pos = 0;
    for (auto [d, size] : llvm::enumerate(inShape))
      pos = pos * size + starts[d] + index[d] * steps[d];
    return std::optional<int64_t>(pos);
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr data = foldable(adaptor.getData(), getType());
  auto indices = dyn_cast_or_null<DenseElementsAttr>(adaptor.getIndices());
  if (!data || !indices)
    return {};
  ArrayRef<int64_t> dataShape = getData().getType().getShape();
  int64_t axis = getAxis(), axisSize = dataShape[axis];
  int64_t indexRank = getIndices().getType().getRank();
  ArrayRef<int64_t> indexShape = getIndices().getType().getShape();
  SmallVector<APInt> ids = llvm::to_vector(indices.getValues<APInt>());
  // result[o..., i..., r...] = data[o..., indices[i...], r...]; an index
  // out of range is the run-time check's to report, so it does not fold.
  return remap(data, getType(),
               [&](ArrayRef<int64_t> index) -> std::optional<int64_t> {
                 int64_t idPos = 0;
                 for (int64_t d = 0; d < indexRank; ++d)
                   idPos = idPos * indexShape[d] + index[axis + d];
                 int64_t id = intAt(indices, ids, idPos);
                 if (id < 0)
                   id += axisSize;
                 if (id < 0 || id >= axisSize)
                   return std::nullopt;
                 int64_t pos = 0;
                 for (int64_t d = 0, e = dataShape.size(); d < e; ++d) {
                   int64_t i = d < axis    ? index[d]
                               : d == axis ? id
                                           : index[d + indexRank - 1];
                   pos = pos * dataShape[d] + i;
                 }
                 return pos;
               });
}

//===----------------------------------------------------------------------===//
// Selection and comparison
//===----------------------------------------------------------------------===//

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto cond = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCondition());
  // A splat condition picks one operand whole when that is the result.
  if (cond && cond.isSplat()) {
    Value picked = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
    if (picked.getType() == getType())
      return picked;
  }
  DenseElementsAttr onTrue = foldable(adaptor.getOnTrue(), getType());
  DenseElementsAttr onFalse = foldable(adaptor.getOnFalse(), getType());
  if (!cond || !onTrue || !onFalse)
    return {};
  SmallVector<bool> c = llvm::to_vector(cond.getValues<bool>());
  SmallVector<Attribute> t = llvm::to_vector(onTrue.getValues<Attribute>());
  SmallVector<Attribute> f = llvm::to_vector(onFalse.getValues<Attribute>());
  SmallVector<Attribute> result;
  SmallVector<int64_t> index;
  for (int64_t flat = 0, e = getType().getNumElements(); flat < e; ++flat) {
    unflatten(flat, getType().getShape(), index);
    auto at = [&](DenseElementsAttr a, auto &vals) {
      return vals[a.isSplat()
                      ? 0
                      : broadcastPosition(index, a.getType().getShape())];
    };
    result.push_back(at(cond, c) ? at(onTrue, t) : at(onFalse, f));
  }
  return DenseElementsAttr::get(getType(), result);
}

/// Evaluates `predicate` on two floats; NaN compares unequal to everything.
static bool compareFloats(CmpPredicate predicate, const APFloat &a,
                          const APFloat &b) {
  APFloat::cmpResult r = a.compare(b);
  switch (predicate) {
  case CmpPredicate::EQ:
    return r == APFloat::cmpEqual;
  case CmpPredicate::NE:
    return r != APFloat::cmpEqual;
  case CmpPredicate::LT:
    return r == APFloat::cmpLessThan;
  case CmpPredicate::LE:
    return r == APFloat::cmpLessThan || r == APFloat::cmpEqual;
  case CmpPredicate::GT:
    return r == APFloat::cmpGreaterThan;
  case CmpPredicate::GE:
    return r == APFloat::cmpGreaterThan || r == APFloat::cmpEqual;
  }
  return false;
}

/// Evaluates `predicate` on two integers of the given signedness.
static bool compareInts(CmpPredicate predicate, const APInt &a, const APInt &b,
                        bool isUnsigned) {
  switch (predicate) {
  case CmpPredicate::EQ:
    return a == b;
  case CmpPredicate::NE:
    return a != b;
  case CmpPredicate::LT:
    return isUnsigned ? a.ult(b) : a.slt(b);
  case CmpPredicate::LE:
    return isUnsigned ? a.ule(b) : a.sle(b);
  case CmpPredicate::GT:
    return isUnsigned ? a.ugt(b) : a.sgt(b);
  case CmpPredicate::GE:
    return isUnsigned ? a.uge(b) : a.sge(b);
  }
  return false;
}

OpFoldResult CmpOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr lhs = foldable(adaptor.getLhs(), getType());
  DenseElementsAttr rhs = foldable(adaptor.getRhs(), getType());
  if (!lhs || !rhs)
    return {};
  Type elem = lhs.getElementType();
  bool isFloat = isa<FloatType>(elem);
  bool isUnsigned = elem.isUnsignedInteger() || elem.isInteger(1);
  if (!isFloat && !elem.isInteger())
    return {};
  CmpPredicate predicate = getPredicate();
  SmallVector<bool> result;
  SmallVector<int64_t> index;
  auto pos = [&](DenseElementsAttr a) {
    return a.isSplat() ? 0 : broadcastPosition(index, a.getType().getShape());
  };
  if (isFloat) {
    SmallVector<APFloat> a = llvm::to_vector(lhs.getValues<APFloat>());
    SmallVector<APFloat> b = llvm::to_vector(rhs.getValues<APFloat>());
    for (int64_t flat = 0, e = getType().getNumElements(); flat < e; ++flat) {
      unflatten(flat, getType().getShape(), index);
      result.push_back(compareFloats(predicate, a[pos(lhs)], b[pos(rhs)]));
    }
  } else {
    SmallVector<APInt> a = llvm::to_vector(lhs.getValues<APInt>());
    SmallVector<APInt> b = llvm::to_vector(rhs.getValues<APInt>());
    for (int64_t flat = 0, e = getType().getNumElements(); flat < e; ++flat) {
      unflatten(flat, getType().getShape(), index);
      result.push_back(
          compareInts(predicate, a[pos(lhs)], b[pos(rhs)], isUnsigned));
    }
  }
  return DenseElementsAttr::get(getType(), result);
}

//===----------------------------------------------------------------------===//
// Casts between integers and floats
//===----------------------------------------------------------------------===//

Attribute mlir::tandem::foldIntFloatCast(CastOp op, Attribute input) {
  DenseElementsAttr dense = foldable(input, op.getType());
  if (!dense)
    return {};
  Type from = dense.getElementType(), to = op.getType().getElementType();
  if (from.isInteger() && isa<FloatType>(to)) {
    bool isUnsigned = from.isUnsignedInteger() || from.isInteger(1);
    const llvm::fltSemantics &sem = cast<FloatType>(to).getFloatSemantics();
    return dense.mapValues(to, [&](const APInt &v) {
      APFloat r(sem);
      r.convertFromAPInt(v, /*IsSigned=*/!isUnsigned,
                         APFloat::rmNearestTiesToEven);
      return r.bitcastToAPInt();
    });
  }
  if (isa<FloatType>(from) && to.isInteger()) {
    // Truncation toward zero; bool is a zero test. NaN and values out of
    // the target's range are undefined in ONNX, so they do not fold.
    unsigned width = to.getIntOrFloatBitWidth();
    bool isUnsigned = to.isUnsignedInteger();
    bool ok = true;
    SmallVector<APInt> result;
    for (APFloat v : dense.getValues<APFloat>()) {
      if (width == 1) {
        result.emplace_back(1, static_cast<uint64_t>(!v.isZero()));
        continue;
      }
      APSInt i(width, isUnsigned);
      bool exact = false;
      if (v.isNaN() || v.convertToInteger(i, APFloat::rmTowardZero, &exact) &
                           APFloat::opInvalidOp) {
        ok = false;
        break;
      }
      result.push_back(i);
    }
    if (!ok)
      return {};
    if (dense.isSplat())
      return DenseElementsAttr::get(op.getType(), result.front());
    return DenseElementsAttr::get(op.getType(), result);
  }
  return {};
}
