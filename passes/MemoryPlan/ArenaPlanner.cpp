//===- ArenaPlanner.cpp - static offsets in one arena ---------------------===//

#include "passes/MemoryPlan/ArenaPlanner.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <vector>

using namespace mlir::tandem;

int64_t mlir::tandem::assignArenaOffsets(llvm::MutableArrayRef<ArenaSlot> slots,
                                         int64_t alignment) {
  std::vector<ArenaSlot *> order;
  for (ArenaSlot &s : slots)
    order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](ArenaSlot *a, ArenaSlot *b) {
    return a->bytes > b->bytes;
  });
  int64_t total = 0;
  std::vector<ArenaSlot *> placed;
  for (ArenaSlot *slot : order) {
    // The occupied ranges of overlapping slots, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (ArenaSlot *other : placed)
      if (other->start <= slot->end && slot->start <= other->end)
        busy.push_back({other->offset, other->offset + other->bytes});
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + slot->bytes <= begin)
        break;
      offset = std::max<int64_t>(offset, llvm::alignTo(end, alignment));
    }
    slot->offset = offset;
    total = std::max(total, offset + slot->bytes);
    placed.push_back(slot);
  }
  return static_cast<int64_t>(llvm::alignTo(total, alignment));
}
