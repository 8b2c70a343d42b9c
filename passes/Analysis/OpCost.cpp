//===- OpCost.cpp - work and traffic estimates of tandem ops --------------===//

#include "passes/Analysis/OpCost.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tandem;

int64_t mlir::tandem::tensorElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 1;
  return tensor.getNumElements();
}

int64_t mlir::tandem::tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  return tensor.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

/// Arithmetic per output element of elementwise ops. Transcendentals are
/// polynomial evaluations of a dozen or so operations.
static double elementwiseFlops(Operation *op) {
  return TypeSwitch<Operation *, double>(op)
      .Case<ExpOp, LogOp, TanhOp, ErfOp, PowOp, SinOp, CosOp, TanOp, AsinOp,
            AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp>(
          [](auto) { return 12.0; })
      .Case<ModOp>([](auto) { return 4.0; })
      .Case<SigmoidOp>([](auto) { return 14.0; })
      .Case<GeluOp>([](auto) { return 18.0; })
      .Case<SqrtOp, RsqrtOp, DivOp>([](auto) { return 4.0; })
      .Case<ClipOp, WhereOp>([](auto) { return 2.0; })
      .Default([](Operation *) { return 1.0; });
}

static double resultElements(Operation *op) {
  double n = 0;
  for (Type t : op->getResultTypes())
    n += tensorElements(t);
  return n;
}

/// Flops of the op itself (the bytes are computed uniformly).
static double computeFlops(Operation *op) {
  if (op->hasTrait<tandem::OpTrait::Elementwise>())
    return resultElements(op) * elementwiseFlops(op);
  return TypeSwitch<Operation *, double>(op)
      .Case<Conv2DOp>([](Conv2DOp conv) {
        auto filter = conv.getFilter().getType();
        // Each output element: C/groups * KH * KW multiply-adds.
        double macs =
            filter.getDimSize(1) * filter.getDimSize(2) * filter.getDimSize(3);
        return 2.0 * macs * tensorElements(conv.getType());
      })
      .Case<MatmulOp>([](MatmulOp mm) {
        auto lhs = mm.getLhs().getType();
        double k = lhs.getDimSize(lhs.getRank() - 1);
        return 2.0 * k * tensorElements(mm.getType());
      })
      .Case<GemmOp>([](GemmOp gemm) {
        auto a = gemm.getA().getType();
        double k = a.getDimSize(gemm.getTransA() ? 0 : 1);
        return 2.0 * k * tensorElements(gemm.getType()) +
               2.0 * tensorElements(gemm.getType());
      })
      .Case<MaxPool2DOp, AvgPool2DOp>([](auto pool) {
        double window = 1;
        for (int64_t k : pool.getKernelShape())
          window *= k;
        return window * tensorElements(pool.getType());
      })
      .Case<GlobalAvgPoolOp, ReduceSumOp, ReduceMeanOp, ReduceMaxOp,
            ReduceMinOp, ReduceProdOp>([](auto reduce) {
        return double(tensorElements(reduce.getInput().getType()));
      })
      .Case<ArgMaxOp, ArgMinOp>([](auto arg) {
        // A compare and two selects per element.
        return 3.0 * tensorElements(arg.getInput().getType());
      })
      .Case<CumSumOp>([](CumSumOp cumsum) {
        // The masked reduction: n compares, selects and adds per output
        // element, for a row of n on the axis.
        auto type = cumsum.getInput().getType();
        double n = type.getDimSize(cumsum.getAxis());
        return 3.0 * n * tensorElements(type);
      })
      .Case<TopKOp>([](TopKOp topk) {
        // Ranks: about 8 operations per pair of elements in a row; the pick:
        // 3 per element for each of the k outputs.
        auto type = topk.getInput().getType();
        double n = type.getDimSize(topk.getAxis());
        return (8.0 * n + 3.0 * topk.getK()) * tensorElements(type);
      })
      .Case<SoftmaxOp>([](SoftmaxOp s) {
        // max, subtract, exp, sum, divide.
        return 16.0 * tensorElements(s.getType());
      })
      .Case<LayerNormOp>(
          [](LayerNormOp ln) { return 8.0 * tensorElements(ln.getType()); })
      .Case<BatchNormOp>(
          [](BatchNormOp bn) { return 2.0 * tensorElements(bn.getType()); })
      .Case<FusionOp>([](FusionOp fusion) {
        double flops = 0;
        for (Operation &inner : fusion.getBody().front())
          flops += computeFlops(&inner);
        return flops;
      })
      .Default([](Operation *) { return 0.0; });
}

OpCost mlir::tandem::estimateOpCost(Operation *op) {
  OpCost cost;
  // Metadata-only ops: no kernel, no traffic.
  if (isa<ConstantOp, ReshapeOp, YieldOp>(op))
    return cost;
  cost.flops = computeFlops(op);
  cost.isMatrix = isa<Conv2DOp, MatmulOp, GemmOp>(op);
  if (auto fusion = dyn_cast<FusionOp>(op))
    cost.isMatrix = llvm::any_of(fusion.getBody().front(), [](Operation &o) {
      return isa<Conv2DOp, MatmulOp, GemmOp>(o);
    });
  for (Value operand : op->getOperands())
    cost.bytesRead += tensorBytes(operand.getType());
  for (Type result : op->getResultTypes())
    cost.bytesWritten += tensorBytes(result);
  return cost;
}
