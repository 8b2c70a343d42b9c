//===- grouped_conv_kernel.h - grouped conv register blocks, per ISA ------===//
//
// The inner loops of tandem_grouped_conv2d_f32 (grouped_conv.cpp), written
// once over a vector type and included once per instruction set: the
// includer defines TANDEM_GC_TARGET (the function attribute of that set)
// and the vector traits `Vec` (kLanes, kFB, kNV, load, bcast, fma, ...)
// before including it, inside a namespace of its own. No include guard.
//
// A register block is kFB output channels of one group times kNV vectors of
// output pixels ("slots": kLanes consecutive pixels of one output row, the
// last of a row masked). Every tap (input channel c, window row i, column
// j) loads each slot's input vector from the staged rows once and feeds it
// to kFB FMAs, the tap's weights broadcast from the group's transposed
// filter ([c][i][j][f], f contiguous). The sums take the taps in the order
// of tandem_conv2d_f32's GEMM (k = c * KH * KW + i * KW + j) from zero, and
// the output's prior value (when accumulating) and the bias are added
// after them as its tiles add them, so a group whose C * KH * KW fits one
// of its K blocks gets the GEMM's bits.
//
//===----------------------------------------------------------------------===//

/// One register block: FB output channels (their weights start at `wt`,
/// a.f apart from tap to tap; their outputs at `out`, a.sOf apart) times
/// the NV slots `slot`.
template <int FB, int NV>
TANDEM_GC_TARGET void gcBlock(const tandem_internal::GroupedBlock &a,
                              const float *wt, const float *bias, float *out,
                              const tandem_internal::GroupedSlot *slot) {
  using V = typename Vec::V;
  V acc[FB][NV];
#pragma GCC unroll 8
  for (int o = 0; o < FB; ++o)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[o][v] = Vec::zero();
  int64_t in[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    in[v] = slot[v].in;
  const float *w = wt;
  for (int64_t c = 0; c < a.c; ++c)
    for (int64_t i = 0; i < a.kh; ++i) {
      const float *row = a.in + c * a.cStride + i * a.iStride;
      for (int64_t j = 0; j < a.kw; ++j, w += a.f) {
        const float *p = row + a.jOff[j];
        V x[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          x[v] = Vec::load(p + in[v]);
#pragma GCC unroll 8
        for (int o = 0; o < FB; ++o) {
          V wv = Vec::bcast(w + o);
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            acc[o][v] = Vec::fma(wv, x[v], acc[o][v]);
        }
      }
    }
    // The prior (the output's value when accumulating, then the bias) is
    // added after the products, as the GEMM's tiles add it.
#pragma GCC unroll 8
  for (int o = 0; o < FB; ++o) {
    float *dst = out + o * a.sOf;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      V sum = acc[o][v];
      if (a.accumulate) {
        V prior = Vec::loadOut(dst + slot[v].out, slot[v].lanes);
        if (bias)
          prior = Vec::add(prior, Vec::set1(bias[o]));
        sum = Vec::add(prior, sum);
      } else if (bias) {
        sum = Vec::add(Vec::set1(bias[o]), sum);
      }
      Vec::store(dst + slot[v].out, slot[v].lanes,
                 Vec::shortEpilogue(sum, a.epilogue));
    }
  }
}

/// Blocks of NV slots from `slot`, `slots` of them, for FB channels.
template <int FB>
TANDEM_GC_TARGET void gcSlots(const tandem_internal::GroupedBlock &a,
                              const float *wt, const float *bias, float *out,
                              const tandem_internal::GroupedSlot *slot,
                              int64_t slots) {
  int64_t s = 0;
  // Blocks of kNV slots; with kNV = 3, one slot left over makes the last
  // two blocks 2 + 2 instead of 3 + 1 (a 7x7 plane's 7 rows: 3 + 2 + 2), a
  // single slot feeding each weight broadcast to one FMA only.
  int64_t full = slots / Vec::kNV;
  if constexpr (Vec::kNV == 3)
    if (full > 0 && slots % 3 == 1)
      --full;
  for (int64_t b = 0; b < full; ++b, s += Vec::kNV)
    gcBlock<FB, Vec::kNV>(a, wt, bias, out, slot + s);
  if constexpr (Vec::kNV > 2)
    for (; s + 2 <= slots; s += 2)
      gcBlock<FB, 2>(a, wt, bias, out, slot + s);
  for (; s < slots; ++s)
    gcBlock<FB, 1>(a, wt, bias, out, slot + s);
}

/// Output channels [o, ...) of the group FB at a time while FB fit; returns
/// the first channel left.
template <int FB>
TANDEM_GC_TARGET int64_t gcChannels(const tandem_internal::GroupedBlock &a,
                                    const float *wt, const float *bias,
                                    float *out,
                                    const tandem_internal::GroupedSlot *slot,
                                    int64_t slots, int64_t o) {
  for (; o + FB <= a.f; o += FB)
    gcSlots<FB>(a, wt + o, bias ? bias + o : nullptr, out + o * a.sOf, slot,
                slots);
  return o;
}

/// Every output channel of the group (kFB at a time, then 4, 2, 1) over
/// `slots` slots.
TANDEM_GC_TARGET void gcRun(const tandem_internal::GroupedBlock &a,
                            const float *wt, const float *bias, float *out,
                            const tandem_internal::GroupedSlot *slot,
                            int64_t slots) {
  int64_t o = gcChannels<Vec::kFB>(a, wt, bias, out, slot, slots, 0);
  if constexpr (Vec::kFB > 4)
    o = gcChannels<4>(a, wt, bias, out, slot, slots, o);
  if constexpr (Vec::kFB > 2)
    o = gcChannels<2>(a, wt, bias, out, slot, slots, o);
  gcChannels<1>(a, wt, bias, out, slot, slots, o);
}

/// Deinterleaves `n` floats of `src` by 2: even ones to `even`, odd ones
/// to `odd` (n / 2 rounded up and down), whole vectors (src holds at least
/// 2 * kLanes more floats than n past its end, even and odd kLanes more).
TANDEM_GC_TARGET void gcEvenOdd(const float *src, int64_t n, float *even,
                                float *odd) {
  for (int64_t x = 0; x < n; x += 2 * Vec::kLanes)
    Vec::evenOdd(src + x, even + x / 2, odd + x / 2);
}

/// `rows` padded rows of a channel plane (image rows row0, row0 + 1, ...,
/// row r at plane + r * sIh), dstStride apart, one call per channel: each
/// `n` floats (a multiple of kLanes), float x being the row's column x - lo
/// for lo <= x < hi and zero elsewhere, and all zeros outside rows [0, h)
/// (only the columns in [lo, hi) are read).
TANDEM_GC_TARGET void gcStageRows(const float *plane, int64_t sIh, int64_t row0,
                                  int64_t rows, int64_t h, int64_t lo,
                                  int64_t hi, float *dst, int64_t dstStride,
                                  int64_t n) {
  for (int64_t r = 0; r < rows; ++r, dst += dstStride) {
    int64_t row = row0 + r;
    bool inside = row >= 0 && row < h;
    const float *src = plane + (inside ? row : 0) * sIh;
    int64_t a = inside ? lo : 0, b = inside ? hi : 0;
    for (int64_t x = 0; x < n; x += Vec::kLanes)
      Vec::storeAll(dst + x, Vec::loadRange(src + (x - a), a - x, b - x));
  }
}

/// gcStageRows for stride 2: each padded row (2n floats, built in
/// `padded`) split into its even columns at dst and its odd columns n
/// floats further on (gcEvenOdd), rows dstStride apart.
TANDEM_GC_TARGET void gcStageRowsEvenOdd(const float *plane, int64_t sIh,
                                         int64_t row0, int64_t rows, int64_t h,
                                         int64_t lo, int64_t hi, float *padded,
                                         float *dst, int64_t dstStride,
                                         int64_t n) {
  for (int64_t r = 0; r < rows; ++r, dst += dstStride) {
    gcStageRows(plane, sIh, row0 + r, 1, h, lo, hi, padded, 0, 2 * n);
    gcEvenOdd(padded, 2 * n, dst, dst + n);
  }
}

/// The long epilogue (HardSwish, SiLU) over `rows` rows of `cols` floats at
/// `p` (row stride `stride`).
TANDEM_GC_TARGET void gcLongEpilogue(float *p, int64_t stride, int64_t rows,
                                     int64_t cols,
                                     tandem_internal::Epilogue epi) {
  for (int64_t r = 0; r < rows; ++r, p += stride)
    for (int64_t x = 0; x < cols; x += Vec::kLanes) {
      int64_t n = std::min<int64_t>(Vec::kLanes, cols - x);
      Vec::store(p + x, n, Vec::longEpilogue(Vec::loadOut(p + x, n), epi));
    }
}
