//===- PackBTest.cpp - the GEMM's packed right-hand side layout ----------===//
//
// tandem_internal_pack_b_rows and _columns write B (k rows of n columns) as
// the GEMM reads it (tandem_conv2d_packed_f32's input, the depthwise
// kernels' packed outputs): N blocks of 4096 columns, each in K blocks of
// equal height (at most the family's KC rows: 512 on AVX2 with a 512 KiB
// L2, 256 elsewhere), each in panels of NR columns (the micro-kernel
// family's width), a panel holding its K block's rows NR floats apart, the
// last panel's missing columns zero. The oracle below places every element
// from that description alone.
//
//===----------------------------------------------------------------------===//

#include "kernels/sgemm_internal.h"
#include "tandem/abi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

/// B[row][col] = row * 10000 + col + 1 (never 0, exact in f32 here).
float value(int64_t row, int64_t col) { return float(row * 10000 + col + 1); }

/// B packed by the layout's description; NaN where nothing belongs.
std::vector<float> oracle(int64_t k, int64_t n, int64_t nr, int64_t maxKC,
                          size_t size) {
  constexpr int64_t kNC = 4096;
  int64_t kBlocks = (k + maxKC - 1) / maxKC, kc = (k + kBlocks - 1) / kBlocks;
  std::vector<float> out(size, NAN);
  for (int64_t jc = 0; jc < n; jc += kNC) {
    int64_t nc = std::min(kNC, n - jc), nPanels = (nc + nr - 1) / nr;
    for (int64_t row = 0; row < k; ++row) {
      int64_t pc = row / kc * kc, kcur = std::min(kc, k - pc);
      for (int64_t c = 0; c < nPanels * nr; ++c) {
        size_t at = size_t(jc * k + nPanels * nr * pc + c / nr * nr * kcur +
                           (row - pc) * nr + c % nr);
        EXPECT_LT(at, size);
        if (at < size)
          out[at] = c < nc ? value(row, jc + c) : 0.0f;
      }
    }
  }
  return out;
}

void expectSame(const std::vector<float> &got, const std::vector<float> &want,
                const char *what, int64_t k, int64_t n) {
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0)
        << what << ": k" << k << " n" << n << " at " << i << ": " << got[i]
        << " != " << want[i];
}

struct Shape {
  int64_t k, n;
};

// A padded last panel; one whole panel; one or two K blocks (150 rows
// each); two or three (300 or 200 each); three or five (367 or 220 each);
// two N blocks, the second of 8 columns; one column; three N blocks, the
// last of 70 columns.
const Shape kShapes[] = {
    {5, 24},    {3, 16},   {300, 40}, {600, 33},
    {1100, 20}, {3, 4104}, {7, 1},    {17, 4096 + 4096 + 70}};

TEST(PackBTest, RowsMatchTheLayout) {
  int64_t mr = 0, nr = 0, kc = 0;
  ASSERT_TRUE(tandem_internal_sgemm_tile(nullptr, &mr, &nr, &kc));
  for (const Shape &s : kShapes) {
    std::vector<float> b(size_t(s.k * s.n));
    for (int64_t r = 0; r < s.k; ++r)
      for (int64_t c = 0; c < s.n; ++c)
        b[size_t(r * s.n + c)] = value(r, c);
    size_t size = size_t(TANDEM_PACKED_PANEL_FLOATS(s.k, s.n));
    std::vector<float> want = oracle(s.k, s.n, nr, kc, size);
    std::vector<float> got(size, NAN);
    tandem_internal_pack_b_rows(b.data(), s.n, 0, s.k, s.k, s.n, got.data());
    expectSame(got, want, "all rows", s.k, s.n);
    // Rows in pieces (threads pack disjoint row ranges).
    std::vector<float> pieces(size, NAN);
    for (int64_t r0 = 0; r0 < s.k; r0 += 7) {
      int64_t rows = std::min<int64_t>(7, s.k - r0);
      tandem_internal_pack_b_rows(b.data() + r0 * s.n, s.n, r0, rows, s.k, s.n,
                                  pieces.data());
    }
    expectSame(pieces, want, "rows in pieces", s.k, s.n);
  }
}

TEST(PackBTest, ColumnRangesMatchTheLayout) {
  // Columns cut at random points (inside panels, at N block edges, ranges
  // of one column), each range packed from a buffer holding only its
  // columns, and row ranges with them: together, exactly the layout.
  int64_t mr = 0, nr = 0, kc = 0;
  ASSERT_TRUE(tandem_internal_sgemm_tile(nullptr, &mr, &nr, &kc));
  std::mt19937 rng(5);
  for (const Shape &s : kShapes)
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<int64_t> cuts = {0, s.n};
      std::uniform_int_distribution<int64_t> at(1,
                                                std::max<int64_t>(1, s.n - 1));
      for (int i = 0; i < 5 && s.n > 1; ++i)
        cuts.push_back(at(rng));
      if (s.n > 4096)
        cuts.push_back(4096);
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      size_t size = size_t(TANDEM_PACKED_PANEL_FLOATS(s.k, s.n));
      std::vector<float> want = oracle(s.k, s.n, nr, kc, size);
      std::vector<float> got(size, NAN);
      int64_t rowStep = 1 + trial * 5;
      for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        int64_t col0 = cuts[i], cols = cuts[i + 1] - cuts[i];
        for (int64_t r0 = 0; r0 < s.k; r0 += rowStep) {
          int64_t rows = std::min(rowStep, s.k - r0);
          std::vector<float> src(size_t(rows * cols));
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c)
              src[size_t(r * cols + c)] = value(r0 + r, col0 + c);
          tandem_internal_pack_b_columns(src.data(), cols, r0, rows, s.k, s.n,
                                         col0, cols, got.data());
        }
      }
      expectSame(got, want, "column ranges", s.k, s.n);
    }
}

} // namespace
