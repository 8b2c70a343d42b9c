//===- DeviceGemmTest.cpp - tandem_gemm_desc_t on the emulated device -----===//
//
// The descriptor's semantics (row-major operands, transposes, leading
// dimensions, batch strides and broadcasts, every epilogue) checked against
// a plain reference on the emulated device (tandem_device_gemm, also
// captured into a graph) and on the host path the CPU fallback runs
// (tandem::gemm::runOnHost), with shapes that are no multiple of the sgemm
// tiles; a weight operand's packed form cached per instance. Also the
// descriptor checks and operand range checks, and that
// cuBLASLt, where installed, loads with every entry point the CUDA backend
// uses (nothing can run it without a GPU).
//
//===----------------------------------------------------------------------===//

#include "CachedContext.h"
#include "StatusHelpers.h"
#include "device/cublaslt.h"
#include "kernels/gemm_desc.h"
#include "tandem/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "gtest/gtest.h"

namespace {

using tandem_test::Status;

/// One GEMM case: the descriptor and how its buffers are laid out.
struct Case {
  const char *name;
  int64_t batch, m, n, k;
  bool transA, transB;
  int64_t epilogue;
  /// Extra elements at the end of every stored row (ld = cols + pad).
  int64_t pad = 0;
  bool broadcastA = false, broadcastB = false;
};

/// The descriptor, host data and reference result of a case.
struct Problem {
  tandem_gemm_desc_t desc = {};
  std::vector<float> a, b, bias, expected;
  /// Elements of C (a sentinel fills the gaps between rows).
  size_t cElements = 0;

  explicit Problem(const Case &c) {
    tandem_gemm_desc_t &d = desc;
    d.batch = c.batch, d.m = c.m, d.n = c.n, d.k = c.k;
    d.trans_a = c.transA, d.trans_b = c.transB;
    int64_t aRows = c.transA ? c.k : c.m, aCols = c.transA ? c.m : c.k;
    int64_t bRows = c.transB ? c.n : c.k, bCols = c.transB ? c.k : c.n;
    d.lda = aCols + c.pad, d.ldb = bCols + c.pad, d.ldc = c.n + c.pad;
    d.stride_a = c.broadcastA ? 0 : aRows * d.lda;
    d.stride_b = c.broadcastB ? 0 : bRows * d.ldb;
    d.stride_c = c.m * d.ldc;
    d.epilogue = c.epilogue;
    std::mt19937 rng(static_cast<unsigned>(c.m * 131 + c.n * 17 + c.k));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    auto fill = [&](std::vector<float> &v, size_t n) {
      v.resize(n);
      for (float &x : v)
        x = value(rng);
    };
    fill(a, static_cast<size_t>((c.broadcastA ? 1 : c.batch) * aRows * d.lda));
    fill(b, static_cast<size_t>((c.broadcastB ? 1 : c.batch) * bRows * d.ldb));
    fill(bias, static_cast<size_t>(c.n));
    cElements = static_cast<size_t>(c.batch * d.stride_c);
    expected.assign(cElements, kSentinel);
    for (int64_t p = 0; p < c.batch; ++p)
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          double sum = 0;
          for (int64_t l = 0; l < c.k; ++l) {
            float x = c.transA ? a[p * d.stride_a + l * d.lda + i]
                               : a[p * d.stride_a + i * d.lda + l];
            float y = c.transB ? b[p * d.stride_b + j * d.ldb + l]
                               : b[p * d.stride_b + l * d.ldb + j];
            sum += double(x) * y;
          }
          if (tandem::gemm::hasBias(d))
            sum += bias[j];
          if (tandem::gemm::hasRelu(d))
            sum = std::max(sum, 0.0);
          if (tandem::gemm::hasGelu(d)) // tanh approximation, in double
            sum = 0.5 * sum *
                  (1.0 + std::tanh(std::sqrt(2.0 / M_PI) *
                                   (sum + 0.044715 * sum * sum * sum)));
          expected[p * d.stride_c + i * d.ldc + j] = static_cast<float>(sum);
        }
  }

  /// Checks `c` against the reference: every product element close, every
  /// gap between rows untouched.
  void check(const std::vector<float> &c, const char *what) const {
    ASSERT_EQ(c.size(), expected.size());
    size_t bad = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      float want = expected[i];
      bool ok = want == kSentinel
                    ? c[i] == kSentinel
                    : std::fabs(c[i] - want) <= 1e-4f + 1e-4f * std::fabs(want);
      if (!ok && bad++ < 5)
        ADD_FAILURE() << what << ": C[" << i << "] = " << c[i] << ", want "
                      << want;
    }
    EXPECT_EQ(bad, 0u) << what;
  }

  static constexpr float kSentinel = -12345.0f;
};

const Case kCases[] = {
    {"plain", 1, 37, 53, 71, false, false, TANDEM_GEMM_EPILOGUE_NONE},
    {"vector_times_matrix", 1, 1, 130, 200, false, false,
     TANDEM_GEMM_EPILOGUE_BIAS_RELU},
    {"trans_a", 1, 19, 33, 300, true, false, TANDEM_GEMM_EPILOGUE_RELU},
    {"trans_b", 1, 29, 17, 45, false, true, TANDEM_GEMM_EPILOGUE_BIAS},
    {"trans_both_padded", 1, 23, 31, 9, true, true,
     TANDEM_GEMM_EPILOGUE_BIAS_RELU, 3},
    {"batch", 4, 13, 21, 35, false, true, TANDEM_GEMM_EPILOGUE_NONE},
    {"batch_padded_bias", 3, 7, 50, 19, false, false, TANDEM_GEMM_EPILOGUE_BIAS,
     5},
    {"batch_broadcast_b", 3, 11, 9, 40, false, false, TANDEM_GEMM_EPILOGUE_RELU,
     0, false, true},
    {"batch_broadcast_a_trans", 2, 5, 70, 33, true, false,
     TANDEM_GEMM_EPILOGUE_BIAS_RELU, 0, true, false},
    {"k_past_one_block", 1, 9, 40, 700, false, false,
     TANDEM_GEMM_EPILOGUE_BIAS},
    {"gelu_trans_b", 1, 17, 40, 33, false, true, TANDEM_GEMM_EPILOGUE_GELU},
    {"batch_bias_gelu", 2, 9, 70, 50, false, false,
     TANDEM_GEMM_EPILOGUE_BIAS_GELU, 4},
};

class DeviceGemm : public ::testing::TestWithParam<Case> {};

/// The CPU fallback's path: runOnHost on host memory (with a thread pool).
TEST_P(DeviceGemm, HostPathMatchesReference) {
  Problem p(GetParam());
  char message[160];
  ASSERT_TRUE(tandem::gemm::check(p.desc, message, sizeof(message))) << message;
  std::vector<float> c(p.cElements, Problem::kSentinel);
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_OK(tandem_thread_pool_create(3, &pool));
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  tandem::gemm::runOnHost(&ctx, p.desc, p.a.data(), p.b.data(), c.data(),
                          p.bias.data());
  tandem_thread_pool_destroy(pool);
  p.check(c, "host");
}

/// With TANDEM_GEMM_CONSTANT_A or _B (the operand is a weight of the model)
/// and an instance's kernel cache, the operand is packed on the first run
/// and reused: changed in place afterwards, it is not read again. Without
/// the flag it is.
TEST(DeviceGemmCache, WeightOperandIsCachedPerInstance) {
  struct Weight {
    const char *name;
    int64_t flag;
  } weights[] = {{"plain", TANDEM_GEMM_CONSTANT_B},
                 {"trans_b", TANDEM_GEMM_CONSTANT_B},
                 {"trans_a", TANDEM_GEMM_CONSTANT_A},
                 {"batch_broadcast_b", TANDEM_GEMM_CONSTANT_B}};
  for (const Weight &weight : weights) {
    SCOPED_TRACE(weight.name);
    const Case *c =
        std::find_if(std::begin(kCases), std::end(kCases), [&](const Case &k) {
          return std::string(k.name) == weight.name;
        });
    ASSERT_NE(c, std::end(kCases));
    Problem p(*c);
    p.desc.flags = weight.flag;
    char message[160];
    ASSERT_TRUE(tandem::gemm::check(p.desc, message, sizeof(message)))
        << message;
    tandem_test::CachedContext cached;
    ASSERT_NE(cached.cache, nullptr);
    const tandem_exec_ctx_t *ctx = &cached.ctx;
    std::vector<float> first(p.cElements, Problem::kSentinel),
        again(p.cElements, Problem::kSentinel);
    tandem::gemm::runOnHost(ctx, p.desc, p.a.data(), p.b.data(), first.data(),
                            p.bias.data());
    p.check(first, "first run");
    EXPECT_GT(cached.bytes(), 0u);
    std::vector<float> &operand =
        weight.flag == TANDEM_GEMM_CONSTANT_A ? p.a : p.b;
    for (float &v : operand)
      v = -v;
    tandem::gemm::runOnHost(ctx, p.desc, p.a.data(), p.b.data(), again.data(),
                            p.bias.data());
    EXPECT_EQ(first, again) << "the cached operand was not used";
    p.desc.flags = 0;
    tandem::gemm::runOnHost(ctx, p.desc, p.a.data(), p.b.data(), again.data(),
                            p.bias.data());
    EXPECT_NE(first, again) << "without the flag the operand must be read";
  }
}

/// The emulated device: uploads, tandem_device_gemm on a stream, download;
/// then the same GEMM captured into a graph and replayed.
TEST_P(DeviceGemm, EmulatedMatchesReference) {
  Problem p(GetParam());
  tandem_device_options_t options;
  tandem_device_options_init(&options);
  tandem_device_t *device = nullptr;
  ASSERT_OK(tandem_device_open("emulated", &options, &device));
  std::unique_ptr<tandem_device_t, void (*)(tandem_device_t *)> closer(
      device, [](tandem_device_t *d) { tandem_device_close(d); });
  tandem_stream_t *stream = nullptr;
  ASSERT_OK(tandem_stream_create(device, &stream));
  auto upload = [&](const std::vector<float> &host) {
    tandem_device_ptr_t ptr = 0;
    uint64_t bytes = std::max<size_t>(host.size(), 1) * sizeof(float);
    EXPECT_EQ(tandem_device_alloc(device, bytes, &ptr), nullptr);
    if (!host.empty()) {
      EXPECT_EQ(tandem_memcpy_h2d_async(stream, ptr, host.data(), bytes),
                nullptr);
    }
    return ptr;
  };
  std::vector<float> sentinel(p.cElements, Problem::kSentinel);
  tandem_device_ptr_t a = upload(p.a), b = upload(p.b), bias = upload(p.bias),
                      c = upload(sentinel);
  ASSERT_OK(tandem_device_gemm(stream, &p.desc, a, b, c, bias, "test_gemm"));
  std::vector<float> out(p.cElements);
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), c,
                                    out.size() * sizeof(float)));
  ASSERT_OK(tandem_stream_synchronize(stream));
  p.check(out, "emulated");

  // Captured: nothing runs until the graph is launched.
  ASSERT_OK(tandem_memcpy_h2d_async(stream, c, sentinel.data(),
                                    sentinel.size() * sizeof(float)));
  ASSERT_OK(tandem_stream_synchronize(stream));
  ASSERT_OK(tandem_stream_begin_capture(stream));
  ASSERT_OK(tandem_device_gemm(stream, &p.desc, a, b, c, bias, "test_gemm"));
  tandem_device_graph_t *graph = nullptr;
  ASSERT_OK(tandem_stream_end_capture(stream, &graph));
  ASSERT_OK(tandem_device_graph_launch(graph, stream));
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), c,
                                    out.size() * sizeof(float)));
  ASSERT_OK(tandem_stream_synchronize(stream));
  p.check(out, "graph replay");
  tandem_device_graph_destroy(graph);
  ASSERT_OK(tandem_stream_destroy(stream));
}

INSTANTIATE_TEST_SUITE_P(Cases, DeviceGemm, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.name);
                         });

TEST(DeviceGemmChecks, RejectsBadDescriptorsAndRanges) {
  tandem_device_options_t options;
  tandem_device_options_init(&options);
  tandem_device_t *device = nullptr;
  ASSERT_OK(tandem_device_open("emulated", &options, &device));
  tandem_stream_t *stream = nullptr;
  ASSERT_OK(tandem_stream_create(device, &stream));
  tandem_device_ptr_t small = 0;
  ASSERT_OK(tandem_device_alloc(device, 64, &small));

  tandem_gemm_desc_t d = {};
  d.batch = 1, d.m = 4, d.n = 4, d.k = 4, d.lda = 4, d.ldb = 4, d.ldc = 4;
  // 4x4 floats fit in 64 bytes.
  ASSERT_OK(tandem_device_gemm(stream, &d, small, small, small, 0, "ok"));

  tandem_gemm_desc_t bad = d;
  bad.lda = 3;
  Status ld(tandem_device_gemm(stream, &bad, small, small, small, 0, "g"));
  EXPECT_EQ(ld.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(ld.message.find("leading dimension"), std::string::npos)
      << ld.message;

  bad = d;
  bad.epilogue = TANDEM_GEMM_EPILOGUE_BIAS;
  Status noBias(tandem_device_gemm(stream, &bad, small, small, small, 0, "g"));
  EXPECT_EQ(noBias.code, TANDEM_INVALID_ARGUMENT) << noBias.message;
  bad.epilogue = TANDEM_GEMM_EPILOGUE_BIAS_GELU;
  Status noGeluBias(
      tandem_device_gemm(stream, &bad, small, small, small, 0, "g"));
  EXPECT_EQ(noGeluBias.code, TANDEM_INVALID_ARGUMENT) << noGeluBias.message;
  bad.epilogue = TANDEM_GEMM_EPILOGUE_BIAS_GELU + 1;
  Status unknown(tandem_device_gemm(stream, &bad, small, small, small, 0, "g"));
  EXPECT_EQ(unknown.code, TANDEM_INVALID_ARGUMENT) << unknown.message;
  EXPECT_NE(unknown.message.find("unknown epilogue"), std::string::npos)
      << unknown.message;

  bad = d;
  bad.m = 8; // C needs 128 bytes
  Status range(
      tandem_device_gemm(stream, &bad, small, small, small, 0, "big_gemm"));
  EXPECT_EQ(range.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(range.message.find("operand A"), std::string::npos)
      << range.message;

  ASSERT_OK(tandem_stream_synchronize(stream));
  ASSERT_OK(tandem_stream_destroy(stream));
  tandem_device_close(device);
}

/// Where libcublasLt is installed (the CUDA toolkit here), the runtime's
/// loader finds it and resolves every entry point it declares; elsewhere it
/// says why not. TANDEM_CUBLASLT overrides the library and is honoured.
TEST(CublasLt, LoadsWhereInstalled) {
  const char *override = std::getenv("TANDEM_CUBLASLT");
  if (override && *override)
    GTEST_SKIP() << "TANDEM_CUBLASLT is set";
  void *probe = nullptr;
  for (const char *name :
       {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"})
    if ((probe = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
      break;
  std::string reason;
  const tandem::cublaslt::Api *api = tandem::cublaslt::load(&reason);
  if (probe) {
    EXPECT_NE(api, nullptr) << reason;
    dlclose(probe);
  } else {
    EXPECT_EQ(api, nullptr);
    EXPECT_NE(reason.find("cannot load cuBLASLt"), std::string::npos) << reason;
  }
}

} // namespace
