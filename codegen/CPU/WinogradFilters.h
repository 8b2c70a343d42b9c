//===- WinogradFilters.h - compile-time Winograd filter transforms -*- C++
//-*-===//
//
// The per-layer Winograd choice for tandem_conv2d_f32 and the transform of
// constant filters at compile time (tandem/winograd.h is the layout the
// kernel reads), so the runtime neither transforms nor keeps the original.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_CPU_WINOGRADFILTERS_H
#define TANDEM_CODEGEN_CPU_WINOGRADFILTERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tandem {

/// The Winograd output tile m (4 or 2) a 3x3, stride-1 convolution writing
/// `output` ([N, F, OH, OW]) takes, or 0 for the im2col GEMM: F(4x4, 3x3)
/// when its tiles fill two AVX-512 micro-kernel row panels (28 tiles),
/// else F(2x2, 3x3) when its tiles do, else none (too few tiles to keep the
/// GEMMs' micro-kernels busy: ResNet's 7x7 stage at batch 1).
int winogradTileFor(MemRefType output);

/// A memref.get_global, created at `b`'s insertion point, of the constant
/// `filter` (a memref.get_global of a constant f32 [F, C, 3, 3] global)
/// transformed for F(m x m, 3 x 3) into a new constant global
/// [(m + 2)^2, C, F] (reused if another convolution made it); null when the
/// filter's data cannot be read. The original global is left to its other
/// users (erase it when it has none).
Value createWinogradFilter(OpBuilder &b, Location loc, Value filter, int m);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_CPU_WINOGRADFILTERS_H
