//===- gemv.h - matrix-vector products on packed weights ---------*- C++
//-*-===//
//
// A GEMM whose other operand is a single row or column (a classifier on one
// image, a squeeze-excitation 1x1 conv on a 1x1 image) reads each weight
// once and has nothing to reuse: it runs at the speed the packed weights
// stream from memory. sgemm.cpp sends such products here instead of through
// its K-blocked driver (a barrier per K block, a B panel padded to NR
// columns for one useful column): one pass per packed panel over every K
// block, several FMA chains, the panel's sums handed back for the caller's
// epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_GEMV_H
#define TANDEM_RUNTIME_KERNELS_GEMV_H

#include <cstdint>

namespace tandem_internal {

/// One panel of an operand packed by K blocks (the weight cache's layout
/// for sgemm's A and B): K block pc (every block kc high but the last)
/// starts at base + padded * pc, this panel's part of it `index * width *
/// height` floats further on, and that part's row kk holds the panel's
/// `width` floats at K index pc + kk.
struct PackedPanel {
  const float *base;
  int64_t padded; // floats per K index over all panels
  int64_t index;  // which panel
  int64_t width;  // floats per row of the panel (the micro-kernel's MR/NR)
  int64_t kc;     // K block height
  int64_t k;      // K
};

/// out[j] = sum over kk < k of s[kk] * panel[kk][j], for j < width.
using GemvKernel = void (*)(const PackedPanel &panel, const float *s,
                            float *out);

/// The kernels for the AVX-512 micro-kernels' panels (width 32 for B, 14
/// for A), AVX2's (16, 6) and portable C's (any width, up to 32).
void gemvPanelAvx512(const PackedPanel &panel, const float *s, float *out);
void gemvPanelAvx2(const PackedPanel &panel, const float *s, float *out);
void gemvPanelPortable(const PackedPanel &panel, const float *s, float *out);

} // namespace tandem_internal

#endif // TANDEM_RUNTIME_KERNELS_GEMV_H
