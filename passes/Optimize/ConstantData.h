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
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "mlir/Pass/PassInstrumentation.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <vector>

namespace mlir::tandem {

/// The values of an f32 constant in row-major order, read without copying
/// them where the constant stores them as they are (a `dense_resource`
/// blob, a non-splat `dense`): then a view of that storage, valid while the
/// attribute's data lives (to the end of the pass that read it, see
/// DeadBlobInstrumentation). A splat is expanded into a vector it owns.
class F32Values {
public:
  explicit F32Values(llvm::ArrayRef<float> view) : view(view) {}
  explicit F32Values(std::vector<float> owned)
      : owned(std::move(owned)), ownsValues(true) {}

  llvm::ArrayRef<float> values() const {
    return ownsValues ? llvm::ArrayRef<float>(owned) : view;
  }
  const float *data() const { return values().data(); }
  size_t size() const { return values().size(); }
  float operator[](size_t i) const { return values()[i]; }

private:
  llvm::ArrayRef<float> view;
  std::vector<float> owned;
  bool ownsValues = false;
};

/// The values of `value` when it is an f32 tandem.constant; std::nullopt
/// otherwise. A view where possible (F32Values): for rewrites that only read
/// a weight to compute a new one.
std::optional<F32Values> viewF32Constant(Value value);

/// The values of `attr` (a dense or dense_resource f32 constant of `type`),
/// as viewF32Constant; std::nullopt for anything else.
std::optional<F32Values> viewF32Elements(Attribute attr, ShapedType type);

/// A copy of the values of `value` when it is an f32 tandem.constant
/// (splats expanded), in row-major order; std::nullopt otherwise. For
/// rewrites that change the values in place and store them again.
std::optional<std::vector<float>> readF32Constant(Value value);

/// The values of `in` (row-major, of shape `inShape`) permuted as
/// tandem.transpose does with `perm`: result dimension i is input
/// dimension perm[i].
std::vector<float> transposeF32(const F32Values &in,
                                llvm::ArrayRef<int64_t> inShape,
                                llvm::ArrayRef<int64_t> perm);

/// Scales row r of `data` (row-major, `factors.size()` rows of equal
/// length: a filter's output channels) by `factors[r]`.
void scaleRows(std::vector<float> &data, llvm::ArrayRef<float> factors);

/// Scales column j of `data` (row-major, `factors.size()` columns: a
/// matmul's right side) by `factors[j]`.
void scaleColumns(std::vector<float> &data, llvm::ArrayRef<float> factors);

/// Creates an f32 tandem.constant of `type` holding `data`: inline when
/// small, a dense_resource blob named after `nameHint` when large (as the
/// importer stores weights). A large constant's blob takes over `data`'s
/// buffer (pass it with std::move), so a rewritten weight exists only twice,
/// as the original and the new one, never as a third copy.
Value createF32Constant(OpBuilder &builder, Location loc, RankedTensorType type,
                        std::vector<float> data, llvm::StringRef nameHint);

/// The name hint for a constant that replaces an op at `loc`: the name of
/// its NameLoc (the ONNX node's), or "folded".
std::string constantNameHint(Location loc);

/// The attribute createF32Constant gives its constant (also for other ops'
/// constants, such as a memref.global's initial value).
ElementsAttr f32ElementsAttr(RankedTensorType type, std::vector<float> data,
                             llvm::StringRef nameHint);

/// `x` rounded to nearest even in bfloat16 (f32's range, 8 significant
/// bits), as that format's bits. Infinity stays; a NaN stays a (quiet) NaN.
uint16_t toBFloat16Bits(float x);

/// `x` rounded to nearest even in IEEE binary16 (11 significant bits,
/// subnormals below 2^-14, infinity from 65520 up), as that format's bits.
/// A NaN stays a (quiet) NaN.
uint16_t toFloat16Bits(float x);

/// An elements attribute of `type` (16-bit bf16 or f16 elements) holding
/// `bits`: inline when small, a dense_resource blob named after `nameHint`
/// that takes over `bits`' buffer when large, as f32ElementsAttr.
ElementsAttr sixteenBitElementsAttr(RankedTensorType type,
                                    std::vector<uint16_t> bits,
                                    llvm::StringRef nameHint);

/// Erases the tandem.constant defining `weight` when a rewrite has left it
/// without uses, and frees a large blob of it (1 MiB or more) at once
/// unless something else under `releaseScope` refers to that blob. A pass
/// that rewrites many large weights (transposes, BatchNorm folds) then
/// holds one original beside its replacement at a time, not all of them
/// until DeadBlobInstrumentation frees them after the pass.
/// `releaseScope` is the whole IR (see weightReleaseScope); when null, the
/// weight is only erased.
void eraseDeadWeight(RewriterBase &rewriter, Value weight,
                     Operation *releaseScope);

/// Finishes a fold of `root` (a BatchNorm, a scale) into the op `old` that
/// produced its input: `folded` (a clone of `old` with the new weights)
/// replaces `root`, its location fused from both; `old` is erased, and
/// `weight` (its old weight) with it when nothing else uses it
/// (eraseDeadWeight).
void replaceWithFolded(RewriterBase &rewriter, Operation *root, Operation *old,
                       Operation *folded, Value weight,
                       Operation *releaseScope);

/// The scope eraseDeadWeight may walk for a pass running on `passRoot`:
/// `passRoot` when it is the top-level op; null when the pass runs nested
/// (on a function, maybe beside others on other threads, whose IR it must
/// not read).
Operation *weightReleaseScope(Operation *passRoot);

/// A pattern that replaces weights, knowing the scope eraseDeadWeight may
/// walk for the pass that runs it.
template <typename OpT> struct WeightRewritePattern : OpRewritePattern<OpT> {
  WeightRewritePattern(MLIRContext *context, Operation *weightScope)
      : OpRewritePattern<OpT>(context), weightScope(weightScope) {}
  /// weightReleaseScope of the pass's root.
  Operation *weightScope;
};

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
