//===- OnnxSampling.cpp - ONNX GridSample, RoiAlign, ReverseSequence ------===//
//
// Ops that read their input at positions computed from run-time data (a
// sampling grid, regions of interest, sequence lengths). Each is composed
// from tandem ops: the positions and interpolation weights are elementwise
// arithmetic on the run-time tensor, the reads are one gather over the
// flattened spatial dims for all taps at once, and the interpolation is a
// weighted sum (or max) over the taps. Indices are clamped into range before
// they reach the gather, so its run-time index check never fires; positions
// that ONNX reads as zero (GridSample's zeros padding, RoiAlign samples
// outside the map) get a zero weight instead. The arithmetic follows
// onnxruntime's kernels (grid_sample.cc, roialign.cc) and the ONNX reference
// implementation (onnx/reference/ops/op_grid_sample.py, op_roi_align.py),
// which agree except where noted at GridSample.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The type the sampling arithmetic runs in: f64 stays f64, every other
/// float computes in f32 (as onnxruntime's f16 kernels do).
Type computeType(GraphImporter &im, Type elem) {
  return elem.isF64() ? elem : Type(im.builder().getF32Type());
}

/// `x` converted to `elem` (no op when it already has it).
Value castTo(GraphImporter &im, Value x, Type elem) {
  if (!x || typeOf(x).getElementType() == elem)
    return x;
  return im.create<CastOp>(x, elem);
}

/// Small builders over GraphImporter::create for the elementwise arithmetic.
struct Arith {
  GraphImporter &im;
  Type ft; // the float compute type
  Type i64;

  Value c(double v) const { return im.scalarConstant(ft, v); }
  Value ci(int64_t v) const {
    return im.scalarConstant(i64, static_cast<double>(v));
  }
  Value add(Value a, Value b) const { return im.create<AddOp>(a, b); }
  Value sub(Value a, Value b) const { return im.create<SubOp>(a, b); }
  Value mul(Value a, Value b) const { return im.create<MulOp>(a, b); }
  Value div(Value a, Value b) const { return im.create<DivOp>(a, b); }
  Value max(Value a, Value b) const { return im.create<MaxOp>(a, b); }
  Value min(Value a, Value b) const { return im.create<MinOp>(a, b); }
  Value floor(Value a) const { return im.create<FloorOp>(a); }
  Value cmp(CmpPredicate p, Value a, Value b) const {
    return im.create<CmpOp>(p, a, b);
  }
  Value select(Value cond, Value a, Value b) const {
    return im.create<WhereOp>(cond, a, b);
  }
  Value clamp(Value a, double lo, double hi) const {
    return min(max(a, c(lo)), c(hi));
  }
  Value toInt(Value a) const { return im.create<CastOp>(a, i64); }
  /// Integral float positions `a` clamped into [0, size), NaN (from a NaN
  /// grid or box, whose weights make the result NaN) read as 0, so no
  /// float-to-int conversion sees a value out of range.
  Value position(Value a, int64_t size) const {
    Value clamped = clamp(a, 0, static_cast<double>(size - 1));
    return select(cmp(CmpPredicate::EQ, clamped, clamped), clamped, c(0));
  }
  /// Whether flat indices below `count` are exact in the float type, so
  /// they can be computed there (on the GPU, where placement keeps integer
  /// arithmetic off) and converted once.
  bool exactBelow(int64_t count) const {
    return ft.isF64() || count <= (int64_t(1) << 24);
  }
  Value toFloat(Value a) const { return im.create<CastOp>(a, ft); }
  Value reshape(Value a, ArrayRef<int64_t> shape) const {
    return im.create<ReshapeOp>(a, shape);
  }
};

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

enum class GridMode { Nearest, Linear, Cubic };
enum class GridPadding { Zeros, Border, Reflection };

/// The reference's _gs_reflect: `x` reflected at `lo` and `hi` until it lies
/// in [lo, hi] (unchanged when it already does).
Value reflect(const Arith &a, Value x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0)
    return a.clamp(x, lo, hi);
  Value below = a.cmp(CmpPredicate::LT, x, a.c(lo));
  Value above = a.cmp(CmpPredicate::GT, x, a.c(hi));
  Value dist = a.select(below, a.sub(a.c(lo), x), a.sub(x, a.c(hi)));
  Value n = a.floor(a.div(dist, a.c(range)));
  Value r = a.sub(dist, a.mul(n, a.c(range)));
  Value half = a.mul(n, a.c(0.5));
  Value even = a.cmp(CmpPredicate::EQ, a.floor(half), half);
  // Below and n even, or above and n odd: lo + r; otherwise hi - r.
  Value fromLo = a.cmp(CmpPredicate::EQ, below, even);
  Value fx = a.select(fromLo, a.add(a.c(lo), r), a.sub(a.c(hi), r));
  Value outside = a.im.create<OrOp>(below, above);
  return a.select(outside, fx, x);
}

/// One spatial dim's taps: per tap, the clamped position (an integral
/// float) and the weight (float, zero where zeros padding reads outside),
/// each [N, P].
struct DimTaps {
  SmallVector<Value> index, weight;
};

/// The pixel coordinate of normalised grid values `g` on a dim of `size`
/// (rounded for nearest), before the padding mode applies.
Value gridCoordinate(const Arith &a, Value g, int64_t size, GridMode mode,
                     bool alignCorners) {
  auto d = static_cast<double>(size);
  Value x = alignCorners ? a.mul(a.mul(a.add(g, a.c(1)), a.c(0.5)), a.c(d - 1))
                         : a.mul(a.sub(a.mul(a.add(g, a.c(1)), a.c(d)), a.c(1)),
                                 a.c(0.5));
  return mode == GridMode::Nearest ? a.im.create<RoundOp>(x) : x;
}

/// The taps of coordinate `x` (after the padding mode moved it) on a dim of
/// `size`.
DimTaps gridDimTaps(const Arith &a, Value x, int64_t size, GridMode mode,
                    GridPadding padding, bool alignCorners) {
  auto d = static_cast<double>(size);
  double lo = alignCorners ? 0.0 : -0.5, hi = alignCorners ? d - 1 : d - 0.5;
  SmallVector<Value> taps, weights;
  if (mode == GridMode::Nearest) {
    taps.push_back(x);
    weights.push_back(Value());
  } else {
    Value base = a.floor(x);
    Value t = a.sub(x, base);
    if (mode == GridMode::Linear) {
      taps = {base, a.add(base, a.c(1))};
      weights = {a.sub(a.c(1), t), t};
    } else {
      // Keys' cubic convolution with alpha = -0.75 (the reference's
      // _gs_get_cubic_coeffs), for taps base-1 .. base+2.
      const double al = -0.75;
      Value t1 = a.add(t, a.c(1)), u = a.sub(a.c(1), t), u1 = a.sub(a.c(2), t);
      auto far = [&](Value s) { // ((al*s - 5al)*s + 8al)*s - 4al
        return a.sub(
            a.mul(a.add(a.mul(a.sub(a.mul(a.c(al), s), a.c(5 * al)), s),
                        a.c(8 * al)),
                  s),
            a.c(4 * al));
      };
      auto near = [&](Value s) { // ((al+2)*s - (al+3))*s*s + 1
        return a.add(
            a.mul(a.mul(a.sub(a.mul(a.c(al + 2), s), a.c(al + 3)), s), s),
            a.c(1));
      };
      taps = {a.sub(base, a.c(1)), base, a.add(base, a.c(1)),
              a.add(base, a.c(2))};
      weights = {far(t1), near(t), near(u), far(u1)};
    }
  }

  DimTaps out;
  for (auto [tap, w] : llvm::zip(taps, weights)) {
    Value idx = tap;
    if (padding == GridPadding::Zeros) {
      Value inside =
          a.im.create<AndOp>(a.cmp(CmpPredicate::GE, tap, a.c(0)),
                             a.cmp(CmpPredicate::LE, tap, a.c(d - 1)));
      Value mask = a.toFloat(inside);
      w = w ? a.mul(w, mask) : mask;
    } else if (padding == GridPadding::Reflection) {
      idx = reflect(a, tap, lo, hi);
    }
    out.index.push_back(a.position(idx, size));
    out.weight.push_back(w);
  }
  return out;
}

LogicalResult convertGridSample(GraphImporter &im) {
  FailureOr<RankedTensorType> xTypeOr = im.requiredInputType(0),
                              gTypeOr = im.requiredInputType(1);
  if (failed(xTypeOr) || failed(gTypeOr))
    return failure();
  RankedTensorType xType = *xTypeOr, gType = *gTypeOr;
  int64_t rank = xType.getRank(), k = rank - 2;
  if (!isa<FloatType>(xType.getElementType()) ||
      !isa<FloatType>(gType.getElementType()))
    return im.error() << "expects float X and grid, got " << xType << " and "
                      << gType,
           failure();
  if (rank < 3 || gType.getRank() != rank ||
      gType.getDimSize(0) != xType.getDimSize(0) ||
      gType.getDimSize(rank - 1) != k)
    return im.error() << "expects X of shape (N, C, D1, ..., Dk) and grid of "
                         "shape (N, H1, ..., Hk, k), got "
                      << xType << " and " << gType,
           failure();
  if (im.opset() < 20 && k != 2)
    return im.error() << "opset " << im.opset()
                      << " GridSample takes 4-D inputs only, got " << xType,
           failure();

  std::string modeName =
      im.attrString("mode", im.opset() < 20 ? "bilinear" : "linear");
  GridMode mode;
  if (modeName == "nearest")
    mode = GridMode::Nearest;
  else if (modeName == "linear" || modeName == "bilinear")
    mode = GridMode::Linear;
  else if (modeName == "cubic" || modeName == "bicubic")
    mode = GridMode::Cubic;
  else
    return im.error() << "unknown mode '" << modeName
                      << "' (expected linear, nearest or cubic)",
           failure();
  std::string padName = im.attrString("padding_mode", "zeros");
  GridPadding padding;
  if (padName == "zeros")
    padding = GridPadding::Zeros;
  else if (padName == "border")
    padding = GridPadding::Border;
  else if (padName == "reflection")
    padding = GridPadding::Reflection;
  else
    return im.error() << "unknown padding_mode '" << padName
                      << "' (expected zeros, border or reflection)",
           failure();
  bool alignCorners = im.attrInt("align_corners", 0) != 0;
  int64_t taps = mode == GridMode::Nearest  ? 1
                 : mode == GridMode::Linear ? 2
                                            : 4;
  if (k > 1 &&
      std::pow(static_cast<double>(taps), static_cast<double>(k)) > 256)
    return im.error() << modeName << " sampling of " << k
                      << " spatial dims reads " << taps << "^" << k
                      << " taps per point; at most 256 are supported",
           failure();

  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1);
  ArrayRef<int64_t> spatial = xType.getShape().drop_front(2);
  ArrayRef<int64_t> outSpatial = gType.getShape().slice(1, k);
  int64_t s = shape::numElements(spatial), p = shape::numElements(outSpatial);
  if (s == 0 || p == 0 || n == 0 || c == 0)
    return im.error() << "empty X or grid (" << xType << ", " << gType
                      << ") is not supported",
           failure();

  FailureOr<Value> xOr = im.input(0), gridOr = im.input(1);
  if (failed(xOr) || failed(gridOr))
    return failure();
  Type ft = computeType(im, xType.getElementType());
  Arith a{im, ft, im.builder().getI64Type()};
  Value grid = castTo(im, *gridOr, ft);

  // Per spatial dim i (X dim 2 + i), its grid component is k - 1 - i (the
  // grid lists x, the innermost dim, first).
  // Padding applies to each tap, not to the coordinate, as in onnxruntime
  // (the reference also clamps or reflects the coordinate first, which
  // gives the same values except for cubic taps with border padding).
  SmallVector<DimTaps> dims;
  SmallVector<int64_t> strides = stridesOf(spatial);
  for (int64_t i = 0; i < k; ++i) {
    SmallVector<int64_t> starts(rank, 0), limits(gType.getShape()),
        steps(rank, 1);
    starts[rank - 1] = k - 1 - i;
    limits[rank - 1] = k - i;
    Value g =
        a.reshape(im.create<SliceOp>(grid, starts, limits, steps), {n, p});
    Value x = gridCoordinate(a, g, spatial[i], mode, alignCorners);
    dims.push_back(gridDimTaps(a, x, spatial[i], mode, padding, alignCorners));
  }

  // Every combination of taps: flat index and product weight.
  int64_t tapsPerDim = dims.front().index.size();
  int64_t corners = 1;
  for (int64_t i = 0; i < k; ++i)
    corners *= tapsPerDim;
  SmallVector<Value> indices, weights;
  bool inFloat = a.exactBelow(s);
  for (int64_t corner = 0; corner < corners; ++corner) {
    Value flat, weight;
    for (int64_t i = k - 1, rem = corner; i >= 0; --i, rem /= tapsPerDim) {
      int64_t t = rem % tapsPerDim;
      Value term = dims[i].index[t];
      if (!inFloat)
        term = a.toInt(term);
      if (strides[i] != 1)
        term = a.mul(term, inFloat ? a.c(static_cast<double>(strides[i]))
                                   : a.ci(strides[i]));
      flat = flat ? a.add(flat, term) : term;
      if (Value w = dims[i].weight[t])
        weight = weight ? a.mul(weight, w) : w;
    }
    indices.push_back(flat);
    weights.push_back(weight);
  }

  // X as (N, S, C) rows: one gather_nd row of C channels per tap, so the
  // tap indices are computed once, not per channel.
  Value x = castTo(im, a.reshape(*xOr, {n, c, s}), ft);
  x = im.create<TransposeOp>(x, ArrayRef<int64_t>{0, 2, 1});
  Value index =
      corners == 1 ? indices.front() : im.create<ConcatOp>(indices, /*axis=*/1);
  if (inFloat)
    index = a.toInt(index);
  index = a.reshape(index, {n, corners * p, 1});
  Value y = im.create<GatherNDOp>(x, index, /*batch_dims=*/1); // [N, K*P, C]
  if (weights.front()) {
    Value w = corners == 1 ? weights.front()
                           : im.create<ConcatOp>(weights, /*axis=*/1);
    y = a.mul(a.reshape(y, {n, corners, p, c}),
              a.reshape(w, {n, corners, p, 1}));
    y = im.create<ReduceSumOp>(y, ArrayRef<int64_t>{1}, /*keepdims=*/false);
  }
  y = im.create<TransposeOp>(y, ArrayRef<int64_t>{0, 2, 1}); // [N, C, P]
  SmallVector<int64_t> outShape{n, c};
  llvm::append_range(outShape, outSpatial);
  y = castTo(im, a.reshape(y, outShape), xType.getElementType());
  if (!y || im.failedNode())
    return failure();
  im.setOutput(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

/// One axis of the RoiAlign samples (the reference's
/// pre_calc_for_bilinear_interpolate), each [R, bins * grid]: the low and
/// high source position (integral floats), their weights, and whether the
/// sample lies in [-1, size].
struct RoiAxis {
  Value low, high, wLow, wHigh, valid;
};

RoiAxis roiAxis(const Arith &a, Value start, Value binSize, int64_t bins,
                int64_t grid, int64_t size) {
  // pos[j] for j = bin * grid + i is start + bin * binSize +
  // (i + 0.5) * binSize / grid, as onnxruntime orders it.
  std::vector<double> binIdx, sub;
  for (int64_t b = 0; b < bins; ++b)
    for (int64_t i = 0; i < grid; ++i) {
      binIdx.push_back(static_cast<double>(b));
      sub.push_back(static_cast<double>(i) + 0.5);
    }
  int64_t m = bins * grid;
  Value bin = a.im.floatConstant({1, m}, a.ft, binIdx);
  Value frac = a.im.floatConstant({1, m}, a.ft, sub);
  Value pos = a.add(a.add(start, a.mul(bin, binSize)),
                    a.div(a.mul(frac, binSize), a.c(grid)));
  auto d = static_cast<double>(size);
  RoiAxis r;
  r.valid = a.im.create<AndOp>(a.cmp(CmpPredicate::GE, pos, a.c(-1)),
                               a.cmp(CmpPredicate::LE, pos, a.c(d)));
  pos = a.max(pos, a.c(0));
  Value low = a.floor(pos);
  Value atEdge = a.cmp(CmpPredicate::GE, low, a.c(d - 1));
  Value high = a.select(atEdge, a.c(d - 1), a.add(low, a.c(1)));
  low = a.select(atEdge, a.c(d - 1), low);
  pos = a.select(atEdge, low, pos);
  r.wHigh = a.sub(pos, low);
  r.wLow = a.sub(a.c(1), r.wHigh);
  r.low = a.position(low, size);
  r.high = a.position(high, size);
  return r;
}

/// The RoiAlign attributes and the shapes they apply to.
struct RoiParams {
  bool avg = true, halfPixel = true;
  int64_t ph = 1, pw = 1;
  double scale = 1.0;
  int64_t n = 0, c = 0, h = 0, w = 0;
};

/// RoiAlign of `r` boxes `rois` ([r, 4], compute type) from batches `batch`
/// ([r], i64) of `rows`, X as (N*H*W, C) rows, with a grid of `gh` x `gw`
/// samples per bin: [r, C, PH, PW].
Value roiAlignBoxes(const Arith &a, const RoiParams &p, Value rows, Value rois,
                    Value batch, int64_t r, int64_t gh, int64_t gw) {
  GraphImporter &im = a.im;
  auto column = [&](int64_t i) {
    return im.create<SliceOp>(rois, ArrayRef<int64_t>{0, i},
                              ArrayRef<int64_t>{r, i + 1},
                              ArrayRef<int64_t>{1, 1});
  };
  double offset = p.halfPixel ? 0.5 : 0.0;
  auto scaled = [&](int64_t i) {
    return a.sub(a.mul(column(i), a.c(p.scale)), a.c(offset));
  };
  Value startW = scaled(0), startH = scaled(1), endW = scaled(2),
        endH = scaled(3);
  Value roiW = a.sub(endW, startW), roiH = a.sub(endH, startH);
  if (!p.halfPixel) {
    roiW = a.max(roiW, a.c(1));
    roiH = a.max(roiH, a.c(1));
  }
  Value binH = a.div(roiH, a.c(p.ph)), binW = a.div(roiW, a.c(p.pw));
  RoiAxis y = roiAxis(a, startH, binH, p.ph, gh, p.h);
  RoiAxis x = roiAxis(a, startW, binW, p.pw, gw, p.w);
  int64_t my = p.ph * gh, mx = p.pw * gw, c = p.c;
  auto asY = [&](Value v) { return a.reshape(v, {r, my, 1}); };
  auto asX = [&](Value v) { return a.reshape(v, {r, 1, mx}); };
  Value valid =
      a.toFloat(im.create<AndOp>(asY(y.valid), asX(x.valid))); // [R, my, mx]

  // Flat positions into the (N * H * W) rows of C channels.
  batch = a.min(a.max(batch, a.ci(0)), a.ci(p.n - 1));
  bool inFloat = a.exactBelow(p.n * p.h * p.w);
  auto asIndex = [&](Value v) { return inFloat ? v : a.toInt(v); };
  Value base = inFloat ? a.mul(a.toFloat(batch), a.c(p.h * p.w))
                       : a.mul(batch, a.ci(p.h * p.w));
  base = a.reshape(base, {r, 1, 1});
  SmallVector<Value> indices, weights;
  struct Corner {
    Value yIdx, yW, xIdx, xW;
  };
  Corner cornersList[] = {{y.low, y.wLow, x.low, x.wLow},
                          {y.low, y.wLow, x.high, x.wHigh},
                          {y.high, y.wHigh, x.low, x.wLow},
                          {y.high, y.wHigh, x.high, x.wHigh}};
  for (const Corner &corner : cornersList) {
    Value width = inFloat ? a.c(p.w) : a.ci(p.w);
    Value idx = a.add(base, a.add(a.mul(asY(asIndex(corner.yIdx)), width),
                                  asX(asIndex(corner.xIdx))));
    indices.push_back(a.reshape(idx, {r, 1, my, mx}));
    Value wt = a.mul(a.mul(asY(corner.yW), asX(corner.xW)), valid);
    weights.push_back(a.reshape(wt, {r, 1, my, mx}));
  }
  Value index = im.create<ConcatOp>(indices, /*axis=*/1); // [R, 4, my, mx]
  if (inFloat)
    index = a.toInt(index);
  Value weight = im.create<ConcatOp>(weights, /*axis=*/1); // [R, 4, my, mx]

  Value v = im.create<GatherOp>(rows, index, /*axis=*/0); // [R,4,my,mx,C]
  v = a.mul(v, a.reshape(weight, {r, 4, my, mx, 1}));
  Value out;
  if (p.avg) {
    v = im.create<ReduceSumOp>(v, ArrayRef<int64_t>{1}, /*keepdims=*/false);
    v = a.reshape(v, {r, p.ph, gh, p.pw, gw, c});
    v = im.create<ReduceSumOp>(v, ArrayRef<int64_t>{2, 4}, /*keepdims=*/false);
    out = a.div(v, a.c(static_cast<double>(gh * gw)));
  } else {
    v = im.create<ReduceMaxOp>(v, ArrayRef<int64_t>{1}, /*keepdims=*/false);
    v = a.reshape(v, {r, p.ph, gh, p.pw, gw, c});
    out = im.create<ReduceMaxOp>(v, ArrayRef<int64_t>{2, 4},
                                 /*keepdims=*/false);
  }
  return im.create<TransposeOp>(out, ArrayRef<int64_t>{0, 3, 1, 2});
}

/// The float values of a constant `v` (dense or a dense_resource blob of
/// f32), or std::nullopt.
std::optional<std::vector<double>> constantFloatValues(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  std::vector<double> values;
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue())) {
    if (!isa<FloatType>(dense.getElementType()))
      return std::nullopt;
    for (const APFloat &f : dense.getValues<APFloat>())
      values.push_back(f.convertToDouble());
    return values;
  }
  if (auto blob = dyn_cast<DenseF32ResourceElementsAttr>(c.getValue()))
    if (std::optional<ArrayRef<float>> data = blob.tryGetAsArrayRef()) {
      values.assign(data->begin(), data->end());
      return values;
    }
  return std::nullopt;
}

/// RoiAlign (opsets 10 and 16). With a positive sampling_ratio the boxes
/// are run-time data; the adaptive sampling_ratio 0 sizes each box's sample
/// grid from its size, which needs the boxes at compile time: they are then
/// grouped by grid size, each group computed as above, and the results put
/// back in box order with a constant gather.
LogicalResult convertRoiAlign(GraphImporter &im) {
  FailureOr<RankedTensorType> xTypeOr = im.requiredInputType(0),
                              rTypeOr = im.requiredInputType(1),
                              bTypeOr = im.requiredInputType(2);
  if (failed(xTypeOr) || failed(rTypeOr) || failed(bTypeOr))
    return failure();
  RankedTensorType xType = *xTypeOr, rType = *rTypeOr, bType = *bTypeOr;
  if (xType.getRank() != 4 || !isa<FloatType>(xType.getElementType()))
    return im.error() << "expects a float X of shape (N, C, H, W), got "
                      << xType,
           failure();
  if (rType.getRank() != 2 || rType.getDimSize(1) != 4 ||
      !isa<FloatType>(rType.getElementType()) || bType.getRank() != 1 ||
      bType.getDimSize(0) != rType.getDimSize(0) ||
      !isa<IntegerType>(bType.getElementType()))
    return im.error() << "expects float rois of shape (R, 4) and integer "
                         "batch_indices of shape (R), got "
                      << rType << " and " << bType,
           failure();
  RoiParams p;
  std::string mode = im.attrString("mode", "avg");
  if (mode != "avg" && mode != "max")
    return im.error() << "unknown mode '" << mode << "' (expected avg or max)",
           failure();
  p.avg = mode == "avg";
  std::string ctm =
      im.attrString("coordinate_transformation_mode",
                    im.opset() < 16 ? "output_half_pixel" : "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return im.error() << "unknown coordinate_transformation_mode '" << ctm
                      << "' (expected half_pixel or output_half_pixel)",
           failure();
  p.halfPixel = ctm == "half_pixel";
  p.ph = im.attrInt("output_height", 1);
  p.pw = im.attrInt("output_width", 1);
  int64_t ratio = im.attrInt("sampling_ratio", 0);
  p.scale = im.attrFloat("spatial_scale", 1.0f);
  if (p.ph < 1 || p.pw < 1 || p.ph > (1 << 16) || p.pw > (1 << 16))
    return im.error() << "output_height (" << p.ph << ") and output_width ("
                      << p.pw << ") must lie in [1, 65536]",
           failure();
  if (ratio < 0 || ratio > 64)
    return im.error() << "sampling_ratio = " << ratio << " must lie in [0, 64]",
           failure();
  p.n = xType.getDimSize(0);
  p.c = xType.getDimSize(1);
  p.h = xType.getDimSize(2);
  p.w = xType.getDimSize(3);
  int64_t r = rType.getDimSize(0);
  if (p.n == 0 || p.c == 0 || p.h == 0 || p.w == 0 || r == 0)
    return im.error() << "empty X or rois (" << xType << ", " << rType
                      << ") is not supported",
           failure();

  FailureOr<Value> xOr = im.input(0), roisOr = im.input(1),
                   batchOr = im.input(2);
  if (failed(xOr) || failed(roisOr) || failed(batchOr))
    return failure();
  std::optional<std::vector<double>> known;
  if (ratio == 0) {
    known = constantFloatValues(*roisOr);
    if (!known) {
      InFlightDiagnostic diag =
          im.error() << "sampling_ratio = 0 (adaptive: the samples per bin "
                        "depend on each roi's size) needs rois known at "
                        "compile time; set a positive sampling_ratio";
      im.addBindHint(diag, 1);
      return failure();
    }
  }
  Type ft = computeType(im, xType.getElementType());
  Arith a{im, ft, im.builder().getI64Type()};
  Value rois = castTo(im, *roisOr, ft);
  Value batch = castTo(im, *batchOr, a.i64);
  Value rows = castTo(im, *xOr, ft);
  rows = im.create<TransposeOp>(rows, ArrayRef<int64_t>{0, 2, 3, 1});
  rows = a.reshape(rows, {p.n * p.h * p.w, p.c});

  Value out;
  if (ratio > 0) {
    out = roiAlignBoxes(a, p, rows, rois, batch, r, ratio, ratio);
  } else {
    // Each box's grid, computed in f32 as onnxruntime does.
    std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> groups;
    for (int64_t i = 0; i < r; ++i) {
      auto coord = [&](int64_t j) {
        return static_cast<float>((*known)[i * 4 + j]) *
                   static_cast<float>(p.scale) -
               (p.halfPixel ? 0.5f : 0.0f);
      };
      float roiW = coord(2) - coord(0), roiH = coord(3) - coord(1);
      if (!p.halfPixel) {
        roiW = std::max(roiW, 1.0f);
        roiH = std::max(roiH, 1.0f);
      }
      float gh = std::ceil(roiH / static_cast<float>(p.ph)),
            gw = std::ceil(roiW / static_cast<float>(p.pw));
      if (!(gh < 4096 && gw < 4096))
        return im.error() << "roi " << i << " needs a " << gh << " x " << gw
                          << " sample grid per bin (sampling_ratio = 0); "
                             "at most 4095 x 4095 is supported",
               failure();
      // No samples (an empty or inverted box) gives 0, as onnxruntime.
      auto key = gh < 1 || gw < 1
                     ? std::pair<int64_t, int64_t>(0, 0)
                     : std::pair<int64_t, int64_t>(static_cast<int64_t>(gh),
                                                   static_cast<int64_t>(gw));
      groups[key].push_back(i);
    }
    SmallVector<Value> parts;
    std::vector<int64_t> order(r);
    int64_t position = 0;
    for (auto &[grid, members] : groups) {
      auto count = static_cast<int64_t>(members.size());
      for (int64_t i : members)
        order[i] = position++;
      if (grid.first == 0) {
        parts.push_back(im.create<BroadcastToOp>(
            a.c(0), SmallVector<int64_t>{count, p.c, p.ph, p.pw}));
        continue;
      }
      Value pick = im.materialize(KnownInts{{count}, members, a.i64});
      parts.push_back(
          roiAlignBoxes(a, p, rows, im.create<GatherOp>(rois, pick, /*axis=*/0),
                        im.create<GatherOp>(batch, pick, /*axis=*/0), count,
                        grid.first, grid.second));
    }
    out = parts.size() == 1 ? parts.front()
                            : im.create<ConcatOp>(parts, /*axis=*/0);
    if (groups.size() > 1)
      out = im.create<GatherOp>(
          out, im.materialize(KnownInts{{r}, order, a.i64}), /*axis=*/0);
  }
  out = castTo(im, out, xType.getElementType());
  if (!out || im.failedNode())
    return failure();
  im.setOutput(0, out);
  return success();
}

//===----------------------------------------------------------------------===//
// ReverseSequence
//===----------------------------------------------------------------------===//

/// ReverseSequence (opset 10): along time_axis, the first sequence_lens[b]
/// elements of batch b are reversed and the rest kept. A GatherElements
/// along time_axis with index t < len ? len - 1 - t : t; lengths are clamped
/// to [0, T].
LogicalResult convertReverseSequence(GraphImporter &im) {
  FailureOr<RankedTensorType> xTypeOr = im.requiredInputType(0),
                              lTypeOr = im.requiredInputType(1);
  if (failed(xTypeOr) || failed(lTypeOr))
    return failure();
  RankedTensorType xType = *xTypeOr, lType = *lTypeOr;
  int64_t batchAxis = im.attrInt("batch_axis", 1),
          timeAxis = im.attrInt("time_axis", 0);
  if (xType.getRank() < 2)
    return im.error() << "expects an input of rank 2 or more, got " << xType,
           failure();
  if (!((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0)))
    return im.error() << "batch_axis (" << batchAxis << ") and time_axis ("
                      << timeAxis << ") must be 0 and 1 in either order",
           failure();
  int64_t b = xType.getDimSize(batchAxis), t = xType.getDimSize(timeAxis);
  if (lType.getRank() != 1 || lType.getDimSize(0) != b ||
      !isa<IntegerType>(lType.getElementType()))
    return im.error() << "sequence_lens must be an integer vector of the "
                         "batch size "
                      << b << ", got " << lType,
           failure();
  Arith a{im, im.builder().getF32Type(), im.builder().getI64Type()};
  FailureOr<Value> xOr = im.input(0), lensOr = im.input(1);
  if (failed(xOr) || failed(lensOr))
    return failure();
  // [B, 1] or [1, B] lengths against a [T, 1] or [1, T] iota, as the two
  // leading dims of x are ordered.
  SmallVector<int64_t> lenShape{1, 1}, iotaShape{1, 1};
  lenShape[batchAxis] = b;
  iotaShape[timeAxis] = t;
  Value lens = castTo(im, *lensOr, a.i64);
  lens = a.reshape(a.min(a.max(lens, a.ci(0)), a.ci(t)), lenShape);
  KnownInts iota{iotaShape, {}, a.i64};
  for (int64_t i = 0; i < t; ++i)
    iota.values.push_back(i);
  Value time = im.materialize(iota);
  Value reversed = a.sub(a.sub(lens, a.ci(1)), time);
  Value index = a.select(a.cmp(CmpPredicate::LT, time, lens), reversed, time);
  SmallVector<int64_t> full(xType.getShape().take_front(2));
  full.append(xType.getRank() - 2, 1);
  index = im.create<BroadcastToOp>(a.reshape(index, full),
                                   SmallVector<int64_t>(xType.getShape()));
  Value y = im.create<GatherElementsOp>(*xOr, index, timeAxis);
  if (!y || im.failedNode())
    return failure();
  im.setOutput(0, y);
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerSamplingConverters(ConverterMap &map) {
  map["GridSample"] = convertGridSample;
  map["RoiAlign"] = convertRoiAlign;
  map["ReverseSequence"] = convertReverseSequence;
}
