//===- SixteenBitTest.cpp - compile-time conversion of weights to 16 bits -===//
//
// tandem-narrow-gemm-operands stores a bf16 or fp16 GEMM's weight in that
// format at compile time (ConstantData.h). The bits must be what the
// tensor cores and the runtime's rounding give (round to nearest even,
// FP16's subnormals and overflow, NaN kept): checked on known ties, and
// over every exponent against the compiler's _Float16 conversion and
// BF16 rounding done in arithmetic.
//
//===----------------------------------------------------------------------===//

#include "passes/Optimize/ConstantData.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "gtest/gtest.h"

using namespace mlir::tandem;

namespace {

float fromBits(uint32_t bits) { return llvm::bit_cast<float>(bits); }

TEST(SixteenBit, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(toBFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(toBFloat16Bits(1.0f + 0x1p-8f), 0x3f80);     // tie, to even
  EXPECT_EQ(toBFloat16Bits(1.0f + 3 * 0x1p-8f), 0x3f82); // tie, up to even
  EXPECT_EQ(toBFloat16Bits(-2.0f), 0xc000);
  EXPECT_EQ(toBFloat16Bits(INFINITY), 0x7f80);
  EXPECT_EQ(toBFloat16Bits(3.4e38f), 0x7f80); // rounds past the largest
  // A NaN whose payload lies in the low half stays NaN.
  uint16_t nan = toBFloat16Bits(fromBits(0x7f800001u));
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x7f, 0);
  // Against rounding done in arithmetic: x in units of its BF16 ulp,
  // rounded to nearest even by nearbyint (the scalings are exact).
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    float x = fromBits(bits(rng));
    if (!std::isfinite(x) || x == 0)
      continue;
    int exponent = std::max(std::ilogb(x), -126);
    double ulp = std::ldexp(1.0, exponent - 7);
    auto want = llvm::bit_cast<uint32_t>(
        static_cast<float>(std::nearbyint(x / ulp) * ulp));
    ASSERT_EQ(want & 0xffffu, 0u) << x;
    ASSERT_EQ(toBFloat16Bits(x), want >> 16) << x;
  }
}

TEST(SixteenBit, Float16HasItsRangeAndSubnormals) {
  EXPECT_EQ(toFloat16Bits(1.0f), 0x3c00);
  EXPECT_EQ(toFloat16Bits(65504.0f), 0x7bff);
  EXPECT_EQ(toFloat16Bits(65519.0f), 0x7bff);
  EXPECT_EQ(toFloat16Bits(65520.0f), 0x7c00);
  EXPECT_EQ(toFloat16Bits(-1e6f), 0xfc00);
  EXPECT_EQ(toFloat16Bits(0x1p-24f), 0x0001);
  EXPECT_EQ(toFloat16Bits(0x1p-25f), 0x0000);        // tie, to even
  EXPECT_EQ(toFloat16Bits(1.5f * 0x1p-24f), 0x0002); // tie, to even
  EXPECT_EQ(toFloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(toFloat16Bits(0x1p-14f), 0x0400);
  EXPECT_EQ(toFloat16Bits(0x1p-14f - 0x1p-26f), 0x0400); // rounds to normal
  uint16_t nan = toFloat16Bits(NAN);
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x3ff, 0);
  std::mt19937 rng(13);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = bits(rng);
    // Exponents from 2^-30 to 2^17, both signs.
    u = (u & 0x807fffffu) | ((97u + (u >> 23) % 48u) << 23);
    float x = fromBits(u);
    ASSERT_EQ(toFloat16Bits(x), llvm::bit_cast<uint16_t>(static_cast<_Float16>(x)))
        << x;
  }
}

} // namespace
