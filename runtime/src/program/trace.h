//===- trace.h - Chrome/Perfetto traces of model runs ----------*- C++ -*-===//
//
// A model instance with a trace path collects one "complete" event per
// kernel, copy and partition of its runs and writes them at destroy as a
// JSON array (chrome://tracing and ui.perfetto.dev read it). Each slot has
// four tracks: its three streams and the host thread (CPU partitions).
// Devices report when their work really ran (an OpObserver): the emulated
// device from its stream threads, CUDA from timing events around each op
// (a graph replay as one span); the CPU fallback runs work inline, timed on
// the host.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_PROGRAM_TRACE_H
#define TANDEM_RUNTIME_PROGRAM_TRACE_H

#include "device/device.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tandem {
namespace sched {

/// Track numbers within a slot: the host (3), and the schedule's stream n
/// (GPU n / 3, kind n % 3; abi.h) at n for GPU 0 and n + 1 after it. A
/// program has at most kMaxDevices GPUs (program.h), so a slot's tracks fit
/// in kTracksPerSlot.
constexpr int kHostTrack = 3;
constexpr int kTracksPerSlot = 64;
inline int trackId(int slot, int track) {
  return 1 + slot * kTracksPerSlot + track;
}
inline int streamTrackId(int slot, int stream) {
  return trackId(slot, stream < kHostTrack ? stream : stream + 1);
}

/// Steady-clock nanoseconds, the devices' clock (device.h).
using tandem::device::nowNs;

class Trace final : public tandem::device::OpObserver {
public:
  explicit Trace(std::string path) : path(std::move(path)), baseNs(nowNs()) {}

  /// Names a track (once per track).
  void nameTrack(int tid, const std::string &name);
  /// Maps a device stream to its track, for the observer.
  void addStream(tandem_stream_s *stream, int tid);

  /// One complete event; `bytes` < 0 means none.
  void span(int tid, const std::string &name, const char *category,
            uint64_t startNs, uint64_t endNs, int64_t bytes = -1);

  void onOp(tandem_stream_s *stream, tandem::device::OpKind kind,
            const char *name, uint64_t bytes, uint64_t startNs,
            uint64_t endNs) override;

  /// Writes the file; false (and errno set) when it cannot.
  bool write() const;
  const std::string &filePath() const { return path; }

private:
  struct Event {
    int tid;
    std::string name;
    const char *category;
    uint64_t startNs, endNs;
    int64_t bytes;
  };
  const std::string path;
  const uint64_t baseNs;
  mutable std::mutex mutex;
  std::vector<Event> events;
  std::map<int, std::string> trackNames;
  std::map<tandem_stream_s *, int> streamTracks;
};

} // namespace sched
} // namespace tandem

#endif // TANDEM_RUNTIME_PROGRAM_TRACE_H
