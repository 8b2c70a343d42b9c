//===- ConstantData.h - reading and writing f32 constant data ---*- C++ -*-===//
//
// Graph rewrites that fold weights (BatchNorm into conv, bias merging) read
// the values of tandem.constant ops, inline `dense` or `dense_resource`
// blobs alike, and write new ones.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_OPTIMIZE_CONSTANTDATA_H
#define TANDEM_PASSES_OPTIMIZE_CONSTANTDATA_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <vector>

namespace mlir::tandem {

/// The values of `value` when it is an f32 tandem.constant (splats
/// expanded), in row-major order; std::nullopt otherwise.
std::optional<std::vector<float>> readF32Constant(Value value);

/// The values of `attr` (a dense or dense_resource f32 constant of `type`,
/// splats expanded), in row-major order; std::nullopt for anything else.
std::optional<std::vector<float>> readF32Elements(Attribute attr,
                                                  ShapedType type);

/// Creates an f32 tandem.constant of `type` holding `data`: inline when
/// small, a dense_resource blob named after `nameHint` when large (as the
/// importer stores weights).
Value createF32Constant(OpBuilder &builder, Location loc, RankedTensorType type,
                        llvm::ArrayRef<float> data, llvm::StringRef nameHint);

/// The attribute createF32Constant gives its constant (also for other ops'
/// constants, such as a memref.global's initial value).
ElementsAttr f32ElementsAttr(RankedTensorType type, llvm::ArrayRef<float> data,
                             llvm::StringRef nameHint);

/// Frees the data of weight blobs that a rewrite left without users: take
/// a snapshot of the dense_resource blobs `root` refers to before the
/// rewrite, then release() those it no longer refers to afterwards (a
/// transposed or folded weight replaces its original, whose bytes would
/// otherwise stay in the context until it is destroyed). `root` must be the
/// whole module: a blob counts as unused when nothing under it refers to it.
class DeadBlobReleaser {
public:
  explicit DeadBlobReleaser(Operation *root);
  /// Empties every snapshot blob `root` no longer refers to; returns the
  /// bytes freed.
  size_t release();

private:
  Operation *root;
  llvm::SmallPtrSet<void *, 16> before;
};

} // namespace mlir::tandem

#endif // TANDEM_PASSES_OPTIMIZE_CONSTANTDATA_H
