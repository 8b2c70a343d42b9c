//===- scratch.h - grow-only thread-local kernel buffers ---------*- C++
//-*-===//
//
// The packing and tile buffers of the CPU kernels: one per thread and use,
// allocated on a thread's first call and grown when a call needs more, so
// nothing is allocated in steady state.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_SCRATCH_H
#define TANDEM_RUNTIME_KERNELS_SCRATCH_H

#include <cstddef>
#include <cstdlib>

namespace tandem_internal {

/// A grow-only, 64-byte aligned buffer (declare it thread_local).
struct Scratch {
  float *data = nullptr;
  size_t capacity = 0;
  ~Scratch() { std::free(data); }
  /// At least n floats, or nullptr when memory is exhausted.
  float *get(size_t n) {
    if (n <= capacity)
      return data;
    size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    void *fresh = std::aligned_alloc(64, bytes);
    if (!fresh)
      return nullptr;
    std::free(data);
    data = static_cast<float *>(fresh);
    capacity = n;
    return data;
  }
};

} // namespace tandem_internal

#endif // TANDEM_RUNTIME_KERNELS_SCRATCH_H
