//===- api.cpp - The device C API on top of the internal interface --------===//
//
// Checks what does not depend on the backend (NULL handles, handles of
// another device, zero sizes), keeps track of each device's live handles so
// that tandem_device_close can release them, picks the backend in
// tandem_device_open, and turns C++ exceptions into statuses.
//
//===----------------------------------------------------------------------===//

#include "device/device.h"
#include "kernels/conv_desc.h"
#include "kernels/gemm_desc.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <system_error>
#include <vector>

using namespace tandem::device;

namespace {

tandem_status_t invalid(const char *function, const char *what) {
  return tandem_status_make(TANDEM_INVALID_ARGUMENT, "%s: %s", function, what);
}

/// Runs `body`, turning the exceptions the runtime may see into statuses.
template <typename Body>
tandem_status_t guarded(const char *function, Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return tandem_status_make(TANDEM_OUT_OF_MEMORY, "%s: out of host memory",
                              function);
  } catch (const std::system_error &error) {
    return tandem_status_make(TANDEM_UNAVAILABLE, "%s: %s", function,
                              error.what());
  } catch (...) {
    return tandem_status_make(TANDEM_INTERNAL, "%s: unexpected exception",
                              function);
  }
}

/// Parses "cuda" / "cuda:N"; returns false for anything else.
bool parseCuda(const std::string &spec, int *ordinal) {
  if (spec == "cuda") {
    *ordinal = 0;
    return true;
  }
  if (spec.compare(0, 5, "cuda:") != 0 || spec.size() == 5 || spec.size() > 12)
    return false;
  int value = 0;
  for (size_t i = 5; i < spec.size(); ++i) {
    if (spec[i] < '0' || spec[i] > '9')
      return false;
    value = value * 10 + (spec[i] - '0');
  }
  *ordinal = value;
  return true;
}

/// Opens an explicit spec ("cpu", "emulated", "cuda[:N]").
tandem_status_t openSpec(const std::string &spec,
                         const tandem_device_options_t &options,
                         tandem_device_s **out) {
  int ordinal = 0;
  if (spec == "cpu")
    return nullptr;
  if (spec == "emulated")
    return openEmulated(options, out);
  if (parseCuda(spec, &ordinal))
    return openCuda(ordinal, out);
  return tandem_status_make(
      TANDEM_INVALID_ARGUMENT,
      "unknown device '%s' (expected cpu, emulated, cuda, cuda:N or auto)",
      spec.c_str());
}

/// Records a freshly created `handle` in its device's `set`; if that fails
/// (std::bad_alloc), frees the handle and rethrows, so nothing leaks.
template <typename T>
void track(std::set<T *> &set, std::mutex &mutex, T *handle) {
  try {
    std::lock_guard<std::mutex> lock(mutex);
    set.insert(handle);
  } catch (...) {
    delete handle;
    throw;
  }
}

template <typename T>
void untrack(std::set<T *> &set, std::mutex &mutex, T *handle) {
  std::lock_guard<std::mutex> lock(mutex);
  set.erase(handle);
}

} // namespace

extern "C" {

void tandem_device_options_init(tandem_device_options_t *options) {
  if (options)
    std::memset(options, 0, sizeof(*options));
}

tandem_status_t tandem_device_open(const char *spec,
                                   const tandem_device_options_t *options,
                                   tandem_device_t **out) {
  if (!out)
    return invalid("tandem_device_open", "out is NULL");
  *out = nullptr;
  tandem_device_options_t defaults;
  tandem_device_options_init(&defaults);
  const tandem_device_options_t &opts = options ? *options : defaults;
  return guarded("tandem_device_open", [&]() -> tandem_status_t {
    std::string requested = spec ? spec : "auto";
    if (requested != "auto")
      return openSpec(requested, opts, out);
    const char *env = std::getenv("TANDEM_DEVICE");
    if (env && *env && std::string(env) != "auto") {
      return prefixed(openSpec(env, opts, out),
                      std::string("TANDEM_DEVICE=") + env);
    }
    tandem_status_t status = openCuda(0, out);
    if (!status)
      return nullptr;
    std::string message = tandem_status_message(status);
    tandem_status_free(status);
    return tandem_status_make(TANDEM_UNAVAILABLE,
                              "no GPU device, using the CPU: %s",
                              message.c_str());
  });
}

void tandem_device_close(tandem_device_t *device) {
  if (!device)
    return;
  // Release in reverse dependency order: graphs and streams may refer to
  // modules' kernels, events and memory. Stream destructors wait for their
  // work, so nothing runs once the memory goes.
  for (tandem_stream_s *stream : device->streams) {
    tandem_status_free(stream->finish());
  }
  for (tandem_device_graph_s *graph : device->graphs)
    delete graph;
  for (tandem_stream_s *stream : device->streams)
    delete stream;
  for (tandem_event_s *event : device->events)
    delete event;
  for (tandem_device_module_s *module : device->modules)
    delete module;
  device->graphs.clear();
  device->streams.clear();
  device->events.clear();
  device->modules.clear();
  delete device; // Frees the remaining allocations.
}

tandem_device_kind_t tandem_device_kind(const tandem_device_t *device) {
  return device ? device->kind() : TANDEM_DEVICE_CPU;
}

const char *tandem_device_name(const tandem_device_t *device) {
  return device ? device->name() : "cpu";
}

tandem_status_t tandem_device_synchronize(tandem_device_t *device) {
  if (!device)
    return invalid("tandem_device_synchronize", "device is NULL");
  return guarded("tandem_device_synchronize", [&]() -> tandem_status_t {
    std::vector<tandem_stream_s *> streams;
    {
      std::lock_guard<std::mutex> lock(device->handlesMutex);
      streams.assign(device->streams.begin(), device->streams.end());
    }
    for (tandem_stream_s *stream : streams)
      if (tandem_status_t status = stream->synchronize())
        return status;
    return nullptr;
  });
}

tandem_status_t tandem_device_alloc(tandem_device_t *device, uint64_t bytes,
                                    tandem_device_ptr_t *out) {
  if (!out)
    return invalid("tandem_device_alloc", "out is NULL");
  *out = 0;
  if (!device)
    return invalid("tandem_device_alloc", "device is NULL");
  if (bytes == 0)
    return nullptr;
  return guarded("tandem_device_alloc",
                 [&] { return device->alloc(bytes, out); });
}

tandem_status_t tandem_device_free(tandem_device_t *device,
                                   tandem_device_ptr_t ptr) {
  if (!device)
    return invalid("tandem_device_free", "device is NULL");
  if (ptr == 0)
    return nullptr;
  return guarded("tandem_device_free", [&] { return device->free(ptr); });
}

tandem_status_t tandem_device_host_alloc(tandem_device_t *device,
                                         uint64_t bytes, void **out) {
  if (!out)
    return invalid("tandem_device_host_alloc", "out is NULL");
  *out = nullptr;
  if (!device)
    return invalid("tandem_device_host_alloc", "device is NULL");
  if (bytes == 0)
    return nullptr;
  return guarded("tandem_device_host_alloc",
                 [&] { return device->hostAlloc(bytes, out); });
}

tandem_status_t tandem_device_host_free(tandem_device_t *device, void *ptr) {
  if (!device)
    return invalid("tandem_device_host_free", "device is NULL");
  if (!ptr)
    return nullptr;
  return guarded("tandem_device_host_free",
                 [&] { return device->hostFree(ptr); });
}

tandem_status_t tandem_stream_create(tandem_device_t *device,
                                     tandem_stream_t **out) {
  if (!out)
    return invalid("tandem_stream_create", "out is NULL");
  *out = nullptr;
  if (!device)
    return invalid("tandem_stream_create", "device is NULL");
  return guarded("tandem_stream_create", [&]() -> tandem_status_t {
    tandem_stream_s *stream = nullptr;
    if (tandem_status_t status = device->createStream(&stream))
      return status;
    track(device->streams, device->handlesMutex, stream);
    *out = stream;
    return nullptr;
  });
}

tandem_status_t tandem_stream_destroy(tandem_stream_t *stream) {
  if (!stream)
    return nullptr;
  tandem_status_t status =
      guarded("tandem_stream_destroy", [&] { return stream->finish(); });
  untrack(stream->device->streams, stream->device->handlesMutex, stream);
  delete stream;
  return status;
}

tandem_status_t tandem_stream_synchronize(tandem_stream_t *stream) {
  if (!stream)
    return invalid("tandem_stream_synchronize", "stream is NULL");
  return guarded("tandem_stream_synchronize",
                 [&] { return stream->synchronize(); });
}

tandem_status_t tandem_memcpy_h2d_async(tandem_stream_t *stream,
                                        tandem_device_ptr_t dst,
                                        const void *src, uint64_t bytes) {
  if (!stream)
    return invalid("tandem_memcpy_h2d_async", "stream is NULL");
  if (bytes == 0)
    return nullptr;
  if (!src)
    return invalid("tandem_memcpy_h2d_async", "host source is NULL");
  return guarded("tandem_memcpy_h2d_async",
                 [&] { return stream->copyH2D(dst, src, bytes); });
}

tandem_status_t tandem_memcpy_d2h_async(tandem_stream_t *stream, void *dst,
                                        tandem_device_ptr_t src,
                                        uint64_t bytes) {
  if (!stream)
    return invalid("tandem_memcpy_d2h_async", "stream is NULL");
  if (bytes == 0)
    return nullptr;
  if (!dst)
    return invalid("tandem_memcpy_d2h_async", "host destination is NULL");
  return guarded("tandem_memcpy_d2h_async",
                 [&] { return stream->copyD2H(dst, src, bytes); });
}

tandem_status_t tandem_memcpy_d2d_async(tandem_stream_t *stream,
                                        tandem_device_ptr_t dst,
                                        tandem_device_ptr_t src,
                                        uint64_t bytes) {
  if (!stream)
    return invalid("tandem_memcpy_d2d_async", "stream is NULL");
  if (bytes == 0)
    return nullptr;
  return guarded("tandem_memcpy_d2d_async",
                 [&] { return stream->copyD2D(dst, src, bytes); });
}

tandem_status_t tandem_event_create(tandem_device_t *device,
                                    tandem_event_t **out) {
  if (!out)
    return invalid("tandem_event_create", "out is NULL");
  *out = nullptr;
  if (!device)
    return invalid("tandem_event_create", "device is NULL");
  return guarded("tandem_event_create", [&]() -> tandem_status_t {
    tandem_event_s *event = nullptr;
    if (tandem_status_t status = device->createEvent(&event))
      return status;
    track(device->events, device->handlesMutex, event);
    *out = event;
    return nullptr;
  });
}

void tandem_event_destroy(tandem_event_t *event) {
  if (!event)
    return;
  untrack(event->device->events, event->device->handlesMutex, event);
  delete event;
}

tandem_status_t tandem_event_record(tandem_event_t *event,
                                    tandem_stream_t *stream) {
  if (!event || !stream)
    return invalid("tandem_event_record", "event or stream is NULL");
  if (event->device != stream->device)
    return invalid("tandem_event_record",
                   "the event and the stream belong to different devices");
  return guarded("tandem_event_record",
                 [&] { return stream->recordEvent(event); });
}

tandem_status_t tandem_stream_wait_event(tandem_stream_t *stream,
                                         tandem_event_t *event) {
  if (!event || !stream)
    return invalid("tandem_stream_wait_event", "event or stream is NULL");
  if (event->device != stream->device)
    return invalid("tandem_stream_wait_event",
                   "the event and the stream belong to different devices");
  return guarded("tandem_stream_wait_event",
                 [&] { return stream->waitEvent(event); });
}

tandem_status_t tandem_event_synchronize(tandem_event_t *event) {
  if (!event)
    return invalid("tandem_event_synchronize", "event is NULL");
  return guarded("tandem_event_synchronize",
                 [&] { return event->synchronize(); });
}

tandem_status_t tandem_event_query(tandem_event_t *event, int32_t *done) {
  if (!event || !done)
    return invalid("tandem_event_query", "event or done is NULL");
  *done = 0;
  return guarded("tandem_event_query", [&]() -> tandem_status_t {
    bool complete = false;
    if (tandem_status_t status = event->query(&complete))
      return status;
    *done = complete ? 1 : 0;
    return nullptr;
  });
}

tandem_status_t tandem_device_module_load(tandem_device_t *device,
                                          const void *image, uint64_t size,
                                          tandem_device_module_t **out) {
  if (!out)
    return invalid("tandem_device_module_load", "out is NULL");
  *out = nullptr;
  if (!device || !image)
    return invalid("tandem_device_module_load", "device or image is NULL");
  return guarded("tandem_device_module_load", [&]() -> tandem_status_t {
    tandem_device_module_s *module = nullptr;
    if (tandem_status_t status = device->loadModule(image, size, &module))
      return status;
    track(device->modules, device->handlesMutex, module);
    *out = module;
    return nullptr;
  });
}

tandem_status_t tandem_device_module_load_cpu(
    tandem_device_t *device, const tandem_cpu_kernel_t *kernels,
    int32_t num_kernels, tandem_device_module_t **out) {
  if (!out)
    return invalid("tandem_device_module_load_cpu", "out is NULL");
  *out = nullptr;
  if (!device)
    return invalid("tandem_device_module_load_cpu", "device is NULL");
  if (num_kernels < 0 || (num_kernels > 0 && !kernels))
    return invalid("tandem_device_module_load_cpu",
                   "negative count or NULL table");
  for (int32_t i = 0; i < num_kernels; ++i)
    if (!kernels[i].name || !kernels[i].fn)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_device_module_load_cpu: entry %d has "
                                "a NULL name or function",
                                i);
  return guarded("tandem_device_module_load_cpu", [&]() -> tandem_status_t {
    tandem_device_module_s *module = nullptr;
    if (tandem_status_t status =
            device->loadCpuModule(kernels, num_kernels, &module))
      return status;
    track(device->modules, device->handlesMutex, module);
    *out = module;
    return nullptr;
  });
}

void tandem_device_module_unload(tandem_device_module_t *module) {
  if (!module)
    return;
  untrack(module->device->modules, module->device->handlesMutex, module);
  delete module;
}

tandem_status_t tandem_device_module_get_kernel(tandem_device_module_t *module,
                                                const char *name,
                                                tandem_device_kernel_t **out) {
  if (!out)
    return invalid("tandem_device_module_get_kernel", "out is NULL");
  *out = nullptr;
  if (!module || !name)
    return invalid("tandem_device_module_get_kernel", "module or name is NULL");
  return guarded("tandem_device_module_get_kernel",
                 [&] { return module->getKernel(name, out); });
}

tandem_status_t tandem_device_launch(tandem_stream_t *stream,
                                     tandem_device_kernel_t *kernel,
                                     const tandem_launch_dims_t *dims,
                                     const tandem_kernel_arg_t *args,
                                     int32_t num_args) {
  if (!stream || !kernel || !dims)
    return invalid("tandem_device_launch", "stream, kernel or dims is NULL");
  if (kernel->module->device != stream->device)
    return invalid("tandem_device_launch",
                   "the kernel and the stream belong to different devices");
  for (int i = 0; i < 3; ++i)
    if (dims->grid[i] == 0 || dims->block[i] == 0)
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "tandem_device_launch: kernel '%s': grid %ux%ux%u, block %ux%ux%u: "
          "every extent must be at least 1",
          kernel->name.c_str(), dims->grid[0], dims->grid[1], dims->grid[2],
          dims->block[0], dims->block[1], dims->block[2]);
  if (num_args < 0 || (num_args > 0 && !args))
    return invalid("tandem_device_launch", "negative count or NULL arguments");
  for (int32_t i = 0; i < num_args; ++i) {
    uint32_t kind = 0;
    std::memcpy(&kind, &args[i].kind, sizeof(kind));
    if (!args[i].value || args[i].size == 0)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_device_launch: kernel '%s': argument "
                                "%d has no value",
                                kernel->name.c_str(), i);
    if (kind > TANDEM_KERNEL_ARG_DEVICE_PTR ||
        (kind == TANDEM_KERNEL_ARG_DEVICE_PTR &&
         args[i].size != sizeof(tandem_device_ptr_t)))
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "tandem_device_launch: kernel '%s': argument "
                                "%d: bad kind %u or size %u",
                                kernel->name.c_str(), i, kind, args[i].size);
  }
  return guarded("tandem_device_launch",
                 [&] { return stream->launch(kernel, *dims, args, num_args); });
}

tandem_status_t tandem_device_gemm(tandem_stream_t *stream,
                                   const tandem_gemm_desc_t *desc,
                                   tandem_device_ptr_t a, tandem_device_ptr_t b,
                                   tandem_device_ptr_t c,
                                   tandem_device_ptr_t bias, const char *name) {
  if (!stream || !desc)
    return invalid("tandem_device_gemm", "stream or desc is NULL");
  char message[160];
  if (!tandem::gemm::check(*desc, message, sizeof(message)))
    return invalid("tandem_device_gemm", message);
  if (!a || !b || !c || (tandem::gemm::hasBias(*desc) && !bias))
    return invalid("tandem_device_gemm", "a device pointer is 0");
  std::string what = name ? name : "gemm";
  return guarded("tandem_device_gemm",
                 [&] { return stream->gemm(*desc, a, b, c, bias, what); });
}

tandem_status_t tandem_device_conv(tandem_stream_t *stream,
                                   const tandem_conv_desc_t *desc,
                                   tandem_device_ptr_t x, tandem_device_ptr_t w,
                                   tandem_device_ptr_t y,
                                   tandem_device_ptr_t bias,
                                   tandem_device_ptr_t z, const char *name) {
  if (!stream || !desc)
    return invalid("tandem_device_conv", "stream or desc is NULL");
  char message[160];
  if (!tandem::conv::check(*desc, message, sizeof(message)))
    return invalid("tandem_device_conv", message);
  if (!x || !w || !y || (tandem::conv::hasBias(*desc) && !bias) ||
      (tandem::conv::hasResidual(*desc) && !z))
    return invalid("tandem_device_conv", "a device pointer is 0");
  std::string what = name ? name : "conv";
  return guarded("tandem_device_conv",
                 [&] { return stream->conv(*desc, x, w, y, bias, z, what); });
}

tandem_status_t tandem_stream_begin_capture(tandem_stream_t *stream) {
  if (!stream)
    return invalid("tandem_stream_begin_capture", "stream is NULL");
  return guarded("tandem_stream_begin_capture",
                 [&] { return stream->beginCapture(); });
}

tandem_status_t tandem_stream_end_capture(tandem_stream_t *stream,
                                          tandem_device_graph_t **out) {
  if (!out)
    return invalid("tandem_stream_end_capture", "out is NULL");
  *out = nullptr;
  if (!stream)
    return invalid("tandem_stream_end_capture", "stream is NULL");
  return guarded("tandem_stream_end_capture", [&]() -> tandem_status_t {
    tandem_device_graph_s *graph = nullptr;
    if (tandem_status_t status = stream->endCapture(&graph))
      return status;
    tandem_device_s *device = stream->device;
    track(device->graphs, device->handlesMutex, graph);
    *out = graph;
    return nullptr;
  });
}

tandem_status_t tandem_device_graph_launch(tandem_device_graph_t *graph,
                                           tandem_stream_t *stream) {
  if (!graph || !stream)
    return invalid("tandem_device_graph_launch", "graph or stream is NULL");
  if (graph->device != stream->device)
    return invalid("tandem_device_graph_launch",
                   "the graph and the stream belong to different devices");
  return guarded("tandem_device_graph_launch",
                 [&] { return stream->launchGraph(graph); });
}

void tandem_device_graph_destroy(tandem_device_graph_t *graph) {
  if (!graph)
    return;
  untrack(graph->device->graphs, graph->device->handlesMutex, graph);
  delete graph;
}

tandem_status_t tandem_stream_set_emulated_delay(tandem_stream_t *stream,
                                                 uint32_t min_us,
                                                 uint32_t max_us) {
  if (!stream)
    return invalid("tandem_stream_set_emulated_delay", "stream is NULL");
  if (min_us > max_us)
    return invalid("tandem_stream_set_emulated_delay", "min_us > max_us");
  return guarded("tandem_stream_set_emulated_delay",
                 [&] { return stream->setEmulatedDelay(min_us, max_us); });
}

} // extern "C"
