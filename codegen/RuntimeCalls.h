//===- RuntimeCalls.h - runtime functions that generated code calls -*- C++
//-*-===//
//
// The names of the runtime ABI functions (runtime/include/tandem/runtime.h)
// that passes emit calls of, in one place for the passes that emit a call and
// those that complete it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_RUNTIMECALLS_H
#define TANDEM_CODEGEN_RUNTIMECALLS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tandem {

/// void tandem_report_index_error(const tandem_exec_ctx_t *ctx,
///                                const char *node, int64_t index,
///                                int64_t size): an index read at run time
/// lies outside its axis. Emitted with a null ctx by tandem-lower-to-linalg;
/// tandem-call-cpu-kernels passes the function's exec context.
constexpr llvm::StringLiteral kReportIndexError = "tandem_report_index_error";

/// void tandem_require_hardswish_epilogue(void): does nothing; called
/// before each kernel call that sets a HARDSWISH flag, so that a runtime
/// older than that epilogue (which would ignore the bit) refuses to load
/// the object (an undefined symbol) instead of computing without it.
constexpr llvm::StringLiteral kRequireHardSwish =
    "tandem_require_hardswish_epilogue";

/// void tandem_require_silu_epilogue(void): the same for the SILU flags.
constexpr llvm::StringLiteral kRequireSilu = "tandem_require_silu_epilogue";

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_RUNTIMECALLS_H
