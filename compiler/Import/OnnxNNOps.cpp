//===- OnnxNNOps.cpp - ONNX neural-network ops -> tandem ------------------===//
//
// Conv, Gemm, MatMul, BatchNormalization, pooling, LayerNormalization and the
// reductions. Convolutions, matmuls and softmax stay whole: fusion and
// codegen build on them.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

/// Window attributes shared by Conv and the pools, resolved to explicit
/// [top, left, bottom, right] pads. A 1-D window (N x C x L input) is
/// lifted to 2-D with a unit height: kernel 1 x k, no vertical pads.
struct Window2D {
  SmallVector<int64_t> kernel, strides, pads, dilations;
};

static LogicalResult resolveWindow(GraphImporter &im, RankedTensorType input,
                                   ArrayRef<int64_t> kernel, Window2D &w) {
  int64_t spatial = input.getRank() - 2;
  if (spatial != 1 && spatial != 2)
    return im.error() << "only 1-D (NCL) and 2-D (NCHW) inputs are "
                         "supported, got "
                      << input,
           failure();
  w.kernel.assign(kernel.begin(), kernel.end());
  auto inRange = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values,
                        [](int64_t v) { return v >= 0 && v <= (1 << 30); });
  };
  auto ints = [&](StringRef name, int64_t count, int64_t dflt) {
    std::vector<int64_t> v =
        im.attrInts(name).value_or(std::vector<int64_t>(count, dflt));
    return SmallVector<int64_t>(v.begin(), v.end());
  };
  w.strides = ints("strides", spatial, 1);
  w.dilations = ints("dilations", spatial, 1);
  auto positive = [&](ArrayRef<int64_t> values) {
    return inRange(values) && llvm::all_of(values, [](int64_t v) { return v; });
  };
  if (!positive(w.kernel) || !positive(w.strides) || !positive(w.dilations))
    return im.error() << "kernel_shape, strides and dilations must lie in "
                         "[1, 2^30]",
           failure();
  auto size = static_cast<size_t>(spatial);
  if (w.kernel.size() != size || w.strides.size() != size ||
      w.dilations.size() != size)
    return im.error() << "expects " << spatial
                      << " spatial dims in kernel_shape, strides and "
                         "dilations",
           failure();
  std::string autoPad = im.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    w.pads = ints("pads", 2 * spatial, 0);
    if (w.pads.size() != 2 * size)
      return im.error() << "pads must have " << 2 * spatial << " entries, got "
                        << w.pads.size(),
             failure();
    if (!inRange(w.pads))
      return im.error() << "pads must lie in [0, 2^30]", failure();
  } else if (autoPad == "VALID") {
    w.pads.assign(2 * size, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    w.pads.assign(2 * size, 0);
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t in = input.getDimSize(2 + d);
      int64_t out = llvm::divideCeil(in, w.strides[d]);
      int64_t effective = (w.kernel[d] - 1) * w.dilations[d] + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[d] + effective - in);
      int64_t small = total / 2, large = total - small;
      w.pads[d] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[d + spatial] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else {
    return im.error() << "unknown auto_pad '" << autoPad << "'", failure();
  }
  if (spatial == 1) {
    w.kernel.insert(w.kernel.begin(), 1);
    w.strides.insert(w.strides.begin(), 1);
    w.dilations.insert(w.dilations.begin(), 1);
    w.pads = {0, w.pads[0], 0, w.pads[1]};
  }
  return success();
}

/// An N x C x L tensor (or O x I x K weight) viewed as N x C x 1 x L; 4-D
/// values pass through.
static Value liftTo2D(GraphImporter &im, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() != 3)
    return v;
  return im.create<ReshapeOp>(
      v,
      ArrayRef<int64_t>{t.getDimSize(0), t.getDimSize(1), 1, t.getDimSize(2)});
}

/// Undoes liftTo2D on a result when the node's input was 1-D.
static Value dropTo1D(GraphImporter &im, Value v, bool oneD) {
  if (!oneD || !v)
    return v;
  auto t = cast<RankedTensorType>(v.getType());
  return im.create<ReshapeOp>(
      v, ArrayRef<int64_t>{t.getDimSize(0), t.getDimSize(1), t.getDimSize(3)});
}

FailureOr<Value> mlir::tandem::onnx_import::convolve(GraphImporter &im, Value x,
                                                     Value w, Value bias) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (wType.getRank() != 4 && wType.getRank() != 3)
    return im.error() << "only 1-D and 2-D convolutions are supported, "
                         "weight is "
                      << wType,
           failure();
  if (wType.getRank() != xType.getRank())
    return im.error() << "the weight " << wType << " and the input " << xType
                      << " must have the same rank",
           failure();
  std::vector<int64_t> kernel =
      im.attrInts("kernel_shape")
          .value_or(std::vector<int64_t>(wType.getShape().begin() + 2,
                                         wType.getShape().end()));
  Window2D win;
  if (failed(resolveWindow(im, xType, kernel, win)))
    return failure();
  bool oneD = xType.getRank() == 3;
  Value y =
      im.create<Conv2DOp>(liftTo2D(im, x), liftTo2D(im, w), bias, win.strides,
                          win.pads, win.dilations, im.attrInt("group", 1));
  if (!y)
    return failure();
  return dropTo1D(im, y, oneD);
}

static LogicalResult convertConv(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), w = im.input(1);
  FailureOr<Value> bias = im.optionalInput(2);
  if (failed(x) || failed(w) || failed(bias))
    return failure();
  FailureOr<Value> y = convolve(im, *x, *w, *bias);
  if (failed(y))
    return failure();
  im.setOutput(0, *y);
  return success();
}

/// ConvTranspose as a convolution: the input with stride - 1 zeros inserted
/// between its elements, padded by (k - 1) * d - pad on each side (cropped
/// where that is negative, extended by output_padding at the end), convolved
/// with stride 1 by the kernel flipped in space and with its channel axes
/// swapped per group. Costs stride^2 times the FLOPs of a direct transposed
/// convolution for stride > 1 (the inserted zeros are multiplied).
static LogicalResult convertConvTranspose(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), w = im.input(1);
  FailureOr<Value> bias = im.optionalInput(2);
  if (failed(x) || failed(w) || failed(bias))
    return failure();
  auto xType = cast<RankedTensorType>(x->getType());
  auto wType = cast<RankedTensorType>(w->getType());
  int64_t spatial = xType.getRank() - 2;
  if ((spatial != 1 && spatial != 2) || wType.getRank() != xType.getRank())
    return im.error() << "only 1-D and 2-D transposed convolutions are "
                         "supported, got input "
                      << xType << " and weight " << wType,
           failure();
  int64_t group = im.attrInt("group", 1);
  int64_t c = xType.getDimSize(1);
  if (group <= 0 || c % group != 0 || wType.getDimSize(0) != c)
    return im.error() << "the weight " << wType << " must have " << c
                      << " input channels, divisible by group (" << group
                      << ")",
           failure();
  auto ints = [&](StringRef name, int64_t count, int64_t dflt) {
    return im.attrInts(name).value_or(std::vector<int64_t>(count, dflt));
  };
  std::vector<int64_t> kernel(wType.getShape().begin() + 2,
                              wType.getShape().end());
  std::vector<int64_t> strides = ints("strides", spatial, 1);
  std::vector<int64_t> dilations = ints("dilations", spatial, 1);
  std::vector<int64_t> outputPadding = ints("output_padding", spatial, 0);
  auto size = static_cast<size_t>(spatial);
  if (strides.size() != size || dilations.size() != size ||
      outputPadding.size() != size)
    return im.error() << "expects " << spatial
                      << " spatial dims in strides, dilations and "
                         "output_padding",
           failure();
  auto bounded = [](int64_t v, int64_t lo) {
    return v >= lo && v <= (1 << 20);
  };
  for (int64_t d = 0; d < spatial; ++d)
    if (!bounded(strides[d], 1) || !bounded(dilations[d], 1) ||
        !bounded(outputPadding[d], 0))
      return im.error() << "strides and dilations must lie in [1, 2^20] and "
                           "output_padding in [0, 2^20]",
             failure();
  std::vector<int64_t> full(spatial), pads;
  for (int64_t d = 0; d < spatial; ++d)
    full[d] = strides[d] * (xType.getDimSize(2 + d) - 1) + outputPadding[d] +
              (kernel[d] - 1) * dilations[d] + 1;
  std::string autoPad = im.attrString("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> outputShape = im.attrInts("output_shape");
  if (outputShape && outputShape->size() == size + 2)
    outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
  if (outputShape && outputShape->size() != size)
    return im.error() << "output_shape must have " << spatial << " entries",
           failure();
  if (im.attrInts("pads") && autoPad == "NOTSET") {
    pads = *im.attrInts("pads");
    if (pads.size() != 2 * size)
      return im.error() << "pads must have " << 2 * spatial << " entries",
             failure();
  } else if (autoPad == "NOTSET" || autoPad == "VALID") {
    pads.assign(2 * size, 0);
    // With output_shape and no pads the result is cut (or zero-extended)
    // at the end, as the ONNX reference computes it.
    if (outputShape)
      for (int64_t d = 0; d < spatial; ++d)
        pads[spatial + d] = full[d] - (*outputShape)[d];
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    pads.assign(2 * size, 0);
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t out = outputShape ? (*outputShape)[d]
                                : xType.getDimSize(2 + d) * strides[d];
      int64_t total = full[d] - out;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pads[d] = autoPad == "SAME_UPPER" ? half : total - half;
      pads[spatial + d] = total - pads[d];
    }
  } else {
    return im.error() << "unknown auto_pad '" << autoPad << "'", failure();
  }
  for (int64_t d = 0; d < spatial; ++d)
    if (full[d] - pads[d] - pads[spatial + d] <= 0)
      return im.error() << "the output would have no elements along spatial "
                           "dim "
                        << d,
             failure();

  // Lift 1-D to 2-D with a unit height.
  bool oneD = spatial == 1;
  auto lift = [&](std::vector<int64_t> &v, int64_t unit) {
    if (oneD)
      v.insert(v.begin(), unit);
  };
  lift(kernel, 1);
  lift(strides, 1);
  lift(dilations, 1);
  lift(outputPadding, 0);
  if (oneD)
    pads = {0, pads[0], 0, pads[1]};
  Value in = liftTo2D(im, *x), weight = liftTo2D(im, *w);
  auto inType = cast<RankedTensorType>(in.getType());
  int64_t n = inType.getDimSize(0), h = inType.getDimSize(2),
          wd = inType.getDimSize(3);

  // Insert stride - 1 zeros after every element: [N,C,H,1,W,1] padded to
  // [N,C,H,sh,W,sw], viewed as [N,C,H*sh,W*sw].
  if (strides[0] > 1 || strides[1] > 1) {
    Value v = im.create<ReshapeOp>(in, ArrayRef<int64_t>{n, c, h, 1, wd, 1});
    v = im.create<PadOp>(
        v, ArrayRef<int64_t>{0, 0, 0, 0, 0, 0},
        ArrayRef<int64_t>{0, 0, 0, strides[0] - 1, 0, strides[1] - 1},
        PadMode::Constant, APFloat(0.0));
    in = im.create<ReshapeOp>(
        v, ArrayRef<int64_t>{n, c, h * strides[0], wd * strides[1]});
  }
  // Padding of the dilated input; the zero-inserted tensor already carries
  // stride - 1 trailing zeros.
  SmallVector<int64_t> lo(2), hi(2), cropLo(2, 0), cropHi(2, 0);
  for (int64_t d = 0; d < 2; ++d) {
    int64_t edge = (kernel[d] - 1) * dilations[d];
    lo[d] = edge - pads[d];
    hi[d] = edge - pads[2 + d] + outputPadding[d] - (strides[d] - 1);
    if (lo[d] < 0)
      cropLo[d] = -lo[d], lo[d] = 0;
    if (hi[d] < 0)
      cropHi[d] = -hi[d], hi[d] = 0;
  }
  if (llvm::any_of(cropLo, [](int64_t v) { return v; }) ||
      llvm::any_of(cropHi, [](int64_t v) { return v; })) {
    auto t = cast<RankedTensorType>(in.getType());
    in = im.create<SliceOp>(in, ArrayRef<int64_t>{0, 0, cropLo[0], cropLo[1]},
                            ArrayRef<int64_t>{t.getDimSize(0), t.getDimSize(1),
                                              t.getDimSize(2) - cropHi[0],
                                              t.getDimSize(3) - cropHi[1]},
                            ArrayRef<int64_t>{1, 1, 1, 1});
  }
  // Weight [C, O/g, kh, kw] -> [O, C/g, kh, kw], flipped in space.
  int64_t og = wType.getDimSize(1), kh = kernel[0], kw = kernel[1];
  Value wt = im.create<ReshapeOp>(
      weight, ArrayRef<int64_t>{group, c / group, og, kh, kw});
  wt = im.create<TransposeOp>(wt, ArrayRef<int64_t>{0, 2, 1, 3, 4});
  wt = im.create<ReshapeOp>(wt,
                            ArrayRef<int64_t>{group * og, c / group, kh, kw});
  Type i64 = im.builder().getI64Type();
  for (int64_t axis : {2, 3}) {
    int64_t k = axis == 2 ? kh : kw;
    if (k == 1)
      continue;
    KnownInts reversed{{k}, {}, i64};
    for (int64_t i = k - 1; i >= 0; --i)
      reversed.values.push_back(i);
    wt = im.create<GatherOp>(wt, im.materialize(reversed), axis);
  }
  Value y = im.create<Conv2DOp>(in, wt, *bias, ArrayRef<int64_t>{1, 1},
                                ArrayRef<int64_t>{lo[0], lo[1], hi[0], hi[1]},
                                dilations, group);
  im.setOutput(0, dropTo1D(im, y, oneD));
  return success();
}

static LogicalResult convertGemm(GraphImporter &im) {
  FailureOr<Value> a = im.input(0), b = im.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> c = im.optionalInput(2);
  if (failed(c))
    return failure();
  im.setOutput(0, im.create<GemmOp>(*a, *b, *c, im.attrInt("transA", 0) != 0,
                                    im.attrInt("transB", 0) != 0,
                                    APFloat(im.attrFloat("alpha", 1.0f)),
                                    APFloat(im.attrFloat("beta", 1.0f))));
  return success();
}

FailureOr<Value> mlir::tandem::onnx_import::numpyMatmul(GraphImporter &im,
                                                        Value a, Value b) {
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  // NumPy semantics for 1-D operands: promote, multiply, drop the dim.
  Value lhs = a, rhs = b;
  if (aType.getRank() == 1)
    lhs = im.create<ReshapeOp>(lhs, ArrayRef<int64_t>{1, aType.getDimSize(0)});
  if (bType.getRank() == 1)
    rhs = im.create<ReshapeOp>(rhs, ArrayRef<int64_t>{bType.getDimSize(0), 1});
  Value result = im.create<MatmulOp>(lhs, rhs);
  if (!result)
    return failure();
  if (aType.getRank() == 1 || bType.getRank() == 1) {
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(result.getType()).getShape());
    if (bType.getRank() == 1)
      shape.pop_back();
    if (aType.getRank() == 1)
      shape.erase(shape.end() - (bType.getRank() == 1 ? 1 : 2));
    result = im.create<ReshapeOp>(result, shape);
  }
  if (!result)
    return failure();
  return result;
}

static LogicalResult convertMatMul(GraphImporter &im) {
  FailureOr<Value> a = im.input(0), b = im.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = numpyMatmul(im, *a, *b);
  if (failed(y))
    return failure();
  im.setOutput(0, *y);
  return success();
}

static LogicalResult convertBatchNorm(GraphImporter &im) {
  if (im.attrInt("training_mode", 0) != 0)
    return im.error() << "training_mode = 1 is not supported (inference only)",
           failure();
  if (failed(im.checkUnusedOutputs(1)))
    return failure();
  SmallVector<Value, 5> in;
  for (unsigned i = 0; i < 5; ++i) {
    FailureOr<Value> v = im.input(i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  im.setOutput(0,
               im.create<BatchNormOp>(in[0], in[1], in[2], in[3], in[4],
                                      APFloat(im.attrFloat("epsilon", 1e-5f))));
  return success();
}

template <typename PoolOp> static LogicalResult convertPool(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  if (failed(im.checkUnusedOutputs(1)))
    return failure();
  std::optional<std::vector<int64_t>> kernel = im.attrInts("kernel_shape");
  if (!kernel)
    return im.error() << "requires attribute 'kernel_shape'", failure();
  auto xType = cast<RankedTensorType>(x->getType());
  Window2D win;
  if (failed(resolveWindow(im, xType, *kernel, win)))
    return failure();
  bool ceil = im.attrInt("ceil_mode", 0) != 0;
  bool oneD = xType.getRank() == 3;
  Value in = liftTo2D(im, *x), y;
  if constexpr (std::is_same_v<PoolOp, MaxPool2DOp>) {
    if (im.attrInt("storage_order", 0) != 0)
      return im.error() << "storage_order = 1 is not supported", failure();
    y = im.create<MaxPool2DOp>(in, win.kernel, win.strides, win.pads,
                               win.dilations, ceil);
  } else {
    if (win.dilations != SmallVector<int64_t>{1, 1})
      return im.error() << "dilated average pooling is not supported",
             failure();
    y = im.create<AvgPool2DOp>(in, win.kernel, win.strides, win.pads, ceil,
                               im.attrInt("count_include_pad", 0) != 0);
  }
  im.setOutput(0, dropTo1D(im, y, oneD));
  return success();
}

/// LpPool: (sum over the window of |x|^p)^(1/p), an average pool of |x|^p
/// that counts the zero padding, times the window size.
static LogicalResult convertLpPool(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  std::optional<std::vector<int64_t>> kernel = im.attrInts("kernel_shape");
  if (!kernel)
    return im.error() << "requires attribute 'kernel_shape'", failure();
  auto xType = cast<RankedTensorType>(x->getType());
  if (!isa<FloatType>(xType.getElementType()))
    return im.error() << "expects a float input, got " << xType, failure();
  Window2D win;
  if (failed(resolveWindow(im, xType, *kernel, win)))
    return failure();
  if (win.dilations != SmallVector<int64_t>{1, 1})
    return im.error() << "dilated Lp pooling is not supported", failure();
  auto p = static_cast<double>(im.attrInt("p", 2));
  if (p <= 0)
    return im.error() << "p must be positive, got " << p, failure();
  bool ceil = im.attrInt("ceil_mode", 0) != 0;
  bool oneD = xType.getRank() == 3;
  Value y = computeInF32(im, *x, [&](Value v) -> Value {
    Type elem = cast<RankedTensorType>(v.getType()).getElementType();
    Value powered = p == 2.0 ? im.create<MulOp>(v, v)
                             : im.create<PowOp>(im.create<AbsOp>(v),
                                                im.scalarConstant(elem, p));
    Value avg = im.create<AvgPool2DOp>(liftTo2D(im, powered), win.kernel,
                                       win.strides, win.pads, ceil,
                                       /*countIncludePad=*/true);
    Value sum = im.create<MulOp>(
        avg, im.scalarConstant(
                 elem, static_cast<double>(win.kernel[0] * win.kernel[1])));
    return p == 2.0 ? im.create<SqrtOp>(sum)
                    : im.create<PowOp>(sum, im.scalarConstant(elem, 1.0 / p));
  });
  im.setOutput(0, dropTo1D(im, y, oneD));
  return success();
}

static LogicalResult convertGlobalAveragePool(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<GlobalAvgPoolOp>(*x));
  return success();
}

/// LayerNormalization whose Mean or InvStdDev output is used: the
/// statistics are computed as their own ops (in f32 for narrow floats, the
/// stash type), shaped like the input with the normalised dims kept as 1.
static LogicalResult convertLayerNormWithStats(GraphImporter &im, Value x,
                                               Value scale, Value bias,
                                               int64_t axis) {
  auto t = cast<RankedTensorType>(x.getType());
  Type elem = t.getElementType();
  if (!isa<FloatType>(elem))
    return im.error() << "expects a float input, got " << t, failure();
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < t.getRank(); ++d)
    axes.push_back(d);
  Type f32 = im.builder().getF32Type();
  auto wide = [&](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType() == f32
               ? v
               : Value(im.create<CastOp>(v, f32));
  };
  Value xf = wide(x);
  Value mean = im.create<ReduceMeanOp>(xf, axes, true);
  Value centered = im.create<SubOp>(xf, mean);
  Value var =
      im.create<ReduceMeanOp>(im.create<MulOp>(centered, centered), axes, true);
  Value invStd = im.create<RsqrtOp>(im.create<AddOp>(
      var, im.scalarConstant(f32, im.attrFloat("epsilon", 1e-5f))));
  Value y = im.create<MulOp>(im.create<MulOp>(centered, invStd), wide(scale));
  if (bias)
    y = im.create<AddOp>(y, wide(bias));
  if (elem != f32)
    y = im.create<CastOp>(y, elem);
  im.setOutput(0, y);
  im.setOutput(1, mean);
  im.setOutput(2, invStd);
  return success();
}

static LogicalResult convertLayerNorm(GraphImporter &im) {
  auto used = [&](int i) {
    return im.node().output_size() > i && !im.node().output(i).empty();
  };
  bool stats = used(1) || used(2);
  FailureOr<Value> x = im.input(0), scale = im.input(1);
  if (failed(x) || failed(scale))
    return failure();
  FailureOr<Value> bias = im.optionalInput(2);
  if (failed(bias))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  // ONNX broadcasts scale/bias to the normalised dims; the op wants them
  // exactly that shape.
  auto xType = cast<RankedTensorType>(x->getType());
  SmallVector<int64_t> normShape(xType.getShape().drop_front(*axis));
  auto fit = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() == ArrayRef<int64_t>(normShape))
      return v;
    if (t.getNumElements() == shape::numElements(normShape))
      return im.create<ReshapeOp>(v, normShape);
    return im.create<BroadcastToOp>(v, normShape);
  };
  Value s = fit(*scale);
  Value b = *bias ? fit(*bias) : Value();
  if (stats)
    return convertLayerNormWithStats(im, *x, s, b, *axis);
  im.setOutput(0,
               im.create<LayerNormOp>(*x, s, b, *axis,
                                      APFloat(im.attrFloat("epsilon", 1e-5f))));
  return success();
}

FailureOr<ReduceAxes>
mlir::tandem::onnx_import::resolveReduceAxes(GraphImporter &im,
                                             int64_t axesInputOpset) {
  auto x = im.requiredInputType(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getRank();
  std::vector<int64_t> axes;
  if (im.opset() >= axesInputOpset) {
    if (im.hasInput(1)) {
      FailureOr<std::vector<int64_t>> a = im.constantInts(1, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
  } else if (auto a = im.attrInts("axes")) {
    axes = *a;
  }
  ReduceAxes result;
  result.keepDims = im.attrInt("keepdims", 1) != 0;
  if (axes.empty()) {
    if (im.attrInt("noop_with_empty_axes", 0) != 0) {
      result.noop = true;
      return result;
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t a : axes) {
    FailureOr<int64_t> n = im.normalizeAxis(a, rank, "axis");
    if (failed(n))
      return failure();
    result.axes.push_back(*n);
  }
  llvm::sort(result.axes);
  result.axes.erase(std::unique(result.axes.begin(), result.axes.end()),
                    result.axes.end());
  result.noop = rank == 0;
  return result;
}

/// ReduceSum/Mean/Max/Min/Prod: axes moved from an attribute to an input in
/// opset 13 (ReduceSum) and 18 (the others).
/// Reduces known integers (shape data: `Shape -> ReduceProd` makes an
/// element count) over the sorted `axes` with `combine`, from `init`.
static KnownInts reduceKnown(const KnownInts &x, ArrayRef<int64_t> axes,
                             bool keepDims, int64_t init,
                             function_ref<int64_t(int64_t, int64_t)> combine) {
  KnownInts r;
  r.elementType = x.elementType;
  SmallVector<int64_t> outDims;
  for (auto [d, size] : llvm::enumerate(x.shape)) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(d));
    outDims.push_back(reduced ? 1 : size);
    if (!reduced || keepDims)
      r.shape.push_back(reduced ? 1 : size);
  }
  r.values.assign(shape::numElements(outDims), init);
  int64_t rank = x.shape.size();
  SmallVector<int64_t> coord(rank, 0);
  for (int64_t value : x.values) {
    int64_t out = 0;
    for (int64_t d = 0; d < rank; ++d)
      out = out * outDims[d] + (outDims[d] == 1 ? 0 : coord[d]);
    r.values[out] = combine(r.values[out], value);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++coord[d] < x.shape[d])
        break;
      coord[d] = 0;
    }
  }
  return r;
}

template <typename ReduceOp>
static LogicalResult convertReduce(GraphImporter &im, int64_t axesInputOpset) {
  FailureOr<Value> x = im.input(0);
  FailureOr<ReduceAxes> axes = resolveReduceAxes(im, axesInputOpset);
  if (failed(x) || failed(axes))
    return failure();
  if (axes->noop) {
    im.setOutput(0, *x);
    return success();
  }
  // Known i64/i32 data (shape arithmetic) folds, wrapping like the kernels;
  // empty reductions and bools are left to the ops.
  const KnownInts *known = im.knownInput(0);
  if (known && !known->values.empty() &&
      !std::is_same_v<ReduceOp, ReduceMeanOp> &&
      !known->elementType.isInteger(1)) {
    bool i32 = known->elementType.isInteger(32);
    auto wrap = [&](uint64_t v) {
      return i32 ? int64_t(int32_t(v)) : int64_t(v);
    };
    std::function<int64_t(int64_t, int64_t)> combine;
    int64_t init = 0;
    if constexpr (std::is_same_v<ReduceOp, ReduceSumOp>) {
      combine = [&](int64_t a, int64_t v) {
        return wrap(uint64_t(a) + uint64_t(v));
      };
    } else if constexpr (std::is_same_v<ReduceOp, ReduceProdOp>) {
      init = 1;
      combine = [&](int64_t a, int64_t v) {
        return wrap(uint64_t(a) * uint64_t(v));
      };
    } else if constexpr (std::is_same_v<ReduceOp, ReduceMaxOp>) {
      init = std::numeric_limits<int64_t>::min();
      combine = [](int64_t a, int64_t v) { return std::max(a, v); };
    } else {
      init = std::numeric_limits<int64_t>::max();
      combine = [](int64_t a, int64_t v) { return std::min(a, v); };
    }
    im.setKnownOutput(
        0, reduceKnown(*known, axes->axes, axes->keepDims, init, combine));
    return success();
  }
  // Bool ReduceMax/ReduceMin (opset 20) are any/all: reduced as 0/1 in i32.
  Type elementType = cast<RankedTensorType>(x->getType()).getElementType();
  constexpr bool isMinMax = std::is_same_v<ReduceOp, ReduceMaxOp> ||
                            std::is_same_v<ReduceOp, ReduceMinOp>;
  if (isMinMax && elementType.isInteger(1)) {
    Value wide = im.create<CastOp>(*x, im.builder().getI32Type());
    Value reduced = im.create<ReduceOp>(wide, axes->axes, axes->keepDims);
    im.setOutput(0, im.create<CastOp>(reduced, elementType));
    return success();
  }
  im.setOutput(0, im.create<ReduceOp>(*x, axes->axes, axes->keepDims));
  return success();
}

void mlir::tandem::onnx_import::registerNNConverters(ConverterMap &map) {
  map["Conv"] = convertConv;
  map["ConvTranspose"] = convertConvTranspose;
  map["Gemm"] = convertGemm;
  map["MatMul"] = convertMatMul;
  map["BatchNormalization"] = convertBatchNorm;
  map["MaxPool"] = convertPool<MaxPool2DOp>;
  map["AveragePool"] = convertPool<AvgPool2DOp>;
  map["LpPool"] = convertLpPool;
  map["GlobalAveragePool"] = convertGlobalAveragePool;
  map["LayerNormalization"] = convertLayerNorm;
  map["ReduceSum"] = [](GraphImporter &im) {
    return convertReduce<ReduceSumOp>(im, 13);
  };
  map["ReduceMean"] = [](GraphImporter &im) {
    return convertReduce<ReduceMeanOp>(im, 18);
  };
  map["ReduceMax"] = [](GraphImporter &im) {
    return convertReduce<ReduceMaxOp>(im, 18);
  };
  map["ReduceMin"] = [](GraphImporter &im) {
    return convertReduce<ReduceMinOp>(im, 18);
  };
  map["ReduceProd"] = [](GraphImporter &im) {
    return convertReduce<ReduceProdOp>(im, 18);
  };
}
