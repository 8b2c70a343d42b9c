//===- ShapeInference.h - shape arithmetic for tandem ops -------*- C++ -*-===//
//
// Pure shape arithmetic (broadcasting, convolution and pooling windows,
// permutations) used by the ops' type inference. No MLIR types here, so each
// rule is unit-tested on plain vectors.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_SHAPEINFERENCE_H
#define TANDEM_DIALECTS_TANDEM_IR_SHAPEINFERENCE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::tandem::shape {

using Shape = llvm::SmallVector<int64_t, 6>;

/// NumPy broadcast of two shapes: dims align to the right and each pair must
/// be equal or contain a 1. Returns std::nullopt when they are incompatible.
std::optional<Shape> broadcast(llvm::ArrayRef<int64_t> a,
                               llvm::ArrayRef<int64_t> b);

/// True when `from` broadcasts to exactly `to` (unidirectional, as in ONNX
/// Expand with a static target).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// True when `perm` is a permutation of [0, perm.size()).
bool isPermutation(llvm::ArrayRef<int64_t> perm);

/// True when `perm` is the identity permutation.
bool isIdentityPermutation(llvm::ArrayRef<int64_t> perm);

/// Applies `perm` to `shape`: result[i] = shape[perm[i]].
Shape permute(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> perm);

/// The inverse of the permutation `perm`: permuting by `perm`, then by the
/// result, is the identity.
Shape invertPermutation(llvm::ArrayRef<int64_t> perm);

/// True when permuting `shape` by `perm` moves only size-1 dimensions, so
/// that the elements keep their order (the transpose is a reshape).
bool movesOnlyUnitDims(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> perm);

/// Product of the dims; 1 for a scalar; -1 when a dim is negative (dynamic)
/// or the product overflows int64_t.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// True when a tensor of `shape` with `elementBytes`-byte elements has a
/// size in bytes that fits int64_t (negative, i.e. dynamic, dims are
/// skipped).
bool sizeInBytesFits(llvm::ArrayRef<int64_t> shape, int64_t elementBytes);

/// Output size of a convolution window along one dimension:
/// (in + padBegin + padEnd - dilation * (kernel - 1) - 1) / stride + 1,
/// rounded down, or up with `ceilMode` (dropping a last window that would
/// start in the end padding, as ONNX and PyTorch do). Returns a value <= 0
/// when the window does not fit, or when the arithmetic overflows int64_t.
/// Arguments must be positive (pads >= 0).
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t padBegin, int64_t padEnd, int64_t dilation,
                         bool ceilMode = false);

/// Result shape of a reduction over sorted, unique, in-range `axes`.
Shape reduce(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> axes,
             bool keepDims);

/// True when `axes` is sorted, free of duplicates and within [0, rank).
bool areSortedUniqueAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

} // namespace mlir::tandem::shape

#endif // TANDEM_DIALECTS_TANDEM_IR_SHAPEINFERENCE_H
