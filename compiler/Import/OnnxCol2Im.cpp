//===- OnnxCol2Im.cpp - ONNX Col2Im -> tandem pads and adds ---------------===//
//
// Col2Im (opset 18) folds the columns [N, C * prod(block), L] of an im2col
// back into an image [N, C, image...], summing where blocks overlap. The
// image and block shapes must be known at compile time. Each block offset's
// column [N, C, L_1, ..., L_d] is spread to the stride (zeros inserted by
// a reshape and pad), padded to its place in the padded image, and the
// placements are added; the pads are cropped at the end.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

LogicalResult convertCol2Im(GraphImporter &im) {
  FailureOr<Value> x = im.input(0);
  if (failed(x))
    return failure();
  FailureOr<std::vector<int64_t>> image = im.constantDims(1, "image_shape");
  FailureOr<std::vector<int64_t>> block = im.constantDims(2, "block_shape");
  if (failed(image) || failed(block))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  auto nd = static_cast<int64_t>(image->size());
  if (xt.getRank() != 3)
    return im.error() << "expects an [N, C * prod(block_shape), L] input, got "
                      << xt,
           failure();
  if (nd == 0 || block->size() != image->size())
    return im.error() << "image_shape (" << image->size()
                      << " values) and block_shape (" << block->size()
                      << " values) must have the same, non-zero length",
           failure();
  auto attr = [&](StringRef name, size_t count, int64_t dflt) {
    return im.attrInts(name).value_or(std::vector<int64_t>(count, dflt));
  };
  std::vector<int64_t> dilations = attr("dilations", nd, 1);
  std::vector<int64_t> strides = attr("strides", nd, 1);
  std::vector<int64_t> pads = attr("pads", 2 * nd, 0);
  if (dilations.size() != size_t(nd) || strides.size() != size_t(nd) ||
      pads.size() != size_t(2 * nd))
    return im.error() << "dilations and strides need " << nd
                      << " values and pads " << 2 * nd,
           failure();
  constexpr int64_t kMax = int64_t(1) << 20;
  auto inRange = [](int64_t v, int64_t lo) { return v >= lo && v <= kMax; };
  int64_t blockSize = 1, columns = 1;
  SmallVector<int64_t> padded(nd), counts(nd);
  for (int64_t d = 0; d < nd; ++d) {
    if (!inRange((*image)[d], 1) || !inRange((*block)[d], 1) ||
        !inRange(dilations[d], 1) || !inRange(strides[d], 1) ||
        !inRange(pads[d], 0) || !inRange(pads[nd + d], 0))
      return im.error() << "image_shape, block_shape, dilations and strides "
                           "must lie in [1, 2^20] and pads in [0, 2^20]",
             failure();
    padded[d] = (*image)[d] + pads[d] + pads[nd + d];
    int64_t extent = dilations[d] * ((*block)[d] - 1) + 1;
    if (extent > padded[d])
      return im.error() << "the block (" << (*block)[d] << ", dilation "
                        << dilations[d] << ") does not fit the padded image ("
                        << padded[d] << ") in spatial dim " << d,
             failure();
    counts[d] = (padded[d] - extent) / strides[d] + 1;
    blockSize *= (*block)[d];
    columns *= counts[d];
  }
  int64_t n = xt.getDimSize(0), ck = xt.getDimSize(1);
  if (ck % blockSize != 0 || xt.getDimSize(2) != columns)
    return im.error() << "the input " << xt << " must be [N, C * " << blockSize
                      << ", " << columns
                      << "] for these image_shape, block_shape, pads, "
                         "dilations and strides",
           failure();
  if (blockSize > 4096)
    return im.error() << "a block of " << blockSize
                      << " elements is too large (at most 4096)",
           failure();
  int64_t c = ck / blockSize;

  // [N, C, K, L_1, ..., L_d]: one column per block offset.
  SmallVector<int64_t> split = {n, c, blockSize};
  split.append(counts.begin(), counts.end());
  Value cols = im.create<ReshapeOp>(*x, split);
  SmallVector<int64_t> offset(nd, 0);
  Value sum;
  for (int64_t k = 0; k < blockSize; ++k) {
    // The column of block offset `offset` (row-major over block_shape).
    SmallVector<int64_t> starts(split.size(), 0), limits(split),
        steps(split.size(), 1);
    starts[2] = k;
    limits[2] = k + 1;
    SmallVector<int64_t> grid = {n, c};
    grid.append(counts.begin(), counts.end());
    Value v = im.create<ReshapeOp>(
        im.create<SliceOp>(cols, starts, limits, steps), grid);
    // Spread to the stride: [.., L, 1, ..] padded to [.., L, s, ..].
    if (llvm::any_of(strides, [](int64_t s) { return s > 1; })) {
      SmallVector<int64_t> pairs = {n, c}, high(2, 0), spread = {n, c};
      for (int64_t d = 0; d < nd; ++d) {
        pairs.append({counts[d], 1});
        high.append({0, strides[d] - 1});
        spread.push_back(counts[d] * strides[d]);
      }
      v = im.create<PadOp>(im.create<ReshapeOp>(v, pairs),
                           SmallVector<int64_t>(pairs.size(), 0), high,
                           PadMode::Constant, APFloat(0.0));
      v = im.create<ReshapeOp>(v, spread);
    }
    // Into place: the first element at offset * dilation; the stride's
    // trailing zeros past the padded image are cut.
    SmallVector<int64_t> low(2, 0), high(2, 0), cutLimits = {n, c};
    bool cut = false;
    for (int64_t d = 0; d < nd; ++d) {
      int64_t at = offset[d] * dilations[d];
      int64_t length = counts[d] * strides[d];
      int64_t rest = padded[d] - at - length;
      if (rest < 0)
        cut = true, length += rest, rest = 0;
      low.push_back(at);
      high.push_back(rest);
      cutLimits.push_back(length);
    }
    if (cut)
      v = im.create<SliceOp>(v, SmallVector<int64_t>(nd + 2, 0), cutLimits,
                             SmallVector<int64_t>(nd + 2, 1));
    v = im.create<PadOp>(v, low, high, PadMode::Constant, APFloat(0.0));
    sum = sum ? Value(im.create<AddOp>(sum, v)) : v;
    // Next block offset.
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++offset[d] < (*block)[d])
        break;
      offset[d] = 0;
    }
  }
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
    SmallVector<int64_t> starts = {0, 0}, limits = {n, c};
    for (int64_t d = 0; d < nd; ++d) {
      starts.push_back(pads[d]);
      limits.push_back(pads[d] + (*image)[d]);
    }
    sum = im.create<SliceOp>(sum, starts, limits,
                             SmallVector<int64_t>(nd + 2, 1));
  }
  im.setOutput(0, sum);
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerCol2ImConverters(ConverterMap &map) {
  map["Col2Im"] = convertCol2Im;
}
