//===- AssignGPULayout.cpp - the tandem-assign-gpu-layout pass ------------===//
//
// Puts the f32 convolutions placed on GPUs in NHWC when asked (the layout
// cuDNN's tensor-core kernels read): each conv gets a transpose to NHWC
// before it and one back after it, its constant filter is transposed at
// compile time, and the transposes then sink through the elementwise ops
// after them and cancel against the next conv's, so that transposes stay
// only where a value enters or leaves a run of GPU convolutions and
// elementwise work.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"
#include "dialects/Tandem/IR/TandemTraits.h"
#include "passes/Optimize/ConstantData.h"

#include "mlir/IR/IRMapping.h"

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
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return type.clone(shape);
}

/// The inverse of `perm`.
SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = static_cast<int64_t>(i);
  return inv;
}

/// A tandem.transpose of `value` by `perm` on `device`.
Value transposeOn(OpBuilder &builder, Location loc, Value value,
                  ArrayRef<int64_t> perm, DeviceAttr device) {
  auto type = cast<RankedTensorType>(value.getType());
  auto op = TransposeOp::create(builder, loc, permuted(type, perm), value,
                                builder.getDenseI64ArrayAttr(perm));
  setDevice(op, device);
  return op.getResult();
}

/// A transpose of `value` by `perm` on `device` that another op already
/// made in `user`'s block, moved before `user` if it came later (its only
/// operand, which `user` also reads, dominates `user`); null if none.
TransposeOp existingTranspose(Operation *user, Value value,
                              ArrayRef<int64_t> perm, DeviceAttr device) {
  for (Operation *other : value.getUsers()) {
    auto t = dyn_cast<TransposeOp>(other);
    if (!t || t.getPerm() != perm || getDevice(t) != device ||
        t->getBlock() != user->getBlock())
      continue;
    if (user->isBeforeInBlock(t))
      t->moveBefore(user);
    return t;
  }
  return {};
}

/// existingTranspose, else a new transpose before `user`. Convs that
/// share an input (a ResNet block's first conv and its downsample) share
/// its transpose.
Value transposeFor(Operation *user, Value value, ArrayRef<int64_t> perm,
                   DeviceAttr device) {
  if (TransposeOp t = existingTranspose(user, value, perm, device))
    return t.getResult();
  OpBuilder builder(user);
  return transposeOn(builder, user->getLoc(), value, perm, device);
}

/// Whether `op` is an f32 convolution on a GPU still in NCHW.
bool isGPUConvToAssign(Conv2DOp conv) {
  DeviceAttr device = getDevice(conv);
  auto type = dyn_cast<RankedTensorType>(conv.getType());
  return device && device.isGPU() && !conv.isChannelsLast() && type &&
         type.hasStaticShape() && type.getElementType().isF32();
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
  Value input =
      transposeFor(conv, conv.getInput(), kToChannelsLast, device);
  Value oldFilter = conv.getFilter();
  Value filter = channelsLastFilter(builder, loc, oldFilter, device);
  auto type = cast<RankedTensorType>(conv.getType());
  auto nhwc = Conv2DOp::create(
      builder, loc, permuted(type, kToChannelsLast), input, filter,
      conv.getBias(), conv.getStridesAttr(), conv.getPadsAttr(),
      conv.getDilationsAttr(), conv.getGroupsAttr(),
      builder.getStringAttr("NHWC"));
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
/// is the identity; adds the ops it erases to `erased`. Returns whether it
/// changed anything.
bool composeTransposes(TransposeOp outer,
                       llvm::DenseSet<Operation *> &erased) {
  auto inner = outer.getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return false;
  SmallVector<int64_t> composed;
  for (int64_t p : outer.getPerm())
    composed.push_back(inner.getPerm()[p]);
  if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size()))) {
    outer.getResult().replaceAllUsesWith(inner.getInput());
    erased.insert(outer);
    outer.erase();
  } else {
    outer.getInputMutable().assign(inner.getInput());
    outer.setPerm(composed);
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
  return type && llvm::all_of(type.getShape(),
                              [](int64_t d) { return d == 1; });
}

/// elementwise(transpose(x, p), ..., s) -> transpose(elementwise(x, ..., s),
/// p) when every tensor operand is a transpose by the same `p` that only
/// this op uses, a layout-free broadcast `s`, or a value some other user
/// already transposes by p's inverse, and everything is on one device;
/// adds the ops it erases to `erased`. Returns whether it sank one.
bool sinkThroughElementwise(Operation *op,
                            llvm::DenseSet<Operation *> &erased) {
  if (!op->hasTrait<tandem::OpTrait::Elementwise>() ||
      op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  DeviceAttr device = getDevice(op);
  if (!resultType || !device)
    return false;
  std::optional<SmallVector<int64_t>> perm;
  SmallVector<Value> others;
  for (Value operand : op->getOperands()) {
    if (auto t = operand.getDefiningOp<TransposeOp>()) {
      if (getDevice(t) != device || !t->hasOneUse() ||
          t.getType() != resultType.clone(t.getType().getElementType()) ||
          (perm && ArrayRef<int64_t>(*perm) != t.getPerm()))
        return false;
      perm = llvm::to_vector(t.getPerm());
      continue;
    }
    if (!isLayoutFree(operand))
      others.push_back(operand);
  }
  if (!perm)
    return false;
  SmallVector<int64_t> inv = inverse(*perm);
  // An operand in the op's layout (a residual from a pool) joins only when
  // it is transposed to the new layout for another user anyway (the next
  // convolution's input): the op then reads that transpose.
  IRMapping mapping;
  for (Value other : others) {
    auto type = dyn_cast<RankedTensorType>(other.getType());
    if (!type || type.getShape() != resultType.getShape())
      return false;
    TransposeOp existing = existingTranspose(op, other, inv, device);
    if (!existing)
      return false;
    mapping.map(other, existing.getResult());
  }
  OpBuilder builder(op);
  for (Value operand : op->getOperands())
    if (auto t = operand.getDefiningOp<TransposeOp>())
      if (!mapping.contains(operand))
        mapping.map(operand, t.getInput());
  Operation *sunk = builder.clone(*op, mapping);
  sunk->getResult(0).setType(permuted(resultType, inv));
  Value back = transposeOn(builder, op->getLoc(), sunk->getResult(0), *perm,
                           device);
  SmallVector<Operation *> inputs;
  for (Value operand : op->getOperands())
    if (Operation *t = operand.getDefiningOp<TransposeOp>())
      if (!llvm::is_contained(others, operand))
        inputs.push_back(t);
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
        if (auto t = dyn_cast<TransposeOp>(op))
          changed |= composeTransposes(t, erased);
        else
          changed |= sinkThroughElementwise(op, erased);
      }
    }
  }
};

} // namespace
