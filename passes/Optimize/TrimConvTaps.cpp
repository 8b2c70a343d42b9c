//===- TrimConvTaps.cpp - drop conv taps that only ever read padding ------===//
//
// A window row (or column) of a conv2d whose every output reads it in the
// zero padding contributes nothing: a dilated conv on a small feature map
// (DeepLab's ASPP, dilations 12/24/36 on a 14x14 or 33x33 map) reads its
// outer taps entirely in the padding. Such rows and columns at the window's
// edges are dropped from the constant filter and the padding shrinks to
// match, so the kernel neither multiplies by zeros nor pads its input that
// far: a 3x3 conv of dilation 36 on a 14x14 map is a 1x1 conv.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Analysis/NodeName.h"
#include "passes/Optimize/ConstantData.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMTRIMCONVTAPS
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The window taps [first, last] along one axis that some output reads
/// inside the input, and the padding that keeps the output size with only
/// them; `trimmed` is false when every tap stays or none is read.
struct AxisTrim {
  int64_t first = 0, last = 0, padBefore = 0, padAfter = 0, dilation = 1;
  bool trimmed = false;
};

/// Output o reads input o * stride - padBefore + tap * dilation.
AxisTrim trimAxis(int64_t in, int64_t out, int64_t window, int64_t stride,
                  int64_t padBefore, int64_t dilation) {
  AxisTrim t;
  auto read = [&](int64_t tap) {
    for (int64_t o = 0; o < out; ++o) {
      int64_t at = o * stride - padBefore + tap * dilation;
      if (at >= 0 && at < in)
        return true;
    }
    return false;
  };
  t.first = 0, t.last = window - 1;
  while (t.first < window && !read(t.first))
    ++t.first;
  if (t.first == window)
    return t; // no tap is read: the output is the bias alone; left as is
  while (!read(t.last))
    --t.last;
  if (t.first == 0 && t.last == window - 1)
    return t;
  int64_t taps = t.last - t.first + 1;
  t.dilation = taps == 1 ? 1 : dilation;
  t.padBefore = padBefore - t.first * dilation;
  // The same outputs: (out - 1) * stride + (taps - 1) * dilation + 1 rows
  // of the padded input.
  t.padAfter =
      (out - 1) * stride + (taps - 1) * t.dilation + 1 - in - t.padBefore;
  t.trimmed = t.padBefore >= 0 && t.padAfter >= 0;
  return t;
}

struct TrimTaps : WeightRewritePattern<Conv2DOp> {
  using WeightRewritePattern::WeightRewritePattern;

  LogicalResult matchAndRewrite(Conv2DOp conv,
                                PatternRewriter &rewriter) const override {
    auto inType = dyn_cast<RankedTensorType>(conv.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(conv.getType());
    auto wType = dyn_cast<RankedTensorType>(conv.getFilter().getType());
    if (!inType || !outType || !wType || !inType.hasStaticShape() ||
        !outType.hasStaticShape() || !wType.hasStaticShape() ||
        inType.getRank() != 4 || wType.getRank() != 4)
      return rewriter.notifyMatchFailure(conv, "not a static 2-D conv");
    if (conv.isChannelsLast())
      return rewriter.notifyMatchFailure(conv, "channels last");
    ArrayRef<int64_t> strides = conv.getStrides(), pads = conv.getPads(),
                      dilations = conv.getDilations();
    AxisTrim rows =
        trimAxis(inType.getDimSize(2), outType.getDimSize(2),
                 wType.getDimSize(2), strides[0], pads[0], dilations[0]);
    AxisTrim cols =
        trimAxis(inType.getDimSize(3), outType.getDimSize(3),
                 wType.getDimSize(3), strides[1], pads[1], dilations[1]);
    if (!rows.trimmed && !cols.trimmed)
      return rewriter.notifyMatchFailure(conv, "every tap reads the input");
    auto keep = [](AxisTrim &t, int64_t window, int64_t pad, int64_t padAfter,
                   int64_t dilation) {
      if (t.trimmed)
        return;
      t.first = 0, t.last = window - 1, t.padBefore = pad;
      t.padAfter = padAfter, t.dilation = dilation;
    };
    keep(rows, wType.getDimSize(2), pads[0], pads[2], dilations[0]);
    keep(cols, wType.getDimSize(3), pads[1], pads[3], dilations[1]);
    std::optional<F32Values> w = viewF32Constant(conv.getFilter());
    if (!w)
      return rewriter.notifyMatchFailure(conv, "filter is not an f32 constant");
    int64_t o = wType.getDimSize(0), c = wType.getDimSize(1),
            kh = wType.getDimSize(2), kw = wType.getDimSize(3);
    int64_t kh2 = rows.last - rows.first + 1, kw2 = cols.last - cols.first + 1;
    std::vector<float> trimmed;
    trimmed.reserve(size_t(o * c * kh2 * kw2));
    for (int64_t oc = 0; oc < o * c; ++oc)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          float v = (*w)[size_t((oc * kh + i) * kw + j)];
          bool kept = i >= rows.first && i <= rows.last && j >= cols.first &&
                      j <= cols.last;
          // A dropped tap adds 0 * v: nothing unless v is not finite (then
          // NaN), which the trimmed conv would lose.
          if (!kept && !std::isfinite(v))
            return rewriter.notifyMatchFailure(conv,
                                               "a dropped tap is inf/nan");
          if (kept)
            trimmed.push_back(v);
        }
    rewriter.setInsertionPoint(conv);
    Value filter = createF32Constant(
        rewriter, conv.getFilter().getLoc(),
        RankedTensorType::get({o, c, kh2, kw2}, wType.getElementType()),
        std::move(trimmed), getDisplayName(conv) + "_weight_trimmed");
    Operation *newConv = rewriter.clone(*conv);
    newConv->setOperand(1, filter);
    newConv->setAttr(
        "pads", rewriter.getDenseI64ArrayAttr({rows.padBefore, cols.padBefore,
                                               rows.padAfter, cols.padAfter}));
    newConv->setAttr("dilations", rewriter.getDenseI64ArrayAttr(
                                      {rows.dilation, cols.dilation}));
    Value weight = conv.getFilter();
    rewriter.replaceOp(conv, newConv->getResults());
    eraseDeadWeight(rewriter, weight, weightScope);
    return success();
  }
};

struct TrimConvTapsPass
    : tandem::impl::TandemTrimConvTapsBase<TrimConvTapsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<TrimTaps>(&getContext(), weightReleaseScope(getOperation()));
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
