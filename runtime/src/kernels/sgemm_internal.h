//===- sgemm_internal.h - test hooks of the sgemm kernel ---------*- C++
//-*-===//

#ifndef TANDEM_RUNTIME_KERNELS_SGEMM_INTERNAL_H
#define TANDEM_RUNTIME_KERNELS_SGEMM_INTERNAL_H

#include "tandem/runtime.h"

/// tandem_sgemm_f32 on one micro-kernel family ("avx512", "avx2" or
/// "portable") instead of the process-wide choice, so that tests cover all
/// of them. Returns false, doing nothing, if this CPU cannot run it.
bool tandem_internal_sgemm_f32_on(const char *isa, const tandem_exec_ctx_t *ctx,
                                  int64_t batch, int64_t m, int64_t n,
                                  int64_t k, const float *a, int64_t sAb,
                                  int64_t sAm, int64_t sAk, const float *b,
                                  int64_t sBb, int64_t sBk, int64_t sBn,
                                  float *c, int64_t sCb, int64_t sCm,
                                  int64_t sCn, int32_t flags);

/// tandem_sgemm_bias_f32 on one micro-kernel family, as
/// tandem_internal_sgemm_f32_on.
bool tandem_internal_sgemm_bias_f32_on(
    const char *isa, const tandem_exec_ctx_t *ctx, int64_t batch, int64_t m,
    int64_t n, int64_t k, const float *a, int64_t sAb, int64_t sAm, int64_t sAk,
    const float *b, int64_t sBb, int64_t sBk, int64_t sBn, const float *bias,
    float *c, int64_t sCb, int64_t sCm, int64_t sCn, int32_t flags);

struct tandem_internal_kernel_failure;

/// A flag of tandem_internal_sgemm_f32_into only: no matrix-vector path
/// for a product with one row or column. That path sums in another order
/// (one K block, two sets of accumulators), so a caller whose products'
/// shapes depend on the thread count (the Winograd blocks: a last block
/// of one tile on one thread, all tiles in one GEMM on two) passes it to
/// get the same bits on every thread count.
constexpr int32_t kSgemmNoGemv = int32_t(1) << 30;

/// tandem_sgemm_f32 on micro-kernel family `isa` (nullptr: the process-wide
/// choice; a family this CPU cannot run also falls back to it), recording a
/// failure in `failure` instead of reporting it: for kernels built on the
/// sgemm, which call it from worker threads and report once, on the thread
/// that called them. `flags` may include kSgemmNoGemv.
void tandem_internal_sgemm_f32_into(
    const char *isa, const tandem_exec_ctx_t *ctx, int64_t batch, int64_t m,
    int64_t n, int64_t k, const float *a, int64_t sAb, int64_t sAm, int64_t sAk,
    const float *b, int64_t sBb, int64_t sBk, int64_t sBn, float *c,
    int64_t sCb, int64_t sCm, int64_t sCn, int32_t flags,
    tandem_internal_kernel_failure *failure);

/// The register tile (MR x NR) of micro-kernel family `isa` (nullptr: the
/// process-wide choice); false, setting nothing, if this CPU cannot run it.
/// Writes rows [row0, row0 + rows) of a k x n right-hand side B, given as
/// rows of n contiguous floats `srcStride` apart at `src`, into `packed`,
/// laid out as the GEMM packs B (the TANDEM_PACKED_PANEL_FLOATS(k, n)
/// floats tandem_conv2d_packed_f32 reads); the panels' padding columns get
/// zeros. Threads may write disjoint row ranges at once.
void tandem_internal_pack_b_rows(const float *src, int64_t srcStride,
                                 int64_t row0, int64_t rows, int64_t k,
                                 int64_t n, float *packed);

/// Like tandem_internal_pack_b_rows, for columns [col0, col0 + cols) of
/// those rows only: `src` holds them, rows `srcStride` apart. The padding
/// columns of the last panel get zeros when the columns reach n. Threads
/// may write disjoint row or column ranges at once (two ranges may share
/// a panel's lines where they meet).
void tandem_internal_pack_b_columns(const float *src, int64_t srcStride,
                                    int64_t row0, int64_t rows, int64_t k,
                                    int64_t n, int64_t col0, int64_t cols,
                                    float *packed);

/// The f x k filter of a 1x1 conv on `pixels` pixels packed as the GEMM's
/// left-hand side (for one pixel, as a matrix-vector product reads it), from
/// ctx's weight cache (packed on first use; the entry tandem_conv2d_bias_f32
/// uses for the same constant filter), or nullptr without a cache.
const float *tandem_internal_packed_filter(const tandem_exec_ctx_t *ctx,
                                           const float *filter, int64_t f,
                                           int64_t k, int64_t pixels);

/// The channel group of tandem_internal_conv1x1_rows: `rows` rounded up to
/// whole register tiles of the process-wide micro-kernel family.
int64_t tandem_internal_conv1x1_row_group(int64_t rows);

/// Output channels [row0, row0 + rows) of a 1x1 conv (filter f x k, dense),
/// on this thread: out[r][p] = epilogue(bias[row0 + r] + sum over i of
/// filter[row0 + r][i] * input[i][p]) for r < rows, p < pixels (out's rows
/// `pixels` apart), the input already packed (tandem_internal_pack_b_rows,
/// k rows of `pixels`). `packedFilter` (tandem_internal_packed_filter, or
/// nullptr) is used when row0 starts a register tile and k is one K block
/// or pixels is 1; otherwise the rows are packed here. flags:
/// TANDEM_CONV2D_RELU / RELU6, and TANDEM_CONV2D_CONSTANT_FILTER as
/// tandem_conv2d_bias_f32 got it (one pixel of a constant filter is a
/// matrix-vector product there and here).
void tandem_internal_conv1x1_rows(const float *filter,
                                  const float *packedFilter, int64_t k,
                                  int64_t row0, int64_t rows,
                                  const float *packedInput, int64_t pixels,
                                  const float *bias, int32_t flags, float *out,
                                  tandem_internal_kernel_failure *failure);

/// The register tile (mr rows of A by nr columns of B) and the longest K
/// block (kc; may be null) of the micro-kernel family `isa` (null: the one
/// this process uses); false if the CPU lacks the family. The packed
/// layouts follow them.
bool tandem_internal_sgemm_tile(const char *isa, int64_t *mr, int64_t *nr,
                                int64_t *kc = nullptr);

#endif // TANDEM_RUNTIME_KERNELS_SGEMM_INTERNAL_H
