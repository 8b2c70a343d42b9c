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
//   set1, fma, add, max, min, hardSwish
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

/// Output rows [y, y + R) of a KxK plane: every column block computes its
/// R rows' windows from the STEP * (R - 1) + K input rows they cover, each
/// input vector loaded once and fed to every row that reads it.
template <class T, int K, int STEP, int R>
TANDEM_DW_KXK_TARGET void rowsKxK(const Dw3x3Plane &p,
                                  const typename T::V w[K * K], float *out,
                                  int64_t y) {
  using V = typename T::V;
  constexpr int kIn = STEP * (R - 1) + K;
  const V bias = T::set1(p.bias), zero = T::set1(0.0f), six = T::set1(6.0f);
  // Stride 1: the padded plane, tap (i, j) of output (y, x) at row y + i,
  // column x + j. Stride 2: input row 2y + i of the even plane (columns 0,
  // 2, 4, ...) and of the odd plane (1, 3, ...); tap j of output column x
  // is even[x + j / 2] for even j, odd[x + j / 2] for odd j.
  const float *first = p.in + STEP * y * p.inStride;
  for (int64_t x = 0; x < p.ow; x += T::kLanes) {
    typename T::M m = T::lanes(p.ow - x);
    V acc[R];
#pragma GCC unroll 8
    for (int o = 0; o < R; ++o)
      acc[o] =
          p.accumulate
              ? T::add(T::loadOut(m, out + (y + o) * p.outStride + x), bias)
              : bias;
#pragma GCC unroll 16
    for (int r = 0; r < kIn; ++r) {
      const float *row = first + r * p.inStride + x;
      V v[K];
#pragma GCC unroll 8
      for (int j = 0; j < K; ++j)
        v[j] = STEP == 1
                   ? T::loadIn(m, row + j)
                   : T::loadIn(m, row + j / 2 + (j % 2 ? p.oddOffset : 0));
#pragma GCC unroll 8
      for (int o = 0; o < R; ++o) {
        int i = r - STEP * o; // the tap row this input row is for output o
        if (i < 0 || i >= K)
          continue;
#pragma GCC unroll 8
        for (int j = 0; j < K; ++j)
          acc[o] = T::fma(w[K * i + j], v[j], acc[o]);
      }
    }
#pragma GCC unroll 8
    for (int o = 0; o < R; ++o) {
      V r = acc[o];
      // max(0, r), min(6, r): NaN stays NaN (the second operand on NaN).
      if (p.relu)
        r = T::max(zero, r);
      if (p.relu6)
        r = T::min(six, r);
      if (p.hardSwish)
        r = T::hardSwish(r);
      T::store(out + (y + o) * p.outStride + x, m, r);
    }
  }
}

/// The whole plane in steps of kRows output rows, the last step shorter.
template <class T, int K, int STEP, int kRows>
TANDEM_DW_KXK_TARGET void planeKxK(const Dw3x3Plane &p, const float *f,
                                   float *out) {
  using V = typename T::V;
  V w[K * K];
  for (int t = 0; t < K * K; ++t)
    w[t] = T::set1(f[t]);
  int64_t y = 0;
  for (; y + kRows <= p.oh; y += kRows)
    rowsKxK<T, K, STEP, kRows>(p, w, out, y);
  switch (p.oh - y) {
  case 7:
    if constexpr (kRows > 7)
      rowsKxK<T, K, STEP, 7>(p, w, out, y);
    break;
  case 6:
    if constexpr (kRows > 6)
      rowsKxK<T, K, STEP, 6>(p, w, out, y);
    break;
  case 5:
    if constexpr (kRows > 5)
      rowsKxK<T, K, STEP, 5>(p, w, out, y);
    break;
  case 4:
    if constexpr (kRows > 4)
      rowsKxK<T, K, STEP, 4>(p, w, out, y);
    break;
  case 3:
    if constexpr (kRows > 3)
      rowsKxK<T, K, STEP, 3>(p, w, out, y);
    break;
  case 2:
    if constexpr (kRows > 2)
      rowsKxK<T, K, STEP, 2>(p, w, out, y);
    break;
  case 1:
    if constexpr (kRows > 1)
      rowsKxK<T, K, STEP, 1>(p, w, out, y);
    break;
  default:
    break;
  }
}

} // namespace tandem_internal::dw_kxk

#endif // TANDEM_RUNTIME_KERNELS_DWCONV_KXK_H
