/*===- large_alloc.h - allocations on transparent huge pages ------*- C -*-===*
 *
 * The runtime's large, long-lived buffers (arenas, packed weights, packing
 * scratch) are read at streaming speed only when they lie on huge pages:
 * the hardware prefetchers stop at every 4 KiB page boundary, and each
 * 4 KiB page costs a TLB entry (a model's 20 MiB of packed weights are
 * 5000 of them). On Linux these allocations are 2 MiB aligned, rounded up
 * to 2 MiB and advised with MADV_HUGEPAGE, which the kernel honours in its
 * default `madvise` mode; `TANDEM_HUGE_PAGES=0` turns the advice off.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TANDEM_RUNTIME_LARGE_ALLOC_H
#define TANDEM_RUNTIME_LARGE_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The huge page size; allocations of at least this many bytes use them.
#define TANDEM_INTERNAL_HUGE_PAGE_BYTES ((size_t)2 << 20)

/// Allocates at least `bytes` bytes, 64-byte aligned; from
/// TANDEM_INTERNAL_HUGE_PAGE_BYTES on, on whole huge pages (see above).
/// Returns NULL when memory is exhausted. Release with free().
void *tandem_internal_alloc_large(size_t bytes);

/// The bytes tandem_internal_alloc_large(bytes) reserves: `bytes` rounded
/// up to 64 or, from TANDEM_INTERNAL_HUGE_PAGE_BYTES on, to the huge page
/// size.
size_t tandem_internal_large_size(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TANDEM_RUNTIME_LARGE_ALLOC_H */
