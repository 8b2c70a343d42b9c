//===- OnnxElementwiseOps.cpp - ONNX elementwise ops -> tandem ------------===//
//
// Unary and binary arithmetic, comparisons, Where, activations (Relu, Clip,
// HardSigmoid, HardSwish, Gelu, ...), Cast, Softmax, Identity and Dropout.
// Integer arithmetic on values known at import time (shape computations) is
// evaluated here instead of emitted.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

std::optional<KnownInts> mlir::tandem::onnx_import::foldKnown(
    ArrayRef<const KnownInts *> operands, Type resultType,
    function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> fn) {
  shape::Shape outShape;
  for (const KnownInts *k : operands) {
    std::optional<shape::Shape> next = shape::broadcast(outShape, k->shape);
    if (!next)
      return std::nullopt;
    outShape = *next;
  }
  KnownInts result{SmallVector<int64_t>(outShape), {}, resultType};
  int64_t count = shape::numElements(outShape);
  SmallVector<int64_t> index(outShape.size());
  SmallVector<int64_t> args(operands.size());
  for (int64_t flat = 0; flat < count; ++flat) {
    for (int64_t d = outShape.size() - 1, rem = flat; d >= 0; --d) {
      index[d] = rem % outShape[d];
      rem /= outShape[d];
    }
    for (auto [j, k] : llvm::enumerate(operands)) {
      int64_t offset = outShape.size() - k->shape.size(), pos = 0;
      for (auto [d, size] : llvm::enumerate(k->shape))
        pos = pos * size + (size == 1 ? 0 : index[offset + d]);
      args[j] = k->values[pos];
    }
    std::optional<int64_t> v = fn(args);
    if (!v)
      return std::nullopt;
    result.values.push_back(*v);
  }
  return result;
}

LogicalResult mlir::tandem::onnx_import::checkSameElementType(GraphImporter &im,
                                                              unsigned i,
                                                              unsigned j) {
  RankedTensorType a = im.inputType(i), b = im.inputType(j);
  if (a && b && a.getElementType() != b.getElementType())
    return im.error() << "inputs #" << i << " (" << a << ") and #" << j << " ("
                      << b << ") have different element types",
           failure();
  return success();
}

template <typename OpT> static LogicalResult convertUnary(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<OpT>(*x));
  return success();
}

/// Neg and Abs; a known integer operand folds (wrapping as the lowering
/// does: -INT_MIN is INT_MIN), so `Neg(Constant)` stays known for shape
/// arithmetic.
template <typename OpT, bool IsNeg>
static LogicalResult convertNegOrAbs(GraphImporter &im) {
  const KnownInts *k = im.knownInput(0);
  if (k && k->elementType.isInteger() && !k->elementType.isInteger(1)) {
    unsigned width = k->elementType.getIntOrFloatBitWidth();
    KnownInts r = *k;
    for (int64_t &v : r.values) {
      if (!IsNeg && v >= 0)
        continue;
      llvm::APInt bits(64, static_cast<uint64_t>(v), /*isSigned=*/true);
      v = (-bits.trunc(width)).getSExtValue();
    }
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  return convertUnary<OpT>(im);
}

/// Binary arithmetic; integer shape arithmetic on known values folds.
template <typename OpT>
static LogicalResult
convertBinary(GraphImporter &im,
              std::optional<int64_t> (*fold)(ArrayRef<int64_t>) = nullptr) {
  if (failed(checkSameElementType(im, 0, 1)))
    return failure();
  if (!fold)
    return foldOrCreateBinary<OpT>(im);
  return foldOrCreateBinary<OpT>(im, fold);
}

/// base^e for an integer base and an i64 exponent, exactly, as
/// onnxruntime's std::pow computes it for results it can represent: six
/// squarings cover exponents up to 63 (beyond, |base| >= 2 overflows and
/// only base 0 and +-1 are defined, which keep the exponent's parity);
/// a negative exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise
/// (the truncated 1 / base^-e).
static Value integerPow(GraphImporter &im, Value base, Value e) {
  Type t = cast<RankedTensorType>(base.getType()).getElementType();
  Type i64 = im.builder().getI64Type();
  auto c = [&](Type ty, int64_t v) {
    return im.scalarConstant(ty, static_cast<double>(v));
  };
  Value one = c(t, 1), zero = c(t, 0);
  Value negative = im.create<CmpOp>(CmpPredicate::LT, e, c(i64, 0));
  Value odd = im.create<CmpOp>(CmpPredicate::NE, im.create<AndOp>(e, c(i64, 1)),
                               c(i64, 0));
  // Large exponents keep their parity: 62 or 63.
  Value large = im.create<CmpOp>(CmpPredicate::GT, e, c(i64, 63));
  Value bounded = im.create<WhereOp>(
      large, im.create<WhereOp>(odd, c(i64, 63), c(i64, 62)), e);
  Value result = one, square = base;
  for (int bit = 0; bit < 6; ++bit) {
    Value set = im.create<CmpOp>(
        CmpPredicate::NE, im.create<AndOp>(bounded, c(i64, int64_t(1) << bit)),
        c(i64, 0));
    result = im.create<WhereOp>(set, im.create<MulOp>(result, square), result);
    if (bit < 5)
      square = im.create<MulOp>(square, square);
  }
  Value isOne = im.create<CmpOp>(CmpPredicate::EQ, base, one);
  Value isMinusOne = im.create<CmpOp>(CmpPredicate::EQ, base, c(t, -1));
  Value inverse = im.create<WhereOp>(
      isOne, one,
      im.create<WhereOp>(isMinusOne, im.create<WhereOp>(odd, c(t, -1), one),
                         zero));
  return im.create<WhereOp>(negative, inverse, result);
}

/// Pow allows an exponent of another type (e.g. float ** int64). A float
/// base takes the exponent converted to its type. An integer base with an
/// integer exponent is exact (integerPow); with a float exponent it is
/// pow in f64 truncated to the base's type, as onnxruntime computes it, and
/// exact (integerPow) where the exponent is integral.
static LogicalResult convertPow(GraphImporter &im) {
  // Known integers (shape arithmetic such as 2^k) fold with integerPow's
  // semantics, wrapping in the base's width.
  const KnownInts *kb = im.knownInput(0), *ke = im.knownInput(1);
  if (kb && ke && !kb->elementType.isInteger(1) &&
      !ke->elementType.isInteger(1)) {
    unsigned width = kb->elementType.getIntOrFloatBitWidth();
    std::optional<KnownInts> r =
        foldKnown({kb, ke}, kb->elementType,
                  [width](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                    int64_t x = v[0], e = v[1];
                    if (e < 0)
                      return x == 1 ? 1 : x == -1 ? ((e & 1) ? -1 : 1) : 0;
                    if (e > 63)
                      e = (e & 1) ? 63 : 62;
                    llvm::APInt result(width, 1),
                        square(width, static_cast<uint64_t>(x),
                               /*isSigned=*/true,
                               /*implicitTrunc=*/true);
                    for (; e; e >>= 1, square *= square)
                      if (e & 1)
                        result *= square;
                    return result.getSExtValue();
                  });
    if (r) {
      im.setKnownOutput(0, std::move(*r));
      return success();
    }
  }
  FailureOr<Value> base = im.input(0), exponent = im.input(1);
  if (failed(base) || failed(exponent))
    return failure();
  Type elem = cast<RankedTensorType>(base->getType()).getElementType();
  Type expElem = cast<RankedTensorType>(exponent->getType()).getElementType();
  Value e = *exponent;
  if (isa<FloatType>(elem)) {
    if (expElem != elem)
      e = im.create<CastOp>(e, elem);
    im.setOutput(0, im.create<PowOp>(*base, e));
    return success();
  }
  if (!elem.isSignlessInteger() || elem.isInteger(1) || expElem.isInteger(1))
    return im.error() << "Pow of " << base->getType() << " by "
                      << exponent->getType()
                      << " is not supported (the base must be a float or "
                         "signed integer, the exponent a number)",
           failure();
  Type i64 = im.builder().getI64Type(), f64 = im.builder().getF64Type();
  if (!isa<FloatType>(expElem)) {
    if (expElem != i64)
      e = im.create<CastOp>(e, i64);
    im.setOutput(0, integerPow(im, *base, e));
    return success();
  }
  Value ef = im.create<CastOp>(e, f64);
  // Integral exponents go the exact way; +-1e15 keeps parity and stays in
  // i64 (every double beyond 2^53 is even).
  Value integral =
      im.create<CmpOp>(CmpPredicate::EQ, im.create<FloorOp>(ef), ef);
  Value bounded = im.create<CastOp>(
      im.create<MinOp>(im.create<MaxOp>(ef, im.scalarConstant(f64, -1e15)),
                       im.scalarConstant(f64, 1e15)),
      i64);
  Value exact = integerPow(im, *base, bounded);
  Value viaFloat = im.create<CastOp>(
      im.create<PowOp>(im.create<CastOp>(*base, f64), ef), elem);
  im.setOutput(0, im.create<WhereOp>(integral, exact, viaFloat));
  return success();
}

/// Variadic Max/Min/Sum as a chain of binary ops; on known integers (shape
/// arithmetic) folded with `fold`.
template <typename OpT>
static LogicalResult convertVariadic(
    GraphImporter &im,
    function_ref<std::optional<int64_t>(int64_t, int64_t)> fold = nullptr) {
  if (fold && im.numInputs() > 0) {
    std::optional<KnownInts> acc;
    if (const KnownInts *first = im.knownInput(0))
      acc = *first;
    for (unsigned i = 1; acc && i < im.numInputs(); ++i) {
      const KnownInts *next = im.knownInput(i);
      if (!next || next->elementType != acc->elementType) {
        acc.reset();
        break;
      }
      acc = foldKnown({&*acc, next}, acc->elementType,
                      [&](ArrayRef<int64_t> v) { return fold(v[0], v[1]); });
    }
    if (acc) {
      im.setKnownOutput(0, std::move(*acc));
      return success();
    }
  }
  FailureOr<Value> acc = chainInputs<OpT>(im);
  if (failed(acc))
    return failure();
  im.setOutput(0, *acc);
  return success();
}

static LogicalResult convertCompare(GraphImporter &im, CmpPredicate pred) {
  if (failed(checkSameElementType(im, 0, 1)))
    return failure();
  const KnownInts *a = im.knownInput(0), *b = im.knownInput(1);
  if (a && b) {
    auto cmp = [pred](ArrayRef<int64_t> v) -> std::optional<int64_t> {
      switch (pred) {
      case CmpPredicate::EQ:
        return v[0] == v[1];
      case CmpPredicate::NE:
        return v[0] != v[1];
      case CmpPredicate::LT:
        return v[0] < v[1];
      case CmpPredicate::LE:
        return v[0] <= v[1];
      case CmpPredicate::GT:
        return v[0] > v[1];
      case CmpPredicate::GE:
        return v[0] >= v[1];
      }
      return std::nullopt;
    };
    if (std::optional<KnownInts> r =
            foldKnown({a, b}, im.builder().getI1Type(), cmp)) {
      im.setKnownOutput(0, std::move(*r));
      return success();
    }
  }
  FailureOr<Value> lhs = im.input(0), rhs = im.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  im.setOutput(0, im.create<CmpOp>(pred, *lhs, *rhs));
  return success();
}

static LogicalResult convertWhere(GraphImporter &im) {
  RankedTensorType cond = im.inputType(0);
  if (cond && !cond.getElementType().isInteger(1))
    return im.error() << "condition must be a bool tensor, got " << cond,
           failure();
  if (failed(checkSameElementType(im, 1, 2)))
    return failure();
  const KnownInts *c = im.knownInput(0), *x = im.knownInput(1),
                  *y = im.knownInput(2);
  if (c && x && y)
    if (std::optional<KnownInts> r =
            foldKnown({c, x, y}, x->elementType,
                      [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                        return v[0] ? v[1] : v[2];
                      })) {
      im.setKnownOutput(0, std::move(*r));
      return success();
    }
  FailureOr<Value> cv = im.input(0), xv = im.input(1), yv = im.input(2);
  if (failed(cv) || failed(xv) || failed(yv))
    return failure();
  im.setOutput(0, im.create<WhereOp>(*cv, *xv, *yv));
  return success();
}

static LogicalResult convertClip(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  FailureOr<std::optional<double>> lo = im.constantScalar(1, "min");
  FailureOr<std::optional<double>> hi = im.constantScalar(2, "max");
  if (failed(lo) || failed(hi))
    return failure();
  if (*lo && *hi && **lo > **hi)
    return im.error() << "min (" << **lo << ") exceeds max (" << **hi << ")",
           failure();
  FloatAttr loAttr = *lo ? im.builder().getF32FloatAttr(**lo) : FloatAttr();
  FloatAttr hiAttr = *hi ? im.builder().getF32FloatAttr(**hi) : FloatAttr();
  im.setOutput(0, im.create<ClipOp>(*x, loAttr, hiAttr));
  return success();
}

/// clip(alpha * x + beta, 0, 1).
static FailureOr<Value> hardSigmoid(GraphImporter &im, Value x, double alpha,
                                    double beta) {
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  if (!isa<FloatType>(elem))
    return im.error() << "expects a float input, got " << x.getType(),
           failure();
  Value scaled = im.create<MulOp>(x, im.scalarConstant(elem, alpha));
  Value shifted = im.create<AddOp>(scaled, im.scalarConstant(elem, beta));
  OpBuilder &b = im.builder();
  return Value(im.create<ClipOp>(shifted, b.getF32FloatAttr(0.0f),
                                 b.getF32FloatAttr(1.0f)));
}

static LogicalResult convertHardSigmoid(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  bool ok = true;
  Value y = computeInF32(im, *x, [&](Value wide) -> Value {
    FailureOr<Value> r = hardSigmoid(im, wide, im.attrFloat("alpha", 0.2f),
                                     im.attrFloat("beta", 0.5f));
    ok = succeeded(r);
    return ok ? *r : Value();
  });
  if (!ok)
    return failure();
  im.setOutput(0, y);
  return success();
}

static LogicalResult convertHardSwish(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  bool ok = true;
  Value y = computeInF32(im, *x, [&](Value wide) -> Value {
    FailureOr<Value> gate = hardSigmoid(im, wide, 1.0 / 6.0, 0.5);
    ok = succeeded(gate);
    return ok ? Value(im.create<MulOp>(wide, *gate)) : Value();
  });
  if (!ok)
    return failure();
  im.setOutput(0, y);
  return success();
}

static LogicalResult convertReciprocal(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  Type elem = cast<RankedTensorType>(x->getType()).getElementType();
  im.setOutput(0, im.create<DivOp>(im.scalarConstant(elem, 1.0), *x));
  return success();
}

static LogicalResult convertGelu(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  std::string approx = im.attrString("approximate", "none");
  GeluApproximation mode;
  if (approx == "none")
    mode = GeluApproximation::None;
  else if (approx == "tanh")
    mode = GeluApproximation::Tanh;
  else
    return im.error() << "unknown approximate '" << approx
                      << "' (expected 'none' or 'tanh')",
           failure();
  im.setOutput(0, im.create<GeluOp>(*x, mode));
  return success();
}

/// Whether Dropout's input #1 (ratio) is a constant 0: no element is dropped
/// and the scale 1 / (1 - ratio) is 1, so even training mode is the identity
/// (torchvision's Swin exports its attention dropout with training_mode
/// true and ratio 0).
static bool isZeroRatio(GraphImporter &im) {
  if (!im.hasInput(1))
    return false; // the default ratio is 0.5
  FailureOr<Value> ratio = im.input(1);
  if (failed(ratio))
    return false;
  auto c = ratio->getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  if (!dense || !isa<FloatType>(dense.getElementType()) ||
      dense.getNumElements() != 1)
    return false;
  return (*dense.getValues<APFloat>().begin()).isZero();
}

static LogicalResult convertPassThrough(GraphImporter &im) {
  if (im.node().op_type() == "Dropout" && im.hasInput(2)) {
    const KnownInts *training = im.knownInput(2);
    bool inference =
        training && !training->values.empty() && training->values[0] == 0;
    if (!inference && !(training && isZeroRatio(im)))
      return im.error() << "training_mode must be a constant false for "
                           "inference (or the ratio a constant 0)",
             failure();
  }
  if (const KnownInts *k = im.knownInput(0)) {
    im.setKnownOutput(0, *k);
    return success();
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, *x);
  return success();
}

static LogicalResult convertCast(GraphImporter &im) {
  int64_t to = im.attrInt("to", 0);
  Type target = im.elementType(to);
  if (!target)
    return im.error() << "cast to unsupported element type "
                      << onnxTypeName(to),
           failure();
  return convertCastTo(im, target);
}

LogicalResult mlir::tandem::onnx_import::convertCastTo(GraphImporter &im,
                                                       Type target) {
  // Known integers stay known for the types KnownInts tracks; a cast to
  // any other integer type is left to the IR, which folds it exactly.
  if (const KnownInts *k = im.knownInput(0))
    if (isKnownIntType(target)) {
      KnownInts r = *k;
      r.elementType = target;
      if (target.isInteger(1))
        for (int64_t &v : r.values)
          v = v != 0;
      else if (target.isInteger(32))
        for (int64_t &v : r.values)
          v = static_cast<int32_t>(v);
      im.setKnownOutput(0, std::move(r));
      return success();
    }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<CastOp>(*x, target));
  return success();
}

static LogicalResult convertSoftmax(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  im.setOutput(0, im.create<SoftmaxOp>(*x, *axis));
  return success();
}

void mlir::tandem::onnx_import::registerElementwiseConverters(
    ConverterMap &map) {
  map["Add"] = [](GraphImporter &im) {
    return convertBinary<AddOp>(
        im, [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
          int64_t r;
          if (llvm::AddOverflow(v[0], v[1], r))
            return std::nullopt;
          return r;
        });
  };
  map["Sub"] = [](GraphImporter &im) {
    return convertBinary<SubOp>(
        im, [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
          int64_t r;
          if (llvm::SubOverflow(v[0], v[1], r))
            return std::nullopt;
          return r;
        });
  };
  map["Mul"] = [](GraphImporter &im) {
    return convertBinary<MulOp>(
        im, [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
          int64_t r;
          if (llvm::MulOverflow(v[0], v[1], r))
            return std::nullopt;
          return r;
        });
  };
  map["Div"] = [](GraphImporter &im) {
    return convertBinary<DivOp>(
        im, [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
          if (v[1] == 0 || (v[0] == INT64_MIN && v[1] == -1))
            return std::nullopt;
          return v[0] / v[1];
        });
  };
  map["Pow"] = convertPow;
  map["Max"] = [](GraphImporter &im) {
    return convertVariadic<MaxOp>(
        im, [](int64_t a, int64_t b) -> std::optional<int64_t> {
          return std::max(a, b);
        });
  };
  map["Min"] = [](GraphImporter &im) {
    return convertVariadic<MinOp>(
        im, [](int64_t a, int64_t b) -> std::optional<int64_t> {
          return std::min(a, b);
        });
  };
  map["Sum"] = [](GraphImporter &im) {
    return convertVariadic<AddOp>(
        im, [](int64_t a, int64_t b) -> std::optional<int64_t> {
          int64_t r;
          if (llvm::AddOverflow(a, b, r))
            return std::nullopt;
          return r;
        });
  };
  map["Equal"] = [](GraphImporter &im) {
    return convertCompare(im, CmpPredicate::EQ);
  };
  map["Less"] = [](GraphImporter &im) {
    return convertCompare(im, CmpPredicate::LT);
  };
  map["LessOrEqual"] = [](GraphImporter &im) {
    return convertCompare(im, CmpPredicate::LE);
  };
  map["Greater"] = [](GraphImporter &im) {
    return convertCompare(im, CmpPredicate::GT);
  };
  map["GreaterOrEqual"] = [](GraphImporter &im) {
    return convertCompare(im, CmpPredicate::GE);
  };
  map["Where"] = convertWhere;
  map["Relu"] = convertUnary<ReluOp>;
  map["Sigmoid"] = convertUnary<SigmoidOp>;
  map["Tanh"] = convertUnary<TanhOp>;
  map["Exp"] = convertUnary<ExpOp>;
  map["Log"] = convertUnary<LogOp>;
  map["Sqrt"] = convertUnary<SqrtOp>;
  map["Erf"] = convertUnary<ErfOp>;
  map["Neg"] = convertNegOrAbs<NegOp, /*IsNeg=*/true>;
  map["Abs"] = convertNegOrAbs<AbsOp, /*IsNeg=*/false>;
  map["Reciprocal"] = convertReciprocal;
  map["Clip"] = convertClip;
  map["HardSigmoid"] = convertHardSigmoid;
  map["HardSwish"] = convertHardSwish;
  map["Gelu"] = convertGelu;
  map["Identity"] = convertPassThrough;
  map["Dropout"] = convertPassThrough;
  map["Cast"] = convertCast;
  map["Softmax"] = convertSoftmax;
  registerActivationConverters(map);
  registerMathConverters(map);
}
