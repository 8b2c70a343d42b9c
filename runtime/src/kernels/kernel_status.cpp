//===- kernel_status.cpp - failures inside kernels ------------------------===//

#include "kernels/kernel_status.h"

namespace {
thread_local const char *pendingError = nullptr;
} // namespace

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
