/*===- GpuTestModel.h - The hand-written device-program fixture ---*- C -*-===*
 *
 * See GpuTestModel.c.
 *===----------------------------------------------------------------------===*/

#ifndef TANDEM_TEST_RUNTIME_GPUTESTMODEL_H
#define TANDEM_TEST_RUNTIME_GPUTESTMODEL_H

#include "tandem/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Elements of the input x and the output r (f32[GPU_TEST_N]). */
#define GPU_TEST_N 1024

/** The model: r = relu(-(x * w + b)) through two GPU partitions and a CPU
 *  one. */
extern const tandem_model_desc_t gpu_test_descriptor;
/** The same with the compute stream's wait for the copy of x left out. */
extern const tandem_model_desc_t gpu_test_no_wait_descriptor;
/** Copies 2x the input's bytes to the last buffer: past the device
 *  arena's end. */
extern const tandem_model_desc_t gpu_test_bad_copy_descriptor;
/** Launches kernel 7 of a program of 2. */
extern const tandem_model_desc_t gpu_test_bad_kernel_descriptor;

/** The same model with p2 on /device:GPU:1 (ABI version 3, two GPUs). */
extern const tandem_model_desc_t gpu_test_two_gpu_descriptor;
/** GPU 1's compute stream waits for an event recorded on GPU 0. */
extern const tandem_model_desc_t gpu_test_two_gpu_cross_wait_descriptor;
/** A weight on GPU 2 of a two-GPU program. */
extern const tandem_model_desc_t gpu_test_two_gpu_bad_weight_descriptor;

/** No device program, but an entry that calls tandem_sched_record. */
extern const tandem_model_desc_t gpu_test_no_program_descriptor;

/** Fills the weights w and b (call once before creating the model). */
void gpu_test_init_weights(void);
/** The expected r[i] for x[i] = x. */
float gpu_test_reference(float x, int i);

#ifdef __cplusplus
}
#endif

#endif
