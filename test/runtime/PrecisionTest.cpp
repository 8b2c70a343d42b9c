//===- PrecisionTest.cpp - Operand rounding of the precision modes --------===//
//
// The rounding a GEMM or convolution descriptor's TANDEM_*_ALLOW_* flag
// asks for (kernels/precision.h), checked on values whose results are
// known (ties to even, overflow, FP16 subnormals) and against the
// compiler's _Float16 conversion; then the host GEMM and the emulated
// device's GEMM with a precision flag against a reference built from
// rounded operands, and the descriptor check that rejects two flags.
//
//===----------------------------------------------------------------------===//

#include "kernels/precision.h"
#include "StatusHelpers.h"
#include "kernels/gemm_desc.h"
#include "tandem/runtime.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace {

using tandem::precision::Format;
using tandem::precision::roundTo;

TEST(Precision, RoundsToNearestEven) {
  // BF16 keeps 7 mantissa bits: the ulp at 1 is 2^-7.
  EXPECT_EQ(roundTo(1.0f + 0x1p-8f, Format::BF16), 1.0f); // tie, to even
  EXPECT_EQ(roundTo(1.0f + 3 * 0x1p-8f, Format::BF16), 1.0f + 0x1p-6f);
  EXPECT_EQ(roundTo(1.0f + 0x1p-8f + 0x1p-20f, Format::BF16), 1.0f + 0x1p-7f);
  EXPECT_EQ(roundTo(-1.0f - 3 * 0x1p-8f, Format::BF16), -1.0f - 0x1p-6f);
  EXPECT_TRUE(std::isinf(roundTo(FLT_MAX, Format::BF16)));
  // TF32 and FP16 keep 10: the ulp at 1 is 2^-10.
  for (Format f : {Format::TF32, Format::FP16}) {
    EXPECT_EQ(roundTo(1.0f + 0x1p-11f, f), 1.0f);
    EXPECT_EQ(roundTo(1.0f + 3 * 0x1p-11f, f), 1.0f + 0x1p-9f);
    EXPECT_EQ(roundTo(1.5f, f), 1.5f);
  }
  // TF32 keeps f32's range.
  EXPECT_TRUE(std::isfinite(roundTo(1e30f, Format::TF32)));
  EXPECT_NEAR(roundTo(1e30f, Format::TF32), 1e30f, 1e30f * 0x1p-11f);
  EXPECT_EQ(roundTo(0.1f, Format::FP32), 0.1f);
  EXPECT_TRUE(std::isnan(roundTo(NAN, Format::BF16)));
  EXPECT_TRUE(std::isnan(roundTo(NAN, Format::FP16)));
  EXPECT_EQ(roundTo(-INFINITY, Format::TF32), -INFINITY);
}

TEST(Precision, HalfHasItsRangeAndSubnormals) {
  EXPECT_EQ(roundTo(65504.0f, Format::FP16), 65504.0f);
  EXPECT_EQ(roundTo(65519.0f, Format::FP16), 65504.0f);
  EXPECT_EQ(roundTo(65520.0f, Format::FP16), INFINITY);
  EXPECT_EQ(roundTo(-7e4f, Format::FP16), -INFINITY);
  // Subnormals are multiples of 2^-24.
  EXPECT_EQ(roundTo(1.5f * 0x1p-24f, Format::FP16), 0x1p-23f); // tie, even
  EXPECT_EQ(roundTo(0x1p-25f, Format::FP16), 0.0f);            // tie, even
  EXPECT_EQ(roundTo(1.01f * 0x1p-25f, Format::FP16), 0x1p-24f);
  EXPECT_EQ(roundTo(3e-5f, Format::FP16),
            std::nearbyint(3e-5f * 0x1p24f) * 0x1p-24f);
  EXPECT_EQ(roundTo(0x1p-14f, Format::FP16), 0x1p-14f);
  // Against the compiler's conversion, over every exponent.
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = bits(rng);
    // Exponents from 2^-30 to 2^17, both signs.
    u = (u & 0x807fffffu) | ((97u + (u >> 23) % 48u) << 23);
    float x;
    std::memcpy(&x, &u, sizeof(x));
    float expected = static_cast<float>(static_cast<_Float16>(x));
    ASSERT_EQ(roundTo(x, Format::FP16), expected) << x;
  }
}

/// A small GEMM whose operands are not exact in 8 or 11 significant bits.
struct SmallGemm {
  tandem_gemm_desc_t d = {};
  std::vector<float> a, b;
  explicit SmallGemm(int64_t flags) {
    d.batch = 1, d.m = 3, d.n = 5, d.k = 7;
    d.lda = d.k, d.ldb = d.n, d.ldc = d.n;
    d.flags = flags;
    for (int i = 0; i < 3 * 7; ++i)
      a.push_back(std::sin(0.7f * i + 0.3f) / 3.0f);
    for (int i = 0; i < 7 * 5; ++i)
      b.push_back(std::cos(1.3f * i) / 7.0f);
  }
  /// The exact product of the operands rounded to `format`.
  std::vector<double> reference(Format format) const {
    std::vector<double> c(15);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j)
        for (int l = 0; l < 7; ++l)
          c[i * 5 + j] += double(roundTo(a[i * 7 + l], format)) *
                          roundTo(b[l * 5 + j], format);
    return c;
  }
};

void expectNear(const std::vector<float> &got, const std::vector<double> &ref,
                const char *what) {
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_NEAR(got[i], ref[i], 1e-6) << what << ", element " << i;
}

TEST(Precision, HostGemmRoundsItsOperands) {
  const struct {
    int64_t flag;
    Format format;
  } kModes[] = {{TANDEM_GEMM_ALLOW_TF32, Format::TF32},
                {TANDEM_GEMM_ALLOW_BF16, Format::BF16},
                {TANDEM_GEMM_ALLOW_FP16, Format::FP16}};
  SmallGemm fp32(0);
  std::vector<float> exact(15);
  tandem::gemm::runOnHost(nullptr, fp32.d, fp32.a.data(), fp32.b.data(),
                          exact.data(), nullptr);
  expectNear(exact, fp32.reference(Format::FP32), "fp32");
  for (const auto &mode : kModes) {
    SmallGemm g(mode.flag);
    char message[128];
    ASSERT_TRUE(tandem::gemm::check(g.d, message, sizeof(message))) << message;
    std::vector<float> c(15);
    tandem::gemm::runOnHost(nullptr, g.d, g.a.data(), g.b.data(), c.data(),
                            nullptr);
    std::vector<double> ref = g.reference(mode.format);
    expectNear(c, ref, "rounded");
    // The rounding shows beyond float noise.
    double moved = 0;
    for (size_t i = 0; i < ref.size(); ++i)
      moved = std::max(moved, std::fabs(double(c[i]) - exact[i]));
    EXPECT_GT(moved, 1e-5) << "flag " << mode.flag;
  }
}

/// An emulated device and a stream on it.
class EmulatedGemm : public ::testing::Test {
protected:
  void SetUp() override {
    tandem_device_options_t options;
    tandem_device_options_init(&options);
    ASSERT_OK(tandem_device_open("emulated", &options, &device));
    ASSERT_OK(tandem_stream_create(device, &stream));
  }
  void TearDown() override {
    if (stream)
      EXPECT_OK(tandem_stream_destroy(stream));
    if (device)
      tandem_device_close(device);
  }
  tandem_device_t *device = nullptr;
  tandem_stream_t *stream = nullptr;
};

TEST_F(EmulatedGemm, RoundsItsOperands) {
  SmallGemm g(TANDEM_GEMM_ALLOW_BF16);
  tandem_device_ptr_t a = 0, b = 0, c = 0;
  ASSERT_OK(tandem_device_alloc(device, g.a.size() * 4, &a));
  ASSERT_OK(tandem_device_alloc(device, g.b.size() * 4, &b));
  ASSERT_OK(tandem_device_alloc(device, 15 * 4, &c));
  ASSERT_OK(tandem_memcpy_h2d_async(stream, a, g.a.data(), g.a.size() * 4));
  ASSERT_OK(tandem_memcpy_h2d_async(stream, b, g.b.data(), g.b.size() * 4));
  ASSERT_OK(tandem_device_gemm(stream, &g.d, a, b, c, 0, "bf16_gemm"));
  std::vector<float> out(15);
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), c, 15 * 4));
  ASSERT_OK(tandem_stream_synchronize(stream));
  expectNear(out, g.reference(Format::BF16), "emulated bf16");
}

TEST(Precision, DescriptorsTakeOnePrecision) {
  SmallGemm g(TANDEM_GEMM_ALLOW_TF32 | TANDEM_GEMM_ALLOW_BF16);
  char message[128];
  EXPECT_FALSE(tandem::gemm::check(g.d, message, sizeof(message)));
  EXPECT_NE(std::strstr(message, "more than one"), nullptr) << message;
  g.d.flags = 64;
  EXPECT_FALSE(tandem::gemm::check(g.d, message, sizeof(message)));
  EXPECT_NE(std::strstr(message, "unknown flags"), nullptr) << message;
  // 16-bit operands name their format with BF16 or FP16.
  for (int64_t flags :
       {int64_t(TANDEM_GEMM_16BIT_AB),
        int64_t(TANDEM_GEMM_16BIT_AB | TANDEM_GEMM_ALLOW_TF32)}) {
    g.d.flags = flags;
    EXPECT_FALSE(tandem::gemm::check(g.d, message, sizeof(message)));
    EXPECT_NE(std::strstr(message, "16-bit operands"), nullptr) << message;
  }
  g.d.flags = TANDEM_GEMM_16BIT_AB | TANDEM_GEMM_ALLOW_FP16;
  EXPECT_TRUE(tandem::gemm::check(g.d, message, sizeof(message))) << message;
  // A and B then span 2 bytes an element, C 4.
  EXPECT_EQ(tandem::gemm::extentBytes(g.d, tandem::gemm::kA), 3u * 7u * 2u);
  EXPECT_EQ(tandem::gemm::extentBytes(g.d, tandem::gemm::kB), 7u * 5u * 2u);
  EXPECT_EQ(tandem::gemm::extentBytes(g.d, tandem::gemm::kC), 3u * 5u * 4u);
}

/// The 16-bit element of `format` holding `x` rounded to it (what tandemc
/// stores for a weight), from the top half of the rounded f32 (BF16) or the
/// compiler's _Float16 (FP16).
uint16_t encode16(float x, Format format) {
  if (format == Format::FP16) {
    _Float16 h = static_cast<_Float16>(x);
    uint16_t bits;
    std::memcpy(&bits, &h, sizeof(bits));
    return bits;
  }
  float r = roundTo(x, Format::BF16);
  uint32_t word;
  std::memcpy(&word, &r, sizeof(word));
  return static_cast<uint16_t>(word >> 16);
}

TEST(Precision, WidensEvery16BitValue) {
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) {
    auto h = static_cast<uint16_t>(bits);
    _Float16 half;
    std::memcpy(&half, &h, sizeof(half));
    float expected = static_cast<float>(half);
    float got = tandem::precision::widen(h, Format::FP16);
    if (std::isnan(expected))
      ASSERT_TRUE(std::isnan(got)) << bits;
    else
      ASSERT_EQ(got, expected) << bits;
    uint32_t word = bits << 16;
    float bf;
    std::memcpy(&bf, &word, sizeof(bf));
    float gotBF = tandem::precision::widen(h, Format::BF16);
    ASSERT_EQ(std::memcmp(&gotBF, &bf, sizeof(bf)), 0) << bits;
  }
}

/// A and B stored as 16-bit elements (TANDEM_GEMM_16BIT_AB) give exactly
/// the result of the f32 operands rounded in the call: on the host and on
/// the emulated device, whose operand extents are 2 bytes an element.
TEST_F(EmulatedGemm, Reads16BitOperands) {
  const struct {
    int64_t flag;
    Format format;
  } kModes[] = {{TANDEM_GEMM_ALLOW_BF16, Format::BF16},
                {TANDEM_GEMM_ALLOW_FP16, Format::FP16}};
  for (const auto &mode : kModes) {
    SmallGemm rounded(mode.flag);
    std::vector<float> expected(15);
    tandem::gemm::runOnHost(nullptr, rounded.d, rounded.a.data(),
                            rounded.b.data(), expected.data(), nullptr);
    SmallGemm narrow(mode.flag | TANDEM_GEMM_16BIT_AB);
    std::vector<uint16_t> a16, b16;
    for (float x : narrow.a)
      a16.push_back(encode16(x, mode.format));
    for (float x : narrow.b)
      b16.push_back(encode16(x, mode.format));
    std::vector<float> host(15);
    tandem::gemm::runOnHost(nullptr, narrow.d, a16.data(), b16.data(),
                            host.data(), nullptr);
    EXPECT_EQ(host, expected) << "flag " << mode.flag;

    tandem_device_ptr_t a = 0, b = 0, c = 0;
    ASSERT_OK(tandem_device_alloc(device, a16.size() * 2, &a));
    ASSERT_OK(tandem_device_alloc(device, b16.size() * 2, &b));
    ASSERT_OK(tandem_device_alloc(device, 15 * 4, &c));
    ASSERT_OK(tandem_memcpy_h2d_async(stream, a, a16.data(), a16.size() * 2));
    ASSERT_OK(tandem_memcpy_h2d_async(stream, b, b16.data(), b16.size() * 2));
    ASSERT_OK(tandem_device_gemm(stream, &narrow.d, a, b, c, 0, "gemm16"));
    std::vector<float> out(15);
    ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), c, 15 * 4));
    ASSERT_OK(tandem_stream_synchronize(stream));
    EXPECT_EQ(out, expected) << "emulated, flag " << mode.flag;
    ASSERT_OK(tandem_device_free(device, a));
    ASSERT_OK(tandem_device_free(device, b));
    ASSERT_OK(tandem_device_free(device, c));
  }
}

} // namespace
