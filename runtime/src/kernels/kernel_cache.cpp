//===- kernel_cache.cpp - per-instance packed-weight cache ----------------===//

#include "kernels/kernel_cache.h"

#include "large_alloc.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <tuple>
#include <vector>

namespace {
struct FreeDeleter {
  void operator()(char *p) const { std::free(p); }
};
using Key = std::tuple<const void *, int64_t, int64_t, int64_t, int64_t,
                       int32_t, int32_t>;

/// Packed weights are streamed from memory once per run: entries are carved
/// out of chunks on huge pages (large_alloc.h) rather than allocated one by
/// one, one after another. A chunk reserves this much address space (or an
/// entry's size if larger); only the huge pages its entries touch are
/// committed, so a chunk wastes less than one huge page of memory.
constexpr size_t kChunkBytes = 16 * TANDEM_INTERNAL_HUGE_PAGE_BYTES;

struct Chunk {
  std::unique_ptr<char, FreeDeleter> data;
  size_t size = 0, used = 0;
};
} // namespace

struct tandem_internal_kernel_cache {
  std::mutex mutex;
  std::map<Key, const float *> entries;
  std::vector<Chunk> chunks;
  size_t bytes = 0;

  /// `need` bytes (a multiple of 64) in the first chunk with room, or in a
  /// new one; nullptr when out of memory.
  float *allocate(size_t need);
};

float *tandem_internal_kernel_cache::allocate(size_t need) {
  auto take = [need](Chunk &chunk) {
    float *data = reinterpret_cast<float *>(chunk.data.get() + chunk.used);
    chunk.used += need;
    return data;
  };
  for (Chunk &chunk : chunks)
    if (chunk.size - chunk.used >= need)
      return take(chunk);
  size_t size = tandem_internal_large_size(std::max(need, kChunkBytes));
  if (size == 0)
    return nullptr;
  Chunk chunk;
  chunk.data.reset(static_cast<char *>(tandem_internal_alloc_large(size)));
  if (!chunk.data)
    return nullptr;
  chunk.size = size;
  chunks.push_back(std::move(chunk));
  return take(chunks.back());
}

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
    return it->second;
  if (floats > (SIZE_MAX - 63) / sizeof(float))
    return nullptr;
  size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
  float *data;
  try {
    // Reserve the entry first: once packed, nothing can fail.
    auto [slot, inserted] = cache->entries.emplace(key, nullptr);
    (void)inserted;
    data = cache->allocate(bytes ? bytes : 64);
    if (!data) {
      cache->entries.erase(slot);
      return nullptr;
    }
    slot->second = data;
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
  pack(data);
  cache->bytes += bytes;
  return data;
}

size_t tandem_internal_kernel_cache_bytes(tandem_internal_kernel_cache *cache) {
  std::lock_guard<std::mutex> lock(cache->mutex);
  return cache->bytes;
}
