//===- ModelContractTest.cpp - The model API's argument contracts ---------===//
//
// Misuse of the model API that the runtime must report rather than crash on
// (docs/RuntimeABI.md, "Handle contracts"): NULL tensor names, an empty
// device string, destroy of NULL or twice, runs after destroy, bool inputs
// whose bytes are not 0 or 1, and a trace path that cannot be written.
//
//===----------------------------------------------------------------------===//

#include "StatusHelpers.h"
#include "tandem/runtime.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "gtest/gtest.h"

extern "C" {
extern const tandem_model_desc_t test_add_descriptor;
extern const tandem_model_desc_t test_bool_descriptor;
}

namespace {

using tandem_test::Status;
using tandem_test::take;

Status createStatus(const tandem_model_desc_t *desc,
                    const tandem_model_options_t *options,
                    tandem_model_t **out) {
  return take(tandem_model_create(desc, options, out));
}

TEST(ModelContract, NullTensorNameIsRejected) {
  for (bool output : {false, true}) {
    tandem_tensor_desc_t inputs[2] = {test_add_descriptor.inputs[0],
                                      test_add_descriptor.inputs[1]};
    tandem_tensor_desc_t outputs[1] = {test_add_descriptor.outputs[0]};
    (output ? outputs[0] : inputs[1]).name = nullptr;
    tandem_model_desc_t desc = test_add_descriptor;
    desc.inputs = inputs;
    desc.outputs = outputs;
    tandem_model_t *model = reinterpret_cast<tandem_model_t *>(1);
    Status result = createStatus(&desc, nullptr, &model);
    EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
    EXPECT_EQ(result.message,
              output ? "model 'test_add': output 0 has a NULL name"
                     : "model 'test_add': input 1 has a NULL name");
    EXPECT_EQ(model, nullptr);
  }
}

TEST(ModelContract, EmptyDeviceStringIsRejected) {
  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.device = "";
  tandem_model_t *model = nullptr;
  Status result = createStatus(&test_add_descriptor, &options, &model);
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "model 'test_add': device is the empty string (expected auto, "
            "cpu, emulated, cuda or cuda:N; NULL means $TANDEM_DEVICE, else "
            "auto)");
  EXPECT_EQ(model, nullptr);
}

TEST(ModelContract, DestroyNullIsANoOp) {
  tandem_model_destroy(nullptr);
  EXPECT_EQ(tandem_model_descriptor(nullptr), nullptr);
  EXPECT_STREQ(tandem_model_device_name(nullptr), "");
  EXPECT_EQ(tandem_model_fallback_reason(nullptr), nullptr);
}

TEST(ModelContract, UseAfterDestroyIsDetected) {
  tandem_model_t *model = nullptr;
  ASSERT_EQ(createStatus(&test_add_descriptor, nullptr, &model).code,
            TANDEM_OK);
  ASSERT_NE(model, nullptr);
  tandem_model_destroy(model);
  // Nothing reads the freed instance (ASan would report it): each call
  // finds the handle missing from the live set.
  std::string expected = "is not a live instance (destroyed, or not made by "
                         "tandem_model_create)";
  float a[6] = {}, b[6] = {}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  Status run = take(tandem_model_run(model, inputs, outputs));
  EXPECT_EQ(run.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(run.message.rfind("tandem_model_run: model 0x", 0), 0u)
      << run.message;
  EXPECT_NE(run.message.find(expected), std::string::npos) << run.message;

  const int64_t shape[] = {2, 3};
  tandem_tensor_t in[] = {{a, TANDEM_F32, 2, shape}, {b, TANDEM_F32, 2, shape}};
  tandem_tensor_t out[] = {{sum, TANDEM_F32, 2, shape}};
  Status checked = take(tandem_model_run_checked(model, in, 2, out, 1));
  EXPECT_EQ(checked.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(checked.message.rfind("tandem_model_run_checked: model 0x", 0), 0u)
      << checked.message;

  tandem_run_t *ticket = reinterpret_cast<tandem_run_t *>(1);
  Status async = take(tandem_model_run_async(model, inputs, outputs, &ticket));
  EXPECT_EQ(async.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(ticket, nullptr);

  tandem_model_stats_t stats;
  EXPECT_EQ(take(tandem_model_stats(model, &stats, 0)).code,
            TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(tandem_model_descriptor(model), nullptr);
  EXPECT_STREQ(tandem_model_device_name(model), "");

  // A second destroy is reported on stderr and frees nothing.
  testing::internal::CaptureStderr();
  tandem_model_destroy(model);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("tandem: tandem_model_destroy: 0x"), std::string::npos)
      << log;
  EXPECT_NE(log.find("is not a live model instance (destroyed twice?); "
                     "ignored"),
            std::string::npos)
      << log;
}

TEST(ModelContract, ForeignHandleIsRejected) {
  // A pointer that tandem_model_create never returned.
  alignas(64) static char notAModel[256];
  auto *model = reinterpret_cast<tandem_model_t *>(notAModel);
  float a[6] = {}, b[6] = {}, sum[6] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {sum};
  EXPECT_EQ(take(tandem_model_run(model, inputs, outputs)).code,
            TANDEM_INVALID_ARGUMENT);
}

TEST(ModelContract, BoolInputBytesAreValidated) {
  tandem_model_t *model = nullptr;
  ASSERT_EQ(createStatus(&test_bool_descriptor, nullptr, &model).code,
            TANDEM_OK);
  const int64_t shape[] = {4};
  uint8_t flags[4] = {1, 0, 1, 1};
  int32_t count = -1;
  tandem_tensor_t inputs[] = {{flags, TANDEM_BOOL, 1, shape}};
  tandem_tensor_t outputs[] = {{&count, TANDEM_I32, 0, nullptr}};
  ASSERT_OK(tandem_model_run_checked(model, inputs, 1, outputs, 1));
  EXPECT_EQ(count, 3);

  // 2 reads as false through the low bit but as true through "non-zero":
  // the checked path refuses it, and the entry does not run.
  flags[2] = 2;
  count = -1;
  Status result = take(tandem_model_run_checked(model, inputs, 1, outputs, 1));
  EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "input 0 ('flags'): bool element 2 holds byte 2; "
                            "bool elements must be 0 or 1");
  EXPECT_EQ(count, -1);
  flags[2] = 0xff;
  result = take(tandem_model_run_checked(model, inputs, 1, outputs, 1));
  EXPECT_EQ(result.message, "input 0 ('flags'): bool element 2 holds byte "
                            "255; bool elements must be 0 or 1");
  tandem_model_destroy(model);
}

TEST(ModelContract, UnwritableTraceIsRejectedAtCreation) {
  struct Case {
    const char *path;
    const char *why;
  } cases[] = {
      {"/nonexistent-tandem-dir/trace.json",
       "its directory '/nonexistent-tandem-dir' does not exist"},
      {"/", "it is a directory"},
  };
  for (const Case &c : cases) {
    tandem_model_options_t options;
    tandem_model_options_init(&options);
    options.trace_path = c.path;
    tandem_model_t *model = nullptr;
    Status result = createStatus(&test_add_descriptor, &options, &model);
    EXPECT_EQ(result.code, TANDEM_INVALID_ARGUMENT);
    EXPECT_EQ(result.message, std::string("model 'test_add': cannot write "
                                          "the trace '") +
                                  c.path + "': " + c.why);
    EXPECT_EQ(model, nullptr);
  }
}

} // namespace
