//===- dwconv_kxk_avx2.cpp - AVX2 KxK depthwise planes, padded ------------===//
//
// The AVX2 + FMA twins of dwconv3x3_avx512.cpp's kernels: 3x3, 5x5 and 7x7
// depthwise planes of stride 1 and 2 read from the zero-bordered copy
// dwconv.cpp makes of each plane (stride 2: its polyphase copy, the even and
// the odd padded columns as two planes), several output rows per step so
// that each input vector loaded feeds every row whose window covers it
// (dwconv_kxk.h). Before these, AVX2 computed a 3x3 plane one output row at
// a time (9 loads for 9 FMAs), gathered the columns of a stride-2 window
// with two loads and two shuffles per tap, and ran 5x5 windows on the
// generic row kernel.
//
// AVX2 has no cheap masks (vmaskmovps stores are slow on AMD), so:
//
//  * input loads are whole 8-float vectors: the padded plane's rows are
//    wide enough (dwconv.cpp sizes them) that a vector starting at any
//    column a window reads stays in its row, and the extra lanes only feed
//    outputs past the row's end, which are never stored;
//  * a row's last 1-7 outputs are stored 4, 2 and 1 floats at a time
//    (partial_store.h);
//  * only an accumulating call's output loads use vmaskmovps.
//
//===----------------------------------------------------------------------===//

#include "kernels/activation.h"
#include "kernels/dwconv3x3.h"
#include "kernels/partial_store.h"

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TANDEM_AVX2 __attribute__((target("avx2,fma")))
#define TANDEM_DW_KXK_TARGET TANDEM_AVX2
#include "kernels/dwconv_kxk.h"

namespace {

using tandem_internal::Dw3x3Plane;
using tandem_internal::dw_kxk::planeKxK;

/// 8-float vectors; a mask is the number of leading lanes (1..8).
struct Avx2 {
  using V = __m256;
  using M = int;
  static constexpr int kLanes = 8;
  TANDEM_AVX2 static M lanes(int64_t n) { return n >= 8 ? 8 : int(n); }
  TANDEM_AVX2 static V loadIn(M, const float *p) { return _mm256_loadu_ps(p); }
  TANDEM_AVX2 static V loadOut(M m, const float *p) {
    if (m == 8)
      return _mm256_loadu_ps(p);
    return _mm256_maskload_ps(p, tandem_internal::firstLanes(m));
  }
  TANDEM_AVX2 static void store(float *p, M m, V v) {
    tandem_internal::storeFirstAvx2(p, v, m);
  }
  TANDEM_AVX2 static V set1(float x) { return _mm256_set1_ps(x); }
  TANDEM_AVX2 static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  TANDEM_AVX2 static V add(V a, V b) { return _mm256_add_ps(a, b); }
  TANDEM_AVX2 static V epilogue(V v, tandem_internal::Epilogue e) {
    return tandem_internal::epilogue8(v, e);
  }
};

/// Four output rows per step. With 16 vector registers some of the
/// weights are FMA memory operands (all 25 of a 5x5 window); two or three
/// rows, which keep a 3x3 window's 9 in registers, measured the same on
/// Zen 3 (MobileNetV2's 3x3 layers within 1-3%), eight rows for 7x7
/// planes slower at 3x3. 5x5 and 7x7 rows wider than one vector take two
/// vectors a block, so that each weight loaded feeds two FMAs.
template <int K>
TANDEM_AVX2 void planeAvx2(const Dw3x3Plane &p, const float *f, float *out) {
  constexpr int kRows = 4;
  if constexpr (K <= 5) {
    if (p.dilation == 2) {
      if (K == 5 && p.ow > 8)
        planeKxK<Avx2, K, 1, kRows, 2, 2>(p, f, out);
      else
        planeKxK<Avx2, K, 1, kRows, 1, 2>(p, f, out);
      return;
    }
  }
  if (K >= 5 && p.ow > 8) {
    if (p.step == 1)
      planeKxK<Avx2, K, 1, kRows, 2>(p, f, out);
    else
      planeKxK<Avx2, K, 2, kRows, 2>(p, f, out);
    return;
  }
  if (p.step == 1)
    planeKxK<Avx2, K, 1, kRows>(p, f, out);
  else
    planeKxK<Avx2, K, 2, kRows>(p, f, out);
}

/// The lanes l of a vector from source column c0 with 0 <= c0 + l < w.
TANDEM_AVX2 __m256i inRow(int64_t c0, int64_t w) {
  __m256i col = _mm256_add_epi32(_mm256_set1_epi32(int32_t(c0)),
                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return _mm256_andnot_si256(
      _mm256_cmpgt_epi32(_mm256_setzero_si256(), col),
      _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(w)), col));
}

} // namespace

namespace tandem_internal {

TANDEM_AVX2 void dw3x3PlaneAvx2(const Dw3x3Plane &p, const float *f,
                                float *out) {
  if (p.taps == 7)
    planeAvx2<7>(p, f, out);
  else if (p.taps == 5)
    planeAvx2<5>(p, f, out);
  else
    planeAvx2<3>(p, f, out);
}

TANDEM_AVX2 void polyphaseRowsAvx2(const float *src, int64_t sSrc, int64_t rows,
                                   int64_t w, int64_t padLeft, int64_t padW,
                                   float *even, float *odd, int64_t sDst) {
  // Padded column q holds source column q - padLeft where that is in
  // [0, w), zero elsewhere. Blocks of 16 padded columns: two masked loads
  // (AMD runs masked loads at full speed; lanes outside the source are not
  // read and come out 0), then the even and the odd lanes of each 128-bit
  // half (shufps) put in order (vpermpd). The masks depend on the block
  // only: found once, for every row.
  constexpr int64_t kMaxBlocks = 32; // rows of up to 512 padded columns
  __m256i masks[2 * kMaxBlocks];
  int64_t blocks = (padW + 15) / 16;
  for (int64_t b = 0; b < std::min(blocks, kMaxBlocks); ++b) {
    masks[2 * b] = inRow(16 * b - padLeft, w);
    masks[2 * b + 1] = inRow(16 * b - padLeft + 8, w);
  }
  for (int64_t r = 0; r < rows; ++r, src += sSrc, even += sDst, odd += sDst) {
    for (int64_t b = 0; b < blocks; ++b) {
      int64_t q = 16 * b, c = q - padLeft; // the source column of lane 0
      __m256i mLo = b < kMaxBlocks ? masks[2 * b] : inRow(c, w);
      __m256i mHi = b < kMaxBlocks ? masks[2 * b + 1] : inRow(c + 8, w);
      // Masked-off lanes are not accessed, so the base may lie outside the
      // row; form it as an integer, not as an out-of-range pointer.
      auto at = [&](int64_t col) {
        return reinterpret_cast<const float *>(
            reinterpret_cast<uintptr_t>(src) + col * int64_t(sizeof(float)));
      };
      __m256 lo = _mm256_maskload_ps(at(c), mLo);
      __m256 hi = _mm256_maskload_ps(at(c + 8), mHi);
      __m256 e = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
      __m256 o = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
      // Lanes now hold columns 0 2 8 10 4 6 12 14: swap the middle quads.
      _mm256_storeu_ps(even + q / 2,
                       _mm256_castpd_ps(_mm256_permute4x64_pd(
                           _mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
      _mm256_storeu_ps(odd + q / 2,
                       _mm256_castpd_ps(_mm256_permute4x64_pd(
                           _mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0))));
    }
  }
}

} // namespace tandem_internal

#endif
