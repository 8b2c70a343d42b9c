//===- model.cpp - Model instances: create, validate, run -----------------===//
//
// An instance binds a compiled model's descriptor to a thread pool, its run
// slots (program/program.h: arenas and, for a model with a device program,
// device memory, streams and events) and, optionally, a trace. A synchronous
// run uses slot 0 and excludes every other run of the instance (a second
// one gets TANDEM_BUSY); tandem_model_run_async hands runs to one worker
// thread per slot, so up to pipeline_depth runs are in flight. Instances
// are independent of each other.
//
//===----------------------------------------------------------------------===//

#include "kernels/kernel_cache.h"
#include "kernels/kernel_status.h"
#include "program/program.h"
#include "program/test_hooks.h"
#include "program/trace.h"
#include "tandem/runtime.h"

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using tandem::sched::Slot;

/// A run handed to a slot's worker.
struct tandem_run_s {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  tandem_status_t status = nullptr;
};

namespace {
struct Job {
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
  tandem_run_s *ticket = nullptr;
};
} // namespace

struct tandem_model_s {
  const tandem_model_desc_t *desc = nullptr;
  tandem_thread_pool_t *pool = nullptr;
  tandem_internal_kernel_cache *kernelCache = nullptr;
  tandem::sched::Stats stats;
  std::unique_ptr<tandem::sched::Trace> trace;
  std::unique_ptr<tandem::sched::Program> program;
  std::vector<std::unique_ptr<Slot>> slots;

  // Run admission and the async workers, under `mutex`.
  std::mutex mutex;
  std::condition_variable slotFreed;
  std::condition_variable jobReady;
  std::vector<bool> slotBusy;
  std::vector<std::unique_ptr<Job>> jobs; // per slot
  std::vector<std::thread> workers;       // per slot, started on demand
  bool syncRunning = false;
  bool stopping = false;
  /// tandem_model_create succeeded (a failed creation writes no trace).
  bool created = false;
};

namespace {

/// The instances tandem_model_create made and tandem_model_destroy has not
/// freed yet. Every function that takes a model looks it up first, so that a
/// destroyed (or never created) handle gives an error instead of a read of
/// freed memory. A handle whose address a later instance reuses cannot be
/// told apart: that misuse stays undefined, as documented.
struct LiveModels {
  std::mutex mutex;
  std::unordered_set<const tandem_model_s *> set;
};

LiveModels &liveModels() {
  static LiveModels *live = new LiveModels; // never destroyed: no exit race
  return *live;
}

bool isLive(const tandem_model_s *model) {
  LiveModels &live = liveModels();
  std::lock_guard<std::mutex> lock(live.mutex);
  return live.set.count(model) != 0;
}

/// The error of a function given `model`: NULL, or a handle that is not a
/// live instance. NULL when the model is live.
tandem_status_t checkLive(const char *function, const tandem_model_s *model) {
  if (!model)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT, "%s: model is NULL",
                              function);
  if (!isLive(model))
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "%s: model %p is not a live instance (destroyed, or not made by "
        "tandem_model_create)",
        function, static_cast<const void *>(model));
  return nullptr;
}

/// The raw value of a dtype field. Descriptors and tensors come from other
/// code and may hold values outside the enum, which C++ must not load as
/// the enum type.
uint32_t rawDtype(const tandem_dtype_t &dtype) {
  uint32_t raw = 0;
  static_assert(sizeof(dtype) == sizeof(raw), "tandem_dtype_t is 32-bit");
  std::memcpy(&raw, &dtype, sizeof(raw));
  return raw;
}

bool validDtype(uint32_t raw) { return raw <= TANDEM_DTYPE_LAST; }

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
    if (!tensor.name)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': %s %d has a NULL name", desc->name,
                                kind, i);
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
  if (desc->abi_version != TANDEM_ABI_VERSION &&
      desc->abi_version != TANDEM_ABI_VERSION_MULTI_GPU &&
      desc->abi_version != TANDEM_ABI_VERSION_ONE_GPU &&
      desc->abi_version != TANDEM_ABI_VERSION_CPU_ONLY)
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "model '%s' was compiled for runtime ABI version %u, but this "
        "runtime implements ABI version %u (and %u for models without a "
        "convolution table, %u for one-GPU models, %u for CPU-only models); "
        "recompile the model",
        desc->name ? desc->name : "", desc->abi_version,
        static_cast<unsigned>(TANDEM_ABI_VERSION),
        static_cast<unsigned>(TANDEM_ABI_VERSION_MULTI_GPU),
        static_cast<unsigned>(TANDEM_ABI_VERSION_ONE_GPU),
        static_cast<unsigned>(TANDEM_ABI_VERSION_CPU_ONLY));
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

/// The device program of `desc`; a version-1 descriptor has no such field,
/// which must not be read.
const tandem_device_program_t *deviceProgram(const tandem_model_desc_t *desc) {
  return desc->abi_version >= 2 ? desc->device_program : nullptr;
}

/// Runs the entry on `slot` and turns every failure into a status.
tandem_status_t runOnSlot(tandem_model_t *model, Slot *slot,
                          const void *const *inputs, void *const *outputs) {
  const tandem_model_desc_t *desc = model->desc;
  tandem_internal_take_kernel_error(); // forget a previous caller's
  tandem_internal_take_input_error();
  uint64_t start = model->trace ? tandem::sched::nowNs() : 0;
  tandem::sched::beginRun(slot);
  int32_t code = desc->entry(&slot->ctx, inputs, outputs);
  std::string error = tandem::sched::endRun(slot);
  if (model->trace)
    model->trace->span(
        tandem::sched::trackId(slot->index, tandem::sched::kHostTrack), "run",
        "run", start, tandem::sched::nowNs());
  model->stats.runs++;
  if (std::string inputError = tandem_internal_take_input_error();
      !inputError.empty()) {
    tandem_internal_take_kernel_error();
    return tandem_status_make(TANDEM_INVALID_ARGUMENT, "model '%s': %s",
                              desc->name, inputError.c_str());
  }
  if (const char *kernelError = tandem_internal_take_kernel_error())
    return tandem_status_make(TANDEM_INTERNAL, "model '%s': %s", desc->name,
                              kernelError);
  if (!error.empty())
    return tandem_status_make(TANDEM_INTERNAL, "model '%s': %s", desc->name,
                              error.c_str());
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
  // An empty tensor (a zero-size dim) has no bytes to point at.
  if (!got.data && tandem_tensor_desc_num_elements(&expected) != 0)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "%s %d ('%s'): data is NULL", kind, index,
                              nameOf(expected));
  return nullptr;
}

/// Checks that bool input `index` holds only 0 and 1 bytes: generated code
/// may read a bool as its lowest bit or as "non-zero", so other bytes would
/// give inconsistent results.
tandem_status_t checkBoolBytes(int32_t index, const tandem_tensor_desc_t &desc,
                               const tandem_tensor_t &got) {
  int64_t count = tandem_tensor_desc_num_elements(&desc);
  const auto *bytes = static_cast<const unsigned char *>(got.data);
  for (int64_t i = 0; i < count; ++i)
    if (bytes[i] > 1)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "input %d ('%s'): bool element %" PRId64
                                " holds byte %u; bool elements must be 0 or 1",
                                index, nameOf(desc), i,
                                static_cast<unsigned>(bytes[i]));
  return nullptr;
}

/// Checks, before a run starts, that the trace file can be written at
/// destruction: `path` is an existing writable regular file, or names a new
/// file in a writable directory. On failure sets `why`.
bool traceWritable(const std::string &path, std::string &why) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      why = "it is a directory";
      return false;
    }
    if (access(path.c_str(), W_OK) != 0) {
      why = std::strerror(errno);
      return false;
    }
    return true;
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    why = "its directory '" + dir + "' does not exist";
    return false;
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    why =
        "its directory '" + dir + "' is not writable: " + std::strerror(errno);
    return false;
  }
  return true;
}

/// Takes slot 0 for a synchronous run, or says why not.
tandem_status_t enterSync(tandem_model_t *model) {
  std::lock_guard<std::mutex> lock(model->mutex);
  if (model->syncRunning)
    return busy(model);
  for (bool slotBusy : model->slotBusy)
    if (slotBusy)
      return tandem_status_make(
          TANDEM_BUSY,
          "model '%s': asynchronous runs of this instance are in flight; "
          "wait for them before a synchronous run",
          model->desc->name);
  model->syncRunning = true;
  return nullptr;
}

void leaveSync(tandem_model_t *model) {
  std::lock_guard<std::mutex> lock(model->mutex);
  model->syncRunning = false;
}

tandem_status_t runSync(tandem_model_t *model, const void *const *inputs,
                        void *const *outputs) {
  if (tandem_status_t status = enterSync(model))
    return status;
  tandem_status_t status =
      runOnSlot(model, model->slots[0].get(), inputs, outputs);
  leaveSync(model);
  return status;
}

/// The loop of slot `index`'s async worker.
void workerLoop(tandem_model_t *model, size_t index) {
  std::unique_lock<std::mutex> lock(model->mutex);
  for (;;) {
    model->jobReady.wait(lock,
                         [&] { return model->stopping || model->jobs[index]; });
    if (!model->jobs[index])
      return;
    std::unique_ptr<Job> job = std::move(model->jobs[index]);
    lock.unlock();
    tandem_status_t status = runOnSlot(model, model->slots[index].get(),
                                       job->inputs.data(), job->outputs.data());
    // Free the slot before the ticket completes, so that a caller who has
    // waited for every ticket finds the instance idle.
    lock.lock();
    model->slotBusy[index] = false;
    model->slotFreed.notify_all();
    std::lock_guard<std::mutex> ticketLock(job->ticket->mutex);
    job->ticket->status = status;
    job->ticket->done = true;
    job->ticket->cv.notify_all();
  }
}

tandem_status_t checkBuffers(const tandem_model_t *model,
                             const void *const *inputs, void *const *outputs) {
  const tandem_model_desc_t *desc = model->desc;
  if (desc->num_inputs > 0 && !inputs)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': inputs array is NULL (%d expected)",
                              desc->name, desc->num_inputs);
  if (desc->num_outputs > 0 && !outputs)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': outputs array is NULL (%d expected)",
                              desc->name, desc->num_outputs);
  // Empty tensors (a zero-size dim) may be NULL: nothing reads them.
  for (int32_t i = 0; i < desc->num_inputs; ++i)
    if (!inputs[i] && tandem_tensor_desc_num_elements(&desc->inputs[i]) != 0)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': input %d ('%s') is NULL",
                                desc->name, i, nameOf(desc->inputs[i]));
  for (int32_t i = 0; i < desc->num_outputs; ++i)
    if (!outputs[i] && tandem_tensor_desc_num_elements(&desc->outputs[i]) != 0)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': output %d ('%s') is NULL",
                                desc->name, i, nameOf(desc->outputs[i]));
  return nullptr;
}

} // namespace

extern "C" {

void tandem_model_options_init(tandem_model_options_t *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->intra_op_threads = 0;
  options->arena = nullptr;
  options->arena_bytes = 0;
  options->device = nullptr;
  options->cuda_graphs = -1;
  options->pipeline_depth = 0;
  options->log_fallback = 1;
  options->trace_path = nullptr;
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
  if (options->device && !*options->device)
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "model '%s': device is the empty string (expected auto, cpu, "
        "emulated, cuda or cuda:N; NULL means $TANDEM_DEVICE, else auto)",
        desc->name);
  if (options->pipeline_depth < 0 || options->pipeline_depth > 64)
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "model '%s': pipeline_depth must be in [0, 64] (0: 1), got %d",
        desc->name, options->pipeline_depth);
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

  const char *tracePath = options->trace_path;
  bool traceFromEnv = !tracePath || !*tracePath;
  if (traceFromEnv)
    tracePath = std::getenv("TANDEM_TRACE");
  if (tracePath && *tracePath) {
    std::string why;
    if (!traceWritable(tracePath, why))
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "model '%s': cannot write the trace '%s'%s: %s", desc->name,
          tracePath, traceFromEnv ? " (from $TANDEM_TRACE)" : "", why.c_str());
  }

  auto *model = new (std::nothrow) tandem_model_s;
  if (!model)
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "model '%s': cannot allocate an instance",
                              desc->name);
  model->desc = desc;
  try {
    // Registered first, so that the failure paths' tandem_model_destroy
    // finds it.
    {
      LiveModels &live = liveModels();
      std::lock_guard<std::mutex> lock(live.mutex);
      live.set.insert(model);
    }
    if (tracePath && *tracePath)
      model->trace = std::make_unique<tandem::sched::Trace>(tracePath);
    if (deviceProgram(desc)) {
      if (tandem_status_t status = tandem::sched::createProgram(
              desc, *options, &model->stats, model->trace.get(),
              &model->program)) {
        tandem_model_destroy(model);
        return status;
      }
    }
    if (options->intra_op_threads != 1) {
      if (tandem_status_t status = tandem_thread_pool_create(
              options->intra_op_threads, &model->pool)) {
        tandem_model_destroy(model);
        return status;
      }
    }
    // Packed weights, filled on the first run. Without it (out of memory)
    // kernels pack per call: slower, never wrong.
    model->kernelCache = tandem_internal_kernel_cache_create();
    int depth = options->pipeline_depth ? options->pipeline_depth : 1;
    for (int i = 0; i < depth; ++i) {
      std::unique_ptr<Slot> slot;
      if (tandem_status_t status = tandem::sched::createSlot(
              desc, model->program.get(), &model->stats, model->trace.get(), i,
              i == 0 ? options->arena : nullptr,
              i == 0 ? options->arena_bytes : 0, model->kernelCache, &slot)) {
        tandem_model_destroy(model);
        return status;
      }
      slot->ctx.pool = model->pool;
      model->slots.push_back(std::move(slot));
    }
    model->slotBusy.assign(static_cast<size_t>(depth), false);
    model->jobs.resize(static_cast<size_t>(depth));
  } catch (const std::bad_alloc &) {
    if (isLive(model))
      tandem_model_destroy(model);
    else
      delete model; // the registry could not take it
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "model '%s': out of host memory", desc->name);
  }
  model->created = true;
  *out = model;
  return nullptr;
}

void tandem_model_destroy(tandem_model_t *model) {
  if (!model)
    return;
  {
    LiveModels &live = liveModels();
    std::lock_guard<std::mutex> lock(live.mutex);
    if (!live.set.erase(model)) {
      // Never read a handle that is not live: it may be freed memory.
      std::fprintf(stderr,
                   "tandem: tandem_model_destroy: %p is not a live model "
                   "instance (destroyed twice?); ignored\n",
                   static_cast<void *>(model));
      return;
    }
  }
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    model->stopping = true;
    model->jobReady.notify_all();
  }
  for (std::thread &worker : model->workers)
    worker.join();
  for (std::unique_ptr<Slot> &slot : model->slots)
    tandem::sched::destroySlot(slot.get());
  model->slots.clear();
  tandem::sched::destroyProgram(model->program.get());
  tandem_thread_pool_destroy(model->pool);
  tandem_internal_kernel_cache_destroy(model->kernelCache);
  if (model->trace && model->created && !model->trace->write())
    std::fprintf(stderr,
                 "tandem: model '%s': cannot write the trace '%s': %s\n",
                 model->desc->name, model->trace->filePath().c_str(),
                 std::strerror(errno));
  delete model;
}

const tandem_model_desc_t *
tandem_model_descriptor(const tandem_model_t *model) {
  return model && isLive(model) ? model->desc : nullptr;
}

const char *tandem_model_device_name(const tandem_model_t *model) {
  if (!model || !isLive(model))
    return "";
  return model->program ? model->program->deviceName.c_str() : "cpu";
}

const char *tandem_model_fallback_reason(const tandem_model_t *model) {
  if (!model || !isLive(model) || !model->program || model->program->onDevice())
    return nullptr;
  return model->program->fallbackReason.c_str();
}

tandem_status_t tandem_model_stats(tandem_model_t *model,
                                   tandem_model_stats_t *stats, int32_t reset) {
  if (!stats)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_model_stats: stats is NULL");
  if (tandem_status_t status = checkLive("tandem_model_stats", model))
    return status;
  tandem::sched::Stats &s = model->stats;
  std::atomic<uint64_t> *counters[] = {
      &s.runs,          &s.kernelLaunches, &s.capturedLaunches,
      &s.graphCaptures, &s.graphLaunches,  &s.h2dCopies,
      &s.h2dBytes,      &s.d2hCopies,      &s.d2hBytes,
      &s.stagedBytes};
  uint64_t *fields[] = {&stats->runs,
                        &stats->kernel_launches,
                        &stats->captured_launches,
                        &stats->graph_captures,
                        &stats->graph_launches,
                        &stats->h2d_copies,
                        &stats->h2d_bytes,
                        &stats->d2h_copies,
                        &stats->d2h_bytes,
                        &stats->staged_bytes};
  static_assert(sizeof(counters) / sizeof(counters[0]) ==
                    sizeof(fields) / sizeof(fields[0]),
                "one field per counter");
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i)
    *fields[i] = reset ? counters[i]->exchange(0) : counters[i]->load();
  return nullptr;
}

tandem_status_t tandem_model_run(tandem_model_t *model,
                                 const void *const *inputs,
                                 void *const *outputs) {
  if (tandem_status_t status = checkLive("tandem_model_run", model))
    return status;
  if (tandem_status_t status = checkBuffers(model, inputs, outputs))
    return status;
  return runSync(model, inputs, outputs);
}

tandem_status_t tandem_model_run_async(tandem_model_t *model,
                                       const void *const *inputs,
                                       void *const *outputs,
                                       tandem_run_t **ticket) {
  if (!ticket)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_model_run_async: ticket is NULL");
  *ticket = nullptr;
  if (tandem_status_t status = checkLive("tandem_model_run_async", model))
    return status;
  if (tandem_status_t status = checkBuffers(model, inputs, outputs))
    return status;
  const tandem_model_desc_t *desc = model->desc;
  try {
    auto job = std::make_unique<Job>();
    job->inputs.assign(inputs, inputs + desc->num_inputs);
    job->outputs.assign(outputs, outputs + desc->num_outputs);
    auto run = std::make_unique<tandem_run_s>();
    std::unique_lock<std::mutex> lock(model->mutex);
    if (model->syncRunning)
      return busy(model);
    size_t free = 0;
    model->slotFreed.wait(lock, [&] {
      for (free = 0; free < model->slotBusy.size(); ++free)
        if (!model->slotBusy[free])
          return true;
      return false;
    });
    if (model->syncRunning)
      return busy(model);
    while (model->workers.size() <= free) {
      size_t index = model->workers.size();
      model->workers.emplace_back(workerLoop, model, index);
    }
    job->ticket = run.get();
    model->slotBusy[free] = true;
    model->jobs[free] = std::move(job);
    model->jobReady.notify_all();
    *ticket = run.release();
    return nullptr;
  } catch (const std::bad_alloc &) {
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "model '%s': out of host memory", desc->name);
  } catch (const std::system_error &error) {
    return tandem_status_make(TANDEM_UNAVAILABLE,
                              "model '%s': cannot start a worker thread: %s",
                              desc->name, error.what());
  }
}

tandem_status_t tandem_model_wait(tandem_run_t *ticket) {
  if (!ticket)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_model_wait: ticket is NULL");
  tandem_status_t status = nullptr;
  {
    std::unique_lock<std::mutex> lock(ticket->mutex);
    ticket->cv.wait(lock, [&] { return ticket->done; });
    status = ticket->status;
  }
  delete ticket;
  return status;
}

tandem_status_t tandem_model_run_checked(tandem_model_t *model,
                                         const tandem_tensor_t *inputs,
                                         int32_t num_inputs,
                                         const tandem_tensor_t *outputs,
                                         int32_t num_outputs) {
  if (tandem_status_t status = checkLive("tandem_model_run_checked", model))
    return status;
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
  for (int32_t i = 0; i < num_inputs; ++i)
    if (rawDtype(desc->inputs[i].dtype) == TANDEM_BOOL)
      if (tandem_status_t status =
              checkBoolBytes(i, desc->inputs[i], inputs[i]))
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
    return runSync(model, inputData.data(), outputData.data());
  } catch (const std::bad_alloc &) {
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "model '%s': cannot allocate buffer tables",
                              desc->name);
  }
}

} // extern "C"

tandem_stream_t *tandem_internal_model_stream(tandem_model_t *model, int slot,
                                              int stream) {
  if (!model || !model->program || !model->program->onDevice() || slot < 0 ||
      static_cast<size_t>(slot) >= model->slots.size() || stream < 0 ||
      stream >= model->program->numDevices * tandem::sched::kNumStreams)
    return nullptr;
  return model->slots[static_cast<size_t>(slot)]
      ->devices[static_cast<size_t>(stream / tandem::sched::kNumStreams)]
      .streams[stream % tandem::sched::kNumStreams];
}
