//===- HardSwishTest.cpp - the kernels' fused HardSwish epilogue ----------===//
//
// A kernel called with a HARDSWISH flag must give, bit for bit, what the
// same call without it gives followed by the loop tandemc generates for
// ONNX HardSwish: x * min(max(x * (1/6) + 0.5, 0), 1), each operation
// rounded on its own, NaN kept. That is what lets tandem-fuse-elementwise
// fold HardSwish into the kernels without changing a model's output (and
// the CPU and the emulated device still agree byte for byte).
//
//===----------------------------------------------------------------------===//

#include "kernels/dwconv_internal.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "kernels/sgemm_internal.h"
#include "tandem/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

/// The generated loop's HardSwish (this file is built without FMA, so
/// nothing here is contracted).
float hardSwishLoop(float x) {
  float t = x * (1.0f / 6.0f);
  t = t + 0.5f;
  if (!std::isnan(t))
    t = std::min(std::max(t, 0.0f), 1.0f);
  return x * t;
}

/// `plain` (a call's output without the epilogue) under hardSwishLoop must
/// equal `fused` bit for bit; `what` names the case.
void expectHardSwishOf(const std::vector<float> &plain,
                       const std::vector<float> &fused,
                       const std::string &what) {
  ASSERT_EQ(plain.size(), fused.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    float want = hardSwishLoop(plain[i]);
    ASSERT_EQ(std::memcmp(&want, &fused[i], sizeof(float)), 0)
        << what << " at " << i << ": " << fused[i] << " != HardSwish("
        << plain[i] << ") = " << want;
  }
}

std::vector<float> randomValues(size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Specials spread through a prior that an accumulating call adds to:
/// NaN, both infinities, the clamps' corners (-3, 3) and zeros.
void addSpecials(std::vector<float> &prior) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            -3.0f,
                            3.0f,
                            0.0f,
                            -0.0f,
                            1e30f,
                            -1e30f};
  for (size_t i = 0, s = 0; i < prior.size(); i += 7, ++s)
    prior[i] = specials[s % (sizeof(specials) / sizeof(specials[0]))];
}

class HardSwishOnIsa : public ::testing::TestWithParam<const char *> {};

TEST_P(HardSwishOnIsa, Sgemm) {
  // Full and edge tiles (7x7 images' 49 columns, one-row and narrow
  // tiles), several K blocks, accumulating onto a prior with specials (so
  // NaN and infinities reach the epilogue), a column bias; and the
  // matrix-vector paths on cached weights (a classifier row, a column).
  struct Shape {
    int64_t m, n, k;
    int32_t flags;
  };
  const Shape shapes[] = {{30, 49, 70, TANDEM_SGEMM_ACCUMULATE},
                          {41, 77, 300, 0},
                          {13, 31, 7, TANDEM_SGEMM_ACCUMULATE},
                          {1, 1000, 128, TANDEM_SGEMM_CONSTANT_B},
                          {20, 1, 64, TANDEM_SGEMM_CONSTANT_A},
                          {6, 7, 0, TANDEM_SGEMM_ACCUMULATE}};
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (tandem_thread_pool_t *p :
       {static_cast<tandem_thread_pool_t *>(nullptr), pool})
    for (const Shape &s : shapes)
      for (bool withBias : {false, true}) {
        std::vector<float> a = randomValues(s.m * s.k, 1.5f, 1),
                           b = randomValues(s.k * s.n, 1.5f, 2),
                           bias = randomValues(s.n, 4.0f, 3),
                           prior = randomValues(s.m * s.n, 6.0f, 4);
        addSpecials(prior);
        std::vector<float> plain = prior, fused = prior;
        tandem_exec_ctx_t ctx = {};
        ctx.pool = p;
        tandem_internal_kernel_cache *cache =
            tandem_internal_kernel_cache_create();
        ctx.reserved[0] = cache;
        const float *biasData = withBias ? bias.data() : nullptr;
        bool ran = tandem_internal_sgemm_bias_f32_on(
            GetParam(), &ctx, 1, s.m, s.n, s.k, a.data(), 0, s.k, 1, b.data(),
            0, s.n, 1, biasData, plain.data(), 0, s.n, 1, s.flags);
        if (!ran) {
          tandem_internal_kernel_cache_destroy(cache);
          tandem_thread_pool_destroy(pool);
          GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
        }
        tandem_internal_sgemm_bias_f32_on(GetParam(), &ctx, 1, s.m, s.n, s.k,
                                          a.data(), 0, s.k, 1, b.data(), 0, s.n,
                                          1, biasData, fused.data(), 0, s.n, 1,
                                          s.flags | TANDEM_SGEMM_HARDSWISH);
        ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
        expectHardSwishOf(plain, fused,
                          std::string(GetParam()) + " " + std::to_string(s.m) +
                              "x" + std::to_string(s.n) + "x" +
                              std::to_string(s.k) + (withBias ? " bias" : "") +
                              (p ? " pool" : ""));
        tandem_internal_kernel_cache_destroy(cache);
      }
  tandem_thread_pool_destroy(pool);
}

TEST_P(HardSwishOnIsa, Depthwise) {
  // 3x3 and 5x5 windows of stride 1 and 2 (AVX-512's own plane kernels),
  // a 7x7 window and a dilated one (the generic plane kernels), with a
  // bias, on 14x14 and 9x11 planes.
  struct Shape {
    int64_t h, w, window, stride, dilation;
  };
  const Shape shapes[] = {{14, 14, 3, 1, 1}, {14, 14, 3, 2, 1},
                          {9, 11, 5, 1, 1},  {9, 11, 5, 2, 1},
                          {14, 14, 7, 1, 1}, {12, 12, 3, 1, 2}};
  const int64_t c = 5;
  for (const Shape &s : shapes) {
    int64_t pad = (s.window - 1) * s.dilation / 2;
    int64_t span = (s.window - 1) * s.dilation + 1;
    int64_t oh = (s.h + 2 * pad - span) / s.stride + 1;
    int64_t ow = (s.w + 2 * pad - span) / s.stride + 1;
    std::vector<float> in = randomValues(c * s.h * s.w, 3.0f, 5),
                       filter = randomValues(c * s.window * s.window, 1.0f, 6),
                       bias = randomValues(c, 2.0f, 7);
    in[3] = std::numeric_limits<float>::quiet_NaN();
    in[17] = std::numeric_limits<float>::infinity();
    std::vector<float> plain(c * oh * ow), fused(c * oh * ow);
    int64_t pads[2] = {pad, pad};
    for (int32_t flags : {0, TANDEM_DWCONV2D_HARDSWISH}) {
      bool ran = tandem_internal_dwconv2d_f32_on(
          GetParam(), nullptr, 1, c, s.h, s.w, in.data(), c * s.h * s.w,
          s.h * s.w, s.w, 1, s.window, s.window, filter.data(),
          (flags ? fused : plain).data(), c * oh * ow, oh * ow, ow, oh, ow,
          s.stride, s.stride, s.dilation, s.dilation, flags, bias.data(), pads);
      if (!ran)
        GTEST_SKIP() << "this CPU has no " << GetParam() << " plane kernel";
    }
    expectHardSwishOf(plain, fused,
                      std::string(GetParam()) + " " + std::to_string(s.h) +
                          "x" + std::to_string(s.w) + " window " +
                          std::to_string(s.window) + " stride " +
                          std::to_string(s.stride));
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, HardSwishOnIsa,
                         ::testing::Values("avx512", "avx2", "portable"));

TEST(HardSwishTest, Convolutions) {
  // The im2col GEMM (a 3x3 stride-2 stem), a 1x1 conv, a one-pixel conv
  // (a matrix-vector product on the cached filter) and Winograd (3x3,
  // stride 1, enough tiles), with a bias, on the process-wide kernels.
  struct Shape {
    int64_t c, f, h, window, stride;
    int32_t flags;
  };
  const Shape shapes[] = {{3, 16, 21, 3, 2, 0},
                          {40, 24, 14, 1, 1, TANDEM_CONV2D_CONSTANT_FILTER},
                          {64, 48, 1, 1, 1, TANDEM_CONV2D_CONSTANT_FILTER},
                          {16, 16, 24, 3, 1, TANDEM_CONV2D_WINOGRAD}};
  for (const Shape &s : shapes) {
    int64_t oh = (s.h - s.window) / s.stride + 1;
    std::vector<float> in = randomValues(s.c * s.h * s.h, 2.0f, 8),
                       filter = randomValues(s.f * s.c * s.window * s.window,
                                             0.5f, 9),
                       bias = randomValues(s.f, 3.0f, 10);
    std::vector<float> plain(s.f * oh * oh), fused(s.f * oh * oh);
    tandem_exec_ctx_t ctx = {};
    tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
    ctx.reserved[0] = cache;
    for (int32_t epilogue : {0, TANDEM_CONV2D_HARDSWISH})
      tandem_conv2d_bias_f32(
          &ctx, 1, s.c, s.h, s.h, in.data(), s.c * s.h * s.h, s.h * s.h, s.h, 1,
          s.f, s.window, s.window, filter.data(), bias.data(),
          (epilogue ? fused : plain).data(), s.f * oh * oh, oh * oh, oh, oh,
          s.stride, s.stride, 1, 1, s.flags | epilogue);
    ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
    expectHardSwishOf(plain, fused,
                      "conv c" + std::to_string(s.c) + " f" +
                          std::to_string(s.f) + " " + std::to_string(s.h) +
                          " window " + std::to_string(s.window) + " flags " +
                          std::to_string(s.flags));
    tandem_internal_kernel_cache_destroy(cache);
  }
}

TEST(HardSwishTest, FusedPointwiseDepthwise) {
  // tandem_conv1x1_dwconv2d_f32 with HardSwish after both convs (a
  // MobileNetV3 block) equals the 1x1 conv and the depthwise conv called
  // one after the other with it, on 1 and 2 threads (bands of rows on two),
  // NCHW and packed output.
  const int64_t k = 40, c = 120, h = 28, w = 28;
  std::vector<float> in = randomValues(k * h * w, 1.0f, 11),
                     pwFilter = randomValues(c * k, 0.6f, 12),
                     pwBias = randomValues(c, 2.0f, 13),
                     dwFilter = randomValues(c * 9, 1.0f, 14),
                     dwBias = randomValues(c, 2.0f, 15);
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (tandem_thread_pool_t *p :
       {static_cast<tandem_thread_pool_t *>(nullptr), pool})
    for (int64_t stride : {1, 2})
      for (bool packed : {false, true}) {
        int64_t oh = (h - 1) / stride + 1, plane = oh * oh;
        tandem_exec_ctx_t ctx = {};
        ctx.pool = p;
        tandem_internal_kernel_cache *cache =
            tandem_internal_kernel_cache_create();
        ctx.reserved[0] = cache;
        int32_t pwFlags =
            TANDEM_CONV2D_HARDSWISH | TANDEM_CONV2D_CONSTANT_FILTER;
        std::vector<float> mid(c * h * w);
        tandem_conv2d_bias_f32(&ctx, 1, k, h, w, in.data(), k * h * w, h * w, w,
                               1, c, 1, 1, pwFilter.data(), pwBias.data(),
                               mid.data(), c * h * w, h * w, h, w, 1, 1, 1, 1,
                               pwFlags);
        size_t size =
            packed ? TANDEM_PACKED_PANEL_FLOATS(c, plane) : size_t(c * plane);
        std::vector<float> expected(size, NAN), got(size, NAN);
        (packed ? tandem_dwconv2d_pad_packed_f32 : tandem_dwconv2d_pad_f32)(
            &ctx, 1, c, h, w, mid.data(), c * h * w, h * w, w, 1, 3, 3,
            dwFilter.data(), dwBias.data(), expected.data(), c * plane, plane,
            oh, oh, oh, stride, stride, 1, 1, 1, 1, TANDEM_DWCONV2D_HARDSWISH);
        (packed ? tandem_conv1x1_dwconv2d_packed_f32
                : tandem_conv1x1_dwconv2d_f32)(
            &ctx, 1, k, h, w, in.data(), k * h * w, h * w, w, 1, c,
            pwFilter.data(), pwBias.data(), pwFlags, 3, 3, dwFilter.data(),
            dwBias.data(), got.data(), c * plane, plane, oh, oh, oh, stride,
            stride, 1, 1, 1, 1, TANDEM_DWCONV2D_HARDSWISH);
        ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
        for (size_t i = 0; i < size; ++i)
          ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(float)), 0)
              << got[i] << " != " << expected[i] << " stride " << stride
              << (packed ? " packed" : "") << (p ? " pool" : "") << " at " << i;
        tandem_internal_kernel_cache_destroy(cache);
      }
  tandem_thread_pool_destroy(pool);
}

TEST(HardSwishTest, TakesPrecedenceOverReLU) {
  // With RELU6 (or RELU) also set, HardSwish is what applies: negative
  // HardSwish values stay negative.
  const int64_t m = 8, n = 16, k = 4;
  std::vector<float> a = randomValues(m * k, 2.0f, 16),
                     b = randomValues(k * n, 2.0f, 17), plain(m * n),
                     fused(m * n);
  tandem_sgemm_f32(nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                   plain.data(), 0, n, 1, 0);
  tandem_sgemm_f32(
      nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1, fused.data(),
      0, n, 1, TANDEM_SGEMM_HARDSWISH | TANDEM_SGEMM_RELU6 | TANDEM_SGEMM_RELU);
  expectHardSwishOf(plain, fused, "sgemm with RELU6 | RELU too");
  bool negative = false;
  for (float v : fused)
    negative |= v < 0.0f;
  EXPECT_TRUE(negative);
}

} // namespace
