//===- partial_store.h - storing the first lanes of a vector ----*- C++ -*-===//
//
// AVX2 has masked stores (vmaskmovps), but AMD cores run them slowly (tens
// of cycles each, where a plain store is one): a kernel that stores the
// ragged end of a row once per tile row, such as a GEMM edge tile or a
// depthwise plane's last columns, writes the first n lanes in 4-, 2- and
// 1-float pieces instead. Their masked loads (full speed on AMD) take their
// mask from firstLanes.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_PARTIAL_STORE_H
#define TANDEM_RUNTIME_KERNELS_PARTIAL_STORE_H

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace tandem_internal {

/// The AVX2 lane mask of the first n lanes (none for n <= 0, all for
/// n >= 8), for masked loads (which AMD runs at full speed) of a row's
/// ragged end.
__attribute__((target("avx2,fma"), always_inline)) inline __m256i
firstLanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// Stores lanes [0, n) of v at p (all of them for n >= 8, none for n <= 0);
/// nothing past p + n is written.
__attribute__((target("avx2,fma"), always_inline)) inline void
storeFirstAvx2(float *p, __m256 v, int64_t n) {
  if (n >= 8) {
    _mm256_storeu_ps(p, v);
    return;
  }
  __m128 part = _mm256_castps256_ps128(v);
  if (n >= 4) {
    _mm_storeu_ps(p, part);
    part = _mm256_extractf128_ps(v, 1);
    p += 4, n -= 4;
  }
  if (n >= 2) {
    _mm_storel_pi(reinterpret_cast<__m64 *>(p), part);
    part = _mm_movehl_ps(part, part);
    p += 2, n -= 2;
  }
  if (n > 0)
    _mm_store_ss(p, part);
}

} // namespace tandem_internal

#endif

#endif // TANDEM_RUNTIME_KERNELS_PARTIAL_STORE_H
