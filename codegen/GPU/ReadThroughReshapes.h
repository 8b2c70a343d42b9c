//===- ReadThroughReshapes.h - reads through reshapes as maps -*- C++ -*-===//
//
// Exports reshape and permute between layouts: MaxViT leaves its window
// partition (channels last) for NCHW and enters its grid partition from
// there, 56 = 8 x 7 split back as 7 x 8, and normalises NCHW for the next
// convolution. Linalg's elementwise fusion sees through no reshape, and
// its reshape propagation only through one that can expand the reader's
// loops; a dimension that a collapse made and an expand splits with other
// sizes stops both. What was written before such a reshape stayed a kernel
// of its own that wrote the whole tensor once more for the reader to read
// back. The patterns here let a reader read through the reshapes with one
// affine map (floordivs and mods of its loops), so that the writer
// vanishes into it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_READTHROUGHRESHAPES_H
#define TANDEM_CODEGEN_GPU_READTHROUGHRESHAPES_H

#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace mlir::tandem {

/// Whether `producer` may vanish into the linalg op `consumer` that reads
/// its result, or with `shared`, fuse into it although other users read its
/// result too (linalg's fusion then computes it again in each): the
/// caller's fusion policy.
using ReadThroughControl =
    std::function<bool(Operation *producer, Operation *consumer, bool shared)>;

/// Adds, for GPU partitions, the patterns that make generics without
/// reductions read through collapse_shapes and expand_shapes of static
/// shapes, each reader's map composed with the reshapes' index maps and
/// simplified with its loop bounds:
/// - a copy (a generic yielding its input, a transpose) whose every use is
///   such a read, through at least one reshape, goes away: its readers read
///   its input, its map composed in too;
/// - a reader of a pointwise generic's result through reshapes reads the
///   result itself, so that linalg's elementwise fusion then fuses the
///   two; where the result has other users (`shared`), all after the
///   reader, reshapes of it before the reader move after it, so that the
///   fused op, in the reader's place, could feed them.
/// `control` decides which producer and reader pairs may do so.
void populateReadThroughReshapePatterns(RewritePatternSet &patterns,
                                        ReadThroughControl control);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_READTHROUGHRESHAPES_H
