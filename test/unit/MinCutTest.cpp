//===- MinCutTest.cpp - s-t minimum cut -----------------------------------===//

#include "passes/Placement/MinCut.h"

#include <gtest/gtest.h>

using namespace mlir::tandem;

TEST(MinCut, ClassicNetwork) {
  // CLRS figure 26.1: max flow 23.
  MinCut cut(6);
  cut.addEdge(0, 1, 16);
  cut.addEdge(0, 2, 13);
  cut.addEdge(1, 3, 12);
  cut.addEdge(2, 1, 4);
  cut.addEdge(2, 4, 14);
  cut.addEdge(3, 2, 9);
  cut.addEdge(3, 5, 20);
  cut.addEdge(4, 3, 7);
  cut.addEdge(4, 5, 4);
  EXPECT_DOUBLE_EQ(cut.solve(0, 5), 23);
  EXPECT_TRUE(cut.onSourceSide(0));
  EXPECT_FALSE(cut.onSourceSide(5));
}

TEST(MinCut, TwoProcessorAssignment) {
  // Two ops: a is cheap on the host (1 vs 5), b cheap on the device
  // (10 vs 1); a feeds b with a copy of 3. Best: a on host, b on device,
  // total 1 + 1 + 3 = 5.
  const size_t s = 0, t = 1, a = 2, b = 3;
  MinCut cut(4);
  cut.addEdge(s, a, 5);  // a on device
  cut.addEdge(a, t, 1);  // a on host
  cut.addEdge(s, b, 1);  // b on device
  cut.addEdge(b, t, 10); // b on host
  cut.addEdge(a, b, 3);  // copy when a host, b device
  EXPECT_DOUBLE_EQ(cut.solve(s, t), 5);
  EXPECT_TRUE(cut.onSourceSide(a));
  EXPECT_FALSE(cut.onSourceSide(b));
}

TEST(MinCut, InfiniteEdgesAreNeverCut) {
  MinCut cut(3);
  cut.addEdge(0, 2, MinCut::kInfinity);
  cut.addEdge(2, 1, 7);
  EXPECT_DOUBLE_EQ(cut.solve(0, 1), 7);
  EXPECT_TRUE(cut.onSourceSide(2));
}
