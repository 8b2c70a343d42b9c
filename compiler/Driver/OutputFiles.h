//===- OutputFiles.h - all-or-nothing output files of one compile -*- C++
//-*-===//
//
// Every file a compilation writes (the output, its header, reports, drawings)
// is written to a temporary beside its destination and renamed into place
// only when the whole compilation has succeeded. A failure, an interrupt
// (SIGINT, SIGTERM) or an error in any one output leaves none of them behind,
// and a kill -9 at worst leaves a temporary, never a truncated output.
// Before anything runs, the destinations are checked against the inputs and
// each other by file identity, so `-o model.onnx` cannot destroy the model.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_DRIVER_OUTPUTFILES_H
#define TANDEM_COMPILER_DRIVER_OUTPUTFILES_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tandem {

/// The output files of one compilation.
class OutputFiles {
public:
  /// `inputs` are the files the compilation reads (the model, a device
  /// config); no output may be one of them.
  OutputFiles(Location loc, llvm::ArrayRef<std::string> inputs);
  /// Removes every temporary not yet committed.
  ~OutputFiles();
  OutputFiles(const OutputFiles &) = delete;
  OutputFiles &operator=(const OutputFiles &) = delete;

  /// Registers `path` ("-" or empty: returned unchanged) as an output that
  /// `what` (e.g. "-o", "--header") names, and returns the temporary path to
  /// write instead. Fails with a diagnostic when `path` is an input or
  /// another output (by file identity, not spelling), is a directory, or
  /// its folder does not exist or is not writable. A destination that is
  /// not a regular file (a device such as /dev/null, a FIFO) is returned
  /// unchanged: it is written directly, never renamed over or removed.
  FailureOr<std::string> add(StringRef path, StringRef what);

  /// Renames every temporary onto its destination. On failure, removes what
  /// is left and reports the destination.
  LogicalResult commit();

private:
  struct Entry {
    std::string path;      ///< as the user named it
    std::string identity;  ///< canonical absolute path
    std::string temporary; ///< written instead of `path`
    std::string what;      ///< the flag that named it
  };
  Location loc;
  llvm::SmallVector<Entry> entries;
  llvm::SmallVector<std::pair<std::string, std::string>> inputIdentities;
  bool committed = false;
};

} // namespace mlir::tandem

#endif // TANDEM_COMPILER_DRIVER_OUTPUTFILES_H
