//===- LargeAllocTest.cpp - huge-page allocations, the packed-weight cache ===//

#include "kernels/kernel_cache.h"
#include "large_alloc.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

constexpr size_t kHuge = TANDEM_INTERNAL_HUGE_PAGE_BYTES;

/// The VmFlags of the mapping that holds `p` (empty when not found or not
/// on Linux).
std::string vmFlagsOf(const void *p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  auto address = reinterpret_cast<uintptr_t>(p);
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = lo <= address && address < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0)
      return line;
  }
  return "";
}

/// Whether this kernel has transparent huge pages at all.
bool kernelHasHugePages() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  return std::getline(mode, text) && text.find("[never]") == std::string::npos;
}

TEST(LargeAlloc, SizesRoundToTheirUnit) {
  EXPECT_EQ(tandem_internal_large_size(0), 64u);
  EXPECT_EQ(tandem_internal_large_size(1), 64u);
  EXPECT_EQ(tandem_internal_large_size(kHuge - 1), kHuge);
  EXPECT_EQ(tandem_internal_large_size(kHuge), kHuge);
  EXPECT_EQ(tandem_internal_large_size(kHuge + 1), 2 * kHuge);
  EXPECT_EQ(tandem_internal_large_size(SIZE_MAX), 0u);
  EXPECT_EQ(tandem_internal_alloc_large(SIZE_MAX), nullptr);
}

TEST(LargeAlloc, SmallIsCacheLineAlignedLargeIsHugePageAligned) {
  void *small = tandem_internal_alloc_large(1000);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  static_cast<char *>(small)[1023] = 1;
  std::free(small);

  size_t bytes = 3 * kHuge + 5;
  auto *large =
      static_cast<unsigned char *>(tandem_internal_alloc_large(bytes));
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % kHuge, 0u);
  // The whole rounded size is usable.
  for (size_t i = 0; i < 4 * kHuge; i += 4096)
    large[i] = static_cast<unsigned char>(i >> 12);
  large[4 * kHuge - 1] = 7;
  for (size_t i = 0; i < 4 * kHuge; i += 4096)
    ASSERT_EQ(large[i], static_cast<unsigned char>(i >> 12));
  std::free(large);
}

#ifdef __linux__
TEST(LargeAlloc, LargeBuffersAreAdvisedAsHugePagesUnlessTurnedOff) {
  if (!kernelHasHugePages())
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  const char *prior = std::getenv("TANDEM_HUGE_PAGES");
  std::string saved = prior ? prior : "";
  // 40 MiB: above glibc's largest mmap threshold (32 MiB), so each buffer
  // is a mapping of its own, not heap memory an earlier advised buffer
  // left behind.
  unsetenv("TANDEM_HUGE_PAGES");
  void *advised = tandem_internal_alloc_large(20 * kHuge);
  setenv("TANDEM_HUGE_PAGES", "0", 1);
  void *plain = tandem_internal_alloc_large(20 * kHuge);
  void *small = tandem_internal_alloc_large(kHuge / 2);
  if (prior)
    setenv("TANDEM_HUGE_PAGES", saved.c_str(), 1);
  else
    unsetenv("TANDEM_HUGE_PAGES");
  ASSERT_NE(advised, nullptr);
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(small, nullptr);
  std::string advisedFlags = vmFlagsOf(advised);
  ASSERT_NE(advisedFlags, "") << "no mapping holds the buffer";
  EXPECT_NE(advisedFlags.find(" hg"), std::string::npos) << advisedFlags;
  EXPECT_EQ(vmFlagsOf(plain).find(" hg"), std::string::npos);
  std::free(advised);
  std::free(plain);
  std::free(small);
}
#endif

/// Fills `out` with values derived from `seed` (what a pack callback
/// writes), so that an overlap between two entries shows.
void fill(float *out, size_t floats, int seed) {
  for (size_t i = 0; i < floats; ++i)
    out[i] = static_cast<float>(seed * 1000003 + static_cast<int>(i % 65521));
}

TEST(KernelCache, EntriesAreAlignedDisjointAndIntact) {
  tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
  ASSERT_NE(cache, nullptr);
  // Sizes in floats (kHuge / 4 floats fill a huge page) around the huge
  // page size, filling several, and one larger than a chunk (32 MiB).
  constexpr size_t kPage = kHuge / 4;
  std::vector<size_t> sizes = {1,
                               15,
                               16,
                               1000,
                               kPage - 3,
                               kPage,
                               kPage / 2 + 1,
                               kPage + 7,
                               9 * kPage + 11,
                               20 * kPage,
                               3,
                               kPage};
  std::vector<const float *> entries;
  static const int keys[16] = {};
  size_t expectBytes = 0;
  for (size_t e = 0; e < sizes.size(); ++e) {
    const float *data = tandem_internal_kernel_cache_get(
        cache, {&keys[e], int64_t(e), 1, 1, 1, 0, 1}, sizes[e],
        [&](float *out) { fill(out, sizes[e], int(e)); });
    ASSERT_NE(data, nullptr) << "entry " << e;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u) << "entry " << e;
    entries.push_back(data);
    expectBytes += (sizes[e] * sizeof(float) + 63) / 64 * 64;
  }
  EXPECT_EQ(tandem_internal_kernel_cache_bytes(cache), expectBytes);
  // No two entries overlap.
  std::set<std::pair<uintptr_t, uintptr_t>> ranges;
  for (size_t e = 0; e < sizes.size(); ++e) {
    auto lo = reinterpret_cast<uintptr_t>(entries[e]);
    ranges.insert({lo, lo + sizes[e] * sizeof(float)});
  }
  uintptr_t end = 0;
  for (auto [lo, hi] : ranges) {
    EXPECT_GE(lo, end);
    end = hi;
  }
  // Every entry still holds what its pack callback wrote, and a second
  // lookup finds it without packing again.
  for (size_t e = 0; e < sizes.size(); ++e) {
    std::vector<float> expect(sizes[e]);
    fill(expect.data(), sizes[e], int(e));
    for (size_t i = 0; i < sizes[e]; ++i)
      ASSERT_EQ(entries[e][i], expect[i]) << "entry " << e << " float " << i;
    bool packed = false;
    EXPECT_EQ(tandem_internal_kernel_cache_get(
                  cache, {&keys[e], int64_t(e), 1, 1, 1, 0, 1}, sizes[e],
                  [&](float *) { packed = true; }),
              entries[e]);
    EXPECT_FALSE(packed);
  }
  EXPECT_EQ(tandem_internal_kernel_cache_bytes(cache), expectBytes);
  tandem_internal_kernel_cache_destroy(cache);
}

TEST(KernelCache, AnImpossibleSizeFailsAndLeavesNoEntry) {
  tandem_internal_kernel_cache *cache = tandem_internal_kernel_cache_create();
  ASSERT_NE(cache, nullptr);
  static const int key = 0;
  bool packed = false;
  EXPECT_EQ(tandem_internal_kernel_cache_get(cache, {&key, 1, 1, 1, 1, 0, 1},
                                             SIZE_MAX / 2,
                                             [&](float *) { packed = true; }),
            nullptr);
  EXPECT_FALSE(packed);
  // The same key with a size that fits is packed now, not found empty.
  const float *data = tandem_internal_kernel_cache_get(
      cache, {&key, 1, 1, 1, 1, 0, 1}, 4, [&](float *out) {
        packed = true;
        fill(out, 4, 9);
      });
  ASSERT_NE(data, nullptr);
  EXPECT_TRUE(packed);
  EXPECT_EQ(tandem_internal_kernel_cache_bytes(cache), 64u);
  tandem_internal_kernel_cache_destroy(cache);
}

} // namespace
