//===- cuda.cpp - The CUDA backend over a dlopen'ed driver API ------------===//
//
// The driver is loaded at run time with dlopen("libcuda.so.1") (or the path
// in TANDEM_CUDA_DRIVER) and its entry points with dlsym, by their exact
// versioned names; the runtime never links libcuda, so it builds and runs on
// machines without CUDA and reports "no CUDA driver" there. The driver is
// loaded and cuInit'ed once per process and never unloaded.
//
// The handful of driver types and constants are declared here. When the
// build finds cuda.h (TANDEM_RUNTIME_CHECK_CUDA_H), every entry point's
// signature is checked against it at compile time; cuda.h is never needed
// to build or use the runtime.
//
// Each device uses its GPU's primary context, pushed around every driver
// call so that the caller's current context is left as it was.
//
// Library GEMMs (tandem_device_gemm) go to cuBLASLt (cublaslt.cpp), loaded
// and given a handle on a device's first hasGemm(); a stream allocates its
// 32 MiB workspace on its first GEMM.
// Library convolutions (tandem_device_conv) go to cuDNN (cudnn.cpp) the
// same way: loaded on a device's first hasConv(); a model's convolutions
// are prepared when it is created (prepareConvs: each shape's algorithm
// chosen, one workspace per compute stream sized for the largest), and a
// convolution nobody prepared gets its plan and a 64 MiB workspace on its
// first, uncaptured call.
//
// With an observer (traces), every copy, kernel, GEMM and graph replay
// enqueued outside a capture is bracketed by two timing events; once the
// second completed, the observer hears of the op with its execution times
// on the host's steady clock (nowNs, CudaDevice::reportTimed).
//
//===----------------------------------------------------------------------===//

#include "device/cublaslt.h"
#include "device/cuda_images.h"
#include "device/cudnn.h"
#include "device/device.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <dlfcn.h>

#ifdef TANDEM_RUNTIME_CHECK_CUDA_H
#include <cuda.h>
#include <type_traits>
#endif

namespace {
namespace cu {

// The driver API's types, as cuda.h declares them (64-bit).
using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
struct CtxSt;
struct ModSt;
struct FuncSt;
struct StreamSt;
struct EventSt;
struct GraphSt;
struct GraphExecSt;
using Context = CtxSt *;
using Module = ModSt *;
using Function = FuncSt *;
using Stream = StreamSt *;
using Event = EventSt *;
using Graph = GraphSt *;
using GraphExec = GraphExecSt *;
using CaptureMode = int;
using JitOption = int;
using DeviceAttribute = int;

constexpr Result kSuccess = 0;
constexpr Result kErrorInvalidValue = 1;
constexpr Result kErrorOutOfMemory = 2;
constexpr Result kErrorNoDevice = 100;
constexpr Result kErrorInvalidHandle = 400;
constexpr Result kErrorNotFound = 500;
constexpr Result kErrorNotReady = 600;
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr CaptureMode kCaptureModeRelaxed = 2;
constexpr JitOption kJitErrorLogBuffer = 5;
constexpr JitOption kJitErrorLogBufferSizeBytes = 6;
constexpr DeviceAttribute kAttrComputeCapabilityMajor = 75;
constexpr DeviceAttribute kAttrComputeCapabilityMinor = 76;

} // namespace cu

// X(field, symbol, parameter types): the driver entry points used, by the
// exact (versioned) symbol that libcuda.so.1 exports. cuEventElapsedTime is
// the original symbol, which every driver exports (the CUDA 13 cuda.h here
// maps the name to cuEventElapsedTime_v2, same signature, which older
// drivers lack).
#define TANDEM_CUDA_FUNCTIONS(X)                                               \
  X(init, cuInit, (unsigned))                                                  \
  X(driverGetVersion, cuDriverGetVersion, (int *))                             \
  X(getErrorName, cuGetErrorName, (cu::Result, const char **))                 \
  X(getErrorString, cuGetErrorString, (cu::Result, const char **))             \
  X(deviceGetCount, cuDeviceGetCount, (int *))                                 \
  X(deviceGet, cuDeviceGet, (cu::Device *, int))                               \
  X(deviceGetName, cuDeviceGetName, (char *, int, cu::Device))                 \
  X(deviceGetAttribute, cuDeviceGetAttribute,                                  \
    (int *, cu::DeviceAttribute, cu::Device))                                  \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain, (cu::Context *, cu::Device))   \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease_v2, (cu::Device))             \
  X(ctxPushCurrent, cuCtxPushCurrent_v2, (cu::Context))                        \
  X(ctxPopCurrent, cuCtxPopCurrent_v2, (cu::Context *))                        \
  X(memAlloc, cuMemAlloc_v2, (cu::DevicePtr *, size_t))                        \
  X(memFree, cuMemFree_v2, (cu::DevicePtr))                                    \
  X(memAllocHost, cuMemAllocHost_v2, (void **, size_t))                        \
  X(memFreeHost, cuMemFreeHost, (void *))                                      \
  X(memcpyHtoDAsync, cuMemcpyHtoDAsync_v2,                                     \
    (cu::DevicePtr, const void *, size_t, cu::Stream))                         \
  X(memcpyDtoHAsync, cuMemcpyDtoHAsync_v2,                                     \
    (void *, cu::DevicePtr, size_t, cu::Stream))                               \
  X(memcpyDtoDAsync, cuMemcpyDtoDAsync_v2,                                     \
    (cu::DevicePtr, cu::DevicePtr, size_t, cu::Stream))                        \
  X(streamCreate, cuStreamCreate, (cu::Stream *, unsigned))                    \
  X(streamDestroy, cuStreamDestroy_v2, (cu::Stream))                           \
  X(streamSynchronize, cuStreamSynchronize, (cu::Stream))                      \
  X(streamWaitEvent, cuStreamWaitEvent, (cu::Stream, cu::Event, unsigned))     \
  X(eventCreate, cuEventCreate, (cu::Event *, unsigned))                       \
  X(eventDestroy, cuEventDestroy_v2, (cu::Event))                              \
  X(eventRecord, cuEventRecord, (cu::Event, cu::Stream))                       \
  X(eventSynchronize, cuEventSynchronize, (cu::Event))                         \
  X(eventQuery, cuEventQuery, (cu::Event))                                     \
  X(eventElapsedTime, cuEventElapsedTime, (float *, cu::Event, cu::Event))     \
  X(moduleLoadDataEx, cuModuleLoadDataEx,                                      \
    (cu::Module *, const void *, unsigned, cu::JitOption *, void **))          \
  X(moduleUnload, cuModuleUnload, (cu::Module))                                \
  X(moduleGetFunction, cuModuleGetFunction,                                    \
    (cu::Function *, cu::Module, const char *))                                \
  X(launchKernel, cuLaunchKernel,                                              \
    (cu::Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, \
     unsigned, cu::Stream, void **, void **))                                  \
  X(streamBeginCapture, cuStreamBeginCapture_v2,                               \
    (cu::Stream, cu::CaptureMode))                                             \
  X(streamEndCapture, cuStreamEndCapture, (cu::Stream, cu::Graph *))           \
  X(graphInstantiate, cuGraphInstantiateWithFlags,                             \
    (cu::GraphExec *, cu::Graph, unsigned long long))                          \
  X(graphLaunch, cuGraphLaunch, (cu::GraphExec, cu::Stream))                   \
  X(graphExecDestroy, cuGraphExecDestroy, (cu::GraphExec))                     \
  X(graphDestroy, cuGraphDestroy, (cu::Graph))

#ifdef TANDEM_RUNTIME_CHECK_CUDA_H
// Compile-time check of the declarations above against cuda.h: map cuda.h's
// types to ours and compare each entry point's type.
template <typename T> struct Ours { using type = T; };
template <typename T> struct Ours<T *> {
  using type = typename Ours<T>::type *;
};
template <typename T> struct Ours<const T> {
  using type = const typename Ours<T>::type;
};
template <> struct Ours<CUresult> { using type = cu::Result; };
template <> struct Ours<CUstreamCaptureMode> { using type = cu::CaptureMode; };
template <> struct Ours<CUjit_option> { using type = cu::JitOption; };
template <> struct Ours<CUdevice_attribute> {
  using type = cu::DeviceAttribute;
};
template <> struct Ours<CUctx_st> { using type = cu::CtxSt; };
template <> struct Ours<CUmod_st> { using type = cu::ModSt; };
template <> struct Ours<CUfunc_st> { using type = cu::FuncSt; };
template <> struct Ours<CUstream_st> { using type = cu::StreamSt; };
template <> struct Ours<CUevent_st> { using type = cu::EventSt; };
template <> struct Ours<CUgraph_st> { using type = cu::GraphSt; };
template <> struct Ours<CUgraphExec_st> { using type = cu::GraphExecSt; };
template <typename F> struct OursFn;
template <typename R, typename... A> struct OursFn<R (*)(A...)> {
  using type = typename Ours<R>::type (*)(typename Ours<A>::type...);
};
static_assert(sizeof(CUresult) == sizeof(cu::Result), "CUresult");
static_assert(sizeof(CUstreamCaptureMode) == sizeof(cu::CaptureMode), "mode");
static_assert(sizeof(CUjit_option) == sizeof(cu::JitOption), "jit option");
static_assert(sizeof(CUdevice_attribute) == sizeof(cu::DeviceAttribute),
              "device attribute");
static_assert(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
                      cu::kAttrComputeCapabilityMajor &&
                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
                      cu::kAttrComputeCapabilityMinor,
              "device attribute values");
static_assert(std::is_same<CUdeviceptr, cu::DevicePtr>::value, "CUdeviceptr");
static_assert(std::is_same<CUdevice, cu::Device>::value, "CUdevice");
static_assert(CUDA_SUCCESS == cu::kSuccess &&
                  CUDA_ERROR_INVALID_VALUE == cu::kErrorInvalidValue &&
                  CUDA_ERROR_OUT_OF_MEMORY == cu::kErrorOutOfMemory &&
                  CUDA_ERROR_NO_DEVICE == cu::kErrorNoDevice &&
                  CUDA_ERROR_INVALID_HANDLE == cu::kErrorInvalidHandle &&
                  CUDA_ERROR_NOT_FOUND == cu::kErrorNotFound &&
                  CUDA_ERROR_NOT_READY == cu::kErrorNotReady,
              "CUresult values");
static_assert(CU_STREAM_NON_BLOCKING == cu::kStreamNonBlocking &&
                  CU_EVENT_DISABLE_TIMING == cu::kEventDisableTiming &&
                  CU_STREAM_CAPTURE_MODE_RELAXED == cu::kCaptureModeRelaxed &&
                  CU_JIT_ERROR_LOG_BUFFER == cu::kJitErrorLogBuffer &&
                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
                      cu::kJitErrorLogBufferSizeBytes,
              "flag values");
#define TANDEM_CHECK_SIGNATURE(field, symbol, params)                          \
  static_assert(std::is_same<OursFn<decltype(&::symbol)>::type,                \
                             cu::Result(*) params>::value,                     \
                #symbol " differs from cuda.h");
TANDEM_CUDA_FUNCTIONS(TANDEM_CHECK_SIGNATURE)
#undef TANDEM_CHECK_SIGNATURE
#endif

/// The loaded driver: its entry points, or why there is none.
struct Driver {
#define TANDEM_DECLARE_FIELD(field, symbol, params)                            \
  cu::Result(*field) params = nullptr;
  TANDEM_CUDA_FUNCTIONS(TANDEM_DECLARE_FIELD)
#undef TANDEM_DECLARE_FIELD

  /// Empty when the driver is usable.
  std::string error;
  int version = 0;
  int deviceCount = 0;

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or "CUresult N".
  std::string describe(cu::Result result) const {
    const char *name = nullptr;
    const char *text = nullptr;
    std::string description;
    if (getErrorName && getErrorName(result, &name) == cu::kSuccess && name)
      description = name;
    else
      description = "CUresult " + std::to_string(result);
    if (getErrorString && getErrorString(result, &text) == cu::kSuccess && text)
      description += std::string(" (") + text + ")";
    return description;
  }

  /// The status for a failed driver call, or NULL for success.
  tandem_status_t check(cu::Result result, const char *call) const {
    if (result == cu::kSuccess)
      return nullptr;
    tandem_status_code_t code = TANDEM_INTERNAL;
    if (result == cu::kErrorOutOfMemory)
      code = TANDEM_OUT_OF_MEMORY;
    else if (result == cu::kErrorInvalidValue ||
             result == cu::kErrorInvalidHandle || result == cu::kErrorNotFound)
      code = TANDEM_INVALID_ARGUMENT;
    else if (result == cu::kErrorNoDevice)
      code = TANDEM_UNAVAILABLE;
    return tandem_status_make(code, "CUDA: %s failed: %s", call,
                              describe(result).c_str());
  }
};

Driver loadDriver() {
  Driver driver;
  const char *override = std::getenv("TANDEM_CUDA_DRIVER");
  const char *path = override && *override ? override : "libcuda.so.1";
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace.
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    driver.error = std::string("no CUDA driver (") + path +
                   " not found: " + (reason ? reason : "dlopen failed") + ")";
    return driver;
  }
  // Never dlclose'd: unloading a GPU driver while the process runs is not
  // safe, and it is loaded once per process.
#define TANDEM_LOAD_FIELD(field, symbol, params)                               \
  driver.field =                                                               \
      reinterpret_cast<decltype(driver.field)>(dlsym(handle, #symbol));        \
  if (!driver.field) {                                                         \
    driver.error = std::string("CUDA driver ") + path +                        \
                   " lacks " #symbol                                           \
                   " (a driver for CUDA 12 or newer is needed)";               \
    return driver;                                                             \
  }
  TANDEM_CUDA_FUNCTIONS(TANDEM_LOAD_FIELD)
#undef TANDEM_LOAD_FIELD
  cu::Result result = driver.init(0);
  if (result != cu::kSuccess) {
    driver.error = (result == cu::kErrorNoDevice ? "no CUDA device (cuInit: "
                                                 : "CUDA driver failed to "
                                                   "initialise (cuInit: ") +
                   driver.describe(result) + ")";
    return driver;
  }
  driver.driverGetVersion(&driver.version);
  result = driver.deviceGetCount(&driver.deviceCount);
  if (result != cu::kSuccess) {
    driver.error = "CUDA: cuDeviceGetCount failed: " + driver.describe(result);
    return driver;
  }
  if (driver.deviceCount == 0)
    driver.error = "no CUDA device (the driver found none)";
  return driver;
}

/// The process's driver, loaded on first use (thread-safe).
const Driver &driver() {
  static const Driver loaded = loadDriver();
  return loaded;
}

/// Makes a context current for a scope, restoring the previous one.
class ScopedContext {
public:
  ScopedContext(const Driver &driver, cu::Context context) : driver(driver) {
    error = driver.check(driver.ctxPushCurrent(context), "cuCtxPushCurrent");
    pushed = !error;
  }
  ~ScopedContext() {
    if (pushed) {
      cu::Context popped = nullptr;
      driver.ctxPopCurrent(&popped);
    }
    tandem_status_free(error);
  }
  bool ok() const { return pushed; }
  /// Why the push failed; the caller owns it.
  tandem_status_t release() {
    tandem_status_t result = error;
    error = nullptr;
    return result;
  }

private:
  const Driver &driver;
  tandem_status_t error = nullptr;
  bool pushed = false;
};

// Runs `call` with the device's context current; returns its status.
#define TANDEM_CUDA_CALL(device, call, name)                                   \
  do {                                                                         \
    ScopedContext scope((device).drv, (device).context);                       \
    if (!scope.ok())                                                           \
      return scope.release();                                                  \
    return (device).drv.check((call), name);                                   \
  } while (false)

class CudaDevice;

class CudaKernel final : public tandem_device_kernel_s {
public:
  CudaKernel(tandem_device_module_s *module, std::string name,
             cu::Function function)
      : tandem_device_kernel_s(module, std::move(name)), function(function) {}
  const cu::Function function;
};

class CudaDevice final : public tandem_device_s {
public:
  CudaDevice(const Driver &drv, int ordinal, cu::Device handle,
             cu::Context context, std::string name, std::string smArch)
      : drv(drv), ordinal(ordinal), handle(handle), context(context),
        deviceName(std::move(name)), smArch(std::move(smArch)) {}

  ~CudaDevice() override {
    {
      ScopedContext scope(drv, context);
      blas.reset();
      if (scope.ok()) {
        // Streams are finished and gone: every timed op completed.
        for (const TimedOp &op : pending) {
          drv.eventDestroy(op.start);
          drv.eventDestroy(op.end);
        }
        for (cu::Event event : freeEvents)
          drv.eventDestroy(event);
        if (anchor)
          drv.eventDestroy(anchor);
        for (cu::DevicePtr ptr : allocations)
          drv.memFree(ptr);
        for (void *ptr : pinned)
          drv.memFreeHost(ptr);
      }
    }
    drv.primaryCtxRelease(handle);
  }

  tandem_device_kind_t kind() const override { return TANDEM_DEVICE_CUDA; }
  const char *name() const override { return deviceName.c_str(); }
  const char *arch() const override { return smArch.c_str(); }
  const tandem_device_image_t *chooseImage(const tandem_device_image_t *images,
                                           int32_t count) const override {
    return tandem::device::chooseCudaImage(images, count, smArch.c_str());
  }

  /// Clearing the observer first reports every op still timed (waiting for
  /// them), so that the old observer has seen all of its work.
  void setObserver(tandem::device::OpObserver *newObserver) override {
    if (!newObserver) {
      ScopedContext scope(drv, context);
      if (scope.ok())
        reportTimed(/*wait=*/true, nullptr);
    }
    observer.store(newObserver, std::memory_order_release);
  }

  /// Enqueues one op with `issue` (the context is current) on `stream`
  /// (`owner`'s), between two timing events when there is an observer and
  /// the stream is not capturing. When the events cannot be had, the op
  /// still runs, untimed.
  template <typename Issue>
  tandem_status_t timed(tandem_stream_s *owner, cu::Stream stream,
                        bool capturing, tandem::device::OpKind kind,
                        std::string name, uint64_t bytes, Issue &&issue) {
    if (capturing || !observer.load(std::memory_order_acquire))
      return issue();
    TimedOp op{nullptr, nullptr, owner, kind, std::move(name), bytes};
    if (!startTiming(stream, &op.start))
      return issue();
    if (tandem_status_t status = issue()) {
      recycle(op.start);
      return status;
    }
    std::lock_guard<std::mutex> lock(timingMutex);
    if (takeEvent(&op.end) && drv.eventRecord(op.end, stream) == cu::kSuccess) {
      pending.push_back(std::move(op));
    } else {
      freeEvents.push_back(op.start);
      if (op.end)
        freeEvents.push_back(op.end);
    }
    if (pending.size() >= kReportBatch)
      reportLocked(/*wait=*/false, nullptr);
    return nullptr;
  }

  /// Tells the observer about the timed ops that completed, oldest first;
  /// with `wait`, waits for those of `only` (all streams when null) first.
  /// The context must be current.
  void reportTimed(bool wait, tandem_stream_s *only) {
    std::lock_guard<std::mutex> lock(timingMutex);
    reportLocked(wait, only);
  }

  bool hasGemm() override {
    std::call_once(blasOnce, [&] {
      std::string reason;
      const tandem::cublaslt::Api *api = tandem::cublaslt::load(&reason);
      if (api) {
        ScopedContext scope(drv, context);
        tandem_status_t status =
            scope.ok() ? tandem::cublaslt::Context::create(*api, &blas)
                       : scope.release();
        if (status) {
          reason = tandem_status_message(status);
          tandem_status_free(status);
        }
      }
      if (blas)
        return;
      // Logged once per process: every device would say the same.
      static std::once_flag logged;
      std::call_once(logged, [&] {
        const char *quiet = std::getenv("TANDEM_QUIET");
        if (!quiet || std::strcmp(quiet, "1") != 0)
          std::fprintf(stderr, "tandem: %s; matmuls run as generated kernels\n",
                       reason.c_str());
      });
    });
    return blas != nullptr;
  }

  bool hasConv() override {
    std::call_once(dnnOnce, [&] {
      std::string reason;
      const tandem::cudnn::Api *api = tandem::cudnn::load(&reason);
      if (api) {
        ScopedContext scope(drv, context);
        tandem_status_t status =
            scope.ok() ? tandem::cudnn::Context::create(*api, &dnn)
                       : scope.release();
        if (status) {
          reason = tandem_status_message(status);
          tandem_status_free(status);
        }
      }
      if (dnn)
        return;
      // Logged once per process: every device would say the same.
      static std::once_flag logged;
      std::call_once(logged, [&] {
        const char *quiet = std::getenv("TANDEM_QUIET");
        if (!quiet || std::strcmp(quiet, "1") != 0)
          std::fprintf(stderr,
                       "tandem: %s; convolutions run as generated kernels\n",
                       reason.c_str());
      });
    });
    return dnn != nullptr;
  }

  tandem_status_t alloc(uint64_t bytes, tandem_device_ptr_t *out) override {
    ScopedContext scope(drv, context);
    if (!scope.ok())
      return scope.release();
    cu::DevicePtr ptr = 0;
    if (tandem_status_t status = drv.check(
            drv.memAlloc(&ptr, static_cast<size_t>(bytes)), "cuMemAlloc"))
      return status;
    try {
      std::lock_guard<std::mutex> lock(mutex);
      allocations.insert(ptr);
    } catch (...) {
      drv.memFree(ptr);
      throw;
    }
    *out = ptr;
    return nullptr;
  }

  tandem_status_t free(tandem_device_ptr_t ptr) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!allocations.erase(ptr))
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "tandem_device_free: 0x%llx is not the "
                                  "start of a live allocation of %s",
                                  static_cast<unsigned long long>(ptr),
                                  deviceName.c_str());
    }
    TANDEM_CUDA_CALL(*this, drv.memFree(ptr), "cuMemFree");
  }

  tandem_status_t hostAlloc(uint64_t bytes, void **out) override {
    ScopedContext scope(drv, context);
    if (!scope.ok())
      return scope.release();
    void *ptr = nullptr;
    if (tandem_status_t status =
            drv.check(drv.memAllocHost(&ptr, static_cast<size_t>(bytes)),
                      "cuMemAllocHost"))
      return status;
    try {
      std::lock_guard<std::mutex> lock(mutex);
      pinned.insert(ptr);
    } catch (...) {
      drv.memFreeHost(ptr);
      throw;
    }
    *out = ptr;
    return nullptr;
  }

  tandem_status_t hostFree(void *ptr) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!pinned.erase(ptr))
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "tandem_device_host_free: %p is not a "
                                  "pinned host buffer of %s",
                                  ptr, deviceName.c_str());
    }
    TANDEM_CUDA_CALL(*this, drv.memFreeHost(ptr), "cuMemFreeHost");
  }

  tandem_status_t createStream(tandem_stream_s **out) override;
  tandem_status_t createEvent(tandem_event_s **out) override;
  tandem_status_t loadModule(const void *image, uint64_t size,
                             tandem_device_module_s **out) override;

  tandem_status_t loadCpuModule(const tandem_cpu_kernel_t *, int32_t,
                                tandem_device_module_s **) override {
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "%s runs device code: CPU twins are for the "
                              "emulated device; load a module image with "
                              "tandem_device_module_load",
                              deviceName.c_str());
  }

  const Driver &drv;
  const int ordinal;
  const cu::Device handle;
  const cu::Context context;
  /// cuBLASLt on this device's context, once hasGemm() returned true.
  std::unique_ptr<tandem::cublaslt::Context> blas;
  /// cuDNN on this device's context, once hasConv() returned true.
  std::unique_ptr<tandem::cudnn::Context> dnn;

private:
  /// One op between its timing events.
  struct TimedOp {
    cu::Event start, end;
    tandem_stream_s *stream;
    tandem::device::OpKind kind;
    std::string name;
    uint64_t bytes;
  };

  /// Past this many ops not yet reported, enqueuing one reports those that
  /// completed.
  static constexpr size_t kReportBatch = 64;

  /// A timing event (timingMutex held): a recycled one, or a new one.
  bool takeEvent(cu::Event *out) {
    if (!freeEvents.empty()) {
      *out = freeEvents.back();
      freeEvents.pop_back();
      return true;
    }
    return drv.eventCreate(out, 0) == cu::kSuccess;
  }

  void recycle(cu::Event event) {
    std::lock_guard<std::mutex> lock(timingMutex);
    freeEvents.push_back(event);
  }

  /// Records an op's start event on `stream`. The first one also records
  /// the anchor, every later time's origin, and waits for it: its host time
  /// is taken right after it completed.
  bool startTiming(cu::Stream stream, cu::Event *start) {
    std::lock_guard<std::mutex> lock(timingMutex);
    if (!anchor) {
      cu::Event event = nullptr;
      if (!takeEvent(&event))
        return false;
      if (drv.eventRecord(event, stream) != cu::kSuccess ||
          drv.eventSynchronize(event) != cu::kSuccess) {
        freeEvents.push_back(event);
        return false;
      }
      anchorNs = tandem::device::nowNs();
      anchor = event;
    }
    if (!takeEvent(start))
      return false;
    if (drv.eventRecord(*start, stream) != cu::kSuccess) {
      freeEvents.push_back(*start);
      return false;
    }
    return true;
  }

  /// reportTimed with timingMutex held. Positions come from the elapsed
  /// time since the anchor (a float of milliseconds: about 0.1 us of
  /// precision a second after the anchor, 4 us a minute after), durations
  /// from the op's own two events.
  void reportLocked(bool wait, tandem_stream_s *only) {
    tandem::device::OpObserver *target =
        observer.load(std::memory_order_acquire);
    for (size_t i = 0; i < pending.size();) {
      TimedOp &op = pending[i];
      bool mine = !only || op.stream == only;
      cu::Result done =
          wait && mine ? drv.eventSynchronize(op.end) : drv.eventQuery(op.end);
      if (done == cu::kErrorNotReady) {
        ++i;
        continue;
      }
      float sinceAnchor = 0, duration = 0;
      if (done == cu::kSuccess && target &&
          drv.eventElapsedTime(&sinceAnchor, anchor, op.start) ==
              cu::kSuccess &&
          drv.eventElapsedTime(&duration, op.start, op.end) == cu::kSuccess) {
        uint64_t start =
            anchorNs +
            static_cast<uint64_t>(
                std::max(0.0, static_cast<double>(sinceAnchor)) * 1e6);
        uint64_t end =
            start + static_cast<uint64_t>(
                        std::max(0.0, static_cast<double>(duration)) * 1e6);
        target->onOp(op.stream, op.kind, op.name.c_str(), op.bytes, start, end);
      }
      freeEvents.push_back(op.start);
      freeEvents.push_back(op.end);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  std::atomic<tandem::device::OpObserver *> observer{nullptr};
  /// Guards the timing state below.
  std::mutex timingMutex;
  cu::Event anchor = nullptr;
  uint64_t anchorNs = 0;
  std::vector<TimedOp> pending;
  std::vector<cu::Event> freeEvents;

  std::once_flag blasOnce;
  std::once_flag dnnOnce;
  const std::string deviceName;
  /// "sm_90" from the compute capability; empty if the driver did not say.
  const std::string smArch;
  std::mutex mutex;
  std::set<cu::DevicePtr> allocations;
  std::set<void *> pinned;
};

class CudaModule final : public tandem_device_module_s {
public:
  CudaModule(CudaDevice *device, cu::Module module)
      : tandem_device_module_s(device), dev(*device), module(module) {}

  ~CudaModule() override {
    ScopedContext scope(dev.drv, dev.context);
    if (scope.ok())
      dev.drv.moduleUnload(module);
  }

  tandem_status_t getKernel(const char *name,
                            tandem_device_kernel_s **out) override {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = kernels.find(name);
    if (it != kernels.end()) {
      *out = it->second.get();
      return nullptr;
    }
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    cu::Function function = nullptr;
    cu::Result result = dev.drv.moduleGetFunction(&function, module, name);
    if (result != cu::kSuccess)
      return tandem_status_make(
          result == cu::kErrorNotFound ? TANDEM_INVALID_ARGUMENT
                                       : TANDEM_INTERNAL,
          "CUDA: no kernel '%s' in the module: cuModuleGetFunction: %s", name,
          dev.drv.describe(result).c_str());
    auto kernel = std::make_unique<CudaKernel>(this, name, function);
    *out = kernel.get();
    kernels.emplace(name, std::move(kernel));
    return nullptr;
  }

private:
  CudaDevice &dev;
  const cu::Module module;
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<CudaKernel>> kernels;
};

class CudaEvent final : public tandem_event_s {
public:
  CudaEvent(CudaDevice *device, cu::Event event)
      : tandem_event_s(device), dev(*device), event(event) {}
  ~CudaEvent() override {
    ScopedContext scope(dev.drv, dev.context);
    if (scope.ok())
      dev.drv.eventDestroy(event);
  }
  tandem_status_t synchronize() override {
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    if (tandem_status_t status = dev.drv.check(dev.drv.eventSynchronize(event),
                                               "cuEventSynchronize"))
      return status;
    dev.reportTimed(/*wait=*/false, nullptr);
    return nullptr;
  }
  tandem_status_t query(bool *done) override {
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    cu::Result result = dev.drv.eventQuery(event);
    *done = result == cu::kSuccess;
    if (result == cu::kErrorNotReady)
      return nullptr;
    return dev.drv.check(result, "cuEventQuery");
  }

  CudaDevice &dev;
  const cu::Event event;
};

class CudaGraph final : public tandem_device_graph_s {
public:
  CudaGraph(CudaDevice *device, cu::GraphExec exec)
      : tandem_device_graph_s(device), dev(*device), exec(exec) {}
  ~CudaGraph() override {
    ScopedContext scope(dev.drv, dev.context);
    if (scope.ok())
      dev.drv.graphExecDestroy(exec);
  }
  CudaDevice &dev;
  const cu::GraphExec exec;
};

class CudaStream final : public tandem_stream_s {
public:
  CudaStream(CudaDevice *device, cu::Stream stream)
      : tandem_stream_s(device), dev(*device), stream(stream) {}

  ~CudaStream() override {
    // api.cpp has ended any capture and waited for the queued work.
    ScopedContext scope(dev.drv, dev.context);
    if (scope.ok()) {
      if (workspace)
        dev.drv.memFree(workspace);
      if (convWorkspace)
        dev.drv.memFree(convWorkspace);
      for (cu::DevicePtr retired : retiredWorkspaces)
        dev.drv.memFree(retired);
      dev.drv.streamDestroy(stream);
    }
  }

  tandem_status_t gemm(const tandem_gemm_desc_t &desc, tandem_device_ptr_t a,
                       tandem_device_ptr_t b, tandem_device_ptr_t c,
                       tandem_device_ptr_t bias,
                       const std::string &name) override {
    if (!dev.hasGemm())
      return tandem_status_make(TANDEM_UNAVAILABLE,
                                "gemm '%s': cuBLASLt is not available",
                                name.c_str());
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    // The workspace is allocated once, on the stream's first GEMM (a
    // slot's first run is never captured).
    if (!workspace) {
      if (isCapturing())
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "gemm '%s': the stream's first GEMM is being "
                                  "captured; run it once uncaptured",
                                  name.c_str());
      if (tandem_status_t status = dev.drv.check(
              dev.drv.memAlloc(&workspace, tandem::cublaslt::kWorkspaceBytes),
              "cuMemAlloc (cuBLASLt workspace)"))
        return status;
    }
    return tandem::device::prefixed(
        dev.timed(this, stream, isCapturing(), tandem::device::OpKind::Kernel,
                  name, 0,
                  [&] {
                    return dev.blas->gemm(desc, a, b, c, bias, workspace,
                                          stream);
                  }),
        "gemm '" + name + "'");
  }

  tandem_status_t conv(const tandem_conv_desc_t &desc, tandem_device_ptr_t x,
                       tandem_device_ptr_t w, tandem_device_ptr_t y,
                       tandem_device_ptr_t bias, tandem_device_ptr_t z,
                       const std::string &name) override {
    if (!dev.hasConv())
      return tandem_status_make(TANDEM_UNAVAILABLE,
                                "conv '%s': cuDNN is not available",
                                name.c_str());
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    // A model's convolutions were prepared when it was created
    // (prepareConvs): their plans exist and the workspace fits them. Any
    // other gets its plan here, and the workspace grows to the most any
    // plan may use; neither may happen inside a capture.
    bool planned = dev.dnn->algorithmOf(desc) >= 0;
    uint64_t needed = 0;
    if (planned)
      if (tandem_status_t status = dev.dnn->prepare(desc, &needed))
        return status;
    if (!planned || !convWorkspace || needed > convWorkspaceBytes) {
      if (isCapturing())
        return tandem_status_make(
            TANDEM_INVALID_ARGUMENT,
            "conv '%s': the stream was not prepared for this convolution and "
            "is capturing; prepare it (model creation does) or run it once "
            "uncaptured",
            name.c_str());
      if (tandem_status_t status =
              growConvWorkspace(tandem::cudnn::kWorkspaceBytes))
        return status;
    }
    return tandem::device::prefixed(
        dev.timed(this, stream, isCapturing(), tandem::device::OpKind::Kernel,
                  name, 0,
                  [&] {
                    return dev.dnn->conv(desc, x, w, y, bias, z, convWorkspace,
                                         stream);
                  }),
        "conv '" + name + "'");
  }

  tandem_status_t prepareConvs(const tandem_conv_desc_t *const *descs,
                               size_t count) override {
    if (count == 0 || !dev.hasConv())
      return nullptr; // Without cuDNN the generated kernels run.
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    uint64_t largest = 0;
    for (size_t i = 0; i < count; ++i) {
      uint64_t bytes = 0;
      if (tandem_status_t status = dev.dnn->prepare(*descs[i], &bytes))
        return tandem::device::prefixed(status, "convolution " +
                                                    std::to_string(i) + " of " +
                                                    std::to_string(count));
      largest = std::max(largest, bytes);
    }
    return growConvWorkspace(largest);
  }

  tandem_status_t finish() override {
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (capturing) {
        capturing = false;
        cu::Graph graph = nullptr;
        if (dev.drv.streamEndCapture(stream, &graph) == cu::kSuccess && graph)
          dev.drv.graphDestroy(graph);
      }
    }
    tandem_status_t status =
        dev.drv.check(dev.drv.streamSynchronize(stream), "cuStreamSynchronize");
    // The stream's timed ops are complete: report them before it goes.
    dev.reportTimed(/*wait=*/true, this);
    return status;
  }

  tandem_status_t synchronize() override {
    if (isCapturing())
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_stream_synchronize: the stream is "
                                "capturing a graph");
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    if (tandem_status_t status = dev.drv.check(
            dev.drv.streamSynchronize(stream), "cuStreamSynchronize"))
      return status;
    dev.reportTimed(/*wait=*/true, this);
    return nullptr;
  }

  tandem_status_t copyH2D(tandem_device_ptr_t dst, const void *src,
                          uint64_t bytes) override {
    return enqueue(tandem::device::OpKind::H2D, "", bytes, [&] {
      return dev.drv.check(
          dev.drv.memcpyHtoDAsync(dst, src, static_cast<size_t>(bytes), stream),
          "cuMemcpyHtoDAsync");
    });
  }

  tandem_status_t copyD2H(void *dst, tandem_device_ptr_t src,
                          uint64_t bytes) override {
    return enqueue(tandem::device::OpKind::D2H, "", bytes, [&] {
      return dev.drv.check(
          dev.drv.memcpyDtoHAsync(dst, src, static_cast<size_t>(bytes), stream),
          "cuMemcpyDtoHAsync");
    });
  }

  tandem_status_t copyD2D(tandem_device_ptr_t dst, tandem_device_ptr_t src,
                          uint64_t bytes) override {
    return enqueue(tandem::device::OpKind::D2D, "", bytes, [&] {
      return dev.drv.check(
          dev.drv.memcpyDtoDAsync(dst, src, static_cast<size_t>(bytes), stream),
          "cuMemcpyDtoDAsync");
    });
  }

  tandem_status_t launch(tandem_device_kernel_s *kernel,
                         const tandem_launch_dims_t &dims,
                         const tandem_kernel_arg_t *args,
                         int32_t numArgs) override {
    // cuLaunchKernel copies the argument values before it returns.
    std::vector<void *> params(static_cast<size_t>(numArgs));
    for (int32_t i = 0; i < numArgs; ++i)
      params[static_cast<size_t>(i)] = const_cast<void *>(args[i].value);
    tandem_status_t status =
        enqueue(tandem::device::OpKind::Kernel, kernel->name, 0, [&] {
          return dev.drv.check(
              dev.drv.launchKernel(static_cast<CudaKernel *>(kernel)->function,
                                   dims.grid[0], dims.grid[1], dims.grid[2],
                                   dims.block[0], dims.block[1], dims.block[2],
                                   dims.shared_bytes, stream,
                                   numArgs ? params.data() : nullptr, nullptr),
              "cuLaunchKernel");
        });
    return tandem::device::prefixed(status, "kernel '" + kernel->name + "'");
  }

  tandem_status_t recordEvent(tandem_event_s *event) override {
    if (isCapturing())
      return captureUnsupported("tandem_event_record");
    TANDEM_CUDA_CALL(
        dev,
        dev.drv.eventRecord(static_cast<CudaEvent *>(event)->event, stream),
        "cuEventRecord");
  }

  tandem_status_t waitEvent(tandem_event_s *event) override {
    if (isCapturing())
      return captureUnsupported("tandem_stream_wait_event");
    TANDEM_CUDA_CALL(dev,
                     dev.drv.streamWaitEvent(
                         stream, static_cast<CudaEvent *>(event)->event, 0),
                     "cuStreamWaitEvent");
  }

  tandem_status_t beginCapture() override {
    std::lock_guard<std::mutex> lock(mutex);
    if (capturing)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_stream_begin_capture: the stream is "
                                "already capturing");
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    // Relaxed: other threads may keep using the device (and this API from
    // any thread) while the stream captures.
    if (tandem_status_t status = dev.drv.check(
            dev.drv.streamBeginCapture(stream, cu::kCaptureModeRelaxed),
            "cuStreamBeginCapture"))
      return status;
    capturing = true;
    return nullptr;
  }

  tandem_status_t endCapture(tandem_device_graph_s **out) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (!capturing)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_stream_end_capture: the stream is not "
                                "capturing");
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    capturing = false;
    cu::Graph graph = nullptr;
    if (tandem_status_t status = dev.drv.check(
            dev.drv.streamEndCapture(stream, &graph), "cuStreamEndCapture"))
      return status;
    cu::GraphExec exec = nullptr;
    tandem_status_t status = dev.drv.check(
        dev.drv.graphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
    // The executable graph does not depend on the graph it came from.
    dev.drv.graphDestroy(graph);
    if (status)
      return status;
    try {
      *out = new CudaGraph(&dev, exec);
    } catch (...) {
      dev.drv.graphExecDestroy(exec);
      throw;
    }
    return nullptr;
  }

  tandem_status_t launchGraph(tandem_device_graph_s *graph) override {
    return enqueue(tandem::device::OpKind::Graph, graph->label, 0, [&] {
      return dev.drv.check(
          dev.drv.graphLaunch(static_cast<CudaGraph *>(graph)->exec, stream),
          "cuGraphLaunch");
    });
  }

  tandem_status_t setEmulatedDelay(uint32_t, uint32_t) override {
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_stream_set_emulated_delay: %s is not "
                              "the emulated device",
                              dev.name());
  }

private:
  bool isCapturing() {
    std::lock_guard<std::mutex> lock(mutex);
    return capturing;
  }

  /// Enqueues one op (`issue`, with the context current) of `kind`, named
  /// `name` and moving `bytes`, timed for the observer (CudaDevice::timed).
  template <typename Issue>
  tandem_status_t enqueue(tandem::device::OpKind kind, std::string name,
                          uint64_t bytes, Issue &&issue) {
    ScopedContext scope(dev.drv, dev.context);
    if (!scope.ok())
      return scope.release();
    return dev.timed(this, stream, isCapturing(), kind, std::move(name), bytes,
                     issue);
  }

  static tandem_status_t captureUnsupported(const char *what) {
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "%s: the stream is capturing a graph, and "
                              "capture of events (multi-stream capture) is "
                              "not supported",
                              what);
  }

  CudaDevice &dev;
  const cu::Stream stream;
  std::mutex mutex;
  bool capturing = false;
  /// cuBLASLt's workspace (kWorkspaceBytes), from the stream's first GEMM.
  cu::DevicePtr workspace = 0;
  /// cuDNN's workspace of convWorkspaceBytes (> 0 once allocated): sized
  /// by prepareConvs for its convolutions, or kWorkspaceBytes.
  cu::DevicePtr convWorkspace = 0;
  uint64_t convWorkspaceBytes = 0;

  /// Earlier, smaller workspaces: graphs captured before the workspace
  /// grew still use them, so they are freed with the stream.
  std::vector<cu::DevicePtr> retiredWorkspaces;

  /// Makes the workspace at least `bytes` (at least 256, so that it exists
  /// even when no algorithm needs one); the context is current and the
  /// stream is not capturing. A smaller one is retired, not freed.
  tandem_status_t growConvWorkspace(uint64_t bytes) {
    bytes = std::max<uint64_t>(bytes, 256);
    if (convWorkspace && convWorkspaceBytes >= bytes)
      return nullptr;
    if (convWorkspace) {
      retiredWorkspaces.push_back(convWorkspace);
      convWorkspace = 0;
      convWorkspaceBytes = 0;
    }
    if (tandem_status_t status =
            dev.drv.check(dev.drv.memAlloc(&convWorkspace, bytes),
                          "cuMemAlloc (cuDNN workspace)"))
      return status;
    convWorkspaceBytes = bytes;
    return nullptr;
  }
};

tandem_status_t CudaDevice::createStream(tandem_stream_s **out) {
  ScopedContext scope(drv, context);
  if (!scope.ok())
    return scope.release();
  cu::Stream stream = nullptr;
  if (tandem_status_t status = drv.check(
          drv.streamCreate(&stream, cu::kStreamNonBlocking), "cuStreamCreate"))
    return status;
  try {
    *out = new CudaStream(this, stream);
  } catch (...) {
    drv.streamDestroy(stream);
    throw;
  }
  return nullptr;
}

tandem_status_t CudaDevice::createEvent(tandem_event_s **out) {
  ScopedContext scope(drv, context);
  if (!scope.ok())
    return scope.release();
  cu::Event event = nullptr;
  if (tandem_status_t status = drv.check(
          drv.eventCreate(&event, cu::kEventDisableTiming), "cuEventCreate"))
    return status;
  try {
    *out = new CudaEvent(this, event);
  } catch (...) {
    drv.eventDestroy(event);
    throw;
  }
  return nullptr;
}

tandem_status_t CudaDevice::loadModule(const void *image, uint64_t,
                                       tandem_device_module_s **out) {
  ScopedContext scope(drv, context);
  if (!scope.ok())
    return scope.release();
  // Keep the JIT's error log: a PTX that does not assemble says why.
  std::vector<char> log(4096, '\0');
  cu::JitOption options[] = {cu::kJitErrorLogBuffer,
                             cu::kJitErrorLogBufferSizeBytes};
  void *values[] = {
      log.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(log.size()))};
  cu::Module module = nullptr;
  cu::Result result = drv.moduleLoadDataEx(&module, image, 2, options, values);
  if (result != cu::kSuccess) {
    log.back() = '\0';
    return tandem_status_make(
        result == cu::kErrorOutOfMemory ? TANDEM_OUT_OF_MEMORY
                                        : TANDEM_INVALID_ARGUMENT,
        "CUDA: cuModuleLoadDataEx failed on %s: %s%s%s", deviceName.c_str(),
        drv.describe(result).c_str(), log[0] ? ": " : "", log.data());
  }
  try {
    *out = new CudaModule(this, module);
  } catch (...) {
    drv.moduleUnload(module);
    throw;
  }
  return nullptr;
}

} // namespace

namespace tandem {
namespace device {

tandem_status_t openCuda(int ordinal, tandem_device_s **out) {
  const Driver &drv = driver();
  if (!drv.error.empty())
    // No driver, a driver too old or failing to initialise, or no device:
    // no usable GPU, so that `auto` falls back to the CPU with the reason.
    return tandem_status_make(TANDEM_UNAVAILABLE, "%s", drv.error.c_str());
  if (ordinal < 0 || ordinal >= drv.deviceCount)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "cuda:%d: there %s %d CUDA device%s", ordinal,
                              drv.deviceCount == 1 ? "is" : "are",
                              drv.deviceCount, drv.deviceCount == 1 ? "" : "s");
  cu::Device handle = 0;
  if (tandem_status_t status =
          drv.check(drv.deviceGet(&handle, ordinal), "cuDeviceGet"))
    return status;
  char name[256] = {};
  if (drv.deviceGetName(name, sizeof(name) - 1, handle) != cu::kSuccess)
    std::strcpy(name, "unknown");
  int major = 0, minor = 0;
  std::string arch;
  if (drv.deviceGetAttribute(&major, cu::kAttrComputeCapabilityMajor, handle) ==
          cu::kSuccess &&
      drv.deviceGetAttribute(&minor, cu::kAttrComputeCapabilityMinor, handle) ==
          cu::kSuccess)
    arch = "sm_" + std::to_string(major * 10 + minor);
  cu::Context context = nullptr;
  if (tandem_status_t status = drv.check(drv.primaryCtxRetain(&context, handle),
                                         "cuDevicePrimaryCtxRetain"))
    return status;
  try {
    *out = new CudaDevice(drv, ordinal, handle, context,
                          "cuda:" + std::to_string(ordinal) + " (" + name + ")",
                          arch);
  } catch (...) {
    drv.primaryCtxRelease(handle);
    throw;
  }
  return nullptr;
}

} // namespace device
} // namespace tandem
