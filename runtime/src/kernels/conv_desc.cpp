//===- conv_desc.cpp - Checks and host execution of tandem_conv_desc_t ----===//

#include "kernels/conv_desc.h"

#include "kernels/precision.h"
#include "tandem/winograd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tandem {
namespace conv {

const char *activationName(int64_t activation) {
  switch (activation) {
  case TANDEM_CONV_ACT_NONE:
    return "none";
  case TANDEM_CONV_ACT_RELU:
    return "relu";
  case TANDEM_CONV_ACT_RELU6:
    return "relu6";
  case TANDEM_CONV_ACT_SIGMOID:
    return "sigmoid";
  case TANDEM_CONV_ACT_SWISH:
    return "swish";
  }
  return "unknown";
}

bool check(const tandem_conv_desc_t &d, char *message, size_t size) {
  auto fail = [&](const char *what) {
    std::snprintf(message, size, "conv descriptor: %s", what);
    return false;
  };
  if (d.n < 1 || d.c < 1 || d.h < 1 || d.w < 1 || d.k < 1 || d.r < 1 ||
      d.s < 1 || d.p < 1 || d.q < 1)
    return fail("n, c, h, w, k, r, s, p and q must be at least 1");
  if (d.groups < 1 || d.c % d.groups != 0 || d.k % d.groups != 0)
    return fail("groups must be at least 1 and divide c and k");
  if (d.stride_h < 1 || d.stride_w < 1 || d.dilation_h < 1 || d.dilation_w < 1)
    return fail("strides and dilations must be at least 1");
  if (d.pad_h < 0 || d.pad_w < 0)
    return fail("pads must not be negative");
  // Bounds keep every index product below int64 (and cuDNN's int range).
  const int64_t kMax = int64_t(1) << 30;
  for (int64_t v : {d.n, d.c, d.h, d.w, d.k, d.r, d.s, d.p, d.q, d.stride_h,
                    d.stride_w, d.pad_h, d.pad_w, d.dilation_h, d.dilation_w})
    if (v > kMax)
      return fail("a dimension exceeds 2^30");
  if (d.n * d.c > kMax / d.h / d.w || d.n * d.k > kMax / d.p / d.q ||
      d.k * (d.c / d.groups) > kMax / d.r / d.s)
    return fail("an operand has more than 2^30 elements");
  if (d.p !=
          (d.h + 2 * d.pad_h - d.dilation_h * (d.r - 1) - 1) / d.stride_h + 1 ||
      d.q !=
          (d.w + 2 * d.pad_w - d.dilation_w * (d.s - 1) - 1) / d.stride_w + 1 ||
      d.h + 2 * d.pad_h < d.dilation_h * (d.r - 1) + 1 ||
      d.w + 2 * d.pad_w < d.dilation_w * (d.s - 1) + 1)
    return fail("p and q do not follow from h, w, the filter, strides, pads "
                "and dilations");
  if (d.activation < TANDEM_CONV_ACT_NONE ||
      d.activation > TANDEM_CONV_ACT_SWISH)
    return fail("unknown activation");
  if (d.flags & ~int64_t(TANDEM_CONV_BIAS | TANDEM_CONV_RESIDUAL |
                         TANDEM_CONV_ALLOW_TF32 | TANDEM_CONV_ALLOW_FP16 |
                         TANDEM_CONV_CONSTANT_FILTER | TANDEM_CONV_NHWC))
    return fail("unknown flags");
  if ((d.flags & TANDEM_CONV_ALLOW_TF32) && (d.flags & TANDEM_CONV_ALLOW_FP16))
    return fail("more than one TANDEM_CONV_ALLOW_* precision");
  return true;
}

uint64_t extentBytes(const tandem_conv_desc_t &d, Operand operand) {
  int64_t elements = 0;
  switch (operand) {
  case kX:
    elements = d.n * d.c * d.h * d.w;
    break;
  case kW:
    elements = d.k * (d.c / d.groups) * d.r * d.s;
    break;
  case kY:
    elements = d.n * d.k * d.p * d.q;
    break;
  case kBias:
    elements = hasBias(d) ? d.k : 0;
    break;
  case kZ:
    elements = hasResidual(d) ? d.n * d.k * d.p * d.q : 0;
    break;
  }
  return static_cast<uint64_t>(elements) * sizeof(float);
}

float activate(int64_t activation, float x) {
  switch (activation) {
  case TANDEM_CONV_ACT_RELU:
    return std::max(x, 0.0f);
  case TANDEM_CONV_ACT_RELU6:
    return std::min(std::max(x, 0.0f), 6.0f);
  case TANDEM_CONV_ACT_SIGMOID:
    return 1.0f / (1.0f + std::exp(-x));
  case TANDEM_CONV_ACT_SWISH:
    return x / (1.0f + std::exp(-x));
  default:
    return x;
  }
}

namespace {

/// `x` with `d`'s zero padding around each plane: [n, c, h + 2 pad_h,
/// w + 2 pad_w], which the CPU kernels read (they take no pads).
std::vector<float> padInput(const tandem_conv_desc_t &d, const float *x) {
  int64_t hp = d.h + 2 * d.pad_h, wp = d.w + 2 * d.pad_w;
  std::vector<float> padded(static_cast<size_t>(d.n * d.c * hp * wp), 0.0f);
  for (int64_t plane = 0; plane < d.n * d.c; ++plane)
    for (int64_t i = 0; i < d.h; ++i)
      std::memcpy(&padded[static_cast<size_t>((plane * hp + i + d.pad_h) * wp +
                                              d.pad_w)],
                  x + (plane * d.h + i) * d.w,
                  static_cast<size_t>(d.w) * sizeof(float));
  return padded;
}

/// `a` row-major rows x cols matrices of `in`, each transposed into `out`:
/// NHWC (or KRSC) to NCHW (KCRS) with rows = H * W (R * S), and back with
/// rows = C.
void transposeEach(const float *in, float *out, int64_t a, int64_t rows,
                   int64_t cols) {
  for (int64_t i = 0; i < a; ++i)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        out[(i * cols + c) * rows + r] = in[(i * rows + r) * cols + c];
}

/// Runs the NHWC convolution `d` through its NCHW form: x, w and z
/// transposed into copies, y computed in NCHW and transposed back.
void runChannelsLast(const tandem_exec_ctx_t *ctx, const tandem_conv_desc_t &d,
                     const float *x, const float *w, float *y,
                     const float *bias, const float *z) {
  tandem_conv_desc_t nchw = d;
  // The filter copy is not the weight at its address: nothing to cache.
  nchw.flags &= ~int64_t(TANDEM_CONV_NHWC | TANDEM_CONV_CONSTANT_FILTER);
  int64_t hw = d.h * d.w, pq = d.p * d.q, cg = d.c / d.groups;
  std::vector<float> xt(static_cast<size_t>(d.n * d.c * hw)),
      wt(static_cast<size_t>(d.k * cg * d.r * d.s)),
      yt(static_cast<size_t>(d.n * d.k * pq)), zt;
  transposeEach(x, xt.data(), d.n, hw, d.c);
  transposeEach(w, wt.data(), d.k, d.r * d.s, cg);
  if (hasResidual(d)) {
    zt.resize(yt.size());
    transposeEach(z, zt.data(), d.n, pq, d.k);
  }
  runOnHost(ctx, nchw, xt.data(), wt.data(), yt.data(), bias,
            zt.empty() ? nullptr : zt.data());
  transposeEach(yt.data(), y, d.n, d.k, pq);
}

} // namespace

void runOnHost(const tandem_exec_ctx_t *ctx, const tandem_conv_desc_t &d,
               const float *x, const float *w, float *y, const float *bias,
               const float *z) {
  if (d.flags & TANDEM_CONV_NHWC)
    return runChannelsLast(ctx, d, x, w, y, bias, z);
  // A precision mode rounds x and w as the tensor cores would (into
  // scratch copies, so a rounded filter is not the weight at its address).
  precision::Format format = precision::ofConvFlags(d.flags);
  if (!precision::roundOperands(x, extentBytes(d, kX) / sizeof(float), w,
                                extentBytes(d, kW) / sizeof(float), format,
                                "conv"))
    return;
  bool constantFilter = (d.flags & TANDEM_CONV_CONSTANT_FILTER) &&
                        format == precision::Format::FP32;
  // The CPU's own convolution kernels run it, as a CPU build of the model
  // would: the implicit-GEMM kernel once per group, or the depthwise kernel
  // when every group is one channel with one filter. Their sums do not
  // depend on the thread count.
  std::vector<float> padded;
  if (d.pad_h || d.pad_w) {
    padded = padInput(d, x);
    x = padded.data();
  }
  int64_t hp = d.h + 2 * d.pad_h, wp = d.w + 2 * d.pad_w, pq = d.p * d.q;
  // The residual is the accumulator's start; the kernels add the bias and
  // apply ReLU and ReLU6 in each tile, the other activations come after.
  int32_t flags = 0;
  if (hasResidual(d)) {
    if (y != z)
      std::memmove(y, z, extentBytes(d, kY));
    flags |= TANDEM_CONV2D_ACCUMULATE;
  }
  // A weight's packed (or Winograd-transformed) form is cached in the
  // instance; in f32 a convolution the CPU build would run as Winograd
  // (tandem_winograd_applies) may run so, the kernel choosing the tile by
  // cost as for a runtime filter.
  if (constantFilter) {
    flags |= TANDEM_CONV2D_CONSTANT_FILTER;
    if (d.groups == 1 &&
        tandem_winograd_applies(d.r, d.s, d.stride_h, d.stride_w, d.dilation_h,
                                d.dilation_w, d.c, d.k))
      flags |= TANDEM_CONV2D_WINOGRAD;
  }
  if (d.activation == TANDEM_CONV_ACT_RELU)
    flags |= TANDEM_CONV2D_RELU;
  else if (d.activation == TANDEM_CONV_ACT_RELU6)
    flags |= TANDEM_CONV2D_RELU6;
  static_assert(TANDEM_CONV2D_ACCUMULATE == TANDEM_DWCONV2D_ACCUMULATE &&
                    TANDEM_CONV2D_RELU == TANDEM_DWCONV2D_RELU &&
                    TANDEM_CONV2D_RELU6 == TANDEM_DWCONV2D_RELU6,
                "the conv and depthwise kernels share their flags");
  const float *b = hasBias(d) ? bias : nullptr;
  if (d.groups == d.c && d.groups == d.k) {
    tandem_dwconv2d_bias_f32(ctx, d.n, d.c, hp, wp, x, d.c * hp * wp, hp * wp,
                             wp, 1, d.r, d.s, w, b, y, d.k * pq, pq, d.q, d.p,
                             d.q, d.stride_h, d.stride_w, d.dilation_h,
                             d.dilation_w, flags);
  } else {
    int64_t cg = d.c / d.groups, kg = d.k / d.groups;
    for (int64_t g = 0; g < d.groups; ++g)
      tandem_conv2d_bias_f32(
          ctx, d.n, cg, hp, wp, x + g * cg * hp * wp, d.c * hp * wp, hp * wp,
          wp, 1, kg, d.r, d.s, w + g * kg * cg * d.r * d.s, b ? b + g * kg : b,
          y + g * kg * pq, d.k * pq, pq, d.p, d.q, d.stride_h, d.stride_w,
          d.dilation_h, d.dilation_w, flags);
  }
  if (d.activation == TANDEM_CONV_ACT_SIGMOID ||
      d.activation == TANDEM_CONV_ACT_SWISH)
    for (int64_t e = 0, n = d.n * d.k * pq; e < n; ++e)
      y[e] = activate(d.activation, y[e]);
}

} // namespace conv
} // namespace tandem
