//===- ModelTest.cpp - Model instances on the hand-written fixtures -------===//

#include "StatusHelpers.h"
#include "tandem/runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

extern "C" {
extern const tandem_model_desc_t test_add_descriptor;
extern const tandem_model_desc_t test_scale_descriptor;
extern const tandem_model_desc_t test_cast_descriptor;
extern const tandem_model_desc_t *const tandem_default_model;
}

namespace {

using tandem_test::Status;
using tandem_test::take;

tandem_model_t *create(const tandem_model_desc_t *desc,
                       const tandem_model_options_t *options = nullptr) {
  tandem_model_t *model = nullptr;
  Status result = take(tandem_model_create(desc, options, &model));
  EXPECT_EQ(result.code, TANDEM_OK) << result.message;
  return model;
}

TEST(Model, OptionsDefaults) {
  tandem_model_options_t options;
  std::memset(&options, 0xff, sizeof(options));
  tandem_model_options_init(&options);
  EXPECT_EQ(options.intra_op_threads, 0);
  EXPECT_EQ(options.arena, nullptr);
  EXPECT_EQ(options.arena_bytes, 0u);
  tandem_model_options_init(nullptr);
}

TEST(Model, AddRunsForEveryThreadCount) {
  ASSERT_EQ(tandem_default_model, &test_add_descriptor);
  for (int32_t threads : {0, 1, 2, 4}) {
    tandem_model_options_t options;
    tandem_model_options_init(&options);
    options.intra_op_threads = threads;
    tandem_model_t *model = create(&test_add_descriptor, &options);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(tandem_model_descriptor(model), &test_add_descriptor);
    float a[6] = {1, 2, 3, 4, 5, 6};
    float b[6] = {10, 20, 30, 40, 50, 60};
    float sum[6] = {};
    const void *inputs[] = {a, b};
    void *outputs[] = {sum};
    for (int run = 0; run < 3; ++run) {
      Status result = take(tandem_model_run(model, inputs, outputs));
      ASSERT_EQ(result.code, TANDEM_OK) << result.message;
      for (int i = 0; i < 6; ++i)
        EXPECT_EQ(sum[i], a[i] + b[i]);
      a[0] += 1;
    }
    tandem_model_destroy(model);
  }
  tandem_model_destroy(nullptr);
  EXPECT_EQ(tandem_model_descriptor(nullptr), nullptr);
}

TEST(Model, CheckedRunAndDtypes) {
  tandem_model_t *model = create(&test_cast_descriptor);
  ASSERT_NE(model, nullptr);
  const int64_t shape[] = {4};
  int32_t n[4] = {-2, 0, 3, 100};
  uint16_t h[4] = {0x3c00, 0xc000, 0x3800, 0x0000}; // 1, -2, 0.5, 0
  int64_t twice[4] = {};
  uint8_t positive[4] = {};
  float widened[4] = {};
  tandem_tensor_t inputs[] = {{n, TANDEM_I32, 1, shape},
                              {h, TANDEM_F16, 1, shape}};
  tandem_tensor_t outputs[] = {{twice, TANDEM_I64, 1, shape},
                               {positive, TANDEM_BOOL, 1, shape},
                               {widened, TANDEM_F32, 1, shape}};
  Status result = take(tandem_model_run_checked(model, inputs, 2, outputs, 3));
  ASSERT_EQ(result.code, TANDEM_OK) << result.message;
  EXPECT_EQ(twice[0], -4);
  EXPECT_EQ(twice[3], 200);
  EXPECT_EQ(positive[0], 0);
  EXPECT_EQ(positive[1], 0);
  EXPECT_EQ(positive[2], 1);
  EXPECT_EQ(widened[0], 1.0f);
  EXPECT_EQ(widened[1], -2.0f);
  EXPECT_EQ(widened[2], 0.5f);
  tandem_model_destroy(model);
}

TEST(Model, OwnedArenaIsAligned) {
  // test_add's entry fails (code 7) unless its arena is present and aligned;
  // check the context it sees through a descriptor copy with a probing entry.
  static std::atomic<uintptr_t> seenArena{0};
  static std::atomic<uint64_t> seenBytes{0};
  static std::atomic<int32_t> seenPoolSize{0};
  tandem_model_desc_t probe = test_add_descriptor;
  probe.arena_bytes = 1000;
  probe.entry = [](const tandem_exec_ctx_t *ctx, const void *const *,
                   void *const *) -> int32_t {
    seenArena = reinterpret_cast<uintptr_t>(ctx->arena);
    seenBytes = ctx->arena_bytes;
    seenPoolSize = tandem_thread_pool_size(ctx->pool);
    // reserved[0] is the instance's kernel cache; the rest stay NULL.
    if (!ctx->reserved[0])
      return 1;
    for (int i = 1; i < 4; ++i)
      if (ctx->reserved[i])
        return 1;
    std::memset(ctx->arena, 0xab, ctx->arena_bytes); // all writable
    return 0;
  };
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.intra_op_threads = 3;
  tandem_model_t *model = create(&probe, &options);
  ASSERT_NE(model, nullptr);
  float a[6] = {}, b[6] = {}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  Status result = take(tandem_model_run(model, inputs, outputs));
  ASSERT_EQ(result.code, TANDEM_OK) << result.message;
  EXPECT_NE(seenArena.load(), 0u);
  EXPECT_EQ(seenArena.load() % TANDEM_ARENA_ALIGNMENT, 0u);
  EXPECT_EQ(seenBytes.load(), 1000u);
  EXPECT_EQ(seenPoolSize.load(), 3);
  tandem_model_destroy(model);
}

TEST(Model, CallerArena) {
  alignas(64) static float arena[32];
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.intra_op_threads = 1;
  options.arena = arena;
  options.arena_bytes = sizeof(arena);
  tandem_model_t *model = create(&test_add_descriptor, &options);
  ASSERT_NE(model, nullptr);
  float a[6] = {1, 1, 1, 1, 1, 1}, b[6] = {0, 1, 2, 3, 4, 5}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  Status result = take(tandem_model_run(model, inputs, outputs));
  ASSERT_EQ(result.code, TANDEM_OK) << result.message;
  EXPECT_EQ(sum[5], 6.0f);
  EXPECT_EQ(arena[5], 6.0f); // the scratch went to the caller's arena
  tandem_model_destroy(model);
}

TEST(Model, CallerArenaErrors) {
  alignas(64) static char arena[256];
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  tandem_model_t *model = reinterpret_cast<tandem_model_t *>(0x1);

  options.arena = arena + 8;
  options.arena_bytes = 128;
  Status result =
      take(tandem_model_create(&test_add_descriptor, &options, &model));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(result.message.find("not 64-byte aligned"), std::string::npos)
      << result.message;
  EXPECT_EQ(model, nullptr);

  options.arena = arena;
  options.arena_bytes = 16; // test_scale needs 16384
  result = take(tandem_model_create(&test_scale_descriptor, &options, &model));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(result.message.find("has 16 bytes, the model needs 16384"),
            std::string::npos)
      << result.message;

  options.arena = nullptr;
  options.arena_bytes = 64;
  result = take(tandem_model_create(&test_add_descriptor, &options, &model));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);

  tandem_model_options_init(&options);
  options.intra_op_threads = -1;
  result = take(tandem_model_create(&test_add_descriptor, &options, &model));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_NE(result.message.find("intra_op_threads"), std::string::npos);
}

TEST(Model, DescriptorErrors) {
  tandem_model_t *model = nullptr;
  Status result = take(tandem_model_create(nullptr, nullptr, &model));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  result = take(tandem_model_create(&test_add_descriptor, nullptr, nullptr));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);

  tandem_model_desc_t desc = test_add_descriptor;
  desc.abi_version = 99;
  result = take(tandem_model_create(&desc, nullptr, &model));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "model 'test_add' was compiled for runtime ABI version 99, but "
            "this runtime implements ABI version 4 (and 3 for models "
            "without a convolution table, 2 for one-GPU models, 1 for "
            "CPU-only models); recompile the model");
  EXPECT_EQ(model, nullptr);

  desc = test_add_descriptor;
  desc.entry = nullptr;
  result = take(tandem_model_create(&desc, nullptr, &model));
  EXPECT_EQ(result.message, "model 'test_add' has no entry function");

  desc = test_add_descriptor;
  desc.inputs = nullptr;
  result = take(tandem_model_create(&desc, nullptr, &model));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);

  const int64_t badShape[] = {2, -3};
  tandem_tensor_desc_t badInputs[] = {
      {"a", TANDEM_F32, 2, badShape},
      {"b", static_cast<tandem_dtype_t>(TANDEM_DTYPE_LAST + 1), 0, nullptr}};
  desc = test_add_descriptor;
  desc.inputs = badInputs;
  result = take(tandem_model_create(&desc, nullptr, &model));
  EXPECT_EQ(result.message,
            "model 'test_add': input 0 ('a') has a malformed shape (rank 2)");
  badInputs[0].shape = test_add_descriptor.inputs[0].shape;
  result = take(tandem_model_create(&desc, nullptr, &model));
  EXPECT_EQ(result.message,
            "model 'test_add': input 1 ('b') has unknown dtype 13");
}

TEST(Model, RunNullErrors) {
  tandem_model_t *model = create(&test_add_descriptor);
  ASSERT_NE(model, nullptr);
  float a[6] = {}, b[6] = {}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  EXPECT_EQ(take(tandem_model_run(nullptr, inputs, outputs)).code,
            TANDEM_INVALID_ARGUMENT);
  Status result = take(tandem_model_run(model, nullptr, outputs));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "model 'test_add': inputs array is NULL (2 expected)");
  result = take(tandem_model_run(model, inputs, nullptr));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  const void *nullInput[] = {a, nullptr};
  result = take(tandem_model_run(model, nullInput, outputs));
  EXPECT_EQ(result.message, "model 'test_add': input 1 ('b') is NULL");
  void *nullOutput[] = {nullptr};
  result = take(tandem_model_run(model, inputs, nullOutput));
  EXPECT_EQ(result.message, "model 'test_add': output 0 ('sum') is NULL");
  // The instance still works after rejected runs.
  EXPECT_EQ(take(tandem_model_run(model, inputs, outputs)).code, TANDEM_OK);
  tandem_model_destroy(model);
}

TEST(Model, CheckedRunErrors) {
  tandem_model_t *model = create(&test_add_descriptor);
  ASSERT_NE(model, nullptr);
  float a[6] = {}, b[6] = {}, sum[6] = {};
  const int64_t good[] = {2, 3};
  const int64_t transposed[] = {3, 2};
  tandem_tensor_t inputs[] = {{a, TANDEM_F32, 2, good},
                              {b, TANDEM_F32, 2, good}};
  tandem_tensor_t outputs[] = {{sum, TANDEM_F32, 2, good}};

  Status result = take(tandem_model_run_checked(model, inputs, 1, outputs, 1));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "model 'test_add': expected 2 inputs, got 1");
  result = take(tandem_model_run_checked(model, inputs, 2, outputs, 2));
  EXPECT_EQ(result.message, "model 'test_add': expected 1 outputs, got 2");
  result = take(tandem_model_run_checked(model, nullptr, 2, outputs, 1));
  EXPECT_EQ(result.message, "model 'test_add': inputs array is NULL");

  inputs[1].shape = transposed;
  result = take(tandem_model_run_checked(model, inputs, 2, outputs, 1));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "input 1 ('b'): expected f32[2,3], got f32[3,2]");
  inputs[1].shape = good;

  inputs[0].dtype = TANDEM_I32;
  result = take(tandem_model_run_checked(model, inputs, 2, outputs, 1));
  EXPECT_EQ(result.message, "input 0 ('a'): expected f32[2,3], got i32[2,3]");
  inputs[0].dtype = TANDEM_F32;

  outputs[0].rank = 1;
  result = take(tandem_model_run_checked(model, inputs, 2, outputs, 1));
  EXPECT_EQ(result.message, "output 0 ('sum'): expected f32[2,3], got f32[2]");
  outputs[0].rank = 2;

  outputs[0].data = nullptr;
  result = take(tandem_model_run_checked(model, inputs, 2, outputs, 1));
  EXPECT_EQ(result.message, "output 0 ('sum'): data is NULL");
  outputs[0].data = sum;

  EXPECT_EQ(take(tandem_model_run_checked(model, inputs, 2, outputs, 1)).code,
            TANDEM_OK);
  tandem_model_destroy(model);
}

TEST(Model, EntryFailureIsInternal) {
  tandem_model_desc_t desc = test_add_descriptor;
  desc.entry = [](const tandem_exec_ctx_t *, const void *const *,
                  void *const *) -> int32_t { return 42; };
  tandem_model_t *model = create(&desc);
  ASSERT_NE(model, nullptr);
  float a[6] = {}, b[6] = {}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  Status result = take(tandem_model_run(model, inputs, outputs));
  EXPECT_EQ(result.code, TANDEM_INTERNAL);
  EXPECT_EQ(result.message, "model 'test_add': entry failed with code 42");
  tandem_model_destroy(model);
}

// An entry that blocks until released, to hold a run open.
std::atomic<int> blockingState{0}; // 1: inside the entry, 2: release

TEST(Model, SecondConcurrentRunIsBusy) {
  tandem_model_desc_t desc = test_add_descriptor;
  desc.entry = [](const tandem_exec_ctx_t *, const void *const *,
                  void *const *) -> int32_t {
    int idle = 0;
    blockingState.compare_exchange_strong(idle, 1);
    while (blockingState.load() != 2)
      std::this_thread::yield();
    return 0;
  };
  tandem_model_t *model = create(&desc);
  ASSERT_NE(model, nullptr);
  float a[6] = {}, b[6] = {}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  const int64_t shape[] = {2, 3};
  tandem_tensor_t checkedInputs[] = {{a, TANDEM_F32, 2, shape},
                                     {b, TANDEM_F32, 2, shape}};
  tandem_tensor_t checkedOutputs[] = {{sum, TANDEM_F32, 2, shape}};

  blockingState = 0;
  Status first;
  first.code = TANDEM_INTERNAL; // until the runner has finished
  std::thread runner(
      [&] { first = take(tandem_model_run(model, inputs, outputs)); });
  while (blockingState.load() != 1)
    std::this_thread::yield();
  Status second = take(tandem_model_run(model, inputs, outputs));
  EXPECT_EQ(second.code, TANDEM_BUSY);
  EXPECT_NE(second.message.find("already running"), std::string::npos);
  Status checked = take(
      tandem_model_run_checked(model, checkedInputs, 2, checkedOutputs, 1));
  EXPECT_EQ(checked.code, TANDEM_BUSY);
  blockingState = 2;
  runner.join();
  EXPECT_EQ(first.code, TANDEM_OK) << first.message;
  // The flag is cleared: the next run is accepted (and returns at once).
  EXPECT_EQ(take(tandem_model_run(model, inputs, outputs)).code, TANDEM_OK);
  tandem_model_destroy(model);
}

TEST(Model, TwoInstancesOnTwoThreads) {
  // Each instance has its own arena (the scale model keeps its intermediate
  // there) and pool; a shared arena would mix the two threads' values.
  constexpr int kThreads = 2;
  constexpr int kRuns = 200;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tandem_model_options_t options;
      tandem_model_options_init(&options);
      options.intra_op_threads = 2;
      tandem_model_t *model = nullptr;
      tandem_status_t status =
          tandem_model_create(&test_scale_descriptor, &options, &model);
      if (status) {
        tandem_status_free(status);
        wrong.fetch_add(1);
        return;
      }
      std::vector<float> x(4096), y(4096);
      const void *inputs[] = {x.data()};
      void *outputs[] = {y.data()};
      for (int run = 0; run < kRuns; ++run) {
        for (size_t i = 0; i < x.size(); ++i)
          x[i] = static_cast<float>(t * 10000 + run + static_cast<int>(i % 7));
        tandem_status_t runStatus = tandem_model_run(model, inputs, outputs);
        if (runStatus) {
          tandem_status_free(runStatus);
          wrong.fetch_add(1);
          continue;
        }
        for (size_t i = 0; i < y.size(); ++i)
          if (y[i] != 2 * x[i] + 1) {
            wrong.fetch_add(1);
            break;
          }
      }
      tandem_model_destroy(model);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

} // namespace
