//===- winograd.cpp - Winograd F(2x2/4x4, 3x3) convolution ----------------===//
//
// The 3x3, stride-1 path of tandem_conv2d_f32 (TANDEM_CONV2D_WINOGRAD): the
// output is cut into m x m tiles (m = 2 or 4, alpha = m + 2); each tile's
// alpha x alpha input patch d becomes V = B^T d B, the filter g becomes
// U = G g G^T (once per instance: cached like packed weights), their
// elementwise products summed over input channels are alpha^2 independent
// GEMMs, and Y = A^T M A gives the tile's outputs. F(4x4, 3x3) does 36
// multiplies per 16 outputs where the direct convolution does 144.
//
// Tiles of all images are numbered in one row-major order and processed in
// blocks sized so that a block's V and M stay in L2: per block, the input
// transform writes V[xi][tile][channel], the alpha^2 GEMMs
// M[xi] = V[xi] (tiles x C) * U[xi] (C x F) run on the sgemm's
// micro-kernels (U packed once, as a constant B), and the output transform
// adds the bias already in the output (TANDEM_CONV2D_ACCUMULATE), applies
// the fused epilogue and stores only the tile's valid outputs. Blocks run in
// parallel on the thread pool; with fewer than two blocks per thread, all
// tiles form one block whose three phases are each spread over the pool
// (the GEMMs one per task, so that U is read once). The transforms work on 8
// channels at once (straight line code over 8-float lanes, which the compiler
// vectorises), compiled per ISA like the micro-kernels.
//
//===----------------------------------------------------------------------===//

#include "tandem/winograd.h"
#include "kernels/activation.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "kernels/scratch.h"
#include "kernels/sgemm_internal.h"
#include "kernels/transpose8.h"
#include "kernels/winograd_internal.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TANDEM_X86 1
#endif

#define TANDEM_INLINE inline __attribute__((always_inline))

namespace {

constexpr int kLanes = 8;
/// A block's V and M together stay within this many bytes (L2).
constexpr int64_t kBlockBytes = int64_t(1) << 20;

/// One Winograd call's geometry, shared by the block tasks.
struct Wino {
  const char *isa;
  const tandem_exec_ctx_t *ctx;
  int m, a; // output tile and input patch size (a = m + 2)
  int64_t c, h, w;
  const float *input;
  int64_t sIn, sIc, sIh, sIw;
  int64_t f;
  const float *u; // [a*a][c][f]
  float *output;
  int64_t sOn, sOf, oh, ow;
  int64_t tilesX, tilesPerImage, tiles, blockTiles, blocks;
  bool accumulate;
  tandem_internal::Epilogue epilogue;
  tandem_internal_kernel_failure *failure;
  float *phaseV = nullptr, *phaseM = nullptr; // the phased form's V and M
};

using tandem_internal::Scratch;

thread_local Scratch blockScratch;
thread_local Scratch filterScratch;

//===----------------------------------------------------------------------===//
// 1-D transforms over 8-float lanes
//===----------------------------------------------------------------------===//

// Each takes `a` (or m) lane vectors `x[i * step]` and writes `y[i * step]`.

/// B^T for F(4x4, 3x3) (Lavin's points 0, +-1, +-2).
TANDEM_INLINE void inputRow4(const float *x, int64_t sx, float *y, int64_t sy) {
  for (int l = 0; l < kLanes; ++l) {
    float d0 = x[l], d1 = x[sx + l], d2 = x[2 * sx + l], d3 = x[3 * sx + l],
          d4 = x[4 * sx + l], d5 = x[5 * sx + l];
    y[l] = 4.0f * d0 - 5.0f * d2 + d4;
    y[sy + l] = -4.0f * (d1 + d2) + d3 + d4;
    y[2 * sy + l] = 4.0f * (d1 - d2) - d3 + d4;
    y[3 * sy + l] = 2.0f * (d3 - d1) - d2 + d4;
    y[4 * sy + l] = 2.0f * (d1 - d3) - d2 + d4;
    y[5 * sy + l] = 4.0f * d1 - 5.0f * d3 + d5;
  }
}

/// A^T for F(4x4, 3x3).
TANDEM_INLINE void outputRow4(const float *x, int64_t sx, float *y,
                              int64_t sy) {
  for (int l = 0; l < kLanes; ++l) {
    float m0 = x[l], m1 = x[sx + l], m2 = x[2 * sx + l], m3 = x[3 * sx + l],
          m4 = x[4 * sx + l], m5 = x[5 * sx + l];
    float p12 = m1 + m2, d12 = m1 - m2, p34 = m3 + m4, d34 = m3 - m4;
    y[l] = m0 + p12 + p34;
    y[sy + l] = d12 + 2.0f * d34;
    y[2 * sy + l] = p12 + 4.0f * p34;
    y[3 * sy + l] = d12 + 8.0f * d34 + m5;
  }
}

/// B^T for F(2x2, 3x3).
TANDEM_INLINE void inputRow2(const float *x, int64_t sx, float *y, int64_t sy) {
  for (int l = 0; l < kLanes; ++l) {
    float d0 = x[l], d1 = x[sx + l], d2 = x[2 * sx + l], d3 = x[3 * sx + l];
    y[l] = d0 - d2;
    y[sy + l] = d1 + d2;
    y[2 * sy + l] = d2 - d1;
    y[3 * sy + l] = d1 - d3;
  }
}

/// A^T for F(2x2, 3x3).
TANDEM_INLINE void outputRow2(const float *x, int64_t sx, float *y,
                              int64_t sy) {
  for (int l = 0; l < kLanes; ++l) {
    float m0 = x[l], m1 = x[sx + l], m2 = x[2 * sx + l], m3 = x[3 * sx + l];
    y[l] = m0 + m1 + m2;
    y[sy + l] = m1 - m2 - m3;
  }
}

//===----------------------------------------------------------------------===//
// AVX2 moves between channel-major memory and channel lanes
//===----------------------------------------------------------------------===//

#if TANDEM_X86
using tandem_internal::transpose8;

/// d[r][s][l] = p[l * sc + r * sh + s] for an A x A patch of 8 channels:
/// each patch row of the 8 channels is one load of 8 floats (so 8 - A
/// floats past the row must be readable) and one transpose.
template <int A>
__attribute__((target("avx2,fma"))) inline void
gatherPatch8(const float *p, int64_t sc, int64_t sh, float (*d)[A][8]) {
  for (int r = 0; r < A; ++r) {
    __m256 rows[8];
    for (int l = 0; l < 8; ++l)
      rows[l] = _mm256_loadu_ps(p + l * sc + r * sh);
    transpose8(rows);
    for (int s = 0; s < A; ++s)
      _mm256_store_ps(d[r][s], rows[s]);
  }
}

/// out[l * sc + r * ow + s] = epilogue((acc ? out : 0) + y[r][s][l]) for an
/// M x M tile of 8 output channels: one transpose per tile row, then M
/// floats per channel loaded, added and stored under a mask.
template <int M>
__attribute__((target("avx2,fma"))) inline void
scatterTile8(float (*y)[M][8], float *out, int64_t sc, int64_t ow,
             bool accumulate, tandem_internal::Epilogue epilogue) {
  // A tile row of one channel is M = 4 or 2 floats: the low 128 or 64 bits
  // of its lane vector, moved with plain 16- or 8-byte loads and stores
  // (vmaskmovps stores are slow on AMD cores).
  for (int r = 0; r < M; ++r) {
    __m256 rows[8];
    for (int s = 0; s < 8; ++s)
      rows[s] = s < M ? _mm256_load_ps(y[r][s]) : _mm256_setzero_ps();
    transpose8(rows);
    for (int l = 0; l < 8; ++l) {
      float *o = out + l * sc + r * ow;
      __m128 v = _mm256_castps256_ps128(rows[l]);
      // (8-byte moves through _mm_loadl_epi64/_mm_storel_epi64, which
      // allow any alignment: _mm_load_sd's double would need 8.)
      if (accumulate)
        v = _mm_add_ps(v, M == 4 ? _mm_loadu_ps(o)
                                 : _mm_castsi128_ps(_mm_loadl_epi64(
                                       reinterpret_cast<const __m128i *>(o))));
      // The GEMM's epilogue on the low lanes (NaN stays NaN).
      v = _mm256_castps256_ps128(
          tandem_internal::epilogue8(_mm256_zextps128_ps256(v), epilogue));
      if constexpr (M == 4)
        _mm_storeu_ps(o, v);
      else
        _mm_storel_epi64(reinterpret_cast<__m128i *>(o), _mm_castps_si128(v));
    }
  }
}

/// Copies 8 floats (one lane vector) with one 32-byte load and store.
__attribute__((target("avx2,fma"))) inline void copyLanes8(float *to,
                                                           const float *from) {
  _mm256_storeu_ps(to, _mm256_loadu_ps(from));
}
#endif

//===----------------------------------------------------------------------===//
// One block of tiles
//===----------------------------------------------------------------------===//

/// The image, row and column of the top-left output of tile `t`.
TANDEM_INLINE void tileOrigin(const Wino &g, int64_t t, int64_t &image,
                              int64_t &y, int64_t &x) {
  image = t / g.tilesPerImage;
  int64_t r = t % g.tilesPerImage;
  y = r / g.tilesX * g.m;
  x = r % g.tilesX * g.m;
}

/// V[xi][tile][channel] for the `count` tiles from `t0`: 8 channels at a
/// time, the patch gathered with zeros beyond the (padded) input. `v` is
/// tile t0's row of plane 0; planes are ldTiles tiles apart.
template <int M, bool Simd>
TANDEM_INLINE void transformInput(const Wino &g, int64_t t0, int64_t count,
                                  float *v, int64_t ldTiles) {
  constexpr int A = M + 2;
  alignas(64) float d[A][A][kLanes], t[A][A][kLanes];
  int64_t ldv = ldTiles * g.c; // floats between xi planes of V
  for (int64_t i = 0; i < count; ++i) {
    int64_t image, y0, x0;
    tileOrigin(g, t0 + i, image, y0, x0);
    const float *in = g.input + image * g.sIn;
    bool inside = y0 + A <= g.h && x0 + A <= g.w;
    // The AVX2 gather reads 8 floats per patch row: 8 - A past it, which
    // stay inside the input's row when the patch ends 8 - A columns early.
    bool wide = Simd && g.sIw == 1 && y0 + A <= g.h && x0 + 8 <= g.w;
    for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
      int lanes = static_cast<int>(std::min<int64_t>(kLanes, g.c - c0));
      const float *p0 = in + c0 * g.sIc + y0 * g.sIh + x0 * g.sIw;
#if TANDEM_X86
      if (wide && lanes == kLanes) {
        if constexpr (Simd)
          gatherPatch8<A>(p0, g.sIc, g.sIh, d);
      } else
#endif
          if (inside && lanes == kLanes) {
        for (int l = 0; l < kLanes; ++l)
          for (int r = 0; r < A; ++r)
            for (int s = 0; s < A; ++s)
              d[r][s][l] = p0[l * g.sIc + r * g.sIh + s * g.sIw];
      } else {
        for (int r = 0; r < A; ++r)
          for (int s = 0; s < A; ++s) {
            bool valid = y0 + r < g.h && x0 + s < g.w;
            for (int l = 0; l < kLanes; ++l)
              d[r][s][l] = valid && l < lanes
                               ? p0[l * g.sIc + r * g.sIh + s * g.sIw]
                               : 0.0f;
          }
      }
      // Columns, then rows: t = B^T d, V = t B.
      for (int s = 0; s < A; ++s) {
        if constexpr (M == 4)
          inputRow4(&d[0][s][0], A * kLanes, &t[0][s][0], A * kLanes);
        else
          inputRow2(&d[0][s][0], A * kLanes, &t[0][s][0], A * kLanes);
      }
      for (int r = 0; r < A; ++r) {
        if constexpr (M == 4)
          inputRow4(&t[r][0][0], kLanes, &d[r][0][0], kLanes);
        else
          inputRow2(&t[r][0][0], kLanes, &d[r][0][0], kLanes);
      }
      float *out = v + i * g.c + c0;
      for (int r = 0; r < A; ++r)
        for (int s = 0; s < A; ++s) {
          float *o = out + (r * A + s) * ldv;
#if TANDEM_X86
          if constexpr (Simd)
            if (lanes == kLanes) {
              copyLanes8(o, d[r][s]);
              continue;
            }
#endif
          if (lanes == kLanes)
            std::memcpy(o, d[r][s], sizeof(float) * kLanes);
          else
            for (int l = 0; l < lanes; ++l)
              o[l] = d[r][s][l];
        }
    }
  }
}

/// The outputs of the `count` tiles from `t0` from M[xi][tile][channel]: 8
/// output channels at a time, plus the bias already there, the epilogue,
/// and only the outputs inside the image stored. `mm` is tile t0's row of
/// plane 0; planes are ldTiles tiles apart.
template <int M, bool Simd>
TANDEM_INLINE void transformOutput(const Wino &g, int64_t t0, int64_t count,
                                   const float *mm, int64_t ldTiles) {
  constexpr int A = M + 2;
  alignas(64) float x[A][A][kLanes], t[M][A][kLanes], y[M][M][kLanes];
  int64_t ldm = ldTiles * g.f;
  for (int64_t i = 0; i < count; ++i) {
    int64_t image, y0, x0;
    tileOrigin(g, t0 + i, image, y0, x0);
    float *out = g.output + image * g.sOn;
    int rows = static_cast<int>(std::min<int64_t>(M, g.oh - y0));
    int cols = static_cast<int>(std::min<int64_t>(M, g.ow - x0));
    for (int64_t f0 = 0; f0 < g.f; f0 += kLanes) {
      int lanes = static_cast<int>(std::min<int64_t>(kLanes, g.f - f0));
      const float *src = mm + i * g.f + f0;
      for (int r = 0; r < A; ++r)
        for (int s = 0; s < A; ++s) {
          const float *p = src + (r * A + s) * ldm;
#if TANDEM_X86
          if constexpr (Simd)
            if (lanes == kLanes) {
              copyLanes8(x[r][s], p);
              continue;
            }
#endif
          if (lanes == kLanes)
            std::memcpy(x[r][s], p, sizeof(float) * kLanes);
          else
            for (int l = 0; l < kLanes; ++l)
              x[r][s][l] = l < lanes ? p[l] : 0.0f;
        }
      for (int s = 0; s < A; ++s) {
        if constexpr (M == 4)
          outputRow4(&x[0][s][0], A * kLanes, &t[0][s][0], A * kLanes);
        else
          outputRow2(&x[0][s][0], A * kLanes, &t[0][s][0], A * kLanes);
      }
      for (int r = 0; r < M; ++r) {
        if constexpr (M == 4)
          outputRow4(&t[r][0][0], kLanes, &y[r][0][0], kLanes);
        else
          outputRow2(&t[r][0][0], kLanes, &y[r][0][0], kLanes);
      }
#if TANDEM_X86
      if constexpr (Simd)
        if (lanes == kLanes && rows == M && cols == M) {
          scatterTile8<M>(y, out + f0 * g.sOf + y0 * g.ow + x0, g.sOf, g.ow,
                          g.accumulate, g.epilogue);
          continue;
        }
#endif
      for (int l = 0; l < lanes; ++l) {
        float *plane = out + (f0 + l) * g.sOf + y0 * g.ow + x0;
        for (int r = 0; r < rows; ++r)
          for (int s = 0; s < cols; ++s) {
            float v = y[r][s][l];
            float *o = plane + r * g.ow + s;
            if (g.accumulate)
              v += *o;
            *o = tandem_internal::applyEpilogue(v, g.epilogue);
          }
      }
    }
  }
}

template <int M, bool Simd>
TANDEM_INLINE void runBlock(const Wino &g, int64_t block) {
  constexpr int A = M + 2;
  int64_t t0 = block * g.blockTiles;
  int64_t count = std::min(g.blockTiles, g.tiles - t0);
  float *v = blockScratch.get(size_t(A * A) * count * (g.c + g.f));
  if (!v) {
    tandem_internal_kernel_fail(g.failure,
                                "out of memory for the Winograd tiles");
    return;
  }
  float *mm = v + size_t(A * A) * count * g.c;
  transformInput<M, Simd>(g, t0, count, v, count);
  // M[xi] (count x F) = V[xi] (count x C) * U[xi] (C x F), U constant.
  tandem_internal_sgemm_f32_into(
      g.isa, g.ctx, A * A, count, g.f, g.c, v, count * g.c, g.c, 1, g.u,
      g.c * g.f, g.f, 1, mm, count * g.f, g.f, 1,
      TANDEM_SGEMM_CONSTANT_B | kSgemmNoGemv, g.failure);
  if (g.failure->failed.load(std::memory_order_relaxed))
    return;
  transformOutput<M, Simd>(g, t0, count, mm, count);
}

/// The phased form (few blocks, several threads): all tiles are one block
/// in g.phaseV / g.phaseM, and each phase is spread over the pool by
/// itself: the input transform by tiles, the alpha^2 GEMMs one per task
/// (so U, which streams from memory, is read once in all), the output
/// transform by tiles.
enum class Phase { Input, Gemms, Output };

template <int M, bool Simd>
TANDEM_INLINE void runPhase(const Wino &g, Phase phase, int64_t begin,
                            int64_t end) {
  switch (phase) {
  case Phase::Input:
    transformInput<M, Simd>(g, begin, end - begin, g.phaseV + begin * g.c,
                            g.tiles);
    return;
  case Phase::Output:
    transformOutput<M, Simd>(g, begin, end - begin, g.phaseM + begin * g.f,
                             g.tiles);
    return;
  case Phase::Gemms:
    for (int64_t xi = begin; xi < end; ++xi)
      tandem_internal_sgemm_f32_into(
          g.isa, g.ctx, 1, g.tiles, g.f, g.c, g.phaseV + xi * g.tiles * g.c, 0,
          g.c, 1, g.u + xi * g.c * g.f, 0, g.f, 1,
          g.phaseM + xi * g.tiles * g.f, 0, g.f, 1,
          TANDEM_SGEMM_CONSTANT_B | kSgemmNoGemv, g.failure);
    return;
  }
}

/// Blocks [begin, end) with the transforms compiled for the caller's ISA.
using BlockRange = void (*)(const Wino &g, int64_t begin, int64_t end);
/// One phase's [begin, end) of the phased form, likewise.
using PhaseRange = void (*)(const Wino &g, Phase phase, int64_t begin,
                            int64_t end);

template <int M>
void blocksPortable(const Wino &g, int64_t begin, int64_t end) {
  for (int64_t b = begin; b < end; ++b)
    runBlock<M, false>(g, b);
}

template <int M>
void phasePortable(const Wino &g, Phase phase, int64_t begin, int64_t end) {
  runPhase<M, false>(g, phase, begin, end);
}

#if TANDEM_X86
/// The AVX2 transforms, for the avx2 and the avx512 families (the lanes are
/// 8 channels either way; the GEMMs run the family's micro-kernel).
template <int M>
__attribute__((target("avx2,fma"))) void
blocksAvx2(const Wino &g, int64_t begin, int64_t end) {
  for (int64_t b = begin; b < end; ++b)
    runBlock<M, true>(g, b);
}

template <int M>
__attribute__((target("avx2,fma"))) void phaseAvx2(const Wino &g, Phase phase,
                                                   int64_t begin, int64_t end) {
  runPhase<M, true>(g, phase, begin, end);
}
#endif

template <int M> BlockRange blocksFor(const char *isaName) {
#if TANDEM_X86
  if (std::strcmp(isaName, "portable") != 0)
    return blocksAvx2<M>;
#endif
  return blocksPortable<M>;
}

template <int M> PhaseRange phasesFor(const char *isaName) {
#if TANDEM_X86
  if (std::strcmp(isaName, "portable") != 0)
    return phaseAvx2<M>;
#endif
  return phasePortable<M>;
}

struct Task {
  const Wino *g;
  BlockRange range;
  PhaseRange phaseRange;
  Phase phase;
};

void blockTasks(void *env, int64_t begin, int64_t end) {
  const Task &t = *static_cast<const Task *>(env);
  t.range(*t.g, begin, end);
}

void phaseTasks(void *env, int64_t begin, int64_t end) {
  const Task &t = *static_cast<const Task *>(env);
  t.phaseRange(*t.g, t.phase, begin, end);
}

} // namespace

bool tandem_internal_winograd_conv2d_f32(
    const char *isaName, int tile, const tandem_exec_ctx_t *ctx, int64_t n,
    int64_t c, int64_t h, int64_t w, const float *input, int64_t sIn,
    int64_t sIc, int64_t sIh, int64_t sIw, int64_t f, const float *filter,
    float *output, int64_t sOn, int64_t sOf, int64_t oh, int64_t ow,
    int32_t flags) {
  const char *family = isaName ? isaName : tandem_sgemm_f32_isa();
  int64_t mr, nr;
  if (!tandem_internal_sgemm_tile(family, &mr, &nr))
    return false;
  auto tilesOf = [&](int m) {
    return n * ((oh + m - 1) / m) * ((ow + m - 1) / m);
  };
  // By cost: F(4x4) when its tiles fill two micro-kernel row panels per
  // image set, else F(2x2), else the im2col GEMM.
  if (tile == 0)
    tile = tilesOf(4) >= 2 * mr ? 4 : tilesOf(2) >= 2 * mr ? 2 : 0;
  if (tile != 2 && tile != 4)
    return false;
  if (n <= 0 || c <= 0 || f <= 0 || oh <= 0 || ow <= 0)
    return false;

  Wino g{};
  g.isa = isaName;
  g.ctx = ctx;
  g.m = tile;
  g.a = tile + 2;
  g.c = c;
  g.h = h;
  g.w = w;
  g.input = input;
  g.sIn = sIn;
  g.sIc = sIc;
  g.sIh = sIh;
  g.sIw = sIw;
  g.f = f;
  g.output = output;
  g.sOn = sOn;
  g.sOf = sOf;
  g.oh = oh;
  g.ow = ow;
  g.tilesX = (ow + tile - 1) / tile;
  g.tilesPerImage = g.tilesX * ((oh + tile - 1) / tile);
  g.tiles = n * g.tilesPerImage;
  g.accumulate = flags & TANDEM_CONV2D_ACCUMULATE;
  g.epilogue = tandem_internal::epilogueOf(flags);
  tandem_internal_kernel_failure failure;
  g.failure = &failure;

  // The transformed filter: the compiler's (a constant it transformed), or
  // made here and cached per instance for constant weights.
  int64_t a2 = int64_t(g.a) * g.a;
  size_t uFloats = size_t(tandem_winograd_filter_floats(tile, f, c));
  if (flags & (TANDEM_CONV2D_WINOGRAD_F2 | TANDEM_CONV2D_WINOGRAD_F4))
    g.u = filter;
  auto *cache =
      ctx ? static_cast<tandem_internal_kernel_cache *>(ctx->reserved[0])
          : nullptr;
  if (!g.u && cache && (flags & TANDEM_CONV2D_CONSTANT_FILTER))
    g.u = tandem_internal_kernel_cache_get(
        cache, {filter, f, c * 9, c * 9, 1, 100 + tile, g.a}, uFloats,
        [&](float *out) {
          tandem_winograd_transform_filter(tile, f, c, filter, out);
        });
  if (!g.u) {
    float *u = filterScratch.get(uFloats);
    if (!u) {
      tandem_internal_kernel_fail(&failure,
                                  "out of memory for the Winograd filter");
      tandem_internal_kernel_report(&failure);
      return true;
    }
    tandem_winograd_transform_filter(tile, f, c, filter, u);
    g.u = u;
  }

  // Blocks of whole micro-kernel panels whose V and M fit kBlockBytes.
  int64_t perTile = a2 * (c + f) * int64_t(sizeof(float));
  int64_t blockTiles = std::max<int64_t>(1, kBlockBytes / perTile) / mr * mr;
  g.blockTiles = std::clamp<int64_t>(blockTiles, mr, 32 * mr);
  g.blocks = (g.tiles + g.blockTiles - 1) / g.blockTiles;

  Task task{&g, tile == 4 ? blocksFor<4>(family) : blocksFor<2>(family),
            tile == 4 ? phasesFor<4>(family) : phasesFor<2>(family),
            Phase::Input};
  tandem_thread_pool_t *pool = ctx ? ctx->pool : nullptr;
  int threads = tandem_thread_pool_size(pool);
  // Fewer blocks than two per thread: blocks in parallel would each read
  // all of U (bandwidth the threads share) and balance badly (2 blocks of
  // 28 and 21 tiles), so the phases parallelise instead, if all the tiles'
  // V and M fit a few blocks' worth of memory.
  // Where each thread gets at least one row panel of tiles, though, each
  // runs all three phases on one contiguous range of the tiles (a block of
  // its own, like the block form's): in the phased form, V and M cross
  // between the threads twice a call (each GEMM reads the V every thread
  // transformed, each output transform the M every thread computed), and
  // the next run rewrites lines the other core holds, at 2.2 GB/s where the
  // two vCPUs share no L3 (bench/native/coherence.c): ResNet-18's
  // 128-channel 28x28 and 256-channel 14x14 layers 440-650 us at 2
  // threads, 650-890 us in that placement. Both threads then read all of
  // U, which no call rewrites.
  size_t phasedFloats = size_t(a2) * g.tiles * (c + f);
  bool few = threads > 1 && g.blocks < 2 * threads &&
             phasedFloats * sizeof(float) <= size_t(4 * kBlockBytes);
  if (few && g.tiles >= threads * mr) {
    g.blockTiles = (g.tiles + threads - 1) / threads;
    g.blocks = (g.tiles + g.blockTiles - 1) / g.blockTiles;
    tandem_parallel_for(pool, g.blocks, 1, blockTasks, &task);
  } else if (few) {
    float *v = blockScratch.get(phasedFloats);
    if (!v) {
      tandem_internal_kernel_fail(&failure,
                                  "out of memory for the Winograd tiles");
      tandem_internal_kernel_report(&failure);
      return true;
    }
    g.phaseV = v;
    g.phaseM = v + size_t(a2) * g.tiles * c;
    int64_t tileGrain = std::max<int64_t>(1, g.tiles / (4 * threads));
    task.phase = Phase::Input;
    tandem_parallel_for(pool, g.tiles, tileGrain, phaseTasks, &task);
    task.phase = Phase::Gemms;
    tandem_parallel_for(pool, a2, 1, phaseTasks, &task);
    if (!failure.failed.load(std::memory_order_relaxed)) {
      task.phase = Phase::Output;
      tandem_parallel_for(pool, g.tiles, tileGrain, phaseTasks, &task);
    }
  } else if (g.blocks >= threads) {
    tandem_parallel_for(pool, g.blocks, 1, blockTasks, &task);
  } else {
    task.range(g, 0, g.blocks); // the GEMMs use the pool instead
  }
  tandem_internal_kernel_report(&failure);
  return true;
}
