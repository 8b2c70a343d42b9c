//===- FakeCudaDriver.cpp - A fake CUDA driver for the backend's tests ----===//
//
// libtandem_fake_cuda.so stands in for libcuda.so.1 so that the runtime's
// CUDA backend (runtime/src/device/cuda.cpp) can be tested on machines
// without a GPU: point TANDEM_CUDA_DRIVER at it. It exports, with C linkage
// and cuda.h's signatures, every driver entry point the backend loads, plus
// cuEventElapsedTime.
//
// Everything runs synchronously on the calling thread:
//  - one device, "Tandem fake GPU", compute capability 9.0, driver 12080;
//  - device memory and pinned memory are host malloc (a CUdeviceptr is the
//    host address); copies are memcpy, checked against live allocations;
//  - cuLaunchKernel computes nothing: it appends the launch to a log and
//    busy-waits about 20 us, so that timed spans are not empty;
//  - a capturing stream records its copies, launches, event records and
//    graph launches; cuGraphLaunch replays them in order;
//  - events remember their flags and a steady_clock time per record;
//  - tandem_fake_cuda_enqueue_host runs a host function in stream order (or
//    records it into a capture): what the fake cuDNN (FakeCudnn.cpp) uses
//    to compute its convolutions on the host, captured like a launch.
// Modules accept any image. A text (PTX) image is kept, and
// cuModuleGetFunction finds a name only if it occurs in that text; a text
// image containing kFailMarker fails with CUDA_ERROR_INVALID_PTX and writes a
// line to the JIT error log, to exercise the caller's error path.
//
// Calls that create objects in a context (allocations, streams, events,
// modules) need a current context, as with the real driver, so a backend
// that forgets to push its context fails here too. Tests inspect the launch
// log through the tandem_fake_cuda_* functions at the end of this file.
//
// cuda.h is used when the build finds it (TANDEM_FAKE_CUDA_USE_CUDA_H), so
// that the compiler checks every definition against the real declarations;
// otherwise the few driver types are declared here.
//
//===----------------------------------------------------------------------===//

#ifdef TANDEM_FAKE_CUDA_USE_CUDA_H
#include <cuda.h>
// CUDA 12.8+ headers map cuEventElapsedTime to cuEventElapsedTime_v2; the
// unversioned symbol is the one defined (and both are exported) here.
#undef cuEventElapsedTime
#else
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice_attribute;
typedef int CUjit_option;
typedef int CUstreamCaptureMode;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
#endif

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// The CUresult values this driver returns (cuda.h's values).
constexpr CUresult kSuccess = static_cast<CUresult>(0);
constexpr CUresult kErrorInvalidValue = static_cast<CUresult>(1);
constexpr CUresult kErrorOutOfMemory = static_cast<CUresult>(2);
constexpr CUresult kErrorNotInitialized = static_cast<CUresult>(3);
constexpr CUresult kErrorInvalidDevice = static_cast<CUresult>(101);
constexpr CUresult kErrorInvalidContext = static_cast<CUresult>(201);
constexpr CUresult kErrorInvalidPtx = static_cast<CUresult>(218);
constexpr CUresult kErrorInvalidHandle = static_cast<CUresult>(400);
constexpr CUresult kErrorIllegalState = static_cast<CUresult>(401);
constexpr CUresult kErrorNotFound = static_cast<CUresult>(500);
constexpr CUresult kErrorNotReady = static_cast<CUresult>(600);
constexpr CUresult kErrorCaptureUnsupported = static_cast<CUresult>(900);
constexpr CUresult kErrorCaptureInvalidated = static_cast<CUresult>(901);

constexpr unsigned kEventDisableTiming = 0x2;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;

/// A text image containing this fails to load (CUDA_ERROR_INVALID_PTX).
constexpr const char *kFailMarker = "tandem-fake-cuda: fail to load";

/// The ops a capture records and a graph replays.
struct Op {
  enum Kind { H2D, D2H, D2D, Launch, EventRecord, Host } kind;
  CUdeviceptr dst = 0;
  CUdeviceptr src = 0;
  void *hostDst = nullptr;
  const void *hostSrc = nullptr;
  size_t bytes = 0;
  CUfunction function = nullptr;
  unsigned grid[3] = {};
  unsigned block[3] = {};
  unsigned shared = 0;
  CUevent event = nullptr;
  /// Host: the function and a copy of its argument bytes.
  void (*hostFn)(void *) = nullptr;
  std::shared_ptr<std::vector<unsigned char>> hostEnv;
};

uint64_t nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

} // namespace

// The driver's opaque handle types, defined here.
struct CUctx_st {
  int retains = 0;
};
struct CUfunc_st {
  CUmodule module;
  std::string name;
};
struct CUmod_st {
  /// The image's text (PTX), empty for a binary image.
  std::string text;
  bool binary = false;
  std::vector<std::unique_ptr<CUfunc_st>> functions;
};
struct CUstream_st {
  unsigned flags = 0;
  bool capturing = false;
  /// A capture made invalid by an unsupported call (cuStreamSynchronize).
  bool invalidated = false;
  std::vector<Op> captured;
};
struct CUevent_st {
  unsigned flags = 0;
  bool recorded = false;
  uint64_t timeNs = 0;
};
struct CUgraph_st {
  std::vector<Op> ops;
};
struct CUgraphExec_st {
  std::vector<Op> ops;
};

namespace {

/// The driver's whole state, behind one lock.
struct State {
  std::mutex mutex;
  bool initialized = false;
  CUctx_st primary;
  std::map<CUdeviceptr, size_t> allocations;
  std::set<void *> pinned;
  std::set<CUstream> streams;
  std::set<CUevent> events;
  std::set<CUmodule> modules;
  std::set<CUfunction> functions;
  std::set<CUgraph> graphs;
  std::set<CUgraphExec> execs;
  int launchCount = 0;
  int hostOpCount = 0;
  std::string lastKernel;
  unsigned lastGrid[3] = {};
  unsigned lastBlock[3] = {};
};

State &state() {
  static State *s = new State; // never destroyed: the driver is not unloaded
  return *s;
}

/// The calling thread's context stack (cuCtxPushCurrent / PopCurrent).
thread_local std::vector<CUcontext> contextStack;

using Lock = std::lock_guard<std::mutex>;

/// Whether [ptr, ptr + bytes) lies inside one live device allocation.
bool inAllocation(const State &s, CUdeviceptr ptr, size_t bytes) {
  auto it = s.allocations.upper_bound(ptr);
  if (it == s.allocations.begin())
    return false;
  --it;
  return ptr >= it->first && ptr - it->first <= it->second &&
         bytes <= it->second - (ptr - it->first);
}

/// Whether a stream handle is valid (NULL is the legacy default stream).
bool validStream(const State &s, CUstream stream) {
  return !stream || s.streams.count(stream);
}

/// Runs one op now. The caller holds the lock.
void run(State &s, const Op &op) {
  switch (op.kind) {
  case Op::H2D:
    std::memcpy(reinterpret_cast<void *>(op.dst), op.hostSrc, op.bytes);
    break;
  case Op::D2H:
    std::memcpy(op.hostDst, reinterpret_cast<const void *>(op.src), op.bytes);
    break;
  case Op::D2D:
    std::memmove(reinterpret_cast<void *>(op.dst),
                 reinterpret_cast<const void *>(op.src), op.bytes);
    break;
  case Op::Launch: {
    ++s.launchCount;
    s.lastKernel = op.function->name;
    std::memcpy(s.lastGrid, op.grid, sizeof(op.grid));
    std::memcpy(s.lastBlock, op.block, sizeof(op.block));
    // Busy-wait about 20 us so that timed spans have a length.
    uint64_t until = nowNs() + 20000;
    while (nowNs() < until) {
    }
    break;
  }
  case Op::Host:
    ++s.hostOpCount;
    op.hostFn(op.hostEnv->data());
    break;
  case Op::EventRecord:
    // The event may have been destroyed since a capture recorded it.
    if (s.events.count(op.event)) {
      op.event->recorded = true;
      op.event->timeNs = nowNs();
    }
    break;
  }
}

/// Runs `op` on `stream`, or records it if the stream is capturing. The
/// caller holds the lock.
CUresult enqueue(State &s, CUstream stream, const Op &op) {
  if (stream && stream->capturing) {
    if (!stream->invalidated)
      stream->captured.push_back(op);
    return kSuccess;
  }
  run(s, op);
  return kSuccess;
}

/// The checks shared by calls after cuInit.
#define FAKE_REQUIRE_INIT(s)                                                   \
  do {                                                                         \
    if (!(s).initialized)                                                      \
      return kErrorNotInitialized;                                             \
  } while (false)
#define FAKE_REQUIRE_CONTEXT()                                                 \
  do {                                                                         \
    if (contextStack.empty())                                                  \
      return kErrorInvalidContext;                                             \
  } while (false)

struct ErrorText {
  int code;
  const char *name;
  const char *text;
};

const ErrorText kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {401, "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText *findError(int code) {
  for (const ErrorText &error : kErrors)
    if (error.code == code)
      return &error;
  return nullptr;
}

/// Whether a module image is binary (cubin ELF or fatbin) rather than text.
bool isBinaryImage(const void *image) {
  // Compared byte by byte: a text image shorter than 4 bytes ends in a NUL,
  // which matches neither magic, so nothing past it is read.
  static const unsigned char magics[2][4] = {{0x7f, 'E', 'L', 'F'},
                                             {0x50, 0xed, 0x55, 0xba}};
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  for (const unsigned char *magic : magics) {
    int i = 0;
    while (i < 4 && bytes[i] == magic[i])
      ++i;
    if (i == 4)
      return true;
  }
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Initialisation, errors, the device
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return kErrorInvalidValue;
  State &s = state();
  Lock lock(s.mutex);
  s.initialized = true;
  return kSuccess;
}

FAKE_EXPORT CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return kErrorInvalidValue;
  *version = 12080;
  return kSuccess;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  if (!name)
    return kErrorInvalidValue;
  const ErrorText *found = findError(static_cast<int>(error));
  *name = found ? found->name : nullptr;
  return found ? kSuccess : kErrorInvalidValue;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  if (!text)
    return kErrorInvalidValue;
  const ErrorText *found = findError(static_cast<int>(error));
  *text = found ? found->text : nullptr;
  return found ? kSuccess : kErrorInvalidValue;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!count)
    return kErrorInvalidValue;
  *count = 1;
  return kSuccess;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!device)
    return kErrorInvalidValue;
  if (ordinal != 0)
    return kErrorInvalidDevice;
  *device = 0;
  return kSuccess;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (device != 0)
    return kErrorInvalidDevice;
  if (!name || length <= 0)
    return kErrorInvalidValue;
  std::strncpy(name, "Tandem fake GPU", static_cast<size_t>(length));
  name[length - 1] = '\0';
  return kSuccess;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value,
                                          CUdevice_attribute attribute,
                                          CUdevice device) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (device != 0)
    return kErrorInvalidDevice;
  if (!value)
    return kErrorInvalidValue;
  switch (static_cast<int>(attribute)) {
  case kAttrComputeCapabilityMajor:
    *value = 9;
    return kSuccess;
  case kAttrComputeCapabilityMinor:
    *value = 0;
    return kSuccess;
  default:
    return kErrorInvalidValue;
  }
}

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context,
                                              CUdevice device) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (device != 0)
    return kErrorInvalidDevice;
  if (!context)
    return kErrorInvalidValue;
  ++s.primary.retains;
  *context = &s.primary;
  return kSuccess;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (device != 0)
    return kErrorInvalidDevice;
  if (s.primary.retains == 0)
    return kErrorInvalidContext;
  --s.primary.retains;
  return kSuccess;
}

FAKE_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext context) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (context != &s.primary || s.primary.retains == 0)
    return kErrorInvalidContext;
  contextStack.push_back(context);
  return kSuccess;
}

FAKE_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (contextStack.empty())
    return kErrorInvalidContext;
  if (context)
    *context = contextStack.back();
  contextStack.pop_back();
  return kSuccess;
}

//===----------------------------------------------------------------------===//
// Memory and copies
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  FAKE_REQUIRE_CONTEXT();
  if (!ptr || bytes == 0)
    return kErrorInvalidValue;
  // 256-byte aligned, as the driver's allocations are.
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return kErrorOutOfMemory;
  *ptr = reinterpret_cast<CUdeviceptr>(memory);
  s.allocations[*ptr] = bytes;
  return kSuccess;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.allocations.erase(ptr))
    return kErrorInvalidValue;
  std::free(reinterpret_cast<void *>(ptr));
  return kSuccess;
}

FAKE_EXPORT CUresult cuMemAllocHost_v2(void **ptr, size_t bytes) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  FAKE_REQUIRE_CONTEXT();
  if (!ptr || bytes == 0)
    return kErrorInvalidValue;
  void *memory = std::malloc(bytes);
  if (!memory)
    return kErrorOutOfMemory;
  s.pinned.insert(memory);
  *ptr = memory;
  return kSuccess;
}

FAKE_EXPORT CUresult cuMemFreeHost(void *ptr) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.pinned.erase(ptr))
    return kErrorInvalidValue;
  std::free(ptr);
  return kSuccess;
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src,
                                          size_t bytes, CUstream stream) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!validStream(s, stream))
    return kErrorInvalidHandle;
  if (!src || !inAllocation(s, dst, bytes))
    return kErrorInvalidValue;
  Op op{Op::H2D};
  op.dst = dst;
  op.hostSrc = src;
  op.bytes = bytes;
  return enqueue(s, stream, op);
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src,
                                          size_t bytes, CUstream stream) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!validStream(s, stream))
    return kErrorInvalidHandle;
  if (!dst || !inAllocation(s, src, bytes))
    return kErrorInvalidValue;
  Op op{Op::D2H};
  op.hostDst = dst;
  op.src = src;
  op.bytes = bytes;
  return enqueue(s, stream, op);
}

FAKE_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                          size_t bytes, CUstream stream) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!validStream(s, stream))
    return kErrorInvalidHandle;
  if (!inAllocation(s, dst, bytes) || !inAllocation(s, src, bytes))
    return kErrorInvalidValue;
  Op op{Op::D2D};
  op.dst = dst;
  op.src = src;
  op.bytes = bytes;
  return enqueue(s, stream, op);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned flags) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  FAKE_REQUIRE_CONTEXT();
  if (!stream || (flags & ~1u))
    return kErrorInvalidValue;
  CUstream created = new CUstream_st;
  created->flags = flags;
  s.streams.insert(created);
  *stream = created;
  return kSuccess;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.streams.erase(stream))
    return kErrorInvalidHandle;
  delete stream;
  return kSuccess;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!validStream(s, stream))
    return kErrorInvalidHandle;
  // As the real driver: not allowed during capture, and it invalidates it.
  if (stream && stream->capturing) {
    stream->invalidated = true;
    stream->captured.clear();
    return kErrorCaptureUnsupported;
  }
  return kSuccess;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event,
                                       unsigned flags) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!validStream(s, stream) || !s.events.count(event))
    return kErrorInvalidHandle;
  if (flags != 0)
    return kErrorInvalidValue;
  // Work runs as it is enqueued, so every record has completed already.
  return kSuccess;
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned flags) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  FAKE_REQUIRE_CONTEXT();
  if (!event || (flags & ~0xfu))
    return kErrorInvalidValue;
  CUevent created = new CUevent_st;
  created->flags = flags;
  s.events.insert(created);
  *event = created;
  return kSuccess;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.events.erase(event))
    return kErrorInvalidHandle;
  delete event;
  return kSuccess;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.events.count(event) || !validStream(s, stream))
    return kErrorInvalidHandle;
  Op op{Op::EventRecord};
  op.event = event;
  return enqueue(s, stream, op);
}

FAKE_EXPORT CUresult cuEventSynchronize(CUevent event) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  return s.events.count(event) ? kSuccess : kErrorInvalidHandle;
}

FAKE_EXPORT CUresult cuEventQuery(CUevent event) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  return s.events.count(event) ? kSuccess : kErrorInvalidHandle;
}

FAKE_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!ms)
    return kErrorInvalidValue;
  if (!s.events.count(start) || !s.events.count(end))
    return kErrorInvalidHandle;
  if ((start->flags & kEventDisableTiming) ||
      (end->flags & kEventDisableTiming))
    return kErrorInvalidHandle;
  if (!start->recorded || !end->recorded)
    return kErrorNotReady;
  *ms = static_cast<float>(
      static_cast<double>(static_cast<int64_t>(end->timeNs - start->timeNs)) /
      1e6);
  return kSuccess;
}

/// CUDA 12.8+ headers call cuEventElapsedTime by this name.
FAKE_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent start,
                                           CUevent end) {
  return cuEventElapsedTime(ms, start, end);
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                        unsigned numOptions,
                                        CUjit_option *options,
                                        void **optionValues) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  FAKE_REQUIRE_CONTEXT();
  if (!module || !image || (numOptions && (!options || !optionValues)))
    return kErrorInvalidValue;
  auto created = std::make_unique<CUmod_st>();
  created->binary = isBinaryImage(image);
  if (!created->binary) {
    created->text = static_cast<const char *>(image);
    if (created->text.find(kFailMarker) != std::string::npos) {
      // Fill the JIT error log if the caller gave one.
      char *log = nullptr;
      size_t logSize = 0;
      for (unsigned i = 0; i < numOptions; ++i) {
        if (static_cast<int>(options[i]) == kJitErrorLogBuffer)
          log = static_cast<char *>(optionValues[i]);
        else if (static_cast<int>(options[i]) == kJitErrorLogBufferSizeBytes)
          logSize =
              static_cast<size_t>(reinterpret_cast<uintptr_t>(optionValues[i]));
      }
      if (log && logSize) {
        std::strncpy(log, "ptxas fatal: tandem fake driver refused the image",
                     logSize);
        log[logSize - 1] = '\0';
      }
      return kErrorInvalidPtx;
    }
  }
  *module = created.release();
  s.modules.insert(*module);
  return kSuccess;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule module) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.modules.erase(module))
    return kErrorInvalidHandle;
  for (const auto &function : module->functions)
    s.functions.erase(function.get());
  delete module;
  return kSuccess;
}

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                                         const char *name) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!function || !name)
    return kErrorInvalidValue;
  if (!s.modules.count(module))
    return kErrorInvalidHandle;
  if (!module->binary && !std::strstr(module->text.c_str(), name))
    return kErrorNotFound;
  for (const auto &existing : module->functions)
    if (existing->name == name) {
      *function = existing.get();
      return kSuccess;
    }
  module->functions.push_back(
      std::unique_ptr<CUfunc_st>(new CUfunc_st{module, name}));
  *function = module->functions.back().get();
  s.functions.insert(*function);
  return kSuccess;
}

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned gridX,
                                    unsigned gridY, unsigned gridZ,
                                    unsigned blockX, unsigned blockY,
                                    unsigned blockZ, unsigned sharedBytes,
                                    CUstream stream, void **params,
                                    void **extra) {
  (void)params;
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.functions.count(function) || !validStream(s, stream))
    return kErrorInvalidHandle;
  if (extra || !gridX || !gridY || !gridZ || !blockX || !blockY || !blockZ ||
      static_cast<uint64_t>(blockX) * blockY * blockZ > 1024)
    return kErrorInvalidValue;
  Op op{Op::Launch};
  op.function = function;
  op.grid[0] = gridX;
  op.grid[1] = gridY;
  op.grid[2] = gridZ;
  op.block[0] = blockX;
  op.block[1] = blockY;
  op.block[2] = blockZ;
  op.shared = sharedBytes;
  return enqueue(s, stream, op);
}

//===----------------------------------------------------------------------===//
// Stream capture and graphs
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuStreamBeginCapture_v2(CUstream stream,
                                             CUstreamCaptureMode mode) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  (void)mode;
  // The legacy default stream cannot capture.
  if (!stream)
    return kErrorCaptureUnsupported;
  if (!s.streams.count(stream))
    return kErrorInvalidHandle;
  if (stream->capturing)
    return kErrorIllegalState;
  stream->capturing = true;
  stream->invalidated = false;
  stream->captured.clear();
  return kSuccess;
}

FAKE_EXPORT CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!graph)
    return kErrorInvalidValue;
  if (!s.streams.count(stream))
    return kErrorInvalidHandle;
  if (!stream->capturing)
    return kErrorIllegalState;
  stream->capturing = false;
  std::vector<Op> ops = std::move(stream->captured);
  stream->captured.clear();
  if (stream->invalidated) {
    stream->invalidated = false;
    *graph = nullptr;
    return kErrorCaptureInvalidated;
  }
  CUgraph created = new CUgraph_st;
  created->ops = std::move(ops);
  s.graphs.insert(created);
  *graph = created;
  return kSuccess;
}

FAKE_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec,
                                                 CUgraph graph,
                                                 unsigned long long flags) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!exec || flags != 0)
    return kErrorInvalidValue;
  if (!s.graphs.count(graph))
    return kErrorInvalidHandle;
  CUgraphExec created = new CUgraphExec_st;
  created->ops = graph->ops;
  s.execs.insert(created);
  *exec = created;
  return kSuccess;
}

FAKE_EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.execs.count(exec) || !validStream(s, stream))
    return kErrorInvalidHandle;
  // A capturing stream records the replay's ops (a child graph).
  for (const Op &op : exec->ops) {
    // Replays check again what the capture checked: a launch of an unloaded
    // module's kernel or a copy into freed memory is an error, not a crash.
    if (op.kind == Op::Launch && !s.functions.count(op.function))
      return kErrorInvalidHandle;
    if ((op.kind == Op::H2D || op.kind == Op::D2D) &&
        !inAllocation(s, op.dst, op.bytes))
      return kErrorInvalidValue;
    if ((op.kind == Op::D2H || op.kind == Op::D2D) &&
        !inAllocation(s, op.src, op.bytes))
      return kErrorInvalidValue;
  }
  for (const Op &op : exec->ops)
    enqueue(s, stream, op);
  return kSuccess;
}

FAKE_EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.execs.erase(exec))
    return kErrorInvalidHandle;
  delete exec;
  return kSuccess;
}

FAKE_EXPORT CUresult cuGraphDestroy(CUgraph graph) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!s.graphs.erase(graph))
    return kErrorInvalidHandle;
  delete graph;
  return kSuccess;
}

//===----------------------------------------------------------------------===//
// Test hooks (not part of the CUDA driver API)
//===----------------------------------------------------------------------===//

/// Kernel launches run so far (a graph replay counts each of its launches).
FAKE_EXPORT int tandem_fake_cuda_launch_count(void) {
  State &s = state();
  Lock lock(s.mutex);
  return s.launchCount;
}

/// The name of the kernel launched last ("" if none); valid until the next
/// launch or reset.
FAKE_EXPORT const char *tandem_fake_cuda_last_kernel(void) {
  State &s = state();
  Lock lock(s.mutex);
  return s.lastKernel.c_str();
}

/// The grid and block of the last launch (zeros if none).
FAKE_EXPORT void tandem_fake_cuda_last_dims(unsigned grid[3],
                                            unsigned block[3]) {
  State &s = state();
  Lock lock(s.mutex);
  std::memcpy(grid, s.lastGrid, sizeof(s.lastGrid));
  std::memcpy(block, s.lastBlock, sizeof(s.lastBlock));
}

/// Live driver objects: device and pinned allocations, streams, events,
/// modules, graphs and executable graphs. 0 once every device is closed.
FAKE_EXPORT int tandem_fake_cuda_live_objects(void) {
  State &s = state();
  Lock lock(s.mutex);
  return static_cast<int>(s.allocations.size() + s.pinned.size() +
                          s.streams.size() + s.events.size() +
                          s.modules.size() + s.graphs.size() + s.execs.size());
}

/// Retains of the primary context not yet released.
FAKE_EXPORT int tandem_fake_cuda_context_retains(void) {
  State &s = state();
  Lock lock(s.mutex);
  return s.primary.retains;
}

/// Clears the launch log (count, last kernel and dims).
FAKE_EXPORT void tandem_fake_cuda_reset(void) {
  State &s = state();
  Lock lock(s.mutex);
  s.launchCount = 0;
  s.hostOpCount = 0;
  s.lastKernel.clear();
  std::memset(s.lastGrid, 0, sizeof(s.lastGrid));
  std::memset(s.lastBlock, 0, sizeof(s.lastBlock));
}

/// Runs fn(copy of the `bytes` at env) on `stream` in order: now, or at
/// each replay of the graph a capture of the stream makes. For the fake
/// cuDNN.
FAKE_EXPORT CUresult tandem_fake_cuda_enqueue_host(CUstream stream,
                                                   void (*fn)(void *),
                                                   const void *env,
                                                   size_t bytes) {
  State &s = state();
  Lock lock(s.mutex);
  FAKE_REQUIRE_INIT(s);
  if (!validStream(s, stream) || !fn)
    return kErrorInvalidValue;
  Op op{Op::Host};
  op.hostFn = fn;
  auto data = static_cast<const unsigned char *>(env);
  op.hostEnv = std::make_shared<std::vector<unsigned char>>(data, data + bytes);
  return enqueue(s, stream, op);
}

/// Whether [ptr, ptr + bytes) lies inside one live device allocation.
FAKE_EXPORT int tandem_fake_cuda_in_allocation(CUdeviceptr ptr, size_t bytes) {
  State &s = state();
  Lock lock(s.mutex);
  return inAllocation(s, ptr, bytes) ? 1 : 0;
}

/// Host functions run (tandem_fake_cuda_enqueue_host, directly or in
/// replays) since the last reset.
FAKE_EXPORT int tandem_fake_cuda_host_op_count(void) {
  State &s = state();
  Lock lock(s.mutex);
  return s.hostOpCount;
}
