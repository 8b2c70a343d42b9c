//===- OnnxConvPool.cpp - ONNX convolutions and windowed pools -> tandem --===//
//
// Conv, ConvTranspose, MaxPool (with its Indices output), AveragePool and
// LpPool over 1-D, 2-D and 3-D inputs. The tandem window ops are 2-D (NCHW): a
// 1-D window is lifted to a unit height; a 3-D convolution is one 2-D
// convolution with the depth taps folded into the channels and the output
// depths into the batch; a 3-D pool is a 2-D pool over H and W and then one
// over D (max, sum and the average divisor all factor per axis).
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {
/// Window attributes shared by Conv and the pools over 1-3 spatial dims,
/// with auto_pad resolved to explicit pads in ONNX order
/// [begin_0, ..., end_0, ...].
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;

  int64_t rank() const { return static_cast<int64_t>(kernel.size()); }
  int64_t padBegin(int64_t d) const { return pads[d]; }
  int64_t padEnd(int64_t d) const { return pads[rank() + d]; }

  /// The window of spatial dims `d0` and `d1` as the tandem 2-D ops take it
  /// (pads [top, left, bottom, right]); -1 stands for a unit dim (kernel 1,
  /// stride 1, dilation 1, no padding).
  Window planar(int64_t d0, int64_t d1) const {
    Window w;
    auto pick = [](ArrayRef<int64_t> v, int64_t d, int64_t unit) {
      return d < 0 ? unit : v[d];
    };
    for (int64_t d : {d0, d1}) {
      w.kernel.push_back(pick(kernel, d, 1));
      w.strides.push_back(pick(strides, d, 1));
      w.dilations.push_back(pick(dilations, d, 1));
    }
    for (int64_t d : {d0, d1})
      w.pads.push_back(d < 0 ? 0 : padBegin(d));
    for (int64_t d : {d0, d1})
      w.pads.push_back(d < 0 ? 0 : padEnd(d));
    return w;
  }
};
} // namespace

static LogicalResult resolveWindow(GraphImporter &im, RankedTensorType input,
                                   ArrayRef<int64_t> kernel, Window &w) {
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1 || spatial > 3)
    return im.error() << "only 1-D (NCL), 2-D (NCHW) and 3-D (NCDHW) inputs "
                         "are supported, got "
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
  return success();
}

/// An N x C x L tensor (or O x I x K weight) viewed as N x C x 1 x L; other
/// ranks pass through.
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

static ArrayRef<int64_t> dimsOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// A 3-D convolution of `x` (N x C x D x H x W) by `w` (F x C/g x Kd x Kh x
/// Kw) as one 2-D convolution: for every output depth, the Kd input depth
/// slices it reads are stacked into the channels (N*Do x C*Kd x H x W, the
/// depth tap minor, so that w reshaped to F x C/g*Kd x Kh x Kw matches it
/// group by group), and the result is viewed back as N x F x Do x Ho x Wo.
/// The FLOPs are those of the 3-D convolution; the stacked input holds Kd *
/// Do / D times the input's elements. Null after a diagnostic.
static Value emitConv3D(GraphImporter &im, Value x, Value w, Value bias,
                        const Window &win, int64_t group) {
  ArrayRef<int64_t> xs = dimsOf(x), ws = dimsOf(w);
  int64_t n = xs[0], c = xs[1], d = xs[2], h = xs[3], wd = xs[4];
  int64_t f = ws[0], cg = ws[1], kd = ws[2], kh = ws[3], kw = ws[4];
  if (group <= 0 || group > c || cg * group != c || f % group != 0) {
    im.error() << "input channels (" << c << ") must equal weight channels ("
               << cg << ") times group (" << group
               << "), and group divide the filters (" << f << "); input "
               << x.getType() << ", weight " << w.getType();
    return {};
  }
  int64_t sd = win.strides[0], dd = win.dilations[0];
  int64_t pb = win.padBegin(0), pe = win.padEnd(0);
  int64_t depth = d + pb + pe, span = (kd - 1) * dd + 1;
  if (depth < span) {
    im.error() << "the depth window (" << span
               << ") does not fit the padded input (" << d << " + " << pb
               << " + " << pe << ")";
    return {};
  }
  int64_t od = (depth - span) / sd + 1;
  if (pb || pe)
    x = im.create<PadOp>(x, ArrayRef<int64_t>{0, 0, pb, 0, 0},
                         ArrayRef<int64_t>{0, 0, pe, 0, 0}, PadMode::Constant,
                         APFloat(0.0));
  // N x D' x C x H x W, then the depths tap k reads: k * dd + o * sd.
  Value t = im.create<TransposeOp>(x, ArrayRef<int64_t>{0, 2, 1, 3, 4});
  SmallVector<Value> taps;
  for (int64_t k = 0; k < kd; ++k) {
    int64_t start = k * dd, limit = start + (od - 1) * sd + 1;
    Value tap = t;
    if (start != 0 || limit != depth || sd != 1)
      tap = im.create<SliceOp>(t, ArrayRef<int64_t>{0, start, 0, 0, 0},
                               ArrayRef<int64_t>{n, limit, c, h, wd},
                               ArrayRef<int64_t>{1, sd, 1, 1, 1});
    if (kd > 1)
      tap = im.create<ReshapeOp>(tap, ArrayRef<int64_t>{n, od, c, 1, h, wd});
    taps.push_back(tap);
  }
  Value stacked = kd == 1 ? taps.front() : im.create<ConcatOp>(taps, 3);
  Value in =
      im.create<ReshapeOp>(stacked, ArrayRef<int64_t>{n * od, c * kd, h, wd});
  Value filter = im.create<ReshapeOp>(w, ArrayRef<int64_t>{f, cg * kd, kh, kw});
  Window hw = win.planar(1, 2);
  Value y = im.create<Conv2DOp>(in, filter, bias, hw.strides, hw.pads,
                                hw.dilations, group);
  if (!y)
    return {};
  ArrayRef<int64_t> ys = dimsOf(y);
  y = im.create<ReshapeOp>(y, ArrayRef<int64_t>{n, od, f, ys[2], ys[3]});
  return im.create<TransposeOp>(y, ArrayRef<int64_t>{0, 2, 1, 3, 4});
}

/// `x` convolved by `w` over `win` (1-3 spatial dims) plus the optional
/// `bias`. Null after a diagnostic.
static Value emitConv(GraphImporter &im, Value x, Value w, Value bias,
                      const Window &win, int64_t group) {
  if (win.rank() == 1) {
    Window p = win.planar(-1, 0);
    return dropTo1D(im,
                    im.create<Conv2DOp>(liftTo2D(im, x), liftTo2D(im, w), bias,
                                        p.strides, p.pads, p.dilations, group),
                    /*oneD=*/true);
  }
  if (win.rank() == 2)
    return im.create<Conv2DOp>(x, w, bias, win.strides, win.pads, win.dilations,
                               group);
  return emitConv3D(im, x, w, bias, win, group);
}

FailureOr<Value> mlir::tandem::onnx_import::convolve(GraphImporter &im, Value x,
                                                     Value w, Value bias) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (wType.getRank() < 3 || wType.getRank() > 5)
    return im.error() << "only 1-D, 2-D and 3-D convolutions are supported, "
                         "weight is "
                      << wType,
           failure();
  if (wType.getRank() != xType.getRank())
    return im.error() << "the weight " << wType << " and the input " << xType
                      << " must have the same rank",
           failure();
  std::vector<int64_t> weightKernel(wType.getShape().begin() + 2,
                                    wType.getShape().end());
  std::vector<int64_t> kernel =
      im.attrInts("kernel_shape").value_or(weightKernel);
  if (kernel != weightKernel) {
    InFlightDiagnostic diag = im.error() << "kernel_shape [";
    llvm::interleaveComma(kernel, diag);
    diag << "] does not match the weight " << wType;
    return failure();
  }
  Window win;
  if (failed(resolveWindow(im, xType, kernel, win)))
    return failure();
  Value y = emitConv(im, x, w, bias, win, im.attrInt("group", 1));
  if (!y)
    return failure();
  return y;
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
/// after each of its elements, padded by (k - 1) * d - pad on each side
/// (cropped where that is negative, extended by output_padding at the end),
/// convolved with stride 1 by the kernel flipped in space and with its
/// channel axes swapped per group. Costs the product of the strides times
/// the FLOPs of a direct transposed convolution (the inserted zeros are
/// multiplied).
static LogicalResult convertConvTranspose(GraphImporter &im) {
  FailureOr<Value> x = im.input(0), w = im.input(1);
  FailureOr<Value> bias = im.optionalInput(2);
  if (failed(x) || failed(w) || failed(bias))
    return failure();
  auto xType = cast<RankedTensorType>(x->getType());
  auto wType = cast<RankedTensorType>(w->getType());
  int64_t spatial = xType.getRank() - 2;
  if (spatial < 1 || spatial > 3 || wType.getRank() != xType.getRank())
    return im.error() << "only 1-D, 2-D and 3-D transposed convolutions are "
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
    std::vector<int64_t> v =
        im.attrInts(name).value_or(std::vector<int64_t>(count, dflt));
    return SmallVector<int64_t>(v.begin(), v.end());
  };
  SmallVector<int64_t> kernel(wType.getShape().begin() + 2,
                              wType.getShape().end());
  SmallVector<int64_t> strides = ints("strides", spatial, 1);
  SmallVector<int64_t> dilations = ints("dilations", spatial, 1);
  SmallVector<int64_t> outputPadding = ints("output_padding", spatial, 0);
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
  SmallVector<int64_t> full(spatial), pads;
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
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return im.error() << "unknown auto_pad '" << autoPad << "'", failure();
  if (outputShape || same) {
    // The ONNX spec (and onnxruntime): output_shape overrides pads; the
    // total padding it implies goes half to each side, the odd one at the
    // end with SAME_UPPER and at the start otherwise (a negative total
    // extends the result).
    pads.assign(2 * size, 0);
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t out = outputShape ? (*outputShape)[d]
                                : xType.getDimSize(2 + d) * strides[d];
      int64_t total = full[d] - out;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pads[d] = autoPad == "SAME_UPPER" ? half : total - half;
      pads[spatial + d] = total - pads[d];
    }
  } else if (im.attrInts("pads") && autoPad == "NOTSET") {
    pads = ints("pads", 0, 0);
    if (pads.size() != 2 * size)
      return im.error() << "pads must have " << 2 * spatial << " entries",
             failure();
  } else {
    pads.assign(2 * size, 0);
  }
  for (int64_t d = 0; d < spatial; ++d)
    if (full[d] - pads[d] - pads[spatial + d] <= 0)
      return im.error() << "the output would have no elements along spatial "
                           "dim "
                        << d,
             failure();

  // Lift 1-D to 2-D with a unit height.
  bool oneD = spatial == 1;
  Value in = liftTo2D(im, *x), weight = liftTo2D(im, *w);
  if (!in || !weight)
    return failure();
  if (oneD) {
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    outputPadding.insert(outputPadding.begin(), 0);
    pads = {0, pads[0], 0, pads[1]};
    spatial = 2;
  }
  int64_t rank = spatial + 2;
  ArrayRef<int64_t> inDims = dimsOf(in);
  int64_t n = inDims[0];

  // Insert stride - 1 zeros after every element: [N,C,D1,1,D2,1,...] padded
  // to [N,C,D1,s1,D2,s2,...], viewed as [N,C,D1*s1,D2*s2,...].
  if (llvm::any_of(strides, [](int64_t s) { return s > 1; })) {
    SmallVector<int64_t> expanded{n, c}, merged{n, c}, high(2, 0);
    for (int64_t d = 0; d < spatial; ++d) {
      expanded.append({inDims[2 + d], 1});
      high.append({0, strides[d] - 1});
      merged.push_back(inDims[2 + d] * strides[d]);
    }
    SmallVector<int64_t> low(expanded.size(), 0);
    Value v = im.create<ReshapeOp>(in, expanded);
    v = im.create<PadOp>(v, low, high, PadMode::Constant, APFloat(0.0));
    in = im.create<ReshapeOp>(v, merged);
  }
  // Padding of the dilated input; the zero-inserted tensor already carries
  // stride - 1 trailing zeros.
  SmallVector<int64_t> lo(spatial), hi(spatial), cropLo(spatial, 0),
      cropHi(spatial, 0);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t edge = (kernel[d] - 1) * dilations[d];
    lo[d] = edge - pads[d];
    hi[d] = edge - pads[spatial + d] + outputPadding[d] - (strides[d] - 1);
    if (lo[d] < 0)
      cropLo[d] = -lo[d], lo[d] = 0;
    if (hi[d] < 0)
      cropHi[d] = -hi[d], hi[d] = 0;
  }
  auto nonZero = [](int64_t v) { return v != 0; };
  if (in && (llvm::any_of(cropLo, nonZero) || llvm::any_of(cropHi, nonZero))) {
    ArrayRef<int64_t> dims = dimsOf(in);
    SmallVector<int64_t> starts{0, 0}, limits{dims[0], dims[1]};
    for (int64_t d = 0; d < spatial; ++d) {
      starts.push_back(cropLo[d]);
      limits.push_back(dims[2 + d] - cropHi[d]);
    }
    in = im.create<SliceOp>(in, starts, limits, SmallVector<int64_t>(rank, 1));
  }
  // Weight [C, O/g, k...] -> [O, C/g, k...], flipped in space.
  int64_t og = wType.getDimSize(1);
  SmallVector<int64_t> grouped{group, c / group, og}, perm{0, 2, 1},
      swapped{group * og, c / group};
  for (int64_t d = 0; d < spatial; ++d) {
    grouped.push_back(kernel[d]);
    perm.push_back(3 + d);
    swapped.push_back(kernel[d]);
  }
  Value wt = im.create<ReshapeOp>(weight, grouped);
  wt = im.create<TransposeOp>(wt, perm);
  wt = im.create<ReshapeOp>(wt, swapped);
  Type i64 = im.builder().getI64Type();
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t k = kernel[d];
    if (k == 1)
      continue;
    KnownInts reversed{{k}, {}, i64};
    for (int64_t i = k - 1; i >= 0; --i)
      reversed.values.push_back(i);
    wt = im.create<GatherOp>(wt, im.materialize(reversed), 2 + d);
  }
  Window win;
  win.kernel = kernel;
  win.strides.assign(spatial, 1);
  win.dilations = dilations;
  win.pads = lo;
  win.pads.append(hi);
  if (!in || !wt)
    return failure();
  Value y = emitConv(im, in, wt, *bias, win, group);
  if (!y)
    return failure();
  im.setOutput(0, dropTo1D(im, y, oneD));
  return success();
}

/// Pools `x` (N x C x spatial...) over `win` with `pool2d` (a 2-D pool of an
/// NCHW value over a planar window): 1-D as height 1, 2-D directly, 3-D as
/// a pool of H and W over N x C*D x H x W and then one of D over N x C x D x
/// (Ho*Wo). Max and sums are separable over the axes, and so are averages:
/// a window's divisor is the product of its per-axis counts. Null after a
/// diagnostic.
static Value poolWindow(GraphImporter &im, Value x, const Window &win,
                        function_ref<Value(Value, const Window &)> pool2d) {
  if (win.rank() == 1)
    return dropTo1D(im, pool2d(liftTo2D(im, x), win.planar(-1, 0)), true);
  if (win.rank() == 2)
    return pool2d(x, win.planar(0, 1));
  ArrayRef<int64_t> xs = dimsOf(x);
  int64_t n = xs[0], c = xs[1], d = xs[2];
  Value hw =
      pool2d(im.create<ReshapeOp>(x, ArrayRef<int64_t>{n, c * d, xs[3], xs[4]}),
             win.planar(1, 2));
  if (!hw)
    return {};
  int64_t oh = dimsOf(hw)[2], ow = dimsOf(hw)[3];
  Value depth =
      pool2d(im.create<ReshapeOp>(hw, ArrayRef<int64_t>{n, c, d, oh * ow}),
             win.planar(0, -1));
  if (!depth)
    return {};
  return im.create<ReshapeOp>(
      depth, ArrayRef<int64_t>{n, c, dimsOf(depth)[2], oh, ow});
}

/// avg_pool2d's dilations: omitted when there are none.
static SmallVector<int64_t> avgPoolDilations(const Window &w) {
  if (llvm::all_of(w.dilations, [](int64_t d) { return d == 1; }))
    return {};
  return w.dilations;
}

/// MaxPool's Indices output: each window's first maximum as a flat index
/// into the input, (n * C + c) * S plus the spatial position, row-major or
/// (`columnMajor`, storage_order = 1) column-major over the S spatial
/// elements, padding not counted. The windows are gathered with constant
/// indices from the input viewed as N x C x S and extended by one -inf
/// element that padding taps read (N x C x O x K for O outputs of K taps),
/// arg_max picks the tap, and a constant table maps (output, tap) to the
/// index (a padding tap to the window's first real one, which also holds the
/// maximum when a padding tap wins a tie at -inf). Costs K times the output
/// in memory. Null after a diagnostic.
static Value maxPoolIndices(GraphImporter &im, Value x, const Window &win,
                            bool ceil, bool columnMajor) {
  auto xType = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(xType.getElementType())) {
    im.error() << "the Indices output needs a float input, got " << xType;
    return {};
  }
  ArrayRef<int64_t> xs = xType.getShape();
  int64_t n = xs[0], c = xs[1], rank = win.rank();
  SmallVector<int64_t> in(xs.drop_front(2)), out;
  int64_t spatial = 1, outputs = 1, taps = 1;
  for (int64_t d = 0; d < rank; ++d) {
    out.push_back(shape::windowOutputSize(in[d], win.kernel[d], win.strides[d],
                                          win.padBegin(d), win.padEnd(d),
                                          win.dilations[d], ceil));
    spatial *= in[d];
    outputs *= out[d];
    taps *= win.kernel[d];
  }
  constexpr int64_t maxTable = int64_t(1) << 24;
  if (outputs * taps > maxTable) {
    im.error() << "the Indices output needs a table of " << outputs * taps
               << " window taps, more than " << maxTable << " are supported";
    return {};
  }
  // Per (output, tap): the position gathered (spatial for padding) and the
  // index reported.
  Type i64 = im.builder().getI64Type();
  KnownInts gathered{{outputs, taps}, {}, i64},
      reported{{outputs * taps}, {}, i64};
  SmallVector<int64_t> o(rank, 0), j(rank, 0);
  for (int64_t oi = 0; oi < outputs; ++oi) {
    int64_t first = -1;
    size_t start = reported.values.size();
    j.assign(rank, 0);
    for (int64_t ji = 0; ji < taps; ++ji) {
      int64_t rowMajor = 0, colMajor = 0, colStride = 1;
      bool inside = true;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t p =
            o[d] * win.strides[d] - win.padBegin(d) + j[d] * win.dilations[d];
        inside &= p >= 0 && p < in[d];
        rowMajor = rowMajor * in[d] + p;
        colMajor += p * colStride;
        colStride *= in[d];
      }
      gathered.values.push_back(inside ? rowMajor : spatial);
      int64_t index = columnMajor ? colMajor : rowMajor;
      reported.values.push_back(inside ? index : -1);
      if (inside && first < 0)
        first = index;
      for (int64_t d = rank - 1; d >= 0 && ++j[d] == win.kernel[d]; --d)
        j[d] = 0;
    }
    for (size_t i = start; i < reported.values.size(); ++i)
      if (reported.values[i] < 0)
        reported.values[i] = std::max<int64_t>(first, 0);
    for (int64_t d = rank - 1; d >= 0 && ++o[d] == out[d]; --d)
      o[d] = 0;
  }
  KnownInts tapBase{{outputs}, {}, i64}, planeBase{{n, c, 1}, {}, i64};
  for (int64_t oi = 0; oi < outputs; ++oi)
    tapBase.values.push_back(oi * taps);
  for (int64_t plane = 0; plane < n * c; ++plane)
    planeBase.values.push_back(plane * spatial);
  Value data = im.create<ReshapeOp>(x, ArrayRef<int64_t>{n, c, spatial});
  data = im.create<PadOp>(data, ArrayRef<int64_t>{0, 0, 0},
                          ArrayRef<int64_t>{0, 0, 1}, PadMode::Constant,
                          APFloat::getInf(APFloat::IEEEdouble(), true));
  Value windows = im.create<GatherOp>(data, im.materialize(gathered), 2);
  Value tap = im.create<ArgMaxOp>(windows, 3, /*keepdims=*/false,
                                  /*select_last_index=*/false);
  Value flat = im.create<AddOp>(tap, im.materialize(tapBase));
  Value index = im.create<GatherOp>(im.materialize(reported), flat, 0);
  index = im.create<AddOp>(index, im.materialize(planeBase));
  SmallVector<int64_t> shape{n, c};
  shape.append(out);
  return im.create<ReshapeOp>(index, shape);
}

template <typename PoolOp> static LogicalResult convertPool(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  constexpr bool isMax = std::is_same_v<PoolOp, MaxPool2DOp>;
  if (failed(im.checkUnusedOutputs(isMax ? 2 : 1)))
    return failure();
  std::optional<std::vector<int64_t>> kernel = im.attrInts("kernel_shape");
  if (!kernel)
    return im.error() << "requires attribute 'kernel_shape'", failure();
  auto xType = cast<RankedTensorType>(x->getType());
  Window win;
  if (failed(resolveWindow(im, xType, *kernel, win)))
    return failure();
  bool ceil = im.attrInt("ceil_mode", 0) != 0;
  Value y;
  if constexpr (isMax) {
    int64_t storageOrder = im.attrInt("storage_order", 0);
    if (storageOrder != 0 && storageOrder != 1)
      return im.error() << "storage_order must be 0 or 1, got " << storageOrder,
             failure();
    y = poolWindow(im, *x, win, [&](Value in, const Window &w) -> Value {
      return im.create<MaxPool2DOp>(in, w.kernel, w.strides, w.pads,
                                    w.dilations, ceil);
    });
    // storage_order only affects the Indices output.
    if (y && im.node().output_size() > 1 && !im.node().output(1).empty()) {
      Value indices =
          maxPoolIndices(im, *x, win, ceil, /*columnMajor=*/storageOrder == 1);
      if (!indices)
        return failure();
      im.setOutput(1, indices);
    }
  } else {
    bool includePad = im.attrInt("count_include_pad", 0) != 0;
    y = poolWindow(im, *x, win, [&](Value in, const Window &w) -> Value {
      return im.create<AvgPool2DOp>(in, w.kernel, w.strides, w.pads, ceil,
                                    includePad, avgPoolDilations(w));
    });
  }
  if (!y)
    return failure();
  im.setOutput(0, y);
  return success();
}

/// LpPool: (sum over the window of |x|^p)^(1/p). The sum is an unpadded
/// average pool of |x|^p, zero-padded beforehand (and extended at the end
/// for ceil-mode windows), times the window's tap count.
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
  Window win;
  if (failed(resolveWindow(im, xType, *kernel, win)))
    return failure();
  auto p = static_cast<double>(im.attrInt("p", 2));
  if (p <= 0)
    return im.error() << "p must be positive, got " << p, failure();
  bool ceil = im.attrInt("ceil_mode", 0) != 0;
  int64_t rank = xType.getRank();
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  double taps = 1;
  for (int64_t d = 0; d < win.rank(); ++d) {
    int64_t in = xType.getDimSize(2 + d);
    int64_t out = shape::windowOutputSize(in, win.kernel[d], win.strides[d],
                                          win.padBegin(d), win.padEnd(d),
                                          win.dilations[d], ceil);
    if (out <= 0)
      return im.error() << "the window of spatial dim " << d << " ("
                        << win.kernel[d] << " taps, dilation "
                        << win.dilations[d]
                        << ") does not fit the padded input (" << in << " + "
                        << win.padBegin(d) << " + " << win.padEnd(d) << ")",
             failure();
    int64_t needed =
        (out - 1) * win.strides[d] + (win.kernel[d] - 1) * win.dilations[d] + 1;
    low[2 + d] = win.padBegin(d);
    high[2 + d] = std::max(win.padEnd(d), needed - in - win.padBegin(d));
    taps *= static_cast<double>(win.kernel[d]);
  }
  Window unpadded = win;
  unpadded.pads.assign(2 * win.rank(), 0);
  auto nonZero = [](int64_t v) { return v != 0; };
  bool padded = llvm::any_of(low, nonZero) || llvm::any_of(high, nonZero);
  Value y = computeInF32(im, *x, [&](Value v) -> Value {
    Type elem = cast<RankedTensorType>(v.getType()).getElementType();
    Value powered = p == 2.0 ? im.create<MulOp>(v, v)
                             : im.create<PowOp>(im.create<AbsOp>(v),
                                                im.scalarConstant(elem, p));
    if (padded)
      powered =
          im.create<PadOp>(powered, low, high, PadMode::Constant, APFloat(0.0));
    if (!powered)
      return {};
    Value avg = poolWindow(
        im, powered, unpadded, [&](Value in, const Window &w) -> Value {
          return im.create<AvgPool2DOp>(in, w.kernel, w.strides, w.pads,
                                        /*ceilMode=*/false,
                                        /*countIncludePad=*/true,
                                        avgPoolDilations(w));
        });
    Value sum = im.create<MulOp>(avg, im.scalarConstant(elem, taps));
    return p == 2.0 ? im.create<SqrtOp>(sum)
                    : im.create<PowOp>(sum, im.scalarConstant(elem, 1.0 / p));
  });
  if (!y)
    return failure();
  im.setOutput(0, y);
  return success();
}

void mlir::tandem::onnx_import::registerConvPoolConverters(ConverterMap &map) {
  map["Conv"] = convertConv;
  map["ConvTranspose"] = convertConvTranspose;
  map["MaxPool"] = convertPool<MaxPool2DOp>;
  map["AveragePool"] = convertPool<AvgPool2DOp>;
  map["LpPool"] = convertLpPool;
}
