//===- emulated.cpp - A GPU emulated with host threads, for tests ---------===//
//
// The emulated device behaves like a GPU as far as the host can observe,
// and checks everything it can:
//  - Device addresses lie in a PROT_NONE reservation of the address space,
//    so dereferencing one on the host faults. The bytes live elsewhere, in a
//    separate heap block per allocation (filled with 0xFF on allocation),
//    reachable only through copies and kernel arguments, which translate
//    and check every address: it must lie inside a live allocation and the
//    whole range must fit. Addresses are handed out by a bump pointer with a
//    guard gap after each allocation and are not reused until the
//    reservation is exhausted, so a use after free is reported as such.
//  - Each stream is a worker thread draining a FIFO queue. Event records
//    complete a one-shot signal; waits block the waiting stream's queue on
//    the signal of the event's latest record.
//  - Kernels are CPU twins, run on the stream's thread with their device
//    pointer arguments translated to the backing memory. Library GEMMs
//    (tandem_device_gemm) run the CPU sgemm there, single-threaded
//    (TANDEM_EMULATED_GEMM=0: no GEMM library, as on CUDA without
//    cuBLASLt). Library convolutions (tandem_device_conv) run the CPU
//    convolution kernels through conv_desc.h the same way
//    (TANDEM_EMULATED_CONV=0: no convolution library, as on CUDA without
//    cuDNN).
//  - Optional random delays before each copy and kernel make missing
//    synchronisation visible as wrong results.
//  - Capture records the stream's copies and launches as commands; a graph
//    launch translates them again and queues them.
//
//===----------------------------------------------------------------------===//

#include "device/device.h"
#include "kernels/conv_desc.h"
#include "kernels/gemm_desc.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace {

/// Alignment of device allocations (what cuMemAlloc guarantees).
constexpr uint64_t kAlignment = 256;
/// Unused address space after each allocation.
constexpr uint64_t kGuardBytes = 64 << 10;
/// Freed ranges remembered for "use after free" messages.
constexpr size_t kMaxFreedRecords = 1 << 16;

using tandem::device::nowNs;

uint64_t roundUp(uint64_t value, uint64_t align) {
  return (value + align - 1) / align * align;
}

unsigned long long ull(uint64_t value) {
  return static_cast<unsigned long long>(value);
}

/// The bytes behind one device allocation. Queued work holds a reference,
/// so freeing the allocation never pulls memory from under running work.
struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  unsigned char *backing = nullptr;
  ~Allocation() { std::free(backing); }
};
using AllocationRef = std::shared_ptr<Allocation>;

/// A device address translated to backing memory.
struct Resolved {
  AllocationRef allocation;
  uint64_t offset = 0;
  void *host() const {
    return allocation ? allocation->backing + offset : nullptr;
  }
};

/// A one-shot completion flag: what an event record produces.
struct Signal {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;

  void set() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return done; });
  }
  bool query() {
    std::lock_guard<std::mutex> lock(mutex);
    return done;
  }
};
using SignalRef = std::shared_ptr<Signal>;

struct DelayRange {
  uint32_t minUs = 0;
  uint32_t maxUs = 0;
};

/// A copy or a launch as the caller described it: what capture records and
/// a graph replays. Device addresses are translated when it is queued.
struct Command {
  enum Kind { H2D, D2H, D2D, Kernel, Gemm, Conv } kind = H2D;
  tandem_device_ptr_t dst = 0;
  tandem_device_ptr_t src = 0;
  void *hostDst = nullptr;
  const void *hostSrc = nullptr;
  uint64_t bytes = 0;
  tandem_cpu_kernel_fn fn = nullptr;
  std::string kernelName;
  /// Argument bytes, each at a 16-byte aligned offset.
  std::vector<unsigned char> argData;
  struct Slot {
    size_t offset;
    bool isPointer;
  };
  std::vector<Slot> argSlots;
  /// Gemm: the descriptor and the device addresses of A, B, C and the bias.
  tandem_gemm_desc_t gemm = {};
  tandem_device_ptr_t gemmArgs[4] = {};
  /// Conv: the descriptor and the device addresses of x, w, y, the bias
  /// and z.
  tandem_conv_desc_t conv = {};
  tandem_device_ptr_t convArgs[tandem::conv::kNumOperands] = {};
};

/// One entry of a stream's queue.
struct Op {
  /// Waited for first, when set.
  SignalRef wait;
  /// Slept before `run` (copies and kernels only).
  DelayRange delay;
  std::function<void()> run;
  /// For the device's observer: what `run` does.
  tandem::device::OpKind kind = tandem::device::OpKind::Kernel;
  std::string name;
  uint64_t bytes = 0;
  /// False for bookkeeping (event records): not reported to the observer.
  bool observed = true;
};

class EmulatedStream;

class EmulatedKernel final : public tandem_device_kernel_s {
public:
  EmulatedKernel(tandem_device_module_s *module, std::string name,
                 tandem_cpu_kernel_fn fn)
      : tandem_device_kernel_s(module, std::move(name)), fn(fn) {}
  const tandem_cpu_kernel_fn fn;
};

class EmulatedModule final : public tandem_device_module_s {
public:
  using tandem_device_module_s::tandem_device_module_s;
  tandem_status_t getKernel(const char *name,
                            tandem_device_kernel_s **out) override {
    auto it = kernels.find(name);
    if (it == kernels.end())
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "no kernel '%s' in the module of CPU twins",
                                name);
    *out = it->second.get();
    return nullptr;
  }
  std::map<std::string, std::unique_ptr<EmulatedKernel>> kernels;
};

class EmulatedEvent final : public tandem_event_s {
public:
  using tandem_event_s::tandem_event_s;

  SignalRef latest() {
    std::lock_guard<std::mutex> lock(mutex);
    return latestSignal;
  }
  void setLatest(SignalRef signal) {
    std::lock_guard<std::mutex> lock(mutex);
    latestSignal = std::move(signal);
  }
  tandem_status_t synchronize() override {
    if (SignalRef signal = latest())
      signal->wait();
    return nullptr;
  }
  tandem_status_t query(bool *done) override {
    SignalRef signal = latest();
    *done = !signal || signal->query();
    return nullptr;
  }

private:
  std::mutex mutex;
  SignalRef latestSignal;
};

class EmulatedGraph final : public tandem_device_graph_s {
public:
  using tandem_device_graph_s::tandem_device_graph_s;
  std::vector<Command> commands;
};

class EmulatedDevice final : public tandem_device_s {
public:
  EmulatedDevice(void *reservation, uint64_t reservationBytes, DelayRange delay,
                 uint64_t seed)
      : defaultDelay(delay), seed(seed), reservation(reservation),
        base(reinterpret_cast<uintptr_t>(reservation)),
        reservationBytes(reservationBytes) {}

  ~EmulatedDevice() override {
    live.clear(); // Streams are gone: these are the last references.
    for (auto &entry : pinned)
      std::free(entry.first);
    munmap(reservation, reservationBytes);
  }

  tandem_device_kind_t kind() const override { return TANDEM_DEVICE_EMULATED; }
  bool runsCpuTwins() const override { return true; }
  const char *name() const override { return "emulated"; }
  /// TANDEM_EMULATED_GEMM=0 makes the device behave like a GPU without
  /// cuBLASLt (generated code then launches the GEMMs' fallback kernels).
  bool hasGemm() override {
    const char *env = std::getenv("TANDEM_EMULATED_GEMM");
    return !(env && std::strcmp(env, "0") == 0);
  }
  /// TANDEM_EMULATED_CONV=0 makes the device behave like a GPU without
  /// cuDNN (generated code then launches the convolutions' fallback
  /// kernels).
  bool hasConv() override {
    const char *env = std::getenv("TANDEM_EMULATED_CONV");
    return !(env && std::strcmp(env, "0") == 0);
  }
  void setObserver(tandem::device::OpObserver *newObserver) override {
    observer.store(newObserver, std::memory_order_release);
  }

  tandem_status_t alloc(uint64_t bytes, tandem_device_ptr_t *out) override {
    if (bytes > reservationBytes)
      return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                                "emulated device: %llu bytes exceed its "
                                "address space of %llu bytes",
                                ull(bytes), ull(reservationBytes));
    auto allocation = std::make_shared<Allocation>();
    allocation->size = bytes;
    allocation->backing =
        static_cast<unsigned char *>(std::malloc(static_cast<size_t>(bytes)));
    if (!allocation->backing)
      return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                                "emulated device: cannot allocate %llu bytes",
                                ull(bytes));
    std::memset(allocation->backing, 0xFF, static_cast<size_t>(bytes));
    std::lock_guard<std::mutex> lock(memoryMutex);
    uint64_t offset = 0;
    if (!findAddressRange(bytes, &offset))
      return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                                "emulated device: no room for %llu bytes in "
                                "its address space",
                                ull(bytes));
    allocation->base = base + offset;
    live.emplace(allocation->base, allocation);
    *out = allocation->base;
    return nullptr;
  }

  tandem_status_t free(tandem_device_ptr_t ptr) override {
    std::lock_guard<std::mutex> lock(memoryMutex);
    auto it = live.find(ptr);
    if (it == live.end())
      return describeBadAddress("tandem_device_free", ptr, 0, true);
    if (freed.size() >= kMaxFreedRecords)
      freed.clear();
    freed[ptr] = it->second->size;
    live.erase(it);
    return nullptr;
  }

  tandem_status_t hostAlloc(uint64_t bytes, void **out) override {
    uint64_t rounded = roundUp(bytes, 4096);
    if (bytes > SIZE_MAX - 4096)
      return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                                "pinned host buffer of %llu bytes is too large",
                                ull(bytes));
    void *ptr = std::aligned_alloc(4096, static_cast<size_t>(rounded));
    if (!ptr)
      return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                                "cannot allocate %llu bytes of pinned host "
                                "memory",
                                ull(bytes));
    std::lock_guard<std::mutex> lock(memoryMutex);
    try {
      pinned.emplace(ptr, bytes);
    } catch (...) {
      std::free(ptr);
      throw;
    }
    *out = ptr;
    return nullptr;
  }

  tandem_status_t hostFree(void *ptr) override {
    std::lock_guard<std::mutex> lock(memoryMutex);
    auto it = pinned.find(ptr);
    if (it == pinned.end())
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_device_host_free: %p is not a pinned "
                                "host buffer of this device",
                                ptr);
    std::free(ptr);
    pinned.erase(it);
    return nullptr;
  }

  tandem_status_t createStream(tandem_stream_s **out) override;

  tandem_status_t createEvent(tandem_event_s **out) override {
    *out = new EmulatedEvent(this);
    return nullptr;
  }

  tandem_status_t loadModule(const void *, uint64_t,
                             tandem_device_module_s **) override {
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "the emulated device cannot load CUDA module images; load the "
        "kernels' CPU twins with tandem_device_module_load_cpu");
  }

  tandem_status_t loadCpuModule(const tandem_cpu_kernel_t *kernels,
                                int32_t numKernels,
                                tandem_device_module_s **out) override {
    auto module = std::make_unique<EmulatedModule>(this);
    for (int32_t i = 0; i < numKernels; ++i) {
      std::string name = kernels[i].name;
      if (module->kernels.count(name))
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "tandem_device_module_load_cpu: kernel "
                                  "'%s' appears twice",
                                  name.c_str());
      module->kernels.emplace(name, std::make_unique<EmulatedKernel>(
                                        module.get(), name, kernels[i].fn));
    }
    *out = module.release();
    return nullptr;
  }

  /// Translates the device range [ptr, ptr + bytes) (bytes >= 1), or the
  /// single address ptr when bytes == 0 (kernel arguments). 0 with bytes ==
  /// 0 translates to NULL.
  tandem_status_t resolve(const char *what, tandem_device_ptr_t ptr,
                          uint64_t bytes, Resolved *out) {
    if (ptr == 0 && bytes == 0) {
      *out = Resolved();
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(memoryMutex);
    auto it = live.upper_bound(ptr);
    if (it != live.begin()) {
      --it;
      const Allocation &allocation = *it->second;
      uint64_t offset = ptr - allocation.base;
      if (offset < allocation.size) {
        if (bytes > allocation.size - offset)
          return tandem_status_make(
              TANDEM_INVALID_ARGUMENT,
              "%s: device range [0x%llx, +%llu) runs %llu bytes past the end "
              "of the allocation of %llu bytes at 0x%llx",
              what, ull(ptr), ull(bytes),
              ull(bytes - (allocation.size - offset)), ull(allocation.size),
              ull(allocation.base));
        out->allocation = it->second;
        out->offset = offset;
        return nullptr;
      }
    }
    return describeBadAddress(what, ptr, bytes, false);
  }

  /// Rejects a host range that lies in the device's address space (a
  /// device address passed as a host pointer).
  tandem_status_t checkHost(const char *what, const void *ptr,
                            uint64_t bytes) const {
    uint64_t address = reinterpret_cast<uintptr_t>(ptr);
    if (address < base + reservationBytes && address + bytes > base)
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "%s: host pointer %p is an emulated device address (a device "
          "pointer passed as a host pointer?)",
          what, ptr);
    return nullptr;
  }

  /// Whether [ptr, ptr + bytes) lies in one pinned host buffer.
  bool isPinned(const void *ptr, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(memoryMutex);
    auto it = pinned.upper_bound(const_cast<void *>(ptr));
    if (it == pinned.begin())
      return false;
    --it;
    uint64_t offset = reinterpret_cast<uintptr_t>(ptr) -
                      reinterpret_cast<uintptr_t>(it->first);
    return offset < it->second && bytes <= it->second - offset;
  }

  const DelayRange defaultDelay;
  const uint64_t seed;
  std::atomic<uint64_t> streamsCreated{0};
  std::atomic<tandem::device::OpObserver *> observer{nullptr};

private:
  /// Picks an offset into the reservation for `bytes`, leaving a guard gap
  /// after it: the bump pointer while it lasts, then the first gap between
  /// live allocations.
  bool findAddressRange(uint64_t bytes, uint64_t *out) {
    uint64_t span = roundUp(bytes, kAlignment) + kGuardBytes;
    if (next <= reservationBytes && span <= reservationBytes - next) {
      *out = next;
      next += span;
      return true;
    }
    uint64_t candidate = kGuardBytes;
    for (auto &entry : live) {
      uint64_t start = entry.first - base;
      if (start >= candidate && start - candidate >= span)
        break;
      candidate = roundUp(start + entry.second->size, kAlignment) + kGuardBytes;
    }
    if (candidate > reservationBytes || span > reservationBytes - candidate)
      return false;
    *out = candidate;
    // The range is reused: forget the frees recorded in it.
    uint64_t begin = base + candidate;
    for (auto it = freed.lower_bound(begin);
         it != freed.end() && it->first < begin + span;)
      it = freed.erase(it);
    return true;
  }

  /// The message for an address that is not in a live allocation.
  tandem_status_t describeBadAddress(const char *what, tandem_device_ptr_t ptr,
                                     uint64_t bytes, bool isFree) {
    if (ptr < base || ptr >= base + reservationBytes)
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "%s: 0x%llx is not an emulated device address (a host pointer "
          "passed as a device pointer?)",
          what, ull(ptr));
    auto it = freed.upper_bound(ptr);
    if (it != freed.begin()) {
      --it;
      if (ptr - it->first < std::max<uint64_t>(it->second, 1))
        return tandem_status_make(
            TANDEM_INVALID_ARGUMENT,
            "%s: device address 0x%llx is in the allocation of %llu bytes at "
            "0x%llx, which was freed (use after free%s)",
            what, ull(ptr), ull(it->second), ull(it->first),
            isFree ? ", or double free" : "");
    }
    if (isFree) {
      auto owner = live.upper_bound(ptr);
      if (owner != live.begin() &&
          ptr - std::prev(owner)->first < std::prev(owner)->second->size)
        return tandem_status_make(
            TANDEM_INVALID_ARGUMENT,
            "%s: 0x%llx is inside the allocation at 0x%llx, not its start",
            what, ull(ptr), ull(std::prev(owner)->first));
    }
    (void)bytes;
    auto before = live.upper_bound(ptr);
    if (before != live.begin()) {
      const Allocation &allocation = *std::prev(before)->second;
      uint64_t end = allocation.base + allocation.size;
      if (ptr >= end && ptr - end < kGuardBytes)
        return tandem_status_make(
            TANDEM_INVALID_ARGUMENT,
            "%s: device address 0x%llx is %llu bytes past the end of the "
            "allocation of %llu bytes at 0x%llx (out of bounds)",
            what, ull(ptr), ull(ptr - end), ull(allocation.size),
            ull(allocation.base));
    }
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "%s: device address 0x%llx is not inside any "
                              "live allocation (out of bounds or never "
                              "allocated)",
                              what, ull(ptr));
  }

  void *const reservation;
  const uint64_t base;
  const uint64_t reservationBytes;

  std::mutex memoryMutex;
  /// Offset of the bump pointer into the reservation.
  uint64_t next = kGuardBytes;
  std::map<uint64_t, AllocationRef> live;
  std::map<uint64_t, uint64_t> freed;
  std::map<void *, uint64_t> pinned;
};

class EmulatedStream final : public tandem_stream_s {
public:
  EmulatedStream(EmulatedDevice *device, uint64_t index)
      : tandem_stream_s(device), dev(*device), delay(device->defaultDelay),
        rng(device->seed ^ (index * 0x9E3779B97F4A7C15ull)) {}

  void start() {
    worker = std::thread([this] { workerLoop(); });
  }

  ~EmulatedStream() override {
    drain();
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    workCv.notify_all();
    if (worker.joinable())
      worker.join();
  }

  tandem_status_t synchronize() override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (capturing)
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "tandem_stream_synchronize: the stream is "
                                  "capturing a graph");
    }
    drain();
    return nullptr;
  }

  tandem_status_t finish() override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      capturing = false;
      captured.clear();
    }
    drain();
    return nullptr;
  }

  tandem_status_t copyH2D(tandem_device_ptr_t dst, const void *src,
                          uint64_t bytes) override {
    Command command;
    command.kind = Command::H2D;
    command.dst = dst;
    command.hostSrc = src;
    command.bytes = bytes;
    return submit(std::move(command));
  }

  tandem_status_t copyD2H(void *dst, tandem_device_ptr_t src,
                          uint64_t bytes) override {
    Command command;
    command.kind = Command::D2H;
    command.hostDst = dst;
    command.src = src;
    command.bytes = bytes;
    return submit(std::move(command));
  }

  tandem_status_t copyD2D(tandem_device_ptr_t dst, tandem_device_ptr_t src,
                          uint64_t bytes) override {
    Command command;
    command.kind = Command::D2D;
    command.dst = dst;
    command.src = src;
    command.bytes = bytes;
    return submit(std::move(command));
  }

  tandem_status_t launch(tandem_device_kernel_s *kernel,
                         const tandem_launch_dims_t &,
                         const tandem_kernel_arg_t *args,
                         int32_t numArgs) override {
    Command command;
    command.kind = Command::Kernel;
    command.fn = static_cast<EmulatedKernel *>(kernel)->fn;
    command.kernelName = kernel->name;
    size_t size = 0;
    for (int32_t i = 0; i < numArgs; ++i)
      size = roundUp(size, 16) + args[i].size;
    command.argData.resize(size);
    size = 0;
    for (int32_t i = 0; i < numArgs; ++i) {
      size = roundUp(size, 16);
      std::memcpy(command.argData.data() + size, args[i].value, args[i].size);
      command.argSlots.push_back(
          {size, args[i].kind == TANDEM_KERNEL_ARG_DEVICE_PTR});
      size += args[i].size;
    }
    return submit(std::move(command));
  }

  tandem_status_t gemm(const tandem_gemm_desc_t &desc, tandem_device_ptr_t a,
                       tandem_device_ptr_t b, tandem_device_ptr_t c,
                       tandem_device_ptr_t bias,
                       const std::string &name) override {
    Command command;
    command.kind = Command::Gemm;
    command.kernelName = name;
    command.gemm = desc;
    command.gemmArgs[0] = a;
    command.gemmArgs[1] = b;
    command.gemmArgs[2] = c;
    command.gemmArgs[3] = bias;
    return submit(std::move(command));
  }

  tandem_status_t conv(const tandem_conv_desc_t &desc, tandem_device_ptr_t x,
                       tandem_device_ptr_t w, tandem_device_ptr_t y,
                       tandem_device_ptr_t bias, tandem_device_ptr_t z,
                       const std::string &name) override {
    Command command;
    command.kind = Command::Conv;
    command.kernelName = name;
    command.conv = desc;
    tandem_device_ptr_t args[] = {x, w, y, bias, z};
    std::copy(std::begin(args), std::end(args), command.convArgs);
    return submit(std::move(command));
  }

  tandem_status_t recordEvent(tandem_event_s *event) override {
    auto signal = std::make_shared<Signal>();
    Op op;
    op.run = [signal] { signal->set(); };
    op.observed = false;
    std::lock_guard<std::mutex> lock(mutex);
    if (capturing)
      return captureUnsupported("tandem_event_record");
    static_cast<EmulatedEvent *>(event)->setLatest(signal);
    push(std::move(op));
    return nullptr;
  }

  tandem_status_t waitEvent(tandem_event_s *event) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (capturing)
      return captureUnsupported("tandem_stream_wait_event");
    SignalRef signal = static_cast<EmulatedEvent *>(event)->latest();
    if (!signal)
      return nullptr; // Never recorded: complete.
    Op op;
    op.wait = std::move(signal);
    push(std::move(op));
    return nullptr;
  }

  tandem_status_t beginCapture() override {
    std::lock_guard<std::mutex> lock(mutex);
    if (capturing)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_stream_begin_capture: the stream is "
                                "already capturing");
    capturing = true;
    captured.clear();
    return nullptr;
  }

  tandem_status_t endCapture(tandem_device_graph_s **out) override {
    auto graph = std::make_unique<EmulatedGraph>(device);
    std::lock_guard<std::mutex> lock(mutex);
    if (!capturing)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_stream_end_capture: the stream is not "
                                "capturing");
    capturing = false;
    graph->commands = std::move(captured);
    captured.clear();
    *out = graph.release();
    return nullptr;
  }

  tandem_status_t launchGraph(tandem_device_graph_s *graph) override {
    const auto &commands = static_cast<EmulatedGraph *>(graph)->commands;
    std::lock_guard<std::mutex> lock(mutex);
    if (capturing) {
      for (const Command &command : commands)
        if (tandem_status_t status = checkCapturable(command))
          return status;
      captured.insert(captured.end(), commands.begin(), commands.end());
      return nullptr;
    }
    std::vector<Op> ops;
    ops.reserve(commands.size());
    for (const Command &command : commands) {
      Op op;
      if (tandem_status_t status = translate(command, &op)) {
        std::string message = tandem_status_message(status);
        tandem_status_free(status);
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "tandem_device_graph_launch: %s",
                                  message.c_str());
      }
      ops.push_back(std::move(op));
    }
    for (Op &op : ops)
      queue.push_back(std::move(op));
    workCv.notify_one();
    return nullptr;
  }

  tandem_status_t setEmulatedDelay(uint32_t minUs, uint32_t maxUs) override {
    std::lock_guard<std::mutex> lock(mutex);
    delay.minUs = minUs;
    delay.maxUs = maxUs;
    return nullptr;
  }

private:
  static tandem_status_t captureUnsupported(const char *what) {
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "%s: the stream is capturing a graph, and "
                              "capture of events (multi-stream capture) is "
                              "not supported",
                              what);
  }

  static const char *commandName(const Command &command) {
    switch (command.kind) {
    case Command::H2D:
      return "tandem_memcpy_h2d_async";
    case Command::D2H:
      return "tandem_memcpy_d2h_async";
    case Command::D2D:
      return "tandem_memcpy_d2d_async";
    case Command::Kernel:
      return "tandem_device_launch";
    case Command::Gemm:
      return "tandem_device_gemm";
    case Command::Conv:
      return "tandem_device_conv";
    }
    return "?";
  }

  /// Records or queues `command`.
  tandem_status_t submit(Command &&command) {
    std::lock_guard<std::mutex> lock(mutex);
    if (capturing) {
      if (tandem_status_t status = checkCapturable(command))
        return status;
      captured.push_back(std::move(command));
      return nullptr;
    }
    Op op;
    if (tandem_status_t status = translate(command, &op))
      return status;
    push(std::move(op));
    return nullptr;
  }

  /// Checks a command recorded by capture: its addresses now, and that its
  /// host buffers are pinned.
  tandem_status_t checkCapturable(const Command &command) {
    Op unused;
    if (tandem_status_t status = translate(command, &unused))
      return status;
    const void *host = command.kind == Command::H2D   ? command.hostSrc
                       : command.kind == Command::D2H ? command.hostDst
                                                      : nullptr;
    if (host && !dev.isPinned(host, command.bytes))
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "%s: host buffer [%p, +%llu) is not pinned; copies captured into a "
          "graph need buffers from tandem_device_host_alloc",
          commandName(command), host, ull(command.bytes));
    return nullptr;
  }

  /// Checks and translates the addresses of `command` into a queued op.
  /// Called with `mutex` held (for `delay`).
  tandem_status_t translate(const Command &command, Op *op) {
    const char *what = commandName(command);
    op->delay = delay;
    op->bytes = command.bytes;
    switch (command.kind) {
    case Command::H2D:
      op->kind = tandem::device::OpKind::H2D;
      break;
    case Command::D2H:
      op->kind = tandem::device::OpKind::D2H;
      break;
    case Command::D2D:
      op->kind = tandem::device::OpKind::D2D;
      break;
    case Command::Kernel:
    case Command::Gemm:
    case Command::Conv:
      op->kind = tandem::device::OpKind::Kernel;
      op->name = command.kernelName;
      break;
    }
    Resolved dst, src;
    switch (command.kind) {
    case Command::H2D: {
      if (tandem_status_t status =
              dev.resolve(what, command.dst, command.bytes, &dst))
        return status;
      if (tandem_status_t status =
              dev.checkHost(what, command.hostSrc, command.bytes))
        return status;
      const void *host = command.hostSrc;
      uint64_t bytes = command.bytes;
      op->run = [dst, host, bytes] {
        std::memcpy(dst.host(), host, static_cast<size_t>(bytes));
      };
      return nullptr;
    }
    case Command::D2H: {
      if (tandem_status_t status =
              dev.resolve(what, command.src, command.bytes, &src))
        return status;
      if (tandem_status_t status =
              dev.checkHost(what, command.hostDst, command.bytes))
        return status;
      void *host = command.hostDst;
      uint64_t bytes = command.bytes;
      op->run = [src, host, bytes] {
        std::memcpy(host, src.host(), static_cast<size_t>(bytes));
      };
      return nullptr;
    }
    case Command::D2D: {
      if (tandem_status_t status =
              dev.resolve(what, command.dst, command.bytes, &dst))
        return status;
      if (tandem_status_t status =
              dev.resolve(what, command.src, command.bytes, &src))
        return status;
      uint64_t bytes = command.bytes;
      op->run = [dst, src, bytes] {
        std::memmove(dst.host(), src.host(), static_cast<size_t>(bytes));
      };
      return nullptr;
    }
    case Command::Kernel: {
      auto pointers = std::make_shared<std::vector<Resolved>>();
      for (size_t i = 0; i < command.argSlots.size(); ++i) {
        if (!command.argSlots[i].isPointer)
          continue;
        tandem_device_ptr_t ptr = 0;
        std::memcpy(&ptr, command.argData.data() + command.argSlots[i].offset,
                    sizeof(ptr));
        Resolved resolved;
        if (tandem_status_t status = dev.resolve(what, ptr, 0, &resolved)) {
          std::string message = tandem_status_message(status);
          tandem_status_free(status);
          return tandem_status_make(
              TANDEM_INVALID_ARGUMENT, "kernel '%s', argument %zu: %s",
              command.kernelName.c_str(), i, message.c_str());
        }
        pointers->push_back(std::move(resolved));
      }
      auto data = std::make_shared<std::vector<unsigned char>>(command.argData);
      std::vector<Command::Slot> slots = command.argSlots;
      tandem_cpu_kernel_fn fn = command.fn;
      op->run = [fn, data, slots, pointers] {
        std::vector<void *> hostPointers;
        hostPointers.reserve(pointers->size());
        for (const Resolved &resolved : *pointers)
          hostPointers.push_back(resolved.host());
        std::vector<void *> args(slots.size());
        size_t nextPointer = 0;
        for (size_t i = 0; i < slots.size(); ++i)
          args[i] = slots[i].isPointer
                        ? static_cast<void *>(&hostPointers[nextPointer++])
                        : static_cast<void *>(data->data() + slots[i].offset);
        fn(args.data());
      };
      return nullptr;
    }
    case Command::Gemm: {
      using tandem::gemm::Operand;
      const tandem_gemm_desc_t &desc = command.gemm;
      Resolved operands[4];
      for (int i = 0; i < 4; ++i) {
        uint64_t bytes =
            tandem::gemm::extentBytes(desc, static_cast<Operand>(i));
        if (bytes == 0)
          continue;
        if (tandem_status_t status =
                dev.resolve(what, command.gemmArgs[i], bytes, &operands[i])) {
          static const char *const names[] = {"A", "B", "C", "bias"};
          std::string message = tandem_status_message(status);
          tandem_status_free(status);
          return tandem_status_make(
              TANDEM_INVALID_ARGUMENT, "gemm '%s', operand %s: %s",
              command.kernelName.c_str(), names[i], message.c_str());
        }
      }
      op->run = [desc, a = operands[0], b = operands[1], c = operands[2],
                 bias = operands[3]] {
        tandem::gemm::runOnHost(nullptr, desc,
                                static_cast<const float *>(a.host()),
                                static_cast<const float *>(b.host()),
                                static_cast<float *>(c.host()),
                                static_cast<const float *>(bias.host()));
      };
      return nullptr;
    }
    case Command::Conv: {
      using tandem::conv::Operand;
      const tandem_conv_desc_t &desc = command.conv;
      Resolved operands[tandem::conv::kNumOperands];
      for (int i = 0; i < tandem::conv::kNumOperands; ++i) {
        uint64_t bytes =
            tandem::conv::extentBytes(desc, static_cast<Operand>(i));
        if (bytes == 0)
          continue;
        if (tandem_status_t status =
                dev.resolve(what, command.convArgs[i], bytes, &operands[i])) {
          static const char *const names[] = {"x", "w", "y", "bias", "z"};
          std::string message = tandem_status_message(status);
          tandem_status_free(status);
          return tandem_status_make(
              TANDEM_INVALID_ARGUMENT, "conv '%s', operand %s: %s",
              command.kernelName.c_str(), names[i], message.c_str());
        }
      }
      op->run = [desc, x = operands[0], w = operands[1], y = operands[2],
                 bias = operands[3], z = operands[4]] {
        tandem::conv::runOnHost(nullptr, desc,
                                static_cast<const float *>(x.host()),
                                static_cast<const float *>(w.host()),
                                static_cast<float *>(y.host()),
                                static_cast<const float *>(bias.host()),
                                static_cast<const float *>(z.host()));
      };
      return nullptr;
    }
    }
    return tandem_status_make(TANDEM_INTERNAL, "unknown command");
  }

  /// Queues `op`; `mutex` is held.
  void push(Op &&op) {
    queue.push_back(std::move(op));
    workCv.notify_one();
  }

  /// Waits until the queue is empty and nothing runs.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex);
    idleCv.wait(lock, [&] { return queue.empty() && !busy; });
  }

  void sleepFor(const DelayRange &range) {
    if (range.maxUs == 0)
      return;
    std::uniform_int_distribution<uint32_t> pick(range.minUs, range.maxUs);
    std::this_thread::sleep_for(std::chrono::microseconds(pick(rng)));
  }

  void workerLoop() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      workCv.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty())
        return; // stop, and nothing left.
      Op op = std::move(queue.front());
      queue.pop_front();
      busy = true;
      lock.unlock();
      if (op.wait)
        op.wait->wait();
      if (op.run) {
        sleepFor(op.delay);
        tandem::device::OpObserver *observer =
            op.observed ? dev.observer.load(std::memory_order_acquire)
                        : nullptr;
        uint64_t start = observer ? nowNs() : 0;
        op.run();
        if (observer)
          observer->onOp(this, op.kind, op.name.c_str(), op.bytes, start,
                         nowNs());
      }
      op = Op(); // Drop references to memory before reporting idle.
      lock.lock();
      busy = false;
      if (queue.empty())
        idleCv.notify_all();
    }
  }

  EmulatedDevice &dev;
  std::mutex mutex;
  std::condition_variable workCv;
  std::condition_variable idleCv;
  std::deque<Op> queue;
  bool busy = false;
  bool stop = false;
  bool capturing = false;
  std::vector<Command> captured;
  DelayRange delay;
  /// Used by the worker only.
  std::mt19937_64 rng;
  std::thread worker;
};

tandem_status_t EmulatedDevice::createStream(tandem_stream_s **out) {
  auto stream = std::make_unique<EmulatedStream>(this, streamsCreated++);
  stream->start();
  *out = stream.release();
  return nullptr;
}

/// Parses "MAX" or "MIN-MAX" (microseconds).
bool parseDelay(const char *text, DelayRange *out) {
  char *end = nullptr;
  unsigned long first = std::strtoul(text, &end, 10);
  if (end == text)
    return false;
  unsigned long second = first;
  if (*end == '-') {
    const char *rest = end + 1;
    second = std::strtoul(rest, &end, 10);
    if (end == rest)
      return false;
  } else {
    first = 0;
  }
  if (*end != '\0' || first > second || second > UINT32_MAX)
    return false;
  out->minUs = static_cast<uint32_t>(first);
  out->maxUs = static_cast<uint32_t>(second);
  return true;
}

} // namespace

namespace tandem {
namespace device {

tandem_status_t openEmulated(const tandem_device_options_t &options,
                             tandem_device_s **out) {
  DelayRange delay{options.emulated_delay_min_us,
                   options.emulated_delay_max_us};
  if (delay.minUs > delay.maxUs)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "emulated device: delay minimum %u us exceeds "
                              "the maximum %u us",
                              delay.minUs, delay.maxUs);
  if (delay.maxUs == 0) {
    const char *env = std::getenv("TANDEM_EMULATED_DELAY_US");
    if (env && *env && !parseDelay(env, &delay))
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "TANDEM_EMULATED_DELAY_US='%s': expected MAX "
                                "or MIN-MAX microseconds",
                                env);
  }
  uint64_t seed = options.emulated_seed;
  if (seed == 0) {
    const char *env = std::getenv("TANDEM_EMULATED_SEED");
    seed = env && *env ? std::strtoull(env, nullptr, 10) : 0;
    if (seed == 0)
      seed = 0x7A4DE3;
  }
  // Reserve address space for device addresses; fall back to smaller
  // reservations where virtual memory is limited.
  const uint64_t sizes[] = {uint64_t(64) << 30, uint64_t(4) << 30,
                            uint64_t(256) << 20};
  for (uint64_t size : sizes) {
    void *reservation =
        mmap(nullptr, static_cast<size_t>(size), PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reservation == MAP_FAILED)
      continue;
    try {
      *out = new EmulatedDevice(reservation, size, delay, seed);
    } catch (...) {
      munmap(reservation, static_cast<size_t>(size));
      throw;
    }
    return nullptr;
  }
  return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                            "emulated device: cannot reserve address space");
}

} // namespace device
} // namespace tandem
