//===- dwconv.cpp - f32 depthwise convolution called by generated code ----===//
//
// tandem_dwconv2d_f32: out[n][c] = (acc ? out : 0) + in[n][c] (*) filter[c]
// per channel plane (NCHW, depthwise multiplier 1), the kernel behind
// MobileNet-style depthwise convolutions.
//
// A depthwise conv has no reduction over channels, so it is bound by memory
// and by how well each plane's window sum vectorises, not by FMA throughput.
// Each (batch, channel) plane is one task on the thread pool. Within a plane,
// an output row is produced in register blocks of 32 (AVX2: 4 ymm
// accumulators) or 8 columns (AVX-512, 3x3 windows: two rows of 16 columns
// that share their input loads): the accumulators take every tap of the window
// (filter value broadcast, input row loaded with the conv's column stride:
// contiguous for stride 1, deinterleaved for stride 2, gathered otherwise)
// before the fused epilogue and a single store. Ragged row ends use masked
// loads and (AVX-512) masked stores or (AVX2) stores in pieces, so no load
// goes past the last input column the conv reads and small planes (7x7,
// 14x14) stay vectorised. The implicitly padded entries' 3x3, 5x5 and 7x7
// planes of stride 1 and 2 have kernels of their own on AVX-512 and AVX2
// (dwconv_kxk.h), and tandem_dwconv2d_pad_packed_f32 writes its planes in
// the packed layout of the 1x1 conv's GEMM that reads them.
//
//===----------------------------------------------------------------------===//

#include "kernels/activation.h"
#include "kernels/dwconv3x3.h"
#include "kernels/dwconv_cvec.h"
#include "kernels/dwconv_internal.h"
#include "kernels/kernel_status.h"
#include "kernels/partial_store.h"
#include "kernels/scratch.h"
#include "kernels/sgemm_internal.h"
#include "tandem/runtime.h"
#include "thread_pool_internal.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TANDEM_X86 1
#endif

namespace {

struct DwConv;
/// Computes one channel plane: `in`, `f` and `out` point at its input,
/// filter and output.
using PlaneKernel = void (*)(const DwConv &g, const float *in, const float *f,
                             float *out);

/// One call's geometry, shared by the plane tasks.
struct DwConv {
  int64_t c;
  const float *input;
  int64_t sIn, sIc, sIh, sIw;
  int64_t kh, kw;
  const float *filter; // dense [c, kh, kw]
  float *output;
  int64_t sOn, sOc, sOh; // output columns are contiguous
  int64_t oh, ow;
  int64_t strideH, strideW, dilationH, dilationW;
  bool accumulate;
  /// The fused epilogue (activation.h: ReLU, ReLU6, HardSwish or SiLU).
  tandem_internal::Epilogue epilogue = tandem_internal::kNoEpilogue;
  const float *bias; // per channel, or nullptr
  PlaneKernel plane;
  /// The bias of the plane being computed (0 without one): every output
  /// starts from it, added to the output's value when accumulating.
  float planeBias = 0.0f;
  /// Implicit zero padding (tandem_dwconv2d_pad_f32): the input is h x w
  /// and the convolution reads it `padTop` rows and `padLeft` columns
  /// further on, zero outside. Each plane is first copied into the interior
  /// of a zero-bordered thread-local plane of padH x padW (row stride
  /// padStride), which stays in cache.
  bool padded = false;
  int64_t h = 0, w = 0, padTop = 0, padLeft = 0;
  int64_t padH = 0, padW = 0, padStride = 0;
  /// A 3x3, 5x5 or 7x7 window of stride 1 or 2 on AVX-512 or AVX2: the kernel
  /// of dwconv3x3.h that computes its planes (tandem_internal::
  /// dw3x3PlaneAvx512 or dw3x3PlaneAvx2). Stride 2 copies the plane as two
  /// polyphase halves, its even padded columns, then padH rows further on
  /// its odd ones, each padStride wide.
  void (*fastKxK)(const tandem_internal::Dw3x3Plane &, const float *,
                  float *) = nullptr;
  bool polyphase = false;
  /// tandem_dwconv2d_pad_packed_f32: each plane is computed into a
  /// thread-local plane (row stride ow), then written as row `channel` of
  /// the GEMM's packed right-hand side (tandem_internal_pack_b_rows), image b
  /// at output + b * sOn.
  bool packed = false;
  /// Where a plane that could not get its padded copy records the failure.
  tandem_internal_kernel_failure *failure = nullptr;
};

/// Output columns [x0, x1) of output row `y` of one plane, in plain C.
void rowScalar(const DwConv &g, const float *in, const float *f, float *out,
               int64_t y, int64_t x0, int64_t x1) {
  for (int64_t x = x0; x < x1; ++x) {
    float acc = g.accumulate ? out[x] + g.planeBias : g.planeBias;
    for (int64_t i = 0; i < g.kh; ++i) {
      const float *row = in + (y * g.strideH + i * g.dilationH) * g.sIh;
      for (int64_t j = 0; j < g.kw; ++j)
        acc += f[i * g.kw + j] * row[(x * g.strideW + j * g.dilationW) * g.sIw];
    }
    out[x] = tandem_internal::applyEpilogue(acc, g.epilogue);
  }
}

void planePortable(const DwConv &g, const float *in, const float *f,
                   float *out) {
  for (int64_t y = 0; y < g.oh; ++y)
    rowScalar(g, in, f, out + y * g.sOh, y, 0, g.ow);
}

#if TANDEM_X86
/// 8 input columns x*step, (x+1)*step, ... starting at `p` (element step
/// `step`, in floats).
__attribute__((target("avx2,fma"))) inline __m256 loadStrided(const float *p,
                                                              int64_t step) {
  if (step == 1)
    return _mm256_loadu_ps(p);
  if (step == 2) {
    // Even elements of p[0..15]: shuffle within 128-bit lanes, then put the
    // 64-bit halves in order.
    __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
    __m256 even = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                   _mm256_set1_epi32(int32_t(step)));
  return _mm256_i32gather_ps(p, idx, 4);
}

using tandem_internal::firstLanes;

/// Like loadStrided for the first n columns only (1 <= n <= 8): masked
/// loads touch no element past the last column's, so a row's end needs no
/// scalar loop. Other lanes are 0.
__attribute__((target("avx2,fma"))) inline __m256
loadStridedFirst(const float *p, int64_t step, int64_t n) {
  if (step == 1)
    return _mm256_maskload_ps(p, firstLanes(n));
  if (step == 2) {
    // Elements 0 .. 2(n-1) of p: the even ones are the columns.
    int64_t last = 2 * n - 1;
    __m256 lo = _mm256_maskload_ps(p, firstLanes(std::min<int64_t>(last, 8)));
    __m256 hi =
        _mm256_maskload_ps(p + 8, firstLanes(std::max<int64_t>(last - 8, 0)));
    __m256 even = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                   _mm256_set1_epi32(int32_t(step)));
  return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p, idx,
                                  _mm256_castsi256_ps(firstLanes(n)), 4);
}

/// An accumulator's start: the plane's bias, plus `out` (the output's
/// values, or lanes of them) when accumulating.
__attribute__((target("avx2,fma"))) inline __m256 start(const DwConv &g,
                                                        __m256 out) {
  __m256 bias = _mm256_set1_ps(g.planeBias);
  return g.accumulate ? _mm256_add_ps(out, bias) : bias;
}

/// `V` ymm accumulators: output columns [x, x + 8V) of row y.
template <int V>
__attribute__((target("avx2,fma"))) inline void
blockAvx2(const DwConv &g, const float *in, const float *f, float *out,
          int64_t y, int64_t x) {
  int64_t step = g.strideW * g.sIw;
  __m256 acc[V];
  for (int v = 0; v < V; ++v)
    acc[v] = start(g, g.accumulate ? _mm256_loadu_ps(out + x + 8 * v)
                                   : _mm256_setzero_ps());
  for (int64_t i = 0; i < g.kh; ++i) {
    const float *row = in + (y * g.strideH + i * g.dilationH) * g.sIh;
    for (int64_t j = 0; j < g.kw; ++j) {
      __m256 w = _mm256_set1_ps(f[i * g.kw + j]);
      const float *p = row + (x * g.strideW + j * g.dilationW) * g.sIw;
      for (int v = 0; v < V; ++v)
        acc[v] =
            _mm256_fmadd_ps(w, loadStrided(p + 8 * v * step, step), acc[v]);
    }
  }
  for (int v = 0; v < V; ++v)
    _mm256_storeu_ps(out + x + 8 * v,
                     tandem_internal::epilogue8(acc[v], g.epilogue));
}

/// The last n (1..8) columns [x, x + n) of row y, with masked loads (the
/// stores in pieces: partial_store.h).
__attribute__((target("avx2,fma"))) void
tailAvx2(const DwConv &g, const float *in, const float *f, float *out,
         int64_t y, int64_t x, int64_t n) {
  int64_t step = g.strideW * g.sIw;
  __m256i mask = firstLanes(n);
  __m256 acc = start(g, g.accumulate ? _mm256_maskload_ps(out + x, mask)
                                     : _mm256_setzero_ps());
  for (int64_t i = 0; i < g.kh; ++i) {
    const float *row = in + (y * g.strideH + i * g.dilationH) * g.sIh;
    for (int64_t j = 0; j < g.kw; ++j) {
      __m256 w = _mm256_set1_ps(f[i * g.kw + j]);
      const float *p = row + (x * g.strideW + j * g.dilationW) * g.sIw;
      acc = _mm256_fmadd_ps(w, loadStridedFirst(p, step, n), acc);
    }
  }
  tandem_internal::storeFirstAvx2(
      out + x, tandem_internal::epilogue8(acc, g.epilogue), n);
}

__attribute__((target("avx2,fma"))) void rowAvx2(const DwConv &g,
                                                 const float *in,
                                                 const float *f, float *out,
                                                 int64_t y) {
  int64_t step = g.strideW * g.sIw;
  // Gathers index with 32-bit offsets.
  if (step <= 0 || step > (int64_t(1) << 27)) {
    rowScalar(g, in, f, out, y, 0, g.ow);
    return;
  }
  // Unmasked vectors read exactly their columns' elements, except the
  // stride-2 deinterleave, which also reads the element after its last
  // column: that one belongs to the next column, so it must exist.
  int64_t full = step == 2 ? g.ow - 1 : g.ow;
  int64_t x = 0;
  for (; x + 32 <= full; x += 32)
    blockAvx2<4>(g, in, f, out, y, x);
  for (; x + 8 <= full; x += 8)
    blockAvx2<1>(g, in, f, out, y, x);
  for (; x < g.ow; x += 8)
    tailAvx2(g, in, f, out, y, x, std::min<int64_t>(8, g.ow - x));
}
/// The masks of a row's last n columns (1 <= n <= 8), computed once per
/// plane: the output lanes, and for stride 2 the lanes of the two input
/// vectors that hold elements 0 .. 2(n-1).
struct TailMasks {
  bool ready = false;
  int64_t n = 0;
  __m256i out, lo, hi;
  __attribute__((target("avx2,fma"))) void init(int64_t lanes) {
    n = lanes;
    out = firstLanes(n);
    lo = firstLanes(std::min<int64_t>(2 * n - 1, 8));
    hi = firstLanes(std::max<int64_t>(2 * n - 1 - 8, 0));
    ready = true;
  }
  template <int STEP>
  __attribute__((target("avx2,fma"))) __m256 load(const float *p) const {
    if (STEP == 1)
      return _mm256_maskload_ps(p, out);
    __m256 even = _mm256_shuffle_ps(_mm256_maskload_ps(p, lo),
                                    _mm256_maskload_ps(p + 8, hi),
                                    _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
  }
};

/// The common MobileNet case: a 3x3 window, dilation 1, contiguous input
/// columns, column stride STEP (1 or 2). The 9 filter values stay in
/// registers for the whole plane and the three input rows are addressed
/// directly, so the inner loop is loads and FMAs only.
template <int STEP>
__attribute__((target("avx2,fma"))) void
plane3x3Avx2(const DwConv &g, const float *in, const float *f, float *out) {
  __m256 w[9];
  for (int t = 0; t < 9; ++t)
    w[t] = _mm256_set1_ps(f[t]);
  const __m256 zero = _mm256_setzero_ps();
  TailMasks tail;
  // See rowAvx2: an unmasked stride-2 vector reads one element more.
  int64_t full = STEP == 2 ? g.ow - 1 : g.ow;
  for (int64_t y = 0; y < g.oh; ++y) {
    const float *r0 = in + y * g.strideH * g.sIh;
    const float *r1 = r0 + g.sIh, *r2 = r1 + g.sIh;
    float *o = out + y * g.sOh;
    int64_t x = 0;
    for (; x + 16 <= full; x += 16) {
      __m256 a0 = start(g, g.accumulate ? _mm256_loadu_ps(o + x) : zero);
      __m256 a1 = start(g, g.accumulate ? _mm256_loadu_ps(o + x + 8) : zero);
      const float *rows[3] = {r0 + x * STEP, r1 + x * STEP, r2 + x * STEP};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          a0 =
              _mm256_fmadd_ps(w[3 * i + j], loadStrided(rows[i] + j, STEP), a0);
          a1 = _mm256_fmadd_ps(w[3 * i + j],
                               loadStrided(rows[i] + j + 8 * STEP, STEP), a1);
        }
      _mm256_storeu_ps(o + x, tandem_internal::epilogue8(a0, g.epilogue));
      _mm256_storeu_ps(o + x + 8, tandem_internal::epilogue8(a1, g.epilogue));
    }
    for (; x + 8 <= full; x += 8) {
      __m256 a0 = start(g, g.accumulate ? _mm256_loadu_ps(o + x) : zero);
      const float *rows[3] = {r0 + x * STEP, r1 + x * STEP, r2 + x * STEP};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          a0 =
              _mm256_fmadd_ps(w[3 * i + j], loadStrided(rows[i] + j, STEP), a0);
      _mm256_storeu_ps(o + x, tandem_internal::epilogue8(a0, g.epilogue));
    }
    if (x < g.ow) {
      // The row's last n columns: masked loads of the three rows with the
      // filter still in registers (small planes, 7x7 or 14x14, spend most
      // of their time here).
      int64_t n = std::min<int64_t>(8, g.ow - x);
      if (!tail.ready || tail.n != n)
        tail.init(n);
      __m256 a0 =
          start(g, g.accumulate ? _mm256_maskload_ps(o + x, tail.out) : zero);
      const float *rows[3] = {r0 + x * STEP, r1 + x * STEP, r2 + x * STEP};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          a0 = _mm256_fmadd_ps(w[3 * i + j], tail.load<STEP>(rows[i] + j), a0);
      tandem_internal::storeFirstAvx2(
          o + x, tandem_internal::epilogue8(a0, g.epilogue), n);
      // A row wider than full + 8 cannot occur: full >= ow - 1.
      if (x + 8 < g.ow)
        tailAvx2(g, in, f, o, y, x + 8, g.ow - x - 8);
    }
  }
}

__attribute__((target("avx2,fma"))) void
planeAvx2(const DwConv &g, const float *in, const float *f, float *out) {
  if (g.kh == 3 && g.kw == 3 && g.dilationH == 1 && g.dilationW == 1 &&
      g.sIw == 1 && (g.strideW == 1 || g.strideW == 2)) {
    if (g.strideW == 1)
      plane3x3Avx2<1>(g, in, f, out);
    else
      plane3x3Avx2<2>(g, in, f, out);
    return;
  }
  for (int64_t y = 0; y < g.oh; ++y)
    rowAvx2(g, in, f, out + y * g.sOh, y);
}
#endif

#if TANDEM_X86
/// The first n lanes (0 <= n <= 16).
inline __mmask16 lanes16(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
}

/// Input columns p[0], p[STEP], ... for the output lanes in `m`: a masked
/// load for stride 1; for stride 2, two masked loads of the elements
/// 0 .. 2(n-1) the lanes read, then the even ones, so that no load goes
/// past the last column the conv reads.
template <int STEP>
__attribute__((target("avx512f"))) inline __m512
loadColumns16(const float *p, __mmask16 m, __mmask16 lo, __mmask16 hi) {
  if constexpr (STEP == 1)
    return _mm512_maskz_loadu_ps(m, p);
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                        10, 8, 6, 4, 2, 0);
  return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(lo, p), even,
                                _mm512_maskz_loadu_ps(hi, p + 16));
}

/// The 3x3 case of plane3x3Avx2 with 16-column vectors and two output rows
/// per step: a window of stride STEP in both directions covers input rows
/// y*STEP .. y*STEP + 2 and the next row's STEP rows further, so each
/// loaded input vector feeds both rows' accumulators where they overlap
/// (12 loads for 18 FMAs at stride 1, against 9 for 9). Ragged row ends
/// use masks, so every column block is one code path.
template <int STEP>
__attribute__((target("avx512f"))) void
plane3x3Avx512(const DwConv &g, const float *in, const float *f, float *out) {
  __m512 w[9];
  for (int t = 0; t < 9; ++t)
    w[t] = _mm512_set1_ps(f[t]);
  const __m512 bias = _mm512_set1_ps(g.planeBias);
  constexpr int kRows = STEP + 3; // input rows of two output rows
  for (int64_t y = 0; y < g.oh; y += 2) {
    bool two = y + 1 < g.oh;
    const float *r0 = in + y * STEP * g.sIh;
    float *o0 = out + y * g.sOh, *o1 = o0 + g.sOh;
    for (int64_t x = 0; x < g.ow; x += 16) {
      int64_t n = std::min<int64_t>(16, g.ow - x);
      __mmask16 m = lanes16(n);
      __mmask16 lo = lanes16(std::min<int64_t>(2 * n - 1, 16));
      __mmask16 hi = lanes16(std::max<int64_t>(2 * n - 1 - 16, 0));
      __m512 a0 = g.accumulate
                      ? _mm512_add_ps(_mm512_maskz_loadu_ps(m, o0 + x), bias)
                      : bias;
      __m512 a1 = g.accumulate && two
                      ? _mm512_add_ps(_mm512_maskz_loadu_ps(m, o1 + x), bias)
                      : bias;
      for (int r = 0; r < kRows; ++r) {
        bool forFirst = r <= 2, forSecond = two && r >= STEP;
        if (!forFirst && !forSecond)
          continue;
        const float *row = r0 + r * g.sIh + x * STEP;
        for (int j = 0; j < 3; ++j) {
          __m512 v = loadColumns16<STEP>(row + j, m, lo, hi);
          if (forFirst)
            a0 = _mm512_fmadd_ps(w[3 * r + j], v, a0);
          if (forSecond)
            a1 = _mm512_fmadd_ps(w[3 * (r - STEP) + j], v, a1);
        }
      }
      _mm512_mask_storeu_ps(o0 + x, m,
                            tandem_internal::epilogue16(a0, g.epilogue));
      if (two)
        _mm512_mask_storeu_ps(o1 + x, m,
                              tandem_internal::epilogue16(a1, g.epilogue));
    }
  }
}

__attribute__((target("avx512f,avx2,fma"))) void
planeAvx512(const DwConv &g, const float *in, const float *f, float *out) {
  if (g.kh == 3 && g.kw == 3 && g.dilationH == 1 && g.dilationW == 1 &&
      g.sIw == 1 && g.strideH == g.strideW &&
      (g.strideW == 1 || g.strideW == 2)) {
    if (g.strideW == 1)
      plane3x3Avx512<1>(g, in, f, out);
    else
      plane3x3Avx512<2>(g, in, f, out);
    return;
  }
  planeAvx2(g, in, f, out);
}
#endif

/// The plane kernel family called `name` ("avx512", "avx2" or "portable"),
/// or nullptr if this CPU cannot run it.
PlaneKernel planeKernelByName(const char *name) {
  if (std::strcmp(name, "portable") == 0)
    return planePortable;
#if TANDEM_X86
  __builtin_cpu_init();
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (std::strcmp(name, "avx512") == 0 && avx2 &&
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
    return planeAvx512;
  if (std::strcmp(name, "avx2") == 0 && avx2)
    return planeAvx2;
#endif
  return nullptr;
}

/// The fastest family the CPU runs within TANDEM_CPU_KERNELS (as for
/// tandem_sgemm_f32: avx512, avx2 or portable).
PlaneKernel selectPlaneKernel() {
  const char *force = std::getenv("TANDEM_CPU_KERNELS");
  bool any = !force || !*force;
  for (const char *name : {"avx512", "avx2"})
    if (any || std::strcmp(force, name) == 0)
      if (PlaneKernel plane = planeKernelByName(name))
        return plane;
  return planePortable;
}

PlaneKernel planeKernel() {
  static const PlaneKernel chosen = selectPlaneKernel();
  return chosen;
}

/// The zero-bordered plane of a padded convolution on this thread.
struct PaddedPlane {
  tandem_internal::Scratch buffer;
  /// The geometry whose border the buffer holds zeros for: a plane of the
  /// same geometry overwrites only the interior, so the border is zeroed
  /// once per thread and geometry, not once per plane.
  int64_t h = -1, w = -1, padTop = -1, padLeft = -1, padH = -1, padW = -1;
  int64_t padStride = -1;
  bool polyphase = false;
};

#if TANDEM_X86
/// Copies `rows` rows of `n` floats (row strides `sSrc`, `sDst`) with
/// 16-float vectors and a masked tail, so that short rows (a 7x7 or 14x14
/// plane's) cost a few instructions instead of a memcpy call each.
__attribute__((target("avx512f"))) void
copyRowsAvx512(const float *src, int64_t sSrc, float *dst, int64_t sDst,
               int64_t rows, int64_t n) {
  __mmask16 tail = __mmask16((1u << (n % 16)) - 1);
  for (int64_t r = 0; r < rows; ++r, src += sSrc, dst += sDst) {
    int64_t c = 0;
    for (; c + 16 <= n; c += 16)
      _mm512_storeu_ps(dst + c, _mm512_loadu_ps(src + c));
    if (tail)
      _mm512_mask_storeu_ps(dst + c, tail,
                            _mm512_maskz_loadu_ps(tail, src + c));
  }
}

/// copyRowsAvx512 on AVX2: 8-float vectors, the tail a masked load stored
/// as a whole vector whose lanes past the row are zeros, which land in the
/// padded plane's zero border, in the next row's (written after it) or in
/// the buffer's slack (paddedPlane). AMD runs masked stores slowly, masked
/// loads at full speed.
__attribute__((target("avx2,fma"))) void copyRowsAvx2(const float *src,
                                                      int64_t sSrc, float *dst,
                                                      int64_t sDst,
                                                      int64_t rows, int64_t n) {
  int64_t tail = n % 8;
  __m256i first = firstLanes(tail);
  for (int64_t r = 0; r < rows; ++r, src += sSrc, dst += sDst) {
    int64_t c = 0;
    for (; c + 8 <= n; c += 8)
      _mm256_storeu_ps(dst + c, _mm256_loadu_ps(src + c));
    if (tail)
      _mm256_storeu_ps(dst + c, _mm256_maskload_ps(src + c, first));
  }
}
#endif

/// This thread's zero-bordered plane for g's geometry (its border zeroed
/// when the geometry differs from the last call's), or nullptr when memory
/// is exhausted. The buffer has kPlaneSlack floats more than the plane:
/// copyRowsAvx2 may write a whole vector past the last row's end.
constexpr int64_t kPlaneSlack = 8;
float *paddedPlane(const DwConv &g) {
  thread_local PaddedPlane local;
  int64_t floats = (g.polyphase ? 2 : 1) * g.padH * g.padStride + kPlaneSlack;
  float *plane = local.buffer.get(size_t(floats));
  if (!plane)
    return nullptr;
  if (local.h != g.h || local.w != g.w || local.padTop != g.padTop ||
      local.padLeft != g.padLeft || local.padH != g.padH ||
      local.padW != g.padW || local.padStride != g.padStride ||
      local.polyphase != g.polyphase) {
    std::memset(plane, 0, size_t(floats) * sizeof(float));
    local.h = g.h, local.w = g.w, local.padTop = g.padTop;
    local.padLeft = g.padLeft, local.padH = g.padH, local.padW = g.padW;
    local.padStride = g.padStride, local.polyphase = g.polyphase;
  }
  return plane;
}

/// Copies the plane at `in` (g.h x g.w, strides g.sIh, g.sIw) into the
/// interior of `plane` (from paddedPlane), whose border stays zero.
void padPlane(const DwConv &g, const float *in, float *plane) {
  // The interior: source rows [r0, r1) and columns [c0, c1) that land
  // inside the padded plane (padding may also crop the far edges).
  int64_t r0 = std::max<int64_t>(0, -g.padTop);
  int64_t r1 = std::min(g.h, g.padH - g.padTop);
  int64_t c0 = std::max<int64_t>(0, -g.padLeft);
  int64_t c1 = std::min(g.w, g.padW - g.padLeft);
  if (c1 <= c0 || r1 <= r0)
    return;
#if TANDEM_X86
  if (g.polyphase) {
    // Whole padded rows, their zero columns included (sIw is 1).
    float *even = plane + (r0 + g.padTop) * g.padStride;
    (g.plane == planeAvx512 ? tandem_internal::polyphaseRowsAvx512
                            : tandem_internal::polyphaseRowsAvx2)(
        in + r0 * g.sIh, g.sIh, r1 - r0, g.w, g.padLeft, g.padW, even,
        even + g.padH * g.padStride, g.padStride);
    return;
  }
  if (g.sIw == 1 && (g.plane == planeAvx512 || g.plane == planeAvx2)) {
    (g.plane == planeAvx512 ? copyRowsAvx512 : copyRowsAvx2)(
        in + r0 * g.sIh + c0, g.sIh,
        plane + (r0 + g.padTop) * g.padStride + g.padLeft + c0, g.padStride,
        r1 - r0, c1 - c0);
    return;
  }
#endif
  for (int64_t r = r0; r < r1; ++r) {
    const float *src = in + r * g.sIh;
    float *dst = plane + (r + g.padTop) * g.padStride + g.padLeft;
    if (g.sIw == 1) {
      std::memcpy(dst + c0, src + c0, size_t(c1 - c0) * sizeof(float));
    } else {
      for (int64_t c = c0; c < c1; ++c)
        dst[c] = src[c * g.sIw];
    }
  }
}

/// Computes one plane of g from its input `in` into `out` (row stride
/// g.sOh), through `padded` (paddedPlane) when g is padded; `view` is g
/// reading the padded copy (planes()).
void computePlane(const DwConv &g, DwConv &view, float *padded, const float *in,
                  const float *f, float bias, float *out) {
  if (g.padded) {
    // The plane is read whole before its output is written, so the
    // output may be the input itself (see tandem_dwconv2d_pad_f32).
    padPlane(g, in, padded);
    in = padded;
  }
#if TANDEM_X86
  if (g.fastKxK) {
    tandem_internal::Dw3x3Plane plane{int(g.strideW),
                                      int(g.kh),
                                      in,
                                      g.padStride,
                                      g.padH * g.padStride,
                                      g.oh,
                                      g.ow,
                                      g.sOh,
                                      bias,
                                      g.accumulate,
                                      g.epilogue,
                                      int(g.dilationW)};
    g.fastKxK(plane, f, out);
    return;
  }
#endif
  // The kernel starts every output from the channel's bias.
  view.planeBias = bias;
  view.plane(view, in, f, out);
}

/// The view of g that planes read: a padded conv's planes come from the
/// padded copy, whose columns are dense.
DwConv paddedView(const DwConv &g) {
  DwConv view = g;
  if (g.padded)
    view.sIh = g.padStride, view.sIw = 1;
  return view;
}

void planes(void *env, int64_t begin, int64_t end) {
  const DwConv &g = *static_cast<const DwConv *>(env);
  // A padded convolution's planes are read from the padded copy, whose
  // columns are dense.
  DwConv view = paddedView(g);
  float *padded = nullptr;
  if (g.padded) {
    padded = paddedPlane(g);
    if (!padded) {
      tandem_internal_kernel_fail(g.failure,
                                  "dwconv: out of memory for a padded plane");
      return;
    }
  }
  // A packed output: up to kPackGroup planes of one image are computed
  // into a thread-local buffer, then packed together, so that each panel
  // gets their rows as one contiguous run.
  constexpr int64_t kPackGroup = 8;
  int64_t planeFloats = g.oh * g.ow;
  float *packedPlanes = nullptr;
  int64_t held = 0, heldImage = 0, heldChannel = 0;
  auto flush = [&] {
    if (held > 0)
      tandem_internal_pack_b_rows(packedPlanes, planeFloats, heldChannel, held,
                                  g.c, planeFloats,
                                  g.output + heldImage * g.sOn);
    held = 0;
  };
  if (g.packed) {
    thread_local tandem_internal::Scratch outPlanes;
    packedPlanes = outPlanes.get(size_t(kPackGroup * planeFloats));
    if (!packedPlanes) {
      tandem_internal_kernel_fail(g.failure,
                                  "dwconv: out of memory for an output plane");
      return;
    }
  }
  int64_t b = begin / g.c, ch = begin % g.c;
  for (int64_t p = begin; p < end; ++p) {
    const float *in = g.input + b * g.sIn + ch * g.sIc;
    const float *f = g.filter + ch * g.kh * g.kw;
    float bias = g.bias ? g.bias[ch] : 0.0f;
    float *out = g.output + b * g.sOn + ch * g.sOc;
    if (g.packed) {
      if (held == kPackGroup || (held > 0 && heldImage != b))
        flush();
      if (held == 0)
        heldImage = b, heldChannel = ch;
      out = packedPlanes + held++ * planeFloats;
    }
    if (++ch == g.c)
      ch = 0, ++b;
    computePlane(g, view, padded, in, f, bias, out);
  }
  flush();
}

/// Fills g for one call (the arguments of tandem_dwconv2d_pad_f32; pad
/// null for the unpadded entries). A packed output (packedOutput) is
/// computed plane by plane densely, then packed.
void setUp(DwConv &g, PlaneKernel plane, int64_t c, const float *input,
           int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw, int64_t kh,
           int64_t kw, const float *filter, float *output, int64_t sOn,
           int64_t sOc, int64_t sOh, int64_t oh, int64_t ow, int64_t strideH,
           int64_t strideW, int64_t dilationH, int64_t dilationW, int32_t flags,
           const float *bias, const int64_t *pad, int64_t h, int64_t w,
           bool packedOutput) {
  if (pad) {
    // The padded plane holds exactly the rows and columns the windows
    // read; its rows start 64-byte aligned.
    g.padded = true;
    g.h = h, g.w = w, g.padTop = pad[0], g.padLeft = pad[1];
    g.padH = (oh - 1) * strideH + (kh - 1) * dilationH + 1;
    g.padW = (ow - 1) * strideW + (kw - 1) * dilationW + 1;
    g.padStride = (g.padW + 15) / 16 * 16;
#if TANDEM_X86
    // Dilation 2 (3x3 and 5x5, stride 1) as well as 1.
    bool dilated = dilationH == 2 && dilationW == 2 && strideW == 1 &&
                   (kh == 3 || kh == 5);
    bool kxk = kh == kw && (kh == 3 || kh == 5 || kh == 7) &&
               ((dilationH == 1 && dilationW == 1) || dilated) &&
               strideH == strideW &&
               (strideW == 1 || (strideW == 2 && sIw == 1));
    if (kxk && plane == planeAvx512) {
      g.fastKxK = tandem_internal::dw3x3PlaneAvx512;
      if (strideW == 2) {
        // Two halves of ceil(padW / 2) columns, in whole 16-float blocks
        // of the 32 padded columns polyphaseRowsAvx512 copies at a time.
        g.polyphase = true;
        g.padStride = (g.padW + 31) / 32 * 16;
      }
    } else if (kxk && plane == planeAvx2) {
      // Rows readable with whole vectors up to the last column a window's
      // last vector reaches in blocks of 16 columns (dwconv3x3.h), rounded
      // to 8 floats; a polyphase half also takes the ceil(padW / 16) * 8
      // columns polyphaseRowsAvx2 writes, which that covers.
      g.fastKxK = tandem_internal::dw3x3PlaneAvx2;
      int64_t wide = (ow + 15) / 16 * 16;
      g.polyphase = strideW == 2;
      g.padStride = g.polyphase ? (wide + (kw - 1) / 2 + 7) / 8 * 8
                                : (wide + (kw - 1) * dilationW + 7) / 8 * 8;
    }
#endif
  }
  g.bias = bias;
  g.c = c;
  g.input = input;
  g.sIn = sIn, g.sIc = sIc, g.sIh = sIh, g.sIw = sIw;
  g.kh = kh, g.kw = kw;
  g.filter = filter;
  g.output = output;
  g.sOn = sOn, g.sOc = sOc, g.sOh = sOh;
  g.oh = oh, g.ow = ow;
  g.strideH = strideH, g.strideW = strideW;
  g.dilationH = dilationH, g.dilationW = dilationW;
  g.accumulate = (flags & TANDEM_DWCONV2D_ACCUMULATE) != 0;
  // HardSwish, then SiLU, takes precedence over ReLU6 and ReLU, as in the
  // GEMM (the flag bits are the GEMM's: activation.h).
  g.epilogue = tandem_internal::epilogueOf(flags);
  g.plane = plane;
  if (packedOutput) {
    g.packed = true;
    g.sOn = TANDEM_PACKED_PANEL_FLOATS(c, oh * ow);
    g.sOc = oh * ow;
    g.sOh = ow;
  }
}

void dwconv(PlaneKernel plane, const tandem_exec_ctx_t *ctx, int64_t n,
            int64_t c, const float *input, int64_t sIn, int64_t sIc,
            int64_t sIh, int64_t sIw, int64_t kh, int64_t kw,
            const float *filter, float *output, int64_t sOn, int64_t sOc,
            int64_t sOh, int64_t oh, int64_t ow, int64_t strideH,
            int64_t strideW, int64_t dilationH, int64_t dilationW,
            int32_t flags, const float *bias = nullptr,
            const int64_t *pad = nullptr, int64_t h = 0, int64_t w = 0,
            bool packedOutput = false) {
  if (n <= 0 || c <= 0 || oh <= 0 || ow <= 0)
    return;
  tandem_internal_kernel_failure failure;
  if (packedOutput && (flags & TANDEM_DWCONV2D_ACCUMULATE)) {
    tandem_internal_kernel_fail(
        &failure, "dwconv: a packed output cannot be accumulated onto");
    tandem_internal_kernel_report(&failure);
    return;
  }
  DwConv g;
  setUp(g, plane, c, input, sIn, sIc, sIh, sIw, kh, kw, filter, output, sOn,
        sOc, sOh, oh, ow, strideH, strideW, dilationH, dilationW, flags, bias,
        pad, h, w, packedOutput);
  g.failure = &failure;
  // A plane is oh * ow * kh * kw FMAs; let small planes share a task.
  int64_t work = oh * ow * kh * kw;
  int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(work, 1));
  tandem_parallel_for(ctx ? ctx->pool : nullptr, n * c, grain, planes, &g);
  tandem_internal_kernel_report(&failure);
}

/// Most bands of rows one image of tandem_conv1x1_dwconv2d_f32 is cut into.
constexpr int64_t kMaxBands = 16;

/// One band of output rows [r0, r1) of the fused call's depthwise conv and
/// the input rows [ir0, ir1) its windows read: `dw` is the call's depthwise
/// conv on those input rows alone (their padding: the image's own at its
/// top and bottom edges, none inside), writing output rows from r0 on.
struct PwDwBand {
  int64_t r0, r1, ir0, ir1;
  DwConv dw;
};

/// One call of tandem_conv1x1_dwconv2d_f32: a task computes the 1x1 conv's
/// output channels [c0, c0 + group) of one band of rows of one image into a
/// thread-local buffer (bias and epilogue applied by the GEMM), then the
/// depthwise conv on those planes while they are in cache. On one thread
/// (or a small image) an image is one band; on several, one band per
/// thread, each computing every channel of its rows (and the 1x1 conv of
/// the one or two rows above and below it that its windows also read): a
/// thread then reads the input rows the previous kernel wrote on that
/// thread and writes the output pixels the next kernel reads there (see
/// conv1x1Dwconv).
struct PwDw {
  PwDwBand band[kMaxBands];
  int64_t bands;
  const float *pwFilter; // e x k, dense
  const float *pwPacked; // its packed copy from the weight cache, or null
  const float *pwBias;   // e floats, or null
  int32_t pwFlags;       // TANDEM_CONV2D_RELU / RELU6 / HARDSWISH / SILU /
                         // CONSTANT_FILTER
  int64_t k, w;          // the 1x1 conv's input channels; the image width
  int64_t maxPixels;     // input pixels of the largest band
  int64_t maxOutFloats;  // output pixels of the largest band
  const float *input;    // the 1x1 conv's input: image b at input + b * sIn
  int64_t sIn, sIc;      // its image and channel strides (planes dense)
  uint64_t call;         // this call's number (packedImage)
  int64_t group, groups; // channels per task; tasks per band
  /// The depthwise planes are small: each task computes them eight
  /// channels a vector (dwconv_cvec.h) instead of plane by plane.
  bool channelVectors = false;
};

/// Numbers the calls of tandem_conv1x1_dwconv2d_f32, never 0.
std::atomic<uint64_t> pwdwCalls{0};

/// The input rows of band `band` of image b of the 1x1 conv's input, packed
/// as the GEMM's right-hand side (tandem_internal_pack_b_rows), in this
/// thread's buffer: packed by the first task of the call, image and band a
/// thread runs. Every task of a band reads all of it; in a buffer shared
/// by the threads, both cores would hold every line and the next call's
/// packing would have to take each one back from the other core (two
/// threads: 0.13 ms to pack 300 KB that one thread packs in 0.008), so each
/// thread packs its own copy instead. nullptr when memory is exhausted.
const float *packedImage(const PwDw &p, int64_t b, int64_t band) {
  thread_local tandem_internal::Scratch buffer;
  thread_local uint64_t packedCall = 0;
  thread_local int64_t packedImageIndex = -1, packedBand = -1;
  float *packed =
      buffer.get(size_t(TANDEM_PACKED_PANEL_FLOATS(p.k, p.maxPixels)));
  if (!packed)
    return nullptr;
  if (packedCall != p.call || packedImageIndex != b || packedBand != band) {
    const PwDwBand &rows = p.band[band];
    tandem_internal_pack_b_rows(p.input + b * p.sIn + rows.ir0 * p.w, p.sIc, 0,
                                p.k, p.k, (rows.ir1 - rows.ir0) * p.w, packed);
    packedCall = p.call;
    packedImageIndex = b;
    packedBand = band;
  }
  return packed;
}

/// The depthwise conv g of `channels` planes (channels c0 ... of g) at
/// `in` (`pixels` floats apart, rows g.w wide) into `out` (planes
/// outStride apart, rows outRowStride), eight channels a vector
/// (dwconv_cvec.h). False, with the failure recorded, when memory is
/// exhausted.
bool channelVectorPlanes(const DwConv &g, const float *in, int64_t pixels,
                         int64_t c0, int64_t channels, float *out,
                         int64_t outStride, int64_t outRowStride) {
  tandem_internal::DwChannelVec d;
  d.k = int(g.kh), d.step = int(g.strideH);
  d.in = in, d.inStride = pixels, d.h = g.h, d.w = g.w;
  d.padTop = g.padTop, d.padLeft = g.padLeft;
  d.oh = g.oh, d.ow = g.ow;
  d.epilogue = g.epilogue;
  d.outStride = outStride, d.outRowStride = outRowStride;
  // The tile's border stays zero between calls of one geometry.
  thread_local tandem_internal::Scratch tileBuffer;
  thread_local int64_t tileKey[8] = {};
  int64_t key[8] = {g.kh, g.strideH, g.h, g.w, g.padTop, g.padLeft, g.oh, g.ow};
  float *tile =
      tileBuffer.get(size_t(tandem_internal::dwChannelVecTileFloats(d)));
  if (!tile) {
    tandem_internal_kernel_fail(g.failure,
                                "conv1x1_dwconv: out of memory for a tile");
    return false;
  }
  bool zero = !std::equal(key, key + 8, tileKey);
  std::copy(key, key + 8, tileKey);
#if TANDEM_X86
  for (int64_t r = 0; r < channels; r += 8) {
    d.in = in + r * pixels;
    d.filter = g.filter + (c0 + r) * g.kh * g.kw;
    d.bias = g.bias ? g.bias + c0 + r : nullptr;
    d.out = out + r * outStride;
    tandem_internal::dwChannelVecAvx2(d, std::min<int64_t>(8, channels - r),
                                      tile, zero);
    zero = false;
  }
  return true;
#else
  // Only x86 sets PwDw::channelVectors.
  tandem_internal_kernel_fail(g.failure,
                              "conv1x1_dwconv: no small-plane kernel here");
  return false;
#endif
}

void pwdwGroups(void *env, int64_t begin, int64_t end) {
  const PwDw &p = *static_cast<const PwDw *>(env);
  thread_local tandem_internal::Scratch expandedPlanes, outPlanes;
  const DwConv &whole = p.band[0].dw;
  float *expanded = expandedPlanes.get(size_t(p.group * p.maxPixels));
  float *packedOut =
      whole.packed ? outPlanes.get(size_t(p.group * p.maxOutFloats)) : nullptr;
  if (!expanded || (whole.packed && !packedOut)) {
    tandem_internal_kernel_fail(whole.failure,
                                "conv1x1_dwconv: out of memory for a plane");
    return;
  }
  for (int64_t task = begin; task < end; ++task) {
    int64_t c0 = task % p.groups * p.group, bandIndex = task / p.groups;
    int64_t b = bandIndex / p.bands, band = bandIndex % p.bands;
    const PwDwBand &rows = p.band[band];
    const DwConv &g = rows.dw;
    DwConv view = paddedView(g);
    float *padded = p.channelVectors ? nullptr : paddedPlane(g);
    const float *packedInput = packedImage(p, b, band);
    if ((!padded && !p.channelVectors) || !packedInput) {
      tandem_internal_kernel_fail(
          g.failure, "conv1x1_dwconv: out of memory for the packed input");
      return;
    }
    int64_t channels = std::min(p.group, g.c - c0);
    int64_t pixels = (rows.ir1 - rows.ir0) * p.w;
    int64_t outFloats = g.oh * g.ow, firstOut = rows.r0 * g.ow;
    tandem_internal_conv1x1_rows(p.pwFilter, p.pwPacked, p.k, c0, channels,
                                 packedInput, pixels, p.pwBias, p.pwFlags,
                                 expanded, g.failure);
    if (p.channelVectors) {
      float *out = g.packed
                       ? packedOut
                       : g.output + b * g.sOn + c0 * g.sOc + rows.r0 * g.sOh;
      if (!channelVectorPlanes(g, expanded, pixels, c0, channels, out,
                               g.packed ? outFloats : g.sOc,
                               g.packed ? g.ow : g.sOh))
        return;
    } else {
      for (int64_t r = 0; r < channels; ++r) {
        int64_t ch = c0 + r;
        float *out = g.packed
                         ? packedOut + r * outFloats
                         : g.output + b * g.sOn + ch * g.sOc + rows.r0 * g.sOh;
        computePlane(g, view, padded, expanded + r * pixels,
                     g.filter + ch * g.kh * g.kw, g.bias ? g.bias[ch] : 0.0f,
                     out);
      }
    }
    if (g.packed)
      tandem_internal_pack_b_columns(packedOut, outFloats, c0, channels, g.c,
                                     p.band[p.bands - 1].r1 * g.ow, firstOut,
                                     outFloats, g.output + b * g.sOn);
  }
}

/// tandem_conv1x1_dwconv2d_f32, or with packedOutput its _packed_f32 twin.
void conv1x1Dwconv(const tandem_exec_ctx_t *ctx, int64_t n, int64_t k,
                   int64_t h, int64_t w, const float *input, int64_t sIn,
                   int64_t sIc, int64_t sIh, int64_t sIw, int64_t c,
                   const float *pwFilter, const float *pwBias, int32_t pwFlags,
                   int64_t kh, int64_t kw, const float *filter,
                   const float *bias, float *output, int64_t sOn, int64_t sOc,
                   int64_t sOh, int64_t oh, int64_t ow, int64_t strideH,
                   int64_t strideW, int64_t dilationH, int64_t dilationW,
                   int64_t padTop, int64_t padLeft, int32_t flags,
                   bool packedOutput) {
  if (n <= 0 || c <= 0 || oh <= 0 || ow <= 0)
    return;
  tandem_internal_kernel_failure failure;
  auto refuse = [&](const char *why) {
    tandem_internal_kernel_fail(&failure, why);
    tandem_internal_kernel_report(&failure);
  };
  if ((flags & TANDEM_DWCONV2D_ACCUMULATE) ||
      (pwFlags & TANDEM_CONV2D_ACCUMULATE))
    return refuse("conv1x1_dwconv: cannot accumulate onto the output");
  if (k <= 0 || h <= 0 || w <= 0)
    return refuse("conv1x1_dwconv: the 1x1 conv has an empty input");
  if (sIw != 1 || sIh != w)
    return refuse("conv1x1_dwconv: the input's planes must be dense");
  tandem_thread_pool_t *pool = ctx ? ctx->pool : nullptr;

  PwDw p;
  int64_t threads = tandem_thread_pool_size(pool);
  // Bands of rows, one per thread, where each has at least kMinBandRows
  // output rows: the 1x1 conv of the rows a band's windows read beyond its
  // own (one above and one below for a 3x3 window) is computed by both
  // bands, 1/7 more of it at 14 rows a thread, which the split repays:
  // split by channels instead, both threads read the whole input and write
  // part of every output pixel, so each line the previous and the next
  // kernel share is held by both cores, and rewriting such lines is slow
  // (bench/native/coherence.c). Each thread's task range is a run of
  // whole bands (tandem_internal_parallel_chunks gives thread t range t).
  constexpr int64_t kMinBandRows = 7;
  p.bands = 1;
  if (threads > 1 && oh / std::min(threads, kMaxBands) >= kMinBandRows)
    p.bands = std::min(threads, kMaxBands);
  // More bands, a multiple of the threads (each thread a run of them),
  // where a task's expanded planes (a channel group of the whole image)
  // would exceed kBandBytes: then they, the band's packed input and the
  // depthwise output stay in L2 between the 1x1 conv that writes them and
  // the depthwise conv that reads them. MobileNetV2's first block (16 ->
  // 96 channels at 112x112, 602 KB a group of 12) is cut into 5 bands on
  // one thread, its 56x56 blocks (150 KB) into 2: 9.30 -> 9.11-9.18 ms at
  // 1 thread, MNasNet 9.61 -> 9.47-9.51, MobileNetV3-large 7.55-7.67 ->
  // 7.48-7.53 (minima, Zen 3); 256 KB gained about half of that, 64 KB
  // the same as 128.
  constexpr int64_t kBandBytes = 128 * 1024;
  // A task's channels: whole register tiles, about 8 planes (see p.group),
  // or 48 where the input planes have at most kSmallPlane pixels: each of
  // the 1x1 conv's packed input panels then feeds eight register tiles
  // from L1 instead of two, and the depthwise conv's per-task set-up is
  // shared by more channels. MobileNetV2's 14x14 and 7x7 blocks: 176 ->
  // 172 us and 240 -> 228 us a call with the plane kernels (Zen 3, 1
  // thread); 24 channels gained half of that, 96 the same as 48.
  constexpr int64_t kSmallPlane = 14 * 14;
  const int64_t group =
      tandem_internal_conv1x1_row_group(h * w <= kSmallPlane ? 48 : 8);
  int64_t groupBytes = group * h * w * int64_t(sizeof(float));
  int64_t step = std::max<int64_t>(threads, 1);
  int64_t want = (groupBytes + kBandBytes - 1) / kBandBytes;
  want = (want + step - 1) / step * step;
  while (want > p.bands && (want > kMaxBands || oh / want < kMinBandRows))
    want -= step;
  p.bands = std::max(p.bands, want);
  // One band is the whole image: all its rows go through the 1x1 conv, as
  // they would through the separate calls (a band of one pixel would make
  // the 1x1 conv a matrix-vector product, on a filter packed for a GEMM).
  // Bands of at least kMinBandRows output rows read at least as many input
  // rows, so theirs stay GEMMs too.
  auto rowsOf = [&](int64_t bands, int64_t band) {
    PwDwBand rows;
    rows.r0 = oh * band / bands, rows.r1 = oh * (band + 1) / bands;
    rows.ir0 = 0, rows.ir1 = h;
    if (bands > 1) {
      rows.ir0 = std::clamp<int64_t>(rows.r0 * strideH - padTop, 0, h);
      rows.ir1 = std::clamp<int64_t>(
          (rows.r1 - 1) * strideH - padTop + (kh - 1) * dilationH + 1, 0, h);
    }
    return rows;
  };
  for (int64_t band = 0; band < p.bands; ++band)
    if (PwDwBand rows = rowsOf(p.bands, band); rows.ir1 <= rows.ir0)
      p.bands = 1; // a band of padding only
  p.maxPixels = 0, p.maxOutFloats = 0;
  for (int64_t band = 0; band < p.bands; ++band) {
    PwDwBand &rows = p.band[band];
    rows = rowsOf(p.bands, band);
    int64_t bandH = rows.ir1 - rows.ir0, bandOh = rows.r1 - rows.r0;
    // In the band's coordinates, output row r reads input rows from
    // r * strideH - (padTop + ir0 - r0 * strideH) on.
    int64_t pad[2] = {padTop + rows.ir0 - rows.r0 * strideH, padLeft};
    // The depthwise conv reads dense planes of the band's rows from the
    // task's buffer.
    setUp(rows.dw, planeKernel(), c, nullptr, 0, bandH * w, w, 1, kh, kw,
          filter, output, sOn, sOc, sOh, bandOh, ow, strideH, strideW,
          dilationH, dilationW, flags, bias, pad, bandH, w, packedOutput);
    if (packedOutput) {
      // Images of the whole output's packed size; the task's planes hold
      // the band's rows.
      rows.dw.sOn = TANDEM_PACKED_PANEL_FLOATS(c, oh * ow);
      rows.dw.sOc = bandOh * ow;
    }
    rows.dw.failure = &failure;
    p.maxPixels = std::max(p.maxPixels, bandH * w);
    p.maxOutFloats = std::max(p.maxOutFloats, bandOh * ow);
  }
  // Output planes of at most kSmallPlane pixels eight channels a vector
  // (dwconv_cvec.h, AVX2 + FMA, which every AVX-512 CPU has):
  // MobileNetV2's 14x14 and 7x7 calls 172 -> 168 and 228 -> 219 us,
  // MNasNet's 7x7 ones with 5x5 windows 371 -> 338 (Zen 3, 1 thread, groups
  // of 48). Also where the plane kernels are AVX-512's (16 lanes, masked
  // row ends; a 14x14 plane takes their 8-lane form): on Zen 4, 1 thread,
  // MNasNet 7.31 -> 7.11 ms, MobileNetV3-large 5.69 -> 5.63, MobileNetV2
  // level (minima of 8 interleaved rounds).
#if TANDEM_X86
  p.channelVectors =
      (planeKernel() == planeAvx2 || planeKernel() == planeAvx512) &&
      oh * ow <= kSmallPlane &&
      tandem_internal::dwChannelVecSupports(kh, kw, strideH, strideW, dilationH,
                                            dilationW);
#endif
  p.pwFilter = pwFilter;
  p.pwPacked = (pwFlags & TANDEM_CONV2D_CONSTANT_FILTER)
                   ? tandem_internal_packed_filter(ctx, pwFilter, c, k, h * w)
                   : nullptr;
  p.pwBias = pwBias;
  p.pwFlags = pwFlags & (TANDEM_CONV2D_RELU | TANDEM_CONV2D_RELU6 |
                         TANDEM_CONV2D_HARDSWISH | TANDEM_CONV2D_SILU |
                         TANDEM_CONV2D_CONSTANT_FILTER);
  p.k = k, p.w = w;
  p.input = input, p.sIn = sIn, p.sIc = sIc;
  p.call = pwdwCalls.fetch_add(1, std::memory_order_relaxed) + 1;
  // Whole register tiles of output channels, about 8 planes a task; with
  // a few tasks that do not divide among the threads (96 channels: 7 tasks
  // of 14, 4 on one thread and 3 on the other), the nearest group of whole
  // tiles that makes a task count which does (4 tasks of 28 on AVX-512),
  // else as many tasks as the next multiple of the threads, of fewer
  // channels each (8 tasks of 12).
  p.group = group;
  p.groups = (c + p.group - 1) / p.group;
  int64_t tasks = n * p.bands * p.groups;
  if (p.bands > 1) {
    tandem_internal_parallel_chunks(pool, tasks, 1, pwdwGroups, &p);
    tandem_internal_kernel_report(&failure);
    return;
  }
  if (threads > 1 && tasks % threads != 0) {
    // First the whole-tile group size nearest the first choice whose task
    // count divides among the threads: the 1x1 conv reads its filter from
    // the weight cache only where a group starts on a whole tile
    // (tandem_internal_conv1x1_rows), and AVX-512's tiles of 14 channels
    // rarely divided the groups cut below, so on two threads every call
    // packed its filter again (MNasNet at 2 threads, Zen 4: 5% of the
    // samples; 4.07 -> 3.86 ms).
    int64_t mr = tandem_internal_conv1x1_row_group(1);
    int64_t tiles = std::max<int64_t>(1, group / mr), tileGroup = 0;
    for (int64_t d = 1; d <= tiles && !tileGroup; ++d)
      for (int64_t j : {tiles - d, tiles + d})
        if (!tileGroup && j >= 1 &&
            (n * ((c + j * mr - 1) / (j * mr))) % threads == 0)
          tileGroup = j * mr;
    if (tileGroup) {
      p.group = tileGroup;
    } else {
      int64_t groups = p.groups;
      while ((n * groups) % threads != 0)
        ++groups;
      p.group = (c + groups - 1) / groups;
    }
    p.groups = (c + p.group - 1) / p.group;
  }
  // Chunks that divide among the threads: the pool's default, about four
  // chunks a thread, gave 20 tasks (960 channels in groups of 48) to two
  // threads as 3 + 4 chunks of 3.
  tandem_internal_parallel_chunks(
      pool, n * p.groups, tandem_internal_balanced_chunk(n * p.groups, threads),
      pwdwGroups, &p);
  tandem_internal_kernel_report(&failure);
}

} // namespace

extern "C" TANDEM_API void tandem_dwconv2d_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, float *output, int64_t sOn,
    int64_t sOc, int64_t sOh, int64_t oh, int64_t ow, int64_t strideH,
    int64_t strideW, int64_t dilationH, int64_t dilationW, int32_t flags) {
  (void)h;
  (void)w;
  dwconv(planeKernel(), ctx, n, c, input, sIn, sIc, sIh, sIw, kh, kw, filter,
         output, sOn, sOc, sOh, oh, ow, strideH, strideW, dilationH, dilationW,
         flags);
}

extern "C" TANDEM_API void tandem_dwconv2d_bias_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int32_t flags) {
  (void)h;
  (void)w;
  dwconv(planeKernel(), ctx, n, c, input, sIn, sIc, sIh, sIw, kh, kw, filter,
         output, sOn, sOc, sOh, oh, ow, strideH, strideW, dilationH, dilationW,
         flags, bias);
}

extern "C" TANDEM_API void tandem_dwconv2d_pad_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags) {
  int64_t pad[2] = {padTop, padLeft};
  dwconv(planeKernel(), ctx, n, c, input, sIn, sIc, sIh, sIw, kh, kw, filter,
         output, sOn, sOc, sOh, oh, ow, strideH, strideW, dilationH, dilationW,
         flags, bias, pad, h, w);
}

extern "C" TANDEM_API void tandem_dwconv2d_pad_packed_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags) {
  int64_t pad[2] = {padTop, padLeft};
  dwconv(planeKernel(), ctx, n, c, input, sIn, sIc, sIh, sIw, kh, kw, filter,
         output, sOn, sOc, sOh, oh, ow, strideH, strideW, dilationH, dilationW,
         flags, bias, pad, h, w, /*packedOutput=*/true);
}

extern "C" TANDEM_API void tandem_conv1x1_dwconv2d_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t k, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIk, int64_t sIh, int64_t sIw,
    int64_t c, const float *pwFilter, const float *pwBias, int32_t pwFlags,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags) {
  conv1x1Dwconv(ctx, n, k, h, w, input, sIn, sIk, sIh, sIw, c, pwFilter, pwBias,
                pwFlags, kh, kw, filter, bias, output, sOn, sOc, sOh, oh, ow,
                strideH, strideW, dilationH, dilationW, padTop, padLeft, flags,
                /*packedOutput=*/false);
}

extern "C" TANDEM_API void tandem_conv1x1_dwconv2d_packed_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t k, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIk, int64_t sIh, int64_t sIw,
    int64_t c, const float *pwFilter, const float *pwBias, int32_t pwFlags,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags) {
  conv1x1Dwconv(ctx, n, k, h, w, input, sIn, sIk, sIh, sIw, c, pwFilter, pwBias,
                pwFlags, kh, kw, filter, bias, output, sOn, sOc, sOh, oh, ow,
                strideH, strideW, dilationH, dilationW, padTop, padLeft, flags,
                /*packedOutput=*/true);
}

bool tandem_internal_dwconv2d_f32_on(
    const char *isa, const tandem_exec_ctx_t *ctx, int64_t n, int64_t c,
    int64_t h, int64_t w, const float *input, int64_t sIn, int64_t sIc,
    int64_t sIh, int64_t sIw, int64_t kh, int64_t kw, const float *filter,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int32_t flags, const float *bias, const int64_t *pad) {
  PlaneKernel plane = planeKernelByName(isa);
  if (!plane)
    return false;
  dwconv(plane, ctx, n, c, input, sIn, sIc, sIh, sIw, kh, kw, filter, output,
         sOn, sOc, sOh, oh, ow, strideH, strideW, dilationH, dilationW, flags,
         bias, pad, h, w);
  return true;
}
