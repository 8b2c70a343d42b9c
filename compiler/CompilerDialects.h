//===- CompilerDialects.h - what the compiler's pipelines need --*- C++ -*-===//
//
// The dialects, interface extensions and LLVM IR translations that tandemc
// and the driver library use: the tandem dialects, the upstream dialects
// the CPU and GPU pipelines lower through, and nothing else. tandem-opt
// registers everything instead (InitAll.h).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_COMPILERDIALECTS_H
#define TANDEM_COMPILER_COMPILERDIALECTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tandem {

/// Adds to `registry` the dialects that the importer and the pipelines of
/// every phase create or lower through (tandem, tandem_exec, func, arith,
/// math, tensor, linalg, bufferization, memref, affine, scf, cf, index,
/// vector, complex, ub, gpu, nvvm, llvm), the interface models those
/// pipelines rely on (bufferisation, deallocation, inlining, value bounds,
/// conversion to LLVM inside GPU kernels, the NVVM target) and the
/// translations to LLVM IR of the builtin, gpu, llvm and nvvm dialects. A
/// context built on it and loaded with loadAllAvailableDialects() runs every
/// phase.
void registerCompilerDialects(DialectRegistry &registry);

} // namespace mlir::tandem

#endif // TANDEM_COMPILER_COMPILERDIALECTS_H
