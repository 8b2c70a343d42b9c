/*===- runtime.h - Tandem's C runtime API -------------------------*- C -*-===*
 *
 * The pure C API that compiled Tandem models and their hosts link against.
 * C11, no dependency beyond the C standard library. docs/RuntimeABI.md is the
 * reference; every declaration here states who owns what and whether it is
 * thread-safe. No function aborts the process: failures come back as a
 * tandem_status_t.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TANDEM_RUNTIME_H
#define TANDEM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TANDEM_API
#elif defined(__GNUC__)
#define TANDEM_API __attribute__((visibility("default")))
#else
#define TANDEM_API
#endif

#if defined(__GNUC__)
#define TANDEM_PRINTF_FORMAT(fmt, args)                                        \
  __attribute__((format(printf, fmt, args)))
#else
#define TANDEM_PRINTF_FORMAT(fmt, args)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the descriptor/entry ABI in this header. A model descriptor
 *  whose abi_version differs is rejected by tandem_model_create. */
#define TANDEM_ABI_VERSION 1

/** Alignment, in bytes, of every arena (owned or caller-supplied). */
#define TANDEM_ARENA_ALIGNMENT 64

/*===------------------------------------------------------------------===*
 * Status
 *===------------------------------------------------------------------===*/

/** Status codes. The values are part of the ABI. */
typedef enum {
  TANDEM_OK = 0,
  TANDEM_INVALID_ARGUMENT = 1,
  TANDEM_OUT_OF_MEMORY = 2,
  TANDEM_BUSY = 3,
  TANDEM_UNAVAILABLE = 4,
  TANDEM_INTERNAL = 5
} tandem_status_code_t;

/** A status: NULL means OK; anything else is an error the caller owns and
 *  must release with tandem_status_free. A status is immutable; it may be
 *  read from any thread but freed only once. */
typedef struct tandem_status_s *tandem_status_t;

/** The code of `status`; TANDEM_OK for NULL. Thread-safe. */
TANDEM_API tandem_status_code_t tandem_status_code(tandem_status_t status);

/** The message of `status`: "" for NULL. The string is owned by the status
 *  and lives until tandem_status_free. Thread-safe. */
TANDEM_API const char *tandem_status_message(tandem_status_t status);

/** Releases `status`; NULL is a no-op. Not to be called twice on one status. */
TANDEM_API void tandem_status_free(tandem_status_t status);

/** Makes a status with `code` and a printf-style message; the caller owns the
 *  result. TANDEM_OK gives NULL. When memory runs out, returns a shared
 *  static TANDEM_OUT_OF_MEMORY status (freeing it is a no-op), so the result
 *  of an error code is never NULL. Thread-safe. */
TANDEM_API tandem_status_t tandem_status_make(tandem_status_code_t code,
                                              const char *fmt, ...)
    TANDEM_PRINTF_FORMAT(2, 3);

/** The name of a status code ("OK", "INVALID_ARGUMENT", ...; "UNKNOWN" for
 *  values outside the enum). Static storage; thread-safe. */
TANDEM_API const char *tandem_status_code_name(tandem_status_code_t code);

/*===------------------------------------------------------------------===*
 * Element types and tensor descriptions
 *===------------------------------------------------------------------===*/

/** Element types. The values are part of the ABI. */
typedef enum {
  TANDEM_F32 = 0,
  TANDEM_F16 = 1,
  TANDEM_BF16 = 2,
  TANDEM_I64 = 3,
  TANDEM_I32 = 4,
  TANDEM_BOOL = 5
} tandem_dtype_t;

/** Bytes per element (bool is one byte); 0 for a value outside the enum.
 *  Thread-safe. */
TANDEM_API size_t tandem_dtype_size(tandem_dtype_t dtype);

/** "f32", "f16", "bf16", "i64", "i32", "bool"; "unknown" outside the enum.
 *  Static storage; thread-safe. */
TANDEM_API const char *tandem_dtype_name(tandem_dtype_t dtype);

/** A statically shaped dense row-major tensor in a model's signature. All
 *  pointers refer to storage owned by the descriptor (constant data of the
 *  compiled model). */
typedef struct {
  const char *name;
  tandem_dtype_t dtype;
  int32_t rank;
  const int64_t *shape; /* `rank` extents; may be NULL when rank == 0 */
} tandem_tensor_desc_t;

/** Number of elements of `desc` (1 for rank 0), or -1 when `desc` is NULL,
 *  malformed (negative rank or extent, NULL shape with rank > 0) or the
 *  product overflows int64_t. Thread-safe. */
TANDEM_API int64_t
tandem_tensor_desc_num_elements(const tandem_tensor_desc_t *desc);

/*===------------------------------------------------------------------===*
 * CPU thread pool
 *===------------------------------------------------------------------===*/

/** A fixed set of worker threads that run tandem_parallel_for chunks. */
typedef struct tandem_thread_pool_s tandem_thread_pool_t;

/** Physical cores this process may run on: distinct (package, core) pairs of
 *  the CPUs in its affinity mask, read from /sys (then /proc/cpuinfo); falls
 *  back to the number of logical CPUs. Always >= 1. Thread-safe. */
TANDEM_API int32_t tandem_physical_cores(void);

/** Creates a pool running `threads` ways in parallel: `threads - 1` workers
 *  plus the thread that calls tandem_parallel_for. threads <= 0 means
 *  tandem_physical_cores(). On success *out owns the pool (release with
 *  tandem_thread_pool_destroy); on failure *out is NULL and no thread is left
 *  running. Thread-safe. */
TANDEM_API tandem_status_t
tandem_thread_pool_create(int32_t threads, tandem_thread_pool_t **out);

/** Joins the workers and frees the pool; NULL is a no-op. No
 *  tandem_parallel_for on this pool may be running or start afterwards. */
TANDEM_API void tandem_thread_pool_destroy(tandem_thread_pool_t *pool);

/** The parallelism of `pool` (workers + caller); 1 for NULL. Thread-safe. */
TANDEM_API int32_t tandem_thread_pool_size(const tandem_thread_pool_t *pool);

/** A loop body: processes the indices [begin, end). */
typedef void (*tandem_parallel_fn)(void *env, int64_t begin, int64_t end);

/** Runs fn over [0, n) in disjoint chunks of at least `grain` indices (the
 *  last chunk may be shorter), on the pool's workers plus the caller, and
 *  returns when every chunk is done. Every index is covered exactly once.
 *  n <= 0 does nothing; grain <= 0 means 1.
 *  Runs serially on the caller, as fn(env, 0, n), when pool is NULL, the pool
 *  has one thread, n <= grain, or the call is nested (made from inside any
 *  tandem_parallel_for body, on any pool).
 *  Thread-safety: safe to call from several threads on one pool; such calls
 *  are SERIALIZED (a second caller waits until the first call has finished;
 *  nested calls never wait, they run serially). fn must not block on another
 *  thread's tandem_parallel_for on the same pool. */
TANDEM_API void tandem_parallel_for(tandem_thread_pool_t *pool, int64_t n,
                                    int64_t grain, tandem_parallel_fn fn,
                                    void *env);

/*===------------------------------------------------------------------===*
 * Arenas
 *===------------------------------------------------------------------===*/

/** Allocates `bytes` (rounded up to a multiple of TANDEM_ARENA_ALIGNMENT)
 *  aligned to TANDEM_ARENA_ALIGNMENT. bytes == 0 gives *out == NULL and OK.
 *  The caller owns *out and frees it with tandem_arena_free. Thread-safe. */
TANDEM_API tandem_status_t tandem_arena_alloc(uint64_t bytes, void **out);

/** Frees an arena from tandem_arena_alloc; NULL is a no-op. */
TANDEM_API void tandem_arena_free(void *arena);

/*===------------------------------------------------------------------===*
 * Models
 *===------------------------------------------------------------------===*/

/** What generated code receives on every run. Owned by the model instance;
 *  valid for the duration of the entry call. */
typedef struct {
  tandem_thread_pool_t *pool; /* NULL: run serially */
  void *arena;                /* TANDEM_ARENA_ALIGNMENT-aligned, or NULL */
  uint64_t arena_bytes;       /* >= the descriptor's arena_bytes */
  void *reserved[4];          /* [0]: the instance's kernel cache (runtime-
                                 private, may be NULL); others NULL */
} tandem_exec_ctx_t;

/*===------------------------------------------------------------------===*
 * Kernels called by generated code
 *===------------------------------------------------------------------===*/

/** tandem_sgemm_f32 flag: add the product to C instead of overwriting it. */
#define TANDEM_SGEMM_ACCUMULATE 1
/** tandem_sgemm_f32 flags: A (or B) holds the same values at the same
 *  address on every call with this ctx (weights). Its packed form is then
 *  kept in the instance's kernel cache and reused; ignored without one. */
#define TANDEM_SGEMM_CONSTANT_A 2
#define TANDEM_SGEMM_CONSTANT_B 4
/** tandem_sgemm_f32 flag: the fused ReLU epilogue: C = max(0, result),
 *  applied in registers before the store (NaN stays NaN). */
#define TANDEM_SGEMM_RELU 8

/** For each of `batch` problems b: C_b = A_b * B_b (or C_b += A_b * B_b with
 *  TANDEM_SGEMM_ACCUMULATE), where A_b is m x k, B_b is k x n and C_b is
 *  m x n, all f32, addressed by element strides: A_b[i][p] is
 *  a[b*sAb + i*sAm + p*sAk], and so on. Strides may be 0 (broadcast operands,
 *  e.g. shared weights with sAb = 0). C must not overlap A or B.
 *  Compiled models call this for every f32 contraction (matmul, gemm, conv
 *  after im2col); it is also usable directly.
 *  Work is spread over ctx->pool (NULL ctx or pool: the calling thread only).
 *  Uses AVX-512 or AVX2+FMA micro-kernels when the CPU has them (chosen once
 *  per process; TANDEM_CPU_KERNELS=avx512|avx2|portable restricts the
 *  choice). Packing buffers are thread-local and reused, so only a thread's
 *  first call allocates. If that allocation fails, C is left unspecified and
 *  the model run that made the call returns TANDEM_INTERNAL. Thread-safe. */
TANDEM_API void tandem_sgemm_f32(const tandem_exec_ctx_t *ctx, int64_t batch,
                                 int64_t m, int64_t n, int64_t k,
                                 const float *a, int64_t sAb, int64_t sAm,
                                 int64_t sAk, const float *b, int64_t sBb,
                                 int64_t sBk, int64_t sBn, float *c,
                                 int64_t sCb, int64_t sCm, int64_t sCn,
                                 int32_t flags);

/** tandem_conv2d_f32 flags: add to the output instead of overwriting it
 *  (e.g. onto a bias already there); the filter is constant (weights), so
 *  its packed form is cached in the instance as for tandem_sgemm_f32. */
#define TANDEM_CONV2D_ACCUMULATE 1
#define TANDEM_CONV2D_CONSTANT_FILTER 2
#define TANDEM_CONV2D_RELU 8 /* fused ReLU epilogue, as TANDEM_SGEMM_RELU */

/** A 2-D convolution in NCHW, as the GEMM filter [F, C*KH*KW] x
 *  im2col(input) [C*KH*KW, OH*OW] per batch element, without materialising
 *  im2col: the sgemm packing gathers B's panels straight from the input.
 *  `input` is [n, c, h, w] (already padded; element strides sIn..sIw),
 *  `filter` is a dense row-major [f, c, kh, kw], and `output` is
 *  [n, f, oh, ow] with element strides sOn, sOf and dense rows
 *  (oh * ow contiguous elements per channel). Output (y, x) reads input rows
 *  y*strideH + i*dilationH and columns x*strideW + j*dilationW. Threads,
 *  micro-kernels, caching and failures as for tandem_sgemm_f32.
 *  Thread-safe. */
TANDEM_API void tandem_conv2d_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t f, int64_t kh, int64_t kw, const float *filter, float *output,
    int64_t sOn, int64_t sOf, int64_t oh, int64_t ow, int64_t strideH,
    int64_t strideW, int64_t dilationH, int64_t dilationW, int32_t flags);

/** The micro-kernel family tandem_sgemm_f32 uses in this process:
 *  "avx512", "avx2" or "portable". */
TANDEM_API const char *tandem_sgemm_f32_isa(void);

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
} tandem_model_desc_t;

/** Options of tandem_model_create. */
typedef struct {
  int32_t intra_op_threads; /* 0: physical cores; 1: no pool; > 1: that many */
  void *arena;              /* optional caller-owned, 64-byte aligned */
  uint64_t arena_bytes;     /* size of `arena`; >= descriptor's arena_bytes */
} tandem_model_options_t;

/** Fills `options` with the defaults (physical cores, runtime-owned arena);
 *  NULL is a no-op. */
TANDEM_API void tandem_model_options_init(tandem_model_options_t *options);

/** An instance of a model: its descriptor, thread pool and arena. */
typedef struct tandem_model_s tandem_model_t;

/** Validates `desc` (non-NULL, abi_version == TANDEM_ABI_VERSION, an entry,
 *  well-formed tensor descriptions) and `options` (NULL = defaults; a
 *  caller arena must be 64-byte aligned and at least desc->arena_bytes), then
 *  creates an instance: a thread pool of options->intra_op_threads ways (none
 *  for 1) and, unless the caller supplies one, an arena of desc->arena_bytes
 *  allocated once here. On success *out owns the instance (release with
 *  tandem_model_destroy); on failure *out is NULL. `desc` and a caller arena
 *  must outlive the instance; the instance never frees them. Thread-safe:
 *  instances are independent, and several may run at once on different
 *  threads (each has its own arena and pool). */
TANDEM_API tandem_status_t tandem_model_create(
    const tandem_model_desc_t *desc, const tandem_model_options_t *options,
    tandem_model_t **out);

/** Frees the instance, its pool and its own arena; NULL is a no-op. Must not
 *  overlap a run of the same instance. */
TANDEM_API void tandem_model_destroy(tandem_model_t *model);

/** The descriptor the instance was created from (NULL for NULL); owned by
 *  the model's object code. Thread-safe. */
TANDEM_API const tandem_model_desc_t *
tandem_model_descriptor(const tandem_model_t *model);

/** Unchecked fast path: runs the model on dense row-major buffers that must
 *  match the descriptor (inputs[i] / outputs[i] in descriptor order; the
 *  caller owns them; outputs are fully written on success). A NULL model,
 *  NULL array (with a non-zero count) or NULL buffer gives
 *  TANDEM_INVALID_ARGUMENT; an entry failure gives TANDEM_INTERNAL.
 *  Thread-safety: one run per instance at a time. A run that starts while
 *  another run of the same instance is in progress returns TANDEM_BUSY at
 *  once without touching any buffer (an atomic flag, test-and-set on entry,
 *  cleared on exit, detects it). Different instances may run concurrently. */
TANDEM_API tandem_status_t tandem_model_run(tandem_model_t *model,
                                            const void *const *inputs,
                                            void *const *outputs);

/** A caller-described tensor for tandem_model_run_checked; the caller owns
 *  `data` and `shape`. */
typedef struct {
  void *data;
  tandem_dtype_t dtype;
  int32_t rank;
  const int64_t *shape;
} tandem_tensor_t;

/** Checked path: like tandem_model_run, after checking the counts and each
 *  tensor's data pointer, dtype, rank and shape against the descriptor.
 *  A mismatch returns TANDEM_INVALID_ARGUMENT with a message naming the input
 *  or output and giving expected vs got (e.g. "input 0 ('x'): expected
 *  f32[2,3], got f32[3,2]"). Same thread-safety as tandem_model_run. */
TANDEM_API tandem_status_t tandem_model_run_checked(
    tandem_model_t *model, const tandem_tensor_t *inputs, int32_t num_inputs,
    const tandem_tensor_t *outputs, int32_t num_outputs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TANDEM_RUNTIME_H */
