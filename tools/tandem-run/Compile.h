//===- Compile.h - Compiling .onnx / .mlir models with tandemc -*- C++ -*-===//
//
// tandem-run runs shared libraries; given a .onnx or .mlir model instead, it
// compiles it first by running the tandemc executable (a child process, so
// that tandem-run itself never links LLVM or MLIR) into a temporary
// directory. POSIX only.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_TOOLS_TANDEM_RUN_COMPILE_H
#define TANDEM_TOOLS_TANDEM_RUN_COMPILE_H

#include <string>
#include <vector>

namespace tandem {

/// True if `path` names a model tandemc compiles: it ends in .onnx or .mlir.
bool isSourceModel(const std::string &path);

/// Finds the tandemc executable: `explicitPath` (--tandemc) if given, else
/// the TANDEMC environment variable, else `tandemc` in the directory of the
/// running executable (/proc/self/exe). On failure returns false and sets
/// `error` to a message saying where it looked.
bool findTandemc(const std::string &explicitPath, std::string &tandemc,
                 std::string &error);

/// A fresh private directory under $TMPDIR (or /tmp), removed together with
/// the files in it when destroyed.
class TempDir {
public:
  TempDir() = default;
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir();

  /// Creates the directory; on failure returns false and sets `error`.
  bool create(std::string &error);
  const std::string &path() const { return dirPath; }

private:
  std::string dirPath;
};

/// Catches SIGINT, SIGTERM and SIGHUP while it lives (a compile and the
/// temporary directory it writes): a signal then only records itself (see
/// pendingInterrupt), compileToShared stops tandemc and fails, and the
/// caller removes its temporary files before dying of the signal. The
/// previous handlers come back when it is destroyed. One at a time.
class InterruptGuard {
public:
  InterruptGuard();
  InterruptGuard(const InterruptGuard &) = delete;
  InterruptGuard &operator=(const InterruptGuard &) = delete;
  ~InterruptGuard();
};

/// The signal an InterruptGuard caught (0: none). The caller re-raises it
/// once its temporary files are gone.
int pendingInterrupt();

/// Runs `tandemc MODEL --emit=shared -o OUTPUT ARGS...` and waits for it.
/// If an InterruptGuard catches a signal meanwhile, sends tandemc SIGTERM,
/// waits for it to exit and fails with "interrupted by SIGINT".
/// tandemc's diagnostics go straight to this process's stderr. Returns false
/// with `error` set if it cannot be started, exits non-zero or dies.
bool compileToShared(const std::string &tandemc, const std::string &model,
                     const std::string &output,
                     const std::vector<std::string> &args, std::string &error);

} // namespace tandem

#endif // TANDEM_TOOLS_TANDEM_RUN_COMPILE_H
