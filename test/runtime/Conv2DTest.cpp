//===- Conv2DTest.cpp - tandem_conv2d_f32 against a direct convolution ----===//
//
// Implicit-GEMM convolution: strides, dilations, 1x1 and 7x7 windows,
// output sizes that do not divide the tiles, batches, accumulation onto a
// bias, strided inputs (a view into a bigger buffer), the packed-filter
// cache and a thread pool.
//
//===----------------------------------------------------------------------===//

#include "kernels/kernel_cache.h"
#include "tandem/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

struct ConvCase {
  int64_t n, c, h, w, f, kh, kw, sh, sw, dh, dw;
};

void check(const ConvCase &t, bool accumulate, bool cached,
           tandem_thread_pool_t *pool, bool relu = false, bool relu6 = false,
           bool withBias = false, int32_t extraFlags = 0,
           int64_t pitchExtra = 3) {
  int64_t oh = (t.h - t.dh * (t.kh - 1) - 1) / t.sh + 1;
  int64_t ow = (t.w - t.dw * (t.kw - 1) - 1) / t.sw + 1;
  // The input lives in a wider buffer (row pitch w + 3) to test strides;
  // pitchExtra = 0 makes it dense.
  int64_t pitch = t.w + pitchExtra;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> in(t.n * t.c * t.h * pitch),
      filter(t.f * t.c * t.kh * t.kw), out(t.n * t.f * oh * ow);
  for (float &x : in)
    x = dist(rng);
  for (float &x : filter)
    x = dist(rng);
  for (float &x : out)
    x = dist(rng);
  std::vector<float> bias(t.f);
  for (float &x : bias)
    x = 4.0f * dist(rng); // large enough to move results past 0 and 6
  std::vector<float> before = out;
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  tandem_internal_kernel_cache *cache =
      cached ? tandem_internal_kernel_cache_create() : nullptr;
  ctx.reserved[0] = cache;
  int32_t flags = (accumulate ? TANDEM_CONV2D_ACCUMULATE : 0) |
                  (cached ? TANDEM_CONV2D_CONSTANT_FILTER : 0) |
                  (relu ? TANDEM_CONV2D_RELU : 0) |
                  (relu6 ? TANDEM_CONV2D_RELU6 : 0) | extraFlags;
  for (int call = 0; call < (cached ? 2 : 1); ++call) {
    if (call == 1)
      out = before;
    if (withBias)
      tandem_conv2d_bias_f32(
          &ctx, t.n, t.c, t.h, t.w, in.data(), t.c * t.h * pitch, t.h * pitch,
          pitch, 1, t.f, t.kh, t.kw, filter.data(), bias.data(), out.data(),
          t.f * oh * ow, oh * ow, oh, ow, t.sh, t.sw, t.dh, t.dw, flags);
    else
      tandem_conv2d_f32(&ctx, t.n, t.c, t.h, t.w, in.data(), t.c * t.h * pitch,
                        t.h * pitch, pitch, 1, t.f, t.kh, t.kw, filter.data(),
                        out.data(), t.f * oh * ow, oh * ow, oh, ow, t.sh, t.sw,
                        t.dh, t.dw, flags);
  }
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t o = 0; o < t.f; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t at = ((b * t.f + o) * oh + y) * ow + x;
          double ref = (accumulate ? before[at] : 0.0) +
                       (withBias ? double(bias[o]) : 0.0);
          for (int64_t ci = 0; ci < t.c; ++ci)
            for (int64_t i = 0; i < t.kh; ++i)
              for (int64_t j = 0; j < t.kw; ++j)
                ref += double(filter[((o * t.c + ci) * t.kh + i) * t.kw + j]) *
                       in[((b * t.c + ci) * t.h + y * t.sh + i * t.dh) * pitch +
                          x * t.sw + j * t.dw];
          if ((relu || relu6) && ref < 0)
            ref = 0;
          if (relu6 && ref > 6)
            ref = 6;
          ASSERT_NEAR(out[at], ref, 1e-4 * (1 + t.c * t.kh * t.kw / 64.0))
              << "n" << t.n << " c" << t.c << " f" << t.f << " k" << t.kh << "x"
              << t.kw << " s" << t.sh << " d" << t.dh << " at [" << b << ","
              << o << "," << y << "," << x << "]";
        }
  tandem_internal_kernel_cache_destroy(cache);
}

const ConvCase kCases[] = {
    {1, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1},
    {1, 3, 23, 23, 64, 7, 7, 2, 2, 1, 1}, // a ResNet stem, small
    {2, 16, 10, 12, 33, 3, 3, 1, 1, 1, 1},
    {1, 8, 11, 13, 16, 1, 1, 1, 1, 1, 1}, // 1x1: contiguous panels
    {1, 8, 11, 13, 16, 1, 1, 2, 2, 1, 1}, // 1x1 stride 2
    {1, 5, 15, 16, 7, 3, 2, 2, 1, 2, 3},  // dilation, uneven window
    {3, 60, 7, 7, 40, 3, 3, 1, 1, 1, 1},  // K = 540 over two K blocks
    // Wide rows: AVX-512's 32-column panels in one or two image rows,
    // gathered with masked vector loads at stride 1 and 2.
    {1, 4, 40, 70, 8, 3, 3, 1, 1, 1, 1},
    {1, 3, 75, 75, 16, 7, 7, 2, 2, 1, 1}, // a stem: ow = 35
    {2, 5, 33, 80, 12, 1, 1, 2, 2, 1, 1}, // 1x1 stride 2, ow = 40
    {1, 2, 20, 97, 4, 3, 3, 2, 2, 1, 1},  // ow = 48: splits at 16, 32
};

TEST(Conv2DTest, MatchesDirectConvolution) {
  for (const ConvCase &t : kCases) {
    check(t, false, false, nullptr);
    check(t, true, false, nullptr);
  }
}

TEST(Conv2DTest, DenseOneByOneIsAPlainMatrix) {
  // A 1x1 stride-1 conv on a dense image packs B as a plain matrix, eight
  // rows at a time across the panels: K not a multiple of 8, several K
  // blocks (K = 600: two of 300 on AVX2, three of 200 elsewhere), N not a
  // multiple of the panel width, batches, with and without the filter cache and
  // a pool, bias and epilogue.
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (const ConvCase &t : {ConvCase{2, 600, 9, 11, 13, 1, 1, 1, 1, 1, 1},
                            ConvCase{1, 13, 7, 7, 20, 1, 1, 1, 1, 1, 1},
                            ConvCase{3, 20, 16, 16, 7, 1, 1, 1, 1, 1, 1},
                            ConvCase{1, 7, 3, 5, 6, 1, 1, 1, 1, 1, 1}})
    for (tandem_thread_pool_t *p : {(tandem_thread_pool_t *)nullptr, pool})
      for (bool cached : {false, true}) {
        check(t, false, cached, p, false, false, false, 0, /*pitchExtra=*/0);
        check(t, true, cached, p, /*relu=*/true, false, /*withBias=*/true, 0,
              /*pitchExtra=*/0);
      }
  tandem_thread_pool_destroy(pool);
}

TEST(Conv2DTest, FusedReLU) {
  for (const ConvCase &t : kCases)
    check(t, true, false, nullptr, /*relu=*/true);
}

TEST(Conv2DTest, FusedReLU6) {
  // Sums over up to 540 products reach beyond 6 and below 0.
  for (const ConvCase &t : kCases)
    check(t, true, false, nullptr, /*relu=*/false, /*relu6=*/true);
}

TEST(Conv2DTest, BiasInTheKernel) {
  // tandem_conv2d_bias_f32: the bias in each tile (full and edge tiles,
  // several K blocks), overwriting or onto the output, with the epilogues,
  // on a pool, and through the Winograd path (which takes it as a prefill).
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (const ConvCase &t : kCases) {
    check(t, false, false, nullptr, false, false, /*withBias=*/true);
    check(t, true, false, nullptr, false, false, true);
    check(t, false, true, pool, true, false, true);
    check(t, true, false, pool, false, true, true);
  }
  for (const ConvCase &t : {ConvCase{1, 16, 34, 34, 16, 3, 3, 1, 1, 1, 1},
                            ConvCase{1, 16, 6, 6, 16, 3, 3, 1, 1, 1, 1}}) {
    check(t, false, false, nullptr, true, false, true, TANDEM_CONV2D_WINOGRAD);
    check(t, true, false, pool, false, false, true, TANDEM_CONV2D_WINOGRAD);
  }
  tandem_thread_pool_destroy(pool);
}

TEST(Conv2DTest, EveryEdgeTileShape) {
  // 1x1 convolutions (the GEMM M = f output channels, N = w pixels) with
  // every row count of a partial A panel (AVX-512: 14 rows, edge kernels
  // for 1..14; AVX2: 6) and partial column counts around the 32- and
  // 16-column panels and their 16- and 8-column halves (one vector per row
  // up to a half), with the bias, onto the output and with ReLU6.
  for (int64_t f : {1, 2, 5, 7, 8, 13, 14, 15, 20, 27, 29})
    for (int64_t w : {1, 7, 8, 9, 16, 17, 24, 31, 33, 40, 47, 48}) {
      ConvCase t{1, 9, 1, w, f, 1, 1, 1, 1, 1, 1};
      check(t, false, false, nullptr, false, false, /*withBias=*/true);
      check(t, true, false, nullptr, false, true, true);
      check(t, true, false, nullptr);
    }
}

TEST(Conv2DTest, OnePixelOnCachedFilter) {
  // One output pixel with the filter cached is a matrix-vector product
  // (gemvCached): a squeeze-excitation 1x1 conv on a 1x1 image (K = 960 in
  // one pass), a 3x3 window with stride and dilation gathered from a
  // strided image, a batch of three, ReLU6 onto a bias, accumulation.
  const ConvCase cases[] = {{1, 960, 1, 1, 240, 1, 1, 1, 1, 1, 1},
                            {3, 7, 5, 5, 20, 3, 3, 2, 2, 2, 2},
                            {2, 30, 3, 4, 17, 3, 4, 1, 1, 1, 1}};
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (const ConvCase &t : cases)
    for (tandem_thread_pool_t *p :
         {static_cast<tandem_thread_pool_t *>(nullptr), pool}) {
      check(t, false, true, p, false, true, true);
      check(t, true, true, p);
    }
  tandem_thread_pool_destroy(pool);
}

TEST(Conv2DTest, ThreadsGiveTheSerialResultBitForBit) {
  // Narrow outputs over several K blocks (a 7x7 projection conv of 960
  // channels, a 3x3 conv on 14x14 with K = 1152): on two threads every task
  // runs all K blocks of its tiles without a barrier between them, B packed
  // at once (or read from a packed input); each element must still sum in
  // the serial call's order. With the filter cached and without.
  struct Case {
    int64_t c, h, f, kh;
  };
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (Case t : {Case{960, 7, 160, 1}, Case{128, 16, 70, 3}})
    for (bool cached : {false, true}) {
      int64_t o = t.h - t.kh + 1;
      std::mt19937 rng(3);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::vector<float> in(t.c * t.h * t.h), filter(t.f * t.c * t.kh * t.kh),
          bias(t.f);
      for (std::vector<float> *v : {&in, &filter, &bias})
        for (float &x : *v)
          x = dist(rng);
      std::vector<float> out[2];
      for (int threaded = 0; threaded < 2; ++threaded) {
        tandem_exec_ctx_t ctx = {};
        ctx.pool = threaded ? pool : nullptr;
        tandem_internal_kernel_cache *cache =
            cached ? tandem_internal_kernel_cache_create() : nullptr;
        ctx.reserved[0] = cache;
        out[threaded].assign(t.f * o * o, NAN);
        tandem_conv2d_bias_f32(
            &ctx, 1, t.c, t.h, t.h, in.data(), t.c * t.h * t.h, t.h * t.h, t.h,
            1, t.f, t.kh, t.kh, filter.data(), bias.data(),
            out[threaded].data(), t.f * o * o, o * o, o, o, 1, 1, 1, 1,
            TANDEM_CONV2D_RELU | (cached ? TANDEM_CONV2D_CONSTANT_FILTER : 0));
        tandem_internal_kernel_cache_destroy(cache);
      }
      EXPECT_EQ(out[1], out[0]) << "c" << t.c << " " << t.h << "x" << t.h
                                << " k" << t.kh << (cached ? " cached" : "");
    }
  tandem_thread_pool_destroy(pool);
}

TEST(Conv2DTest, CachedFilterOnThreadPool) {
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (const ConvCase &t : kCases)
    check(t, true, true, pool);
  tandem_thread_pool_destroy(pool);
}

} // namespace
