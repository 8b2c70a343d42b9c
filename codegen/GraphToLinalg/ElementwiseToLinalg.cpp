//===- ElementwiseToLinalg.cpp - elementwise tandem ops to linalg ---------===//
//
// Unary and binary elementwise ops (binary ones broadcast like NumPy through
// their indexing maps: arithmetic, remainders, bitwise ops and shifts), the
// trigonometric and rounding functions, cmp, where, cast, clip, gelu,
// bias_add and inference batch_norm. Each becomes one linalg.generic with all
// loops parallel.
//
//===----------------------------------------------------------------------===//

#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "codegen/LinalgPayloads.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::linalg_lowering;

namespace {

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }
/// Whether `v` is an unsigned integer (ui8 ...): the scalar bodies see the
/// tandem element types and pick the unsigned arith ops for them.
bool isUnsigned(Value v) { return isUnsignedInt(v.getType()); }

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

/// The scalar computation of each unary op.
Value unaryScalar(ReluOp, OpBuilder &b, Location loc, Value x) {
  if (isUnsigned(x))
    return x; // never negative
  Value zero = scalarConstant(b, loc, x.getType(), 0.0);
  if (isFloat(x))
    return arith::MaximumFOp::create(b, loc, x, zero);
  return arith::MaxSIOp::create(b, loc, x, zero);
}
Value unaryScalar(SigmoidOp, OpBuilder &b, Location loc, Value x) {
  return buildSigmoid(b, loc, x);
}
/// `MathOp` on `x`, computed in f32 for narrower floats: libm and libdevice
/// have no f16 or bf16 forms of the trigonometric and hyperbolic functions,
/// and tanh's expansion evaluated in f16 is 0 for |x| below 5e-4.
template <typename MathOp> Value inF32(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  if (type.isF32() || type.isF64())
    return MathOp::create(b, loc, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, type, MathOp::create(b, loc, wide));
}
/// tanh; f64 as its odd Taylor polynomial through x^7 below |x| = 0.01
/// (relative error under 1e-17) and copysign((1 - e) / (1 + e), x) with
/// e = exp(-2|x|) elsewhere (under 1e-14): math.tanh's exp-based expansion
/// in the pipelines loses the relative precision of tiny x (1e-7 at
/// 1e-10), which f64 users would notice.
Value unaryScalar(TanhOp, OpBuilder &b, Location loc, Value x) {
  if (!x.getType().isF64())
    return inF32<math::TanhOp>(b, loc, x);
  Type t = x.getType();
  auto c = [&](double v) { return scalarConstant(b, loc, t, v); };
  Value ax = math::AbsFOp::create(b, loc, x);
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value poly = c(-17.0 / 315.0);
  for (double coefficient : {2.0 / 15.0, -1.0 / 3.0, 1.0})
    poly = arith::AddFOp::create(b, loc, c(coefficient),
                                 arith::MulFOp::create(b, loc, x2, poly));
  Value series = arith::MulFOp::create(b, loc, x, poly);
  Value e =
      math::ExpOp::create(b, loc, arith::MulFOp::create(b, loc, c(-2.0), ax));
  Value ratio =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, c(1.0), e),
                            arith::AddFOp::create(b, loc, c(1.0), e));
  Value signed_ = math::CopySignOp::create(b, loc, ratio, x);
  Value small =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, ax, c(0.01));
  return arith::SelectOp::create(b, loc, small, series, signed_);
}
Value unaryScalar(ExpOp, OpBuilder &b, Location loc, Value x) {
  return math::ExpOp::create(b, loc, x);
}
Value unaryScalar(LogOp, OpBuilder &b, Location loc, Value x) {
  return math::LogOp::create(b, loc, x);
}
Value unaryScalar(SqrtOp, OpBuilder &b, Location loc, Value x) {
  return math::SqrtOp::create(b, loc, x);
}
Value unaryScalar(RsqrtOp, OpBuilder &b, Location loc, Value x) {
  return math::RsqrtOp::create(b, loc, x);
}
Value unaryScalar(ErfOp, OpBuilder &b, Location loc, Value x) {
  return math::ErfOp::create(b, loc, x);
}
Value unaryScalar(NegOp, OpBuilder &b, Location loc, Value x) {
  if (isFloat(x))
    return arith::NegFOp::create(b, loc, x);
  return arith::SubIOp::create(b, loc, scalarConstant(b, loc, x.getType(), 0),
                               x);
}
Value unaryScalar(AbsOp, OpBuilder &b, Location loc, Value x) {
  if (isFloat(x))
    return math::AbsFOp::create(b, loc, x);
  if (isUnsigned(x))
    return x;
  return math::AbsIOp::create(b, loc, x);
}

Value unaryScalar(SinOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::SinOp>(b, loc, x);
}
Value unaryScalar(CosOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::CosOp>(b, loc, x);
}
Value unaryScalar(TanOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::TanOp>(b, loc, x);
}
Value unaryScalar(AsinOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::AsinOp>(b, loc, x);
}
Value unaryScalar(AcosOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::AcosOp>(b, loc, x);
}
Value unaryScalar(AtanOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::AtanOp>(b, loc, x);
}
Value unaryScalar(SinhOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::SinhOp>(b, loc, x);
}
Value unaryScalar(CoshOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::CoshOp>(b, loc, x);
}
Value unaryScalar(AsinhOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::AsinhOp>(b, loc, x);
}
Value unaryScalar(AcoshOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::AcoshOp>(b, loc, x);
}
Value unaryScalar(AtanhOp, OpBuilder &b, Location loc, Value x) {
  return inF32<math::AtanhOp>(b, loc, x);
}
Value unaryScalar(FloorOp, OpBuilder &b, Location loc, Value x) {
  return math::FloorOp::create(b, loc, x);
}
Value unaryScalar(CeilOp, OpBuilder &b, Location loc, Value x) {
  return math::CeilOp::create(b, loc, x);
}
Value unaryScalar(RoundOp, OpBuilder &b, Location loc, Value x) {
  return math::RoundEvenOp::create(b, loc, x);
}

/// Lowers a unary op whose scalar form is `unaryScalar(OpTy, ...)`.
template <typename OpTy> struct UnaryToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result =
        buildElementwise(rewriter, op.getLoc(), type, adaptor.getInput(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return unaryScalar(op, b, loc, args[0]);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// gelu: exact (erf) or tanh approximation, as the op documents.
struct GeluToGeneric : OpConversionPattern<GeluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool useTanh = op.getApproximate() == GeluApproximation::Tanh;
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        adaptor.getInput(), [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = args[0];
          Type t = x.getType();
          Value half = scalarConstant(b, loc, t, 0.5);
          Value one = scalarConstant(b, loc, t, 1.0);
          Value inner;
          if (useTanh) {
            // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
            Value x3 = arith::MulFOp::create(
                b, loc, x, arith::MulFOp::create(b, loc, x, x));
            Value poly = arith::AddFOp::create(
                b, loc, x,
                arith::MulFOp::create(b, loc,
                                      scalarConstant(b, loc, t, 0.044715), x3));
            Value scaled = arith::MulFOp::create(
                b, loc, scalarConstant(b, loc, t, std::sqrt(2.0 / M_PI)), poly);
            inner = math::TanhOp::create(b, loc, scaled);
          } else {
            // erf(x / sqrt(2))
            Value scaled = arith::MulFOp::create(
                b, loc, x, scalarConstant(b, loc, t, 1.0 / std::sqrt(2.0)));
            inner = math::ErfOp::create(b, loc, scaled);
          }
          Value onePlus = arith::AddFOp::create(b, loc, one, inner);
          return arith::MulFOp::create(
              b, loc, arith::MulFOp::create(b, loc, x, half), onePlus);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// clip: max with the lower bound, then min with the upper one.
struct ClipToGeneric : OpConversionPattern<ClipOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<double> lo, hi;
    if (auto attr = op.getMinAttr())
      lo = attr.getValueAsDouble();
    if (auto attr = op.getMaxAttr())
      hi = attr.getValueAsDouble();
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        adaptor.getInput(), [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = args[0];
          Type t = x.getType();
          bool fp = isFloat(x), u = isUnsigned(x);
          // An unsigned x is never below a negative bound; a negative upper
          // bound clamps it to 0.
          if (lo && !(u && *lo <= 0)) {
            Value c = scalarConstant(b, loc, t, fp ? *lo : std::ceil(*lo));
            x = fp  ? Value(arith::MaximumFOp::create(b, loc, x, c))
                : u ? Value(arith::MaxUIOp::create(b, loc, x, c))
                    : Value(arith::MaxSIOp::create(b, loc, x, c));
          }
          if (hi) {
            double bound = fp ? *hi : std::floor(*hi);
            Value c =
                scalarConstant(b, loc, t, u ? std::max(bound, 0.0) : bound);
            x = fp  ? Value(arith::MinimumFOp::create(b, loc, x, c))
                : u ? Value(arith::MinUIOp::create(b, loc, x, c))
                    : Value(arith::MinSIOp::create(b, loc, x, c));
          }
          return x;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Binary, cmp, where
//===----------------------------------------------------------------------===//

template <typename FOp, typename IOp>
Value floatOrInt(OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l))
    return FOp::create(b, loc, l, r);
  return IOp::create(b, loc, l, r);
}

/// FOp on floats, UOp on unsigned and SOp on signed integers.
template <typename FOp, typename SOp, typename UOp>
Value bySignedness(OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l))
    return FOp::create(b, loc, l, r);
  if (isUnsigned(l))
    return UOp::create(b, loc, l, r);
  return SOp::create(b, loc, l, r);
}

Value binaryScalar(AddOp, OpBuilder &b, Location loc, Value l, Value r) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, l, r);
}
Value binaryScalar(SubOp, OpBuilder &b, Location loc, Value l, Value r) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, l, r);
}
Value binaryScalar(MulOp, OpBuilder &b, Location loc, Value l, Value r) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, l, r);
}
/// Integer division truncates toward zero (ONNX Div); unsigned operands
/// divide as unsigned (uint8 250 / 3 is 83). Where ONNX leaves integer
/// division undefined and the CPU would trap, it does not: x / 0 is 0 (as
/// Mod's remainder by 0) and, signed, MIN / -1 wraps to MIN (as -x does).
Value binaryScalar(DivOp, OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l))
    return arith::DivFOp::create(b, loc, l, r);
  Type t = l.getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1);
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, zero);
  if (isUnsigned(l)) {
    Value q = arith::DivUIOp::create(
        b, loc, l, arith::SelectOp::create(b, loc, byZero, one, r));
    return arith::SelectOp::create(b, loc, byZero, zero, q);
  }
  Value byMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r,
                                           scalarConstant(b, loc, t, -1));
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one, r);
  Value q = arith::DivSIOp::create(b, loc, l, safe);
  q = arith::SelectOp::create(b, loc, byMinusOne,
                              arith::SubIOp::create(b, loc, zero, l), q);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}
Value binaryScalar(PowOp, OpBuilder &b, Location loc, Value l, Value r) {
  return math::PowFOp::create(b, loc, l, r);
}
/// Integer remainders divide by 1 where the divisor is 0 or -1 (the result
/// is then 0), so that no division traps; `fmod = false` moves a non-zero
/// remainder to the divisor's sign. Unsigned remainders are remui (both
/// forms agree), by 1 where the divisor is 0.
Value binaryScalar(ModOp op, OpBuilder &b, Location loc, Value l, Value r) {
  if (isFloat(l))
    return arith::RemFOp::create(b, loc, l, r);
  Type t = l.getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1);
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, zero);
  if (isUnsigned(l))
    return arith::RemUIOp::create(
        b, loc, l, arith::SelectOp::create(b, loc, isZero, one, r));
  Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r,
                                           scalarConstant(b, loc, t, -1));
  Value divisor = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, isZero, isMinusOne), one, r);
  Value rem = arith::RemSIOp::create(b, loc, l, divisor);
  if (op.getFmod())
    return rem;
  Value remNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
  Value divisorNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, divisor, zero);
  Value remNonZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rem, zero);
  Value signsDiffer =
      arith::XOrIOp::create(b, loc, remNegative, divisorNegative);
  Value adjust = arith::AndIOp::create(b, loc, remNonZero, signsDiffer);
  return arith::SelectOp::create(
      b, loc, adjust, arith::AddIOp::create(b, loc, rem, divisor), rem);
}
Value binaryScalar(AndOp, OpBuilder &b, Location loc, Value l, Value r) {
  return arith::AndIOp::create(b, loc, l, r);
}
Value binaryScalar(OrOp, OpBuilder &b, Location loc, Value l, Value r) {
  return arith::OrIOp::create(b, loc, l, r);
}
Value binaryScalar(XorOp, OpBuilder &b, Location loc, Value l, Value r) {
  return arith::XOrIOp::create(b, loc, l, r);
}
/// A logical shift; an amount outside [0, bit width) (compared unsigned)
/// gives 0 instead of LLVM's poison.
template <typename ShiftOp>
Value logicalShift(OpBuilder &b, Location loc, Value l, Value r) {
  Type t = l.getType();
  Value zero = scalarConstant(b, loc, t, 0);
  Value inRange = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, r,
      scalarConstant(b, loc, t, t.getIntOrFloatBitWidth()));
  Value amount = arith::SelectOp::create(b, loc, inRange, r, zero);
  return arith::SelectOp::create(b, loc, inRange,
                                 ShiftOp::create(b, loc, l, amount), zero);
}
Value binaryScalar(ShiftLeftOp, OpBuilder &b, Location loc, Value l, Value r) {
  return logicalShift<arith::ShLIOp>(b, loc, l, r);
}
Value binaryScalar(ShiftRightOp, OpBuilder &b, Location loc, Value l, Value r) {
  return logicalShift<arith::ShRUIOp>(b, loc, l, r);
}
Value binaryScalar(MaxOp, OpBuilder &b, Location loc, Value l, Value r) {
  return bySignedness<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(b, loc,
                                                                         l, r);
}
Value binaryScalar(MinOp, OpBuilder &b, Location loc, Value l, Value r) {
  return bySignedness<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(b, loc,
                                                                         l, r);
}

/// Lowers a broadcasting binary op whose scalar form is `binaryScalar`.
template <typename OpTy> struct BinaryToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return binaryScalar(op, b, loc, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CmpToGeneric : OpConversionPattern<CmpOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CmpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CmpPredicate pred = op.getPredicate();
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value l = args[0], r = args[1];
          if (isFloat(l)) {
            // Ordered comparisons, except `ne`, which is true for NaN.
            arith::CmpFPredicate p = arith::CmpFPredicate::OEQ;
            switch (pred) {
            case CmpPredicate::EQ:
              p = arith::CmpFPredicate::OEQ;
              break;
            case CmpPredicate::NE:
              p = arith::CmpFPredicate::UNE;
              break;
            case CmpPredicate::LT:
              p = arith::CmpFPredicate::OLT;
              break;
            case CmpPredicate::LE:
              p = arith::CmpFPredicate::OLE;
              break;
            case CmpPredicate::GT:
              p = arith::CmpFPredicate::OGT;
              break;
            case CmpPredicate::GE:
              p = arith::CmpFPredicate::OGE;
              break;
            }
            return arith::CmpFOp::create(b, loc, p, l, r);
          }
          // Booleans (false < true) and the unsigned types compare as
          // unsigned (uint8 200 > 100); the signless ones as signed.
          bool u = l.getType().isInteger(1) || isUnsigned(l);
          arith::CmpIPredicate p = arith::CmpIPredicate::eq;
          switch (pred) {
          case CmpPredicate::EQ:
            p = arith::CmpIPredicate::eq;
            break;
          case CmpPredicate::NE:
            p = arith::CmpIPredicate::ne;
            break;
          case CmpPredicate::LT:
            p = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
            break;
          case CmpPredicate::LE:
            p = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
            break;
          case CmpPredicate::GT:
            p = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
            break;
          case CmpPredicate::GE:
            p = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
            break;
          }
          return arith::CmpIOp::create(b, loc, p, l, r);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct WhereToGeneric : OpConversionPattern<WhereOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getCondition(), adaptor.getOnTrue(),
                   adaptor.getOnFalse()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CastToGeneric : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type to = cast<RankedTensorType>(op.getType()).getElementType();
    rewriter.replaceOp(
        op, castTensor(rewriter, op.getLoc(), adaptor.getInput(), to));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// bias_add, batch_norm
//===----------------------------------------------------------------------===//

/// The map reading a 1-D per-channel parameter at dim `axis` of a rank-`rank`
/// loop nest.
AffineMap channelMap(MLIRContext *ctx, int64_t rank, int64_t axis) {
  return AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx), ctx);
}

struct BiasAddToGeneric : OpConversionPattern<BiasAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BiasAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    AffineMap maps[] = {rewriter.getMultiDimIdentityMap(rank),
                        channelMap(getContext(), rank, op.getAxis())};
    Value result = buildElementwiseWithMaps(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getInput(), adaptor.getBias()}, maps,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return arith::AddFOp::create(b, loc, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BatchNormToGeneric : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    AffineMap channel = channelMap(getContext(), rank, op.getAxis());
    AffineMap maps[] = {rewriter.getMultiDimIdentityMap(rank), channel, channel,
                        channel, channel};
    double epsilon = op.getEpsilonAttr().getValueAsDouble();
    Value result = buildElementwiseWithMaps(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getInput(), adaptor.getScale(), adaptor.getBias(),
                   adaptor.getMean(), adaptor.getVariance()},
        maps, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = args[0], scale = args[1], bias = args[2], mean = args[3],
                var = args[4];
          Value eps = scalarConstant(b, loc, x.getType(), epsilon);
          Value inv = math::RsqrtOp::create(
              b, loc, arith::AddFOp::create(b, loc, var, eps));
          Value centred = arith::SubFOp::create(b, loc, x, mean);
          Value scaled = arith::MulFOp::create(
              b, loc, centred, arith::MulFOp::create(b, loc, inv, scale));
          return arith::AddFOp::create(b, loc, scaled, bias);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tandem::linalg_lowering::populateElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<UnaryToGeneric<ReluOp>, UnaryToGeneric<SigmoidOp>,
           UnaryToGeneric<TanhOp>, UnaryToGeneric<ExpOp>, UnaryToGeneric<LogOp>,
           UnaryToGeneric<SqrtOp>, UnaryToGeneric<RsqrtOp>,
           UnaryToGeneric<ErfOp>, UnaryToGeneric<NegOp>, UnaryToGeneric<AbsOp>>(
          ctx);
  patterns.add<
      UnaryToGeneric<SinOp>, UnaryToGeneric<CosOp>, UnaryToGeneric<TanOp>,
      UnaryToGeneric<AsinOp>, UnaryToGeneric<AcosOp>, UnaryToGeneric<AtanOp>,
      UnaryToGeneric<SinhOp>, UnaryToGeneric<CoshOp>, UnaryToGeneric<AsinhOp>,
      UnaryToGeneric<AcoshOp>, UnaryToGeneric<AtanhOp>, UnaryToGeneric<FloorOp>,
      UnaryToGeneric<CeilOp>, UnaryToGeneric<RoundOp>>(ctx);
  patterns.add<
      BinaryToGeneric<AddOp>, BinaryToGeneric<SubOp>, BinaryToGeneric<MulOp>,
      BinaryToGeneric<DivOp>, BinaryToGeneric<PowOp>, BinaryToGeneric<MaxOp>,
      BinaryToGeneric<MinOp>, BinaryToGeneric<ModOp>, BinaryToGeneric<AndOp>,
      BinaryToGeneric<OrOp>, BinaryToGeneric<XorOp>,
      BinaryToGeneric<ShiftLeftOp>, BinaryToGeneric<ShiftRightOp>>(ctx);
  patterns.add<GeluToGeneric, ClipToGeneric, CmpToGeneric, WhereToGeneric,
               CastToGeneric, BiasAddToGeneric, BatchNormToGeneric>(ctx);
}
