//===- OnnxQuantContractions.cpp - integer matmul/conv ONNX ops -> tandem -===//
//
// MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv. The int8/uint8
// operands are widened to i32 and their zero points subtracted, and the
// product is an i32 tandem.matmul or tandem.conv2d: exact integer
// accumulation, as onnxruntime's int32 kernels compute (and wrap) it. The
// QLinear ops then requantise as onnxruntime's MlasRequantizeOutput does:
// float(acc) * (a_scale * b_scale / y_scale) in f32, rounded half to even,
// plus the output zero point, saturated to the output type.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Fails unless `v` is an int8 or uint8 tensor; `what` names it.
LogicalResult checkQuantized(GraphImporter &im, Value v, StringRef what) {
  Type t = typeOf(v).getElementType();
  if (t.isInteger(8) || t.isUnsignedInteger(8))
    return success();
  return im.error() << what << " must be int8 or uint8, got " << v.getType(),
         failure();
}

/// Fails unless the zero point `zp` (may be null) has the element type of
/// its tensor `x`.
LogicalResult checkZeroPoint(GraphImporter &im, Value zp, Value x,
                             StringRef what) {
  if (!zp || typeOf(zp).getElementType() == typeOf(x).getElementType())
    return success();
  return im.error() << what << " " << zp.getType()
                    << " must have the element type of its input "
                    << x.getType(),
         failure();
}

/// `x` widened to i32 minus the zero point `zp` (already shaped to
/// broadcast; may be null): the exact integers the quantised values stand
/// for.
Value centred(GraphImporter &im, Value x, Value zp) {
  Type i32 = im.builder().getI32Type();
  Value wide = im.create<CastOp>(x, i32);
  if (!zp)
    return wide;
  return im.create<SubOp>(wide, im.create<CastOp>(zp, i32));
}

/// A per-row (`rows`) or per-column parameter (zero point or scale) of a
/// matmul operand of type `t`, shaped to broadcast against it: one value (a
/// scalar), a 1-D vector with one value per row (reshaped to [M, 1]) or
/// column, or an N-D tensor of the operand's rank with a unit K dim (ONNX's
/// [D1, D2, M, 1] and [D1, D2, 1, N] forms). `v` may be null.
FailureOr<Value> matmulParam(GraphImporter &im, Value v, RankedTensorType t,
                             bool rows, StringRef what) {
  if (!v)
    return Value();
  RankedTensorType vt = typeOf(v);
  if (vt.getNumElements() == 1)
    return Value(im.create<ReshapeOp>(v, ArrayRef<int64_t>{}));
  int64_t rank = t.getRank();
  if (rank >= 2) {
    int64_t own = rows ? rank - 2 : rank - 1, k = rows ? rank - 1 : rank - 2;
    if (vt.getRank() == 1 && vt.getDimSize(0) == t.getDimSize(own))
      return rows ? Value(im.create<ReshapeOp>(
                        v, ArrayRef<int64_t>{vt.getDimSize(0), 1}))
                  : v;
    if (vt.getRank() == rank && vt.getDimSize(k) == 1) {
      bool fits = true;
      for (int64_t d = 0; d < rank; ++d)
        fits &= d == k || vt.getDimSize(d) == t.getDimSize(d) ||
                vt.getDimSize(d) == 1;
      if (fits)
        return v;
    }
  }
  return im.error() << what << " " << vt << " must be a scalar or hold one "
                    << "value per " << (rows ? "row" : "column") << " of " << t,
         failure();
}

/// A per-tensor or per-output-channel parameter of a convolution with
/// weight type `w` (O x C/group x k...), shaped [O, 1, ...] to broadcast
/// against a tensor of `rank` whose dim `axis` is the channel: for the
/// weight itself (axis 0) or for the output (axis 1). `v` may be null.
FailureOr<Value> channelParam(GraphImporter &im, Value v, RankedTensorType w,
                              int64_t rank, int64_t axis, StringRef what) {
  if (!v)
    return Value();
  return alongAxis(im, v, rank, axis, w.getDimSize(0), what);
}

/// A scale as f32 (scales may be f16 or bf16 from opset 21; onnxruntime
/// requantises in f32, and the widening is exact).
FailureOr<Value> scaleF32(GraphImporter &im, unsigned i, StringRef what) {
  FailureOr<Value> s = im.input(i);
  if (failed(s))
    return failure();
  if (!isa<FloatType>(typeOf(*s).getElementType()))
    return im.error() << what << " must be a float tensor, got "
                      << s->getType(),
           failure();
  if (typeOf(*s).getElementType().isF32())
    return s;
  return Value(im.create<CastOp>(*s, im.builder().getF32Type()));
}

/// onnxruntime's requantisation of the i32 `acc` with the f32 multiplier
/// `scale`: saturate(round_half_even(float(acc) * scale) + zp), as
/// `target` (the output zero point's type).
Value requantize(GraphImporter &im, Value acc, Value scale, Value zp,
                 Type target) {
  Type f32 = im.builder().getF32Type();
  Value q =
      im.create<RoundOp>(im.create<MulOp>(im.create<CastOp>(acc, f32), scale));
  if (zp)
    q = im.create<AddOp>(q, im.create<CastOp>(zp, f32));
  auto [lo, hi] = intRange(target);
  OpBuilder &b = im.builder();
  q = im.create<ClipOp>(q, b.getF32FloatAttr(lo), b.getF32FloatAttr(hi));
  return im.create<CastOp>(q, target);
}

/// The output element type of a QLinear op: its y_zero_point's (int8 or
/// uint8), or uint8 when it has none.
FailureOr<Type> outputType(GraphImporter &im, Value yzp) {
  if (!yzp)
    return im.elementType(onnx::TensorProto::UINT8);
  if (failed(checkQuantized(im, yzp, "y_zero_point")))
    return failure();
  if (typeOf(yzp).getNumElements() != 1)
    return im.error() << "y_zero_point " << yzp.getType()
                      << " must hold one value (per-tensor output "
                         "quantisation)",
           failure();
  return typeOf(yzp).getElementType();
}

/// The i32 product of the centred operands of MatMulInteger (inputs 0-3)
/// or QLinearMatMul (`a`, `b` and their zero points).
FailureOr<Value> integerMatmul(GraphImporter &im, Value a, Value azp, Value b,
                               Value bzp) {
  if (failed(checkQuantized(im, a, "A")) ||
      failed(checkQuantized(im, b, "B")) ||
      failed(checkZeroPoint(im, azp, a, "a_zero_point")) ||
      failed(checkZeroPoint(im, bzp, b, "b_zero_point")))
    return failure();
  FailureOr<Value> za =
      matmulParam(im, azp, typeOf(a), /*rows=*/true, "a_zero_point");
  FailureOr<Value> zb =
      matmulParam(im, bzp, typeOf(b), /*rows=*/false, "b_zero_point");
  if (failed(za) || failed(zb))
    return failure();
  return numpyMatmul(im, centred(im, a, *za), centred(im, b, *zb));
}

LogicalResult convertMatMulInteger(GraphImporter &im) {
  FailureOr<Value> a = im.input(0), b = im.input(1);
  FailureOr<Value> azp = im.optionalInput(2), bzp = im.optionalInput(3);
  if (failed(a) || failed(b) || failed(azp) || failed(bzp))
    return failure();
  FailureOr<Value> y = integerMatmul(im, *a, *azp, *b, *bzp);
  if (failed(y))
    return failure();
  im.setOutput(0, *y);
  return success();
}

/// The i32 convolution of the centred operands, plus the optional i32
/// `bias`. The input is centred before it is padded, so padding adds zeros
/// to the centred values (onnxruntime pads with the zero point).
FailureOr<Value> integerConv(GraphImporter &im, Value x, Value xzp, Value w,
                             Value wzp, Value bias) {
  if (failed(checkQuantized(im, x, "x")) ||
      failed(checkQuantized(im, w, "w")) ||
      failed(checkZeroPoint(im, xzp, x, "x_zero_point")) ||
      failed(checkZeroPoint(im, wzp, w, "w_zero_point")))
    return failure();
  RankedTensorType wt = typeOf(w);
  if (wt.getRank() < 3)
    return im.error() << "the weight " << wt << " must have rank 3 or 4",
           failure();
  if (xzp && typeOf(xzp).getNumElements() != 1)
    return im.error() << "x_zero_point " << xzp.getType()
                      << " must hold one value (per-tensor input "
                         "quantisation)",
           failure();
  Value zx =
      xzp ? Value(im.create<ReshapeOp>(xzp, ArrayRef<int64_t>{})) : Value();
  FailureOr<Value> zw =
      channelParam(im, wzp, wt, wt.getRank(), 0, "w_zero_point");
  if (failed(zw))
    return failure();
  if (bias) {
    RankedTensorType bt = typeOf(bias);
    if (!bt.getElementType().isInteger(32) || bt.getRank() != 1 ||
        bt.getDimSize(0) != wt.getDimSize(0))
      return im.error() << "the bias " << bt << " must be int32 with one "
                        << "value per output channel (" << wt.getDimSize(0)
                        << ")",
             failure();
  }
  return convolve(im, centred(im, x, zx), centred(im, w, *zw), bias);
}

LogicalResult convertConvInteger(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), w = im.input(1);
  FailureOr<Value> xzp = im.optionalInput(2), wzp = im.optionalInput(3);
  if (failed(x) || failed(w) || failed(xzp) || failed(wzp))
    return failure();
  FailureOr<Value> y = integerConv(im, *x, *xzp, *w, *wzp, Value());
  if (failed(y))
    return failure();
  im.setOutput(0, *y);
  return success();
}

/// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
LogicalResult convertQLinearMatMul(GraphImporter &im) {
  FailureOr<Value> a = im.input(0), azp = im.optionalInput(2), b = im.input(3),
                   bzp = im.optionalInput(5), yzp = im.optionalInput(7);
  if (failed(a) || failed(azp) || failed(b) || failed(bzp) || failed(yzp))
    return failure();
  FailureOr<Value> as = scaleF32(im, 1, "a_scale"),
                   bs = scaleF32(im, 4, "b_scale"),
                   ys = scaleF32(im, 6, "y_scale");
  if (failed(as) || failed(bs) || failed(ys))
    return failure();
  FailureOr<Type> target = outputType(im, *yzp);
  if (failed(target))
    return failure();
  if (typeOf(*ys).getNumElements() != 1)
    return im.error() << "y_scale " << typeOf(*ys)
                      << " must hold one value (per-tensor output "
                         "quantisation)",
           failure();
  FailureOr<Value> acc = integerMatmul(im, *a, *azp, *b, *bzp);
  FailureOr<Value> sa = matmulParam(im, *as, typeOf(*a), true, "a_scale");
  FailureOr<Value> sb = matmulParam(im, *bs, typeOf(*b), false, "b_scale");
  if (failed(acc) || failed(sa) || failed(sb))
    return failure();
  // onnxruntime's multiplier: a_scale * b_scale / y_scale, in f32.
  Value scale =
      im.create<DivOp>(im.create<MulOp>(*sa, *sb),
                       im.create<ReshapeOp>(*ys, ArrayRef<int64_t>{}));
  // A 1-D operand drops a dim from the product that per-row or per-column
  // scales would broadcast along.
  auto at = typeOf(*a), bt = typeOf(*b);
  if (scale && (at.getRank() == 1 || bt.getRank() == 1) &&
      typeOf(scale).getNumElements() != 1)
    return im.error() << "per-row or per-column scales need operands of rank "
                         "2 or more, got "
                      << at << " and " << bt,
           failure();
  im.setOutput(0, requantize(im, *acc, scale, *yzp, *target));
  return success();
}

/// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B).
LogicalResult convertQLinearConv(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), xzp = im.optionalInput(2), w = im.input(3),
                   wzp = im.optionalInput(5), yzp = im.optionalInput(7),
                   bias = im.optionalInput(8);
  if (failed(x) || failed(xzp) || failed(w) || failed(wzp) || failed(yzp) ||
      failed(bias))
    return failure();
  FailureOr<Value> xs = scaleF32(im, 1, "x_scale"),
                   ws = scaleF32(im, 4, "w_scale"),
                   ys = scaleF32(im, 6, "y_scale");
  if (failed(xs) || failed(ws) || failed(ys))
    return failure();
  FailureOr<Type> target = outputType(im, *yzp);
  if (failed(target))
    return failure();
  for (auto [v, what] : {std::pair(*xs, "x_scale"), std::pair(*ys, "y_scale")})
    if (typeOf(v).getNumElements() != 1)
      return im.error() << what << " " << typeOf(v)
                        << " must hold one value (per-tensor quantisation)",
             failure();
  FailureOr<Value> acc = integerConv(im, *x, *xzp, *w, *wzp, *bias);
  if (failed(acc))
    return failure();
  RankedTensorType wt = typeOf(*w);
  FailureOr<Value> sw =
      channelParam(im, *ws, wt, typeOf(*acc).getRank(), 1, "w_scale");
  if (failed(sw))
    return failure();
  // onnxruntime's multiplier: x_scale * w_scale / y_scale, in f32.
  Value scale = im.create<DivOp>(
      im.create<MulOp>(im.create<ReshapeOp>(*xs, ArrayRef<int64_t>{}), *sw),
      im.create<ReshapeOp>(*ys, ArrayRef<int64_t>{}));
  im.setOutput(0, requantize(im, *acc, scale, *yzp, *target));
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerQuantContractionConverters(
    ConverterMap &map) {
  map["MatMulInteger"] = convertMatMulInteger;
  map["ConvInteger"] = convertConvInteger;
  map["QLinearMatMul"] = convertQLinearMatMul;
  map["QLinearConv"] = convertQLinearConv;
}
