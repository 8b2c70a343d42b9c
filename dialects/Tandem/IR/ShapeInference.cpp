//===- ShapeInference.cpp - shape arithmetic for tandem ops ---------------===//

#include "dialects/Tandem/IR/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir::tandem;
using namespace mlir::tandem::shape;

std::optional<Shape> shape::broadcast(llvm::ArrayRef<int64_t> a,
                                      llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t &out = result[rank - 1 - i];
    if (da == db || db == 1)
      out = da;
    else if (da == 1)
      out = db;
    else
      return std::nullopt;
  }
  return result;
}

bool shape::broadcastsTo(llvm::ArrayRef<int64_t> from,
                         llvm::ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i];
    int64_t t = to[to.size() - 1 - i];
    if (f != t && f != 1)
      return false;
  }
  return true;
}

bool shape::isPermutation(llvm::ArrayRef<int64_t> perm) {
  llvm::SmallVector<bool, 8> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[p])
      return false;
    seen[p] = true;
  }
  return true;
}

bool shape::isIdentityPermutation(llvm::ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return false;
  return true;
}

Shape shape::permute(llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> perm) {
  Shape result;
  result.reserve(perm.size());
  for (int64_t p : perm)
    result.push_back(shape[p]);
  return result;
}

Shape shape::invertPermutation(llvm::ArrayRef<int64_t> perm) {
  Shape inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = static_cast<int64_t>(i);
  return inverse;
}

bool shape::movesOnlyUnitDims(llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

int64_t shape::numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return -1;
  return n;
}

bool shape::sizeInBytesFits(llvm::ArrayRef<int64_t> shape,
                            int64_t elementBytes) {
  int64_t bytes = elementBytes;
  for (int64_t d : shape)
    if (d >= 0 && __builtin_mul_overflow(bytes, d, &bytes))
      return false;
  return true;
}

int64_t shape::windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                int64_t padBegin, int64_t padEnd,
                                int64_t dilation, bool ceilMode) {
  // Attributes come from users: arithmetic that overflows means the window
  // cannot fit, never a wrapped size.
  int64_t effectiveKernel, span;
  if (__builtin_mul_overflow(dilation, kernel - 1, &effectiveKernel) ||
      __builtin_add_overflow(effectiveKernel, 1, &effectiveKernel) ||
      __builtin_add_overflow(in, padBegin, &span) ||
      __builtin_add_overflow(span, padEnd, &span) ||
      __builtin_sub_overflow(span, effectiveKernel, &span))
    return -1;
  if (span < 0)
    return 0;
  int64_t out = span / stride + 1;
  if (ceilMode && span % stride != 0) {
    ++out;
    // The last window must start inside the input or the begin padding.
    if ((out - 1) * stride >= in + padBegin)
      --out;
  }
  return out;
}

Shape shape::reduce(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> axes,
                    bool keepDims) {
  Shape result;
  for (auto [i, d] : llvm::enumerate(shape)) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(i));
    if (!reduced)
      result.push_back(d);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

bool shape::areSortedUniqueAxes(llvm::ArrayRef<int64_t> axes, int64_t rank) {
  for (auto [i, a] : llvm::enumerate(axes)) {
    if (a < 0 || a >= rank)
      return false;
    if (i > 0 && axes[i - 1] >= a)
      return false;
  }
  return true;
}
