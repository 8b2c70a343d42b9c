//===- TandemTraits.h - op traits of the tandem dialect ---------*- C++ -*-===//
//
// Native op traits: static-shape checking, shape checking with precise
// diagnostics, the elementwise/broadcasting markers, and the properties that
// fusion and the cost model read from each op (its fusion role, whether it is
// transcendental, its flops per element, or that it costs nothing).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_TANDEMTRAITS_H
#define TANDEM_DIALECTS_TANDEM_IR_TANDEMTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::tandem {
namespace detail {
/// Fails with a diagnostic when an operand or result has a dynamic dim, or a
/// static shape whose size in bytes overflows int64 (verifyShapeSizes).
LogicalResult verifyStaticShapes(Operation *op);

/// Fails with a diagnostic when an operand or result is a shaped type whose
/// size in bytes overflows int64 (e.g. tensor<9223372036854775807x2xf32>):
/// element counts and byte sizes are products of the dims everywhere
/// later, so such types must not get past the verifier.
LogicalResult verifyShapeSizes(Operation *op);

/// The number of elements of `op`'s results, summed over its results; a
/// result that is not a statically shaped tensor counts as one element
/// (TandemOpCosts.cpp).
double countResultElements(Operation *op);
} // namespace detail

namespace OpTrait {

/// Rejects `?` dims in operand and result types until dynamic shapes are
/// supported.
template <typename ConcreteType>
class StaticShapes
    : public mlir::OpTrait::TraitBase<ConcreteType, StaticShapes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return detail::verifyStaticShapes(op);
  }
};

/// Rejects shaped operands and results whose size in bytes overflows int64
/// (for ops that allow dynamic dims, such as tandem_exec's).
template <typename ConcreteType>
class ShapeSizesFit
    : public mlir::OpTrait::TraitBase<ConcreteType, ShapeSizesFit> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return detail::verifyShapeSizes(op);
  }
};

/// Runs the op's `inferReturnTypes` with the op's location, so that the op's
/// own shape diagnostic is reported (once) before the generic
/// InferTypeOpInterface comparison of inferred and declared result types.
template <typename ConcreteType>
class ShapeChecked
    : public mlir::OpTrait::TraitBase<ConcreteType, ShapeChecked> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    llvm::SmallVector<Type, 2> types;
    typename ConcreteType::Adaptor adaptor(cast<ConcreteType>(op));
    return ConcreteType::inferReturnTypes(op->getContext(), op->getLoc(),
                                          adaptor, types);
  }
};

/// Marks elementwise ops: output element i depends only on the (broadcast)
/// input elements at i.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};

/// Marks ops whose operands broadcast like NumPy.
template <typename ConcreteType>
class NumpyBroadcasting
    : public mlir::OpTrait::TraitBase<ConcreteType, NumpyBroadcasting> {};

//===----------------------------------------------------------------------===//
// Fusion roles (passes/Fusion/FusionRoles.cpp reads them; every tandem op has
// exactly one, with Elementwise itself standing for the elementwise role)
//===----------------------------------------------------------------------===//

/// A dense contraction (conv, matmul, gemm): the root of an output fusion,
/// and work that runs at a device's matrix peak.
template <typename ConcreteType>
class MatrixRole : public mlir::OpTrait::TraitBase<ConcreteType, MatrixRole> {};

/// A reduction (reduce_*, arg_max, softmax, layer_norm, ...): the root of an
/// input fusion.
template <typename ConcreteType>
class ReductionRole
    : public mlir::OpTrait::TraitBase<ConcreteType, ReductionRole> {};

/// An op that fusion treats as elementwise (a loop body or a matrix
/// epilogue) without being Elementwise in the strict sense, such as
/// batch_norm (a per-channel affine in inference).
template <typename ConcreteType>
class ElementwiseRole
    : public mlir::OpTrait::TraitBase<ConcreteType, ElementwiseRole> {};

/// Data movement that fits in a loop nest (reshape, transpose, slice,
/// gather, ...).
template <typename ConcreteType>
class LayoutRole : public mlir::OpTrait::TraitBase<ConcreteType, LayoutRole> {};

/// A loop op that reads each input element several times (pools, cumsum,
/// top_k): it may be fused into a loop, but no producer is fused into it.
template <typename ConcreteType>
class WindowRole : public mlir::OpTrait::TraitBase<ConcreteType, WindowRole> {};

/// An op that is never fused (constants, transfers, fusions, terminators).
template <typename ConcreteType>
class BarrierRole : public mlir::OpTrait::TraitBase<ConcreteType, BarrierRole> {
};

/// An elementwise op whose cost is dominated by a transcendental function
/// (exp, log, tanh, erf, pow, sqrt, ...): fusion does not duplicate it.
template <typename ConcreteType>
class Transcendental
    : public mlir::OpTrait::TraitBase<ConcreteType, Transcendental> {};

//===----------------------------------------------------------------------===//
// Costs (passes/Analysis/OpCost.cpp reads them through CostOpInterface)
//===----------------------------------------------------------------------===//

/// Marks ops whose CostOpInterface comes from FlopsPerElement (which, being
/// parameterised, cannot be asked for without its `N`).
template <typename ConcreteType>
class PerElementCost
    : public mlir::OpTrait::TraitBase<ConcreteType, PerElementCost> {};

/// Implements CostOpInterface for an elementwise op: `N` arithmetic
/// operations per result element.
template <int64_t N> struct FlopsPerElement {
  template <typename ConcreteType>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteType, Impl> {
  public:
    /// The op's arithmetic operations per result element.
    static constexpr int64_t getFlopsPerElement() { return N; }

    /// CostOpInterface: `N` per result element.
    double getFlops() {
      return N * detail::countResultElements(this->getOperation());
    }
  };
};

/// Implements CostOpInterface for an op that only moves or converts
/// elements (transpose, slice, gather, cast, transfer, ...): no arithmetic;
/// its cost is the bytes it reads and writes.
template <typename ConcreteType>
class DataMovement
    : public mlir::OpTrait::TraitBase<ConcreteType, DataMovement> {
public:
  /// CostOpInterface: data movement does no arithmetic.
  double getFlops() { return 0; }
};

/// Marks ops that run no kernel and move no data (constants, reshapes,
/// terminators): they cost nothing, not even their operand and result bytes.
template <typename ConcreteType>
class ZeroCost : public mlir::OpTrait::TraitBase<ConcreteType, ZeroCost> {};

} // namespace OpTrait
} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_TANDEMTRAITS_H
