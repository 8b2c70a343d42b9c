//===- OnnxIndexOps.cpp - ONNX index and scan ops -> tandem ---------------===//
//
// ArgMax, ArgMin, GatherElements, GatherND, CumSum and TopK. Integer inputs
// known at import time (a mask's running sum that makes position ids) fold to
// known values like the shape ops do.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

/// ArgMax/ArgMin (opset 12/13): axis, keepdims and select_last_index
/// attributes; an i64 result.
template <typename ArgOp>
static LogicalResult convertArgReduce(GraphImporter &im) {
  FailureOr<RankedTensorType> type = im.requiredInputType(0);
  if (failed(type))
    return failure();
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", 0), type->getRank(), "axis");
  if (failed(axis))
    return failure();
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<ArgOp>(*x, *axis, im.attrInt("keepdims", 1) != 0,
                                   im.attrInt("select_last_index", 0) != 0));
  return success();
}

static LogicalResult convertGatherElements(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", 0), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t dim = type.getDimSize(*axis);
  const KnownInts *data = im.knownInput(0), *indices = im.knownInput(1);
  // Indices known now must lie in the axis; run-time ones are checked when
  // the model runs (docs/ErrorHandling.md).
  if (indices)
    for (int64_t idx : indices->values)
      if (idx < -dim || idx >= dim)
        return im.error() << "index " << idx << " is out of range for dim "
                          << *axis << " of size " << dim << " (valid: " << -dim
                          << " to " << dim - 1 << ")",
               failure();
  FailureOr<Value> x = im.input(0), idx = im.input(1);
  if (failed(x) || failed(idx))
    return failure();
  Value result = im.create<GatherElementsOp>(*x, *idx, *axis);
  if (!result)
    return failure();
  if (data && indices) {
    // Integer data (shape arithmetic) folds.
    SmallVector<int64_t> dataStrides = stridesOf(data->shape);
    SmallVector<int64_t> indexStrides = stridesOf(indices->shape);
    KnownInts r{indices->shape, {}, data->elementType};
    for (size_t flat = 0; flat < indices->values.size(); ++flat) {
      int64_t offset = 0;
      for (size_t d = 0; d < indices->shape.size(); ++d) {
        int64_t coord = (flat / indexStrides[d]) % indices->shape[d];
        if (static_cast<int64_t>(d) == *axis) {
          coord = indices->values[flat];
          if (coord < 0)
            coord += dim;
        }
        offset += coord * dataStrides[d];
      }
      r.values.push_back(data->values[offset]);
    }
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  im.setOutput(0, result);
  return success();
}

/// GatherND (opset 12/13): batch_dims; constant indices out of range are an
/// error at the node.
static LogicalResult convertGatherND(GraphImporter &im) {
  FailureOr<RankedTensorType> dataType = im.requiredInputType(0),
                              indicesType = im.requiredInputType(1);
  if (failed(dataType) || failed(indicesType))
    return failure();
  int64_t batch = im.attrInt("batch_dims", 0);
  FailureOr<Value> x = im.input(0), idx = im.input(1);
  if (failed(x) || failed(idx))
    return failure();
  Value result = im.create<GatherNDOp>(*x, *idx, batch);
  if (!result)
    return failure();
  if (const KnownInts *indices = im.knownInput(1)) {
    int64_t m = indices->shape.back();
    for (auto [flat, idx] : llvm::enumerate(indices->values)) {
      int64_t d = batch + static_cast<int64_t>(flat) % m;
      int64_t dim = dataType->getDimSize(d);
      if (idx < -dim || idx >= dim)
        return im.error() << "index " << idx << " is out of range for dim " << d
                          << " of size " << dim << " (valid: " << -dim << " to "
                          << dim - 1 << ")",
               failure();
    }
  }
  im.setOutput(0, result);
  return success();
}

/// CumSum (opset 11/14): the axis is an input that must be known at compile
/// time; exclusive and reverse attributes.
static LogicalResult convertCumSum(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  FailureOr<std::vector<int64_t>> axisValues = im.constantInts(1, "axis");
  if (failed(axisValues))
    return failure();
  if (axisValues->size() != 1)
    return im.error() << "input #1 (axis) must hold one value, got "
                      << axisValues->size(),
           failure();
  FailureOr<int64_t> axis =
      im.normalizeAxis(axisValues->front(), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  bool exclusive = im.attrInt("exclusive", 0) != 0;
  bool reverse = im.attrInt("reverse", 0) != 0;
  if (const KnownInts *x = im.knownInput(0)) {
    // Running sums of known integers (position ids from a constant mask)
    // fold; i32 sums wrap like the kernel's.
    KnownInts r = *x;
    int64_t n = x->shape[*axis];
    int64_t inner =
        shape::numElements(ArrayRef(x->shape).drop_front(*axis + 1));
    int64_t outer = shape::numElements(ArrayRef(x->shape).take_front(*axis));
    bool i32 = x->elementType.isInteger(32);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        uint64_t sum = 0;
        for (int64_t s = 0; s < n; ++s) {
          int64_t i = reverse ? n - 1 - s : s;
          size_t at = (o * n + i) * inner + in;
          uint64_t value = static_cast<uint64_t>(x->values[at]);
          if (!exclusive)
            sum += value;
          r.values[at] =
              i32 ? static_cast<int32_t>(sum) : static_cast<int64_t>(sum);
          if (exclusive)
            sum += value;
        }
      }
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<CumSumOp>(*x, *axis, exclusive, reverse));
  return success();
}

/// TopK (opset 11+): K is an input that must be known at compile time.
static LogicalResult convertTopK(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", -1), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  FailureOr<std::vector<int64_t>> kValues = im.constantInts(1, "K");
  if (failed(kValues))
    return failure();
  if (kValues->size() != 1)
    return im.error() << "input #1 (K) must hold one value, got "
                      << kValues->size(),
           failure();
  int64_t k = kValues->front(), dim = type.getDimSize(*axis);
  if (k < 0 || k > dim)
    return im.error() << "K = " << k << " must lie in [0, " << dim
                      << "], the size of axis " << *axis,
           failure();
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  Value values = im.create<TopKOp>(*x, k, *axis, im.attrInt("largest", 1) != 0,
                                   im.attrInt("sorted", 1) != 0);
  if (!values)
    return failure();
  im.setOutput(0, values);
  im.setOutput(1, values.getDefiningOp()->getResult(1));
  return success();
}

void mlir::tandem::onnx_import::registerIndexConverters(ConverterMap &map) {
  map["ArgMax"] = convertArgReduce<ArgMaxOp>;
  map["ArgMin"] = convertArgReduce<ArgMinOp>;
  map["GatherElements"] = convertGatherElements;
  map["GatherND"] = convertGatherND;
  map["CumSum"] = convertCumSum;
  map["TopK"] = convertTopK;
}
