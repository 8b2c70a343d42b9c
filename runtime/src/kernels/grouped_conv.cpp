//===- grouped_conv.cpp - f32 grouped convolution called by generated code ===//
//
// tandem_grouped_conv2d_f32: a convolution whose channels fall into groups
// (ResNeXt, RegNet: groups of 4 to 64 channels), in one call for all of
// them.
//
// Each group as an im2col GEMM (tandem_conv2d_f32 once per group) leaves
// little for the GEMM to work with where groups are narrow: 8 output
// channels fill part of one 14-row AVX-512 tile, and packing each group's
// im2col panels (K = 72 rows for 8 channels of 3x3) costs about as much as
// its FMAs. Instead, each task (an image, a group, a band of output rows)
// copies the band's input rows of the group into a small thread-local
// buffer once: zero-bordered (implicit padding), and for stride 2 split into
// even and odd columns, so that every tap of the window is a unit-stride
// vector load. Register blocks of output channels x output vectors then run
// straight over it (grouped_conv_kernel.h): each loaded input vector feeds
// up to 8 FMAs, each weight one broadcast per vector block.
//
// Wide groups (large C * F) keep the per-group GEMM, whose blocking suits
// them, each group's input padded into a small buffer first where the
// padding is implicit; so does the portable build.
//
//===----------------------------------------------------------------------===//

#include "kernels/activation.h"
#include "kernels/grouped_conv_internal.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "kernels/partial_store.h"
#include "kernels/scratch.h"
#include "tandem/runtime.h"
#include "thread_pool_internal.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TANDEM_X86 1
#endif

namespace tandem_internal {

/// One output vector of a band: kLanes (or `lanes`, at a row's end)
/// consecutive pixels of one output row; `in` is its offset in the staged
/// rows (tap (0, 0) of channel 0), `out` its offset in an output plane.
struct GroupedSlot {
  int64_t in, out, lanes;
};

/// What the register blocks of one task share.
struct GroupedBlock {
  const float *in;      // the staged band of the group's input
  int64_t c, kh, kw, f; // per group
  int64_t cStride;      // floats from one staged channel to the next
  int64_t iStride;      // from one window row to the next
  const int64_t *jOff;  // [kw]: window column j's offset
  int64_t sOf;          // output channel stride
  bool accumulate;      // start from the output's value
  Epilogue epilogue;    // applied in registers if short
};

} // namespace tandem_internal

namespace {

using tandem_internal::Epilogue;
using tandem_internal::GroupedBlock;
using tandem_internal::GroupedSlot;

/// Plain C, one float a "vector".
namespace portable {
#define TANDEM_GC_TARGET
struct Vec {
  using V = float;
  static constexpr int kLanes = 1, kFB = 4, kNV = 4;
  static V zero() { return 0.0f; }
  static V set1(float x) { return x; }
  static V add(V a, V b) { return a + b; }
  static V load(const float *p) { return *p; }
  static V loadOut(const float *p, int64_t n) { return n > 0 ? *p : 0.0f; }
  static V bcast(const float *p) { return *p; }
  static V fma(V a, V b, V c) { return __builtin_fmaf(a, b, c); }
  static void store(float *p, int64_t n, V v) {
    if (n > 0)
      *p = v;
  }
  static V shortEpilogue(V v, Epilogue e) {
    return tandem_internal::isLongEpilogue(e)
               ? v
               : tandem_internal::applyEpilogue(v, e);
  }
  static V longEpilogue(V v, Epilogue e) {
    return tandem_internal::applyEpilogue(v, e);
  }
  static void evenOdd(const float *src, float *even, float *odd) {
    *even = src[0];
    *odd = src[1];
  }
  /// Lanes [a, b) of p (those clamped to [0, kLanes)), zero elsewhere.
  static V loadRange(const float *p, int64_t a, int64_t b) {
    return a <= 0 && b > 0 ? *p : 0.0f;
  }
  static void storeAll(float *p, V v) { *p = v; }
};
#include "kernels/grouped_conv_kernel.h"
#undef TANDEM_GC_TARGET
} // namespace portable

#if TANDEM_X86
/// AVX2 + FMA: 8-float vectors, blocks of 4 channels x 2 vectors (8
/// accumulators, 2 inputs and a broadcast of the 16 registers).
namespace avx2 {
#define TANDEM_GC_TARGET __attribute__((target("avx2,fma")))
struct Vec {
  using V = __m256;
  static constexpr int kLanes = 8, kFB = 4, kNV = 3;
  TANDEM_GC_TARGET static V zero() { return _mm256_setzero_ps(); }
  TANDEM_GC_TARGET static V set1(float x) { return _mm256_set1_ps(x); }
  TANDEM_GC_TARGET static V add(V a, V b) { return _mm256_add_ps(a, b); }
  TANDEM_GC_TARGET static V load(const float *p) { return _mm256_loadu_ps(p); }
  TANDEM_GC_TARGET static V loadOut(const float *p, int64_t n) {
    return n >= 8 ? _mm256_loadu_ps(p)
                  : _mm256_maskload_ps(p, tandem_internal::firstLanes(n));
  }
  TANDEM_GC_TARGET static V bcast(const float *p) {
    return _mm256_broadcast_ss(p);
  }
  TANDEM_GC_TARGET static V fma(V a, V b, V c) {
    return _mm256_fmadd_ps(a, b, c);
  }
  TANDEM_GC_TARGET static void store(float *p, int64_t n, V v) {
    tandem_internal::storeFirstAvx2(p, v, n);
  }
  TANDEM_GC_TARGET static V shortEpilogue(V v, Epilogue e) {
    return tandem_internal::isLongEpilogue(e)
               ? v
               : tandem_internal::epilogue8(v, e);
  }
  TANDEM_GC_TARGET static V longEpilogue(V v, Epilogue e) {
    return tandem_internal::epilogue8(v, e);
  }
  TANDEM_GC_TARGET static void evenOdd(const float *src, float *even,
                                       float *odd) {
    __m256 a = _mm256_loadu_ps(src), b = _mm256_loadu_ps(src + 8);
    // [a0 a2 b0 b2 | a4 a6 b4 b6], then 64-bit lanes 0 2 1 3.
    __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    _mm256_storeu_ps(even, _mm256_castpd_ps(_mm256_permute4x64_pd(
                               _mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
    _mm256_storeu_ps(odd, _mm256_castpd_ps(_mm256_permute4x64_pd(
                              _mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0))));
  }
  TANDEM_GC_TARGET static V loadRange(const float *p, int64_t a, int64_t b) {
    __m256i m = _mm256_andnot_si256(tandem_internal::firstLanes(a),
                                    tandem_internal::firstLanes(b));
    return _mm256_maskload_ps(p, m);
  }
  TANDEM_GC_TARGET static void storeAll(float *p, V v) {
    _mm256_storeu_ps(p, v);
  }
};
#include "kernels/grouped_conv_kernel.h"
#undef TANDEM_GC_TARGET
} // namespace avx2

/// AVX-512: 16-float vectors, blocks of 8 channels x 3 vectors (24
/// accumulators and 3 inputs of the 32 registers; the weights are FMA
/// broadcast operands).
// GCC 12 reports the _mm512_undefined_ps() inside its own _mm512_max_ps and
// _mm512_min_ps (ReLU, ReLU6) as maybe uninitialised once they are inlined
// into these blocks: a false positive, silenced for this namespace only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
namespace avx512 {
#define TANDEM_GC_TARGET __attribute__((target("avx512f,avx2,fma")))
struct Vec {
  using V = __m512;
  static constexpr int kLanes = 16, kFB = 8, kNV = 3;
  TANDEM_GC_TARGET static __mmask16 mask(int64_t n) {
    return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
  }
  TANDEM_GC_TARGET static V zero() { return _mm512_setzero_ps(); }
  TANDEM_GC_TARGET static V set1(float x) { return _mm512_set1_ps(x); }
  TANDEM_GC_TARGET static V add(V a, V b) { return _mm512_add_ps(a, b); }
  TANDEM_GC_TARGET static V load(const float *p) { return _mm512_loadu_ps(p); }
  TANDEM_GC_TARGET static V loadOut(const float *p, int64_t n) {
    return _mm512_maskz_loadu_ps(mask(n), p);
  }
  TANDEM_GC_TARGET static V bcast(const float *p) { return _mm512_set1_ps(*p); }
  TANDEM_GC_TARGET static V fma(V a, V b, V c) {
    return _mm512_fmadd_ps(a, b, c);
  }
  TANDEM_GC_TARGET static void store(float *p, int64_t n, V v) {
    _mm512_mask_storeu_ps(p, mask(n), v);
  }
  TANDEM_GC_TARGET static V shortEpilogue(V v, Epilogue e) {
    return tandem_internal::shortEpilogue16(v, e);
  }
  TANDEM_GC_TARGET static V longEpilogue(V v, Epilogue e) {
    return tandem_internal::epilogue16(v, e);
  }
  TANDEM_GC_TARGET static void evenOdd(const float *src, float *even,
                                       float *odd) {
    __m512 a = _mm512_loadu_ps(src), b = _mm512_loadu_ps(src + 16);
    __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                                   24, 26, 28, 30);
    __m512i io = _mm512_add_epi32(ie, _mm512_set1_epi32(1));
    _mm512_storeu_ps(even, _mm512_permutex2var_ps(a, ie, b));
    _mm512_storeu_ps(odd, _mm512_permutex2var_ps(a, io, b));
  }
  TANDEM_GC_TARGET static V loadRange(const float *p, int64_t a, int64_t b) {
    a = std::clamp<int64_t>(a, 0, 16), b = std::clamp<int64_t>(b, 0, 16);
    __mmask16 m = __mmask16(((1u << b) - 1) & ~((1u << a) - 1));
    return _mm512_maskz_loadu_ps(m, p);
  }
  TANDEM_GC_TARGET static void storeAll(float *p, V v) {
    _mm512_storeu_ps(p, v);
  }
};
#include "kernels/grouped_conv_kernel.h"
#undef TANDEM_GC_TARGET
} // namespace avx512

/// 8-float vectors with AVX-512VL (32 registers, masked stores): the blocks
/// of avx512 for rows of at most 8 pixels, on cores that split 512-bit
/// FMAs (Zen 4) twice the FMAs per lane that a 7-pixel row fills.
namespace avx512ymm {
#define TANDEM_GC_TARGET __attribute__((target("avx512f,avx512vl,avx2,fma")))
struct Vec : avx2::Vec {
  static constexpr int kFB = 8, kNV = 3;
  TANDEM_GC_TARGET static __mmask8 mask(int64_t n) {
    return n >= 8 ? __mmask8(0xFF) : __mmask8((1u << n) - 1);
  }
  TANDEM_GC_TARGET static V loadOut(const float *p, int64_t n) {
    return _mm256_maskz_loadu_ps(mask(n), p);
  }
  TANDEM_GC_TARGET static void store(float *p, int64_t n, V v) {
    _mm256_mask_storeu_ps(p, mask(n), v);
  }
};
#include "kernels/grouped_conv_kernel.h"
#undef TANDEM_GC_TARGET
} // namespace avx512ymm
#pragma GCC diagnostic pop
#endif

/// One instruction set's entry points into its blocks.
struct GcIsa {
  int64_t lanes;
  void (*run)(const GroupedBlock &, const float *, const float *, float *,
              const GroupedSlot *, int64_t);
  void (*evenOdd)(const float *, int64_t, float *, float *);
  void (*longEpilogue)(float *, int64_t, int64_t, int64_t, Epilogue);
  void (*stageRows)(const float *, int64_t, int64_t, int64_t, int64_t, int64_t,
                    int64_t, float *, int64_t, int64_t);
  void (*stageRowsEvenOdd)(const float *, int64_t, int64_t, int64_t, int64_t,
                           int64_t, int64_t, float *, float *, int64_t,
                           int64_t);
};

constexpr GcIsa kPortable = {1,
                             portable::gcRun,
                             portable::gcEvenOdd,
                             portable::gcLongEpilogue,
                             portable::gcStageRows,
                             portable::gcStageRowsEvenOdd};
#if TANDEM_X86
constexpr GcIsa kAvx2 = {8,
                         avx2::gcRun,
                         avx2::gcEvenOdd,
                         avx2::gcLongEpilogue,
                         avx2::gcStageRows,
                         avx2::gcStageRowsEvenOdd};
constexpr GcIsa kAvx512 = {16,
                           avx512::gcRun,
                           avx512::gcEvenOdd,
                           avx512::gcLongEpilogue,
                           avx512::gcStageRows,
                           avx512::gcStageRowsEvenOdd};
constexpr GcIsa kAvx512Ymm = {8,
                              avx512ymm::gcRun,
                              avx512ymm::gcEvenOdd,
                              avx512ymm::gcLongEpilogue,
                              avx512ymm::gcStageRows,
                              avx512ymm::gcStageRowsEvenOdd};
#endif

/// The instruction sets a call may use: its vectors, and for rows of at
/// most 8 pixels (7x7 planes) `narrow`'s 8-lane ones (on cores that split
/// a 512-bit FMA in two, such as Zen 4, at the same FMA rate per lane).
struct GcFamily {
  const GcIsa *wide, *narrow;
  bool direct; // false: each group as tandem_conv2d_f32's GEMM
  /// Named by the tests: the direct blocks whatever the groups' size.
  bool forced = false;
};

/// The family called `name` ("avx512", "avx2", "portable" or "gemm"), or
/// a family with no `wide` if this CPU cannot run it.
GcFamily familyByName(const char *name) {
  if (std::strcmp(name, "portable") == 0)
    return {&kPortable, &kPortable, true};
  if (std::strcmp(name, "gemm") == 0)
    return {&kPortable, &kPortable, false};
#if TANDEM_X86
  __builtin_cpu_init();
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (std::strcmp(name, "avx512") == 0 && avx2 &&
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
    return {&kAvx512, &kAvx512Ymm, true};
  if (std::strcmp(name, "avx2") == 0 && avx2)
    return {&kAvx2, &kAvx2, true};
#endif
  return {nullptr, nullptr, false};
}

/// The fastest family within TANDEM_CPU_KERNELS (as for tandem_sgemm_f32);
/// the portable build runs groups as GEMMs where it can.
GcFamily selectFamily() {
  const char *force = std::getenv("TANDEM_CPU_KERNELS");
  bool any = !force || !*force;
  for (const char *name : {"avx512", "avx2"})
    if (any || std::strcmp(force, name) == 0)
      if (GcFamily family = familyByName(name); family.wide)
        return family;
  return familyByName("gemm");
}

GcFamily defaultFamily() {
  static const GcFamily chosen = selectFamily();
  return chosen;
}

/// One call's geometry, shared by its tasks.
struct GroupedConv {
  const GcIsa *isa;
  int64_t n, groups, c, h, w;
  const float *input;
  int64_t sIn, sIg, sIc, sIh, sIw;
  int64_t f, kh, kw;
  const float *filter; // [groups][f][c][kh][kw], groups sFg apart
  int64_t sFg;
  const float *bias; // groups * f, or null
  /// Every group's filter as [c][i][j][f] (transposeFilter), groups one
  /// after another: a constant filter's, from the instance's kernel cache;
  /// else null, and each thread transposes the groups it runs.
  const float *transposed;
  float *output;
  int64_t sOn, sOg, sOf; // rows dense: channel planes of oh * ow
  int64_t oh, ow, strideH, strideW, dilationH, dilationW, padTop, padLeft;
  bool accumulate;
  Epilogue epilogue;
  /// Staged row length (a multiple of the lanes) and rows a band.
  int64_t rowFloats, bandRows, bands;
  /// The call, so that a thread's transposed filter is not taken for
  /// another call's.
  uint64_t call;
  tandem_internal_kernel_failure *failure;
};

std::atomic<uint64_t> callCounter{0};

/// A thread's buffers: the staged input band, a padded row before its
/// even/odd split, the group's transposed filter (for call `call`, group
/// `group`), and the band's slots and column offsets.
struct GcScratch {
  tandem_internal::Scratch staged, row, filter;
  uint64_t call = 0;
  int64_t group = -1;
  std::vector<GroupedSlot> slots;
  std::vector<int64_t> jOff;
};
thread_local GcScratch gcScratch;

/// Padded input row `r` (image row r - padTop) of `plane` (a channel's)
/// into `dst`: `n` floats (whole vectors) of padded columns, zero outside
/// the image.
void padRow(const GroupedConv &g, const float *plane, int64_t r, float *dst,
            int64_t n) {
  if (g.sIw == 1) {
    g.isa->stageRows(plane, g.sIh, r - g.padTop, 1, g.h, g.padLeft,
                     g.padLeft + g.w, dst, 0, n);
    return;
  }
  int64_t row = r - g.padTop;
  const float *src = plane + row * g.sIh;
  for (int64_t x = 0; x < n; ++x) {
    int64_t col = x - g.padLeft;
    dst[x] = row >= 0 && row < g.h && col >= 0 && col < g.w ? src[col * g.sIw]
                                                            : 0.0f;
  }
}

/// Group `grp`'s filter [f][c][kh][kw] as [c][kh][kw][f] at `out`, so that
/// a tap's weights for consecutive output channels are consecutive floats.
void transposeFilter(const GroupedConv &g, int64_t grp, float *out) {
  const float *f = g.filter + grp * g.sFg;
  int64_t kk = g.c * g.kh * g.kw;
  for (int64_t o = 0; o < g.f; ++o)
    for (int64_t t = 0; t < kk; ++t)
      out[t * g.f + o] = f[o * kk + t];
}

/// The kernel cache role of the transposed filters (sgemm.cpp has 0-3,
/// winograd.cpp 100 + tile).
constexpr int32_t kRoleGroupedFilter = 200;

/// One task: image b, group grp, output rows [y0, y1).
void runTask(const GroupedConv &g, GcScratch &s, int64_t b, int64_t grp,
             int64_t y0, int64_t y1) {
  int64_t L = g.rowFloats, sw = g.strideW;
  int64_t rows = (y1 - y0 - 1) * g.strideH + (g.kh - 1) * g.dilationH + 1;
  int64_t cStride = rows * sw * L;
  float *staged = s.staged.get(g.c * cStride);
  float *padded = sw > 1 ? s.row.get(sw * L) : nullptr;
  int64_t kk = g.c * g.kh * g.kw;
  const float *wt = g.transposed ? g.transposed + grp * kk * g.f : nullptr;
  float *own = wt ? nullptr : s.filter.get(kk * g.f);
  if (!staged || (sw > 1 && !padded) || (!wt && !own)) {
    tandem_internal_kernel_fail(g.failure,
                                "grouped conv2d: out of memory for staging");
    return;
  }
  // Without the cache's copy, the group's filter transposed once per
  // thread, call and group.
  if (own) {
    if (s.call != g.call || s.group != grp) {
      transposeFilter(g, grp, own);
      s.call = g.call, s.group = grp;
    }
    wt = own;
  }
  // The band's input rows of the group, each as sw phase rows of L floats
  // (phase p: padded columns x * sw + p).
  const float *in = g.input + b * g.sIn + grp * g.sIg;
  for (int64_t ch = 0; ch < g.c; ++ch) {
    if (sw == 1 && g.sIw == 1) {
      // All of the channel's rows in one call.
      g.isa->stageRows(in + ch * g.sIc, g.sIh, y0 * g.strideH - g.padTop, rows,
                       g.h, g.padLeft, g.padLeft + g.w, staged + ch * cStride,
                       L, L);
      continue;
    }
    if (sw == 2 && g.sIw == 1) {
      g.isa->stageRowsEvenOdd(in + ch * g.sIc, g.sIh, y0 * g.strideH - g.padTop,
                              rows, g.h, g.padLeft, g.padLeft + g.w, padded,
                              staged + ch * cStride, 2 * L, L);
      continue;
    }
    for (int64_t r = 0; r < rows; ++r) {
      float *dst = staged + ch * cStride + r * sw * L;
      int64_t padRowIndex = y0 * g.strideH + r;
      if (sw == 1) {
        padRow(g, in + ch * g.sIc, padRowIndex, dst, L);
        continue;
      }
      padRow(g, in + ch * g.sIc, padRowIndex, padded, sw * L);
      if (sw == 2) {
        g.isa->evenOdd(padded, 2 * L, dst, dst + L);
        continue;
      }
      for (int64_t p = 0; p < sw; ++p)
        for (int64_t x = 0; x < L; ++x)
          dst[p * L + x] = padded[x * sw + p];
    }
  }
  // The band's column offsets and slots (vectors that keep their capacity
  // from task to task; out of memory is the call's failure, not a throw out
  // of a pool worker).
  try {
    s.jOff.resize(g.kw);
    s.slots.resize(
        size_t((y1 - y0) * ((g.ow + g.isa->lanes - 1) / g.isa->lanes)));
  } catch (const std::bad_alloc &) {
    tandem_internal_kernel_fail(g.failure,
                                "grouped conv2d: out of memory for staging");
    return;
  }
  for (int64_t j = 0; j < g.kw; ++j) {
    int64_t col = j * g.dilationW;
    s.jOff[j] = (col % sw) * L + col / sw;
  }
  int64_t lanes = g.isa->lanes, slot = 0;
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t x = 0; x < g.ow; x += lanes)
      s.slots[size_t(slot++)] = {(y - y0) * g.strideH * sw * L + x,
                                 y * g.ow + x, std::min(lanes, g.ow - x)};
  GroupedBlock blk{staged,
                   g.c,
                   g.kh,
                   g.kw,
                   g.f,
                   cStride,
                   g.dilationH * sw * L,
                   s.jOff.data(),
                   g.sOf,
                   g.accumulate,
                   g.epilogue};
  float *out = g.output + b * g.sOn + grp * g.sOg;
  g.isa->run(blk, wt, g.bias ? g.bias + grp * g.f : nullptr, out,
             s.slots.data(), int64_t(s.slots.size()));
  if (tandem_internal::isLongEpilogue(g.epilogue))
    for (int64_t o = 0; o < g.f; ++o)
      g.isa->longEpilogue(out + o * g.sOf + y0 * g.ow, 0, 1, (y1 - y0) * g.ow,
                          g.epilogue);
}

void gcTasks(void *env, int64_t begin, int64_t end) {
  const GroupedConv &g = *static_cast<const GroupedConv *>(env);
  GcScratch &s = gcScratch;
  for (int64_t t = begin; t < end; ++t) {
    if (g.failure->failed.load(std::memory_order_relaxed))
      return;
    int64_t band = t % g.bands, grp = t / g.bands % g.groups,
            b = t / (g.bands * g.groups);
    int64_t y0 = band * g.bandRows;
    runTask(g, s, b, grp, y0, std::min(g.oh, y0 + g.bandRows));
  }
}

/// Floats of staged input a task aims for: with the group's transposed
/// filter and the band's outputs, about what an L1 data cache holds.
constexpr int64_t kStageFloats = 16384;

/// Whether the direct blocks suit groups of c -> f channels with a kh x kw
/// window on `isa`: where the groups are narrow. Per call on Zen 4 against
/// the per-group GEMM (3x3, 1 thread): with 16-lane blocks, c = f = 8 at
/// 14x14 0.36x the time, 16 0.56x, 24 0.61x, 32 at 7x7 1.05x, 56 and 64
/// at 7x7 1.2-1.4x; with the AVX2 blocks (and the AVX2 GEMM), 8 at 14x14
/// 0.78x, 16 0.93x, 24 1.11x, 32 at 7x7 1.27x. Wide groups keep the GEMM.
bool directSuits(const GcIsa &isa, int64_t c, int64_t f, int64_t kh,
                 int64_t kw) {
  int64_t widest = isa.lanes >= 16 ? 24 * 24 : 16 * 16;
  return c * f <= widest && c * kh * kw * f <= 16384;
}

/// Each group as its own im2col GEMM (tandem_conv2d_bias_f32, on the
/// caller's pool). With implicit padding, each group's input is first
/// copied into a zero-bordered buffer of the calling thread (n images of
/// its c channels, exactly the rows and columns the windows read): one
/// group's worth in cache at a time, where the compiler used to write a
/// padded copy of the whole tensor to memory.
void gemmPerGroup(const tandem_exec_ctx_t *ctx, int64_t n, int64_t groups,
                  int64_t c, int64_t h, int64_t w, const float *input,
                  int64_t sIn, int64_t sIg, int64_t sIc, int64_t sIh,
                  int64_t sIw, int64_t f, int64_t kh, int64_t kw,
                  const float *filter, int64_t sFg, const float *bias,
                  float *output, int64_t sOn, int64_t sOg, int64_t sOf,
                  int64_t oh, int64_t ow, int64_t strideH, int64_t strideW,
                  int64_t dilationH, int64_t dilationW, int64_t padTop,
                  int64_t padLeft, int32_t flags,
                  tandem_internal_kernel_failure *failure) {
  bool padded = padTop > 0 || padLeft > 0;
  int64_t padH = (oh - 1) * strideH + (kh - 1) * dilationH + 1;
  int64_t padW = (ow - 1) * strideW + (kw - 1) * dilationW + 1;
  thread_local tandem_internal::Scratch groupInput;
  float *buffer =
      padded ? groupInput.get(size_t(n * c * padH * padW)) : nullptr;
  if (padded && !buffer) {
    tandem_internal_kernel_fail(failure,
                                "grouped conv2d: out of memory for padding");
    return;
  }
  for (int64_t grp = 0; grp < groups; ++grp) {
    const float *in = input + grp * sIg;
    int64_t inN = sIn, inC = sIc, inH = sIh, inW = sIw, inRows = h, inCols = w;
    if (padded) {
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t y = 0; y < padH; ++y) {
            float *dst = buffer + ((b * c + ch) * padH + y) * padW;
            int64_t row = y - padTop;
            // Columns [lo, hi) come from the image, the rest are zeros.
            int64_t lo = std::min(padLeft, padW);
            int64_t hi = row >= 0 && row < h
                             ? std::clamp<int64_t>(padLeft + w, lo, padW)
                             : lo;
            std::fill(dst, dst + lo, 0.0f);
            const float *src = in + b * sIn + ch * sIc + row * sIh;
            if (sIw == 1 && hi > lo)
              std::memcpy(dst + lo, src + (lo - padLeft),
                          size_t(hi - lo) * sizeof(float));
            else
              for (int64_t x = lo; x < hi; ++x)
                dst[x] = src[(x - padLeft) * sIw];
            std::fill(dst + hi, dst + padW, 0.0f);
          }
      in = buffer;
      inN = c * padH * padW, inC = padH * padW, inH = padW, inW = 1;
      inRows = padH, inCols = padW;
    }
    tandem_conv2d_bias_f32(
        ctx, n, c, inRows, inCols, in, inN, inC, inH, inW, f, kh, kw,
        filter + grp * sFg, bias ? bias + grp * f : nullptr, output + grp * sOg,
        sOn, sOf, oh, ow, strideH, strideW, dilationH, dilationW, flags);
  }
}

void groupedConv(GcFamily family, const tandem_exec_ctx_t *ctx, int64_t n,
                 int64_t groups, int64_t c, int64_t h, int64_t w,
                 const float *input, int64_t sIn, int64_t sIg, int64_t sIc,
                 int64_t sIh, int64_t sIw, int64_t f, int64_t kh, int64_t kw,
                 const float *filter, int64_t sFg, const float *bias,
                 float *output, int64_t sOn, int64_t sOg, int64_t sOf,
                 int64_t oh, int64_t ow, int64_t strideH, int64_t strideW,
                 int64_t dilationH, int64_t dilationW, int64_t padTop,
                 int64_t padLeft, int32_t flags) {
  tandem_internal_kernel_failure failure;
  if (n <= 0 || groups <= 0 || f <= 0 || oh <= 0 || ow <= 0)
    return;
  if (c < 0 || kh <= 0 || kw <= 0 || strideH <= 0 || strideW <= 0 ||
      dilationH <= 0 || dilationW <= 0 || padTop < 0 || padLeft < 0) {
    tandem_internal_kernel_fail(&failure, "grouped conv2d: invalid geometry");
    tandem_internal_kernel_report(&failure);
    return;
  }
  // Wide groups (and every group in the portable build) as GEMMs; without
  // input channels the GEMM reads no input, so padding does not matter.
  if (family.direct && !family.forced &&
      !directSuits(*family.wide, c, f, kh, kw))
    family.direct = false;
  if (c == 0)
    family.direct = false;
  if (!family.direct) {
    gemmPerGroup(ctx, n, groups, c, h, w, input, sIn, sIg, sIc, sIh, sIw, f, kh,
                 kw, filter, sFg, bias, output, sOn, sOg, sOf, oh, ow, strideH,
                 strideW, dilationH, dilationW, c == 0 ? 0 : padTop,
                 c == 0 ? 0 : padLeft, flags, &failure);
    tandem_internal_kernel_report(&failure);
    return;
  }
  GroupedConv g{};
  g.isa = ow <= 8 ? family.narrow : family.wide;
  g.n = n, g.groups = groups, g.c = c, g.h = h, g.w = w;
  g.input = input, g.sIn = sIn, g.sIg = sIg, g.sIc = sIc, g.sIh = sIh,
  g.sIw = sIw;
  g.f = f, g.kh = kh, g.kw = kw, g.filter = filter, g.sFg = sFg, g.bias = bias;
  g.output = output, g.sOn = sOn, g.sOg = sOg, g.sOf = sOf;
  g.oh = oh, g.ow = ow, g.strideH = strideH, g.strideW = strideW;
  g.dilationH = dilationH, g.dilationW = dilationW;
  g.padTop = padTop, g.padLeft = padLeft;
  g.accumulate = flags & TANDEM_CONV2D_ACCUMULATE;
  g.epilogue = tandem_internal::epilogueOf(flags);
  g.failure = &failure;
  auto *cache =
      ctx ? static_cast<tandem_internal_kernel_cache *>(ctx->reserved[0])
          : nullptr;
  if (cache && (flags & TANDEM_CONV2D_CONSTANT_FILTER)) {
    int64_t kk = c * kh * kw;
    g.transposed = tandem_internal_kernel_cache_get(
        cache, {filter, groups * f, kk, sFg, kk, kRoleGroupedFilter, 0},
        size_t(groups * kk * f), [&](float *out) {
          for (int64_t grp = 0; grp < groups; ++grp)
            transposeFilter(g, grp, out + grp * kk * f);
        });
  }
  g.call = callCounter.fetch_add(1, std::memory_order_relaxed) + 1;
  // A phase row holds every vector of output columns plus the window's
  // reach past them, in whole vectors (so that the even/odd split and the
  // blocks' loads stay inside it).
  int64_t lanes = g.isa->lanes;
  int64_t reach = (kw - 1) * dilationW / strideW;
  g.rowFloats =
      ((ow + lanes - 1) / lanes * lanes + reach + lanes - 1) / lanes * lanes;
  // Rows a band: its staged input about kStageFloats, then fewer where
  // that leaves a thread without a few tasks.
  int64_t perRow = std::max<int64_t>(1, c * strideW * g.rowFloats);
  int64_t window = (kh - 1) * dilationH + 1;
  int64_t stagedRows = std::max(window, kStageFloats / perRow);
  g.bandRows = std::clamp<int64_t>((stagedRows - window) / strideH + 1, 1, oh);
  int64_t threads = tandem_thread_pool_size(ctx ? ctx->pool : nullptr);
  while (threads > 1 && g.bandRows > 1 &&
         n * groups * ((oh + g.bandRows - 1) / g.bandRows) < 4 * threads)
    g.bandRows = (g.bandRows + 1) / 2;
  g.bands = (oh + g.bandRows - 1) / g.bandRows;
  int64_t tasks = n * groups * g.bands;
  tandem_internal_parallel_chunks(
      ctx ? ctx->pool : nullptr, tasks,
      tandem_internal_balanced_chunk(tasks, threads), gcTasks, &g);
  tandem_internal_kernel_report(&failure);
}

} // namespace

extern "C" TANDEM_API void tandem_grouped_conv2d_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t groups, int64_t c,
    int64_t h, int64_t w, const float *input, int64_t sIn, int64_t sIg,
    int64_t sIc, int64_t sIh, int64_t sIw, int64_t f, int64_t kh, int64_t kw,
    const float *filter, int64_t sFg, const float *bias, float *output,
    int64_t sOn, int64_t sOg, int64_t sOf, int64_t oh, int64_t ow,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int64_t padTop, int64_t padLeft, int32_t flags) {
  groupedConv(defaultFamily(), ctx, n, groups, c, h, w, input, sIn, sIg, sIc,
              sIh, sIw, f, kh, kw, filter, sFg, bias, output, sOn, sOg, sOf, oh,
              ow, strideH, strideW, dilationH, dilationW, padTop, padLeft,
              flags);
}

bool tandem_internal_grouped_conv2d_f32_on(
    const char *family, const tandem_exec_ctx_t *ctx, int64_t n, int64_t groups,
    int64_t c, int64_t h, int64_t w, const float *input, int64_t sIn,
    int64_t sIg, int64_t sIc, int64_t sIh, int64_t sIw, int64_t f, int64_t kh,
    int64_t kw, const float *filter, int64_t sFg, const float *bias,
    float *output, int64_t sOn, int64_t sOg, int64_t sOf, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags) {
  GcFamily chosen = familyByName(family);
  if (!chosen.wide)
    return false;
  chosen.forced = true;
  groupedConv(chosen, ctx, n, groups, c, h, w, input, sIn, sIg, sIc, sIh, sIw,
              f, kh, kw, filter, sFg, bias, output, sOn, sOg, sOf, oh, ow,
              strideH, strideW, dilationH, dilationW, padTop, padLeft, flags);
  return true;
}
