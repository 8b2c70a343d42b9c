//===- gemm_desc.cpp - Checks and host execution of tandem_gemm_desc_t ----===//

#include "kernels/gemm_desc.h"

#include "kernels/kernel_status.h"
#include "kernels/precision.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace tandem {
namespace gemm {

namespace {

/// Rows and columns of `operand` as stored (A is k x m when transposed).
void storedShape(const tandem_gemm_desc_t &d, Operand operand, int64_t *rows,
                 int64_t *cols, int64_t *ld, int64_t *stride) {
  *rows = *cols = *ld = *stride = 0;
  switch (operand) {
  case kA:
    *rows = d.trans_a ? d.k : d.m;
    *cols = d.trans_a ? d.m : d.k;
    *ld = d.lda;
    *stride = d.stride_a;
    return;
  case kB:
    *rows = d.trans_b ? d.n : d.k;
    *cols = d.trans_b ? d.k : d.n;
    *ld = d.ldb;
    *stride = d.stride_b;
    return;
  case kC:
    *rows = d.m;
    *cols = d.n;
    *ld = d.ldc;
    *stride = d.stride_c;
    return;
  case kBias:
    *rows = 1;
    *cols = hasBias(d) ? d.n : 0;
    *ld = *cols;
    *stride = 0;
    return;
  }
}

/// Elements one problem spans; 0 for an empty operand.
int64_t problemSpan(int64_t rows, int64_t cols, int64_t ld) {
  if (rows == 0 || cols == 0)
    return 0;
  return (rows - 1) * ld + cols;
}

} // namespace

bool check(const tandem_gemm_desc_t &d, char *message, size_t size) {
  auto fail = [&](const char *what) {
    std::snprintf(message, size, "gemm descriptor: %s", what);
    return false;
  };
  if (d.batch < 1 || d.m < 1 || d.n < 1 || d.k < 1)
    return fail("batch, m, n and k must be at least 1");
  if ((d.trans_a != 0 && d.trans_a != 1) || (d.trans_b != 0 && d.trans_b != 1))
    return fail("trans_a and trans_b must be 0 or 1");
  if (d.epilogue < TANDEM_GEMM_EPILOGUE_NONE ||
      d.epilogue > TANDEM_GEMM_EPILOGUE_BIAS_GELU)
    return fail("unknown epilogue");
  const int64_t kPrecisions =
      TANDEM_GEMM_ALLOW_TF32 | TANDEM_GEMM_ALLOW_BF16 | TANDEM_GEMM_ALLOW_FP16;
  if (d.flags & ~(kPrecisions | TANDEM_GEMM_CONSTANT_A |
                  TANDEM_GEMM_CONSTANT_B | TANDEM_GEMM_16BIT_AB))
    return fail("unknown flags");
  if ((d.flags & kPrecisions) & ((d.flags & kPrecisions) - 1))
    return fail("more than one TANDEM_GEMM_ALLOW_* precision");
  if (has16BitOperands(d) &&
      !(d.flags & (TANDEM_GEMM_ALLOW_BF16 | TANDEM_GEMM_ALLOW_FP16)))
    return fail("16-bit operands (TANDEM_GEMM_16BIT_AB) without "
                "TANDEM_GEMM_ALLOW_BF16 or TANDEM_GEMM_ALLOW_FP16");
  // Each leading dimension covers a stored row; a problem's C does not
  // overlap the next one's.
  for (Operand operand : {kA, kB, kC}) {
    int64_t rows, cols, ld, stride;
    storedShape(d, operand, &rows, &cols, &ld, &stride);
    if (ld < cols)
      return fail("a leading dimension is smaller than its row");
    if (stride < 0)
      return fail("a batch stride is negative");
  }
  if (d.batch > 1 && d.stride_c < problemSpan(d.m, d.n, d.ldc))
    return fail("the batch stride of C makes problems overlap");
  return true;
}

uint64_t extentBytes(const tandem_gemm_desc_t &d, Operand operand) {
  int64_t rows, cols, ld, stride;
  storedShape(d, operand, &rows, &cols, &ld, &stride);
  int64_t span = problemSpan(rows, cols, ld);
  if (span == 0)
    return 0;
  uint64_t elementBytes =
      (operand == kA || operand == kB) && has16BitOperands(d) ? 2 : 4;
  return static_cast<uint64_t>((d.batch - 1) * stride + span) * elementBytes;
}

void runOnHost(const tandem_exec_ctx_t *ctx, const tandem_gemm_desc_t &d,
               const void *aData, const void *bData, float *c,
               const float *bias) {
  precision::Format format = precision::ofGemmFlags(d.flags);
  const float *a = static_cast<const float *>(aData),
              *b = static_cast<const float *>(bData);
  if (has16BitOperands(d)) {
    // 16-bit operands are already rounded: widened (exactly) into scratch
    // copies, they multiply in f32 as the tensor cores would.
    a = precision::widened(static_cast<const uint16_t *>(aData),
                           extentBytes(d, kA) / 2, format, 0);
    b = precision::widened(static_cast<const uint16_t *>(bData),
                           extentBytes(d, kB) / 2, format, 1);
    if (!a || !b) {
      tandem_internal_kernel_failure failure;
      tandem_internal_kernel_fail(&failure,
                                  "gemm: out of memory for the widened "
                                  "16-bit operands");
      tandem_internal_kernel_report(&failure);
      return;
    }
    format = precision::Format::FP32;
  } else if (!precision::roundOperands(a, extentBytes(d, kA) / sizeof(float), b,
                                       extentBytes(d, kB) / sizeof(float),
                                       format, "gemm")) {
    // A precision mode rounds A and B as the tensor cores would (into
    // scratch copies, so a rounded operand is not the weight at its
    // address).
    return;
  }
  int32_t flags = hasRelu(d) ? TANDEM_SGEMM_RELU : 0;
  // A weight operand's packed form is cached in the instance (not a
  // scratch copy's, whose address holds other values next time).
  if (format == precision::Format::FP32 && !has16BitOperands(d)) {
    if (d.flags & TANDEM_GEMM_CONSTANT_A)
      flags |= TANDEM_SGEMM_CONSTANT_A;
    if (d.flags & TANDEM_GEMM_CONSTANT_B)
      flags |= TANDEM_SGEMM_CONSTANT_B;
  }
  if (hasBias(d)) {
    // C starts as the bias rows; the product accumulates onto it.
    for (int64_t p = 0; p < d.batch; ++p)
      for (int64_t i = 0; i < d.m; ++i)
        std::memcpy(c + p * d.stride_c + i * d.ldc, bias,
                    static_cast<size_t>(d.n) * sizeof(float));
    flags |= TANDEM_SGEMM_ACCUMULATE;
  }
  int64_t sAm = d.trans_a ? 1 : d.lda, sAk = d.trans_a ? d.lda : 1;
  int64_t sBk = d.trans_b ? 1 : d.ldb, sBn = d.trans_b ? d.ldb : 1;
  tandem_sgemm_f32(ctx, d.batch, d.m, d.n, d.k, a, d.stride_a, sAm, sAk, b,
                   d.stride_b, sBk, sBn, c, d.stride_c, d.ldc, 1, flags);
  if (hasGelu(d))
    for (int64_t p = 0; p < d.batch; ++p)
      for (int64_t i = 0; i < d.m; ++i) {
        float *row = c + p * d.stride_c + i * d.ldc;
        for (int64_t j = 0; j < d.n; ++j)
          row[j] = geluTanh(row[j]);
      }
}

float geluTanh(float x) {
  const float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x *
         (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

} // namespace gemm
} // namespace tandem
