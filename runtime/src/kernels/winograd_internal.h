//===- winograd_internal.h - Winograd 3x3 convolution ------------*- C++-*-===//
//
// The Winograd path of tandem_conv2d_f32 (TANDEM_CONV2D_WINOGRAD), with the
// micro-kernel family and the output tile size as parameters so that tests
// cover every ISA path and both F(2x2, 3x3) and F(4x4, 3x3).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_WINOGRAD_INTERNAL_H
#define TANDEM_RUNTIME_KERNELS_WINOGRAD_INTERNAL_H

#include "tandem/runtime.h"

/// Runs the 3x3, stride-1, undilated convolution of tandem_conv2d_f32's
/// arguments (the filter dims and strides implied) with Winograd
/// F(m x m, 3 x 3): `tile` is m (2 or 4), or 0 to choose by cost; `isa` is
/// the micro-kernel family ("avx512", "avx2", "portable"; nullptr for the
/// process-wide choice). Returns false, doing nothing, when the choice by
/// cost is the im2col GEMM (too few output tiles to fill the micro-kernel)
/// or `isa` does not run here. With TANDEM_CONV2D_WINOGRAD_F2/_F4 in
/// `flags`, `filter` is already transformed for that `tile`
/// (tandem/winograd.h). Failures are reported like the sgemm's.
bool tandem_internal_winograd_conv2d_f32(
    const char *isa, int tile, const tandem_exec_ctx_t *ctx, int64_t n,
    int64_t c, int64_t h, int64_t w, const float *input, int64_t sIn,
    int64_t sIc, int64_t sIh, int64_t sIw, int64_t f, const float *filter,
    float *output, int64_t sOn, int64_t sOf, int64_t oh, int64_t ow,
    int32_t flags);

#endif // TANDEM_RUNTIME_KERNELS_WINOGRAD_INTERNAL_H
