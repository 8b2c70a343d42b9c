//===- TandemComputeFolds.cpp - constant folding of computing ops ---------===//
//
// Folders that evaluate reductions, arg_max/arg_min, top_k, cumsum, the
// index gathers, matmul and pad on small constants, as the lowering
// computes them. With the elementwise and data-movement folders
// (TandemFolds.cpp, TandemDataFolds.cpp) they let the importer evaluate the
// constant subgraphs exports build masks, position ids, window indices and
// shapes from, whatever ops those use.
//
// Floats compute in double and round once to the result's type; integers
// compute in their own width (wrapping) with their signedness.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"

#include "dialects/Tandem/IR/DataFolds.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::tandem;

/// Inputs with more elements, or evaluations of more multiply-adds, than
/// this are left to run time (a fold must stay cheap to compile).
static constexpr int64_t kComputeFoldWorkLimit = int64_t(1) << 20;

namespace {

/// The elements of a small dense constant in one of two forms: doubles for
/// floats, APInts (of the element width) for integers and bools.
struct Elements {
  ShapedType type;
  bool isFloat = false, isUnsigned = false;
  SmallVector<double> floats;
  SmallVector<APInt> ints;

  int64_t size() const { return type.getNumElements(); }
};

/// Whether `attr` is a dense constant (cheap: reads no element).
bool isDense(Attribute attr) {
  return isa_and_nonnull<DenseElementsAttr>(attr);
}

/// `attr` read as Elements when it is a dense constant of at most
/// kComputeFoldWorkLimit elements of a float or integer type, else nullopt.
std::optional<Elements> readElements(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kComputeFoldWorkLimit)
    return std::nullopt;
  Elements e;
  e.type = dense.getType();
  Type elem = dense.getElementType();
  if (isa<FloatType>(elem)) {
    e.isFloat = true;
    for (const APFloat &v : dense.getValues<APFloat>())
      e.floats.push_back(v.convertToDouble());
    return e;
  }
  if (!elem.isInteger())
    return std::nullopt;
  e.isUnsigned = elem.isUnsignedInteger() || elem.isInteger(1);
  llvm::append_range(e.ints, dense.getValues<APInt>());
  return e;
}

/// A constant of `type` from doubles (rounded to nearest even).
Attribute floatsAttr(ShapedType type, ArrayRef<double> values) {
  const llvm::fltSemantics &sem =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> result;
  for (double v : values) {
    APFloat f(v);
    bool losesInfo = false;
    f.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
    result.push_back(f);
  }
  return DenseElementsAttr::get(type, result);
}

/// The integer `v` of element `pos` as int64 with its signedness.
int64_t indexAt(const Elements &e, int64_t pos) {
  return e.isUnsigned ? static_cast<int64_t>(e.ints[pos].getZExtValue())
                      : e.ints[pos].getSExtValue();
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// The row-major multi-index of element `flat` of `shape`.
void unflatten(int64_t flat, ArrayRef<int64_t> shape,
               SmallVectorImpl<int64_t> &index) {
  index.assign(shape.size(), 0);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
}

/// Whether a result of `type` may fold.
bool smallResult(ShapedType type) {
  return type.hasStaticShape() && type.getNumElements() <= foldElementLimit();
}

/// Splits `shape` at `axis` into (outer, size, inner) element counts.
std::tuple<int64_t, int64_t, int64_t> splitAt(ArrayRef<int64_t> shape,
                                              int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1, e = shape.size(); d < e; ++d)
    inner *= shape[d];
  return {outer, shape[axis], inner};
}

/// a < b in the order of `e`'s element type (integers only).
bool intLess(const Elements &e, const APInt &a, const APInt &b) {
  return e.isUnsigned ? a.ult(b) : a.slt(b);
}

} // namespace

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {
enum class ReduceKind { Sum, Mean, Max, Min, Prod };
} // namespace

/// Reduces the small constant `input` over `axes` (sorted, unique) into a
/// constant of `resultType`, or null. NaN propagates through max and min
/// (as the lowering's maximumf/minimumf); an empty reduction is left to run
/// time.
static Attribute foldReduce(Attribute input, ArrayRef<int64_t> axes,
                            ShapedType resultType, ReduceKind kind) {
  if (!smallResult(resultType))
    return {};
  std::optional<Elements> in = readElements(input);
  if (!in)
    return {};
  ArrayRef<int64_t> shape = in->type.getShape();
  int64_t count = 1;
  for (int64_t a : axes)
    count *= shape[a];
  if (count == 0)
    return {};
  // The flat result position of each input element: the index without the
  // reduced dims (their size-1 dims under keepdims do not change it).
  int64_t outSize = in->size() / count;
  SmallVector<int64_t> outOf(in->size());
  SmallVector<int64_t> index;
  for (int64_t flat = 0; flat < in->size(); ++flat) {
    unflatten(flat, shape, index);
    int64_t pos = 0;
    for (int64_t d = 0, e = shape.size(); d < e; ++d)
      if (!llvm::is_contained(axes, d))
        pos = pos * shape[d] + index[d];
    outOf[flat] = pos;
  }
  if (in->isFloat) {
    double init = kind == ReduceKind::Prod  ? 1.0
                  : kind == ReduceKind::Max ? -INFINITY
                  : kind == ReduceKind::Min ? INFINITY
                                            : 0.0;
    SmallVector<double> acc(outSize, init);
    for (int64_t flat = 0; flat < in->size(); ++flat) {
      double &a = acc[outOf[flat]], x = in->floats[flat];
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean:
        a += x;
        break;
      case ReduceKind::Prod:
        a *= x;
        break;
      case ReduceKind::Max:
        a = (std::isnan(a) || std::isnan(x)) ? NAN : std::max(a, x);
        break;
      case ReduceKind::Min:
        a = (std::isnan(a) || std::isnan(x)) ? NAN : std::min(a, x);
        break;
      }
    }
    if (kind == ReduceKind::Mean)
      for (double &a : acc)
        a /= static_cast<double>(count);
    return floatsAttr(resultType, acc);
  }
  unsigned width = in->ints.front().getBitWidth();
  SmallVector<APInt> acc(outSize, APInt(width, kind == ReduceKind::Prod));
  SmallVector<bool> started(outSize, false);
  for (int64_t flat = 0; flat < in->size(); ++flat) {
    int64_t pos = outOf[flat];
    APInt &a = acc[pos];
    const APInt &x = in->ints[flat];
    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
      a += x;
      break;
    case ReduceKind::Prod:
      a *= x;
      break;
    case ReduceKind::Max:
      if (!started[pos] || intLess(*in, a, x))
        a = x;
      break;
    case ReduceKind::Min:
      if (!started[pos] || intLess(*in, x, a))
        a = x;
      break;
    }
    started[pos] = true;
  }
  if (kind == ReduceKind::Mean) {
    APInt n(width, count);
    for (APInt &a : acc)
      a = in->isUnsigned ? a.udiv(n) : a.sdiv(n);
  }
  return DenseElementsAttr::get(resultType, acc);
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Sum);
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Mean);
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Max);
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Min);
}
OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Prod);
}

//===----------------------------------------------------------------------===//
// Along one axis: arg_max, arg_min, top_k, cumsum
//===----------------------------------------------------------------------===//

/// Whether element `a` compares strictly greater than `b` (as the lowering's
/// ordered comparisons: false when either is NaN).
static bool greater(const Elements &e, int64_t a, int64_t b) {
  if (e.isFloat)
    return e.floats[a] > e.floats[b];
  return intLess(e, e.ints[b], e.ints[a]);
}

static bool equal(const Elements &e, int64_t a, int64_t b) {
  if (e.isFloat)
    return e.floats[a] == e.floats[b];
  return e.ints[a] == e.ints[b];
}

/// arg_max/arg_min of a small constant: the scan the lowering does, the
/// first element taken and a later one replacing the pick only when it
/// compares strictly better (or equal, with `last`).
static Attribute foldArgReduce(Attribute input, int64_t axis, bool isMax,
                               bool last, ShapedType resultType) {
  if (!smallResult(resultType))
    return {};
  std::optional<Elements> in = readElements(input);
  if (!in)
    return {};
  auto [outer, size, inner] = splitAt(in->type.getShape(), axis);
  if (size == 0)
    return {};
  SmallVector<APInt> result;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      auto at = [&](int64_t k) { return (o * size + k) * inner + i; };
      for (int64_t k = 1; k < size; ++k) {
        bool better = isMax ? greater(*in, at(k), at(best))
                            : greater(*in, at(best), at(k));
        if (better || (last && equal(*in, at(k), at(best))))
          best = k;
      }
      result.push_back(APInt(64, static_cast<uint64_t>(best)));
    }
  return DenseElementsAttr::get(resultType, result);
}

OpFoldResult ArgMaxOp::fold(FoldAdaptor adaptor) {
  return foldArgReduce(adaptor.getInput(), getAxis(), /*isMax=*/true,
                       getSelectLastIndex(), getType());
}
OpFoldResult ArgMinOp::fold(FoldAdaptor adaptor) {
  return foldArgReduce(adaptor.getInput(), getAxis(), /*isMax=*/false,
                       getSelectLastIndex(), getType());
}

LogicalResult TopKOp::fold(FoldAdaptor adaptor,
                           SmallVectorImpl<OpFoldResult> &results) {
  auto valuesType = cast<ShapedType>(getValues().getType());
  if (!smallResult(valuesType))
    return failure();
  std::optional<Elements> in = readElements(adaptor.getInput());
  if (!in)
    return failure();
  auto [outer, size, inner] = splitAt(in->type.getShape(), getAxis());
  int64_t k = getK();
  if (k > size)
    return failure();
  bool largest = getLargest();
  // onnxruntime's order: NaN above every number, ties by lower index.
  auto before = [&](int64_t a, int64_t b) {
    if (in->isFloat) {
      double x = in->floats[a], y = in->floats[b];
      bool xn = std::isnan(x), yn = std::isnan(y);
      if (xn || yn)
        return largest ? xn && !yn : !xn && yn;
      if (x != y)
        return largest ? x > y : x < y;
    } else if (in->ints[a] != in->ints[b]) {
      bool less = intLess(*in, in->ints[a], in->ints[b]);
      return largest ? !less : less;
    }
    return a < b;
  };
  SmallVector<int64_t> picks(valuesType.getNumElements());
  SmallVector<APInt> indices(picks.size(), APInt(64, 0));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      SmallVector<int64_t> row(size);
      for (int64_t j = 0; j < size; ++j)
        row[j] = (o * size + j) * inner + i;
      std::stable_sort(row.begin(), row.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        int64_t out = (o * k + j) * inner + i;
        picks[out] = row[j];
        indices[out] = APInt(64, (row[j] / inner) % size);
      }
    }
  if (in->isFloat) {
    SmallVector<double> values;
    for (int64_t p : picks)
      values.push_back(in->floats[p]);
    results.push_back(floatsAttr(valuesType, values));
  } else {
    SmallVector<APInt> values;
    for (int64_t p : picks)
      values.push_back(in->ints[p]);
    results.push_back(DenseElementsAttr::get(valuesType, values));
  }
  results.push_back(DenseElementsAttr::get(
      cast<ShapedType>(getIndices().getType()), indices));
  return success();
}

OpFoldResult CumSumOp::fold(FoldAdaptor adaptor) {
  std::optional<Elements> in = readElements(adaptor.getInput());
  if (!in || !smallResult(getType()))
    return {};
  auto [outer, size, inner] = splitAt(in->type.getShape(), getAxis());
  bool exclusive = getExclusive(), reverse = getReverse();
  SmallVector<double> floats(in->size());
  SmallVector<APInt> ints;
  if (!in->isFloat)
    ints.assign(
        in->size(),
        APInt(in->ints.empty() ? 64 : in->ints.front().getBitWidth(), 0));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double fsum = 0;
      APInt isum =
          ints.empty() ? APInt() : APInt(ints.front().getBitWidth(), 0);
      for (int64_t step = 0; step < size; ++step) {
        int64_t j = reverse ? size - 1 - step : step;
        int64_t pos = (o * size + j) * inner + i;
        if (in->isFloat) {
          if (!exclusive)
            fsum += in->floats[pos];
          floats[pos] = fsum;
          if (exclusive)
            fsum += in->floats[pos];
        } else {
          if (!exclusive)
            isum += in->ints[pos];
          ints[pos] = isum;
          if (exclusive)
            isum += in->ints[pos];
        }
      }
    }
  if (in->isFloat)
    return floatsAttr(getType(), floats);
  return DenseElementsAttr::get(getType(), ints);
}

//===----------------------------------------------------------------------===//
// Index gathers
//===----------------------------------------------------------------------===//

/// A constant of `resultType` whose element at each flat position is
/// element `source(flat)` of `data`; null when `source` declines (an index
/// out of range, left to the run-time check).
static Attribute
gatherElements(const Elements &data, ShapedType resultType,
               function_ref<std::optional<int64_t>(int64_t)> source) {
  SmallVector<double> floats;
  SmallVector<APInt> ints;
  for (int64_t flat = 0, e = resultType.getNumElements(); flat < e; ++flat) {
    std::optional<int64_t> pos = source(flat);
    if (!pos || *pos < 0 || *pos >= data.size())
      return {};
    if (data.isFloat)
      floats.push_back(data.floats[*pos]);
    else
      ints.push_back(data.ints[*pos]);
  }
  if (data.isFloat)
    return floatsAttr(resultType, floats);
  return DenseElementsAttr::get(resultType, ints);
}

/// `i` (negative counts from the end) into [0, size), or nullopt.
static std::optional<int64_t> wrapIndex(int64_t i, int64_t size) {
  if (i < 0)
    i += size;
  if (i < 0 || i >= size)
    return std::nullopt;
  return i;
}

OpFoldResult GatherElementsOp::fold(FoldAdaptor adaptor) {
  if (!smallResult(getType()) || !isDense(adaptor.getData()) ||
      !isDense(adaptor.getIndices()))
    return {};
  std::optional<Elements> data = readElements(adaptor.getData());
  std::optional<Elements> ids = readElements(adaptor.getIndices());
  if (!data || !ids)
    return {};
  ArrayRef<int64_t> dataShape = data->type.getShape();
  ArrayRef<int64_t> outShape = getType().getShape();
  SmallVector<int64_t> strides = stridesOf(dataShape);
  int64_t axis = getAxis();
  SmallVector<int64_t> index;
  return gatherElements(*data, getType(),
                        [&](int64_t flat) -> std::optional<int64_t> {
                          unflatten(flat, outShape, index);
                          std::optional<int64_t> i =
                              wrapIndex(indexAt(*ids, flat), dataShape[axis]);
                          if (!i)
                            return std::nullopt;
                          index[axis] = *i;
                          int64_t pos = 0;
                          for (auto [d, v] : llvm::enumerate(index))
                            pos += v * strides[d];
                          return pos;
                        });
}

OpFoldResult GatherNDOp::fold(FoldAdaptor adaptor) {
  if (!smallResult(getType()) || !isDense(adaptor.getData()) ||
      !isDense(adaptor.getIndices()))
    return {};
  std::optional<Elements> data = readElements(adaptor.getData());
  std::optional<Elements> ids = readElements(adaptor.getIndices());
  if (!data || !ids)
    return {};
  ArrayRef<int64_t> dataShape = data->type.getShape();
  ArrayRef<int64_t> idShape = ids->type.getShape();
  SmallVector<int64_t> strides = stridesOf(dataShape);
  int64_t batch = getBatchDims(), m = idShape.back();
  // Each result element: the index tuple of its row of `indices` (the
  // result's leading dims are indices.shape[:-1]), then the slice offset.
  int64_t sliceSize = 1;
  for (int64_t d = batch + m, e = dataShape.size(); d < e; ++d)
    sliceSize *= dataShape[d];
  int64_t tuplesPerBatch = 1;
  for (int64_t d = batch, e = idShape.size() - 1; d < e; ++d)
    tuplesPerBatch *= idShape[d];
  SmallVector<int64_t> batchIndex;
  SmallVector<int64_t> batchShape(dataShape.begin(), dataShape.begin() + batch);
  return gatherElements(
      *data, getType(), [&](int64_t flat) -> std::optional<int64_t> {
        int64_t tuple = flat / sliceSize, offset = flat % sliceSize;
        int64_t b = tuple / tuplesPerBatch;
        unflatten(b, batchShape, batchIndex);
        int64_t pos = offset;
        for (int64_t d = 0; d < batch; ++d)
          pos += batchIndex[d] * strides[d];
        for (int64_t j = 0; j < m; ++j) {
          std::optional<int64_t> i =
              wrapIndex(indexAt(*ids, tuple * m + j), dataShape[batch + j]);
          if (!i)
            return std::nullopt;
          pos += *i * strides[batch + j];
        }
        return pos;
      });
}

//===----------------------------------------------------------------------===//
// Matmul and pad
//===----------------------------------------------------------------------===//

OpFoldResult MatmulOp::fold(FoldAdaptor adaptor) {
  auto type = cast<ShapedType>(getType());
  if (!smallResult(type) || !isDense(adaptor.getLhs()) ||
      !isDense(adaptor.getRhs()))
    return {};
  std::optional<Elements> lhs = readElements(adaptor.getLhs());
  std::optional<Elements> rhs = readElements(adaptor.getRhs());
  if (!lhs || !rhs)
    return {};
  ArrayRef<int64_t> ls = lhs->type.getShape(), rs = rhs->type.getShape();
  ArrayRef<int64_t> os = type.getShape();
  int64_t rank = os.size(), m = os[rank - 2], n = os[rank - 1];
  int64_t k = ls.back();
  if (type.getNumElements() * k > kComputeFoldWorkLimit)
    return {};
  // The flat start of batch `index` (the result's leading dims) in an
  // operand of shape `s`, broadcast NumPy-style.
  auto batchStart = [&](ArrayRef<int64_t> index, ArrayRef<int64_t> s) {
    int64_t offset = (rank - 2) - (s.size() - 2), pos = 0;
    for (int64_t d = 0, e = s.size() - 2; d < e; ++d)
      pos = pos * s[d] + (s[d] == 1 ? 0 : index[offset + d]);
    return pos * s[s.size() - 2] * s.back();
  };
  SmallVector<int64_t> batchShape(os.begin(), os.end() - 2), index;
  int64_t batches = type.getNumElements() / std::max<int64_t>(m * n, 1);
  SmallVector<double> floats;
  SmallVector<APInt> ints;
  unsigned width = lhs->isFloat ? 0 : type.getElementTypeBitWidth();
  for (int64_t b = 0; b < batches; ++b) {
    unflatten(b, batchShape, index);
    int64_t l0 = batchStart(index, ls), r0 = batchStart(index, rs);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (lhs->isFloat) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc += lhs->floats[l0 + i * k + p] * rhs->floats[r0 + p * n + j];
          floats.push_back(acc);
        } else {
          APInt acc(width, 0);
          for (int64_t p = 0; p < k; ++p)
            acc += lhs->ints[l0 + i * k + p] * rhs->ints[r0 + p * n + j];
          ints.push_back(acc);
        }
      }
  }
  if (lhs->isFloat)
    return floatsAttr(type, floats);
  return DenseElementsAttr::get(type, ints);
}

/// The input position that padded position `i` reads on a dim of `size`
/// with `low` elements before it, for the non-constant modes, or nullopt
/// for a constant-mode pad element.
static std::optional<int64_t> padSource(PadMode mode, int64_t i, int64_t low,
                                        int64_t size) {
  int64_t j = i - low;
  if (j >= 0 && j < size)
    return j;
  switch (mode) {
  case PadMode::Constant:
    return std::nullopt;
  case PadMode::Edge:
    return std::clamp<int64_t>(j, 0, size - 1);
  case PadMode::Reflect:
    if (j < 0)
      j = -j;
    if (j > size - 1)
      j = 2 * (size - 1) - j;
    return j;
  case PadMode::Wrap:
    return ((j % size) + size) % size;
  }
  return std::nullopt;
}

OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  std::optional<Elements> in = readElements(adaptor.getInput());
  if (!in || !smallResult(getType()))
    return {};
  ArrayRef<int64_t> inShape = in->type.getShape();
  ArrayRef<int64_t> outShape = getType().getShape();
  if (getMode() != PadMode::Constant && in->size() == 0)
    return {};
  SmallVector<int64_t> strides = stridesOf(inShape), index;
  ArrayRef<int64_t> low = getPadsLow();
  double value = getValue().convertToDouble();
  SmallVector<double> floats;
  SmallVector<APInt> ints;
  unsigned width = getType().getElementTypeBitWidth();
  for (int64_t flat = 0, e = getType().getNumElements(); flat < e; ++flat) {
    unflatten(flat, outShape, index);
    std::optional<int64_t> pos = 0;
    for (int64_t d = 0, r = outShape.size(); d < r && pos; ++d) {
      std::optional<int64_t> j =
          padSource(getMode(), index[d], low[d], inShape[d]);
      pos = j ? std::optional<int64_t>(*pos + *j * strides[d]) : std::nullopt;
    }
    if (in->isFloat)
      floats.push_back(pos ? in->floats[*pos] : value);
    else
      ints.push_back(pos ? in->ints[*pos]
                         : APInt(width, static_cast<int64_t>(value),
                                 /*isSigned=*/true, /*implicitTrunc=*/true));
  }
  if (in->isFloat)
    return floatsAttr(getType(), floats);
  return DenseElementsAttr::get(getType(), ints);
}
