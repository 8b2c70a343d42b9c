//===- MlirParseFuzzer.cpp - libFuzzer target for the .mlir front door ----===//
//
// Parses arbitrary text as an MLIR module and verifies it, with the tandem
// and tandem_exec dialects and every upstream dialect registered, as
// tandem-opt does for .mlir input (compiler/InitAll.cpp, without the passes;
// tandemc registers a subset, compiler/CompilerDialects.cpp). Malformed
// attributes, overflowing shapes and every other bad input must end in a
// diagnostic (text that crashes MLIR's own parser is refused first, by
// findParserCrash, as the front doors do): any crash, sanitizer report,
// timeout or out-of-memory is a bug. Built by scripts/fuzz.sh with clang and
// -fsanitize=fuzzer,address,undefined.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/MlirSourceCheck.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/TandemExec/IR/TandemExecDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

namespace {

/// The registry is built once; each input gets a fresh context.
const mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    r->insert<mlir::tandem::TandemDialect,
              mlir::tandem::exec::TandemExecDialect>();
    mlir::registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // As the front doors do: text that crashes MLIR's own parser is an error.
  if (mlir::tandem::findParserCrash(text))
    return 0;
  mlir::MLIRContext context(registry(), mlir::MLIRContext::Threading::DISABLED);
  // As tandem-opt: dialects load when the text names them.
  context.allowUnregisteredDialects(false);
  mlir::ScopedDiagnosticHandler silence(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/true);
  // As the tools read files: a NUL-terminated buffer, which MLIR's lexer
  // relies on (parseSourceString's unterminated view is read past its end).
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, config);
  (void)module;
  return 0;
}
