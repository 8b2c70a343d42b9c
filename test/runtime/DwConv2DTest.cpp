//===- DwConv2DTest.cpp - tandem_dwconv2d_f32 against a direct conv -------===//
//
// Depthwise convolution on both row-kernel families: 3x3 and 5x5 windows,
// strides 1, 2 and 3 (contiguous, deinterleaved and gathered loads), rows
// that do not divide the register blocks, dilation, batches, a strided input
// view, accumulation onto a bias, the fused ReLU with a NaN, and a thread
// pool. Inputs sit right at the end of their buffer, so an out-of-bounds
// vector load would read past it (and fail under ASan).
//
//===----------------------------------------------------------------------===//

#include "TestPool.h"
#include "kernels/dwconv_internal.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "kernels/sgemm_internal.h"
#include "tandem/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct DwCase {
  int64_t n, c, h, w, kh, kw, sh, sw, dh, dw;
};

const DwCase kCases[] = {
    {1, 3, 9, 9, 3, 3, 1, 1, 1, 1},
    {1, 4, 114, 114, 3, 3, 1, 1, 1, 1}, // MobileNetV2 112x112 (padded)
    {2, 5, 113, 113, 3, 3, 2, 2, 1, 1}, // stride 2: deinterleaved loads
    {1, 3, 30, 47, 5, 5, 1, 1, 1, 1},   // 5x5, ragged row
    {1, 2, 40, 70, 3, 3, 3, 3, 1, 1},   // stride 3: gathers
    {1, 3, 21, 50, 3, 3, 1, 2, 2, 2},   // dilation, uneven strides
    {3, 7, 12, 41, 1, 1, 1, 1, 1, 1},   // 1x1
    // AVX-512 3x3 rows in pairs: odd row counts, a 16-column block plus a
    // 2-column tail, stride 2 with a one-row tail and a 7-wide image.
    {1, 2, 7, 20, 3, 3, 1, 1, 1, 1},
    {1, 3, 16, 16, 3, 3, 2, 2, 1, 1},
    {2, 2, 9, 9, 3, 3, 2, 2, 1, 1},
    {1, 2, 35, 37, 3, 3, 2, 2, 1, 1},
    // The padded KxK kernels (dwconv_kxk.h; AVX-512: 8-lane rows, at most
    // 8 wide, in steps of 8 with every shorter last step, 16-lane rows in
    // steps of 4 with 1 to 3 left, both sides of the 8/9 switch; AVX2:
    // whole-vector loads from the padded rows' slack, row ends of 1 to 7
    // stored in pieces) and stride-2 polyphase copies of 1, 2 and 5 blocks
    // of 32 columns (AVX-512) or 1 to 10 blocks of 16 (AVX2).
    {1, 2, 30, 8, 3, 3, 1, 1, 1, 1},
    {1, 3, 13, 6, 3, 3, 1, 1, 1, 1},
    {1, 2, 11, 9, 3, 3, 1, 1, 1, 1},
    {1, 2, 10, 33, 3, 3, 1, 1, 1, 1},
    {1, 2, 31, 15, 3, 3, 2, 2, 1, 1},
    {1, 2, 12, 64, 3, 3, 2, 2, 1, 1},
    {1, 2, 9, 150, 3, 3, 2, 2, 1, 1},
    // The same kernels' 5x5 windows (MNasNet, MobileNetV3, EfficientNet):
    // 8-lane and 16-lane rows, every last step, stride 2 from 14x14 to 7x7.
    {1, 2, 30, 8, 5, 5, 1, 1, 1, 1},
    {1, 3, 13, 6, 5, 5, 1, 1, 1, 1},
    {1, 2, 11, 9, 5, 5, 1, 1, 1, 1},
    {1, 2, 10, 33, 5, 5, 1, 1, 1, 1},
    {1, 2, 31, 15, 5, 5, 2, 2, 1, 1},
    {1, 2, 12, 64, 5, 5, 2, 2, 1, 1},
    {1, 2, 9, 150, 5, 5, 2, 2, 1, 1},
    {1, 3, 14, 14, 5, 5, 2, 2, 1, 1},
    // 7x7 windows (ConvNeXt): one vector and two a block, every last row
    // step, stride 2.
    {1, 2, 13, 13, 7, 7, 1, 1, 1, 1},
    {1, 2, 17, 16, 7, 7, 1, 1, 1, 1},
    {1, 3, 20, 39, 7, 7, 1, 1, 1, 1},
    {1, 2, 31, 29, 7, 7, 2, 2, 1, 1},
    {1, 2, 9, 70, 7, 7, 2, 2, 1, 1},
    // A stride-2 row wider than the polyphase copies' table of block masks
    // (512 padded columns): the blocks past it find their masks per row.
    {1, 1, 5, 600, 3, 3, 2, 2, 1, 1},
    // Dilation 2 on the KxK kernels (LR-ASPP's last stage: 5x5 at 14x14),
    // rows of one vector or less and of several, ragged.
    {1, 2, 14, 14, 5, 5, 1, 1, 2, 2},
    {1, 3, 13, 30, 3, 3, 1, 1, 2, 2},
    {1, 2, 9, 9, 5, 5, 1, 1, 2, 2},
    {1, 2, 19, 41, 5, 5, 1, 1, 2, 2},
    {1, 2, 10, 7, 3, 3, 1, 1, 2, 2},
};

/// Implicit zero padding (tandem_dwconv2d_pad_f32): top, left, bottom,
/// right.
struct Pad {
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  bool on = false;
};

void check(const char *isa, const DwCase &t, bool accumulate, bool relu,
           tandem_thread_pool_t *pool, bool relu6 = false,
           bool withBias = false, Pad pad = {}) {
  int64_t oh = (t.h + pad.top + pad.bottom - t.dh * (t.kh - 1) - 1) / t.sh + 1;
  int64_t ow = (t.w + pad.left + pad.right - t.dw * (t.kw - 1) - 1) / t.sw + 1;
  // The input is a view with row pitch w + 2 ending exactly at the end of
  // its buffer; the output has a row pitch ow + 1.
  int64_t pitch = t.w + 2, opitch = ow + 1;
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> in(t.n * t.c * t.h * pitch - (pitch - t.w)),
      filter(t.c * t.kh * t.kw), out(t.n * t.c * oh * opitch);
  for (float &x : in)
    x = dist(rng);
  for (float &x : filter)
    x = dist(rng);
  for (float &x : out)
    x = dist(rng);
  if (relu || relu6)
    in[0] = NAN;
  if (relu6) // sums beyond 6 and below 0
    for (float &x : in)
      x *= 8.0f; // reaches output (0, 0, 0, 0) of channel 0
  std::vector<float> bias(t.c);
  for (float &x : bias)
    x = 3.0f * dist(rng);
  std::vector<float> before = out;
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  int32_t flags = (accumulate ? TANDEM_DWCONV2D_ACCUMULATE : 0) |
                  (relu ? TANDEM_DWCONV2D_RELU : 0) |
                  (relu6 ? TANDEM_DWCONV2D_RELU6 : 0);
  int64_t padding[2] = {pad.top, pad.left};
  ASSERT_TRUE(tandem_internal_dwconv2d_f32_on(
      isa, &ctx, t.n, t.c, t.h, t.w, in.data(), t.c * t.h * pitch, t.h * pitch,
      pitch, 1, t.kh, t.kw, filter.data(), out.data(), t.c * oh * opitch,
      oh * opitch, opitch, oh, ow, t.sh, t.sw, t.dh, t.dw, flags,
      withBias ? bias.data() : nullptr, pad.on ? padding : nullptr));
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t ch = 0; ch < t.c; ++ch)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < opitch; ++x) {
          int64_t at = ((b * t.c + ch) * oh + y) * opitch + x;
          if (x == ow) { // the gap between rows is never written
            ASSERT_EQ(out[at], before[at]);
            continue;
          }
          double ref = (accumulate ? before[at] : 0.0) +
                       (withBias ? double(bias[ch]) : 0.0);
          for (int64_t i = 0; i < t.kh; ++i)
            for (int64_t j = 0; j < t.kw; ++j) {
              int64_t r = y * t.sh + i * t.dh - pad.top;
              int64_t col = x * t.sw + j * t.dw - pad.left;
              if (r < 0 || r >= t.h || col < 0 || col >= t.w)
                continue; // the zero padding
              ref += double(filter[(ch * t.kh + i) * t.kw + j]) *
                     in[((b * t.c + ch) * t.h + r) * pitch + col];
            }
          if (std::isnan(ref)) {
            ASSERT_TRUE(std::isnan(out[at])) << isa << " NaN must survive";
            continue;
          }
          if ((relu || relu6) && ref < 0)
            ref = 0;
          if (relu6 && ref > 6)
            ref = 6;
          ASSERT_NEAR(out[at], ref, 1e-5 * (1 + t.kh * t.kw) * (relu6 ? 8 : 1))
              << isa << " c" << t.c << " k" << t.kh << "x" << t.kw << " s"
              << t.sh << "," << t.sw << " d" << t.dh << " at [" << b << ","
              << ch << "," << y << "," << x << "]";
        }
}

std::vector<const char *> families() {
  std::vector<const char *> isas = {"portable"};
  float probe = 0;
  tandem_exec_ctx_t ctx = {};
  for (const char *isa : {"avx2", "avx512"})
    if (tandem_internal_dwconv2d_f32_on(isa, &ctx, 0, 0, 1, 1, &probe, 0, 0, 0,
                                        1, 1, 1, &probe, &probe, 0, 0, 0, 0, 0,
                                        1, 1, 1, 1, 0))
      isas.push_back(isa);
  return isas;
}

TEST(DwConv2DTest, MatchesDirectConvolution) {
  for (const char *isa : families())
    for (const DwCase &t : kCases) {
      check(isa, t, false, false, nullptr);
      check(isa, t, true, false, nullptr);
    }
}

TEST(DwConv2DTest, FusedReLUKeepsNaN) {
  for (const char *isa : families())
    for (const DwCase &t : kCases)
      check(isa, t, true, true, nullptr);
}

TEST(DwConv2DTest, FusedReLU6) {
  for (const char *isa : families())
    for (const DwCase &t : kCases)
      check(isa, t, false, false, nullptr, /*relu6=*/true);
}

TEST(DwConv2DTest, BiasInThePlane) {
  // tandem_dwconv2d_bias_f32: each plane starts from its channel's bias,
  // overwriting or onto the output, with the epilogues, on a pool; the gap
  // between output rows stays untouched.
  tandem_test::TestPool two(2);
  ASSERT_NE(two.get(), nullptr);
  tandem_thread_pool_t *pool = two.get();
  for (const char *isa : families())
    for (const DwCase &t : kCases) {
      check(isa, t, false, false, nullptr, false, /*withBias=*/true);
      check(isa, t, true, true, pool, false, true);
      check(isa, t, false, false, pool, /*relu6=*/true, true);
    }
}

TEST(DwConv2DTest, ThreadPool) {
  tandem_test::TestPool two(2);
  ASSERT_NE(two.get(), nullptr);
  tandem_thread_pool_t *pool = two.get();
  for (const char *isa : families())
    for (const DwCase &t : kCases)
      check(isa, t, false, true, pool);
}

TEST(DwConv2DTest, ImplicitZeroPadding) {
  // tandem_dwconv2d_pad_f32 on every case with the paddings models use
  // (1 on each side for 3x3, 2 for 5x5), uneven ones (TF "same" with
  // stride 2: 0 top/left, 1 bottom/right), a padding larger than the
  // window's reach at one edge, and none; with the bias, the epilogues and
  // a pool (each thread's padded plane is reused across planes and calls
  // of another geometry).
  tandem_test::TestPool two(2);
  ASSERT_NE(two.get(), nullptr);
  tandem_thread_pool_t *pool = two.get();
  const Pad pads[] = {{1, 1, 1, 1, true}, {0, 0, 1, 1, true},
                      {2, 2, 2, 2, true}, {3, 0, 0, 2, true},
                      {4, 4, 4, 4, true}, // 5x5 of dilation 2, "same"
                      {0, 0, 0, 0, true}};
  for (const char *isa : families())
    for (const DwCase &t : kCases)
      for (const Pad &pad : pads) {
        check(isa, t, false, false, nullptr, false, false, pad);
        check(isa, t, true, true, pool, false, true, pad);
        check(isa, t, false, false, pool, /*relu6=*/true, true, pad);
      }
}

TEST(DwConv2DTest, PaddedInPlace) {
  // A stride-1 "same" conv written over its own input (as bufferization
  // places it): every family, 3x3 pad 1 and 5x5 pad 2, on a pool, equals
  // the conv computed into a separate buffer.
  tandem_test::TestPool two(2);
  ASSERT_NE(two.get(), nullptr);
  tandem_thread_pool_t *pool = two.get();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const char *isa : families())
    for (int64_t k : {3, 5})
      for (auto [h, w] : {std::pair<int64_t, int64_t>{14, 14}, {7, 9}}) {
        int64_t n = 2, c = 5, p = k / 2, plane = h * w;
        std::vector<float> data(n * c * plane), filter(c * k * k), bias(c);
        for (float &x : data)
          x = dist(rng);
        for (float &x : filter)
          x = dist(rng);
        for (float &x : bias)
          x = dist(rng);
        std::vector<float> separate(data.size());
        int64_t pad[2] = {p, p};
        tandem_exec_ctx_t ctx = {};
        ctx.pool = pool;
        ASSERT_TRUE(tandem_internal_dwconv2d_f32_on(
            isa, &ctx, n, c, h, w, data.data(), c * plane, plane, w, 1, k, k,
            filter.data(), separate.data(), c * plane, plane, w, h, w, 1, 1, 1,
            1, TANDEM_DWCONV2D_RELU, bias.data(), pad));
        ASSERT_TRUE(tandem_internal_dwconv2d_f32_on(
            isa, &ctx, n, c, h, w, data.data(), c * plane, plane, w, 1, k, k,
            filter.data(), data.data(), c * plane, plane, w, h, w, 1, 1, 1, 1,
            TANDEM_DWCONV2D_RELU, bias.data(), pad));
        for (size_t i = 0; i < data.size(); ++i)
          ASSERT_EQ(data[i], separate[i]) << isa << " k" << k << " at " << i;
      }
}

TEST(DwConv2DTest, PaddedPublicEntry) {
  // A 3x3 plane of ones, padded by 1: a corner output sums 4 taps, an edge
  // one 6, the centre 9 (times the filter's 0.5, plus the bias).
  std::vector<float> in(2 * 9, 1.0f), f(2 * 9, 0.5f), bias = {1.0f, -1.0f},
                                                      out(2 * 9, -7.0f);
  tandem_dwconv2d_pad_f32(nullptr, 1, 2, 3, 3, in.data(), 18, 9, 3, 1, 3, 3,
                          f.data(), bias.data(), out.data(), 18, 9, 3, 3, 3, 1,
                          1, 1, 1, 1, 1, 0);
  const float taps[9] = {4, 6, 4, 6, 9, 6, 4, 6, 4};
  for (int ch = 0; ch < 2; ++ch)
    for (int i = 0; i < 9; ++i)
      ASSERT_FLOAT_EQ(out[ch * 9 + i], bias[ch] + 0.5f * taps[i]);
}

TEST(DwConv2DTest, PackedOutputFeedsA1x1Conv) {
  // A depthwise conv writing the packed panel layout
  // (tandem_dwconv2d_pad_packed_f32) and a 1x1 conv reading it
  // (tandem_conv2d_packed_f32) give exactly what the two give through a
  // plain NCHW tensor: pixel counts below, at and across a panel (7x7,
  // 8x4, 14x14, 56x56 from stride 2), more than one K block of the GEMM
  // (600 channels), and more than one N block (72x72 pixels: 5184), one
  // pixel (with the filter cached, a matrix-vector product); two images,
  // with and without a pool and the weight cache. The packed buffer starts as
  // NaN, so every element the conv reads must have been written.
  struct PackedCase {
    int64_t c, h, w, stride, f;
  };
  const PackedCase cases[] = {{5, 7, 7, 1, 3},    {3, 8, 4, 1, 17},
                              {16, 14, 14, 1, 8}, {6, 112, 112, 2, 5},
                              {600, 9, 9, 1, 4},  {2, 72, 72, 1, 3},
                              {600, 2, 2, 2, 30}};
  tandem_test::TestPool two(2);
  ASSERT_NE(two.get(), nullptr);
  tandem_thread_pool_t *pool = two.get();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (tandem_thread_pool_t *p :
       {static_cast<tandem_thread_pool_t *>(nullptr), pool})
    for (bool cached : {false, true})
      for (const PackedCase &t : cases) {
        int64_t n = 2, oh = (t.h - 1) / t.stride + 1,
                ow = (t.w - 1) / t.stride + 1;
        int64_t plane = oh * ow, image = TANDEM_PACKED_PANEL_FLOATS(t.c, plane);
        std::vector<float> in(n * t.c * t.h * t.w), dwFilter(t.c * 9),
            dwBias(t.c), filter(t.f * t.c), bias(t.f);
        for (std::vector<float> *v : {&in, &dwFilter, &dwBias, &filter, &bias})
          for (float &x : *v)
            x = dist(rng);
        tandem_exec_ctx_t ctx = {};
        ctx.pool = p;
        // A cached filter on a 1x1 output is a matrix-vector product.
        tandem_internal_kernel_cache *cache =
            cached ? tandem_internal_kernel_cache_create() : nullptr;
        ctx.reserved[0] = cache;
        int32_t convFlags =
            TANDEM_CONV2D_RELU | (cached ? TANDEM_CONV2D_CONSTANT_FILTER : 0);
        auto dw = [&](float *out, bool packed) {
          (packed ? tandem_dwconv2d_pad_packed_f32 : tandem_dwconv2d_pad_f32)(
              &ctx, n, t.c, t.h, t.w, in.data(), t.c * t.h * t.w, t.h * t.w,
              t.w, 1, 3, 3, dwFilter.data(), dwBias.data(), out, t.c * plane,
              plane, ow, oh, ow, t.stride, t.stride, 1, 1, 1, 1,
              TANDEM_DWCONV2D_RELU6);
        };
        auto conv = [&](const float *input, float *out, bool packed) {
          (packed ? tandem_conv2d_packed_f32 : tandem_conv2d_bias_f32)(
              &ctx, n, t.c, oh, ow, input, t.c * plane, plane, ow, 1, t.f, 1, 1,
              filter.data(), bias.data(), out, t.f * plane, plane, oh, ow, 1, 1,
              1, 1, convFlags);
        };
        std::vector<float> mid(n * t.c * plane), expected(n * t.f * plane);
        dw(mid.data(), false);
        conv(mid.data(), expected.data(), false);
        std::vector<float> packed(n * image, NAN), got(n * t.f * plane);
        dw(packed.data(), true);
        conv(packed.data(), got.data(), true);
        ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_EQ(got[i], expected[i])
              << "c" << t.c << " " << t.h << "x" << t.w << " s" << t.stride
              << " f" << t.f << (p ? " pool" : "") << (cached ? " cached" : "")
              << " at " << i;
        tandem_internal_kernel_cache_destroy(cache);
      }
}

TEST(DwConv2DTest, PackedMisuseFails) {
  // A packed output cannot be accumulated onto, and a packed input is
  // only for a 1x1 conv of stride 1: the calls fail with a message and
  // write nothing.
  std::vector<float> in(9, 1.0f), f(9, 0.5f),
      out(TANDEM_PACKED_PANEL_FLOATS(1, 9), -3.0f);
  tandem_dwconv2d_pad_packed_f32(
      nullptr, 1, 1, 3, 3, in.data(), 9, 9, 3, 1, 3, 3, f.data(), nullptr,
      out.data(), 9, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, TANDEM_DWCONV2D_ACCUMULATE);
  const char *error = tandem_internal_take_kernel_error();
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("packed output"), std::string::npos);
  for (float v : out)
    ASSERT_EQ(v, -3.0f);
  std::vector<float> convOut(9, -3.0f);
  tandem_conv2d_packed_f32(nullptr, 1, 1, 3, 3, out.data(), 9, 9, 3, 1, 1, 3, 3,
                           f.data(), nullptr, convOut.data(), 9, 9, 1, 1, 1, 1,
                           1, 1, 0);
  error = tandem_internal_take_kernel_error();
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("packed input"), std::string::npos);
  for (float v : convOut)
    ASSERT_EQ(v, -3.0f);
}

TEST(DwConv2DTest, Conv1x1ThenDepthwiseInOneCall) {
  // tandem_conv1x1_dwconv2d_f32 (and its packed twin) give exactly what
  // tandem_conv2d_bias_f32 (1x1) then tandem_dwconv2d_pad_f32 (_packed_f32)
  // give through the expanded tensor: MobileNetV2's shapes (stride 1 and 2,
  // 112x112 down to 7x7), channel counts that leave a short last group, two
  // K blocks of the GEMM (600 input channels), two N blocks (72x72 pixels);
  // one image and two, with and without a pool (one image of 96 or 144
  // channels on two threads: groups of fewer channels than a register
  // tile, starting off a tile's boundary), a 1x1 image (with the cache,
  // matrix-vector products), with the filter from the weight cache and
  // without. On 2 and 3 threads, images of 7 and more output rows a thread
  // are cut into bands of rows (one per thread, each also computing the
  // 1x1 conv of the rows its windows read beyond it), and on any thread
  // count into more where a channel group's planes exceed 128 KB (the
  // 112x112 and 56x56 cases: 5 and 2 bands on one thread): even and uneven
  // bands, stride 1 and 2, 3x3 and 5x5 windows (two rows of halo), bands
  // whose packed output meets inside a panel; planes of at most 196
  // output pixels take the eight-channels-a-vector kernel (3x3, 5x5 and
  // 7x7, stride 1 and 2). Outputs start as NaN, so every element must be
  // written.
  struct FusedCase {
    int64_t k, c, h, w, stride, window = 3;
  };
  const FusedCase cases[] = {
      {16, 96, 112, 112, 2},
      {24, 144, 56, 56, 1},
      {160, 960, 7, 7, 1},
      {3, 5, 9, 9, 1},
      {600, 20, 6, 6, 2},
      {2, 17, 72, 72, 1},
      {8, 29, 15, 11, 2},
      {600, 43, 1, 1, 1},
      {64, 40, 14, 14, 1},
      {24, 36, 29, 29, 2},
      {40, 24, 28, 28, 1, 5},
      {16, 20, 43, 17, 2, 5},
      // Small planes, computed eight channels a vector (dwconv_cvec.h):
      // 5x5 and 7x7 windows, stride 1 and 2, channel counts that leave a
      // partial vector; against the AVX2 or the AVX-512 plane kernels,
      // whichever this CPU's standalone calls take.
      {40, 60, 14, 14, 1, 5},
      {48, 20, 13, 13, 2, 5},
      {16, 12, 10, 10, 1, 7},
      {16, 13, 11, 11, 2, 7},
      {24, 9, 7, 7, 2}};
  tandem_test::TestPool two(2), three(3);
  ASSERT_NE(two.get(), nullptr);
  ASSERT_NE(three.get(), nullptr);
  tandem_thread_pool_t *pool = two.get(), *pool3 = three.get();
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (tandem_thread_pool_t *p :
       {static_cast<tandem_thread_pool_t *>(nullptr), pool, pool3})
    for (bool cached : {false, true})
      for (int64_t n : {1, 2})
        for (const FusedCase &t : cases) {
          int64_t window = t.window, pad = window / 2;
          int64_t oh = (t.h + 2 * pad - window) / t.stride + 1,
                  ow = (t.w + 2 * pad - window) / t.stride + 1,
                  pixels = t.h * t.w;
          int64_t plane = oh * ow;
          std::vector<float> in(n * t.k * pixels), pwFilter(t.c * t.k),
              pwBias(t.c), dwFilter(t.c * window * window), dwBias(t.c);
          for (std::vector<float> *v :
               {&in, &pwFilter, &pwBias, &dwFilter, &dwBias})
            for (float &x : *v)
              x = 3.0f * dist(rng); // past 0 and 6, for the ReLU6s
          tandem_exec_ctx_t ctx = {};
          ctx.pool = p;
          tandem_internal_kernel_cache *cache =
              cached ? tandem_internal_kernel_cache_create() : nullptr;
          ctx.reserved[0] = cache;
          int32_t pwFlags = TANDEM_CONV2D_RELU6 |
                            (cached ? TANDEM_CONV2D_CONSTANT_FILTER : 0);
          std::vector<float> mid(n * t.c * pixels);
          tandem_conv2d_bias_f32(
              &ctx, n, t.k, t.h, t.w, in.data(), t.k * pixels, pixels, t.w, 1,
              t.c, 1, 1, pwFilter.data(), pwBias.data(), mid.data(),
              t.c * pixels, pixels, t.h, t.w, 1, 1, 1, 1, pwFlags);
          for (bool packed : {false, true}) {
            size_t size = packed ? n * TANDEM_PACKED_PANEL_FLOATS(t.c, plane)
                                 : n * t.c * plane;
            std::vector<float> expected(size, NAN), got(size, NAN);
            (packed ? tandem_dwconv2d_pad_packed_f32 : tandem_dwconv2d_pad_f32)(
                &ctx, n, t.c, t.h, t.w, mid.data(), t.c * pixels, pixels, t.w,
                1, window, window, dwFilter.data(), dwBias.data(),
                expected.data(), t.c * plane, plane, ow, oh, ow, t.stride,
                t.stride, 1, 1, pad, pad, TANDEM_DWCONV2D_RELU6);
            (packed ? tandem_conv1x1_dwconv2d_packed_f32
                    : tandem_conv1x1_dwconv2d_f32)(
                &ctx, n, t.k, t.h, t.w, in.data(), t.k * pixels, pixels, t.w, 1,
                t.c, pwFilter.data(), pwBias.data(), pwFlags, window, window,
                dwFilter.data(), dwBias.data(), got.data(), t.c * plane, plane,
                ow, oh, ow, t.stride, t.stride, 1, 1, pad, pad,
                TANDEM_DWCONV2D_RELU6);
            ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
            // Bit for bit: the packed layout's tail past the last panel
            // (narrower panels than TANDEM_PACKED_PANEL_FLOATS allows for)
            // stays NaN in both.
            for (size_t i = 0; i < size; ++i)
              ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(float)), 0)
                  << got[i] << " != " << expected[i] << ": k" << t.k << " c"
                  << t.c << " " << t.h << "x" << t.w << " s" << t.stride
                  << " window " << window << " threads "
                  << tandem_thread_pool_size(p) << (cached ? " cached" : "")
                  << (packed ? " packed" : "") << " at " << i;
          }
          tandem_internal_kernel_cache_destroy(cache);
        }
}

TEST(DwConv2DTest, PackedOutputIsThePackedLayout) {
  // A packed depthwise output (computed plane by plane, then packed
  // eight planes at a time) is exactly what tandem_internal_pack_b_rows
  // makes of the plain output, the last panel's padding columns (zeros)
  // included, not only what a 1x1 conv reading it needs: rows of 8, 16,
  // 24 and 7 pixels; a 24-pixel plane (padding 8 columns on 16-wide
  // panels, 24 on 32-wide); a second N block of 8 columns (513 x 8
  // pixels); two K blocks (600 channels); stride 2; 5x5 and 7x7 windows;
  // dilation 2. Separate calls and the fused 1x1 + depthwise call, on 1, 2
  // and 3 threads (bands of rows; 14 x 20 on two threads: bands that meet
  // inside a panel, at pixel 140). Buffers start as NaN.
  struct LayoutCase {
    int64_t k, c, h, w, stride, window, dilation;
  };
  const LayoutCase cases[] = {{4, 5, 3, 8, 1, 3, 1},   {6, 9, 32, 32, 2, 3, 1},
                              {3, 4, 513, 8, 1, 3, 1}, {8, 600, 3, 16, 1, 3, 1},
                              {5, 7, 24, 24, 1, 5, 1}, {5, 6, 21, 24, 1, 7, 1},
                              {4, 6, 24, 24, 1, 3, 2}, {8, 20, 24, 24, 1, 3, 1},
                              {4, 5, 14, 7, 1, 3, 1},  {4, 6, 14, 20, 1, 3, 1}};
  tandem_test::TestPool two(2), three(3);
  ASSERT_NE(two.get(), nullptr);
  ASSERT_NE(three.get(), nullptr);
  tandem_thread_pool_t *pool = two.get(), *pool3 = three.get();
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (tandem_thread_pool_t *p :
       {static_cast<tandem_thread_pool_t *>(nullptr), pool, pool3})
    for (const LayoutCase &t : cases) {
      int64_t n = 2, window = t.window, pad = t.dilation * (window / 2);
      int64_t span = t.dilation * (window - 1) + 1;
      int64_t oh = (t.h + 2 * pad - span) / t.stride + 1,
              ow = (t.w + 2 * pad - span) / t.stride + 1;
      int64_t pixels = t.h * t.w, plane = oh * ow;
      int64_t image = TANDEM_PACKED_PANEL_FLOATS(t.c, plane);
      std::vector<float> in(n * t.k * pixels), pwFilter(t.c * t.k), pwBias(t.c),
          dwFilter(t.c * window * window), dwBias(t.c);
      for (std::vector<float> *v :
           {&in, &pwFilter, &pwBias, &dwFilter, &dwBias})
        for (float &x : *v)
          x = dist(rng);
      tandem_exec_ctx_t ctx = {};
      ctx.pool = p;
      std::vector<float> mid(n * t.c * pixels);
      tandem_conv2d_bias_f32(&ctx, n, t.k, t.h, t.w, in.data(), t.k * pixels,
                             pixels, t.w, 1, t.c, 1, 1, pwFilter.data(),
                             pwBias.data(), mid.data(), t.c * pixels, pixels,
                             t.h, t.w, 1, 1, 1, 1, TANDEM_CONV2D_RELU);
      auto dw = [&](float *out, bool packed) {
        (packed ? tandem_dwconv2d_pad_packed_f32 : tandem_dwconv2d_pad_f32)(
            &ctx, n, t.c, t.h, t.w, mid.data(), t.c * pixels, pixels, t.w, 1,
            window, window, dwFilter.data(), dwBias.data(), out, t.c * plane,
            plane, ow, oh, ow, t.stride, t.stride, t.dilation, t.dilation, pad,
            pad, TANDEM_DWCONV2D_RELU6);
      };
      std::vector<float> plain(n * t.c * plane), expected(n * image, NAN);
      dw(plain.data(), false);
      for (int64_t b = 0; b < n; ++b)
        tandem_internal_pack_b_rows(plain.data() + b * t.c * plane, plane, 0,
                                    t.c, t.c, plane,
                                    expected.data() + b * image);
      std::vector<float> separate(n * image, NAN), fused(n * image, NAN);
      dw(separate.data(), true);
      tandem_conv1x1_dwconv2d_packed_f32(
          &ctx, n, t.k, t.h, t.w, in.data(), t.k * pixels, pixels, t.w, 1, t.c,
          pwFilter.data(), pwBias.data(), TANDEM_CONV2D_RELU, window, window,
          dwFilter.data(), dwBias.data(), fused.data(), t.c * plane, plane, ow,
          oh, ow, t.stride, t.stride, t.dilation, t.dilation, pad, pad,
          TANDEM_DWCONV2D_RELU6);
      ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
      for (const std::vector<float> *got : {&separate, &fused})
        for (size_t i = 0; i < expected.size(); ++i)
          ASSERT_EQ(std::memcmp(&(*got)[i], &expected[i], sizeof(float)), 0)
              << (*got)[i] << " != " << expected[i] << ": c" << t.c << " "
              << t.h << "x" << t.w << " s" << t.stride << " window " << window
              << " dilation " << t.dilation << " threads "
              << tandem_thread_pool_size(p)
              << (got == &fused ? " fused" : " separate") << " at " << i;
    }
}

TEST(DwConv2DTest, Conv1x1ThenDepthwiseReadingFewPixels) {
  // A 1x1 depthwise window of stride 3 on a 3x1 image reads one pixel of
  // three: the fused call still runs the 1x1 conv on every pixel, as the
  // separate calls do (on the filter cached for a GEMM of 3 pixels; one
  // pixel would be a matrix-vector product on another layout), and gives
  // their bytes.
  const int64_t k = 20, c = 30, h = 3, w = 1, stride = 3;
  const int64_t oh = 1, ow = 1, pixels = h * w;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> in(k * pixels), pwFilter(c * k), pwBias(c), dwFilter(c),
      dwBias(c);
  for (std::vector<float> *v : {&in, &pwFilter, &pwBias, &dwFilter, &dwBias})
    for (float &x : *v)
      x = dist(rng);
  tandem_exec_ctx_t ctx = {};
  tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
  ctx.reserved[0] = cache;
  int32_t pwFlags = TANDEM_CONV2D_CONSTANT_FILTER | TANDEM_CONV2D_RELU;
  std::vector<float> mid(c * pixels), expected(c, NAN), got(c, NAN);
  tandem_conv2d_bias_f32(&ctx, 1, k, h, w, in.data(), k * pixels, pixels, w, 1,
                         c, 1, 1, pwFilter.data(), pwBias.data(), mid.data(),
                         c * pixels, pixels, h, w, 1, 1, 1, 1, pwFlags);
  tandem_dwconv2d_pad_f32(&ctx, 1, c, h, w, mid.data(), c * pixels, pixels, w,
                          1, 1, 1, dwFilter.data(), dwBias.data(),
                          expected.data(), c, 1, ow, oh, ow, stride, stride, 1,
                          1, 0, 0, 0);
  tandem_conv1x1_dwconv2d_f32(&ctx, 1, k, h, w, in.data(), k * pixels, pixels,
                              w, 1, c, pwFilter.data(), pwBias.data(), pwFlags,
                              1, 1, dwFilter.data(), dwBias.data(), got.data(),
                              c, 1, ow, oh, ow, stride, stride, 1, 1, 0, 0, 0);
  ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
  for (int64_t i = 0; i < c; ++i)
    ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(float)), 0)
        << got[i] << " != " << expected[i] << " at " << i;
  tandem_internal_kernel_cache_destroy(cache);
}

TEST(DwConv2DTest, Conv1x1ThenDepthwiseMisuseFails) {
  // Accumulating, or an input whose planes are not dense, fails the call
  // with a message, and nothing is written.
  std::vector<float> in(2 * 16, 1.0f), pw(2 * 2, 0.5f), dw(2 * 9, 0.5f),
      out(2 * 16, -3.0f);
  struct Misuse {
    int64_t sIh;
    int32_t pwFlags, flags;
    const char *message;
  };
  const Misuse misuses[] = {
      {4, 0, TANDEM_DWCONV2D_ACCUMULATE, "accumulate"},
      {4, TANDEM_CONV2D_ACCUMULATE, 0, "accumulate"},
      {5, 0, 0, "dense"},
  };
  for (const Misuse &m : misuses) {
    tandem_conv1x1_dwconv2d_f32(nullptr, 1, 2, 3, 4, in.data(), 32, 16, m.sIh,
                                1, 2, pw.data(), nullptr, m.pwFlags, 3, 3,
                                dw.data(), nullptr, out.data(), 12, 12, 4, 3, 4,
                                1, 1, 1, 1, 1, 1, m.flags);
    const char *error = tandem_internal_take_kernel_error();
    ASSERT_NE(error, nullptr);
    EXPECT_NE(std::string(error).find(m.message), std::string::npos) << error;
    for (float v : out)
      ASSERT_EQ(v, -3.0f);
  }
}

TEST(DwConv2DTest, PublicEntryUsesAKernelFamily) {
  const DwCase t = {1, 2, 10, 20, 3, 3, 1, 1, 1, 1};
  std::vector<float> in(t.c * t.h * t.w, 1.0f), f(t.c * 9, 0.5f),
      out(t.c * 8 * 18, -1.0f);
  tandem_dwconv2d_f32(nullptr, 1, t.c, t.h, t.w, in.data(), 0, t.h * t.w, t.w,
                      1, 3, 3, f.data(), out.data(), 0, 8 * 18, 18, 8, 18, 1, 1,
                      1, 1, 0);
  for (float v : out)
    ASSERT_FLOAT_EQ(v, 4.5f);
}

} // namespace
