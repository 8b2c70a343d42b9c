//===- ReportFile.cpp - writing a pass's report ---------------------------===//

#include "passes/Analysis/ReportFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::tandem;

LogicalResult mlir::tandem::writeReportFile(
    llvm::StringRef path, llvm::StringRef what, Location loc,
    llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (path == "-") {
    write(llvm::outs());
    llvm::outs().flush();
    return success();
  }
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
  if (!file)
    return emitError(loc) << "cannot write " << what << ": " << message;
  write(file->os());
  file->os().flush();
  if (file->os().has_error())
    return emitError(loc) << "cannot write " << what << ": writing '" << path
                          << "' failed";
  file->keep();
  return success();
}
