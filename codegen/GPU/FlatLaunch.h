//===- FlatLaunch.h - launch geometry of a flattened GPU kernel -*- C++ -*-===//
//
// The launch geometry of a kernel mapped one thread per point of its
// flattened parallel loops (KernelMapping.h): shared by the mapping and by
// the host-schedule passes that create such kernels themselves.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_FLATLAUNCH_H
#define TANDEM_CODEGEN_GPU_FLATLAUNCH_H

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace mlir::tandem {

/// Threads per block of the flattened mapping.
constexpr int64_t kThreadsPerBlock = 256;

/// Threads per warp.
constexpr int32_t kWarpSize = 32;

/// {gx, gy, gz, bx, by, bz} for `total` points, one thread each: one block
/// of 256 threads at most, a small kernel whole warps.
inline std::array<int64_t, 6> flatLaunchDims(int64_t total) {
  total = std::max<int64_t>(total, 1);
  int64_t threads =
      std::min<int64_t>(kThreadsPerBlock, llvm::alignTo(total, 32));
  return {static_cast<int64_t>(llvm::divideCeil(total, threads)),
          1,
          1,
          threads,
          1,
          1};
}

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_FLATLAUNCH_H
