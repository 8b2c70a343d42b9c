//===- AssignGPULayout.cpp - the tandem-assign-gpu-layout pass ------------===//
//
// Puts the f32 convolutions placed on GPUs in NHWC when asked (the layout
// cuDNN's tensor-core kernels read): each conv gets a transpose to NHWC
// before it and one back after it, its constant filter is transposed at
// compile time, and the transposes then sink through the elementwise ops
// after them and cancel against the next conv's, so that transposes stay
// only where a value enters or leaves a run of GPU convolutions,
// elementwise work, pools, reductions, BatchNorms and concats.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Tandem/IR/ShapeInference.h"
#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"
#include "dialects/Tandem/IR/TandemTraits.h"
#include "passes/Optimize/ConstantData.h"

#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMASSIGNGPULAYOUT
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// NCHW -> NHWC (and OIHW -> OHWI), and back.
constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};

/// `type`'s shape permuted as tandem.transpose with `perm` permutes it.
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  return type.clone(shape::permute(type.getShape(), perm));
}

/// `type` with 1s before its dimensions up to rank `rank` (how an
/// elementwise op broadcasts an operand of lower rank).
RankedTensorType atRank(RankedTensorType type, int64_t rank) {
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  return type.clone(shape);
}

/// A tandem.reshape of `value` to `type` on `device`.
Value reshapeOn(OpBuilder &builder, Location loc, Value value,
                RankedTensorType type, DeviceAttr device) {
  auto op = ReshapeOp::create(builder, loc, type, value,
                              builder.getDenseI64ArrayAttr(type.getShape()));
  setDevice(op, device);
  return op.getResult();
}

/// A tandem.transpose of `value` by `perm` on `device`, or a reshape (a
/// view, no copy) where it moves only size-1 dimensions (a squeeze-and-
/// excitation scale's [N, C, 1, 1]).
Value transposeOn(OpBuilder &builder, Location loc, Value value,
                  ArrayRef<int64_t> perm, DeviceAttr device) {
  auto type = cast<RankedTensorType>(value.getType());
  if (shape::movesOnlyUnitDims(type.getShape(), perm))
    return reshapeOn(builder, loc, value, permuted(type, perm), device);
  auto op = TransposeOp::create(builder, loc, permuted(type, perm), value,
                                builder.getDenseI64ArrayAttr(perm));
  setDevice(op, device);
  return op.getResult();
}

/// A transpose of `value` by `perm` on `device` that another op already
/// made in `user`'s block; null if none.
TransposeOp findTranspose(Operation *user, Value value, ArrayRef<int64_t> perm,
                          DeviceAttr device) {
  for (Operation *other : value.getUsers()) {
    auto t = dyn_cast<TransposeOp>(other);
    if (t && t.getPerm() == perm && getDevice(t) == device &&
        t->getBlock() == user->getBlock())
      return t;
  }
  return {};
}

/// findTranspose (moved before `user` if it came later: its only operand,
/// which `user` also reads, dominates `user`), else a new transpose before
/// `user`. Convs that share an input (a ResNet block's first conv and its
/// downsample) share its transpose.
Value transposeFor(Operation *user, Value value, ArrayRef<int64_t> perm,
                   DeviceAttr device) {
  if (TransposeOp t = findTranspose(user, value, perm, device)) {
    if (user->isBeforeInBlock(t))
      t->moveBefore(user);
    return t.getResult();
  }
  OpBuilder builder(user);
  return transposeOn(builder, user->getLoc(), value, perm, device);
}

/// Whether `op` is an f32 convolution on a GPU still in NCHW whose layout
/// matters: one over a 1 x 1 map (a squeeze-and-excitation block's) reads
/// and writes the same bytes in NCHW as in NHWC, so it stays as it is and
/// its neighbours reach it through reshapes.
bool isGPUConvToAssign(Conv2DOp conv) {
  DeviceAttr device = getDevice(conv);
  auto type = dyn_cast<RankedTensorType>(conv.getType());
  auto in = dyn_cast<RankedTensorType>(conv.getInput().getType());
  return device && device.isGPU() && !conv.isChannelsLast() && type &&
         type.hasStaticShape() && type.getElementType().isF32() && in &&
         in.hasStaticShape() &&
         !(in.getDimSize(2) == 1 && in.getDimSize(3) == 1 &&
           type.getDimSize(2) == 1 && type.getDimSize(3) == 1);
}

/// The OHWI form of the OIHW `filter` for a conv on `device`: a constant
/// transposed now, anything else transposed on the device.
Value channelsLastFilter(OpBuilder &builder, Location loc, Value filter,
                         DeviceAttr device) {
  auto type = cast<RankedTensorType>(filter.getType());
  auto constant = filter.getDefiningOp<ConstantOp>();
  std::optional<F32Values> values = viewF32Constant(filter);
  if (!constant || !values || !type.hasStaticShape())
    return transposeOn(builder, loc, filter, kToChannelsLast, device);
  std::string name = "filter_ohwi";
  if (auto nameLoc = dyn_cast<NameLoc>(constant.getLoc()))
    name = (nameLoc.getName().strref() + "_ohwi").str();
  Value ohwi = createF32Constant(
      builder, constant.getLoc(), permuted(type, kToChannelsLast),
      transposeF32(*values, type.getShape(), kToChannelsLast), name);
  if (DeviceAttr at = getDevice(constant))
    setDevice(ohwi.getDefiningOp(), at);
  return ohwi;
}

/// Rewrites `conv` as transpose -> NHWC conv -> transpose back.
void assignChannelsLast(Conv2DOp conv, Operation *weightScope) {
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  DeviceAttr device = getDevice(conv);
  Value input = transposeFor(conv, conv.getInput(), kToChannelsLast, device);
  Value oldFilter = conv.getFilter();
  Value filter = channelsLastFilter(builder, loc, oldFilter, device);
  auto type = cast<RankedTensorType>(conv.getType());
  auto nhwc =
      Conv2DOp::create(builder, loc, permuted(type, kToChannelsLast), input,
                       filter, conv.getBias(), conv.getStridesAttr(),
                       conv.getPadsAttr(), conv.getDilationsAttr(),
                       conv.getGroupsAttr(), builder.getStringAttr("NHWC"));
  // Keep the node's name and other discardable attributes (the device).
  for (NamedAttribute attr : conv->getDiscardableAttrs())
    nhwc->setAttr(attr.getName(), attr.getValue());
  Value back =
      transposeOn(builder, loc, nhwc.getResult(), kToChannelsFirst, device);
  conv.getResult().replaceAllUsesWith(back);
  conv.erase();
  if (oldFilter != filter) {
    IRRewriter rewriter(builder.getContext());
    eraseDeadWeight(rewriter, oldFilter, weightScope);
  }
}

/// transpose(transpose(x, p), q) -> transpose(x, p o q), or x when that
/// is the identity (TransposeOp's fold); adds the ops it erases to
/// `erased`. Returns whether it changed anything.
bool composeTransposes(TransposeOp outer, llvm::DenseSet<Operation *> &erased) {
  auto inner = outer.getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return false;
  SmallVector<OpFoldResult> folded;
  if (failed(outer->fold(folded)))
    return false;
  if (auto value = dyn_cast_if_present<Value>(folded.front());
      value && value != outer.getResult()) {
    outer.getResult().replaceAllUsesWith(value);
    erased.insert(outer);
    outer.erase();
  }
  if (inner->use_empty()) {
    erased.insert(inner);
    inner.erase();
  }
  return true;
}

/// Whether an operand of an elementwise op may stay as it is when the op's
/// other operands lose a transpose: a scalar, or all dimensions 1 (a
/// broadcast that no permutation changes).
bool isLayoutFree(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type &&
         llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; });
}

/// How an elementwise op sinks the transposes it reads: their permutation,
/// and for each other non-layout-free operand the transpose another user
/// already makes of it (null: a reshape will do).
struct SinkPlan {
  SmallVector<int64_t> perm;
  SmallVector<std::pair<Value, TransposeOp>> others;
};

/// Whether `value` is computed from `root` by elementwise ops alone (each
/// operand from `root` or layout-free), at most `depth` ops deep: once
/// `root`'s transposes have sunk through them, it is a transpose too.
bool computedFrom(Value value, Value root, int depth = 16) {
  if (value == root)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0 || !def->hasTrait<tandem::OpTrait::Elementwise>())
    return false;
  bool any = false;
  for (Value operand : def->getOperands()) {
    if (isLayoutFree(operand))
      continue;
    if (!computedFrom(operand, root, depth - 1))
      return false;
    any = true;
  }
  return any;
}

/// The plan for sinking the transposes `op` reads, if it can: every tensor
/// operand a transpose by the same permutation p on op's device (read only
/// by `op`, unless `sharedTransposes`), a layout-free broadcast, a
/// broadcast whose permutation moves only size-1 dimensions (a squeeze-
/// and-excitation scale, [N, C, 1, 1]: reshaped), or a value of op's shape
/// that some other user already transposes by p's inverse (a residual
/// from a pool, which the next convolution transposes anyway). With
/// `pending` (a shared transpose about to be split), an operand computed
/// from it by elementwise ops also qualifies (it will be a transpose).
std::optional<SinkPlan> planSink(Operation *op, bool sharedTransposes,
                                 Value pending = {}) {
  if (!op->hasTrait<tandem::OpTrait::Elementwise>() ||
      op->getNumResults() != 1 || op->getNumRegions() != 0)
    return std::nullopt;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  DeviceAttr device = getDevice(op);
  if (!resultType || !device)
    return std::nullopt;
  SinkPlan plan;
  SmallVector<Value> others;
  for (Value operand : op->getOperands()) {
    if (auto t = operand.getDefiningOp<TransposeOp>()) {
      if (getDevice(t) != device ||
          (!sharedTransposes &&
           !llvm::all_of(t->getUsers(),
                         [&](Operation *user) { return user == op; })) ||
          t.getType() != resultType.clone(t.getType().getElementType()) ||
          (!plan.perm.empty() && ArrayRef<int64_t>(plan.perm) != t.getPerm()))
        return std::nullopt;
      plan.perm = llvm::to_vector(t.getPerm());
      continue;
    }
    if (!isLayoutFree(operand))
      others.push_back(operand);
  }
  if (plan.perm.empty())
    return std::nullopt;
  SmallVector<int64_t> inv = shape::invertPermutation(plan.perm);
  for (Value other : others) {
    auto type = dyn_cast<RankedTensorType>(other.getType());
    if (!type || type.getRank() > resultType.getRank())
      return std::nullopt;
    if (pending && computedFrom(other, pending))
      continue;
    // A broadcast of lower rank (a BatchNorm's [C, 1, 1] scale after a
    // DenseNet concat) as if its shape had leading 1s: reshaped too.
    if (shape::movesOnlyUnitDims(atRank(type, resultType.getRank()).getShape(),
                                 inv)) {
      plan.others.push_back({other, TransposeOp()});
      continue;
    }
    TransposeOp existing = type.getRank() == resultType.getRank() &&
                                   type.getShape() == resultType.getShape()
                               ? findTranspose(op, other, inv, device)
                               : TransposeOp();
    if (!existing)
      return std::nullopt;
    plan.others.push_back({other, existing});
  }
  return plan;
}

/// elementwise(transpose(x, p), ..., s) -> transpose(elementwise(x, ..., s),
/// p) as planSink allows; adds the ops it erases to `erased`. Returns
/// whether it sank one.
bool sinkThroughElementwise(Operation *op,
                            llvm::DenseSet<Operation *> &erased) {
  std::optional<SinkPlan> plan = planSink(op, /*sharedTransposes=*/false);
  if (!plan)
    return false;
  SmallVector<int64_t> inv = shape::invertPermutation(plan->perm);
  DeviceAttr device = getDevice(op);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  OpBuilder builder(op);
  IRMapping mapping;
  for (auto [other, existing] : plan->others) {
    if (existing) {
      if (op->isBeforeInBlock(existing))
        existing->moveBefore(op);
      mapping.map(other, existing.getResult());
      continue;
    }
    mapping.map(
        other,
        reshapeOn(builder, op->getLoc(), other,
                  permuted(atRank(cast<RankedTensorType>(other.getType()),
                                  resultType.getRank()),
                           inv),
                  device));
  }
  SmallVector<Operation *> inputs;
  for (Value operand : op->getOperands())
    if (auto t = operand.getDefiningOp<TransposeOp>())
      if (!mapping.contains(operand)) {
        mapping.map(operand, t.getInput());
        inputs.push_back(t);
      }
  Operation *sunk = builder.clone(*op, mapping);
  sunk->getResult(0).setType(permuted(resultType, inv));
  Value back = transposeOn(builder, op->getLoc(), sunk->getResult(0),
                           plan->perm, device);
  op->getResult(0).replaceAllUsesWith(back);
  erased.insert(op);
  op->erase();
  for (Operation *t : inputs)
    if (t->use_empty()) {
      erased.insert(t);
      t->erase();
    }
  return true;
}

/// Whether `pool`, a global average pool or an NCHW max or average pool, can
/// move the transpose back to NCHW that it reads, `t`, past itself: both on one
/// device. (`t` must also have no other reader; splitSharedTranspose makes
/// it so.)
bool poolSinks(Operation *pool, TransposeOp t) {
  DeviceAttr device = getDevice(pool);
  if (!device || getDevice(t) != device ||
      t.getPerm() != ArrayRef<int64_t>(kToChannelsFirst))
    return false;
  if (auto max = dyn_cast<MaxPool2DOp>(pool))
    return !max.isChannelsLast();
  if (auto avg = dyn_cast<AvgPool2DOp>(pool))
    return !avg.isChannelsLast();
  return isa<GlobalAvgPoolOp>(pool);
}

/// Replaces `pool` (or a BatchNorm or reduction sinking a transpose the
/// same way) by `result`, computed from the NHWC value by `replacement`
/// (which takes the pool's discardable attributes: its device, its fusion
/// name), and erases the pool and the transpose `t` it read, adding both
/// to `erased`.
void replacePool(Operation *pool, Operation *replacement, Value result,
                 TransposeOp t, llvm::DenseSet<Operation *> &erased) {
  for (NamedAttribute attr : pool->getDiscardableAttrs())
    replacement->setAttr(attr.getName(), attr.getValue());
  pool->getResult(0).replaceAllUsesWith(result);
  erased.insert(pool);
  pool->erase();
  erased.insert(t);
  t.erase();
}

/// global_avg_pool(transpose(x, NHWC -> NCHW)) -> reshape(reduce_mean(x,
/// [1, 2])): the NHWC mean over H and W, N x 1 x 1 x C, holds the
/// N x C x 1 x 1 result's elements in order. Adds the ops it erases to
/// `erased`; returns whether it rewrote `pool`.
bool poolChannelsLast(GlobalAvgPoolOp pool,
                      llvm::DenseSet<Operation *> &erased) {
  auto t = pool.getInput().getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse() || !poolSinks(pool, t))
    return false;
  DeviceAttr device = getDevice(pool);
  OpBuilder builder(pool);
  auto in = cast<RankedTensorType>(t.getInput().getType());
  auto meanType = in.clone({in.getDimSize(0), 1, 1, in.getDimSize(3)});
  auto mean = ReduceMeanOp::create(
      builder, pool.getLoc(), meanType, t.getInput(),
      builder.getDenseI64ArrayAttr({1, 2}), builder.getBoolAttr(true));
  Value result = reshapeOn(builder, pool.getLoc(), mean.getResult(),
                           cast<RankedTensorType>(pool.getType()), device);
  replacePool(pool, mean, result, t, erased);
  return true;
}

/// Whether `bn` can move the transpose it reads, `t`, past itself: both on
/// one device, `t` a transpose back to NCHW. (`t` must also have no other
/// reader; splitSharedTranspose makes it so.)
bool batchNormSinks(BatchNormOp bn, TransposeOp t) {
  DeviceAttr device = getDevice(bn);
  return device && getDevice(t) == device &&
         t.getPerm() == ArrayRef<int64_t>(kToChannelsFirst);
}

/// batch_norm(transpose(x, NHWC -> NCHW)) -> transpose(batch_norm(x) over
/// channels last, NHWC -> NCHW): a BatchNorm that folded into no
/// convolution (a DenseNet layer's, after its concat) normalises the NHWC
/// value, and the transpose sinks on. Adds the ops it erases to `erased`;
/// returns whether it rewrote `bn`.
bool sinkThroughBatchNorm(BatchNormOp bn, llvm::DenseSet<Operation *> &erased) {
  auto t = bn.getInput().getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse() || !batchNormSinks(bn, t))
    return false;
  OpBuilder builder(bn);
  auto nhwc = cast<BatchNormOp>(builder.clone(*bn));
  nhwc.getInputMutable().assign(t.getInput());
  nhwc.setAxis(t.getPerm()[bn.getAxis()]);
  nhwc.getResult().setType(cast<RankedTensorType>(t.getInput().getType()));
  Value back = transposeOn(builder, bn.getLoc(), nhwc.getResult(), t.getPerm(),
                           getDevice(bn));
  replacePool(bn, nhwc, back, t, erased);
  return true;
}

/// Whether `op` is a reduction (reduce_sum, reduce_mean, reduce_max,
/// reduce_min, reduce_prod) that can move the transpose back to NCHW it
/// reads, `t`, past itself: both on one device. (`t` must also have no
/// other reader; splitSharedTranspose makes it so.)
bool reduceSinks(Operation *op, TransposeOp t) {
  DeviceAttr device = getDevice(op);
  return isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
             op) &&
         device && getDevice(t) == device &&
         t.getPerm() == ArrayRef<int64_t>(kToChannelsFirst);
}

/// reduce(transpose(x, p), axes) -> transpose(reduce(x, p[axes]), q), q
/// being p over the dimensions the reduction keeps: a squeeze-and-
/// excitation pool written as a mean over H and W (timm's `x.mean((2, 3),
/// keepdim=True)`) reads the NHWC value, and its N x 1 x 1 x C result
/// reaches N x C x 1 x 1 by a reshape. Adds the ops it erases to
/// `erased`; returns whether it rewrote `op`.
template <typename ReduceOp>
bool sinkThroughReduce(ReduceOp op, llvm::DenseSet<Operation *> &erased) {
  auto t = op.getInput().template getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse() || !reduceSinks(op, t))
    return false;
  ArrayRef<int64_t> perm = t.getPerm();
  int64_t rank = perm.size();
  llvm::SmallDenseSet<int64_t> reduced;
  for (int64_t axis : op.getAxes())
    reduced.insert(perm[axis < 0 ? axis + rank : axis]);
  SmallVector<int64_t> axes(reduced.begin(), reduced.end());
  llvm::sort(axes);
  // Where each dimension of x lands in the reduction's result.
  SmallVector<int64_t> position(rank);
  for (int64_t d = 0, kept = 0; d < rank; ++d)
    position[d] = op.getKeepdims() || !reduced.contains(d) ? kept++ : -1;
  SmallVector<int64_t> back;
  for (int64_t d = 0; d < rank; ++d)
    if (op.getKeepdims() || !reduced.contains(perm[d]))
      back.push_back(position[perm[d]]);
  auto in = cast<RankedTensorType>(t.getInput().getType());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced.contains(d))
      shape.push_back(in.getDimSize(d));
    else if (op.getKeepdims())
      shape.push_back(1);
  OpBuilder builder(op);
  auto nhwc = cast<ReduceOp>(builder.clone(*op));
  nhwc.getInputMutable().assign(t.getInput());
  nhwc.setAxes(axes);
  nhwc.getResult().setType(in.clone(shape));
  Value result =
      transposeOn(builder, op.getLoc(), nhwc.getResult(), back, getDevice(op));
  replacePool(op, nhwc, result, t, erased);
  return true;
}

/// A transpose back to NCHW that several ops read, each of which could
/// sink it (elementwise ops, as planSink allows with shared transposes,
/// pools, as poolSinks allows, BatchNorms and reductions): one copy per
/// reader, so that
/// each sinks on its own (a hard-swish's x * hardsigmoid(x), a
/// squeeze-and-excitation's pool and scale). Returns whether it split one.
bool splitSharedTranspose(TransposeOp t) {
  if (t->use_empty() || t->hasOneUse() ||
      t.getPerm() != ArrayRef<int64_t>(kToChannelsFirst))
    return false;
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : t->getUses()) {
    Operation *user = use.getOwner();
    auto bn = dyn_cast<BatchNormOp>(user);
    if (!poolSinks(user, t) && !(bn && batchNormSinks(bn, t)) &&
        !reduceSinks(user, t) &&
        !planSink(user, /*sharedTransposes=*/true, t.getResult()))
      return false;
    uses.push_back(&use);
  }
  for (OpOperand *use : llvm::drop_begin(uses)) {
    OpBuilder builder(use->getOwner());
    use->set(builder.clone(*t)->getResult(0));
  }
  return true;
}

/// pool(transpose(x, NHWC -> NCHW)) -> transpose(pool(x) in NHWC, NHWC ->
/// NCHW) for a max or average pool: the transpose moves past the pool (the
/// ResNets' stem, an Inception or DenseNet transition), where it can sink
/// on and cancel. Adds the ops it erases to `erased`; returns whether it
/// rewrote `pool`.
template <typename PoolOp>
bool sinkThroughPool(PoolOp pool, llvm::DenseSet<Operation *> &erased) {
  auto t = pool.getInput().template getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse() || !poolSinks(pool, t))
    return false;
  DeviceAttr device = getDevice(pool);
  OpBuilder builder(pool);
  auto nhwc = cast<PoolOp>(builder.clone(*pool));
  nhwc.getInputMutable().assign(t.getInput());
  nhwc.getResult().setType(
      permuted(cast<RankedTensorType>(pool.getType()), kToChannelsLast));
  nhwc.setLayout("NHWC");
  Value back = transposeOn(builder, pool.getLoc(), nhwc.getResult(),
                           kToChannelsFirst, device);
  replacePool(pool, nhwc, back, t, erased);
  return true;
}

/// concat(transpose(x1, p), ..., transpose(xk, p)) along `axis` ->
/// transpose(concat(x1, ..., xk) along p[axis], p): the NHWC outputs of
/// an Inception module's, a SqueezeNet fire module's or a DenseNet layer's
/// convolutions are concatenated along their channels in NHWC, and the
/// transpose back sinks on (to the next convolution's, where it cancels).
/// Every input must be such a transpose on the concat's device; a
/// transpose other ops also read stays for them (DenseNet concatenates each
/// layer's output again in every later layer). Adds the ops it erases to
/// `erased`; returns whether it rewrote `concat`.
bool sinkThroughConcat(ConcatOp concat, llvm::DenseSet<Operation *> &erased) {
  DeviceAttr device = getDevice(concat);
  auto type = dyn_cast<RankedTensorType>(concat.getType());
  if (!device || !type)
    return false;
  SmallVector<TransposeOp> inputs;
  for (Value input : concat.getInputs()) {
    auto t = input.getDefiningOp<TransposeOp>();
    if (!t || getDevice(t) != device ||
        (!inputs.empty() && inputs.front().getPerm() != t.getPerm()))
      return false;
    inputs.push_back(t);
  }
  ArrayRef<int64_t> perm = inputs.front().getPerm();
  SmallVector<Value> sources = llvm::map_to_vector(
      inputs, [](TransposeOp t) -> Value { return t.getInput(); });
  OpBuilder builder(concat);
  auto inner = ConcatOp::create(
      builder, concat.getLoc(), permuted(type, shape::invertPermutation(perm)),
      sources, builder.getI64IntegerAttr(perm[concat.getAxis()]));
  for (NamedAttribute attr : concat->getDiscardableAttrs())
    inner->setAttr(attr.getName(), attr.getValue());
  Value back =
      transposeOn(builder, concat.getLoc(), inner.getResult(), perm, device);
  concat.getResult().replaceAllUsesWith(back);
  erased.insert(concat);
  concat.erase();
  // An input may be there twice; `erased` may hold a reused address.
  llvm::SmallPtrSet<Operation *, 4> seen;
  for (TransposeOp t : inputs)
    if (seen.insert(t).second && t->use_empty()) {
      erased.insert(t);
      t.erase();
    }
  return true;
}

struct AssignGPULayoutPass
    : tandem::impl::TandemAssignGPULayoutBase<AssignGPULayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    if (layout != "nchw" && layout != "nhwc") {
      getOperation().emitError()
          << "tandem-assign-gpu-layout: layout must be nchw or nhwc, got '"
          << layout << "'";
      return signalPassFailure();
    }
    if (layout == "nchw")
      return;
    Operation *weightScope = weightReleaseScope(getOperation());
    SmallVector<Conv2DOp> convs;
    getOperation().walk([&](Conv2DOp conv) {
      if (isGPUConvToAssign(conv))
        convs.push_back(conv);
    });
    for (Conv2DOp conv : convs)
      assignChannelsLast(conv, weightScope);
    // Cancel and sink to a fixed point; every sink moves a transpose past
    // one more op, so on a DAG this ends.
    bool changed = !convs.empty();
    while (changed) {
      changed = false;
      SmallVector<Operation *> ops;
      getOperation().walk([&](Operation *op) { ops.push_back(op); });
      llvm::DenseSet<Operation *> erased;
      for (Operation *op : ops) {
        if (erased.contains(op))
          continue;
        changed |= llvm::TypeSwitch<Operation *, bool>(op)
                       .Case([&](TransposeOp t) {
                         return composeTransposes(t, erased) ||
                                splitSharedTranspose(t);
                       })
                       .Case([&](GlobalAvgPoolOp pool) {
                         return poolChannelsLast(pool, erased);
                       })
                       .Case<MaxPool2DOp, AvgPool2DOp>([&](auto pool) {
                         return sinkThroughPool(pool, erased);
                       })
                       .Case([&](ConcatOp concat) {
                         return sinkThroughConcat(concat, erased);
                       })
                       .Case([&](BatchNormOp bn) {
                         return sinkThroughBatchNorm(bn, erased);
                       })
                       .Case<ReduceMeanOp, ReduceSumOp, ReduceMaxOp,
                             ReduceMinOp, ReduceProdOp>([&](auto reduce) {
                         return sinkThroughReduce(reduce, erased);
                       })
                       .Default([&](Operation *other) {
                         return sinkThroughElementwise(other, erased);
                       });
      }
    }
  }
};

} // namespace
