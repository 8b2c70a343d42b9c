//===- LinkAndRun.h - run an emitted model object with a C host -*- C++ -*-===//
//
// Unit tests that emit a model object check it by linking it with a small C
// host from Inputs/ (which calls the model and checks what it computes)
// and running the program.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_TEST_UNIT_LINKANDRUN_H
#define TANDEM_TEST_UNIT_LINKANDRUN_H

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

namespace tandem_test {

/// Links `object` (an object file's bytes) with the C host `harness` (a
/// file in Inputs/, which may include the runtime's "tandem/abi.h") by the
/// system's `cc` and runs it: success when it exits with 0. Skips the test
/// when there is no `cc`.
inline void linkAndRun(const std::string &object, const char *harness) {
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    GTEST_SKIP() << "no C compiler driver ('cc') on PATH";
  ASSERT_FALSE(object.empty());
  llvm::SmallString<128> objectPath, exePath;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("tandem-unit", "o", objectPath));
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("tandem-unit", "exe", exePath));
  llvm::FileRemover removeObject(objectPath), removeExe(exePath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec);
    ASSERT_FALSE(ec);
    os << object;
  }
  std::string source = std::string(TANDEM_UNIT_INPUTS) + "/" + harness;
  std::string include = "-I" TANDEM_UNIT_INPUTS "/../../../runtime/include";
  llvm::SmallVector<llvm::StringRef> link = {
      *cc, "-std=c11", include, "-o", exePath, source, objectPath, "-lm"};
  std::string message;
  ASSERT_EQ(
      llvm::sys::ExecuteAndWait(*cc, link, std::nullopt, {}, 0, 0, &message), 0)
      << message;
  EXPECT_EQ(llvm::sys::ExecuteAndWait(exePath, {exePath}, std::nullopt, {}, 0,
                                      0, &message),
            0)
      << message;
}

} // namespace tandem_test

#endif // TANDEM_TEST_UNIT_LINKANDRUN_H
