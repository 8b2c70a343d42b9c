//===- LinalgPayloads.h - matchers of linalg payload blocks -----*- C++ -*-===//
//
// Payload shapes more than one codegen pass recognises: the CPU kernel calls
// (tandem-call-cpu-kernels) and the GPU library GEMMs
// (tandem-form-library-gemms) both look for f32 multiply-accumulates; they
// and the GPU kernel mapping read and apply the ReLU/ReLU6 that
// tandem-fuse-elementwise folds into a contraction; the CPU pad-fill
// narrowing and the GPU kernel prologues both recognise whole-buffer fills.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_LINALGPAYLOADS_H
#define TANDEM_CODEGEN_LINALGPAYLOADS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tandem {

/// `value` with memref.expand_shape and memref.collapse_shape looked
/// through: the buffer it reshapes (reshapes of an identity-layout buffer
/// keep its elements in place).
inline Value throughReshapes(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def))
      value = collapse.getSrc();
    else if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
      value = expand.getSrc();
    else
      break;
  }
  return value;
}

/// True if `generic`'s body yields its first block argument unchanged (a
/// copy or a broadcast of its first input).
inline bool yieldsFirstArgument(linalg::GenericOp generic) {
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == generic.getBody()->getArgument(0);
}

/// True if `op` is a transpose written as a generic (GPU partitions lower
/// tandem.transpose so, to fuse it): one input read through a permutation
/// that is not the identity, the output written in order, the input's
/// element yielded as it is.
inline bool isPermutationCopy(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      generic.getBody()->getOperations().size() != 1 ||
      !yieldsFirstArgument(generic))
    return false;
  AffineMap read =
      generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
  AffineMap write =
      generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
  return write.isIdentity() && read.isPermutation() && !read.isIdentity();
}

/// True if `block` is `yield(acc + a * b)` on f32 (either operand order).
inline bool isF32MultiplyAccumulate(Block &block) {
  if (block.getNumArguments() != 3 ||
      !llvm::all_of(block.getArgumentTypes(), [](Type t) { return t.isF32(); }))
    return false;
  auto ops = block.without_terminator();
  if (std::distance(ops.begin(), ops.end()) != 2)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(*ops.begin());
  auto add = dyn_cast<arith::AddFOp>(*std::next(ops.begin()));
  auto yield = dyn_cast<linalg::YieldOp>(block.getTerminator());
  if (!mul || !add || !yield || yield->getNumOperands() != 1 ||
      yield->getOperand(0) != add.getResult())
    return false;
  Value a = block.getArgument(0), b = block.getArgument(1),
        acc = block.getArgument(2);
  bool mulOk = (mul.getLhs() == a && mul.getRhs() == b) ||
               (mul.getLhs() == b && mul.getRhs() == a);
  bool addOk = (add.getLhs() == acc && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == acc && add.getLhs() == mul.getResult());
  return mulOk && addOk;
}

/// The ReLU, ReLU6, HardSwish or SiLU tandem-fuse-elementwise folded into a
/// contraction or convolution (`tandem.epilogue = "relu"`, `"relu6"`,
/// `"hardswish"` or `"silu"`; the tandem dialect rejects any other value).
enum class FusedEpilogue { None, Relu, Relu6, HardSwish, Silu };

inline FusedEpilogue fusedEpilogueOf(Operation *op) {
  auto epilogue = op->getAttrOfType<StringAttr>("tandem.epilogue");
  if (!epilogue)
    return FusedEpilogue::None;
  if (epilogue.getValue() == "hardswish")
    return FusedEpilogue::HardSwish;
  if (epilogue.getValue() == "silu")
    return FusedEpilogue::Silu;
  return epilogue.getValue() == "relu6" ? FusedEpilogue::Relu6
                                        : FusedEpilogue::Relu;
}

/// 1 / (1 + exp(-x)) for a float x: ONNX Sigmoid as it lowers to linalg
/// (ElementwiseToLinalg) and the sigmoid in the SiLU epilogue below. The
/// runtime kernels' SiLU (runtime/src/kernels/activation.h) rounds like
/// this sequence with math.exp's polynomial expansion, op for op, so a
/// SiLU gives the same bits in a kernel and in a loop: both loops build it
/// here.
inline Value buildSigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = arith::ConstantOp::create(b, loc, x.getType(),
                                        b.getFloatAttr(x.getType(), 1.0));
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

/// HardSigmoid's alpha in ONNX HardSwish (1/6) as the importer writes it.
inline constexpr double kHardSwishAlpha = 1.0 / 6.0;

/// `value` (a float) under `epilogue`: max(v, 0), min(max(v, 0), 6),
/// v * min(max(v * (1/6) + 0.5, 0), 1), the ops ONNX HardSwish imports as,
/// or v * (1 / (1 + exp(-v))), Mul(v, Sigmoid(v)) as imported (the runtime
/// kernels' epilogues round the same way).
inline Value applyFusedEpilogue(OpBuilder &b, Location loc, Value value,
                                FusedEpilogue epilogue) {
  if (epilogue == FusedEpilogue::None)
    return value;
  auto constant = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, value.getType(),
                                     b.getFloatAttr(value.getType(), v));
  };
  if (epilogue == FusedEpilogue::HardSwish) {
    Value t = arith::MulFOp::create(b, loc, value, constant(kHardSwishAlpha));
    t = arith::AddFOp::create(b, loc, t, constant(0.5));
    t = arith::MaximumFOp::create(b, loc, t, constant(0.0));
    t = arith::MinimumFOp::create(b, loc, t, constant(1.0));
    return arith::MulFOp::create(b, loc, value, t);
  }
  if (epilogue == FusedEpilogue::Silu)
    return arith::MulFOp::create(b, loc, value, buildSigmoid(b, loc, value));
  value = arith::MaximumFOp::create(b, loc, value, constant(0.0));
  if (epilogue == FusedEpilogue::Relu6)
    value = arith::MinimumFOp::create(b, loc, value, constant(6.0));
  return value;
}

/// The value `op` writes to every element of its single output buffer
/// (returned in `buffer`), if it is a whole-buffer fill on buffers:
/// linalg.fill, or a linalg.map with no inputs yielding a value defined
/// outside it. Null otherwise.
inline Value filledValue(Operation *op, Value &buffer) {
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (!fill.hasPureBufferSemantics())
      return {};
    buffer = fill.getOutputs()[0];
    return fill.getInputs()[0];
  }
  auto map = dyn_cast<linalg::MapOp>(op);
  if (!map || !map.hasPureBufferSemantics() || !map.getInputs().empty())
    return {};
  auto yield = cast<linalg::YieldOp>(map.getMapper().front().getTerminator());
  if (yield.getNumOperands() != 1)
    return {};
  Value v = yield.getOperand(0);
  if (v.getParentRegion() == &map.getMapper())
    return {};
  buffer = map.getInit();
  return v;
}

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_LINALGPAYLOADS_H
