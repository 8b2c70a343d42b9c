//===- kernel_status.cpp - failures inside kernels ------------------------===//

#include "kernels/kernel_status.h"

#include "tandem/runtime.h"

#include <cinttypes>
#include <cstdio>

namespace {
thread_local const char *pendingError = nullptr;
thread_local std::string pendingInputError;
} // namespace

void tandem_report_index_error(const tandem_exec_ctx_t *, const char *node,
                               int64_t index, int64_t size) {
  if (!pendingInputError.empty())
    return;
  char message[512];
  std::snprintf(message, sizeof message,
                "node '%s': index %" PRId64
                " is out of range for an axis of size %" PRId64
                " (valid: %" PRId64 " to %" PRId64 ")",
                node ? node : "?", index, size, -size, size - 1);
  pendingInputError = message;
}

std::string tandem_internal_take_input_error() {
  std::string error;
  error.swap(pendingInputError);
  return error;
}

void tandem_internal_kernel_fail(tandem_internal_kernel_failure *failure,
                                 const char *message) {
  const char *none = nullptr;
  failure->message.compare_exchange_strong(none, message);
  failure->failed.store(true, std::memory_order_release);
}

void tandem_internal_kernel_report(tandem_internal_kernel_failure *failure) {
  if (failure->failed.load(std::memory_order_acquire) && !pendingError)
    pendingError = failure->message.load();
}

const char *tandem_internal_take_kernel_error() {
  const char *error = pendingError;
  pendingError = nullptr;
  return error;
}
