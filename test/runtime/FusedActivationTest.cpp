//===- FusedActivationTest.cpp - the kernels' fused activations -----------===//
//
// A kernel called with a HARDSWISH or SILU flag must give, bit for bit,
// what the same call without it gives followed by the loop tandemc
// generates for the ONNX ops the flag replaces:
//
// - HardSwish: x * min(max(x * (1/6) + 0.5, 0), 1), each operation rounded
//   on its own, NaN kept;
// - SiLU, Mul(x, Sigmoid(x)): x * (1 / (1 + exp(-x))) with exp as
//   tandem-approximate-math expands it (MLIR's ExpApproximation, written
//   out here op for op: its math.fma are std::fma, everything else rounded
//   on its own).
//
// That is what lets tandem-fuse-elementwise fold them into the kernels
// without changing a model's output (and the CPU and the emulated device
// still agree byte for byte). test/tools/tandemc/silu-epilogue.test ties
// siluLoop to the loop tandemc really generates.
//
//===----------------------------------------------------------------------===//

#include "kernels/dwconv_internal.h"
#include "kernels/grouped_conv_internal.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "kernels/sgemm_internal.h"
#include "tandem/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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

/// `value` if `keep` (an unordered-or-greater compare was true), else
/// `bound`: the expansion's `cmpf uge` / `ule` + `select`.
float selectOr(bool keep, float value, float bound) {
  return keep ? value : bound;
}

/// MLIR's ExpApproximation of math.exp as `mlir-opt
/// --test-math-polynomial-approximation` prints it (LLVM 22), op by op.
float expLoop(float x) {
  float a = selectOr(std::isnan(x) || x >= -87.8f, x, -87.8f);
  a = selectOr(std::isnan(a) || a <= 88.8f, a, 88.8f);
  float k = std::floor(std::fma(a, 1.44269502f, 0.5f));
  k = selectOr(std::isnan(k) || k >= -127.0f, k, -127.0f);
  k = selectOr(std::isnan(k) || k <= 127.0f, k, 127.0f);
  float r = std::fma(-0.693359375f, k, a);
  r = std::fma(2.12194442e-4f, k, r);
  float p = std::fma(r, 1.98756912e-4f, 0.00139819994f);
  p = std::fma(p, r, 0.00833345205f);
  p = std::fma(p, r, 0.0416657962f);
  p = std::fma(p, r, 0.166666657f);
  p = std::fma(p, r, 0.5f);
  float rr = r * r;
  float e = std::fma(p, rr, r) + 1.0f;
  if (std::isnan(e))
    return e;
  uint32_t bits = uint32_t(int32_t(k) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return e * scale;
}

/// The generated loop of Mul(x, Sigmoid(x)).
float siluLoop(float x) {
  float e = expLoop(-x);
  float sigmoid = 1.0f / (1.0f + e);
  return x * sigmoid;
}

/// A fused activation: its kernel flag (the same bit for tandem_sgemm_f32,
/// tandem_conv2d_f32 and tandem_dwconv2d_f32) and the loop it replaces.
struct Activation {
  const char *name;
  int32_t flag;
  float (*loop)(float);
};

const Activation kHardSwish{"hardswish", TANDEM_SGEMM_HARDSWISH, hardSwishLoop};
const Activation kSilu{"silu", TANDEM_SGEMM_SILU, siluLoop};

static_assert(TANDEM_SGEMM_HARDSWISH == TANDEM_CONV2D_HARDSWISH &&
              TANDEM_SGEMM_HARDSWISH == TANDEM_DWCONV2D_HARDSWISH &&
              TANDEM_SGEMM_SILU == TANDEM_CONV2D_SILU &&
              TANDEM_SGEMM_SILU == TANDEM_DWCONV2D_SILU);

/// `plain` (a call's output without the epilogue) under `act`'s loop must
/// equal `fused` bit for bit, or both be NaN: which operand's NaN an
/// arithmetic op returns (its sign) is the compiler's register choice, in
/// the kernels and in the generated loop alike; `what` names the case.
void expectActivationOf(const Activation &act, const std::vector<float> &plain,
                        const std::vector<float> &fused,
                        const std::string &what) {
  ASSERT_EQ(plain.size(), fused.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    float want = act.loop(plain[i]);
    if (std::isnan(want) && std::isnan(fused[i]))
      continue;
    ASSERT_EQ(std::memcmp(&want, &fused[i], sizeof(float)), 0)
        << what << " at " << i << ": " << fused[i] << " != " << act.name << "("
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
/// NaN, both infinities, HardSwish's corners (-3, 3), zeros, and where
/// SiLU's exp clamps (-87.8, 88.8 and past them) or underflows.
void addSpecials(std::vector<float> &prior) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            -3.0f,
                            3.0f,
                            0.0f,
                            -0.0f,
                            1e30f,
                            -1e30f,
                            87.8f,
                            -88.8f,
                            -89.0f,
                            100.0f,
                            -104.0f,
                            1e-30f};
  for (size_t i = 0, s = 0; i < prior.size(); i += 7, ++s)
    prior[i] = specials[s % (sizeof(specials) / sizeof(specials[0]))];
}

class ActivationOnIsa
    : public ::testing::TestWithParam<std::tuple<const char *, Activation>> {
protected:
  const char *isa() const { return std::get<0>(GetParam()); }
  const Activation &act() const { return std::get<1>(GetParam()); }
};

TEST_P(ActivationOnIsa, Sgemm) {
  // Full and edge tiles (7x7 images' 49 columns, one-row and narrow
  // tiles, 3 columns past the last full panel), several K blocks, accumulating
  // onto a prior with specials (so NaN and infinities reach the epilogue), a
  // column bias; and the matrix-vector paths on cached weights (a classifier
  // row, a column).
  struct Shape {
    int64_t m, n, k;
    int32_t flags;
  };
  const Shape shapes[] = {{30, 49, 70, TANDEM_SGEMM_ACCUMULATE},
                          {41, 77, 600, 0},
                          {30, 35, 70, TANDEM_SGEMM_ACCUMULATE},
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
            isa(), &ctx, 1, s.m, s.n, s.k, a.data(), 0, s.k, 1, b.data(), 0,
            s.n, 1, biasData, plain.data(), 0, s.n, 1, s.flags);
        if (!ran) {
          tandem_internal_kernel_cache_destroy(cache);
          tandem_thread_pool_destroy(pool);
          GTEST_SKIP() << "this CPU has no " << isa() << " micro-kernel";
        }
        tandem_internal_sgemm_bias_f32_on(
            isa(), &ctx, 1, s.m, s.n, s.k, a.data(), 0, s.k, 1, b.data(), 0,
            s.n, 1, biasData, fused.data(), 0, s.n, 1, s.flags | act().flag);
        ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
        expectActivationOf(act(), plain, fused,
                           std::string(isa()) + " " + std::to_string(s.m) +
                               "x" + std::to_string(s.n) + "x" +
                               std::to_string(s.k) + (withBias ? " bias" : "") +
                               (p ? " pool" : ""));
        tandem_internal_kernel_cache_destroy(cache);
      }
  tandem_thread_pool_destroy(pool);
}

TEST_P(ActivationOnIsa, Depthwise) {
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
    for (int32_t flags : {0, act().flag}) {
      bool ran = tandem_internal_dwconv2d_f32_on(
          isa(), nullptr, 1, c, s.h, s.w, in.data(), c * s.h * s.w, s.h * s.w,
          s.w, 1, s.window, s.window, filter.data(),
          (flags ? fused : plain).data(), c * oh * ow, oh * ow, ow, oh, ow,
          s.stride, s.stride, s.dilation, s.dilation, flags, bias.data(), pads);
      if (!ran)
        GTEST_SKIP() << "this CPU has no " << isa() << " plane kernel";
    }
    expectActivationOf(act(), plain, fused,
                       std::string(isa()) + " " + std::to_string(s.h) + "x" +
                           std::to_string(s.w) + " window " +
                           std::to_string(s.window) + " stride " +
                           std::to_string(s.stride));
  }
}

TEST_P(ActivationOnIsa, GroupedConv) {
  // tandem_grouped_conv2d_f32's direct blocks (long epilogues in a pass
  // over each task's stored rows): 16-lane rows, 8-lane rows (a 7x7
  // plane), stride 2 (even/odd staging), a channel count left over from
  // the blocks; implicit padding of 1, a bias, NaN and infinity inputs.
  struct Shape {
    int64_t groups, c, f, h, w, stride;
  };
  const Shape shapes[] = {
      {3, 8, 8, 20, 28, 1}, {4, 8, 8, 7, 7, 1}, {2, 4, 7, 17, 34, 2}};
  for (const Shape &s : shapes) {
    int64_t oh = (s.h + 2 - 3) / s.stride + 1,
            ow = (s.w + 2 - 3) / s.stride + 1;
    int64_t ch = s.groups * s.c, fo = s.groups * s.f;
    std::vector<float> in = randomValues(ch * s.h * s.w, 3.0f, 11),
                       filter = randomValues(fo * s.c * 9, 1.0f, 12),
                       bias = randomValues(fo, 2.0f, 13);
    in[5] = std::numeric_limits<float>::quiet_NaN();
    in[40] = std::numeric_limits<float>::infinity();
    std::vector<float> plain(fo * oh * ow), fused(fo * oh * ow);
    for (int32_t flags : {0, act().flag}) {
      bool ran = tandem_internal_grouped_conv2d_f32_on(
          isa(), nullptr, 1, s.groups, s.c, s.h, s.w, in.data(), ch * s.h * s.w,
          s.c * s.h * s.w, s.h * s.w, s.w, 1, s.f, 3, 3, filter.data(),
          s.f * s.c * 9, bias.data(), (flags ? fused : plain).data(),
          fo * oh * ow, s.f * oh * ow, oh * ow, oh, ow, s.stride, s.stride, 1,
          1, 1, 1, flags);
      if (!ran)
        GTEST_SKIP() << "this CPU has no " << isa() << " grouped conv blocks";
      ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
    }
    expectActivationOf(act(), plain, fused,
                       std::string(isa()) + " grouped " + std::to_string(s.h) +
                           "x" + std::to_string(s.w) + " stride " +
                           std::to_string(s.stride));
  }
}

std::string activationCaseName(
    const ::testing::TestParamInfo<ActivationOnIsa::ParamType> &info) {
  return std::string(std::get<0>(info.param)) + "_" +
         std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, ActivationOnIsa,
    ::testing::Combine(::testing::Values("avx512", "avx2", "portable"),
                       ::testing::Values(kHardSwish, kSilu)),
    activationCaseName);

class Activations : public ::testing::TestWithParam<Activation> {};

TEST_P(Activations, Convolutions) {
  const Activation &act = GetParam();
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
    for (int32_t epilogue : {0, act.flag})
      tandem_conv2d_bias_f32(
          &ctx, 1, s.c, s.h, s.h, in.data(), s.c * s.h * s.h, s.h * s.h, s.h, 1,
          s.f, s.window, s.window, filter.data(), bias.data(),
          (epilogue ? fused : plain).data(), s.f * oh * oh, oh * oh, oh, oh,
          s.stride, s.stride, 1, 1, s.flags | epilogue);
    ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
    expectActivationOf(act, plain, fused,
                       "conv c" + std::to_string(s.c) + " f" +
                           std::to_string(s.f) + " " + std::to_string(s.h) +
                           " window " + std::to_string(s.window) + " flags " +
                           std::to_string(s.flags));
    tandem_internal_kernel_cache_destroy(cache);
  }
}

TEST_P(Activations, FusedPointwiseDepthwise) {
  // tandem_conv1x1_dwconv2d_f32 with the activation after both convs (a
  // MobileNetV3 block with HardSwish, an EfficientNet one with SiLU) equals the
  // 1x1 conv and the depthwise conv called one after the other with it, on 1
  // and 2 threads (bands of rows on two), NCHW and packed output.
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
        int32_t pwFlags = GetParam().flag | TANDEM_CONV2D_CONSTANT_FILTER;
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
            oh, oh, oh, stride, stride, 1, 1, 1, 1, GetParam().flag);
        (packed ? tandem_conv1x1_dwconv2d_packed_f32
                : tandem_conv1x1_dwconv2d_f32)(
            &ctx, 1, k, h, w, in.data(), k * h * w, h * w, w, 1, c,
            pwFilter.data(), pwBias.data(), pwFlags, 3, 3, dwFilter.data(),
            dwBias.data(), got.data(), c * plane, plane, oh, oh, oh, stride,
            stride, 1, 1, 1, 1, GetParam().flag);
        ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
        for (size_t i = 0; i < size; ++i)
          ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(float)), 0)
              << got[i] << " != " << expected[i] << " stride " << stride
              << (packed ? " packed" : "") << (p ? " pool" : "") << " at " << i;
        tandem_internal_kernel_cache_destroy(cache);
      }
  tandem_thread_pool_destroy(pool);
}

TEST_P(Activations, TakesPrecedenceOverReLU) {
  // With RELU6 (or RELU) also set, the activation is what applies: its
  // negative values stay negative.
  const Activation &act = GetParam();
  const int64_t m = 8, n = 16, k = 4;
  std::vector<float> a = randomValues(m * k, 2.0f, 16),
                     b = randomValues(k * n, 2.0f, 17), plain(m * n),
                     fused(m * n);
  tandem_sgemm_f32(nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                   plain.data(), 0, n, 1, 0);
  tandem_sgemm_f32(nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                   fused.data(), 0, n, 1,
                   act.flag | TANDEM_SGEMM_RELU6 | TANDEM_SGEMM_RELU);
  expectActivationOf(act, plain, fused, "sgemm with RELU6 | RELU too");
  bool negative = false;
  for (float v : fused)
    negative |= v < 0.0f;
  EXPECT_TRUE(negative);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Activations,
                         ::testing::Values(kHardSwish, kSilu),
                         [](const ::testing::TestParamInfo<Activation> &info) {
                           return std::string(info.param.name);
                         });

TEST(FusedActivationTest, HardSwishBeforeSilu) {
  // Both bits set: HardSwish applies (the documented precedence).
  const int64_t m = 6, n = 16, k = 3;
  std::vector<float> a = randomValues(m * k, 2.0f, 18),
                     b = randomValues(k * n, 2.0f, 19), plain(m * n),
                     fused(m * n);
  tandem_sgemm_f32(nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                   plain.data(), 0, n, 1, 0);
  tandem_sgemm_f32(nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                   fused.data(), 0, n, 1,
                   TANDEM_SGEMM_HARDSWISH | TANDEM_SGEMM_SILU);
  expectActivationOf(kHardSwish, plain, fused, "sgemm with SILU too");
}

TEST(FusedActivationTest, SiluLoopIsSilu) {
  // The reference itself: within a few ulp of x / (1 + e^-x) in double,
  // exact at 0 and NaN, -0 below -104 (e^-x clamps), x above 88.
  for (float x = -20.0f; x <= 20.0f; x += 0.0137f) {
    double want = x / (1.0 + std::exp(-double(x)));
    EXPECT_NEAR(siluLoop(x), want, 4e-7 * std::max(1.0, std::fabs(want))) << x;
  }
  EXPECT_EQ(siluLoop(0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(siluLoop(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(siluLoop(100.0f), 100.0f);
  EXPECT_EQ(siluLoop(-200.0f), -0.0f);
}

} // namespace
