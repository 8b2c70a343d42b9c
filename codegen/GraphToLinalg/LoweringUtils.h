//===- LoweringUtils.h - helpers shared by the tandem->linalg files -*- C++
//-*-===//
//
// Builders used by every op family of the tandem to linalg lowering: empty and
// filled tensors, NumPy broadcast indexing maps, elementwise linalg.generic,
// scalar constants and element-type casts, and the per-family pattern entry
// points that GraphToLinalg.cpp gathers.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GRAPHTOLINALG_LOWERINGUTILS_H
#define TANDEM_CODEGEN_GRAPHTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tandem::linalg_lowering {

/// Body of an elementwise linalg.generic: gets the scalar block arguments of
/// the inputs (the output argument is dropped) and returns the value to yield.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A `tensor.empty` of `type`.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type);

/// A tensor of `type` filled with `value` (linalg.fill over tensor.empty).
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value);

/// The NumPy broadcast indexing map reading `operand` inside a loop nest over
/// `result`: dims align to the right, and a size-1 dim that is broadcast reads
/// index 0.
AffineMap broadcastMap(ShapedType operand, ShapedType result);

/// A linalg.generic over every element of `resultType` (all loops parallel)
/// reading `inputs` through their NumPy broadcast maps and yielding `fn`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn fn);

/// Like buildElementwise, with explicit input maps (over the result dims).
Value buildElementwiseWithMaps(OpBuilder &b, Location loc,
                               RankedTensorType resultType, ValueRange inputs,
                               ArrayRef<AffineMap> inputMaps, ScalarFn fn);

/// Whether `type` (a scalar or shaped type) holds unsigned integers. The
/// patterns build on the tandem element types (ui8 ...) and choose the
/// unsigned arith ops from them; the pass then makes every type signless
/// (makeSignless).
bool isUnsignedInt(Type type);

/// Rewrites every unsigned integer type in `module` (op results, block
/// arguments, function types, attributes) to the signless type of its width
/// and drops the same-type arith.bitcast ops this leaves behind.
void makeSignless(ModuleOp module);

/// A scalar constant of `type` (float or integer) with value `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// The lowest value of `type`: -inf for floats, the signed minimum for
/// signed ints, 0 for unsigned ones.
Value lowestValue(OpBuilder &b, Location loc, Type type);

/// +inf for floats, the signed maximum for integers: the identity of min.
Value highestValue(OpBuilder &b, Location loc, Type type);

/// Converts scalar `value` to `to` with ONNX Cast semantics: float to int
/// truncates toward zero (fptoui for unsigned targets), anything to i1
/// compares with zero, i1 and unsigned ints widen with zeros and convert to
/// float as unsigned (uitofp), signed ones with their sign; a same-width
/// integer cast (i8 <-> ui8) keeps the bits.
Value convertScalar(OpBuilder &b, Location loc, Value value, Type to);

/// The element type contractions accumulate in: f32 for f16/bf16, else the
/// element type itself.
Type accumulatorType(Type elementType);

/// Casts every element of `value` to `elementType` (a no-op when it already
/// has it).
Value castTensor(OpBuilder &b, Location loc, Value value, Type elementType);

/// Collapses or expands `value` to `type` (same element count) with
/// tensor.collapse_shape / tensor.expand_shape.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type);

/// Pads `value` with the scalar `padValue` by `low`/`high` elements per
/// dimension (tensor.pad); returns `value` itself when every pad is zero.
Value padWithConstant(OpBuilder &b, Location loc, Value value,
                      ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                      Value padValue);

/// Per-family pattern sets (one .cpp each).
void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateShapeToLinalgPatterns(RewritePatternSet &patterns);
void populateContractionToLinalgPatterns(RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::tandem::linalg_lowering

#endif // TANDEM_CODEGEN_GRAPHTOLINALG_LOWERINGUTILS_H
