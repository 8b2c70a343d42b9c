//===- CudnnFakeTest.cpp - The cuDNN path over a fake driver and cuDNN ----===//
//
// Runs tandem_device_conv on the CUDA backend with the fake driver
// (FakeCudaDriver.cpp) and the fake cuDNN (FakeCudnn.cpp), which computes
// on the host: descriptor setup, algorithm selection within the workspace,
// the fused and separate epilogues, capture and replay, and the fallback
// when cuDNN cannot be loaded (a child process with TANDEM_CUDNN_LIBRARY
// naming a missing file). Results are compared with the runtime's host
// loop (conv_desc.h), a different implementation from the fake's.
//
// A separate executable: the backend loads its driver and cuDNN once per
// process; main() points TANDEM_CUDA_DRIVER and TANDEM_CUDNN_LIBRARY at the
// fakes before anything opens a device.
//
//===----------------------------------------------------------------------===//

#include "StatusHelpers.h"
#include "device/device.h"
#include "kernels/conv_desc.h"
#include "tandem/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "gtest/gtest.h"

#if !defined(TANDEM_FAKE_CUDA_PATH) || !defined(TANDEM_FAKE_CUDNN_PATH)
#error "TANDEM_FAKE_CUDA_PATH and TANDEM_FAKE_CUDNN_PATH must be defined"
#endif

namespace {

/// What the child process's TANDEM_CUDNN_LIBRARY names.
constexpr const char *kMissing = "/nonexistent/libcudnn.so.9";

bool inMissingChild() {
  const char *library = std::getenv("TANDEM_CUDNN_LIBRARY");
  return library && std::strcmp(library, kMissing) == 0;
}

/// The fake cuDNN's test hooks (the instance the backend loaded).
struct FakeDnn {
  void (*counts)(int *, int *, int *, int *, int *) = nullptr;
  int (*lastAlgo)(size_t *) = nullptr;
  int (*liveObjects)() = nullptr;
  void (*reset)() = nullptr;
  int (*hostOps)() = nullptr;
  int (*lastMath)() = nullptr;
  int (*lastFormat)() = nullptr;

  static const FakeDnn &get() {
    static const FakeDnn fake = [] {
      FakeDnn f;
      void *dnn = dlopen(TANDEM_FAKE_CUDNN_PATH, RTLD_NOW | RTLD_LOCAL);
      void *cuda = dlopen(TANDEM_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
      if (!dnn || !cuda)
        return f;
      f.counts = reinterpret_cast<decltype(f.counts)>(
          dlsym(dnn, "tandem_fake_cudnn_counts"));
      f.lastAlgo = reinterpret_cast<decltype(f.lastAlgo)>(
          dlsym(dnn, "tandem_fake_cudnn_last_algo"));
      f.liveObjects = reinterpret_cast<decltype(f.liveObjects)>(
          dlsym(dnn, "tandem_fake_cudnn_live_objects"));
      f.reset = reinterpret_cast<decltype(f.reset)>(
          dlsym(dnn, "tandem_fake_cudnn_reset"));
      f.lastMath = reinterpret_cast<decltype(f.lastMath)>(
          dlsym(dnn, "tandem_fake_cudnn_last_math"));
      f.lastFormat = reinterpret_cast<decltype(f.lastFormat)>(
          dlsym(dnn, "tandem_fake_cudnn_last_format"));
      f.hostOps = reinterpret_cast<decltype(f.hostOps)>(
          dlsym(cuda, "tandem_fake_cuda_host_op_count"));
      return f;
    }();
    return fake;
  }
};

tandem_conv_desc_t makeDesc(int64_t n, int64_t c, int64_t h, int64_t w,
                            int64_t k, int64_t r, int64_t s, int64_t groups,
                            int64_t stride, int64_t pad, int64_t dilation,
                            int64_t activation, int64_t flags) {
  tandem_conv_desc_t d = {};
  d.n = n, d.c = c, d.h = h, d.w = w, d.k = k, d.r = r, d.s = s;
  d.groups = groups;
  d.stride_h = d.stride_w = stride;
  d.pad_h = d.pad_w = pad;
  d.dilation_h = d.dilation_w = dilation;
  d.p = (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1;
  d.q = (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1;
  d.activation = activation;
  d.flags = flags;
  return d;
}

std::vector<float> pattern(size_t n, float scale, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>(((i * 7919 + seed * 104729) % 23)) / 11 -
           scale;
  return v;
}

/// cuda:0 on the fake driver, with the fake cuDNN.
class CudnnFake : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NE(FakeDnn::get().reset, nullptr) << "the fake cuDNN's hooks";
    FakeDnn::get().reset();
    ASSERT_OK(tandem_device_open("cuda:0", nullptr, &device));
    ASSERT_OK(tandem_stream_create(device, &stream));
  }
  void TearDown() override {
    tandem_stream_destroy(stream);
    tandem_device_close(device);
    // Every cuDNN descriptor and the handle go with the device.
    EXPECT_EQ(FakeDnn::get().liveObjects(), 0);
  }

  /// A device buffer holding `data`.
  tandem_device_ptr_t upload(const std::vector<float> &data) {
    tandem_device_ptr_t ptr = 0;
    uint64_t bytes = data.size() * sizeof(float);
    EXPECT_OK(tandem_device_alloc(device, bytes, &ptr));
    EXPECT_OK(tandem_memcpy_h2d_async(stream, ptr, data.data(), bytes));
    EXPECT_OK(tandem_stream_synchronize(stream));
    return ptr;
  }
  std::vector<float> download(tandem_device_ptr_t ptr, size_t n) {
    std::vector<float> out(n);
    EXPECT_OK(
        tandem_memcpy_d2h_async(stream, out.data(), ptr, n * sizeof(float)));
    EXPECT_OK(tandem_stream_synchronize(stream));
    return out;
  }

  /// Runs `d` through cuDNN and the host loop on the same data; they must
  /// agree to float rounding. Returns cuDNN's output.
  std::vector<float> expectMatchesHost(const tandem_conv_desc_t &d) {
    using namespace tandem::conv;
    size_t nx = extentBytes(d, kX) / 4, nw = extentBytes(d, kW) / 4,
           ny = extentBytes(d, kY) / 4;
    std::vector<float> x = pattern(nx, 1.0f, 1), w = pattern(nw, 0.5f, 2),
                       bias = pattern(size_t(d.k), 0.25f, 3),
                       z = pattern(ny, 0.75f, 4), expected(ny);
    tandem_device_ptr_t dx = upload(x), dw = upload(w),
                        dy = upload(std::vector<float>(ny, -7.0f));
    tandem_device_ptr_t db = hasBias(d) ? upload(bias) : 0;
    tandem_device_ptr_t dz = hasResidual(d) ? upload(z) : 0;
    EXPECT_OK(tandem_device_conv(stream, &d, dx, dw, dy, db, dz, "conv"));
    std::vector<float> got = download(dy, ny);
    runOnHost(nullptr, d, x.data(), w.data(), expected.data(), bias.data(),
              z.data());
    for (size_t i = 0; i < ny; ++i)
      EXPECT_NEAR(got[i], expected[i], 1e-4f * (1 + std::fabs(expected[i])))
          << "element " << i << " of a " << activationName(d.activation)
          << " conv with flags " << d.flags;
    for (tandem_device_ptr_t p : {dx, dw, dy, db, dz})
      if (p)
        EXPECT_OK(tandem_device_free(device, p));
    return got;
  }

  tandem_device_t *device = nullptr;
  tandem_stream_t *stream = nullptr;
};

TEST_F(CudnnFake, GroupsStridesPadsDilationsMatchTheHostLoop) {
  EXPECT_TRUE(device->hasConv());
  expectMatchesHost(makeDesc(1, 3, 7, 7, 4, 3, 3, 1, 1, 1, 1, 0, 0));
  expectMatchesHost(makeDesc(2, 4, 9, 8, 6, 3, 3, 2, 2, 1, 1, 0, 0));
  expectMatchesHost(makeDesc(1, 6, 8, 8, 6, 3, 3, 6, 1, 2, 2, 0, 0));
  expectMatchesHost(makeDesc(1, 2, 6, 6, 3, 1, 1, 1, 2, 0, 1, 0, 0));
}

TEST_F(CudnnFake, EachEpilogueMatchesTheHostLoop) {
  const int64_t flagSets[] = {0, TANDEM_CONV_BIAS, TANDEM_CONV_RESIDUAL,
                              TANDEM_CONV_BIAS | TANDEM_CONV_RESIDUAL};
  for (int64_t act = TANDEM_CONV_ACT_NONE; act <= TANDEM_CONV_ACT_SWISH; ++act)
    for (int64_t flags : flagSets)
      expectMatchesHost(makeDesc(1, 4, 6, 6, 4, 3, 3, 2, 1, 1, 1, act, flags));
  // With a bias one fused call (ReLU inside it); without, a convolution
  // plus cudnnAddTensor for the residual; other activations one more call.
  int convs, fused, adds, activations, queries;
  FakeDnn::get().counts(&convs, &fused, &adds, &activations, &queries);
  EXPECT_EQ(convs, 20);
  EXPECT_EQ(fused, 10);
  EXPECT_EQ(adds, 5);
  EXPECT_EQ(activations, 4 * 3 + 2); // relu6/sigmoid/swish, relu unfused
}

TEST_F(CudnnFake, ChannelsLastDescriptorsUseNHWCAndMatchTheHostLoop) {
  // TANDEM_CONV_NHWC: cuDNN gets NHWC tensors and a KRSC filter (format 1);
  // the fake indexes them directly, the host path through NCHW copies.
  ASSERT_NE(FakeDnn::get().lastFormat, nullptr);
  const int64_t kNHWC = TANDEM_CONV_NHWC;
  for (int64_t flags :
       {kNHWC, kNHWC | TANDEM_CONV_BIAS, kNHWC | TANDEM_CONV_RESIDUAL,
        kNHWC | TANDEM_CONV_BIAS | TANDEM_CONV_RESIDUAL}) {
    expectMatchesHost(
        makeDesc(1, 4, 6, 5, 6, 3, 3, 2, 1, 1, 1, TANDEM_CONV_ACT_RELU, flags));
    EXPECT_EQ(FakeDnn::get().lastFormat(), 1);
  }
  expectMatchesHost(makeDesc(2, 6, 8, 7, 6, 3, 3, 6, 2, 1, 1,
                             TANDEM_CONV_ACT_RELU6, kNHWC | TANDEM_CONV_BIAS));
  expectMatchesHost(
      makeDesc(1, 3, 9, 9, 5, 1, 1, 1, 1, 0, 1, TANDEM_CONV_ACT_NONE, kNHWC));
  EXPECT_EQ(FakeDnn::get().lastFormat(), 1);
  expectMatchesHost(makeDesc(1, 3, 9, 9, 5, 1, 1, 1, 1, 0, 1,
                             TANDEM_CONV_ACT_NONE, TANDEM_CONV_BIAS));
  EXPECT_EQ(FakeDnn::get().lastFormat(), 0);
}

TEST_F(CudnnFake, PrecisionFlagsChooseTheMathTypeAndRoundLikeTheHostLoop) {
  // FP32 is CUDNN_FMA_MATH (3), TF32 CUDNN_TENSOR_OP_MATH (1), FP16
  // CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION (2). The fake rounds the operands
  // as each math type does; the host loop must round them the same way.
  const int64_t kFlags = TANDEM_CONV_BIAS;
  std::vector<float> fp32 = expectMatchesHost(
      makeDesc(1, 8, 6, 6, 4, 3, 3, 1, 1, 1, 1, TANDEM_CONV_ACT_NONE, kFlags));
  EXPECT_EQ(FakeDnn::get().lastMath(), 3);
  std::vector<float> tf32 = expectMatchesHost(
      makeDesc(1, 8, 6, 6, 4, 3, 3, 1, 1, 1, 1, TANDEM_CONV_ACT_NONE,
               kFlags | TANDEM_CONV_ALLOW_TF32));
  EXPECT_EQ(FakeDnn::get().lastMath(), 1);
  std::vector<float> fp16 = expectMatchesHost(
      makeDesc(1, 8, 6, 6, 4, 3, 3, 1, 1, 1, 1, TANDEM_CONV_ACT_NONE,
               kFlags | TANDEM_CONV_ALLOW_FP16));
  EXPECT_EQ(FakeDnn::get().lastMath(), 2);
  // The rounding shows: the operands (multiples of 1/11) are not exact in
  // 11 significant bits, so both modes move the result past float noise.
  double tf32Error = 0, fp16Error = 0;
  for (size_t i = 0; i < fp32.size(); ++i) {
    tf32Error = std::max(tf32Error, double(std::fabs(tf32[i] - fp32[i])));
    fp16Error = std::max(fp16Error, double(std::fabs(fp16[i] - fp32[i])));
  }
  EXPECT_GT(tf32Error, 1e-5);
  EXPECT_GT(fp16Error, 1e-5);
  EXPECT_LT(fp16Error, 2e-2);
}

TEST_F(CudnnFake, ChoosesAnAlgorithmWithinTheWorkspaceOncePerShape) {
  // The fake ranks GEMM (1 GiB of workspace) first: it does not fit.
  tandem_conv_desc_t d = makeDesc(1, 2, 5, 5, 2, 3, 3, 1, 1, 1, 1, 0, 0);
  expectMatchesHost(d);
  size_t workspace = 1;
  EXPECT_EQ(FakeDnn::get().lastAlgo(&workspace), 0); // IMPLICIT_GEMM
  EXPECT_EQ(workspace, 0u);
  expectMatchesHost(d);
  int convs, fused, adds, activations, queries;
  FakeDnn::get().counts(&convs, &fused, &adds, &activations, &queries);
  EXPECT_EQ(queries, 1) << "the heuristics ran again for a known shape";
  // A fused call without ReLU must use IMPLICIT_PRECOMP_GEMM.
  expectMatchesHost(makeDesc(1, 2, 5, 5, 2, 3, 3, 1, 1, 1, 1,
                             TANDEM_CONV_ACT_NONE, TANDEM_CONV_BIAS));
  EXPECT_EQ(FakeDnn::get().lastAlgo(&workspace), 1);
  FakeDnn::get().counts(&convs, &fused, &adds, &activations, &queries);
  EXPECT_EQ(queries, 1);
}

TEST_F(CudnnFake, CapturesAndReplaysAfterTheFirstCall) {
  tandem_conv_desc_t d = makeDesc(1, 2, 4, 4, 2, 3, 3, 1, 1, 1, 1,
                                  TANDEM_CONV_ACT_RELU, TANDEM_CONV_BIAS);
  std::vector<float> x = pattern(32, 1.0f, 5), w = pattern(36, 0.5f, 6),
                     bias = pattern(2, 0.25f, 7);
  tandem_device_ptr_t dx = upload(x), dw = upload(w), db = upload(bias),
                      dy = upload(std::vector<float>(32, 0.0f));
  // A shape's first call is refused inside a capture (the algorithm is
  // chosen and the workspace allocated outside captures).
  ASSERT_OK(tandem_stream_begin_capture(stream));
  tandem_test::Status refused(
      tandem_device_conv(stream, &d, dx, dw, dy, db, 0, "first"));
  EXPECT_EQ(refused.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(refused.message.find("not prepared for this convolution"),
            std::string::npos)
      << refused.message;
  tandem_device_graph_t *graph = nullptr;
  tandem_status_free(tandem_stream_end_capture(stream, &graph));
  tandem_device_graph_destroy(graph);
  graph = nullptr;

  ASSERT_OK(tandem_device_conv(stream, &d, dx, dw, dy, db, 0, "conv"));
  int before = FakeDnn::get().hostOps();
  ASSERT_OK(tandem_stream_begin_capture(stream));
  ASSERT_OK(tandem_device_conv(stream, &d, dx, dw, dy, db, 0, "conv"));
  ASSERT_OK(tandem_stream_end_capture(stream, &graph));
  EXPECT_EQ(FakeDnn::get().hostOps(), before) << "a captured conv ran";
  // Each replay recomputes from the current input.
  for (float scale : {1.0f, -2.0f}) {
    std::vector<float> xs(x);
    for (float &v : xs)
      v *= scale;
    EXPECT_OK(tandem_memcpy_h2d_async(stream, dx, xs.data(), 32 * 4));
    ASSERT_OK(tandem_device_graph_launch(graph, stream));
    std::vector<float> got = download(dy, 32), expected(32);
    tandem::conv::runOnHost(nullptr, d, xs.data(), w.data(), expected.data(),
                            bias.data(), nullptr);
    for (size_t i = 0; i < 32; ++i)
      ASSERT_NEAR(got[i], expected[i], 1e-4f * (1 + std::fabs(expected[i])));
  }
  EXPECT_EQ(FakeDnn::get().hostOps(), before + 2);
  tandem_device_graph_destroy(graph);
  for (tandem_device_ptr_t p : {dx, dw, db, dy})
    EXPECT_OK(tandem_device_free(device, p));
}

// What model creation does (program.cpp): the compute stream prepares the
// model's convolutions, so each algorithm is chosen once, the workspace is
// allocated for the largest, and even a first call can be captured.
TEST_F(CudnnFake, PreparedConvolutionsNeedNoSetUpWhenCaptured) {
  tandem_conv_desc_t a = makeDesc(1, 2, 4, 4, 2, 3, 3, 1, 1, 1, 1,
                                  TANDEM_CONV_ACT_RELU, TANDEM_CONV_BIAS);
  tandem_conv_desc_t b = makeDesc(1, 2, 4, 4, 2, 1, 1, 2, 1, 0, 1,
                                  TANDEM_CONV_ACT_NONE, TANDEM_CONV_BIAS);
  const tandem_conv_desc_t *descs[] = {&a, &b, &a};
  ASSERT_OK(stream->prepareConvs(descs, 3));
  int convs, fused, adds, activations, queries;
  FakeDnn::get().counts(&convs, &fused, &adds, &activations, &queries);
  EXPECT_EQ(queries, 1) << "a: heuristics; b: IMPLICIT_PRECOMP_GEMM; a again";
  EXPECT_EQ(convs, 0);
  std::vector<float> x = pattern(32, 1.0f, 8), w = pattern(36, 0.5f, 9),
                     bias = pattern(2, 0.25f, 10);
  tandem_device_ptr_t dx = upload(x), dw = upload(w), db = upload(bias),
                      dy = upload(std::vector<float>(32, 0.0f));
  ASSERT_OK(tandem_stream_begin_capture(stream));
  ASSERT_OK(tandem_device_conv(stream, &a, dx, dw, dy, db, 0, "prepared"));
  tandem_device_graph_t *graph = nullptr;
  ASSERT_OK(tandem_stream_end_capture(stream, &graph));
  ASSERT_OK(tandem_device_graph_launch(graph, stream));
  std::vector<float> got = download(dy, 32), expected(32);
  tandem::conv::runOnHost(nullptr, a, x.data(), w.data(), expected.data(),
                          bias.data(), nullptr);
  for (size_t i = 0; i < 32; ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-4f * (1 + std::fabs(expected[i])));
  FakeDnn::get().counts(&convs, &fused, &adds, &activations, &queries);
  EXPECT_EQ(queries, 1) << "a captured call chose an algorithm again";
  tandem_device_graph_destroy(graph);
  for (tandem_device_ptr_t p : {dx, dw, db, dy})
    EXPECT_OK(tandem_device_free(device, p));
}

TEST_F(CudnnFake, RejectsMalformedDescriptors) {
  tandem_conv_desc_t d = makeDesc(1, 2, 4, 4, 2, 3, 3, 1, 1, 1, 1, 0, 0);
  d.p = 5;
  tandem_test::Status bad(
      tandem_device_conv(stream, &d, 64, 64, 64, 0, 0, "c"));
  EXPECT_EQ(bad.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(bad.message.find("p and q do not follow"), std::string::npos)
      << bad.message;
  d = makeDesc(1, 2, 4, 4, 2, 3, 3, 1, 1, 1, 1, 0, TANDEM_CONV_BIAS);
  tandem_test::Status noBias(
      tandem_device_conv(stream, &d, 64, 64, 64, 0, 0, "c"));
  EXPECT_EQ(noBias.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(noBias.message.find("a device pointer is 0"), std::string::npos)
      << noBias.message;
}

// A hand-written model in the shape the compiler emits (ABI version 4):
// one GPU partition that uploads x, runs one library conv (bias + ReLU;
// its generated kernel, never launched here, is the fallback) and
// downloads y, all on the compute stream; the filter and bias are device
// weights. Device arena: x, w, b, y at 256-byte offsets.
namespace model {
constexpr int64_t kN = 1, kC = 2, kH = 6, kW = 6, kK = 3;
constexpr uint64_t kX = 0, kWt = 512, kB = 768, kY = 1024, kArena = 2048;
float filter[kK * kC * 3 * 3];
float bias[kK];
const tandem_conv_desc_t kConv = {kN,
                                  kC,
                                  kH,
                                  kW,
                                  kK,
                                  3,
                                  3,
                                  1,
                                  kH,
                                  kW,
                                  1,
                                  1,
                                  1,
                                  1,
                                  1,
                                  1,
                                  TANDEM_CONV_ACT_RELU,
                                  TANDEM_CONV_BIAS};
const tandem_conv_desc_t *const kConvs[] = {&kConv};
void twin(void **) {}
const tandem_program_kernel_t kKernels[] = {{"k_conv", twin, 4}};
const char kPtx[] = ".visible .entry k_conv(.param .u64 p)\n{ ret; }\n";
const tandem_device_image_t kImages[] = {
    {"sm_90", TANDEM_IMAGE_PTX, kPtx, sizeof(kPtx)}};
const tandem_device_weight_t kWeights[] = {{kWt, filter, sizeof(filter)},
                                           {kB, bias, sizeof(bias)}};
const char *const kPartitions[] = {"conv_p0_gpu0"};
const uint64_t kArenas[] = {kArena};
const int32_t kWeightDevices[] = {0, 0};
const tandem_device_program_t kProgram = {
    1,           kKernels, 1,       kImages,        2, kWeights, kArena, 0, 1,
    kPartitions, 1,        kArenas, kWeightDevices, 1, kConvs};
int32_t entry(const tandem_exec_ctx_t *ctx, const void *const *inputs,
              void *const *outputs) {
  uint64_t base = tandem_sched_device_base(ctx);
  tandem_sched_copy_h2d(ctx, 0, base + kX, inputs[0],
                        kN * kC * kH * kW * sizeof(float));
  tandem_sched_partition_begin(ctx, 0, 0);
  if (!tandem_sched_conv(ctx, 0, 0, &kConv, base + kX, base + kWt, base + kY,
                         base + kB, 0)) {
    uint64_t args[] = {base + kX, base + kB, base + kWt, base + kY};
    tandem_sched_launch(ctx, 0, 0, 1, 1, 1, 32, 1, 1, args);
  }
  tandem_sched_partition_end(ctx, 0, 0);
  tandem_sched_copy_d2h(ctx, 0, outputs[0], base + kY,
                        kN * kK * kH * kW * sizeof(float));
  return 0;
}
const int64_t kInShape[] = {kN, kC, kH, kW}, kOutShape[] = {kN, kK, kH, kW};
const tandem_tensor_desc_t kInputs[] = {{"x", TANDEM_F32, 4, kInShape}};
const tandem_tensor_desc_t kOutputs[] = {{"y", TANDEM_F32, 4, kOutShape}};
const tandem_model_desc_t kDescriptor = {
    TANDEM_ABI_VERSION, "conv", 1, 1,     kInputs,
    kOutputs,           0,      0, entry, &kProgram};
} // namespace model

// Model creation prepares the program's convolution (the one heuristics
// query, before any run); the first run enqueues it directly, the second
// captures the partition (the conv included) into a CUDA Graph and the
// third replays it; every output matches the host loop.
TEST(CudnnFakeModel, PreparesAtCreationAndCapturesTheConv) {
  ASSERT_NE(FakeDnn::get().reset, nullptr);
  FakeDnn::get().reset();
  std::vector<float> w = pattern(std::size(model::filter), 0.5f, 11),
                     b = pattern(std::size(model::bias), 0.25f, 12);
  std::copy(w.begin(), w.end(), model::filter);
  std::copy(b.begin(), b.end(), model::bias);
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.device = "cuda:0";
  options.intra_op_threads = 1;
  tandem_model_t *m = nullptr;
  ASSERT_OK(tandem_model_create(&model::kDescriptor, &options, &m));
  int convs, fused, adds, activations, queries;
  FakeDnn::get().counts(&convs, &fused, &adds, &activations, &queries);
  EXPECT_EQ(queries, 1) << "the algorithm was not chosen at creation";
  EXPECT_EQ(convs, 0);
  for (int run = 0; run < 3; ++run) {
    std::vector<float> x = pattern(72, 1.0f + run, 13 + run), y(108, -1.0f),
                       expected(108);
    const void *inputs[] = {x.data()};
    void *outputs[] = {y.data()};
    ASSERT_OK(tandem_model_run(m, inputs, outputs));
    tandem::conv::runOnHost(nullptr, model::kConv, x.data(), w.data(),
                            expected.data(), b.data(), nullptr);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], expected[i], 1e-4f * (1 + std::fabs(expected[i])))
          << "run " << run << ", element " << i;
  }
  tandem_model_stats_t stats = {};
  ASSERT_OK(tandem_model_stats(m, &stats, 0));
  EXPECT_EQ(stats.graph_captures, 1u);
  EXPECT_EQ(stats.graph_launches, 2u);
  EXPECT_EQ(stats.captured_launches, 1u);
  FakeDnn::get().counts(&convs, &fused, &adds, &activations, &queries);
  EXPECT_EQ(queries, 1);
  EXPECT_EQ(convs, 2) << "one direct and one captured cuDNN call";
  tandem_model_destroy(m);
  EXPECT_EQ(FakeDnn::get().liveObjects(), 0);
}

// Without cuDNN: hasConv() is false (tandem_sched_conv then returns 0 and
// the generated kernels run) and tandem_device_conv is unavailable. Runs
// in a child process whose TANDEM_CUDNN_LIBRARY names a missing file.
TEST(MissingCudnn, FallsBackToTheGeneratedKernels) {
  if (!inMissingChild()) {
    std::string self = "/proc/self/exe";
    char path[4096] = {};
    ssize_t n = readlink(self.c_str(), path, sizeof(path) - 1);
    ASSERT_GT(n, 0);
    // The child runs this one test, unsharded (lit shards the parent).
    std::string command = std::string("env -u GTEST_OUTPUT -u "
                                      "GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX "
                                      "-u GTEST_FILTER TANDEM_CUDNN_LIBRARY=") +
                          kMissing + " '" + path +
                          "' --gtest_filter=MissingCudnn.* 2>&1";
    FILE *child = popen(command.c_str(), "r");
    ASSERT_NE(child, nullptr);
    std::string output;
    char buffer[512];
    while (fgets(buffer, sizeof(buffer), child))
      output += buffer;
    int status = pclose(child);
    EXPECT_EQ(status, 0) << output;
    EXPECT_NE(output.find("[  PASSED  ] 1 test."), std::string::npos) << output;
    EXPECT_NE(output.find("cannot load cuDNN (" + std::string(kMissing)),
              std::string::npos)
        << output;
    EXPECT_NE(output.find("convolutions run as generated kernels"),
              std::string::npos)
        << output;
    return;
  }
  tandem_device_t *device = nullptr;
  ASSERT_OK(tandem_device_open("cuda:0", nullptr, &device));
  EXPECT_FALSE(device->hasConv());
  tandem_stream_t *stream = nullptr;
  ASSERT_OK(tandem_stream_create(device, &stream));
  tandem_conv_desc_t d = makeDesc(1, 2, 4, 4, 2, 3, 3, 1, 1, 1, 1, 0, 0);
  tandem_device_ptr_t buffer = 0;
  ASSERT_OK(tandem_device_alloc(device, 1024, &buffer));
  tandem_test::Status status(
      tandem_device_conv(stream, &d, buffer, buffer, buffer, 0, 0, "c"));
  EXPECT_EQ(status.code, TANDEM_UNAVAILABLE);
  EXPECT_NE(status.message.find("cuDNN is not available"), std::string::npos)
      << status.message;
  EXPECT_OK(tandem_device_free(device, buffer));
  tandem_stream_destroy(stream);
  tandem_device_close(device);
}

} // namespace

int main(int argc, char **argv) {
  // Before anything opens a device: the backend loads its driver and cuDNN
  // once. The missing-library child keeps its TANDEM_CUDNN_LIBRARY.
  setenv("TANDEM_CUDA_DRIVER", TANDEM_FAKE_CUDA_PATH, 1);
  if (!inMissingChild())
    setenv("TANDEM_CUDNN_LIBRARY", TANDEM_FAKE_CUDNN_PATH, 1);
  unsetenv("TANDEM_DEVICE");
  unsetenv("TANDEM_QUIET");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
