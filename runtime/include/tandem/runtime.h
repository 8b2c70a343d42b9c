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

#include "tandem/abi.h"

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

/** Bytes per element (bool is one byte); 0 for a value outside the enum.
 *  Thread-safe. */
TANDEM_API size_t tandem_dtype_size(tandem_dtype_t dtype);

/** "f32", "f16", "bf16", "i64", "i32", "bool", "f64", "i8", "u8", "i16",
 *  "u16", "u32", "u64"; "unknown" outside the enum. Static storage;
 *  thread-safe. */
TANDEM_API const char *tandem_dtype_name(tandem_dtype_t dtype);

/** Number of elements of `desc` (1 for rank 0), or -1 when `desc` is NULL,
 *  malformed (negative rank or extent, NULL shape with rank > 0) or the
 *  product overflows int64_t. Thread-safe. */
TANDEM_API int64_t
tandem_tensor_desc_num_elements(const tandem_tensor_desc_t *desc);

/*===------------------------------------------------------------------===*
 * CPU thread pool
 *===------------------------------------------------------------------===*/

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
 * Kernels called by generated code
 *===------------------------------------------------------------------===*/

/** Called by generated code when an index that a model reads at run time
 *  (a Gather's indices) lies outside the axis it indexes: `index` is one such
 *  index, `size` the axis' size (valid indices are -size to size-1), and
 *  `node` the op's ONNX node name (a constant string of the model). The
 *  generated code clamps every index into its axis, so no read leaves the
 *  tensor; the run then returns TANDEM_INVALID_ARGUMENT with a message
 *  naming the node and the index instead of a result. Only the first report
 *  of a run counts. Called on the thread that runs the entry; `ctx` may be
 *  NULL. */
TANDEM_API void tandem_report_index_error(const tandem_exec_ctx_t *ctx,
                                          const char *node, int64_t index,
                                          int64_t size);

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
/** tandem_sgemm_f32 flag: the fused ReLU6 epilogue: C = min(6, max(0,
 *  result)) (NaN stays NaN); takes precedence over TANDEM_SGEMM_RELU. */
#define TANDEM_SGEMM_RELU6 16
/** tandem_sgemm_f32 flag: the fused HardSwish epilogue: C = x * min(max(x *
 *  (1/6) + 0.5, 0), 1) for x = result, rounded after each operation (no
 *  fused multiply-add) as ONNX HardSwish computes it; NaN stays NaN. Takes
 *  precedence over TANDEM_SGEMM_RELU and TANDEM_SGEMM_RELU6. */
#define TANDEM_SGEMM_HARDSWISH 256
/** tandem_sgemm_f32 flag: the fused SiLU epilogue: C = x * (1 / (1 +
 *  exp(-x))) for x = result, as ONNX Mul(x, Sigmoid(x)) computes it in
 *  tandemc's generated loop, bit for bit (exp as MLIR's polynomial
 *  expansion of math.exp, the same fused multiply-adds and roundings);
 *  NaN stays NaN. Takes precedence over TANDEM_SGEMM_RELU and
 *  TANDEM_SGEMM_RELU6; TANDEM_SGEMM_HARDSWISH takes precedence over it. */
#define TANDEM_SGEMM_SILU 512

/** Does nothing. Generated code calls it before each kernel call that sets
 *  a HARDSWISH flag: a runtime older than that epilogue, which would ignore
 *  the bit, then refuses to load the object (an undefined symbol) instead
 *  of computing without it. */
TANDEM_API void tandem_require_hardswish_epilogue(void);
/** Does nothing: as tandem_require_hardswish_epilogue, for the SILU flags. */
TANDEM_API void tandem_require_silu_epilogue(void);

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

/** tandem_sgemm_f32 with a dense layer's bias: `bias` holds n floats, and
 *  bias[j] is added to column j of every C_b before the products (after
 *  C's prior value with TANDEM_SGEMM_ACCUMULATE), in registers, before the
 *  epilogue: C_b = epi(bias + A_b * B_b). The same as broadcasting the bias
 *  into C and accumulating, bit for bit, without the pass over C. `bias`
 *  may be NULL (then this is tandem_sgemm_f32). Compiled models call it for
 *  a matmul followed by the add of a vector along its columns. */
TANDEM_API void tandem_sgemm_bias_f32(const tandem_exec_ctx_t *ctx,
                                      int64_t batch, int64_t m, int64_t n,
                                      int64_t k, const float *a, int64_t sAb,
                                      int64_t sAm, int64_t sAk, const float *b,
                                      int64_t sBb, int64_t sBk, int64_t sBn,
                                      const float *bias, float *c, int64_t sCb,
                                      int64_t sCm, int64_t sCn, int32_t flags);

/** tandem_conv2d_f32 flags: add to the output instead of overwriting it
 *  (e.g. onto a bias already there); the filter is constant (weights), so
 *  its packed form is cached in the instance as for tandem_sgemm_f32. */
#define TANDEM_CONV2D_ACCUMULATE 1
#define TANDEM_CONV2D_CONSTANT_FILTER 2
#define TANDEM_CONV2D_RELU 8   /* fused ReLU epilogue, as TANDEM_SGEMM_RELU */
#define TANDEM_CONV2D_RELU6 16 /* fused ReLU6, as TANDEM_SGEMM_RELU6 */
/** Fused HardSwish epilogue, as TANDEM_SGEMM_HARDSWISH. */
#define TANDEM_CONV2D_HARDSWISH 256
/** Fused SiLU epilogue, as TANDEM_SGEMM_SILU. */
#define TANDEM_CONV2D_SILU 512
/** A 3x3, stride-1, undilated convolution may run as Winograd F(4x4, 3x3)
 *  or F(2x2, 3x3) (the compiler's per-layer choice; the kernel still takes
 *  the im2col GEMM when there are too few output tiles to fill its
 *  micro-kernel). Results differ from the GEMM's by rounding only. */
#define TANDEM_CONV2D_WINOGRAD 32
/** The filter is already transformed for Winograd F(2x2, 3x3) or
 *  F(4x4, 3x3) (tandem/winograd.h: [(m + 2)^2][c][f], the compiler's
 *  transform of constant weights); the kernel runs that Winograd variant
 *  (kh = kw = 3, stride 1, no dilation). */
#define TANDEM_CONV2D_WINOGRAD_F2 64
#define TANDEM_CONV2D_WINOGRAD_F4 128

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
TANDEM_API void
tandem_conv2d_f32(const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h,
                  int64_t w, const float *input, int64_t sIn, int64_t sIc,
                  int64_t sIh, int64_t sIw, int64_t f, int64_t kh, int64_t kw,
                  const float *filter, float *output, int64_t sOn, int64_t sOf,
                  int64_t oh, int64_t ow, int64_t strideH, int64_t strideW,
                  int64_t dilationH, int64_t dilationW, int32_t flags);

/** tandem_conv2d_f32 plus a per-output-channel bias: output[b][f] =
 *  bias[f] + conv, then the fused epilogue (with TANDEM_CONV2D_ACCUMULATE,
 *  output + bias[f] + conv). The bias is
 *  added in each output tile right before its first products, in cache,
 *  instead of in a pass over the whole output before the call. `bias` is
 *  f dense floats; NULL behaves as tandem_conv2d_f32. Thread-safe. */
TANDEM_API void tandem_conv2d_bias_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t f, int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOf, int64_t oh, int64_t ow,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int32_t flags);

/** tandem_conv2d_bias_f32 on an input in the packed panel layout
 *  tandem_dwconv2d_pad_packed_f32 wrote (c channels of h x w pixels, image
 *  b at input + b * TANDEM_PACKED_PANEL_FLOATS(c, h * w); sIn..sIw are
 *  ignored): the GEMM reads it as its packed right-hand side, with no
 *  packing pass. Only for 1x1 convolutions of stride and dilation 1 (oh =
 *  h, ow = w); anything else fails the call, which then writes nothing.
 *  Added 2026-12-04. Thread-safe. */
TANDEM_API void tandem_conv2d_packed_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t f, int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOf, int64_t oh, int64_t ow,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int32_t flags);

/** A grouped 2-D convolution in NCHW, all groups in one call: `groups`
 *  groups of c input and f output channels; output channel g * f + o of
 *  image b is bias[g * f + o] (if `bias` is not NULL) plus the sum over
 *  (ch, i, j) of filter[g][o][ch][i][j] * input[b][g * c + ch][y * strideH +
 *  i * dilationH - padTop][x * strideW + j * dilationW - padLeft], zero
 *  outside the h x w image (padTop = padLeft = 0 for an input already
 *  padded; the bottom and right padding follow from oh and ow), then the
 *  fused epilogue. `input` has element strides sIn (image), sIg (group:
 *  c * sIc for a dense tensor), sIc, sIh, sIw; `filter` is dense
 *  [f, c, kh, kw] per group, groups sFg floats apart; `output` has strides
 *  sOn, sOg (group), sOf (channel) and dense rows (oh * ow contiguous
 *  floats a channel). Flags: TANDEM_CONV2D_ACCUMULATE, _CONSTANT_FILTER,
 *  and the epilogues _RELU, _RELU6, _HARDSWISH, _SILU. Narrow groups (a
 *  small c * kh * kw * f) run as direct register blocks over each band of
 *  input rows, wide ones as one GEMM per group (tandem_conv2d_f32); both
 *  on ctx->pool. Added 2026-12-06. Thread-safe. */
TANDEM_API void tandem_grouped_conv2d_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t groups, int64_t c,
    int64_t h, int64_t w, const float *input, int64_t sIn, int64_t sIg,
    int64_t sIc, int64_t sIh, int64_t sIw, int64_t f, int64_t kh, int64_t kw,
    const float *filter, int64_t sFg, const float *bias, float *output,
    int64_t sOn, int64_t sOg, int64_t sOf, int64_t oh, int64_t ow,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int64_t padTop, int64_t padLeft, int32_t flags);

/** tandem_dwconv2d_f32 flags: add to the output instead of overwriting it
 *  (e.g. onto a bias already there); the fused ReLU, ReLU6, HardSwish and
 *  SiLU epilogues (as for tandem_sgemm_f32). */
#define TANDEM_DWCONV2D_ACCUMULATE 1
#define TANDEM_DWCONV2D_RELU 8
#define TANDEM_DWCONV2D_RELU6 16 /* min(6, max(0, x)); NaN stays NaN */
#define TANDEM_DWCONV2D_HARDSWISH 256 /* as TANDEM_SGEMM_HARDSWISH */
#define TANDEM_DWCONV2D_SILU 512      /* as TANDEM_SGEMM_SILU */

/** A depthwise 2-D convolution in NCHW (one filter per channel, multiplier
 *  1): output[b][ch][y][x] = sum over (i, j) of
 *  input[b][ch][y*strideH + i*dilationH][x*strideW + j*dilationW] *
 *  filter[ch][i][j]. `input` is [n, c, h, w] (already padded; element
 *  strides sIn..sIw), `filter` a dense [c, kh, kw], `output` [n, c, oh, ow]
 *  with element strides sOn, sOc, sOh and contiguous columns. Each channel
 *  plane is a task on ctx->pool (NULL ctx or pool: the calling thread);
 *  output rows are computed in AVX2 register blocks when the CPU has
 *  AVX2+FMA (TANDEM_CPU_KERNELS=portable forces plain C). Reads only the
 *  input elements the convolution uses. Thread-safe. */
TANDEM_API void tandem_dwconv2d_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, float *output, int64_t sOn,
    int64_t sOc, int64_t sOh, int64_t oh, int64_t ow, int64_t strideH,
    int64_t strideW, int64_t dilationH, int64_t dilationW, int32_t flags);

/** tandem_dwconv2d_f32 plus a per-channel bias: output[b][ch] = bias[ch] +
 *  conv, then the fused epilogue (with TANDEM_DWCONV2D_ACCUMULATE, output +
 *  bias[ch] + conv). Every output's sum starts from the bias in registers,
 *  with no pass over the output before the call. `bias` is c dense floats;
 *  NULL behaves as tandem_dwconv2d_f32. Thread-safe. */
TANDEM_API void tandem_dwconv2d_bias_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int32_t flags);

/** tandem_dwconv2d_bias_f32 on an unpadded input with implicit zero
 *  padding: `input` is [n, c, h, w] and the convolution reads
 *  input[b][ch][y*strideH + i*dilationH - padTop][x*strideW + j*dilationW
 *  - padLeft], zero outside [0, h) x [0, w) (so the bottom and right
 *  padding follow from oh and ow). Each plane is copied into a zero-bordered
 *  thread-local plane that stays in cache, instead of the caller padding the
 *  whole tensor in memory first. `bias` may be NULL. Since each plane is
 *  read whole before its outputs are written, the output may be the input
 *  itself (same pointer, sOn == sIn, sOc == sIc, and each output plane
 *  within its input plane's footprint, as for a stride-1 "same"
 *  convolution written in place). Thread-safe. */
TANDEM_API void tandem_dwconv2d_pad_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags);

/** tandem_dwconv2d_pad_f32 writing its output in the packed panel layout
 *  that tandem_conv2d_packed_f32 reads: image b at output + b *
 *  TANDEM_PACKED_PANEL_FLOATS(c, oh * ow) (tandem/abi.h); sOn, sOc and sOh
 *  are ignored. The compiler calls it for a depthwise conv whose output
 *  only a 1x1 conv reads, which then needs no packing pass of its own.
 *  TANDEM_DWCONV2D_ACCUMULATE is refused (the call fails and writes
 *  nothing). Added 2026-12-04. Thread-safe. */
TANDEM_API void tandem_dwconv2d_pad_packed_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t c, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIc, int64_t sIh, int64_t sIw,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags);

/** A 1x1 convolution followed by a depthwise one, as MobileNet's inverted
 *  residual blocks have them, in one call: the 1x1 conv (stride 1; `c`
 *  output channels from the k of `input`, [n, k, h, w] with dense planes:
 *  sIw == 1, sIh == w; pwFilter a dense [c, k], pwBias c floats or NULL,
 *  pwFlags TANDEM_CONV2D_RELU / RELU6 / CONSTANT_FILTER) yields an
 *  expanded [n, c, h, w] that is never stored: each task computes a few of
 *  its channels into a thread-local buffer, then tandem_dwconv2d_pad_f32
 *  (the remaining arguments, padding {padTop, padLeft}) on those planes
 *  while they are in cache. The result is the two calls' through an
 *  intermediate tensor. Accumulating (TANDEM_DWCONV2D_ACCUMULATE,
 *  TANDEM_CONV2D_ACCUMULATE) and input planes that are not dense are
 *  refused: the call fails and writes nothing. Added 2026-12-05.
 *  Thread-safe. */
TANDEM_API void tandem_conv1x1_dwconv2d_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t k, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIk, int64_t sIh, int64_t sIw,
    int64_t c, const float *pwFilter, const float *pwBias, int32_t pwFlags,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags);

/** tandem_conv1x1_dwconv2d_f32 writing its output in the packed panel
 *  layout tandem_conv2d_packed_f32 reads, as tandem_dwconv2d_pad_packed_f32
 *  does (sOn, sOc and sOh are ignored). Added 2026-12-05. Thread-safe. */
TANDEM_API void tandem_conv1x1_dwconv2d_packed_f32(
    const tandem_exec_ctx_t *ctx, int64_t n, int64_t k, int64_t h, int64_t w,
    const float *input, int64_t sIn, int64_t sIk, int64_t sIh, int64_t sIw,
    int64_t c, const float *pwFilter, const float *pwBias, int32_t pwFlags,
    int64_t kh, int64_t kw, const float *filter, const float *bias,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags);

/** The micro-kernel family tandem_sgemm_f32 uses in this process:
 *  "avx512", "avx2" or "portable". */
TANDEM_API const char *tandem_sgemm_f32_isa(void);

/*===------------------------------------------------------------------===*
 * Models (the descriptor and the entry's context are in abi.h)
 *===------------------------------------------------------------------===*/

/** Options of tandem_model_create. Always fill them with
 *  tandem_model_options_init first: later versions add fields. */
typedef struct {
  int32_t intra_op_threads; /* 0: physical cores; 1: no pool; > 1: that many */
  void *arena;              /* optional caller-owned, 64-byte aligned; used
                               by slot 0 only (see pipeline_depth) */
  uint64_t arena_bytes;     /* size of `arena`; >= descriptor's arena_bytes */
  /* Where a device program's GPU partitions run: "auto", "cpu",
   * "emulated", "cuda" or "cuda:N". NULL: $TANDEM_DEVICE, else "auto".
   * A non-NULL value wins over the environment. The empty string is
   * rejected (TANDEM_INVALID_ARGUMENT) for every model; other values are
   * ignored by CPU-only models. */
  const char *device;
  /* CUDA Graphs for GPU partitions: 1 on, 0 off, -1 (default):
   * $TANDEM_CUDA_GRAPHS ("0" turns them off), else on. */
  int32_t cuda_graphs;
  /* Runs that tandem_model_run_async keeps in flight at once (1..64), each
   * on its own slot: host arena, device arena (with its own copy of the
   * device weights), streams and events, all allocated at creation.
   * 0 (default): 1, which costs no memory beyond a synchronous run's. */
  int32_t pipeline_depth;
  /* 1 (default): one line on stderr when a model with a device program
   * falls back to the CPU ($TANDEM_QUIET=1 also silences it); 0: silent. */
  int32_t log_fallback;
  /* Chrome/Perfetto trace written at tandem_model_destroy; NULL or "":
   * $TANDEM_TRACE, else no trace. Copied at creation, which fails with
   * TANDEM_INVALID_ARGUMENT when the file could not be written (a
   * directory, a missing or read-only directory, a read-only file). A write
   * that still fails at destruction is reported on stderr. */
  const char *trace_path;
} tandem_model_options_t;

/** Fills `options` with the defaults (physical cores, runtime-owned arena,
 *  device and graphs from the environment, pipeline depth 1, fallback
 *  logged, trace from the environment); NULL is a no-op. */
TANDEM_API void tandem_model_options_init(tandem_model_options_t *options);

/** An instance of a model: its descriptor, thread pool and arena.
 *
 *  Handle lifetime (every function below that takes a model): a handle is
 *  live from a successful tandem_model_create until tandem_model_destroy.
 *  NULL gives TANDEM_INVALID_ARGUMENT (NULL, "" or a no-op for functions
 *  without a status). A handle that is not live (destroyed, or never made
 *  by tandem_model_create) is detected while no later instance occupies
 *  the same address: the runtime keeps a set of live instances and checks
 *  it on entry, so such a call gives TANDEM_INVALID_ARGUMENT ("model 0x...
 *  is not a live instance") without reading the handle. Once the address
 *  has been reused by a new instance, the stale handle names that instance:
 *  using a handle after destroy is a caller error that the runtime cannot
 *  always detect. */
typedef struct tandem_model_s tandem_model_t;

/** Validates `desc` (non-NULL, abi_version TANDEM_ABI_VERSION,
 *  TANDEM_ABI_VERSION_ONE_GPU or TANDEM_ABI_VERSION_CPU_ONLY, a name, an entry,
 *  well-formed tensor descriptions: non-NULL names, known dtypes, rank >= 0,
 *  extents >= 0 whose product fits int64_t; a consistent device program) and
 *  `options` (NULL = defaults; a caller arena must be 64-byte aligned and at
 *  least desc->arena_bytes; device not ""; a writable trace path), then creates
 *  an instance: a thread pool of options->intra_op_threads ways (none for 1)
 *  and pipeline_depth run slots, each with a host arena of desc->arena_bytes
 *  (slot 0 uses the caller's arena if given), allocated once here. With a
 *  device program it also chooses the device (see
 *  tandem_model_options_t::device; no CUDA driver or GPU: the CPU fallback,
 *  logged once on stderr unless silenced) for each GPU of the program, loads
 *  the module on each, and gives each slot, per GPU, its device arena with its
 *  weights uploaded, 3 streams and the events, and pinned staging. A program
 *  with several GPUs opens one device per GPU: "emulated" opens an emulated
 *  device for each; CUDA ("auto", "cuda", "cuda:N") opens consecutive ordinals
 *  from the first GPU's, and a GPU beyond the machine's last device shares the
 *  first GPU's device (logged). An unknown device spec gives
 *  TANDEM_INVALID_ARGUMENT. On success *out owns the instance (release with
 *  tandem_model_destroy); on failure *out is NULL. `desc` and a caller arena
 *  must outlive the instance; the instance never frees them. Thread-safe:
 *  instances are independent, and several may run at once on different threads
 *  (each has its own arenas and pool). */
TANDEM_API tandem_status_t tandem_model_create(
    const tandem_model_desc_t *desc, const tandem_model_options_t *options,
    tandem_model_t **out);

/** Waits for the device, frees the instance, its pool, its arenas and
 *  device resources, and writes its trace if it has one; NULL is a no-op.
 *  A handle that is not live (a second destroy, while its address has not
 *  been reused) is not touched: one line on stderr, and nothing freed twice.
 *  Every ticket of tandem_model_run_async must have been waited for. Must
 *  not overlap a run or any other call on the same instance; the handle is
 *  invalid afterwards. */
TANDEM_API void tandem_model_destroy(tandem_model_t *model);

/** The descriptor the instance was created from (NULL for NULL); owned by
 *  the model's object code. Thread-safe. */
TANDEM_API const tandem_model_desc_t *
tandem_model_descriptor(const tandem_model_t *model);

/** Unchecked fast path: runs the model on dense row-major buffers that must
 *  match the descriptor (inputs[i] / outputs[i] in descriptor order; the
 *  caller owns them; outputs are fully written on success). The caller
 *  guarantees each buffer's size and, for bool inputs, that every byte is
 *  0 or 1: other bytes give unspecified (possibly inconsistent) results;
 *  tandem_model_run_checked validates them. A NULL or non-live model, NULL
 *  array (with a non-zero count) or NULL buffer (other than that of an
 *  empty tensor, with a zero-size dim, which may be NULL) gives
 *  TANDEM_INVALID_ARGUMENT; an entry failure (or a failed kernel, copy or
 *  launch of its device program) gives TANDEM_INTERNAL.
 *  Thread-safety: one run per instance at a time. A run that starts while
 *  another run of the same instance is in progress (synchronous, or
 *  tandem_model_run_async runs in flight) returns TANDEM_BUSY at once
 *  without touching any buffer. Different instances may run concurrently. */
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
 *  tensor's data pointer, dtype, rank and shape against the descriptor, and
 *  that every byte of a bool input is 0 or 1 (a scan of the bool inputs).
 *  A mismatch returns TANDEM_INVALID_ARGUMENT with a message naming the input
 *  or output and giving expected vs got (e.g. "input 0 ('x'): expected
 *  f32[2,3], got f32[3,2]"; "input 0 ('m'): bool element 2 holds byte 7;
 *  bool elements must be 0 or 1"), and nothing runs. Same thread-safety as
 *  tandem_model_run. */
TANDEM_API tandem_status_t tandem_model_run_checked(
    tandem_model_t *model, const tandem_tensor_t *inputs, int32_t num_inputs,
    const tandem_tensor_t *outputs, int32_t num_outputs);

/** Where the instance runs its GPU partitions: "cpu" (the CPU fallback, and
 *  every CPU-only model), "emulated" or "cuda:N (<GPU name>)". Owned by the
 *  instance; "" for NULL. Thread-safe. */
TANDEM_API const char *tandem_model_device_name(const tandem_model_t *model);

/** Why a model with a device program runs its GPU partitions on the CPU,
 *  e.g. "no CUDA driver (libcuda.so.1 not found: ...)" or "device 'cpu'
 *  requested"; NULL when it runs them on a device, or the model has no
 *  device program (or model is NULL). Owned by the instance. Thread-safe. */
TANDEM_API const char *
tandem_model_fallback_reason(const tandem_model_t *model);

/** Counters of an instance's device work since creation (or the last
 *  reset), summed over its slots. */
typedef struct {
  uint64_t runs;              /* completed runs, sync and async */
  uint64_t kernel_launches;   /* kernels issued one by one (CPU fallback:
                                 twin calls) */
  uint64_t captured_launches; /* kernels recorded into CUDA Graphs */
  uint64_t graph_captures;    /* graphs made */
  uint64_t graph_launches;    /* graph replays issued */
  uint64_t h2d_copies;
  uint64_t h2d_bytes;
  uint64_t d2h_copies;
  uint64_t d2h_bytes;
  uint64_t staged_bytes; /* of the above, bytes through pinned staging */
} tandem_model_stats_t;

/** Copies the instance's counters into *stats; with reset != 0 then zeroes
 *  them. Call it while no run is in flight for exact numbers. A NULL stats
 *  or a NULL or non-live model gives TANDEM_INVALID_ARGUMENT. */
TANDEM_API tandem_status_t tandem_model_stats(tandem_model_t *model,
                                              tandem_model_stats_t *stats,
                                              int32_t reset);

/** A run in flight, from tandem_model_run_async. */
typedef struct tandem_run_s tandem_run_t;

/** Starts a run on a free slot of the instance and returns without waiting
 *  for it (the pipelined API): up to pipeline_depth runs are in flight at
 *  once, each on its own host arena, device arena region, streams and
 *  events, so that the copies to the device of one run overlap the kernels
 *  of another and the copies back of a third. When every slot is busy, the
 *  call blocks until one is free. The buffers must stay valid, inputs
 *  unchanged and outputs untouched, until tandem_model_wait of the ticket
 *  returns. On success *ticket owns the run: pass it to tandem_model_wait
 *  exactly once. Argument errors (NULL buffers) are returned at once with
 *  *ticket NULL; errors of the run itself come from tandem_model_wait. A
 *  synchronous run in progress gives TANDEM_BUSY (and async runs in flight
 *  make tandem_model_run return TANDEM_BUSY). Works for CPU-only models
 *  too. Thread-safe. */
TANDEM_API tandem_status_t tandem_model_run_async(tandem_model_t *model,
                                                  const void *const *inputs,
                                                  void *const *outputs,
                                                  tandem_run_t **ticket);

/** Waits until the run of `ticket` has finished (outputs written), frees the
 *  ticket and returns the run's status (as tandem_model_run would have).
 *  NULL gives TANDEM_INVALID_ARGUMENT. Tickets may be waited in any order,
 *  from any thread, but each exactly once: the ticket is freed here, so a
 *  second wait is a use after free (undefined; not detected). */
TANDEM_API tandem_status_t tandem_model_wait(tandem_run_t *ticket);

/*===------------------------------------------------------------------===*
 * The host schedule of a device program (called by generated code)
 *===------------------------------------------------------------------===*
 *
 * The entry of a model with a device program calls these with the exec
 * context it was given (docs/GPU.md). Streams of GPU 0: 0 compute,
 * 1 host-to-device, 2 device-to-host; GPU d's are 3d, 3d+1 and 3d+2
 * (TANDEM_STREAMS_PER_DEVICE). Events 0..num_events-1 belong to the run;
 * a stream waits only for events recorded on its own GPU. A device pointer
 * of GPU d is tandem_sched_device_base_of(ctx, d) + an offset in that GPU's
 * device arena, and every device pointer a call passes lies in the arena of
 * its stream's GPU.
 * None returns an error: the first failure of a run (a bad stream or event
 * number, a failed copy or launch) is recorded in the run's slot, later
 * calls of that run do nothing, and the run returns TANDEM_INTERNAL with a
 * message naming the kernel or copy. On the CPU fallback device pointers
 * are host addresses, copies are memcpy, launches call the twin, and events
 * do nothing. Called by the one thread running the entry.
 */

/** The device address of GPU 0's device arena for the run (CPU fallback:
 *  its host address); 0 when ctx has no device program. */
TANDEM_API uint64_t tandem_sched_device_base(const tandem_exec_ctx_t *ctx);

/** The same for GPU `device` of the program; 0 when ctx has no device
 *  program or the program has no such GPU. */
TANDEM_API uint64_t tandem_sched_device_base_of(const tandem_exec_ctx_t *ctx,
                                                int32_t device);

/** Enqueues a copy of `bytes` from host `src` to device address `dst` on
 *  `stream`. A source outside the run's host arena (a caller's input) is
 *  first copied into pinned staging, so it may change once this returns; a
 *  source inside the host arena is pinned memory, copied when the stream
 *  gets there, and must not be written before an event recorded after the
 *  copy has been waited for. */
TANDEM_API void tandem_sched_copy_h2d(const tandem_exec_ctx_t *ctx,
                                      int32_t stream, uint64_t dst,
                                      const void *src, uint64_t bytes);

/** Enqueues a copy of `bytes` from device address `src` to host `dst` on
 *  `stream`. The host sees the data after a tandem_sched_host_wait on an
 *  event recorded after the copy (and at the latest when the run ends). A
 *  destination outside the host arena (a caller's output) is written from
 *  pinned staging at that wait. */
TANDEM_API void tandem_sched_copy_d2h(const tandem_exec_ctx_t *ctx,
                                      int32_t stream, void *dst, uint64_t src,
                                      uint64_t bytes);

/** Records `event` on `stream` (it completes when the work enqueued on the
 *  stream so far has). */
TANDEM_API void tandem_sched_record(const tandem_exec_ctx_t *ctx, int32_t event,
                                    int32_t stream);

/** Makes later work on `stream` wait for the latest record of `event`. */
TANDEM_API void tandem_sched_wait(const tandem_exec_ctx_t *ctx, int32_t stream,
                                  int32_t event);

/** Blocks the host until the latest record of `event` has completed, then
 *  delivers staged device-to-host copies that are done. */
TANDEM_API void tandem_sched_host_wait(const tandem_exec_ctx_t *ctx,
                                       int32_t event);

/** Enqueues kernel `kernel` (an index into the program's kernels) on
 *  `stream` with grid (gx, gy, gz), block (bx, by, bz) and
 *  kernels[kernel].num_args device pointers `args` (copied). */
TANDEM_API void tandem_sched_launch(const tandem_exec_ctx_t *ctx,
                                    int32_t stream, int32_t kernel, uint32_t gx,
                                    uint32_t gy, uint32_t gz, uint32_t bx,
                                    uint32_t by, uint32_t bz,
                                    const uint64_t *args);

/** Enqueues the GEMM `desc` on `stream` with device pointers a, b, c and
 *  bias (0 unless the epilogue has a bias), if this run's device can run
 *  library GEMMs: cuBLASLt on CUDA (loaded on first use; when it cannot be
 *  loaded that is logged once and every GEMM falls back), the CPU sgemm on
 *  the emulated device (on the stream's thread) and on the CPU fallback.
 *  `kernel` (an index into the program's kernels) is the contraction's
 *  generated kernel: it names the GEMM in traces. Returns 1 when the GEMM
 *  was enqueued (or the run has already failed), 0 when the caller must
 *  launch the generated fallback kernels instead. `desc` must stay valid
 *  for the model's lifetime (generated code passes a constant). */
TANDEM_API int32_t tandem_sched_gemm(const tandem_exec_ctx_t *ctx,
                                     int32_t stream, int32_t kernel,
                                     const tandem_gemm_desc_t *desc, uint64_t a,
                                     uint64_t b, uint64_t c, uint64_t bias);

/** Enqueues the convolution `desc` on `stream` with device pointers x, w,
 *  y, bias (0 without TANDEM_CONV_BIAS) and z (0 without
 *  TANDEM_CONV_RESIDUAL), if this run's device can run library
 *  convolutions: cuDNN on CUDA (loaded on first use; when it cannot be
 *  loaded that is logged once and every convolution falls back), a host
 *  loop on the emulated device (on the stream's thread) and on the CPU
 *  fallback. `kernel` (an index into the program's kernels) is the
 *  convolution's generated kernel: it names the call in traces. Returns 1
 *  when the convolution was enqueued (or the run has already failed), 0
 *  when the caller must launch the generated fallback kernels instead.
 *  `desc` must stay valid for the model's lifetime (generated code passes
 *  a constant). */
TANDEM_API int32_t tandem_sched_conv(const tandem_exec_ctx_t *ctx,
                                     int32_t stream, int32_t kernel,
                                     const tandem_conv_desc_t *desc, uint64_t x,
                                     uint64_t w, uint64_t y, uint64_t bias,
                                     uint64_t z);

/** Bracket the launches of GPU partition `partition` on `stream` (CUDA
 *  Graph capture and replay from a slot's second run on, trace spans). For
 *  a CPU partition the stream is -1 and they only mark trace spans. */
TANDEM_API void tandem_sched_partition_begin(const tandem_exec_ctx_t *ctx,
                                             int32_t partition, int32_t stream);
TANDEM_API void tandem_sched_partition_end(const tandem_exec_ctx_t *ctx,
                                           int32_t partition, int32_t stream);

/*===------------------------------------------------------------------===*
 * Devices: memory, streams, events, kernels, graphs
 *===------------------------------------------------------------------===*
 *
 * A device runs work that the host enqueues on streams. Two backends exist:
 * CUDA (the driver is loaded with dlopen("libcuda.so.1") at run time, so the
 * runtime neither links nor needs it) and an emulated device that runs each
 * stream on a host thread and each kernel as its CPU twin, with strict
 * checks of every device pointer (see docs/Runtime.md). docs/RuntimeABI.md
 * summarises ownership and thread-safety.
 *
 * Common rules, unless a function says otherwise:
 *  - Every handle belongs to the device that created it; mixing handles of
 *    two devices gives TANDEM_INVALID_ARGUMENT.
 *  - Functions are thread-safe: several threads may use one device, stream
 *    or event at once. Work enqueued on one stream by several threads runs
 *    in the order the enqueue calls took effect.
 *  - "Async" functions only enqueue: they return once the work is queued
 *    and check their arguments first, so a bad pointer or range is reported
 *    by the call itself and nothing is queued. Buffers they name (device and
 *    host) must stay allocated, and host buffers unchanged (sources) or
 *    untouched (destinations), until the work has completed, which the host
 *    observes with tandem_stream_synchronize or an event.
 *  - A destroy/free function must not race with other uses of the same
 *    handle.
 */

/** Device kinds. The values are part of the ABI. */
typedef enum {
  TANDEM_DEVICE_CPU = 0,      /* no device: run on the host (a NULL device) */
  TANDEM_DEVICE_EMULATED = 1, /* host threads emulating a GPU, for tests */
  TANDEM_DEVICE_CUDA = 2      /* an NVIDIA GPU through the CUDA driver API */
} tandem_device_kind_t;

/** An opened device. */
typedef struct tandem_device_s tandem_device_t;
/** An in-order queue of device work. */
typedef struct tandem_stream_s tandem_stream_t;
/** A marker recorded on a stream; other streams and the host can wait on it. */
typedef struct tandem_event_s tandem_event_t;
/** Loaded device code: a CUDA module image, or a table of CPU twins. */
typedef struct tandem_device_module_s tandem_device_module_t;
/** One kernel of a module; owned by the module. */
typedef struct tandem_device_kernel_s tandem_device_kernel_t;
/** An executable graph made by stream capture, replayable on any stream of
 *  its device. */
typedef struct tandem_device_graph_s tandem_device_graph_t;

/** A device address. Not a host pointer: never dereference it on the host
 *  (on the emulated device it points into an inaccessible reservation, so
 *  doing so faults). 0 is the null device address. */
typedef uint64_t tandem_device_ptr_t;

/** Options of tandem_device_open; the debug knobs apply to the emulated
 *  device only and are ignored by the others. */
typedef struct {
  /* Before every copy and kernel, each emulated stream sleeps a random time
   * uniform in [emulated_delay_min_us, emulated_delay_max_us] microseconds,
   * so that missing synchronisation shows up as wrong results. Both 0: the
   * environment variable TANDEM_EMULATED_DELAY_US ("MAX" or "MIN-MAX"),
   * else no delay. */
  uint32_t emulated_delay_min_us;
  uint32_t emulated_delay_max_us;
  /* Seed of the delays (0: TANDEM_EMULATED_SEED, else a fixed default). */
  uint64_t emulated_seed;
  void *reserved[4]; /* NULL; for later additions */
} tandem_device_options_t;

/** Fills `options` with the defaults (no delays unless the environment asks
 *  for them); NULL is a no-op. Thread-safe. */
TANDEM_API void tandem_device_options_init(tandem_device_options_t *options);

/** Opens a device. `spec` is
 *   - "cpu": no device; OK with *out == NULL (run on the host);
 *   - "emulated": the emulated device (always available);
 *   - "cuda" or "cuda:N": CUDA device N (default 0), through the primary
 *     context of that device; errors: TANDEM_UNAVAILABLE "no CUDA driver
 *     (libcuda.so.1 not found: ...)", "no CUDA device", a driver failure
 *     with its CUresult name, or TANDEM_INVALID_ARGUMENT for N out of range;
 *   - NULL or "auto": the environment variable TANDEM_DEVICE (any spec
 *     above) when it is set and not "auto"; else CUDA device 0 when a
 *     driver and a device exist; else TANDEM_UNAVAILABLE with *out == NULL
 *     and a one-line message saying why ("no GPU device, using the CPU: no
 *     CUDA driver (libcuda.so.1 not found: ...)"), which callers may log
 *     before falling back to the host.
 *  `options` may be NULL (defaults). On success the caller owns *out
 *  (release with tandem_device_close); on failure *out is NULL.
 *  Thread-safe; several devices may be open at once (CUDA ones share the
 *  device's primary context). */
TANDEM_API tandem_status_t
tandem_device_open(const char *spec, const tandem_device_options_t *options,
                   tandem_device_t **out);

/** Waits for all work queued on the device's streams, then releases every
 *  stream, event, graph, module and allocation (device and pinned host)
 *  of the device that is still alive, and the device itself. Their handles
 *  and pointers become invalid. NULL is a no-op. Must not race with any
 *  other use of the device or its handles. */
TANDEM_API void tandem_device_close(tandem_device_t *device);

/** The kind of `device`; TANDEM_DEVICE_CPU for NULL. Thread-safe. */
TANDEM_API tandem_device_kind_t
tandem_device_kind(const tandem_device_t *device);

/** A name such as "emulated" or "cuda:0 (NVIDIA H100 80GB HBM3)"; "cpu" for
 *  NULL. Owned by the device (static for NULL). Thread-safe. */
TANDEM_API const char *tandem_device_name(const tandem_device_t *device);

/** Blocks until all work queued so far on every stream of `device` has
 *  completed. Thread-safe. */
TANDEM_API tandem_status_t tandem_device_synchronize(tandem_device_t *device);

/** Allocates `bytes` of device memory, aligned to 256 bytes, contents
 *  undefined (the emulated device fills it with 0xFF bytes, a NaN pattern
 *  for floats). bytes == 0 gives *out == 0 and OK. The caller owns the
 *  allocation (tandem_device_free). Thread-safe. */
TANDEM_API tandem_status_t tandem_device_alloc(tandem_device_t *device,
                                               uint64_t bytes,
                                               tandem_device_ptr_t *out);

/** Frees an allocation from tandem_device_alloc given its start address;
 *  0 is a no-op. Anything else (an interior or unknown address, a second
 *  free) gives TANDEM_INVALID_ARGUMENT. Work already queued that uses the
 *  allocation completes safely (CUDA: the driver synchronizes; emulated: the
 *  queued work keeps the backing alive), but no new work may name it.
 *  Thread-safe. */
TANDEM_API tandem_status_t tandem_device_free(tandem_device_t *device,
                                              tandem_device_ptr_t ptr);

/** Allocates `bytes` of pinned (page-locked) host memory, usable by the
 *  host directly and by async copies without staging; required for host
 *  buffers of copies captured into a graph. bytes == 0 gives *out == NULL.
 *  The caller owns it (tandem_device_host_free). Thread-safe. */
TANDEM_API tandem_status_t tandem_device_host_alloc(tandem_device_t *device,
                                                    uint64_t bytes, void **out);

/** Frees memory from tandem_device_host_alloc; NULL is a no-op; an unknown
 *  pointer gives TANDEM_INVALID_ARGUMENT. Queued work must not use it any
 *  more. Thread-safe. */
TANDEM_API tandem_status_t tandem_device_host_free(tandem_device_t *device,
                                                   void *ptr);

/** Creates a stream. The caller owns *out (tandem_stream_destroy); NULL on
 *  failure. On the emulated device every stream is a host thread.
 *  Thread-safe. */
TANDEM_API tandem_status_t tandem_stream_create(tandem_device_t *device,
                                                tandem_stream_t **out);

/** Waits for the stream's queued work to complete, then releases it (a
 *  capture in progress is abandoned). NULL is a no-op. Returns an error only
 *  if the wait failed (CUDA); the stream is released either way. */
TANDEM_API tandem_status_t tandem_stream_destroy(tandem_stream_t *stream);

/** Blocks until all work queued on `stream` so far has completed. Not
 *  allowed while the stream is capturing (TANDEM_INVALID_ARGUMENT).
 *  Thread-safe. */
TANDEM_API tandem_status_t tandem_stream_synchronize(tandem_stream_t *stream);

/** Async copy of `bytes` from host `src` to device `dst`. The device range
 *  must lie inside one live allocation; `src` must not be a device address.
 *  `src` is read when the copy runs, not when it is enqueued. */
TANDEM_API tandem_status_t tandem_memcpy_h2d_async(tandem_stream_t *stream,
                                                   tandem_device_ptr_t dst,
                                                   const void *src,
                                                   uint64_t bytes);

/** Async copy of `bytes` from device `src` to host `dst`; the host sees the
 *  data once the copy has completed. */
TANDEM_API tandem_status_t tandem_memcpy_d2h_async(tandem_stream_t *stream,
                                                   void *dst,
                                                   tandem_device_ptr_t src,
                                                   uint64_t bytes);

/** Async copy of `bytes` between device ranges (each inside one live
 *  allocation; overlapping ranges give unspecified contents). */
TANDEM_API tandem_status_t tandem_memcpy_d2d_async(tandem_stream_t *stream,
                                                   tandem_device_ptr_t dst,
                                                   tandem_device_ptr_t src,
                                                   uint64_t bytes);

/** Creates an event (no timing). The caller owns *out
 *  (tandem_event_destroy); NULL on failure. Thread-safe. */
TANDEM_API tandem_status_t tandem_event_create(tandem_device_t *device,
                                               tandem_event_t **out);

/** Releases an event; NULL is a no-op. Allowed while a record of it is still
 *  pending: streams already waiting on it still wait for that work. */
TANDEM_API void tandem_event_destroy(tandem_event_t *event);

/** Enqueues a record of `event` on `stream`: the event completes when all
 *  work queued on the stream before it has completed. A new record replaces
 *  the previous one for later waits and queries. Thread-safe. */
TANDEM_API tandem_status_t tandem_event_record(tandem_event_t *event,
                                               tandem_stream_t *stream);

/** Makes work queued on `stream` after this call wait until the event's
 *  latest record (at the time of this call) has completed; the host does
 *  not block. An event never recorded is complete (the wait is a no-op).
 *  Thread-safe. */
TANDEM_API tandem_status_t tandem_stream_wait_event(tandem_stream_t *stream,
                                                    tandem_event_t *event);

/** Blocks the host until the event's latest record has completed (at once
 *  if never recorded). Thread-safe. */
TANDEM_API tandem_status_t tandem_event_synchronize(tandem_event_t *event);

/** Sets *done to 1 when the event's latest record has completed (or it was
 *  never recorded), else 0; does not block. Thread-safe. */
TANDEM_API tandem_status_t tandem_event_query(tandem_event_t *event,
                                              int32_t *done);

/* tandem_cpu_kernel_fn (declared with the device programs above) is a
 * kernel's CPU twin for the emulated device. args[i] points to the value of
 * argument i, as CUDA's kernelParams do; for a TANDEM_KERNEL_ARG_DEVICE_PTR
 * argument the value is a host `void *` to the emulated memory (NULL for the
 * null device address). One call computes the whole launch (the grid is not
 * iterated). A twin runs on the stream's thread and must not call device
 * functions. */

/** One entry of a table of CPU twins. */
typedef struct {
  const char *name;
  tandem_cpu_kernel_fn fn;
} tandem_cpu_kernel_t;

/** Loads a CUDA module image (PTX text, NUL-terminated; cubin; or fatbin)
 *  on a CUDA device; `size` is informational (the driver reads the image
 *  itself). The emulated device gives TANDEM_INVALID_ARGUMENT (use
 *  tandem_device_module_load_cpu). The caller owns *out
 *  (tandem_device_module_unload); `image` may be freed after the call.
 *  Thread-safe. */
TANDEM_API tandem_status_t
tandem_device_module_load(tandem_device_t *device, const void *image,
                          uint64_t size, tandem_device_module_t **out);

/** Makes a module of CPU twins for the emulated device (CUDA devices give
 *  TANDEM_INVALID_ARGUMENT). The table and its names are copied. The caller
 *  owns *out (tandem_device_module_unload). Thread-safe. */
TANDEM_API tandem_status_t tandem_device_module_load_cpu(
    tandem_device_t *device, const tandem_cpu_kernel_t *kernels,
    int32_t num_kernels, tandem_device_module_t **out);

/** Releases a module and its kernels; NULL is a no-op. Work already queued
 *  that uses its kernels must have completed, and graphs that captured them
 *  must not be launched afterwards. */
TANDEM_API void tandem_device_module_unload(tandem_device_module_t *module);

/** Looks up a kernel by name (CUDA: cuModuleGetFunction). *out is owned by
 *  the module and valid until it is unloaded. Thread-safe. */
TANDEM_API tandem_status_t
tandem_device_module_get_kernel(tandem_device_module_t *module,
                                const char *name, tandem_device_kernel_t **out);

/** Kinds of kernel arguments. The values are part of the ABI. */
typedef enum {
  TANDEM_KERNEL_ARG_VALUE = 0,     /* plain bytes, passed as they are */
  TANDEM_KERNEL_ARG_DEVICE_PTR = 1 /* a tandem_device_ptr_t (size 8) */
} tandem_kernel_arg_kind_t;

/** One kernel argument: `size` bytes at `value`. Device pointers must be 0
 *  or inside a live allocation of the stream's device (checked on the
 *  emulated device). The bytes are copied at launch. */
typedef struct {
  const void *value;
  uint32_t size;
  tandem_kernel_arg_kind_t kind;
} tandem_kernel_arg_t;

/** Launch geometry (CUDA grid and block; the emulated device checks that
 *  every extent is >= 1 and otherwise ignores them). */
typedef struct {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes; /* dynamic shared memory per block */
} tandem_launch_dims_t;

/** Enqueues a launch of `kernel` on `stream`. `args` are borrowed for the
 *  call only. Thread-safe. */
TANDEM_API tandem_status_t
tandem_device_launch(tandem_stream_t *stream, tandem_device_kernel_t *kernel,
                     const tandem_launch_dims_t *dims,
                     const tandem_kernel_arg_t *args, int32_t num_args);

/** Enqueues the f32 GEMM `desc` (copied) on `stream` with device pointers
 *  a, b, c and bias (0 without a bias epilogue); `name` (copied) names it in
 *  traces. CUDA: cuBLASLt on the stream (capturable; the workspace is
 *  allocated once per stream, before any capture); emulated: the CPU
 *  sgemm on the stream's thread. TANDEM_UNAVAILABLE when the device has
 *  no GEMM library (cuBLASLt not found), TANDEM_INVALID_ARGUMENT for a
 *  malformed descriptor or an address outside device memory. Thread-safe. */
TANDEM_API tandem_status_t tandem_device_gemm(
    tandem_stream_t *stream, const tandem_gemm_desc_t *desc,
    tandem_device_ptr_t a, tandem_device_ptr_t b, tandem_device_ptr_t c,
    tandem_device_ptr_t bias, const char *name);

/** Enqueues the f32 convolution `desc` (copied) on `stream` with device
 *  pointers x, w, y, bias (0 without TANDEM_CONV_BIAS) and z (0 without
 *  TANDEM_CONV_RESIDUAL); `name` (copied) names it in traces. CUDA: cuDNN
 *  on the stream (capturable; the algorithm is chosen and the workspace
 *  allocated on the first call of a shape, before any capture); emulated: a
 *  host loop on the stream's thread. TANDEM_UNAVAILABLE when the device has
 *  no convolution library (cuDNN not found), TANDEM_INVALID_ARGUMENT for a
 *  malformed descriptor or an address outside device memory.
 *  Thread-safe. */
TANDEM_API tandem_status_t tandem_device_conv(
    tandem_stream_t *stream, const tandem_conv_desc_t *desc,
    tandem_device_ptr_t x, tandem_device_ptr_t w, tandem_device_ptr_t y,
    tandem_device_ptr_t bias, tandem_device_ptr_t z, const char *name);

/** Starts capturing `stream`: copies, launches and graph launches enqueued
 *  on it are recorded instead of run, until tandem_stream_end_capture.
 *  Host buffers of captured copies must be pinned
 *  (tandem_device_host_alloc); they are read/written at each replay. Event
 *  records and waits on a capturing stream give TANDEM_INVALID_ARGUMENT
 *  (multi-stream capture is not supported). A stream captures at most one
 *  graph at a time. Thread-safe. */
TANDEM_API tandem_status_t tandem_stream_begin_capture(tandem_stream_t *stream);

/** Ends the capture and instantiates what was recorded as an executable
 *  graph; the caller owns *out (tandem_device_graph_destroy). An empty
 *  capture gives an empty graph. Thread-safe. */
TANDEM_API tandem_status_t
tandem_stream_end_capture(tandem_stream_t *stream, tandem_device_graph_t **out);

/** Enqueues one replay of `graph` on `stream` (any non-capturing stream of
 *  the graph's device, or a capturing one, which records it). Device
 *  pointers are checked again at each launch (emulated: an allocation freed
 *  since the capture gives TANDEM_INVALID_ARGUMENT and nothing is queued).
 *  Replays of one graph on one stream run in order. Thread-safe. */
TANDEM_API tandem_status_t tandem_device_graph_launch(
    tandem_device_graph_t *graph, tandem_stream_t *stream);

/** Releases a graph; NULL is a no-op. Launches already queued complete. */
TANDEM_API void tandem_device_graph_destroy(tandem_device_graph_t *graph);

/** Debugging aid of the emulated device: overrides, for `stream` only, the
 *  random delay before each copy and kernel (uniform in [min_us, max_us]
 *  microseconds; 0, 0 turns it off). Applies to work enqueued afterwards.
 *  CUDA streams give TANDEM_INVALID_ARGUMENT. Thread-safe. */
TANDEM_API tandem_status_t tandem_stream_set_emulated_delay(
    tandem_stream_t *stream, uint32_t min_us, uint32_t max_us);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TANDEM_RUNTIME_H */
