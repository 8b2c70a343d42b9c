//===- ArenaPlanner.h - static offsets in one arena -------------*- C++ -*-===//
//
// The placement both memory plans share (tandem-plan-memory for the host
// arena, tandem-plan-device-memory for the device arena): buffers with
// lifetimes get offsets in one arena, reusing space between buffers whose
// lifetimes do not overlap.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_MEMORYPLAN_ARENAPLANNER_H
#define TANDEM_PASSES_MEMORYPLAN_ARENAPLANNER_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace mlir::tandem {

/// One buffer to place: its size and the first and last positions (in
/// program order, inclusive) where it is live.
struct ArenaSlot {
  int64_t bytes;
  unsigned start, end;
  /// Set by assignArenaOffsets.
  int64_t offset = -1;
};

/// Places `slots` largest first, each at the lowest `alignment`-aligned
/// offset that no already placed slot with an overlapping lifetime occupies.
/// Returns the arena size (a multiple of `alignment`).
int64_t assignArenaOffsets(llvm::MutableArrayRef<ArenaSlot> slots,
                           int64_t alignment);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_MEMORYPLAN_ARENAPLANNER_H
