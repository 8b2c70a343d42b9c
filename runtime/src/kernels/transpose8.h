//===- transpose8.h - 8x8 float transposes in AVX registers -----*- C++ -*-===//
//
// The moves between channel-major memory (a channel's pixels contiguous) and
// channel lanes (a pixel's eight channels in one vector) that the Winograd
// transforms and the small-plane depthwise kernel make: one 8x8 block at a
// time, in eight ymm registers.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_TRANSPOSE8_H
#define TANDEM_RUNTIME_KERNELS_TRANSPOSE8_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace tandem_internal {

/// Transposes the 8 x 8 floats in r[0..7] in place: lane j of r[i] becomes
/// lane i of r[j].
__attribute__((target("avx2,fma"), always_inline)) inline void
transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

} // namespace tandem_internal

#endif

#endif // TANDEM_RUNTIME_KERNELS_TRANSPOSE8_H
