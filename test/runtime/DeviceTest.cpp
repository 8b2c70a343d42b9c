//===- DeviceTest.cpp - Devices: the emulated device and CUDA's absence ---===//
//
// Everything here runs without a GPU: the emulated device's memory checks,
// streams, events, capture and delays, and the CUDA backend's "no driver"
// path (skipped where a driver is installed).
//
//===----------------------------------------------------------------------===//

#include "StatusHelpers.h"
#include "tandem/runtime.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>

#include "gtest/gtest.h"

#if defined(__SANITIZE_THREAD__)
#define TANDEM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TANDEM_TSAN 1
#endif
#endif

namespace {

using tandem_test::Status;

/// Expects `expr` to fail with INVALID_ARGUMENT and a message containing
/// `fragment`.
#define EXPECT_INVALID(expr, fragment)                                         \
  do {                                                                         \
    Status status_(expr);                                                      \
    EXPECT_EQ(status_.code, TANDEM_INVALID_ARGUMENT) << status_.message;       \
    EXPECT_NE(status_.message.find(fragment), std::string::npos)               \
        << status_.message;                                                    \
  } while (false)

struct DeviceCloser {
  void operator()(tandem_device_t *device) { tandem_device_close(device); }
};
using DevicePtr = std::unique_ptr<tandem_device_t, DeviceCloser>;

DevicePtr openEmulated(uint32_t minDelayUs = 0, uint32_t maxDelayUs = 0) {
  tandem_device_options_t options;
  tandem_device_options_init(&options);
  options.emulated_delay_min_us = minDelayUs;
  options.emulated_delay_max_us = maxDelayUs;
  tandem_device_t *device = nullptr;
  EXPECT_OK(tandem_device_open("emulated", &options, &device));
  return DevicePtr(device);
}

tandem_stream_t *makeStream(tandem_device_t *device) {
  tandem_stream_t *stream = nullptr;
  EXPECT_OK(tandem_stream_create(device, &stream));
  return stream;
}

tandem_event_t *makeEvent(tandem_device_t *device) {
  tandem_event_t *event = nullptr;
  EXPECT_OK(tandem_event_create(device, &event));
  return event;
}

tandem_device_ptr_t deviceAlloc(tandem_device_t *device, uint64_t bytes) {
  tandem_device_ptr_t ptr = 0;
  EXPECT_OK(tandem_device_alloc(device, bytes, &ptr));
  return ptr;
}

/// Sets an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    const char *old = std::getenv(name);
    hadOld = old != nullptr;
    if (old)
      oldValue = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadOld)
      setenv(name.c_str(), oldValue.c_str(), 1);
    else
      unsetenv(name.c_str());
  }

private:
  std::string name;
  bool hadOld = false;
  std::string oldValue;
};

//===-- CPU twins -------------------------------------------------------===//

/// fill_i32(int32_t *dst, int32_t value, int64_t n)
void fillI32(void **args) {
  auto *dst = *static_cast<int32_t **>(args[0]);
  int32_t value = *static_cast<int32_t *>(args[1]);
  int64_t n = *static_cast<int64_t *>(args[2]);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = value;
}

/// add_i32(int32_t *data, int32_t delta, int64_t n): data[i] += delta.
void addI32(void **args) {
  auto *data = *static_cast<int32_t **>(args[0]);
  int32_t delta = *static_cast<int32_t *>(args[1]);
  int64_t n = *static_cast<int64_t *>(args[2]);
  for (int64_t i = 0; i < n; ++i)
    data[i] += delta;
}

/// axpb_f32(float *y, const float *x, float a, float b, int64_t n).
void axpbF32(void **args) {
  auto *y = *static_cast<float **>(args[0]);
  auto *x = *static_cast<const float **>(args[1]);
  float a = *static_cast<float *>(args[2]);
  float b = *static_cast<float *>(args[3]);
  int64_t n = *static_cast<int64_t *>(args[4]);
  for (int64_t i = 0; i < n; ++i)
    y[i] = a * x[i] + b;
}

/// A host-side log of kernel executions (passed by value as a pointer).
struct Log {
  std::mutex mutex;
  std::vector<int> order;
};

/// log_index(Log *log, int index): appends `index`.
void logIndex(void **args) {
  Log *log = *static_cast<Log **>(args[0]);
  int index = *static_cast<int *>(args[1]);
  std::lock_guard<std::mutex> lock(log->mutex);
  log->order.push_back(index);
}

/// is_null(void *ptr, int *out): *out = ptr == NULL.
void isNull(void **args) {
  void *ptr = *static_cast<void **>(args[0]);
  int *out = *static_cast<int **>(args[1]);
  *out = ptr == nullptr;
}

const tandem_cpu_kernel_t kTwins[] = {
    {"fill_i32", fillI32},   {"add_i32", addI32}, {"axpb_f32", axpbF32},
    {"log_index", logIndex}, {"is_null", isNull},
};

const tandem_launch_dims_t kOneBlock = {{1, 1, 1}, {1, 1, 1}, 0};

tandem_kernel_arg_t ptrArg(const tandem_device_ptr_t *ptr) {
  return {ptr, sizeof(*ptr), TANDEM_KERNEL_ARG_DEVICE_PTR};
}
template <typename T> tandem_kernel_arg_t valueArg(const T *value) {
  return {value, sizeof(T), TANDEM_KERNEL_ARG_VALUE};
}

/// A device with the twins loaded.
struct Emulated {
  explicit Emulated(uint32_t minDelayUs = 0, uint32_t maxDelayUs = 0)
      : device(openEmulated(minDelayUs, maxDelayUs)) {
    EXPECT_OK(tandem_device_module_load_cpu(
        device.get(), kTwins, sizeof(kTwins) / sizeof(kTwins[0]), &module));
  }
  tandem_device_kernel_t *kernel(const char *name) {
    tandem_device_kernel_t *kernel = nullptr;
    EXPECT_OK(tandem_device_module_get_kernel(module, name, &kernel));
    return kernel;
  }
  tandem_status_t fill(tandem_stream_t *stream, tandem_device_ptr_t dst,
                       int32_t value, int64_t n) {
    tandem_kernel_arg_t args[] = {ptrArg(&dst), valueArg(&value), valueArg(&n)};
    return tandem_device_launch(stream, kernel("fill_i32"), &kOneBlock, args,
                                3);
  }
  tandem_status_t add(tandem_stream_t *stream, tandem_device_ptr_t data,
                      int32_t delta, int64_t n) {
    tandem_kernel_arg_t args[] = {ptrArg(&data), valueArg(&delta),
                                  valueArg(&n)};
    return tandem_device_launch(stream, kernel("add_i32"), &kOneBlock, args, 3);
  }
  DevicePtr device;
  tandem_device_module_t *module = nullptr;
};

//===-- Opening devices ---------------------------------------------------===//

TEST(Device, OpenSpecs) {
  tandem_device_t *device = reinterpret_cast<tandem_device_t *>(1);
  EXPECT_OK(tandem_device_open("cpu", nullptr, &device));
  EXPECT_EQ(device, nullptr);
  EXPECT_EQ(tandem_device_kind(nullptr), TANDEM_DEVICE_CPU);
  EXPECT_STREQ(tandem_device_name(nullptr), "cpu");
  tandem_device_close(nullptr);

  EXPECT_OK(tandem_device_open("emulated", nullptr, &device));
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(tandem_device_kind(device), TANDEM_DEVICE_EMULATED);
  EXPECT_STREQ(tandem_device_name(device), "emulated");
  tandem_device_close(device);

  EXPECT_INVALID(tandem_device_open("tpu", nullptr, &device),
                 "unknown device 'tpu'");
  EXPECT_EQ(device, nullptr);
  EXPECT_INVALID(tandem_device_open("cuda:x", nullptr, &device),
                 "unknown device");
  EXPECT_INVALID(tandem_device_open("emulated", nullptr, nullptr),
                 "out is NULL");

  tandem_device_options_t options;
  tandem_device_options_init(&options);
  options.emulated_delay_min_us = 5;
  options.emulated_delay_max_us = 1;
  EXPECT_INVALID(tandem_device_open("emulated", &options, &device), "delay");
  {
    ScopedEnv env("TANDEM_EMULATED_DELAY_US", "soon");
    EXPECT_INVALID(tandem_device_open("emulated", nullptr, &device),
                   "TANDEM_EMULATED_DELAY_US='soon'");
  }
  {
    ScopedEnv env("TANDEM_EMULATED_DELAY_US", "100-200");
    EXPECT_OK(tandem_device_open("emulated", nullptr, &device));
    tandem_device_close(device);
  }
}

/// True when this machine has a loadable CUDA driver.
bool haveCudaDriver() {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}

TEST(Cuda, NoDriverGivesAClearError) {
  if (haveCudaDriver())
    GTEST_SKIP() << "a CUDA driver is installed";
  for (const char *spec : {"cuda:0", "cuda", "cuda:3"}) {
    tandem_device_t *device = reinterpret_cast<tandem_device_t *>(1);
    Status status(tandem_device_open(spec, nullptr, &device));
    EXPECT_EQ(status.code, TANDEM_UNAVAILABLE) << spec;
    EXPECT_EQ(status.message.find("no CUDA driver (libcuda.so.1 not found"), 0u)
        << status.message;
    EXPECT_EQ(device, nullptr);
  }
}

TEST(Cuda, AutoFallsBackAndSaysWhy) {
  if (haveCudaDriver())
    GTEST_SKIP() << "a CUDA driver is installed";
  ScopedEnv env("TANDEM_DEVICE", nullptr);
  for (const char *spec : {static_cast<const char *>(nullptr), "auto"}) {
    tandem_device_t *device = reinterpret_cast<tandem_device_t *>(1);
    Status status(tandem_device_open(spec, nullptr, &device));
    EXPECT_EQ(status.code, TANDEM_UNAVAILABLE);
    EXPECT_EQ(status.message.find("no GPU device, using the CPU: no CUDA "
                                  "driver (libcuda.so.1 not found"),
              0u)
        << status.message;
    EXPECT_EQ(device, nullptr);
    EXPECT_EQ(tandem_device_kind(device), TANDEM_DEVICE_CPU);
  }
}

TEST(Device, AutoFollowsTandemDevice) {
  tandem_device_t *device = nullptr;
  {
    ScopedEnv env("TANDEM_DEVICE", "emulated");
    EXPECT_OK(tandem_device_open("auto", nullptr, &device));
    EXPECT_EQ(tandem_device_kind(device), TANDEM_DEVICE_EMULATED);
    tandem_device_close(device);
    // An explicit spec ignores the variable.
    EXPECT_OK(tandem_device_open("cpu", nullptr, &device));
    EXPECT_EQ(device, nullptr);
  }
  {
    ScopedEnv env("TANDEM_DEVICE", "cpu");
    EXPECT_OK(tandem_device_open(nullptr, nullptr, &device));
    EXPECT_EQ(device, nullptr);
  }
  {
    ScopedEnv env("TANDEM_DEVICE", "npu:1");
    EXPECT_INVALID(tandem_device_open(nullptr, nullptr, &device),
                   "TANDEM_DEVICE=npu:1: unknown device");
  }
}

//===-- Memory ------------------------------------------------------------===//

TEST(Emulated, AllocCopyRoundTrips) {
  DevicePtr device = openEmulated();
  tandem_stream_t *stream = makeStream(device.get());
  for (uint64_t bytes :
       {uint64_t(1), uint64_t(7), uint64_t(256), uint64_t(1) << 20}) {
    std::vector<unsigned char> in(bytes), out(bytes, 0), fresh(bytes, 0);
    for (uint64_t i = 0; i < bytes; ++i)
      in[i] = static_cast<unsigned char>(i * 31 + 7);
    tandem_device_ptr_t a = deviceAlloc(device.get(), bytes);
    tandem_device_ptr_t b = deviceAlloc(device.get(), bytes);
    ASSERT_NE(a, 0u);
    EXPECT_EQ(a % 256, 0u);
    EXPECT_NE(a, b);
    // New memory is poisoned with 0xFF.
    EXPECT_OK(tandem_memcpy_d2h_async(stream, fresh.data(), a, bytes));
    EXPECT_OK(tandem_memcpy_h2d_async(stream, a, in.data(), bytes));
    EXPECT_OK(tandem_memcpy_d2d_async(stream, b, a, bytes));
    EXPECT_OK(tandem_memcpy_d2h_async(stream, out.data(), b, bytes));
    EXPECT_OK(tandem_stream_synchronize(stream));
    EXPECT_EQ(in, out);
    EXPECT_EQ(fresh, std::vector<unsigned char>(bytes, 0xFF));
    EXPECT_OK(tandem_device_free(device.get(), a));
    EXPECT_OK(tandem_device_free(device.get(), b));
  }
  tandem_device_ptr_t zero = 1;
  EXPECT_OK(tandem_device_alloc(device.get(), 0, &zero));
  EXPECT_EQ(zero, 0u);
  EXPECT_OK(tandem_device_free(device.get(), 0));
  // Zero-byte copies are no-ops, whatever the pointers.
  EXPECT_OK(tandem_memcpy_h2d_async(stream, 12345, nullptr, 0));

  void *pinned = nullptr;
  EXPECT_OK(tandem_device_host_alloc(device.get(), 1000, &pinned));
  ASSERT_NE(pinned, nullptr);
  std::memset(pinned, 1, 1000); // Usable on the host.
  EXPECT_OK(tandem_device_host_free(device.get(), pinned));
  EXPECT_OK(tandem_stream_destroy(stream));
}

TEST(Emulated, DeviceAddressesAreNotHostMemory) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        DevicePtr device = openEmulated();
        tandem_device_ptr_t ptr = deviceAlloc(device.get(), 64);
        volatile unsigned char *host =
            reinterpret_cast<volatile unsigned char *>(
                static_cast<uintptr_t>(ptr));
        host[0] = 1; // Faults: the address space is reserved PROT_NONE.
      },
      "");
}

TEST(Emulated, PointerMisuseIsRejected) {
  Emulated emu;
  tandem_device_t *device = emu.device.get();
  tandem_stream_t *stream = makeStream(device);
  std::vector<int32_t> host(16, 0);
  tandem_device_ptr_t hostAsDevice = static_cast<tandem_device_ptr_t>(
      reinterpret_cast<uintptr_t>(host.data()));
  tandem_device_ptr_t buffer = deviceAlloc(device, 64);

  // A host pointer used as a device pointer.
  EXPECT_INVALID(
      tandem_memcpy_h2d_async(stream, hostAsDevice, host.data(), 64),
      "is not an emulated device address (a host pointer passed as a device "
      "pointer?)");
  EXPECT_INVALID(tandem_memcpy_d2h_async(stream, host.data(), hostAsDevice, 64),
                 "not an emulated device address");
  EXPECT_INVALID(tandem_memcpy_d2d_async(stream, buffer, hostAsDevice, 64),
                 "not an emulated device address");
  EXPECT_INVALID(emu.fill(stream, hostAsDevice, 1, 16),
                 "kernel 'fill_i32', argument 0: tandem_device_launch: 0x");
  // A device pointer used as a host pointer.
  void *deviceAsHost = reinterpret_cast<void *>(static_cast<uintptr_t>(buffer));
  EXPECT_INVALID(tandem_memcpy_d2h_async(stream, deviceAsHost, buffer, 64),
                 "is an emulated device address (a device pointer passed as "
                 "a host pointer?)");
  EXPECT_INVALID(tandem_memcpy_h2d_async(stream, buffer, deviceAsHost, 64),
                 "is an emulated device address");

  // Out of bounds: a range running past the end, an address in the guard.
  EXPECT_INVALID(tandem_memcpy_h2d_async(stream, buffer, host.data(), 65),
                 "runs 1 bytes past the end of the allocation of 64 bytes");
  EXPECT_INVALID(tandem_memcpy_d2h_async(stream, host.data(), buffer + 60, 8),
                 "runs 4 bytes past the end");
  EXPECT_INVALID(tandem_memcpy_d2d_async(stream, buffer + 64, buffer, 4),
                 "0 bytes past the end of the allocation of 64 bytes");
  EXPECT_INVALID(emu.fill(stream, buffer + 100, 1, 1), "past the end");

  // Use after free, double free, interior free.
  tandem_device_ptr_t freed = deviceAlloc(device, 32);
  EXPECT_OK(tandem_device_free(device, freed));
  EXPECT_INVALID(tandem_memcpy_h2d_async(stream, freed, host.data(), 4),
                 "which was freed (use after free)");
  EXPECT_INVALID(emu.fill(stream, freed + 8, 1, 1), "use after free");
  EXPECT_INVALID(tandem_device_free(device, freed), "double free");
  EXPECT_INVALID(tandem_device_free(device, buffer + 4), "not its start");
  EXPECT_INVALID(tandem_device_free(device, hostAsDevice),
                 "not an emulated device address");
  EXPECT_INVALID(tandem_device_host_free(device, host.data()),
                 "not a pinned host buffer");

  // Nothing bad was queued: the buffer still holds its poison.
  std::vector<int32_t> out(16, 0);
  EXPECT_OK(tandem_memcpy_d2h_async(stream, out.data(), buffer, 64));
  EXPECT_OK(tandem_stream_synchronize(stream));
  EXPECT_EQ(out, std::vector<int32_t>(16, -1));

  // Pointers of another emulated device are not this one's.
  DevicePtr other = openEmulated();
  tandem_device_ptr_t foreign = deviceAlloc(other.get(), 64);
  EXPECT_INVALID(tandem_memcpy_h2d_async(stream, foreign, host.data(), 4),
                 "not an emulated device address");
  tandem_stream_t *otherStream = makeStream(other.get());
  tandem_event_t *event = makeEvent(device);
  EXPECT_INVALID(tandem_event_record(event, otherStream), "different devices");
  EXPECT_INVALID(emu.fill(otherStream, foreign, 1, 1), "different devices");

  // The null device address passes through as NULL.
  tandem_device_ptr_t null = 0;
  int *flag = nullptr;
  void *pinned = nullptr;
  EXPECT_OK(tandem_device_host_alloc(device, sizeof(int), &pinned));
  flag = static_cast<int *>(pinned);
  *flag = 0;
  tandem_kernel_arg_t args[] = {ptrArg(&null), valueArg(&flag)};
  EXPECT_OK(
      tandem_device_launch(stream, emu.kernel("is_null"), &kOneBlock, args, 2));
  EXPECT_OK(tandem_stream_synchronize(stream));
  EXPECT_EQ(*flag, 1);
}

TEST(Emulated, LaunchChecks) {
  Emulated emu;
  tandem_stream_t *stream = makeStream(emu.device.get());
  tandem_device_ptr_t buffer = deviceAlloc(emu.device.get(), 64);
  tandem_device_kernel_t *kernel = nullptr;
  EXPECT_INVALID(
      tandem_device_module_get_kernel(emu.module, "missing", &kernel),
      "no kernel 'missing'");
  const tandem_launch_dims_t empty = {{0, 1, 1}, {1, 1, 1}, 0};
  int32_t value = 1;
  int64_t n = 1;
  tandem_kernel_arg_t args[] = {ptrArg(&buffer), valueArg(&value),
                                valueArg(&n)};
  EXPECT_INVALID(
      tandem_device_launch(stream, emu.kernel("fill_i32"), &empty, args, 3),
      "every extent must be at least 1");
  tandem_kernel_arg_t badPointer = {&value, sizeof(value),
                                    TANDEM_KERNEL_ARG_DEVICE_PTR};
  EXPECT_INVALID(tandem_device_launch(stream, emu.kernel("fill_i32"),
                                      &kOneBlock, &badPointer, 1),
                 "bad kind");
  const char ptx[] = ".version 8.0\n";
  tandem_device_module_t *module = nullptr;
  EXPECT_INVALID(
      tandem_device_module_load(emu.device.get(), ptx, sizeof(ptx), &module),
      "cannot load CUDA module images");
  const tandem_cpu_kernel_t twice[] = {{"k", fillI32}, {"k", addI32}};
  EXPECT_INVALID(
      tandem_device_module_load_cpu(emu.device.get(), twice, 2, &module),
      "appears twice");
  const tandem_cpu_kernel_t unnamed[] = {{nullptr, fillI32}};
  EXPECT_INVALID(
      tandem_device_module_load_cpu(emu.device.get(), unnamed, 1, &module),
      "entry 0");
}

//===-- Streams and events ------------------------------------------------===//

TEST(Emulated, StreamRunsInOrder) {
  // Random delays before every operation must not reorder a stream.
  Emulated emu(0, 300);
  tandem_stream_t *stream = makeStream(emu.device.get());
  Log log;
  Log *logPtr = &log;
  const int kLaunches = 100;
  for (int i = 0; i < kLaunches; ++i) {
    tandem_kernel_arg_t args[] = {valueArg(&logPtr), valueArg(&i)};
    ASSERT_OK(tandem_device_launch(stream, emu.kernel("log_index"), &kOneBlock,
                                   args, 2));
  }
  // Data dependencies in one stream: fill, then 50 increments, then read.
  tandem_device_ptr_t data = deviceAlloc(emu.device.get(), 16 * 4);
  ASSERT_OK(emu.fill(stream, data, 0, 16));
  for (int i = 0; i < 50; ++i)
    ASSERT_OK(emu.add(stream, data, 1, 16));
  std::vector<int32_t> out(16, 0);
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), data, 16 * 4));
  ASSERT_OK(tandem_stream_synchronize(stream));
  ASSERT_EQ(log.order.size(), static_cast<size_t>(kLaunches));
  for (int i = 0; i < kLaunches; ++i)
    EXPECT_EQ(log.order[static_cast<size_t>(i)], i);
  EXPECT_EQ(out, std::vector<int32_t>(16, 50));
}

TEST(Emulated, EventQueryAndSynchronize) {
  Emulated emu;
  tandem_stream_t *stream = makeStream(emu.device.get());
  tandem_event_t *event = makeEvent(emu.device.get());
  int32_t done = -1;
  EXPECT_OK(tandem_event_query(event, &done));
  EXPECT_EQ(done, 1); // Never recorded: complete.
  EXPECT_OK(tandem_event_synchronize(event));
  EXPECT_OK(tandem_stream_wait_event(stream, event)); // A no-op.

  tandem_device_ptr_t data = deviceAlloc(emu.device.get(), 4);
  EXPECT_OK(tandem_stream_set_emulated_delay(stream, 100000, 100000));
  EXPECT_OK(emu.fill(stream, data, 9, 1)); // Runs after 100 ms.
  EXPECT_OK(tandem_event_record(event, stream));
  EXPECT_OK(tandem_event_query(event, &done));
  EXPECT_EQ(done, 0);
  EXPECT_OK(tandem_event_synchronize(event));
  EXPECT_OK(tandem_event_query(event, &done));
  EXPECT_EQ(done, 1);
  EXPECT_INVALID(tandem_stream_set_emulated_delay(stream, 2, 1),
                 "min_us > max_us");
}

/// Producer fills `data` with `value` and records `event`; consumer
/// optionally waits on it, then copies `data` to `out` and synchronizes.
std::vector<int32_t> produceConsume(Emulated &emu, tandem_stream_t *producer,
                                    tandem_stream_t *consumer,
                                    tandem_event_t *event,
                                    tandem_device_ptr_t data, int32_t value,
                                    int64_t n, bool wait) {
  std::vector<int32_t> out(static_cast<size_t>(n), -7);
  EXPECT_OK(emu.fill(producer, data, value, n));
  EXPECT_OK(tandem_event_record(event, producer));
  if (wait) {
    EXPECT_OK(tandem_stream_wait_event(consumer, event));
  }
  EXPECT_OK(tandem_memcpy_d2h_async(consumer, out.data(), data,
                                    static_cast<uint64_t>(n) * 4));
  EXPECT_OK(tandem_stream_synchronize(consumer));
  EXPECT_OK(tandem_stream_synchronize(producer));
  return out;
}

TEST(Emulated, CrossStreamEventIsHonouredUnderDelays) {
  // Every copy and kernel sleeps 0-2 ms at random; the wait must still
  // order the consumer after the producer, every time.
  Emulated emu(0, 2000);
  tandem_stream_t *producer = makeStream(emu.device.get());
  tandem_stream_t *consumer = makeStream(emu.device.get());
  tandem_event_t *event = makeEvent(emu.device.get());
  const int64_t n = 1024;
  tandem_device_ptr_t data = deviceAlloc(emu.device.get(), n * 4);
  for (int32_t round = 1; round <= 30; ++round) {
    std::vector<int32_t> out = produceConsume(emu, producer, consumer, event,
                                              data, round, n, /*wait=*/true);
    ASSERT_EQ(out, std::vector<int32_t>(n, round)) << "round " << round;
  }
}

TEST(Emulated, DroppedWaitIsDetected) {
#ifdef TANDEM_TSAN
  GTEST_SKIP() << "the dropped wait is a deliberate data race";
#endif
  // The producer's work is delayed 50 ms; without the wait, the consumer
  // copies before the producer writes and sees stale data. This is what the
  // delay injection exists for: a missing wait becomes a wrong result.
  Emulated emu;
  tandem_stream_t *producer = makeStream(emu.device.get());
  tandem_stream_t *consumer = makeStream(emu.device.get());
  tandem_event_t *event = makeEvent(emu.device.get());
  const int64_t n = 256;
  tandem_device_ptr_t data = deviceAlloc(emu.device.get(), n * 4);
  ASSERT_OK(emu.fill(producer, data, 0, n));
  ASSERT_OK(tandem_stream_synchronize(producer));
  ASSERT_OK(tandem_stream_set_emulated_delay(producer, 50000, 50000));

  std::vector<int32_t> stale = produceConsume(emu, producer, consumer, event,
                                              data, 7, n, /*wait=*/false);
  EXPECT_EQ(stale, std::vector<int32_t>(n, 0)) << "the dropped wait was not "
                                                  "visible";
  std::vector<int32_t> fresh =
      produceConsume(emu, producer, consumer, event, data, 8, n, /*wait=*/true);
  EXPECT_EQ(fresh, std::vector<int32_t>(n, 8));
}

TEST(Emulated, ManyStreamsAndEvents) {
  // A ring of streams: stream s waits for stream s-1's event, increments,
  // and records its own; the total counts every increment exactly once.
  Emulated emu(0, 200);
  const int kStreams = 8;
  const int kRounds = 40;
  const int64_t n = 64;
  std::vector<tandem_stream_t *> streams;
  std::vector<tandem_event_t *> events;
  for (int s = 0; s < kStreams; ++s) {
    streams.push_back(makeStream(emu.device.get()));
    events.push_back(makeEvent(emu.device.get()));
  }
  tandem_device_ptr_t data = deviceAlloc(emu.device.get(), n * 4);
  ASSERT_OK(emu.fill(streams[0], data, 0, n));
  ASSERT_OK(tandem_event_record(events[0], streams[0]));
  for (int round = 0; round < kRounds; ++round) {
    for (int s = 0; s < kStreams; ++s) {
      int previous = (s + kStreams - 1) % kStreams;
      if (round == 0 && s == 0)
        previous = 0;
      ASSERT_OK(tandem_stream_wait_event(streams[s], events[previous]));
      ASSERT_OK(emu.add(streams[s], data, 1, n));
      ASSERT_OK(tandem_event_record(events[s], streams[s]));
    }
  }
  std::vector<int32_t> out(n, 0);
  tandem_stream_t *last = streams[kStreams - 1];
  ASSERT_OK(tandem_memcpy_d2h_async(last, out.data(), data, n * 4));
  ASSERT_OK(tandem_device_synchronize(emu.device.get()));
  EXPECT_EQ(out, std::vector<int32_t>(n, kStreams * kRounds));

  // Independent per-thread work on many streams at once.
  const int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tandem_stream_t *a = makeStream(emu.device.get());
      tandem_stream_t *b = makeStream(emu.device.get());
      tandem_event_t *event = makeEvent(emu.device.get());
      tandem_device_ptr_t buffer = deviceAlloc(emu.device.get(), n * 4);
      for (int round = 0; round < 20; ++round) {
        std::vector<int32_t> got =
            produceConsume(emu, a, b, event, buffer, t * 100 + round, n, true);
        if (got != std::vector<int32_t>(n, t * 100 + round))
          ++failures;
      }
      EXPECT_OK(tandem_device_free(emu.device.get(), buffer));
      tandem_event_destroy(event);
      EXPECT_OK(tandem_stream_destroy(a));
      EXPECT_OK(tandem_stream_destroy(b));
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
}

//===-- Graphs
//--------------------------------------------------------------===//

TEST(Emulated, GraphCaptureAndReplay) {
  Emulated emu(0, 300);
  tandem_device_t *device = emu.device.get();
  tandem_stream_t *stream = makeStream(device);
  const int64_t n = 512;
  const uint64_t bytes = n * sizeof(float);
  void *inRaw = nullptr, *outRaw = nullptr;
  ASSERT_OK(tandem_device_host_alloc(device, bytes, &inRaw));
  ASSERT_OK(tandem_device_host_alloc(device, bytes, &outRaw));
  auto *in = static_cast<float *>(inRaw);
  auto *out = static_cast<float *>(outRaw);
  tandem_device_ptr_t x = deviceAlloc(device, bytes);
  tandem_device_ptr_t y = deviceAlloc(device, bytes);
  for (int64_t i = 0; i < n; ++i)
    out[i] = -1.0f;

  ASSERT_OK(tandem_stream_begin_capture(stream));
  EXPECT_INVALID(tandem_stream_begin_capture(stream), "already capturing");
  ASSERT_OK(tandem_memcpy_h2d_async(stream, x, in, bytes));
  float a = 2.0f, b = 1.0f;
  tandem_kernel_arg_t args[] = {ptrArg(&y), ptrArg(&x), valueArg(&a),
                                valueArg(&b), valueArg(&n)};
  ASSERT_OK(tandem_device_launch(stream, emu.kernel("axpb_f32"), &kOneBlock,
                                 args, 5));
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out, y, bytes));
  // Not capturable: pageable host memory, events, synchronisation.
  std::vector<float> pageable(n);
  EXPECT_INVALID(tandem_memcpy_h2d_async(stream, x, pageable.data(), bytes),
                 "is not pinned");
  tandem_event_t *event = makeEvent(device);
  EXPECT_INVALID(tandem_event_record(event, stream), "capturing a graph");
  EXPECT_INVALID(tandem_stream_wait_event(stream, event), "capturing a graph");
  EXPECT_INVALID(tandem_stream_synchronize(stream), "capturing a graph");
  tandem_device_graph_t *graph = nullptr;
  ASSERT_OK(tandem_stream_end_capture(stream, &graph));
  ASSERT_NE(graph, nullptr);
  tandem_device_graph_t *none = nullptr;
  EXPECT_INVALID(tandem_stream_end_capture(stream, &none), "not capturing");

  // Capture ran nothing.
  ASSERT_OK(tandem_stream_synchronize(stream));
  EXPECT_EQ(out[0], -1.0f);

  // Replays read the pinned input as it is at each replay.
  for (int replay = 0; replay < 10; ++replay) {
    for (int64_t i = 0; i < n; ++i)
      in[i] = static_cast<float>(replay * 1000 + i);
    ASSERT_OK(tandem_device_graph_launch(graph, stream));
    ASSERT_OK(tandem_stream_synchronize(stream));
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], 2.0f * static_cast<float>(replay * 1000 + i) + 1.0f)
          << "replay " << replay << " element " << i;
  }
  // Back-to-back replays on another stream keep their order.
  tandem_stream_t *other = makeStream(device);
  for (int64_t i = 0; i < n; ++i)
    in[i] = 3.0f;
  for (int replay = 0; replay < 5; ++replay)
    ASSERT_OK(tandem_device_graph_launch(graph, other));
  ASSERT_OK(tandem_stream_synchronize(other));
  EXPECT_EQ(out[n - 1], 7.0f);

  // A graph captured into a graph replays it.
  ASSERT_OK(tandem_stream_begin_capture(stream));
  ASSERT_OK(tandem_device_graph_launch(graph, stream));
  ASSERT_OK(tandem_device_graph_launch(graph, stream));
  tandem_device_graph_t *twice = nullptr;
  ASSERT_OK(tandem_stream_end_capture(stream, &twice));
  ASSERT_OK(tandem_device_graph_launch(twice, stream));
  ASSERT_OK(tandem_stream_synchronize(stream));
  EXPECT_EQ(out[0], 7.0f);
  tandem_device_graph_destroy(twice);

  // Memory freed since the capture: the replay is refused, nothing runs.
  ASSERT_OK(tandem_device_free(device, y));
  out[0] = -1.0f;
  EXPECT_INVALID(tandem_device_graph_launch(graph, stream),
                 "tandem_device_graph_launch: kernel 'axpb_f32', argument 0");
  ASSERT_OK(tandem_stream_synchronize(stream));
  EXPECT_EQ(out[0], -1.0f);
  tandem_device_graph_destroy(graph);
}

//===-- Lifetimes
//-----------------------------------------------------------===//

TEST(Emulated, DestroyWaitsForPendingWork) {
  Emulated emu;
  tandem_stream_t *stream = makeStream(emu.device.get());
  ASSERT_OK(tandem_stream_set_emulated_delay(stream, 30000, 30000));
  tandem_device_ptr_t data = deviceAlloc(emu.device.get(), 4);
  std::vector<int32_t> out(1, 0);
  ASSERT_OK(emu.fill(stream, data, 5, 1));
  ASSERT_OK(tandem_memcpy_d2h_async(stream, out.data(), data, 4));
  // Freeing memory that queued work uses is safe: the work completes.
  ASSERT_OK(tandem_device_free(emu.device.get(), data));
  EXPECT_OK(tandem_stream_destroy(stream)); // Waits for both.
  EXPECT_EQ(out[0], 5);

  // Destroying a capturing stream abandons the capture and waits for the
  // work queued before it.
  tandem_stream_t *capturing = makeStream(emu.device.get());
  ASSERT_OK(tandem_stream_set_emulated_delay(capturing, 30000, 30000));
  tandem_device_ptr_t other = deviceAlloc(emu.device.get(), 4);
  ASSERT_OK(emu.fill(capturing, other, 3, 1));
  ASSERT_OK(tandem_memcpy_d2h_async(capturing, out.data(), other, 4));
  ASSERT_OK(tandem_stream_begin_capture(capturing));
  ASSERT_OK(emu.fill(capturing, other, 4, 1));
  EXPECT_OK(tandem_stream_destroy(capturing));
  EXPECT_EQ(out[0], 3);

  // Closing a device with pending work, live allocations, events, graphs
  // and modules waits, then releases everything (LeakSanitizer checks).
  std::vector<int32_t> late(1, 0);
  {
    Emulated other;
    tandem_stream_t *s = makeStream(other.device.get());
    ASSERT_OK(tandem_stream_set_emulated_delay(s, 30000, 30000));
    tandem_device_ptr_t buffer = deviceAlloc(other.device.get(), 4);
    void *pinned = nullptr;
    ASSERT_OK(tandem_device_host_alloc(other.device.get(), 64, &pinned));
    ASSERT_OK(tandem_stream_begin_capture(s));
    ASSERT_OK(other.fill(s, buffer, 1, 1));
    tandem_device_graph_t *graph = nullptr;
    ASSERT_OK(tandem_stream_end_capture(s, &graph));
    makeEvent(other.device.get());
    ASSERT_OK(other.fill(s, buffer, 6, 1));
    ASSERT_OK(tandem_memcpy_d2h_async(s, late.data(), buffer, 4));
    // A second stream left capturing is abandoned on close.
    tandem_stream_t *capturing = makeStream(other.device.get());
    ASSERT_OK(tandem_stream_begin_capture(capturing));
  } // ~Emulated closes the device.
  EXPECT_EQ(late[0], 6);
}

} // namespace
