//===- ShapeToLinalg.cpp - shape and data-movement tandem ops to linalg ---===//
//
// constant (arith.constant, dense_resource kept), reshape (collapse/expand
// shape), transpose (linalg.transpose), concat (insert_slice chain; in GPU
// partitions one gathering linalg.generic), slice
// (strided extract_slice), pad (tensor.pad, or a gathering linalg.generic for
// reflect/edge), gather, gather_elements, gather_nd and broadcast_to
// (linalg.generic).
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/GPUFunctions.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "codegen/RuntimeCalls.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::linalg_lowering;

namespace {

struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // ElementsAttr covers dense and dense_resource alike: the attribute is
    // moved as is, so weights stay in their resource blobs.
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return op.emitOpError("has a value that is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       reshapeTensor(rewriter, op.getLoc(), adaptor.getInput(),
                                     cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct TransposeToLinalg : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    // In a GPU partition a generic, so that it fuses with the elementwise
    // ops around it (a query's transpose and its scale: one kernel).
    auto func = op->getParentOfType<func::FuncOp>();
    if (func && isGPUPartition(func)) {
      // out[i] = in[j] with in dimension perm[d] at out dimension d.
      SmallVector<AffineExpr> exprs(type.getRank());
      for (auto [d, p] : llvm::enumerate(op.getPerm()))
        exprs[p] = rewriter.getAffineDimExpr(d);
      AffineMap read = AffineMap::get(type.getRank(), 0, exprs, getContext());
      rewriter.replaceOp(
          op,
          buildElementwiseWithMaps(
              rewriter, op.getLoc(), type, adaptor.getInput(), read,
              [](OpBuilder &, Location, ValueRange args) { return args[0]; }));
      return success();
    }
    Value init = createEmpty(rewriter, op.getLoc(), type);
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPerm());
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

/// A concat in a GPU partition as one linalg.generic over the output: each
/// element reads the input whose part of `axis` holds it (a binary search
/// of `scf.if`s over the parts' offsets, so one load an element), so that
/// the concat is one launch rather than one copy kernel per input (Swin's
/// rolls, SqueezeNet's fire modules, DenseNet's growing concats). `inputs`
/// are the converted inputs; empty ones are left out. Null when the types
/// are not static.
Value buildGatheringConcat(OpBuilder &b, Location loc, RankedTensorType type,
                           int64_t axis, ValueRange inputs) {
  if (!type.hasStaticShape())
    return {};
  SmallVector<Value> parts;
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (Value input : inputs) {
    auto inputType = cast<RankedTensorType>(input.getType());
    if (!inputType.hasStaticShape())
      return {};
    int64_t size = inputType.getDimSize(axis);
    if (size > 0) {
      parts.push_back(input);
      offsets.push_back(offset);
    }
    offset += size;
  }
  if (parts.empty())
    return {};
  Value init = createEmpty(b, loc, type);
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  Type element = type.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      SmallVector<AffineMap>{b.getMultiDimIdentityMap(type.getRank())},
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < type.getRank(); ++d)
          indices.push_back(linalg::IndexOp::create(nb, nloc, d));
        // The element of parts [lo, hi): one part reads it, others split
        // at the middle part's offset.
        std::function<Value(OpBuilder &, size_t, size_t)> read =
            [&](OpBuilder &rb, size_t lo, size_t hi) -> Value {
          if (hi - lo == 1) {
            SmallVector<Value> at = indices;
            if (offsets[lo])
              at[axis] = arith::SubIOp::create(
                  rb, nloc, at[axis],
                  arith::ConstantIndexOp::create(rb, nloc, offsets[lo]));
            return tensor::ExtractOp::create(rb, nloc, parts[lo], at);
          }
          size_t mid = (lo + hi) / 2;
          Value before = arith::CmpIOp::create(
              rb, nloc, arith::CmpIPredicate::ult, indices[axis],
              arith::ConstantIndexOp::create(rb, nloc, offsets[mid]));
          auto branch = scf::IfOp::create(rb, nloc, element, before,
                                          /*withElseRegion=*/true);
          OpBuilder thenB = branch.getThenBodyBuilder();
          scf::YieldOp::create(thenB, nloc, read(thenB, lo, mid));
          OpBuilder elseB = branch.getElseBodyBuilder();
          scf::YieldOp::create(elseB, nloc, read(elseB, mid, hi));
          return branch.getResult(0);
        };
        linalg::YieldOp::create(nb, nloc, read(nb, 0, parts.size()));
      });
  return generic.getResult(0);
}

struct ConcatToInsertSlices : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    // On a GPU each insert_slice would be a copy kernel of its own; on the
    // CPU they are copies of contiguous runs.
    auto func = op->getParentOfType<func::FuncOp>();
    if (func && isGPUPartition(func) && adaptor.getInputs().size() > 1)
      if (Value gathered = buildGatheringConcat(rewriter, loc, type, axis,
                                                adaptor.getInputs())) {
        rewriter.replaceOp(op, gathered);
        return success();
      }
    Value result = createEmpty(rewriter, loc, type);
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes,
          strides(type.getRank(), rewriter.getIndexAttr(1));
      for (int64_t size : inputType.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset += inputType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceToExtractSlice : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      offsets.push_back(rewriter.getIndexAttr(op.getStarts()[d]));
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
      strides.push_back(rewriter.getIndexAttr(op.getSteps()[d]));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getInput(), offsets, sizes, strides);
    return success();
  }
};

struct PadToTensor : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    ArrayRef<int64_t> low = op.getPadsLow(), high = op.getPadsHigh();
    if (op.getMode() == PadMode::Constant) {
      Value padValue = scalarConstant(rewriter, loc, type.getElementType(),
                                      op.getValueAttr().getValueAsDouble());
      SmallVector<OpFoldResult> lowRes, highRes;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        lowRes.push_back(rewriter.getIndexAttr(low[d]));
        highRes.push_back(rewriter.getIndexAttr(high[d]));
      }
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, adaptor.getInput(),
                                                 lowRes, highRes, padValue);
      return success();
    }
    // reflect / edge / wrap: every output element reads one input element,
    // whose index is mirrored (reflect), clamped (edge) or taken modulo the
    // dim (wrap) into range.
    bool reflect = op.getMode() == PadMode::Reflect;
    bool wrap = op.getMode() == PadMode::Wrap;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if ((low[d] || high[d]) && inputType.getDimSize(d) == 0)
        return op.emitOpError("cannot pad empty dimension ")
               << d << " in " << stringifyPadMode(op.getMode()) << " mode";
    Value input = adaptor.getInput();
    Value init = createEmpty(rewriter, loc, type);
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(type.getRank())},
        iterators, [&](OpBuilder &b, Location nloc, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < type.getRank(); ++d) {
            Value i = linalg::IndexOp::create(b, nloc, d);
            if (low[d] == 0 && high[d] == 0) {
              indices.push_back(i);
              continue;
            }
            auto cst = [&](int64_t v) -> Value {
              return arith::ConstantIndexOp::create(b, nloc, v);
            };
            int64_t size = inputType.getDimSize(d), last = size - 1;
            if (wrap) {
              // (i - low) mod size, shifted by a multiple of size so that
              // the dividend is never negative.
              int64_t shift = (low[d] + size - 1) / size * size - low[d];
              i = arith::AddIOp::create(b, nloc, i, cst(shift));
              indices.push_back(arith::RemUIOp::create(b, nloc, i, cst(size)));
              continue;
            }
            i = arith::SubIOp::create(b, nloc, i, cst(low[d]));
            Value zero = cst(0), lastV = cst(last);
            if (reflect) {
              Value neg = arith::CmpIOp::create(
                  b, nloc, arith::CmpIPredicate::slt, i, zero);
              i = arith::SelectOp::create(
                  b, nloc, neg, arith::SubIOp::create(b, nloc, zero, i), i);
              Value over = arith::CmpIOp::create(
                  b, nloc, arith::CmpIPredicate::sgt, i, lastV);
              i = arith::SelectOp::create(
                  b, nloc, over,
                  arith::SubIOp::create(b, nloc, cst(2 * last), i), i);
            } else {
              i = arith::MaxSIOp::create(b, nloc, i, zero);
              i = arith::MinSIOp::create(b, nloc, i, lastV);
            }
            indices.push_back(i);
          }
          Value v = tensor::ExtractOp::create(b, nloc, input, indices);
          linalg::YieldOp::create(b, nloc, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The name of `op`'s model node (its NameLoc), or its op name.
std::string nodeNameOf(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return op->getName().getStringRef().str();
}

/// Checks the indices of a gather: constant ones at compile time (an error
/// at the node), others at run time outside GPU partitions, where one
/// reduction over the indices finds an out-of-range one and reports it with
/// tandem_report_index_error (the run then fails with the node's name). In
/// GPU partitions the gather's clamp alone keeps reads inside the table.
/// `op` is a gather, gather_elements or gather_nd with original indices
/// `opIndices` (`indices` once converted). `sizes` holds the size of the
/// axis each index reads: one entry for all indices (into `axis`), or one
/// per position along the indices' last dim (gather_nd's index tuples, into
/// `axis`, `axis` + 1, ...).
LogicalResult checkGatherIndices(Operation *op, Value opIndices, int64_t axis,
                                 OpBuilder &b, Value indices,
                                 ArrayRef<int64_t> sizes) {
  bool uniform = sizes.size() == 1;
  DenseIntElementsAttr constant;
  if (matchPattern(indices, m_Constant(&constant)) ||
      matchPattern(opIndices, m_Constant(&constant))) {
    StringRef what = isa<GatherOp>(op)           ? "gather"
                     : isa<GatherElementsOp>(op) ? "gather_elements"
                                                 : "gather_nd";
    for (auto [flat, value] : llvm::enumerate(constant.getValues<APInt>())) {
      int64_t index = value.getSExtValue();
      size_t column = uniform ? 0 : flat % sizes.size();
      int64_t axisSize = sizes[column];
      if (index < -axisSize || index >= axisSize)
        return op->emitError()
               << what << " index " << index << " is out of range for axis "
               << axis + static_cast<int64_t>(column) << " of size " << axisSize
               << " (valid: " << -axisSize << " to " << axisSize - 1 << ")";
    }
    return success();
  }
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || isGPUPartition(func))
    return success();

  Location loc = op->getLoc();
  auto indicesType = cast<RankedTensorType>(indices.getType());
  Type i1 = b.getI1Type(), i64 = b.getI64Type();
  auto scalarInit = [&](Type type) {
    return linalg::FillOp::create(
               b, loc,
               ValueRange{arith::ConstantIntOp::create(b, loc, type, 0)},
               ValueRange{
                   tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, type)})
        .getResult(0);
  };
  // (any index bad, one bad index[, the size of its axis]) over every index.
  SmallVector<Value> inits = {scalarInit(i1), scalarInit(i64)};
  if (!uniform)
    inits.push_back(scalarInit(i64));
  int64_t rank = indicesType.getRank();
  AffineMap all = b.getMultiDimIdentityMap(rank);
  AffineMap scalar = AffineMap::get(rank, 0, {}, b.getContext());
  SmallVector<AffineMap> maps(inits.size() + 1, scalar);
  maps.front() = all;
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto check = linalg::GenericOp::create(
      b, loc, ValueRange(inits).getTypes(), indices, inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value index = args[0];
        if (index.getType() != i64)
          index = arith::ExtSIOp::create(nb, nloc, i64, index);
        // The axis size of this index: a select over its position in the
        // tuple when the sizes differ.
        Value size = arith::ConstantIntOp::create(nb, nloc, i64, sizes[0]);
        if (!uniform) {
          Value column = linalg::IndexOp::create(nb, nloc, rank - 1);
          for (size_t c = 1; c < sizes.size(); ++c) {
            Value is = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::eq, column,
                arith::ConstantIndexOp::create(nb, nloc, c));
            size = arith::SelectOp::create(
                nb, nloc, is,
                arith::ConstantIntOp::create(nb, nloc, i64, sizes[c]), size);
          }
        }
        Value lowest =
            uniform
                ? Value(arith::ConstantIntOp::create(nb, nloc, i64, -sizes[0]))
                : Value(arith::SubIOp::create(
                      nb, nloc, arith::ConstantIntOp::create(nb, nloc, i64, 0),
                      size));
        Value low = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt,
                                          index, lowest);
        Value high = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::sge,
                                           index, size);
        Value bad = arith::OrIOp::create(nb, nloc, low, high);
        SmallVector<Value> results = {
            arith::OrIOp::create(nb, nloc, args[1], bad),
            arith::SelectOp::create(nb, nloc, bad, index, args[2])};
        if (!uniform)
          results.push_back(
              arith::SelectOp::create(nb, nloc, bad, size, args[3]));
        linalg::YieldOp::create(nb, nloc, results);
      });
  Value any = tensor::ExtractOp::create(b, loc, check.getResult(0), {});
  Value bad = tensor::ExtractOp::create(b, loc, check.getResult(1), {});
  Value badSize =
      uniform
          ? Value()
          : Value(tensor::ExtractOp::create(b, loc, check.getResult(2), {}));
  auto module = op->getParentOfType<ModuleOp>();
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  if (!module.lookupSymbol<func::FuncOp>(kReportIndexError)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    func::FuncOp::create(b, loc, kReportIndexError,
                         b.getFunctionType({ptr, ptr, i64, i64}, {}))
        .setPrivate();
  }
  std::string node = nodeNameOf(op);
  auto ifOp = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  OpBuilder then = ifOp.getThenBodyBuilder();
  // The node's name as a constant C string (NUL-terminated); the exec
  // context is filled in by tandem-call-cpu-kernels, which gives every
  // public function one.
  std::string symbol;
  for (unsigned n = 0;; ++n) {
    symbol = "__tandem_index_check_" + std::to_string(n);
    if (!SymbolTable::lookupSymbolIn(module, symbol))
      break;
  }
  Value name = LLVM::createGlobalString(
      loc, then, symbol, StringRef(node.c_str(), node.size() + 1),
      LLVM::Linkage::Internal);
  Value ctx = LLVM::ZeroOp::create(then, loc, ptr);
  if (uniform)
    badSize = arith::ConstantIntOp::create(then, loc, i64, sizes[0]);
  func::CallOp::create(then, loc, kReportIndexError, TypeRange{},
                       ValueRange{ctx, name, bad, badSize});
  return success();
}

/// `index` (an integer) as an index into an axis of `axisSize`: negative
/// ones count from the end, and the result is clamped into the axis, so an
/// out-of-range index (reported as the run's error on the CPU) never reads
/// outside the data.
Value wrapAndClampIndex(OpBuilder &b, Location loc, Value index,
                        int64_t axisSize) {
  Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value isNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  Value wrapped = arith::AddIOp::create(
      b, loc, idx, arith::ConstantIndexOp::create(b, loc, axisSize));
  idx = arith::SelectOp::create(b, loc, isNeg, wrapped, idx);
  idx = arith::MaxSIOp::create(b, loc, idx, zero);
  return arith::MinSIOp::create(
      b, loc, idx, arith::ConstantIndexOp::create(b, loc, axisSize - 1));
}

struct GatherToGeneric : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += dataType.getRank();
    int64_t axisSize = dataType.getDimSize(axis);
    if (axisSize == 0)
      return op.emitOpError("gathers from empty axis ") << axis;
    int64_t q = indicesType.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t j = 0; j < q; ++j)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + j));
    AffineMap maps[] = {
        AffineMap::get(type.getRank(), 0, indexExprs, getContext())};
    // Indices known now are checked now; others at run time, before the
    // gather reads with them.
    if (failed(checkGatherIndices(op, op.getIndices(), axis, rewriter, indices,
                                  {axisSize})))
      return failure();
    Value result = buildElementwiseWithMaps(
        rewriter, loc, type, indices, maps,
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          // Negative indices count from the end of `axis`. The index is
          // clamped into the axis: an out-of-range one (reported as the
          // run's error on the CPU) never reads outside the table.
          Value idx = wrapAndClampIndex(b, nloc, args[0], axisSize);
          SmallVector<Value> dataIndices;
          for (int64_t j = 0; j < axis; ++j)
            dataIndices.push_back(linalg::IndexOp::create(b, nloc, j));
          dataIndices.push_back(idx);
          for (int64_t j = axis + 1; j < dataType.getRank(); ++j)
            dataIndices.push_back(linalg::IndexOp::create(b, nloc, j - 1 + q));
          return tensor::ExtractOp::create(b, nloc, data, dataIndices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// gather_elements: one element per index, read at the index's own
/// position with the axis coordinate replaced by the (wrapped, clamped)
/// index; indices are checked like gather's.
struct GatherElementsToGeneric : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t axis = op.getAxis();
    int64_t axisSize = dataType.getDimSize(axis);
    if (axisSize == 0)
      return op.emitOpError("gathers from empty axis ") << axis;
    if (failed(checkGatherIndices(op, op.getIndices(), axis, rewriter, indices,
                                  {axisSize})))
      return failure();
    Value result = buildElementwise(
        rewriter, loc, type, indices,
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          SmallVector<Value> dataIndices;
          for (int64_t j = 0; j < dataType.getRank(); ++j)
            dataIndices.push_back(
                j == axis ? wrapAndClampIndex(b, nloc, args[0], axisSize)
                          : Value(linalg::IndexOp::create(b, nloc, j)));
          return tensor::ExtractOp::create(b, nloc, data, dataIndices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// gather_nd: a generic over the output with no tensor operand; each
/// point reads its index tuple from `indices` (the output's leading dims,
/// then 0..m-1), wraps and clamps each index into its data dim, and
/// extracts. Indices are checked like gather's, each against its own dim.
struct GatherNDToGeneric : OpConversionPattern<GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t batch = op.getBatchDims();
    int64_t q = indicesType.getRank();
    int64_t m = indicesType.getDimSize(q - 1);
    SmallVector<int64_t> sizes(dataType.getShape().slice(batch, m));
    for (auto [d, size] : llvm::enumerate(sizes))
      if (size == 0)
        return op.emitOpError("gathers from empty axis ") << batch + d;
    if (failed(checkGatherIndices(op, op.getIndices(), batch, rewriter, indices,
                                  sizes)))
      return failure();
    Value init = createEmpty(rewriter, loc, type);
    int64_t rank = type.getRank();
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
            ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
            iterators,
            [&](OpBuilder &b, Location nloc, ValueRange) {
              SmallVector<Value> lead;
              for (int64_t d = 0; d < q - 1; ++d)
                lead.push_back(linalg::IndexOp::create(b, nloc, d));
              SmallVector<Value> dataIndices(lead.begin(),
                                             lead.begin() + batch);
              for (int64_t c = 0; c < m; ++c) {
                SmallVector<Value> at(lead);
                at.push_back(arith::ConstantIndexOp::create(b, nloc, c));
                Value index = tensor::ExtractOp::create(b, nloc, indices, at);
                dataIndices.push_back(
                    wrapAndClampIndex(b, nloc, index, sizes[c]));
              }
              for (int64_t d = batch + m; d < dataType.getRank(); ++d)
                dataIndices.push_back(
                    linalg::IndexOp::create(b, nloc, q - 1 + d - batch - m));
              linalg::YieldOp::create(b, nloc,
                                      ValueRange{tensor::ExtractOp::create(
                                          b, nloc, data, dataIndices)});
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastToGeneric : OpConversionPattern<BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastToOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        adaptor.getInput(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tandem::linalg_lowering::populateShapeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConstantToArith, ReshapeToTensor, TransposeToLinalg,
               ConcatToInsertSlices, SliceToExtractSlice, PadToTensor,
               GatherToGeneric, GatherElementsToGeneric, GatherNDToGeneric,
               BroadcastToGeneric>(patterns.getContext());
}
