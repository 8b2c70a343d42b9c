//===- CachedContext.h - A context with a kernel cache ------*- C++ -*-===//
//
// What a model instance gives its kernels: an execution context whose
// reserved[0] is the instance's packed-weight cache. Tests of the
// constant-operand flags run the host paths in one.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_TEST_RUNTIME_CACHEDCONTEXT_H
#define TANDEM_TEST_RUNTIME_CACHEDCONTEXT_H

#include "kernels/kernel_cache.h"
#include "tandem/abi.h"

#include <cstddef>

namespace tandem_test {

/// Owns a kernel cache and a context (no thread pool) that points at it.
struct CachedContext {
  CachedContext() : cache(tandem_internal_kernel_cache_create()) {
    ctx.reserved[0] = cache;
  }
  ~CachedContext() { tandem_internal_kernel_cache_destroy(cache); }
  CachedContext(const CachedContext &) = delete;
  CachedContext &operator=(const CachedContext &) = delete;

  /// Bytes the cache holds (0 until a constant operand was packed).
  size_t bytes() const { return tandem_internal_kernel_cache_bytes(cache); }

  tandem_internal_kernel_cache *cache;
  tandem_exec_ctx_t ctx = {};
};

} // namespace tandem_test

#endif // TANDEM_TEST_RUNTIME_CACHEDCONTEXT_H
