/*===- large_alloc.c - allocations on transparent huge pages -------------===*/

#include "large_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

size_t tandem_internal_large_size(size_t bytes) {
  size_t unit = bytes >= TANDEM_INTERNAL_HUGE_PAGE_BYTES
                    ? TANDEM_INTERNAL_HUGE_PAGE_BYTES
                    : 64;
  if (bytes == 0)
    return 64;
  if (bytes > SIZE_MAX - (unit - 1))
    return 0;
  return (bytes + unit - 1) / unit * unit;
}

/// Whether to advise huge pages: not when TANDEM_HUGE_PAGES is "0" (read
/// at each allocation: they are few).
static int hugePagesWanted(void) {
  const char *env = getenv("TANDEM_HUGE_PAGES");
  return !(env && strcmp(env, "0") == 0);
}

void *tandem_internal_alloc_large(size_t bytes) {
  size_t size = tandem_internal_large_size(bytes);
  if (size == 0)
    return NULL;
  if (size < TANDEM_INTERNAL_HUGE_PAGE_BYTES)
    return aligned_alloc(64, size);
  void *data = aligned_alloc(TANDEM_INTERNAL_HUGE_PAGE_BYTES, size);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: where the kernel has no huge pages to give, the buffer
  // stays on small pages and works the same.
  if (data && hugePagesWanted())
    (void)madvise(data, size, MADV_HUGEPAGE);
#else
  (void)hugePagesWanted;
#endif
  return data;
}
