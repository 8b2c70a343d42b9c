//===- WinogradTest.cpp - the Winograd path of tandem_conv2d_f32 ----------===//
//
// F(2x2, 3x3) and F(4x4, 3x3) on every micro-kernel family this CPU runs,
// against a direct convolution in double: output sizes that do not divide
// the tiles (partial tiles at the right and bottom), channel counts that do
// not fill the 8-channel lanes, batches (tiles across images), strided
// inputs, accumulation onto a bias, the fused ReLU and ReLU6, the
// transformed-filter cache and a thread pool (blocks in parallel, and the
// GEMMs in parallel when there are fewer blocks than threads). Also: the
// flag on tandem_conv2d_f32 takes the Winograd path when it pays and the
// im2col GEMM otherwise, with the same results up to rounding; and one and
// two threads give the same bits.
//
//===----------------------------------------------------------------------===//

#include "tandem/winograd.h"
#include "kernels/kernel_cache.h"
#include "kernels/winograd_internal.h"
#include "tandem/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

struct Case {
  int64_t n, c, h, w, f; // h, w: the (already padded) input
};

struct Result {
  std::vector<float> out;
  std::vector<double> ref;
  double scale; // the largest |reference|
};

/// Runs `conv` on random data and computes the direct convolution.
template <typename Conv> Result run(const Case &t, int32_t flags, Conv conv) {
  int64_t oh = t.h - 2, ow = t.w - 2, pitch = t.w + 5;
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> in(t.n * t.c * t.h * pitch), filter(t.f * t.c * 9);
  Result r;
  r.out.resize(t.n * t.f * oh * ow);
  for (float &x : in)
    x = dist(rng);
  for (float &x : filter)
    x = dist(rng);
  for (float &x : r.out)
    x = dist(rng);
  std::vector<float> before = r.out;
  conv(in.data(), t.c * t.h * pitch, t.h * pitch, pitch, filter.data(),
       r.out.data(), oh, ow);
  r.scale = 0;
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t o = 0; o < t.f; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t at = ((b * t.f + o) * oh + y) * ow + x;
          double v = flags & TANDEM_CONV2D_ACCUMULATE ? before[at] : 0.0;
          for (int64_t ci = 0; ci < t.c; ++ci)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 3; ++j)
                v += double(filter[((o * t.c + ci) * 3 + i) * 3 + j]) *
                     in[((b * t.c + ci) * t.h + y + i) * pitch + x + j];
          if ((flags & (TANDEM_CONV2D_RELU | TANDEM_CONV2D_RELU6)) && v < 0)
            v = 0;
          if ((flags & TANDEM_CONV2D_RELU6) && v > 6)
            v = 6;
          r.ref.push_back(v);
          r.scale = std::max(r.scale, std::fabs(v));
        }
  return r;
}

/// Each output within a tolerance that grows with the reduction length
/// (9 C products) and, for F(4x4), the transforms' larger constants.
void expectClose(const Result &r, const Case &t, int tile, const char *what) {
  double tol = (tile == 4 ? 2e-5 : 1e-5) * std::sqrt(9.0 * t.c) *
               std::max(1.0, r.scale / 4);
  for (size_t i = 0; i < r.ref.size(); ++i)
    ASSERT_NEAR(r.out[i], r.ref[i], tol)
        << what << " tile " << tile << " n" << t.n << " c" << t.c << " " << t.h
        << "x" << t.w << " f" << t.f << " at " << i;
}

const Case kCases[] = {
    {1, 8, 10, 10, 16},  // 8x8 outputs: whole F(4x4) and F(2x2) tiles
    {1, 3, 9, 11, 5},    // 7x9: partial tiles, lanes not full
    {2, 19, 13, 12, 21}, // tiles across images, ragged channels
    {1, 64, 16, 16, 64}, // several 8-channel lanes and GEMM panels
    {3, 40, 9, 9, 33},   // K over the 8-lane groups, odd F
};

void checkFamily(const char *isa, int tile, tandem_thread_pool_t *pool,
                 bool cached, int32_t flags) {
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  tandem_internal_kernel_cache *cache =
      cached ? tandem_internal_kernel_cache_create() : nullptr;
  ctx.reserved[0] = cache;
  if (cached)
    flags |= TANDEM_CONV2D_CONSTANT_FILTER;
  for (const Case &t : kCases) {
    for (int call = 0; call < (cached ? 2 : 1); ++call) {
      bool ran = true;
      Result r =
          run(t, flags,
              [&](const float *in, int64_t sIn, int64_t sIc, int64_t sIh,
                  const float *filter, float *out, int64_t oh, int64_t ow) {
                ran = tandem_internal_winograd_conv2d_f32(
                    isa, tile, &ctx, t.n, t.c, t.h, t.w, in, sIn, sIc, sIh, 1,
                    t.f, filter, out, t.f * oh * ow, oh * ow, oh, ow, flags);
              });
      if (!ran) {
        // Only a family this CPU does not run is refused.
        EXPECT_NE(std::string(isa), "portable");
        tandem_internal_kernel_cache_destroy(cache);
        GTEST_SKIP() << isa << " does not run on this CPU";
      }
      expectClose(r, t, tile, isa);
    }
  }
  tandem_internal_kernel_cache_destroy(cache);
}

class WinogradFamily : public ::testing::TestWithParam<const char *> {};

TEST_P(WinogradFamily, F2x2) {
  checkFamily(GetParam(), 2, nullptr, false, 0);
  checkFamily(GetParam(), 2, nullptr, false, TANDEM_CONV2D_ACCUMULATE);
}

TEST_P(WinogradFamily, F4x4) {
  checkFamily(GetParam(), 4, nullptr, false, 0);
  checkFamily(GetParam(), 4, nullptr, false, TANDEM_CONV2D_ACCUMULATE);
}

TEST_P(WinogradFamily, Epilogues) {
  for (int tile : {2, 4}) {
    checkFamily(GetParam(), tile, nullptr, false,
                TANDEM_CONV2D_ACCUMULATE | TANDEM_CONV2D_RELU);
    checkFamily(GetParam(), tile, nullptr, false,
                TANDEM_CONV2D_ACCUMULATE | TANDEM_CONV2D_RELU6);
  }
}

TEST_P(WinogradFamily, FusedReluKeepsNaN) {
  // A NaN input reaches the outputs of every tile that reads it; the fused
  // ReLU and ReLU6 keep them NaN, as the GEMM's epilogue and the loop
  // (max(0, x), min(6, x)) do, on the vector tile stores and the scalar
  // edge alike (a 22x22 output: whole tiles and partial ones).
  const int64_t c = 16, f = 16, h = 24, oh = h - 2;
  std::vector<float> in(c * h * h, 0.5f), filter(f * c * 9, 0.1f);
  in[5 * h + 5] = NAN;                   // whole tiles near the top left
  in[(c - 1) * h * h + h * h - 1] = NAN; // the partial bottom right tile
  for (int tile : {2, 4}) {
    std::vector<float> plain(f * oh * oh), fused(f * oh * oh);
    for (int32_t flags : {0, TANDEM_CONV2D_RELU, TANDEM_CONV2D_RELU6}) {
      std::vector<float> &out = flags ? fused : plain;
      bool ran = tandem_internal_winograd_conv2d_f32(
          GetParam(), tile, nullptr, 1, c, h, h, in.data(), c * h * h, h * h, h,
          1, f, filter.data(), out.data(), f * oh * oh, oh * oh, oh, oh, flags);
      if (!ran)
        GTEST_SKIP() << GetParam() << " does not run on this CPU";
      if (!flags)
        continue;
      int64_t nans = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(std::isnan(fused[i]), std::isnan(plain[i]))
            << GetParam() << " tile " << tile << " flags " << flags << " at "
            << i;
        nans += std::isnan(fused[i]);
      }
      EXPECT_GT(nans, 0);
    }
  }
}

TEST_P(WinogradFamily, CachedFilterOnThreadPool) {
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (int tile : {2, 4})
    checkFamily(GetParam(), tile, pool, true, TANDEM_CONV2D_ACCUMULATE);
  tandem_thread_pool_destroy(pool);
}

TEST_P(WinogradFamily, BothParallelFormsOnAThreadPool) {
  // On 2 threads: a few tiles make one block, whose input transform,
  // GEMMs (one per task) and output transform each spread over the pool;
  // a 64x64 image makes at least 4 blocks, which run in parallel.
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  for (int tile : {2, 4})
    for (Case t : {Case{1, 40, 16, 16, 36}, Case{2, 24, 13, 11, 20},
                   Case{1, 32, 66, 66, 24}}) {
      int32_t flags = TANDEM_CONV2D_ACCUMULATE | TANDEM_CONV2D_RELU;
      bool ran = true;
      Result r = run(
          t, flags,
          [&](const float *in, int64_t sIn, int64_t sIc, int64_t sIh,
              const float *filter, float *out, int64_t oh, int64_t ow) {
            ran = tandem_internal_winograd_conv2d_f32(
                GetParam(), tile, &ctx, t.n, t.c, t.h, t.w, in, sIn, sIc, sIh,
                1, t.f, filter, out, t.f * oh * ow, oh * ow, oh, ow, flags);
          });
      if (!ran) {
        EXPECT_NE(std::string(GetParam()), "portable");
        tandem_thread_pool_destroy(pool);
        GTEST_SKIP() << GetParam() << " does not run on this CPU";
      }
      expectClose(r, t, tile, GetParam());
    }
  tandem_thread_pool_destroy(pool);
}

TEST_P(WinogradFamily, SameBitsOnOneAndTwoThreads) {
  // The tiles go through the GEMMs in blocks on one thread and all in one
  // GEMM per transform position on two (few blocks); every tile must get
  // the same sums either way. Image sizes from 20x20 to 56x56 leave a last
  // block of one tile for some block size of every family (F(4x4) on AVX2:
  // 49 tiles in blocks of 24), which must not take the matrix-vector path.
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int64_t c = 128, f = 128;
  std::vector<float> filter(f * c * 9);
  for (float &x : filter)
    x = dist(rng);
  for (int tile : {2, 4})
    for (int64_t size = 20; size <= 56; size += 4) {
      int64_t h = size + 2;
      std::vector<float> in(c * h * h);
      for (float &x : in)
        x = dist(rng);
      std::vector<float> out[2];
      for (int threads : {1, 2}) {
        tandem_exec_ctx_t ctx = {};
        ctx.pool = threads == 2 ? pool : nullptr;
        ctx.reserved[0] = cache;
        std::vector<float> &o = out[threads - 1];
        o.assign(f * size * size, 0.0f);
        if (!tandem_internal_winograd_conv2d_f32(
                GetParam(), tile, &ctx, 1, c, h, h, in.data(), c * h * h, h * h,
                h, 1, f, filter.data(), o.data(), f * size * size, size * size,
                size, size, TANDEM_CONV2D_CONSTANT_FILTER)) {
          EXPECT_NE(std::string(GetParam()), "portable");
          tandem_internal_kernel_cache_destroy(cache);
          tandem_thread_pool_destroy(pool);
          GTEST_SKIP() << GetParam() << " does not run on this CPU";
        }
      }
      ASSERT_EQ(std::memcmp(out[0].data(), out[1].data(),
                            out[0].size() * sizeof(float)),
                0)
          << GetParam() << " F(" << tile << "x" << tile << ") " << size << "x"
          << size;
    }
  tandem_internal_kernel_cache_destroy(cache);
  tandem_thread_pool_destroy(pool);
}

INSTANTIATE_TEST_SUITE_P(Families, WinogradFamily,
                         ::testing::Values("portable", "avx2", "avx512"));

TEST(WinogradTest, FlagChoosesByCost) {
  // tandem_conv2d_f32 with TANDEM_CONV2D_WINOGRAD: a 32x32 image has enough
  // tiles for F(4x4); a 4x4 one (a single tile) takes the im2col GEMM. Both
  // match the direct convolution.
  for (Case t : {Case{1, 16, 34, 34, 16}, Case{1, 16, 6, 6, 16}}) {
    int32_t flags = TANDEM_CONV2D_WINOGRAD | TANDEM_CONV2D_ACCUMULATE;
    bool used = true;
    Result r =
        run(t, flags,
            [&](const float *in, int64_t sIn, int64_t sIc, int64_t sIh,
                const float *filter, float *out, int64_t oh, int64_t ow) {
              std::vector<float> probe(t.n * t.f * oh * ow);
              used = tandem_internal_winograd_conv2d_f32(
                  nullptr, 0, nullptr, t.n, t.c, t.h, t.w, in, sIn, sIc, sIh, 1,
                  t.f, filter, probe.data(), t.f * oh * ow, oh * ow, oh, ow, 0);
              tandem_conv2d_f32(nullptr, t.n, t.c, t.h, t.w, in, sIn, sIc, sIh,
                                1, t.f, 3, 3, filter, out, t.f * oh * ow,
                                oh * ow, oh, ow, 1, 1, 1, 1, flags);
            });
    EXPECT_EQ(used, t.h == 34) << t.h;
    expectClose(r, t, 4, "auto");
  }
}

TEST(WinogradTest, FilterTransformedByTheCompiler) {
  // TANDEM_CONV2D_WINOGRAD_F2/_F4: the filter argument is U (the layout of
  // tandem/winograd.h), as the compiler writes it for constant weights; the
  // kernel runs that variant whatever the tile count, on a thread pool.
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  for (int tile : {2, 4})
    for (const Case &t : kCases) {
      int32_t flags =
          TANDEM_CONV2D_ACCUMULATE | TANDEM_CONV2D_RELU |
          (tile == 4 ? TANDEM_CONV2D_WINOGRAD_F4 : TANDEM_CONV2D_WINOGRAD_F2);
      Result r = run(
          t, flags,
          [&](const float *in, int64_t sIn, int64_t sIc, int64_t sIh,
              const float *filter, float *out, int64_t oh, int64_t ow) {
            std::vector<float> u(tandem_winograd_filter_floats(tile, t.f, t.c));
            tandem_winograd_transform_filter(tile, t.f, t.c, filter, u.data());
            tandem_conv2d_f32(&ctx, t.n, t.c, t.h, t.w, in, sIn, sIc, sIh, 1,
                              t.f, 3, 3, u.data(), out, t.f * oh * ow, oh * ow,
                              oh, ow, 1, 1, 1, 1, flags);
          });
      expectClose(r, t, tile, "transformed");
    }
  tandem_thread_pool_destroy(pool);
}

} // namespace
