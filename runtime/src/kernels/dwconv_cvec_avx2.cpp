//===- dwconv_cvec_avx2.cpp - depthwise planes eight channels a vector ----===//
//
// dwconv_cvec.h on AVX2 + FMA: eight channels' planes transposed (8x8
// blocks) into a zero-bordered tile of 8-float pixels, each output pixel's
// window as K*K whole-vector FMAs, eight output pixels of a row at a time
// (their tile addresses a fixed step apart, each loaded weight vector
// feeding eight FMAs), then transposed back into the channels' planes.
//
//===----------------------------------------------------------------------===//

#include "kernels/dwconv_cvec.h"

#include "kernels/partial_store.h"
#include "kernels/transpose8.h"

#include <algorithm>
#include <cstring>

namespace tandem_internal {
namespace {

/// The tile: padH x padW pixels of 8 floats (channel c in lane c), the
/// padded plane every window lies in, then kSlackPixels more, which the
/// last row's vectors past the output row's end may read.
struct Tile {
  int64_t padH, padW;
};

Tile tileOf(const DwChannelVec &p) {
  return Tile{(p.oh - 1) * p.step + p.k, (p.ow - 1) * p.step + p.k};
}

/// Pixels past the tile that a block of 8 outputs reaching past the row's
/// end reads (up to 7 strides further than the row's last window), and
/// that the fill's last 8 pixels of the last row may write (zeros).
constexpr int64_t kSlackPixels = 7 * 2 + 1;

} // namespace

int64_t dwChannelVecTileFloats(const DwChannelVec &p) {
  Tile t = tileOf(p);
  return (t.padH * t.padW + kSlackPixels) * 8;
}

bool dwChannelVecSupports(int64_t kh, int64_t kw, int64_t strideH,
                          int64_t strideW, int64_t dilationH,
                          int64_t dilationW) {
  return kh == kw && (kh == 3 || kh == 5 || kh == 7) && strideH == strideW &&
         (strideH == 1 || strideH == 2) && dilationH == 1 && dilationW == 1;
}

} // namespace tandem_internal

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TANDEM_AVX2 __attribute__((target("avx2,fma")))

namespace tandem_internal {
namespace {

/// Writes the channels' input planes into the tile's interior.
TANDEM_AVX2 void fillTile(const DwChannelVec &p, int64_t channels,
                          const Tile &t, float *tile) {
  int64_t r0 = std::max<int64_t>(0, -p.padTop);
  int64_t r1 = std::min(p.h, t.padH - p.padTop);
  int64_t c0 = std::max<int64_t>(0, -p.padLeft);
  int64_t c1 = std::min(p.w, t.padW - p.padLeft);
  for (int64_t y = r0; y < r1; ++y) {
    float *row = tile + ((y + p.padTop) * t.padW + p.padLeft) * 8;
    for (int64_t x = c0; x < c1; x += 8) {
      int64_t n = std::min<int64_t>(8, c1 - x);
      __m256i mask = firstLanes(n);
      __m256 v[8];
      for (int64_t c = 0; c < 8; ++c) {
        const float *src = p.in + c * p.inStride + y * p.w + x;
        v[c] = c >= channels ? _mm256_setzero_ps()
               : n == 8      ? _mm256_loadu_ps(src)
                             : _mm256_maskload_ps(src, mask);
      }
      transpose8(v);
      // All eight pixels: past the n loaded, the masked loads' lanes give
      // zero vectors, which land in the border (zero), in the next row's
      // pixels (filled after this row) or in the slack.
#pragma GCC unroll 8
      for (int u = 0; u < 8; ++u)
        _mm256_store_ps(row + (x + u) * 8, v[u]);
    }
  }
}

/// The output rows of p from the filled tile: K*K taps, stride S. The
/// window rows stay a loop: unrolled, GCC hoisted the weight loads and
/// spilled an accumulator every tap (MNasNet's 7x7 5x5 block, 1152
/// channels, standalone: 374 -> 354 us).
template <int K, int S>
TANDEM_AVX2 void computeRows(const DwChannelVec &p, int64_t channels,
                             const Tile &t, const float *tile,
                             const float *weights, __m256 bias) {
  const int64_t rowFloats = t.padW * 8;
  for (int64_t y = 0; y < p.oh; ++y) {
    for (int64_t x = 0; x < p.ow; x += 8) {
      int64_t n = std::min<int64_t>(8, p.ow - x);
      const float *base = tile + (y * S * t.padW + x * S) * 8;
      __m256 acc[8];
#pragma GCC unroll 8
      for (int u = 0; u < 8; ++u)
        acc[u] = bias;
#pragma GCC unroll 1
      for (int i = 0; i < K; ++i) {
        const float *row = base + i * rowFloats;
#pragma GCC unroll 7
        for (int j = 0; j < K; ++j) {
          __m256 w = _mm256_load_ps(weights + (i * K + j) * 8);
#pragma GCC unroll 8
          for (int u = 0; u < 8; ++u)
            acc[u] = _mm256_fmadd_ps(w, _mm256_load_ps(row + (u * S + j) * 8),
                                     acc[u]);
        }
      }
#pragma GCC unroll 8
      for (int u = 0; u < 8; ++u)
        acc[u] = epilogue8(acc[u], p.epilogue);
      transpose8(acc);
      float *out = p.out + y * p.outRowStride + x;
      for (int64_t c = 0; c < channels; ++c)
        storeFirstAvx2(out + c * p.outStride, acc[c], n);
    }
  }
}

} // namespace

TANDEM_AVX2 void dwChannelVecAvx2(const DwChannelVec &params, int64_t channels,
                                  float *tile, bool zeroTile) {
  // A copy the stores cannot reach, so that its fields stay in registers
  // (see planeKxK).
  const DwChannelVec p = params;
  Tile t = tileOf(p);
  if (zeroTile)
    std::memset(tile, 0, size_t(dwChannelVecTileFloats(p)) * sizeof(float));
  fillTile(p, channels, t, tile);
  // The taps as vectors across the channels, lanes past `channels` zero.
  alignas(32) float weights[7 * 7 * 8];
  alignas(32) float biases[8] = {};
  int taps = p.k * p.k;
  std::memset(weights, 0, sizeof(float) * size_t(taps) * 8);
  for (int64_t c = 0; c < channels; ++c) {
    for (int tap = 0; tap < taps; ++tap)
      weights[tap * 8 + c] = p.filter[c * taps + tap];
    if (p.bias)
      biases[c] = p.bias[c];
  }
  __m256 bias = _mm256_load_ps(biases);
  switch (p.k * 2 + p.step - 1) {
  case 3 * 2:
    return computeRows<3, 1>(p, channels, t, tile, weights, bias);
  case 3 * 2 + 1:
    return computeRows<3, 2>(p, channels, t, tile, weights, bias);
  case 5 * 2:
    return computeRows<5, 1>(p, channels, t, tile, weights, bias);
  case 5 * 2 + 1:
    return computeRows<5, 2>(p, channels, t, tile, weights, bias);
  case 7 * 2:
    return computeRows<7, 1>(p, channels, t, tile, weights, bias);
  case 7 * 2 + 1:
    return computeRows<7, 2>(p, channels, t, tile, weights, bias);
  }
}

} // namespace tandem_internal

#endif
