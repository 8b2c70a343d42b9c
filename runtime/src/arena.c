/*===- arena.c - 64-byte aligned arena allocation ------------------------===*/

#include "large_alloc.h"
#include "tandem/runtime.h"

#include <stdlib.h>

tandem_status_t tandem_arena_alloc(uint64_t bytes, void **out) {
  if (!out)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_arena_alloc: out is NULL");
  *out = NULL;
  if (bytes == 0)
    return NULL;
  const uint64_t align = TANDEM_ARENA_ALIGNMENT;
  if (bytes > UINT64_MAX - (align - 1) || bytes > (uint64_t)SIZE_MAX - align)
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "arena of %llu bytes is too large",
                              (unsigned long long)bytes);
  uint64_t rounded = (bytes + align - 1) / align * align;
  // Large arenas lie on huge pages (large_alloc.h).
  void *arena = tandem_internal_alloc_large((size_t)rounded);
  if (!arena)
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "cannot allocate an arena of %llu bytes",
                              (unsigned long long)rounded);
  *out = arena;
  return NULL;
}

void tandem_arena_free(void *arena) { free(arena); }
