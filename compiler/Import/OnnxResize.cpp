//===- OnnxResize.cpp - ONNX Resize -> gathers and weighted sums ----------===//
//
// Resize is separable: each resized axis is interpolated on its own, and
// with static shapes every output position's source indices and weights are
// known at compile time. Each axis becomes, per tap t of the interpolation
// kernel (1 for nearest, 2 for linear, 4 for cubic, more with antialias),
// a tandem.gather of the input along the axis with a constant index vector,
// times a constant weight vector, summed over the taps. The coefficients,
// neighbour choice, edge clamping, exclude_outside and the coordinate
// transformations follow the ONNX reference implementation
// (onnx/reference/ops/op_resize.py), so every mode computes what the spec
// defines; tf_crop_and_resize positions outside the input get the
// extrapolation value through a constant mask.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

/// The attributes that shape the interpolation.
struct ResizeParams {
  std::string mode, coordinateMode, nearestMode;
  double cubicA = -0.75, extrapolation = 0.0;
  bool excludeOutside = false, antialias = false;
};

/// One axis's interpolation: for output position o, `taps` pairs of
/// (clamped source index, weight), and whether o is extrapolated.
struct AxisPlan {
  int64_t taps = 0;
  std::vector<int64_t> index; // [out][taps]
  std::vector<double> weight; // [out][taps]
  std::vector<bool> outside;  // [out]
};

/// The float values of input `i`, known at compile time (a constant or known
/// integers); std::nullopt when absent or empty.
FailureOr<std::optional<std::vector<double>>>
constantFloats(GraphImporter &im, unsigned i, StringRef what) {
  if (!im.hasInput(i))
    return std::optional<std::vector<double>>();
  if (const KnownInts *k = im.knownInput(i)) {
    if (k->values.empty())
      return std::optional<std::vector<double>>();
    return std::optional<std::vector<double>>(
        std::vector<double>(k->values.begin(), k->values.end()));
  }
  FailureOr<Value> v = im.input(i);
  if (failed(v))
    return failure();
  if (auto c = v->getDefiningOp<ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
      if (isa<FloatType>(dense.getElementType())) {
        std::vector<double> values;
        for (const APFloat &f : dense.getValues<APFloat>())
          values.push_back(f.convertToDouble());
        if (values.empty())
          return std::optional<std::vector<double>>();
        return std::optional<std::vector<double>>(std::move(values));
      }
  InFlightDiagnostic diag = im.error() << "input #" << i << " (" << what
                                       << ") must be known at compile time";
  im.addBindHint(diag, i);
  return failure();
}

std::vector<double> nearestCoeffs(double ratio, StringRef mode) {
  if (ratio == std::floor(ratio))
    return {0, 1};
  if (mode == "round_prefer_floor")
    return {double(ratio <= 0.5), double(ratio > 0.5)};
  if (mode == "round_prefer_ceil")
    return {double(ratio < 0.5), double(ratio >= 0.5)};
  if (mode == "floor")
    return {1, 0};
  return {0, 1}; // ceil
}

std::vector<double> cubicCoeffs(double r, double a) {
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
          ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) *
                  ((1 - r) + 1) -
              4 * a};
}

std::vector<double> normalized(std::vector<double> c) {
  double sum = 0;
  for (double v : c)
    sum += v;
  for (double &v : c)
    v /= sum;
  return c;
}

std::vector<double> cubicCoeffsAntialias(double ratio, double scale, double a) {
  scale = std::min(scale, 1.0);
  auto coeff = [&](double x) {
    x = std::fabs(x);
    double x2 = x * x, x3 = x * x2;
    if (x <= 1)
      return (a + 2) * x3 - (a + 3) * x2 + 1;
    if (x < 2)
      return a * x3 - 5 * a * x2 + 8 * a * x - 4 * a;
    return 0.0;
  };
  auto start = static_cast<int64_t>(std::floor(-2 / scale) + 1);
  std::vector<double> c;
  for (int64_t i = start; i < 2 - start; ++i)
    c.push_back(coeff(scale * (static_cast<double>(i) - ratio)));
  return normalized(std::move(c));
}

std::vector<double> linearCoeffsAntialias(double ratio, double scale) {
  scale = std::min(scale, 1.0);
  auto start = static_cast<int64_t>(std::floor(-1 / scale) + 1);
  int64_t footprint = 2 - 2 * start;
  std::vector<double> c;
  for (int64_t i = start; i < start + footprint; ++i)
    c.push_back(std::clamp(
        1 - std::fabs((static_cast<double>(i) - ratio) * scale), 0.0, 1.0));
  return normalized(std::move(c));
}

std::vector<double> coeffs(const ResizeParams &p, double ratio, double scale) {
  if (p.mode == "nearest")
    return nearestCoeffs(ratio, p.nearestMode);
  if (p.mode == "linear")
    return p.antialias ? linearCoeffsAntialias(ratio, scale)
                       : std::vector<double>{1 - ratio, ratio};
  return p.antialias ? cubicCoeffsAntialias(ratio, scale, p.cubicA)
                     : cubicCoeffs(ratio, p.cubicA);
}

/// The `n` integers nearest to `x` in [0, limit), ties to the smaller, in
/// ascending order (the reference's _get_neighbor_idxes).
std::vector<int64_t> neighbours(double x, int64_t n, int64_t limit) {
  std::vector<int64_t> candidates;
  auto base = static_cast<int64_t>(std::floor(x));
  for (int64_t i = std::max<int64_t>(0, base - n);
       i <= std::min(limit - 1, base + n); ++i)
    candidates.push_back(i);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int64_t a, int64_t b) {
                     double da = std::fabs(x - a), db = std::fabs(x - b);
                     return da < db || (da == db && a < b);
                   });
  candidates.resize(std::min<size_t>(candidates.size(), n));
  llvm::sort(candidates);
  return candidates;
}

/// Plans one axis of `in` positions resized to `out` with `scale`.
AxisPlan planAxis(const ResizeParams &p, int64_t in, int64_t out, double scale,
                  double roiStart, double roiEnd) {
  AxisPlan plan;
  double outWidth = scale * static_cast<double>(in);
  std::vector<std::vector<int64_t>> idx(out);
  std::vector<std::vector<double>> w(out);
  plan.outside.assign(out, false);
  for (int64_t o = 0; o < out; ++o) {
    double x = static_cast<double>(o), xo;
    const std::string &m = p.coordinateMode;
    if (m == "align_corners") {
      xo = outWidth == 1 ? 0.0 : x * (in - 1) / (outWidth - 1);
    } else if (m == "asymmetric") {
      xo = x / scale;
    } else if (m == "tf_crop_and_resize") {
      xo = outWidth == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                         : x * (roiEnd - roiStart) * (in - 1) / (outWidth - 1);
      xo += roiStart * (in - 1);
      if (xo < 0 || xo > in - 1) {
        plan.outside[o] = true;
        continue;
      }
    } else if (m == "pytorch_half_pixel") {
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (m == "half_pixel_symmetric") {
      double adjustment = static_cast<double>(out) / outWidth;
      double offset = static_cast<double>(in) / 2 * (1 - adjustment);
      xo = offset + (x + 0.5) / scale - 0.5;
    } else { // half_pixel
      xo = (x + 0.5) / scale - 0.5;
    }
    double ratio = xo == std::floor(xo) ? 1.0 : xo - std::floor(xo);
    std::vector<double> c = coeffs(p, ratio, scale);
    auto n = static_cast<int64_t>(c.size());
    // Neighbours in the edge-padded input, then mapped back and clamped.
    int64_t pad = (n + 1) / 2;
    std::vector<int64_t> nb = neighbours(xo + pad, n, in + 2 * pad);
    for (int64_t &i : nb)
      i -= pad;
    if (p.excludeOutside) {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) {
        if (nb[t] < 0 || nb[t] >= in)
          c[t] = 0;
        sum += c[t];
      }
      for (double &v : c)
        v /= sum;
    }
    for (int64_t t = 0; t < n; ++t) {
      // Nearest keeps only the chosen neighbour: one exact gather, with no
      // 0 * x term that would turn an infinite neighbour into NaN.
      if (p.mode == "nearest" && c[t] == 0)
        continue;
      idx[o].push_back(std::clamp<int64_t>(nb[t], 0, in - 1));
      w[o].push_back(c[t]);
    }
    n = static_cast<int64_t>(idx[o].size());
    plan.taps = std::max(plan.taps, n);
  }
  plan.taps = std::max<int64_t>(plan.taps, 1);
  for (int64_t o = 0; o < out; ++o) {
    idx[o].resize(plan.taps, 0);
    w[o].resize(plan.taps, 0.0);
    plan.index.insert(plan.index.end(), idx[o].begin(), idx[o].end());
    plan.weight.insert(plan.weight.end(), w[o].begin(), w[o].end());
  }
  return plan;
}

/// Applies `plan` to `x` along `axis`.
Value applyAxis(GraphImporter &im, Value x, int64_t axis, const AxisPlan &plan,
                const ResizeParams &p) {
  auto type = cast<RankedTensorType>(x.getType());
  Type elem = type.getElementType();
  auto out = static_cast<int64_t>(plan.outside.size());
  Type i64 = im.builder().getI64Type();
  SmallVector<int64_t> bshape(type.getRank(), 1);
  bshape[axis] = out;
  Value sum;
  for (int64_t t = 0; t < plan.taps; ++t) {
    KnownInts indices{{out}, {}, i64};
    bool unitWeights = true;
    SmallVector<APFloat> weights;
    for (int64_t o = 0; o < out; ++o) {
      indices.values.push_back(plan.index[o * plan.taps + t]);
      double wv = plan.weight[o * plan.taps + t];
      unitWeights &= wv == 1.0;
      APFloat f(wv);
      bool losesInfo = false;
      if (auto ft = dyn_cast<FloatType>(elem))
        f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
      weights.push_back(f);
    }
    Value g = im.create<GatherOp>(x, im.materialize(indices), axis);
    if (p.mode != "nearest" || !unitWeights) {
      auto wType = RankedTensorType::get(bshape, elem);
      g = im.create<MulOp>(g, im.create<ConstantOp>(cast<ElementsAttr>(
                                  DenseElementsAttr::get(wType, weights))));
    }
    sum = sum ? im.create<AddOp>(sum, g) : g;
  }
  if (llvm::is_contained(plan.outside, true)) {
    SmallVector<bool> mask(plan.outside.begin(), plan.outside.end());
    auto maskType = RankedTensorType::get(bshape, im.builder().getI1Type());
    Value m = im.create<ConstantOp>(
        cast<ElementsAttr>(DenseElementsAttr::get(maskType, mask)));
    sum = im.create<WhereOp>(m, im.scalarConstant(elem, p.extrapolation), sum);
  }
  return sum;
}

LogicalResult convertResize(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  ResizeParams p;
  p.mode = im.attrString("mode", "nearest");
  p.coordinateMode =
      im.attrString("coordinate_transformation_mode", "half_pixel");
  p.nearestMode = im.attrString("nearest_mode", "round_prefer_floor");
  p.cubicA = im.attrFloat("cubic_coeff_a", -0.75f);
  p.extrapolation = im.attrFloat("extrapolation_value", 0.0f);
  p.excludeOutside = im.attrInt("exclude_outside", 0) != 0;
  p.antialias = im.attrInt("antialias", 0) != 0;
  std::string policy = im.attrString("keep_aspect_ratio_policy", "stretch");
  if (p.mode != "nearest" && p.mode != "linear" && p.mode != "cubic")
    return im.error() << "unknown mode '" << p.mode
                      << "' (expected nearest, linear or cubic)",
           failure();
  static const char *coordinateModes[] = {
      "half_pixel",    "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners", "asymmetric",           "tf_crop_and_resize"};
  if (!llvm::is_contained(coordinateModes, StringRef(p.coordinateMode)))
    return im.error() << "unknown coordinate_transformation_mode '"
                      << p.coordinateMode << "'",
           failure();
  static const char *nearestModes[] = {"round_prefer_floor",
                                       "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(nearestModes, StringRef(p.nearestMode)))
    return im.error() << "unknown nearest_mode '" << p.nearestMode << "'",
           failure();
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return im.error() << "unknown keep_aspect_ratio_policy '" << policy << "'",
           failure();
  if (p.mode != "nearest" && !isa<FloatType>(type.getElementType()))
    return im.error() << p.mode << " interpolation needs a float input, got "
                      << type,
           failure();

  // axes (opset 18) select which dims scales/sizes/roi describe.
  SmallVector<int64_t> axes;
  if (std::optional<std::vector<int64_t>> a = im.attrInts("axes")) {
    for (int64_t v : *a) {
      FailureOr<int64_t> n = im.normalizeAxis(v, rank, "axes");
      if (failed(n))
        return failure();
      if (llvm::is_contained(axes, *n))
        return im.error() << "axes repeats axis " << *n, failure();
      axes.push_back(*n);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  auto count = static_cast<size_t>(axes.size());

  FailureOr<std::optional<std::vector<double>>> roi =
      constantFloats(im, 1, "roi");
  FailureOr<std::optional<std::vector<double>>> scales =
      constantFloats(im, 2, "scales");
  if (failed(roi) || failed(scales))
    return failure();
  std::optional<std::vector<int64_t>> sizes;
  if (im.hasInput(3)) {
    FailureOr<std::vector<int64_t>> s = im.constantInts(3, "sizes");
    if (failed(s))
      return failure();
    if (!s->empty())
      sizes = *s;
  }
  if (sizes.has_value() == scales->has_value())
    return im.error() << "exactly one of scales and sizes must be given",
           failure();

  std::vector<double> scale(rank, 1.0);
  SmallVector<int64_t> outShape(type.getShape());
  if (*scales) {
    if ((*scales)->size() != count)
      return im.error() << "scales has " << (*scales)->size()
                        << " entries, expected " << count,
             failure();
    for (auto [i, d] : llvm::enumerate(axes)) {
      double s = (**scales)[i];
      if (!(s > 0) || !(s * type.getDimSize(d) < (1 << 30)))
        return im.error() << "scale " << s << " for axis " << d
                          << " must be positive and give at most 2^30 "
                             "elements",
               failure();
      scale[d] = s;
      outShape[d] = static_cast<int64_t>(std::floor(s * type.getDimSize(d)));
    }
  } else {
    if (sizes->size() != count)
      return im.error() << "sizes has " << sizes->size()
                        << " entries, expected " << count,
             failure();
    for (auto [i, d] : llvm::enumerate(axes)) {
      if ((*sizes)[i] <= 0 || (*sizes)[i] > (1 << 30))
        return im.error() << "size " << (*sizes)[i] << " for axis " << d
                          << " must lie in [1, 2^30]",
               failure();
      if (type.getDimSize(d) == 0)
        return im.error() << "cannot resize the empty axis " << d, failure();
      scale[d] = static_cast<double>((*sizes)[i]) / type.getDimSize(d);
      outShape[d] = (*sizes)[i];
    }
    if (policy != "stretch") {
      double s = scale[axes[0]];
      for (int64_t d : axes)
        s = policy == "not_larger" ? std::min(s, scale[d])
                                   : std::max(s, scale[d]);
      for (int64_t d : axes) {
        scale[d] = s;
        outShape[d] = static_cast<int64_t>(s * type.getDimSize(d) + 0.5);
      }
    }
  }
  std::vector<double> roiStart(rank, 0.0), roiEnd(rank, 1.0);
  if (p.coordinateMode == "tf_crop_and_resize") {
    if (!*roi || (*roi)->size() != 2 * count)
      return im.error() << "tf_crop_and_resize needs roi with " << 2 * count
                        << " entries",
             failure();
    for (auto [i, d] : llvm::enumerate(axes)) {
      roiStart[d] = (**roi)[i];
      roiEnd[d] = (**roi)[count + i];
    }
  }

  // The innermost axis first: its gathers pick single elements, and an
  // upsampled axis's are fewer before the outer axes grow the tensor; an
  // outer axis's gathers then pick whole rows (contiguous, vector loads).
  // The fusion planner keeps an upsampling gather from recomputing its
  // producer, so each axis is one loop. LR-ASPP's 28x28 -> 224x224 of 21
  // channels: 1.30 -> 0.24 ms at 1 thread on Zen 3.
  SmallVector<int64_t> order(axes);
  llvm::sort(order, std::greater<int64_t>());
  Value y = *x;
  for (int64_t d : order) {
    int64_t in = type.getDimSize(d), out = outShape[d];
    bool identity = in == out && scale[d] == 1.0 &&
                    p.coordinateMode != "tf_crop_and_resize";
    if (identity)
      continue;
    if (in == 0 || out == 0)
      return im.error() << "cannot resize axis " << d << " from " << in
                        << " to " << out << " elements",
             failure();
    y = applyAxis(im, y, d,
                  planAxis(p, in, out, scale[d], roiStart[d], roiEnd[d]), p);
  }
  im.setOutput(0, y);
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerResizeConverters(ConverterMap &map) {
  map["Resize"] = convertResize;
  // Models of opset 9 and older reach the importer converted (Upsample
  // becomes Resize); at opset 13 and later Upsample no longer exists.
  map["Upsample"] = [](GraphImporter &im) {
    return im.error() << "Upsample was removed in opset 10 and is not an op "
                         "of opset "
                      << im.opset() << "; use Resize",
           failure();
  };
}
