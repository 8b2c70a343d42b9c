//===- TandemOps.cpp - tandem op type inference and verifiers -------------===//
//
// Result type inference (with precise, located diagnostics) and verifiers of
// the tandem ops. Folders and canonicalisations live in TandemFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"

#include "dialects/Tandem/IR/DeviceName.h"
#include "dialects/Tandem/IR/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// Streams a shape diagnostic "'<op>' op <message>" at a location when one is
/// given, and swallows it when inference runs speculatively without one.
/// Converts to failure().
class ShapeError {
public:
  ShapeError(std::optional<Location> loc, StringRef opName) {
    if (loc) {
      diag.emplace(emitError(*loc));
      *diag << "'" << opName << "' op ";
    }
  }
  template <typename T> ShapeError &operator<<(T &&value) {
    if (diag)
      *diag << std::forward<T>(value);
    return *this;
  }
  operator LogicalResult() const { return failure(); }

private:
  std::optional<InFlightDiagnostic> diag;
};

/// Formats a list of integers as "[a, b, c]".
std::string fmt(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return s;
}

RankedTensorType rankedType(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

/// Checks that an attribute array has `expected` entries.
LogicalResult checkArraySize(std::optional<Location> loc, StringRef opName,
                             StringRef attrName, ArrayRef<int64_t> values,
                             size_t expected) {
  if (values.size() == expected)
    return success();
  return ShapeError(loc, opName)
         << "'" << attrName << "' must have " << expected << " entries, got "
         << values.size() << " (" << fmt(values) << ")";
}

/// Checks that every entry of an attribute array is at least `min`.
LogicalResult checkAtLeast(std::optional<Location> loc, StringRef opName,
                           StringRef attrName, ArrayRef<int64_t> values,
                           int64_t min) {
  if (llvm::all_of(values, [&](int64_t v) { return v >= min; }))
    return success();
  return ShapeError(loc, opName)
         << "'" << attrName << "' entries must be "
         << (min == 0 ? "non-negative" : "positive") << ", got " << fmt(values);
}

/// Checks that `axis` is within [0, rank).
LogicalResult checkAxis(std::optional<Location> loc, StringRef opName,
                        int64_t axis, int64_t rank) {
  if (axis >= 0 && axis < rank)
    return success();
  return ShapeError(loc, opName)
         << "axis " << axis << " is out of range for rank " << rank
         << " (expected 0 <= axis < " << rank << ")";
}

LogicalResult checkRank(std::optional<Location> loc, StringRef opName,
                        StringRef what, RankedTensorType type, int64_t rank) {
  if (type.getRank() == rank)
    return success();
  return ShapeError(loc, opName)
         << "expects a rank-" << rank << " " << what << ", got " << type;
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared inference entry points and traits
//===----------------------------------------------------------------------===//

/// Runs `check(type, "operand" or "result", index)` on every operand type,
/// then every result type, of `op`; stops at the first failure.
static LogicalResult
checkEachType(Operation *op,
              function_ref<LogicalResult(Type, StringRef, unsigned)> check) {
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

LogicalResult mlir::tandem::detail::verifyShapeSizes(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      return success();
    Type element = shaped.getElementType();
    int64_t bits =
        element.isIntOrFloat() ? int64_t(element.getIntOrFloatBitWidth()) : 64;
    if (shape::sizeInBytesFits(shaped.getShape(),
                               std::max<int64_t>(1, (bits + 7) / 8)))
      return success();
    return op->emitOpError()
           << kind << " #" << index << " has type " << type
           << ", whose size in bytes overflows int64 (at most "
           << std::numeric_limits<int64_t>::max() << " bytes)";
  };
  return checkEachType(op, check);
}

LogicalResult mlir::tandem::detail::verifyStaticShapes(Operation *op) {
  if (failed(verifyShapeSizes(op)))
    return failure();
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank() || shaped.hasStaticShape())
      return success();
    return op->emitOpError()
           << "dynamic dimensions are not supported yet: " << kind << " #"
           << index << " has type " << type
           << "; bind dynamic dims to static sizes (e.g. tandemc "
              "--input-shape)";
  };
  return checkEachType(op, check);
}

LogicalResult mlir::tandem::inferBroadcastResultType(
    std::optional<Location> loc, StringRef opName, ValueRange operands,
    Type elementType, SmallVectorImpl<Type> &types) {
  if (operands.empty())
    return ShapeError(loc, opName) << "expects at least one operand";
  RankedTensorType first = rankedType(operands.front());
  if (!first)
    return ShapeError(loc, opName) << "expects ranked tensor operands";
  shape::Shape result(first.getShape());
  for (auto [i, operand] : llvm::enumerate(operands.drop_front())) {
    RankedTensorType type = rankedType(operand);
    if (!type)
      return ShapeError(loc, opName) << "expects ranked tensor operands";
    std::optional<shape::Shape> next =
        shape::broadcast(result, type.getShape());
    if (!next) {
      ShapeError err(loc, opName);
      err << "operands are not broadcast-compatible: ";
      llvm::interleave(
          operands.take_front(i + 2), [&](Value v) { err << v.getType(); },
          [&] { err << " vs "; });
      return err;
    }
    result = *next;
  }
  types.push_back(RankedTensorType::get(
      result, elementType ? elementType : first.getElementType()));
  return success();
}

LogicalResult mlir::tandem::inferReduceResultType(
    std::optional<Location> loc, StringRef opName, Value input,
    ArrayRef<int64_t> axes, bool keepDims, SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(input);
  if (!type)
    return ShapeError(loc, opName) << "expects a ranked tensor operand";
  if (axes.empty())
    return ShapeError(loc, opName) << "'axes' must not be empty";
  if (!shape::areSortedUniqueAxes(axes, type.getRank()))
    return ShapeError(loc, opName) << "'axes' " << fmt(axes)
                                   << " must be sorted, unique and within [0, "
                                   << type.getRank() << ") for input " << type;
  types.push_back(RankedTensorType::get(
      shape::reduce(type.getShape(), axes, keepDims), type.getElementType()));
  return success();
}

LogicalResult mlir::tandem::inferArgReduceResultType(
    std::optional<Location> loc, StringRef opName, Value input, int64_t axis,
    bool keepDims, SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(input);
  if (!type)
    return ShapeError(loc, opName) << "expects a ranked tensor operand";
  if (failed(checkAxis(loc, opName, axis, type.getRank())))
    return failure();
  if (type.getDimSize(axis) == 0)
    return ShapeError(loc, opName)
           << "reduces axis " << axis << " of size 0 of " << type
           << ", which has no element to pick";
  types.push_back(
      RankedTensorType::get(shape::reduce(type.getShape(), {axis}, keepDims),
                            IntegerType::get(type.getContext(), 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// Producers and shape ops
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto value = dyn_cast_or_null<ElementsAttr>(adaptor.getValueAttr());
  if (!value)
    return ShapeError(loc, getOperationName())
           << "requires an elements attribute 'value'";
  types.push_back(value.getType());
  return success();
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  ArrayRef<int64_t> target = adaptor.getShape();
  if (failed(checkAtLeast(loc, name, "shape", target, 0)))
    return failure();
  // numElements is -1 when the product overflows int64.
  int64_t from = shape::numElements(input.getShape());
  int64_t to = shape::numElements(target);
  if (to < 0)
    return ShapeError(loc, name)
           << "'shape' " << fmt(target) << " has more than "
           << std::numeric_limits<int64_t>::max() << " elements";
  if (to != from)
    return ShapeError(loc, name)
           << "cannot reshape " << input << " (" << from << " elements) to "
           << fmt(target) << " (" << to << " elements)";
  types.push_back(RankedTensorType::get(target, input.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != input.getRank())
    return ShapeError(loc, name) << "'perm' " << fmt(perm) << " has "
                                 << perm.size() << " entries but the input "
                                 << input << " has rank " << input.getRank();
  if (!shape::isPermutation(perm))
    return ShapeError(loc, name)
           << "'perm' " << fmt(perm) << " is not a permutation of [0, "
           << perm.size() << ")";
  types.push_back(RankedTensorType::get(shape::permute(input.getShape(), perm),
                                        input.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return ShapeError(loc, name) << "expects at least one input";
  RankedTensorType first = rankedType(inputs.front());
  if (!first)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, name, axis, first.getRank())))
    return failure();
  shape::Shape result(first.getShape());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = rankedType(input);
    if (!type || type.getRank() != first.getRank())
      return ShapeError(loc, name)
             << "input #" << i + 1 << " has type " << input.getType()
             << " but input #0 has rank " << first.getRank();
    for (int64_t d = 0; d < first.getRank(); ++d) {
      if (d == axis)
        continue;
      if (type.getDimSize(d) != first.getDimSize(d))
        return ShapeError(loc, name)
               << "input #" << i + 1 << " (" << type
               << ") differs from input #0 (" << first << ") in dimension " << d
               << ", which is not the concatenation axis " << axis;
    }
    if (__builtin_add_overflow(result[axis], type.getDimSize(axis),
                               &result[axis]))
      return ShapeError(loc, name)
             << "the concatenated dimension " << axis
             << " overflows int64 at input #" << i + 1 << " (" << type << ")";
  }
  types.push_back(RankedTensorType::get(result, first.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  size_t rank = input.getRank();
  ArrayRef<int64_t> starts = adaptor.getStarts(), limits = adaptor.getLimits(),
                    steps = adaptor.getSteps();
  if (failed(checkArraySize(loc, name, "starts", starts, rank)) ||
      failed(checkArraySize(loc, name, "limits", limits, rank)) ||
      failed(checkArraySize(loc, name, "steps", steps, rank)) ||
      failed(checkAtLeast(loc, name, "steps", steps, 1)))
    return failure();
  shape::Shape result;
  for (size_t d = 0; d < rank; ++d) {
    if (starts[d] < 0 || starts[d] > limits[d] ||
        limits[d] > input.getDimSize(d))
      return ShapeError(loc, name)
             << "slice [" << starts[d] << ", " << limits[d] << ") of dimension "
             << d << " is outside [0, " << input.getDimSize(d) << "] of input "
             << input;
    result.push_back(llvm::divideCeil(limits[d] - starts[d], steps[d]));
  }
  types.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  size_t rank = input.getRank();
  ArrayRef<int64_t> low = adaptor.getPadsLow(), high = adaptor.getPadsHigh();
  if (failed(checkArraySize(loc, name, "pads_low", low, rank)) ||
      failed(checkArraySize(loc, name, "pads_high", high, rank)) ||
      failed(checkAtLeast(loc, name, "pads_low", low, 0)) ||
      failed(checkAtLeast(loc, name, "pads_high", high, 0)))
    return failure();
  shape::Shape result;
  for (size_t d = 0; d < rank; ++d) {
    int64_t dim = input.getDimSize(d);
    if (adaptor.getMode() == PadMode::Reflect &&
        (low[d] >= dim || high[d] >= dim))
      return ShapeError(loc, name)
             << "reflect padding of dimension " << d << " by (" << low[d]
             << ", " << high[d] << ") must be smaller than its size " << dim;
    int64_t padded;
    if (__builtin_add_overflow(dim, low[d], &padded) ||
        __builtin_add_overflow(padded, high[d], &padded))
      return ShapeError(loc, name)
             << "padding dimension " << d << " (" << dim << ") by (" << low[d]
             << ", " << high[d] << ") overflows int64";
    if ((adaptor.getMode() == PadMode::Edge ||
         adaptor.getMode() == PadMode::Wrap) &&
        dim == 0 && padded > 0)
      return ShapeError(loc, name) << stringifyPadMode(adaptor.getMode())
                                   << " padding of empty dimension " << d;
    result.push_back(padded);
  }
  types.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (!data || !indices)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, name, axis, data.getRank())))
    return failure();
  shape::Shape result(data.getShape().take_front(axis));
  llvm::append_range(result, indices.getShape());
  llvm::append_range(result, data.getShape().drop_front(axis + 1));
  types.push_back(RankedTensorType::get(result, data.getElementType()));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (!data || !indices)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  if (failed(checkRank(loc, name, "indices tensor (the rank of data)", indices,
                       data.getRank())))
    return failure();
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, name, axis, data.getRank())))
    return failure();
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > data.getDimSize(d))
      return ShapeError(loc, name)
             << "indices " << indices << " are larger than data " << data
             << " in dim " << d << " (only the axis dim " << axis
             << " may differ)";
  types.push_back(indices.clone(data.getElementType()));
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, name, axis, input.getRank())))
    return failure();
  int64_t k = adaptor.getK(), dim = input.getDimSize(axis);
  if (k < 0 || k > dim)
    return ShapeError(loc, name)
           << "k = " << k << " must lie in [0, " << dim
           << "], the size of axis " << axis << " of " << input;
  shape::Shape shape(input.getShape());
  shape[axis] = k;
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (!data || !indices)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  int64_t r = data.getRank(), q = indices.getRank();
  int64_t b = adaptor.getBatchDims();
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return ShapeError(loc, name)
           << "batch_dims = " << b << " must lie in [0, " << std::min(r, q)
           << ") for data " << data << " and indices " << indices;
  int64_t m = indices.getDimSize(q - 1);
  if (m < 1 || m > r - b)
    return ShapeError(loc, name)
           << "the last dim of indices " << indices << " (" << m
           << ") must lie in [1, " << r - b << "] for data " << data
           << " and batch_dims = " << b;
  for (int64_t d = 0; d < b; ++d)
    if (data.getDimSize(d) != indices.getDimSize(d))
      return ShapeError(loc, name)
             << "batch dim " << d << " differs: " << data.getDimSize(d)
             << " in data " << data << ", " << indices.getDimSize(d)
             << " in indices " << indices;
  shape::Shape result(indices.getShape().drop_back());
  llvm::append_range(result, data.getShape().drop_front(b + m));
  types.push_back(RankedTensorType::get(result, data.getElementType()));
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, getOperationName())
           << "expects a ranked tensor operand";
  if (failed(checkAxis(loc, getOperationName(), adaptor.getAxis(),
                       input.getRank())))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input || !adaptor.getToAttr())
    return ShapeError(loc, getOperationName())
           << "expects a ranked tensor operand and a 'to' element type";
  types.push_back(input.clone(adaptor.getTo()));
  return success();
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  ArrayRef<int64_t> target = adaptor.getShape();
  if (failed(checkAtLeast(loc, name, "shape", target, 0)))
    return failure();
  if (!shape::broadcastsTo(input.getShape(), target))
    return ShapeError(loc, name)
           << "cannot broadcast " << input << " to " << fmt(target);
  types.push_back(RankedTensorType::get(target, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType filter = rankedType(adaptor.getFilter());
  if (!input || !filter)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  StringRef layout = adaptor.getLayout();
  if (layout != "NCHW" && layout != "NHWC")
    return ShapeError(loc, name)
           << "'layout' must be \"NCHW\" or \"NHWC\", got \"" << layout << "\"";
  bool last = layout == "NHWC";
  if (failed(
          checkRank(loc, name, last ? "NHWC input" : "NCHW input", input, 4)) ||
      failed(checkRank(loc, name, last ? "OHWI filter" : "OIHW filter", filter,
                       4)))
    return failure();
  // Channel and first spatial dimensions of the layout.
  int64_t cd = last ? 3 : 1, sd = last ? 1 : 2;
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  if (failed(checkArraySize(loc, name, "strides", strides, 2)) ||
      failed(checkArraySize(loc, name, "pads", pads, 4)) ||
      failed(checkArraySize(loc, name, "dilations", dilations, 2)) ||
      failed(checkAtLeast(loc, name, "strides", strides, 1)) ||
      failed(checkAtLeast(loc, name, "dilations", dilations, 1)) ||
      failed(checkAtLeast(loc, name, "pads", pads, 0)))
    return failure();
  int64_t groups = adaptor.getGroups();
  if (groups < 1)
    return ShapeError(loc, name) << "'groups' must be positive, got " << groups;
  int64_t n = input.getDimSize(0), c = input.getDimSize(cd);
  int64_t o = filter.getDimSize(0), cPerGroup = filter.getDimSize(cd);
  int64_t channels;
  if (__builtin_mul_overflow(cPerGroup, groups, &channels) || channels != c)
    return ShapeError(loc, name)
           << "input channels (" << c << ") must equal filter channels ("
           << cPerGroup << ") times groups (" << groups << "); input " << input
           << ", filter " << filter;
  if (o % groups != 0)
    return ShapeError(loc, name)
           << "output channels (" << o << ") must be divisible by groups ("
           << groups << ")";
  if (Value bias = adaptor.getBias()) {
    RankedTensorType biasType = rankedType(bias);
    if (!biasType || biasType.getRank() != 1 || biasType.getDimSize(0) != o)
      return ShapeError(loc, name)
             << "bias must have shape [" << o << "] (the filter's output "
             << "channels), got " << bias.getType();
  }
  shape::Shape result = {n};
  if (!last)
    result.push_back(o);
  for (int d = 0; d < 2; ++d) {
    int64_t size = shape::windowOutputSize(
        input.getDimSize(sd + d), filter.getDimSize(sd + d), strides[d],
        pads[d], pads[d + 2], dilations[d]);
    if (size <= 0)
      return ShapeError(loc, name)
             << "the " << (d == 0 ? "height" : "width") << " kernel ("
             << filter.getDimSize(sd + d) << ", dilation " << dilations[d]
             << ") does not fit the padded input (" << input.getDimSize(sd + d)
             << " + " << pads[d] << " + " << pads[d + 2] << ")";
    result.push_back(size);
  }
  if (last)
    result.push_back(o);
  types.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType lhs = rankedType(adaptor.getLhs());
  RankedTensorType rhs = rankedType(adaptor.getRhs());
  if (!lhs || !rhs)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return ShapeError(loc, name) << "operands must have rank 2 or more, got "
                                 << lhs << " and " << rhs;
  int64_t k1 = lhs.getShape().back();
  int64_t k2 = rhs.getShape()[rhs.getRank() - 2];
  if (k1 != k2)
    return ShapeError(loc, name)
           << "contraction dimensions differ: lhs " << lhs << " has K = " << k1
           << " but rhs " << rhs << " has K = " << k2;
  std::optional<shape::Shape> batch = shape::broadcast(
      lhs.getShape().drop_back(2), rhs.getShape().drop_back(2));
  if (!batch)
    return ShapeError(loc, name) << "batch dimensions of " << lhs << " and "
                                 << rhs << " are not broadcast-compatible";
  shape::Shape result = *batch;
  result.push_back(lhs.getShape()[lhs.getRank() - 2]);
  result.push_back(rhs.getShape().back());
  types.push_back(RankedTensorType::get(result, lhs.getElementType()));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType a = rankedType(adaptor.getA());
  RankedTensorType b = rankedType(adaptor.getB());
  if (!a || !b)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  if (failed(checkRank(loc, name, "A", a, 2)) ||
      failed(checkRank(loc, name, "B", b, 2)))
    return failure();
  bool ta = adaptor.getTransA(), tb = adaptor.getTransB();
  int64_t m = a.getDimSize(ta ? 1 : 0), ka = a.getDimSize(ta ? 0 : 1);
  int64_t kb = b.getDimSize(tb ? 1 : 0), n = b.getDimSize(tb ? 0 : 1);
  if (ka != kb)
    return ShapeError(loc, name)
           << "contraction dimensions differ: op(A) is " << m << "x" << ka
           << " but op(B) is " << kb << "x" << n << " (trans_a = " << ta
           << ", trans_b = " << tb << ")";
  if (Value c = adaptor.getC()) {
    RankedTensorType cType = rankedType(c);
    if (!cType || !shape::broadcastsTo(cType.getShape(), {m, n}))
      return ShapeError(loc, name)
             << "C " << c.getType() << " does not broadcast to the result ["
             << m << ", " << n << "]";
  }
  types.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

LogicalResult BiasAddOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType bias = rankedType(adaptor.getBias());
  if (!input || !bias)
    return ShapeError(loc, name) << "expects ranked tensor operands";
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, name, axis, input.getRank())))
    return failure();
  if (bias.getRank() != 1 || bias.getDimSize(0) != input.getDimSize(axis))
    return ShapeError(loc, name)
           << "bias must have shape [" << input.getDimSize(axis)
           << "] (dimension " << axis << " of " << input << "), got " << bias;
  types.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult CmpOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferBroadcastResultType(loc, getOperationName(),
                                  {adaptor.getLhs(), adaptor.getRhs()},
                                  IntegerType::get(ctx, 1), types);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  RankedTensorType onTrue = rankedType(adaptor.getOnTrue());
  if (!onTrue)
    return ShapeError(loc, getOperationName())
           << "expects ranked tensor operands";
  return inferBroadcastResultType(
      loc, getOperationName(),
      {adaptor.getCondition(), adaptor.getOnTrue(), adaptor.getOnFalse()},
      onTrue.getElementType(), types);
}

LogicalResult ModOp::verify() {
  Type element = getType().getElementType();
  if (isa<FloatType>(element) && !getFmod())
    return emitOpError() << "requires 'fmod' = true for float elements ("
                         << element << "), as ONNX Mod does";
  return success();
}

LogicalResult ClipOp::verify() {
  std::optional<APFloat> min = getMin(), max = getMax();
  if (min && max && max->compare(*min) == APFloat::cmpLessThan)
    return emitOpError() << "'min' (" << min->convertToDouble()
                         << ") must not exceed 'max' ("
                         << max->convertToDouble() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

/// Shared inference of max_pool2d and avg_pool2d.
static LogicalResult
inferPool2DType(std::optional<Location> loc, StringRef name, Value inputValue,
                ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                bool ceilMode, SmallVectorImpl<Type> &types,
                StringRef layout = "NCHW") {
  RankedTensorType input = rankedType(inputValue);
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  if (layout != "NCHW" && layout != "NHWC")
    return ShapeError(loc, name)
           << "'layout' must be \"NCHW\" or \"NHWC\", got \"" << layout << "\"";
  bool last = layout == "NHWC";
  // The first spatial dimension.
  int64_t sd = last ? 1 : 2;
  if (failed(
          checkRank(loc, name, last ? "NHWC input" : "NCHW input", input, 4)) ||
      failed(checkArraySize(loc, name, "kernel_shape", kernel, 2)) ||
      failed(checkArraySize(loc, name, "strides", strides, 2)) ||
      failed(checkArraySize(loc, name, "pads", pads, 4)) ||
      failed(checkArraySize(loc, name, "dilations", dilations, 2)) ||
      failed(checkAtLeast(loc, name, "kernel_shape", kernel, 1)) ||
      failed(checkAtLeast(loc, name, "strides", strides, 1)) ||
      failed(checkAtLeast(loc, name, "dilations", dilations, 1)) ||
      failed(checkAtLeast(loc, name, "pads", pads, 0)))
    return failure();
  shape::Shape result = {input.getDimSize(0)};
  if (!last)
    result.push_back(input.getDimSize(1));
  for (int d = 0; d < 2; ++d) {
    if (pads[d] >= kernel[d] || pads[d + 2] >= kernel[d])
      return ShapeError(loc, name)
             << "pads " << fmt(pads) << " must be smaller than the kernel "
             << fmt(kernel);
    int64_t size =
        shape::windowOutputSize(input.getDimSize(sd + d), kernel[d], strides[d],
                                pads[d], pads[d + 2], dilations[d], ceilMode);
    if (size <= 0)
      return ShapeError(loc, name)
             << "the " << (d == 0 ? "height" : "width") << " window ("
             << kernel[d] << ") does not fit the padded input ("
             << input.getDimSize(sd + d) << " + " << pads[d] << " + "
             << pads[d + 2] << ")";
    result.push_back(size);
  }
  if (last)
    result.push_back(input.getDimSize(3));
  types.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferPool2DType(loc, getOperationName(), adaptor.getInput(),
                         adaptor.getKernelShape(), adaptor.getStrides(),
                         adaptor.getPads(), adaptor.getDilations(),
                         adaptor.getCeilMode(), types, adaptor.getLayout());
}

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  const int64_t unitDilations[] = {1, 1};
  ArrayRef<int64_t> dilations = adaptor.getDilations();
  return inferPool2DType(
      loc, getOperationName(), adaptor.getInput(), adaptor.getKernelShape(),
      adaptor.getStrides(), adaptor.getPads(),
      dilations.empty() ? ArrayRef<int64_t>(unitDilations) : dilations,
      adaptor.getCeilMode(), types, adaptor.getLayout());
}

LogicalResult GlobalAvgPoolOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input || input.getRank() < 3)
    return ShapeError(loc, getOperationName())
           << "expects an input of rank 3 or more (N x C x spatial...), got "
           << adaptor.getInput().getType();
  shape::Shape result(input.getRank(), 1);
  result[0] = input.getDimSize(0);
  result[1] = input.getDimSize(1);
  types.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input || input.getRank() < 2)
    return ShapeError(loc, name)
           << "expects an input of rank 2 or more (N x C x ...), got "
           << adaptor.getInput().getType();
  int64_t axis = adaptor.getAxis();
  if (axis < 1 || axis >= input.getRank())
    return ShapeError(loc, name)
           << "has channel axis " << axis << ", which must be a dimension of "
           << input << " past the batch (1 to " << input.getRank() - 1 << ")";
  int64_t channels = input.getDimSize(axis);
  const std::pair<StringRef, Value> params[] = {
      {"scale", adaptor.getScale()},
      {"bias", adaptor.getBias()},
      {"mean", adaptor.getMean()},
      {"variance", adaptor.getVariance()}};
  for (auto [paramName, value] : params) {
    RankedTensorType type = rankedType(value);
    if (!type || type.getRank() != 1 || type.getDimSize(0) != channels)
      return ShapeError(loc, name)
             << "'" << paramName << "' must have shape [" << channels
             << "] (the channels of " << input << "), got " << value.getType();
  }
  types.push_back(input);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, name) << "expects a ranked tensor operand";
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, name, axis, input.getRank())))
    return failure();
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  for (Value param : {adaptor.getScale(), adaptor.getBias()}) {
    if (!param)
      continue;
    RankedTensorType type = rankedType(param);
    if (!type || type.getShape() != normalized ||
        type.getElementType() != input.getElementType())
      return ShapeError(loc, name)
             << "scale and bias must have type "
             << RankedTensorType::get(normalized, input.getElementType())
             << " (dimensions " << axis << ".. of " << input << "), got "
             << param.getType();
  }
  types.push_back(input);
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return ShapeError(loc, getOperationName())
           << "expects a ranked tensor operand";
  if (failed(checkAxis(loc, getOperationName(), adaptor.getAxis(),
                       input.getRank())))
    return failure();
  types.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult FusionOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the fusion has "
                         << getInputs().size() << " inputs";
  for (auto [i, arg, input] : llvm::enumerate(body.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << " but input #" << i
                           << " has type " << input.getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "body must end with 'tandem.yield'";
  if (yield.getValues().getTypes() != getResultTypes()) {
    InFlightDiagnostic diag = emitOpError() << "yields (";
    llvm::interleaveComma(yield.getValues().getTypes(), diag);
    diag << ") but its results are (";
    llvm::interleaveComma(getResultTypes(), diag);
    return diag << ")";
  }
  if (getNumResults() == 0)
    return emitOpError() << "must return at least one value";
  if (getKind() != FusionKind::MultiOutput && getNumResults() != 1)
    return emitOpError() << "of kind '" << stringifyFusionKind(getKind())
                         << "' must return exactly one value, got "
                         << getNumResults() << "; use 'multi_output'";
  if (getName().empty())
    return emitOpError() << "requires a non-empty name";
  for (Operation &op : body.without_terminator())
    if (isa<FusionOp, TransferOp>(op))
      return emitOpError() << "must not contain '" << op.getName() << "'";
  return success();
}

LogicalResult TransferOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  for (Value input : adaptor.getInputs())
    types.push_back(input.getType());
  return success();
}

LogicalResult TransferOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  if (getSrc() == getDst())
    return emitOpError() << "source and destination are the same device ("
                         << getSrc().getName() << ")";
  for (auto [i, input] : llvm::enumerate(getInputs()))
    if (Operation *producer = input.getDefiningOp())
      if (DeviceAttr placed = getDevice(producer); placed && placed != getSrc())
        return emitOpError()
               << "copies from " << getSrc().getName() << " but input #" << i
               << " is produced on " << placed.getName();
  return success();
}

//===----------------------------------------------------------------------===//
// Custom assembly
//===----------------------------------------------------------------------===//

/// Prints a device as its quoted TensorFlow-style name, "/device:GPU:0".
static void printDeviceRef(OpAsmPrinter &printer, Operation *,
                           DeviceAttr attr) {
  printer << '"' << attr.getName() << '"';
}

/// Parses a quoted device name. (A #tandem.device attribute would swallow
/// the op's trailing ': type' as its own type.)
static ParseResult parseDeviceRef(OpAsmParser &parser, DeviceAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  std::string text;
  if (parser.parseString(&text))
    return failure();
  std::optional<DeviceName> name = parseDeviceName(text);
  if (!name)
    return parser.emitError(loc)
           << "invalid device name '" << text << "': " << kDeviceNameHelp;
  attr = getDeviceAttr(parser.getContext(), *name);
  return success();
}

#define GET_OP_CLASSES
#include "dialects/Tandem/IR/TandemOps.cpp.inc"
