//===- FormLibraryConvs.cpp - the tandem-form-library-convs pass ----------===//
//
// Turns launches of generated 2-D convolution kernels (NCHW or NHWC) into
// tandem_exec.conv ops (cuDNN on CUDA, the CPU kernels on the host): the
// kernel's own zero padding,
// bias initialisation and fused ReLU / ReLU6 become the conv's attributes,
// and an elementwise launch after it (a residual add, then a ReLU, ReLU6,
// sigmoid or swish, or one of them) folds into its epilogue; the replaced
// launches follow the conv as its fallback.
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"
#include "codegen/LinalgPayloads.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include "mlir/IR/Matchers.h"
#include <numeric>

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFORMLIBRARYCONVS
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

namespace {

/// The kernel argument `value` is (through reshapes), or null.
BlockArgument rootArgument(Value value) {
  return dyn_cast<BlockArgument>(throughReshapes(value));
}

/// Whether `type` is a static identity-layout f32 buffer of rank `rank`
/// (of any rank when `rank` is negative).
bool isDenseF32(Type type, int64_t rank = -1) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getLayout().isIdentity() &&
         memref.getElementType().isF32() &&
         (rank < 0 || memref.getRank() == rank);
}

/// A generic with no inputs and identity-mapped output that yields `value`
/// defined outside it; sets `buffer`.
Value genericFillValue(linalg::GenericOp op, Value &buffer) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 0 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return {};
  Block &body = *op.getBlock();
  if (body.getOperations().size() != 1)
    return {};
  Value v = body.getTerminator()->getOperand(0);
  if (v.getParentRegion() == &op.getRegion())
    return {};
  buffer = op.getDpsInitOperand(0)->get();
  return v;
}

/// Whether `op` writes +0.0 to every element of one buffer (set).
bool isZeroFill(Operation *op, Value &buffer) {
  Value v = filledValue(op, buffer);
  if (!v)
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      v = genericFillValue(generic, buffer);
  return v && matchPattern(v, m_PosZeroFloat());
}

/// Whether `op` writes the broadcast of a vector along dimension
/// `channelDim` of its 4-D output (the conv's bias initialisation); sets
/// `buffer` and `bias`.
bool isBiasBroadcast(Operation *op, int64_t channelDim, Value &buffer,
                     Value &bias) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 || generic.getNumLoops() != 4)
    return false;
  OpOperand *in = generic.getDpsInputOperand(0),
            *out = generic.getDpsInitOperand(0);
  AffineMap inMap = generic.getMatchingIndexingMap(in);
  if (!generic.getMatchingIndexingMap(out).isIdentity() ||
      inMap.getNumResults() != 1 ||
      inMap.getResult(0) != getAffineDimExpr(channelDim, op->getContext()))
    return false;
  Block &body = *generic.getBlock();
  if (body.getOperations().size() != 1 ||
      body.getTerminator()->getOperand(0) !=
          generic.getMatchingBlockArgument(in))
    return false;
  buffer = out->get();
  bias = in->get();
  return true;
}

/// A convolution kernel: its operands (kernel argument indices) and
/// attributes.
struct ConvKernel {
  unsigned x, w, y;
  std::optional<unsigned> bias;
  int64_t groups = 1;
  int64_t strides[2] = {1, 1}, pads[2] = {0, 0}, dilations[2] = {1, 1};
  FusedEpilogue fused = FusedEpilogue::None;
  /// NHWC buffers and a KRSC filter.
  bool channelsLast = false;
  /// The 4-D shape the convolution reads its input argument as (the
  /// argument may hold it in another shape: a channel shuffle's 5-D view).
  SmallVector<int64_t, 4> xShape;
};

/// Matches kernel function `kernel`: one 2-D NCHW convolution
/// (`linalg.conv_2d_nchw_fchw`, `linalg.depthwise_conv_2d_nchw_chw` or
/// `linalg.conv_2d_ngchw_gfchw` over reshapes) or NHWC one
/// (`linalg.conv_2d_nhwc_fhwc`), or the `tandem.conv_groups` generic of a
/// grouped one in either layout, of a kernel argument or of a zero-padded copy
/// of one, into an output argument that the kernel first fills with zero or
/// with a bias argument broadcast along the channels.
std::optional<ConvKernel> matchConvKernel(func::FuncOp kernel) {
  if (!kernel || kernel.isExternal())
    return std::nullopt;
  Block &entry = kernel.getBody().front();
  linalg::LinalgOp conv;
  int64_t groups = 1;
  bool last = false;
  for (Operation &op : entry) {
    if (auto c = dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
      if (conv)
        return std::nullopt;
      conv = c;
    } else if (auto c = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(op)) {
      if (conv)
        return std::nullopt;
      conv = c;
      groups = -1; // the channels
    } else if (auto c = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op)) {
      if (conv)
        return std::nullopt;
      conv = c;
      groups = cast<MemRefType>(c.getDpsInits()[0].getType()).getDimSize(1);
    } else if (auto c = dyn_cast<linalg::Conv2DNhwcFhwcOp>(op)) {
      if (conv)
        return std::nullopt;
      conv = c;
      last = true;
    } else if (auto c = dyn_cast<linalg::GenericOp>(op);
               c && c->hasAttr(TandemDialect::getConvGroupsAttrName())) {
      // A grouped convolution (Conv2DToLinalg's generic): NHWC when the
      // filter's first dimension follows the output's last loop.
      auto g =
          c->getAttrOfType<IntegerAttr>(TandemDialect::getConvGroupsAttrName());
      if (conv || !g || g.getInt() < 1 || c.getNumDpsInputs() != 2)
        return std::nullopt;
      AffineMap filterMap = c.getMatchingIndexingMap(c.getDpsInputOperand(1));
      AffineMap outMap = c.getMatchingIndexingMap(c.getDpsInitOperand(0));
      if (filterMap.getNumResults() != 4 || outMap.getNumResults() != 4)
        return std::nullopt;
      conv = c;
      last = filterMap.getResult(0) == outMap.getResult(3);
      groups = g.getInt();
    }
  }
  // The channel and first spatial dimensions of x and y (the filter's
  // input channels are at cd too: OIHW or OHWI).
  int64_t cd = last ? 3 : 1, sd = last ? 1 : 2;
  if (!conv || !conv.hasPureBufferSemantics())
    return std::nullopt;
  auto attrOf = [&](StringRef name, int64_t *out) {
    auto attr = conv->getAttrOfType<DenseIntElementsAttr>(name);
    if (!attr || attr.getNumElements() != 2)
      return false;
    auto values = attr.getValues<int64_t>();
    out[0] = values[0];
    out[1] = values[1];
    return true;
  };
  ConvKernel k;
  k.channelsLast = last;
  if (!attrOf("strides", k.strides) || !attrOf("dilations", k.dilations))
    return std::nullopt;
  k.fused = fusedEpilogueOf(conv);
  // cuDNN has no HardSwish activation, and its swish is not the CPU
  // kernels' SiLU bit for bit: the generated kernel applies them
  // (tandem-fuse-elementwise folds them on CPU partitions only).
  if (k.fused == FusedEpilogue::HardSwish || k.fused == FusedEpilogue::Silu)
    return std::nullopt;

  // The output: a kernel argument, n x k x p x q (n x p x q x k).
  BlockArgument out = rootArgument(conv.getDpsInits()[0]);
  if (!out || !isDenseF32(out.getType(), 4))
    return std::nullopt;
  k.y = out.getArgNumber();
  ArrayRef<int64_t> ys = cast<MemRefType>(out.getType()).getShape();
  // The filter: a kernel argument, k x c/groups x r x s (k x r x s x
  // c/groups).
  BlockArgument filter = rootArgument(conv.getDpsInputs()[1]);
  if (!filter || !isDenseF32(filter.getType(), 4))
    return std::nullopt;
  k.w = filter.getArgNumber();
  ArrayRef<int64_t> ws = cast<MemRefType>(filter.getType()).getShape();

  // The input: a kernel argument, or a buffer the kernel allocates, fills
  // with zero and copies an argument into at offsets [0, 0, top, left].
  Value input = throughReshapes(conv.getDpsInputs()[0]);
  Value padded, copyTarget;
  Operation *padFill = nullptr, *copy = nullptr, *alloc = nullptr;
  if (auto arg = dyn_cast<BlockArgument>(input)) {
    k.x = arg.getArgNumber();
  } else {
    alloc = input.getDefiningOp<memref::AllocOp>();
    if (!alloc || !isDenseF32(input.getType(), 4))
      return std::nullopt;
    padded = input;
  }
  // Every op of the kernel must be accounted for.
  Operation *init = nullptr;
  Value biasValue;
  for (Operation &op : entry) {
    if (&op == conv.getOperation() || &op == alloc ||
        isa<arith::ConstantOp, func::ReturnOp, memref::CollapseShapeOp,
            memref::ExpandShapeOp>(op))
      continue;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (!padded || dealloc.getMemref() != padded)
        return std::nullopt;
      continue;
    }
    if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
      if (!padded || subview.getSource() != padded || copyTarget)
        return std::nullopt;
      copyTarget = subview.getResult();
      continue;
    }
    if (auto c = dyn_cast<memref::CopyOp>(op)) {
      if (!copyTarget || c.getTarget() != copyTarget || copy)
        return std::nullopt;
      copy = c;
      continue;
    }
    Value buffer, bias;
    if (padded && !padFill && isZeroFill(&op, buffer) && buffer == padded) {
      padFill = &op;
      continue;
    }
    if (!init && isZeroFill(&op, buffer) && rootArgument(buffer) == out) {
      init = &op;
      continue;
    }
    if (!init && isBiasBroadcast(&op, cd, buffer, bias) && buffer == out &&
        rootArgument(bias) && isDenseF32(bias.getType(), 1) &&
        bias == rootArgument(bias)) {
      init = &op;
      biasValue = bias;
      continue;
    }
    return std::nullopt;
  }
  if (!init || !init->isBeforeInBlock(conv.getOperation()))
    return std::nullopt;
  if (biasValue) {
    k.bias = cast<BlockArgument>(biasValue).getArgNumber();
    if (cast<MemRefType>(biasValue.getType()).getNumElements() != ys[cd])
      return std::nullopt;
  }
  ArrayRef<int64_t> xs;
  if (padded) {
    // Fill, then copy, then the convolution reads it.
    auto subview = copyTarget ? copyTarget.getDefiningOp<memref::SubViewOp>()
                              : memref::SubViewOp();
    if (!padFill || !copy || !subview || !padFill->isBeforeInBlock(copy) ||
        !copy->isBeforeInBlock(conv.getOperation()))
      return std::nullopt;
    Value copied = cast<memref::CopyOp>(copy).getSource();
    BlockArgument source = rootArgument(copied);
    if (!source || !isDenseF32(copied.getType(), 4) ||
        !isDenseF32(source.getType()))
      return std::nullopt;
    k.x = source.getArgNumber();
    xs = cast<MemRefType>(copied.getType()).getShape();
    ArrayRef<int64_t> offsets = subview.getStaticOffsets(),
                      sizes = subview.getStaticSizes(),
                      steps = subview.getStaticStrides();
    if (ShapedType::isDynamicShape(offsets) || offsets.size() != 4 ||
        sizes != xs || llvm::any_of(steps, [](int64_t s) { return s != 1; }) ||
        offsets[0] != 0 || offsets[cd] != 0)
      return std::nullopt;
    k.pads[0] = offsets[sd];
    k.pads[1] = offsets[sd + 1];
  } else {
    // The 4-D argument (a grouped conv reads it through 5-D views), or a
    // reshape of another argument that the conv reads as 4-D.
    Value read =
        isDenseF32(input.getType(), 4) ? input : conv.getDpsInputs()[0];
    xs = cast<MemRefType>(read.getType()).getShape();
    if (!isDenseF32(read.getType(), 4) || !isDenseF32(input.getType()))
      return std::nullopt;
  }
  k.xShape.assign(xs.begin(), xs.end());
  k.groups = groups < 0 ? xs[cd] : groups;
  // Shapes: what tandem_exec.conv will check (symmetric padding included).
  if (ys[0] != xs[0] || ws[0] != ys[cd] || k.groups < 1 || xs[cd] % k.groups ||
      ws[cd] * k.groups != xs[cd])
    return std::nullopt;
  for (int d = 0; d < 2; ++d) {
    int64_t extent =
        xs[sd + d] + 2 * k.pads[d] - k.dilations[d] * (ws[sd + d] - 1) - 1;
    if (extent < 0 || extent / k.strides[d] + 1 != ys[sd + d])
      return std::nullopt;
  }
  return k;
}

/// An elementwise launch after a convolution: `out = act(in [+ z])`.
struct Epilogue {
  unsigned in, out;
  std::optional<unsigned> z;
  /// The conv's `activation`.
  StringRef act = "none";
};

/// Whether `value` is the f32 constant 1.0.
bool isOne(Value value) {
  FloatAttr one;
  return matchPattern(value, m_Constant(&one)) && one.getValueAsDouble() == 1.0;
}

/// Whether `y` is the logistic sigmoid of `x` as tandem.sigmoid lowers it:
/// `1 / (exp(-x) + 1)` (the sum in either order; 4 ops).
bool isSigmoidOf(Value y, Value x) {
  auto div = y.getDefiningOp<arith::DivFOp>();
  if (!div || !isOne(div.getLhs()))
    return false;
  auto add = div.getRhs().getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value e = isOne(add.getRhs())
                ? add.getLhs()
                : (isOne(add.getLhs()) ? add.getRhs() : Value());
  auto exp = e ? e.getDefiningOp<math::ExpOp>() : math::ExpOp();
  auto neg =
      exp ? exp.getOperand().getDefiningOp<arith::NegFOp>() : arith::NegFOp();
  return neg && neg.getOperand() == x;
}

/// Matches an epilogue kernel over buffers of `type`: `in` (the product),
/// optionally plus `z` (same shape), then optionally max(x, 0), then
/// min(x, 6), or a sigmoid, or x * sigmoid(x) (swish), into `out`; at
/// least one of them.
std::optional<Epilogue> matchEpilogue(func::FuncOp kernel, MemRefType type) {
  if (!kernel || kernel.isExternal())
    return std::nullopt;
  linalg::GenericOp op;
  for (Operation &o : kernel.getBody().front()) {
    if (isa<arith::ConstantOp, func::ReturnOp>(o))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(o);
    if (!generic || op)
      return std::nullopt;
    op = generic;
  }
  if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumDpsInputs() < 1 || op.getNumDpsInputs() > 2 ||
      op.getNumReductionLoops() != 0)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (!isa<BlockArgument>(operand.get()) || operand.get().getType() != type ||
        !op.getMatchingIndexingMap(&operand).isIdentity())
      return std::nullopt;
  Block &body = *op.getBlock();
  auto it = body.without_terminator().begin(),
       end = body.without_terminator().end();
  Value yielded = body.getTerminator()->getOperand(0);
  Epilogue e;
  e.out = cast<BlockArgument>(op.getDpsInitOperand(0)->get()).getArgNumber();
  Value x;
  if (op.getNumDpsInputs() == 2) {
    auto add = it == end ? arith::AddFOp() : dyn_cast<arith::AddFOp>(*it);
    Value a = op.getMatchingBlockArgument(op.getDpsInputOperand(0)),
          b = op.getMatchingBlockArgument(op.getDpsInputOperand(1));
    if (!add || !((add.getLhs() == a && add.getRhs() == b) ||
                  (add.getLhs() == b && add.getRhs() == a)))
      return std::nullopt;
    // Either input may be the product; the caller picks by the launch's
    // values (`in` is input 0 here, `z` input 1, swapped there if needed).
    e.in = cast<BlockArgument>(op.getDpsInputOperand(0)->get()).getArgNumber();
    e.z = cast<BlockArgument>(op.getDpsInputOperand(1)->get()).getArgNumber();
    x = add.getResult();
    ++it;
  } else {
    e.in = cast<BlockArgument>(op.getDpsInputOperand(0)->get()).getArgNumber();
    x = op.getMatchingBlockArgument(op.getDpsInputOperand(0));
  }
  auto other = [&](Operation *binary, Value v) -> Value {
    if (binary->getOperand(0) == v)
      return binary->getOperand(1);
    if (binary->getOperand(1) == v)
      return binary->getOperand(0);
    return {};
  };
  if (auto max = it == end ? nullptr : dyn_cast<arith::MaximumFOp>(*it)) {
    Value c = other(max, x);
    if (!c || !matchPattern(c, m_PosZeroFloat()))
      return std::nullopt;
    x = max.getResult();
    e.act = "relu";
    ++it;
    if (auto min = it == end ? nullptr : dyn_cast<arith::MinimumFOp>(*it)) {
      FloatAttr six;
      Value c = other(min, x);
      if (!c || !matchPattern(c, m_Constant(&six)) ||
          six.getValueAsDouble() != 6.0)
        return std::nullopt;
      x = min.getResult();
      e.act = "relu6";
      ++it;
    }
  } else if (it != end) {
    // Sigmoid or swish: every remaining op must be part of it.
    int64_t remaining = std::distance(it, end);
    auto mul = yielded.getDefiningOp<arith::MulFOp>();
    if (remaining == 4 && isSigmoidOf(yielded, x)) {
      e.act = "sigmoid";
    } else if (remaining == 5 && mul &&
               ((mul.getLhs() == x && isSigmoidOf(mul.getRhs(), x)) ||
                (mul.getRhs() == x && isSigmoidOf(mul.getLhs(), x)))) {
      e.act = "swish";
    } else {
      return std::nullopt;
    }
    x = yielded;
    it = end;
  }
  if (it != end || yielded != x || (!e.z && e.act == "none"))
    return std::nullopt;
  return e;
}

/// The conv `activation` of a ReLU or ReLU6 fused into the convolution.
StringRef activationName(FusedEpilogue act) {
  switch (act) {
  case FusedEpilogue::None:
    return "none";
  case FusedEpilogue::Relu:
    return "relu";
  case FusedEpilogue::Relu6:
    return "relu6";
  case FusedEpilogue::HardSwish: // matchConvKernel declines them
  case FusedEpilogue::Silu:
    break;
  }
  return "none";
}

struct FormLibraryConvsPass
    : tandem::impl::TandemFormLibraryConvsBase<FormLibraryConvsPass> {
  using Base::Base;

  func::FuncOp kernelOf(LaunchOp launch) {
    return symbols->lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getKernelAttr());
  }

  /// Forms a conv from `launch` if it qualifies.
  void form(LaunchOp launch) {
    std::optional<ConvKernel> k = matchConvKernel(kernelOf(launch));
    if (!k)
      return;
    ValueRange args = launch.getArgs();
    Value x = args[k->x], w = args[k->w], y = args[k->y];
    Value bias = k->bias ? args[*k->bias] : Value();
    if (y == x || y == w || (bias && y == bias))
      return;
    // An argument the kernel reads through reshapes: the conv reads the
    // same bytes through one collapse or expand of it, or, where no single
    // one makes the 4-D shape (1x1x200704 read as 1x64x56x56: the unit
    // dimension has no group), through a collapse to 1-D and an expand.
    auto xType = cast<MemRefType>(x.getType());
    std::optional<SmallVector<ReassociationIndices>> reassociation;
    bool throughFlat = false;
    if (xType.getShape() != ArrayRef<int64_t>(k->xShape)) {
      if (xType.getRank() != 4)
        reassociation = getReassociationIndicesForReshape(
            xType, MemRefType::get(k->xShape, xType.getElementType()));
      throughFlat = !reassociation;
      if (throughFlat && (!isDenseF32(xType) || xType.getRank() == 0 ||
                          xType.getNumElements() !=
                              MemRefType::get(k->xShape, xType.getElementType())
                                  .getNumElements()))
        return;
    }
    // The next launch, if it is an epilogue of the product alone.
    LaunchOp epilogueLaunch;
    std::optional<Epilogue> epilogue;
    Operation *next = launch->getNextNode();
    while (next && isa<exec::AllocOp, WeightOp>(next))
      next = next->getNextNode();
    // After a fused activation the next launch sees activated values: a
    // residual there is not cuDNN's (sum, then activation).
    auto nextLaunch = dyn_cast_or_null<LaunchOp>(next);
    if (nextLaunch && !claimed.contains(nextLaunch) &&
        k->fused == FusedEpilogue::None &&
        llvm::all_of(y.getUsers(), [&](Operation *user) {
          return user == launch || user == nextLaunch;
        })) {
      auto yType = cast<MemRefType>(y.getType());
      epilogue = matchEpilogue(
          kernelOf(nextLaunch),
          MemRefType::get(yType.getShape(), yType.getElementType()));
      if (epilogue) {
        ValueRange eargs = nextLaunch.getArgs();
        if (epilogue->z && eargs[*epilogue->z] == y && eargs[epilogue->in] != y)
          std::swap(epilogue->in, *epilogue->z);
        Value in = eargs[epilogue->in], out = eargs[epilogue->out];
        Value z = epilogue->z ? eargs[*epilogue->z] : Value();
        // The library writes the epilogue's output directly: it must not be
        // an input of the conv or the residual itself.
        if (in != y || (z && (z == y || z == out)) || out == x || out == w ||
            (bias && out == bias))
          epilogue.reset();
        else
          epilogueLaunch = nextLaunch;
      }
    }
    Value result = y, z;
    StringRef act = activationName(k->fused);
    if (epilogue) {
      result = epilogueLaunch.getArgs()[epilogue->out];
      if (epilogue->z)
        z = epilogueLaunch.getArgs()[*epilogue->z];
      act = epilogue->act;
    }
    Operation *last =
        epilogueLaunch ? epilogueLaunch.getOperation() : launch.getOperation();
    OpBuilder builder(last);
    auto xShaped = MemRefType::get(k->xShape, xType.getElementType(), nullptr,
                                   xType.getMemorySpace());
    if (throughFlat) {
      ReassociationIndices all(xType.getRank());
      std::iota(all.begin(), all.end(), 0);
      x = memref::CollapseShapeOp::create(builder, launch.getLoc(), x,
                                          ArrayRef<ReassociationIndices>{all});
      x = memref::ExpandShapeOp::create(
          builder, launch.getLoc(), xShaped, x,
          ArrayRef<ReassociationIndices>{ReassociationIndices{0, 1, 2, 3}});
    } else if (reassociation) {
      if (xType.getRank() > 4)
        x = memref::CollapseShapeOp::create(builder, launch.getLoc(), x,
                                            *reassociation);
      else
        x = memref::ExpandShapeOp::create(builder, launch.getLoc(), xShaped, x,
                                          *reassociation);
    }
    auto conv = ConvOp::create(
        builder, launch.getLoc(), launch.getKernelAttr(), x, w, bias, z, result,
        launch.getStream(), builder.getI64IntegerAttr(k->groups),
        builder.getDenseI64ArrayAttr(k->strides),
        builder.getDenseI64ArrayAttr(k->pads),
        builder.getDenseI64ArrayAttr(k->dilations), builder.getStringAttr(act),
        precisionAttr, builder.getI64IntegerAttr(epilogueLaunch ? 2 : 1),
        builder.getStringAttr(k->channelsLast ? "NHWC" : "NCHW"));
    // The fallback: the replaced launches, in order, right after the conv.
    Operation *after = conv;
    for (Operation *replaced :
         {launch.getOperation(), epilogueLaunch.getOperation()}) {
      if (!replaced)
        continue;
      replaced->moveAfter(after);
      after = replaced;
      claimed.insert(replaced);
    }
  }

  void runOnOperation() override {
    FailureOr<StringAttr> attr =
        exec::libraryPrecisionAttr(getOperation(), precision);
    if (failed(attr))
      return signalPassFailure();
    precisionAttr = *attr;
    SymbolTableCollection table;
    symbols = &table;
    // Launches that already are a library call's fallback stay as they are.
    getOperation().walk([&](Operation *op) {
      SmallVector<Operation *> fallback;
      if (auto gemm = dyn_cast<GemmOp>(op))
        fallback = gemm.getFallbackLaunches();
      else if (auto conv = dyn_cast<ConvOp>(op))
        fallback = conv.getFallbackLaunches();
      claimed.insert(fallback.begin(), fallback.end());
    });
    SmallVector<LaunchOp> launches;
    getOperation().walk([&](LaunchOp launch) { launches.push_back(launch); });
    for (LaunchOp launch : launches)
      if (!claimed.contains(launch))
        form(launch);
  }

  SymbolTableCollection *symbols = nullptr;
  /// The `precision` of the calls formed (null: fp32).
  StringAttr precisionAttr;
  /// Launches that are some library call's fallback.
  llvm::DenseSet<Operation *> claimed;
};
} // namespace
