//===- ReshapeMapsTest.cpp - reshape index maps and their simplification --===//

#include "codegen/GPU/ReshapeMaps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

class ReshapeMaps : public ::testing::Test {
protected:
  AffineExpr d(unsigned i) { return getAffineDimExpr(i, &context); }
  AffineMap map(unsigned dims, ArrayRef<AffineExpr> results) {
    return AffineMap::get(dims, 0, results, &context);
  }

  /// Whether `a` and `b` agree at every point of the box `bounds`.
  static bool sameInBounds(AffineMap a, AffineMap b, ArrayRef<int64_t> bounds) {
    SmallVector<int64_t> point(bounds.size(), 0);
    while (true) {
      if (a.compose(point) != b.compose(point))
        return false;
      unsigned i = 0;
      while (i < point.size() && ++point[i] == bounds[i])
        point[i++] = 0;
      if (i == point.size())
        return true;
    }
  }

  MLIRContext context;
};

TEST_F(ReshapeMaps, SplitOfALinearisationIsItsIndices) {
  AffineMap split =
      map(2, {(d(0) * 7 + d(1)).floorDiv(7), (d(0) * 7 + d(1)) % 7});
  EXPECT_EQ(simplifyWithBounds(split, {4, 7}), map(2, {d(0), d(1)}));
  // The second index may reach 7: nothing is decided.
  EXPECT_EQ(simplifyWithBounds(split, {4, 8}), split);
}

TEST_F(ReshapeMaps, NestedGroupsAndOffsets) {
  AffineExpr linear = (d(0) * 2 + d(1)) * 3 + d(2);
  EXPECT_EQ(
      simplifyWithBounds(map(3, {linear.floorDiv(3), linear % 3}), {5, 2, 3}),
      map(3, {d(0) * 2 + d(1), d(2)}));
  AffineExpr offset = d(0) * 4 + 5;
  EXPECT_EQ(simplifyWithBounds(map(1, {offset.floorDiv(4), offset % 4}), {3}),
            map(1, {d(0) + 1, getAffineConstantExpr(1, &context)}));
}

TEST_F(ReshapeMaps, DelinearizeAfterLinearizeCancels) {
  // (a, b, c) of sizes 3 x 4 x 5 linearised over groups [0, 1], [2], then
  // split back over the same groups.
  SmallVector<ReassociationIndices> groups = {{0, 1}, {2}};
  AffineMap linear = linearizeMap(groups, {3, 4, 5}, &context);
  AffineMap back = delinearizeMap(groups, {3, 4, 5}, &context);
  EXPECT_EQ(simplifyWithBounds(back.compose(linear), {3, 4, 5}),
            AffineMap::getMultiDimIdentityMap(3, &context));
}

TEST_F(ReshapeMaps, RankZeroReshapes) {
  // tensor<1x1xf32> collapsed to tensor<f32> groups no dimension: both
  // indices are 0, and the linearisation has no result.
  AffineMap split = delinearizeMap({}, {1, 1}, &context);
  EXPECT_EQ(split.getNumDims(), 0u);
  EXPECT_EQ(split, AffineMap::get(0, 0,
                                  {getAffineConstantExpr(0, &context),
                                   getAffineConstantExpr(0, &context)},
                                  &context));
  EXPECT_EQ(linearizeMap({}, {1, 1}, &context).getNumResults(), 0u);
  // Composed with a reader's map of rank 0 (a scalar read in 2 loops).
  AffineMap scalar = AffineMap::get(2, 0, {}, &context);
  EXPECT_EQ(split.compose(scalar).getNumResults(), 2u);
}

TEST_F(ReshapeMaps, WindowsToGridKeepsEveryElement) {
  // MaxViT's hop (6 x 6 pixels, 3 x 3 windows, a 3 x 3 grid of 2 x 2
  // cells): grid (a, b, k, l) is pixel (2a + k, 2b + l), in window
  // ((2a + k) / 3, (2b + l) / 3) at ((2a + k) % 3, (2b + l) % 3). The
  // simplified map gives the same indices everywhere; nothing there is
  // decidable, so it keeps its floordivs.
  AffineExpr row = d(0) * 2 + d(2), col = d(1) * 2 + d(3);
  AffineMap hop = map(4, {row.floorDiv(3), col.floorDiv(3), row % 3, col % 3});
  AffineMap simplified = simplifyWithBounds(hop, {3, 3, 2, 2});
  EXPECT_TRUE(sameInBounds(hop, simplified, {3, 3, 2, 2}));
  // Through the reshapes: pixel rows 6 = 3 x 2 linearised, then split 2 x 3.
  SmallVector<ReassociationIndices> groups = {{0, 1}};
  AffineMap composed = delinearizeMap(groups, {2, 3}, &context)
                           .compose(linearizeMap(groups, {3, 2}, &context));
  AffineMap direct =
      map(2, {(d(0) * 2 + d(1)).floorDiv(3), (d(0) * 2 + d(1)) % 3});
  EXPECT_TRUE(
      sameInBounds(simplifyWithBounds(composed, {3, 2}), direct, {3, 2}));
}

TEST_F(ReshapeMaps, SimplifiedMapsAgreeEverywhere) {
  // Compositions of splits and linearisations over mixed sizes.
  for (auto [outer, inner] :
       {std::pair<int64_t, int64_t>{2, 3}, {3, 2}, {4, 4}, {5, 3}}) {
    SmallVector<ReassociationIndices> one = {{0, 1}};
    AffineMap there = linearizeMap(one, {outer, inner}, &context);
    AffineMap back = delinearizeMap(one, {inner, outer}, &context);
    AffineMap composed = back.compose(there);
    EXPECT_TRUE(sameInBounds(
        composed, simplifyWithBounds(composed, {outer, inner}), {outer, inner}))
        << outer << " x " << inner;
  }
}

} // namespace
