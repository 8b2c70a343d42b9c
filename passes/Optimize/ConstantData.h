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
#include "mlir/Pass/PassInstrumentation.h"

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

/// Empties the data of every dense_resource blob `root` and its nested ops
/// refer to, returning the bytes freed. For when nothing will read the
/// module's weights again (the artifact emitter, once LLVM IR holds its own
/// copy); the attributes stay, with empty blobs.
size_t releaseResourceBlobs(Operation *root);

/// Frees the data of weight blobs that passes leave without users: a
/// transposed, folded or transformed weight replaces its original, whose
/// bytes would otherwise stay in the context until it is destroyed (for a
/// large model, a copy of its biggest weights through the rest of the
/// compile). Before each pass on the module it records the dense_resource
/// blobs the module refers to; after it, it empties those the module no
/// longer refers to. Passes nested on functions are watched as the whole of
/// their pass adaptor, which runs on the module (another function may still
/// use a blob one function dropped). Add it to a pass manager whose root is
/// the whole module.
class DeadBlobInstrumentation : public PassInstrumentation {
public:
  void runBeforePass(Pass *pass, Operation *op) override;
  void runAfterPass(Pass *pass, Operation *op) override;
  /// Bytes freed so far.
  size_t freedBytes() const { return freed; }

private:
  llvm::SmallPtrSet<void *, 16> seen;
  size_t freed = 0;
};

} // namespace mlir::tandem

#endif // TANDEM_PASSES_OPTIMIZE_CONSTANTDATA_H
