//===- conv_desc.h - tandem_conv_desc_t: checks and host runs --*- C++ -*-===//
//
// The one definition of what a tandem_conv_desc_t means: its checks, the
// extent of each operand, and its execution on the host by the CPU
// convolution kernels (the emulated device and the CPU fallback run this,
// so tests pin down the semantics the CUDA backend gives cuDNN, and a GPU
// artifact without a GPU runs its convolutions as fast as a CPU build).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_CONV_DESC_H
#define TANDEM_RUNTIME_KERNELS_CONV_DESC_H

#include "tandem/runtime.h"

#include <cstddef>
#include <cstdint>

namespace tandem {
namespace conv {

/// The operands of a convolution, in the order tandem_device_conv takes
/// them.
enum Operand { kX = 0, kW = 1, kY = 2, kBias = 3, kZ = 4 };
constexpr int kNumOperands = 5;

/// Whether the convolution adds the per-channel bias.
inline bool hasBias(const tandem_conv_desc_t &d) {
  return (d.flags & TANDEM_CONV_BIAS) != 0;
}

/// Whether the convolution adds the residual z.
inline bool hasResidual(const tandem_conv_desc_t &d) {
  return (d.flags & TANDEM_CONV_RESIDUAL) != 0;
}

/// "none", "relu", "relu6", "sigmoid", "swish" (of a checked activation).
const char *activationName(int64_t activation);

/// Checks `d`; on failure writes a message (lower case, no period) into
/// `message` and returns false.
bool check(const tandem_conv_desc_t &d, char *message, size_t size);

/// The bytes of `operand`: what must lie in device memory. 0 for the bias
/// or z when the descriptor does not use them. `d` is checked.
uint64_t extentBytes(const tandem_conv_desc_t &d, Operand operand);

/// `x` under activation `activation` (TANDEM_CONV_ACT_*).
float activate(int64_t activation, float x);

/// Runs the checked convolution `d` on host memory with the CPU kernels
/// (tandem_conv2d_bias_f32 once per group, or tandem_dwconv2d_bias_f32 for
/// a depthwise one; the padding into a copy of x; an NHWC one through
/// NCHW copies of x, w and z and of y) on ctx's thread pool
/// (NULL: the calling thread). Their sums do not depend on the thread
/// count, so results are bit-identical at any. `bias` and `z` may be NULL
/// when unused.
void runOnHost(const tandem_exec_ctx_t *ctx, const tandem_conv_desc_t &d,
               const float *x, const float *w, float *y, const float *bias,
               const float *z);

} // namespace conv
} // namespace tandem

#endif // TANDEM_RUNTIME_KERNELS_CONV_DESC_H
