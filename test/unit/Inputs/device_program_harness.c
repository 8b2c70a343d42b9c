/* A host for a model object with a device program, for DeviceProgramTest.
 * It mirrors the structs of docs/GPU.md and implements the tandem_sched_*
 * functions as the CPU fallback does (the device arena is host memory,
 * copies are memcpy, launches call the CPU twins), runs the model on fixed
 * inputs and checks its outputs and the program's tables. Exit status 0
 * means every check passed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*twin_fn)(void **args);
typedef struct {
  const char *name;
  twin_fn cpu_twin;
  int32_t num_args;
} kernel_t;
typedef struct {
  const char *arch;
  int32_t format;
  const void *data;
  uint64_t size;
} image_t;
typedef struct {
  uint64_t device_offset;
  const void *host_data;
  uint64_t bytes;
} weight_t;
typedef struct {
  int32_t num_kernels;
  const kernel_t *kernels;
  int32_t num_images;
  const image_t *images;
  int32_t num_weights;
  const weight_t *weights;
  uint64_t device_arena_bytes;
  int32_t num_events;
  int32_t num_partitions;
  const char *const *partition_names;
  int32_t num_devices;
  const uint64_t *device_arena_sizes;
  const int32_t *weight_devices;
  int32_t num_convs;
  const void *const *convs;
} program_t;
typedef struct {
  const char *name;
  int32_t dtype, rank;
  const int64_t *shape;
} tensor_t;
typedef struct {
  uint32_t abi_version;
  const char *name;
  int32_t num_inputs, num_outputs;
  const tensor_t *inputs, *outputs;
  uint64_t arena_bytes, weight_bytes;
  int32_t (*entry)(const void *ctx, const void *const *inputs,
                   void *const *outputs);
  const program_t *device_program;
} desc_t;
typedef struct {
  void *pool;
  void *arena;
  uint64_t arena_bytes;
  void *reserved[4];
} ctx_t;

extern const desc_t m_descriptor;

static unsigned char *device;
static const program_t *program;
static int launches, h2d, d2h, records, waits, host_waits, begins, ends;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "check failed: %s (line %d)\n", #cond, __LINE__);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

uint64_t tandem_sched_device_base(const void *ctx) {
  (void)ctx;
  return (uint64_t)(uintptr_t)device;
}
void tandem_sched_copy_h2d(const void *ctx, int32_t stream, uint64_t dst,
                           const void *src, uint64_t bytes) {
  (void)ctx;
  CHECK(stream == 1);
  CHECK(dst + bytes <=
        (uint64_t)(uintptr_t)device + program->device_arena_bytes);
  memcpy((void *)(uintptr_t)dst, src, bytes);
  ++h2d;
}
void tandem_sched_copy_d2h(const void *ctx, int32_t stream, void *dst,
                           uint64_t src, uint64_t bytes) {
  (void)ctx;
  CHECK(stream == 2);
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  ++d2h;
}
void tandem_sched_record(const void *ctx, int32_t event, int32_t stream) {
  (void)ctx;
  CHECK(event >= 0 && event < program->num_events);
  CHECK(stream >= 0 && stream <= 2);
  ++records;
}
void tandem_sched_wait(const void *ctx, int32_t stream, int32_t event) {
  (void)ctx;
  CHECK(event >= 0 && event < program->num_events && stream >= 0);
  ++waits;
}
void tandem_sched_host_wait(const void *ctx, int32_t event) {
  (void)ctx;
  CHECK(event >= 0 && event < program->num_events);
  ++host_waits;
}
void tandem_sched_launch(const void *ctx, int32_t stream, int32_t kernel,
                         uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx,
                         uint32_t by, uint32_t bz, const uint64_t *args) {
  (void)ctx;
  CHECK(stream == 0);
  CHECK(kernel >= 0 && kernel < program->num_kernels);
  CHECK(gx >= 1 && gy >= 1 && gz >= 1 && bx >= 1 && by >= 1 && bz >= 1);
  const kernel_t *k = &program->kernels[kernel];
  void *pointers[16], *slots[16];
  CHECK(k->num_args <= 16);
  for (int i = 0; i < k->num_args; ++i) {
    pointers[i] = (void *)(uintptr_t)args[i];
    slots[i] = &pointers[i];
  }
  k->cpu_twin(slots);
  ++launches;
}
void tandem_sched_partition_begin(const void *ctx, int32_t partition,
                                  int32_t stream) {
  (void)ctx;
  CHECK(partition >= 0 && partition < program->num_partitions);
  CHECK(stream == 0 || stream == -1);
  ++begins;
}
void tandem_sched_partition_end(const void *ctx, int32_t partition,
                                int32_t stream) {
  (void)ctx;
  CHECK(partition >= 0 && partition < program->num_partitions);
  CHECK(stream == 0 || stream == -1);
  ++ends;
}

int main(void) {
  const desc_t *d = &m_descriptor;
  CHECK(d->abi_version == 4);
  CHECK(strcmp(d->name, "m") == 0);
  program = d->device_program;
  CHECK(program != NULL);
  CHECK(program->num_kernels == 2);
  CHECK(strcmp(program->kernels[0].name, "k_add") == 0);
  CHECK(program->kernels[0].num_args == 3);
  CHECK(strcmp(program->kernels[1].name, "k_neg") == 0);
  CHECK(program->num_images == 1);
  CHECK(strcmp(program->images[0].arch, "sm_90") == 0);
  CHECK(program->images[0].format == 0);
  CHECK(strcmp((const char *)program->images[0].data, ".version 8.0") == 0);
  CHECK(program->num_weights == 1);
  CHECK(program->weights[0].bytes == 16);
  CHECK(program->num_partitions == 2);
  CHECK(strcmp(program->partition_names[0], "m_p0_gpu0") == 0);
  CHECK(strcmp(program->partition_names[1], "m_p1_cpu0") == 0);
  CHECK(program->device_arena_bytes > 0);
  /* One GPU: its arena is GPU 0's, and the weight lives there. */
  CHECK(program->num_devices == 1);
  CHECK(program->device_arena_sizes[0] == program->device_arena_bytes);
  CHECK(program->weight_devices[0] == 0);
  /* No library convolution: an empty convolution table. */
  CHECK(program->num_convs == 0 && program->convs == NULL);

  /* Creation: the device arena, with the weights uploaded once. */
  device = aligned_alloc(256, program->device_arena_bytes);
  for (int i = 0; i < program->num_weights; ++i)
    memcpy(device + program->weights[i].device_offset,
           program->weights[i].host_data, program->weights[i].bytes);

  ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.arena_bytes = d->arena_bytes;
  ctx.arena = aligned_alloc(64, d->arena_bytes ? d->arena_bytes : 64);
  float x[4] = {-5, 1, 2, 3}, y[4] = {0, 0, 0, 0};
  const void *inputs[] = {x};
  void *outputs[] = {y};
  for (int run = 0; run < 2; ++run) {
    CHECK(d->entry(&ctx, inputs, outputs) == 0);
    /* y = |-(x + w)| with w = [1, 2, 3, 4]. */
    const float expected[4] = {4, 3, 5, 7};
    for (int i = 0; i < 4; ++i)
      CHECK(y[i] == expected[i]);
  }
  CHECK(launches == 4 && h2d == 2 && d2h == 2);
  CHECK(begins == 4 && ends == 4);
  CHECK(records == 2 * program->num_events);
  CHECK(host_waits >= 2 && waits >= 2);
  printf("ok\n");
  return 0;
}
