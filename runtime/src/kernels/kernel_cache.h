//===- kernel_cache.h - per-instance packed-weight cache ---------*- C++
//-*-===//
//
// Kernels pack their operands into the layout their micro-kernels read.
// Weights never change over a model instance's life, so an operand the
// compiler marks constant is packed once, on the instance's first run, and
// kept here, keyed by its address, shape, strides and micro-kernel family.
// The instance owns the cache (tandem_exec_ctx_t::reserved[0]) and frees it
// with itself.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_KERNELS_KERNEL_CACHE_H
#define TANDEM_RUNTIME_KERNELS_KERNEL_CACHE_H

#include <cstddef>
#include <cstdint>
#include <functional>

struct tandem_internal_kernel_cache;

/// A new, empty cache, or nullptr when out of memory (kernels then pack on
/// every call).
tandem_internal_kernel_cache *tandem_internal_kernel_cache_create();

/// Frees the cache and everything in it; nullptr is a no-op.
void tandem_internal_kernel_cache_destroy(tandem_internal_kernel_cache *cache);

/// What identifies one packed operand.
struct tandem_internal_packed_key {
  const void *data;
  int64_t rows, cols, rowStride, colStride;
  int32_t role;  // which operand of which kernel
  int32_t tiles; // the micro-kernel's tile size along the packed dimension
};

/// The packed form of `key`: found, or made by `pack` into a fresh buffer
/// of `floats` floats (64-byte aligned). nullptr if that allocation fails.
/// Thread-safe.
const float *tandem_internal_kernel_cache_get(
    tandem_internal_kernel_cache *cache, const tandem_internal_packed_key &key,
    size_t floats, const std::function<void(float *)> &pack);

/// Bytes held by the cache (for reports and tests).
size_t tandem_internal_kernel_cache_bytes(tandem_internal_kernel_cache *cache);

#endif // TANDEM_RUNTIME_KERNELS_KERNEL_CACHE_H
