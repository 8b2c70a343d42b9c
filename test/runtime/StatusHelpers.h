//===- StatusHelpers.h - tandem_status_t in GoogleTest tests ----*- C++ -*-===//
//
// The runtime tests' shared way to check a tandem_status_t: Status takes
// ownership (frees it) and keeps its code and message; EXPECT_OK/ASSERT_OK
// print the message of an unexpected failure.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_TEST_RUNTIME_STATUSHELPERS_H
#define TANDEM_TEST_RUNTIME_STATUSHELPERS_H

#include "tandem/runtime.h"

#include "gtest/gtest.h"

#include <string>

namespace tandem_test {

/// Takes ownership of a status (NULL is success) and gives its code and
/// message.
struct Status {
  Status() = default;
  explicit Status(tandem_status_t status)
      : code(tandem_status_code(status)),
        message(tandem_status_message(status)) {
    tandem_status_free(status);
  }
  tandem_status_code_t code = TANDEM_OK;
  std::string message;
};

/// The Status of `status`, as an expression.
inline Status take(tandem_status_t status) { return Status(status); }

} // namespace tandem_test

#define EXPECT_OK(expr)                                                        \
  do {                                                                         \
    ::tandem_test::Status status_(expr);                                       \
    EXPECT_EQ(status_.code, TANDEM_OK) << status_.message;                     \
  } while (false)
#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    ::tandem_test::Status status_(expr);                                       \
    ASSERT_EQ(status_.code, TANDEM_OK) << status_.message;                     \
  } while (false)

#endif // TANDEM_TEST_RUNTIME_STATUSHELPERS_H
