//===- OnnxNNOps.cpp - ONNX neural-network ops -> tandem ------------------===//
//
// Gemm, MatMul, BatchNormalization, GlobalAveragePool, LayerNormalization and
// the reductions (convolutions and windowed pools are in OnnxConvPool.cpp).
// Matmuls and softmax stay whole: fusion and codegen build on them.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

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
  Type elem = aType.getElementType();
  if (!isa<FloatType>(elem) && !elem.isSignlessInteger(32) &&
      !elem.isSignlessInteger(64))
    return im.error() << "element type " << elem
                      << " is not supported (float types, int32 and int64)",
           failure();
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
  map["Gemm"] = convertGemm;
  map["MatMul"] = convertMatMul;
  map["BatchNormalization"] = convertBatchNorm;
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
