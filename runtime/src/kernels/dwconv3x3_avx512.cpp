//===- dwconv3x3_avx512.cpp - AVX-512 KxK depthwise planes, padded --------===//
//
// The 3x3, 5x5 and 7x7 depthwise kernels of tandem_dwconv2d_pad_f32 on AVX-512
// (one template on the window size; the text below counts for 3x3): each
// channel plane is first copied into a zero-bordered thread-local plane
// (dwconv.cpp), so every tap is an in-bounds load and a window never needs a
// bounds check. Two things make these faster than the general plane kernel:
//
//  * Four output rows per step (six input rows at stride 1, nine at stride
//    2): four independent accumulator chains hide the FMA latency, and each
//    loaded input vector feeds every output row whose window covers it (18
//    loads for 36 FMAs at stride 1).
//  * Stride 2 reads a polyphase copy: the padded plane's even columns and
//    its odd columns as two planes, so that the taps (even[x], odd[x],
//    even[x + 1], and for 5x5 odd[x + 1], even[x + 2]) are unit-stride
//    loads instead of two loads and a permute per tap. The copy
//    deinterleaves once per input element.
//
// Planes at most 8 wide (7x7) use 8-lane vectors (AVX-512VL): on cores
// that split a 512-bit FMA in two (Zen 4) that halves the work of the 16-lane
// vector a 7-wide row would fill less than half of; elsewhere it costs the
// same.
//
//===----------------------------------------------------------------------===//

#include "kernels/activation.h"
#include "kernels/dwconv3x3.h"

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TANDEM_AVX512VL __attribute__((target("avx512f,avx512vl,avx2,fma")))
#define TANDEM_DW_KXK_TARGET TANDEM_AVX512VL
#include "kernels/dwconv_kxk.h"

namespace {

using tandem_internal::Dw3x3Plane;
using tandem_internal::dw_kxk::planeKxK;

/// 16-float vectors.
struct Zmm {
  using V = __m512;
  using M = __mmask16;
  static constexpr int kLanes = 16;
  TANDEM_AVX512VL static M lanes(int64_t n) {
    return n >= 16 ? M(0xFFFF) : M((1u << n) - 1);
  }
  TANDEM_AVX512VL static V loadIn(M m, const float *p) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  TANDEM_AVX512VL static V loadOut(M m, const float *p) { return loadIn(m, p); }
  TANDEM_AVX512VL static void store(float *p, M m, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
  TANDEM_AVX512VL static V set1(float x) { return _mm512_set1_ps(x); }
  TANDEM_AVX512VL static V fma(V a, V b, V c) {
    return _mm512_fmadd_ps(a, b, c);
  }
  TANDEM_AVX512VL static V add(V a, V b) { return _mm512_add_ps(a, b); }
  TANDEM_AVX512VL static V epilogue(V v, tandem_internal::Epilogue e) {
    return tandem_internal::epilogue16(v, e);
  }
};

/// 8-float vectors with AVX-512VL masks.
struct Ymm {
  using V = __m256;
  using M = __mmask8;
  static constexpr int kLanes = 8;
  TANDEM_AVX512VL static M lanes(int64_t n) {
    return n >= 8 ? M(0xFF) : M((1u << n) - 1);
  }
  TANDEM_AVX512VL static V loadIn(M m, const float *p) {
    return _mm256_maskz_loadu_ps(m, p);
  }
  TANDEM_AVX512VL static V loadOut(M m, const float *p) { return loadIn(m, p); }
  TANDEM_AVX512VL static void store(float *p, M m, V v) {
    _mm256_mask_storeu_ps(p, m, v);
  }
  TANDEM_AVX512VL static V set1(float x) { return _mm256_set1_ps(x); }
  TANDEM_AVX512VL static V fma(V a, V b, V c) {
    return _mm256_fmadd_ps(a, b, c);
  }
  TANDEM_AVX512VL static V add(V a, V b) { return _mm256_add_ps(a, b); }
  TANDEM_AVX512VL static V epilogue(V v, tandem_internal::Epilogue e) {
    return tandem_internal::epilogue8(v, e);
  }
};

/// A KxK plane: 16-lane vectors four rows at a time (3x3: 9 weights + 4
/// accumulators + 3 inputs in registers); 8-lane ones, at twice the FMA
/// rate per vector on cores that split 512-bit FMAs, eight (a 7x7 plane
/// is one step of 7).
template <int K>
TANDEM_AVX512VL void planeAvx512(const Dw3x3Plane &p, const float *f,
                                 float *out) {
  // 5x5 on 8-lane vectors: four rows (25 weights + 4 accumulators + 5
  // inputs fill the 32 registers; eight rows would spill); 7x7 likewise
  // (its 49 weights partly FMA memory operands).
  constexpr int kYmmRows = K == 3 ? 8 : 4;
  if constexpr (K <= 5) {
    if (p.dilation == 2) {
      if (p.ow <= 8)
        planeKxK<Ymm, K, 1, kYmmRows, 1, 2>(p, f, out);
      else
        planeKxK<Zmm, K, 1, 4, 1, 2>(p, f, out);
      return;
    }
  }
  if (p.ow <= 8) {
    if (p.step == 1)
      planeKxK<Ymm, K, 1, kYmmRows>(p, f, out);
    else
      planeKxK<Ymm, K, 2, kYmmRows>(p, f, out);
  } else if (p.step == 1) {
    planeKxK<Zmm, K, 1, 4>(p, f, out);
  } else {
    planeKxK<Zmm, K, 2, 4>(p, f, out);
  }
}

} // namespace

namespace tandem_internal {

TANDEM_AVX512VL void dw3x3PlaneAvx512(const Dw3x3Plane &p, const float *f,
                                      float *out) {
  if (p.taps == 7)
    planeAvx512<7>(p, f, out);
  else if (p.taps == 5)
    planeAvx512<5>(p, f, out);
  else
    planeAvx512<3>(p, f, out);
}

TANDEM_AVX512VL void polyphaseRowsAvx512(const float *src, int64_t sSrc,
                                         int64_t rows, int64_t w,
                                         int64_t padLeft, int64_t padW,
                                         float *even, float *odd,
                                         int64_t sDst) {
  const __m512i evenIdx = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                           12, 10, 8, 6, 4, 2, 0);
  const __m512i oddIdx = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15,
                                          13, 11, 9, 7, 5, 3, 1);
  // Padded column q holds source column q - padLeft where that is in
  // [0, w), zero elsewhere; q even goes to even[q / 2], q odd to
  // odd[q / 2]. Blocks of 32 padded columns: two masked loads (lanes
  // outside the source are not read and come out 0), two permutes. The
  // masks depend on the block only: found once, for every row.
  auto maskFor = [&](int64_t c0) {
    // Lanes l with 0 <= c0 + l < w.
    int64_t lo = std::clamp<int64_t>(-c0, 0, 16);
    int64_t hi = std::clamp<int64_t>(w - c0, 0, 16);
    uint32_t upTo = hi >= 16 ? 0xFFFFu : (1u << hi) - 1;
    uint32_t from = lo >= 16 ? 0u : ~((1u << lo) - 1);
    return __mmask16(upTo & from);
  };
  constexpr int64_t kMaxBlocks = 16; // rows of up to 512 padded columns
  __mmask16 masks[2 * kMaxBlocks];
  int64_t blocks = (padW + 31) / 32;
  for (int64_t b = 0; b < std::min(blocks, kMaxBlocks); ++b) {
    masks[2 * b] = maskFor(32 * b - padLeft);
    masks[2 * b + 1] = maskFor(32 * b - padLeft + 16);
  }
  for (int64_t r = 0; r < rows; ++r, src += sSrc, even += sDst, odd += sDst) {
    for (int64_t b = 0; b < blocks; ++b) {
      int64_t q = 32 * b, c = q - padLeft; // the source column of lane 0
      __mmask16 mLo = b < kMaxBlocks ? masks[2 * b] : maskFor(c);
      __mmask16 mHi = b < kMaxBlocks ? masks[2 * b + 1] : maskFor(c + 16);
      // Masked-off lanes are not accessed, so the base may lie outside the
      // row; form it as an integer, not as an out-of-range pointer.
      auto at = [&](int64_t col) {
        return reinterpret_cast<const float *>(
            reinterpret_cast<uintptr_t>(src) + col * int64_t(sizeof(float)));
      };
      __m512 lo = _mm512_maskz_loadu_ps(mLo, at(c));
      __m512 hi = _mm512_maskz_loadu_ps(mHi, at(c + 16));
      _mm512_storeu_ps(even + q / 2, _mm512_permutex2var_ps(lo, evenIdx, hi));
      _mm512_storeu_ps(odd + q / 2, _mm512_permutex2var_ps(lo, oddIdx, hi));
    }
  }
}

} // namespace tandem_internal

#endif
