//===- ReportFile.h - writing a pass's report -------------------*- C++ -*-===//
//
// The one way the report passes (placement, fusion, kernel cost) write their
// report: to stdout for "-", else to the file, kept only when written whole.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_ANALYSIS_REPORTFILE_H
#define TANDEM_PASSES_ANALYSIS_REPORTFILE_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tandem {

/// Writes what `write` prints to `path` ("-": stdout). On failure emits
/// "cannot write <what>: <reason>" at `loc` and leaves no file.
LogicalResult
writeReportFile(llvm::StringRef path, llvm::StringRef what, Location loc,
                llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_ANALYSIS_REPORTFILE_H
