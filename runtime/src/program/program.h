//===- program.h - Run slots and device programs of an instance -*- C++ -*-===//
//
// A model instance runs on slots: slot 0 serves tandem_model_run, and
// tandem_model_run_async keeps up to pipeline_depth slots in flight. Each
// slot owns what one run needs: a host arena, and for a model with a device
// program, per GPU of the program a region of device memory holding that
// GPU's device arena (its weights included), three streams and the
// program's events, plus pinned staging for copies and the CUDA Graphs of
// its GPU partitions. The tandem_sched_* functions (sched.cpp) find the slot
// in tandem_exec_ctx_t::reserved[1].
//
// A Program is the instance-wide part: per GPU of the program the opened
// device, its loaded module and kernels (none: the CPU fallback), counters
// and the trace.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_PROGRAM_PROGRAM_H
#define TANDEM_RUNTIME_PROGRAM_PROGRAM_H

#include "tandem/runtime.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tandem {
namespace sched {

class Trace;

/// Counters behind tandem_model_stats.
struct Stats {
  std::atomic<uint64_t> runs{0}, kernelLaunches{0}, capturedLaunches{0},
      graphCaptures{0}, graphLaunches{0}, h2dCopies{0}, h2dBytes{0},
      d2hCopies{0}, d2hBytes{0}, stagedBytes{0};
};

/// The streams of one GPU, by ABI number within the GPU (abi.h).
constexpr int kComputeStream = TANDEM_STREAM_COMPUTE;
constexpr int kNumStreams = TANDEM_STREAMS_PER_DEVICE;
/// The most GPUs one program may use.
constexpr int kMaxDevices = 16;

/// One GPU of a program as opened on this machine.
struct ProgramDevice {
  tandem_device_t *device = nullptr;
  tandem_device_module_t *module = nullptr;
  std::vector<tandem_device_kernel_t *> kernels;
};

/// The instance-wide state of a device program.
struct Program {
  const tandem_model_desc_t *desc = nullptr;
  const tandem_device_program_t *program = nullptr;
  /// The program's GPUs (/device:GPU:0 ...), from the descriptor: one for
  /// an ABI version 2 program.
  int32_t numDevices = 1;
  /// Per GPU, the bytes of its device arena; per weight, its GPU.
  std::vector<uint64_t> arenaBytes;
  std::vector<int32_t> weightDevices;
  /// The library convolutions' descriptors (ABI version 4; none before):
  /// each slot's compute streams prepare them when it is created.
  std::vector<const tandem_conv_desc_t *> convs;
  /// Per GPU, the device it runs on; empty on the CPU fallback.
  std::vector<ProgramDevice> devices;
  /// "cpu", or the devices' names ("emulated", "cuda:0 (...)", joined with
  /// ", " for more than one GPU).
  std::string deviceName = "cpu";
  /// Non-empty on the CPU fallback.
  std::string fallbackReason;
  bool graphs = true;
  Stats *stats = nullptr;
  Trace *trace = nullptr;

  bool onDevice() const { return !devices.empty(); }
  /// The device that allocates pinned host memory (GPU 0's); NULL on the
  /// CPU fallback.
  tandem_device_t *hostDevice() const {
    return devices.empty() ? nullptr : devices.front().device;
  }
};

/// One kernel launch or library GEMM as the entry asked for it.
struct LaunchRecord {
  int32_t kernel = 0;
  uint32_t dims[6] = {};
  std::vector<uint64_t> args;
  /// A library GEMM (tandem_sched_gemm; args are A, B, C and the bias) that
  /// `kernel` names; NULL for a kernel launch.
  const tandem_gemm_desc_t *gemm = nullptr;
  /// A library convolution (tandem_sched_conv; args are x, w, y, the bias
  /// and z) that `kernel` names; NULL otherwise.
  const tandem_conv_desc_t *conv = nullptr;
  bool operator==(const LaunchRecord &other) const;
};

/// What a slot keeps per partition.
struct PartitionState {
  tandem_device_graph_t *graph = nullptr;
  /// The launches the graph replays.
  std::vector<LaunchRecord> signature;
  /// An event or copy happened inside the partition: never captured.
  bool ungraphable = false;
};

/// A staged device-to-host copy, delivered once `done` has completed.
struct PendingCopy {
  const void *staging;
  void *dst;
  uint64_t bytes;
  tandem_event_t *done;
};

/// Everything one run needs.
struct Slot {
  int index = 0;
  /// NULL for a CPU-only model.
  Program *program = nullptr;
  Stats *stats = nullptr;
  Trace *trace = nullptr;
  tandem_exec_ctx_t ctx = {};

  void *ownedArena = nullptr;  // tandem_arena_alloc
  void *pinnedArena = nullptr; // tandem_device_host_alloc
  uint64_t arenaBytes = 0;

  /// Device program state of one GPU of the program.
  struct Device {
    uint64_t base = 0;              // device address, or host address
    tandem_device_ptr_t memory = 0; // the allocation (device)
    void *hostArena = nullptr;      // the CPU fallback's "device" arena
    tandem_stream_t *streams[kNumStreams] = {};
    /// The program's events, created on this GPU: an event is recorded on
    /// the GPU of its stream (lastRecord), and waited for there.
    std::vector<tandem_event_t *> events;
    std::vector<tandem_event_t *> copyEvents; // for PendingCopy
    size_t nextCopyEvent = 0;
  };
  std::vector<Device> devices;
  /// Per event, the GPU of its latest record (-1: none this run).
  std::vector<int32_t> lastRecord;
  struct Chunk {
    void *data;
    uint64_t bytes;
  };
  std::vector<Chunk> staging; // pinned; [0] is kept between runs
  uint64_t stagingUsed = 0;   // in the last chunk
  uint64_t stagingTotal = 0;  // this run's high-water mark
  std::vector<PendingCopy> pending;
  std::vector<PartitionState> partitions;
  int32_t openPartition = -1;
  int32_t openStream = -1;
  uint64_t openStartNs = 0;
  std::vector<LaunchRecord> buffered;
  uint64_t runIndex = 0;
  /// The run's first failure; later sched calls do nothing.
  std::string error;
};

/// Chooses the device, loads the module and checks the program of `desc`
/// (which has one). On success *out is owned by the caller (destroyProgram).
tandem_status_t createProgram(const tandem_model_desc_t *desc,
                              const tandem_model_options_t &options,
                              Stats *stats, Trace *trace,
                              std::unique_ptr<Program> *out);
void destroyProgram(Program *program);

/// Sets up slot `index`: its host arena (the caller's `arena` if non-NULL),
/// and with a program its device arena, weights, streams and events.
tandem_status_t createSlot(const tandem_model_desc_t *desc, Program *program,
                           Stats *stats, Trace *trace, int index, void *arena,
                           uint64_t arenaBytes, void *kernelCache,
                           std::unique_ptr<Slot> *out);
void destroySlot(Slot *slot);

/// Called around the entry: beginRun resets the slot's run state; endRun
/// waits for the slot's streams, delivers staged copies, and returns the
/// run's first failure ("" when none).
void beginRun(Slot *slot);
std::string endRun(Slot *slot);

/// The name of partition `partition` ("partition" when the program has
/// none).
const char *programPartitionName(const tandem_device_program_t *program,
                                 int32_t partition);

} // namespace sched
} // namespace tandem

#endif // TANDEM_RUNTIME_PROGRAM_PROGRAM_H
