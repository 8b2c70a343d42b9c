//===- activation.h - fused activations of the CPU kernels ------*- C++ -*-===//
//
// The HardSwish and SiLU epilogues of the GEMM, convolution and depthwise
// kernels, in scalar, AVX2 and AVX-512 form. Each must give the bytes the
// generated loop gives for the ONNX ops it replaces:
//
// - HardSwish (x * HardSigmoid(x), alpha 1/6, beta 0.5, lowered to mulf,
//   addf, maximumf, minimumf, mulf): every operation rounded on its own,
//   never contracted into a fused multiply-add (the runtime is built with
//   -ffp-contract=off), NaN propagated as arith.maximumf / minimumf do.
// - SiLU (Mul(x, Sigmoid(x)), torch's export of nn.SiLU: x * (1 / (1 +
//   exp(-x)))), whose exp tandem-approximate-math expands into MLIR's
//   polynomial approximation (ExpApproximation: clamps, a Cody-Waite
//   reduction by ln 2 and a degree-7 polynomial, all of it fused
//   multiply-adds where the expansion has math.fma). exp8 and exp16 are
//   that expansion op for op, the same fmas, the same roundings, so the
//   kernels' SiLU equals the loop's bit for bit (test/runtime and
//   test/tools/tandemc/silu-epilogue.test check it).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_ACTIVATION_H
#define TANDEM_RUNTIME_KERNELS_ACTIVATION_H

#include "tandem/runtime.h"

#include <cmath>
#include <cstdint>
#include <cstring>

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

/// The constants of MLIR's ExpApproximation (math.exp expanded by
/// populateMathPolynomialApproximationPatterns), as the expansion prints
/// them: every one round-trips to the same float.
namespace exp_poly {
constexpr float kLow = -87.8f, kHigh = 88.8f;     // input clamp
constexpr float kLog2E = 1.44269502f;             // k = floor(x log2 e + 0.5)
constexpr float kKLow = -127.0f, kKHigh = 127.0f; // k clamp
constexpr float kLn2Hi = -0.693359375f;           // r = x + k kLn2Hi
constexpr float kLn2Lo = 2.12194442e-4f;          //     + k kLn2Lo
constexpr float kP0 = 1.98756912e-4f, kP1 = 0.00139819994f,
                kP2 = 0.00833345205f, kP3 = 0.0416657962f, kP4 = 0.166666657f;
} // namespace exp_poly

/// MLIR's ExpApproximation of exp(x), op for op: NaN stays NaN (the clamps
/// keep an unordered x, as its `cmpf uge` / `ule` selects do).
inline float expApprox(float x) {
  using namespace exp_poly;
  x = x >= kLow || x != x ? x : kLow;
  x = x <= kHigh || x != x ? x : kHigh;
  float k = std::floor(std::fma(x, kLog2E, 0.5f));
  k = k >= kKLow || k != k ? k : kKLow;
  k = k <= kKHigh || k != k ? k : kKHigh;
  float r = std::fma(kLn2Hi, k, x);
  r = std::fma(kLn2Lo, k, r);
  float p = std::fma(r, kP0, kP1);
  p = std::fma(p, r, kP2);
  p = std::fma(p, r, kP3);
  p = std::fma(p, r, kP4);
  p = std::fma(p, r, 0.5f);
  float e = std::fma(p, r * r, r) + 1.0f;
  // 2^k from k's bits; a NaN k (x NaN) gives any scale: e is NaN anyway
  // (the loop's fptosi of NaN is cvttss2si's 0x80000000).
  int32_t ki = k == k ? static_cast<int32_t>(k) : INT32_MIN;
  uint32_t bits = static_cast<uint32_t>(ki + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return e * scale;
}

/// x * (1 / (1 + exp(-x))): SiLU as Mul(x, Sigmoid(x)) lowers.
inline float silu(float x) {
  float sigmoid = 1.0f / (1.0f + expApprox(-x));
  return x * sigmoid;
}

#if defined(__x86_64__) || defined(__i386__)
/// expApprox on 8 lanes. max_ps(lo, x) / min_ps(hi, x) return x when it is
/// NaN, as the expansion's unordered selects do; floor is roundps toward
/// -inf, fptosi cvttps2dq.
__attribute__((target("avx2,fma"))) inline __m256 exp8(__m256 x) {
  using namespace exp_poly;
  x = _mm256_max_ps(_mm256_set1_ps(kLow), x);
  x = _mm256_min_ps(_mm256_set1_ps(kHigh), x);
  __m256 k = _mm256_floor_ps(
      _mm256_fmadd_ps(x, _mm256_set1_ps(kLog2E), _mm256_set1_ps(0.5f)));
  k = _mm256_max_ps(_mm256_set1_ps(kKLow), k);
  k = _mm256_min_ps(_mm256_set1_ps(kKHigh), k);
  __m256 r = _mm256_fmadd_ps(_mm256_set1_ps(kLn2Hi), k, x);
  r = _mm256_fmadd_ps(_mm256_set1_ps(kLn2Lo), k, r);
  __m256 p = _mm256_fmadd_ps(r, _mm256_set1_ps(kP0), _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  __m256 e = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r),
                           _mm256_set1_ps(1.0f));
  __m256i bits = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvttps_epi32(k), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(e, _mm256_castsi256_ps(bits));
}

/// silu on 8 lanes.
__attribute__((target("avx2,fma"))) inline __m256 silu8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 negated = _mm256_xor_ps(x, _mm256_set1_ps(-0.0f));
  __m256 sigmoid = _mm256_div_ps(one, _mm256_add_ps(one, exp8(negated)));
  return _mm256_mul_ps(x, sigmoid);
}

/// expApprox on 16 lanes.
__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) {
  using namespace exp_poly;
  x = _mm512_max_ps(_mm512_set1_ps(kLow), x);
  x = _mm512_min_ps(_mm512_set1_ps(kHigh), x);
  __m512 k = _mm512_roundscale_ps(
      _mm512_fmadd_ps(x, _mm512_set1_ps(kLog2E), _mm512_set1_ps(0.5f)),
      _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  k = _mm512_max_ps(_mm512_set1_ps(kKLow), k);
  k = _mm512_min_ps(_mm512_set1_ps(kKHigh), k);
  __m512 r = _mm512_fmadd_ps(_mm512_set1_ps(kLn2Hi), k, x);
  r = _mm512_fmadd_ps(_mm512_set1_ps(kLn2Lo), k, r);
  __m512 p = _mm512_fmadd_ps(r, _mm512_set1_ps(kP0), _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  __m512 e = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r),
                           _mm512_set1_ps(1.0f));
  __m512i bits = _mm512_slli_epi32(
      _mm512_add_epi32(_mm512_cvttps_epi32(k), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(e, _mm512_castsi512_ps(bits));
}

/// silu on 16 lanes.
__attribute__((target("avx512f"))) inline __m512 silu16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 negated = _mm512_castsi512_ps(
      _mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
  __m512 sigmoid = _mm512_div_ps(one, _mm512_add_ps(one, exp16(negated)));
  return _mm512_mul_ps(x, sigmoid);
}
#endif

/// The fused epilogue of the GEMM and convolution kernels, applied in
/// registers before the store: ReLU is max(0, x), ReLU6 min(6, max(0, x)),
/// HardSwish hardSwish, SiLU silu; NaN stays NaN in all four.
enum Epilogue : int {
  kNoEpilogue = 0,
  kRelu = 1,
  kRelu6 = 2,
  kHardSwish = 3,
  kSilu = 4
};

static_assert(TANDEM_CONV2D_RELU == TANDEM_SGEMM_RELU &&
                  TANDEM_CONV2D_RELU6 == TANDEM_SGEMM_RELU6 &&
                  TANDEM_CONV2D_HARDSWISH == TANDEM_SGEMM_HARDSWISH &&
                  TANDEM_CONV2D_SILU == TANDEM_SGEMM_SILU,
              "epilogueOf reads conv flags as sgemm flags");
static_assert(TANDEM_DWCONV2D_RELU == TANDEM_SGEMM_RELU &&
                  TANDEM_DWCONV2D_RELU6 == TANDEM_SGEMM_RELU6 &&
                  TANDEM_DWCONV2D_HARDSWISH == TANDEM_SGEMM_HARDSWISH &&
                  TANDEM_DWCONV2D_SILU == TANDEM_SGEMM_SILU,
              "epilogueOf reads depthwise conv flags as sgemm flags");

/// The epilogue a kernel call's flags ask for (the RELU, RELU6, HARDSWISH
/// and SILU bits are the same for tandem_sgemm_f32, tandem_conv2d_f32 and
/// tandem_dwconv2d_f32; HARDSWISH, then SILU, takes precedence).
inline Epilogue epilogueOf(int32_t flags) {
  if (flags & TANDEM_SGEMM_HARDSWISH)
    return kHardSwish;
  if (flags & TANDEM_SGEMM_SILU)
    return kSilu;
  if (flags & TANDEM_SGEMM_RELU6)
    return kRelu6;
  return flags & TANDEM_SGEMM_RELU ? kRelu : kNoEpilogue;
}

/// `v` under the fused epilogue.
inline float applyEpilogue(float v, Epilogue epi) {
  if (epi == kHardSwish)
    return hardSwish(v);
  if (epi == kSilu)
    return silu(v);
  if (epi == kNoEpilogue || v != v)
    return v;
  v = v < 0.0f ? 0.0f : v;
  return epi == kRelu6 && v > 6.0f ? 6.0f : v;
}

#if defined(__x86_64__) || defined(__i386__)
/// `v` under the fused epilogue (applyEpilogue), 8 lanes.
__attribute__((target("avx2,fma"))) inline __m256 epilogue8(__m256 v,
                                                            Epilogue epi) {
  switch (epi) {
  case kNoEpilogue:
    return v;
  case kRelu: // max(0, x): NaN stays NaN
    return _mm256_max_ps(_mm256_setzero_ps(), v);
  case kRelu6: // min(6, max(0, x)): NaN stays NaN
    return _mm256_min_ps(_mm256_set1_ps(6.0f),
                         _mm256_max_ps(_mm256_setzero_ps(), v));
  case kHardSwish:
    return hardSwish8(v);
  case kSilu:
    return silu8(v);
  }
  return v;
}

/// Whether `epi` is one of the long epilogues (HardSwish, SiLU: a dozen
/// vector operations and their constants). The AVX-512 GEMM tiles, whose
/// 28 accumulators fill the register file, apply only the short ones in
/// registers (shortEpilogue16) and the long ones in a pass over the stored
/// tile (longEpilogueRows16): applied per vector, GCC called epilogue16 out
/// of line for each of them and spilled every accumulator around the call
/// (MobileNetV2 11%, Conv+BN+ReLU 15% slower on Zen 4). The bits are the
/// same: the pass reads back exactly what was stored.
inline bool isLongEpilogue(Epilogue epi) {
  return epi == kHardSwish || epi == kSilu;
}

/// epilogue16 for the short epilogues (none, ReLU, ReLU6); a long one
/// leaves `v` as it is (see isLongEpilogue).
__attribute__((target("avx512f"), always_inline)) inline __m512
shortEpilogue16(__m512 v, Epilogue epi) {
  if (epi == kRelu)
    return _mm512_max_ps(_mm512_setzero_ps(), v);
  if (epi == kRelu6)
    return _mm512_min_ps(_mm512_set1_ps(6.0f),
                         _mm512_max_ps(_mm512_setzero_ps(), v));
  return v;
}

/// epilogue8 for 16 lanes.
__attribute__((target("avx512f"))) inline __m512 epilogue16(__m512 v,
                                                            Epilogue epi) {
  if (epi == kHardSwish)
    return hardSwish16(v);
  if (epi == kSilu)
    return silu16(v);
  return shortEpilogue16(v, epi);
}

/// Applies the long epilogue `epi` in place to `rows` rows of `cols` floats
/// at `c` (row stride `ldc`), 16 lanes at a time (masked at the row's end).
__attribute__((target("avx512f"), noinline)) inline void
longEpilogueRows16(float *c, int64_t ldc, int64_t rows, int64_t cols,
                   Epilogue epi) {
  for (int64_t i = 0; i < rows; ++i, c += ldc)
    for (int64_t j = 0; j < cols; j += 16) {
      int64_t left = cols - j;
      __mmask16 mask =
          left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      __m512 v = _mm512_maskz_loadu_ps(mask, c + j);
      v = epi == kSilu ? silu16(v) : hardSwish16(v);
      _mm512_mask_storeu_ps(c + j, mask, v);
    }
}

#endif

} // namespace tandem_internal

#endif // TANDEM_RUNTIME_KERNELS_ACTIVATION_H
