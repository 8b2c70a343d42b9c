//===- gemv.cpp - matrix-vector products on packed weights ----------------===//

#include "kernels/gemv.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TANDEM_X86 1
#endif

namespace tandem_internal {
namespace {

/// Where K block pc of the panel starts, and its height.
inline const float *blockOf(const PackedPanel &p, int64_t pc, int64_t &height) {
  height = std::min(p.kc, p.k - pc);
  return p.base + p.padded * pc + p.index * p.width * height;
}

#if TANDEM_X86
/// acc += scale * the W floats at r, in 16-float vectors (the last masked).
template <int W>
__attribute__((target("avx512f"), always_inline)) inline void
rowAvx512(__m512 (&acc)[(W + 15) / 16], const float *r, float scale) {
  constexpr int V = (W + 15) / 16;
  constexpr __mmask16 kLast =
      W % 16 ? __mmask16((1u << (W % 16)) - 1) : __mmask16(0xffff);
  __m512 sv = _mm512_set1_ps(scale);
  for (int v = 0; v < V; ++v) {
    __m512 x = v + 1 == V ? _mm512_maskz_loadu_ps(kLast, r + 16 * v)
                          : _mm512_loadu_ps(r + 16 * v);
    acc[v] = _mm512_fmadd_ps(sv, x, acc[v]);
  }
}

/// gemvPanelAvx512 for width W: two rows a step into two sets of
/// accumulators.
template <int W>
__attribute__((target("avx512f"))) void gemvAvx512(const PackedPanel &p,
                                                   const float *s, float *out) {
  constexpr int V = (W + 15) / 16;
  constexpr __mmask16 kLast =
      W % 16 ? __mmask16((1u << (W % 16)) - 1) : __mmask16(0xffff);
  __m512 even[V], odd[V];
  for (int v = 0; v < V; ++v)
    even[v] = odd[v] = _mm512_setzero_ps();
  for (int64_t pc = 0; pc < p.k; pc += p.kc) {
    int64_t h;
    const float *r = blockOf(p, pc, h);
    const float *sv = s + pc;
    int64_t kk = 0;
    for (; kk + 2 <= h; kk += 2) {
      rowAvx512<W>(even, r + kk * W, sv[kk]);
      rowAvx512<W>(odd, r + (kk + 1) * W, sv[kk + 1]);
    }
    if (kk < h)
      rowAvx512<W>(even, r + kk * W, sv[kk]);
  }
  for (int v = 0; v < V; ++v)
    _mm512_mask_storeu_ps(out + 16 * v, v + 1 == V ? kLast : __mmask16(0xffff),
                          _mm512_add_ps(even[v], odd[v]));
}

/// The lanes of the last 8-float vector of a W-float row.
template <int W>
__attribute__((target("avx2"), always_inline)) inline __m256i lastLanesAvx2() {
  constexpr int kUsed = W % 8 ? W % 8 : 8;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(kUsed),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// acc += scale * the W floats at r, in 8-float vectors (the last masked).
template <int W>
__attribute__((target("avx2,fma"), always_inline)) inline void
rowAvx2(__m256 (&acc)[(W + 7) / 8], const float *r, float scale, __m256i last) {
  constexpr int V = (W + 7) / 8;
  __m256 sv = _mm256_set1_ps(scale);
  for (int v = 0; v < V; ++v) {
    __m256 x = v + 1 == V && W % 8 ? _mm256_maskload_ps(r + 8 * v, last)
                                   : _mm256_loadu_ps(r + 8 * v);
    acc[v] = _mm256_fmadd_ps(sv, x, acc[v]);
  }
}

/// The same on AVX2 for width W.
template <int W>
__attribute__((target("avx2,fma"))) void gemvAvx2(const PackedPanel &p,
                                                  const float *s, float *out) {
  constexpr int V = (W + 7) / 8;
  const __m256i last = lastLanesAvx2<W>();
  __m256 even[V], odd[V];
  for (int v = 0; v < V; ++v)
    even[v] = odd[v] = _mm256_setzero_ps();
  for (int64_t pc = 0; pc < p.k; pc += p.kc) {
    int64_t h;
    const float *r = blockOf(p, pc, h);
    const float *sv = s + pc;
    int64_t kk = 0;
    for (; kk + 2 <= h; kk += 2) {
      rowAvx2<W>(even, r + kk * W, sv[kk], last);
      rowAvx2<W>(odd, r + (kk + 1) * W, sv[kk + 1], last);
    }
    if (kk < h)
      rowAvx2<W>(even, r + kk * W, sv[kk], last);
  }
  for (int v = 0; v < V; ++v) {
    __m256 sum = _mm256_add_ps(even[v], odd[v]);
    if (v + 1 == V && W % 8)
      _mm256_maskstore_ps(out + 8 * v, last, sum);
    else
      _mm256_storeu_ps(out + 8 * v, sum);
  }
}

/// acc += four rows of a 6-wide panel (24 floats at `group`) scaled by
/// sv[0..3], as gemv6Avx2 lays them out.
__attribute__((target("avx2,fma"), always_inline)) inline void
fourRows6Avx2(__m256 (&acc)[3], const float *group, const float *sv) {
  __m256 s0 = _mm256_broadcast_ss(sv), s1 = _mm256_broadcast_ss(sv + 1);
  __m256 s2 = _mm256_broadcast_ss(sv + 2), s3 = _mm256_broadcast_ss(sv + 3);
  acc[0] = _mm256_fmadd_ps(_mm256_blend_ps(s0, s1, 0xC0),
                           _mm256_loadu_ps(group), acc[0]);
  acc[1] = _mm256_fmadd_ps(_mm256_blend_ps(s1, s2, 0xF0),
                           _mm256_loadu_ps(group + 8), acc[1]);
  acc[2] = _mm256_fmadd_ps(_mm256_blend_ps(s2, s3, 0xFC),
                           _mm256_loadu_ps(group + 16), acc[2]);
}

/// gemvAvx2<6> without masked loads: four K rows of a 6-wide panel are 24
/// contiguous floats, three whole vectors, whose lane l of vector v holds
/// row (8v + l) / 6, column (8v + l) % 6. Each vector's scales are two
/// rows' broadcasts blended; eight rows a step (two sets of three
/// accumulators); the rows left over go through rowAvx2. Zen 3, weights in
/// L2 or L3: 35-37 GB/s with a masked load and an FMA per row, 51-60
/// blended (about what permuting the scales of one load gives).
__attribute__((target("avx2,fma"))) void gemv6Avx2(const PackedPanel &p,
                                                   const float *s, float *out) {
  const __m256i last = lastLanesAvx2<6>();
  __m256 lo[3], hi[3], rest[1] = {_mm256_setzero_ps()};
  for (int v = 0; v < 3; ++v)
    lo[v] = hi[v] = _mm256_setzero_ps();
  for (int64_t pc = 0; pc < p.k; pc += p.kc) {
    int64_t h;
    const float *r = blockOf(p, pc, h);
    const float *sv = s + pc;
    int64_t kk = 0;
    for (; kk + 8 <= h; kk += 8) {
      fourRows6Avx2(lo, r + kk * 6, sv + kk);
      fourRows6Avx2(hi, r + kk * 6 + 24, sv + kk + 4);
    }
    for (; kk < h; ++kk)
      rowAvx2<6>(rest, r + kk * 6, sv[kk], last);
  }
  alignas(32) float sums[32];
  for (int v = 0; v < 3; ++v)
    _mm256_store_ps(sums + 8 * v, _mm256_add_ps(lo[v], hi[v]));
  _mm256_store_ps(sums + 24, rest[0]);
  for (int j = 0; j < 6; ++j)
    out[j] = ((sums[j] + sums[6 + j]) + (sums[12 + j] + sums[18 + j])) +
             sums[24 + j];
}
#endif

} // namespace

void gemvPanelPortable(const PackedPanel &p, const float *s, float *out) {
  float acc[32] = {};
  for (int64_t pc = 0; pc < p.k; pc += p.kc) {
    int64_t h;
    const float *r = blockOf(p, pc, h);
    for (int64_t kk = 0; kk < h; ++kk)
      for (int64_t j = 0; j < p.width; ++j)
        acc[j] += s[pc + kk] * r[kk * p.width + j];
  }
  std::copy(acc, acc + p.width, out);
}

void gemvPanelAvx512(const PackedPanel &p, const float *s, float *out) {
#if TANDEM_X86
  if (p.width == 32)
    return gemvAvx512<32>(p, s, out);
  if (p.width == 14)
    return gemvAvx512<14>(p, s, out);
#endif
  gemvPanelPortable(p, s, out);
}

void gemvPanelAvx2(const PackedPanel &p, const float *s, float *out) {
#if TANDEM_X86
  if (p.width == 16)
    return gemvAvx2<16>(p, s, out);
  if (p.width == 6)
    return gemv6Avx2(p, s, out);
#endif
  gemvPanelPortable(p, s, out);
}

} // namespace tandem_internal
