//===- CallCPUKernels.cpp - f32 contractions -> tandem_sgemm_f32 calls ----===//
//
// After bufferization, every linalg op that is an f32 multiply-accumulate
// contraction over strided buffers becomes one call of the runtime's
// tandem_sgemm_f32 (packing + register-blocked micro-kernels + the model's
// thread pool). The loop dimensions are classified from the indexing maps:
// K is the one reduction dimension, M the output dimension only A reads, N
// the one only B reads (the innermost such in C), and at most one further
// output dimension is the batch (broadcast operands get stride 0).
//
//===----------------------------------------------------------------------===//

#include "codegen/CPU/WinogradFilters.h"
#include "codegen/LinalgPayloads.h"
#include "codegen/Passes.h"
#include "codegen/RuntimeCalls.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "runtime/include/tandem/abi.h"
#include "runtime/include/tandem/winograd.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMCALLCPUKERNELS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using mlir::tandem::applyFusedEpilogue;
using mlir::tandem::createWinogradFilter;
using mlir::tandem::FusedEpilogue;
using mlir::tandem::fusedEpilogueOf;
using mlir::tandem::isF32MultiplyAccumulate;
using mlir::tandem::kRequireHardSwish;
using mlir::tandem::kRequireSilu;
using mlir::tandem::throughReshapes;
using mlir::tandem::winogradTileFor;
using mlir::tandem::yieldsFirstArgument;

namespace {

constexpr llvm::StringLiteral kSgemm = "tandem_sgemm_f32";
constexpr llvm::StringLiteral kSgemmBias = "tandem_sgemm_bias_f32";
constexpr llvm::StringLiteral kConv2D = "tandem_conv2d_f32";
constexpr llvm::StringLiteral kDwConv2D = "tandem_dwconv2d_f32";
constexpr llvm::StringLiteral kConv2DBias = "tandem_conv2d_bias_f32";
constexpr llvm::StringLiteral kDwConv2DBias = "tandem_dwconv2d_bias_f32";
constexpr llvm::StringLiteral kDwConv2DPad = "tandem_dwconv2d_pad_f32";
/// tandem_dwconv2d_pad_f32 writing the packed panel layout.
constexpr llvm::StringLiteral kDwConv2DPadPacked =
    "tandem_dwconv2d_pad_packed_f32";
/// tandem_conv2d_bias_f32 reading the packed panel layout.
constexpr llvm::StringLiteral kConv2DPacked = "tandem_conv2d_packed_f32";
/// A 1x1 conv and the implicitly padded depthwise conv reading it, in one
/// call, writing NCHW or the packed panel layout.
constexpr llvm::StringLiteral kConv1x1DwConv2D = "tandem_conv1x1_dwconv2d_f32";
constexpr llvm::StringLiteral kConv1x1DwConv2DPacked =
    "tandem_conv1x1_dwconv2d_packed_f32";
/// Every group of a grouped conv in one call (implicit padding, a bias).
constexpr llvm::StringLiteral kGroupedConv2D = "tandem_grouped_conv2d_f32";
constexpr llvm::StringLiteral kExecCtxAttr = "tandem.exec_ctx";
constexpr int32_t kAccumulate = 1;   // TANDEM_SGEMM_ACCUMULATE
constexpr int32_t kConstantA = 2;    // TANDEM_SGEMM_CONSTANT_A
constexpr int32_t kConstantB = 4;    // TANDEM_SGEMM_CONSTANT_B
constexpr int32_t kConstantFilter = 2; // TANDEM_CONV2D_CONSTANT_FILTER
constexpr int32_t kRelu = 8;         // TANDEM_{SGEMM,CONV2D,DWCONV2D}_RELU
constexpr int32_t kRelu6 = 16;       // TANDEM_{SGEMM,CONV2D,DWCONV2D}_RELU6
constexpr int32_t kWinograd = 32;    // TANDEM_CONV2D_WINOGRAD
constexpr int32_t kWinogradF2 = 64;  // TANDEM_CONV2D_WINOGRAD_F2
constexpr int32_t kWinogradF4 = 128; // TANDEM_CONV2D_WINOGRAD_F4
constexpr int32_t kHardSwish = 256;  // TANDEM_{SGEMM,CONV2D,DWCONV2D}_HARDSWISH
constexpr int32_t kSilu = 512;       // TANDEM_{SGEMM,CONV2D,DWCONV2D}_SILU
constexpr llvm::StringLiteral kEpilogueAttr = "tandem.epilogue";

/// Whether `op` carries a fused epilogue (from tandem-fuse-elementwise).
bool hasReluEpilogue(Operation *op) { return op->hasAttr(kEpilogueAttr); }

/// The kernel flag of `op`'s fused epilogue, or 0 for none.
int32_t epilogueFlag(Operation *op) {
  switch (fusedEpilogueOf(op)) {
  case FusedEpilogue::None:
    return 0;
  case FusedEpilogue::Relu:
    return kRelu;
  case FusedEpilogue::Relu6:
    return kRelu6;
  case FusedEpilogue::HardSwish:
    return kHardSwish;
  case FusedEpilogue::Silu:
    return kSilu;
  }
  llvm_unreachable("unknown fused epilogue");
}

/// Applies an epilogue the op keeps (it did not become a kernel call) as a
/// loop right after it, in place (applyFusedEpilogue).
void materializeRelu(Operation *op, Value out) {
  FusedEpilogue epilogue = fusedEpilogueOf(op);
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(out.getType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{}, ValueRange{out},
      ArrayRef<AffineMap>{id}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(
            nb, nloc, applyFusedEpilogue(nb, nloc, args[0], epilogue));
      });
  op->removeAttr(kEpilogueAttr);
}

/// True if `buffer` is (a view of) a constant global: the model's weights,
/// which the runtime packs once per instance.
bool isConstantBuffer(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      buffer = view.getViewSource();
      continue;
    }
    auto get = dyn_cast<memref::GetGlobalOp>(def);
    if (!get)
      return false;
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        get, get.getNameAttr());
    return global && global.getConstant();
  }
  return false;
}

/// The loop dimensions of a contraction the kernel can run; -1 when absent.
struct GemmDims {
  int64_t batch = -1, m = -1, n = -1, k = -1;
};

/// The loop dimension each memref dimension of an operand walks, or failure
/// when the map is not a projected permutation.
FailureOr<SmallVector<int64_t>> operandDims(AffineMap map) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return failure();
  SmallVector<int64_t> dims;
  for (AffineExpr expr : map.getResults())
    dims.push_back(cast<AffineDimExpr>(expr).getPosition());
  return dims;
}

/// Classifies the loops of `op`, or fails if the kernel cannot run it.
FailureOr<GemmDims> classify(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !isF32MultiplyAccumulate(*op.getBlock()))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<int64_t>> dims;
  for (AffineMap map : maps) {
    auto d = operandDims(map);
    if (failed(d))
      return failure();
    dims.push_back(*d);
  }
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return failure();
  }
  auto in = [&](int operand, int64_t dim) {
    return llvm::is_contained(dims[operand], dim);
  };
  GemmDims g;
  SmallVector<int64_t> mCands, nCands;
  auto iterators = op.getIteratorTypesArray();
  for (int64_t d = 0, e = iterators.size(); d < e; ++d) {
    bool a = in(0, d), b = in(1, d), c = in(2, d);
    if (iterators[d] == utils::IteratorType::reduction) {
      if (c || !a || !b || g.k >= 0)
        return failure();
      g.k = d;
      continue;
    }
    if (!c)
      return failure();
    if (a && b) {
      if (g.batch >= 0)
        return failure();
      g.batch = d;
    } else if (a) {
      mCands.push_back(d);
    } else if (b) {
      nCands.push_back(d);
    } else {
      return failure(); // a dimension only the output walks
    }
  }
  // Of two M (or N) candidates, the one C walks innermost is M (N); the
  // other becomes a batch dimension that the other operand broadcasts.
  auto pick = [&](SmallVector<int64_t> &cands, int64_t &slot) {
    if (cands.empty() || cands.size() > 2)
      return false;
    if (cands.size() == 2) {
      if (g.batch >= 0)
        return false;
      auto pos = [&](int64_t d) {
        return llvm::find(dims[2], d) - dims[2].begin();
      };
      if (pos(cands[0]) > pos(cands[1]))
        std::swap(cands[0], cands[1]);
      g.batch = cands[0];
      cands.erase(cands.begin());
    }
    slot = cands[0];
    return true;
  };
  if (g.k < 0 || !pick(mCands, g.m) || !pick(nCands, g.n))
    return failure();
  return g;
}

/// A pointer to the first element of `memref` and its element strides.
struct StridedOperand {
  Value ptr;
  SmallVector<Value> strides; // i64, one per memref dimension
};

StridedOperand readStrided(OpBuilder &b, Location loc, Value memref) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value elemBytes = arith::ConstantIndexOp::create(b, loc, sizeof(float));
  Value offsetBytes =
      arith::MulIOp::create(b, loc, meta.getOffset(), elemBytes);
  Value address = arith::AddIOp::create(b, loc, aligned, offsetBytes);
  Value address64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  StridedOperand out;
  out.ptr = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address64);
  for (Value stride : meta.getStrides())
    out.strides.push_back(
        arith::IndexCastOp::create(b, loc, b.getI64Type(), stride));
  return out;
}

/// Whether `value` is the constant +0.0.
bool isPositiveZero(Value value) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) && attr.getValue().isPosZero();
}

/// Whether `op` fills all of `out` with +0.0: a `linalg.fill`, a
/// `linalg.map` with no inputs yielding +0.0 (a bufferized pad's fill), or
/// the `linalg.generic` a fill becomes inside a fused kernel (no inputs, one
/// identity-mapped output, all loops parallel, yielding +0.0).
bool isZeroFillOf(Operation *op, Value out) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs().front() == out &&
           isPositiveZero(fill.getInputs().front());
  if (auto map = dyn_cast<linalg::MapOp>(op)) {
    auto yield = cast<linalg::YieldOp>(map.getMapper().front().getTerminator());
    return map.getInputs().empty() && map.getInit() == out &&
           yield.getNumOperands() == 1 && isPositiveZero(yield.getOperand(0));
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 0 ||
      generic.getNumDpsInits() != 1 ||
      generic.getDpsInitOperand(0)->get() != out ||
      !generic.getIndexingMapsArray().front().isIdentity() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getNumOperands() == 1 && isPositiveZero(yield.getOperand(0));
}

/// The buffer `value` views: the source of its chain of view ops (subview,
/// expand and collapse, casts), stopping at a memref.view, which carves a
/// distinct buffer out of the arena.
Value viewedBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || isa<memref::ViewOp>(def))
      break;
    value = view.getViewSource();
  }
  return value;
}

/// The nearest op before `op` in its block that uses `out` or another view
/// of its buffer, if nothing that could touch `out` otherwise (an op with
/// regions other than a linalg op, a call) lies between; nullptr
/// otherwise. View ops themselves touch no memory and are passed over.
Operation *previousUseOf(Operation *op, Value out) {
  Value buffer = viewedBuffer(out);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<ViewLikeOpInterface>(prev) && !prev->getNumRegions())
      continue;
    if (llvm::any_of(prev->getOperands(), [&](Value operand) {
          return isa<MemRefType>(operand.getType()) &&
                 viewedBuffer(operand) == buffer;
        }))
      return prev;
    if ((prev->getNumRegions() && !isa<linalg::LinalgOp>(prev)) ||
        isa<CallOpInterface>(prev))
      return nullptr;
  }
  return nullptr;
}

/// Finds a fill of +0.0 into `out` (isZeroFillOf) that nothing reads or
/// writes between it and `op`, so the kernel can overwrite instead.
Operation *zeroFillBefore(Operation *op, Value out) {
  Operation *prev = previousUseOf(op, out);
  return prev && isZeroFillOf(prev, out) ? prev : nullptr;
}

/// Finds the broadcast of a per-channel bias into `out` that nothing reads
/// or writes between it and `op`: a linalg.generic copying a dense constant
/// memref<C x f32> along dim 1 into all of a rank-4 `out`, or, for a
/// grouped convolution's rank-5 NGFHW `out`, a dense constant
/// memref<G x F x f32> along dims 1 and 2 (the [G * F] bias expanded). The
/// kernel can then add the bias itself. Returns the generic, with the bias
/// in `bias`.
Operation *biasBroadcastBefore(Operation *op, Value out, Value &bias) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(previousUseOf(op, out));
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getDpsInitOperand(0)->get() != out ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  unsigned loops = generic.getNumLoops();
  if (loops != 4 && loops != 5)
    return nullptr;
  unsigned biasRank = loops - 3;
  Value input = generic.getDpsInputOperand(0)->get();
  auto type = dyn_cast<MemRefType>(input.getType());
  if (!type || type.getRank() != biasRank || !type.getElementType().isF32() ||
      !type.getLayout().isIdentity() || !isConstantBuffer(input))
    return nullptr;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineExpr> channelDims;
  for (unsigned d = 1; d <= biasRank; ++d)
    channelDims.push_back(getAffineDimExpr(d, ctx));
  if (maps[0] != AffineMap::get(loops, 0, channelDims, ctx) ||
      !maps[1].isIdentity() || !yieldsFirstArgument(generic))
    return nullptr;
  bias = input;
  return generic;
}

/// A static, contiguous (identity layout) f32 memref type, or null.
MemRefType contiguousF32(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      !type.getLayout().isIdentity() || type.getRank() == 0)
    return nullptr;
  return type;
}

/// Finds the broadcast of a dense layer's bias into all of the GEMM output
/// `out` that nothing reads or writes between it and `op`, when `out` is
/// contiguous with the GEMM's N dimension `nLoop` innermost: a
/// linalg.generic copying a contiguous memref<N x f32> along the innermost
/// dim of a contiguous reshape of `out`'s buffer. Element f of the buffer
/// then gets bias[f mod N], which is bias[j] on GEMM column j, so the
/// kernel can add it in registers. Returns the generic, with the bias in
/// `bias`.
Operation *columnBiasBroadcastBefore(linalg::LinalgOp op, Value out,
                                     int64_t nLoop, Value &bias) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(previousUseOf(op, out));
  MemRefType outType = contiguousF32(out);
  if (!generic || !outType || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  // N must be C's innermost dim.
  AffineMap outMap = op.getIndexingMapsArray().back();
  if (outMap.getNumResults() == 0 ||
      cast<AffineDimExpr>(outMap.getResults().back()).getPosition() != nLoop)
    return nullptr;
  int64_t n = outType.getShape().back();
  Value init = generic.getDpsInitOperand(0)->get();
  Value input = generic.getDpsInputOperand(0)->get();
  MemRefType initType = contiguousF32(init), biasType = contiguousF32(input);
  if (!initType || !biasType || biasType.getRank() != 1 ||
      biasType.getDimSize(0) != n || initType.getShape().back() != n ||
      initType.getNumElements() != outType.getNumElements() ||
      throughReshapes(init) != throughReshapes(out))
    return nullptr;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  unsigned loops = generic.getNumLoops();
  if (!maps[1].isIdentity() ||
      maps[0] != AffineMap::get(loops, 0,
                                getAffineDimExpr(loops - 1, op.getContext())) ||
      !yieldsFirstArgument(generic))
    return nullptr;
  bias = input;
  return generic;
}

/// True if `type` is a static f32 memref whose innermost `dense` dims are
/// row-major contiguous (strides ..., d[n-1]*d[n-2], d[n-1], 1).
bool hasDenseInnerDims(MemRefType type, unsigned dense) {
  if (!type.hasStaticShape() || !type.getElementType().isF32())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (unsigned i = 0; i < dense; ++i) {
    unsigned d = type.getRank() - 1 - i;
    if (strides[d] != expected)
      return false;
    expected *= type.getDimSize(d);
  }
  return true;
}

/// An f32 NCHW convolution a runtime conv kernel can run: a static f32
/// input with any strides, a filter whose `denseFilterDims` innermost dims
/// are dense, an output whose `denseOutDims` innermost dims are dense, and a
/// multiply-accumulate body.
bool isKernelConvOf(linalg::LinalgOp conv, unsigned denseFilterDims,
                    unsigned denseOutDims) {
  if (!conv.hasPureBufferSemantics())
    return false;
  auto in = dyn_cast<MemRefType>(conv.getDpsInputOperand(0)->get().getType());
  auto filter =
      dyn_cast<MemRefType>(conv.getDpsInputOperand(1)->get().getType());
  auto out = dyn_cast<MemRefType>(conv.getDpsInitOperand(0)->get().getType());
  return in && filter && out && in.hasStaticShape() &&
         in.getElementType().isF32() &&
         hasDenseInnerDims(filter, denseFilterDims) &&
         hasDenseInnerDims(out, denseOutDims) &&
         isF32MultiplyAccumulate(*conv.getBlock());
}

/// tandem_conv2d_f32: a dense FCHW filter and output channels of dense rows.
bool isKernelConv(linalg::Conv2DNchwFchwOp conv) {
  return isKernelConvOf(conv, 4, 2);
}

/// Whether `conv` may run as Winograd (tandem_winograd_applies).
bool isWinogradConv(linalg::Conv2DNchwFchwOp conv) {
  auto filter = cast<MemRefType>(conv.getInputs()[1].getType());
  auto strides = conv.getStrides().getValues<int64_t>();
  auto dilations = conv.getDilations().getValues<int64_t>();
  return tandem_winograd_applies(
      filter.getDimSize(2), filter.getDimSize(3), strides[0], strides[1],
      dilations[0], dilations[1], filter.getDimSize(1), filter.getDimSize(0));
}

/// tandem_dwconv2d_f32: a dense [c, kh, kw] filter and contiguous output
/// columns.
bool isKernelDwConv(linalg::DepthwiseConv2DNchwChwOp conv) {
  return isKernelConvOf(conv, 3, 1);
}

/// A grouped convolution (NGCHW input, GFCHW filter) that one
/// tandem_conv2d_f32 call per group can run: each group's [F, C, KH, KW]
/// filter is dense and its output channels are dense rows.
bool isKernelGroupedConv(linalg::Conv2DNgchwGfchwOp conv) {
  return isKernelConvOf(conv, 4, 2);
}

/// The bytes [begin, end) of an arena that a buffer occupies.
struct ArenaRange {
  Value arena;
  int64_t begin, end;
};

/// The arena bytes `value` may touch: all of the memref.view it is a view
/// of (through subviews, casts and reshapes), when that view has a constant
/// byte shift and a static shape (as tandem-plan-memory makes them).
std::optional<ArenaRange> arenaRangeOf(Value value) {
  auto view = viewedBuffer(value).getDefiningOp<memref::ViewOp>();
  if (!view || !view.getType().hasStaticShape())
    return std::nullopt;
  APInt shift;
  if (!matchPattern(view.getByteShift(), m_ConstantInt(&shift)))
    return std::nullopt;
  MemRefType type = view.getType();
  int64_t begin = shift.getSExtValue();
  int64_t bytes =
      type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
  return ArenaRange{view.getSource(), begin, begin + bytes};
}

/// Whether `value` views a buffer outside every arena: a function argument
/// (the caller's inputs and outputs) or a global.
bool isOutsideArenas(Value value) {
  Value buffer = viewedBuffer(value);
  return isa<BlockArgument>(buffer) ||
         buffer.getDefiningOp<memref::GetGlobalOp>();
}

/// Whether `value` views a whole allocation of its own: a memref.alloc (before
/// memory planning), a function argument or a global.
bool isAllocation(Value value) {
  Value buffer = viewedBuffer(value);
  return isOutsideArenas(buffer) || buffer.getDefiningOp<memref::AllocOp>();
}

/// Whether writing `written` provably leaves `read` untouched: disjoint
/// byte ranges of one arena, one in an arena and the other outside them, or
/// two distinct allocations (before memory planning).
bool provablyDisjoint(Value written, Value read) {
  std::optional<ArenaRange> w = arenaRangeOf(written), r = arenaRangeOf(read);
  if (w && r)
    return w->arena == r->arena && (w->end <= r->begin || r->end <= w->begin);
  if ((w && isOutsideArenas(read)) || (r && isOutsideArenas(written)))
    return true;
  return isAllocation(written) && isAllocation(read) &&
         viewedBuffer(written) != viewedBuffer(read);
}

/// A depthwise convolution's input that is a zero-padded copy: a buffer
/// filled with +0.0, then the NCHW `source` copied into its interior at
/// (0, 0, top, left), and nothing else touches the buffer from the fill to
/// the convolution, nor reads it after. The kernel can pad implicitly
/// instead (tandem_dwconv2d_pad_f32), reading `source` itself.
struct PaddedInput {
  Operation *fill = nullptr;
  memref::SubViewOp interior;
  memref::CopyOp copy;
  Value source;
  int64_t top = 0, left = 0;
};

/// Whether `op`, or an op nested in it, uses a view of `buffer`.
bool touchesBuffer(Operation *op, Value buffer) {
  WalkResult result = op->walk([&](Operation *inner) {
    bool uses = llvm::any_of(inner->getOperands(), [&](Value operand) {
      return isa<MemRefType>(operand.getType()) &&
             viewedBuffer(operand) == buffer;
    });
    return uses ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` only makes a view (and touches no memory).
bool isViewOnly(Operation *op) {
  return isa<ViewLikeOpInterface>(op) && op->getNumRegions() == 0;
}

/// The padded copy `conv` reads (whether its source is still intact when
/// the convolution runs is sourceIntactAtConv's question).
std::optional<PaddedInput> paddedInputOf(linalg::LinalgOp conv) {
  Value buffer = conv.getDpsInputOperand(0)->get();
  if (viewedBuffer(buffer) != buffer)
    return std::nullopt; // a view into a bigger buffer
  PaddedInput p;
  // Backwards from the conv: the copy into a subview of the buffer, then a
  // zero fill of the buffer; no other use of the buffer (through any view)
  // in between. (After memory planning and CSE, one view or subview value
  // may stand for several buffers of one arena slot over time, so uses
  // outside this window are other lifetimes.)
  for (Operation *op = conv->getPrevNode(); op && !p.fill;
       op = op->getPrevNode()) {
    if (isViewOnly(op))
      continue;
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      auto sub = copy.getTarget().getDefiningOp<memref::SubViewOp>();
      if (sub && sub.getSource() == buffer && !p.copy) {
        p.copy = copy;
        p.interior = sub;
        continue;
      }
    }
    if (!touchesBuffer(op, buffer))
      continue;
    if (!p.copy || !isZeroFillOf(op, buffer))
      return std::nullopt;
    p.fill = op;
  }
  if (!p.fill)
    return std::nullopt;
  // Forwards: the buffer's next use, if any, overwrites all of it (the
  // next buffer in this slot), so nothing reads the dropped copy.
  for (Operation *op = conv->getNextNode(); op; op = op->getNextNode()) {
    if (isViewOnly(op) || !touchesBuffer(op, buffer))
      continue;
    bool overwrites =
        (isa<linalg::FillOp>(op) ||
         (isa<linalg::MapOp>(op) &&
          cast<linalg::MapOp>(op).getInputs().empty())) &&
        cast<linalg::LinalgOp>(op).getDpsInitOperand(0)->get() == buffer;
    if (!overwrites)
      return std::nullopt;
    break;
  }
  // The interior: a unit-stride box at (0, ..., 0, top, left) as large as
  // the source, all of the dims before the last two (NCHW, or a grouped
  // conv's NGCHW).
  memref::SubViewOp sub = p.interior;
  auto bufferType = cast<MemRefType>(buffer.getType());
  auto sourceType = dyn_cast<MemRefType>(p.copy.getSource().getType());
  ArrayRef<int64_t> offsets = sub.getStaticOffsets();
  int64_t rank = bufferType.getRank();
  if (!sourceType || !sourceType.hasStaticShape() || !sub.hasUnitStride() ||
      ShapedType::isDynamicShape(offsets) ||
      int64_t(offsets.size()) != rank || (rank != 4 && rank != 5) ||
      sub.getType().getShape() != sourceType.getShape())
    return std::nullopt;
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (offsets[d] != 0 ||
        sourceType.getDimSize(d) != bufferType.getDimSize(d))
      return std::nullopt;
  p.source = p.copy.getSource();
  p.top = offsets[rank - 2];
  p.left = offsets[rank - 1];
  return p;
}

/// Whether `conv` is a 1x1 convolution of stride and dilation 1: a GEMM of
/// its filter and its input's pixels, as the packed layout and the fused
/// 1x1 + depthwise call need.
bool isPointwiseConv(linalg::Conv2DNchwFchwOp conv) {
  auto filter = cast<MemRefType>(conv.getDpsInputOperand(1)->get().getType());
  auto one = [](int64_t v) { return v == 1; };
  return filter.getDimSize(2) == 1 && filter.getDimSize(3) == 1 &&
         llvm::all_of(conv.getStrides().getValues<int64_t>(), one) &&
         llvm::all_of(conv.getDilations().getValues<int64_t>(), one);
}

/// Marks a 1x1 conv whose input a depthwise conv writes in the packed
/// panel layout, from the implicit-pads-only run to the full one.
constexpr llvm::StringLiteral kPackedInputAttr =
    mlir::tandem::TandemDialect::getPackedInputAttrName();

/// The 1x1 conv of stride 1 that may read `dw`'s output in the packed panel
/// layout: the output is a whole static NCHW allocation (before memory
/// planning) whose only other users are that conv, later in the block, as
/// its input (not its output), and the fill or bias broadcast that
/// initialises it right before `dw`. Null if there is none.
linalg::Conv2DNchwFchwOp packedConsumerOf(linalg::DepthwiseConv2DNchwChwOp dw) {
  Value out = dw.getDpsInitOperand(0)->get();
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().getLayout().isIdentity() ||
      !alloc.getType().hasStaticShape() || alloc.getType().getRank() != 4 ||
      !alloc.getType().getElementType().isF32())
    return {};
  Value bias;
  Operation *init = zeroFillBefore(dw, out);
  if (!init)
    init = biasBroadcastBefore(dw, out, bias);
  linalg::Conv2DNchwFchwOp consumer;
  for (Operation *user : out.getUsers()) {
    if (user == dw.getOperation() || user == init)
      continue;
    auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(user);
    if (!conv || consumer || conv.getDpsInputOperand(0)->get() != out ||
        conv.getDpsInitOperand(0)->get() == out ||
        conv.getDpsInputOperand(1)->get() == out ||
        conv->getBlock() != dw->getBlock() || !dw->isBeforeInBlock(conv) ||
        !isKernelConv(conv))
      return {};
    if (!isPointwiseConv(conv))
      return {};
    consumer = conv;
  }
  return consumer;
}

/// Whether `a` and `b` are the same buffer with the same type: one value,
/// or views of the same bytes of one arena.
bool isSameBuffer(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<ArenaRange> ra = arenaRangeOf(a), rb = arenaRangeOf(b);
  return a.getType() == b.getType() && ra && rb && ra->arena == rb->arena &&
         ra->begin == rb->begin && ra->end == rb->end && viewedBuffer(a) == a &&
         viewedBuffer(b) == b;
}

/// Whether no op after `from` and before `to` (in one block) may write the
/// bytes of `buffer`.
bool intactBetween(Operation *from, Operation *to, Value buffer) {
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return false;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (MemoryEffects::EffectInstance &effect : list)
      if (isa<MemoryEffects::Write>(effect.getEffect()) &&
          (!effect.getValue() || !provablyDisjoint(effect.getValue(), buffer)))
        return false;
  }
  return true;
}

/// A 1x1 conv that tandem_conv1x1_dwconv2d_f32 computes together with the
/// depthwise conv `dw` reading its output through the padded copy `p`.
struct PointwiseProducer {
  linalg::Conv2DNchwFchwOp conv;
  Operation *init = nullptr; // the zero fill or bias broadcast of its output
  Value bias;                // the broadcast's bias, or null
};

/// The 1x1 conv of stride and dilation 1 whose output only `dw` reads,
/// through its zero-padded copy `p`: the output is a whole static NCHW
/// allocation (before memory planning) whose other users are that conv,
/// which overwrites it (a zero fill or a bias broadcast right before), and
/// the copy; the conv's filter is a constant, its input has dense planes
/// and nothing writes that input between the conv and `dw`.
std::optional<PointwiseProducer>
pointwiseProducerOf(linalg::DepthwiseConv2DNchwChwOp dw, PaddedInput &p) {
  Value mid = p.source;
  auto alloc = mid.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().getLayout().isIdentity() ||
      !alloc.getType().hasStaticShape() || alloc.getType().getRank() != 4 ||
      !alloc.getType().getElementType().isF32())
    return std::nullopt;
  PointwiseProducer producer;
  for (Operation *user : mid.getUsers())
    if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(user);
        conv && conv.getDpsInitOperand(0)->get() == mid) {
      if (producer.conv)
        return std::nullopt;
      producer.conv = conv;
    }
  linalg::Conv2DNchwFchwOp conv = producer.conv;
  if (!conv || conv->getBlock() != dw->getBlock() ||
      !conv->isBeforeInBlock(p.copy) || !isKernelConv(conv) ||
      conv->hasAttr(kPackedInputAttr))
    return std::nullopt;
  producer.init = zeroFillBefore(conv, mid);
  if (!producer.init)
    producer.init = biasBroadcastBefore(conv, mid, producer.bias);
  if (!producer.init)
    return std::nullopt;
  for (Operation *user : mid.getUsers())
    if (user != conv.getOperation() && user != producer.init &&
        user != p.copy.getOperation())
      return std::nullopt;
  Value input = conv.getDpsInputOperand(0)->get();
  Value filter = conv.getDpsInputOperand(1)->get();
  if (input == mid || filter == mid || !isConstantBuffer(filter) ||
      !isPointwiseConv(conv) ||
      !hasDenseInnerDims(cast<MemRefType>(input.getType()), 2) ||
      !intactBetween(conv, dw, input))
    return std::nullopt;
  return producer;
}

/// Whether `conv` may read the padded copy's source in place of the copy:
/// nothing between the copy and the convolution writes the source's bytes
/// (after bufferization and memory planning, the source's buffer is free
/// once the copy has read it), and the convolution's output is either
/// provably elsewhere or the source buffer itself (written in place, which
/// tandem_dwconv2d_pad_f32 allows: it reads each plane whole before writing
/// that plane's outputs).
bool sourceIntactAtConv(const PaddedInput &p, linalg::LinalgOp conv) {
  if (!intactBetween(p.copy, conv, p.source))
    return false;
  Value out = conv.getDpsInitOperand(0)->get();
  return provablyDisjoint(out, p.source) || isSameBuffer(out, p.source);
}

struct CallCPUKernelsPass
    : tandem::impl::TandemCallCPUKernelsBase<CallCPUKernelsPass> {
  using TandemCallCPUKernelsBase::TandemCallCPUKernelsBase;

  /// Declares tandem_grouped_conv2d_f32 if it is not declared yet.
  static void declareGroupedConvKernel(ModuleOp module) {
    if (module.lookupSymbol<func::FuncOp>(kGroupedConv2D))
      return;
    MLIRContext *ctx = module.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
    // (ctx, n, groups, c, h, w, input, sIn, sIg, sIc, sIh, sIw, f, kh, kw,
    //  filter, sFg, bias, output, sOn, sOg, sOf, oh, ow, strideH, strideW,
    //  dilationH, dilationW, padTop, padLeft, flags)
    SmallVector<Type> params = {ptrType, i64, i64, i64, i64, i64, ptrType};
    params.append(8, i64);
    params.append({ptrType, i64, ptrType, ptrType});
    params.append(11, i64);
    params.push_back(i32);
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    func::FuncOp::create(top, module.getLoc(), kGroupedConv2D,
                         FunctionType::get(ctx, params, {}))
        .setPrivate();
  }

  /// Declares tandem_dwconv2d_f32 and its bias and padded variants, those
  /// not declared yet.
  static void declareDwConvKernels(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto declare = [&](StringRef name, ArrayRef<Type> params) {
      if (!module.lookupSymbol<func::FuncOp>(name))
        func::FuncOp::create(top, module.getLoc(), name,
                             FunctionType::get(ctx, params, {}))
            .setPrivate();
    };
    // (ctx, n, c, h, w, input, sIn, sIc, sIh, sIw, kh, kw, filter, output,
    //  sOn, sOc, sOh, oh, ow, strideH, strideW, dilationH, dilationW, flags)
    SmallVector<Type> params = {ptrType, i64, i64, i64, i64, ptrType, i64,
                                i64,     i64, i64, i64, i64, ptrType, ptrType};
    params.append(9, i64);
    params.push_back(i32);
    declare(kDwConv2D, params);
    // The bias variant: the bias pointer after the filter's.
    params.insert(params.begin() + 13, ptrType);
    declare(kDwConv2DBias, params);
    // The implicitly padded variant: padTop and padLeft before the flags.
    params.insert(params.end() - 1, {i64, i64});
    declare(kDwConv2DPad, params);
    declare(kDwConv2DPadPacked, params);
    // With the 1x1 conv before it: the input is the 1x1 conv's (n, k, h, w
    // and strides), then its output channels, filter, bias and flags.
    params.insert(params.begin() + 10, {i64, ptrType, ptrType, i32});
    declare(kConv1x1DwConv2D, params);
    declare(kConv1x1DwConv2DPacked, params);
  }

  /// Erases the kernel declarations nothing calls.
  static void eraseUnusedDeclarations(ModuleOp module) {
    for (StringRef name :
         {kSgemmBias, kConv2D, kConv2DBias, kConv2DPacked, kDwConv2D,
          kDwConv2DBias, kDwConv2DPad, kDwConv2DPadPacked, kConv1x1DwConv2D,
          kConv1x1DwConv2DPacked, kGroupedConv2D})
      if (auto decl = module.lookupSymbol<func::FuncOp>(name))
        if (decl.isExternal() && decl.symbolKnownUseEmpty(module))
          decl.erase();
  }

  /// implicit-pads-only: before memory planning, only the depthwise
  /// convolutions that may read their zero-padded copy's source become
  /// tandem_dwconv2d_pad_f32 calls (with a null execution context, which
  /// the full run replaces); the padded buffers and their copies go.
  void rewriteImplicitPads(ModuleOp module) {
    // Grouped convs: their tasks read a band of the input while others
    // write outputs, so the output may not be the source (no in-place).
    SmallVector<std::pair<linalg::Conv2DNgchwGfchwOp, PaddedInput>>
        paddedGrouped;
    module.walk([&](linalg::Conv2DNgchwGfchwOp conv) {
      if (!isKernelGroupedConv(conv))
        return;
      if (std::optional<PaddedInput> p = paddedInputOf(conv);
          p && intactBetween(p->copy, conv, p->source) &&
          provablyDisjoint(conv.getDpsInitOperand(0)->get(), p->source))
        paddedGrouped.push_back({conv, *p});
    });
    if (!paddedGrouped.empty())
      declareGroupedConvKernel(module);
    for (auto &[conv, p] : paddedGrouped)
      rewriteGroupedConv(conv, &p);

    SmallVector<std::pair<linalg::DepthwiseConv2DNchwChwOp, PaddedInput>>
        padded;
    module.walk([&](linalg::DepthwiseConv2DNchwChwOp dw) {
      if (!isKernelDwConv(dw))
        return;
      if (std::optional<PaddedInput> p = paddedInputOf(dw);
          p && sourceIntactAtConv(*p, dw))
        padded.push_back({dw, *p});
    });
    if (padded.empty()) {
      eraseUnusedDeclarations(module);
      return;
    }
    declareDwConvKernels(module);
    // The 1x1 convs that run with the depthwise conv after them, found
    // first: a 1x1 conv between two depthwise convs (MobileNetV1) runs
    // with the second rather than reading the first's packed output.
    SmallVector<std::optional<PointwiseProducer>> producers;
    llvm::SmallPtrSet<Operation *, 8> fused;
    for (auto &[dw, p] : padded) {
      producers.push_back(fusePointwiseDepthwise ? pointwiseProducerOf(dw, p)
                                                 : std::nullopt);
      if (producers.back())
        fused.insert(producers.back()->conv);
    }
    for (auto [i, entry] : llvm::enumerate(padded)) {
      auto &[dw, p] = entry;
      linalg::Conv2DNchwFchwOp consumer =
          packDepthwiseOutputs ? packedConsumerOf(dw) : nullptr;
      if (consumer && fused.contains(consumer))
        consumer = nullptr;
      Value out = dw.getDpsInitOperand(0)->get();
      bool packed = false;
      rewriteDwConv(dw, &p, consumer ? &packed : nullptr,
                    producers[i] ? &*producers[i] : nullptr);
      if (packed)
        packBuffer(out.getDefiningOp<memref::AllocOp>(), consumer);
    }
    eraseUnusedDeclarations(module);
  }

  /// Gives `alloc` (an [N, C, H, W] output a depthwise conv now writes in
  /// the packed panel layout) the size of that layout, and marks
  /// `consumer`, the 1x1 conv reading it. The conv op still names an NCHW
  /// view of the buffer's first N*C*H*W floats; the full run passes only
  /// its address, to tandem_conv2d_packed_f32.
  static void packBuffer(memref::AllocOp alloc,
                         linalg::Conv2DNchwFchwOp consumer) {
    MemRefType type = alloc.getType();
    int64_t n = type.getDimSize(0), c = type.getDimSize(1);
    int64_t pixels = type.getDimSize(2) * type.getDimSize(3);
    OpBuilder b(alloc);
    auto flatType = MemRefType::get({n * TANDEM_PACKED_PANEL_FLOATS(c, pixels)},
                                    type.getElementType());
    auto flat = memref::AllocOp::create(b, alloc.getLoc(), flatType,
                                        alloc.getAlignmentAttr());
    SmallVector<int64_t> strides = {c * pixels, pixels, type.getDimSize(3), 1};
    auto view = memref::ReinterpretCastOp::create(
        b, alloc.getLoc(), type, flat, /*offset=*/0, type.getShape(), strides);
    alloc.getResult().replaceAllUsesWith(view.getResult());
    alloc->erase();
    consumer->setAttr(kPackedInputAttr, b.getUnitAttr());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    if (implicitPadsOnly)
      return rewriteImplicitPads(module);

    // Every public function receives the run's tandem_exec_ctx_t *.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      unsigned index = func.getNumArguments();
      if (index > 0 && func.getArgAttr(index - 1, kExecCtxAttr))
        continue;
      if (failed(func.insertArgument(
              index, ptrType,
              DictionaryAttr::get(
                  ctx, {NamedAttribute(StringAttr::get(ctx, kExecCtxAttr),
                                       UnitAttr::get(ctx))}),
              func.getLoc()))) {
        func.emitOpError("cannot add the execution context argument");
        return signalPassFailure();
      }
    }

    // Index-error reports, and the kernel calls made before memory
    // planning, get the exec context of the function they are in.
    module.walk([&](func::CallOp call) {
      if ((call.getCallee() != tandem::kReportIndexError &&
           call.getCallee() != kDwConv2DPad &&
           call.getCallee() != kDwConv2DPadPacked &&
           call.getCallee() != kConv1x1DwConv2D &&
           call.getCallee() != kConv1x1DwConv2DPacked &&
           call.getCallee() != kGroupedConv2D) ||
          call.getNumOperands() == 0)
        return;
      OpBuilder b(call);
      call->setOperand(0, execContext(b, call));
    });

    SmallVector<std::pair<linalg::LinalgOp, GemmDims>> work;
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    SmallVector<linalg::DepthwiseConv2DNchwChwOp> dwConvs;
    SmallVector<linalg::Conv2DNgchwGfchwOp> groupedConvs;
    module.walk([&](linalg::LinalgOp op) {
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(*op)) {
        if (isKernelConv(conv))
          convs.push_back(conv);
      } else if (auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(*op)) {
        if (isKernelGroupedConv(grouped))
          groupedConvs.push_back(grouped);
      } else if (auto dw = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(*op)) {
        if (isKernelDwConv(dw))
          dwConvs.push_back(dw);
      } else if (auto dims = classify(op); succeeded(dims)) {
        work.push_back({op, *dims});
      }
    });
    // Epilogues on ops that stay loops become loops after them.
    module.walk([&](linalg::LinalgOp op) {
      if (!hasReluEpilogue(op))
        return;
      bool kernel =
          llvm::any_of(work, [&](auto &w) { return w.first == op; }) ||
          llvm::is_contained(convs, op.getOperation()) ||
          llvm::is_contained(dwConvs, op.getOperation()) ||
          llvm::is_contained(groupedConvs, op.getOperation());
      if (!kernel)
        materializeRelu(op, op.getDpsInitOperand(0)->get());
    });
    if (work.empty() && convs.empty() && dwConvs.empty() &&
        groupedConvs.empty()) {
      if (failed(checkPackedInputsRewritten(module)))
        return signalPassFailure();
      requireEpiloguesWhereFlagged(module, kHardSwish, kRequireHardSwish);
      requireEpiloguesWhereFlagged(module, kSilu, kRequireSilu);
      return;
    }

    OpBuilder top(module.getBodyRegion());
    Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
    if (!convs.empty() || !groupedConvs.empty()) {
      // (ctx, n, c, h, w, input, sIn, sIc, sIh, sIw, f, kh, kw, filter,
      //  output, sOn, sOf, oh, ow, strideH, strideW, dilationH, dilationW,
      //  flags)
      SmallVector<Type> params = {ptrType, i64,     i64,     i64, i64, ptrType,
                                  i64,     i64,     i64,     i64, i64, i64,
                                  i64,     ptrType, ptrType, i64, i64, i64,
                                  i64,     i64,     i64,     i64, i64, i32};
      top.setInsertionPointToStart(module.getBody());
      auto declare = [&](StringRef name) {
        if (!module.lookupSymbol<func::FuncOp>(name))
          func::FuncOp::create(top, module.getLoc(), name,
                               FunctionType::get(ctx, params, {}))
              .setPrivate();
      };
      declare(kConv2D);
      // The bias variant: the bias pointer after the filter's; the
      // packed-input variant has the same signature.
      params.insert(params.begin() + 14, ptrType);
      declare(kConv2DBias);
      declare(kConv2DPacked);
    }
    if (!groupedConvs.empty())
      declareGroupedConvKernel(module);
    if (!dwConvs.empty())
      declareDwConvKernels(module);
    if (!work.empty() && !module.lookupSymbol<func::FuncOp>(kSgemm)) {
      // (ctx, batch, m, n, k, a, sAb, sAm, sAk, b, sBb, sBk, sBn,
      //  c, sCb, sCm, sCn, flags)
      SmallVector<Type> params = {ptrType, i64, i64, i64, i64};
      for (int i = 0; i < 3; ++i)
        params.append({ptrType, i64, i64, i64});
      params.push_back(i32);
      top.setInsertionPointToStart(module.getBody());
      auto decl = func::FuncOp::create(top, module.getLoc(), kSgemm,
                                       FunctionType::get(ctx, params, {}));
      decl.setPrivate();
      // The bias variant: the bias pointer before C's.
      params.insert(params.begin() + 13, ptrType);
      func::FuncOp::create(top, module.getLoc(), kSgemmBias,
                           FunctionType::get(ctx, params, {}))
          .setPrivate();
    }

    for (auto &[op, g] : work)
      rewrite(op, g);
    for (linalg::Conv2DNchwFchwOp conv : convs)
      rewriteConv(conv);
    for (linalg::DepthwiseConv2DNchwChwOp conv : dwConvs)
      rewriteDwConv(conv);
    for (linalg::Conv2DNgchwGfchwOp conv : groupedConvs)
      rewriteGroupedConv(conv);
    if (failed(checkPackedInputsRewritten(module)))
      return signalPassFailure();
    requireEpiloguesWhereFlagged(module, kHardSwish, kRequireHardSwish);
    requireEpiloguesWhereFlagged(module, kSilu, kRequireSilu);
    // Kernel declarations no call ended up using.
    eraseUnusedDeclarations(module);
  }

  /// Puts a call of `require` (tandem_require_hardswish_epilogue or
  /// tandem_require_silu_epilogue) before every kernel call with the `bit`
  /// flag (an i32 constant operand with that bit: the kernels' only i32
  /// operands are their flags), declaring it once. Only in the full run,
  /// after every rewrite: the rewrites take an unknown call between two
  /// ops for one that may write any buffer.
  static void requireEpiloguesWhereFlagged(ModuleOp module, int32_t bit,
                                           StringRef require) {
    SmallVector<func::CallOp> flagged;
    module.walk([&](func::CallOp call) {
      if (!call.getCallee().starts_with("tandem_") ||
          call.getCallee().starts_with("tandem_require_"))
        return;
      // The calls before this one that are require calls: is ours there?
      for (Operation *before = call->getPrevNode();
           auto prior = dyn_cast_or_null<func::CallOp>(before);
           before = before->getPrevNode()) {
        if (!prior.getCallee().starts_with("tandem_require_"))
          break;
        if (prior.getCallee() == require)
          return;
      }
      for (Value operand : call.getOperands()) {
        IntegerAttr flags;
        if (operand.getType().isInteger(32) &&
            matchPattern(operand, m_Constant(&flags)) &&
            (flags.getInt() & bit)) {
          flagged.push_back(call);
          return;
        }
      }
    });
    if (flagged.empty())
      return;
    MLIRContext *ctx = module.getContext();
    if (!module.lookupSymbol<func::FuncOp>(require)) {
      OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
      func::FuncOp::create(top, module.getLoc(), require,
                           FunctionType::get(ctx, {}, {}))
          .setPrivate();
    }
    for (func::CallOp call : flagged) {
      OpBuilder b(call);
      func::CallOp::create(b, call.getLoc(), require, TypeRange{},
                           ValueRange{});
    }
  }

  /// Fails on a conv marked `tandem.packed_input` that is still a linalg
  /// op: as loops it would read the packed layout as NCHW.
  static LogicalResult checkPackedInputsRewritten(ModuleOp module) {
    WalkResult unpacked = module.walk([&](linalg::LinalgOp op) {
      if (!op->hasAttr(kPackedInputAttr))
        return WalkResult::advance();
      op->emitOpError("reads a depthwise conv's packed output but did not "
                      "become a tandem_conv2d_packed_f32 call");
      return WalkResult::interrupt();
    });
    return failure(unpacked.wasInterrupted());
  }

  /// The run's exec context inside the function holding `op`.
  static Value execContext(OpBuilder &b, Operation *op) {
    auto func = op->getParentOfType<func::FuncOp>();
    unsigned nargs = func.getNumArguments();
    if (nargs > 0 && func.getArgAttr(nargs - 1, kExecCtxAttr))
      return func.getArgument(nargs - 1);
    // A private helper: the kernel runs on the calling thread.
    return LLVM::ZeroOp::create(b, op->getLoc(),
                                LLVM::LLVMPointerType::get(b.getContext()));
  }

  /// Replaces an NCHW convolution `conv` by one call of `callee`, the
  /// signature tandem_conv2d_f32 and tandem_dwconv2d_f32 share: (ctx, the
  /// input's shape, pointer and strides, the filter's dims `filterDims`,
  /// filter, output, the output's strides along `outStrideDims`, OH, OW,
  /// strides, dilations, flags). A zero fill of the output right before is
  /// dropped (otherwise the kernel accumulates onto the bias there); a
  /// per-channel bias broadcast into it is dropped too and the bias goes to
  /// the callee's bias variant (tandem_conv2d_bias_f32,
  /// tandem_dwconv2d_bias_f32).
  ///
  /// A grouped convolution (rank-5 NGCHW input, GFCHW filter, NGFHW
  /// output) becomes one tandem_grouped_conv2d_f32 call for all its groups
  /// (`callee` is ignored), with the bias pointer or null. The fill or bias
  /// broadcast is the one into the rank-5 output or into the rank-4 buffer
  /// the output expands.
  ///
  /// With `padded` (a depthwise conv reading a zero-padded copy), the call
  /// is tandem_dwconv2d_pad_f32 on the copy's source if sourceIntactAtConv
  /// holds once the output's fill or bias broadcast is gone; returns whether
  /// it was.
  bool rewriteConvCall(linalg::LinalgOp conv, StringRef callee,
                       ArrayRef<unsigned> filterDims,
                       ArrayRef<unsigned> outStrideDims, int32_t extraFlags,
                       DenseIntElementsAttr stridesAttr,
                       DenseIntElementsAttr dilationsAttr, int winogradTile = 0,
                       const PaddedInput *padded = nullptr,
                       bool *packedOutput = nullptr,
                       PointwiseProducer *producer = nullptr,
                       bool *fusedProducer = nullptr) {
    OpBuilder b(conv);
    Location loc = conv.getLoc();
    Type i64 = b.getI64Type();
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
    };
    Value filter = conv.getDpsInputOperand(1)->get();
    Value out = conv.getDpsInitOperand(0)->get();
    auto filterType = cast<MemRefType>(filter.getType());
    auto outType = cast<MemRefType>(out.getType());
    bool grouped = cast<MemRefType>(conv.getDpsInputOperand(0)->get().getType())
                       .getRank() == 5;
    int32_t flags = 1 | extraFlags; // TANDEM_*CONV2D_ACCUMULATE
    // The buffer a fill or bias broadcast initialises: the output, or for a
    // grouped conv possibly the rank-4 buffer the output expands.
    Value initBuffer = out;
    if (auto expand = out.getDefiningOp<memref::ExpandShapeOp>();
        grouped && expand)
      if (Operation *prev = previousUseOf(conv, out);
          prev && llvm::is_contained(prev->getOperands(), expand.getSrc()))
        initBuffer = expand.getSrc();
    Value bias;
    if (Operation *fill = zeroFillBefore(conv, initBuffer)) {
      fill->erase();
      flags &= ~1;
    } else if (Operation *broadcast =
                   biasBroadcastBefore(conv, initBuffer, bias)) {
      // The kernel adds the bias in each tile, in cache: no pass over the
      // output before it.
      broadcast->erase();
      flags &= ~1;
      callee = callee == kConv2D ? kConv2DBias : kDwConv2DBias;
    }
    flags |= epilogueFlag(conv);
    // The implicitly padded variant takes a bias pointer, null or not (a
    // grouped conv's caller checked its own conditions).
    if (padded && !grouped && !sourceIntactAtConv(*padded, conv))
      padded = nullptr;
    if (padded && !grouped)
      callee = kDwConv2DPad;
    // The packed output replaces all of the output: only for a padded
    // call that writes it whole.
    if (packedOutput) {
      *packedOutput = padded && !(flags & kAccumulate);
      if (*packedOutput)
        callee = kDwConv2DPadPacked;
    }
    bool packedInput = conv->hasAttr(kPackedInputAttr);
    if (packedInput)
      callee = kConv2DPacked;
    // The 1x1 conv producing the padded input, in the same call: it writes
    // all of its output (producer->init), and so must this call.
    if (!padded || (flags & kAccumulate))
      producer = nullptr;
    if (producer)
      callee = packedOutput && *packedOutput ? kConv1x1DwConv2DPacked
                                             : kConv1x1DwConv2D;
    if (fusedProducer)
      *fusedProducer = producer != nullptr;
    Value input = producer ? producer->conv.getDpsInputOperand(0)->get()
                  : padded ? padded->source
                           : conv.getDpsInputOperand(0)->get();
    SmallVector<int64_t> strides(stridesAttr.getValues<int64_t>());
    SmallVector<int64_t> dilations(dilationsAttr.getValues<int64_t>());

    auto inType = cast<MemRefType>(input.getType());
    StridedOperand in = readStrided(b, loc, input);
    // A constant filter transformed here for Winograd replaces the filter;
    // without its data the kernel transforms it at run time.
    Value filterData = filter;
    if (winogradTile) {
      if (Value transformed =
              createWinogradFilter(b, loc, filter, winogradTile)) {
        filterData = transformed;
        flags |= winogradTile == 4 ? kWinogradF4 : kWinogradF2;
      } else {
        flags |= kWinograd;
      }
    }
    StridedOperand w = readStrided(b, loc, filterData);
    StridedOperand o = readStrided(b, loc, out);
    Value biasPtr = bias ? readStrided(b, loc, bias).ptr : Value();
    if ((padded || packedInput || grouped) && !biasPtr)
      biasPtr = LLVM::ZeroOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()));
    Value execCtx = execContext(b, conv);
    SmallVector<Value> outStrides;
    for (unsigned d : outStrideDims)
      outStrides.push_back(o.strides[d]);
    Value outH = constant(outType.getDimSize(outType.getRank() - 2));
    Value outW = constant(outType.getDimSize(outType.getRank() - 1));
    SmallVector<Value> tail = {outH,
                               outW,
                               constant(strides[0]),
                               constant(strides[1]),
                               constant(dilations[0]),
                               constant(dilations[1])};
    // The grouped call always takes padTop and padLeft (0, 0 where the
    // input comes padded).
    if (padded)
      tail.append({constant(padded->top), constant(padded->left)});
    else if (grouped)
      tail.append({constant(0), constant(0)});
    tail.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), flags));

    // The input's shape and strides (NCHW; a grouped conv's NGCHW) and the
    // filter's dims.
    SmallVector<Value> inShape, inStrides, filterShape;
    for (int64_t size : inType.getShape())
      inShape.push_back(constant(size));
    inStrides.append(in.strides.begin(), in.strides.end());
    for (unsigned d : filterDims)
      filterShape.push_back(constant(filterType.getDimSize(d)));
    // The 1x1 conv's output channels, filter, bias (or null) and flags.
    SmallVector<Value> pointwise;
    if (producer) {
      linalg::Conv2DNchwFchwOp pw = producer->conv;
      Value pwFilter = pw.getDpsInputOperand(1)->get();
      pointwise.push_back(
          constant(cast<MemRefType>(pwFilter.getType()).getDimSize(0)));
      pointwise.push_back(readStrided(b, loc, pwFilter).ptr);
      pointwise.push_back(
          producer->bias
              ? readStrided(b, loc, producer->bias).ptr
              : LLVM::ZeroOp::create(
                    b, loc, LLVM::LLVMPointerType::get(b.getContext())));
      pointwise.push_back(arith::ConstantIntOp::create(
          b, loc, b.getI32Type(), kConstantFilter | epilogueFlag(pw)));
    }

    // The call. A grouped conv's (tandem_grouped_conv2d_f32) has the
    // filter's group stride after its pointer and always a bias pointer.
    SmallVector<Value> args = {execCtx};
    args.append(inShape);
    args.push_back(in.ptr);
    args.append(inStrides);
    args.append(pointwise);
    args.append(filterShape);
    args.push_back(w.ptr);
    if (grouped)
      args.push_back(w.strides[0]);
    if (biasPtr)
      args.push_back(biasPtr);
    args.push_back(o.ptr);
    args.append(outStrides);
    args.append(tail);
    func::CallOp::create(b, loc, grouped ? StringRef(kGroupedConv2D) : callee,
                         TypeRange{}, args);
    conv->erase();
    // The original filter, when the transformed one replaced its last use.
    if (filterData != filter && filter.use_empty())
      if (auto get = filter.getDefiningOp<memref::GetGlobalOp>()) {
        auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            get, get.getNameAttr());
        get->erase();
        if (global && SymbolTable::symbolKnownUseEmpty(
                          global, global->getParentOfType<ModuleOp>()))
          global->erase();
      }
    return padded != nullptr;
  }

  /// TANDEM_CONV2D_CONSTANT_FILTER when `conv`'s filter is a constant (the
  /// instance's packed-weight cache may keep it), else 0.
  static int32_t constantFilterFlag(linalg::LinalgOp conv) {
    return isConstantBuffer(conv.getDpsInputOperand(1)->get()) ? kConstantFilter
                                                               : 0;
  }

  /// tandem_conv2d_f32: filter dims F, KH, KW; output strides N, F; a
  /// constant filter is flagged for the instance's packed-weight cache.
  void rewriteConv(linalg::Conv2DNchwFchwOp conv) {
    int32_t constantFilter = constantFilterFlag(conv);
    int tile =
        winograd && constantFilter && isWinogradConv(conv)
            ? winogradTileFor(cast<MemRefType>(conv.getOutputs()[0].getType()))
            : 0;
    rewriteConvCall(conv, kConv2D, {0, 2, 3}, {0, 1}, constantFilter,
                    conv.getStrides(), conv.getDilations(), tile);
  }

  /// tandem_grouped_conv2d_f32: narrow groups as direct register blocks,
  /// wide ones as one GEMM per group (the runtime's choice).
  /// An input that is a zero-padded copy (`padded`, from the
  /// implicit-pads run) is read in place with implicit padding, and the copy
  /// and its fill go.
  void rewriteGroupedConv(linalg::Conv2DNgchwGfchwOp conv,
                          const PaddedInput *padded = nullptr) {
    Value buffer = conv.getDpsInputOperand(0)->get();
    if (!rewriteConvCall(conv, kGroupedConv2D, {1, 3, 4}, {0, 1, 2},
                         constantFilterFlag(conv), conv.getStrides(),
                         conv.getDilations(), 0, padded))
      return;
    erasePaddedCopy(*padded, buffer);
  }

  /// Erases the padded copy `padded` that a call now pads implicitly: the
  /// copy, the fill, the interior view and `buffer` (the padded buffer: its
  /// view, or before memory planning its alloc) where nothing else uses
  /// them.
  static void erasePaddedCopy(const PaddedInput &padded, Value buffer) {
    // The subview and the view may serve other lifetimes of the same slot.
    padded.copy->erase();
    if (padded.interior->use_empty())
      padded.interior->erase();
    padded.fill->erase();
    if (Operation *def = buffer.getDefiningOp();
        def && buffer.use_empty() &&
        (isMemoryEffectFree(def) || isa<memref::AllocOp>(def)))
      def->erase();
  }

  /// tandem_dwconv2d_f32: filter dims KH, KW; output strides N, C, H. An
  /// input that is a zero-padded copy (paddedInputOf) is read in place by
  /// tandem_dwconv2d_pad_f32, and the copy and its fill go.
  void rewriteDwConv(linalg::DepthwiseConv2DNchwChwOp conv,
                     const PaddedInput *known = nullptr,
                     bool *packedOutput = nullptr,
                     PointwiseProducer *producer = nullptr) {
    std::optional<PaddedInput> padded =
        known ? std::optional<PaddedInput>(*known) : paddedInputOf(conv);
    Value buffer = conv.getDpsInputOperand(0)->get();
    bool fused = false;
    if (!rewriteConvCall(conv, kDwConv2D, {1, 2}, {0, 1, 2}, 0,
                         conv.getStrides(), conv.getDilations(), 0,
                         padded ? &*padded : nullptr, packedOutput, producer,
                         &fused))
      return;
    erasePaddedCopy(*padded, buffer);
    if (!fused)
      return;
    // The 1x1 conv ran in the call: it, the initialisation of its output
    // and that output go (the copy was its only other reader).
    Value mid = padded->source;
    producer->init->erase();
    producer->conv->erase();
    if (mid.use_empty())
      mid.getDefiningOp()->erase();
  }

  void rewrite(linalg::LinalgOp op, const GemmDims &g) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i64 = b.getI64Type();
    Value execCtx = execContext(b, op);

    Value out = op.getDpsInitOperand(0)->get();
    int32_t flags = kAccumulate;
    Value bias;
    if (Operation *fill = zeroFillBefore(op, out)) {
      fill->erase();
      flags = 0;
    } else if (Operation *broadcast =
                   columnBiasBroadcastBefore(op, out, g.n, bias)) {
      broadcast->erase();
      flags = 0;
    }
    if (isConstantBuffer(op.getDpsInputOperand(0)->get()))
      flags |= kConstantA;
    if (isConstantBuffer(op.getDpsInputOperand(1)->get()))
      flags |= kConstantB;
    flags |= epilogueFlag(op);

    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
    };
    auto extent = [&](int64_t dim) { return dim < 0 ? 1 : ranges[dim]; };
    SmallVector<Value> args = {execCtx, constant(extent(g.batch)),
                               constant(extent(g.m)), constant(extent(g.n)),
                               constant(extent(g.k))};
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    // Strides of each operand along (batch, rows, cols) of its GEMM role.
    std::array<std::array<int64_t, 3>, 3> roles = {
        {{g.batch, g.m, g.k}, {g.batch, g.k, g.n}, {g.batch, g.m, g.n}}};
    for (int operand = 0; operand < 3; ++operand) {
      Value memref = op->getOperand(operand);
      if (operand == 2 && bias)
        args.push_back(readStrided(b, loc, bias).ptr);
      StridedOperand s = readStrided(b, loc, memref);
      args.push_back(s.ptr);
      for (int64_t loopDim : roles[operand]) {
        Value stride = constant(0);
        for (auto [i, expr] : llvm::enumerate(maps[operand].getResults()))
          if (loopDim >= 0 &&
              cast<AffineDimExpr>(expr).getPosition() == loopDim)
            stride = s.strides[i];
        args.push_back(stride);
      }
    }
    args.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), flags));
    func::CallOp::create(b, loc, bias ? kSgemmBias : kSgemm, TypeRange{}, args);
    op->erase();
  }
};

} // namespace
