//===- CudaToolkit.cpp - ptxas and fatbinary, when installed --------------===//

#include "codegen/GPU/CudaToolkit.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tandem;

/// `root`/bin/`name` when it is an executable, else "".
static std::string findTool(llvm::StringRef root, llvm::StringRef name) {
  llvm::SmallString<128> path(root);
  llvm::sys::path::append(path, "bin", name);
  return llvm::sys::fs::can_execute(path) ? path.str().str() : "";
}

CudaToolkit::CudaToolkit(llvm::StringRef root)
    : ptxas(findTool(root, "ptxas")), fatbinary(findTool(root, "fatbinary")) {}

namespace {

/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;

  LogicalResult create(llvm::StringRef suffix, Location loc) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("tandem-gpu", suffix, path))
      return emitError(loc)
             << "cannot create a temporary file: " << ec.message();
    remover.emplace(path);
    return success();
  }

  LogicalResult write(llvm::StringRef bytes, Location loc) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      os << bytes;
    if (ec || os.has_error())
      return emitError(loc) << "cannot write '" << path << "'";
    return success();
  }

  FailureOr<std::string> read(Location loc) const {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return emitError(loc)
             << "cannot read '" << path << "': " << buffer.getError().message();
    return (*buffer)->getBuffer().str();
  }
};

/// Runs `program` with `args`; on failure reports its stderr at `loc`.
LogicalResult run(llvm::StringRef program, ArrayRef<std::string> args,
                  Location loc) {
  TempFile log;
  if (failed(log.create("log", loc)))
    return failure();
  SmallVector<llvm::StringRef> argv = {program};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &message);
  if (rc == 0)
    return success();
  FailureOr<std::string> output = log.read(loc);
  return emitError(loc) << program << " failed"
                        << (message.empty() ? "" : ": " + message) << "\n"
                        << (succeeded(output) ? *output : "");
}

/// "sm_90a" -> "90a".
std::string smNumber(llvm::StringRef arch) {
  arch.consume_front("sm_");
  return arch.str();
}

} // namespace

FailureOr<std::string> CudaToolkit::assemble(llvm::StringRef ptx,
                                             llvm::StringRef arch,
                                             Location loc) const {
  TempFile input, output;
  if (failed(input.create("ptx", loc)) || failed(input.write(ptx, loc)) ||
      failed(output.create("cubin", loc)))
    return failure();
  if (failed(run(ptxas,
                 {"-arch=" + arch.str(), "-O3", "-o", output.path.str().str(),
                  input.path.str().str()},
                 loc)))
    return failure();
  return output.read(loc);
}

FailureOr<std::string> CudaToolkit::pack(const std::vector<DeviceImage> &ptx,
                                         const std::vector<DeviceImage> &cubins,
                                         Location loc) const {
  std::vector<TempFile> inputs(ptx.size() + cubins.size());
  std::vector<std::string> args;
  TempFile output;
  if (failed(output.create("fatbin", loc)))
    return failure();
  args.push_back("--create=" + output.path.str().str());
  args.push_back("-64");
  size_t i = 0;
  for (const auto *list : {&ptx, &cubins})
    for (const DeviceImage &image : *list) {
      TempFile &file = inputs[i++];
      bool isPTX = image.format == TANDEM_IMAGE_PTX;
      if (failed(file.create(isPTX ? "ptx" : "cubin", loc)) ||
          failed(file.write(image.bytes, loc)))
        return failure();
      args.push_back("--image3=kind=" + std::string(isPTX ? "ptx" : "elf") +
                     ",sm=" + smNumber(image.arch) +
                     ",file=" + file.path.str().str());
    }
  if (failed(run(fatbinary, args, loc)))
    return failure();
  return output.read(loc);
}
