//===- OnnxQuantOps.cpp - ONNX quantize/dequantize ops -> tandem ----------===//
//
// QDQ models compute in float between DequantizeLinear and QuantizeLinear
// nodes; Tandem computes exactly that (no int8 fast path yet):
// DequantizeLinear is (float(x) - float(zero_point)) * scale and
// QuantizeLinear saturate(round_half_even(x / scale) + zero_point), with
// per-tensor or per-axis scales and zero points, as onnxruntime computes
// them. DynamicQuantizeLinear derives its scale and zero point from the
// input's range at run time.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

FailureOr<Value> mlir::tandem::onnx_import::alongAxis(GraphImporter &im,
                                                      Value v, int64_t rank,
                                                      int64_t axis,
                                                      int64_t axisSize,
                                                      StringRef what) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getNumElements() == 1)
    return Value(im.create<ReshapeOp>(v, ArrayRef<int64_t>{}));
  if (t.getRank() != 1 || t.getDimSize(0) != axisSize)
    return im.error() << what << " " << t
                      << " must be a scalar or have one value per element of "
                         "axis "
                      << axis << " (" << axisSize << ")",
           failure();
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = axisSize;
  return Value(im.create<ReshapeOp>(v, shape));
}

std::pair<double, double> mlir::tandem::onnx_import::intRange(Type t) {
  unsigned w = t.getIntOrFloatBitWidth();
  if (t.isUnsignedInteger())
    return {0.0, std::ldexp(1.0, w) - 1};
  return {-std::ldexp(1.0, w - 1), std::ldexp(1.0, w - 1) - 1};
}

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The axis and its size for per-axis parameters.
FailureOr<std::pair<int64_t, int64_t>>
quantAxis(GraphImporter &im, RankedTensorType x, Value scale) {
  if (im.attrInt("block_size", 0) != 0)
    return im.error() << "blocked quantisation (block_size) is not supported",
           failure();
  // A per-tensor scale ignores the axis.
  if (typeOf(scale).getNumElements() == 1)
    return std::make_pair(int64_t(0), int64_t(1));
  int64_t rank = std::max<int64_t>(x.getRank(), 1);
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", 1), rank, "axis");
  if (failed(axis))
    return failure();
  int64_t size = x.getRank() ? x.getDimSize(*axis) : 1;
  return std::make_pair(*axis, size);
}

LogicalResult convertDequantizeLinear(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), scale = im.input(1);
  FailureOr<Value> zp = im.optionalInput(2);
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  RankedTensorType xt = typeOf(*x);
  Type f = typeOf(*scale).getElementType();
  if (!isa<IntegerType>(xt.getElementType()))
    return im.error() << "expects an integer input, got " << xt, failure();
  FailureOr<std::pair<int64_t, int64_t>> axis = quantAxis(im, xt, *scale);
  if (failed(axis))
    return failure();
  FailureOr<Value> s =
      alongAxis(im, *scale, xt.getRank(), axis->first, axis->second, "scale");
  if (failed(s))
    return failure();
  Value y = im.create<CastOp>(*x, f);
  if (*zp) {
    FailureOr<Value> z = alongAxis(im, im.create<CastOp>(*zp, f), xt.getRank(),
                                   axis->first, axis->second, "zero point");
    if (failed(z))
      return failure();
    y = im.create<SubOp>(y, *z);
  }
  im.setOutput(0, im.create<MulOp>(y, *s));
  return success();
}

LogicalResult convertQuantizeLinear(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), scale = im.input(1);
  FailureOr<Value> zp = im.optionalInput(2);
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  RankedTensorType xt = typeOf(*x);
  if (!isa<FloatType>(xt.getElementType()))
    return im.error() << "expects a float input, got " << xt, failure();
  Type target = *zp ? typeOf(*zp).getElementType() : Type();
  if (const onnx::AttributeProto *dt = im.attr("output_dtype");
      dt && dt->i() != 0) {
    target = im.elementType(static_cast<int32_t>(dt->i()));
    if (!target)
      return im.error() << "unsupported output_dtype "
                        << onnxTypeName(static_cast<int32_t>(dt->i())),
             failure();
  }
  if (!target)
    target = im.elementType(onnx::TensorProto::UINT8);
  if (!target || !isa<IntegerType>(target))
    return im.error() << "quantises to " << target
                      << "; only integer types are supported",
           failure();
  FailureOr<std::pair<int64_t, int64_t>> axis = quantAxis(im, xt, *scale);
  if (failed(axis))
    return failure();
  Type f = xt.getElementType();
  FailureOr<Value> s = alongAxis(im, im.create<CastOp>(*scale, f), xt.getRank(),
                                 axis->first, axis->second, "scale");
  if (failed(s))
    return failure();
  Value q = im.create<RoundOp>(im.create<DivOp>(*x, *s));
  if (*zp) {
    FailureOr<Value> z = alongAxis(im, im.create<CastOp>(*zp, f), xt.getRank(),
                                   axis->first, axis->second, "zero point");
    if (failed(z))
      return failure();
    q = im.create<AddOp>(q, *z);
  }
  auto [lo, hi] = intRange(target);
  OpBuilder &b = im.builder();
  q = im.create<ClipOp>(q, b.getF32FloatAttr(lo), b.getF32FloatAttr(hi));
  im.setOutput(0, im.create<CastOp>(q, target));
  return success();
}

/// DynamicQuantizeLinear (uint8): scale = (max(0, max x) - min(0, min x)) /
/// 255, zero point = saturate(round(-min / scale)), y = saturate(round(x /
/// scale) + zero point).
LogicalResult convertDynamicQuantizeLinear(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  RankedTensorType xt = typeOf(*x);
  if (!xt.getElementType().isF32())
    return im.error() << "expects an f32 input, got " << xt, failure();
  Type u8 = im.elementType(onnx::TensorProto::UINT8);
  if (!u8)
    return im.error() << "needs uint8 tensors", failure();
  Type f = xt.getElementType();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < xt.getRank(); ++d)
    all.push_back(d);
  Value zero = im.scalarConstant(f, 0.0);
  Value hi = xt.getRank() ? Value(im.create<ReduceMaxOp>(*x, all, false)) : *x;
  Value lo = xt.getRank() ? Value(im.create<NegOp>(im.create<ReduceMaxOp>(
                                im.create<NegOp>(*x), all, false)))
                          : *x;
  hi = im.create<MaxOp>(hi, zero);
  lo = im.create<MinOp>(lo, zero);
  Value scale =
      im.create<DivOp>(im.create<SubOp>(hi, lo), im.scalarConstant(f, 255.0));
  OpBuilder &b = im.builder();
  Value zpf = im.create<ClipOp>(
      im.create<RoundOp>(im.create<DivOp>(im.create<NegOp>(lo), scale)),
      b.getF32FloatAttr(0.0f), b.getF32FloatAttr(255.0f));
  Value q = im.create<ClipOp>(
      im.create<AddOp>(im.create<RoundOp>(im.create<DivOp>(*x, scale)), zpf),
      b.getF32FloatAttr(0.0f), b.getF32FloatAttr(255.0f));
  im.setOutput(0, im.create<CastOp>(q, u8));
  im.setOutput(1, scale);
  im.setOutput(2, im.create<CastOp>(zpf, u8));
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerQuantConverters(ConverterMap &map) {
  map["DequantizeLinear"] = convertDequantizeLinear;
  map["QuantizeLinear"] = convertQuantizeLinear;
  map["DynamicQuantizeLinear"] = convertDynamicQuantizeLinear;
}
