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
/// [top, left, bottom, right] pads.
struct Window2D {
  SmallVector<int64_t> kernel, strides, pads, dilations;
};

static LogicalResult resolveWindow(GraphImporter &im, RankedTensorType input,
                                   ArrayRef<int64_t> kernel, Window2D &w) {
  if (input.getRank() != 4)
    return im.error() << "only 2-D (NCHW) inputs are supported, got " << input,
           failure();
  w.kernel.assign(kernel.begin(), kernel.end());
  auto inRange = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values,
                        [](int64_t v) { return v >= 0 && v <= (1 << 30); });
  };
  auto ints = [&](StringRef name, std::vector<int64_t> dflt) {
    std::vector<int64_t> v = im.attrInts(name).value_or(dflt);
    return SmallVector<int64_t>(v.begin(), v.end());
  };
  w.strides = ints("strides", {1, 1});
  w.dilations = ints("dilations", {1, 1});
  auto positive = [&](ArrayRef<int64_t> values) {
    return inRange(values) && llvm::all_of(values, [](int64_t v) { return v; });
  };
  if (!positive(w.kernel) || !positive(w.strides) || !positive(w.dilations))
    return im.error() << "kernel_shape, strides and dilations must lie in "
                         "[1, 2^30]",
           failure();
  if (w.kernel.size() != 2 || w.strides.size() != 2 || w.dilations.size() != 2)
    return im.error() << "expects 2 spatial dims in kernel_shape, strides and "
                         "dilations",
           failure();
  std::string autoPad = im.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    w.pads = ints("pads", {0, 0, 0, 0});
    if (w.pads.size() != 4)
      return im.error() << "pads must have 4 entries, got " << w.pads.size(),
             failure();
    if (!inRange(w.pads))
      return im.error() << "pads must lie in [0, 2^30]", failure();
    return success();
  }
  w.pads.assign(4, 0);
  if (autoPad == "VALID")
    return success();
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return im.error() << "unknown auto_pad '" << autoPad << "'", failure();
  for (int d = 0; d < 2; ++d) {
    int64_t in = input.getDimSize(2 + d);
    int64_t out = llvm::divideCeil(in, w.strides[d]);
    int64_t effective = (w.kernel[d] - 1) * w.dilations[d] + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * w.strides[d] + effective - in);
    int64_t small = total / 2, large = total - small;
    w.pads[d] = autoPad == "SAME_UPPER" ? small : large;
    w.pads[d + 2] = autoPad == "SAME_UPPER" ? large : small;
  }
  return success();
}

static LogicalResult convertConv(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), w = im.input(1);
  if (failed(x) || failed(w))
    return failure();
  auto xType = cast<RankedTensorType>(x->getType());
  auto wType = cast<RankedTensorType>(w->getType());
  if (wType.getRank() != 4)
    return im.error() << "only 2-D convolutions are supported, weight is "
                      << wType,
           failure();
  std::vector<int64_t> kernel =
      im.attrInts("kernel_shape")
          .value_or(std::vector<int64_t>(wType.getShape().begin() + 2,
                                         wType.getShape().end()));
  Window2D win;
  if (failed(resolveWindow(im, xType, kernel, win)))
    return failure();
  FailureOr<Value> bias = im.optionalInput(2);
  if (failed(bias))
    return failure();
  im.setOutput(0, im.create<Conv2DOp>(*x, *w, *bias, win.strides, win.pads,
                                      win.dilations, im.attrInt("group", 1)));
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

static LogicalResult convertMatMul(GraphImporter &im) {
  FailureOr<Value> a = im.input(0), b = im.input(1);
  if (failed(a) || failed(b))
    return failure();
  auto aType = cast<RankedTensorType>(a->getType());
  auto bType = cast<RankedTensorType>(b->getType());
  // NumPy semantics for 1-D operands: promote, multiply, drop the dim.
  Value lhs = *a, rhs = *b;
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
  im.setOutput(0, result);
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
  Window2D win;
  if (failed(resolveWindow(im, cast<RankedTensorType>(x->getType()), *kernel,
                           win)))
    return failure();
  bool ceil = im.attrInt("ceil_mode", 0) != 0;
  if constexpr (std::is_same_v<PoolOp, MaxPool2DOp>) {
    if (im.attrInt("storage_order", 0) != 0)
      return im.error() << "storage_order = 1 is not supported", failure();
    im.setOutput(0, im.create<MaxPool2DOp>(*x, win.kernel, win.strides,
                                           win.pads, win.dilations, ceil));
  } else {
    if (win.dilations != SmallVector<int64_t>{1, 1})
      return im.error() << "dilated average pooling is not supported",
             failure();
    im.setOutput(
        0, im.create<AvgPool2DOp>(*x, win.kernel, win.strides, win.pads, ceil,
                                  im.attrInt("count_include_pad", 0) != 0));
  }
  return success();
}

static LogicalResult convertGlobalAveragePool(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<GlobalAvgPoolOp>(*x));
  return success();
}

static LogicalResult convertLayerNorm(GraphImporter &im) {
  if (failed(im.checkUnusedOutputs(1)))
    return failure();
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
  im.setOutput(0,
               im.create<LayerNormOp>(*x, s, b, *axis,
                                      APFloat(im.attrFloat("epsilon", 1e-5f))));
  return success();
}

/// ReduceSum/Mean/Max/Min/Prod: axes moved from an attribute to an input in
/// opset 13 (ReduceSum) and 18 (the others).
template <typename ReduceOp>
static LogicalResult convertReduce(GraphImporter &im, int64_t axesInputOpset) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
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
  bool keepDims = im.attrInt("keepdims", 1) != 0;
  if (axes.empty()) {
    if (im.attrInt("noop_with_empty_axes", 0) != 0) {
      im.setOutput(0, *x);
      return success();
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  SmallVector<int64_t> normalized;
  for (int64_t a : axes) {
    FailureOr<int64_t> n = im.normalizeAxis(a, rank, "axis");
    if (failed(n))
      return failure();
    normalized.push_back(*n);
  }
  llvm::sort(normalized);
  normalized.erase(std::unique(normalized.begin(), normalized.end()),
                   normalized.end());
  if (rank == 0) {
    im.setOutput(0, *x);
    return success();
  }
  im.setOutput(0, im.create<ReduceOp>(*x, normalized, keepDims));
  return success();
}

void mlir::tandem::onnx_import::registerNNConverters(ConverterMap &map) {
  map["Conv"] = convertConv;
  map["Gemm"] = convertGemm;
  map["MatMul"] = convertMatMul;
  map["BatchNormalization"] = convertBatchNorm;
  map["MaxPool"] = convertPool<MaxPool2DOp>;
  map["AveragePool"] = convertPool<AvgPool2DOp>;
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
