//===- OnnxShapeOps.cpp - ONNX shape and data-movement ops -> tandem ------===//
//
// Constant, Shape, ConstantOfShape, Reshape, Flatten, Transpose, Squeeze,
// Unsqueeze, Concat, Split, Slice, Gather, Expand and Pad. On integer tensors
// known at import time (shape computations) they evaluate instead of
// emitting ops, so Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains
// fold into a static reshape.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

#include "llvm/Support/MathExtras.h"

#include "llvm/ADT/StringExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

static LogicalResult convertConstant(GraphImporter &im) {
  OpBuilder &b = im.builder();
  const onnx::AttributeProto *a = nullptr;
  for (const char *name :
       {"value", "value_float", "value_floats", "value_int", "value_ints"})
    if ((a = im.attr(name)))
      break;
  if (!a)
    return im.error() << "has no supported value attribute (value, "
                         "value_float(s), value_int(s))",
           failure();
  if (a->name() == "value") {
    if (std::optional<KnownInts> k = im.knownFromTensor(a->t())) {
      im.setKnownOutput(0, std::move(*k));
      return success();
    }
    FailureOr<ElementsAttr> attr =
        im.tensorAttr(a->t(), "constant of node '" + im.node().name() + "'");
    if (failed(attr))
      return failure();
    im.setOutput(0, im.create<ConstantOp>(*attr));
    return success();
  }
  if (a->name() == "value_int" || a->name() == "value_ints") {
    KnownInts k;
    k.elementType = b.getI64Type();
    if (a->name() == "value_int") {
      k.values = {a->i()};
    } else {
      k.values.assign(a->ints().begin(), a->ints().end());
      k.shape = {static_cast<int64_t>(k.values.size())};
    }
    im.setKnownOutput(0, std::move(k));
    return success();
  }
  SmallVector<float> floats;
  SmallVector<int64_t> shape;
  if (a->name() == "value_float") {
    floats.push_back(a->f());
  } else {
    floats.assign(a->floats().begin(), a->floats().end());
    shape.push_back(floats.size());
  }
  auto type = RankedTensorType::get(shape, b.getF32Type());
  im.setOutput(0, im.create<ConstantOp>(cast<ElementsAttr>(
                      DenseElementsAttr::get(type, ArrayRef<float>(floats)))));
  return success();
}

static LogicalResult convertShape(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  int64_t rank = type.getRank();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(im.attrInt("start", 0));
  int64_t end = clampIndex(im.attrInt("end", rank));
  KnownInts k{
      {std::max<int64_t>(0, end - start)}, {}, im.builder().getI64Type()};
  for (int64_t d = start; d < end; ++d)
    k.values.push_back(type.getDimSize(d));
  im.setKnownOutput(0, std::move(k));
  return success();
}

static LogicalResult convertConstantOfShape(GraphImporter &im) {
  FailureOr<std::vector<int64_t>> dims = im.constantDims(0, "shape");
  if (failed(dims))
    return failure();
  if (llvm::any_of(*dims, [](int64_t d) { return d < 0; }))
    return im.error() << "shape has negative dims", failure();
  if (failed(im.checkResultSize(
          "tandem.broadcast_to",
          RankedTensorType::get(*dims, im.builder().getF32Type()))))
    return failure();
  OpBuilder &b = im.builder();
  Type elem = b.getF32Type();
  double fill = 0.0;
  if (const onnx::AttributeProto *a = im.attr("value")) {
    std::optional<KnownInts> k = im.knownFromTensor(a->t());
    elem = im.elementType(a->t().data_type());
    if (k && k->values.size() == 1) {
      KnownInts r{
          SmallVector<int64_t>(dims->begin(), dims->end()), {}, k->elementType};
      int64_t count = shape::numElements(r.shape);
      if (count <= 4096) {
        r.values.assign(count, k->values[0]);
        im.setKnownOutput(0, std::move(r));
        return success();
      }
      fill = static_cast<double>(k->values[0]);
    } else {
      // Any other element type (f32, f64, i8, ui8, ...): the value as a
      // constant, broadcast, so every type keeps its exact bits.
      if (!elem)
        return im.error() << "'value' has unsupported element type "
                          << onnxTypeName(a->t().data_type()),
               failure();
      FailureOr<ElementsAttr> value = im.tensorAttr(a->t(), "'value'");
      if (failed(value))
        return failure();
      if (value->getNumElements() != 1)
        return im.error() << "'value' must hold one element, got "
                          << value->getNumElements(),
               failure();
      Value scalar = im.create<ReshapeOp>(im.create<ConstantOp>(*value),
                                          ArrayRef<int64_t>{});
      im.setOutput(0, im.create<BroadcastToOp>(scalar, *dims));
      return success();
    }
  }
  Value scalar = im.scalarConstant(elem, fill);
  im.setOutput(0, im.create<BroadcastToOp>(scalar, *dims));
  return success();
}

/// Resolves ONNX Reshape's 0 (copy) and -1 (infer) entries.
static FailureOr<SmallVector<int64_t>> resolveReshape(GraphImporter &im,
                                                      ArrayRef<int64_t> in,
                                                      ArrayRef<int64_t> target,
                                                      bool allowZero) {
  SmallVector<int64_t> out;
  int64_t inferred = -1, known = 1;
  for (auto [i, entry] : llvm::enumerate(target)) {
    int64_t d = entry;
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return im.error() << "shape entry " << i
                          << " is 0 (copy) but the input has rank "
                          << in.size(),
               failure();
      d = in[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return im.error() << "shape has more than one -1", failure();
      inferred = i;
      out.push_back(1);
      continue;
    }
    if (d < 0)
      return im.error() << "shape entry " << i << " is " << d, failure();
    if (llvm::MulOverflow(known, d, known))
      return im.error() << "shape overflows", failure();
    out.push_back(d);
  }
  int64_t total = shape::numElements(in);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return im.error() << "cannot infer the -1 dim: " << total
                        << " elements do not divide by " << known,
             failure();
    out[inferred] = total / known;
  } else if (known != total) {
    return im.error() << "cannot reshape " << total << " elements to " << known,
           failure();
  }
  return out;
}

/// Reshapes input 0 (a value or a known tensor) to `shape`.
static LogicalResult reshapeTo(GraphImporter &im, ArrayRef<int64_t> shape) {
  if (const KnownInts *k = im.knownInput(0)) {
    KnownInts r = *k;
    r.shape.assign(shape.begin(), shape.end());
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<ReshapeOp>(*x, shape));
  return success();
}

static LogicalResult convertReshape(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  FailureOr<std::vector<int64_t>> target = im.constantDims(1, "shape");
  if (failed(target))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = resolveReshape(
      im, type.getShape(), *target, im.attrInt("allowzero", 0) != 0);
  if (failed(shape))
    return failure();
  return reshapeTo(im, *shape);
}

static LogicalResult convertFlatten(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  int64_t axis = im.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    return im.error() << "axis " << axis << " is out of range for rank "
                      << rank,
           failure();
  if (axis < 0)
    axis += rank;
  int64_t outer = shape::numElements(type.getShape().take_front(axis));
  int64_t inner = shape::numElements(type.getShape().drop_front(axis));
  im.setOutput(0, im.create<ReshapeOp>(*x, ArrayRef<int64_t>{outer, inner}));
  return success();
}

static LogicalResult convertTranspose(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  std::vector<int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (auto p = im.attrInts("perm"))
    perm = *p;
  if (!shape::isPermutation(perm) || static_cast<int64_t>(perm.size()) != rank)
    return im.error() << "perm is not a permutation of the input's " << rank
                      << " dims",
           failure();
  im.setOutput(0, im.create<TransposeOp>(*x, perm));
  return success();
}

/// Axes of Squeeze/Unsqueeze: an attribute before opset 13, an input since.
static FailureOr<std::optional<std::vector<int64_t>>>
squeezeAxes(GraphImporter &im) {
  if (im.opset() >= 13) {
    if (!im.hasInput(1))
      return std::optional<std::vector<int64_t>>();
    FailureOr<std::vector<int64_t>> axes = im.constantInts(1, "axes");
    if (failed(axes))
      return failure();
    return std::optional<std::vector<int64_t>>(*axes);
  }
  return im.attrInts("axes");
}

static LogicalResult convertSqueeze(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  auto axes = squeezeAxes(im);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  SmallVector<bool> drop(type.getRank(), false);
  if (*axes) {
    for (int64_t a : **axes) {
      FailureOr<int64_t> n = im.normalizeAxis(a, type.getRank(), "axis");
      if (failed(n))
        return failure();
      if (type.getDimSize(*n) != 1)
        return im.error() << "cannot squeeze dim " << *n << " of size "
                          << type.getDimSize(*n) << " in " << type,
               failure();
      drop[*n] = true;
    }
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d)
      drop[d] = type.getDimSize(d) == 1;
  }
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!drop[d])
      shape.push_back(type.getDimSize(d));
  return reshapeTo(im, shape);
}

static LogicalResult convertUnsqueeze(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  auto axes = squeezeAxes(im);
  if (failed(axes))
    return failure();
  if (!*axes)
    return im.error() << "requires axes", failure();
  int64_t outRank = type.getRank() + (*axes)->size();
  SmallVector<bool> inserted(outRank, false);
  for (int64_t a : **axes) {
    FailureOr<int64_t> n = im.normalizeAxis(a, outRank, "axis");
    if (failed(n))
      return failure();
    if (inserted[*n])
      return im.error() << "axis " << *n << " is repeated", failure();
    inserted[*n] = true;
  }
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t d = 0; d < outRank; ++d)
    shape.push_back(inserted[d] ? 1 : type.getDimSize(next++));
  return reshapeTo(im, shape);
}

static LogicalResult convertConcat(GraphImporter &im) {
  FailureOr<RankedTensorType> firstOr = im.requiredInputType(0);
  if (failed(firstOr))
    return failure();
  RankedTensorType first = *firstOr;
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", 0), first.getRank(), "axis");
  if (failed(axis))
    return failure();
  // All inputs known: concatenate at import time.
  bool allKnown = true;
  for (unsigned i = 0; i < im.numInputs(); ++i)
    allKnown &= im.knownInput(i) != nullptr;
  if (allKnown) {
    const KnownInts *k0 = im.knownInput(0);
    KnownInts r{k0->shape, {}, k0->elementType};
    r.shape[*axis] = 0;
    int64_t outer = shape::numElements(ArrayRef(k0->shape).take_front(*axis));
    for (unsigned i = 0; i < im.numInputs(); ++i) {
      const KnownInts *k = im.knownInput(i);
      if (k->shape.size() != k0->shape.size())
        return im.error() << "input #" << i << " has rank " << k->shape.size()
                          << " but input #0 has rank " << k0->shape.size(),
               failure();
      r.shape[*axis] += k->shape[*axis];
    }
    for (int64_t o = 0; o < outer; ++o)
      for (unsigned i = 0; i < im.numInputs(); ++i) {
        const KnownInts *k = im.knownInput(i);
        int64_t chunk =
            shape::numElements(ArrayRef(k->shape).drop_front(*axis));
        r.values.insert(r.values.end(), k->values.begin() + o * chunk,
                        k->values.begin() + (o + 1) * chunk);
      }
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < im.numInputs(); ++i) {
    FailureOr<Value> v = im.input(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  im.setOutput(0, im.create<ConcatOp>(inputs, *axis));
  return success();
}

/// The number of elements a slice takes: starts[d], starts[d] + steps[d],
/// ... while below limits[d] (steps[d] > 0) or above it (steps[d] < 0).
static int64_t sliceCount(int64_t start, int64_t limit, int64_t step) {
  if (step > 0)
    return limit > start ? llvm::divideCeil(limit - start, step) : 0;
  return start > limit ? llvm::divideCeil(start - limit, -step) : 0;
}

/// Slices input 0 with full-rank starts/limits/steps, on values or known
/// tensors. A negative step walks down from starts[d] to above limits[d]
/// (which may be -1): the value becomes a positive-step tandem.slice of the
/// same elements followed by a tandem.gather that reverses the axis.
static LogicalResult sliceInput(GraphImporter &im, unsigned output,
                                ArrayRef<int64_t> starts,
                                ArrayRef<int64_t> limits,
                                ArrayRef<int64_t> steps) {
  if (const KnownInts *k = im.knownInput(0)) {
    KnownInts r{{}, {}, k->elementType};
    for (size_t d = 0; d < starts.size(); ++d)
      r.shape.push_back(sliceCount(starts[d], limits[d], steps[d]));
    SmallVector<int64_t> inStrides = stridesOf(k->shape);
    int64_t count = shape::numElements(r.shape);
    SmallVector<int64_t> index(r.shape.size());
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t rem = flat, pos = 0;
      for (int64_t d = r.shape.size() - 1; d >= 0; --d) {
        index[d] = rem % r.shape[d];
        rem /= r.shape[d];
      }
      for (size_t d = 0; d < index.size(); ++d)
        pos += (starts[d] + index[d] * steps[d]) * inStrides[d];
      r.values.push_back(k->values[pos]);
    }
    im.setKnownOutput(output, std::move(r));
    return success();
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> s(starts), l(limits), st(steps), reversed;
  for (size_t d = 0; d < starts.size(); ++d) {
    if (steps[d] > 0)
      continue;
    // The same elements in ascending order: lowest .. starts[d].
    int64_t n = sliceCount(starts[d], limits[d], steps[d]);
    st[d] = -steps[d];
    s[d] = n == 0 ? 0 : starts[d] - (n - 1) * st[d];
    l[d] = n == 0 ? 0 : starts[d] + 1;
    if (n > 1)
      reversed.push_back(d);
  }
  Value y = *x;
  ArrayRef<int64_t> dims = cast<RankedTensorType>(y.getType()).getShape();
  if (reversed.empty() ||
      llvm::any_of(llvm::seq<size_t>(0, s.size()), [&](size_t d) {
        return s[d] != 0 || l[d] != dims[d] || st[d] != 1;
      }))
    y = im.create<SliceOp>(y, s, l, st);
  for (int64_t d : reversed) {
    int64_t n = cast<RankedTensorType>(y.getType()).getDimSize(d);
    KnownInts order{{n}, {}, im.builder().getI64Type()};
    for (int64_t i = n - 1; i >= 0; --i)
      order.values.push_back(i);
    y = im.create<GatherOp>(y, im.materialize(order), d);
    if (!y)
      return failure();
  }
  im.setOutput(output, y);
  return success();
}

static LogicalResult convertSlice(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  int64_t rank = type.getRank();
  FailureOr<std::vector<int64_t>> starts = im.constantInts(1, "starts");
  FailureOr<std::vector<int64_t>> ends = im.constantInts(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  std::vector<int64_t> axes(starts->size());
  std::iota(axes.begin(), axes.end(), 0);
  std::vector<int64_t> steps(starts->size(), 1);
  if (im.hasInput(3)) {
    FailureOr<std::vector<int64_t>> a = im.constantInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  }
  if (im.hasInput(4)) {
    FailureOr<std::vector<int64_t>> s = im.constantInts(4, "steps");
    if (failed(s))
      return failure();
    steps = *s;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return im.error() << "starts, ends, axes and steps must have the same "
                         "length",
           failure();
  SmallVector<int64_t> s(rank, 0), l(type.getShape()), st(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = im.normalizeAxis(axes[i], rank, "axis");
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return im.error() << "axis " << *axis << " is sliced twice", failure();
    seen[*axis] = true;
    int64_t dim = type.getDimSize(*axis);
    if (steps[i] == 0)
      return im.error() << "step 0 on axis " << *axis << " is not allowed",
             failure();
    // ONNX's clamping: [0, dim] for positive steps, starts in [0, dim - 1]
    // and ends in [-1, dim - 1] for negative ones. Starts and ends are
    // int64 and may be INT64_MIN/MAX ("to the end").
    auto clampIndex = [dim](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < -dim ? -1 - dim : v + dim;
      return std::clamp<int64_t>(v, lo, hi);
    };
    if (dim == 0) {
      s[*axis] = l[*axis] = 0;
    } else if (steps[i] > 0) {
      s[*axis] = clampIndex((*starts)[i], 0, dim);
      l[*axis] = std::max(s[*axis], clampIndex((*ends)[i], 0, dim));
    } else {
      s[*axis] = clampIndex((*starts)[i], 0, dim - 1);
      l[*axis] = std::min(s[*axis], clampIndex((*ends)[i], -1, dim - 1));
    }
    st[*axis] = steps[i];
  }
  return sliceInput(im, 0, s, l, st);
}

static LogicalResult convertSplit(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", 0), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t dim = type.getDimSize(*axis);
  int64_t outputs = im.node().output_size();
  std::vector<int64_t> sizes;
  if (im.opset() >= 13 && im.hasInput(1)) {
    FailureOr<std::vector<int64_t>> s = im.constantDims(1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (auto s = im.attrInts("split")) {
    sizes = *s;
  } else {
    int64_t n = im.attrInt("num_outputs", outputs);
    if (n != outputs || n < 1)
      return im.error() << "num_outputs (" << n << ") must equal the number "
                        << "of outputs (" << outputs << ")",
             failure();
    int64_t chunk = llvm::divideCeil(dim, n);
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  if (static_cast<int64_t>(sizes.size()) != outputs ||
      llvm::any_of(sizes, [dim](int64_t s) { return s < 0 || s > dim; }) ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
    return im.error() << "split sizes do not partition dim " << *axis
                      << " (size " << dim << ") into " << outputs << " outputs",
           failure();
  int64_t offset = 0;
  for (int64_t i = 0; i < outputs; ++i) {
    SmallVector<int64_t> s(type.getRank(), 0), l(type.getShape()),
        st(type.getRank(), 1);
    s[*axis] = offset;
    l[*axis] = offset + sizes[i];
    offset += sizes[i];
    if (failed(sliceInput(im, i, s, l, st)))
      return failure();
  }
  return success();
}

static LogicalResult convertGather(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  FailureOr<int64_t> axis =
      im.normalizeAxis(im.attrInt("axis", 0), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  const KnownInts *data = im.knownInput(0), *indices = im.knownInput(1);
  if (data && indices) {
    int64_t dim = data->shape[*axis];
    int64_t outer = shape::numElements(ArrayRef(data->shape).take_front(*axis));
    int64_t inner =
        shape::numElements(ArrayRef(data->shape).drop_front(*axis + 1));
    KnownInts r{SmallVector<int64_t>(ArrayRef(data->shape).take_front(*axis)),
                {},
                data->elementType};
    llvm::append_range(r.shape, indices->shape);
    llvm::append_range(r.shape, ArrayRef(data->shape).drop_front(*axis + 1));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t idx : indices->values) {
        if (idx < -dim || idx >= dim)
          return im.error() << "index " << idx << " is out of range for dim "
                            << *axis << " of size " << dim,
                 failure();
        if (idx < 0)
          idx += dim;
        auto begin = data->values.begin() + (o * dim + idx) * inner;
        r.values.insert(r.values.end(), begin, begin + inner);
      }
    im.setKnownOutput(0, std::move(r));
    return success();
  }
  // Indices known now must lie in the axis; run-time ones are checked when
  // the model runs (docs/ErrorHandling.md).
  if (indices) {
    int64_t dim = type.getDimSize(*axis);
    for (int64_t idx : indices->values)
      if (idx < -dim || idx >= dim)
        return im.error() << "index " << idx << " is out of range for dim "
                          << *axis << " of size " << dim << " (valid: " << -dim
                          << " to " << dim - 1 << ")",
               failure();
  }
  FailureOr<Value> x = im.input(0), idx = im.input(1);
  if (failed(x) || failed(idx))
    return failure();
  im.setOutput(0, im.create<GatherOp>(*x, *idx, *axis));
  return success();
}

static LogicalResult convertExpand(GraphImporter &im) {
  FailureOr<RankedTensorType> typeOr = im.requiredInputType(0);
  if (failed(typeOr))
    return failure();
  RankedTensorType type = *typeOr;
  FailureOr<std::vector<int64_t>> target = im.constantDims(1, "shape");
  if (failed(target))
    return failure();
  // Expand broadcasts both ways: the result is the broadcast of the two.
  std::optional<shape::Shape> out = shape::broadcast(type.getShape(), *target);
  if (!out)
    return im.error() << "cannot expand " << type << " to shape ["
                      << llvm::join(llvm::map_range(*target,
                                                    [](int64_t d) {
                                                      return std::to_string(d);
                                                    }),
                                    ", ")
                      << "]",
           failure();
  // A known input stays known (shape computations broadcast index vectors:
  // Swin's shifted-window mask builds its ScatterND indices so).
  int64_t outElements = shape::numElements(*out);
  if (const KnownInts *k = im.knownInput(0);
      k && outElements >= 0 && outElements <= kMaxKnownElements) {
    KnownInts target{SmallVector<int64_t>(out->begin(), out->end()),
                     std::vector<int64_t>(outElements, 0), k->elementType};
    if (std::optional<KnownInts> r =
            foldKnown({k, &target}, k->elementType,
                      [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                        return v[0];
                      })) {
      im.setKnownOutput(0, std::move(*r));
      return success();
    }
  }
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  im.setOutput(0, im.create<BroadcastToOp>(*x, *out));
  return success();
}

static LogicalResult convertPad(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  FailureOr<std::vector<int64_t>> pads = im.constantDims(1, "pads");
  if (failed(pads))
    return failure();
  std::vector<int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  if (im.hasInput(3)) {
    FailureOr<std::vector<int64_t>> a = im.constantInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  }
  if (pads->size() != 2 * axes.size())
    return im.error() << "pads has " << pads->size() << " entries, expected "
                      << 2 * axes.size(),
           failure();
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = im.normalizeAxis(axes[i], rank, "axis");
    if (failed(axis))
      return failure();
    low[*axis] = (*pads)[i];
    high[*axis] = (*pads)[i + axes.size()];
    if (low[*axis] < 0 || high[*axis] < 0)
      return im.error() << "negative pads (cropping) are not supported",
             failure();
  }
  std::string mode = im.attrString("mode", "constant");
  PadMode padMode;
  if (mode == "constant")
    padMode = PadMode::Constant;
  else if (mode == "reflect")
    padMode = PadMode::Reflect;
  else if (mode == "edge")
    padMode = PadMode::Edge;
  else if (mode == "wrap")
    padMode = PadMode::Wrap;
  else
    return im.error() << "unsupported mode '" << mode << "'", failure();
  FailureOr<std::optional<double>> value =
      im.constantScalar(2, "constant_value");
  if (failed(value))
    return failure();
  im.setOutput(0, im.create<PadOp>(*x, low, high, padMode,
                                   APFloat(value->value_or(0.0))));
  return success();
}

void mlir::tandem::onnx_import::registerShapeConverters(ConverterMap &map) {
  map["Constant"] = convertConstant;
  map["Shape"] = convertShape;
  map["ConstantOfShape"] = convertConstantOfShape;
  map["Reshape"] = convertReshape;
  map["Flatten"] = convertFlatten;
  map["Transpose"] = convertTranspose;
  map["Squeeze"] = convertSqueeze;
  map["Unsqueeze"] = convertUnsqueeze;
  map["Concat"] = convertConcat;
  map["Split"] = convertSplit;
  map["Slice"] = convertSlice;
  map["Gather"] = convertGather;
  map["Expand"] = convertExpand;
  map["Pad"] = convertPad;
}
