//===- precision.h - Rounding f32 operands to narrower formats -*- C++ -*-===//
//
// What a library GEMM or convolution does to its f32 operands on tensor
// cores when its descriptor allows a narrower format
// (TANDEM_GEMM_ALLOW_*, TANDEM_CONV_ALLOW_*): each operand element is
// rounded to that format (round to nearest even) and the products are
// accumulated in f32. The emulated device and the CPU fallback round the
// same way, so their results carry the mode's error.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_PRECISION_H
#define TANDEM_RUNTIME_KERNELS_PRECISION_H

#include <cstddef>
#include <cstdint>

namespace tandem {
namespace precision {

/// The formats an f32 operand may be rounded to.
enum class Format { FP32, TF32, BF16, FP16 };

/// The format a tandem_gemm_desc_t's flags allow (FP32 when none).
Format ofGemmFlags(int64_t flags);

/// The format a tandem_conv_desc_t's flags allow (FP32 when none).
Format ofConvFlags(int64_t flags);

/// `x` rounded to `format` to nearest even, as an f32: TF32 keeps 10
/// mantissa bits and f32's exponent range, BF16 7 bits and f32's range,
/// FP16 10 bits, subnormals below 2^-14 and infinity above 65504. NaN and
/// infinity stay.
float roundTo(float x, Format format);

/// `src[0..n)` rounded to `format` into a buffer of the calling thread
/// (valid until its next call with the same `slot`, 0 or 1), or `src`
/// itself for FP32. nullptr when memory is exhausted.
const float *rounded(const float *src, size_t n, Format format, int slot);

/// Rounds a product's two operands (`lhs`, `rhs`, `lhsCount`, `rhsCount`
/// elements) to `format` in place of the pointers, in the calling thread's
/// buffers (slots 0 and 1 of rounded()); nothing for FP32. When memory is
/// exhausted, reports "<what>: out of memory for the rounded operands"
/// through the kernel-error channel (kernel_status.h) and returns false.
bool roundOperands(const float *&lhs, size_t lhsCount, const float *&rhs,
                   size_t rhsCount, Format format, const char *what);

/// The f32 value of the 16-bit element `bits` in `format` (BF16: the top
/// half of an f32; FP16: IEEE binary16, subnormals and infinity included).
/// Exact: every BF16 and FP16 value is an f32.
float widen(uint16_t bits, Format format);

/// The 16-bit elements `src[0..n)` of `format` (BF16 or FP16) widened to
/// f32 into a buffer of the calling thread (valid until its next call with
/// the same `slot`, 0 or 1). nullptr when memory is exhausted.
const float *widened(const uint16_t *src, size_t n, Format format, int slot);

} // namespace precision
} // namespace tandem

#endif // TANDEM_RUNTIME_KERNELS_PRECISION_H
