//===- kernel_status.h - failures inside kernels called by generated code -===//
//
// Kernels that generated code calls return nothing (the generated code has no
// error paths). A kernel that cannot do its work (e.g. no memory for its
// packing buffers) records the failure here instead; the run that called the
// entry turns it into an error status, so no caller ever gets a silently
// wrong result.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_KERNEL_STATUS_H
#define TANDEM_RUNTIME_KERNELS_KERNEL_STATUS_H

#include <atomic>
#include <string>

/// A failure seen by any thread working on one kernel call.
struct tandem_internal_kernel_failure {
  std::atomic<bool> failed{false};
  std::atomic<const char *> message{nullptr};
};

/// Records `message` (a string literal) as the call's failure. Thread-safe.
void tandem_internal_kernel_fail(tandem_internal_kernel_failure *failure,
                                 const char *message);

/// On the thread that made the kernel call: if it failed, remembers the
/// message for tandem_internal_take_kernel_error.
void tandem_internal_kernel_report(tandem_internal_kernel_failure *failure);

/// Returns and clears this thread's first unreported kernel failure, or
/// nullptr.
const char *tandem_internal_take_kernel_error();

/// Returns and clears this thread's first unreported error in the run's
/// inputs (an index out of range, from tandem_report_index_error), or "".
std::string tandem_internal_take_input_error();

#endif // TANDEM_RUNTIME_KERNELS_KERNEL_STATUS_H
