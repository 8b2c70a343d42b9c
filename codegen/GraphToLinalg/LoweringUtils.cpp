//===- LoweringUtils.cpp - helpers shared by the tandem->linalg files -----===//
//
// Builders for empty/filled tensors, broadcast maps, elementwise generics,
// scalar constants and casts, and reshapes between static shapes.
//
//===----------------------------------------------------------------------===//

#include "codegen/GraphToLinalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem::linalg_lowering;

Value mlir::tandem::linalg_lowering::createEmpty(OpBuilder &b, Location loc,
                                                 RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value mlir::tandem::linalg_lowering::createFilled(OpBuilder &b, Location loc,
                                                  RankedTensorType type,
                                                  Value value) {
  Value empty = createEmpty(b, loc, type);
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

AffineMap mlir::tandem::linalg_lowering::broadcastMap(ShapedType operand,
                                                      ShapedType result) {
  MLIRContext *ctx = result.getContext();
  int64_t rank = result.getRank();
  int64_t offset = rank - operand.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < operand.getRank(); ++d) {
    int64_t resultDim = d + offset;
    if (operand.getDimSize(d) == 1 && result.getDimSize(resultDim) != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(resultDim, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value mlir::tandem::linalg_lowering::buildElementwiseWithMaps(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps, ScalarFn fn) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init = createEmpty(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = fn(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

Value mlir::tandem::linalg_lowering::buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    ScalarFn fn) {
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(cast<ShapedType>(input.getType()), resultType));
  return buildElementwiseWithMaps(b, loc, resultType, inputs, maps, fn);
}

bool mlir::tandem::linalg_lowering::isUnsignedInt(Type type) {
  return getElementTypeOrSelf(type).isUnsignedInteger();
}

void mlir::tandem::linalg_lowering::makeSignless(ModuleOp module) {
  auto signless = [](Type type) -> Type {
    auto integer = dyn_cast<IntegerType>(type);
    if (!integer || !integer.isUnsigned())
      return {};
    return IntegerType::get(type.getContext(), integer.getWidth());
  };
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](IntegerType type) -> std::optional<Type> {
    if (Type t = signless(type))
      return t;
    return std::nullopt;
  });
  // Elements attributes keep their data; only the element type changes
  // (the replacer does not look inside their storage itself).
  replacer.addReplacement(
      [&](DenseElementsAttr attr) -> std::optional<Attribute> {
        if (Type t = signless(attr.getElementType()))
          return attr.bitcast(t);
        return std::nullopt;
      });
  replacer.addReplacement(
      [&](DenseResourceElementsAttr attr) -> std::optional<Attribute> {
        if (Type t = signless(attr.getElementType()))
          return DenseResourceElementsAttr::get(attr.getType().clone(t),
                                                attr.getRawHandle());
        return std::nullopt;
      });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  // The bit-preserving i8 <-> ui8 casts are now i8 -> i8.
  module.walk([](arith::BitcastOp cast) {
    if (cast.getIn().getType() == cast.getType()) {
      cast.getResult().replaceAllUsesWith(cast.getIn());
      cast.erase();
    }
  });
}

Value mlir::tandem::linalg_lowering::scalarConstant(OpBuilder &b, Location loc,
                                                    Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  // The value's low bits (-1 is all ones); non-negative values convert as
  // unsigned, so that ui64 values past INT64_MAX keep their bits.
  uint64_t bits = value >= 0
                      ? static_cast<uint64_t>(value)
                      : static_cast<uint64_t>(static_cast<int64_t>(value));
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(type, APInt(type.getIntOrFloatBitWidth(), bits,
                                   /*isSigned=*/false,
                                   /*implicitTrunc=*/true)));
}

Value mlir::tandem::linalg_lowering::lowestValue(OpBuilder &b, Location loc,
                                                 Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                  /*Negative=*/true)));
  unsigned width = type.getIntOrFloatBitWidth();
  if (isUnsignedInt(type))
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(type, APInt::getZero(width)));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, APInt::getSignedMinValue(width)));
}

Value mlir::tandem::linalg_lowering::highestValue(OpBuilder &b, Location loc,
                                                  Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                  /*Negative=*/false)));
  unsigned width = type.getIntOrFloatBitWidth();
  if (isUnsignedInt(type))
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(type, APInt::getMaxValue(width)));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, APInt::getSignedMaxValue(width)));
}

Value mlir::tandem::linalg_lowering::convertScalar(OpBuilder &b, Location loc,
                                                   Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) {
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   scalarConstant(b, loc, from, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 scalarConstant(b, loc, from, 0.0));
  }
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, value);
    // f64 -> bf16 rounds through f32, as onnxruntime's conversion does
    // (and as the host's integer bf16 expansion needs).
    if (fromFloat.isF64() && toFloat.isBF16())
      return arith::TruncFOp::create(
          b, loc, to, arith::TruncFOp::create(b, loc, b.getF32Type(), value));
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, value);
    // f16 <-> bf16: go through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  // i1 and the unsigned types read as unsigned; the signedness of the
  // target only matters for float -> int.
  bool fromUnsigned = from.isInteger(1) || isUnsignedInt(from);
  if (fromFloat) {
    if (isUnsignedInt(to))
      return arith::FPToUIOp::create(b, loc, to, value);
    return arith::FPToSIOp::create(b, loc, to, value);
  }
  if (toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, to, value);
    return arith::SIToFPOp::create(b, loc, to, value);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, to, value);
  if (fromWidth == toWidth) // i8 <-> ui8: the same bits
    return arith::BitcastOp::create(b, loc, to, value);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, to, value);
  return arith::ExtSIOp::create(b, loc, to, value);
}

Type mlir::tandem::linalg_lowering::accumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value mlir::tandem::linalg_lowering::castTensor(OpBuilder &b, Location loc,
                                                Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return buildElementwise(b, loc, type.clone(elementType), value,
                          [&](OpBuilder &nb, Location nloc, ValueRange args) {
                            return convertScalar(nb, nloc, args[0],
                                                 elementType);
                          });
}

namespace {
/// A reshape as a collapse into `shape` (the source's dimensions grouped
/// by `sourceGroups`) and an expand from it (into the target's, grouped by
/// `targetGroups`).
struct Coarsening {
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> sourceGroups, targetGroups;
};
} // namespace

/// The finest shape that both `source` and `target` (as many elements)
/// refine: each of its dimensions the product of consecutive dimensions of
/// either, a unit dimension joining its neighbour's group. None for
/// dynamic, empty or rank-0 shapes.
static std::optional<Coarsening> commonCoarsening(ArrayRef<int64_t> source,
                                                  ArrayRef<int64_t> target) {
  if (source.empty() || target.empty() || ShapedType::isDynamicShape(source) ||
      ShapedType::isDynamicShape(target) || llvm::is_contained(source, 0) ||
      llvm::is_contained(target, 0))
    return std::nullopt;
  Coarsening result;
  int64_t i = 0, j = 0;
  int64_t sourceRank = source.size(), targetRank = target.size();
  while (i < sourceRank && j < targetRank) {
    ReassociationIndices sourceGroup{i}, targetGroup{j};
    int64_t sourceSize = source[i++], targetSize = target[j++];
    while (sourceSize != targetSize) {
      if (sourceSize < targetSize) {
        if (i == sourceRank)
          return std::nullopt;
        sourceGroup.push_back(i);
        sourceSize *= source[i++];
      } else {
        if (j == targetRank)
          return std::nullopt;
        targetGroup.push_back(j);
        targetSize *= target[j++];
      }
    }
    result.shape.push_back(sourceSize);
    result.sourceGroups.push_back(std::move(sourceGroup));
    result.targetGroups.push_back(std::move(targetGroup));
  }
  // What is left on either side are unit dimensions: they join the last
  // group.
  for (; i < sourceRank; ++i) {
    if (source[i] != 1)
      return std::nullopt;
    result.sourceGroups.back().push_back(i);
  }
  for (; j < targetRank; ++j) {
    if (target[j] != 1)
      return std::nullopt;
    result.targetGroups.back().push_back(j);
  }
  return result;
}

/// The coarsest shape that refines both `source` and `target` (as many
/// elements, no unit or dynamic dimensions): the dimensions between the
/// running products of either, each group of them making one dimension of
/// the source (`sourceGroups`) and of the target (`targetGroups`). None
/// when one running product does not divide the next.
static std::optional<Coarsening> commonRefinement(ArrayRef<int64_t> source,
                                                  ArrayRef<int64_t> target) {
  auto plain = [](ArrayRef<int64_t> shape) {
    return !shape.empty() && llvm::all_of(shape, [](int64_t size) {
      return size > 1 && !ShapedType::isDynamic(size);
    });
  };
  if (!plain(source) || !plain(target))
    return std::nullopt;
  auto runningProducts = [](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> products;
    int64_t product = 1;
    for (int64_t size : shape)
      products.push_back(product *= size);
    return products;
  };
  SmallVector<int64_t> sourceEnds = runningProducts(source);
  SmallVector<int64_t> targetEnds = runningProducts(target);
  SmallVector<int64_t> ends(sourceEnds);
  ends.append(targetEnds);
  llvm::sort(ends);
  ends.erase(llvm::unique(ends), ends.end());
  Coarsening result;
  int64_t previous = 1;
  for (int64_t end : ends) {
    if (end % previous != 0)
      return std::nullopt;
    result.shape.push_back(end / previous);
    previous = end;
  }
  // Each side's dimension takes the refined dimensions up to its end.
  auto groupsOf = [&](ArrayRef<int64_t> sideEnds) {
    SmallVector<ReassociationIndices> groups;
    int64_t dim = 0;
    for (int64_t end : sideEnds) {
      ReassociationIndices group;
      while (dim < int64_t(ends.size()) && ends[dim] <= end)
        group.push_back(dim++);
      groups.push_back(std::move(group));
    }
    return groups;
  };
  result.sourceGroups = groupsOf(sourceEnds);
  result.targetGroups = groupsOf(targetEnds);
  return result;
}

Value mlir::tandem::linalg_lowering::reshapeTensor(OpBuilder &b, Location loc,
                                                   Value value,
                                                   RankedTensorType type) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source.getShape() == type.getShape())
    return value;
  // Rank 0 on either side: every other dim is 1, the reassociation is empty.
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, value,
                                           ArrayRef<ReassociationIndices>{});
  if (source.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, value,
                                         ArrayRef<ReassociationIndices>{});
  if (source.getRank() > type.getRank()) {
    if (auto reassociation = getReassociationIndicesForReshape(source, type))
      return tensor::CollapseShapeOp::create(b, loc, type, value,
                                             *reassociation);
  } else if (source.getRank() < type.getRank()) {
    if (auto reassociation = getReassociationIndicesForReshape(type, source))
      return tensor::ExpandShapeOp::create(b, loc, type, value, *reassociation);
  }
  // Neither a pure collapse nor a pure expand. Without unit dimensions,
  // expand into the coarsest shape that refines both sides, then collapse:
  // the expand is a view of any strided source, and a consumer absorbs the
  // collapse by expanding its loops (a head split of a slice of the packed
  // q/k/v projection at batch 8, 128x8x256 of 128x8x768 into 128x32x64,
  // through 128x8x4x64; batch and heads cannot be one strided dimension).
  if (std::optional<Coarsening> common =
          commonRefinement(source.getShape(), type.getShape())) {
    auto midType =
        RankedTensorType::get(common->shape, source.getElementType());
    Value mid = tensor::ExpandShapeOp::create(b, loc, midType, value,
                                              common->sourceGroups);
    return tensor::CollapseShapeOp::create(b, loc, type, mid,
                                           common->targetGroups);
  }
  // Otherwise collapse into the finest shape both sides refine, then
  // expand. Going through 1-D instead would need the whole source
  // contiguous: a reshape of a slice (a head split of a packed q/k/v
  // projection, 128x1x256 of 128x1x768 into 128x4x64) would bufferize to
  // a copy, where 128x256 is a view of it.
  if (std::optional<Coarsening> common =
          commonCoarsening(source.getShape(), type.getShape())) {
    auto midType =
        RankedTensorType::get(common->shape, source.getElementType());
    Value mid = common->shape == source.getShape()
                    ? value
                    : tensor::CollapseShapeOp::create(b, loc, midType, value,
                                                      common->sourceGroups);
    return common->shape == type.getShape()
               ? mid
               : tensor::ExpandShapeOp::create(b, loc, type, mid,
                                               common->targetGroups);
  }
  // Go through 1-D, which static shapes always allow (and which bufferizes
  // to views, unlike tensor.reshape).
  auto flatType =
      RankedTensorType::get({source.getNumElements()}, source.getElementType());
  ReassociationIndices all;
  for (int64_t d = 0; d < source.getRank(); ++d)
    all.push_back(d);
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, flatType, value, ArrayRef<ReassociationIndices>{all});
  ReassociationIndices allOut;
  for (int64_t d = 0; d < type.getRank(); ++d)
    allOut.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{allOut});
}

Value mlir::tandem::linalg_lowering::padWithConstant(OpBuilder &b, Location loc,
                                                     Value value,
                                                     ArrayRef<int64_t> low,
                                                     ArrayRef<int64_t> high,
                                                     Value padValue) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lowRes, highRes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    shape[d] += low[d] + high[d];
    lowRes.push_back(b.getIndexAttr(low[d]));
    highRes.push_back(b.getIndexAttr(high[d]));
  }
  return tensor::PadOp::create(b, loc, type.clone(shape), value, lowRes,
                               highRes, padValue);
}
