//===- FuseElementwise.cpp - elementwise fusion that keeps contractions ---===//
//
// Upstream's linalg-fuse-elementwise-ops with one difference: it never
// fuses into or out of a contraction or convolution, and never reshapes
// one. Upstream would fold the im2col that conv2d lowers to back into the
// GEMM (turning it into a 7-loop generic) and generalise named matmuls;
// both would hide them from tandem-call-cpu-kernels, which runs them on
// the packed sgemm kernel.
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/GPUFunctions.h"
#include "codegen/GPU/InlineGatherReads.h"
#include "codegen/GPU/ReadThroughReshapes.h"
#include "codegen/LinalgPayloads.h"
#include "codegen/Passes.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFUSEELEMENTWISE
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {

/// True for ops a GEMM kernel (or a later conv kernel) should see whole:
/// contractions, convolutions, and the grouped convolutions of GPU
/// partitions (`tandem.conv_groups` generics), which
/// tandem-form-library-convs makes library calls.
bool isContractionLike(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0)
    return false;
  return linalg::isaContractionOpInterface(linalgOp) ||
         isa<linalg::ConvolutionOpInterface>(op) ||
         op->hasAttr(tandem::TandemDialect::getConvGroupsAttrName());
}

/// `value` with tensor.expand_shape and tensor.collapse_shape looked
/// through (the tensor twin of throughReshapes).
Value throughTensorReshapes(Value value) {
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  return value;
}

/// True if `op` is an epilogue a library call may absorb: it is the only
/// reader of the result of a contraction-like op (through reshapes), and
/// that is a convolution (cuDNN takes the bias, a residual and the activation)
/// or its other inputs are smaller than its result (a GEMM takes a bias and an
/// activation, not a residual). The formation absorbs it only as it is,
/// its maps the identity.
bool isLibraryEpilogue(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp->getNumResults() != 1)
    return false;
  auto result = dyn_cast<RankedTensorType>(linalgOp->getResult(0).getType());
  bool found = false, absorbable = true;
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    Operation *producer = throughTensorReshapes(input->get()).getDefiningOp();
    // A library call writes its epilogue's result instead of its own: only
    // an epilogue that is the only reader of the product can be one.
    if (isContractionLike(producer) && producer->hasOneUse() &&
        input->get().hasOneUse()) {
      found = true;
      if (!isa<linalg::LinalgOp>(producer) ||
          !linalg::isaContractionOpInterface(cast<linalg::LinalgOp>(producer)))
        return true;
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (type && result && type.hasStaticShape() && result.hasStaticShape() &&
        type.getNumElements() >= result.getNumElements())
      absorbable = false;
  }
  return found && absorbable;
}

/// True if `v` is a float constant equal to `expected`.
bool isFloatConstant(Value v, double expected) {
  FloatAttr c;
  return matchPattern(v, m_Constant(&c)) && c.getValueAsDouble() == expected;
}

/// True if `v` is max(in, 0) or max(0, in).
bool isMaxWithZero(Value v, Value in) {
  auto max = v.getDefiningOp<arith::MaximumFOp>();
  return max && ((max.getLhs() == in && isFloatConstant(max.getRhs(), 0.0)) ||
                 (max.getRhs() == in && isFloatConstant(max.getLhs(), 0.0)));
}

/// The operands of `v`'s defining op of type OpTy, in either order, as
/// (the one equal to `known`, the other), or nothing when `v` is not such
/// an op with `known` as an operand.
template <typename OpTy>
std::optional<Value> otherOperand(Value v,
                                  llvm::function_ref<bool(Value)> known) {
  auto op = v.getDefiningOp<OpTy>();
  if (!op)
    return std::nullopt;
  if (known(op.getLhs()))
    return op.getRhs();
  if (known(op.getRhs()))
    return op.getLhs();
  return std::nullopt;
}

/// True if `out` is ONNX HardSwish of `in` as the importer writes it:
/// in * min(max(in * (1/6) + 0.5, 0), 1), each op's operands in either
/// order, the constants exactly those (1/6 rounded to f32).
bool isHardSwish(Value out, Value in) {
  auto isConst = [](double expected) {
    return [expected](Value v) { return isFloatConstant(v, expected); };
  };
  std::optional<Value> gate =
      otherOperand<arith::MulFOp>(out, [&](Value v) { return v == in; });
  if (!gate)
    return false;
  std::optional<Value> clamped =
      otherOperand<arith::MinimumFOp>(*gate, isConst(1.0));
  if (!clamped)
    return false;
  std::optional<Value> shifted =
      otherOperand<arith::MaximumFOp>(*clamped, isConst(0.0));
  if (!shifted)
    return false;
  std::optional<Value> scaled =
      otherOperand<arith::AddFOp>(*shifted, isConst(0.5));
  if (!scaled)
    return false;
  std::optional<Value> x = otherOperand<arith::MulFOp>(
      *scaled, isConst(double(float(tandem::kHardSwishAlpha))));
  return x && *x == in;
}

/// True if `out` is SiLU of `in` as Mul(x, Sigmoid(x)) imports and fuses:
/// in * (1 / (1 + exp(-in))), the multiply and the add in either order.
bool isSilu(Value out, Value in) {
  std::optional<Value> sigmoid =
      otherOperand<arith::MulFOp>(out, [&](Value v) { return v == in; });
  if (!sigmoid)
    return false;
  auto div = sigmoid->getDefiningOp<arith::DivFOp>();
  if (!div || !isFloatConstant(div.getLhs(), 1.0))
    return false;
  std::optional<Value> e = otherOperand<arith::AddFOp>(
      div.getRhs(), [](Value v) { return isFloatConstant(v, 1.0); });
  if (!e)
    return false;
  auto exp = e->getDefiningOp<math::ExpOp>();
  if (!exp)
    return false;
  auto neg = exp.getOperand().getDefiningOp<arith::NegFOp>();
  return neg && neg.getOperand() == in;
}

/// Which activations beyond ReLU and ReLU6 the kernels may take.
struct KernelActivations {
  bool hardswish = false;
  bool silu = false;
};

/// The epilogue a contraction kernel can apply in registers that `op` is,
/// if any: over one f32 input with identity maps, "relu" for max(x, 0),
/// "relu6" for min(max(x, 0), 6) (MobileNet's ReLU6, a clip to [0, 6]),
/// with `hardswish` "hardswish" for isHardSwish, with `silu` "silu" for
/// isSilu.
StringRef epilogueKind(linalg::GenericOp op, KernelActivations allowed) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || !yield.getOperand(0).getType().isF32())
    return {};
  Value in = body.getArgument(0), out = yield.getOperand(0);
  if (isMaxWithZero(out, in))
    return "relu";
  auto min = out.getDefiningOp<arith::MinimumFOp>();
  if (min &&
      ((isMaxWithZero(min.getLhs(), in) &&
        isFloatConstant(min.getRhs(), 6.0)) ||
       (isMaxWithZero(min.getRhs(), in) && isFloatConstant(min.getLhs(), 6.0))))
    return "relu6";
  if (allowed.hardswish && isHardSwish(out, in))
    return "hardswish";
  if (allowed.silu && isSilu(out, in))
    return "silu";
  return {};
}

/// Folds a ReLU (or ReLU6) into the f32 contraction or convolution it follows
/// (when that is its only user): the producer gets `tandem.epilogue = "relu"`,
/// which tandem-call-cpu-kernels turns into the kernels' fused epilogue
/// (or, if the op does not become a kernel call, into a loop right after
/// it), and the ReLU's users read the producer directly.
void foldReluEpilogues(Operation *root, KernelActivations allowed) {
  SmallVector<linalg::GenericOp> relus;
  root->walk([&](linalg::GenericOp op) {
    if (!epilogueKind(op, allowed).empty())
      relus.push_back(op);
  });
  for (linalg::GenericOp relu : relus) {
    Value in = relu.getDpsInputOperand(0)->get();
    Operation *producer = in.getDefiningOp();
    // A grouped convolution's NGFHW result reaches its users through the
    // collapse back to NCHW; the kernel calls apply the epilogue per group.
    if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(producer);
        collapse && in.hasOneUse() && collapse.getSrc().hasOneUse() &&
        in.getType() == relu.getResult(0).getType())
      if (auto grouped =
              collapse.getSrc().getDefiningOp<linalg::Conv2DNgchwGfchwOp>()) {
        if (grouped->hasAttr("tandem.epilogue"))
          continue;
        grouped->setAttr("tandem.epilogue",
                         StringAttr::get(grouped->getContext(),
                                         epilogueKind(relu, allowed)));
        relu.getResult(0).replaceAllUsesWith(in);
        relu.erase();
        continue;
      }
    // A 2-D matmul of a [1, seq, dim] activation reaches its users through
    // the expand back to 3-D; the epilogue applies to the same elements.
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(producer);
        expand && in.hasOneUse() && expand.getSrc().hasOneUse())
      producer = expand.getSrc().getDefiningOp();
    if (!producer || !in.hasOneUse() || producer->getNumResults() != 1 ||
        in.getType() != relu.getResult(0).getType() ||
        producer->hasAttr("tandem.epilogue") ||
        !(isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
              linalg::DepthwiseConv2DNchwChwOp, linalg::Conv2DNhwcFhwcOp>(
              producer) ||
          (isa<linalg::GenericOp>(producer) &&
           (isContractionLike(producer) ||
            producer->hasAttr(
                tandem::TandemDialect::getConvGroupsAttrName())))))
      continue;
    producer->setAttr(
        "tandem.epilogue",
        StringAttr::get(producer->getContext(), epilogueKind(relu, allowed)));
    relu.getResult(0).replaceAllUsesWith(in);
    relu.erase();
  }
}

/// The sizes of `type`'s dimensions other than 1.
SmallVector<int64_t> nonUnitSizes(RankedTensorType type) {
  return llvm::to_vector(llvm::make_filter_range(
      type.getShape(), [](int64_t size) { return size != 1; }));
}

/// Whether one tensor.collapse_shape or tensor.expand_shape reshapes
/// `from` to `to` (which upstream's reshape propagation then handles).
bool isSingleReshape(RankedTensorType from, RankedTensorType to) {
  if (from.getRank() < to.getRank())
    std::swap(from, to);
  return getReassociationIndicesForCollapse(from.getShape(), to.getShape())
      .has_value();
}

/// A generic reading a chain of tensor reshapes that only move size-1
/// dimensions, and that no single collapse or expand could make
/// ([1, 72, 1, 1] -> [72] -> [1, 1, 1, 72]: a squeeze-and-excitation
/// scale turned NHWC by tandem-assign-gpu-layout), reads the
/// chain's source instead, through a map that indexes the source's size-1
/// dimensions at 0 and its others as the map indexed the same dimensions of
/// the reshaped value. The source's producer can then fuse into the generic
/// (the hard-sigmoid of the scale into the multiply), which upstream's
/// reshape propagation does not do across such a reshape. Only generics
/// whose outputs are indexed by permutations (every loop's trip count comes
/// from them) are rewritten.
struct ReadUnitDimReshapeSources : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        !llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
          return op.getMatchingIndexingMap(&init).isPermutation();
        }))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> reads;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value source = throughTensorReshapes(input->get());
      auto from = dyn_cast<RankedTensorType>(source.getType());
      auto to = dyn_cast<RankedTensorType>(input->get().getType());
      if (source == input->get() || !from || !to || !from.hasStaticShape() ||
          !to.hasStaticShape() || nonUnitSizes(from) != nonUnitSizes(to) ||
          isSingleReshape(from, to))
        continue;
      AffineMap map = maps[input->getOperandNumber()];
      SmallVector<AffineExpr> nonUnit;
      for (auto [size, expr] : llvm::zip(to.getShape(), map.getResults()))
        if (size != 1)
          nonUnit.push_back(expr);
      SmallVector<AffineExpr> exprs;
      auto next = nonUnit.begin();
      for (int64_t size : from.getShape())
        exprs.push_back(size == 1 ? rewriter.getAffineConstantExpr(0)
                                  : *next++);
      maps[input->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, exprs, op.getContext());
      reads.push_back({input, source});
    }
    if (reads.empty())
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      for (auto [input, source] : reads)
        input->set(source);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// Whether `producer` is cheap to compute again: arith ops only (no math
/// function), reading at most two tensors as large as its result (smaller
/// ones, biases and scales, are broadcasts).
bool isCheapToRecompute(linalg::GenericOp producer) {
  auto result = dyn_cast<RankedTensorType>(producer->getResult(0).getType());
  if (!result || !result.hasStaticShape())
    return false;
  unsigned large = 0;
  for (Value input : producer.getDpsInputs()) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.hasStaticShape())
      return false;
    large += type.getNumElements() >= result.getNumElements();
  }
  return large <= 2 &&
         llvm::all_of(producer.getBody()->getOperations(), [](Operation &op) {
           return isa<linalg::YieldOp>(op) ||
                  op.getDialect()->getNamespace() == "arith";
         });
}

/// Whether the pointwise `producer`, which has other users, may fuse into
/// its pointwise reader `consumer` all the same (GPU partitions). Linalg's
/// fusion then computes the producer inside the reader and leaves it for
/// its other users, which fuse it in turn: the producer is computed again
/// where each reads it, instead of a launch writing its result for them to
/// read back (MaxViT's residual add, read by the next block's BatchNorm and
/// by that block's last residual add). Only for a producer cheap to
/// compute again (isCheapToRecompute), and not when either op is an
/// epilogue a library call may absorb (which takes one result).
bool mayFuseShared(Operation *producer, Operation *consumer) {
  auto producerOp = dyn_cast_or_null<linalg::GenericOp>(producer);
  auto consumerOp = dyn_cast_or_null<linalg::GenericOp>(consumer);
  auto func =
      consumerOp ? consumerOp->getParentOfType<func::FuncOp>() : func::FuncOp();
  return producerOp && consumerOp && func && tandem::isGPUPartition(func) &&
         producerOp->getNumResults() == 1 &&
         producerOp.getNumReductionLoops() == 0 &&
         consumerOp.getNumReductionLoops() == 0 &&
         consumerOp->getBlock() == producerOp->getBlock() &&
         isCheapToRecompute(producerOp) && !isLibraryEpilogue(producer) &&
         !isLibraryEpilogue(consumer);
}

/// Whether the producer of `fused`, which has other users, fuses into its
/// reader (mayFuseShared): only when every other user comes after the
/// reader in its block, where the fused op could also feed them.
bool fusesShared(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  Operation *consumer = fused->getOwner();
  return mayFuseShared(producer, consumer) &&
         llvm::all_of(producer->getUsers(), [&](Operation *user) {
           return user == consumer ||
                  (user->getBlock() == consumer->getBlock() &&
                   consumer->isBeforeInBlock(user));
         });
}

/// Fused loop bodies stop growing at this many ops. Each fusion clones the
/// producer's body into the consumer's, so an unbounded chain of n
/// single-use elementwise ops (the partition's fusions are inlined side by
/// side) grew one body to n ops through n clones: O(n^2) here and in LLVM
/// (10,000 ops did not compile in 600 s). Bodies of this size still hold
/// every fusion the planner forms (at most 32 tandem ops, a few arith ops
/// each), so models fuse as before.
constexpr size_t kMaxFusedBodyOps = 256;

/// The ops in `op`'s body (a linalg op's region), 0 when it has none.
size_t bodySize(Operation *op) {
  if (!op || op->getNumRegions() == 0 || op->getRegion(0).empty())
    return 0;
  return op->getRegion(0).front().getOperations().size();
}

struct FuseElementwisePass
    : tandem::impl::TandemFuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    KernelActivations allowed{hardswish, silu};
    foldReluEpilogues(getOperation(), allowed);
    // Whether `producer` may vanish into `consumer`, which reads its
    // result. A transpose (a generic in GPU partitions) stays out of an
    // epilogue a library call may absorb, which would then write or read
    // through a permutation; two transposes still compose.
    auto mayFuse = [](Operation *producer, Operation *consumer) {
      bool producerTransposes = tandem::isPermutationCopy(producer),
           consumerTransposes = tandem::isPermutationCopy(consumer);
      bool transposesEpilogue = (producerTransposes && !consumerTransposes &&
                                 isLibraryEpilogue(consumer)) ||
                                (consumerTransposes && !producerTransposes &&
                                 isLibraryEpilogue(producer));
      return !isContractionLike(producer) && !isContractionLike(consumer) &&
             !transposesEpilogue &&
             bodySize(producer) + bodySize(consumer) <= kMaxFusedBodyOps;
    };
    linalg::ControlFusionFn control = [&](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && (producer->hasOneUse() || fusesShared(fused)) &&
             mayFuse(producer, fused->getOwner());
    };
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    tandem::populateInlineGatherReadPatterns(patterns, kMaxFusedBodyOps);
    // GPU partitions: generics read through reshapes that stop the
    // fusion above.
    tandem::populateReadThroughReshapePatterns(
        patterns, [&](Operation *producer, Operation *consumer, bool shared) {
          return mayFuse(producer, consumer) &&
                 (!shared || mayFuseShared(producer, consumer));
        });
    patterns.add<ReadUnitDimReshapeSources>(context);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    // HardSwish is four ops (x * (1/6), + 0.5, the clip, x * that), SiLU
    // two (Sigmoid, Mul), one generic each until the fusion above made
    // them one.
    if (hardswish || silu)
      foldReluEpilogues(getOperation(), allowed);
  }
};

} // namespace
