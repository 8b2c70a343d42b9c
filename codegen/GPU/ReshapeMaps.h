//===- ReshapeMaps.h - index maps across collapses and expands -*- C++ -*-===//
//
// The indices of an element on either side of a row-major reshape (a
// collapse_shape or expand_shape and its reassociation groups), as affine
// maps: the attention folds (AttentionOperands.cpp) and the reads through
// transposes (ReadTransposeSources.cpp) compose them into indexing maps,
// the gather reads (InlineGatherReads.cpp) apply them.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_RESHAPEMAPS_H
#define TANDEM_CODEGEN_GPU_RESHAPEMAPS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"

namespace mlir::tandem {

/// The map from coarse indices to fine ones where `groups` of the fine
/// dimensions (of sizes `fine`) make the coarse ones (row-major): each fine
/// index is its coarse index divided by the sizes after it in its group,
/// modulo its size.
AffineMap delinearizeMap(ArrayRef<ReassociationIndices> groups,
                         ArrayRef<int64_t> fine, MLIRContext *context);

/// The map from fine indices to coarse ones where `groups` of the fine
/// dimensions (of sizes `fine`) make the coarse ones (row-major).
AffineMap linearizeMap(ArrayRef<ReassociationIndices> groups,
                       ArrayRef<int64_t> fine, MLIRContext *context);

/// The map from the indices of a tensor.collapse_shape's or
/// tensor.expand_shape's result to those of its source (static shapes): a
/// collapse splits each index over its group, an expand linearises each
/// group.
AffineMap sourceIndexMap(Operation *reshape);

/// `map` with each dimension of one iteration 0, and each floordiv and mod
/// by a positive constant decided where the trip counts of its dimensions
/// (`bounds`) allow: a sum whose terms
/// other than multiples of the divisor stay in [0, divisor) splits into
/// quotient and remainder. A linearisation split back over the same sizes,
/// (a * 7 + b) floordiv 7 and (a * 7 + b) mod 7 with b < 7, gives a and b.
AffineMap simplifyWithBounds(AffineMap map, ArrayRef<int64_t> bounds);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_RESHAPEMAPS_H
