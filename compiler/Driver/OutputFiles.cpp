//===- OutputFiles.cpp - all-or-nothing output files of one compile -------===//

#include "compiler/Driver/OutputFiles.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

using namespace mlir;
using namespace mlir::tandem;

/// The canonical absolute path of `path`: its real path when it exists, else
/// the real path of its folder joined with its file name. Empty when its
/// folder does not exist.
static std::string canonicalPath(StringRef path) {
  SmallString<256> real;
  if (!llvm::sys::fs::real_path(path, real))
    return std::string(real);
  SmallString<256> folder(llvm::sys::path::parent_path(path));
  if (folder.empty())
    folder = ".";
  if (llvm::sys::fs::real_path(folder, real))
    return "";
  llvm::sys::path::append(real, llvm::sys::path::filename(path));
  return std::string(real);
}

/// True when `a` and `b` (canonical paths) are the same file: the same path,
/// or two names (hard links) of one existing file.
static bool sameFile(StringRef a, StringRef b) {
  if (a == b)
    return true;
  bool equivalent = false;
  return !llvm::sys::fs::equivalent(a, b, equivalent) && equivalent;
}

OutputFiles::OutputFiles(Location loc, llvm::ArrayRef<std::string> inputs)
    : loc(loc) {
  for (const std::string &input : inputs)
    if (!input.empty() && input != "-")
      inputIdentities.push_back({input, canonicalPath(input)});
}

OutputFiles::~OutputFiles() {
  if (committed)
    return;
  for (const Entry &entry : entries) {
    llvm::sys::fs::remove(entry.temporary);
    llvm::sys::DontRemoveFileOnSignal(entry.temporary);
  }
}

FailureOr<std::string> OutputFiles::add(StringRef path, StringRef what) {
  if (path.empty() || path == "-")
    return std::string(path);
  auto fail = [&]() {
    InFlightDiagnostic diag = emitError(loc);
    diag << what << " '" << path << "': ";
    return diag;
  };
  std::string identity = canonicalPath(path);
  if (identity.empty())
    return fail() << "its folder does not exist", failure();
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(identity, status)) {
    if (status.type() == llvm::sys::fs::file_type::directory_file)
      return fail() << "is a directory", failure();
    // A device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written
    // as it is: never replaced by a rename, never removed.
    if (status.type() != llvm::sys::fs::file_type::regular_file)
      return std::string(path);
  }
  for (const auto &[input, inputIdentity] : inputIdentities)
    if (!inputIdentity.empty() && sameFile(identity, inputIdentity))
      return fail() << "is the input file '" << input
                    << "'; refusing to overwrite it",
             failure();
  for (const Entry &entry : entries)
    if (sameFile(identity, entry.identity))
      return fail() << "is also the output of " << entry.what << " ('"
                    << entry.path << "')",
             failure();

  // The temporary lives beside the destination, so the final rename stays
  // within one file system and is atomic.
  // It keeps the extension, which some writers read (a placement report
  // named *.json is JSON).
  StringRef extension = llvm::sys::path::extension(identity);
  SmallString<256> model(StringRef(identity).drop_back(extension.size()));
  model += ".tmp-%%%%%%";
  model += extension;
  SmallString<256> temporary;
  int fd = -1;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return fail() << "cannot create a file in its folder: " << ec.message(),
           failure();
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  llvm::sys::RemoveFileOnSignal(temporary);
  entries.push_back(
      {std::string(path), identity, std::string(temporary), std::string(what)});
  return std::string(temporary);
}

LogicalResult OutputFiles::commit() {
  for (const Entry &entry : entries) {
    if (std::error_code ec =
            llvm::sys::fs::rename(entry.temporary, entry.identity))
      return emitError(loc) << "cannot write " << entry.what << " '"
                            << entry.path << "': " << ec.message(),
             failure();
    llvm::sys::DontRemoveFileOnSignal(entry.temporary);
  }
  committed = true;
  return success();
}
