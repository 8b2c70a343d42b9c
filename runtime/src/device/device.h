//===- device.h - The runtime's internal device interface ------*- C++ -*-===//
//
// The public device handles of runtime.h are these abstract classes; each
// backend (emulated.cpp, cuda.cpp) derives from them. api.cpp implements the
// C API on top: it checks arguments that do not depend on the backend, keeps
// track of every live handle of a device (so that closing the device
// releases them), and catches C++ exceptions at the boundary.
//
// Backends return tandem_status_t like the public API and never throw past
// their methods except std::bad_alloc / std::system_error, which api.cpp
// turns into statuses.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_DEVICE_DEVICE_H
#define TANDEM_RUNTIME_DEVICE_DEVICE_H

#include "tandem/runtime.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>

struct tandem_stream_s;
struct tandem_event_s;
struct tandem_device_module_s;
struct tandem_device_kernel_s;
struct tandem_device_graph_s;

namespace tandem {
namespace device {

/// Now on std::chrono::steady_clock, in nanoseconds: the clock of every
/// time an OpObserver is given (and of the runtime's traces).
inline uint64_t nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

/// What an OpObserver is told about one copy, kernel or graph replay.
enum class OpKind { H2D, D2H, D2D, Kernel, Graph };

/// Sees device work as it ran, for traces. The emulated device calls it on
/// the stream's worker thread after each op ran (a graph replay reports its
/// ops). CUDA times each op (a graph replay as a whole) with a pair of
/// events and calls it once the op completed and the runtime next looks:
/// when a stream is synchronised or finished, when an event is waited for,
/// as ops are enqueued, and when the observer is cleared, so possibly on
/// another thread and late. Times are nowNs() values.
struct OpObserver {
  virtual ~OpObserver() = default;
  virtual void onOp(tandem_stream_s *stream, OpKind kind, const char *name,
                    uint64_t bytes, uint64_t startNs, uint64_t endNs) = 0;
};

} // namespace device
} // namespace tandem

/// An opened device: memory and the factories of the other handles.
struct tandem_device_s {
  virtual ~tandem_device_s() = default;

  virtual tandem_device_kind_t kind() const = 0;
  /// Owned by the device.
  virtual const char *name() const = 0;
  /// The GPU architecture ("sm_90"); "" when it has none (emulated).
  virtual const char *arch() const { return ""; }
  /// The image of a device program this device loads, chosen among its
  /// `count` images: each backend knows its formats and architectures.
  /// NULL when none fits.
  virtual const tandem_device_image_t *
  chooseImage(const tandem_device_image_t *images, int32_t count) const {
    (void)images;
    (void)count;
    return nullptr;
  }
  /// Whether the device runs a program's kernels as their CPU twins
  /// (loadCpuModule) instead of loading one of its images.
  virtual bool runsCpuTwins() const { return false; }
  /// Sets (or clears, with nullptr) the observer of executed work; the
  /// observer must outlive the device's queued work. Ignored by backends
  /// that cannot time their work.
  virtual void setObserver(tandem::device::OpObserver *observer) {
    (void)observer;
  }

  /// Whether streams of this device run tandem_device_gemm (CUDA: whether
  /// cuBLASLt could be loaded; tried once, a failure logged once).
  virtual bool hasGemm() { return false; }

  /// Whether streams of this device run tandem_device_conv (CUDA: whether
  /// cuDNN could be loaded; tried once, a failure logged once).
  virtual bool hasConv() { return false; }

  /// Device memory. `bytes` > 0 (api.cpp handles 0).
  virtual tandem_status_t alloc(uint64_t bytes, tandem_device_ptr_t *out) = 0;
  /// `ptr` != 0.
  virtual tandem_status_t free(tandem_device_ptr_t ptr) = 0;

  /// Pinned host memory. `bytes` > 0, `ptr` != NULL.
  virtual tandem_status_t hostAlloc(uint64_t bytes, void **out) = 0;
  virtual tandem_status_t hostFree(void *ptr) = 0;

  virtual tandem_status_t createStream(tandem_stream_s **out) = 0;
  virtual tandem_status_t createEvent(tandem_event_s **out) = 0;
  /// A CUDA module image (PTX, cubin, fatbin).
  virtual tandem_status_t loadModule(const void *image, uint64_t size,
                                     tandem_device_module_s **out) = 0;
  /// A table of CPU twins (emulated).
  virtual tandem_status_t loadCpuModule(const tandem_cpu_kernel_t *kernels,
                                        int32_t numKernels,
                                        tandem_device_module_s **out) = 0;

  /// Bookkeeping of api.cpp: the live handles, released by
  /// tandem_device_close in reverse dependency order.
  std::mutex handlesMutex;
  std::set<tandem_stream_s *> streams;
  std::set<tandem_event_s *> events;
  std::set<tandem_device_module_s *> modules;
  std::set<tandem_device_graph_s *> graphs;
};

/// An in-order queue of device work. api.cpp calls finish() before deleting
/// a stream.
struct tandem_stream_s {
  explicit tandem_stream_s(tandem_device_s *device) : device(device) {}
  virtual ~tandem_stream_s() = default;

  /// Waits for queued work; refused while capturing.
  virtual tandem_status_t synchronize() = 0;
  /// Abandons a capture in progress, then waits for queued work; returns a
  /// failure of that wait.
  virtual tandem_status_t finish() = 0;

  /// The async operations; `bytes` > 0 (api.cpp makes 0 a no-op) and host
  /// pointers are non-NULL.
  virtual tandem_status_t copyH2D(tandem_device_ptr_t dst, const void *src,
                                  uint64_t bytes) = 0;
  virtual tandem_status_t copyD2H(void *dst, tandem_device_ptr_t src,
                                  uint64_t bytes) = 0;
  virtual tandem_status_t copyD2D(tandem_device_ptr_t dst,
                                  tandem_device_ptr_t src, uint64_t bytes) = 0;
  /// `args` has `numArgs` entries with non-NULL values (checked).
  virtual tandem_status_t launch(tandem_device_kernel_s *kernel,
                                 const tandem_launch_dims_t &dims,
                                 const tandem_kernel_arg_t *args,
                                 int32_t numArgs) = 0;
  /// An f32 GEMM (tandem_device_gemm; `desc` is checked, pointers are
  /// non-zero). Backends without a GEMM library return TANDEM_UNAVAILABLE.
  virtual tandem_status_t gemm(const tandem_gemm_desc_t &desc,
                               tandem_device_ptr_t a, tandem_device_ptr_t b,
                               tandem_device_ptr_t c, tandem_device_ptr_t bias,
                               const std::string &name) {
    (void)desc, (void)a, (void)b, (void)c, (void)bias, (void)name;
    return tandem_status_make(TANDEM_UNAVAILABLE,
                              "this device has no GEMM library");
  }
  /// An f32 convolution (tandem_device_conv; `desc` is checked, the
  /// pointers it uses are non-zero). Backends without a convolution library
  /// return TANDEM_UNAVAILABLE.
  virtual tandem_status_t conv(const tandem_conv_desc_t &desc,
                               tandem_device_ptr_t x, tandem_device_ptr_t w,
                               tandem_device_ptr_t y, tandem_device_ptr_t bias,
                               tandem_device_ptr_t z, const std::string &name) {
    (void)desc, (void)x, (void)w, (void)y, (void)bias, (void)z, (void)name;
    return tandem_status_make(TANDEM_UNAVAILABLE,
                              "this device has no convolution library");
  }
  /// Prepares the `count` checked convolutions `descs` (a model's, at its
  /// creation) so that none of them needs set-up or allocation when it is
  /// first enqueued or captured: CUDA chooses their cuDNN algorithms and
  /// allocates one workspace for the largest. Not called while capturing.
  /// Backends without a convolution library have nothing to do.
  virtual tandem_status_t prepareConvs(const tandem_conv_desc_t *const *descs,
                                       size_t count) {
    (void)descs, (void)count;
    return nullptr;
  }
  /// `event` belongs to the same device.
  virtual tandem_status_t recordEvent(tandem_event_s *event) = 0;
  virtual tandem_status_t waitEvent(tandem_event_s *event) = 0;

  virtual tandem_status_t beginCapture() = 0;
  virtual tandem_status_t endCapture(tandem_device_graph_s **out) = 0;
  virtual tandem_status_t launchGraph(tandem_device_graph_s *graph) = 0;

  virtual tandem_status_t setEmulatedDelay(uint32_t minUs, uint32_t maxUs) = 0;

  tandem_device_s *const device;
};

/// An event; its "latest record" is what waits and queries refer to.
struct tandem_event_s {
  explicit tandem_event_s(tandem_device_s *device) : device(device) {}
  virtual ~tandem_event_s() = default;
  virtual tandem_status_t synchronize() = 0;
  virtual tandem_status_t query(bool *done) = 0;
  tandem_device_s *const device;
};

/// Loaded device code; owns its kernels.
struct tandem_device_module_s {
  explicit tandem_device_module_s(tandem_device_s *device) : device(device) {}
  virtual ~tandem_device_module_s() = default;
  /// `name` is non-NULL. The kernel stays owned by the module.
  virtual tandem_status_t getKernel(const char *name,
                                    tandem_device_kernel_s **out) = 0;
  tandem_device_s *const device;
};

/// A kernel of a module; backends derive from it to add their handle.
struct tandem_device_kernel_s {
  tandem_device_kernel_s(tandem_device_module_s *module, std::string name)
      : module(module), name(std::move(name)) {}
  virtual ~tandem_device_kernel_s() = default;
  tandem_device_module_s *const module;
  const std::string name;
};

/// An executable graph.
struct tandem_device_graph_s {
  explicit tandem_device_graph_s(tandem_device_s *device) : device(device) {}
  virtual ~tandem_device_graph_s() = default;
  tandem_device_s *const device;
  /// What traces call a replay of it (set by its creator, e.g. "graph
  /// model_p0_gpu0"); "graph" when empty.
  std::string label;
};

namespace tandem {
namespace device {

/// `status` (owned) with `prefix` and ": " before its message, same code;
/// NULL stays NULL.
inline tandem_status_t prefixed(tandem_status_t status,
                                const std::string &prefix) {
  if (!status)
    return nullptr;
  tandem_status_t wrapped =
      tandem_status_make(tandem_status_code(status), "%s: %s", prefix.c_str(),
                         tandem_status_message(status));
  tandem_status_free(status);
  return wrapped;
}

/// Opens the emulated device (emulated.cpp).
tandem_status_t openEmulated(const tandem_device_options_t &options,
                             tandem_device_s **out);

/// Opens CUDA device `ordinal` (cuda.cpp). Fails with TANDEM_UNAVAILABLE when
/// there is no driver or no device.
tandem_status_t openCuda(int ordinal, tandem_device_s **out);

} // namespace device
} // namespace tandem

#endif // TANDEM_RUNTIME_DEVICE_DEVICE_H
