//===- InitAll.h - register Tandem's dialects and passes --------*- C++ -*-===//
//
// Everything, for tandem-opt: the tandem dialects with all of upstream
// MLIR's dialects, extensions and translations, and every Tandem and
// upstream pass. tandemc registers only what its pipelines use
// (CompilerDialects.h).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_INITALL_H
#define TANDEM_COMPILER_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tandem {

/// Adds the compiler's dialects (registerCompilerDialects) and every
/// upstream dialect, interface extension and LLVM IR translation to
/// `registry`.
void registerAllTandemDialects(DialectRegistry &registry);

/// Registers every Tandem pass and pipeline, plus the upstream passes, with
/// the global pass registry (for tandem-opt's command line).
void registerAllTandemPasses();

} // namespace mlir::tandem

#endif // TANDEM_COMPILER_INITALL_H
