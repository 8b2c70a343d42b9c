//===- precision.cpp - Rounding f32 operands to narrower formats ----------===//

#include "kernels/precision.h"

#include "kernels/kernel_status.h"
#include "kernels/scratch.h"
#include "tandem/abi.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace tandem {
namespace precision {

namespace {

/// `x` with its lowest `drop` mantissa bits rounded off to nearest even
/// (a carry into the exponent is the correct result, up to infinity).
float roundMantissa(float x, int drop) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  if ((bits & 0x7f800000u) == 0x7f800000u)
    return x; // NaN or infinity
  uint32_t half = (1u << (drop - 1)) - 1;
  bits += half + ((bits >> drop) & 1u);
  bits &= ~((1u << drop) - 1);
  std::memcpy(&x, &bits, sizeof(bits));
  return x;
}

float roundToHalf(float x) {
  if (std::isnan(x))
    return x;
  const float kMinNormal = 0x1p-14f, kMax = 65504.0f;
  float magnitude = std::fabs(x);
  if (magnitude < kMinNormal) {
    // Subnormal halves are multiples of 2^-24: the scaling is exact and
    // nearbyint rounds to nearest even.
    return std::nearbyint(x * 0x1p24f) * 0x1p-24f;
  }
  float r = roundMantissa(x, 13);
  if (std::fabs(r) > kMax)
    return std::copysign(INFINITY, x);
  return r;
}

} // namespace

Format ofGemmFlags(int64_t flags) {
  if (flags & TANDEM_GEMM_ALLOW_TF32)
    return Format::TF32;
  if (flags & TANDEM_GEMM_ALLOW_BF16)
    return Format::BF16;
  if (flags & TANDEM_GEMM_ALLOW_FP16)
    return Format::FP16;
  return Format::FP32;
}

Format ofConvFlags(int64_t flags) {
  if (flags & TANDEM_CONV_ALLOW_TF32)
    return Format::TF32;
  if (flags & TANDEM_CONV_ALLOW_FP16)
    return Format::FP16;
  return Format::FP32;
}

float roundTo(float x, Format format) {
  switch (format) {
  case Format::FP32:
    return x;
  case Format::TF32:
    return roundMantissa(x, 13);
  case Format::BF16:
    return roundMantissa(x, 16);
  case Format::FP16:
    return roundToHalf(x);
  }
  return x;
}

const float *rounded(const float *src, size_t n, Format format, int slot) {
  if (format == Format::FP32 || n == 0)
    return src;
  thread_local tandem_internal::Scratch buffers[2];
  float *out = buffers[slot & 1].get(n);
  if (!out)
    return nullptr;
  for (size_t i = 0; i < n; ++i)
    out[i] = roundTo(src[i], format);
  return out;
}

float widen(uint16_t bits, Format format) {
  if (format == Format::BF16) {
    uint32_t word = static_cast<uint32_t>(bits) << 16;
    float x;
    std::memcpy(&x, &word, sizeof(x));
    return x;
  }
  // binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
  uint32_t exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 0x1f)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u),
                           static_cast<int>(exponent) - 25);
  return (bits & 0x8000u) ? -magnitude : magnitude;
}

const float *widened(const uint16_t *src, size_t n, Format format, int slot) {
  thread_local tandem_internal::Scratch buffers[2];
  float *out = buffers[slot & 1].get(n ? n : 1);
  if (!out)
    return nullptr;
  for (size_t i = 0; i < n; ++i)
    out[i] = widen(src[i], format);
  return out;
}

bool roundOperands(const float *&lhs, size_t lhsCount, const float *&rhs,
                   size_t rhsCount, Format format, const char *what) {
  if (format == Format::FP32)
    return true;
  lhs = rounded(lhs, lhsCount, format, 0);
  rhs = rounded(rhs, rhsCount, format, 1);
  if (lhs && rhs)
    return true;
  // The message must outlive the call (the channel keeps the pointer).
  thread_local char message[96];
  std::snprintf(message, sizeof(message),
                "%s: out of memory for the rounded operands", what);
  tandem_internal_kernel_failure failure;
  tandem_internal_kernel_fail(&failure, message);
  tandem_internal_kernel_report(&failure);
  return false;
}

} // namespace precision
} // namespace tandem
