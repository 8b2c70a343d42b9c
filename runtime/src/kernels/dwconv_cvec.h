//===- dwconv_cvec.h - depthwise planes eight channels a vector -*- C++ -*-===//
//
// Small depthwise planes (MobileNet's 14x14 and 7x7 layers) computed with
// vectors across channels instead of along rows: eight channels' planes are
// transposed into one zero-bordered tile of 8-float pixels, every output
// pixel is K*K FMAs of whole vectors (no row tails, no masks, stride 2
// without a polyphase copy), and the results are transposed back into
// planes. A plane-at-a-time kernel spends most of a 7x7 plane on its row
// tails, its padded copy and its loop set-up.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_DWCONV_CVEC_H
#define TANDEM_RUNTIME_KERNELS_DWCONV_CVEC_H

#include "kernels/activation.h"

#include <cstdint>

namespace tandem_internal {

/// Up to eight channels of a KxK depthwise convolution (K = 3, 5 or 7,
/// stride 1 or 2 in both directions, dilation 1) with implicit zero
/// padding. The sums are those of the plane kernels (dwconv_kxk.h), in the
/// same order: the bias, then taps (0, 0), (0, 1), ... (K-1, K-1), each
/// one FMA; then the epilogue. So the results are theirs bit for bit.
struct DwChannelVec {
  int k, step;
  /// Channel c's input plane: h x w, rows w floats apart, at in + c *
  /// inStride. Output (y, x) reads input rows y * step - padTop + i and
  /// columns x * step - padLeft + j, zero outside the plane (padTop and
  /// padLeft may be negative: a band that starts inside the image).
  const float *in;
  int64_t inStride, h, w, padTop, padLeft;
  int64_t oh, ow;
  /// Channel c's K*K taps (row-major) at filter + c * K * K; its bias at
  /// bias[c] (none: nullptr).
  const float *filter;
  const float *bias;
  Epilogue epilogue;
  /// Channel c's output (y, x) at out + c * outStride + y * outRowStride + x.
  float *out;
  int64_t outStride, outRowStride;
};

/// Floats of the scratch tile dwChannelVecAvx2 needs for p's geometry.
int64_t dwChannelVecTileFloats(const DwChannelVec &p);

/// Whether dwChannelVecAvx2 computes p's window (the CPU is checked by the
/// caller: AVX2 and FMA).
bool dwChannelVecSupports(int64_t kh, int64_t kw, int64_t strideH,
                          int64_t strideW, int64_t dilationH,
                          int64_t dilationW);

/// Channels [0, channels) of p (1 <= channels <= 8) on AVX2 + FMA. `tile`
/// holds dwChannelVecTileFloats(p) floats, 32-byte aligned; `zeroTile`
/// says that its border must be cleared first (the first call on a tile,
/// or a call with another geometry: later calls with the same geometry
/// write only its interior).
void dwChannelVecAvx2(const DwChannelVec &p, int64_t channels, float *tile,
                      bool zeroTile);

} // namespace tandem_internal

#endif // TANDEM_RUNTIME_KERNELS_DWCONV_CVEC_H
