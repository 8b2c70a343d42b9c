//===- conv_desc.cpp - Checks and host execution of tandem_conv_desc_t ----===//

#include "kernels/conv_desc.h"

#include "kernels/precision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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
                         TANDEM_CONV_ALLOW_TF32 | TANDEM_CONV_ALLOW_FP16))
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

struct Job {
  const tandem_conv_desc_t *d;
  const float *x, *w, *bias, *z;
  float *y;
};

/// Output plane (b, o) of the job: initialised to the bias, accumulated
/// over the group's input channels and filter taps in a fixed order, then
/// the residual and the activation.
void plane(const Job &job, int64_t index) {
  const tandem_conv_desc_t &d = *job.d;
  int64_t b = index / d.k, o = index % d.k;
  int64_t cg = d.c / d.groups, g = o / (d.k / d.groups);
  int64_t pq = d.p * d.q;
  float *out = job.y + index * pq;
  float init = job.bias ? job.bias[o] : 0.0f;
  std::fill(out, out + pq, init);
  for (int64_t ci = 0; ci < cg; ++ci) {
    const float *in = job.x + (b * d.c + g * cg + ci) * d.h * d.w;
    const float *filter = job.w + (o * cg + ci) * d.r * d.s;
    for (int64_t u = 0; u < d.r; ++u)
      for (int64_t v = 0; v < d.s; ++v) {
        float wv = filter[u * d.s + v];
        int64_t dy = u * d.dilation_h - d.pad_h,
                dx = v * d.dilation_w - d.pad_w;
        // The output columns j whose input column j*stride + dx is inside.
        int64_t jlo = dx >= 0 ? 0 : (-dx + d.stride_w - 1) / d.stride_w;
        int64_t jhi = d.w - 1 - dx < 0
                          ? 0
                          : std::min(d.q, (d.w - 1 - dx) / d.stride_w + 1);
        for (int64_t i = 0; i < d.p; ++i) {
          int64_t ih = i * d.stride_h + dy;
          if (ih < 0 || ih >= d.h)
            continue;
          const float *row = in + ih * d.w + dx;
          float *orow = out + i * d.q;
          if (d.stride_w == 1)
            for (int64_t j = jlo; j < jhi; ++j)
              orow[j] += wv * row[j];
          else
            for (int64_t j = jlo; j < jhi; ++j)
              orow[j] += wv * row[j * d.stride_w];
        }
      }
  }
  const float *res = job.z ? job.z + index * pq : nullptr;
  for (int64_t e = 0; e < pq; ++e) {
    float v = out[e];
    if (res)
      v += res[e];
    out[e] = activate(d.activation, v);
  }
}

} // namespace

void runOnHost(const tandem_exec_ctx_t *ctx, const tandem_conv_desc_t &d,
               const float *x, const float *w, float *y, const float *bias,
               const float *z) {
  // A precision mode rounds x and w as the tensor cores would.
  if (!precision::roundOperands(x, extentBytes(d, kX) / sizeof(float), w,
                                extentBytes(d, kW) / sizeof(float),
                                precision::ofConvFlags(d.flags), "conv"))
    return;
  Job job{&d, x, w, hasBias(d) ? bias : nullptr, hasResidual(d) ? z : nullptr,
          y};
  tandem_parallel_for(
      ctx ? ctx->pool : nullptr, d.n * d.k, 1,
      [](void *env, int64_t begin, int64_t end) {
        const Job &job = *static_cast<const Job *>(env);
        for (int64_t i = begin; i < end; ++i)
          plane(job, i);
      },
      &job);
}

} // namespace conv
} // namespace tandem
