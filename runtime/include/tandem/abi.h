/*===- abi.h - the compiler/runtime ABI of compiled models --------*- C -*-===*
 *
 * Everything a compiled model's object code and the runtime must agree on:
 * the ABI versions, the element type and device image format values, and
 * the layouts of the descriptors the compiler emits as constant data
 * (tandem_model_desc_t and what it points to) and of the context the entry
 * receives. The single source of these definitions: runtime.h includes it,
 * and the compiler's artifact emitter includes it and checks its LLVM
 * struct layouts against these structs (codegen/Artifact/AbiLayout.h).
 * C11, no dependency beyond <stdint.h>. docs/RuntimeABI.md is the
 * reference.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TANDEM_ABI_H
#define TANDEM_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the descriptor/entry ABI in this header. Version 2 added the
 *  trailing `device_program` field of tandem_model_desc_t; version 3 the
 *  trailing multi-GPU fields of tandem_device_program_t (`num_devices`,
 *  `device_arena_sizes`, `weight_devices`); version 4 its trailing
 *  convolution table (`num_convs`, `convs`). tandem_model_create accepts
 *  TANDEM_ABI_VERSION, TANDEM_ABI_VERSION_MULTI_GPU (3: the program ends
 *  before `num_convs`), TANDEM_ABI_VERSION_ONE_GPU (2: the program ends
 *  before `num_devices` and runs on one GPU) and TANDEM_ABI_VERSION_CPU_ONLY
 *  (1: the descriptor ends before `device_program`, which is then never
 *  read) and rejects any other version. */
#define TANDEM_ABI_VERSION 4
/** An earlier ABI version, still accepted: a device program without the
 *  convolution table version 4 appended. */
#define TANDEM_ABI_VERSION_MULTI_GPU 3
/** An earlier ABI version, still accepted: a device program for one GPU,
 *  without the fields versions 3 and 4 appended. */
#define TANDEM_ABI_VERSION_ONE_GPU 2
/** The first ABI version, still accepted: a CPU-only descriptor without the
 *  `device_program` field. */
#define TANDEM_ABI_VERSION_CPU_ONLY 1

/** Streams per GPU of a device program. The host schedule numbers the
 *  streams of GPU d (its /device:GPU:d) d * TANDEM_STREAMS_PER_DEVICE + k,
 *  with k TANDEM_STREAM_COMPUTE, TANDEM_STREAM_H2D or TANDEM_STREAM_D2H. */
#define TANDEM_STREAMS_PER_DEVICE 3
enum {
  TANDEM_STREAM_COMPUTE = 0,
  TANDEM_STREAM_H2D = 1,
  TANDEM_STREAM_D2H = 2
};

/** Alignment, in bytes, of every arena (owned or caller-supplied). */
#define TANDEM_ARENA_ALIGNMENT 64

/** Floats of one image in the packed panel layout a depthwise conv writes
 *  for the 1x1 conv after it (tandem_dwconv2d_pad_packed_f32 and
 *  tandem_conv2d_packed_f32 in tandem/runtime.h): c rows of `pixels`
 *  columns, the columns in panels padded to a multiple of 32. The compiler
 *  sizes the buffer with it; the layout within is the runtime's (it follows
 *  the CPU's GEMM tile). */
#define TANDEM_PACKED_PANEL_FLOATS(c, pixels)                                  \
  ((c) * (((pixels) + 31) / 32 * 32))

/** Element types. The values are part of the ABI: new types are appended
 *  and existing values never change. */
typedef enum {
  TANDEM_F32 = 0,
  TANDEM_F16 = 1,
  TANDEM_BF16 = 2,
  TANDEM_I64 = 3,
  TANDEM_I32 = 4,
  TANDEM_BOOL = 5,
  TANDEM_F64 = 6,
  TANDEM_I8 = 7,
  TANDEM_U8 = 8,
  TANDEM_I16 = 9,
  TANDEM_U16 = 10,
  TANDEM_U32 = 11,
  TANDEM_U64 = 12
} tandem_dtype_t;

/** The largest tandem_dtype_t value this runtime knows. */
#define TANDEM_DTYPE_LAST TANDEM_U64

/** Bytes per element of `dtype` (bool is one byte); 0 outside the enum.
 *  The runtime's tandem_dtype_size and the compiler share it. */
static inline int32_t tandem_abi_dtype_size(tandem_dtype_t dtype) {
  switch (dtype) {
  case TANDEM_F32:
  case TANDEM_I32:
  case TANDEM_U32:
    return 4;
  case TANDEM_F16:
  case TANDEM_BF16:
  case TANDEM_I16:
  case TANDEM_U16:
    return 2;
  case TANDEM_I64:
  case TANDEM_F64:
  case TANDEM_U64:
    return 8;
  case TANDEM_BOOL:
  case TANDEM_I8:
  case TANDEM_U8:
    return 1;
  }
  return 0;
}

/** "f32", "f16", ... of `dtype`; "unknown" outside the enum. The
 *  runtime's tandem_dtype_name and the compiler share it. */
static inline const char *tandem_abi_dtype_name(tandem_dtype_t dtype) {
  switch (dtype) {
  case TANDEM_F32:
    return "f32";
  case TANDEM_F16:
    return "f16";
  case TANDEM_BF16:
    return "bf16";
  case TANDEM_I64:
    return "i64";
  case TANDEM_I32:
    return "i32";
  case TANDEM_BOOL:
    return "bool";
  case TANDEM_F64:
    return "f64";
  case TANDEM_I8:
    return "i8";
  case TANDEM_U8:
    return "u8";
  case TANDEM_I16:
    return "i16";
  case TANDEM_U16:
    return "u16";
  case TANDEM_U32:
    return "u32";
  case TANDEM_U64:
    return "u64";
  }
  return "unknown";
}

/** A statically shaped dense row-major tensor in a model's signature. All
 *  pointers refer to storage owned by the descriptor (constant data of the
 *  compiled model). `name` must not be NULL (tandem_model_create rejects a
 *  NULL name); it may be any NUL-terminated string. */
typedef struct {
  const char *name;
  tandem_dtype_t dtype;
  int32_t rank;
  const int64_t *shape; /* `rank` extents; may be NULL when rank == 0 */
} tandem_tensor_desc_t;

/** A fixed set of worker threads that run tandem_parallel_for chunks. */
typedef struct tandem_thread_pool_s tandem_thread_pool_t;

/** What generated code receives on every run. Owned by the model instance;
 *  valid for the duration of the entry call. */
typedef struct {
  tandem_thread_pool_t *pool; /* NULL: run serially */
  void *arena;                /* TANDEM_ARENA_ALIGNMENT-aligned, or NULL */
  uint64_t arena_bytes;       /* >= the descriptor's arena_bytes */
  void *reserved[4];          /* runtime-private: [0] the instance's kernel
                                 cache (may be NULL); [1] the run slot of a
                                 device program (NULL for CPU-only models);
                                 others NULL */
} tandem_exec_ctx_t;

/** A kernel's CPU twin: args[i] points to the value of argument i (for a
 *  device pointer, a host `void *` to its bytes), as CUDA's kernelParams do.
 *  One call computes the whole launch. */
typedef void (*tandem_cpu_kernel_fn)(void **args);

/** One kernel of a device program. */
typedef struct {
  const char *name;              /* entry point in the device images */
  tandem_cpu_kernel_fn cpu_twin; /* the same kernel for the host */
  int32_t num_args;              /* all device pointers */
} tandem_program_kernel_t;

/** Epilogues of a library GEMM (tandem_gemm_desc_t::epilogue). The values
 *  are part of the ABI. */
enum {
  TANDEM_GEMM_EPILOGUE_NONE = 0,
  TANDEM_GEMM_EPILOGUE_RELU = 1,      /* C = max(0, AB) */
  TANDEM_GEMM_EPILOGUE_BIAS = 2,      /* C = AB + bias */
  TANDEM_GEMM_EPILOGUE_BIAS_RELU = 3, /* C = max(0, AB + bias) */
  /* GELU in its tanh approximation (ONNX Gelu approximate="tanh",
   * cuBLASLt's GELU): gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi)
   * (x + 0.044715 x^3))). */
  TANDEM_GEMM_EPILOGUE_GELU = 4,     /* C = gelu(AB) */
  TANDEM_GEMM_EPILOGUE_BIAS_GELU = 5 /* C = gelu(AB + bias) */
};

/** tandem_gemm_desc_t::flags: the narrowest format cuBLASLt may round A
 *  and B to inside the product, on tensor cores with f32 accumulation (the
 *  operands stay f32 in memory; tandemc --gpu-precision). At most one is
 *  set; without any, FP32 (CUBLAS_COMPUTE_32F). The emulated device and
 *  the CPU fallback round the operands the same way (round to nearest
 *  even), so their results show the mode's error. */
#define TANDEM_GEMM_ALLOW_TF32 1 /* CUBLAS_COMPUTE_32F_FAST_TF32 */
#define TANDEM_GEMM_ALLOW_BF16 2 /* CUBLAS_COMPUTE_32F_FAST_16BF */
#define TANDEM_GEMM_ALLOW_FP16 4 /* CUBLAS_COMPUTE_32F_FAST_16F */
/* A (or B) is a weight of the model (uploaded once at creation): the same
 * values at the same address on every run of an instance. The host path
 * (emulated device, CPU fallback) then caches its packed form per instance
 * in FP32, as a CPU build does (TANDEM_SGEMM_CONSTANT_A/B); cuBLASLt
 * ignores them. */
#define TANDEM_GEMM_CONSTANT_A 8
#define TANDEM_GEMM_CONSTANT_B 16
/* A and B are stored in the format TANDEM_GEMM_ALLOW_BF16 or _FP16 names
 * (2-byte elements, which one of the two flags must be set; added
 * 2026-12-07, runtimes before it reject the flag as unknown): tandemc
 * --gpu-precision=bf16|fp16 converts a weight operand once at compile time
 * and the other operand in a generated kernel before the call, so cuBLASLt
 * reads half the bytes (CUDA_R_16BF / CUDA_R_16F operands,
 * CUBLAS_COMPUTE_32F). Strides and leading dimensions stay in elements;
 * C and the bias stay f32. */
#define TANDEM_GEMM_16BIT_AB 32

/** An f32 GEMM of a device program (A and B may be 16-bit,
 *  TANDEM_GEMM_16BIT_AB), for a library (cuBLASLt) or the CPU sgemm: for
 *  each of `batch` problems p,
 *    C_p = epilogue(op(A_p) * op(B_p) [+ bias])
 *  with op(A_p) m x k, op(B_p) k x n and C_p m x n, all row-major with
 *  leading dimensions (elements between rows) lda, ldb, ldc. op(A) is A
 *  (A_p[i][l] at a[p*stride_a + i*lda + l]) or, with trans_a, A stored
 *  k x m (a[p*stride_a + l*lda + i]); likewise B. A batch stride of 0
 *  broadcasts the operand. `bias` has n elements, added to every row. C
 *  is overwritten (beta = 0) and must not overlap A, B or the bias. Every
 *  field is an int64_t so that generated code emits it as one constant
 *  array. */
typedef struct {
  int64_t batch, m, n, k;
  int64_t trans_a, trans_b; /* 0 or 1 */
  int64_t lda, ldb, ldc;
  int64_t stride_a, stride_b, stride_c; /* elements between problems */
  int64_t epilogue;                     /* TANDEM_GEMM_EPILOGUE_* */
  int64_t flags; /* TANDEM_GEMM_ALLOW_*, _CONSTANT_A/B, _16BIT_AB */
} tandem_gemm_desc_t;

/** Activations of a library convolution (tandem_conv_desc_t::activation),
 *  applied last. The values are part of the ABI. */
enum {
  TANDEM_CONV_ACT_NONE = 0,
  TANDEM_CONV_ACT_RELU = 1,    /* max(0, x) */
  TANDEM_CONV_ACT_RELU6 = 2,   /* min(max(0, x), 6) (cuDNN's clipped ReLU) */
  TANDEM_CONV_ACT_SIGMOID = 3, /* 1 / (1 + exp(-x)) */
  TANDEM_CONV_ACT_SWISH = 4    /* x / (1 + exp(-x)) */
};

/** tandem_conv_desc_t::flags. */
#define TANDEM_CONV_BIAS 1       /* adds `bias` (k elements, one per channel) */
#define TANDEM_CONV_RESIDUAL 2   /* adds `z` (shaped like the output) */
/* The narrowest format cuDNN may round x and w to, at most one of them
 * (storage stays f32): TF32 is CUDNN_TENSOR_OP_MATH, FP16
 * CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION; without either, CUDNN_FMA_MATH.
 * The emulated device and the CPU fallback round the operands alike. */
#define TANDEM_CONV_ALLOW_TF32 4
#define TANDEM_CONV_ALLOW_FP16 8
/* w is a weight of the model (uploaded once at creation): the same values at
 * the same address on every run of an instance. The host path (emulated
 * device, CPU fallback) then caches w's packed form per instance and, in
 * f32, may run a 3x3 stride-1 convolution as Winograd; cuDNN ignores it. */
#define TANDEM_CONV_CONSTANT_FILTER 16
/* The channels come last (added 2026-12-07; runtimes before it reject the
 * flag as unknown): x is n x h x w x c, w k x r x s x c/groups (cuDNN's
 * KRSC), y and z n x p x q x k. The sizes stay the NCHW fields below. */
#define TANDEM_CONV_NHWC 32

/** An f32 2-D convolution of a device program, for a library (cuDNN) or the
 *  host: NCHW input x (n x c x h x w), filter w (k x c/groups x r x s),
 *  output y (n x k x p x q), all dense row-major;
 *    y[b][o][i][j] = act(sum over the group's input channels ch and the
 *      filter taps (u, v) of x[b][ch][i*stride_h - pad_h + u*dilation_h]
 *      [j*stride_w - pad_w + v*dilation_w] * w[o][ch - g*c/groups][u][v]
 *      [+ bias[o]] [+ z[b][o][i][j]])
 *  with out-of-range input positions reading zero and g = o / (k/groups).
 *  Padding is symmetric: p = (h + 2 pad_h - dilation_h (r - 1) - 1) /
 *  stride_h + 1 (likewise q). y is overwritten and must not overlap x, w,
 *  the bias or z. Every field is an int64_t so that generated code emits
 *  it as one constant array. */
typedef struct {
  int64_t n, c, h, w; /* input */
  int64_t k, r, s;    /* output channels, filter height and width */
  int64_t groups;     /* divides c and k */
  int64_t p, q;       /* output height and width */
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t activation; /* TANDEM_CONV_ACT_* */
  int64_t flags;      /* TANDEM_CONV_BIAS | TANDEM_CONV_RESIDUAL | ... */
} tandem_conv_desc_t;

/** Formats of device images. The values are part of the ABI. */
enum { TANDEM_IMAGE_PTX = 0, TANDEM_IMAGE_CUBIN = 1, TANDEM_IMAGE_FATBIN = 2 };

/** One device image of a program (a CUDA module for one architecture). */
typedef struct {
  const char *arch; /* "sm_90", ... */
  int32_t format;   /* TANDEM_IMAGE_* ; PTX is NUL-terminated text */
  const void *data;
  uint64_t size;
} tandem_device_image_t;

/** A weight that lives in the device arena, uploaded once at creation. */
typedef struct {
  uint64_t device_offset; /* in the device arena */
  const void *host_data;  /* in the object's read-only data */
  uint64_t bytes;
} tandem_device_weight_t;

/** Everything the runtime needs to run a model's GPU partitions. Constant
 *  data owned by the model's object code. */
typedef struct {
  int32_t num_kernels;
  const tandem_program_kernel_t *kernels;
  int32_t num_images;
  const tandem_device_image_t *images;
  int32_t num_weights;
  const tandem_device_weight_t *weights;
  uint64_t device_arena_bytes;
  int32_t num_events;
  int32_t num_partitions;             /* GPU and CPU partitions, in order */
  const char *const *partition_names; /* e.g. "model_p0_gpu0" */
  /* ABI version 3 only (absent from version-2 programs, which run on one
   * GPU): the GPUs the program runs on, /device:GPU:0 .. num_devices - 1,
   * each with its own device arena (device_arena_bytes is GPU 0's), and the
   * GPU whose arena holds each weight (a weight two GPUs read is listed
   * once per GPU). */
  int32_t num_devices;                /* >= 1 */
  const uint64_t *device_arena_sizes; /* num_devices sizes */
  const int32_t *weight_devices;      /* num_weights GPU numbers */
  /* ABI version 4 only: every library convolution's descriptor (the ones
   * its tandem_sched_conv calls pass), so that the runtime chooses their
   * algorithms and sizes their workspace when the model is created. */
  int32_t num_convs;
  const tandem_conv_desc_t *const *convs; /* num_convs descriptors */
} tandem_device_program_t;

/** The compiler emits one of these per model, as a constant global named
 *  <name>_descriptor (and, in shared libraries, a
 *  `const tandem_model_desc_t *tandem_default_model` pointing at it). All of
 *  it is constant data owned by the model's object code. */
typedef struct tandem_model_desc_t {
  uint32_t abi_version; /* TANDEM_ABI_VERSION */
  const char *name;
  int32_t num_inputs;
  int32_t num_outputs;
  const tandem_tensor_desc_t *inputs;
  const tandem_tensor_desc_t *outputs;
  uint64_t arena_bytes;  /* host arena the entry needs, 64-byte aligned */
  uint64_t weight_bytes; /* read-only weights in the object, for reporting */
  /* Dense row-major buffers, inputs[i] / outputs[i] in descriptor order;
   * returns 0 on success, non-zero on internal failure. Called by one thread
   * at a time per exec context. */
  int32_t (*entry)(const tandem_exec_ctx_t *ctx, const void *const *inputs,
                   void *const *outputs);
  /* ABI version 2 and later (absent from version-1 descriptors): the GPU
   * partitions' program, NULL for a CPU-only model. */
  const tandem_device_program_t *device_program;
} tandem_model_desc_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TANDEM_ABI_H */
