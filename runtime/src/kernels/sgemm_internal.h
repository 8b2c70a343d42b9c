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

#endif // TANDEM_RUNTIME_KERNELS_SGEMM_INTERNAL_H
