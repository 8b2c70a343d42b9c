//===- gemm_desc.h - tandem_gemm_desc_t: checks and host runs --*- C++ -*-===//
//
// The one definition of what a tandem_gemm_desc_t means: its checks, the
// extent of each operand, and its execution on the host through
// tandem_sgemm_f32 (the emulated device and the CPU fallback run this, so
// tests pin down the semantics the CUDA backend gives cuBLASLt).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_GEMM_DESC_H
#define TANDEM_RUNTIME_KERNELS_GEMM_DESC_H

#include "tandem/runtime.h"

#include <cstddef>
#include <cstdint>

namespace tandem {
namespace gemm {

/// The operands of a GEMM, in the order tandem_device_gemm takes them.
enum Operand { kA = 0, kB = 1, kC = 2, kBias = 3 };

/// Whether the epilogue adds the bias vector.
inline bool hasBias(const tandem_gemm_desc_t &d) {
  return d.epilogue == TANDEM_GEMM_EPILOGUE_BIAS ||
         d.epilogue == TANDEM_GEMM_EPILOGUE_BIAS_RELU ||
         d.epilogue == TANDEM_GEMM_EPILOGUE_BIAS_GELU;
}

/// Whether the epilogue applies ReLU.
inline bool hasRelu(const tandem_gemm_desc_t &d) {
  return d.epilogue == TANDEM_GEMM_EPILOGUE_RELU ||
         d.epilogue == TANDEM_GEMM_EPILOGUE_BIAS_RELU;
}

/// Whether the epilogue applies GELU (tanh approximation).
inline bool hasGelu(const tandem_gemm_desc_t &d) {
  return d.epilogue == TANDEM_GEMM_EPILOGUE_GELU ||
         d.epilogue == TANDEM_GEMM_EPILOGUE_BIAS_GELU;
}

/// Whether A and B hold 16-bit elements (TANDEM_GEMM_16BIT_AB).
inline bool has16BitOperands(const tandem_gemm_desc_t &d) {
  return (d.flags & TANDEM_GEMM_16BIT_AB) != 0;
}

/// GELU's tanh approximation, as TANDEM_GEMM_EPILOGUE_GELU defines it.
float geluTanh(float x);

/// Checks `d`; on failure writes a message (lower case, no period) into
/// `message` and returns false.
bool check(const tandem_gemm_desc_t &d, char *message, size_t size);

/// The bytes of `operand` the GEMM touches, from its start: what must lie in
/// device memory. 0 for the bias without a bias epilogue. `d` is checked.
uint64_t extentBytes(const tandem_gemm_desc_t &d, Operand operand);

/// Runs the checked GEMM `d` on host memory with tandem_sgemm_f32 on
/// ctx's thread pool (NULL: the calling thread). `a` and `b` hold f32, or
/// 16-bit elements with TANDEM_GEMM_16BIT_AB (widened first). `bias` may be
/// NULL without a bias epilogue. Failures go through the kernel-error
/// channel of tandem_sgemm_f32.
void runOnHost(const tandem_exec_ctx_t *ctx, const tandem_gemm_desc_t &d,
               const void *a, const void *b, float *c, const float *bias);

} // namespace gemm
} // namespace tandem

#endif // TANDEM_RUNTIME_KERNELS_GEMM_DESC_H
