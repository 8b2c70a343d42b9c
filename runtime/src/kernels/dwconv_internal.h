//===- dwconv_internal.h - test hooks of the depthwise conv kernel -*- C++ -*-//

#ifndef TANDEM_RUNTIME_KERNELS_DWCONV_INTERNAL_H
#define TANDEM_RUNTIME_KERNELS_DWCONV_INTERNAL_H

#include "tandem/runtime.h"

/// tandem_dwconv2d_f32 (tandem_dwconv2d_bias_f32 when `bias` is given,
/// tandem_dwconv2d_pad_f32 with padding {top, left} when `pad` is) with
/// one row-kernel family ("avx512", "avx2" or "portable") instead of the
/// process-wide choice, so that tests cover each. Returns false, doing
/// nothing, if this CPU cannot run it.
bool tandem_internal_dwconv2d_f32_on(
    const char *isa, const tandem_exec_ctx_t *ctx, int64_t n, int64_t c,
    int64_t h, int64_t w, const float *input, int64_t sIn, int64_t sIc,
    int64_t sIh, int64_t sIw, int64_t kh, int64_t kw, const float *filter,
    float *output, int64_t sOn, int64_t sOc, int64_t sOh, int64_t oh,
    int64_t ow, int64_t strideH, int64_t strideW, int64_t dilationH,
    int64_t dilationW, int32_t flags, const float *bias = nullptr,
    const int64_t *pad = nullptr);

#endif // TANDEM_RUNTIME_KERNELS_DWCONV_INTERNAL_H
