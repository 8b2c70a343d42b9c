//===- kernel_cache.cpp - per-instance packed-weight cache ----------------===//

#include "kernels/kernel_cache.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <tuple>

namespace {
struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};
using Key = std::tuple<const void *, int64_t, int64_t, int64_t, int64_t,
                       int32_t, int32_t>;
} // namespace

struct tandem_internal_kernel_cache {
  std::mutex mutex;
  std::map<Key, std::unique_ptr<float, FreeDeleter>> entries;
  size_t bytes = 0;
};

tandem_internal_kernel_cache *tandem_internal_kernel_cache_create() {
  return new (std::nothrow) tandem_internal_kernel_cache();
}

void tandem_internal_kernel_cache_destroy(tandem_internal_kernel_cache *cache) {
  delete cache;
}

const float *tandem_internal_kernel_cache_get(
    tandem_internal_kernel_cache *cache, const tandem_internal_packed_key &k,
    size_t floats, const std::function<void(float *)> &pack) {
  Key key{k.data, k.rows, k.cols, k.rowStride, k.colStride, k.role, k.tiles};
  std::lock_guard<std::mutex> lock(cache->mutex);
  auto it = cache->entries.find(key);
  if (it != cache->entries.end())
    return it->second.get();
  size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
  float *data =
      static_cast<float *>(std::aligned_alloc(64, bytes ? bytes : 64));
  if (!data)
    return nullptr;
  pack(data);
  try {
    cache->entries.emplace(key, std::unique_ptr<float, FreeDeleter>(data));
  } catch (const std::bad_alloc &) {
    std::free(data);
    return nullptr;
  }
  cache->bytes += bytes;
  return data;
}

size_t tandem_internal_kernel_cache_bytes(tandem_internal_kernel_cache *cache) {
  std::lock_guard<std::mutex> lock(cache->mutex);
  return cache->bytes;
}
