//===- dwconv3x3.h - KxK depthwise planes from a padded copy ----*- C++ -*-===//
//
// The AVX-512 and AVX2 kernels behind tandem_dwconv2d_pad_f32's 3x3, 5x5 and
// 7x7 convolutions of stride 1 and 2 (dwconv3x3_avx512.cpp,
// dwconv_kxk_avx2.cpp, both instances of dwconv_kxk.h): one channel plane at a
// time, read from the zero-bordered copy dwconv.cpp makes of it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_DWCONV3X3_H
#define TANDEM_RUNTIME_KERNELS_DWCONV3X3_H

#include "kernels/activation.h"

#include <cstdint>

namespace tandem_internal {

/// One plane of a 3x3, 5x5 or 7x7 depthwise convolution of stride `step`
/// (1 or 2) and dilation 1 whose input is a padded copy: every window lies
/// inside it.
struct Dw3x3Plane {
  int step;
  /// The window: 3 (3x3), 5 (5x5) or 7 (7x7: ConvNeXt).
  int taps;
  /// Stride 1: the padded plane (row stride inStride), output (y, x) reads
  /// rows y .. y + taps - 1, columns x .. x + taps - 1. Stride 2: its even
  /// columns (padded column 2e at in[r * inStride + e]) with the odd
  /// columns oddOffset floats further on (2e + 1 at in[oddOffset + r *
  /// inStride + e]); output (y, x) reads rows 2y .. 2y + taps - 1.
  const float *in;
  int64_t inStride, oddOffset;
  int64_t oh, ow;
  int64_t outStride; // output rows; columns are contiguous
  float bias;        // every output starts from it
  bool accumulate;   // add the output's value
  Epilogue epilogue; // the fused epilogue (activation.h)
  /// 1, or 2 with step 1 (3x3 and 5x5 windows): tap (i, j) of output (y, x)
  /// reads row y + 2i, column x + 2j (a dilated conv, DeepLab and LR-ASPP
  /// backbones).
  int dilation = 1;
};

/// Computes one plane (`f`: its 9 filter taps, row-major) on AVX-512F with
/// AVX-512VL; the caller checks the CPU has both.
void dw3x3PlaneAvx512(const Dw3x3Plane &p, const float *f, float *out);

/// Copies `rows` source rows of `w` floats (row stride sSrc) into a
/// polyphase padded plane: padded column q (0 <= q < padW) is source column
/// q - padLeft, zero outside [0, w); even q go to even[q / 2], odd q to
/// odd[q / 2], row r at r * sDst. Rows are written up to column
/// ceil(padW / 32) * 16 of each half (sDst must be at least that).
void polyphaseRowsAvx512(const float *src, int64_t sSrc, int64_t rows,
                         int64_t w, int64_t padLeft, int64_t padW, float *even,
                         float *odd, int64_t sDst);

/// dw3x3PlaneAvx512 on AVX2 + FMA. Its input loads are whole 8-float
/// vectors from the first column a window reads, in blocks of up to 16
/// columns, so every row of the padded plane must be readable up to column
/// roundUp(ow, 16) + taps - 2 (stride 1), or of each half up to
/// roundUp(ow, 16) + (taps - 1) / 2 - 1 (stride 2); the columns past the
/// window's reach may hold anything.
void dw3x3PlaneAvx2(const Dw3x3Plane &p, const float *f, float *out);

/// polyphaseRowsAvx512 on AVX2, writing each half up to column
/// ceil(padW / 16) * 8.
void polyphaseRowsAvx2(const float *src, int64_t sSrc, int64_t rows, int64_t w,
                       int64_t padLeft, int64_t padW, float *even, float *odd,
                       int64_t sDst);

} // namespace tandem_internal

#endif // TANDEM_RUNTIME_KERNELS_DWCONV3X3_H
