//===- dwconv_kxk.h - KxK depthwise plane template, per ISA -----*- C++ -*-===//
//
// The row-blocked KxK depthwise plane kernel shared by the AVX-512
// (dwconv3x3_avx512.cpp) and AVX2 (dwconv_kxk_avx2.cpp) translation units.
// Each includes this header after defining TANDEM_DW_KXK_TARGET, the target
// attribute its functions are compiled for, and instantiates the template
// with a vector type T of its own:
//
//   V, M                 the vector and the lane mask types
//   kLanes               floats per vector
//   lanes(n)             the mask of the first min(n, kLanes) lanes
//   loadIn(m, p)         input columns p[0 .. kLanes): lanes outside m may
//                        hold anything (AVX2 reads the whole vector: the
//                        padded plane's rows have slack for it)
//   loadOut(m, p)        output columns, lanes outside m untouched in memory
//   store(p, m, v)       writes the lanes in m only
//   set1, fma, add
//   epilogue(v, e)       v under the fused epilogue e (activation.h)
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_DWCONV_KXK_H
#define TANDEM_RUNTIME_KERNELS_DWCONV_KXK_H

#ifndef TANDEM_DW_KXK_TARGET
#error "define TANDEM_DW_KXK_TARGET before including dwconv_kxk.h"
#endif

#include "kernels/dwconv3x3.h"

#include <cstdint>

namespace tandem_internal::dw_kxk {

/// The window row through which input row r of a step (counted from the
/// step's first input row) feeds output row o of the step, or -1 if it
/// feeds none.
template <int K, int STEP, int DIL> constexpr int tapRow(int r, int o) {
  int d = r - STEP * o;
  return d < 0 || d % DIL != 0 || d / DIL >= K ? -1 : d / DIL;
}

/// Output rows [y, y + R) of a KxK plane: every column block computes its
/// R rows' windows from the STEP * (R - 1) + K input rows they cover, each
/// input vector loaded once and fed to every row that reads it. A block is
/// COLS vectors wide: with two, each weight (a memory operand where the
/// weights do not fit the registers: 5x5 on AVX2) feeds two FMAs. DIL is
/// the dilation (stride 1 only): tap (i, j) reads input row y + DIL * i,
/// column x + DIL * j.
template <class T, int K, int STEP, int R, int COLS = 1, int DIL = 1>
TANDEM_DW_KXK_TARGET void rowsKxK(const Dw3x3Plane &p,
                                  const typename T::V w[K * K], float *out,
                                  int64_t y) {
  static_assert(DIL == 1 || STEP == 1, "dilation with stride 1 only");
  using V = typename T::V;
  constexpr int kIn = STEP * (R - 1) + DIL * (K - 1) + 1;
  const V bias = T::set1(p.bias);
  // Stride 1: the padded plane, tap (i, j) of output (y, x) at row y + i,
  // column x + j. Stride 2: input row 2y + i of the even plane (columns 0,
  // 2, 4, ...) and of the odd plane (1, 3, ...); tap j of output column x
  // is even[x + j / 2] for even j, odd[x + j / 2] for odd j.
  const float *first = p.in + STEP * y * p.inStride;
  auto tap = [&](const float *row, int j) {
    return STEP == 1 ? row + DIL * j : row + j / 2 + (j % 2 ? p.oddOffset : 0);
  };
  for (int64_t x = 0; x < p.ow; x += COLS * T::kLanes) {
    typename T::M m[COLS];
#pragma GCC unroll 2
    for (int c = 0; c < COLS; ++c)
      m[c] = T::lanes(p.ow - x - c * T::kLanes);
    V acc[R][COLS];
#pragma GCC unroll 8
    for (int o = 0; o < R; ++o)
#pragma GCC unroll 2
      for (int c = 0; c < COLS; ++c)
        acc[o][c] = p.accumulate
                        ? T::add(T::loadOut(m[c], out + (y + o) * p.outStride +
                                                      x + c * T::kLanes),
                                 bias)
                        : bias;
#pragma GCC unroll 16
    for (int r = 0; r < kIn; ++r) {
      const float *row = first + r * p.inStride + x;
      if constexpr (COLS == 1) {
        V v[K];
#pragma GCC unroll 8
        for (int j = 0; j < K; ++j)
          v[j] = T::loadIn(m[0], tap(row, j));
#pragma GCC unroll 8
        for (int o = 0; o < R; ++o) {
          int i = tapRow<K, STEP, DIL>(r, o);
          if (i < 0)
            continue;
#pragma GCC unroll 8
          for (int j = 0; j < K; ++j)
            acc[o][0] = T::fma(w[K * i + j], v[j], acc[o][0]);
        }
      } else {
        // Tap by tap: its COLS input vectors, then every output row that
        // reads this input row (each accumulator takes its taps in the
        // order above).
#pragma GCC unroll 8
        for (int j = 0; j < K; ++j) {
          V v[COLS];
#pragma GCC unroll 2
          for (int c = 0; c < COLS; ++c)
            v[c] = T::loadIn(m[c], tap(row, j) + c * T::kLanes);
#pragma GCC unroll 8
          for (int o = 0; o < R; ++o) {
            int i = tapRow<K, STEP, DIL>(r, o);
            if (i < 0)
              continue;
#pragma GCC unroll 2
            for (int c = 0; c < COLS; ++c)
              acc[o][c] = T::fma(w[K * i + j], v[c], acc[o][c]);
          }
        }
      }
    }
#pragma GCC unroll 8
    for (int o = 0; o < R; ++o)
#pragma GCC unroll 2
      for (int c = 0; c < COLS; ++c) {
        T::store(out + (y + o) * p.outStride + x + c * T::kLanes, m[c],
                 T::epilogue(acc[o][c], p.epilogue));
      }
  }
}

/// The plane's last `left` rows (0 <= left <= R) from row y: one step of
/// `left` rows, its row count found from R down.
template <class T, int K, int STEP, int R, int COLS, int DIL>
TANDEM_DW_KXK_TARGET void lastRowsKxK(const Dw3x3Plane &p,
                                      const typename T::V w[K * K], float *out,
                                      int64_t y, int64_t left) {
  if constexpr (R > 0) {
    if (left == R)
      rowsKxK<T, K, STEP, R, COLS, DIL>(p, w, out, y);
    else
      lastRowsKxK<T, K, STEP, R - 1, COLS, DIL>(p, w, out, y, left);
  }
}

/// The whole plane in steps of kRows output rows, the last step shorter.
template <class T, int K, int STEP, int kRows, int COLS = 1, int DIL = 1>
TANDEM_DW_KXK_TARGET void planeKxK(const Dw3x3Plane &plane, const float *f,
                                   float *out) {
  using V = typename T::V;
  // A copy the stores cannot reach: the row loops keep its fields (the
  // epilogue, strides, sizes) in registers instead of reloading them
  // after every store through a may-alias vector pointer.
  const Dw3x3Plane p = plane;
  V w[K * K];
  for (int t = 0; t < K * K; ++t)
    w[t] = T::set1(f[t]);
  int64_t y = 0;
  for (; y + kRows <= p.oh; y += kRows)
    rowsKxK<T, K, STEP, kRows, COLS, DIL>(p, w, out, y);
  lastRowsKxK<T, K, STEP, kRows - 1, COLS, DIL>(p, w, out, y, p.oh - y);
}

} // namespace tandem_internal::dw_kxk

#endif // TANDEM_RUNTIME_KERNELS_DWCONV_KXK_H
