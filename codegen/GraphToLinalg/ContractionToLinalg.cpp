//===- ContractionToLinalg.cpp - matmul, gemm and conv2d to linalg --------===//
//
// matmul (linalg.matmul / batch_matmul, or a broadcasting linalg.generic),
// gemm (transposes, alpha/beta/C epilogue) and conv2d (tensor.pad, then
// conv_2d_nchw_fchw, depthwise_conv_2d_nchw_chw or conv_2d_ngchw_gfchw by
// groups, in GPU partitions a grouped generic; NHWC ones conv_2d_nhwc_fhwc
// or a grouped generic; accumulating
// into the broadcast bias). f16/bf16 accumulate in f32, i32 in i32.
//
//===----------------------------------------------------------------------===//

#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::linalg_lowering;

namespace {

/// The body of a generic contraction: yields out + a * b, the operands
/// (a, b, out) converted to the accumulator type `acc`.
void yieldMultiplyAdd(OpBuilder &b, Location loc, ValueRange args, Type acc) {
  Value l = convertScalar(b, loc, args[0], acc);
  Value r = convertScalar(b, loc, args[1], acc);
  Value sum;
  if (isa<FloatType>(acc))
    sum = arith::AddFOp::create(b, loc, args[2],
                                arith::MulFOp::create(b, loc, l, r));
  else
    sum = arith::AddIOp::create(b, loc, args[2],
                                arith::MulIOp::create(b, loc, l, r));
  linalg::YieldOp::create(b, loc, sum);
}

/// A zero-filled accumulator of `shape` and element type `acc`.
Value zeroAccumulator(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                      Type acc) {
  return createFilled(b, loc, RankedTensorType::get(shape, acc),
                      scalarConstant(b, loc, acc, 0.0));
}

/// `[0, 1, ..., n)`.
ReassociationIndices range(int64_t from, int64_t to) {
  ReassociationIndices r;
  for (int64_t i = from; i < to; ++i)
    r.push_back(i);
  return r;
}

/// A 2-D linalg.matmul of `lhs` (M x K) and `rhs` (K x N) accumulating in
/// `acc`.
Value matmul2D(OpBuilder &b, Location loc, Value lhs, Value rhs, Type acc) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  Value init =
      zeroAccumulator(b, loc, {lt.getDimSize(0), rt.getDimSize(1)}, acc);
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

struct MatmulToLinalg : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType(), acc = accumulatorType(elem);
    auto accType = type.clone(acc);
    int64_t rank = type.getRank(), batchRank = rank - 2;
    int64_t m = lt.getDimSize(lt.getRank() - 2),
            k = lt.getDimSize(lt.getRank() - 1),
            n = rt.getDimSize(rt.getRank() - 1);
    Value result;
    if (lt.getRank() == 2 && rt.getRank() == 2) {
      result = matmul2D(rewriter, loc, lhs, rhs, acc);
    } else if (rt.getRank() == 2) {
      // [..., M, K] x [K, N]: fold the batch into M, one 2-D matmul.
      int64_t rows = lt.getNumElements() / k;
      SmallVector<ReassociationIndices> re = {range(0, lt.getRank() - 1),
                                              {lt.getRank() - 1}};
      Value flat = tensor::CollapseShapeOp::create(
          rewriter, loc, RankedTensorType::get({rows, k}, lt.getElementType()),
          lhs, re);
      Value prod = matmul2D(rewriter, loc, flat, rhs, acc);
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, accType, prod,
          SmallVector<ReassociationIndices>{range(0, rank - 1), {rank - 1}});
    } else if (lt.getShape().drop_back(2) == rt.getShape().drop_back(2) &&
               lt.getShape().drop_back(2) == type.getShape().drop_back(2)) {
      // Equal batch dims: collapse them into one and use batch_matmul.
      int64_t batch = 1;
      for (int64_t d : type.getShape().drop_back(2))
        batch *= d;
      SmallVector<ReassociationIndices> re = {
          range(0, batchRank), {batchRank}, {batchRank + 1}};
      Value l3 = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({batch, m, k}, lt.getElementType()), lhs, re);
      Value r3 = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({batch, k, n}, rt.getElementType()), rhs, re);
      Value init = zeroAccumulator(rewriter, loc, {batch, m, n}, acc);
      Value prod = linalg::BatchMatmulOp::create(
                       rewriter, loc, TypeRange{init.getType()},
                       ValueRange{l3, r3}, ValueRange{init})
                       .getResult(0);
      result = tensor::ExpandShapeOp::create(rewriter, loc, accType, prod, re);
    } else {
      // Broadcasting batch dims: one generic over (batch..., m, n, k).
      MLIRContext *ctx = getContext();
      int64_t loops = rank + 1;
      auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
      auto operandMap = [&](RankedTensorType t, AffineExpr r0, AffineExpr r1) {
        SmallVector<AffineExpr> exprs;
        int64_t tb = t.getRank() - 2, offset = batchRank - tb;
        for (int64_t d = 0; d < tb; ++d)
          exprs.push_back(t.getDimSize(d) == 1 &&
                                  type.getDimSize(d + offset) != 1
                              ? getAffineConstantExpr(0, ctx)
                              : dim(d + offset));
        exprs.push_back(r0);
        exprs.push_back(r1);
        return AffineMap::get(loops, 0, exprs, ctx);
      };
      SmallVector<AffineExpr> outExprs;
      for (int64_t d = 0; d < rank; ++d)
        outExprs.push_back(dim(d));
      SmallVector<AffineMap> maps = {
          operandMap(lt, dim(batchRank), dim(rank)),
          operandMap(rt, dim(rank), dim(batchRank + 1)),
          AffineMap::get(loops, 0, outExprs, ctx)};
      SmallVector<utils::IteratorType> iterators(loops,
                                                 utils::IteratorType::parallel);
      iterators.back() = utils::IteratorType::reduction;
      Value init = zeroAccumulator(rewriter, loc, type.getShape(), acc);
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{accType}, ValueRange{lhs, rhs},
                   ValueRange{init}, maps, iterators,
                   [&](OpBuilder &b, Location nloc, ValueRange args) {
                     yieldMultiplyAdd(b, nloc, args, acc);
                   })
                   .getResult(0);
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, elem));
    return success();
  }
};

/// Materialises the transpose of a 2-D tensor.
Value transpose2D(OpBuilder &b, Location loc, Value value) {
  auto t = cast<RankedTensorType>(value.getType());
  Value init = createEmpty(b, loc, t.clone({t.getDimSize(1), t.getDimSize(0)}));
  return linalg::TransposeOp::create(b, loc, value, init,
                                     ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

struct GemmToLinalg : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType(), acc = accumulatorType(elem);
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getC();
    if (op.getTransA())
      a = transpose2D(rewriter, loc, a);
    if (op.getTransB())
      b = transpose2D(rewriter, loc, b);
    Value prod = matmul2D(rewriter, loc, a, b, acc);
    double alpha = op.getAlphaAttr().getValueAsDouble();
    double beta = op.getBetaAttr().getValueAsDouble();
    if (alpha == 1.0 && (!c || beta == 0.0)) {
      rewriter.replaceOp(op, castTensor(rewriter, loc, prod, elem));
      return success();
    }
    // Epilogue: alpha * AB + beta * C, C broadcast to [M, N].
    SmallVector<Value> inputs = {prod};
    if (c && beta != 0.0)
      inputs.push_back(c);
    Value result = buildElementwise(
        rewriter, loc, type, inputs,
        [&](OpBuilder &bb, Location nloc, ValueRange args) {
          Value v = args[0];
          if (alpha != 1.0)
            v = arith::MulFOp::create(bb, nloc, v,
                                      scalarConstant(bb, nloc, acc, alpha));
          if (args.size() > 1) {
            Value cv = convertScalar(bb, nloc, args[1], acc);
            if (beta != 1.0)
              cv = arith::MulFOp::create(bb, nloc, cv,
                                         scalarConstant(bb, nloc, acc, beta));
            v = arith::AddFOp::create(bb, nloc, v, cv);
          }
          return convertScalar(bb, nloc, v, elem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct Conv2DToLinalg : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;

  /// A grouped convolution of the padded `input` with `filter` into `init`
  /// as one 4-D linalg.generic, NCHW over (n, o, oh, ow, c, kh, kw) or NHWC
  /// over (n, oh, ow, o, kh, kw, c), reading input channel
  /// (o floordiv O/groups) * C/groups + c, marked `tandem.conv_groups` with
  /// the named convs' `strides` and `dilations` (tandem-form-library-convs
  /// makes it a library call; the filter's first dimension follows the
  /// output's channel loop). No 5-D views: reshape propagation would carry
  /// them into the elementwise work around the conv.
  static Value groupedGeneric(ConversionPatternRewriter &rewriter, Location loc,
                              Value input, Value filter, Value init,
                              RankedTensorType accType, int64_t groups,
                              bool last, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations,
                              ArrayRef<NamedAttribute> attrs) {
    auto it = cast<RankedTensorType>(input.getType());
    auto ft = cast<RankedTensorType>(filter.getType());
    int64_t cg = it.getDimSize(last ? 3 : 1) / groups;
    int64_t kg = ft.getDimSize(0) / groups;
    MLIRContext *ctx = rewriter.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // The loops' positions in either order.
    AffineExpr n = d(0), o = last ? d(3) : d(1), oh = last ? d(1) : d(2),
               ow = last ? d(2) : d(3), kh = last ? d(4) : d(5),
               kw = last ? d(5) : d(6), c = last ? d(6) : d(4);
    AffineExpr channel = o.floorDiv(kg) * cg + c;
    AffineExpr h = oh * strides[0] + kh * dilations[0];
    AffineExpr w = ow * strides[1] + kw * dilations[1];
    SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0,
                       last ? SmallVector<AffineExpr>{n, h, w, channel}
                            : SmallVector<AffineExpr>{n, channel, h, w},
                       ctx),
        AffineMap::get(7, 0,
                       last ? SmallVector<AffineExpr>{o, kh, kw, c}
                            : SmallVector<AffineExpr>{o, c, kh, kw},
                       ctx),
        AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, ctx)};
    using utils::IteratorType;
    SmallVector<IteratorType> iterators(4, IteratorType::parallel);
    iterators.append(3, IteratorType::reduction);
    Type acc = accType.getElementType();
    auto conv = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accType}, ValueRange{input, filter},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          yieldMultiplyAdd(b, nloc, args, acc);
        });
    for (NamedAttribute attr : attrs)
      conv->setAttr(attr.getName(), attr.getValue());
    conv->setAttr(TandemDialect::getConvGroupsAttrName(),
                  rewriter.getI64IntegerAttr(groups));
    return conv.getResult(0);
  }

  /// Whether `op` is in a GPU partition (its function's `tandem.device`).
  static bool inGPUPartition(Operation *op) {
    auto func = op->getParentOfType<FunctionOpInterface>();
    DeviceAttr device = func ? getDevice(func) : DeviceAttr();
    return device && device.isGPU();
  }

  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType(), acc = accumulatorType(elem);
    auto accType = type.clone(acc);
    Value input = adaptor.getInput(), filter = adaptor.getFilter();
    auto it = cast<RankedTensorType>(input.getType());
    auto ft = cast<RankedTensorType>(filter.getType());
    bool last = op.isChannelsLast();
    int64_t cd = op.getChannelDim();
    int64_t n = it.getDimSize(0), c = it.getDimSize(cd), o = ft.getDimSize(0);
    int64_t groups = op.getGroups();
    ArrayRef<int64_t> pads = op.getPads();

    if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
      Value zero = scalarConstant(rewriter, loc, it.getElementType(), 0.0);
      SmallVector<int64_t> low = {0, 0, pads[0], pads[1]},
                           high = {0, 0, pads[2], pads[3]};
      if (last) {
        low = {0, pads[0], pads[1], 0};
        high = {0, pads[2], pads[3], 0};
      }
      input = padWithConstant(rewriter, loc, input, low, high, zero);
    }

    // The accumulator starts as the broadcast bias (or zero).
    Value init;
    if (Value bias = adaptor.getBias()) {
      AffineMap biasMap[] = {
          AffineMap::get(4, 0, rewriter.getAffineDimExpr(cd), getContext())};
      init = buildElementwiseWithMaps(
          rewriter, loc, accType, bias, biasMap,
          [&](OpBuilder &b, Location nloc, ValueRange args) {
            return convertScalar(b, nloc, args[0], acc);
          });
    } else {
      init = zeroAccumulator(rewriter, loc, type.getShape(), acc);
    }
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("strides",
                              rewriter.getI64TensorAttr(op.getStrides())),
        rewriter.getNamedAttr("dilations",
                              rewriter.getI64TensorAttr(op.getDilations()))};

    Value result;
    bool depthwise = groups == c && o == c && ft.getDimSize(1) == 1;
    if (last && groups == 1) {
      result = linalg::Conv2DNhwcFhwcOp::create(
                   rewriter, loc, TypeRange{accType}, ValueRange{input, filter},
                   ValueRange{init}, attrs)
                   .getResult(0);
    } else if (groups != 1 && (last || (!depthwise && inGPUPartition(op)))) {
      // NHWC grouped convs, and NCHW grouped ones of GPU partitions (the
      // CPU kernels read the 5-D named form below).
      result =
          groupedGeneric(rewriter, loc, input, filter, init, accType, groups,
                         last, op.getStrides(), op.getDilations(), attrs);
    } else if (groups == 1) {
      result = linalg::Conv2DNchwFchwOp::create(
                   rewriter, loc, TypeRange{accType}, ValueRange{input, filter},
                   ValueRange{init}, attrs)
                   .getResult(0);
    } else if (depthwise) {
      // Depthwise, multiplier 1: the filter drops its unit input-channel dim.
      Value filter3 = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({c, ft.getDimSize(2), ft.getDimSize(3)},
                                ft.getElementType()),
          filter, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
      result = linalg::DepthwiseConv2DNchwChwOp::create(
                   rewriter, loc, TypeRange{accType},
                   ValueRange{input, filter3}, ValueRange{init}, attrs)
                   .getResult(0);
    } else {
      // General groups: split C and O into (groups, per-group) and use the
      // grouped named conv.
      auto pt = cast<RankedTensorType>(input.getType());
      SmallVector<ReassociationIndices> splitDim1 = {{0}, {1, 2}, {3}, {4}};
      Value in5 = tensor::ExpandShapeOp::create(
          rewriter, loc,
          pt.clone({n, groups, c / groups, pt.getDimSize(2), pt.getDimSize(3)}),
          input, splitDim1);
      Value f5 = tensor::ExpandShapeOp::create(
          rewriter, loc,
          ft.clone({groups, o / groups, ft.getDimSize(1), ft.getDimSize(2),
                    ft.getDimSize(3)}),
          filter, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
      auto out5 = accType.clone(
          {n, groups, o / groups, type.getDimSize(2), type.getDimSize(3)});
      Value init5 =
          tensor::ExpandShapeOp::create(rewriter, loc, out5, init, splitDim1);
      Value conv = linalg::Conv2DNgchwGfchwOp::create(
                       rewriter, loc, TypeRange{out5}, ValueRange{in5, f5},
                       ValueRange{init5}, attrs)
                       .getResult(0);
      result = tensor::CollapseShapeOp::create(rewriter, loc, accType, conv,
                                               splitDim1);
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, elem));
    return success();
  }
};

} // namespace

void mlir::tandem::linalg_lowering::populateContractionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatmulToLinalg, GemmToLinalg, Conv2DToLinalg>(
      patterns.getContext());
}
