//===- grouped_conv_internal.h - grouped conv on a chosen ISA ---*- C++ -*-===//
//
// For the tests: tandem_grouped_conv2d_f32 on one kernel family.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_GROUPED_CONV_INTERNAL_H
#define TANDEM_RUNTIME_KERNELS_GROUPED_CONV_INTERNAL_H

#include "tandem/runtime.h"

/// tandem_grouped_conv2d_f32 on the kernel family `family`: "avx512",
/// "avx2" or "portable" (the direct blocks on those vectors, whatever the
/// group's size) or "gemm" (each group as tandem_conv2d_f32's GEMM; with
/// implicit padding, on a padded copy of the group's input). Returns
/// false, computing nothing, where this CPU cannot run the family.
bool tandem_internal_grouped_conv2d_f32_on(
    const char *family, const tandem_exec_ctx_t *ctx, int64_t n, int64_t groups,
    int64_t c, int64_t h, int64_t w, const float *input, int64_t sIn,
    int64_t sIg, int64_t sIc, int64_t sIh, int64_t sIw, int64_t f, int64_t kh,
    int64_t kw, const float *filter, int64_t sFg, const float *bias,
    float *output, int64_t sOn, int64_t sOg, int64_t sOf, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int64_t padTop, int64_t padLeft, int32_t flags);

#endif // TANDEM_RUNTIME_KERNELS_GROUPED_CONV_INTERNAL_H
