//===- DeviceProgramTest.cpp - Models with GPU partitions -----------------===//
//
// Runs the hand-written device-program fixture (GpuTestModel.c) the way a
// compiled model with GPU partitions runs: on the emulated device and on the
// CPU fallback, checking results against a direct computation, that events
// really order work (a schedule without a wait fails under delays), CUDA
// Graph replay counters, the pipelined API, traces, and the fallback when
// no CUDA driver exists.
//
//===----------------------------------------------------------------------===//

#include "GpuTestModel.h"
#include "StatusHelpers.h"
#include "device/cuda_images.h"
#include "program/program.h"
#include "program/test_hooks.h"
#include "tandem/runtime.h"

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "gtest/gtest.h"

extern "C" {
extern const tandem_model_desc_t test_add_descriptor;
}

namespace {

using tandem_test::Status;
using tandem_test::take;

using ModelPtr = std::unique_ptr<tandem_model_t, void (*)(tandem_model_t *)>;

/// Sets an environment variable for one scope.
struct ScopedEnv {
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old, hadValue = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadValue)
      setenv(name, saved.c_str(), 1);
    else
      unsetenv(name);
  }
  const char *name;
  std::string saved;
  bool hadValue = false;
};

tandem_model_options_t optionsFor(const char *device) {
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.intra_op_threads = 1;
  options.device = device;
  options.log_fallback = 0;
  return options;
}

ModelPtr create(const tandem_model_desc_t *desc,
                const tandem_model_options_t &options) {
  static bool weights = (gpu_test_init_weights(), true);
  (void)weights;
  tandem_model_t *model = nullptr;
  Status result = take(tandem_model_create(desc, &options, &model));
  EXPECT_EQ(result.code, TANDEM_OK) << result.message;
  return ModelPtr(model, tandem_model_destroy);
}

/// An input that differs per `round`: x in [1, 2).
std::vector<float> input(int round) {
  std::vector<float> x(GPU_TEST_N);
  for (int i = 0; i < GPU_TEST_N; ++i)
    x[i] = 1.0f + static_cast<float>((i * 7 + round * 13) % 100) / 100.0f;
  return x;
}

/// Elements of r that differ from the direct computation.
int mismatches(const std::vector<float> &x, const std::vector<float> &r) {
  int bad = 0;
  for (int i = 0; i < GPU_TEST_N; ++i)
    if (!(r[i] == gpu_test_reference(x[i], i)))
      ++bad;
  return bad;
}

/// Runs once with round's input; returns the number of wrong elements.
int runRound(tandem_model_t *model, int round, Status *status = nullptr) {
  std::vector<float> x = input(round), r(GPU_TEST_N, -1.0f);
  const void *inputs[] = {x.data()};
  void *outputs[] = {r.data()};
  Status result = take(tandem_model_run(model, inputs, outputs));
  if (status)
    *status = result;
  else
    EXPECT_EQ(result.code, TANDEM_OK) << result.message;
  return mismatches(x, r);
}

tandem_model_stats_t stats(tandem_model_t *model, bool reset = true) {
  tandem_model_stats_t s = {};
  Status result = take(tandem_model_stats(model, &s, reset ? 1 : 0));
  EXPECT_EQ(result.code, TANDEM_OK) << result.message;
  return s;
}

bool cudaDriverPresent() {
  tandem_device_t *device = nullptr;
  tandem_status_t status = tandem_device_open("cuda", nullptr, &device);
  bool present = tandem_status_code(status) != TANDEM_UNAVAILABLE;
  tandem_status_free(status);
  tandem_device_close(device);
  return present;
}

std::string readFile(const std::string &path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// A structural JSON check: brackets and braces balance outside strings,
/// strings close, and the text is one array.
bool looksLikeJsonArray(const std::string &text) {
  std::vector<char> stack;
  bool inString = false;
  size_t first = text.find_first_not_of(" \n\t");
  if (first == std::string::npos || text[first] != '[')
    return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      stack.push_back(c);
    else if (c == ']' || c == '}') {
      if (stack.empty() || stack.back() != (c == ']' ? '[' : '{'))
        return false;
      stack.pop_back();
      if (stack.empty() &&
          text.find_first_not_of(" \n\t", i + 1) != std::string::npos)
        return false;
    }
  }
  return stack.empty() && !inString;
}

int countOf(const std::string &text, const std::string &needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

class DeviceProgram : public ::testing::TestWithParam<const char *> {};

TEST_P(DeviceProgram, MatchesDirectComputation) {
  ModelPtr model = create(&gpu_test_descriptor, optionsFor(GetParam()));
  ASSERT_TRUE(model);
  EXPECT_STREQ(tandem_model_device_name(model.get()), GetParam());
  if (std::string(GetParam()) == "cpu")
    EXPECT_STREQ(tandem_model_fallback_reason(model.get()),
                 "device 'cpu' requested");
  else
    EXPECT_EQ(tandem_model_fallback_reason(model.get()), nullptr);
  for (int round = 0; round < 4; ++round)
    EXPECT_EQ(runRound(model.get(), round), 0) << "round " << round;
  tandem_model_stats_t s = stats(model.get());
  EXPECT_EQ(s.runs, 4u);
  EXPECT_EQ(s.h2d_copies, 8u);
  EXPECT_EQ(s.h2d_bytes, 8u * GPU_TEST_N * 4);
  EXPECT_EQ(s.d2h_copies, 8u);
  EXPECT_EQ(s.d2h_bytes, 8u * GPU_TEST_N * 4);
}

TEST_P(DeviceProgram, RandomDelaysKeepResultsRight) {
  ScopedEnv delay("TANDEM_EMULATED_DELAY_US", "0-3000");
  ModelPtr model = create(&gpu_test_descriptor, optionsFor(GetParam()));
  ASSERT_TRUE(model);
  for (int round = 0; round < 6; ++round)
    EXPECT_EQ(runRound(model.get(), round), 0) << "round " << round;
}

TEST_P(DeviceProgram, PipelinedRunsInFlight) {
  ScopedEnv delay("TANDEM_EMULATED_DELAY_US", "0-1000");
  tandem_model_options_t options = optionsFor(GetParam());
  options.pipeline_depth = 3;
  ModelPtr model = create(&gpu_test_descriptor, options);
  ASSERT_TRUE(model);
  const int batches = 8;
  std::vector<std::vector<float>> xs, rs;
  std::vector<const void *> inputs(batches);
  std::vector<void *> outputs(batches);
  for (int b = 0; b < batches; ++b) {
    xs.push_back(input(b));
    rs.emplace_back(GPU_TEST_N, -1.0f);
  }
  std::vector<tandem_run_t *> tickets(batches);
  for (int b = 0; b < batches; ++b) {
    inputs[b] = xs[b].data();
    outputs[b] = rs[b].data();
    ASSERT_OK(tandem_model_run_async(model.get(), &inputs[b], &outputs[b],
                                     &tickets[b]));
    ASSERT_NE(tickets[b], nullptr);
  }
  // A synchronous run while async ones may be in flight is refused or runs
  // after them; never both at once. Wait in reverse order.
  for (int b = batches - 1; b >= 0; --b)
    ASSERT_OK(tandem_model_wait(tickets[b]));
  for (int b = 0; b < batches; ++b)
    EXPECT_EQ(mismatches(xs[b], rs[b]), 0) << "batch " << b;
  EXPECT_EQ(stats(model.get()).runs, static_cast<uint64_t>(batches));
  // Synchronous runs work again once every ticket was waited for.
  EXPECT_EQ(runRound(model.get(), 42), 0);
}

TEST(DeviceProgramEmulated, PipelinedRunsOverlap) {
  // Every emulated copy and kernel sleeps 4 ms first, so one run's six
  // operations take >= 24 ms on its streams. With one slot, 8 runs are
  // sequential (>= 192 ms); with 4 slots, one slot's copies and kernels run
  // while another's do, so the batch takes much less.
  ScopedEnv delay("TANDEM_EMULATED_DELAY_US", "4000-4000");
  auto timeBatches = [](int depth) {
    tandem_model_options_t options = optionsFor("emulated");
    options.pipeline_depth = depth;
    ModelPtr model = create(&gpu_test_descriptor, options);
    const int batches = 8;
    std::vector<std::vector<float>> xs, rs;
    for (int b = 0; b < batches; ++b) {
      xs.push_back(input(b));
      rs.emplace_back(GPU_TEST_N, -1.0f);
    }
    std::vector<const void *> inputs(batches);
    std::vector<void *> outputs(batches);
    std::vector<tandem_run_t *> tickets(batches);
    auto start = std::chrono::steady_clock::now();
    for (int b = 0; b < batches; ++b) {
      inputs[b] = xs[b].data();
      outputs[b] = rs[b].data();
      Status result = take(tandem_model_run_async(model.get(), &inputs[b],
                                                  &outputs[b], &tickets[b]));
      EXPECT_EQ(result.code, TANDEM_OK) << result.message;
    }
    for (int b = 0; b < batches; ++b) {
      Status result = take(tandem_model_wait(tickets[b]));
      EXPECT_EQ(result.code, TANDEM_OK) << result.message;
      EXPECT_EQ(mismatches(xs[b], rs[b]), 0) << "batch " << b;
    }
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  };
  double sequential = timeBatches(1);
  double pipelined = timeBatches(4);
  EXPECT_GE(sequential, 8 * 24.0);
  EXPECT_LT(pipelined, 0.7 * sequential)
      << "pipelined " << pipelined << " ms, sequential " << sequential << " ms";
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceProgram,
                         ::testing::Values("emulated", "cpu"));

TEST(DeviceProgramEmulated, EventsOrderTheCopyAndTheKernel) {
#ifdef TANDEM_TSAN
  GTEST_SKIP() << "the dropped wait is a deliberate data race";
#endif
  // The h2d stream is delayed 30 ms per copy. With the wait, k0 sees x;
  // without it, k0 reads the device arena before x arrives (0xFF bytes on
  // the first run, the previous input later) and the result is wrong.
  for (const tandem_model_desc_t *desc :
       {&gpu_test_descriptor, &gpu_test_no_wait_descriptor}) {
    ModelPtr model = create(desc, optionsFor("emulated"));
    ASSERT_TRUE(model);
    tandem_stream_t *h2d = tandem_internal_model_stream(model.get(), 0, 1);
    ASSERT_NE(h2d, nullptr);
    ASSERT_OK(tandem_stream_set_emulated_delay(h2d, 30000, 30000));
    int bad = runRound(model.get(), 0) + runRound(model.get(), 1);
    if (desc == &gpu_test_descriptor)
      EXPECT_EQ(bad, 0);
    else
      EXPECT_GT(bad, GPU_TEST_N) << "the missing wait went unnoticed";
  }
}

TEST(DeviceProgramEmulated, GraphsReplayFromTheSecondRun) {
  ModelPtr model = create(&gpu_test_descriptor, optionsFor("emulated"));
  ASSERT_TRUE(model);
  ASSERT_EQ(runRound(model.get(), 0), 0);
  tandem_model_stats_t s = stats(model.get());
  EXPECT_EQ(s.kernel_launches, 2u);
  EXPECT_EQ(s.graph_launches, 0u);
  EXPECT_EQ(s.graph_captures, 0u);
  // Inputs and the caller's output go through staging; the copy into the
  // (pinned) host arena does not.
  EXPECT_EQ(s.staged_bytes, 3u * GPU_TEST_N * 4);

  ASSERT_EQ(runRound(model.get(), 1), 0);
  s = stats(model.get());
  EXPECT_EQ(s.kernel_launches, 0u);
  EXPECT_EQ(s.graph_captures, 2u);
  EXPECT_EQ(s.captured_launches, 2u);
  EXPECT_EQ(s.graph_launches, 2u); // one per GPU partition

  for (int round = 2; round < 5; ++round) {
    ASSERT_EQ(runRound(model.get(), round), 0) << "round " << round;
    s = stats(model.get());
    EXPECT_EQ(s.kernel_launches, 0u);
    EXPECT_EQ(s.graph_captures, 0u);
    EXPECT_EQ(s.graph_launches, 2u);
    EXPECT_EQ(s.h2d_bytes, 2u * GPU_TEST_N * 4);
    EXPECT_EQ(s.d2h_bytes, 2u * GPU_TEST_N * 4);
  }
}

TEST(DeviceProgramEmulated, GraphsCanBeTurnedOff) {
  tandem_model_options_t options = optionsFor("emulated");
  options.cuda_graphs = 0;
  ModelPtr viaOptions = create(&gpu_test_descriptor, options);
  ScopedEnv env("TANDEM_CUDA_GRAPHS", "0");
  ModelPtr viaEnv = create(&gpu_test_descriptor, optionsFor("emulated"));
  for (tandem_model_t *model : {viaOptions.get(), viaEnv.get()}) {
    ASSERT_NE(model, nullptr);
    for (int round = 0; round < 3; ++round)
      ASSERT_EQ(runRound(model, round), 0);
    tandem_model_stats_t s = stats(model);
    EXPECT_EQ(s.kernel_launches, 6u);
    EXPECT_EQ(s.graph_launches, 0u);
  }
}

TEST(DeviceProgramEmulated, TraceIsChromeJson) {
  std::string path =
      testing::TempDir() + "tandem_trace_" + std::to_string(getpid()) + ".json";
  {
    tandem_model_options_t options = optionsFor("emulated");
    options.trace_path = path.c_str();
    options.pipeline_depth = 2;
    ModelPtr model = create(&gpu_test_descriptor, options);
    ASSERT_TRUE(model);
    for (int round = 0; round < 3; ++round)
      ASSERT_EQ(runRound(model.get(), round), 0);
  } // The trace is written at destroy.
  std::string text = readFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(looksLikeJsonArray(text)) << text;
  // Kernels by name on the compute stream, including graph replays.
  EXPECT_EQ(countOf(text, "\"name\":\"k0_affine\""), 3) << text;
  EXPECT_EQ(countOf(text, "\"name\":\"k1_relu\""), 3);
  // One track per stream, and the host's with the CPU partition.
  for (const char *track :
       {"slot 0: compute stream", "slot 0: h2d stream", "slot 0: d2h stream",
        "slot 0: host", "slot 1: compute stream"})
    EXPECT_NE(text.find(track), std::string::npos) << track;
  EXPECT_EQ(countOf(text, "\"name\":\"gpu_test_p1_cpu0\""), 3);
  // Copies with their byte counts.
  std::string bytes = "\"bytes\":" + std::to_string(GPU_TEST_N * 4);
  // 2 per run, plus the upload of the 2 weights to each of the 2 slots.
  EXPECT_EQ(countOf(text, "\"name\":\"copy h2d\""), 6 + 4);
  EXPECT_EQ(countOf(text, "\"name\":\"copy d2h\""), 6);
  EXPECT_EQ(countOf(text, bytes), 12 + 4);
  EXPECT_NE(text.find("\"ph\":\"X\""), std::string::npos);
}

TEST(DeviceProgramCpu, TraceOfTheFallback) {
  std::string path = testing::TempDir() + "tandem_trace_cpu_" +
                     std::to_string(getpid()) + ".json";
  {
    ScopedEnv env("TANDEM_TRACE", path.c_str());
    ModelPtr model = create(&gpu_test_descriptor, optionsFor("cpu"));
    ASSERT_TRUE(model);
    ASSERT_EQ(runRound(model.get(), 0), 0);
  }
  std::string text = readFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(looksLikeJsonArray(text)) << text;
  EXPECT_EQ(countOf(text, "\"name\":\"k0_affine\""), 1);
  EXPECT_EQ(countOf(text, "\"name\":\"copy h2d\""), 2);
  EXPECT_NE(text.find("slot 0: compute stream"), std::string::npos);
}

TEST(DeviceProgramRuns, ErrorsNameTheCopyOrKernel) {
  for (const char *device : {"emulated", "cpu"}) {
    ModelPtr badCopy =
        create(&gpu_test_bad_copy_descriptor, optionsFor(device));
    ASSERT_TRUE(badCopy);
    Status result;
    runRound(badCopy.get(), 0, &result);
    EXPECT_EQ(result.code, TANDEM_INTERNAL) << device;
    EXPECT_NE(result.message.find("model 'gpu_test': copy_h2d: 8192 bytes at "
                                  "device offset 20480 run past the end of "
                                  "the device arena (24576 bytes)"),
              std::string::npos)
        << result.message;

    ModelPtr badKernel =
        create(&gpu_test_bad_kernel_descriptor, optionsFor(device));
    ASSERT_TRUE(badKernel);
    runRound(badKernel.get(), 0, &result);
    EXPECT_EQ(result.code, TANDEM_INTERNAL);
    EXPECT_EQ(result.message, "model 'gpu_test': launch: kernel 7 does not "
                              "exist (the program has 2)");
    // The instance stays usable.
    runRound(badKernel.get(), 1, &result);
    EXPECT_EQ(result.code, TANDEM_INTERNAL);
  }
}

TEST(DeviceProgramTwoGpus, RunsOnTwoDevicesAndTheCpu) {
  // p0 on GPU 0 and p2 on GPU 1: two emulated devices with their own
  // arenas, streams and events (random delays expose a missing order), or
  // the CPU fallback with one host arena per GPU.
  ScopedEnv delay("TANDEM_EMULATED_DELAY_US", "0-2000");
  for (const char *device : {"emulated", "cpu"}) {
    std::string trace = ::testing::TempDir() + "two_gpu_" + device + ".json";
    tandem_model_options_t options = optionsFor(device);
    options.trace_path = trace.c_str();
    options.pipeline_depth = 2;
    ModelPtr model = create(&gpu_test_two_gpu_descriptor, options);
    ASSERT_TRUE(model);
    EXPECT_STREQ(tandem_model_device_name(model.get()),
                 std::string(device) == "emulated" ? "emulated, emulated"
                                                   : "cpu");
    for (int round = 0; round < 5; ++round)
      EXPECT_EQ(runRound(model.get(), round), 0)
          << device << " round " << round;
    tandem_model_stats_t s = stats(model.get());
    EXPECT_EQ(s.h2d_copies, 10u) << device;
    EXPECT_EQ(s.d2h_copies, 10u) << device;
    model.reset(); // writes the trace
    std::string text = readFile(trace);
    EXPECT_NE(text.find("slot 0: GPU:1 compute stream"), std::string::npos)
        << device;
    EXPECT_EQ(countOf(text, "\"name\":\"k1_relu\""), 5) << device;
    std::remove(trace.c_str());
  }
}

TEST(DeviceProgramTwoGpus, StreamsWaitOnlyForTheirGpusEvents) {
  ModelPtr model =
      create(&gpu_test_two_gpu_cross_wait_descriptor, optionsFor("emulated"));
  ASSERT_TRUE(model);
  Status result;
  runRound(model.get(), 0, &result);
  EXPECT_EQ(result.code, TANDEM_INTERNAL);
  EXPECT_EQ(result.message,
            "model 'gpu_test': wait: stream 3 (GPU 1) waits for event 1, "
            "recorded on GPU 0: streams wait only for events of their own "
            "GPU");
}

TEST(DeviceProgramTwoGpus, ValidatesWeightDevices) {
  tandem_model_t *raw = nullptr;
  tandem_model_options_t options = optionsFor("emulated");
  Status result = take(tandem_model_create(
      &gpu_test_two_gpu_bad_weight_descriptor, &options, &raw));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "model 'gpu_test': device program: weight 1 is "
                            "on GPU 2, but the program has 2 GPUs");
  EXPECT_EQ(raw, nullptr);
  // Without a program (or beyond its GPUs) there is no arena base.
  tandem_exec_ctx_t ctx = {};
  EXPECT_EQ(tandem_sched_device_base_of(&ctx, 1), 0u);
}

TEST(DeviceProgramTwoGpus, ValidatesTheConvolutionTable) {
  // The two-GPU program as version 4, with a convolution table.
  tandem_model_desc_t desc = gpu_test_two_gpu_descriptor;
  tandem_device_program_t program = *desc.device_program;
  desc.abi_version = TANDEM_ABI_VERSION;
  desc.device_program = &program;
  tandem_conv_desc_t conv = {};
  conv.n = conv.c = conv.k = conv.r = conv.s = conv.groups = 1;
  conv.h = conv.w = conv.p = conv.q = 4;
  conv.stride_h = conv.stride_w = conv.dilation_h = conv.dilation_w = 1;
  const tandem_conv_desc_t *table[] = {&conv};
  tandem_model_options_t options = optionsFor("emulated");
  struct Bad {
    int32_t count;
    const tandem_conv_desc_t *const *convs;
    int64_t p;
    const char *message;
  } cases[] = {
      {1, nullptr, 4,
       "model 'gpu_test': device program: negative convolution count or no "
       "convolution table"},
      {-1, table, 4,
       "model 'gpu_test': device program: negative convolution count or no "
       "convolution table"},
      {1, table, 3,
       "model 'gpu_test': device program: convolution 0: conv descriptor: p "
       "and q do not follow from h, w, the filter, strides, pads and "
       "dilations"},
  };
  for (const Bad &bad : cases) {
    program.num_convs = bad.count;
    program.convs = bad.convs;
    conv.p = bad.p;
    tandem_model_t *raw = nullptr;
    Status result = take(tandem_model_create(&desc, &options, &raw));
    EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
    EXPECT_EQ(result.message, bad.message);
    EXPECT_EQ(raw, nullptr);
  }
  // A valid table: created (the emulated device has nothing to prepare)
  // and the model runs as before.
  program.num_convs = 1;
  program.convs = table;
  conv.p = 4;
  ModelPtr model = create(&desc, options);
  ASSERT_TRUE(model);
  EXPECT_EQ(runRound(model.get(), 0), 0);
}

TEST(DeviceProgramRuns, SchedWithoutAProgramFailsTheRun) {
  // A CPU-only model's context has no slot: calling tandem_sched_* is an
  // error of the run, not a crash.
  tandem_exec_ctx_t ctx = {};
  EXPECT_EQ(tandem_sched_device_base(&ctx), 0u);
  ModelPtr model =
      create(&gpu_test_no_program_descriptor, optionsFor("emulated"));
  ASSERT_TRUE(model);
  EXPECT_STREQ(tandem_model_device_name(model.get()), "cpu");
  Status result;
  runRound(model.get(), 0, &result);
  EXPECT_EQ(result.code, TANDEM_INTERNAL);
  EXPECT_EQ(result.message, "model 'gpu_test': tandem_sched_* called for a "
                            "model without a device program");
}

TEST(DeviceProgramRuns, DeviceFromTheEnvironment) {
  {
    ScopedEnv env("TANDEM_DEVICE", "cpu");
    ModelPtr model = create(&gpu_test_descriptor, optionsFor(nullptr));
    ASSERT_TRUE(model);
    EXPECT_STREQ(tandem_model_device_name(model.get()), "cpu");
    EXPECT_STREQ(tandem_model_fallback_reason(model.get()),
                 "TANDEM_DEVICE=cpu");
    EXPECT_EQ(runRound(model.get(), 0), 0);
    // The options win over the environment.
    ModelPtr emulated = create(&gpu_test_descriptor, optionsFor("emulated"));
    EXPECT_STREQ(tandem_model_device_name(emulated.get()), "emulated");
  }
  {
    ScopedEnv env("TANDEM_DEVICE", "emulated");
    ModelPtr model = create(&gpu_test_descriptor, optionsFor(nullptr));
    EXPECT_STREQ(tandem_model_device_name(model.get()), "emulated");
  }
  {
    ScopedEnv env("TANDEM_DEVICE", "tpu");
    tandem_model_t *model = nullptr;
    tandem_model_options_t options = optionsFor(nullptr);
    Status result =
        take(tandem_model_create(&gpu_test_descriptor, &options, &model));
    EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
    EXPECT_NE(result.message.find("TANDEM_DEVICE=tpu"), std::string::npos)
        << result.message;
    EXPECT_EQ(model, nullptr);
  }
}

TEST(DeviceProgramRuns, CudaWithoutADriverFallsBackToTheCpu) {
  if (cudaDriverPresent())
    GTEST_SKIP() << "a CUDA driver is installed";
  ScopedEnv quiet("TANDEM_QUIET", nullptr);
  for (const char *device : {"cuda", "cuda:0", "auto"})
    for (const tandem_model_desc_t *desc :
         {&gpu_test_descriptor, &gpu_test_two_gpu_descriptor}) {
      tandem_model_options_t options = optionsFor(device);
      options.log_fallback = 1;
      testing::internal::CaptureStderr();
      ModelPtr model = create(desc, options);
      std::string log = testing::internal::GetCapturedStderr();
      ASSERT_TRUE(model);
      EXPECT_STREQ(tandem_model_device_name(model.get()), "cpu");
      const char *reason = tandem_model_fallback_reason(model.get());
      ASSERT_NE(reason, nullptr);
      EXPECT_NE(std::string(reason).find("no CUDA driver (libcuda.so.1 not "
                                         "found"),
                std::string::npos)
          << reason;
      EXPECT_EQ(log, std::string("tandem: model 'gpu_test': ") + reason +
                         "; running GPU partitions on the CPU\n");
      EXPECT_EQ(runRound(model.get(), 0), 0);
    }
  // Silenced by the option and by TANDEM_QUIET=1.
  testing::internal::CaptureStderr();
  ModelPtr silent = create(&gpu_test_descriptor, optionsFor("cuda"));
  {
    ScopedEnv env("TANDEM_QUIET", "1");
    tandem_model_options_t options = optionsFor("cuda");
    options.log_fallback = 1;
    ModelPtr quietModel = create(&gpu_test_descriptor, options);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(DeviceProgramRuns, CpuOnlyModelsRunAsync) {
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.intra_op_threads = 1;
  options.pipeline_depth = 4;
  tandem_model_t *raw = nullptr;
  ASSERT_OK(tandem_model_create(&test_add_descriptor, &options, &raw));
  ModelPtr model(raw, tandem_model_destroy);
  EXPECT_STREQ(tandem_model_device_name(raw), "cpu");
  EXPECT_EQ(tandem_model_fallback_reason(raw), nullptr);
  const int batches = 8;
  std::vector<std::vector<float>> a(batches), b(batches), sum(batches);
  std::vector<tandem_run_t *> tickets(batches);
  std::vector<std::vector<const void *>> ins(batches);
  std::vector<std::vector<void *>> outs(batches);
  for (int k = 0; k < batches; ++k) {
    for (int i = 0; i < 6; ++i) {
      a[k].push_back(static_cast<float>(i + k));
      b[k].push_back(static_cast<float>(10 * k));
    }
    sum[k].assign(6, -1.0f);
    ins[k] = {a[k].data(), b[k].data()};
    outs[k] = {sum[k].data()};
    ASSERT_OK(tandem_model_run_async(raw, ins[k].data(), outs[k].data(),
                                     &tickets[k]));
  }
  for (int k = 0; k < batches; ++k) {
    ASSERT_OK(tandem_model_wait(tickets[k]));
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(sum[k][i], static_cast<float>(i + k + 10 * k));
  }
  Status result = take(tandem_model_wait(nullptr));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
}

TEST(DeviceProgramRuns, CudaImageChoice) {
  // The CUDA path cannot run here; its choice of image can be checked.
  static const char ptx[] = "ptx";
  const tandem_device_image_t images[] = {
      {"sm_80", TANDEM_IMAGE_PTX, ptx, sizeof(ptx)},
      {"sm_90", TANDEM_IMAGE_PTX, ptx, sizeof(ptx)},
      {"sm_100", TANDEM_IMAGE_PTX, ptx, sizeof(ptx)},
      {"sm_80", TANDEM_IMAGE_CUBIN, ptx, 4},
      {"sm_90", TANDEM_IMAGE_FATBIN, ptx, 4},
      {"sm_90", TANDEM_IMAGE_CUBIN, ptx, 4}};
  auto choose = [&](int count, const char *arch) {
    const tandem_device_image_t *image =
        tandem::device::chooseCudaImage(images, count, arch);
    return image ? static_cast<int>(image - images) : -1;
  };
  EXPECT_EQ(choose(6, "sm_90"), 5); // the exact cubin
  EXPECT_EQ(choose(5, "sm_90"), 4); // else the fatbin
  EXPECT_EQ(choose(4, "sm_90"), 1); // else the newest PTX not above sm_90
  EXPECT_EQ(choose(4, "sm_80"), 3);
  EXPECT_EQ(choose(3, "sm_86"), 0);
  EXPECT_EQ(choose(3, "sm_120"), 2);
  EXPECT_EQ(choose(3, "sm_75"), -1); // nothing fits
  EXPECT_EQ(choose(0, "sm_90"), -1);
}

TEST(DeviceProgramRuns, VersionOneDescriptorsAreReadToTheirEnd) {
  // A version-1 descriptor ends before device_program: copy exactly that
  // much into its own heap block, so that reading further is a heap
  // overflow (ASan reports it).
  size_t size = offsetof(tandem_model_desc_t, device_program);
  void *block = std::malloc(size);
  ASSERT_NE(block, nullptr);
  std::memcpy(block, &test_add_descriptor, size);
  auto *desc = static_cast<tandem_model_desc_t *>(block);
  desc->abi_version = TANDEM_ABI_VERSION_CPU_ONLY;
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.intra_op_threads = 1;
  tandem_model_t *model = nullptr;
  ASSERT_OK(tandem_model_create(desc, &options, &model));
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 1, 1, 1, 1, 1}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  ASSERT_OK(tandem_model_run(model, inputs, outputs));
  EXPECT_EQ(sum[5], 7.0f);
  tandem_model_destroy(model);
  std::free(block);
}

} // namespace
