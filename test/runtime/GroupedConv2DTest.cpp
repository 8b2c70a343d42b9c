//===- GroupedConv2DTest.cpp - tandem_grouped_conv2d_f32 against loops ----===//
//
// Grouped convolution on every kernel family this CPU runs (the direct
// blocks on AVX-512, AVX2 and plain C, and the per-group GEMM): group
// widths that fill, split and miss the register blocks (1 to 24 channels),
// 3x3, 5x5, 1x3 and 1x1 windows, strides 1 to 3 (staged rows, even/odd
// splits, gathered phases), dilation, implicit padding and padded inputs,
// planes of 1 to 56 columns (8-lane and 16-lane rows), batches, strided
// views, a bias, accumulation, every fused epilogue, constant filters
// from the weight cache, and pools of 1 to 3 threads. Inputs sit right at the
// end of their buffer, so an out-of-bounds load would read past it (and fail
// under ASan).
//
//===----------------------------------------------------------------------===//

#include "TestPool.h"
#include "kernels/grouped_conv_internal.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "tandem/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

struct GroupedCase {
  int64_t n, groups, c, f, h, w, kh, kw, sh, sw, dh, dw, padT, padL, padB, padR;
};

const GroupedCase kCases[] = {
    // RegNetY-400MF: 8 channels a group, 3x3, stride 1 and 2, padded 1.
    {1, 6, 8, 8, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 13, 8, 8, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 6, 8, 8, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {2, 5, 8, 8, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 4, 8, 8, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    // ResNeXt: 4 and 16 channels; channel blocks of 8, 4, 2 and 1.
    {1, 8, 4, 4, 20, 21, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 3, 16, 16, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 2, 3, 15, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 2, 24, 24, 10, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // Channel multipliers (1 -> 2: a depthwise conv with two filters).
    {1, 6, 1, 2, 17, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // 5x5 and 1x3 windows, asymmetric and no padding, stride 3, dilation.
    {1, 3, 4, 6, 23, 30, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2},
    {1, 2, 5, 3, 8, 33, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1},
    {1, 2, 6, 4, 25, 40, 3, 3, 3, 3, 1, 1, 1, 0, 2, 1},
    {1, 3, 4, 4, 19, 26, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
    {1, 2, 4, 4, 16, 29, 3, 3, 1, 2, 2, 1, 0, 1, 0, 3},
    {2, 4, 6, 6, 9, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    // Rows of 1, 8, 9, 16, 17 and 33 columns.
    {1, 2, 8, 8, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 2, 8, 8, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 2, 8, 8, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 2, 8, 8, 4, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 2, 8, 8, 4, 34, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {1, 2, 8, 8, 3, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
};

/// Output size of one dimension.
int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t lo,
                int64_t hi) {
  return (in + lo + hi - d * (k - 1) - 1) / s + 1;
}

float epilogue(float v, int32_t flags) {
  if (flags & TANDEM_CONV2D_RELU)
    return v < 0 ? 0 : v;
  if (flags & TANDEM_CONV2D_RELU6)
    return v < 0 ? 0 : v > 6 ? 6 : v;
  if (flags & TANDEM_CONV2D_HARDSWISH)
    return v * std::min(6.0f, std::max(0.0f, v + 3.0f)) / 6.0f;
  if (flags & TANDEM_CONV2D_SILU)
    return v / (1.0f + std::exp(-v));
  return v;
}

/// The reference in double: output [n][groups*f][oh][ow] (dense).
std::vector<float> reference(const GroupedCase &t, const std::vector<float> &in,
                             const std::vector<float> &filter,
                             const std::vector<float> &bias,
                             const std::vector<float> &prior, int32_t flags) {
  int64_t oh = outSize(t.h, t.kh, t.sh, t.dh, t.padT, t.padB);
  int64_t ow = outSize(t.w, t.kw, t.sw, t.dw, t.padL, t.padR);
  int64_t ch = t.groups * t.c, fo = t.groups * t.f;
  std::vector<float> out(t.n * fo * oh * ow);
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t g = 0; g < t.groups; ++g)
      for (int64_t o = 0; o < t.f; ++o)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x) {
            int64_t oc = g * t.f + o;
            int64_t at = ((b * fo + oc) * oh + y) * ow + x;
            double acc = bias.empty() ? 0.0 : bias[oc];
            if (flags & TANDEM_CONV2D_ACCUMULATE)
              acc += prior[at];
            for (int64_t c = 0; c < t.c; ++c)
              for (int64_t i = 0; i < t.kh; ++i)
                for (int64_t j = 0; j < t.kw; ++j) {
                  int64_t r = y * t.sh + i * t.dh - t.padT;
                  int64_t col = x * t.sw + j * t.dw - t.padL;
                  if (r < 0 || r >= t.h || col < 0 || col >= t.w)
                    continue;
                  acc +=
                      double(filter[((oc * t.c + c) * t.kh + i) * t.kw + j]) *
                      in[((b * ch + g * t.c + c) * t.h + r) * t.w + col];
                }
            out[at] = epilogue(float(acc), flags);
          }
  return out;
}

std::vector<float> randoms(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

struct GroupedRun {
  std::vector<float> out;
  bool ran = false;
};

/// Runs `family` on case t; with `prepadded`, on an input padded in memory
/// (pad 0 in the call), else with implicit padding. The input lies at the
/// end of its buffer.
GroupedRun runFamily(const char *family, const GroupedCase &t,
                     const std::vector<float> &in,
                     const std::vector<float> &filter,
                     const std::vector<float> &bias,
                     const std::vector<float> &prior, int32_t flags,
                     bool prepadded, tandem_thread_pool_t *pool,
                     tandem_internal_kernel_cache *cache = nullptr) {
  int64_t oh = outSize(t.h, t.kh, t.sh, t.dh, t.padT, t.padB);
  int64_t ow = outSize(t.w, t.kw, t.sw, t.dw, t.padL, t.padR);
  int64_t ch = t.groups * t.c, fo = t.groups * t.f;
  int64_t h = t.h, w = t.w;
  std::vector<float> src = in;
  if (prepadded) {
    h = t.h + t.padT + t.padB, w = t.w + t.padL + t.padR;
    src.assign(t.n * ch * h * w, 0.0f);
    for (int64_t p = 0; p < t.n * ch; ++p)
      for (int64_t r = 0; r < t.h; ++r)
        for (int64_t x = 0; x < t.w; ++x)
          src[(p * h + r + t.padT) * w + x + t.padL] =
              in[(p * t.h + r) * t.w + x];
  }
  GroupedRun run;
  run.out = prior;
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  ctx.reserved[0] = cache;
  run.ran = tandem_internal_grouped_conv2d_f32_on(
      family, &ctx, t.n, t.groups, t.c, h, w, src.data(), ch * h * w,
      t.c * h * w, h * w, w, 1, t.f, t.kh, t.kw, filter.data(),
      t.f * t.c * t.kh * t.kw, bias.empty() ? nullptr : bias.data(),
      run.out.data(), fo * oh * ow, t.f * oh * ow, oh * ow, oh, ow, t.sh, t.sw,
      t.dh, t.dw, prepadded ? 0 : t.padT, prepadded ? 0 : t.padL, flags);
  return run;
}

std::string describe(const GroupedCase &t) {
  return "n" + std::to_string(t.n) + " g" + std::to_string(t.groups) + " c" +
         std::to_string(t.c) + " f" + std::to_string(t.f) + " " +
         std::to_string(t.h) + "x" + std::to_string(t.w) + " k" +
         std::to_string(t.kh) + "x" + std::to_string(t.kw) + " s" +
         std::to_string(t.sh) + "," + std::to_string(t.sw) + " d" +
         std::to_string(t.dh) + "," + std::to_string(t.dw) + " pad " +
         std::to_string(t.padT) + "," + std::to_string(t.padL) + "," +
         std::to_string(t.padB) + "," + std::to_string(t.padR);
}

const char *const kFamilies[] = {"avx512", "avx2", "portable", "gemm"};

TEST(GroupedConv2DTest, EveryFamilyMatchesTheLoops) {
  tandem_test::TestPool two(2), three(3);
  ASSERT_NE(two.get(), nullptr);
  ASSERT_NE(three.get(), nullptr);
  int32_t flagSets[] = {0, TANDEM_CONV2D_RELU,
                        TANDEM_CONV2D_ACCUMULATE | TANDEM_CONV2D_RELU6,
                        TANDEM_CONV2D_HARDSWISH,
                        TANDEM_CONV2D_SILU | TANDEM_CONV2D_CONSTANT_FILTER};
  int caseIndex = 0;
  for (const GroupedCase &t : kCases) {
    ++caseIndex;
    int64_t ch = t.groups * t.c, fo = t.groups * t.f;
    int64_t oh = outSize(t.h, t.kh, t.sh, t.dh, t.padT, t.padB);
    int64_t ow = outSize(t.w, t.kw, t.sw, t.dw, t.padL, t.padR);
    auto in = randoms(t.n * ch * t.h * t.w, 1 + caseIndex);
    auto filter = randoms(fo * t.c * t.kh * t.kw, 100 + caseIndex);
    auto bias = randoms(fo, 200 + caseIndex);
    auto prior = randoms(t.n * fo * oh * ow, 300 + caseIndex);
    // The case's own weight cache (keyed by the filter's address): a
    // constant filter's transposed groups come from it.
    std::unique_ptr<tandem_internal_kernel_cache,
                    void (*)(tandem_internal_kernel_cache *)>
        cache(tandem_internal_kernel_cache_create(),
              tandem_internal_kernel_cache_destroy);
    ASSERT_NE(cache.get(), nullptr);
    for (int flagIndex = 0; flagIndex < 5; ++flagIndex) {
      int32_t flags = flagSets[flagIndex];
      // Every other flag set without a bias.
      std::vector<float> b = flagIndex % 2 ? std::vector<float>() : bias;
      std::vector<float> want = reference(t, in, filter, b, prior, flags);
      for (const char *family : kFamilies)
        for (bool prepadded : {false, true})
          for (tandem_thread_pool_t *pool :
               {(tandem_thread_pool_t *)nullptr, two.get(), three.get()}) {
            GroupedRun got = runFamily(family, t, in, filter, b, prior, flags,
                                       prepadded, pool, cache.get());
            if (!got.ran)
              continue; // this CPU lacks the family
            ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
            double worst = 0;
            size_t at = 0;
            for (size_t i = 0; i < want.size(); ++i) {
              double err = std::fabs(double(got.out[i]) - want[i]) /
                           (1.0 + std::fabs(double(want[i])));
              if (!(err <= worst)) // NaN counts
                worst = err, at = i;
            }
            EXPECT_LE(worst, 2e-5)
                << family << (prepadded ? " padded input" : " implicit pad")
                << " threads " << (pool ? tandem_thread_pool_size(pool) : 1)
                << " flags " << flags << " " << describe(t) << " at " << at
                << ": " << got.out[at] << " vs " << want[at];
          }
    }
  }
}

/// A group whose C * KH * KW fits one K block of the GEMM sums in the GEMM's
/// order: the direct blocks give its bits (without a long epilogue, whose
/// vector widths may differ).
TEST(GroupedConv2DTest, DirectBlocksGiveTheGemmBits) {
  const GroupedCase cases[] = {
      {1, 6, 8, 8, 58, 58, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 4, 8, 8, 113, 113, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0},
      {1, 5, 16, 16, 9, 9, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
      {2, 3, 5, 7, 12, 30, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
  };
  // The portable GEMM (TANDEM_CPU_KERNELS=portable) rounds each product
  // before adding it; the direct blocks, like the AVX2 and AVX-512 GEMMs,
  // fuse them.
  if (std::string(tandem_sgemm_f32_isa()) == "portable")
    GTEST_SKIP() << "the GEMM runs its portable kernels, without FMA";
  tandem_test::TestPool two(2);
  ASSERT_NE(two.get(), nullptr);
  for (const GroupedCase &t : cases) {
    int64_t ch = t.groups * t.c, fo = t.groups * t.f;
    int64_t oh = outSize(t.h, t.kh, t.sh, t.dh, 0, 0);
    int64_t ow = outSize(t.w, t.kw, t.sw, t.dw, 0, 0);
    auto in = randoms(t.n * ch * t.h * t.w, 7);
    auto filter = randoms(fo * t.c * t.kh * t.kw, 8);
    auto bias = randoms(fo, 9);
    auto prior = randoms(t.n * fo * oh * ow, 10);
    for (int32_t flags :
         {0, int32_t(TANDEM_CONV2D_RELU),
          int32_t(TANDEM_CONV2D_ACCUMULATE | TANDEM_CONV2D_RELU6)}) {
      GroupedRun gemm = runFamily("gemm", t, in, filter, bias, prior, flags,
                                  false, two.get());
      ASSERT_TRUE(gemm.ran);
      for (const char *family : {"avx512", "avx2"}) {
        GroupedRun direct = runFamily(family, t, in, filter, bias, prior, flags,
                                      false, two.get());
        if (!direct.ran)
          continue;
        size_t differ = 0;
        for (size_t i = 0; i < gemm.out.size(); ++i)
          differ += std::memcmp(&gemm.out[i], &direct.out[i], 4) != 0;
        EXPECT_EQ(differ, 0u)
            << family << " flags " << flags << " " << describe(t);
      }
    }
  }
}

/// The public entry on its own choice: narrow groups as direct blocks,
/// wide ones (32 channels) as GEMMs on each group's padded copy, both with
/// implicit padding, on a pool of two.
TEST(GroupedConv2DTest, PublicEntryChoosesAndPads) {
  const GroupedCase cases[] = {
      {1, 2, 32, 32, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {2, 3, 48, 16, 9, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 4, 8, 8, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
  };
  tandem_test::TestPool two(2);
  ASSERT_NE(two.get(), nullptr);
  for (const GroupedCase &t : cases) {
    int64_t ch = t.groups * t.c, fo = t.groups * t.f;
    int64_t oh = outSize(t.h, t.kh, t.sh, t.dh, t.padT, t.padB);
    int64_t ow = outSize(t.w, t.kw, t.sw, t.dw, t.padL, t.padR);
    auto in = randoms(t.n * ch * t.h * t.w, 21);
    auto filter = randoms(fo * t.c * t.kh * t.kw, 22);
    auto bias = randoms(fo, 23);
    std::vector<float> none;
    std::vector<float> want =
        reference(t, in, filter, bias, none, TANDEM_CONV2D_RELU);
    std::vector<float> got(want.size(), 99.0f);
    tandem_exec_ctx_t ctx = {};
    ctx.pool = two.get();
    tandem_grouped_conv2d_f32(
        &ctx, t.n, t.groups, t.c, t.h, t.w, in.data(), ch * t.h * t.w,
        t.c * t.h * t.w, t.h * t.w, t.w, 1, t.f, t.kh, t.kw, filter.data(),
        t.f * t.c * t.kh * t.kw, bias.data(), got.data(), fo * oh * ow,
        t.f * oh * ow, oh * ow, oh, ow, t.sh, t.sw, t.dh, t.dw, t.padT, t.padL,
        TANDEM_CONV2D_RELU);
    ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 2e-5 * (1 + std::fabs(want[i])))
          << describe(t) << " at " << i;
  }
}

/// No input channels: every output is its bias (and prior), through the
/// epilogue, on every family, padded or not.
TEST(GroupedConv2DTest, NoInputChannelsGiveTheBias) {
  const float bias[4] = {1.5f, -2.0f, 0.25f, 7.0f};
  for (const char *family : kFamilies)
    for (int64_t pad : {0, 1}) {
      float in[1] = {}, filter[1] = {};
      float out[4 * 9];
      for (float &v : out)
        v = 100.0f;
      tandem_exec_ctx_t ctx = {};
      bool ran = tandem_internal_grouped_conv2d_f32_on(
          family, &ctx, 1, 2, 0, 3, 3, in, 0, 0, 0, 3, 1, 2, 3, 3, filter, 0,
          bias, out, 36, 18, 9, 3 - 2 + 2 * pad, 3 - 2 + 2 * pad, 1, 1, 1, 1,
          pad, pad, TANDEM_CONV2D_RELU);
      if (!ran)
        continue;
      ASSERT_EQ(tandem_internal_take_kernel_error(), nullptr) << family;
      int64_t pixels = (1 + 2 * pad) * (1 + 2 * pad);
      for (int64_t ch = 0; ch < 4; ++ch)
        for (int64_t p = 0; p < pixels; ++p)
          EXPECT_EQ(out[ch * 9 + p], std::max(0.0f, bias[ch]))
              << family << " pad " << pad << " channel " << ch;
    }
}

TEST(GroupedConv2DTest, InvalidGeometryFailsTheCall) {
  float in[16] = {}, filter[9] = {}, out[4] = {1, 2, 3, 4};
  tandem_grouped_conv2d_f32(nullptr, 1, 1, 1, 4, 4, in, 16, 16, 16, 4, 1, 1, 3,
                            3, filter, 9, nullptr, out, 4, 4, 4, 2, 2,
                            /*strideH=*/0, 1, 1, 1, 0, 0, 0);
  const char *error = tandem_internal_take_kernel_error();
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("grouped conv2d"), std::string::npos);
  EXPECT_EQ(out[0], 1.0f); // nothing written
}

} // namespace
