//===- TandemTraits.h - op traits of the tandem dialect ---------*- C++ -*-===//
//
// Native op traits: static-shape checking, shape checking with precise
// diagnostics, and the elementwise/broadcasting markers that fusion reads.
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

} // namespace OpTrait
} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_TANDEMTRAITS_H
