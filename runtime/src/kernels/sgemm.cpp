//===- sgemm.cpp - f32 matrix multiply called by generated code -----------===//
//
// tandem_sgemm_f32: C = A * B (or C += A * B) for strided f32 operands, the
// kernel behind every f32 contraction Tandem compiles for the CPU (matmul,
// gemm, batch matmul, conv2d after im2col).
//
// The classic Goto/BLIS structure:
//   for each K block of KC:            (pack B's KC x NC block, in parallel)
//     for each (M block, N block) task, spread over the thread pool:
//       pack the task's MC x KC block of A (thread-local, L2-sized)
//       for each MR-row micro-panel of A (stays in L1):
//         for each NR-column micro-panel of B (streams from L2):
//           a register-blocked MR x NR micro-kernel of FMAs
// The micro-kernel is picked once per process from the CPU's features:
// AVX-512 (14 x 32: 28 zmm accumulators), AVX2+FMA (6 x 16) or portable C.
//
// A product of cached weights and a single row or column skips all of that
// (gemvCached, gemv.h): the weights stream once, in one K block.
//
// Packing zero-pads ragged edges, so micro-kernels always run full tiles;
// edge tiles go through a small buffer and only their valid part is stored.
// Scratch buffers are thread-local, of fixed size, allocated on a thread's
// first call and then reused: nothing is allocated in steady state.
//
//===----------------------------------------------------------------------===//

#include "kernels/activation.h"
#include "kernels/gemv.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "kernels/partial_store.h"
#include "kernels/scratch.h"
#include "kernels/sgemm_internal.h"
#include "kernels/winograd_internal.h"
#include "tandem/runtime.h"
#include "thread_pool_internal.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TANDEM_X86 1
#endif

namespace {

// The fused epilogues (activation.h).
using tandem_internal::applyEpilogue;
using tandem_internal::Epilogue;
using tandem_internal::epilogue16;
using tandem_internal::epilogue8;
using tandem_internal::epilogueOf;
using tandem_internal::isLongEpilogue;
using tandem_internal::kHardSwish;
using tandem_internal::kNoEpilogue;
using tandem_internal::kRelu;
using tandem_internal::kRelu6;
using tandem_internal::kSilu;
using tandem_internal::longEpilogueRows16;
using tandem_internal::shortEpilogue16;

/// What a tile adds to its products: row[i] on its row i (a conv's
/// per-channel bias) and col[j] on its column j (a dense layer's bias),
/// each pointing at the tile's first row or column, or null.
struct TileBias {
  const float *row = nullptr;
  const float *col = nullptr;
  explicit operator bool() const { return row || col; }
};

/// C's MR x NR tile at `c` (row stride ldc) becomes epi(prior + A_panel *
/// B_panel), prior being what the tile held (when accumulating), plus
/// bias.col[j], plus bias.row[i], added in that order (a missing term is
/// left out, not added as zero). pa is an MR-row packed panel (k-major, MR
/// floats per step); pb holds NR floats per step, ldb floats apart (NR when
/// packed, B's row stride when B is read in place).
using MicroKernel = void (*)(int64_t k, const float *pa, const float *pb,
                             int64_t ldb, float *c, int64_t ldc,
                             bool accumulate, Epilogue epi, TileBias bias);

/// The same for an edge tile: its first `rows` rows (of the MR the packed A
/// panel has) and first `cols` columns, the rest of C untouched.
using EdgeKernel = void (*)(int64_t k, const float *pa, const float *pb,
                            int64_t ldb, float *c, int64_t ldc, bool accumulate,
                            Epilogue epi, TileBias bias, int64_t cols);

/// A full MR x NR tile and one more column, the first of the next packed B
/// panel (at pbNext, ldb NR) when that is the matrix's last column: see
/// KernelIsa::plusOne.
using PlusOneKernel = void (*)(int64_t k, const float *pa, const float *pb,
                               const float *pbNext, float *c, int64_t ldc,
                               bool accumulate, Epilogue epi, TileBias bias);

/// `count` full MR x NR tiles side by side along N, each as MicroKernel
/// computes it: tile t reads the packed B panel at pb + t * panelStride and
/// writes C's columns from t * NR on (its column bias likewise).
using PanelsKernel = void (*)(int64_t count, int64_t k, const float *pa,
                              const float *pb, int64_t panelStride, float *c,
                              int64_t ldc, bool accumulate, Epilogue epi,
                              TileBias bias);

/// PanelsKernel with A read in place instead of from a packed panel: A
/// row-major (column stride 1), the tile's MR rows at a, a + lda, ....
using InPlacePanelsKernel = void (*)(int64_t count, int64_t k, const float *a,
                                     int64_t lda, const float *pb,
                                     int64_t panelStride, float *c, int64_t ldc,
                                     bool accumulate, Epilogue epi,
                                     TileBias bias);

/// The shortest K block of any family (KernelIsa::kc, which sizes the
/// packing buffers).
constexpr int64_t kMinKC = 256;

/// The first rows of a packed A panel (fewer than MR, a number fixed by the
/// kernel) times several full packed B panels side by side (how many, also
/// fixed): panel t at pb + t * panelStride gives C's columns from t * NR on,
/// each element as the edge kernel computes it. See KernelIsa::wideEdge.
using WideEdgeKernel = void (*)(int64_t k, const float *pa, const float *pb,
                                int64_t panelStride, float *c, int64_t ldc,
                                bool accumulate, Epilogue epi, TileBias bias);

/// A wide edge kernel and how many panels it takes at once.
struct WideEdge {
  int64_t panels;
  WideEdgeKernel kernel;
};

/// Wide edge kernels by row count (1-3), each in the order they are tried:
/// the widest while enough full panels are left, then a narrower one
/// (panels 0: none).
using WideEdges = WideEdge[3][2];

struct KernelIsa {
  int64_t mr;
  int64_t nr;
  MicroKernel kernel;
  /// The same, also prefetching into L2 the next packed A panel (for the
  /// last B panel an A panel meets) or the next packed B panel (for the
  /// first A panel a B panel meets, when B comes from the weight cache):
  /// with few panels on the other side, that operand streams from memory
  /// and the FMAs would wait for it.
  MicroKernel kernelNextA;
  MicroKernel kernelNextB;
  const char *name;
  /// Edge kernels by row count (edge[rows - 1]), computing only those rows
  /// and storing only the tile's columns in C (masked stores); null where
  /// the ISA has none: the kernel then fills a whole tile buffer that
  /// storeEdge copies.
  const EdgeKernel *edge = nullptr;
  /// A matrix-vector product on one packed panel of MR or NR floats a row
  /// (gemv.h).
  tandem_internal::GemvKernel gemv = nullptr;
  /// AVX2: a tile of NR + 1 columns, for a matrix whose last panel has one
  /// column (a 7x7 image's 49 pixels: 3 x 16 + 1), which an edge tile would
  /// compute with a whole vector per row (6 FMAs a step for 6 results);
  /// null elsewhere (AVX-512's 32-wide panels hold 17 columns in one).
  PlusOneKernel plusOne = nullptr;
  /// AVX2: the micro-kernel (plain, and prefetching the next B panel) over
  /// a run of full tiles, in one call: computeTasks calls it for a task's
  /// panels before its last (see panelsAvx2); null elsewhere.
  PanelsKernel panels = nullptr;
  PanelsKernel panelsNextB = nullptr;
  /// AVX2: edge tiles of 1-3 rows across several full panels at once
  /// ((*wideEdge)[rows - 1]); null elsewhere. A matrix of 128 rows leaves 2
  /// rows after 21 panels of 6: BERT's GEMMs spent 2.7% of their time on
  /// them, for 1.6% of the FMAs.
  const WideEdges *wideEdge = nullptr;
  /// The longest K block (at least kMinKC): an MR x KC panel of A, read
  /// NR-panel after panel, stays in L1 while B's panels stream from L2.
  /// Longer blocks take fewer passes over C and fewer tile starts: AVX2's
  /// 6-row panels take 512 (12 KiB; longKBlock), which on Zen 3 ran the
  /// MLP's 64 x 512 x 784 GEMM 2.0% and the 1024^3 one 3.2% faster than
  /// 256 (384 and 768 measured within 1% of 512). AVX-512's 14-row panels
  /// take 512 (28 KiB) where the L2 has 1 MiB a core: on Zen 4 the 1024^3
  /// matmul 2.1%, ResNet-50 batch 8 1.9%, the MLP 1.1% faster than 256.
  int64_t kc = kMinKC;
  /// AVX2 and AVX-512: PanelsKernel reading a row-major A in place (plain,
  /// and prefetching the next B panel), for full tiles of an A that is not
  /// cached: no packing of A, which took 2-3% of the MLP's and the
  /// Transformer layer's time on AVX2 (the transposes of packRowMajor6),
  /// 1.5% of BERT's and the Transformer layer's on AVX-512
  /// (packRowMajor14). Null on the portable family.
  InPlacePanelsKernel panelsInPlace = nullptr;
  InPlacePanelsKernel panelsInPlaceNextB = nullptr;
};

/// Which packed panel a micro-kernel prefetches while it computes.
enum class NextPanel { None, A, B };

constexpr int64_t kMCPanels = 12; // M block, in MR panels (L2 with B's part)
constexpr int64_t kNCPanelsPerTask = 8; // N columns per task, in NR panels
constexpr int64_t kNC = 4096;           // N block packed at once (L3)
/// The most K blocks, and the most packed B floats (1 MiB), for which the
/// tasks of a multithreaded GEMM run every K block without a barrier
/// between them (gemm2D's allK); the floats fit in the K-block buffer.
constexpr int64_t kMaxAllKBlocks = 32;
constexpr size_t kAllKBFloats = 256 * 1024;
static_assert(kAllKBFloats <= size_t(kMinKC * kNC), "whole B fits the buffer");

//===----------------------------------------------------------------------===//
// Micro-kernels
//===----------------------------------------------------------------------===//

/// `v` plus a tile element's prior (MicroKernel): what `out` holds when
/// accumulating, bias.col[j], bias.row[i], in that order.
inline float withPrior(float v, const float *out, bool accumulate,
                       TileBias bias, int64_t i, int64_t j) {
  if (!accumulate && !bias)
    return v;
  float prior;
  bool have = accumulate;
  if (accumulate)
    prior = *out;
  if (bias.col) {
    prior = have ? prior + bias.col[j] : bias.col[j];
    have = true;
  }
  if (bias.row)
    prior = have ? prior + bias.row[i] : bias.row[i];
  return prior + v;
}

void kernelPortable(int64_t k, const float *pa, const float *pb, int64_t ldb,
                    float *c, int64_t ldc, bool accumulate, Epilogue epi,
                    TileBias bias) {
  constexpr int MR = 4, NR = 8;
  float acc[MR][NR] = {};
  for (int64_t p = 0; p < k; ++p, pa += MR, pb += ldb)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j)
        acc[i][j] += pa[i] * pb[j];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) {
      c[i * ldc + j] = applyEpilogue(
          withPrior(acc[i][j], c + i * ldc + j, accumulate, bias, i, j), epi);
    }
}

#if TANDEM_X86
/// The prior of 8 tile elements of one row (MicroKernel), when there is
/// one: `held` (C's values, when accumulating), plus `col` (the column
/// bias, when hasCol), plus *row broadcast (when row is not null), in that
/// order.
__attribute__((target("avx2,fma"))) inline __m256
prior8(__m256 held, bool accumulate, bool hasCol, __m256 col,
       const float *row) {
  __m256 p = held;
  bool have = accumulate;
  if (hasCol) {
    p = have ? _mm256_add_ps(p, col) : col;
    have = true;
  }
  if (row) {
    __m256 r = _mm256_set1_ps(*row);
    p = have ? _mm256_add_ps(p, r) : r;
  }
  return p;
}

/// prior8 for 16 elements.
__attribute__((target("avx512f"))) inline __m512
prior16(__m512 held, bool accumulate, bool hasCol, __m512 col,
        const float *row) {
  __m512 p = held;
  bool have = accumulate;
  if (hasCol) {
    p = have ? _mm512_add_ps(p, col) : col;
    have = true;
  }
  if (row) {
    __m512 r = _mm512_set1_ps(*row);
    p = have ? _mm512_add_ps(p, r) : r;
  }
  return p;
}

/// Stores column j of an edge tile held as one vector over its rows (lane
/// i is row i; `rows` masks the tile's rows) into C (row stride ldc), each
/// element with its prior and epilogue as MicroKernel gives them: a gather
/// of C when accumulating, the scatter of the results. Rows too far apart
/// for 32-bit gather offsets take the scalar path.
__attribute__((target("avx512f"))) void
storeColumn16(__m512 v, float *c, int64_t ldc, __mmask16 rows, bool accumulate,
              Epilogue epi, TileBias bias, int64_t j) {
  const __m512 zero = _mm512_setzero_ps();
  float *base = c + j;
  // The long epilogues are the caller's (longEpilogueRows16).
  if (isLongEpilogue(epi))
    epi = kNoEpilogue;
  if (ldc > INT32_MAX / 16) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, v);
    for (int i = 0; i < 16; ++i)
      if (rows >> i & 1) {
        float &out = base[i * ldc];
        out = applyEpilogue(withPrior(lanes[i], &out, accumulate, bias, i, j),
                            epi);
      }
    return;
  }
  const __m512i offsets = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(int32_t(ldc)));
  if (accumulate || bias) {
    __m512 held = accumulate
                      ? _mm512_mask_i32gather_ps(zero, rows, offsets, base, 4)
                      : zero;
    // The row bias is per lane: prior16's broadcast does not apply.
    __m512 p = held;
    bool have = accumulate;
    if (bias.col) {
      __m512 col = _mm512_set1_ps(bias.col[j]);
      p = have ? _mm512_add_ps(p, col) : col;
      have = true;
    }
    if (bias.row) {
      __m512 row = _mm512_maskz_loadu_ps(rows, bias.row);
      p = have ? _mm512_add_ps(p, row) : row;
    }
    v = _mm512_add_ps(p, v);
  }
  v = shortEpilogue16(v, epi);
  _mm512_mask_i32scatter_ps(base, rows, offsets, v, 4);
}

/// The AVX2 micro-kernel's body: a 6 x 16 tile (MicroKernel), inlined
/// into kernelAvx2 and panelsAvx2. With InPlaceA, `pa` is not a packed
/// panel but A itself, row-major: tile row i, step p at pa[i * lda + p]
/// (panelsInPlaceAvx2).
template <NextPanel Next, bool InPlaceA = false>
__attribute__((target("avx2,fma"), always_inline)) inline void
tileAvx2(int64_t k, const float *pa, const float *pb, int64_t ldb, float *c,
         int64_t ldc, bool accumulate, Epilogue epi, TileBias bias,
         int64_t lda = 0) {
  const __m256 zero = _mm256_setzero_ps();
#define TANDEM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define TANDEM_DECL(i)                                                         \
  __m256 c##i##0 = _mm256_setzero_ps(), c##i##1 = _mm256_setzero_ps();
  TANDEM_ROWS(TANDEM_DECL)
  // As in kernelAvx512.
  const float *nextA = pa + 6 * k, *nextB = pb + ldb * k;
  // In place, six row pointers indexed by the step (one add a step).
  const float *r0 = pa, *r1 = pa + lda, *r2 = pa + 2 * lda, *r3 = pa + 3 * lda,
              *r4 = pa + 4 * lda, *r5 = pa + 5 * lda;
  for (int64_t p = 0; p < k;
       ++p, pa += 6, pb += ldb, nextA += 6, nextB += ldb) {
    if constexpr (Next == NextPanel::A)
      _mm_prefetch(reinterpret_cast<const char *>(nextA), _MM_HINT_T1);
    if constexpr (Next == NextPanel::B)
      _mm_prefetch(reinterpret_cast<const char *>(nextB), _MM_HINT_T1);
    __m256 b0 = _mm256_loadu_ps(pb), b1 = _mm256_loadu_ps(pb + 8);
#define TANDEM_FMA(i)                                                          \
  {                                                                            \
    __m256 a = _mm256_broadcast_ss(InPlaceA ? r##i + p : pa + i);              \
    c##i##0 = _mm256_fmadd_ps(a, b0, c##i##0);                                 \
    c##i##1 = _mm256_fmadd_ps(a, b1, c##i##1);                                 \
  }
    TANDEM_ROWS(TANDEM_FMA)
  }
  const __m256 col0 = bias.col ? _mm256_loadu_ps(bias.col) : zero;
  const __m256 col1 = bias.col ? _mm256_loadu_ps(bias.col + 8) : zero;
#define TANDEM_STORE(i)                                                        \
  {                                                                            \
    float *row = c + i * ldc;                                                  \
    if (accumulate || bias) {                                                  \
      const float *rb = bias.row ? bias.row + i : nullptr;                     \
      __m256 h0 = accumulate ? _mm256_loadu_ps(row) : zero;                    \
      __m256 h1 = accumulate ? _mm256_loadu_ps(row + 8) : zero;                \
      c##i##0 =                                                                \
          _mm256_add_ps(prior8(h0, accumulate, bias.col, col0, rb), c##i##0);  \
      c##i##1 =                                                                \
          _mm256_add_ps(prior8(h1, accumulate, bias.col, col1, rb), c##i##1);  \
    }                                                                          \
    c##i##0 = epilogue8(c##i##0, epi);                                         \
    c##i##1 = epilogue8(c##i##1, epi);                                         \
    _mm256_storeu_ps(row, c##i##0);                                            \
    _mm256_storeu_ps(row + 8, c##i##1);                                        \
  }
  TANDEM_ROWS(TANDEM_STORE)
#undef TANDEM_ROWS
#undef TANDEM_DECL
#undef TANDEM_FMA
#undef TANDEM_STORE
}

template <NextPanel Next>
__attribute__((target("avx2,fma"))) void
kernelAvx2(int64_t k, const float *pa, const float *pb, int64_t ldb, float *c,
           int64_t ldc, bool accumulate, Epilogue epi, TileBias bias) {
  tileAvx2<Next>(k, pa, pb, ldb, c, ldc, accumulate, epi, bias);
}

/// PanelsKernel on AVX2: computeTasks' loop over a task's full tiles, here
/// so that each tile costs no indirect call, no arguments on the stack and
/// no reload of computeTasks' state spilled around the call. A 1x1 conv of
/// K = 24 (MobileNetV2's 24 -> 144 channels on 56x56) spent 10% of its
/// time in computeTasks itself, the tiles being 24 steps long.
template <NextPanel Next>
__attribute__((target("avx2,fma"))) void
panelsAvx2(int64_t count, int64_t k, const float *pa, const float *pb,
           int64_t panelStride, float *c, int64_t ldc, bool accumulate,
           Epilogue epi, TileBias bias) {
  for (int64_t t = 0; t < count; ++t, pb += panelStride, c += 16)
    tileAvx2<Next>(k, pa, pb, 16, c, ldc, accumulate, epi,
                   TileBias{bias.row, bias.col ? bias.col + 16 * t : nullptr});
}

/// InPlacePanelsKernel on AVX2: panelsAvx2 reading six rows of a
/// row-major A in place (tileAvx2's InPlaceA).
template <NextPanel Next>
__attribute__((target("avx2,fma"))) void
panelsInPlaceAvx2(int64_t count, int64_t k, const float *a, int64_t lda,
                  const float *pb, int64_t panelStride, float *c, int64_t ldc,
                  bool accumulate, Epilogue epi, TileBias bias) {
  for (int64_t t = 0; t < count; ++t, pb += panelStride, c += 16)
    tileAvx2<Next, true>(
        k, a, pb, 16, c, ldc, accumulate, epi,
        TileBias{bias.row, bias.col ? bias.col + 16 * t : nullptr}, lda);
}

/// An AVX2 edge tile of `Rows` rows (of the 6 of a packed A panel) and
/// `cols` columns (of 16) in `Halves` 8-column vectors, like
/// kernelAvx512EdgeHalves: masked loads and stores.
template <int Rows, int Halves>
__attribute__((target("avx2,fma"))) void
kernelAvx2EdgeHalves(int64_t k, const float *pa, const float *pb, int64_t ldb,
                     float *c, int64_t ldc, bool accumulate, Epilogue epi,
                     TileBias bias, int64_t cols) {
  const __m256 zero = _mm256_setzero_ps();
  __m256 acc[Rows][Halves];
#pragma GCC unroll 8
  for (int i = 0; i < Rows; ++i)
    for (int h = 0; h < Halves; ++h)
      acc[i][h] = _mm256_setzero_ps();
  const float *nextA = pa + 6 * k;
  for (int64_t p = 0; p < k; ++p, pa += 6, pb += ldb, nextA += 6) {
    _mm_prefetch(reinterpret_cast<const char *>(nextA), _MM_HINT_T1);
    __m256 b[Halves];
    for (int h = 0; h < Halves; ++h)
      b[h] = _mm256_loadu_ps(pb + 8 * h);
#pragma GCC unroll 8
    for (int i = 0; i < Rows; ++i) {
      __m256 a = _mm256_broadcast_ss(pa + i);
      for (int h = 0; h < Halves; ++h)
        acc[i][h] = _mm256_fmadd_ps(a, b[h], acc[i][h]);
    }
  }
  // Lane j of half h is loaded (accumulating, the column bias) and stored
  // when 8 h + j < cols; the stores are plain ones (partial_store.h).
  __m256i mask[Halves];
  for (int h = 0; h < Halves; ++h)
    mask[h] = tandem_internal::firstLanes(cols - 8 * h);
#pragma GCC unroll 8
  for (int i = 0; i < Rows; ++i) {
    float *row = c + i * ldc;
    for (int h = 0; h < Halves; ++h) {
      __m256 v = acc[i][h];
      if (accumulate || bias) {
        __m256 held =
            accumulate ? _mm256_maskload_ps(row + 8 * h, mask[h]) : zero;
        // The column bias is loaded here, not kept in an array of vectors
        // across the loop: GCC's sanitizer build clobbered such an array.
        __m256 col =
            bias.col ? _mm256_maskload_ps(bias.col + 8 * h, mask[h]) : zero;
        v = _mm256_add_ps(prior8(held, accumulate, bias.col, col,
                                 bias.row ? bias.row + i : nullptr),
                          v);
      }
      v = epilogue8(v, epi);
      tandem_internal::storeFirstAvx2(row + 8 * h, v, cols - 8 * h);
    }
  }
}

/// kernelAvx2EdgeHalves with one vector per row for up to 8 columns, two
/// for more.
template <int Rows>
__attribute__((target("avx2,fma"))) void
kernelAvx2Edge(int64_t k, const float *pa, const float *pb, int64_t ldb,
               float *c, int64_t ldc, bool accumulate, Epilogue epi,
               TileBias bias, int64_t cols) {
  if (cols <= 8)
    kernelAvx2EdgeHalves<Rows, 1>(k, pa, pb, ldb, c, ldc, accumulate, epi, bias,
                                  cols);
  else
    kernelAvx2EdgeHalves<Rows, 2>(k, pa, pb, ldb, c, ldc, accumulate, epi, bias,
                                  cols);
}

const EdgeKernel kAvx2Edges[6] = {kernelAvx2Edge<1>, kernelAvx2Edge<2>,
                                  kernelAvx2Edge<3>, kernelAvx2Edge<4>,
                                  kernelAvx2Edge<5>, kernelAvx2Edge<6>};

/// An AVX2 edge tile of `Rows` rows (1-3, of the 6 of a packed A panel)
/// across `Panels` full B panels side by side (WideEdgeKernel): 2 Rows
/// Panels accumulators, so that the FMA chains cover the FMA units'
/// latency, which a 16-column tile of one or two rows (2 or 4 chains) left
/// half idle. Each B vector is loaded once a step and meets the rows'
/// broadcasts (held in registers: 3 + 1 + 12 for 3 rows x 2 panels).
/// Every element is the same FMA chain as in kernelAvx2Edge, so the same
/// bits.
template <int Rows, int Panels>
__attribute__((target("avx2,fma"))) void
kernelAvx2EdgeWide(int64_t k, const float *pa, const float *pb,
                   int64_t panelStride, float *c, int64_t ldc, bool accumulate,
                   Epilogue epi, TileBias bias) {
  static_assert(Rows * Panels * 2 <= 12, "accumulators fit the registers");
  const __m256 zero = _mm256_setzero_ps();
  __m256 acc[Rows][Panels * 2];
#pragma GCC unroll 12
  for (int i = 0; i < Rows; ++i)
    for (int v = 0; v < Panels * 2; ++v)
      acc[i][v] = zero;
  for (int64_t p = 0; p < k; ++p, pa += 6, pb += 16) {
    __m256 a[Rows];
#pragma GCC unroll 3
    for (int i = 0; i < Rows; ++i)
      a[i] = _mm256_broadcast_ss(pa + i);
#pragma GCC unroll 8
    for (int v = 0; v < Panels * 2; ++v) {
      __m256 b = _mm256_loadu_ps(pb + (v / 2) * panelStride + 8 * (v % 2));
#pragma GCC unroll 3
      for (int i = 0; i < Rows; ++i)
        acc[i][v] = _mm256_fmadd_ps(a[i], b, acc[i][v]);
    }
  }
#pragma GCC unroll 3
  for (int i = 0; i < Rows; ++i) {
    float *row = c + i * ldc;
    const float *rb = bias.row ? bias.row + i : nullptr;
#pragma GCC unroll 8
    for (int v = 0; v < Panels * 2; ++v) {
      __m256 r = acc[i][v];
      if (accumulate || bias) {
        __m256 held = accumulate ? _mm256_loadu_ps(row + 8 * v) : zero;
        __m256 col = bias.col ? _mm256_loadu_ps(bias.col + 8 * v) : zero;
        r = _mm256_add_ps(prior8(held, accumulate, bias.col, col, rb), r);
      }
      _mm256_storeu_ps(row + 8 * v, epilogue8(r, epi));
    }
  }
}

/// AVX2's wide edge tiles by row count (1-3 rows; none for more, whose
/// 16-column tiles have enough chains): the widest first, then one of two
/// panels for what is left (a task of 8 panels: 3 + 3 + 2 for 2 rows).
const WideEdges kAvx2WideEdges = {
    {{4, kernelAvx2EdgeWide<1, 4>}, {2, kernelAvx2EdgeWide<1, 2>}},
    {{3, kernelAvx2EdgeWide<2, 3>}, {2, kernelAvx2EdgeWide<2, 2>}},
    {{2, kernelAvx2EdgeWide<3, 2>}, {0, nullptr}}};

/// One step of kernelAvx2PlusOne: `column` is A's 6 rows (lanes 0-5).
__attribute__((target("avx2,fma"), always_inline)) inline void
plusOneStep(__m256 (&acc)[6][2], __m256 &extra, const float *a, const float *b,
            const float *b17, __m256 column) {
  __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    __m256 ai = _mm256_broadcast_ss(a + i);
    acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
    acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
  }
  extra = _mm256_fmadd_ps(column, _mm256_broadcast_ss(b17), extra);
}

/// kernelAvx2 (prefetching the next A panel) and a 17th column: its 6
/// rows as one vector (the A panel's row of 6, read as 8 floats whose last
/// two are ignored; the last step's load masked, so nothing past the panel
/// is read) times the column's broadcast B value, one FMA a step. 16
/// registers: 12 accumulators, two B vectors, one broadcast and the extra
/// column (its A row a memory operand). Every element is the same FMA
/// chain as in kernelAvx2 or an edge tile, so the results are theirs bit
/// for bit. 7x7 layers (N = 49): 36 + 1 FMAs a step for 49 columns
/// instead of 36 + 6.
__attribute__((target("avx2,fma"))) void
kernelAvx2PlusOne(int64_t k, const float *pa, const float *pb,
                  const float *pbNext, float *c, int64_t ldc, bool accumulate,
                  Epilogue epi, TileBias bias) {
  if (k <= 0) {
    // No products: the prior alone, as kernelAvx2 and the edge store it.
    kernelAvx2<NextPanel::A>(k, pa, pb, 16, c, ldc, accumulate, epi, bias);
    kernelAvx2Edge<6>(k, pa, pbNext, 16, c + 16, ldc, accumulate, epi,
                      TileBias{bias.row, bias.col ? bias.col + 16 : nullptr},
                      1);
    return;
  }
  const __m256 zero = _mm256_setzero_ps();
  __m256 acc[6][2], extra = zero;
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i)
    acc[i][0] = acc[i][1] = zero;
  const float *nextA = pa + 6 * k;
  int64_t p = 0;
  for (; p + 1 < k; ++p, pa += 6, pb += 16, pbNext += 16, nextA += 6) {
    _mm_prefetch(reinterpret_cast<const char *>(nextA), _MM_HINT_T1);
    plusOneStep(acc, extra, pa, pb, pbNext, _mm256_loadu_ps(pa));
  }
  plusOneStep(
      acc, extra, pa, pb, pbNext,
      _mm256_maskload_ps(pa, _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0)));
  const __m256 col0 = bias.col ? _mm256_loadu_ps(bias.col) : zero;
  const __m256 col1 = bias.col ? _mm256_loadu_ps(bias.col + 8) : zero;
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, extra);
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    float *row = c + i * ldc;
    __m256 v0 = acc[i][0], v1 = acc[i][1];
    if (accumulate || bias) {
      const float *rb = bias.row ? bias.row + i : nullptr;
      __m256 h0 = accumulate ? _mm256_loadu_ps(row) : zero;
      __m256 h1 = accumulate ? _mm256_loadu_ps(row + 8) : zero;
      v0 = _mm256_add_ps(prior8(h0, accumulate, bias.col, col0, rb), v0);
      v1 = _mm256_add_ps(prior8(h1, accumulate, bias.col, col1, rb), v1);
    }
    _mm256_storeu_ps(row, epilogue8(v0, epi));
    _mm256_storeu_ps(row + 8, epilogue8(v1, epi));
    // Column 16 through the edge tiles' vector epilogue, lane 0.
    __m256 e = _mm256_set1_ps(lanes[i]);
    if (accumulate || bias) {
      const float *rb = bias.row ? bias.row + i : nullptr;
      __m256 h = accumulate ? _mm256_set1_ps(row[16]) : zero;
      __m256 col = bias.col ? _mm256_set1_ps(bias.col[16]) : zero;
      e = _mm256_add_ps(prior8(h, accumulate, bias.col, col, rb), e);
    }
    row[16] = _mm256_cvtss_f32(epilogue8(e, epi));
  }
}

/// The AVX-512 micro-kernel's body: a 14 x 32 tile (MicroKernel), inlined
/// into kernelAvx512 and panelsInPlaceAvx512. With InPlaceA, `pa` is A
/// itself, row-major: tile row i, step p at pa[i * lda + p].
template <NextPanel Next, bool InPlaceA = false>
__attribute__((target("avx512f"), always_inline)) inline void
tileAvx512(int64_t k, const float *pa, const float *pb, int64_t ldb, float *c,
           int64_t ldc, bool accumulate, Epilogue epi, TileBias bias,
           int64_t lda = 0) {
  const __m512 zero = _mm512_setzero_ps();
#define TANDEM_ROWS(X)                                                         \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)
#define TANDEM_DECL(i)                                                         \
  __m512 c##i##_0 = _mm512_setzero_ps(), c##i##_1 = _mm512_setzero_ps();
  TANDEM_ROWS(TANDEM_DECL)
  // Packed panels lie one after another, so the next one starts where this
  // one ends (KernelIsa::kernelNextA, kernelNextB).
  const float *nextA = pa + 14 * k, *nextB = pb + ldb * k;
  // In place: rows 0-6 from r0, rows 7-13 from r7, `lda` apart.
  const float *r0 = pa, *r7 = pa + 7 * lda;
  for (int64_t p = 0; p < k;
       ++p, pa += 14, pb += ldb, nextA += 14, nextB += ldb) {
    if constexpr (Next == NextPanel::A)
      _mm_prefetch(reinterpret_cast<const char *>(nextA), _MM_HINT_T1);
    if constexpr (Next == NextPanel::B) {
      _mm_prefetch(reinterpret_cast<const char *>(nextB), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char *>(nextB + 16), _MM_HINT_T1);
    }
    __m512 b0 = _mm512_loadu_ps(pb), b1 = _mm512_loadu_ps(pb + 16);
#define TANDEM_FMA(i)                                                          \
  {                                                                            \
    __m512 a = _mm512_set1_ps(                                                 \
        InPlaceA ? (i < 7 ? r0[i * lda + p] : r7[(i - 7) * lda + p]) : pa[i]); \
    c##i##_0 = _mm512_fmadd_ps(a, b0, c##i##_0);                               \
    c##i##_1 = _mm512_fmadd_ps(a, b1, c##i##_1);                               \
  }
    TANDEM_ROWS(TANDEM_FMA)
  }
  const __m512 col0 = bias.col ? _mm512_loadu_ps(bias.col) : zero;
  const __m512 col1 = bias.col ? _mm512_loadu_ps(bias.col + 16) : zero;
#define TANDEM_STORE(i)                                                        \
  {                                                                            \
    float *row = c + i * ldc;                                                  \
    if (accumulate || bias) {                                                  \
      const float *rb = bias.row ? bias.row + i : nullptr;                     \
      __m512 h0 = accumulate ? _mm512_loadu_ps(row) : zero;                    \
      __m512 h1 = accumulate ? _mm512_loadu_ps(row + 16) : zero;               \
      c##i##_0 = _mm512_add_ps(prior16(h0, accumulate, bias.col, col0, rb),    \
                               c##i##_0);                                      \
      c##i##_1 = _mm512_add_ps(prior16(h1, accumulate, bias.col, col1, rb),    \
                               c##i##_1);                                      \
    }                                                                          \
    c##i##_0 = shortEpilogue16(c##i##_0, epi);                                 \
    c##i##_1 = shortEpilogue16(c##i##_1, epi);                                 \
    _mm512_storeu_ps(row, c##i##_0);                                           \
    _mm512_storeu_ps(row + 16, c##i##_1);                                      \
  }
  TANDEM_ROWS(TANDEM_STORE)
  if (isLongEpilogue(epi))
    longEpilogueRows16(c, ldc, 14, 32, epi);
#undef TANDEM_ROWS
#undef TANDEM_DECL
#undef TANDEM_FMA
#undef TANDEM_STORE
}

template <NextPanel Next>
__attribute__((target("avx512f"))) void
kernelAvx512(int64_t k, const float *pa, const float *pb, int64_t ldb, float *c,
             int64_t ldc, bool accumulate, Epilogue epi, TileBias bias) {
  tileAvx512<Next>(k, pa, pb, ldb, c, ldc, accumulate, epi, bias);
}

/// InPlacePanelsKernel on AVX-512: full tiles reading fourteen rows of a
/// row-major A in place (tileAvx512's InPlaceA).
template <NextPanel Next>
__attribute__((target("avx512f"))) void
panelsInPlaceAvx512(int64_t count, int64_t k, const float *a, int64_t lda,
                    const float *pb, int64_t panelStride, float *c, int64_t ldc,
                    bool accumulate, Epilogue epi, TileBias bias) {
  for (int64_t t = 0; t < count; ++t, pb += panelStride, c += 32)
    tileAvx512<Next, true>(
        k, a, pb, 32, c, ldc, accumulate, epi,
        TileBias{bias.row, bias.col ? bias.col + 32 * t : nullptr}, lda);
}

/// An AVX-512 edge tile of `Rows` rows (of the 14 of a packed A panel) and
/// `cols` columns in `Halves` 16-column vectors (1 when cols <= 16, so a
/// narrow tile costs half the FMAs of a full one): only those rows' FMAs,
/// masked loads and stores of C. A partial-column tile is the last B panel
/// its A panel meets, so it prefetches the next A panel as
/// kernelAvx512<NextPanel::A> does.
template <int Rows, int Halves>
__attribute__((target("avx512f"))) void
kernelAvx512EdgeHalves(int64_t k, const float *pa, const float *pb, int64_t ldb,
                       float *c, int64_t ldc, bool accumulate, Epilogue epi,
                       TileBias bias, int64_t cols) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 acc[Rows][Halves];
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i)
    for (int h = 0; h < Halves; ++h)
      acc[i][h] = _mm512_setzero_ps();
  const float *nextA = pa + 14 * k;
  for (int64_t p = 0; p < k; ++p, pa += 14, pb += ldb, nextA += 14) {
    _mm_prefetch(reinterpret_cast<const char *>(nextA), _MM_HINT_T1);
    __m512 b[Halves];
    for (int h = 0; h < Halves; ++h)
      b[h] = _mm512_loadu_ps(pb + 16 * h);
#pragma GCC unroll 16
    for (int i = 0; i < Rows; ++i) {
      __m512 a = _mm512_set1_ps(pa[i]);
      for (int h = 0; h < Halves; ++h)
        acc[i][h] = _mm512_fmadd_ps(a, b[h], acc[i][h]);
    }
  }
  // Lane j of half h is stored when 16 h + j < cols.
  __mmask16 mask[Halves];
  for (int h = 0; h < Halves; ++h) {
    int64_t left = cols - 16 * h;
    mask[h] = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
  }
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i) {
    float *row = c + i * ldc;
    for (int h = 0; h < Halves; ++h) {
      __m512 v = acc[i][h];
      if (accumulate || bias) {
        __m512 held =
            accumulate ? _mm512_maskz_loadu_ps(mask[h], row + 16 * h) : zero;
        // Loaded here, not kept in an array (see kernelAvx2EdgeHalves).
        __m512 col =
            bias.col ? _mm512_maskz_loadu_ps(mask[h], bias.col + 16 * h) : zero;
        v = _mm512_add_ps(prior16(held, accumulate, bias.col, col,
                                  bias.row ? bias.row + i : nullptr),
                          v);
      }
      v = shortEpilogue16(v, epi);
      _mm512_mask_storeu_ps(row + 16 * h, mask[h], v);
    }
  }
  if (isLongEpilogue(epi))
    longEpilogueRows16(c, ldc, Rows, cols, epi);
}

/// An AVX-512 edge tile of `Rows` rows and 16 + Extra columns (a 7x7
/// image's 49 pixels leave 17): the first 16 columns as
/// kernelAvx512EdgeHalves<Rows, 1> computes them, and each extra column as
/// one vector over the rows (the packed A panel's step times B's element):
/// 16 + Extra FMAs per step instead of the 32 of a second 16-column vector.
/// Every element is summed in the same order and gets its prior and
/// epilogue the same way, so results are bit-identical to the two-vector
/// tile's.
template <int Rows, int Extra>
__attribute__((target("avx512f"))) void
kernelAvx512EdgeExtra(int64_t k, const float *pa, const float *pb, int64_t ldb,
                      float *c, int64_t ldc, bool accumulate, Epilogue epi,
                      TileBias bias) {
  const __m512 zero = _mm512_setzero_ps();
  const __mmask16 rowMask = __mmask16((1u << Rows) - 1);
  __m512 acc[Rows], extra[Extra];
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i)
    acc[i] = _mm512_setzero_ps();
  for (int e = 0; e < Extra; ++e)
    extra[e] = _mm512_setzero_ps();
  const float *nextA = pa + 14 * k;
  for (int64_t p = 0; p < k; ++p, pa += 14, pb += ldb, nextA += 14) {
    _mm_prefetch(reinterpret_cast<const char *>(nextA), _MM_HINT_T1);
    __m512 b = _mm512_loadu_ps(pb);
#pragma GCC unroll 16
    for (int i = 0; i < Rows; ++i)
      acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(pa[i]), b, acc[i]);
    __m512 column = _mm512_maskz_loadu_ps(rowMask, pa);
    for (int e = 0; e < Extra; ++e)
      extra[e] = _mm512_fmadd_ps(column, _mm512_set1_ps(pb[16 + e]), extra[e]);
  }
  const __m512 col = bias.col ? _mm512_loadu_ps(bias.col) : zero;
#pragma GCC unroll 16
  for (int i = 0; i < Rows; ++i) {
    float *row = c + i * ldc;
    __m512 v = acc[i];
    if (accumulate || bias) {
      __m512 held = accumulate ? _mm512_loadu_ps(row) : zero;
      v = _mm512_add_ps(prior16(held, accumulate, bias.col, col,
                                bias.row ? bias.row + i : nullptr),
                        v);
    }
    v = shortEpilogue16(v, epi);
    _mm512_storeu_ps(row, v);
  }
  for (int e = 0; e < Extra; ++e)
    storeColumn16(extra[e], c, ldc, rowMask, accumulate, epi, bias, 16 + e);
  if (isLongEpilogue(epi))
    longEpilogueRows16(c, ldc, Rows, 16 + Extra, epi);
}

/// An AVX-512 edge tile of `Rows` rows and `Cols` (at most 4) columns (a
/// 14x14 image's 196 pixels leave 4): each column as one vector over the
/// rows, as kernelAvx512EdgeExtra computes its extra columns, so Cols FMAs
/// per step instead of the Rows of a 16-column vector per row. Results are
/// bit-identical to a full tile's.
template <int Rows, int Cols>
__attribute__((target("avx512f"))) void
kernelAvx512EdgeColumns(int64_t k, const float *pa, const float *pb,
                        int64_t ldb, float *c, int64_t ldc, bool accumulate,
                        Epilogue epi, TileBias bias) {
  const __mmask16 rowMask = __mmask16((1u << Rows) - 1);
  __m512 acc[Cols];
  for (int e = 0; e < Cols; ++e)
    acc[e] = _mm512_setzero_ps();
  const float *nextA = pa + 14 * k;
  for (int64_t p = 0; p < k; ++p, pa += 14, pb += ldb, nextA += 14) {
    _mm_prefetch(reinterpret_cast<const char *>(nextA), _MM_HINT_T1);
    __m512 column = _mm512_maskz_loadu_ps(rowMask, pa);
    for (int e = 0; e < Cols; ++e)
      acc[e] = _mm512_fmadd_ps(column, _mm512_set1_ps(pb[e]), acc[e]);
  }
  for (int e = 0; e < Cols; ++e)
    storeColumn16(acc[e], c, ldc, rowMask, accumulate, epi, bias, e);
  if (isLongEpilogue(epi))
    longEpilogueRows16(c, ldc, Rows, Cols, epi);
}

/// kernelAvx512EdgeColumns for up to 4 columns when that is fewer FMAs
/// than rows, kernelAvx512EdgeHalves with one vector per row for up to 16
/// columns, kernelAvx512EdgeExtra for 17 or 18, two vectors for more.
template <int Rows>
__attribute__((target("avx512f"))) void
kernelAvx512Edge(int64_t k, const float *pa, const float *pb, int64_t ldb,
                 float *c, int64_t ldc, bool accumulate, Epilogue epi,
                 TileBias bias, int64_t cols) {
  if (cols < Rows && cols <= 4) {
    switch (cols) {
    case 1:
      return kernelAvx512EdgeColumns<Rows, 1>(k, pa, pb, ldb, c, ldc,
                                              accumulate, epi, bias);
    case 2:
      return kernelAvx512EdgeColumns<Rows, 2>(k, pa, pb, ldb, c, ldc,
                                              accumulate, epi, bias);
    case 3:
      return kernelAvx512EdgeColumns<Rows, 3>(k, pa, pb, ldb, c, ldc,
                                              accumulate, epi, bias);
    default:
      return kernelAvx512EdgeColumns<Rows, 4>(k, pa, pb, ldb, c, ldc,
                                              accumulate, epi, bias);
    }
  }
  if (cols <= 16)
    kernelAvx512EdgeHalves<Rows, 1>(k, pa, pb, ldb, c, ldc, accumulate, epi,
                                    bias, cols);
  else if (cols == 17)
    kernelAvx512EdgeExtra<Rows, 1>(k, pa, pb, ldb, c, ldc, accumulate, epi,
                                   bias);
  else if (cols == 18)
    kernelAvx512EdgeExtra<Rows, 2>(k, pa, pb, ldb, c, ldc, accumulate, epi,
                                   bias);
  else
    kernelAvx512EdgeHalves<Rows, 2>(k, pa, pb, ldb, c, ldc, accumulate, epi,
                                    bias, cols);
}

const EdgeKernel kAvx512Edges[14] = {
    kernelAvx512Edge<1>,  kernelAvx512Edge<2>,  kernelAvx512Edge<3>,
    kernelAvx512Edge<4>,  kernelAvx512Edge<5>,  kernelAvx512Edge<6>,
    kernelAvx512Edge<7>,  kernelAvx512Edge<8>,  kernelAvx512Edge<9>,
    kernelAvx512Edge<10>, kernelAvx512Edge<11>, kernelAvx512Edge<12>,
    kernelAvx512Edge<13>, kernelAvx512Edge<14>};
#endif

/// The longest K block (KernelIsa::kc) of a family whose blocks of 512
/// need `minL2` bytes of L2 a core: 512 where sysconf reports at least
/// that, 256 where it reports less. AVX2 needs 512 KiB (a task's B block,
/// 512 x 128 floats, and an M block of A, 72 x 512, take 400 KiB of it; an
/// L2 of 256 KiB, as on Intel's client cores, would not hold them), AVX-512
/// 1 MiB (B 512 x 256 floats, A 168 x 512: 848 KiB).
int64_t longKBlock(long minL2) {
#if defined(_SC_LEVEL2_CACHE_SIZE)
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0 && l2 < minL2)
    return 256;
#endif
  return 512;
}

/// The micro-kernel family called `name` ("avx512", "avx2", "portable"),
/// if this CPU can run it.
bool isaByName(const char *name, KernelIsa &out) {
  if (std::strcmp(name, "portable") == 0) {
    out = {4,
           8,
           kernelPortable,
           kernelPortable,
           kernelPortable,
           "portable",
           nullptr,
           tandem_internal::gemvPanelPortable};
    return true;
  }
#if TANDEM_X86
  __builtin_cpu_init();
  if (std::strcmp(name, "avx512") == 0 && __builtin_cpu_supports("avx512f")) {
    out = {14,
           32,
           kernelAvx512<NextPanel::None>,
           kernelAvx512<NextPanel::A>,
           kernelAvx512<NextPanel::B>,
           "avx512",
           kAvx512Edges,
           tandem_internal::gemvPanelAvx512};
    out.kc = longKBlock(1 << 20);
    out.panelsInPlace = panelsInPlaceAvx512<NextPanel::None>;
    out.panelsInPlaceNextB = panelsInPlaceAvx512<NextPanel::B>;
    return true;
  }
  if (std::strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    out = {6,
           16,
           kernelAvx2<NextPanel::None>,
           kernelAvx2<NextPanel::A>,
           kernelAvx2<NextPanel::B>,
           "avx2",
           kAvx2Edges,
           tandem_internal::gemvPanelAvx2,
           kernelAvx2PlusOne,
           panelsAvx2<NextPanel::None>,
           panelsAvx2<NextPanel::B>,
           &kAvx2WideEdges,
           longKBlock(512 * 1024),
           panelsInPlaceAvx2<NextPanel::None>,
           panelsInPlaceAvx2<NextPanel::B>};
    return true;
  }
#endif
  return false;
}

/// The fastest family this CPU runs, within TANDEM_CPU_KERNELS if set.
KernelIsa selectIsa() {
  const char *force = std::getenv("TANDEM_CPU_KERNELS");
  bool any = !force || !*force;
  KernelIsa chosen;
  for (const char *name : {"avx512", "avx2"})
    if ((any || std::strcmp(force, name) == 0) && isaByName(name, chosen))
      return chosen;
  isaByName("portable", chosen);
  return chosen;
}

const KernelIsa &isa() {
  static const KernelIsa chosen = selectIsa();
  return chosen;
}

//===----------------------------------------------------------------------===//
// Scratch
//===----------------------------------------------------------------------===//

using tandem_internal::Scratch;

thread_local Scratch packedA;
thread_local Scratch packedB;
/// The vector operand of a matrix-vector product, made contiguous.
thread_local Scratch gemvVector;
/// A matrix-vector product's weights packed for one call (no cache).
thread_local Scratch gemvPacked;
/// What this thread's packedA holds: M block packedAMBlock of the block
/// step numbered packedAStep (steps are numbered from stepCounter), so that
/// the chunks of one step that a thread runs pack each M block once.
thread_local uint64_t packedAStep = 0;
thread_local int64_t packedAMBlock = -1;
/// Whether packedA holds that M block's every panel, or only its last,
/// short one (the full panels read in place: KernelIsa::panelsInPlace).
thread_local bool packedAWhole = false;
std::atomic<uint64_t> stepCounter{0};
/// Which B panels this thread's packedB holds (stepTasks): entry
/// `step * panels + panel` is the serial of the block step whose panel it
/// packed there. A step's serial is never reused, so a stale entry never
/// matches. A K block has at most kNC / 8 panels (512), and gemm2D's allK
/// at most 256 over all its K blocks: its panels times NR (8 or more)
/// times K are at most kAllKBFloats floats, and its K blocks are at least
/// half of KernelIsa::kc (256 or more) long.
constexpr int64_t kOwnPanelMarks = 4096;
thread_local uint64_t ownPanelSerial[kOwnPanelMarks];

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

#if TANDEM_X86
/// Transposes the 16 x 16 floats in r: afterwards r[j] holds what was
/// column j, row i in lane i.
__attribute__((target("avx512f"))) inline void transpose16x16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
    __m512d c = _mm512_castps_pd(t[4 * i + 2]);
    __m512d d = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      t[8 * i + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0x88);
      t[8 * i + j + 4] =
          _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0xdd);
    }
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
    r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xdd);
  }
}

/// packAFixed<14> of a full panel of a row-major A (cs = 1), 16 columns at
/// a time: 14 row loads, a 16 x 16 transpose (two zero rows), 16 masked
/// stores of 14 floats, instead of 224 scalar moves. Returns how many
/// columns it packed (a multiple of 16); the caller packs the rest.
__attribute__((target("avx512f"))) int64_t
packRowMajor14(const float *base, int64_t rs, int64_t k, float *out) {
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    __m512 r[16];
    for (int i = 0; i < 14; ++i)
      r[i] = _mm512_loadu_ps(base + i * rs + p);
    r[14] = r[15] = _mm512_setzero_ps();
    transpose16x16(r);
    for (int j = 0; j < 16; ++j)
      _mm512_mask_storeu_ps(out + (p + j) * 14, __mmask16(0x3FFF), r[j]);
  }
  return p;
}

/// packAFixed<6> of a full panel of a row-major A (cs = 1), 8 columns at a
/// time: 6 row loads, an 8 x 8 transpose (two zero rows) and two stores (4
/// + 2 floats) per column. Returns how many columns it packed.
__attribute__((target("avx2,fma"))) int64_t
packRowMajor6(const float *base, int64_t rs, int64_t k, float *out) {
  int64_t p = 0;
  const __m256 zero = _mm256_setzero_ps();
  for (; p + 8 <= k; p += 8) {
    __m256 r0 = _mm256_loadu_ps(base + p), r1 = _mm256_loadu_ps(base + rs + p);
    __m256 r2 = _mm256_loadu_ps(base + 2 * rs + p);
    __m256 r3 = _mm256_loadu_ps(base + 3 * rs + p);
    __m256 r4 = _mm256_loadu_ps(base + 4 * rs + p);
    __m256 r5 = _mm256_loadu_ps(base + 5 * rs + p);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = zero;
    // Rows 0-3 of columns {0,4}, {1,5}, {2,6}, {3,7} and rows 4-7 likewise.
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44),
           u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44),
           u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44),
           u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t6, 0x44),
           u7 = _mm256_shuffle_ps(t5, t6, 0xEE);
    __m256 lo[4] = {u0, u1, u2, u3}, hi[4] = {u4, u5, u6, u7};
    for (int j = 0; j < 4; ++j) {
      // Column j: rows 0-3 in lo[j]'s low half, rows 4-5 in hi[j]'s low
      // half; column j + 4 in the high halves.
      float *c0 = out + (p + j) * 6, *c1 = out + (p + j + 4) * 6;
      _mm_storeu_ps(c0, _mm256_castps256_ps128(lo[j]));
      _mm_storel_pi(reinterpret_cast<__m64 *>(c0 + 4),
                    _mm256_castps256_ps128(hi[j]));
      _mm_storeu_ps(c1, _mm256_extractf128_ps(lo[j], 1));
      _mm_storel_pi(reinterpret_cast<__m64 *>(c1 + 4),
                    _mm256_extractf128_ps(hi[j], 1));
    }
  }
  return p;
}
#endif

/// Packs rows [0, m) x columns [0, k) of A (strides rs, cs) into MR-row
/// panels, k-major, zero-padding the last panel to MR rows.
template <int64_t MR>
void packAFixed(const float *a, int64_t rs, int64_t cs, int64_t m, int64_t k,
                float *out) {
  for (int64_t i0 = 0; i0 < m; i0 += MR) {
    int64_t rows = std::min(MR, m - i0);
    const float *base = a + i0 * rs;
    if (rows == MR && cs == 1) {
      // A row-major A (activations) is a transpose per panel. MR says the
      // ISA: 14 rows for AVX-512, 6 for AVX2 (chosen only where the CPU
      // has it).
      int64_t p = 0;
#if TANDEM_X86
      if constexpr (MR == 14)
        p = packRowMajor14(base, rs, k, out);
      if constexpr (MR == 6)
        p = packRowMajor6(base, rs, k, out);
#endif
      for (; p < k; ++p)
        for (int64_t i = 0; i < MR; ++i)
          out[p * MR + i] = base[i * rs + p];
    } else if (rows == MR && rs == 1) {
      for (int64_t p = 0; p < k; ++p)
        for (int64_t i = 0; i < MR; ++i)
          out[p * MR + i] = base[p * cs + i];
    } else {
      for (int64_t p = 0; p < k; ++p) {
        for (int64_t i = 0; i < rows; ++i)
          out[p * MR + i] = base[i * rs + p * cs];
        for (int64_t i = rows; i < MR; ++i)
          out[p * MR + i] = 0.0f;
      }
    }
    out += MR * k;
  }
}

void packA(const float *a, int64_t rs, int64_t cs, int64_t m, int64_t k,
           int64_t mr, float *out) {
  switch (mr) {
  case 14:
    return packAFixed<14>(a, rs, cs, m, k, out);
  case 6:
    return packAFixed<6>(a, rs, cs, m, k, out);
  default:
    return packAFixed<4>(a, rs, cs, m, k, out);
  }
}

/// Packs the NR-column panel of B starting at column j0 (rows [0, k)) into
/// out (k-major, NR floats per row), zero-padding past column n.
template <int64_t NR>
void packBPanelFixed(const float *b, int64_t rs, int64_t cs, int64_t j0,
                     int64_t n, int64_t k, float *out) {
  int64_t cols = std::min(NR, n - j0);
  if (cols == NR && cs == 1) {
    // A fixed-size copy the compiler turns into vector moves.
    for (int64_t p = 0; p < k; ++p)
      std::memcpy(out + p * NR, b + p * rs + j0, NR * sizeof(float));
    return;
  }
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < cols; ++j)
      out[p * NR + j] = b[p * rs + (j0 + j) * cs];
    for (int64_t j = cols; j < NR; ++j)
      out[p * NR + j] = 0.0f;
  }
}

void packBPanel(const float *b, int64_t rs, int64_t cs, int64_t j0, int64_t n,
                int64_t k, int64_t nr, float *out) {
  switch (nr) {
  case 32:
    return packBPanelFixed<32>(b, rs, cs, j0, n, k, out);
  case 16:
    return packBPanelFixed<16>(b, rs, cs, j0, n, k, out);
  default:
    return packBPanelFixed<8>(b, rs, cs, j0, n, k, out);
  }
}

//===----------------------------------------------------------------------===//
// The blocked driver
//===----------------------------------------------------------------------===//

/// One (K block, N block) step, shared by the tasks that compute it.
/// A convolution's input seen as the GEMM operand B = im2col(input):
/// B[(c, i, j)][(y, x)] = image[c][y*sh + i*dh][x*sw + j*dw] (the image is
/// already padded). Its panels are gathered straight from the image.
struct ConvImage {
  const float *image; // one batch element
  int64_t sC, sH, sW; // the image's element strides
  int64_t kh, kw, ow, sh, sw, dh, dw;
};

struct BlockStep {
  const KernelIsa *isa;
  const float *a;
  int64_t rsA, csA;
  const float *b;
  int64_t rsB, csB;
  float *c;
  int64_t rsC, csC;
  int64_t m, kc, nc;    // this step's extents (A and B already offset)
  int64_t mBlocks;      // M blocks: MR panels split evenly, <= kMCPanels
  int64_t nTasks;       // N tasks: NR panels split evenly
  bool accumulate;      // add to C (a later K block, or the caller asked)
  Epilogue epi;         // the fused epilogue (last K block only)
  float *bPacked;       // the packed KC x NC block of B
  bool bCached;         // bPacked is in the weight cache (not just packed)
  const float *aCached; // A's panels for this K block, all M, or nullptr
  tandem_internal_kernel_failure *failure;
  const ConvImage *conv = nullptr; // B is this image's im2col
  int64_t pc = 0, jc = 0;          // the step's origin in B (conv only)
  uint64_t serial = 0;             // from stepCounter, never 0
  /// Added to C in the first K block: row[i] to row i (a conv's bias),
  /// col[j] to column j of this N block (a dense layer's bias).
  TileBias bias;
};

#if TANDEM_X86
/// Which elements of 32 consecutive floats a stride-2 read of output lanes
/// `m` touches (lane l reads element 2l), as the masks of the two 16-float
/// halves.
struct Stride2Masks {
  __mmask16 lo = 0, hi = 0;
  explicit Stride2Masks(__mmask16 m) {
    for (int l = 0; l < 16; ++l)
      if (m >> l & 1) {
        if (l < 8)
          lo |= __mmask16(1u << (2 * l));
        else
          hi |= __mmask16(1u << (2 * (l - 8)));
      }
  }
};

/// The 16 floats p[0], p[STEP], ..., p[15 STEP] of lanes `m` (others 0),
/// loading only the elements those lanes read (`raw`: m's Stride2Masks).
template <int STEP>
__attribute__((target("avx512f"))) inline __m512
columns16(const float *p, __mmask16 m, const Stride2Masks &raw) {
  if constexpr (STEP == 1)
    return _mm512_maskz_loadu_ps(m, p);
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                        10, 8, 6, 4, 2, 0);
  return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(raw.lo, p), even,
                                _mm512_maskz_loadu_ps(raw.hi, p + 16));
}

/// packConvPanel's rows for a full 32-column panel whose columns are two
/// runs of one image row each at column step STEP: columns [0, split) read
/// from offset a, [split, 32) from offset b. Masked loads, so only the
/// elements the panel uses are read.
template <int STEP>
__attribute__((target("avx512f"))) void
packTwoRuns32(const ConvImage &g, int64_t r0, int64_t k, int64_t a, int64_t b,
              int64_t split, float *out) {
  __mmask16 aLo = __mmask16((1u << std::min<int64_t>(split, 16)) - 1);
  __mmask16 aHi = __mmask16((1u << std::clamp<int64_t>(split - 16, 0, 16)) - 1);
  __mmask16 bLo = __mmask16(~aLo), bHi = __mmask16(~aHi);
  Stride2Masks rawALo(aLo), rawAHi(aHi), rawBLo(bLo), rawBHi(bHi);
  // Run b's columns j >= split read b + STEP (j - split): lanes of the
  // vector based at b - STEP * split.
  int64_t bBase = b - STEP * split;
  int64_t window = g.kh * g.kw;
  int64_t c = r0 / window, i = r0 % window / g.kw, jw = r0 % g.kw;
  for (int64_t p = 0; p < k; ++p) {
    const float *src = g.image + c * g.sC + i * g.dh * g.sH + jw * g.dw;
    float *dst = out + p * 32;
    __m512 lo = _mm512_mask_blend_ps(bLo, columns16<STEP>(src + a, aLo, rawALo),
                                     columns16<STEP>(src + bBase, bLo, rawBLo));
    __m512 hi = _mm512_mask_blend_ps(
        bHi, columns16<STEP>(src + a + 16 * STEP, aHi, rawAHi),
        columns16<STEP>(src + bBase + 16 * STEP, bHi, rawBHi));
    _mm512_storeu_ps(dst, lo);
    _mm512_storeu_ps(dst + 16, hi);
    if (++jw == g.kw) {
      jw = 0;
      if (++i == g.kh) {
        i = 0;
        ++c;
      }
    }
  }
}

/// The AVX2 lane mask (all bits of a lane set) of the lanes in bits `m`.
__attribute__((target("avx2"))) inline __m256i laneMask8(unsigned m) {
  const __m256i bit = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int(m)), bit),
                            bit);
}

/// The 8 floats p[0], p[STEP], ..., p[7 STEP] of the lanes in bits `m`
/// (others 0), loading only the elements those lanes read (`lo`, `hi`:
/// for stride 2, the lane masks of the two 8-float halves they touch).
template <int STEP>
__attribute__((target("avx2"))) inline __m256
columns8(const float *p, __m256i m, __m256i lo, __m256i hi) {
  if constexpr (STEP == 1)
    return _mm256_maskload_ps(p, m);
  __m256 even =
      _mm256_shuffle_ps(_mm256_maskload_ps(p, lo),
                        _mm256_maskload_ps(p + 8, hi), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
}

/// The even elements q[0], q[2], ..., q[30] into dst[0 .. 16): the first
/// three 8-float vectors whole, the last without element 31, which may lie
/// past the image (`lastSeven`: the mask of lanes 0-6). A stride-2 conv's
/// panel inside one image row (every panel of a 112-wide stem's output):
/// four loads and four shuffles instead of packTwoRuns16's eight masked
/// loads and two blends for runs that are empty.
__attribute__((target("avx2"))) inline void
evenColumns16(const float *q, __m256i lastSeven, float *dst) {
  __m256 lo = _mm256_shuffle_ps(_mm256_loadu_ps(q), _mm256_loadu_ps(q + 8),
                                _MM_SHUFFLE(2, 0, 2, 0));
  __m256 hi = _mm256_shuffle_ps(_mm256_loadu_ps(q + 16),
                                _mm256_maskload_ps(q + 24, lastSeven),
                                _MM_SHUFFLE(2, 0, 2, 0));
  _mm256_storeu_ps(dst, _mm256_castpd_ps(_mm256_permute4x64_pd(
                            _mm256_castps_pd(lo), _MM_SHUFFLE(3, 1, 2, 0))));
  _mm256_storeu_ps(dst + 8,
                   _mm256_castpd_ps(_mm256_permute4x64_pd(
                       _mm256_castps_pd(hi), _MM_SHUFFLE(3, 1, 2, 0))));
}

/// packTwoRuns32 for AVX2's 16-column panels.
template <int STEP>
__attribute__((target("avx2"))) void
packTwoRuns16(const ConvImage &g, int64_t r0, int64_t k, int64_t a, int64_t b,
              int64_t split, float *out) {
  // Lane masks of run a per half (columns 0-7, 8-15); run b has the rest.
  unsigned aBits[2] = {(1u << std::min<int64_t>(split, 8)) - 1,
                       (1u << std::clamp<int64_t>(split - 8, 0, 8)) - 1};
  __m256i m[2][2], lo[2][2], hi[2][2]; // [half][run]
  for (int h = 0; h < 2; ++h)
    for (int r = 0; r < 2; ++r) {
      unsigned bits = r == 0 ? aBits[h] : ~aBits[h] & 0xFFu;
      // Stride 2: lane l reads element 2l, in the first 8 floats for
      // l < 4 and the next 8 otherwise.
      unsigned rawLo = 0, rawHi = 0;
      for (int l = 0; l < 8; ++l)
        if (bits >> l & 1) {
          if (l < 4)
            rawLo |= 1u << (2 * l);
          else
            rawHi |= 1u << (2 * (l - 4));
        }
      m[h][r] = laneMask8(bits);
      lo[h][r] = laneMask8(rawLo);
      hi[h][r] = laneMask8(rawHi);
    }
  int64_t bBase = b - STEP * split; // as in packTwoRuns32
  const __m256i lastSeven = laneMask8(0x7Fu);
  int64_t window = g.kh * g.kw;
  int64_t c = r0 / window, i = r0 % window / g.kw, jw = r0 % g.kw;
  for (int64_t p = 0; p < k; ++p) {
    const float *src = g.image + c * g.sC + i * g.dh * g.sH + jw * g.dw;
    float *dst = out + p * 16;
    if (STEP == 2 && split == 16) {
      evenColumns16(src + a, lastSeven, dst);
    } else {
      for (int h = 0; h < 2; ++h) {
        __m256 va =
            columns8<STEP>(src + a + 8 * h * STEP, m[h][0], lo[h][0], hi[h][0]);
        __m256 vb = columns8<STEP>(src + bBase + 8 * h * STEP, m[h][1],
                                   lo[h][1], hi[h][1]);
        _mm256_storeu_ps(
            dst + 8 * h,
            _mm256_blendv_ps(va, vb, _mm256_castsi256_ps(m[h][1])));
      }
    }
    if (++jw == g.kw) {
      jw = 0;
      if (++i == g.kh) {
        i = 0;
        ++c;
      }
    }
  }
}
#endif

/// Image rows of at least this many output columns go through packRuns16.
constexpr int64_t kMinRunColumns = 3;
/// Runs one 8-lane half of a 16-column panel can meet: 8 lanes over rows of
/// at least kMinRunColumns columns.
constexpr int kMaxRunsPerHalf = 4;

/// A stride-1 conv's 16-column panel at column j0 (its first `cols`
/// columns, the rest zero) whose columns lie in several image rows, as on
/// a 7x7 map where 16 columns span three or four rows: each row's columns
/// are one contiguous run of the image, and every run lands in its lanes
/// with one masked load per 8-lane half it meets (its base moved back by
/// its first lane), OR-ed together. One indexed load and store per element
/// otherwise (RegNet's and ResNet's 7x7 stages, grouped or not).
__attribute__((target("avx2"))) void packRuns16(const ConvImage &g, int64_t r0,
                                                int64_t k, int64_t j0,
                                                int64_t cols, float *out) {
  struct Run {
    int64_t offset; // image offset of lane 0's element (may lie outside)
    __m256i mask;
  };
  Run runs[2][kMaxRunsPerHalf];
  int count[2] = {0, 0};
  for (int64_t lane = 0; lane < cols;) {
    int64_t y = (j0 + lane) / g.ow, x = (j0 + lane) % g.ow;
    int64_t len = std::min(g.ow - x, cols - lane);
    int64_t at = y * g.sh * g.sH + x; // stride 1: image column x + j
    for (int h = 0; h < 2; ++h) {
      int64_t lo = std::max<int64_t>(lane, 8 * h),
              hi = std::min<int64_t>(lane + len, 8 * h + 8);
      if (lo >= hi)
        continue;
      unsigned bits = ((1u << (hi - lo)) - 1) << (lo - 8 * h);
      runs[h][count[h]++] = Run{at - (lane - 8 * h), laneMask8(bits)};
    }
    lane += len;
  }
  int64_t window = g.kh * g.kw;
  int64_t c = r0 / window, i = r0 % window / g.kw, jw = r0 % g.kw;
  for (int64_t p = 0; p < k; ++p) {
    // Integer addresses: a run's base may lie before the image (its
    // masked-off lanes are never read).
    uintptr_t src =
        reinterpret_cast<uintptr_t>(g.image) +
        uintptr_t(c * g.sC + i * g.dh * g.sH + jw * g.dw) * sizeof(float);
    for (int h = 0; h < 2; ++h) {
      __m256 v = _mm256_setzero_ps();
      for (int r = 0; r < count[h]; ++r)
        v = _mm256_or_ps(
            v, _mm256_maskload_ps(
                   reinterpret_cast<const float *>(
                       src + uintptr_t(runs[h][r].offset) * sizeof(float)),
                   runs[h][r].mask));
      _mm256_storeu_ps(out + p * 16 + 8 * h, v);
    }
    if (++jw == g.kw) {
      jw = 0;
      if (++i == g.kh) {
        i = 0;
        ++c;
      }
    }
  }
}

/// Packs the NR-column panel at column j0 of the conv step's B block: rows
/// [r0, r0 + k) and columns [j0, min(j0 + NR, n)) of im2col(image).
template <int64_t NR>
void packConvPanel(const ConvImage &g, int64_t r0, int64_t k, int64_t j0,
                   int64_t n, float *out) {
  int64_t cols = std::min(NR, n - j0);
#if TANDEM_X86
  // AVX-512's 32 columns (NR = 32 only runs where the CPU has it) in at
  // most two image rows with contiguous columns at stride 1 or 2: masked
  // vector loads instead of one indexed load per element (the stride-2
  // convs and the stem gather every element otherwise).
  if constexpr (NR == 32 || NR == 16) {
    // AVX2's 16 columns likewise (NR = 16 runs where the CPU has AVX2).
    int64_t x0 = j0 % g.ow, y0 = j0 / g.ow;
    int64_t split = std::min<int64_t>(NR, g.ow - x0);
    if (n - j0 >= NR && g.sW == 1 && (g.sw == 1 || g.sw == 2) &&
        (split == NR || NR - split <= g.ow) && !(g.sw == 1 && split == NR)) {
      int64_t a = y0 * g.sh * g.sH + x0 * g.sw;
      int64_t b = (y0 + 1) * g.sh * g.sH;
      if constexpr (NR == 32) {
        if (g.sw == 1)
          packTwoRuns32<1>(g, r0, k, a, b, split, out);
        else
          packTwoRuns32<2>(g, r0, k, a, b, split, out);
      } else {
        if (g.sw == 1)
          packTwoRuns16<1>(g, r0, k, a, b, split, out);
        else
          packTwoRuns16<2>(g, r0, k, a, b, split, out);
      }
      return;
    }
    // AVX2: columns in more than two image rows, or the last, partial
    // panel over more than one row.
    if constexpr (NR == 16)
      if (g.sw == 1 && g.sW == 1 && g.ow >= kMinRunColumns && x0 + cols > g.ow)
        return packRuns16(g, r0, k, j0, cols, out);
  }
#endif
  int64_t offset[NR];
  for (int64_t j = 0; j < cols; ++j) {
    int64_t y = (j0 + j) / g.ow, x = (j0 + j) % g.ow;
    offset[j] = y * g.sh * g.sH + x * g.sw * g.sW;
  }
  bool contiguous = cols == NR && g.sW == 1;
  for (int64_t j = 1; contiguous && j < NR; ++j)
    contiguous = offset[j] == offset[0] + j;
  int64_t window = g.kh * g.kw;
  int64_t c = r0 / window, i = r0 % window / g.kw, jw = r0 % g.kw;
  for (int64_t p = 0; p < k; ++p) {
    const float *src = g.image + c * g.sC + i * g.dh * g.sH + jw * g.dw * g.sW;
    float *dst = out + p * NR;
    if (contiguous) {
      std::memcpy(dst, src + offset[0], NR * sizeof(float));
    } else {
      for (int64_t j = 0; j < cols; ++j)
        dst[j] = src[offset[j]];
      for (int64_t j = cols; j < NR; ++j)
        dst[j] = 0.0f;
    }
    if (++jw == g.kw) {
      jw = 0;
      if (++i == g.kh) {
        i = 0;
        ++c;
      }
    }
  }
}

/// Rows of B packed at a time across a task's panels (packBRange).
constexpr int64_t kPackRowChunk = 8;

/// Whether the conv's im2col is the image itself, row c being channel c's
/// pixels contiguous from the image's first (a 1x1 conv of stride 1 on an
/// unpadded image): B is a plain matrix of row stride sC.
bool isPlainMatrix(const ConvImage &g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.sW == 1 &&
         g.sH == g.ow;
}

/// Packs B panels [begin, end) of the step. A plain matrix (a 1x1 conv's
/// dense image included) goes kPackRowChunk rows at a time across all of
/// them, not panel after panel: a panel's rows lie a row stride apart (a
/// conv's channels, 12.5 KB on a 56x56 image), each in a page of its own,
/// where the hardware prefetchers do not follow; across the panels each
/// row is read from start to end, eight rows' streams at once. ResNet-50's
/// first 56x56 1x1 conv at batch 8 (its B from memory, not cache): 47 ->
/// 73 GFLOP/s on Zen 3; the model 715 -> 677 ms at 1 thread.
void packBRange(void *env, int64_t begin, int64_t end) {
  auto &s = *static_cast<BlockStep *>(env);
  int64_t nr = s.isa->nr;
  const float *b = s.b;
  int64_t rsB = s.rsB, csB = s.csB;
  if (s.conv && isPlainMatrix(*s.conv)) {
    b = s.conv->image + s.pc * s.conv->sC + s.jc;
    rsB = s.conv->sC;
    csB = 1;
  }
  if (b && csB == 1) {
    for (int64_t p0 = 0; p0 < s.kc; p0 += kPackRowChunk) {
      int64_t rows = std::min(kPackRowChunk, s.kc - p0);
      for (int64_t panel = begin; panel < end; ++panel)
        packBPanel(b + p0 * rsB, rsB, csB, panel * nr, s.nc, rows, nr,
                   s.bPacked + panel * nr * s.kc + p0 * nr);
    }
    return;
  }
  // A conv's gathers (im2col of a window or a stride) set up each panel's
  // masks or offsets once, panel after panel.
  for (int64_t panel = begin; panel < end; ++panel) {
    float *out = s.bPacked + panel * nr * s.kc;
    if (b) {
      packBPanel(b, rsB, csB, panel * nr, s.nc, s.kc, nr, out);
      continue;
    }
    int64_t j0 = s.jc + panel * nr, n = s.jc + s.nc;
    switch (nr) {
    case 32:
      packConvPanel<32>(*s.conv, s.pc, s.kc, j0, n, out);
      break;
    case 16:
      packConvPanel<16>(*s.conv, s.pc, s.kc, j0, n, out);
      break;
    default:
      packConvPanel<8>(*s.conv, s.pc, s.kc, j0, n, out);
      break;
    }
  }
}

/// Stores the valid rows x cols of an MR x NR result tile into C, with its
/// prior as the micro-kernels add it.
void storeEdge(const float *tile, int64_t nr, float *c, int64_t rs, int64_t cs,
               int64_t rows, int64_t cols, bool accumulate, Epilogue epi,
               TileBias bias) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float &out = c[i * rs + j * cs];
      out = applyEpilogue(
          withPrior(tile[i * nr + j], &out, accumulate, bias, i, j), epi);
    }
}

/// Whether `rows` rows of floats `stride` apart, read in place by a tile
/// at the same column, fall on no L1 set (64-byte lines, sets repeating
/// every 4 KiB, 8 ways on Zen 4) more than six at a time. AVX2's 6-row
/// tiles always do: rows a multiple of 4 KiB apart measured the same in
/// place as packed (1024^3, 128 x 768 x 3072, Zen 3). AVX-512's 14 rows
/// 12 KiB apart (BERT's 3072-wide activations) all share one set, and
/// its layer ran 7% slower in place (Zen 4); 3 KiB apart (768 wide) they
/// spread over four sets.
bool rowsSpreadOverL1(int64_t rows, int64_t stride) {
  constexpr int64_t kSetBytes = 4096, kLine = 64, kMostOnASet = 6;
  if (rows <= kMostOnASet)
    return true;
  int64_t count[kSetBytes / kLine] = {};
  for (int64_t i = 0; i < rows; ++i) {
    int64_t set = (i * stride * int64_t(sizeof(float))) % kSetBytes / kLine;
    if (++count[set] > kMostOnASet)
      return false;
  }
  return true;
}

void computeTasks(void *env, int64_t begin, int64_t end) {
  auto &s = *static_cast<BlockStep *>(env);
  int64_t mr = s.isa->mr, nr = s.isa->nr;
  float *aPacked =
      s.aCached ? nullptr : packedA.get(kMCPanels * mr * s.isa->kc);
  if (!aPacked && !s.aCached) {
    tandem_internal_kernel_fail(s.failure, "sgemm: out of memory for packing");
    return;
  }
  alignas(64) float tile[16 * 64];
  int64_t nPanels = (s.nc + nr - 1) / nr;
  // A row-major A that is not cached is read in place by the full tiles
  // where a task's panels are all full (the edge kernels read packed
  // panels) and its rows do not crowd one L1 set (rowsSpreadOverL1).
  const bool inPlaceA = s.isa->panelsInPlace && !s.aCached && s.csA == 1 &&
                        s.csC == 1 && rowsSpreadOverL1(mr, s.rsA);
  for (int64_t task = begin; task < end; ++task) {
    int64_t mb = task / s.nTasks, nt = task % s.nTasks;
    int64_t mPanels = (s.m + mr - 1) / mr;
    int64_t i0 = mb * mPanels / s.mBlocks * mr;
    int64_t mc = std::min((mb + 1) * mPanels / s.mBlocks * mr, s.m) - i0;
    int64_t p0 = nt * nPanels / s.nTasks;
    int64_t p1 = (nt + 1) * nPanels / s.nTasks;
    bool inPlace = inPlaceA && (p1 < nPanels || s.nc % nr == 0);
    if (s.aCached) {
      aPacked = const_cast<float *>(s.aCached) + i0 * s.kc;
    } else if (packedAStep != s.serial || packedAMBlock != mb ||
               (!inPlace && !packedAWhole)) {
      if (inPlace) {
        // Only the short last panel, if any.
        int64_t full = mc / mr * mr;
        if (full < mc)
          packA(s.a + (i0 + full) * s.rsA, s.rsA, s.csA, mc - full, s.kc, mr,
                aPacked + full * s.kc);
      } else {
        packA(s.a + i0 * s.rsA, s.rsA, s.csA, mc, s.kc, mr, aPacked);
      }
      packedAStep = s.serial;
      packedAMBlock = mb;
      packedAWhole = !inPlace;
    }
    for (int64_t ir = 0; ir < mc; ir += mr) {
      int64_t rows = std::min(mr, mc - ir);
      const float *pa = aPacked + ir * s.kc;
      int64_t panel = p0;
      if (inPlace && rows == mr) {
        InPlacePanelsKernel run = ir == 0 && s.bCached
                                      ? s.isa->panelsInPlaceNextB
                                      : s.isa->panelsInPlace;
        run(p1 - panel, s.kc, s.a + (i0 + ir) * s.rsA, s.rsA,
            s.bPacked + panel * nr * s.kc, nr * s.kc,
            s.c + (i0 + ir) * s.rsC + panel * nr, s.rsC, s.accumulate, s.epi,
            TileBias{s.bias.row ? s.bias.row + i0 + ir : nullptr,
                     s.bias.col ? s.bias.col + panel * nr : nullptr});
        continue;
      }
      if (s.isa->panels && rows == mr && s.csC == 1) {
        // The full tiles before the range's last panel (which prefetches
        // the next A panel, or is a narrow edge) in one call; before the
        // one in front of it too when the matrix's last panel has one
        // column (plusOne takes both).
        int64_t end = p1 - 1;
        if (s.isa->plusOne && s.nc - (p1 - 1) * nr == 1)
          end = p1 - 2;
        if (end > panel) {
          PanelsKernel run =
              ir == 0 && s.bCached ? s.isa->panelsNextB : s.isa->panels;
          run(end - panel, s.kc, pa, s.bPacked + panel * nr * s.kc, nr * s.kc,
              s.c + (i0 + ir) * s.rsC + panel * nr, s.rsC, s.accumulate, s.epi,
              TileBias{s.bias.row ? s.bias.row + i0 + ir : nullptr,
                       s.bias.col ? s.bias.col + panel * nr : nullptr});
          panel = end;
        }
      }
      if (s.isa->wideEdge && rows < mr && rows <= 3 && s.csC == 1) {
        // Full panels of a short A panel, several at a time.
        int64_t fullEnd = std::min(p1, s.nc / nr);
        for (const WideEdge &wide : (*s.isa->wideEdge)[rows - 1])
          for (; wide.panels && panel + wide.panels <= fullEnd;
               panel += wide.panels)
            wide.kernel(
                s.kc, pa, s.bPacked + panel * nr * s.kc, nr * s.kc,
                s.c + (i0 + ir) * s.rsC + panel * nr, s.rsC, s.accumulate,
                s.epi,
                TileBias{s.bias.row ? s.bias.row + i0 + ir : nullptr,
                         s.bias.col ? s.bias.col + panel * nr : nullptr});
      }
      for (; panel < p1; ++panel) {
        int64_t j0 = panel * nr;
        int64_t cols = std::min(nr, s.nc - j0);
        const float *pb = s.bPacked + panel * nr * s.kc;
        int64_t ldb = nr;
        float *c = s.c + (i0 + ir) * s.rsC + j0 * s.csC;
        MicroKernel kernel = s.isa->kernel;
        if (panel + 1 == p1)
          kernel = s.isa->kernelNextA;
        else if (ir == 0 && s.bCached)
          kernel = s.isa->kernelNextB;
        TileBias bias{s.bias.row ? s.bias.row + i0 + ir : nullptr,
                      s.bias.col ? s.bias.col + j0 : nullptr};
        if (s.isa->plusOne && rows == mr && cols == nr && s.csC == 1 &&
            panel + 2 == p1 && j0 + nr + 1 == s.nc) {
          // The last panel, in this task's range, has one column: one
          // tile of NR + 1 (KernelIsa::plusOne).
          s.isa->plusOne(s.kc, pa, pb, pb + nr * s.kc, c, s.rsC, s.accumulate,
                         s.epi, bias);
          break;
        }
        if (rows == mr && cols == nr && s.csC == 1) {
          kernel(s.kc, pa, pb, ldb, c, s.rsC, s.accumulate, s.epi, bias);
        } else if (s.isa->edge && s.csC == 1) {
          s.isa->edge[rows - 1](s.kc, pa, pb, ldb, c, s.rsC, s.accumulate,
                                s.epi, bias, cols);
        } else {
          kernel(s.kc, pa, pb, ldb, tile, nr, false, kNoEpilogue, TileBias{});
          storeEdge(tile, nr, c, s.rsC, s.csC, rows, cols, s.accumulate, s.epi,
                    bias);
        }
      }
    }
  }
}

/// gemm2D's block steps of one N block that its tasks run: `count` K
/// blocks (all of them, allK, or one) of `nPanels` B panels each. Where B
/// is not cached, the steps place it at `steps[i].bPacked - base` in a
/// packed buffer, and each thread packs it into its own (stepTasks).
struct StepRun {
  BlockStep *steps;
  int64_t count, nPanels;
  const float *base;
};

/// Runs tasks [begin, end) through every step of `run`, one after another
/// per task. A B that is not cached is read from panels the thread packed
/// itself into its own packedB, each just before the first of its tasks
/// that reads it. A panel that one thread packs and another reads crosses
/// between their cores, and the next run's packing rewrites lines the
/// other core then holds: stores to such lines run at 2.2 GB/s where the
/// two vCPUs share no L3 (bench/native/coherence.c, "other-read"),
/// ResNet-18 18.0 ms at 2 threads instead of 13.0. Where tasks split M,
/// each thread packs the panels it reads (both threads then pack them).
void stepTasks(void *env, int64_t begin, int64_t end) {
  const StepRun &run = *static_cast<const StepRun *>(env);
  const KernelIsa &isa = *run.steps[0].isa;
  float *buffer = nullptr;
  if (!run.steps[0].bCached) {
    buffer = packedB.get(isa.kc * ((kNC + isa.nr - 1) / isa.nr * isa.nr));
    if (!buffer) {
      tandem_internal_kernel_fail(run.steps[0].failure,
                                  "sgemm: out of memory for packing");
      return;
    }
    if (run.count * run.nPanels > kOwnPanelMarks) {
      tandem_internal_kernel_fail(run.steps[0].failure,
                                  "sgemm: more B panels than a thread tracks");
      return;
    }
  }
  for (int64_t task = begin; task < end; ++task)
    for (int64_t step = 0; step < run.count; ++step) {
      BlockStep s = run.steps[step];
      if (buffer) {
        s.bPacked = buffer + (s.bPacked - run.base);
        int64_t nt = task % s.nTasks;
        int64_t p0 = nt * run.nPanels / s.nTasks;
        int64_t p1 = (nt + 1) * run.nPanels / s.nTasks;
        for (int64_t panel = p0; panel < p1; ++panel) {
          uint64_t &mark = ownPanelSerial[step * run.nPanels + panel];
          if (mark != s.serial) {
            packBRange(&s, panel, panel + 1);
            mark = s.serial;
          }
        }
      }
      computeTasks(&s, task, task + 1);
      if (s.failure->failed.load(std::memory_order_relaxed))
        return;
    }
}

/// Equal K blocks of at most isa.kc: no short, overhead-bound last block.
int64_t kBlockSize(const KernelIsa &isa, int64_t k) {
  int64_t kBlocks = (k + isa.kc - 1) / isa.kc;
  return (k + kBlocks - 1) / kBlocks;
}

/// Floats of all of A packed (every K block, every MR panel).
size_t wholeASize(const KernelIsa &isa, int64_t m, int64_t k) {
  return size_t((m + isa.mr - 1) / isa.mr * isa.mr) * k;
}

/// Packs all of A in the layout gemm2D reads through `aCache` (kc =
/// kBlockSize(isa, k)) or gemvCached reads (kc = k): K block pc at
/// mPadded * pc, its MR panels one after another.
void packWholeA(const KernelIsa &isa, const float *a, int64_t rs, int64_t cs,
                int64_t m, int64_t k, int64_t kc, float *out) {
  int64_t mPadded = (m + isa.mr - 1) / isa.mr * isa.mr;
  for (int64_t pc = 0; pc < k; pc += kc)
    packA(a + pc * cs, rs, cs, m, std::min(kc, k - pc), isa.mr,
          out + mPadded * pc);
}

/// Floats of all of B packed.
size_t wholeBSize(const KernelIsa &isa, int64_t n, int64_t k) {
  return size_t((n + isa.nr - 1) / isa.nr * isa.nr) * k;
}

/// Where all of B packed (packWholeB, tandem_internal_pack_b_rows) holds
/// the step of N block jc (nPanels panels of nr) and K block pc: the
/// layout gemm2D reads through `bCache`. The step's panels follow one
/// another, each nr times the K block's height.
inline int64_t packedBStep(int64_t jc, int64_t pc, int64_t k, int64_t nPanels,
                           int64_t nr) {
  return jc * k + nPanels * nr * pc;
}

/// Packs all of B in the layout gemm2D reads through `bCache` (kc =
/// kBlockSize(isa, k): packedBStep) or gemvCached reads (kc = k).
void packWholeB(const KernelIsa &isa, const float *b, int64_t rs, int64_t cs,
                int64_t n, int64_t k, int64_t kc, float *out) {
  int64_t nr = isa.nr;
  for (int64_t jc = 0; jc < n; jc += kNC) {
    int64_t nc = std::min(kNC, n - jc);
    int64_t nPanels = (nc + nr - 1) / nr;
    for (int64_t pc = 0; pc < k; pc += kc) {
      int64_t kcur = std::min(kc, k - pc);
      float *block = out + packedBStep(jc, pc, k, nPanels, nr);
      for (int64_t panel = 0; panel < nPanels; ++panel)
        packBPanel(b + pc * rs + jc * cs, rs, cs, panel * nr, nc, kcur, nr,
                   block + panel * nr * kcur);
    }
  }
}

/// One panel row: `cols` floats from `from`, zero-padded to NR.
template <int64_t NR>
inline void copyPanelRow(float *dst, const float *from, int64_t cols) {
  if (cols == NR) {
    std::memcpy(dst, from, NR * sizeof(float));
    return;
  }
  std::memcpy(dst, from, size_t(cols) * sizeof(float));
  std::memset(dst + cols, 0, size_t(NR - cols) * sizeof(float));
}

#if TANDEM_X86
/// copyPanelRow<32> in two 16-float vectors, masked for a short row (the
/// 32-wide panels are the AVX-512 micro-kernels').
__attribute__((target("avx512f"))) inline void
copyPanelRow32Avx512(float *dst, const float *from, int64_t cols) {
  __mmask16 lo = 0xffff, hi = 0xffff;
  if (cols < 32) {
    lo = cols >= 16 ? 0xffff : __mmask16((1u << cols) - 1);
    hi = cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : 0;
  }
  _mm512_storeu_ps(dst, _mm512_maskz_loadu_ps(lo, from));
  _mm512_storeu_ps(dst + 16, _mm512_maskz_loadu_ps(hi, from + 16));
}
#endif

/// Rows [row0, row0 + rows), columns [col0, col0 + cols) of B into
/// packWholeB's layout (tandem_internal_pack_b_rows, _columns); `src`
/// holds those columns, rows srcStride apart. Panel by panel, so that the
/// rows' parts of one panel are written one after another; up to
/// kRowChunk rows at a time, with each row's place in a panel (its K
/// block) found once. A panel the range covers only in part gets only its
/// columns, and the last panel's padding columns zeros when the range
/// reaches n.
template <int64_t NR, bool Avx512 = false>
__attribute__((always_inline)) inline void
packBRowsFixed(const float *src, int64_t srcStride, int64_t row0, int64_t rows,
               int64_t k, int64_t kc, int64_t n, int64_t col0, int64_t cols,
               float *out) {
  constexpr int64_t kRowChunk = 16;
  // Each row's line kPrefetchPanels panels ahead is prefetched for
  // writing: a panel row is one line and the next panel's is K lines
  // further, which the hardware prefetchers do not follow, so each store
  // waited for its line. MobileNetV2 at 1 thread: the packing of
  // depthwise outputs 7.3-7.7% -> 6.2-6.6% of the samples (one panel
  // ahead gained less). A prefetch past the buffer's end cannot fault.
  constexpr int64_t kPrefetchPanels = 2;
  int64_t colEnd = col0 + cols;
  for (int64_t jc = col0 / kNC * kNC; jc < colEnd; jc += kNC) {
    int64_t nc = std::min(kNC, n - jc);
    int64_t nPanels = (nc + NR - 1) / NR;
    int64_t firstPanel = (std::max(col0, jc) - jc) / NR;
    int64_t endPanel = (std::min(colEnd, jc + nc) - jc + NR - 1) / NR;
    for (int64_t r0 = 0; r0 < rows; r0 += kRowChunk) {
      int64_t chunk = std::min(kRowChunk, rows - r0);
      // Where each row starts in the first panel, and its panel stride.
      float *dst[kRowChunk];
      int64_t panelStride[kRowChunk];
      for (int64_t r = 0; r < chunk; ++r) {
        int64_t row = row0 + r0 + r;
        int64_t pc = row / kc * kc, kcur = std::min(kc, k - pc);
        dst[r] = out + packedBStep(jc, pc, k, nPanels, NR) + (row - pc) * NR;
        panelStride[r] = NR * kcur;
      }
      const float *from = src + r0 * srcStride; // column col0
      for (int64_t panel = firstPanel; panel < endPanel; ++panel) {
        int64_t first = jc + panel * NR; // the panel's first column
        int64_t lo = std::max(col0, first);
        int64_t hi = std::min({colEnd, first + NR, n});
        if (lo != first || (hi != first + NR && hi != n)) {
          // Part of a panel whose other columns another range holds.
          for (int64_t r = 0; r < chunk; ++r)
            std::memcpy(dst[r] + panel * panelStride[r] + (lo - first),
                        from + r * srcStride + (lo - col0),
                        size_t(hi - lo) * sizeof(float));
          if (hi == n)
            for (int64_t r = 0; r < chunk; ++r)
              std::fill(dst[r] + panel * panelStride[r] + (hi - first),
                        dst[r] + panel * panelStride[r] + NR, 0.0f);
          continue;
        }
        for (int64_t r = 0; r < chunk; ++r) {
          float *to = dst[r] + panel * panelStride[r];
          const float *row = from + r * srcStride + (first - col0);
          __builtin_prefetch(to + kPrefetchPanels * panelStride[r], 1, 3);
#if TANDEM_X86
          if constexpr (Avx512) {
            copyPanelRow32Avx512(to, row, hi - first);
            continue;
          }
#endif
          copyPanelRow<NR>(to, row, hi - first);
        }
      }
    }
  }
}

#if TANDEM_X86
/// packBRowsFixed for the AVX-512 micro-kernels' 32-wide panels.
__attribute__((target("avx512f"))) void
packBRows32Avx512(const float *src, int64_t srcStride, int64_t row0,
                  int64_t rows, int64_t k, int64_t kc, int64_t n, int64_t col0,
                  int64_t cols, float *out) {
  packBRowsFixed<32, true>(src, srcStride, row0, rows, k, kc, n, col0, cols,
                           out);
}
#endif

//===----------------------------------------------------------------------===//
// Matrix-vector products on cached weights (gemv.h)
//===----------------------------------------------------------------------===//

/// What the tasks of one matrix-vector product share: the cached operand's
/// panels (panel index set per task) and where their sums go.
struct GemvStep {
  const KernelIsa *isa;
  tandem_internal::PackedPanel weights;
  int64_t extent;      // C's elements along the panels
  const float *vector; // the other operand, contiguous
  float *c;            // C's first element
  int64_t stride;      // between C's elements along the panels
  bool accumulate;     // add to C
  Epilogue epi;        // applied before the store
  TileBias bias;       // at C's first element
  bool alongRows;      // the panels are A's (C is a column)
};

void gemvTasks(void *env, int64_t begin, int64_t end) {
  auto &s = *static_cast<GemvStep *>(env);
  alignas(64) float sums[32];
  int64_t width = s.weights.width;
  for (int64_t panel = begin; panel < end; ++panel) {
    tandem_internal::PackedPanel part = s.weights;
    part.index = panel;
    s.isa->gemv(part, s.vector, sums);
    int64_t first = panel * width, count = std::min(width, s.extent - first);
    for (int64_t e = 0; e < count; ++e) {
      float &out = s.c[(first + e) * s.stride];
      int64_t i = s.alongRows ? first + e : 0, j = s.alongRows ? 0 : first + e;
      out = applyEpilogue(withPrior(sums[e], &out, s.accumulate, s.bias, i, j),
                          s.epi);
    }
  }
}

/// Cache keys' roles: sgemm's and conv2d's A (0) and B (1) in gemm2D's
/// layout, and the same operands in one K block for gemvCached.
enum PackedRole : int32_t {
  kRoleA = 0,
  kRoleB = 1,
  kRoleGemvA = 2,
  kRoleGemvB = 3
};

/// A product with one side a vector and the other side weights (`weights`:
/// A packed by packWholeA, or B by packWholeB, in one K block): there is
/// nothing to reuse, so no K blocks with a barrier each and no B panel
/// padded to NR columns for one useful column: a task per packed panel
/// streams its weights once, in the order they lie (gemv.h). alongRows: C
/// (m x 1, element stride `stride`) = A x the column `vector` (K floats
/// `step` apart, or gathered from `conv`'s image: output pixel 0);
/// otherwise C (1 x n) = the row `vector` x B.
void gemvCached(tandem_thread_pool_t *pool, const KernelIsa &isa, int64_t m,
                int64_t n, int64_t k, const float *weights, bool alongRows,
                const float *vector, int64_t step, const ConvImage *conv,
                float *c, int64_t stride, bool accumulate, Epilogue epi,
                TileBias bias, tandem_internal_kernel_failure *failure) {
  if (step != 1 || conv) {
    float *gathered = gemvVector.get(size_t(k));
    if (!gathered) {
      tandem_internal_kernel_fail(failure, "sgemm: out of memory for packing");
      return;
    }
    if (conv) {
      // Column 0 of im2col(image).
      const ConvImage &g = *conv;
      for (int64_t kk = 0, window = g.kh * g.kw; kk < k; ++kk) {
        int64_t ch = kk / window, i = kk % window / g.kw, jw = kk % g.kw;
        gathered[kk] = g.image[ch * g.sC + i * g.dh * g.sH + jw * g.dw * g.sW];
      }
    } else {
      for (int64_t kk = 0; kk < k; ++kk)
        gathered[kk] = vector[kk * step];
    }
    vector = gathered;
  }
  int64_t width = alongRows ? isa.mr : isa.nr;
  int64_t extent = alongRows ? m : n;
  // B's N blocks (A has one).
  int64_t block = alongRows ? m : kNC;
  for (int64_t jc = 0; jc < extent; jc += block) {
    int64_t count = std::min(block, extent - jc);
    int64_t panels = (count + width - 1) / width;
    TileBias at = bias;
    if (!alongRows && bias.col)
      at.col += jc;
    GemvStep s{&isa,
               {weights + jc * k, panels * width, 0, width, k, k},
               count,
               vector,
               c + jc * stride,
               stride,
               accumulate,
               epi,
               at,
               alongRows};
    tandem_parallel_for(pool, panels, 1, gemvTasks, &s);
  }
}

/// Floats of a matrix-vector product's weights packed for gemvCached: A
/// (`extent` = m rows) or B (`extent` = n columns), K = k.
size_t gemvWeightsSize(const KernelIsa &isa, bool isA, int64_t extent,
                       int64_t k) {
  return isA ? wholeASize(isa, extent, k) : wholeBSize(isa, extent, k);
}

/// Packs those weights (element strides rs, along K for B and along M for
/// A, and cs) in one K block into `out`.
void packGemvWeights(const KernelIsa &isa, bool isA, const float *w,
                     int64_t extent, int64_t k, int64_t rs, int64_t cs,
                     float *out) {
  if (isA)
    packWholeA(isa, w, rs, cs, extent, k, k, out);
  else
    packWholeB(isa, w, rs, cs, extent, k, k, out);
}

/// Those weights from the weight cache (packed on first use); nullptr if
/// the cache cannot hold them.
const float *cachedGemvWeights(tandem_internal_kernel_cache *cache,
                               const KernelIsa &isa, bool isA, const float *w,
                               int64_t extent, int64_t k, int64_t rs,
                               int64_t cs) {
  tandem_internal_packed_key key =
      isA ? tandem_internal_packed_key{w,          extent,         k, rs, cs,
                                       kRoleGemvA, int32_t(isa.mr)}
          : tandem_internal_packed_key{w,  k,          extent,         rs,
                                       cs, kRoleGemvB, int32_t(isa.nr)};
  return tandem_internal_kernel_cache_get(
      cache, key, gemvWeightsSize(isa, isA, extent, k), [&](float *out) {
        packGemvWeights(isa, isA, w, extent, k, rs, cs, out);
      });
}

/// cachedGemvWeights, or without a cache (or when it is full) the weights
/// packed into this thread's scratch for this call: a product takes the
/// gemv path because its weights are constant, never because a cache is
/// at hand, so every caller (a compiled model, the emulated device's
/// library calls) sums alike. nullptr (failure recorded) when out of
/// memory.
const float *gemvWeights(tandem_internal_kernel_cache *cache,
                         const KernelIsa &isa, bool isA, const float *w,
                         int64_t extent, int64_t k, int64_t rs, int64_t cs,
                         tandem_internal_kernel_failure *failure) {
  if (cache)
    if (const float *cached =
            cachedGemvWeights(cache, isa, isA, w, extent, k, rs, cs))
      return cached;
  float *scratch = gemvPacked.get(gemvWeightsSize(isa, isA, extent, k));
  if (!scratch) {
    tandem_internal_kernel_fail(failure, "sgemm: out of memory for packing");
    return nullptr;
  }
  packGemvWeights(isa, isA, w, extent, k, rs, cs, scratch);
  return scratch;
}

void gemm2D(tandem_thread_pool_t *pool, const KernelIsa &isa, int64_t m,
            int64_t n, int64_t k, const float *a, int64_t rsA, int64_t csA,
            const float *b, int64_t rsB, int64_t csB, float *c, int64_t rsC,
            int64_t csC, bool accumulate, Epilogue epi, const float *aCache,
            const float *bCache, tandem_internal_kernel_failure *failure,
            const ConvImage *conv = nullptr, TileBias bias = {}) {
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float &out = c[i * rsC + j * csC];
        out = applyEpilogue(withPrior(0.0f, &out, accumulate, bias, i, j), epi);
      }
    return;
  }
  int64_t nr = isa.nr, mr = isa.mr;
  float *bPacked =
      bCache ? nullptr : packedB.get(isa.kc * ((kNC + nr - 1) / nr * nr));
  if (!bPacked && !bCache) {
    tandem_internal_kernel_fail(failure, "sgemm: out of memory for packing");
    return;
  }
  int64_t threads = tandem_thread_pool_size(pool);
  int64_t mPanels = (m + mr - 1) / mr;
  for (int64_t jc = 0; jc < n; jc += kNC) {
    int64_t nc = std::min(kNC, n - jc);
    int64_t nPanels = (nc + nr - 1) / nr;
    // More tasks when there are too few to keep every thread busy to the
    // end (a 768-wide B is 3 tasks of 8 panels: 2 threads, 1.5x), into
    // parts whose panel counts differ by at most one, up to 4 tasks per
    // thread (then every tandem_parallel_for chunk is one task). N is cut
    // first, also where A is cached weights that both threads then read:
    // a conv's B is the activations the previous kernel wrote on both
    // threads, and where tasks split M both threads read all of it, so
    // every line of it ends up held by both cores. Rewriting a line that
    // another core holds is slow (a store to lines the other core has read
    // runs at 8.5 GB/s on the 2-vCPU VM, against 55 GB/s to lines it has
    // not), and the next run rewrites each of them. Cutting M first cost
    // MobileNetV2 and MNasNet 3% at 2 threads; weights that both threads
    // read are never rewritten.
    auto parts = [](int64_t panels, int64_t per) {
      return (panels + per - 1) / per;
    };
    int64_t mBlocks = parts(mPanels, kMCPanels);
    int64_t nTasks = parts(nPanels, kNCPanelsPerTask);
    int64_t target = 4 * threads;
    if (threads > 1 && mBlocks * nTasks < target) {
      auto grow = [&](int64_t &count, int64_t panels, int64_t other) {
        count = std::clamp<int64_t>(target / other, count, panels);
      };
      grow(nTasks, nPanels, mBlocks);
      grow(mBlocks, mPanels, nTasks);
    }
    int64_t mPadded = (m + mr - 1) / mr * mr;
    int64_t kc = kBlockSize(isa, k);
    int64_t kBlocks = (k + kc - 1) / kc;
    // A narrow B (a conv on a 7x7 or 14x14 image) over several K blocks, on
    // several threads: all of it packed at once (in the buffer one K block
    // takes otherwise), then each task runs every K block of its tiles, so
    // there is no barrier between K blocks (a 7x7 projection conv's four
    // cost it a quarter of its time on two threads). Each element still
    // sums block by block, in the same order. Only where A is cached or
    // each task has an M block of its own: a thread that interleaves K
    // blocks over several tasks of one M block would pack that block of A
    // once per task instead of once.
    bool allK = threads > 1 && kBlocks > 1 && kBlocks <= kMaxAllKBlocks &&
                (aCache || nTasks == 1) &&
                (bCache || wholeBSize(isa, nc, k) <= kAllKBFloats);
    // The step of K block pc; with allK, B's blocks lie one after another
    // in the K-block buffer (packedBStep's layout).
    auto stepAt = [&](int64_t pc) {
      float *bStep = bCache ? const_cast<float *>(bCache) +
                                  packedBStep(jc, pc, k, nPanels, nr)
                     : allK ? bPacked + packedBStep(0, pc, k, nPanels, nr)
                            : bPacked;
      return BlockStep{
          &isa,
          a + pc * csA,
          rsA,
          csA,
          b ? b + pc * rsB + jc * csB : nullptr, // null: conv
          rsB,
          csB,
          c + jc * csC,
          rsC,
          csC,
          m,
          std::min(kc, k - pc),
          nc,
          mBlocks,
          nTasks,
          accumulate || pc > 0,
          pc + kc >= k ? epi : kNoEpilogue,
          bStep,
          bCache != nullptr,
          aCache ? aCache + mPadded * pc : nullptr,
          failure,
          conv,
          pc,
          jc,
          stepCounter.fetch_add(1, std::memory_order_relaxed) + 1,
          pc == 0 ? TileBias{bias.row, bias.col ? bias.col + jc : nullptr}
                  : TileBias{}};
    };
    int64_t tasks = mBlocks * nTasks,
            chunk = tandem_internal_balanced_chunk(tasks, threads);
    if (allK) {
      BlockStep steps[kMaxAllKBlocks];
      for (int64_t step = 0; step < kBlocks; ++step)
        steps[step] = stepAt(step * kc);
      StepRun run{steps, kBlocks, nPanels, bPacked};
      tandem_internal_parallel_chunks(pool, tasks, chunk, stepTasks, &run);
      if (failure->failed.load(std::memory_order_relaxed))
        return;
      continue;
    }
    for (int64_t pc = 0; pc < k; pc += kc) {
      BlockStep s = stepAt(pc);
      // Packing B costs a copy for 2*m FLOPs per element; reading B in
      // place (ldb = its row stride) measured slower even for m = 64.
      StepRun run{&s, 1, nPanels, bPacked};
      if (bCache)
        tandem_internal_parallel_chunks(pool, tasks, chunk, computeTasks, &s);
      else
        tandem_internal_parallel_chunks(pool, tasks, chunk, stepTasks, &run);
      if (failure->failed.load(std::memory_order_relaxed))
        return;
    }
  }
}

/// One problem of a batched tandem_sgemm_f32, its operands already swapped
/// where C is column-major (sgemmInto), on `pool` (null: this thread).
struct SgemmItems {
  const KernelIsa *isa;
  const tandem_exec_ctx_t *ctx;
  tandem_thread_pool_t *pool;
  int64_t m, n, k;
  const float *a;
  int64_t sAb, sAm, sAk;
  const float *b;
  int64_t sBb, sBk, sBn;
  float *c;
  int64_t sCb, sCm, sCn;
  bool accumulate, constA, constB;
  int32_t flags;
  Epilogue epi;
  TileBias bias;
  tandem_internal_kernel_failure *failure;
};

void sgemmItem(const SgemmItems &p, int64_t i) {
  const KernelIsa &isa = *p.isa;
  int64_t m = p.m, n = p.n, k = p.k;
  auto *cache =
      p.ctx ? static_cast<tandem_internal_kernel_cache *>(p.ctx->reserved[0])
            : nullptr;
  const float *ai = p.a + i * p.sAb, *bi = p.b + i * p.sBb;
  float *ci = p.c + i * p.sCb;
  // Constant operands (weights) are packed once per instance. If the
  // cache cannot hold them, they are packed per call as usual.
  // Weights times a vector (a classifier on one image): the weights in
  // one K block, streamed once (gemvCached).
  bool gemv = k > 0 && isa.gemv && !(p.flags & kSgemmNoGemv);
  bool gemvA = gemv && p.constA && n == 1;
  bool gemvB = gemv && !gemvA && p.constB && m == 1;
  if (gemvA || gemvB) {
    const float *weights =
        gemvA
            ? gemvWeights(cache, isa, true, ai, m, k, p.sAm, p.sAk, p.failure)
            : gemvWeights(cache, isa, false, bi, n, k, p.sBk, p.sBn, p.failure);
    if (weights)
      gemvCached(p.pool, isa, m, n, k, weights, gemvA, gemvA ? bi : ai,
                 gemvA ? p.sBk : p.sAk, nullptr, ci, gemvA ? p.sCm : p.sCn,
                 p.accumulate, p.epi, p.bias, p.failure);
    return;
  }
  const float *aCache = nullptr, *bCache = nullptr;
  if (cache && p.constA && k > 0)
    aCache = tandem_internal_kernel_cache_get(
        cache, {ai, m, k, p.sAm, p.sAk, kRoleA, int32_t(isa.mr)},
        wholeASize(isa, m, k), [&](float *out) {
          packWholeA(isa, ai, p.sAm, p.sAk, m, k, kBlockSize(isa, k), out);
        });
  if (cache && p.constB && k > 0)
    bCache = tandem_internal_kernel_cache_get(
        cache, {bi, k, n, p.sBk, p.sBn, kRoleB, int32_t(isa.nr)},
        wholeBSize(isa, n, k), [&](float *out) {
          packWholeB(isa, bi, p.sBk, p.sBn, n, k, kBlockSize(isa, k), out);
        });
  gemm2D(p.pool, isa, m, n, k, ai, p.sAm, p.sAk, bi, p.sBk, p.sBn, ci, p.sCm,
         p.sCn, p.accumulate, p.epi, aCache, bCache, p.failure, nullptr,
         p.bias);
}

/// tandem_parallel_fn over the problems of a batch, each on one thread.
void sgemmItemRange(void *env, int64_t begin, int64_t end) {
  const auto &p = *static_cast<const SgemmItems *>(env);
  for (int64_t i = begin; i < end && !p.failure->failed; ++i)
    sgemmItem(p, i);
}

/// tandem_sgemm_f32 on the micro-kernels of `isa`, recording a failure in
/// `failure`.
void sgemmInto(const KernelIsa &isa, const tandem_exec_ctx_t *ctx,
               int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
               int64_t sAb, int64_t sAm, int64_t sAk, const float *b,
               int64_t sBb, int64_t sBk, int64_t sBn, const float *colBias,
               float *c, int64_t sCb, int64_t sCm, int64_t sCn, int32_t flags,
               tandem_internal_kernel_failure &failure) {
  tandem_thread_pool_t *pool = ctx ? ctx->pool : nullptr;
  // The micro-kernels store rows of C with unit stride; a column-major C
  // computes the transposed product instead: C^T = B^T A^T.
  bool swapped = sCn != 1 && sCm == 1;
  // The column bias of C is the row bias of C^T.
  TileBias bias{swapped ? colBias : nullptr, swapped ? nullptr : colBias};
  if (swapped) {
    std::swap(m, n);
    std::swap(a, b);
    std::swap(sAb, sBb);
    std::swap(sAm, sBn);
    std::swap(sAk, sBk);
    std::swap(sCm, sCn);
  }
  bool constA = flags & TANDEM_SGEMM_CONSTANT_A;
  bool constB = flags & TANDEM_SGEMM_CONSTANT_B;
  if (swapped)
    std::swap(constA, constB);
  SgemmItems items{&isa,
                   ctx,
                   pool,
                   m,
                   n,
                   k,
                   a,
                   sAb,
                   sAm,
                   sAk,
                   b,
                   sBb,
                   sBk,
                   sBn,
                   c,
                   sCb,
                   sCm,
                   sCn,
                   bool(flags & TANDEM_SGEMM_ACCUMULATE),
                   constA,
                   constB,
                   flags,
                   epilogueOf(flags),
                   bias,
                   &failure};
  // A batch that divides among the threads (or has many problems each) runs
  // whole problems on each thread: the attention products of a Transformer
  // layer (12 heads of 128 x 128 x 64 in BERT) split each one into tasks
  // whose dispatch and barriers cost as much as two threads gain. Every
  // element sums in the same order either way.
  int64_t threads = tandem_thread_pool_size(pool);
  if (threads > 1 && batch > 1 &&
      (batch % threads == 0 || batch >= 4 * threads)) {
    items.pool = nullptr;
    tandem_internal_parallel_chunks(
        pool, batch, tandem_internal_balanced_chunk(batch, threads),
        sgemmItemRange, &items);
    return;
  }
  for (int64_t i = 0; i < batch && !failure.failed; ++i)
    sgemmItem(items, i);
}

/// tandem_sgemm_bias_f32 on the micro-kernels of `isa`.
void sgemm(const KernelIsa &isa, const tandem_exec_ctx_t *ctx, int64_t batch,
           int64_t m, int64_t n, int64_t k, const float *a, int64_t sAb,
           int64_t sAm, int64_t sAk, const float *b, int64_t sBb, int64_t sBk,
           int64_t sBn, const float *bias, float *c, int64_t sCb, int64_t sCm,
           int64_t sCn, int32_t flags) {
  tandem_internal_kernel_failure failure;
  sgemmInto(isa, ctx, batch, m, n, k, a, sAb, sAm, sAk, b, sBb, sBk, sBn, bias,
            c, sCb, sCm, sCn, flags, failure);
  tandem_internal_kernel_report(&failure);
}

} // namespace

extern "C" TANDEM_API void
tandem_sgemm_f32(const tandem_exec_ctx_t *ctx, int64_t batch, int64_t m,
                 int64_t n, int64_t k, const float *a, int64_t sAb, int64_t sAm,
                 int64_t sAk, const float *b, int64_t sBb, int64_t sBk,
                 int64_t sBn, float *c, int64_t sCb, int64_t sCm, int64_t sCn,
                 int32_t flags) {
  sgemm(isa(), ctx, batch, m, n, k, a, sAb, sAm, sAk, b, sBb, sBk, sBn, nullptr,
        c, sCb, sCm, sCn, flags);
}

extern "C" TANDEM_API void
tandem_sgemm_bias_f32(const tandem_exec_ctx_t *ctx, int64_t batch, int64_t m,
                      int64_t n, int64_t k, const float *a, int64_t sAb,
                      int64_t sAm, int64_t sAk, const float *b, int64_t sBb,
                      int64_t sBk, int64_t sBn, const float *bias, float *c,
                      int64_t sCb, int64_t sCm, int64_t sCn, int32_t flags) {
  sgemm(isa(), ctx, batch, m, n, k, a, sAb, sAm, sAk, b, sBb, sBk, sBn, bias, c,
        sCb, sCm, sCn, flags);
}

extern "C" TANDEM_API const char *tandem_sgemm_f32_isa(void) {
  return isa().name;
}

extern "C" TANDEM_API void
tandem_conv2d_f32(const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h,
                  int64_t w, const float *input, int64_t sIn, int64_t sIc,
                  int64_t sIh, int64_t sIw, int64_t f, int64_t kh, int64_t kw,
                  const float *filter, float *output, int64_t sOn, int64_t sOf,
                  int64_t oh, int64_t ow, int64_t strideH, int64_t strideW,
                  int64_t dilationH, int64_t dilationW, int32_t flags) {
  tandem_conv2d_bias_f32(ctx, n, c, h, w, input, sIn, sIc, sIh, sIw, f, kh, kw,
                         filter, nullptr, output, sOn, sOf, oh, ow, strideH,
                         strideW, dilationH, dilationW, flags);
}

namespace {

/// A constant conv filter (f x k) packed in the weight cache: in gemm2D's
/// layout, or for `gemv` in gemvCached's; nullptr if k is 0 or the cache
/// cannot hold it.
const float *cachedFilter(tandem_internal_kernel_cache *cache,
                          const KernelIsa &chosen, const float *filter,
                          int64_t f, int64_t k, bool gemv) {
  if (k <= 0 || f <= 0)
    return nullptr;
  if (gemv)
    return cachedGemvWeights(cache, chosen, true, filter, f, k, k, 1);
  return tandem_internal_kernel_cache_get(
      cache, {filter, f, k, k, 1, kRoleA, int32_t(chosen.mr)},
      wholeASize(chosen, f, k), [&](float *out) {
        packWholeA(chosen, filter, k, 1, f, k, kBlockSize(chosen, k), out);
      });
}

/// tandem_conv2d_bias_f32, or with `packedInput` tandem_conv2d_packed_f32.
void conv2d(const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h,
            int64_t w, const float *input, int64_t sIn, int64_t sIc,
            int64_t sIh, int64_t sIw, int64_t f, int64_t kh, int64_t kw,
            const float *filter, const float *bias, float *output, int64_t sOn,
            int64_t sOf, int64_t oh, int64_t ow, int64_t strideH,
            int64_t strideW, int64_t dilationH, int64_t dilationW,
            int32_t flags, bool packedInput) {
  if (packedInput) {
    // The packed layout is only ever a 1x1 conv's GEMM operand.
    flags &= ~(TANDEM_CONV2D_WINOGRAD | TANDEM_CONV2D_WINOGRAD_F2 |
               TANDEM_CONV2D_WINOGRAD_F4);
    if (kh != 1 || kw != 1 || strideH != 1 || strideW != 1 || dilationH != 1 ||
        dilationW != 1 || oh != h || ow != w) {
      tandem_internal_kernel_failure failure;
      tandem_internal_kernel_fail(
          &failure, "conv2d: a packed input needs a 1x1 conv of stride 1");
      tandem_internal_kernel_report(&failure);
      return;
    }
  }
  bool winograd =
      (flags & (TANDEM_CONV2D_WINOGRAD_F2 | TANDEM_CONV2D_WINOGRAD_F4)) ||
      ((flags & TANDEM_CONV2D_WINOGRAD) && kh == 3 && kw == 3 && strideH == 1 &&
       strideW == 1 && dilationH == 1 && dilationW == 1);
  if (bias && winograd) {
    // The Winograd output transform adds what the output holds: the bias
    // goes there first.
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < f; ++ch) {
        float *plane = output + b * sOn + ch * sOf;
        for (int64_t i = 0; i < oh * ow; ++i)
          plane[i] = (flags & TANDEM_CONV2D_ACCUMULATE) ? plane[i] + bias[ch]
                                                        : bias[ch];
      }
    flags |= TANDEM_CONV2D_ACCUMULATE;
    bias = nullptr;
  }
  // A filter the compiler transformed: Winograd is the only way to read it.
  if (flags & (TANDEM_CONV2D_WINOGRAD_F2 | TANDEM_CONV2D_WINOGRAD_F4)) {
    tandem_internal_winograd_conv2d_f32(
        nullptr, flags & TANDEM_CONV2D_WINOGRAD_F4 ? 4 : 2, ctx, n, c, h, w,
        input, sIn, sIc, sIh, sIw, f, filter, output, sOn, sOf, oh, ow, flags);
    return;
  }
  if ((flags & TANDEM_CONV2D_WINOGRAD) && kh == 3 && kw == 3 && strideH == 1 &&
      strideW == 1 && dilationH == 1 && dilationW == 1 &&
      tandem_internal_winograd_conv2d_f32(nullptr, 0, ctx, n, c, h, w, input,
                                          sIn, sIc, sIh, sIw, f, filter, output,
                                          sOn, sOf, oh, ow, flags))
    return;
  const KernelIsa &chosen = isa();
  tandem_thread_pool_t *pool = ctx ? ctx->pool : nullptr;
  auto *cache =
      ctx ? static_cast<tandem_internal_kernel_cache *>(ctx->reserved[0])
          : nullptr;
  // The GEMM: filter [F, C*KH*KW] x im2col(input) [C*KH*KW, OH*OW].
  int64_t k = c * kh * kw, p = oh * ow;
  tandem_internal_kernel_failure failure;
  const float *aCache = nullptr;
  // One output pixel (a squeeze-excitation conv on a 1x1 image) of a
  // constant filter: the filter times a vector (gemvCached).
  bool gemv =
      p == 1 && (flags & TANDEM_CONV2D_CONSTANT_FILTER) && k > 0 && chosen.gemv;
  if (gemv)
    aCache = gemvWeights(cache, chosen, true, filter, f, k, k, 1, &failure);
  else if (cache && (flags & TANDEM_CONV2D_CONSTANT_FILTER))
    aCache = cachedFilter(cache, chosen, filter, f, k, false);
  for (int64_t b = 0; b < n && !failure.failed; ++b) {
    if (gemv) {
      // A packed input is one panel: K index kk at kk * NR.
      ConvImage image{input + b * sIn, sIc,     sIh,       sIw,      kh, kw, ow,
                      strideH,         strideW, dilationH, dilationW};
      gemvCached(pool, chosen, f, 1, k, aCache, true,
                 input + b * TANDEM_PACKED_PANEL_FLOATS(c, p), chosen.nr,
                 packedInput ? nullptr : &image, output + b * sOn, sOf,
                 flags & TANDEM_CONV2D_ACCUMULATE, epilogueOf(flags),
                 TileBias{bias, nullptr}, &failure);
      continue;
    }
    if (packedInput) {
      // B is already packed (tandem_internal_pack_b_rows' layout).
      gemm2D(pool, chosen, f, p, k, filter, k, 1, nullptr, 0, 1,
             output + b * sOn, sOf, 1, flags & TANDEM_CONV2D_ACCUMULATE,
             epilogueOf(flags), aCache,
             input + b * TANDEM_PACKED_PANEL_FLOATS(c, p), &failure, nullptr,
             TileBias{bias, nullptr});
      continue;
    }
    ConvImage image{input + b * sIn, sIc,     sIh,       sIw,      kh, kw, ow,
                    strideH,         strideW, dilationH, dilationW};
    gemm2D(pool, chosen, f, p, k, filter, k, 1, nullptr, 0, 1, output + b * sOn,
           sOf, 1, flags & TANDEM_CONV2D_ACCUMULATE, epilogueOf(flags), aCache,
           nullptr, &failure, &image, TileBias{bias, nullptr});
  }
  tandem_internal_kernel_report(&failure);
}

} // namespace

extern "C" TANDEM_API void tandem_conv2d_bias_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t f, int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOf, int64_t oh, int64_t ow,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int32_t flags) {
  conv2d(ctx, n, c, h, w, input, sIn, sIc, sIh, sIw, f, kh, kw, filter, bias,
         output, sOn, sOf, oh, ow, strideH, strideW, dilationH, dilationW,
         flags, /*packedInput=*/false);
}

extern "C" TANDEM_API void tandem_conv2d_packed_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t f, int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOf, int64_t oh, int64_t ow,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int32_t flags) {
  conv2d(ctx, n, c, h, w, input, sIn, sIc, sIh, sIw, f, kh, kw, filter, bias,
         output, sOn, sOf, oh, ow, strideH, strideW, dilationH, dilationW,
         flags, /*packedInput=*/true);
}

void tandem_internal_sgemm_f32_into(
    const char *isaName, const tandem_exec_ctx_t *ctx, int64_t batch, int64_t m,
    int64_t n, int64_t k, const float *a, int64_t sAb, int64_t sAm, int64_t sAk,
    const float *b, int64_t sBb, int64_t sBk, int64_t sBn, float *c,
    int64_t sCb, int64_t sCm, int64_t sCn, int32_t flags,
    tandem_internal_kernel_failure *failure) {
  KernelIsa chosen = isa();
  if (isaName)
    isaByName(isaName, chosen);
  sgemmInto(chosen, ctx, batch, m, n, k, a, sAb, sAm, sAk, b, sBb, sBk, sBn,
            nullptr, c, sCb, sCm, sCn, flags, *failure);
}

void tandem_internal_pack_b_rows(const float *src, int64_t srcStride,
                                 int64_t row0, int64_t rows, int64_t k,
                                 int64_t n, float *packed) {
  tandem_internal_pack_b_columns(src, srcStride, row0, rows, k, n, 0, n,
                                 packed);
}

extern "C" TANDEM_API void tandem_require_hardswish_epilogue(void) {}
extern "C" TANDEM_API void tandem_require_silu_epilogue(void) {}

void tandem_internal_pack_b_columns(const float *src, int64_t srcStride,
                                    int64_t row0, int64_t rows, int64_t k,
                                    int64_t n, int64_t col0, int64_t cols,
                                    float *packed) {
  // The layout tandem_conv2d_packed_f32 reads: isa()'s panel width and K
  // blocks.
  int64_t kc = kBlockSize(isa(), k);
  switch (isa().nr) {
  case 32:
#if TANDEM_X86
    // Only the AVX-512 micro-kernels have 32-wide panels.
    return packBRows32Avx512(src, srcStride, row0, rows, k, kc, n, col0, cols,
                             packed);
#else
    return packBRowsFixed<32>(src, srcStride, row0, rows, k, kc, n, col0, cols,
                              packed);
#endif
  case 16:
    return packBRowsFixed<16>(src, srcStride, row0, rows, k, kc, n, col0, cols,
                              packed);
  default:
    return packBRowsFixed<8>(src, srcStride, row0, rows, k, kc, n, col0, cols,
                             packed);
  }
}

const float *tandem_internal_packed_filter(const tandem_exec_ctx_t *ctx,
                                           const float *filter, int64_t f,
                                           int64_t k, int64_t pixels) {
  auto *cache =
      ctx ? static_cast<tandem_internal_kernel_cache *>(ctx->reserved[0])
          : nullptr;
  if (!cache)
    return nullptr;
  // The entry tandem_conv2d_bias_f32 uses for a constant filter: both calls
  // share one packed copy.
  const KernelIsa &chosen = isa();
  return cachedFilter(cache, chosen, filter, f, k, pixels == 1 && chosen.gemv);
}

int64_t tandem_internal_conv1x1_row_group(int64_t rows) {
  int64_t mr = isa().mr;
  return (rows + mr - 1) / mr * mr;
}

void tandem_internal_conv1x1_rows(const float *filter,
                                  const float *packedFilter, int64_t k,
                                  int64_t row0, int64_t rows,
                                  const float *packedInput, int64_t pixels,
                                  const float *bias, int32_t flags, float *out,
                                  tandem_internal_kernel_failure *failure) {
  const KernelIsa &chosen = isa();
  // The cached copy holds K block pc at mPadded * pc (for one pixel, one K
  // block for gemvCached): with one K block, the rows from row0 (a whole MR
  // panel) start at row0 * k.
  if (pixels == 1 && (flags & TANDEM_CONV2D_CONSTANT_FILTER) && k > 0 &&
      chosen.gemv) {
    // As tandem_conv2d_bias_f32 computes one pixel of a constant filter
    // (each row sums in its own lanes, wherever its panel starts); the
    // packed input is one panel: K index kk at kk * NR.
    const float *weights =
        packedFilter && row0 % chosen.mr == 0
            ? packedFilter + row0 * k
            : gemvWeights(nullptr, chosen, true, filter + row0 * k, rows, k, k,
                          1, failure);
    if (weights)
      gemvCached(nullptr, chosen, rows, 1, k, weights, true, packedInput,
                 chosen.nr, nullptr, out, 1, false, epilogueOf(flags),
                 TileBias{bias ? bias + row0 : nullptr, nullptr}, failure);
    return;
  }
  const float *aCache =
      packedFilter && kBlockSize(chosen, k) == k && row0 % chosen.mr == 0
          ? packedFilter + row0 * k
          : nullptr;
  gemm2D(nullptr, chosen, rows, pixels, k, filter + row0 * k, k, 1, nullptr, 0,
         1, out, pixels, 1, /*accumulate=*/false, epilogueOf(flags), aCache,
         packedInput, failure, nullptr,
         TileBias{bias ? bias + row0 : nullptr, nullptr});
}

bool tandem_internal_sgemm_tile(const char *isaName, int64_t *mr, int64_t *nr,
                                int64_t *kc) {
  KernelIsa chosen = isa();
  if (isaName && !isaByName(isaName, chosen))
    return false;
  *mr = chosen.mr;
  *nr = chosen.nr;
  if (kc)
    *kc = chosen.kc;
  return true;
}

bool tandem_internal_sgemm_f32_on(
    const char *isaName, const tandem_exec_ctx_t *ctx, int64_t batch, int64_t m,
    int64_t n, int64_t k, const float *a, int64_t sAb, int64_t sAm, int64_t sAk,
    const float *b, int64_t sBb, int64_t sBk, int64_t sBn, float *c,
    int64_t sCb, int64_t sCm, int64_t sCn, int32_t flags) {
  return tandem_internal_sgemm_bias_f32_on(isaName, ctx, batch, m, n, k, a, sAb,
                                           sAm, sAk, b, sBb, sBk, sBn, nullptr,
                                           c, sCb, sCm, sCn, flags);
}

bool tandem_internal_sgemm_bias_f32_on(
    const char *isaName, const tandem_exec_ctx_t *ctx, int64_t batch, int64_t m,
    int64_t n, int64_t k, const float *a, int64_t sAb, int64_t sAm, int64_t sAk,
    const float *b, int64_t sBb, int64_t sBk, int64_t sBn, const float *bias,
    float *c, int64_t sCb, int64_t sCm, int64_t sCn, int32_t flags) {
  KernelIsa chosen;
  if (!isaByName(isaName, chosen))
    return false;
  sgemm(chosen, ctx, batch, m, n, k, a, sAb, sAm, sAk, b, sBb, sBk, sBn, bias,
        c, sCb, sCm, sCn, flags);
  return true;
}
