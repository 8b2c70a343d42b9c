//===- ModelDescriptorFuzzer.cpp - libFuzzer target for tandem_model_create
//===//
//
// Builds a model descriptor and creation options from arbitrary bytes and
// passes them to tandem_model_create; when creation succeeds, runs the
// instance through the checked and the unchecked path with buffers sized
// from the descriptor, then destroys it. Memory-safe by construction: every
// array the descriptor points to holds as many entries as its count says
// (counts may be negative or zero, ranks negative, names NULL, dtypes
// outside the enum, extents anything), so whatever the runtime reads is
// there to read; any crash, sanitizer report, leak, timeout or
// out-of-memory is a bug in the runtime's validation. Runtime only, no MLIR.
// Built by scripts/fuzz.sh with clang and -fsanitize=fuzzer,address,undefined.
//
//===----------------------------------------------------------------------===//

#include "tandem/runtime.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

/// The entry of every fuzzed model: fails with the code the bytes chose.
int32_t gEntryCode = 0;
int32_t fuzzEntry(const tandem_exec_ctx_t *, const void *const *,
                  void *const *) {
  return gEntryCode;
}

/// Storage that the descriptor points into; lives for one input.
struct Storage {
  std::deque<std::string> strings;
  std::deque<std::vector<int64_t>> shapes;
  std::deque<std::vector<tandem_tensor_desc_t>> tensors;
};

const char *fuzzName(FuzzedDataProvider &in, Storage &storage) {
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0)
    return nullptr;
  storage.strings.push_back(in.ConsumeRandomLengthString(16));
  return storage.strings.back().c_str();
}

int64_t fuzzExtent(FuzzedDataProvider &in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
  case 0:
    return in.ConsumeIntegral<int64_t>(); // anything, overflow included
  case 1:
    return in.ConsumeIntegralInRange<int64_t>(-2, 2);
  default:
    return in.ConsumeIntegralInRange<int64_t>(0, 16);
  }
}

/// `count` tensor descriptions (none for count <= 0).
const tandem_tensor_desc_t *fuzzTensors(FuzzedDataProvider &in, int32_t count,
                                        Storage &storage) {
  if (count <= 0)
    return in.ConsumeBool() ? nullptr : &storage.tensors.emplace_back(1)[0];
  std::vector<tandem_tensor_desc_t> &tensors =
      storage.tensors.emplace_back(size_t(count));
  for (tandem_tensor_desc_t &tensor : tensors) {
    tensor.name = fuzzName(in, storage);
    uint32_t dtype = in.ConsumeBool()
                         ? in.ConsumeIntegralInRange<uint32_t>(0, 5)
                         : in.ConsumeIntegral<uint32_t>();
    std::memcpy(&tensor.dtype, &dtype, sizeof(dtype)); // may be outside enum
    tensor.rank = in.ConsumeIntegralInRange<int32_t>(-2, 6);
    if (tensor.rank <= 0 || in.ConsumeIntegralInRange<int>(0, 15) == 0) {
      tensor.shape = nullptr;
      if (tensor.rank > 0)
        continue; // rank > 0 without a shape: must be rejected
    } else {
      std::vector<int64_t> &shape = storage.shapes.emplace_back();
      for (int32_t d = 0; d < tensor.rank; ++d)
        shape.push_back(fuzzExtent(in));
      tensor.shape = shape.data();
    }
  }
  return tensors.data();
}

/// Runs a created instance on zeroed buffers of the descriptor's sizes, if
/// they are small.
void runInstance(tandem_model_t *model, const tandem_model_desc_t &desc,
                 FuzzedDataProvider &in) {
  std::vector<std::vector<unsigned char>> buffers;
  std::vector<tandem_tensor_t> inputs, outputs;
  std::vector<const void *> inputData;
  std::vector<void *> outputData;
  const uint64_t kMaxTotalBytes = uint64_t(1) << 24;
  uint64_t total = 0;
  auto add = [&](const tandem_tensor_desc_t &t, bool isInput) {
    int64_t n = tandem_tensor_desc_num_elements(&t);
    uint64_t bytes = uint64_t(n) * tandem_dtype_size(t.dtype);
    if (n < 0 || (n && bytes / uint64_t(n) != tandem_dtype_size(t.dtype)))
      return false;
    // Compared before adding: a huge tensor must not wrap the total.
    if (bytes > kMaxTotalBytes - total)
      return false;
    total += bytes;
    std::vector<unsigned char> &buffer = buffers.emplace_back(bytes + 1);
    if (isInput && t.dtype == TANDEM_BOOL)
      for (unsigned char &byte : buffer)
        byte = in.ConsumeIntegralInRange<unsigned char>(0, 2);
    tandem_tensor_t tensor = {buffer.data(), t.dtype, t.rank, t.shape};
    (isInput ? inputs : outputs).push_back(tensor);
    if (isInput)
      inputData.push_back(buffer.data());
    else
      outputData.push_back(buffer.data());
    return true;
  };
  buffers.reserve(size_t(desc.num_inputs + desc.num_outputs));
  for (int32_t i = 0; i < desc.num_inputs; ++i)
    if (!add(desc.inputs[i], true))
      return;
  for (int32_t i = 0; i < desc.num_outputs; ++i)
    if (!add(desc.outputs[i], false))
      return;
  // A wrong count, or a NULL array, must be refused too.
  int32_t numInputs = in.ConsumeIntegralInRange<int>(0, 7) == 0
                          ? in.ConsumeIntegralInRange<int32_t>(-1, 1)
                          : desc.num_inputs;
  tandem_status_free(tandem_model_run_checked(
      model, numInputs == desc.num_inputs ? inputs.data() : nullptr, numInputs,
      outputs.data(), desc.num_outputs));
  tandem_status_free(
      tandem_model_run(model, inputData.data(), outputData.data()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  Storage storage;
  tandem_model_desc_t desc;
  std::memset(&desc, 0, sizeof(desc));
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
  case 0:
    desc.abi_version = in.ConsumeIntegral<uint32_t>();
    break;
  case 1:
    desc.abi_version = TANDEM_ABI_VERSION_CPU_ONLY;
    break;
  default:
    desc.abi_version = TANDEM_ABI_VERSION;
  }
  desc.name = fuzzName(in, storage);
  desc.num_inputs = in.ConsumeIntegralInRange<int32_t>(-2, 6);
  desc.num_outputs = in.ConsumeIntegralInRange<int32_t>(-2, 6);
  desc.inputs = fuzzTensors(in, desc.num_inputs, storage);
  desc.outputs = fuzzTensors(in, desc.num_outputs, storage);
  // The arena is allocated at creation: keep it below libFuzzer's malloc
  // limit (a real descriptor's size is the compiler's to bound).
  desc.arena_bytes = in.ConsumeIntegralInRange<uint64_t>(0, 1 << 20);
  desc.weight_bytes = in.ConsumeIntegral<uint64_t>();
  desc.entry = in.ConsumeIntegralInRange<int>(0, 15) ? fuzzEntry : nullptr;
  desc.device_program = nullptr; // CPU-only: a program needs device images
  gEntryCode = in.ConsumeBool() ? 0 : in.ConsumeIntegral<int32_t>();

  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.intra_op_threads = in.ConsumeIntegralInRange<int32_t>(-1, 2);
  options.pipeline_depth = in.ConsumeIntegralInRange<int32_t>(-1, 3);
  const char *devices[] = {nullptr, "", "cpu", "auto", "emulated", "bogus"};
  options.device = devices[in.ConsumeIntegralInRange<size_t>(0, 5)];
  options.cuda_graphs = in.ConsumeIntegralInRange<int32_t>(-1, 1);
  options.log_fallback = 0;
  alignas(TANDEM_ARENA_ALIGNMENT) static unsigned char arena[4096 + 64];
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    // A caller arena, possibly misaligned or too small.
    options.arena = arena + in.ConsumeIntegralInRange<int>(0, 64);
    options.arena_bytes = in.ConsumeIntegralInRange<uint64_t>(0, 4096);
  } else if (in.ConsumeIntegralInRange<int>(0, 7) == 0) {
    options.arena_bytes = in.ConsumeIntegral<uint64_t>(); // without an arena
  }

  tandem_model_t *model = nullptr;
  tandem_status_t status = tandem_model_create(
      in.ConsumeIntegralInRange<int>(0, 31) ? &desc : nullptr, &options,
      &model);
  if (status) {
    if (model || !*tandem_status_message(status))
      __builtin_trap(); // a failure leaves *out NULL and says why
    tandem_status_free(status);
    return 0;
  }
  runInstance(model, desc, in);
  tandem_model_destroy(model);
  return 0;
}
