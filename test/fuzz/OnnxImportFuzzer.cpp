//===- OnnxImportFuzzer.cpp - libFuzzer target for the ONNX importer ------===//
//
// Feeds arbitrary bytes to importOnnxBuffer. Any crash, sanitizer report,
// timeout or out-of-memory is a bug: bad models must produce diagnostics.
// Built by scripts/fuzz.sh with clang and -fsanitize=fuzzer,address,undefined.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/OnnxImporter.h"

#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: imported weights live in the context's
  // resource blobs, which would otherwise accumulate.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.loadDialect<mlir::tandem::TandemDialect, mlir::func::FuncDialect>();
  mlir::ScopedDiagnosticHandler silence(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::tandem::OnnxImportOptions options;
  // Keep a fuzzed model from binding huge inputs: shapes come from the model.
  auto module = mlir::tandem::importOnnxBuffer(
      context, llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.onnx", options);
  (void)module;
  return 0;
}
