//===- OnnxMathOps.cpp - ONNX math, logical and bitwise ops -> tandem -----===//
//
// The trigonometric and hyperbolic functions, Floor/Ceil/Round, Sign, Mod,
// IsNaN/IsInf, Not/And/Or/Xor and their Bitwise forms, BitShift, Mean,
// CastLike and Size. Integer and bool operands known at import time (shape
// and mask computations) are evaluated here instead of emitted.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// What element types an op accepts, for its diagnostic.
enum class Accepts { Float, Integer, Bool, Numeric };

/// Fails with a diagnostic when input `i`'s element type is not accepted.
LogicalResult checkInputKind(GraphImporter &im, unsigned i, Accepts kind) {
  FailureOr<RankedTensorType> type = im.requiredInputType(i);
  if (failed(type))
    return failure();
  Type e = type->getElementType();
  bool ok = false;
  StringRef what;
  switch (kind) {
  case Accepts::Float:
    ok = isa<FloatType>(e);
    what = "a float";
    break;
  case Accepts::Integer:
    ok = e.isInteger() && !e.isInteger(1);
    what = "an integer";
    break;
  case Accepts::Bool:
    ok = e.isInteger(1);
    what = "a bool";
    break;
  case Accepts::Numeric:
    ok = !e.isInteger(1);
    what = "a numeric";
    break;
  }
  if (!ok)
    return im.error() << "expects " << what << " input #" << i << ", got "
                      << *type,
           failure();
  return success();
}

/// A bool constant of `type`'s shape, or rank 0 without one.
Value boolConstant(GraphImporter &im, bool value,
                   ArrayRef<int64_t> shape = {}) {
  auto type = RankedTensorType::get(shape, im.builder().getI1Type());
  return im.create<ConstantOp>(
      cast<ElementsAttr>(DenseElementsAttr::get(type, value)));
}

/// A float op of one input: sin, floor, ...
template <typename OpT> LogicalResult convertFloatUnary(GraphImporter &im) {
  if (failed(checkInputKind(im, 0, Accepts::Float)))
    return failure();
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<OpT>(*x));
  return success();
}

/// A two-input op on `kind` operands of one element type; known integer
/// operands fold with `fold`.
template <typename OpT>
LogicalResult convertIntBinary(GraphImporter &im, Accepts kind,
                               std::optional<int64_t> (*fold)(int64_t, int64_t,
                                                              unsigned)) {
  if (failed(checkInputKind(im, 0, kind)) ||
      failed(checkInputKind(im, 1, kind)) ||
      failed(checkSameElementType(im, 0, 1)))
    return failure();
  const KnownInts *a = im.knownInput(0);
  unsigned width = a ? a->elementType.getIntOrFloatBitWidth() : 0;
  return foldOrCreateBinary<OpT>(
      im, [&](ArrayRef<int64_t> v) { return fold(v[0], v[1], width); });
}

/// Sign-extends the low `width` bits of `v` (a known value of an iN tensor).
int64_t wrap(uint64_t v, unsigned width) {
  if (width == 1)
    return v & 1;
  if (width >= 64)
    return static_cast<int64_t>(v);
  uint64_t mask = (uint64_t(1) << width) - 1;
  v &= mask;
  if (v >> (width - 1))
    v |= ~mask;
  return static_cast<int64_t>(v);
}

/// x xor all-ones: logical Not on bool, BitwiseNot on integers.
LogicalResult convertNot(GraphImporter &im, Accepts kind) {
  if (failed(checkInputKind(im, 0, kind)))
    return failure();
  if (const KnownInts *k = im.knownInput(0)) {
    KnownInts r = *k;
    unsigned width = k->elementType.getIntOrFloatBitWidth();
    for (int64_t &v : r.values)
      v = wrap(~static_cast<uint64_t>(v), width);
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  Type t = elementTypeOf(*x);
  Value ones =
      t.isInteger(1) ? boolConstant(im, true) : im.scalarConstant(t, -1.0);
  im.setOutput(0, im.create<XorOp>(*x, ones));
  return success();
}

/// Mod: fmod = 1 is C's fmod / `%` (sign of the dividend), fmod = 0 the
/// floored remainder (sign of the divisor, integers only as ONNX requires).
LogicalResult convertMod(GraphImporter &im) {
  int64_t fmod = im.attrInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return im.error() << "fmod must be 0 or 1, got " << fmod, failure();
  if (failed(checkInputKind(im, 0, Accepts::Numeric)) ||
      failed(checkSameElementType(im, 0, 1)))
    return failure();
  FailureOr<RankedTensorType> type = im.requiredInputType(0);
  if (failed(type))
    return failure();
  if (isa<FloatType>(type->getElementType()) && fmod == 0)
    return im.error() << "fmod = 0 (the floored remainder) is only defined "
                         "for integers; float inputs ("
                      << *type << ") need fmod = 1",
           failure();
  const KnownInts *a = im.knownInput(0), *b = im.knownInput(1);
  if (a && b)
    if (std::optional<KnownInts> r =
            foldKnown({a, b}, a->elementType,
                      [&](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                        // As the lowering: a remainder by 0 (or -1) is 0.
                        if (v[1] == 0 || v[1] == -1)
                          return 0;
                        int64_t rem = v[0] % v[1];
                        if (!fmod && rem != 0 && (rem < 0) != (v[1] < 0))
                          rem += v[1];
                        return rem;
                      })) {
      im.setKnownOutput(0, std::move(*r));
      return success();
    }
  FailureOr<Value> lhs = im.input(0), rhs = im.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  im.setOutput(0, im.create<ModOp>(*lhs, *rhs, fmod == 1));
  return success();
}

/// A known shift, as the lowering computes it: the bits of `x` as unsigned,
/// 0 for an amount outside [0, width).
std::optional<int64_t> shiftKnown(int64_t x, int64_t n, unsigned width,
                                  bool left) {
  uint64_t mask = width < 64 ? (uint64_t(1) << width) - 1 : ~uint64_t(0);
  uint64_t bits = static_cast<uint64_t>(x) & mask;
  uint64_t amount = static_cast<uint64_t>(n) & mask;
  if (amount >= width)
    return 0;
  return wrap(left ? bits << amount : bits >> amount, width);
}

/// BitShift, defined by ONNX on unsigned integers: Tandem's i32/i64 tensors
/// are shifted as unsigned bit patterns.
LogicalResult convertBitShift(GraphImporter &im) {
  std::string direction = im.attrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return im.error() << "direction must be \"LEFT\" or \"RIGHT\", got \""
                      << direction << "\"",
           failure();
  bool left = direction == "LEFT";
  if (left)
    return convertIntBinary<ShiftLeftOp>(
        im, Accepts::Integer, [](int64_t x, int64_t n, unsigned w) {
          return shiftKnown(x, n, w, /*left=*/true);
        });
  return convertIntBinary<ShiftRightOp>(
      im, Accepts::Integer, [](int64_t x, int64_t n, unsigned w) {
        return shiftKnown(x, n, w, /*left=*/false);
      });
}

/// Sign: 1, -1, or 0 for zeros; NaN stays NaN (as in onnxruntime).
LogicalResult convertSign(GraphImporter &im) {
  if (failed(checkInputKind(im, 0, Accepts::Numeric)))
    return failure();
  if (const KnownInts *k = im.knownInput(0)) {
    KnownInts r = *k;
    for (int64_t &v : r.values)
      v = v > 0 ? 1 : (v < 0 ? -1 : 0);
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  Type t = elementTypeOf(*x);
  Value zero = im.scalarConstant(t, 0.0);
  Value rest = zero;
  if (isa<FloatType>(t))
    rest = im.create<WhereOp>(im.create<CmpOp>(CmpPredicate::NE, *x, *x), *x,
                              zero);
  Value negative =
      im.create<WhereOp>(im.create<CmpOp>(CmpPredicate::LT, *x, zero),
                         im.scalarConstant(t, -1.0), rest);
  im.setOutput(0,
               im.create<WhereOp>(im.create<CmpOp>(CmpPredicate::GT, *x, zero),
                                  im.scalarConstant(t, 1.0), negative));
  return success();
}

/// IsNaN: x != x.
LogicalResult convertIsNaN(GraphImporter &im) {
  if (failed(checkInputKind(im, 0, Accepts::Float)))
    return failure();
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<CmpOp>(CmpPredicate::NE, *x, *x));
  return success();
}

/// IsInf: |x| == inf, x == inf or x == -inf as detect_negative and
/// detect_positive select (neither: all false).
LogicalResult convertIsInf(GraphImporter &im) {
  if (failed(checkInputKind(im, 0, Accepts::Float)))
    return failure();
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  bool negative = im.attrInt("detect_negative", 1) != 0;
  bool positive = im.attrInt("detect_positive", 1) != 0;
  Type t = elementTypeOf(*x);
  double inf = std::numeric_limits<double>::infinity();
  Value y;
  if (negative && positive)
    y = im.create<CmpOp>(CmpPredicate::EQ, im.create<AbsOp>(*x),
                         im.scalarConstant(t, inf));
  else if (positive)
    y = im.create<CmpOp>(CmpPredicate::EQ, *x, im.scalarConstant(t, inf));
  else if (negative)
    y = im.create<CmpOp>(CmpPredicate::EQ, *x, im.scalarConstant(t, -inf));
  else
    y = boolConstant(im, false,
                     cast<RankedTensorType>(x->getType()).getShape());
  im.setOutput(0, y);
  return success();
}

/// Mean: the sum of the inputs divided by their count.
LogicalResult convertMean(GraphImporter &im) {
  if (failed(checkInputKind(im, 0, Accepts::Float)))
    return failure();
  FailureOr<Value> acc = chainInputs<AddOp>(im);
  if (failed(acc))
    return failure();
  Value y = *acc;
  if (im.numInputs() > 1)
    y = im.create<DivOp>(y,
                         im.scalarConstant(elementTypeOf(y), im.numInputs()));
  im.setOutput(0, y);
  return success();
}

/// CastLike: Cast to the element type of input 1.
LogicalResult convertCastLike(GraphImporter &im) {
  FailureOr<RankedTensorType> like = im.requiredInputType(1);
  if (failed(like))
    return failure();
  return convertCastTo(im, like->getElementType());
}

/// Size: the element count of the (static) input, known at import time.
LogicalResult convertSize(GraphImporter &im) {
  FailureOr<RankedTensorType> type = im.requiredInputType(0);
  if (failed(type))
    return failure();
  im.setKnownOutput(
      0, KnownInts{{}, {type->getNumElements()}, im.builder().getI64Type()});
  return success();
}

std::optional<int64_t> foldAnd(int64_t a, int64_t b, unsigned) { return a & b; }
std::optional<int64_t> foldOr(int64_t a, int64_t b, unsigned) { return a | b; }
std::optional<int64_t> foldXor(int64_t a, int64_t b, unsigned width) {
  return wrap(static_cast<uint64_t>(a ^ b), width);
}

} // namespace

void mlir::tandem::onnx_import::registerMathConverters(ConverterMap &map) {
  map["Sin"] = convertFloatUnary<SinOp>;
  map["Cos"] = convertFloatUnary<CosOp>;
  map["Tan"] = convertFloatUnary<TanOp>;
  map["Asin"] = convertFloatUnary<AsinOp>;
  map["Acos"] = convertFloatUnary<AcosOp>;
  map["Atan"] = convertFloatUnary<AtanOp>;
  map["Sinh"] = convertFloatUnary<SinhOp>;
  map["Cosh"] = convertFloatUnary<CoshOp>;
  map["Asinh"] = convertFloatUnary<AsinhOp>;
  map["Acosh"] = convertFloatUnary<AcoshOp>;
  map["Atanh"] = convertFloatUnary<AtanhOp>;
  map["Floor"] = convertFloatUnary<FloorOp>;
  map["Ceil"] = convertFloatUnary<CeilOp>;
  map["Round"] = convertFloatUnary<RoundOp>;
  map["Sign"] = convertSign;
  map["Mod"] = convertMod;
  map["IsNaN"] = convertIsNaN;
  map["IsInf"] = convertIsInf;
  map["Not"] = [](GraphImporter &im) { return convertNot(im, Accepts::Bool); };
  map["BitwiseNot"] = [](GraphImporter &im) {
    return convertNot(im, Accepts::Integer);
  };
  map["And"] = [](GraphImporter &im) {
    return convertIntBinary<AndOp>(im, Accepts::Bool, foldAnd);
  };
  map["Or"] = [](GraphImporter &im) {
    return convertIntBinary<OrOp>(im, Accepts::Bool, foldOr);
  };
  map["Xor"] = [](GraphImporter &im) {
    return convertIntBinary<XorOp>(im, Accepts::Bool, foldXor);
  };
  map["BitwiseAnd"] = [](GraphImporter &im) {
    return convertIntBinary<AndOp>(im, Accepts::Integer, foldAnd);
  };
  map["BitwiseOr"] = [](GraphImporter &im) {
    return convertIntBinary<OrOp>(im, Accepts::Integer, foldOr);
  };
  map["BitwiseXor"] = [](GraphImporter &im) {
    return convertIntBinary<XorOp>(im, Accepts::Integer, foldXor);
  };
  map["BitShift"] = convertBitShift;
  map["Mean"] = convertMean;
  map["CastLike"] = convertCastLike;
  map["Size"] = convertSize;
}
