//===- sched.cpp - tandem_sched_*: the host schedule of GPU partitions ----===//
//
// Generated code calls these with its exec context; the run's slot
// (program.h) is ctx->reserved[1]. Three modes:
//  - CUDA and emulated: through the device API on the slot's streams and
//    events. Copies of the caller's buffers go through pinned staging.
//    Launches inside partition_begin/end are buffered and issued at the end
//    of the partition: directly on a slot's first run, then captured once
//    into a graph and replayed while they stay the same.
//  - CPU fallback (no device): the device arena is host memory, copies are
//    memcpy, launches call the twins, events do nothing.
// Library GEMMs (tandem_sched_gemm) are buffered and captured like launches;
// they run cuBLASLt (CUDA), the CPU sgemm on the stream's thread (emulated)
// or the CPU sgemm on the run's thread pool (CPU fallback). Library
// convolutions (tandem_sched_conv) likewise run cuDNN (CUDA) or the CPU
// convolution kernels through conv_desc.h (emulated, CPU fallback).
// Failures never return: the first one is kept in the slot, later calls of
// the run do nothing, and the run fails with its message (model.cpp).
//
//===----------------------------------------------------------------------===//

#include "device/device.h"
#include "kernels/conv_desc.h"
#include "kernels/gemm_desc.h"
#include "kernels/kernel_status.h"
#include "program/program.h"
#include "program/trace.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

using namespace tandem::sched;

namespace {

Slot *slotOf(const tandem_exec_ctx_t *ctx) {
  return ctx ? static_cast<Slot *>(ctx->reserved[1]) : nullptr;
}

/// Records the run's first failure.
TANDEM_PRINTF_FORMAT(2, 3)
void fail(Slot *slot, const char *fmt, ...) {
  if (!slot->error.empty())
    return;
  char buffer[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  slot->error = buffer;
}

/// Fails with a device status (consumed); returns true when there was one.
bool failed(Slot *slot, tandem_status_t status, const char *what) {
  if (!status)
    return false;
  fail(slot, "%s: %s", what, tandem_status_message(status));
  tandem_status_free(status);
  return true;
}

/// The slot of a call that may proceed: NULL when ctx has no device program
/// (then the run fails through the kernel-error channel) or the run has
/// already failed.
Slot *activeSlot(const tandem_exec_ctx_t *ctx, const char *function) {
  Slot *slot = slotOf(ctx);
  if (!slot) {
    tandem_internal_kernel_failure failure;
    tandem_internal_kernel_fail(&failure,
                                "tandem_sched_* called for a model without a "
                                "device program");
    tandem_internal_kernel_report(&failure);
    (void)function;
    return nullptr;
  }
  return slot->error.empty() ? slot : nullptr;
}

bool onDevice(const Slot *slot) { return slot->program->onDevice(); }

/// The GPU of schedule stream `stream` and its handle (abi.h numbers GPU
/// d's streams from d * TANDEM_STREAMS_PER_DEVICE).
int32_t gpuOf(int32_t stream) { return stream / kNumStreams; }
Slot::Device &slotGpu(Slot *slot, int32_t stream) {
  return slot->devices[static_cast<size_t>(gpuOf(stream))];
}
tandem_stream_t *streamHandle(Slot *slot, int32_t stream) {
  return slotGpu(slot, stream).streams[stream % kNumStreams];
}

bool checkStream(Slot *slot, int32_t stream, const char *function) {
  int32_t gpus = slot->program->numDevices;
  if (stream >= 0 && stream < gpus * kNumStreams)
    return true;
  if (gpus == 1)
    fail(slot, "%s: stream %d does not exist (0 compute, 1 h2d, 2 d2h)",
         function, stream);
  else
    fail(slot,
         "%s: stream %d does not exist (the program's %d GPUs have streams "
         "0 to %d: GPU d's compute, h2d and d2h streams are 3d, 3d+1, 3d+2)",
         function, stream, gpus, gpus * kNumStreams - 1);
  return false;
}

bool checkEvent(Slot *slot, int32_t event, const char *function) {
  if (event >= 0 && event < slot->program->program->num_events)
    return true;
  fail(slot, "%s: event %d does not exist (the program has %d)", function,
       event, slot->program->program->num_events);
  return false;
}

/// [address, address + bytes) must lie in the device arena of the GPU of
/// `stream`.
bool checkRange(Slot *slot, int32_t stream, uint64_t address, uint64_t bytes,
                const char *what) {
  int32_t gpu = gpuOf(stream);
  uint64_t size = slot->program->arenaBytes[static_cast<size_t>(gpu)];
  uint64_t base = slotGpu(slot, stream).base;
  if (address >= base && address - base <= size &&
      bytes <= size - (address - base))
    return true;
  std::string arena = slot->program->numDevices > 1
                          ? "the device arena of GPU " + std::to_string(gpu)
                          : std::string("the device arena");
  if (address < base || address - base > size)
    fail(slot,
         "%s: device address 0x%" PRIx64 " is outside %s "
         "[0x%" PRIx64 ", +%" PRIu64 ")",
         what, address, arena.c_str(), base, size);
  else
    fail(slot,
         "%s: %" PRIu64 " bytes at device offset %" PRIu64
         " run past the end of %s (%" PRIu64 " bytes)",
         what, bytes, address - base, arena.c_str(), size);
  return false;
}

const char *kernelName(const Slot *slot, int32_t kernel) {
  return slot->program->program->kernels[kernel].name;
}

int streamTrack(const Slot *slot, int32_t stream) {
  return streamTrackId(slot->index, stream);
}

/// The CPU fallback's launch: runs `work` on the calling thread, as a
/// kernel span named `name` on `stream`'s track.
template <typename Work>
bool runInline(Slot *slot, int32_t stream, const char *name, Work &&work) {
  uint64_t start = slot->trace ? nowNs() : 0;
  work();
  if (slot->trace)
    slot->trace->span(streamTrack(slot, stream), name, "kernel", start,
                      nowNs());
  slot->stats->kernelLaunches++;
  return true;
}

/// Records how enqueuing `launch` (`what`: "gemm" or "kernel") on `stream`
/// went: the slot's failure (taking `status`), or one more launch, captured
/// or not.
bool enqueued(Slot *slot, tandem_status_t status, const char *what,
              const LaunchRecord &launch, int32_t stream, bool captured) {
  if (status) {
    fail(slot, "%s '%s' (kernel %d) on stream %d: %s", what,
         kernelName(slot, launch.kernel), launch.kernel, stream,
         tandem_status_message(status));
    tandem_status_free(status);
    return false;
  }
  if (captured)
    slot->stats->capturedLaunches++;
  else
    slot->stats->kernelLaunches++;
  return true;
}

/// Issues one library GEMM on `stream` (see issueLaunch).
bool issueGemm(Slot *slot, const LaunchRecord &launch, int32_t stream,
               bool captured) {
  const char *name = kernelName(slot, launch.kernel);
  const uint64_t *args = launch.args.data();
  if (!onDevice(slot)) {
    auto host = [](uint64_t address) {
      return reinterpret_cast<float *>(static_cast<uintptr_t>(address));
    };
    return runInline(slot, stream, name, [&] {
      tandem::gemm::runOnHost(&slot->ctx, *launch.gemm, host(args[0]),
                              host(args[1]), host(args[2]), host(args[3]));
    });
  }
  return enqueued(slot,
                  tandem_device_gemm(streamHandle(slot, stream), launch.gemm,
                                     args[0], args[1], args[2], args[3], name),
                  "gemm", launch, stream, captured);
}

/// Issues one library convolution on `stream` (see issueLaunch).
bool issueConv(Slot *slot, const LaunchRecord &launch, int32_t stream,
               bool captured) {
  const char *name = kernelName(slot, launch.kernel);
  const uint64_t *args = launch.args.data();
  if (!onDevice(slot)) {
    auto host = [](uint64_t address) {
      return reinterpret_cast<float *>(static_cast<uintptr_t>(address));
    };
    return runInline(slot, stream, name, [&] {
      tandem::conv::runOnHost(&slot->ctx, *launch.conv, host(args[0]),
                              host(args[1]), host(args[2]), host(args[3]),
                              host(args[4]));
    });
  }
  return enqueued(slot,
                  tandem_device_conv(streamHandle(slot, stream), launch.conv,
                                     args[0], args[1], args[2], args[3],
                                     args[4], name),
                  "conv", launch, stream, captured);
}

/// Issues one launch on `stream` (captured: recorded into the graph being
/// captured). CPU fallback: calls the twin.
bool issueLaunch(Slot *slot, const LaunchRecord &launch, int32_t stream,
                 bool captured) {
  if (launch.gemm)
    return issueGemm(slot, launch, stream, captured);
  if (launch.conv)
    return issueConv(slot, launch, stream, captured);
  const tandem_program_kernel_t &kernel =
      slot->program->program->kernels[launch.kernel];
  size_t n = launch.args.size();
  if (!onDevice(slot)) {
    std::vector<void *> pointers(n), args(n);
    for (size_t i = 0; i < n; ++i) {
      pointers[i] =
          reinterpret_cast<void *>(static_cast<uintptr_t>(launch.args[i]));
      args[i] = &pointers[i];
    }
    return runInline(slot, stream, kernel.name,
                     [&] { kernel.cpu_twin(args.data()); });
  }
  std::vector<tandem_kernel_arg_t> args(n);
  for (size_t i = 0; i < n; ++i)
    args[i] = {&launch.args[i], sizeof(uint64_t), TANDEM_KERNEL_ARG_DEVICE_PTR};
  tandem_launch_dims_t dims = {{launch.dims[0], launch.dims[1], launch.dims[2]},
                               {launch.dims[3], launch.dims[4], launch.dims[5]},
                               0};
  return enqueued(slot,
                  tandem_device_launch(
                      streamHandle(slot, stream),
                      slot->program->devices[static_cast<size_t>(gpuOf(stream))]
                          .kernels[static_cast<size_t>(launch.kernel)],
                      &dims, args.data(), static_cast<int32_t>(n)),
                  "kernel", launch, stream, captured);
}

/// Something other than a launch on the partition's stream happened inside
/// an open GPU partition: issue what was buffered, in order, and never
/// capture this partition.
void flushOpen(Slot *slot) {
  if (slot->openPartition < 0 || !onDevice(slot))
    return;
  slot->partitions[static_cast<size_t>(slot->openPartition)].ungraphable = true;
  for (const LaunchRecord &launch : slot->buffered)
    if (!issueLaunch(slot, launch, slot->openStream, false))
      break;
  slot->buffered.clear();
}

/// Issues the buffered launches of the open partition: directly, or as one
/// replay of its graph (captured first when there is none or the launches
/// changed).
void finishPartition(Slot *slot) {
  PartitionState &partition =
      slot->partitions[static_cast<size_t>(slot->openPartition)];
  int32_t stream = slot->openStream;
  tandem_stream_t *handle = streamHandle(slot, stream);
  bool useGraph = slot->program->graphs && !partition.ungraphable &&
                  slot->runIndex >= 1 && !slot->buffered.empty();
  if (!useGraph) {
    for (const LaunchRecord &launch : slot->buffered)
      if (!issueLaunch(slot, launch, stream, false))
        return;
    return;
  }
  if (!partition.graph || !(partition.signature == slot->buffered)) {
    tandem_device_graph_destroy(partition.graph);
    partition.graph = nullptr;
    partition.signature.clear();
    if (failed(slot, tandem_stream_begin_capture(handle), "CUDA Graph capture"))
      return;
    bool ok = true;
    for (const LaunchRecord &launch : slot->buffered)
      if (!(ok = issueLaunch(slot, launch, stream, true)))
        break;
    tandem_device_graph_t *graph = nullptr;
    tandem_status_t status = tandem_stream_end_capture(handle, &graph);
    if (!ok) {
      tandem_status_free(status);
      tandem_device_graph_destroy(graph);
      return;
    }
    if (failed(slot, status, "CUDA Graph capture"))
      return;
    graph->label =
        std::string("graph ") +
        programPartitionName(slot->program->program, slot->openPartition);
    partition.graph = graph;
    partition.signature = slot->buffered;
    slot->stats->graphCaptures++;
  }
  if (failed(slot, tandem_device_graph_launch(partition.graph, handle),
             "graph launch"))
    return;
  slot->stats->graphLaunches++;
}

/// Pinned staging for `bytes`: the current chunk, or a new one.
void *stage(Slot *slot, uint64_t bytes) {
  uint64_t rounded = (bytes + 255) / 256 * 256;
  if (slot->staging.empty() ||
      slot->staging.back().bytes - slot->stagingUsed < rounded) {
    uint64_t size = std::max(rounded, slot->stagingTotal);
    void *data = nullptr;
    if (failed(
            slot,
            tandem_device_host_alloc(slot->program->hostDevice(), size, &data),
            "pinned staging"))
      return nullptr;
    try {
      slot->staging.push_back({data, size});
    } catch (...) {
      tandem_status_free(
          tandem_device_host_free(slot->program->hostDevice(), data));
      fail(slot, "pinned staging: out of host memory");
      return nullptr;
    }
    slot->stagingUsed = 0;
  }
  void *out =
      static_cast<char *>(slot->staging.back().data) + slot->stagingUsed;
  slot->stagingUsed += rounded;
  slot->stagingTotal += rounded;
  return out;
}

/// Delivers staged device-to-host copies: those whose event has completed,
/// or all (`all`, after the streams were synchronized).
void deliver(Slot *slot, bool all) {
  auto done = [&](const PendingCopy &copy) {
    if (!all) {
      int32_t complete = 0;
      tandem_status_t status = tandem_event_query(copy.done, &complete);
      if (status || !complete) {
        tandem_status_free(status);
        return false;
      }
    }
    std::memcpy(copy.dst, copy.staging, static_cast<size_t>(copy.bytes));
    return true;
  };
  slot->pending.erase(
      std::remove_if(slot->pending.begin(), slot->pending.end(), done),
      slot->pending.end());
}

bool insideHostArena(const Slot *slot, const void *ptr, uint64_t bytes) {
  if (!slot->pinnedArena)
    return false;
  uintptr_t begin = reinterpret_cast<uintptr_t>(slot->pinnedArena);
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  return p >= begin && p - begin <= slot->arenaBytes &&
         bytes <= slot->arenaBytes - (p - begin);
}

/// An event of the GPU of `stream` for a staged copy on it.
tandem_event_t *copyEvent(Slot *slot, int32_t stream) {
  Slot::Device &gpu = slotGpu(slot, stream);
  if (gpu.nextCopyEvent == gpu.copyEvents.size()) {
    tandem_event_t *event = nullptr;
    if (failed(slot,
               tandem_event_create(
                   slot->program->devices[static_cast<size_t>(gpuOf(stream))]
                       .device,
                   &event),
               "copy event"))
      return nullptr;
    gpu.copyEvents.push_back(event);
  }
  return gpu.copyEvents[gpu.nextCopyEvent++];
}

/// The copy of `event` on the GPU of its latest record (`gpu` when it has
/// none this run).
tandem_event_t *recordedEvent(Slot *slot, int32_t event, int32_t gpu) {
  int32_t recorded = slot->lastRecord[static_cast<size_t>(event)];
  return slot->devices[static_cast<size_t>(recorded >= 0 ? recorded : gpu)]
      .events[static_cast<size_t>(event)];
}

/// What both copies start with: the slot, the stream, the device range and
/// the host pointer checked (`nullHost` is the error for a NULL host
/// pointer), then the buffered launches flushed. The slot when the copy
/// should be issued; null when it failed or has nothing to do.
Slot *beginCopy(const tandem_exec_ctx_t *ctx, int32_t stream, uint64_t device,
                const void *host, uint64_t bytes, const char *function,
                const char *nullHost) {
  const char *op = function + std::strlen("tandem_sched_");
  Slot *slot = activeSlot(ctx, function);
  if (!slot || !checkStream(slot, stream, op) ||
      !checkRange(slot, stream, device, bytes, op))
    return nullptr;
  if (!host && bytes) {
    fail(slot, "%s", nullHost);
    return nullptr;
  }
  flushOpen(slot);
  if (bytes == 0 || !slot->error.empty())
    return nullptr;
  return slot;
}

} // namespace

namespace tandem {
namespace sched {

bool LaunchRecord::operator==(const LaunchRecord &other) const {
  return kernel == other.kernel && gemm == other.gemm && conv == other.conv &&
         std::equal(std::begin(dims), std::end(dims), std::begin(other.dims)) &&
         args == other.args;
}

void beginRun(Slot *slot) {
  slot->error.clear();
  slot->pending.clear();
  for (Slot::Device &gpu : slot->devices)
    gpu.nextCopyEvent = 0;
  std::fill(slot->lastRecord.begin(), slot->lastRecord.end(), -1);
  slot->stagingUsed = 0;
  slot->stagingTotal = 0;
  slot->openPartition = -1;
  slot->openStream = -1;
  slot->buffered.clear();
}

std::string endRun(Slot *slot) {
  if (!slot->program)
    return std::string();
  if (slot->openPartition >= 0) {
    flushOpen(slot);
    fail(slot, "partition %d ('%s') was begun but not ended",
         slot->openPartition,
         programPartitionName(slot->program->program, slot->openPartition));
    slot->openPartition = -1;
  }
  if (onDevice(slot)) {
    for (Slot::Device &gpu : slot->devices)
      for (tandem_stream_t *stream : gpu.streams)
        failed(slot, tandem_stream_synchronize(stream),
               "synchronizing a stream");
    deliver(slot, true);
    // Keep one staging chunk of this run's high-water mark.
    if (slot->staging.size() > 1) {
      for (const Slot::Chunk &chunk : slot->staging)
        tandem_status_free(
            tandem_device_host_free(slot->program->hostDevice(), chunk.data));
      slot->staging.clear();
      void *data = nullptr;
      tandem_status_t status = tandem_device_host_alloc(
          slot->program->hostDevice(), slot->stagingTotal, &data);
      if (!status)
        slot->staging.push_back({data, slot->stagingTotal});
      tandem_status_free(status); // Allocated again on demand.
    }
  }
  slot->runIndex++;
  return slot->error;
}

} // namespace sched
} // namespace tandem

extern "C" {

uint64_t tandem_sched_device_base(const tandem_exec_ctx_t *ctx) {
  return tandem_sched_device_base_of(ctx, 0);
}

uint64_t tandem_sched_device_base_of(const tandem_exec_ctx_t *ctx,
                                     int32_t device) {
  Slot *slot = slotOf(ctx);
  if (!slot || device < 0 ||
      static_cast<size_t>(device) >= slot->devices.size())
    return 0;
  return slot->devices[static_cast<size_t>(device)].base;
}

void tandem_sched_copy_h2d(const tandem_exec_ctx_t *ctx, int32_t stream,
                           uint64_t dst, const void *src, uint64_t bytes) {
  Slot *slot = beginCopy(ctx, stream, dst, src, bytes, "tandem_sched_copy_h2d",
                         "copy_h2d: the host source is NULL");
  if (!slot)
    return;
  uint64_t start = slot->trace ? nowNs() : 0;
  if (!onDevice(slot)) {
    std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(dst)), src,
                static_cast<size_t>(bytes));
    if (slot->trace)
      slot->trace->span(streamTrack(slot, stream), "copy h2d", "copy", start,
                        nowNs(), static_cast<int64_t>(bytes));
  } else {
    // Staged: the source may change as soon as this returns.
    void *staging = stage(slot, bytes);
    if (!staging)
      return;
    std::memcpy(staging, src, static_cast<size_t>(bytes));
    char what[96];
    std::snprintf(what, sizeof(what),
                  "copy_h2d of %" PRIu64 " bytes to device offset %" PRIu64,
                  bytes, dst - slotGpu(slot, stream).base);
    if (failed(slot,
               tandem_memcpy_h2d_async(streamHandle(slot, stream), dst, staging,
                                       bytes),
               what))
      return;
    slot->stats->stagedBytes += bytes;
  }
  slot->stats->h2dCopies++;
  slot->stats->h2dBytes += bytes;
}

void tandem_sched_copy_d2h(const tandem_exec_ctx_t *ctx, int32_t stream,
                           void *dst, uint64_t src, uint64_t bytes) {
  Slot *slot = beginCopy(ctx, stream, src, dst, bytes, "tandem_sched_copy_d2h",
                         "copy_d2h: the host destination is NULL");
  if (!slot)
    return;
  uint64_t start = slot->trace ? nowNs() : 0;
  if (!onDevice(slot)) {
    std::memcpy(dst,
                reinterpret_cast<const void *>(static_cast<uintptr_t>(src)),
                static_cast<size_t>(bytes));
    if (slot->trace)
      slot->trace->span(streamTrack(slot, stream), "copy d2h", "copy", start,
                        nowNs(), static_cast<int64_t>(bytes));
  } else {
    char what[96];
    std::snprintf(what, sizeof(what),
                  "copy_d2h of %" PRIu64 " bytes from device offset %" PRIu64,
                  bytes, src - slotGpu(slot, stream).base);
    tandem_stream_t *handle = streamHandle(slot, stream);
    if (insideHostArena(slot, dst, bytes)) {
      if (failed(slot, tandem_memcpy_d2h_async(handle, dst, src, bytes), what))
        return;
    } else {
      // The caller's buffer: into staging now, delivered at a host wait.
      void *staging = stage(slot, bytes);
      tandem_event_t *done = staging ? copyEvent(slot, stream) : nullptr;
      if (!done)
        return;
      if (failed(slot, tandem_memcpy_d2h_async(handle, staging, src, bytes),
                 what) ||
          failed(slot, tandem_event_record(done, handle), what))
        return;
      slot->pending.push_back({staging, dst, bytes, done});
      slot->stats->stagedBytes += bytes;
    }
  }
  slot->stats->d2hCopies++;
  slot->stats->d2hBytes += bytes;
}

void tandem_sched_record(const tandem_exec_ctx_t *ctx, int32_t event,
                         int32_t stream) {
  Slot *slot = activeSlot(ctx, "tandem_sched_record");
  if (!slot || !checkEvent(slot, event, "record") ||
      !checkStream(slot, stream, "record") || !onDevice(slot))
    return;
  flushOpen(slot);
  if (!slot->error.empty())
    return;
  int32_t gpu = gpuOf(stream);
  slot->lastRecord[static_cast<size_t>(event)] = gpu;
  failed(slot,
         tandem_event_record(
             slotGpu(slot, stream).events[static_cast<size_t>(event)],
             streamHandle(slot, stream)),
         "record");
}

void tandem_sched_wait(const tandem_exec_ctx_t *ctx, int32_t stream,
                       int32_t event) {
  Slot *slot = activeSlot(ctx, "tandem_sched_wait");
  if (!slot || !checkEvent(slot, event, "wait") ||
      !checkStream(slot, stream, "wait") || !onDevice(slot))
    return;
  flushOpen(slot);
  if (!slot->error.empty())
    return;
  int32_t recorded = slot->lastRecord[static_cast<size_t>(event)];
  if (recorded >= 0 && recorded != gpuOf(stream)) {
    fail(slot,
         "wait: stream %d (GPU %d) waits for event %d, recorded on GPU %d: "
         "streams wait only for events of their own GPU",
         stream, gpuOf(stream), event, recorded);
    return;
  }
  failed(slot,
         tandem_stream_wait_event(streamHandle(slot, stream),
                                  recordedEvent(slot, event, gpuOf(stream))),
         "wait");
}

void tandem_sched_host_wait(const tandem_exec_ctx_t *ctx, int32_t event) {
  Slot *slot = activeSlot(ctx, "tandem_sched_host_wait");
  if (!slot || !checkEvent(slot, event, "host_wait") || !onDevice(slot))
    return;
  flushOpen(slot);
  if (slot->error.empty() &&
      !failed(slot, tandem_event_synchronize(recordedEvent(slot, event, 0)),
              "host_wait"))
    deliver(slot, false);
}

void tandem_sched_launch(const tandem_exec_ctx_t *ctx, int32_t stream,
                         int32_t kernel, uint32_t gx, uint32_t gy, uint32_t gz,
                         uint32_t bx, uint32_t by, uint32_t bz,
                         const uint64_t *args) {
  Slot *slot = activeSlot(ctx, "tandem_sched_launch");
  if (!slot || !checkStream(slot, stream, "launch"))
    return;
  const tandem_device_program_t *program = slot->program->program;
  if (kernel < 0 || kernel >= program->num_kernels) {
    fail(slot, "launch: kernel %d does not exist (the program has %d)", kernel,
         program->num_kernels);
    return;
  }
  int32_t n = program->kernels[kernel].num_args;
  if (n > 0 && !args) {
    fail(slot, "kernel '%s': the argument array is NULL",
         kernelName(slot, kernel));
    return;
  }
  LaunchRecord launch;
  launch.kernel = kernel;
  uint32_t dims[6] = {gx, gy, gz, bx, by, bz};
  std::copy(dims, dims + 6, launch.dims);
  for (int32_t i = 0; i < n; ++i) {
    char what[160];
    std::snprintf(what, sizeof(what), "kernel '%s', argument %d",
                  kernelName(slot, kernel), i);
    if (!checkRange(slot, stream, args[i], 0, what))
      return;
  }
  launch.args.assign(args, args + n);
  if (onDevice(slot) && slot->openPartition >= 0 &&
      stream == slot->openStream) {
    slot->buffered.push_back(std::move(launch));
    return;
  }
  flushOpen(slot);
  if (slot->error.empty())
    issueLaunch(slot, launch, stream, false);
}

int32_t tandem_sched_gemm(const tandem_exec_ctx_t *ctx, int32_t stream,
                          int32_t kernel, const tandem_gemm_desc_t *desc,
                          uint64_t a, uint64_t b, uint64_t c, uint64_t bias) {
  Slot *slot = activeSlot(ctx, "tandem_sched_gemm");
  if (!slot || !checkStream(slot, stream, "gemm"))
    return 1;
  const tandem_device_program_t *program = slot->program->program;
  if (kernel < 0 || kernel >= program->num_kernels) {
    fail(slot, "gemm: kernel %d does not exist (the program has %d)", kernel,
         program->num_kernels);
    return 1;
  }
  const char *name = kernelName(slot, kernel);
  char message[160];
  if (!desc) {
    fail(slot, "gemm '%s': the descriptor is NULL", name);
    return 1;
  }
  if (!tandem::gemm::check(*desc, message, sizeof(message))) {
    fail(slot, "gemm '%s': %s", name, message);
    return 1;
  }
  // No GEMM library on this device (CUDA without cuBLASLt): the caller
  // launches the generated kernels.
  if (onDevice(slot) &&
      !slot->program->devices[static_cast<size_t>(gpuOf(stream))]
           .device->hasGemm())
    return 0;
  const uint64_t addresses[4] = {a, b, c, bias};
  static const char *const operands[4] = {"A", "B", "C", "bias"};
  for (int i = 0; i < 4; ++i) {
    uint64_t bytes =
        tandem::gemm::extentBytes(*desc, static_cast<tandem::gemm::Operand>(i));
    if (bytes == 0)
      continue;
    char what[200];
    std::snprintf(what, sizeof(what), "gemm '%s', operand %s", name,
                  operands[i]);
    if (!checkRange(slot, stream, addresses[i], bytes, what))
      return 1;
  }
  LaunchRecord launch;
  launch.kernel = kernel;
  launch.gemm = desc;
  launch.args.assign(addresses, addresses + 4);
  if (onDevice(slot) && slot->openPartition >= 0 &&
      stream == slot->openStream) {
    slot->buffered.push_back(std::move(launch));
    return 1;
  }
  flushOpen(slot);
  if (slot->error.empty())
    issueLaunch(slot, launch, stream, false);
  return 1;
}

int32_t tandem_sched_conv(const tandem_exec_ctx_t *ctx, int32_t stream,
                          int32_t kernel, const tandem_conv_desc_t *desc,
                          uint64_t x, uint64_t w, uint64_t y, uint64_t bias,
                          uint64_t z) {
  Slot *slot = activeSlot(ctx, "tandem_sched_conv");
  if (!slot || !checkStream(slot, stream, "conv"))
    return 1;
  const tandem_device_program_t *program = slot->program->program;
  if (kernel < 0 || kernel >= program->num_kernels) {
    fail(slot, "conv: kernel %d does not exist (the program has %d)", kernel,
         program->num_kernels);
    return 1;
  }
  const char *name = kernelName(slot, kernel);
  char message[160];
  if (!desc) {
    fail(slot, "conv '%s': the descriptor is NULL", name);
    return 1;
  }
  if (!tandem::conv::check(*desc, message, sizeof(message))) {
    fail(slot, "conv '%s': %s", name, message);
    return 1;
  }
  // No convolution library on this device (CUDA without cuDNN): the caller
  // launches the generated kernels.
  if (onDevice(slot) &&
      !slot->program->devices[static_cast<size_t>(gpuOf(stream))]
           .device->hasConv())
    return 0;
  const uint64_t addresses[tandem::conv::kNumOperands] = {x, w, y, bias, z};
  static const char *const operands[tandem::conv::kNumOperands] = {
      "x", "w", "y", "bias", "z"};
  for (int i = 0; i < tandem::conv::kNumOperands; ++i) {
    uint64_t bytes =
        tandem::conv::extentBytes(*desc, static_cast<tandem::conv::Operand>(i));
    if (bytes == 0)
      continue;
    char what[200];
    std::snprintf(what, sizeof(what), "conv '%s', operand %s", name,
                  operands[i]);
    if (!checkRange(slot, stream, addresses[i], bytes, what))
      return 1;
  }
  LaunchRecord launch;
  launch.kernel = kernel;
  launch.conv = desc;
  launch.args.assign(addresses, addresses + tandem::conv::kNumOperands);
  if (onDevice(slot) && slot->openPartition >= 0 &&
      stream == slot->openStream) {
    slot->buffered.push_back(std::move(launch));
    return 1;
  }
  flushOpen(slot);
  if (slot->error.empty())
    issueLaunch(slot, launch, stream, false);
  return 1;
}

void tandem_sched_partition_begin(const tandem_exec_ctx_t *ctx,
                                  int32_t partition, int32_t stream) {
  Slot *slot = activeSlot(ctx, "tandem_sched_partition_begin");
  if (!slot)
    return;
  if (partition < 0 || partition >= slot->program->program->num_partitions) {
    fail(slot,
         "partition_begin: partition %d does not exist (the program "
         "has %d)",
         partition, slot->program->program->num_partitions);
    return;
  }
  if (stream == -1) {
    slot->openStartNs = nowNs(); // A CPU partition: a trace span only.
    return;
  }
  if (!checkStream(slot, stream, "partition_begin"))
    return;
  if (slot->openPartition >= 0) {
    fail(slot, "partition_begin of partition %d while partition %d is open",
         partition, slot->openPartition);
    return;
  }
  slot->openPartition = partition;
  slot->openStream = stream;
  slot->openStartNs = nowNs();
  slot->buffered.clear();
}

void tandem_sched_partition_end(const tandem_exec_ctx_t *ctx, int32_t partition,
                                int32_t stream) {
  Slot *slot = activeSlot(ctx, "tandem_sched_partition_end");
  if (!slot)
    return;
  const char *name = programPartitionName(slot->program->program, partition);
  if (stream == -1) {
    if (slot->trace)
      slot->trace->span(trackId(slot->index, kHostTrack), name, "partition",
                        slot->openStartNs, nowNs());
    return;
  }
  if (partition != slot->openPartition || stream != slot->openStream) {
    fail(slot,
         "partition_end of partition %d on stream %d, but the open one is "
         "%d on stream %d",
         partition, stream, slot->openPartition, slot->openStream);
    return;
  }
  if (onDevice(slot))
    finishPartition(slot);
  if (slot->trace)
    slot->trace->span(trackId(slot->index, kHostTrack),
                      std::string(name) + (onDevice(slot) ? " (enqueue)" : ""),
                      "partition", slot->openStartNs, nowNs());
  slot->openPartition = -1;
  slot->openStream = -1;
  slot->buffered.clear();
}

} // extern "C"
