/*===- GpuTestModel.c - A hand-written model with a device program -------===*
 *
 * TEST FIXTURE, not compiler output: a model written by hand in the shape
 * the GPU code generator emits (docs/GPU.md), so that the runtime's side of
 * GPU partitions can be tested without the compiler:
 *
 *   p0 (GPU)  H2D x; k0_affine: y = x * w + b (w, b device weights); D2H y
 *   p1 (CPU)  t = -y
 *   p2 (GPU)  H2D t; k1_relu: r = max(t, 0); D2H r into the output
 *
 * The kernels' CPU twins are plain C. Variants of the entry: one that
 * omits the compute stream's wait for the copy of x (a schedule bug the
 * emulated device's delays must expose), one that copies past the device
 * arena's end and one that launches a kernel that does not exist (errors).
 * These are ABI version 2 programs (one GPU). The two-GPU variants (ABI
 * version 3) run p2 on /device:GPU:1, with its own device arena (t, r) and
 * streams 3 to 5; one of them makes GPU 1's compute stream wait for an
 * event GPU 0 recorded, one puts a weight on a GPU the program lacks.
 *===----------------------------------------------------------------------===*/

#include "GpuTestModel.h"

#include <string.h>

/* Device arena: w, b, x, y, t, r; host arena: y, t. */
#define BYTES (GPU_TEST_N * 4)
enum {
  W = 0,
  B = BYTES,
  X = 2 * BYTES,
  Y = 3 * BYTES,
  T = 4 * BYTES,
  R = 5 * BYTES
};
enum { HOST_Y = 0, HOST_T = BYTES };

static float weightW[GPU_TEST_N];
static float weightB[GPU_TEST_N];

void gpu_test_init_weights(void) {
  for (int i = 0; i < GPU_TEST_N; ++i) {
    weightW[i] = (float)(1 + i % 3);
    weightB[i] = -10.0f - (float)(i % 5);
  }
}

float gpu_test_reference(float x, int i) {
  float y = x * weightW[i] + weightB[i];
  float t = -y;
  return t > 0 ? t : 0;
}

static void k0Affine(void **args) {
  const float *x = *(const float **)args[0];
  const float *w = *(const float **)args[1];
  const float *b = *(const float **)args[2];
  float *y = *(float **)args[3];
  for (int i = 0; i < GPU_TEST_N; ++i)
    y[i] = x[i] * w[i] + b[i];
}

static void k1Relu(void **args) {
  const float *t = *(const float **)args[0];
  float *r = *(float **)args[1];
  for (int i = 0; i < GPU_TEST_N; ++i)
    r[i] = t[i] > 0 ? t[i] : 0;
}

enum Variant { CORRECT, NO_WAIT, BAD_COPY, BAD_KERNEL, CROSS_WAIT };

/* GPU 1's arena, in the two-GPU program: t and r. */
enum { T1 = 0, R1 = BYTES };

/* The schedule, with p2 on GPU `p2Gpu` (0, or 1 in the two-GPU program:
 * its own arena and streams 3 to 5). */
static int32_t entry(const tandem_exec_ctx_t *ctx, const void *const *inputs,
                     void *const *outputs, enum Variant variant, int p2Gpu) {
  uint64_t base = tandem_sched_device_base(ctx);
  uint64_t base2 = tandem_sched_device_base_of(ctx, p2Gpu);
  uint64_t t2 = base2 + (p2Gpu ? T1 : T), r2 = base2 + (p2Gpu ? R1 : R);
  int32_t compute2 = 3 * p2Gpu, h2d2 = compute2 + 1, d2h2 = compute2 + 2;
  char *host = (char *)ctx->arena;

  /* p0 on GPU 0: streams 0 compute, 1 h2d, 2 d2h. */
  if (variant == BAD_COPY) /* 2 * BYTES at offset R: past the arena's end */
    tandem_sched_copy_h2d(ctx, 1, base + R, inputs[0], 2 * BYTES);
  else
    tandem_sched_copy_h2d(ctx, 1, base + X, inputs[0], BYTES);
  tandem_sched_record(ctx, 0, 1);
  if (variant != NO_WAIT)
    tandem_sched_wait(ctx, 0, 0);
  tandem_sched_partition_begin(ctx, 0, 0);
  uint64_t k0Args[4] = {base + X, base + W, base + B, base + Y};
  tandem_sched_launch(ctx, 0, variant == BAD_KERNEL ? 7 : 0, GPU_TEST_N / 256,
                      1, 1, 256, 1, 1, k0Args);
  tandem_sched_partition_end(ctx, 0, 0);
  tandem_sched_record(ctx, 1, 0);
  tandem_sched_wait(ctx, 2, 1);
  tandem_sched_copy_d2h(ctx, 2, host + HOST_Y, base + Y, BYTES);
  tandem_sched_record(ctx, 2, 2);
  tandem_sched_host_wait(ctx, 2);

  /* p1 on the CPU. */
  tandem_sched_partition_begin(ctx, 1, -1);
  const float *y = (const float *)(host + HOST_Y);
  float *t = (float *)(host + HOST_T);
  for (int i = 0; i < GPU_TEST_N; ++i)
    t[i] = -y[i];
  tandem_sched_partition_end(ctx, 1, -1);

  /* p2 on GPU p2Gpu. */
  tandem_sched_copy_h2d(ctx, h2d2, t2, host + HOST_T, BYTES);
  tandem_sched_record(ctx, 3, h2d2);
  tandem_sched_wait(ctx, compute2, variant == CROSS_WAIT ? 1 : 3);
  tandem_sched_partition_begin(ctx, 2, compute2);
  uint64_t k1Args[2] = {t2, r2};
  tandem_sched_launch(ctx, compute2, 1, GPU_TEST_N / 256, 1, 1, 256, 1, 1,
                      k1Args);
  tandem_sched_partition_end(ctx, 2, compute2);
  tandem_sched_record(ctx, 4, compute2);
  tandem_sched_wait(ctx, d2h2, 4);
  tandem_sched_copy_d2h(ctx, d2h2, outputs[0], r2, BYTES);
  tandem_sched_record(ctx, 5, d2h2);
  tandem_sched_host_wait(ctx, 5);
  return 0;
}

static int32_t correctEntry(const tandem_exec_ctx_t *ctx,
                            const void *const *inputs, void *const *outputs) {
  return entry(ctx, inputs, outputs, CORRECT, 0);
}
static int32_t noWaitEntry(const tandem_exec_ctx_t *ctx,
                           const void *const *inputs, void *const *outputs) {
  return entry(ctx, inputs, outputs, NO_WAIT, 0);
}
static int32_t badCopyEntry(const tandem_exec_ctx_t *ctx,
                            const void *const *inputs, void *const *outputs) {
  return entry(ctx, inputs, outputs, BAD_COPY, 0);
}
static int32_t badKernelEntry(const tandem_exec_ctx_t *ctx,
                              const void *const *inputs, void *const *outputs) {
  return entry(ctx, inputs, outputs, BAD_KERNEL, 0);
}

static const tandem_program_kernel_t kKernels[] = {{"k0_affine", k0Affine, 4},
                                                   {"k1_relu", k1Relu, 2}};
/* Not loadable by a real GPU: the CUDA path picks among these by arch. */
static const char kPtx[] = "// no real PTX in this fixture\n";
static const tandem_device_image_t kImages[] = {
    {"sm_90", TANDEM_IMAGE_PTX, kPtx, sizeof(kPtx)}};
static const tandem_device_weight_t kWeights[] = {{W, weightW, BYTES},
                                                  {B, weightB, BYTES}};
static const char *const kPartitions[] = {
    "gpu_test_p0_gpu0", "gpu_test_p1_cpu0", "gpu_test_p2_gpu0"};
static const tandem_device_program_t kProgram = {
    2, kKernels, 1, kImages, 2, kWeights, 6 * BYTES, 6, 3, kPartitions};

static const int64_t kShape[] = {GPU_TEST_N};
static const tandem_tensor_desc_t kInputs[] = {{"x", TANDEM_F32, 1, kShape}};
static const tandem_tensor_desc_t kOutputs[] = {{"r", TANDEM_F32, 1, kShape}};

static int32_t noProgramEntry(const tandem_exec_ctx_t *ctx,
                              const void *const *inputs, void *const *outputs) {
  (void)inputs;
  (void)outputs;
  tandem_sched_record(ctx, 0, 0);
  return 0;
}

const tandem_model_desc_t gpu_test_no_program_descriptor = {
    TANDEM_ABI_VERSION, "gpu_test", 1, 1, kInputs, kOutputs, 0, 0,
    noProgramEntry,     NULL};

#define DESCRIPTOR(name, entryFn)                                              \
  const tandem_model_desc_t name = {TANDEM_ABI_VERSION_ONE_GPU,                \
                                    "gpu_test",                                \
                                    1,                                         \
                                    1,                                         \
                                    kInputs,                                   \
                                    kOutputs,                                  \
                                    2 * BYTES,                                 \
                                    2 * BYTES,                                 \
                                    entryFn,                                   \
                                    &kProgram}

DESCRIPTOR(gpu_test_descriptor, correctEntry);
DESCRIPTOR(gpu_test_no_wait_descriptor, noWaitEntry);
DESCRIPTOR(gpu_test_bad_copy_descriptor, badCopyEntry);
DESCRIPTOR(gpu_test_bad_kernel_descriptor, badKernelEntry);

/* The two-GPU program: GPU 0 as above, p2 on GPU 1. */
static int32_t twoGpuCorrectEntry(const tandem_exec_ctx_t *ctx,
                                  const void *const *inputs,
                                  void *const *outputs) {
  return entry(ctx, inputs, outputs, CORRECT, 1);
}
static int32_t twoGpuCrossWaitEntry(const tandem_exec_ctx_t *ctx,
                                    const void *const *inputs,
                                    void *const *outputs) {
  return entry(ctx, inputs, outputs, CROSS_WAIT, 1);
}

static const char *const kTwoGpuPartitions[] = {
    "gpu_test_p0_gpu0", "gpu_test_p1_cpu0", "gpu_test_p2_gpu1"};
static const uint64_t kTwoGpuArenas[] = {6 * BYTES, 2 * BYTES};
static const int32_t kTwoGpuWeightDevices[] = {0, 0};
static const int32_t kBadWeightDevices[] = {0, 2};
static const tandem_device_program_t kTwoGpuProgram = {2,
                                                       kKernels,
                                                       1,
                                                       kImages,
                                                       2,
                                                       kWeights,
                                                       6 * BYTES,
                                                       6,
                                                       3,
                                                       kTwoGpuPartitions,
                                                       2,
                                                       kTwoGpuArenas,
                                                       kTwoGpuWeightDevices};
static const tandem_device_program_t kBadWeightProgram = {2,
                                                          kKernels,
                                                          1,
                                                          kImages,
                                                          2,
                                                          kWeights,
                                                          6 * BYTES,
                                                          6,
                                                          3,
                                                          kTwoGpuPartitions,
                                                          2,
                                                          kTwoGpuArenas,
                                                          kBadWeightDevices};

#define TWO_GPU_DESCRIPTOR(name, entryFn, program)                             \
  const tandem_model_desc_t name = {TANDEM_ABI_VERSION_MULTI_GPU,              \
                                    "gpu_test",                                \
                                    1,                                         \
                                    1,                                         \
                                    kInputs,                                   \
                                    kOutputs,                                  \
                                    2 * BYTES,                                 \
                                    2 * BYTES,                                 \
                                    entryFn,                                   \
                                    &program}

TWO_GPU_DESCRIPTOR(gpu_test_two_gpu_descriptor, twoGpuCorrectEntry,
                   kTwoGpuProgram);
TWO_GPU_DESCRIPTOR(gpu_test_two_gpu_cross_wait_descriptor, twoGpuCrossWaitEntry,
                   kTwoGpuProgram);
TWO_GPU_DESCRIPTOR(gpu_test_two_gpu_bad_weight_descriptor, twoGpuCorrectEntry,
                   kBadWeightProgram);

#ifdef GPU_TEST_SHARED_LIBRARY
/* As a dlopen-able model for tandem-run: the weights are filled when the
 * library loads, and the correct variant is the default model. */
__attribute__((constructor)) static void initWeightsOnLoad(void) {
  gpu_test_init_weights();
}
__attribute__((visibility("default")))
const tandem_model_desc_t *const tandem_default_model = &gpu_test_descriptor;
#endif
