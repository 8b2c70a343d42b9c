//===- model.cpp - Model instances: create, validate, run -----------------===//
//
// An instance binds a compiled model's descriptor to a thread pool and an
// arena. Runs of one instance are exclusive (an atomic flag reports a second
// concurrent run as TANDEM_BUSY); instances are independent of each other.
//
//===----------------------------------------------------------------------===//

#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "tandem/runtime.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct tandem_model_s {
  const tandem_model_desc_t *desc = nullptr;
  tandem_thread_pool_t *pool = nullptr;
  void *ownedArena = nullptr;
  tandem_exec_ctx_t ctx = {};
  std::atomic_flag running = ATOMIC_FLAG_INIT;
};

namespace {

/// The raw value of a dtype field. Descriptors and tensors come from other
/// code and may hold values outside the enum, which C++ must not load as
/// the enum type.
uint32_t rawDtype(const tandem_dtype_t &dtype) {
  uint32_t raw = 0;
  static_assert(sizeof(dtype) == sizeof(raw), "tandem_dtype_t is 32-bit");
  std::memcpy(&raw, &dtype, sizeof(raw));
  return raw;
}

bool validDtype(uint32_t raw) { return raw <= TANDEM_BOOL; }

const char *dtypeName(uint32_t raw) {
  return validDtype(raw) ? tandem_dtype_name(static_cast<tandem_dtype_t>(raw))
                         : "unknown";
}

/// "f32[2,3]", "i64[]" (rank 0).
std::string formatType(uint32_t dtype, int32_t rank, const int64_t *shape) {
  std::string text = dtypeName(dtype);
  text += '[';
  for (int32_t i = 0; i < rank && shape; ++i) {
    if (i)
      text += ',';
    text += std::to_string(shape[i]);
  }
  if (rank > 0 && !shape)
    text += "rank " + std::to_string(rank) + ", no shape";
  text += ']';
  return text;
}

const char *nameOf(const tandem_tensor_desc_t &desc) {
  return desc.name ? desc.name : "";
}

tandem_status_t validateTensorDescs(const tandem_model_desc_t *desc,
                                    const char *kind,
                                    const tandem_tensor_desc_t *tensors,
                                    int32_t count) {
  if (count < 0)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': negative number of %ss (%d)",
                              desc->name, kind, count);
  if (count > 0 && !tensors)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': %d %ss but no %s descriptions",
                              desc->name, count, kind, kind);
  for (int32_t i = 0; i < count; ++i) {
    const tandem_tensor_desc_t &tensor = tensors[i];
    uint32_t dtype = rawDtype(tensor.dtype);
    if (!validDtype(dtype))
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': %s %d ('%s') has unknown dtype %u",
                                desc->name, kind, i, nameOf(tensor), dtype);
    if (tandem_tensor_desc_num_elements(&tensor) < 0)
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "model '%s': %s %d ('%s') has a malformed shape (rank %d)",
          desc->name, kind, i, nameOf(tensor), tensor.rank);
  }
  return nullptr;
}

tandem_status_t validateDescriptor(const tandem_model_desc_t *desc) {
  if (!desc)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model descriptor is NULL");
  if (desc->abi_version != TANDEM_ABI_VERSION)
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "model '%s' was compiled for runtime ABI version %u, but this "
        "runtime implements ABI version %u; recompile the model",
        desc->name ? desc->name : "", desc->abi_version,
        static_cast<unsigned>(TANDEM_ABI_VERSION));
  if (!desc->name)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model descriptor has no name");
  if (!desc->entry)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s' has no entry function", desc->name);
  if (tandem_status_t status =
          validateTensorDescs(desc, "input", desc->inputs, desc->num_inputs))
    return status;
  return validateTensorDescs(desc, "output", desc->outputs, desc->num_outputs);
}

/// Clears the instance's running flag when a run ends.
struct RunGuard {
  tandem_model_t *model;
  ~RunGuard() { model->running.clear(std::memory_order_release); }
};

tandem_status_t runLocked(tandem_model_t *model, const void *const *inputs,
                          void *const *outputs) {
  const tandem_model_desc_t *desc = model->desc;
  tandem_internal_take_kernel_error(); // forget a previous caller's
  int32_t code = desc->entry(&model->ctx, inputs, outputs);
  if (const char *error = tandem_internal_take_kernel_error())
    return tandem_status_make(TANDEM_INTERNAL, "model '%s': %s", desc->name,
                              error);
  if (code != 0)
    return tandem_status_make(TANDEM_INTERNAL,
                              "model '%s': entry failed with code %d",
                              desc->name, code);
  return nullptr;
}

tandem_status_t busy(const tandem_model_t *model) {
  return tandem_status_make(
      TANDEM_BUSY,
      "model '%s': this instance is already running on another thread; "
      "create one instance per concurrent caller",
      model->desc->name);
}

tandem_status_t checkTensor(const char *kind, int32_t index,
                            const tandem_tensor_desc_t &expected,
                            const tandem_tensor_t &got) {
  bool same = rawDtype(got.dtype) == rawDtype(expected.dtype) &&
              got.rank == expected.rank && (got.rank == 0 || got.shape);
  for (int32_t i = 0; same && i < got.rank; ++i)
    same = got.shape[i] == expected.shape[i];
  if (!same) {
    std::string want =
        formatType(rawDtype(expected.dtype), expected.rank, expected.shape);
    std::string have =
        got.rank < 0 ? std::string("rank ") + std::to_string(got.rank)
                     : formatType(rawDtype(got.dtype), got.rank, got.shape);
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "%s %d ('%s'): expected %s, got %s", kind, index,
                              nameOf(expected), want.c_str(), have.c_str());
  }
  if (!got.data)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "%s %d ('%s'): data is NULL", kind, index,
                              nameOf(expected));
  return nullptr;
}

} // namespace

extern "C" {

void tandem_model_options_init(tandem_model_options_t *options) {
  if (!options)
    return;
  options->intra_op_threads = 0;
  options->arena = nullptr;
  options->arena_bytes = 0;
}

tandem_status_t tandem_model_create(const tandem_model_desc_t *desc,
                                    const tandem_model_options_t *options,
                                    tandem_model_t **out) {
  if (!out)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_model_create: out is NULL");
  *out = nullptr;
  if (tandem_status_t status = validateDescriptor(desc))
    return status;
  tandem_model_options_t defaults;
  tandem_model_options_init(&defaults);
  if (!options)
    options = &defaults;
  if (options->intra_op_threads < 0)
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "model '%s': intra_op_threads must be >= 0 (0: physical cores), got %d",
        desc->name, options->intra_op_threads);
  if (options->arena) {
    if (reinterpret_cast<uintptr_t>(options->arena) % TANDEM_ARENA_ALIGNMENT)
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "model '%s': the caller's arena %p is not %d-byte aligned",
          desc->name, options->arena, TANDEM_ARENA_ALIGNMENT);
    if (options->arena_bytes < desc->arena_bytes)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': the caller's arena has %" PRIu64
                                " bytes, the model needs %" PRIu64,
                                desc->name, options->arena_bytes,
                                desc->arena_bytes);
  } else if (options->arena_bytes) {
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': arena_bytes is %" PRIu64
                              " but arena is NULL",
                              desc->name, options->arena_bytes);
  }

  auto *model = new (std::nothrow) tandem_model_s;
  if (!model)
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "model '%s': cannot allocate an instance",
                              desc->name);
  model->desc = desc;
  if (options->arena) {
    model->ctx.arena = options->arena;
    model->ctx.arena_bytes = options->arena_bytes;
  } else if (desc->arena_bytes) {
    if (tandem_status_t status =
            tandem_arena_alloc(desc->arena_bytes, &model->ownedArena)) {
      delete model;
      return status;
    }
    model->ctx.arena = model->ownedArena;
    model->ctx.arena_bytes = desc->arena_bytes;
  }
  if (options->intra_op_threads != 1) {
    if (tandem_status_t status = tandem_thread_pool_create(
            options->intra_op_threads, &model->pool)) {
      tandem_model_destroy(model);
      return status;
    }
  }
  model->ctx.pool = model->pool;
  // Packed weights, filled on the first run. Without it (out of memory)
  // kernels pack per call: slower, never wrong.
  model->ctx.reserved[0] = tandem_internal_kernel_cache_create();
  *out = model;
  return nullptr;
}

void tandem_model_destroy(tandem_model_t *model) {
  if (!model)
    return;
  tandem_thread_pool_destroy(model->pool);
  tandem_arena_free(model->ownedArena);
  tandem_internal_kernel_cache_destroy(
      static_cast<tandem_internal_kernel_cache *>(model->ctx.reserved[0]));
  delete model;
}

const tandem_model_desc_t *
tandem_model_descriptor(const tandem_model_t *model) {
  return model ? model->desc : nullptr;
}

tandem_status_t tandem_model_run(tandem_model_t *model,
                                 const void *const *inputs,
                                 void *const *outputs) {
  if (!model)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_model_run: model is NULL");
  const tandem_model_desc_t *desc = model->desc;
  if (desc->num_inputs > 0 && !inputs)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': inputs array is NULL (%d expected)",
                              desc->name, desc->num_inputs);
  if (desc->num_outputs > 0 && !outputs)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': outputs array is NULL (%d expected)",
                              desc->name, desc->num_outputs);
  for (int32_t i = 0; i < desc->num_inputs; ++i)
    if (!inputs[i])
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': input %d ('%s') is NULL",
                                desc->name, i, nameOf(desc->inputs[i]));
  for (int32_t i = 0; i < desc->num_outputs; ++i)
    if (!outputs[i])
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': output %d ('%s') is NULL",
                                desc->name, i, nameOf(desc->outputs[i]));
  if (model->running.test_and_set(std::memory_order_acquire))
    return busy(model);
  RunGuard guard{model};
  return runLocked(model, inputs, outputs);
}

tandem_status_t tandem_model_run_checked(tandem_model_t *model,
                                         const tandem_tensor_t *inputs,
                                         int32_t num_inputs,
                                         const tandem_tensor_t *outputs,
                                         int32_t num_outputs) {
  if (!model)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_model_run_checked: model is NULL");
  const tandem_model_desc_t *desc = model->desc;
  if (num_inputs != desc->num_inputs)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': expected %d inputs, got %d",
                              desc->name, desc->num_inputs, num_inputs);
  if (num_outputs != desc->num_outputs)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': expected %d outputs, got %d",
                              desc->name, desc->num_outputs, num_outputs);
  if ((num_inputs > 0 && !inputs) || (num_outputs > 0 && !outputs))
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': %s array is NULL", desc->name,
                              inputs || num_inputs == 0 ? "outputs" : "inputs");
  for (int32_t i = 0; i < num_inputs; ++i)
    if (tandem_status_t status =
            checkTensor("input", i, desc->inputs[i], inputs[i]))
      return status;
  for (int32_t i = 0; i < num_outputs; ++i)
    if (tandem_status_t status =
            checkTensor("output", i, desc->outputs[i], outputs[i]))
      return status;
  try {
    std::vector<const void *> inputData(static_cast<size_t>(num_inputs));
    std::vector<void *> outputData(static_cast<size_t>(num_outputs));
    for (int32_t i = 0; i < num_inputs; ++i)
      inputData[static_cast<size_t>(i)] = inputs[i].data;
    for (int32_t i = 0; i < num_outputs; ++i)
      outputData[static_cast<size_t>(i)] = outputs[i].data;
    if (model->running.test_and_set(std::memory_order_acquire))
      return busy(model);
    RunGuard guard{model};
    return runLocked(model, inputData.data(), outputData.data());
  } catch (const std::bad_alloc &) {
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "model '%s': cannot allocate buffer tables",
                              desc->name);
  }
}

} // extern "C"
