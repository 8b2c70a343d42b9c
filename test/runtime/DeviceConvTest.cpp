//===- DeviceConvTest.cpp - Library convolutions on the emulated device ---===//
//
// tandem_conv_desc_t as the emulated device and the CPU fallback run it
// (conv_desc.cpp's host loop) against a plain reference written here:
// groups, strides, pads, dilations, each activation, bias and residual,
// weight filters (Winograd, and their packed form cached per instance);
// the same on the emulated device through tandem_device_conv, directly and
// replayed from a captured graph; bit-identical results at any thread
// count; the descriptor checks and operand ranges; and that the cuDNN
// loader resolves every entry point it declares where cuDNN is installed.
//
//===----------------------------------------------------------------------===//

#include "CachedContext.h"
#include "StatusHelpers.h"
#include "device/cudnn.h"
#include "kernels/conv_desc.h"
#include "tandem/runtime.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "gtest/gtest.h"

namespace {

using tandem_test::Status;

struct Case {
  const char *name;
  int64_t n, c, h, w, k, r, s, groups, stride, pad, dilation, activation, flags;
};

const Case kCases[] = {
    {"plain3x3", 1, 3, 6, 7, 4, 3, 3, 1, 1, 1, 1, TANDEM_CONV_ACT_NONE, 0},
    {"stride2_bias_relu", 2, 4, 9, 9, 6, 3, 3, 1, 2, 1, 1, TANDEM_CONV_ACT_RELU,
     TANDEM_CONV_BIAS},
    {"grouped_residual_relu", 1, 6, 5, 5, 4, 3, 3, 2, 1, 1, 1,
     TANDEM_CONV_ACT_RELU, TANDEM_CONV_RESIDUAL},
    {"depthwise_relu6", 1, 8, 6, 6, 8, 3, 3, 8, 1, 1, 1, TANDEM_CONV_ACT_RELU6,
     TANDEM_CONV_BIAS},
    {"dilated_sigmoid", 1, 2, 9, 8, 3, 3, 2, 1, 1, 2, 2,
     TANDEM_CONV_ACT_SIGMOID, TANDEM_CONV_BIAS | TANDEM_CONV_RESIDUAL},
    {"pointwise_swish", 1, 5, 4, 4, 7, 1, 1, 1, 1, 0, 1, TANDEM_CONV_ACT_SWISH,
     TANDEM_CONV_BIAS},
    // A weight filter: 3x3 stride 1 with 16 channels runs as Winograd on the
    // host path, a grouped one as the GEMM with its packed filter cached.
    {"winograd_weight_relu", 1, 16, 16, 16, 16, 3, 3, 1, 1, 1, 1,
     TANDEM_CONV_ACT_RELU, TANDEM_CONV_BIAS | TANDEM_CONV_CONSTANT_FILTER},
    {"grouped_weight", 2, 8, 6, 6, 8, 3, 3, 2, 1, 1, 1, TANDEM_CONV_ACT_NONE,
     TANDEM_CONV_CONSTANT_FILTER},
    // Channels last (x, y, z NHWC, w KRSC), as tandem-assign-gpu-layout
    // makes them; a weight filter is then not cached (a transposed copy).
    {"nhwc_stride2_bias_relu", 2, 4, 9, 7, 6, 3, 3, 1, 2, 1, 1,
     TANDEM_CONV_ACT_RELU, TANDEM_CONV_BIAS | TANDEM_CONV_NHWC},
    {"nhwc_grouped_residual", 1, 6, 5, 6, 4, 3, 3, 2, 1, 1, 1,
     TANDEM_CONV_ACT_NONE,
     TANDEM_CONV_BIAS | TANDEM_CONV_RESIDUAL | TANDEM_CONV_NHWC},
    {"nhwc_depthwise_relu6", 2, 8, 6, 5, 8, 3, 3, 8, 1, 1, 1,
     TANDEM_CONV_ACT_RELU6, TANDEM_CONV_BIAS | TANDEM_CONV_NHWC},
    {"nhwc_winograd_weight", 1, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1,
     TANDEM_CONV_ACT_RELU,
     TANDEM_CONV_BIAS | TANDEM_CONV_CONSTANT_FILTER | TANDEM_CONV_NHWC},
};

/// Whether the host path may run `c` as Winograd (more rounding than the
/// direct sum's).
bool isWinograd(const Case &c) {
  return (c.flags & TANDEM_CONV_CONSTANT_FILTER) && c.groups == 1 && c.r == 3 &&
         c.s == 3 && c.stride == 1 && c.dilation == 1 && c.c >= 16 && c.k >= 16;
}

/// A problem: the descriptor, its operands and the reference output.
struct Problem {
  explicit Problem(const Case &c) {
    d.n = c.n, d.c = c.c, d.h = c.h, d.w = c.w, d.k = c.k, d.r = c.r;
    d.s = c.s, d.groups = c.groups;
    d.stride_h = d.stride_w = c.stride;
    d.pad_h = d.pad_w = c.pad;
    d.dilation_h = d.dilation_w = c.dilation;
    d.p = (c.h + 2 * c.pad - c.dilation * (c.r - 1) - 1) / c.stride + 1;
    d.q = (c.w + 2 * c.pad - c.dilation * (c.s - 1) - 1) / c.stride + 1;
    d.activation = c.activation;
    d.flags = c.flags;
    tolerance = isWinograd(c) ? 1e-4f : 1e-5f;
    auto fill = [](std::vector<float> &v, size_t n, int seed) {
      v.resize(n);
      for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<float>((i * 37 + seed * 11) % 19) / 9.0f - 1.0f;
    };
    fill(x, size_t(d.n * d.c * d.h * d.w), 1);
    fill(w, size_t(d.k * (d.c / d.groups) * d.r * d.s), 2);
    fill(bias, size_t(d.k), 3);
    fill(z, size_t(d.n * d.k * d.p * d.q), 4);
    reference();
  }

  /// The definition, term by term, in double (indexing each operand in
  /// the descriptor's layout).
  void reference() {
    int64_t cg = d.c / d.groups, kg = d.k / d.groups;
    bool last = (d.flags & TANDEM_CONV_NHWC) != 0;
    auto xAt = [&](int64_t b, int64_t ch, int64_t i, int64_t j) {
      return last ? ((b * d.h + i) * d.w + j) * d.c + ch
                  : ((b * d.c + ch) * d.h + i) * d.w + j;
    };
    auto wAt = [&](int64_t o, int64_t ci, int64_t u, int64_t v) {
      return last ? ((o * d.r + u) * d.s + v) * cg + ci
                  : ((o * cg + ci) * d.r + u) * d.s + v;
    };
    auto yAt = [&](int64_t b, int64_t o, int64_t i, int64_t j) {
      return size_t(last ? ((b * d.p + i) * d.q + j) * d.k + o
                         : ((b * d.k + o) * d.p + i) * d.q + j);
    };
    expected.assign(z.size(), 0.0f);
    for (int64_t b = 0; b < d.n; ++b)
      for (int64_t o = 0; o < d.k; ++o)
        for (int64_t i = 0; i < d.p; ++i)
          for (int64_t j = 0; j < d.q; ++j) {
            double sum = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t u = 0; u < d.r; ++u)
                for (int64_t v = 0; v < d.s; ++v) {
                  int64_t ih = i * d.stride_h - d.pad_h + u * d.dilation_h;
                  int64_t iw = j * d.stride_w - d.pad_w + v * d.dilation_w;
                  if (ih < 0 || ih >= d.h || iw < 0 || iw >= d.w)
                    continue;
                  int64_t ch = (o / kg) * cg + ci;
                  sum += double(x[xAt(b, ch, ih, iw)]) * w[wAt(o, ci, u, v)];
                }
            size_t at = yAt(b, o, i, j);
            if (d.flags & TANDEM_CONV_BIAS)
              sum += bias[size_t(o)];
            if (d.flags & TANDEM_CONV_RESIDUAL)
              sum += z[at];
            switch (d.activation) {
            case TANDEM_CONV_ACT_RELU:
              sum = sum > 0 ? sum : 0;
              break;
            case TANDEM_CONV_ACT_RELU6:
              sum = sum < 0 ? 0 : (sum > 6 ? 6 : sum);
              break;
            case TANDEM_CONV_ACT_SIGMOID:
              sum = 1 / (1 + std::exp(-sum));
              break;
            case TANDEM_CONV_ACT_SWISH:
              sum = sum / (1 + std::exp(-sum));
              break;
            default:
              break;
            }
            expected[at] = static_cast<float>(sum);
          }
  }

  void check(const std::vector<float> &got, const char *what) const {
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], expected[i], tolerance * (1 + std::fabs(expected[i])))
          << what << ": element " << i;
  }

  tandem_conv_desc_t d = {};
  float tolerance = 1e-5f;
  std::vector<float> x, w, bias, z, expected;
};

class DeviceConv : public ::testing::TestWithParam<Case> {};

TEST_P(DeviceConv, HostLoopMatchesReferenceAtAnyThreadCount) {
  Problem p(GetParam());
  char message[160];
  ASSERT_TRUE(tandem::conv::check(p.d, message, sizeof(message))) << message;
  std::vector<float> serial(p.expected.size(), -1.0f);
  tandem::conv::runOnHost(nullptr, p.d, p.x.data(), p.w.data(), serial.data(),
                          p.bias.data(), p.z.data());
  p.check(serial, "serial");
  tandem_thread_pool_t *pool = nullptr;
  ASSERT_OK(tandem_thread_pool_create(3, &pool));
  tandem_exec_ctx_t ctx = {};
  ctx.pool = pool;
  std::vector<float> threaded(p.expected.size(), -1.0f);
  tandem::conv::runOnHost(&ctx, p.d, p.x.data(), p.w.data(), threaded.data(),
                          p.bias.data(), p.z.data());
  tandem_thread_pool_destroy(pool);
  EXPECT_EQ(std::memcmp(serial.data(), threaded.data(),
                        serial.size() * sizeof(float)),
            0)
      << "3 threads differ from 1";
}

/// The emulated device: uploads, tandem_device_conv on a stream, download;
/// then the same conv captured into a graph and replayed.
TEST_P(DeviceConv, EmulatedMatchesReference) {
  Problem p(GetParam());
  tandem_device_t *device = nullptr;
  ASSERT_OK(tandem_device_open("emulated", nullptr, &device));
  std::unique_ptr<tandem_device_t, void (*)(tandem_device_t *)> closer(
      device, [](tandem_device_t *d) { tandem_device_close(d); });
  tandem_stream_t *stream = nullptr;
  ASSERT_OK(tandem_stream_create(device, &stream));
  auto upload = [&](const std::vector<float> &host) {
    tandem_device_ptr_t ptr = 0;
    uint64_t bytes = host.size() * sizeof(float);
    EXPECT_OK(tandem_device_alloc(device, bytes, &ptr));
    EXPECT_OK(tandem_memcpy_h2d_async(stream, ptr, host.data(), bytes));
    return ptr;
  };
  std::vector<float> sentinel(p.expected.size(), 1234.5f);
  bool bias = p.d.flags & TANDEM_CONV_BIAS,
       residual = p.d.flags & TANDEM_CONV_RESIDUAL;
  tandem_device_ptr_t x = upload(p.x), w = upload(p.w),
                      b = bias ? upload(p.bias) : 0,
                      z = residual ? upload(p.z) : 0, y = upload(sentinel);
  ASSERT_OK(tandem_device_conv(stream, &p.d, x, w, y, b, z, "test_conv"));
  std::vector<float> out(p.expected.size());
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), y,
                                    out.size() * sizeof(float)));
  ASSERT_OK(tandem_stream_synchronize(stream));
  p.check(out, "emulated");

  ASSERT_OK(tandem_memcpy_h2d_async(stream, y, sentinel.data(),
                                    sentinel.size() * sizeof(float)));
  ASSERT_OK(tandem_stream_synchronize(stream));
  ASSERT_OK(tandem_stream_begin_capture(stream));
  ASSERT_OK(tandem_device_conv(stream, &p.d, x, w, y, b, z, "test_conv"));
  tandem_device_graph_t *graph = nullptr;
  ASSERT_OK(tandem_stream_end_capture(stream, &graph));
  ASSERT_OK(tandem_device_graph_launch(graph, stream));
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), y,
                                    out.size() * sizeof(float)));
  ASSERT_OK(tandem_stream_synchronize(stream));
  p.check(out, "graph replay");
  tandem_device_graph_destroy(graph);
  ASSERT_OK(tandem_stream_destroy(stream));
}

/// With TANDEM_CONV_CONSTANT_FILTER and an instance's kernel cache, the
/// filter is packed (or transformed) on the first run and reused: a filter
/// changed in place afterwards is not read again. Without the flag it is.
/// (An NHWC convolution runs on a transposed copy of the filter, which it
/// does not cache.)
TEST(DeviceConvCache, ConstantFilterIsCachedPerInstance) {
  int weightCases = 0;
  for (const Case &c : kCases) {
    if (!(c.flags & TANDEM_CONV_CONSTANT_FILTER) ||
        (c.flags & TANDEM_CONV_NHWC))
      continue;
    ++weightCases;
    SCOPED_TRACE(c.name);
    Problem p(c);
    tandem_test::CachedContext cached;
    ASSERT_NE(cached.cache, nullptr);
    const tandem_exec_ctx_t *ctx = &cached.ctx;
    std::vector<float> first(p.expected.size()), again(p.expected.size());
    tandem::conv::runOnHost(ctx, p.d, p.x.data(), p.w.data(), first.data(),
                            p.bias.data(), p.z.data());
    p.check(first, "first run");
    EXPECT_GT(cached.bytes(), 0u);
    for (float &v : p.w)
      v = -v;
    tandem::conv::runOnHost(ctx, p.d, p.x.data(), p.w.data(), again.data(),
                            p.bias.data(), p.z.data());
    EXPECT_EQ(
        std::memcmp(first.data(), again.data(), first.size() * sizeof(float)),
        0)
        << "the cached filter was not used";
    p.d.flags &= ~int64_t(TANDEM_CONV_CONSTANT_FILTER);
    tandem::conv::runOnHost(ctx, p.d, p.x.data(), p.w.data(), again.data(),
                            p.bias.data(), p.z.data());
    EXPECT_NE(
        std::memcmp(first.data(), again.data(), first.size() * sizeof(float)),
        0)
        << "without the flag the changed filter must be read";
  }
  EXPECT_EQ(weightCases, 2);
}

INSTANTIATE_TEST_SUITE_P(Cases, DeviceConv, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.name);
                         });

TEST(DeviceConvChecks, RejectsBadDescriptorsAndRanges) {
  tandem_device_t *device = nullptr;
  ASSERT_OK(tandem_device_open("emulated", nullptr, &device));
  tandem_stream_t *stream = nullptr;
  ASSERT_OK(tandem_stream_create(device, &stream));
  tandem_device_ptr_t small = 0;
  ASSERT_OK(tandem_device_alloc(device, 64, &small));
  tandem_conv_desc_t d = {};
  // 1x1x4x4 by 1x1x1x1: every operand fits in 64 bytes.
  d.n = d.c = d.k = d.r = d.s = d.groups = 1;
  d.h = d.w = d.p = d.q = 4;
  d.stride_h = d.stride_w = d.dilation_h = d.dilation_w = 1;
  ASSERT_OK(tandem_device_conv(stream, &d, small, small, small, 0, 0, "ok"));

  struct Bad {
    void (*mutate)(tandem_conv_desc_t &);
    const char *fragment;
  } bad[] = {
      {[](tandem_conv_desc_t &b) { b.groups = 3; }, "groups must"},
      {[](tandem_conv_desc_t &b) { b.p = 3; }, "p and q do not follow"},
      {[](tandem_conv_desc_t &b) { b.activation = 5; }, "unknown activation"},
      {[](tandem_conv_desc_t &b) { b.flags = 64; }, "unknown flags"},
      {[](tandem_conv_desc_t &b) {
         b.flags = TANDEM_CONV_ALLOW_TF32 | TANDEM_CONV_ALLOW_FP16;
       },
       "more than one TANDEM_CONV_ALLOW_* precision"},
      {[](tandem_conv_desc_t &b) { b.pad_h = -1; }, "pads must not"},
      {[](tandem_conv_desc_t &b) { b.flags = TANDEM_CONV_RESIDUAL; },
       "a device pointer is 0"},
  };
  for (const Bad &entry : bad) {
    tandem_conv_desc_t b = d;
    entry.mutate(b);
    Status status(
        tandem_device_conv(stream, &b, small, small, small, 0, 0, "c"));
    EXPECT_EQ(status.code, TANDEM_INVALID_ARGUMENT) << entry.fragment;
    EXPECT_NE(status.message.find(entry.fragment), std::string::npos)
        << status.message;
  }
  // 8 output channels need 512 output bytes: refused when queued.
  tandem_conv_desc_t big = d;
  big.k = 8;
  Status range(
      tandem_device_conv(stream, &big, small, small, small, 0, 0, "big_conv"));
  EXPECT_EQ(range.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(range.message.find("conv 'big_conv', operand y"), std::string::npos)
      << range.message;
  ASSERT_OK(tandem_stream_synchronize(stream));
  ASSERT_OK(tandem_stream_destroy(stream));
  tandem_device_close(device);
}

/// Where libcudnn.so.9 is installed (the CUDA toolkit here), the runtime's
/// loader finds it and resolves every entry point it declares (so the
/// names are the real library's); elsewhere it says why not.
TEST(Cudnn, LoadsWhereInstalled) {
  const char *override = std::getenv("TANDEM_CUDNN_LIBRARY");
  if (override && *override)
    GTEST_SKIP() << "TANDEM_CUDNN_LIBRARY is set";
  void *probe = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
  std::string reason;
  const tandem::cudnn::Api *api = tandem::cudnn::load(&reason);
  if (probe) {
    EXPECT_NE(api, nullptr) << reason;
    dlclose(probe);
  } else if (!api) {
    // Not on the library path; a pip install may still have provided it.
    EXPECT_NE(reason.find("cannot load cuDNN (libcudnn.so.9"),
              std::string::npos)
        << reason;
  }
}

} // namespace
