//===- ShapeInferenceTest.cpp - shape arithmetic and .mlir text checks ----===//

#include "dialects/Tandem/IR/ShapeInference.h"
#include "dialects/Tandem/IR/MlirSourceCheck.h"

#include <limits>

#include "gtest/gtest.h"

using namespace mlir::tandem;
using shape::Shape;

namespace {

TEST(Broadcast, FollowsNumpyRules) {
  EXPECT_EQ(*shape::broadcast({2, 3}, {3}), (Shape{2, 3}));
  EXPECT_EQ(*shape::broadcast({2, 1}, {1, 4}), (Shape{2, 4}));
  EXPECT_EQ(*shape::broadcast({}, {5, 1}), (Shape{5, 1}));
  EXPECT_EQ(*shape::broadcast({8, 1, 6, 1}, {7, 1, 5}), (Shape{8, 7, 6, 5}));
  EXPECT_FALSE(shape::broadcast({2, 3}, {4}));
  EXPECT_FALSE(shape::broadcast({2, 3}, {3, 3}));
}

TEST(Broadcast, UnidirectionalBroadcastTo) {
  EXPECT_TRUE(shape::broadcastsTo({3}, {4, 3}));
  EXPECT_TRUE(shape::broadcastsTo({1, 3}, {4, 3}));
  EXPECT_TRUE(shape::broadcastsTo({}, {4, 3}));
  EXPECT_FALSE(shape::broadcastsTo({4, 3}, {3}));
  EXPECT_FALSE(shape::broadcastsTo({2}, {4, 3}));
  // Broadcasting is one-way: a target dim of 1 cannot absorb 4.
  EXPECT_FALSE(shape::broadcastsTo({4}, {1}));
}

TEST(Permutation, ValidatesAndApplies) {
  EXPECT_TRUE(shape::isPermutation({2, 0, 1}));
  EXPECT_FALSE(shape::isPermutation({0, 0}));
  EXPECT_FALSE(shape::isPermutation({0, 2}));
  EXPECT_FALSE(shape::isPermutation({-1, 0}));
  EXPECT_TRUE(shape::isIdentityPermutation({0, 1, 2}));
  EXPECT_FALSE(shape::isIdentityPermutation({1, 0}));
  EXPECT_EQ(shape::permute({2, 3, 4}, {2, 0, 1}), (Shape{4, 2, 3}));
  // NCHW -> NHWC and back.
  EXPECT_EQ(shape::invertPermutation({0, 2, 3, 1}), (Shape{0, 3, 1, 2}));
  EXPECT_EQ(shape::invertPermutation({2, 0, 1}), (Shape{1, 2, 0}));
  EXPECT_EQ(shape::permute(shape::permute({2, 3, 4}, {2, 0, 1}),
                           shape::invertPermutation({2, 0, 1})),
            (Shape{2, 3, 4}));
}

TEST(Permutation, TransposesThatMoveOnlyUnitDimsKeepTheElementOrder) {
  // A squeeze-and-excitation scale [N, C, 1, 1] to NHWC: a reshape.
  EXPECT_TRUE(shape::movesOnlyUnitDims({8, 32, 1, 1}, {0, 2, 3, 1}));
  EXPECT_TRUE(shape::movesOnlyUnitDims({1, 5}, {1, 0}));
  // C and H both above 1 swap places.
  EXPECT_FALSE(shape::movesOnlyUnitDims({1, 32, 7, 7}, {0, 2, 3, 1}));
  EXPECT_FALSE(shape::movesOnlyUnitDims({2, 3}, {1, 0}));
  EXPECT_TRUE(shape::movesOnlyUnitDims({2, 3}, {0, 1}));
}

TEST(Window, ConvolutionOutputSizes) {
  // ResNet stem: 224, k7, s2, p3 -> 112.
  EXPECT_EQ(shape::windowOutputSize(224, 7, 2, 3, 3, 1), 112);
  // 3x3 same conv.
  EXPECT_EQ(shape::windowOutputSize(56, 3, 1, 1, 1, 1), 56);
  // Dilation 2 widens a 3-tap kernel to 5.
  EXPECT_EQ(shape::windowOutputSize(10, 3, 1, 0, 0, 2), 6);
  // Kernel larger than the padded input.
  EXPECT_LE(shape::windowOutputSize(2, 5, 1, 1, 1, 1), 0);
}

TEST(Window, CeilModeDropsWindowsStartingInPadding) {
  // ResNet's max pool (112, k3 s2 p1) gives 56, or 57 with ceil_mode
  // (PyTorch: ceil((112 + 2 - 3) / 2) + 1).
  EXPECT_EQ(shape::windowOutputSize(112, 3, 2, 1, 1, 1, false), 56);
  EXPECT_EQ(shape::windowOutputSize(112, 3, 2, 1, 1, 1, true), 57);
  // SqueezeNet-style ceil mode: 111, k3, s2 -> 55 floor, 55 ceil.
  EXPECT_EQ(shape::windowOutputSize(111, 3, 2, 0, 0, 1, false), 55);
  EXPECT_EQ(shape::windowOutputSize(54, 3, 2, 0, 0, 1, false), 26);
  EXPECT_EQ(shape::windowOutputSize(54, 3, 2, 0, 0, 1, true), 27);
  // PyTorch: in 5, k2, s2, pad 1 ceil -> 3 windows, the 4th would start in
  // the end padding.
  EXPECT_EQ(shape::windowOutputSize(5, 2, 2, 1, 1, 1, true), 3);
}

TEST(Reduce, KeepsOrDropsAxes) {
  EXPECT_EQ(shape::reduce({2, 3, 4}, {1}, true), (Shape{2, 1, 4}));
  EXPECT_EQ(shape::reduce({2, 3, 4}, {0, 2}, false), (Shape{3}));
  EXPECT_EQ(shape::reduce({2, 3}, {0, 1}, false), (Shape{}));
  EXPECT_TRUE(shape::areSortedUniqueAxes({0, 2}, 3));
  EXPECT_FALSE(shape::areSortedUniqueAxes({2, 0}, 3));
  EXPECT_FALSE(shape::areSortedUniqueAxes({1, 1}, 3));
  EXPECT_FALSE(shape::areSortedUniqueAxes({3}, 3));
  EXPECT_FALSE(shape::areSortedUniqueAxes({-1}, 3));
}

TEST(Elements, CountsElements) {
  EXPECT_EQ(shape::numElements({}), 1);
  EXPECT_EQ(shape::numElements({2, 3, 4}), 24);
  EXPECT_EQ(shape::numElements({2, 0}), 0);
}

} // namespace

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(NumElements, OverflowAndDynamicGiveMinusOne) {
  EXPECT_EQ(shape::numElements({}), 1);
  EXPECT_EQ(shape::numElements({2, 3, 4}), 24);
  EXPECT_EQ(shape::numElements({kMax, 2}), -1);
  EXPECT_EQ(shape::numElements({3037000500, 3037000500}), -1);
  EXPECT_EQ(shape::numElements({kMax, 0}), 0);
  EXPECT_EQ(shape::numElements({2, -1}), -1);
}

TEST(SizeInBytes, FitsInt64) {
  EXPECT_TRUE(shape::sizeInBytesFits({2, 3}, 4));
  EXPECT_TRUE(shape::sizeInBytesFits({kMax}, 1));
  EXPECT_FALSE(shape::sizeInBytesFits({kMax}, 2));
  EXPECT_FALSE(shape::sizeInBytesFits({kMax / 4 + 1}, 4));
  EXPECT_TRUE(shape::sizeInBytesFits({kMax / 4}, 4));
}

TEST(WindowOutputSize, OverflowDoesNotWrap) {
  EXPECT_LE(shape::windowOutputSize(8, 3, 1, kMax, kMax, 1), 0);
  EXPECT_LE(shape::windowOutputSize(8, kMax, 1, 0, 0, kMax), 0);
  EXPECT_LE(shape::windowOutputSize(kMax, 1, 1, 1, 0, 1), 0);
}

TEST(MlirSourceCheck, FindsIndexArraysOnly) {
  auto spot = findParserCrash("%0 = tandem.reshape %x {shape = array<index>}");
  ASSERT_TRUE(spot);
  EXPECT_EQ(spot->offset, 32u);
  EXPECT_EQ(spot->message,
            "dense arrays of 'index' are not supported: use an integer "
            "element type, e.g. array<i64: ...>");
  EXPECT_TRUE(findParserCrash("{a = array < index : 1, 2>}"));
  EXPECT_TRUE(findParserCrash("{a = array<index:1>}"));
  EXPECT_FALSE(findParserCrash("{a = array<i64: 1, 2>, b = array<i8>}"));
  EXPECT_FALSE(findParserCrash("{a = array<indexed>}"));
  EXPECT_FALSE(findParserCrash("// array<index> in a comment\n"));
  EXPECT_FALSE(findParserCrash("{s = \"array<index> \\\" array<index>\"}"));
  EXPECT_FALSE(findParserCrash("{a = myarray<index>}"));
  EXPECT_FALSE(findParserCrash("array"));
  EXPECT_FALSE(findParserCrash("array <"));
}

} // namespace
