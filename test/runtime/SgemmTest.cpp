//===- SgemmTest.cpp - tandem_sgemm_f32 against a reference ---------------===//
//
// Every micro-kernel family this CPU has (AVX-512, AVX2, portable) on odd
// sizes that do not divide the tiles, K spanning several K blocks,
// transposed, strided and broadcast operands, batches, accumulation, the
// column bias of tandem_sgemm_bias_f32 and a thread pool.
//
//===----------------------------------------------------------------------===//

#include "TestPool.h"
#include "kernels/kernel_cache.h"
#include "kernels/sgemm_internal.h"
#include "tandem/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

struct Problem {
  int64_t batch, m, n, k;
  bool transA, transB, broadcastA, accumulate;
  int epilogue = 0; // 1: ReLU, 2: ReLU6
};

std::string describe(const Problem &p) {
  return std::to_string(p.batch) + "x" + std::to_string(p.m) + "x" +
         std::to_string(p.n) + "x" + std::to_string(p.k) +
         (p.transA ? " A^T" : "") + (p.transB ? " B^T" : "") +
         (p.broadcastA ? " A-broadcast" : "") + (p.accumulate ? " +=" : "") +
         (p.epilogue == 1   ? " relu"
          : p.epilogue == 2 ? " relu6"
                            : "");
}

/// Runs `p` on `isa` (skipped if the CPU lacks it) and compares with a
/// double-precision reference.
void check(const char *isa, const Problem &p, tandem_thread_pool_t *pool) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int64_t aBatches = p.broadcastA ? 1 : p.batch;
  std::vector<float> a(aBatches * p.m * p.k), b(p.batch * p.k * p.n),
      c(p.batch * p.m * p.n);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  for (float &x : c)
    x = dist(rng);
  std::vector<float> c0 = c;
  // Element strides of A (m x k) and B (k x n), row-major or transposed.
  int64_t sAm = p.transA ? 1 : p.k, sAk = p.transA ? p.m : 1;
  int64_t sBk = p.transB ? 1 : p.n, sBn = p.transB ? p.k : 1;
  int64_t sAb = p.broadcastA ? 0 : p.m * p.k;
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  bool ran = tandem_internal_sgemm_f32_on(
      isa, &ctx, p.batch, p.m, p.n, p.k, a.data(), sAb, sAm, sAk, b.data(),
      p.k * p.n, sBk, sBn, c.data(), p.m * p.n, p.n, 1,
      (p.accumulate ? TANDEM_SGEMM_ACCUMULATE : 0) |
          (p.epilogue == 1 ? TANDEM_SGEMM_RELU : 0) |
          (p.epilogue == 2 ? TANDEM_SGEMM_RELU6 : 0));
  if (!ran)
    GTEST_SKIP() << "this CPU has no " << isa << " micro-kernel";
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double ref = p.accumulate ? c0[(bi * p.m + i) * p.n + j] : 0.0;
        for (int64_t q = 0; q < p.k; ++q)
          ref += double(a[bi * sAb + i * sAm + q * sAk]) *
                 double(b[bi * p.k * p.n + q * sBk + j * sBn]);
        if (p.epilogue && ref < 0)
          ref = 0;
        if (p.epilogue == 2 && ref > 6)
          ref = 6;
        float got = c[(bi * p.m + i) * p.n + j];
        ASSERT_NEAR(got, ref, 1e-4 * (1.0 + std::sqrt(double(p.k))))
            << isa << " " << describe(p) << " at [" << bi << "," << i << ","
            << j << "]";
      }
}

const Problem kProblems[] = {
    {1, 1, 1, 1, false, false, false, false},
    {1, 13, 31, 7, false, false, false, false},    // smaller than one tile
    {1, 97, 131, 600, false, false, false, false}, // ragged, 2-3 K blocks
    {1, 64, 64, 64, true, false, false, false},
    {1, 33, 65, 17, false, true, false, true},
    {1, 29, 47, 600, true, true, false, true},  // 2-3 K blocks, both ^T
    {3, 20, 70, 19, false, false, true, false}, // shared weights (conv)
    {2, 15, 33, 40, false, false, false, true},
    {1, 200, 4200, 9, false, false, false, false},  // N over one N block
    {1, 5, 3, 0, false, false, false, false},       // K = 0 zeroes C
    {1, 41, 77, 530, false, false, false, true, 1}, // fused ReLU, 2-3 K blocks
    {2, 9, 20, 8, true, false, true, false, 1},
    {1, 6, 7, 0, false, false, false, true, 1}, // K = 0: relu(C)
    // Fused ReLU6 (sums reach beyond 6), full and edge tiles, K = 0.
    {1, 41, 77, 900, false, false, false, true, 2},
    {2, 9, 20, 300, true, false, true, false, 2},
    {1, 6, 7, 0, false, false, false, true, 2},
    // 7x7 images: edge tiles of 17 and 18 columns (AVX-512: 16 + extra).
    {1, 30, 49, 70, false, false, false, true, 1},
    {2, 17, 50, 300, true, false, false, false},
    // 3, 2 and 1 rows past the full A panels across many full B panels
    // (AVX2's wide edge tiles, several panels a call, and the edge tiles
    // after them), accumulating with ReLU6 over two K blocks, ReLU.
    {1, 45, 200, 600, false, false, false, true, 2},
    {1, 128, 100, 40, false, false, false, false, 1},
    {1, 19, 130, 70, true, false, false, true},
};

class SgemmTest : public ::testing::TestWithParam<const char *> {};

TEST_P(SgemmTest, MatchesReference) {
  for (const Problem &p : kProblems)
    check(GetParam(), p, nullptr);
}

TEST_P(SgemmTest, MatchesReferenceOnThreadPool) {
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(3, &pool), nullptr);
  for (const Problem &p : kProblems)
    check(GetParam(), p, pool);
  tandem_thread_pool_destroy(pool);
}

TEST_P(SgemmTest, CachedWeightsOnThreadPoolMatchSerial) {
  // Few tasks on 2 threads: cached weights as A with a narrow N (a 1x1
  // conv on a 7x7 image: M blocks are split), as B with a short M (a
  // transformer's activations: N tasks are split), and both streamed
  // through the prefetching micro-kernels. Each element sums in the same
  // order however the work is split, so results equal the serial call's.
  struct Shape {
    int64_t m, n, k;
    int32_t flags;
  };
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (Shape t : {Shape{512, 49, 600, TANDEM_SGEMM_CONSTANT_A},
                  Shape{128, 768, 300, TANDEM_SGEMM_CONSTANT_B},
                  Shape{30, 70, 40, TANDEM_SGEMM_CONSTANT_A},
                  Shape{200, 33, 520, TANDEM_SGEMM_CONSTANT_B}}) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(t.m * t.k), b(t.k * t.n), c(t.m * t.n), ref(t.m * t.n);
    for (float &x : a)
      x = dist(rng);
    for (float &x : b)
      x = dist(rng);
    if (!tandem_internal_sgemm_f32_on(GetParam(), nullptr, 1, t.m, t.n, t.k,
                                      a.data(), 0, t.k, 1, b.data(), 0, t.n, 1,
                                      ref.data(), 0, t.n, 1, 0))
      GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
    tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
    tandem_exec_ctx_t ctx = {};
    ctx.pool = pool;
    ctx.reserved[0] = cache;
    for (int call = 0; call < 2; ++call) {
      std::fill(c.begin(), c.end(), 0.0f);
      tandem_internal_sgemm_f32_on(GetParam(), &ctx, 1, t.m, t.n, t.k, a.data(),
                                   0, t.k, 1, b.data(), 0, t.n, 1, c.data(), 0,
                                   t.n, 1, t.flags);
      EXPECT_EQ(c, ref) << t.m << "x" << t.n << "x" << t.k << " call " << call;
    }
    tandem_internal_kernel_cache_destroy(cache);
  }
  tandem_thread_pool_destroy(pool);
}

TEST_P(SgemmTest, BatchesOnThreadPoolMatchSerial) {
  // A batch that divides among the threads (12 attention heads of 128 x
  // 128 x 64 on 2 and 3 threads), or has at least four problems a thread
  // (9 on 2), runs whole problems on each thread; one that does neither
  // (5 on 2) splits each problem. Shared (broadcast) and per-problem
  // weights, cached and not, a column-major C (the transposed product per
  // problem), with an epilogue: all equal the serial call bit for bit.
  struct Shape {
    int64_t batch, m, n, k;
    bool sharedB, columnMajorC;
    int32_t flags;
  };
  for (int threads : {2, 3})
    for (Shape t : {Shape{12, 128, 128, 64, false, false, 0},
                    Shape{9, 30, 70, 40, true, false,
                          TANDEM_SGEMM_CONSTANT_B | TANDEM_SGEMM_RELU},
                    Shape{5, 64, 100, 530, true, true, TANDEM_SGEMM_RELU6},
                    Shape{12, 20, 1, 33, true, false, TANDEM_SGEMM_CONSTANT_B},
                    Shape{6, 1, 50, 70, false, false, 0}}) {
      tandem_test::TestPool pool(threads);
      ASSERT_NE(pool.get(), nullptr);
      std::mt19937 rng(19);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      int64_t bBatches = t.sharedB ? 1 : t.batch;
      std::vector<float> a(t.batch * t.m * t.k), b(bBatches * t.k * t.n),
          ref(t.batch * t.m * t.n);
      for (std::vector<float> *v : {&a, &b})
        for (float &x : *v)
          x = dist(rng);
      int64_t sBb = t.sharedB ? 0 : t.k * t.n;
      int64_t sCm = t.columnMajorC ? 1 : t.n, sCn = t.columnMajorC ? t.m : 1;
      auto run = [&](tandem_exec_ctx_t *ctx, std::vector<float> &c) {
        return tandem_internal_sgemm_f32_on(
            GetParam(), ctx, t.batch, t.m, t.n, t.k, a.data(), t.m * t.k, t.k,
            1, b.data(), sBb, t.n, 1, c.data(), t.m * t.n, sCm, sCn, t.flags);
      };
      if (!run(nullptr, ref))
        GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
      tandem_internal_kernel_cache *cache =
          tandem_internal_kernel_cache_create();
      tandem_exec_ctx_t ctx = {};
      ctx.pool = pool.get();
      ctx.reserved[0] = cache;
      for (int call = 0; call < 2; ++call) {
        std::vector<float> c(ref.size(), NAN);
        ASSERT_TRUE(run(&ctx, c));
        EXPECT_EQ(c, ref) << t.batch << "x" << t.m << "x" << t.n << "x" << t.k
                          << " on " << threads << " threads, call " << call;
      }
      tandem_internal_kernel_cache_destroy(cache);
    }
}

TEST_P(SgemmTest, VectorTimesCachedWeights) {
  // A row times cached B (a classifier on one image: B^T as ONNX Gemm
  // stores it, a column bias, ReLU6), over two N blocks with accumulation;
  // cached A times a column (strided, and A shared by a batch of two);
  // tiny and one-by-one products. These stream the weights once
  // (gemvCached): they match a double-precision reference, the weight
  // cache holds one packed copy, and a pool of two threads and a call
  // without a cache give the serial cached call's result bit for bit.
  struct Shape {
    int64_t batch, m, n, k;
    int32_t flags;
    bool transB, withBias;
    int64_t vectorStride;
  };
  const int32_t relu6 = TANDEM_SGEMM_RELU6, acc = TANDEM_SGEMM_ACCUMULATE;
  const Shape shapes[] = {
      {1, 1, 1000, 1280, TANDEM_SGEMM_CONSTANT_B | relu6, true, true, 1},
      {1, 1, 4100, 300, TANDEM_SGEMM_CONSTANT_B | acc, false, false, 3},
      {1, 240, 1, 960, TANDEM_SGEMM_CONSTANT_A | acc, false, true, 5},
      {2, 37, 1, 7, TANDEM_SGEMM_CONSTANT_A | TANDEM_SGEMM_RELU, false, false,
       1},
      {1, 1, 1, 77, TANDEM_SGEMM_CONSTANT_A | TANDEM_SGEMM_CONSTANT_B, false,
       true, 1}};
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (const Shape &t : shapes) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    bool constA = t.flags & TANDEM_SGEMM_CONSTANT_A;
    // The vector operand's elements lie vectorStride apart: A's row when B
    // holds the weights, else B's column.
    int64_t sAm = constA ? t.k : t.k * t.vectorStride;
    int64_t sAk = constA ? 1 : t.vectorStride;
    int64_t sBk = t.transB ? 1 : (constA ? t.vectorStride : t.n);
    int64_t sBn = t.transB ? t.k : 1;
    int64_t aSize = (t.m - 1) * sAm + (t.k - 1) * sAk + 1;
    int64_t bSize = (t.k - 1) * sBk + (t.n - 1) * sBn + 1;
    int64_t sAb = constA ? 0 : aSize, sBb = bSize;
    std::vector<float> a(constA ? aSize : t.batch * aSize), b(t.batch * bSize),
        bias(t.n), c0(t.batch * t.m * t.n);
    for (std::vector<float> *v : {&a, &b, &bias, &c0})
      for (float &x : *v)
        x = 3.0f * dist(rng);
    auto run = [&](tandem_thread_pool_t *p, std::vector<float> &c,
                   size_t *cacheBytes, bool withCache = true) {
      tandem_internal_kernel_cache *cache =
          withCache ? tandem_internal_kernel_cache_create() : nullptr;
      tandem_exec_ctx_t ctx = {};
      ctx.pool = p;
      ctx.reserved[0] = cache;
      bool ran = true;
      for (int call = 0; call < 2 && ran; ++call) {
        c = c0;
        ran = tandem_internal_sgemm_bias_f32_on(
            GetParam(), &ctx, t.batch, t.m, t.n, t.k, a.data(), sAb, sAm, sAk,
            b.data(), sBb, sBk, sBn, t.withBias ? bias.data() : nullptr,
            c.data(), t.m * t.n, t.n, 1, t.flags);
        if (call == 0 && cache)
          *cacheBytes = tandem_internal_kernel_cache_bytes(cache);
      }
      if (cache)
        EXPECT_EQ(tandem_internal_kernel_cache_bytes(cache), *cacheBytes)
            << "the second call packed again";
      tandem_internal_kernel_cache_destroy(cache);
      return ran;
    };
    std::vector<float> serial, threaded;
    size_t bytes = 0, threadedBytes = 0;
    if (!run(nullptr, serial, &bytes))
      GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
    ASSERT_TRUE(run(pool, threaded, &threadedBytes));
    EXPECT_EQ(threaded, serial) << t.m << "x" << t.n << "x" << t.k;
    // Without a cache (the emulated device's library calls) the constant
    // weights are packed per call, and sum alike.
    std::vector<float> uncached;
    ASSERT_TRUE(run(pool, uncached, &threadedBytes, false));
    EXPECT_EQ(uncached, serial) << t.m << "x" << t.n << "x" << t.k;
    EXPECT_GT(bytes, 0u);
    for (int64_t bi = 0; bi < t.batch; ++bi)
      for (int64_t i = 0; i < t.m; ++i)
        for (int64_t j = 0; j < t.n; ++j) {
          size_t at = (bi * t.m + i) * t.n + j;
          double ref = (t.flags & acc) ? c0[at] : 0.0;
          if (t.withBias)
            ref += bias[j];
          for (int64_t q = 0; q < t.k; ++q)
            ref += double(a[bi * sAb + i * sAm + q * sAk]) *
                   double(b[bi * sBb + q * sBk + j * sBn]);
          if ((t.flags & (TANDEM_SGEMM_RELU | relu6)) && ref < 0)
            ref = 0;
          if ((t.flags & relu6) && ref > 6)
            ref = 6;
          ASSERT_NEAR(serial[at], ref, 1e-4 * (1.0 + std::sqrt(double(t.k))))
              << GetParam() << " " << t.m << "x" << t.n << "x" << t.k << " at ["
              << bi << "," << i << "," << j << "]";
        }
  }
  tandem_thread_pool_destroy(pool);
}

TEST_P(SgemmTest, ColumnBiasEqualsBroadcastThenAccumulate) {
  // tandem_sgemm_bias_f32 adds bias[j] in registers; the result must equal,
  // bit for bit, the bias broadcast into C followed by an accumulating
  // tandem_sgemm_f32: full and edge tiles (AVX-512's 16-column halves),
  // several K and N blocks, batches, a prior C, the fused epilogues, K = 0
  // and a thread pool.
  struct Shape {
    int64_t batch, m, n, k;
    int32_t flags;
  };
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_EQ(tandem_thread_pool_create(2, &pool), nullptr);
  for (Shape t :
       {Shape{1, 128, 768, 256, 0}, Shape{1, 13, 31, 7, 0},
        Shape{2, 29, 47, 600, TANDEM_SGEMM_RELU},
        Shape{1, 97, 4200, 9, TANDEM_SGEMM_ACCUMULATE},
        Shape{1, 41, 77, 530, TANDEM_SGEMM_ACCUMULATE | TANDEM_SGEMM_RELU6},
        Shape{1, 6, 7, 0, 0}, Shape{1, 6, 7, 0, TANDEM_SGEMM_RELU},
        Shape{3, 15, 12, 40, TANDEM_SGEMM_CONSTANT_B},
        Shape{1, 45, 200, 600, TANDEM_SGEMM_ACCUMULATE | TANDEM_SGEMM_RELU6}}) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
    size_t cSize = t.batch * t.m * t.n;
    std::vector<float> a(t.batch * t.m * t.k), b(t.k * t.n), bias(t.n),
        prior(cSize);
    for (std::vector<float> *v : {&a, &b, &bias, &prior})
      for (float &x : *v)
        x = dist(rng);
    bool accumulate = t.flags & TANDEM_SGEMM_ACCUMULATE;
    // The reference: C = (prior +) broadcast bias, then C += A B.
    std::vector<float> ref(cSize);
    for (size_t f = 0; f < cSize; ++f)
      ref[f] = accumulate ? prior[f] + bias[f % t.n] : bias[f % t.n];
    tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
    tandem_exec_ctx_t ctx = {};
    ctx.pool = pool;
    ctx.reserved[0] = cache;
    if (!tandem_internal_sgemm_f32_on(GetParam(), &ctx, t.batch, t.m, t.n, t.k,
                                      a.data(), t.m * t.k, t.k, 1, b.data(), 0,
                                      t.n, 1, ref.data(), t.m * t.n, t.n, 1,
                                      t.flags | TANDEM_SGEMM_ACCUMULATE)) {
      // Skipping returns from the test: free what it holds first (the
      // sanitizer build's leak check runs on CPUs without the family).
      tandem_internal_kernel_cache_destroy(cache);
      tandem_thread_pool_destroy(pool);
      GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
    }
    std::vector<float> c = prior;
    ASSERT_TRUE(tandem_internal_sgemm_bias_f32_on(
        GetParam(), &ctx, t.batch, t.m, t.n, t.k, a.data(), t.m * t.k, t.k, 1,
        b.data(), 0, t.n, 1, bias.data(), c.data(), t.m * t.n, t.n, 1,
        t.flags));
    EXPECT_EQ(c, ref) << t.batch << "x" << t.m << "x" << t.n << "x" << t.k
                      << " flags " << t.flags;
    tandem_internal_kernel_cache_destroy(cache);
  }
  tandem_thread_pool_destroy(pool);
}

TEST_P(SgemmTest, NarrowEdgeTilesMatchWideTiles) {
  // A C of 49 or 50 columns (a 7x7 image) ends in an edge tile of 17 or 18
  // columns, which AVX-512 computes as 16 columns plus one vector per extra
  // column over the rows; one of 33 to 36 (196 pixels of a 14x14 image:
  // 4 columns past the last full tile) as vectors over the rows only. On
  // AVX2 (16-column panels) 49 and 33 columns end in a panel of one column,
  // which joins the full tile before it (kernelAvx2PlusOne).
  // Their elements must equal, bit for bit, those of the same product
  // widened to 64 columns (zero B columns), where the same columns are
  // inside a full tile: same sums, same order, same prior (accumulated C,
  // column and no bias) and epilogue. 30 rows: two full row tiles and an
  // edge of 2 rows, which keeps one vector per row for 1 to 4 columns.
  for (int64_t n : {49, 50, 33, 34, 35, 36})
    for (int32_t flags :
         {0, TANDEM_SGEMM_ACCUMULATE | TANDEM_SGEMM_RELU, TANDEM_SGEMM_RELU6})
      for (bool withBias : {false, true}) {
        const int64_t m = 30, k = 300, wide = 64;
        std::mt19937 rng(9);
        std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
        std::vector<float> a(m * k), b(k * wide, 0.0f), bias(wide, 0.0f),
            prior(m * wide, 0.0f);
        for (float &x : a)
          x = dist(rng);
        for (int64_t p = 0; p < k; ++p)
          for (int64_t j = 0; j < n; ++j)
            b[p * wide + j] = dist(rng);
        for (int64_t j = 0; j < n; ++j)
          bias[j] = dist(rng);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            prior[i * wide + j] = dist(rng);
        std::vector<float> narrow = prior, full = prior;
        const float *biasPtr = withBias ? bias.data() : nullptr;
        if (!tandem_internal_sgemm_bias_f32_on(
                GetParam(), nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0,
                wide, 1, biasPtr, narrow.data(), 0, wide, 1, flags))
          GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
        ASSERT_TRUE(tandem_internal_sgemm_bias_f32_on(
            GetParam(), nullptr, 1, m, wide, k, a.data(), 0, k, 1, b.data(), 0,
            wide, 1, biasPtr, full.data(), 0, wide, 1, flags));
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < wide; ++j) {
            float want = j < n ? full[i * wide + j] : prior[i * wide + j];
            ASSERT_EQ(narrow[i * wide + j], want)
                << "n " << n << " flags " << flags << " bias " << withBias
                << " at [" << i << "," << j << "]";
          }
      }
}

TEST_P(SgemmTest, ShortRowEdgesMatchFullTiles) {
  // 1 to 3 rows past the last full row tile: AVX2 computes them several
  // full B panels at a time (kernelAvx2EdgeWide: 4, 3 or 2 panels, then 2;
  // 100 columns are 6 full panels and a 4-column edge, 128 are 8 full
  // panels), the other families as edge tiles. Their elements must equal,
  // bit for bit, those of the same rows inside a full tile (the product
  // extended by rows up to three row tiles): same sums in the same order,
  // over two K blocks, with the prior (accumulated C, column bias) and
  // epilogue.
  int64_t mr = 0, nr = 0;
  if (!tandem_internal_sgemm_tile(GetParam(), &mr, &nr))
    GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
  const int64_t k = 600, tall = 3 * mr;
  for (int64_t n : {100, 128})
    for (int64_t m : {2 * mr + 1, 2 * mr + 2, 2 * mr + 3})
      for (int32_t flags :
           {0, TANDEM_SGEMM_ACCUMULATE | TANDEM_SGEMM_RELU, TANDEM_SGEMM_RELU6})
        for (bool withBias : {false, true}) {
          std::mt19937 rng(13);
          std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
          std::vector<float> a(tall * k), b(k * n), bias(n), prior(tall * n);
          for (std::vector<float> *v : {&a, &b, &bias, &prior})
            for (float &x : *v)
              x = dist(rng);
          std::vector<float> shortC = prior, tallC = prior;
          const float *biasPtr = withBias ? bias.data() : nullptr;
          ASSERT_TRUE(tandem_internal_sgemm_bias_f32_on(
              GetParam(), nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0,
              n, 1, biasPtr, shortC.data(), 0, n, 1, flags));
          ASSERT_TRUE(tandem_internal_sgemm_bias_f32_on(
              GetParam(), nullptr, 1, tall, n, k, a.data(), 0, k, 1, b.data(),
              0, n, 1, biasPtr, tallC.data(), 0, n, 1, flags));
          for (int64_t i = 0; i < tall; ++i)
            for (int64_t j = 0; j < n; ++j) {
              float want = i < m ? tallC[i * n + j] : prior[i * n + j];
              ASSERT_EQ(shortC[i * n + j], want)
                  << "n " << n << " m " << m << " flags " << flags << " bias "
                  << withBias << " at [" << i << "," << j << "]";
            }
        }
}

TEST_P(SgemmTest, InPlaceAMatchesPackedA) {
  // A row-major A is read in place by the AVX2 and AVX-512 full tiles; a
  // transposed one (column stride not 1) is packed, as on the portable
  // family. The same A both ways must give the same bits (full and short
  // row tiles, full column panels, the column bias, accumulation and an
  // epilogue, two K blocks or more on every family).
  const int64_t m = 20, n = 64, k = 600;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> compact(m * k), transposed(k * m), b(k * n), bias(n),
      prior(m * n);
  for (std::vector<float> *v : {&compact, &b, &bias, &prior})
    for (float &x : *v)
      x = dist(rng);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      transposed[p * m + i] = compact[i * k + p];
  for (int32_t flags : {0, TANDEM_SGEMM_ACCUMULATE | TANDEM_SGEMM_RELU6}) {
    std::vector<float> inPlace = prior, packed = prior;
    if (!tandem_internal_sgemm_bias_f32_on(
            GetParam(), nullptr, 1, m, n, k, compact.data(), 0, k, 1, b.data(),
            0, n, 1, bias.data(), inPlace.data(), 0, n, 1, flags))
      GTEST_SKIP() << "this CPU has no " << GetParam() << " micro-kernel";
    ASSERT_TRUE(tandem_internal_sgemm_bias_f32_on(
        GetParam(), nullptr, 1, m, n, k, transposed.data(), 0, 1, m, b.data(),
        0, n, 1, bias.data(), packed.data(), 0, n, 1, flags));
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_EQ(inPlace[i], packed[i]) << "flags " << flags << " at " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, SgemmTest,
                         ::testing::Values("avx512", "avx2", "portable"));

TEST(SgemmTest, ColumnMajorOutput) {
  // C[i][j] at j*m + i: the kernel computes C^T = B^T A^T instead.
  const int64_t m = 9, n = 21, k = 11;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(i % 7) - 3.0f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = float(i % 5) - 2.0f;
  tandem_sgemm_f32(nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                   c.data(), 0, 1, m, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float ref = 0;
      for (int64_t q = 0; q < k; ++q)
        ref += a[i * k + q] * b[q * n + j];
      ASSERT_FLOAT_EQ(c[j * m + i], ref) << i << "," << j;
    }
}

TEST(SgemmTest, ColumnBiasOnColumnMajorOutput) {
  // A column-major C is computed as C^T = B^T A^T, where the column bias
  // becomes a row bias.
  const int64_t m = 9, n = 21, k = 11;
  std::vector<float> a(m * k), b(k * n), bias(n), c(m * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(i % 7) - 3.0f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = float(i % 5) - 2.0f;
  for (int64_t j = 0; j < n; ++j)
    bias[j] = 0.5f * float(j);
  tandem_sgemm_bias_f32(nullptr, 1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n,
                        1, bias.data(), c.data(), 0, 1, m, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float ref = bias[j];
      for (int64_t q = 0; q < k; ++q)
        ref += a[i * k + q] * b[q * n + j];
      ASSERT_FLOAT_EQ(c[j * m + i], ref) << i << "," << j;
    }
}

TEST(SgemmTest, ConstantOperandsArePackedOnceAndReused) {
  // A as shared conv weights (broadcast over 3 batches), B as constant
  // weights, over several K and N blocks: results match the uncached call,
  // the cache holds one entry per operand, and a second call reuses it.
  const int64_t batch = 3, m = 37, n = 4100, k = 530;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(batch * k * n), c(batch * m * n),
      ref(batch * m * n);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  tandem_sgemm_f32(nullptr, batch, m, n, k, a.data(), 0, k, 1, b.data(), k * n,
                   n, 1, ref.data(), m * n, n, 1, 0);
  tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
  ASSERT_NE(cache, nullptr);
  tandem_exec_ctx_t ctx = {};
  ctx.reserved[0] = cache;
  for (int call = 0; call < 2; ++call) {
    std::fill(c.begin(), c.end(), 0.0f);
    tandem_sgemm_f32(&ctx, batch, m, n, k, a.data(), 0, k, 1, b.data(), k * n,
                     n, 1, c.data(), m * n, n, 1, TANDEM_SGEMM_CONSTANT_A);
    ASSERT_EQ(c, ref) << "call " << call;
  }
  size_t afterA = tandem_internal_kernel_cache_bytes(cache);
  EXPECT_GE(afterA, size_t(m * k * sizeof(float)));
  // Constant B: one entry per batch element (different addresses).
  for (int call = 0; call < 2; ++call) {
    std::fill(c.begin(), c.end(), 0.0f);
    tandem_sgemm_f32(&ctx, batch, m, n, k, a.data(), 0, k, 1, b.data(), k * n,
                     n, 1, c.data(), m * n, n, 1,
                     TANDEM_SGEMM_CONSTANT_A | TANDEM_SGEMM_CONSTANT_B);
    ASSERT_EQ(c, ref) << "call " << call;
  }
  size_t afterB = tandem_internal_kernel_cache_bytes(cache);
  EXPECT_GE(afterB - afterA, size_t(batch * k * n * sizeof(float)));
  tandem_sgemm_f32(&ctx, batch, m, n, k, a.data(), 0, k, 1, b.data(), k * n, n,
                   1, c.data(), m * n, n, 1,
                   TANDEM_SGEMM_CONSTANT_A | TANDEM_SGEMM_CONSTANT_B);
  EXPECT_EQ(tandem_internal_kernel_cache_bytes(cache), afterB);
  tandem_internal_kernel_cache_destroy(cache);
}

TEST(SgemmTest, ReportsItsKernelFamily) {
  std::string isa = tandem_sgemm_f32_isa();
  EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "portable") << isa;
}

} // namespace
