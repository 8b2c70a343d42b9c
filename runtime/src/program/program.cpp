//===- program.cpp - Setting up device programs and run slots -------------===//
//
// Model creation's device side: choosing the device (options, then
// $TANDEM_DEVICE, then auto), falling back to the CPU when no GPU is
// available, loading the module from the program's images (CUDA) or twins
// (emulated), and giving each slot its arenas, weights, streams and events.
// Memory is allocated here, once; runs never allocate after a slot's
// first run (see docs/Runtime.md, "Device programs").
//
//===----------------------------------------------------------------------===//

#include "program/program.h"
#include "device/device.h"
#include "kernels/conv_desc.h"
#include "program/trace.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tandem {
namespace sched {
namespace {

tandem_status_t validateProgram(const tandem_model_desc_t *desc) {
  const tandem_device_program_t *p = desc->device_program;
  const char *name = desc->name;
  auto bad = [&](const char *what) {
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': device program: %s", name, what);
  };
  if (p->num_kernels < 0 || (p->num_kernels > 0 && !p->kernels))
    return bad("negative kernel count or no kernel table");
  for (int32_t k = 0; k < p->num_kernels; ++k)
    if (!p->kernels[k].name || !p->kernels[k].cpu_twin ||
        p->kernels[k].num_args < 0)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': device program: kernel %d has no "
                                "name, no CPU twin or a negative argument "
                                "count",
                                name, k);
  if (p->num_images < 0 || (p->num_images > 0 && !p->images))
    return bad("negative image count or no image table");
  if (p->num_weights < 0 || (p->num_weights > 0 && !p->weights))
    return bad("negative weight count or no weight table");
  // ABI version 3 gives the GPUs and their arenas; version 2 has one GPU.
  bool multi = desc->abi_version >= 3;
  int32_t devices = multi ? p->num_devices : 1;
  if (devices < 1 || devices > kMaxDevices)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "model '%s': device program: %d GPUs (must be "
                              "1 to %d)",
                              name, devices, kMaxDevices);
  if (multi &&
      (!p->device_arena_sizes || (p->num_weights > 0 && !p->weight_devices)))
    return bad("no device arena sizes or no weight devices");
  if (multi && p->device_arena_sizes[0] != p->device_arena_bytes)
    return tandem_status_make(
        TANDEM_INVALID_ARGUMENT,
        "model '%s': device program: GPU 0's arena is %" PRIu64
        " bytes in device_arena_sizes but %" PRIu64 " in device_arena_bytes",
        name, p->device_arena_sizes[0], p->device_arena_bytes);
  for (int32_t w = 0; w < p->num_weights; ++w) {
    const tandem_device_weight_t &weight = p->weights[w];
    int32_t gpu = multi ? p->weight_devices[w] : 0;
    if (gpu < 0 || gpu >= devices)
      return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                "model '%s': device program: weight %d is on "
                                "GPU %d, but the program has %d GPU%s",
                                name, w, gpu, devices, devices == 1 ? "" : "s");
    uint64_t arena = multi ? p->device_arena_sizes[gpu] : p->device_arena_bytes;
    if ((weight.bytes && !weight.host_data) || weight.device_offset > arena ||
        weight.bytes > arena - weight.device_offset)
      return tandem_status_make(
          TANDEM_INVALID_ARGUMENT,
          "model '%s': device program: weight %d (%" PRIu64
          " bytes at device offset %" PRIu64
          ") has no data or lies outside the device arena of GPU %d (%" PRIu64
          " bytes)",
          name, w, weight.bytes, weight.device_offset, gpu, arena);
  }
  // ABI version 4 lists the library convolutions.
  if (desc->abi_version >= 4) {
    if (p->num_convs < 0 || (p->num_convs > 0 && !p->convs))
      return bad("negative convolution count or no convolution table");
    for (int32_t c = 0; c < p->num_convs; ++c) {
      char message[160];
      if (!p->convs[c])
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "model '%s': device program: convolution "
                                  "%d has no descriptor",
                                  name, c);
      if (!tandem::conv::check(*p->convs[c], message, sizeof(message)))
        return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                                  "model '%s': device program: convolution "
                                  "%d: %s",
                                  name, c, message);
    }
  }
  if (p->num_events < 0)
    return bad("negative event count");
  if (p->num_partitions < 0)
    return bad("negative partition count");
  return nullptr;
}

std::string listImages(const tandem_device_program_t *p) {
  static const char *const formats[] = {"ptx", "cubin", "fatbin"};
  std::string text;
  for (int32_t i = 0; i < p->num_images; ++i) {
    const tandem_device_image_t &image = p->images[i];
    if (!text.empty())
      text += ", ";
    text += image.arch ? image.arch : "?";
    text += ' ';
    text += image.format >= 0 && image.format <= 2 ? formats[image.format]
                                                   : "unknown";
  }
  return text.empty() ? "none" : text;
}

tandem_status_t loadModule(const tandem_model_desc_t *desc,
                           ProgramDevice &gpu) {
  const tandem_device_program_t *p = desc->device_program;
  tandem_device_t *device = gpu.device;
  if (device->runsCpuTwins()) {
    std::vector<tandem_cpu_kernel_t> twins;
    for (int32_t k = 0; k < p->num_kernels; ++k)
      twins.push_back({p->kernels[k].name, p->kernels[k].cpu_twin});
    if (tandem_status_t status = tandem_device_module_load_cpu(
            device, twins.data(), static_cast<int32_t>(twins.size()),
            &gpu.module))
      return status;
  } else {
    std::string arch = device->arch();
    const tandem_device_image_t *image =
        device->chooseImage(p->images, p->num_images);
    if (!image)
      return tandem_status_make(
          TANDEM_UNAVAILABLE,
          "model '%s': no device image for %s (%s) among: %s", desc->name,
          tandem_device_name(device),
          arch.empty() ? "unknown arch" : arch.c_str(), listImages(p).c_str());
    if (tandem_status_t status = tandem_device_module_load(
            device, image->data, image->size, &gpu.module))
      return status;
  }
  for (int32_t k = 0; k < p->num_kernels; ++k) {
    tandem_device_kernel_t *kernel = nullptr;
    if (tandem_status_t status = tandem_device_module_get_kernel(
            gpu.module, p->kernels[k].name, &kernel))
      return status;
    gpu.kernels.push_back(kernel);
  }
  return nullptr;
}

bool envIs(const char *name, const char *value) {
  const char *env = std::getenv(name);
  return env && std::strcmp(env, value) == 0;
}

/// The device spec GPU `gpu` of a program opens for the requested `spec`:
/// "emulated" for every GPU, and for CUDA ("auto", "cuda", "cuda:N") the
/// ordinal after the first GPU's.
std::string gpuSpec(const std::string &spec, int32_t gpu) {
  if (spec == "auto" || spec == "cuda")
    return "cuda:" + std::to_string(gpu);
  if (spec.compare(0, 5, "cuda:") == 0 && spec.size() > 5 &&
      spec.size() <= 12 &&
      spec.find_first_not_of("0123456789", 5) == std::string::npos)
    return "cuda:" + std::to_string(std::stoi(spec.substr(5)) + gpu);
  return spec;
}

uint64_t roundUp(uint64_t value, uint64_t align) {
  return (value + align - 1) / align * align;
}

uint64_t tensorBytes(const tandem_tensor_desc_t &tensor) {
  int64_t n = tandem_tensor_desc_num_elements(&tensor);
  return n > 0 ? static_cast<uint64_t>(n) * tandem_dtype_size(tensor.dtype) : 0;
}

} // namespace

tandem_status_t createProgram(const tandem_model_desc_t *desc,
                              const tandem_model_options_t &options,
                              Stats *stats, Trace *trace,
                              std::unique_ptr<Program> *out) {
  if (tandem_status_t status = validateProgram(desc))
    return status;
  auto prog = std::make_unique<Program>();
  prog->desc = desc;
  prog->program = desc->device_program;
  prog->stats = stats;
  prog->trace = trace;

  // Which device: the options, else $TANDEM_DEVICE, else auto.
  std::string spec = "auto";
  const char *source = nullptr;
  if (options.device && *options.device) {
    spec = options.device;
  } else if (const char *env = std::getenv("TANDEM_DEVICE")) {
    if (*env) {
      spec = env;
      source = "TANDEM_DEVICE=";
    }
  }
  const tandem_device_program_t *p = desc->device_program;
  prog->numDevices = desc->abi_version >= 3 ? p->num_devices : 1;
  for (int32_t d = 0; d < prog->numDevices; ++d)
    prog->arenaBytes.push_back(desc->abi_version >= 3 ? p->device_arena_sizes[d]
                                                      : p->device_arena_bytes);
  for (int32_t w = 0; w < p->num_weights; ++w)
    prog->weightDevices.push_back(desc->abi_version >= 3 ? p->weight_devices[w]
                                                         : 0);
  if (desc->abi_version >= 4)
    prog->convs.assign(p->convs, p->convs + p->num_convs);
  bool log = options.log_fallback != 0 && !envIs("TANDEM_QUIET", "1");
  if (spec == "cpu") {
    prog->fallbackReason =
        source ? "TANDEM_DEVICE=cpu" : "device 'cpu' requested";
  } else {
    // One device per GPU of the program. The first decides: without it
    // (no driver, no GPU) every GPU partition runs on the CPU. A later GPU
    // the machine lacks (cuda:1 on a one-GPU machine) shares the first
    // one's device, with a note.
    for (int32_t d = 0; d < prog->numDevices; ++d) {
      std::string gpu = gpuSpec(spec, d);
      tandem_device_t *device = nullptr;
      tandem_status_t status =
          tandem_device_open(d > 0            ? gpu.c_str()
                             : spec == "auto" ? "cuda"
                                              : spec.c_str(),
                             nullptr, &device);
      if (status && d > 0 && gpu != spec &&
          tandem_status_code(status) == TANDEM_INVALID_ARGUMENT) {
        std::string first = gpuSpec(spec, 0);
        if (log)
          std::fprintf(
              stderr, "tandem: model '%s': %s; /device:GPU:%d runs on %s\n",
              desc->name, tandem_status_message(status), d, first.c_str());
        tandem_status_free(status);
        status = tandem_device_open(first.c_str(), nullptr, &device);
      }
      if (status && d == 0 &&
          tandem_status_code(status) == TANDEM_UNAVAILABLE) {
        // No driver or no GPU: run the GPU partitions on the CPU.
        prog->fallbackReason = tandem_status_message(status);
        tandem_status_free(status);
        if (log)
          std::fprintf(stderr,
                       "tandem: model '%s': %s; running GPU partitions on the "
                       "CPU\n",
                       desc->name, prog->fallbackReason.c_str());
        break;
      }
      if (status) {
        destroyProgram(prog.get());
        // The device layer's message names the spec; say where it came from.
        std::string prefix = std::string("model '") + desc->name + "'";
        if (source)
          prefix += std::string(": ") + source + spec;
        if (prog->numDevices > 1)
          prefix += ": /device:GPU:" + std::to_string(d);
        return tandem::device::prefixed(status, prefix);
      }
      prog->devices.push_back({device, nullptr, {}});
    }
  }
  if (prog->onDevice()) {
    prog->deviceName.clear();
    for (ProgramDevice &gpu : prog->devices) {
      if (!prog->deviceName.empty())
        prog->deviceName += ", ";
      prog->deviceName += tandem_device_name(gpu.device);
      if (tandem_status_t status = loadModule(desc, gpu)) {
        destroyProgram(prog.get());
        return status;
      }
      if (trace)
        gpu.device->setObserver(trace);
    }
  }
  if (options.cuda_graphs >= 0)
    prog->graphs = options.cuda_graphs != 0;
  else
    prog->graphs = !envIs("TANDEM_CUDA_GRAPHS", "0");
  *out = std::move(prog);
  return nullptr;
}

void destroyProgram(Program *prog) {
  if (!prog)
    return;
  for (ProgramDevice &gpu : prog->devices) {
    gpu.device->setObserver(nullptr);
    tandem_device_module_unload(gpu.module);
    tandem_device_close(gpu.device);
  }
  prog->devices.clear();
}

tandem_status_t createSlot(const tandem_model_desc_t *desc, Program *prog,
                           Stats *stats, Trace *trace, int index, void *arena,
                           uint64_t arenaBytes, void *kernelCache,
                           std::unique_ptr<Slot> *out) {
  auto slot = std::make_unique<Slot>();
  slot->index = index;
  slot->program = prog;
  slot->stats = stats;
  slot->trace = trace;
  tandem_device_t *host = prog ? prog->hostDevice() : nullptr;
  auto fail = [&](tandem_status_t status) {
    destroySlot(slot.get());
    return status;
  };

  // The host arena: the caller's, pinned memory on a device (so that
  // copies into it need no staging), else plain aligned memory.
  if (arena) {
    slot->ctx.arena = arena;
    slot->arenaBytes = arenaBytes;
  } else if (desc->arena_bytes) {
    uint64_t bytes = roundUp(desc->arena_bytes, TANDEM_ARENA_ALIGNMENT);
    if (host) {
      if (tandem_status_t status =
              tandem_device_host_alloc(host, bytes, &slot->pinnedArena))
        return fail(status);
      slot->ctx.arena = slot->pinnedArena;
    } else {
      if (tandem_status_t status =
              tandem_arena_alloc(desc->arena_bytes, &slot->ownedArena))
        return fail(status);
      slot->ctx.arena = slot->ownedArena;
    }
    slot->arenaBytes = desc->arena_bytes;
  }
  slot->ctx.arena_bytes = slot->arenaBytes;
  slot->ctx.reserved[0] = kernelCache;
  if (trace)
    trace->nameTrack(trackId(index, kHostTrack),
                     "slot " + std::to_string(index) + ": host");
  if (!prog) {
    *out = std::move(slot);
    return nullptr;
  }
  slot->ctx.reserved[1] = slot.get();

  const tandem_device_program_t *p = prog->program;
  slot->partitions.resize(static_cast<size_t>(p->num_partitions));
  slot->devices.resize(static_cast<size_t>(prog->numDevices));
  slot->lastRecord.assign(static_cast<size_t>(p->num_events), -1);
  static const char *const streamNames[kNumStreams] = {"compute", "h2d", "d2h"};
  for (int32_t d = 0; d < prog->numDevices && trace; ++d)
    for (int s = 0; s < kNumStreams; ++s)
      trace->nameTrack(
          streamTrackId(index, d * kNumStreams + s),
          "slot " + std::to_string(index) + ": " +
              (d > 0 ? "GPU:" + std::to_string(d) + " " : std::string()) +
              streamNames[s] + " stream");
  if (!prog->onDevice()) {
    // CPU fallback: each GPU's device arena is host memory.
    for (int32_t d = 0; d < prog->numDevices; ++d) {
      Slot::Device &gpu = slot->devices[static_cast<size_t>(d)];
      if (tandem_status_t status = tandem_arena_alloc(
              prog->arenaBytes[static_cast<size_t>(d)], &gpu.hostArena))
        return fail(status);
      gpu.base = reinterpret_cast<uintptr_t>(gpu.hostArena);
    }
    for (int32_t w = 0; w < p->num_weights; ++w)
      if (p->weights[w].bytes)
        std::memcpy(
            static_cast<char *>(
                slot->devices[static_cast<size_t>(prog->weightDevices[w])]
                    .hostArena) +
                p->weights[w].device_offset,
            p->weights[w].host_data, p->weights[w].bytes);
    *out = std::move(slot);
    return nullptr;
  }

  for (int32_t d = 0; d < prog->numDevices; ++d) {
    Slot::Device &gpu = slot->devices[static_cast<size_t>(d)];
    tandem_device_t *device = prog->devices[static_cast<size_t>(d)].device;
    if (tandem_status_t status = tandem_device_alloc(
            device, prog->arenaBytes[static_cast<size_t>(d)], &gpu.memory))
      return fail(status);
    gpu.base = gpu.memory;
    for (int s = 0; s < kNumStreams; ++s) {
      if (tandem_status_t status =
              tandem_stream_create(device, &gpu.streams[s]))
        return fail(status);
      if (trace)
        trace->addStream(gpu.streams[s],
                         streamTrackId(index, d * kNumStreams + s));
    }
    // The library convolutions' algorithms and workspace, now rather than
    // in the first run (CUDA with cuDNN; elsewhere nothing to do).
    if (!prog->convs.empty())
      if (tandem_status_t status =
              gpu.streams[TANDEM_STREAM_COMPUTE]->prepareConvs(
                  prog->convs.data(), prog->convs.size()))
        return fail(tandem::device::prefixed(
            status, std::string("model '") + desc->name +
                        "': preparing its convolutions"));
    for (int32_t e = 0; e < p->num_events; ++e) {
      tandem_event_t *event = nullptr;
      if (tandem_status_t status = tandem_event_create(device, &event))
        return fail(status);
      gpu.events.push_back(event);
    }
  }
  // Weights: uploaded once, straight from the object's constant data, each
  // into the arena of its GPU.
  for (int32_t w = 0; w < p->num_weights; ++w) {
    Slot::Device &gpu =
        slot->devices[static_cast<size_t>(prog->weightDevices[w])];
    if (tandem_status_t status = tandem_memcpy_h2d_async(
            gpu.streams[TANDEM_STREAM_H2D],
            gpu.base + p->weights[w].device_offset, p->weights[w].host_data,
            p->weights[w].bytes))
      return fail(status);
  }
  for (Slot::Device &gpu : slot->devices)
    if (tandem_status_t status =
            tandem_stream_synchronize(gpu.streams[TANDEM_STREAM_H2D]))
      return fail(status);
  // Pinned staging for the caller's buffers: the inputs and outputs; grown
  // to the high-water mark of a run if that needs more.
  uint64_t stagingBytes = 0;
  for (int32_t i = 0; i < desc->num_inputs; ++i)
    stagingBytes += roundUp(tensorBytes(desc->inputs[i]), 256);
  for (int32_t i = 0; i < desc->num_outputs; ++i)
    stagingBytes += roundUp(tensorBytes(desc->outputs[i]), 256);
  if (stagingBytes) {
    void *data = nullptr;
    if (tandem_status_t status =
            tandem_device_host_alloc(host, stagingBytes, &data))
      return fail(status);
    slot->staging.push_back({data, stagingBytes});
  }
  *out = std::move(slot);
  return nullptr;
}

void destroySlot(Slot *slot) {
  if (!slot)
    return;
  Program *prog = slot->program;
  tandem_device_t *host = prog ? prog->hostDevice() : nullptr;
  if (host) {
    for (size_t d = 0; d < slot->devices.size(); ++d) {
      Slot::Device &gpu = slot->devices[d];
      for (tandem_stream_t *&stream : gpu.streams) {
        tandem_status_free(tandem_stream_destroy(stream)); // waits
        stream = nullptr;
      }
    }
    for (PartitionState &partition : slot->partitions)
      tandem_device_graph_destroy(partition.graph);
    for (size_t d = 0; d < slot->devices.size(); ++d) {
      Slot::Device &gpu = slot->devices[d];
      for (tandem_event_t *event : gpu.events)
        tandem_event_destroy(event);
      for (tandem_event_t *event : gpu.copyEvents)
        tandem_event_destroy(event);
      tandem_status_free(
          tandem_device_free(prog->devices[d].device, gpu.memory));
    }
    for (const Slot::Chunk &chunk : slot->staging)
      tandem_status_free(tandem_device_host_free(host, chunk.data));
    tandem_status_free(tandem_device_host_free(host, slot->pinnedArena));
  }
  for (Slot::Device &gpu : slot->devices)
    tandem_arena_free(gpu.hostArena);
  slot->partitions.clear();
  slot->devices.clear();
  slot->staging.clear();
  tandem_arena_free(slot->ownedArena);
  slot->ownedArena = nullptr;
}

const char *programPartitionName(const tandem_device_program_t *program,
                                 int32_t partition) {
  if (program->partition_names && partition >= 0 &&
      partition < program->num_partitions &&
      program->partition_names[partition])
    return program->partition_names[partition];
  return "partition";
}

} // namespace sched
} // namespace tandem
