//===- KernelMapping.h - how a kernel's loops map to GPU threads -*- C++
//-*-===//
//
// The one mapping every GPU kernel uses for now: the parallel iteration
// space of its linalg op is flattened to 1-D, each thread computes one
// point (guarded by `id < total`), and reduction dimensions run serially in
// the thread, accumulating in registers. planKernelLaunch() gives the
// launch geometry that tandem-outline-kernels records on each call, and
// emitMappedKernelBody() writes the matching device code.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_KERNELMAPPING_H
#define TANDEM_CODEGEN_GPU_KERNELMAPPING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <array>

namespace mlir::tandem {

/// Threads per block of the flattened mapping.
constexpr int64_t kThreadsPerBlock = 256;

/// How one linalg op runs on the GPU.
struct KernelPlan {
  /// Static trip counts of every loop of the op.
  SmallVector<int64_t> bounds;
  /// The loops mapped to threads (flattened, row-major); the others run
  /// serially in each thread.
  SmallVector<unsigned> threadDims;
  /// Each thread owns its output elements: they are loaded once, carried
  /// through the serial loops in registers and stored once. Otherwise one
  /// thread runs every loop with a load and a store per point.
  bool accumulateInRegisters = true;
  /// The product of the thread loops' trip counts (1 when none).
  int64_t total = 1;
  /// {gx, gy, gz, bx, by, bz}.
  std::array<int64_t, 6> launch = {1, 1, 1, 1, 1, 1};
};

/// Plans `op`: every parallel loop goes to a thread when each output is
/// indexed by all parallel loops and no reduction loop (distinct threads then
/// write distinct elements); otherwise one thread runs the whole op. Fails
/// (with an error on `op`) for dynamic trip counts or too large a grid.
FailureOr<KernelPlan> planKernelLaunch(linalg::LinalgOp op);

/// Emits, at `builder`'s insertion point inside a gpu.func, the code of `op`
/// under `plan`: the guarded thread index, its delinearisation and the
/// serial loops. `mapping` maps `op`'s operands to values of the gpu.func.
/// `threadIndex`, when given, replaces blockIdx.x * bx + threadIdx.x (host
/// emulation of the grid).
void emitMappedKernelBody(OpBuilder &builder, linalg::LinalgOp op,
                          const KernelPlan &plan, IRMapping &mapping,
                          Value threadIndex = {});

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_KERNELMAPPING_H
