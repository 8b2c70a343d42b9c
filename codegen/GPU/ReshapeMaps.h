//===- ReshapeMaps.h - index maps across collapses and expands -*- C++ -*-===//
//
// The indices of an element on either side of a row-major reshape (a
// collapse_shape or expand_shape and its reassociation groups), as affine
// maps: the attention folds (AttentionOperands.cpp) compose them into
// indexing maps, the gather reads (InlineGatherReads.cpp) apply them.
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

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_RESHAPEMAPS_H
