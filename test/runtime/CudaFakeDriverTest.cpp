//===- CudaFakeDriverTest.cpp - The CUDA backend over a fake driver -------===//
//
// Runs the runtime's CUDA backend (runtime/src/device/cuda.cpp) through the
// public device API on the fake driver libtandem_fake_cuda.so
// (FakeCudaDriver.cpp), so that its host logic is tested without a GPU:
// opening, memory and copies, events, modules and launches, stream capture
// and graph replay, the timing of ops for traces, and that closing a device
// releases every driver object.
//
// A separate executable from TandemRuntimeTests: the backend loads its
// driver once per process, and main() points TANDEM_CUDA_DRIVER at the fake
// before anything opens a device.
//
//===----------------------------------------------------------------------===//

#include "StatusHelpers.h"
#include "device/device.h"
#include "tandem/runtime.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "gtest/gtest.h"

#ifndef TANDEM_FAKE_CUDA_PATH
#error "TANDEM_FAKE_CUDA_PATH (the fake driver's path) must be defined"
#endif

namespace {

using tandem_test::Status;

/// Expects `expr` to fail with `expected` (a code) and a message containing
/// `fragment`.
#define EXPECT_STATUS(expr, expected, fragment)                                \
  do {                                                                         \
    Status status_(expr);                                                      \
    EXPECT_EQ(status_.code, expected) << status_.message;                      \
    EXPECT_NE(status_.message.find(fragment), std::string::npos)               \
        << status_.message;                                                    \
  } while (false)

/// The fake driver's entry points that tests call directly: its test hooks,
/// and a few driver functions for checks the backend does not make. The
/// library is the one the backend loaded (same path, so the same instance).
struct Fake {
  using Result = int;
  struct Opaque;

  int (*launchCount)() = nullptr;
  const char *(*lastKernel)() = nullptr;
  void (*lastDims)(unsigned *, unsigned *) = nullptr;
  int (*liveObjects)() = nullptr;
  int (*contextRetains)() = nullptr;
  void (*reset)() = nullptr;
  Result (*init)(unsigned) = nullptr;
  Result (*primaryCtxRetain)(Opaque **, int) = nullptr;
  Result (*primaryCtxRelease)(int) = nullptr;
  Result (*ctxPush)(Opaque *) = nullptr;
  Result (*ctxPop)(Opaque **) = nullptr;
  Result (*eventCreate)(Opaque **, unsigned) = nullptr;
  Result (*eventDestroy)(Opaque *) = nullptr;
  Result (*eventRecord)(Opaque *, Opaque *) = nullptr;
  Result (*eventElapsedTime)(float *, Opaque *, Opaque *) = nullptr;

  static const Fake &get() {
    static const Fake fake = load();
    return fake;
  }

private:
  template <typename F> static void bind(void *handle, const char *name, F &f) {
    f = reinterpret_cast<F>(dlsym(handle, name));
    if (!f)
      ADD_FAILURE() << TANDEM_FAKE_CUDA_PATH << " lacks " << name;
  }

  static Fake load() {
    Fake fake;
    void *handle = dlopen(TANDEM_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      ADD_FAILURE() << "dlopen: " << dlerror();
      return fake;
    }
    bind(handle, "tandem_fake_cuda_launch_count", fake.launchCount);
    bind(handle, "tandem_fake_cuda_last_kernel", fake.lastKernel);
    bind(handle, "tandem_fake_cuda_last_dims", fake.lastDims);
    bind(handle, "tandem_fake_cuda_live_objects", fake.liveObjects);
    bind(handle, "tandem_fake_cuda_context_retains", fake.contextRetains);
    bind(handle, "tandem_fake_cuda_reset", fake.reset);
    bind(handle, "cuInit", fake.init);
    bind(handle, "cuDevicePrimaryCtxRetain", fake.primaryCtxRetain);
    bind(handle, "cuDevicePrimaryCtxRelease_v2", fake.primaryCtxRelease);
    bind(handle, "cuCtxPushCurrent_v2", fake.ctxPush);
    bind(handle, "cuCtxPopCurrent_v2", fake.ctxPop);
    bind(handle, "cuEventCreate", fake.eventCreate);
    bind(handle, "cuEventDestroy_v2", fake.eventDestroy);
    bind(handle, "cuEventRecord", fake.eventRecord);
    bind(handle, "cuEventElapsedTime", fake.eventElapsedTime);
    return fake;
  }
};

/// A PTX-like image naming two kernels (the fake finds names in the text).
const char kTwoKernels[] = "//\n// fake module\n.version 8.0\n.target sm_90\n"
                           ".visible .entry scale(.param .u64 p)\n{ ret; }\n"
                           ".visible .entry add(.param .u64 p)\n{ ret; }\n";

/// Opens cuda:0 on the fake driver for each test; closing it must release
/// every driver object the backend made and its context retain.
class CudaFake : public ::testing::Test {
protected:
  void SetUp() override {
    const Fake &fake = Fake::get();
    ASSERT_NE(fake.reset, nullptr);
    fake.reset();
    liveBefore = fake.liveObjects();
    ASSERT_OK(tandem_device_open("cuda:0", nullptr, &device));
    ASSERT_NE(device, nullptr);
  }

  void TearDown() override {
    tandem_device_close(device);
    const Fake &fake = Fake::get();
    if (!fake.liveObjects)
      return;
    EXPECT_EQ(fake.liveObjects(), liveBefore)
        << "tandem_device_close left driver objects alive";
    EXPECT_EQ(fake.contextRetains(), 0)
        << "tandem_device_close did not release the primary context";
  }

  tandem_stream_t *makeStream() {
    tandem_stream_t *stream = nullptr;
    EXPECT_OK(tandem_stream_create(device, &stream));
    return stream;
  }

  tandem_device_ptr_t alloc(uint64_t bytes) {
    tandem_device_ptr_t ptr = 0;
    EXPECT_OK(tandem_device_alloc(device, bytes, &ptr));
    return ptr;
  }

  tandem_device_t *device = nullptr;
  int liveBefore = 0;
};

TEST_F(CudaFake, OpensTheFakeDevice) {
  EXPECT_EQ(tandem_device_kind(device), TANDEM_DEVICE_CUDA);
  EXPECT_STREQ(tandem_device_name(device), "cuda:0 (Tandem fake GPU)");
  EXPECT_STREQ(device->arch(), "sm_90");
  EXPECT_EQ(Fake::get().contextRetains(), 1);

  // "cuda" is cuda:0; a second open shares the primary context.
  tandem_device_t *second = nullptr;
  ASSERT_OK(tandem_device_open("cuda", nullptr, &second));
  EXPECT_EQ(Fake::get().contextRetains(), 2);
  tandem_device_close(second);
  EXPECT_EQ(Fake::get().contextRetains(), 1);

  tandem_device_t *missing = nullptr;
  EXPECT_STATUS(tandem_device_open("cuda:1", nullptr, &missing),
                TANDEM_INVALID_ARGUMENT, "there is 1 CUDA device");
  EXPECT_EQ(missing, nullptr);
}

TEST_F(CudaFake, AutoPicksTheCudaDevice) {
  tandem_device_t *picked = nullptr;
  ASSERT_OK(tandem_device_open("auto", nullptr, &picked));
  EXPECT_EQ(tandem_device_kind(picked), TANDEM_DEVICE_CUDA);
  tandem_device_close(picked);
}

TEST_F(CudaFake, CopiesRoundTrip) {
  constexpr size_t kCount = 1000;
  constexpr uint64_t kBytes = kCount * sizeof(float);
  void *pinned = nullptr;
  ASSERT_OK(tandem_device_host_alloc(device, kBytes, &pinned));
  float *input = static_cast<float *>(pinned);
  for (size_t i = 0; i < kCount; ++i)
    input[i] = static_cast<float>(i) * 0.5f;
  tandem_device_ptr_t a = alloc(kBytes);
  tandem_device_ptr_t b = alloc(kBytes);
  EXPECT_EQ(a % 256, 0u);
  tandem_stream_t *stream = makeStream();
  std::vector<float> output(kCount, -1.0f);
  EXPECT_OK(tandem_memcpy_h2d_async(stream, a, input, kBytes));
  EXPECT_OK(tandem_memcpy_d2d_async(stream, b, a, kBytes));
  EXPECT_OK(tandem_memcpy_d2h_async(stream, output.data(), b, kBytes));
  EXPECT_OK(tandem_stream_synchronize(stream));
  EXPECT_EQ(std::memcmp(output.data(), input, kBytes), 0);

  // A range past the allocation is refused by the driver, and reported.
  EXPECT_STATUS(tandem_memcpy_h2d_async(stream, a + 4, input, kBytes),
                TANDEM_INVALID_ARGUMENT, "cuMemcpyHtoDAsync");

  EXPECT_OK(tandem_stream_destroy(stream));
  EXPECT_OK(tandem_device_free(device, a));
  EXPECT_STATUS(tandem_device_free(device, a), TANDEM_INVALID_ARGUMENT,
                "not the start of a live allocation");
  EXPECT_OK(tandem_device_host_free(device, pinned));
  // b is released by tandem_device_close (checked in TearDown).
}

TEST_F(CudaFake, EventsOrderTwoStreams) {
  constexpr uint64_t kBytes = 64;
  tandem_device_ptr_t buffer = alloc(kBytes);
  tandem_stream_t *producer = makeStream();
  tandem_stream_t *consumer = makeStream();
  tandem_event_t *event = nullptr;
  ASSERT_OK(tandem_event_create(device, &event));

  // Never recorded: complete.
  int32_t done = 0;
  EXPECT_OK(tandem_event_query(event, &done));
  EXPECT_EQ(done, 1);

  std::vector<uint8_t> in(kBytes), out(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i)
    in[i] = static_cast<uint8_t>(i * 7);
  EXPECT_OK(tandem_memcpy_h2d_async(producer, buffer, in.data(), kBytes));
  EXPECT_OK(tandem_event_record(event, producer));
  EXPECT_OK(tandem_stream_wait_event(consumer, event));
  EXPECT_OK(tandem_memcpy_d2h_async(consumer, out.data(), buffer, kBytes));
  EXPECT_OK(tandem_event_synchronize(event));
  EXPECT_OK(tandem_event_query(event, &done));
  EXPECT_EQ(done, 1);
  EXPECT_OK(tandem_stream_synchronize(consumer));
  EXPECT_EQ(in, out);
  EXPECT_OK(tandem_device_synchronize(device));

  tandem_event_destroy(event);
  EXPECT_OK(tandem_stream_destroy(producer));
  // consumer is destroyed by tandem_device_close.
}

TEST_F(CudaFake, LaunchesKernelsOfAModule) {
  tandem_device_module_t *module = nullptr;
  ASSERT_OK(tandem_device_module_load(device, kTwoKernels, sizeof(kTwoKernels),
                                      &module));
  tandem_device_kernel_t *scale = nullptr;
  ASSERT_OK(tandem_device_module_get_kernel(module, "scale", &scale));
  tandem_device_kernel_t *again = nullptr;
  ASSERT_OK(tandem_device_module_get_kernel(module, "scale", &again));
  EXPECT_EQ(scale, again);

  tandem_device_ptr_t buffer = alloc(256);
  tandem_kernel_arg_t arg = {&buffer, sizeof(buffer),
                             TANDEM_KERNEL_ARG_DEVICE_PTR};
  tandem_launch_dims_t dims = {{4, 2, 1}, {128, 1, 1}, 0};
  tandem_stream_t *stream = makeStream();
  const Fake &fake = Fake::get();
  EXPECT_OK(tandem_device_launch(stream, scale, &dims, &arg, 1));
  EXPECT_EQ(fake.launchCount(), 1);
  EXPECT_STREQ(fake.lastKernel(), "scale");
  unsigned grid[3] = {}, block[3] = {};
  fake.lastDims(grid, block);
  EXPECT_EQ(grid[0], 4u);
  EXPECT_EQ(grid[1], 2u);
  EXPECT_EQ(grid[2], 1u);
  EXPECT_EQ(block[0], 128u);
  EXPECT_EQ(block[1], 1u);

  // The driver refuses more than 1024 threads a block; the error names the
  // kernel.
  tandem_launch_dims_t tooBig = {{1, 1, 1}, {1024, 2, 1}, 0};
  EXPECT_STATUS(tandem_device_launch(stream, scale, &tooBig, &arg, 1),
                TANDEM_INVALID_ARGUMENT, "kernel 'scale'");
  EXPECT_EQ(fake.launchCount(), 1);
  EXPECT_OK(tandem_stream_synchronize(stream));
  tandem_device_module_unload(module);
}

TEST_F(CudaFake, ModuleErrors) {
  tandem_device_module_t *module = nullptr;
  ASSERT_OK(tandem_device_module_load(device, kTwoKernels, sizeof(kTwoKernels),
                                      &module));
  tandem_device_kernel_t *kernel = nullptr;
  EXPECT_STATUS(tandem_device_module_get_kernel(module, "missing", &kernel),
                TANDEM_INVALID_ARGUMENT, "no kernel 'missing' in the module");
  EXPECT_STATUS(tandem_device_module_get_kernel(module, "missing", &kernel),
                TANDEM_INVALID_ARGUMENT, "CUDA_ERROR_NOT_FOUND");
  tandem_device_module_unload(module);

  // The fake refuses a text image with its failure marker and fills the
  // JIT error log, which the backend appends to the message.
  const char bad[] = ".version 8.0\n// tandem-fake-cuda: fail to load\n";
  tandem_device_module_t *refused = nullptr;
  Status status(tandem_device_module_load(device, bad, sizeof(bad), &refused));
  EXPECT_EQ(status.code, TANDEM_INVALID_ARGUMENT) << status.message;
  EXPECT_NE(status.message.find("CUDA_ERROR_INVALID_PTX"), std::string::npos)
      << status.message;
  EXPECT_NE(status.message.find("ptxas fatal"), std::string::npos)
      << status.message;
  EXPECT_EQ(refused, nullptr);

  // CPU twins are for the emulated device.
  EXPECT_STATUS(tandem_device_module_load_cpu(device, nullptr, 0, &refused),
                TANDEM_INVALID_ARGUMENT, "CPU twins");
}

TEST_F(CudaFake, CapturedGraphReplays) {
  constexpr uint64_t kBytes = 16 * sizeof(int32_t);
  tandem_device_module_t *module = nullptr;
  ASSERT_OK(tandem_device_module_load(device, kTwoKernels, sizeof(kTwoKernels),
                                      &module));
  tandem_device_kernel_t *scale = nullptr;
  tandem_device_kernel_t *add = nullptr;
  ASSERT_OK(tandem_device_module_get_kernel(module, "scale", &scale));
  ASSERT_OK(tandem_device_module_get_kernel(module, "add", &add));
  tandem_device_ptr_t src = alloc(kBytes);
  tandem_device_ptr_t dst = alloc(kBytes);
  void *pinned = nullptr;
  ASSERT_OK(tandem_device_host_alloc(device, kBytes, &pinned));
  int32_t *host = static_cast<int32_t *>(pinned);
  for (int i = 0; i < 16; ++i)
    host[i] = i;

  tandem_stream_t *stream = makeStream();
  tandem_event_t *event = nullptr;
  ASSERT_OK(tandem_event_create(device, &event));
  tandem_kernel_arg_t arg = {&src, sizeof(src), TANDEM_KERNEL_ARG_DEVICE_PTR};
  tandem_launch_dims_t dims = {{1, 1, 1}, {32, 1, 1}, 0};
  const Fake &fake = Fake::get();

  ASSERT_OK(tandem_stream_begin_capture(stream));
  EXPECT_STATUS(tandem_stream_begin_capture(stream), TANDEM_INVALID_ARGUMENT,
                "already capturing");
  EXPECT_OK(tandem_memcpy_h2d_async(stream, src, host, kBytes));
  EXPECT_OK(tandem_device_launch(stream, scale, &dims, &arg, 1));
  EXPECT_OK(tandem_device_launch(stream, add, &dims, &arg, 1));
  EXPECT_OK(tandem_memcpy_d2d_async(stream, dst, src, kBytes));
  // Capture does not run anything, and refuses events and synchronisation.
  EXPECT_EQ(fake.launchCount(), 0);
  EXPECT_STATUS(tandem_event_record(event, stream), TANDEM_INVALID_ARGUMENT,
                "capturing");
  EXPECT_STATUS(tandem_stream_wait_event(stream, event),
                TANDEM_INVALID_ARGUMENT, "capturing");
  EXPECT_STATUS(tandem_stream_synchronize(stream), TANDEM_INVALID_ARGUMENT,
                "capturing");
  tandem_device_graph_t *graph = nullptr;
  ASSERT_OK(tandem_stream_end_capture(stream, &graph));
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(fake.launchCount(), 0);

  std::vector<int32_t> out(16, -1);
  for (int replay = 1; replay <= 3; ++replay) {
    // The pinned source is read at each replay.
    for (int i = 0; i < 16; ++i)
      host[i] = i * replay;
    ASSERT_OK(tandem_device_graph_launch(graph, stream));
    EXPECT_EQ(fake.launchCount(), 2 * replay);
    EXPECT_STREQ(fake.lastKernel(), "add");
    EXPECT_OK(tandem_memcpy_d2h_async(stream, out.data(), dst, kBytes));
    EXPECT_OK(tandem_stream_synchronize(stream));
    for (int i = 0; i < 16; ++i)
      ASSERT_EQ(out[i], i * replay) << "replay " << replay << ", element " << i;
  }

  // Replaying on another stream works too.
  tandem_stream_t *other = makeStream();
  EXPECT_OK(tandem_device_graph_launch(graph, other));
  EXPECT_EQ(fake.launchCount(), 8);
  EXPECT_OK(tandem_stream_synchronize(other));

  // An empty capture gives an empty graph.
  tandem_device_graph_t *empty = nullptr;
  ASSERT_OK(tandem_stream_begin_capture(stream));
  ASSERT_OK(tandem_stream_end_capture(stream, &empty));
  EXPECT_OK(tandem_device_graph_launch(empty, stream));
  EXPECT_EQ(fake.launchCount(), 8);
  EXPECT_STATUS(tandem_stream_end_capture(stream, &empty),
                TANDEM_INVALID_ARGUMENT, "not capturing");

  tandem_device_graph_destroy(graph);
  tandem_device_graph_destroy(empty);
  tandem_event_destroy(event);
  EXPECT_OK(tandem_stream_destroy(other));
  // module, memory and `stream` are released by tandem_device_close.
}

TEST_F(CudaFake, GraphLaunchIntoACapture) {
  tandem_device_module_t *module = nullptr;
  ASSERT_OK(tandem_device_module_load(device, kTwoKernels, sizeof(kTwoKernels),
                                      &module));
  tandem_device_kernel_t *scale = nullptr;
  ASSERT_OK(tandem_device_module_get_kernel(module, "scale", &scale));
  tandem_launch_dims_t dims = {{1, 1, 1}, {1, 1, 1}, 0};
  tandem_stream_t *stream = makeStream();
  const Fake &fake = Fake::get();

  tandem_device_graph_t *inner = nullptr;
  ASSERT_OK(tandem_stream_begin_capture(stream));
  EXPECT_OK(tandem_device_launch(stream, scale, &dims, nullptr, 0));
  ASSERT_OK(tandem_stream_end_capture(stream, &inner));
  tandem_device_graph_t *outer = nullptr;
  ASSERT_OK(tandem_stream_begin_capture(stream));
  EXPECT_OK(tandem_device_graph_launch(inner, stream));
  EXPECT_OK(tandem_device_graph_launch(inner, stream));
  ASSERT_OK(tandem_stream_end_capture(stream, &outer));
  EXPECT_EQ(fake.launchCount(), 0);
  EXPECT_OK(tandem_device_graph_launch(outer, stream));
  EXPECT_EQ(fake.launchCount(), 2);
  // A stream destroyed mid-capture abandons it.
  ASSERT_OK(tandem_stream_begin_capture(stream));
  EXPECT_OK(tandem_device_launch(stream, scale, &dims, nullptr, 0));
  EXPECT_OK(tandem_stream_destroy(stream));
  EXPECT_EQ(fake.launchCount(), 2);
}

/// The fake's own cuEventElapsedTime contract, which the backend will rely
/// on for op timing: no timing for DISABLE_TIMING events, NOT_READY before
/// both are recorded, else the span in milliseconds.
/// Collects what the device tells its observer.
struct Recorder final : tandem::device::OpObserver {
  struct Op {
    tandem_stream_s *stream;
    tandem::device::OpKind kind;
    std::string name;
    uint64_t bytes, startNs, endNs;
  };
  void onOp(tandem_stream_s *stream, tandem::device::OpKind kind,
            const char *name, uint64_t bytes, uint64_t startNs,
            uint64_t endNs) override {
    std::lock_guard<std::mutex> lock(mutex);
    ops.push_back({stream, kind, name ? name : "", bytes, startNs, endNs});
  }
  std::vector<Op> take() {
    std::lock_guard<std::mutex> lock(mutex);
    return std::move(ops);
  }
  std::mutex mutex;
  std::vector<Op> ops;
};

// Traces on CUDA: with an observer, every copy, kernel and graph replay
// enqueued outside a capture is timed by a pair of events and reported once
// it completed (here at the stream's synchronisation), in order, with its
// execution time (the fake's launches take about 20 us); captured work is
// not reported, its graph's replay is one op under the graph's label; what
// is still pending when the observer is cleared is reported then; and the
// timing events are released when the device closes (TearDown).
TEST_F(CudaFake, ObserverSeesExecutionTimes) {
  using tandem::device::OpKind;
  constexpr uint64_t kBytes = 4096;
  tandem_device_module_t *module = nullptr;
  ASSERT_OK(tandem_device_module_load(device, kTwoKernels, sizeof(kTwoKernels),
                                      &module));
  tandem_device_kernel_t *scale = nullptr;
  ASSERT_OK(tandem_device_module_get_kernel(module, "scale", &scale));
  tandem_device_ptr_t buffer = alloc(kBytes);
  void *pinned = nullptr;
  ASSERT_OK(tandem_device_host_alloc(device, kBytes, &pinned));
  std::memset(pinned, 0, kBytes);
  tandem_stream_t *stream = makeStream();
  tandem_launch_dims_t dims = {{4, 1, 1}, {64, 1, 1}, 0};

  Recorder recorder;
  device->setObserver(&recorder);
  EXPECT_OK(tandem_memcpy_h2d_async(stream, buffer, pinned, kBytes));
  EXPECT_OK(tandem_device_launch(stream, scale, &dims, nullptr, 0));
  EXPECT_OK(tandem_memcpy_d2h_async(stream, pinned, buffer, kBytes));
  EXPECT_TRUE(recorder.take().empty()) << "reported before any sync";
  EXPECT_OK(tandem_stream_synchronize(stream));
  std::vector<Recorder::Op> ops = recorder.take();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].kind, OpKind::H2D);
  EXPECT_EQ(ops[0].bytes, kBytes);
  EXPECT_EQ(ops[1].kind, OpKind::Kernel);
  EXPECT_EQ(ops[1].name, "scale");
  EXPECT_EQ(ops[2].kind, OpKind::D2H);
  EXPECT_EQ(ops[2].bytes, kBytes);
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i].stream, stream) << i;
    EXPECT_LE(ops[i].startNs, ops[i].endNs) << i;
    if (i > 0) {
      EXPECT_LE(ops[i - 1].endNs, ops[i].startNs) << "op " << i << " overlaps";
    }
  }
  EXPECT_GE(ops[1].endNs - ops[1].startNs, 15000u)
      << "the kernel's span is not its execution time";

  // Captured launches are not timed; the replay is, as one op.
  ASSERT_OK(tandem_stream_begin_capture(stream));
  EXPECT_OK(tandem_device_launch(stream, scale, &dims, nullptr, 0));
  EXPECT_OK(tandem_device_launch(stream, scale, &dims, nullptr, 0));
  tandem_device_graph_t *graph = nullptr;
  ASSERT_OK(tandem_stream_end_capture(stream, &graph));
  EXPECT_TRUE(recorder.take().empty()) << "captured work was reported";
  graph->label = "graph p0";
  ASSERT_OK(tandem_device_graph_launch(graph, stream));
  EXPECT_OK(tandem_stream_synchronize(stream));
  ops = recorder.take();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].kind, OpKind::Graph);
  EXPECT_EQ(ops[0].name, "graph p0");
  EXPECT_GE(ops[0].endNs - ops[0].startNs, 30000u)
      << "the replay's span does not cover its two kernels";

  // Work still pending when the observer goes is reported to it first.
  EXPECT_OK(tandem_memcpy_h2d_async(stream, buffer, pinned, kBytes));
  device->setObserver(nullptr);
  ops = recorder.take();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].kind, OpKind::H2D);
  // Without an observer nothing is timed.
  EXPECT_OK(tandem_memcpy_h2d_async(stream, buffer, pinned, kBytes));
  EXPECT_OK(tandem_stream_synchronize(stream));
  EXPECT_TRUE(recorder.take().empty());
  tandem_device_graph_destroy(graph);
}

// Many ops between synchronisations are reported as they complete, in
// batches, not only at the end.
TEST_F(CudaFake, ObserverReportsLongRunsInBatches) {
  constexpr uint64_t kBytes = 256;
  tandem_device_ptr_t buffer = alloc(kBytes);
  void *pinned = nullptr;
  ASSERT_OK(tandem_device_host_alloc(device, kBytes, &pinned));
  tandem_stream_t *stream = makeStream();
  Recorder recorder;
  device->setObserver(&recorder);
  for (int i = 0; i < 200; ++i)
    EXPECT_OK(tandem_memcpy_h2d_async(stream, buffer, pinned, kBytes));
  size_t early = recorder.take().size();
  EXPECT_GE(early, 128u) << "the first batches were not reported";
  EXPECT_OK(tandem_stream_synchronize(stream));
  EXPECT_EQ(early + recorder.take().size(), 200u);
  device->setObserver(nullptr);
}

TEST(CudaFakeDriver, EventElapsedTime) {
  const Fake &fake = Fake::get();
  ASSERT_NE(fake.eventElapsedTime, nullptr);
  ASSERT_EQ(fake.init(0), 0);
  Fake::Opaque *context = nullptr;
  ASSERT_EQ(fake.primaryCtxRetain(&context, 0), 0);
  ASSERT_EQ(fake.ctxPush(context), 0);
  Fake::Opaque *start = nullptr, *end = nullptr, *untimed = nullptr;
  ASSERT_EQ(fake.eventCreate(&start, 0), 0);
  ASSERT_EQ(fake.eventCreate(&end, 0), 0);
  ASSERT_EQ(fake.eventCreate(&untimed, 0x2), 0);
  float ms = -1.0f;
  EXPECT_EQ(fake.eventElapsedTime(&ms, start, end), 600); // NOT_READY
  ASSERT_EQ(fake.eventRecord(start, nullptr), 0);
  ASSERT_EQ(fake.eventRecord(untimed, nullptr), 0);
  EXPECT_EQ(fake.eventElapsedTime(&ms, start, end), 600);
  ASSERT_EQ(fake.eventRecord(end, nullptr), 0);
  EXPECT_EQ(fake.eventElapsedTime(&ms, start, end), 0);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(fake.eventElapsedTime(&ms, start, untimed), 400); // INVALID_HANDLE
  EXPECT_EQ(fake.eventElapsedTime(&ms, untimed, end), 400);
  EXPECT_EQ(fake.eventDestroy(start), 0);
  EXPECT_EQ(fake.eventDestroy(end), 0);
  EXPECT_EQ(fake.eventDestroy(untimed), 0);
  Fake::Opaque *popped = nullptr;
  EXPECT_EQ(fake.ctxPop(&popped), 0);
  EXPECT_EQ(popped, context);
  EXPECT_EQ(fake.primaryCtxRelease(0), 0);
}

} // namespace

int main(int argc, char **argv) {
  // Before anything opens a device: the backend loads its driver once.
  setenv("TANDEM_CUDA_DRIVER", TANDEM_FAKE_CUDA_PATH, 1);
  unsetenv("TANDEM_DEVICE");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
