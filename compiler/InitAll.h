//===- InitAll.h - register Tandem's dialects and passes --------*- C++ -*-===//
//
// One place that registers everything a Tandem tool needs: the tandem
// dialect, the upstream dialects the pipeline lowers through, and every
// Tandem pass.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_INITALL_H
#define TANDEM_COMPILER_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tandem {

/// Adds the tandem dialect and the upstream dialects (with their interface
/// extensions) used by the pipeline to `registry`.
void registerAllTandemDialects(DialectRegistry &registry);

/// Registers every Tandem pass and pipeline, plus the upstream passes, with
/// the global pass registry (for tandem-opt's command line).
void registerAllTandemPasses();

} // namespace mlir::tandem

#endif // TANDEM_COMPILER_INITALL_H
