//===- activation.h - fused activations of the CPU kernels ------*- C++ -*-===//
//
// The HardSwish epilogue of the GEMM, convolution and depthwise kernels,
// in scalar, AVX2 and AVX-512 form. It must give the bytes the generated
// loop gives for ONNX HardSwish (x * HardSigmoid(x), alpha 1/6, beta 0.5,
// lowered to mulf, addf, maximumf, minimumf, mulf): every operation is
// rounded on its own, never contracted into a fused multiply-add (the
// runtime is built with -ffp-contract=off), and NaN propagates as
// arith.maximumf / minimumf propagate it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_ACTIVATION_H
#define TANDEM_RUNTIME_KERNELS_ACTIVATION_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tandem_internal {

/// HardSigmoid's alpha in HardSwish: 1/6 rounded to float, as the
/// importer's constant.
constexpr float kHardSwishAlpha = 1.0f / 6.0f;

/// x * min(max(x * (1/6) + 0.5, 0), 1); NaN stays NaN.
inline float hardSwish(float x) {
  float t = x * kHardSwishAlpha;
  t = t + 0.5f;
  if (!(t != t)) { // maximumf / minimumf: NaN stays NaN
    t = t < 0.0f ? 0.0f : t;
    t = t > 1.0f ? 1.0f : t;
  }
  return x * t;
}

#if defined(__x86_64__) || defined(__i386__)
/// hardSwish on 8 lanes. max_ps / min_ps return their second operand when
/// either is NaN, so the clamps keep a NaN t.
__attribute__((target("avx2,fma"))) inline __m256 hardSwish8(__m256 x) {
  __m256 t = _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(kHardSwishAlpha)),
                           _mm256_set1_ps(0.5f));
  t = _mm256_min_ps(_mm256_set1_ps(1.0f),
                    _mm256_max_ps(_mm256_setzero_ps(), t));
  return _mm256_mul_ps(x, t);
}

/// hardSwish on 16 lanes.
__attribute__((target("avx512f"))) inline __m512 hardSwish16(__m512 x) {
  __m512 t = _mm512_add_ps(_mm512_mul_ps(x, _mm512_set1_ps(kHardSwishAlpha)),
                           _mm512_set1_ps(0.5f));
  t = _mm512_min_ps(_mm512_set1_ps(1.0f),
                    _mm512_max_ps(_mm512_setzero_ps(), t));
  return _mm512_mul_ps(x, t);
}
#endif

} // namespace tandem_internal

#endif // TANDEM_RUNTIME_KERNELS_ACTIVATION_H
