//===- FormLibraryGemms.cpp - the tandem-form-library-gemms pass ----------===//
//
// Turns launches of generated contraction kernels into tandem_exec.gemm ops
// (cuBLASLt on CUDA, the CPU sgemm elsewhere), folding the zero fill (a
// launch before them, or the kernel's own prologue) and a bias / ReLU launch
// after them into the GEMM; the replaced launches follow the gemm as its
// fallback.
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"
#include "codegen/LinalgPayloads.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFORMLIBRARYGEMMS
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

namespace {

/// The kernel argument `value` is, possibly through reshapes (which keep a
/// whole identity-layout buffer's elements in place), or null.
BlockArgument rootArgument(Value value) {
  return dyn_cast<BlockArgument>(throughReshapes(value));
}

/// True if `op` is a linalg.fill of +0.0.
bool isZeroFillOp(Operation *op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  return fill && fill.hasPureBufferSemantics() &&
         matchPattern(fill.getInputs()[0], m_PosZeroFloat());
}

/// The main linalg op of kernel function `kernel` (its last), whose memref
/// operands are all arguments of the kernel or reshapes of them, or null.
/// Before it, the kernel may only zero-fill its output (a prologue
/// tandem-outline-kernels fused into it, KernelPrologue.h); `zeroInit`
/// then says so, and without it such a kernel is no match.
linalg::LinalgOp mainLinalgOp(func::FuncOp kernel, bool *zeroInit = nullptr) {
  if (!kernel || kernel.isExternal())
    return nullptr;
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : kernel.getBody().front()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      ops.push_back(linalgOp);
    else if (!isa<arith::ConstantOp, memref::CollapseShapeOp,
                  memref::ExpandShapeOp, func::ReturnOp>(op))
      return nullptr;
  }
  if (ops.empty() || ops.size() > 2)
    return nullptr;
  linalg::LinalgOp found = ops.back();
  if (!found.hasPureBufferSemantics())
    return nullptr;
  if (ops.size() == 2) {
    if (!zeroInit || !isZeroFillOp(ops.front()) ||
        found.getNumDpsInits() != 1 ||
        ops.front().getDpsInits()[0] != found.getDpsInits()[0])
      return nullptr;
    *zeroInit = true;
  }
  for (OpOperand &operand : found->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    BlockArgument arg = rootArgument(operand.get());
    if (!arg || arg.getOwner()->getParentOp() != kernel)
      return nullptr;
  }
  return found;
}

/// The kernel argument index of `value` (an argument or a reshape of one).
unsigned argIndex(Value value) { return rootArgument(value).getArgNumber(); }

/// A contraction kernel as a GEMM: its operands (kernel argument indices)
/// and the descriptor fields.
struct Contraction {
  unsigned a, b, c;
  int64_t batch = 1, m, n, k;
  bool transA = false, transB = false;
  int64_t lda, ldb, ldc, strideA = 0, strideB = 0, strideC = 0;
  /// Whether C's innermost dimension is N (a bias along it is a row).
  bool nInnermost = false;
  /// A ReLU tandem-fuse-elementwise folded into the contraction itself
  /// (`tandem.epilogue = "relu"`): applied to the product.
  bool fusedRelu = false;
  /// The kernel zero-fills C itself before the contraction.
  bool zeroInit = false;
};

/// Element stride of loop dimension `dim` in operand `operand` of `op`
/// (identity-layout static buffer), or 0 when the operand does not walk it.
int64_t loopStride(linalg::LinalgOp op, OpOperand &operand, int64_t dim) {
  auto type = cast<MemRefType>(operand.get().getType());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  int64_t stride = 1;
  for (int64_t j = type.getRank() - 1; j >= 0; --j) {
    if (cast<AffineDimExpr>(map.getResult(j)).getPosition() == dim)
      return stride;
    stride *= type.getDimSize(j);
  }
  return 0;
}

/// Matches the contraction of kernel function `kernel`.
std::optional<Contraction> matchContraction(func::FuncOp kernel) {
  bool zeroInit = false;
  linalg::LinalgOp op = mainLinalgOp(kernel, &zeroInit);
  if (!op || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isF32MultiplyAccumulate(*op.getBlock()))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !type.getElementType().isF32() ||
        !op.getMatchingIndexingMap(&operand).isProjectedPermutation(false))
      return std::nullopt;
  }
  // A fused ReLU becomes the gemm's epilogue; cuBLASLt has no clip,
  // HardSwish or SiLU, so a fused ReLU6, HardSwish or SiLU keeps the
  // generated kernel (which applies it).
  FusedEpilogue fused = fusedEpilogueOf(op);
  if (fused == FusedEpilogue::Relu6 || fused == FusedEpilogue::HardSwish ||
      fused == FusedEpilogue::Silu)
    return std::nullopt;
  bool fusedRelu = fused == FusedEpilogue::Relu;
  OpOperand &opA = op->getOpOperand(0), &opB = op->getOpOperand(1),
            &opC = op->getOpOperand(2);
  auto walks = [&](OpOperand &operand, int64_t dim) {
    return op.getMatchingIndexingMap(&operand).isFunctionOfDim(dim);
  };
  // Classify the loops: K reduces, M only A walks, N only B walks, batch
  // both (or, as a second M or N candidate, one of them: broadcast).
  int64_t kDim = -1, batchDim = -1;
  SmallVector<int64_t> mDims, nDims;
  auto iterators = op.getIteratorTypesArray();
  for (int64_t d = 0, e = iterators.size(); d < e; ++d) {
    bool a = walks(opA, d), b = walks(opB, d), c = walks(opC, d);
    if (iterators[d] == utils::IteratorType::reduction) {
      if (c || !a || !b || kDim >= 0)
        return std::nullopt;
      kDim = d;
    } else if (!c) {
      return std::nullopt;
    } else if (a && b) {
      if (batchDim >= 0)
        return std::nullopt;
      batchDim = d;
    } else if (a) {
      mDims.push_back(d);
    } else if (b) {
      nDims.push_back(d);
    } else {
      return std::nullopt;
    }
  }
  // Of two M (or N) candidates, the one C walks outermost is the batch.
  auto pick = [&](SmallVector<int64_t> &dims) -> int64_t {
    if (dims.size() == 2 && batchDim < 0) {
      int64_t s0 = loopStride(op, opC, dims[0]),
              s1 = loopStride(op, opC, dims[1]);
      batchDim = s0 > s1 ? dims[0] : dims[1];
      return s0 > s1 ? dims[1] : dims[0];
    }
    return dims.size() == 1 ? dims[0] : -1;
  };
  int64_t mDim = pick(mDims), nDim = pick(nDims);
  if (kDim < 0 || mDim < 0 || nDim < 0)
    return std::nullopt;

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Contraction g;
  g.a = argIndex(opA.get());
  g.b = argIndex(opB.get());
  g.c = argIndex(opC.get());
  g.fusedRelu = fusedRelu;
  g.zeroInit = zeroInit;
  g.m = ranges[mDim];
  g.n = ranges[nDim];
  g.k = ranges[kDim];
  if (batchDim >= 0) {
    g.batch = ranges[batchDim];
    g.strideA = loopStride(op, opA, batchDim);
    g.strideB = loopStride(op, opB, batchDim);
    g.strideC = loopStride(op, opC, batchDim);
  }
  if (g.batch == 1)
    g.strideA = g.strideB = g.strideC = 0;
  // Each operand must have unit stride along its rows, either way round.
  auto layout = [](int64_t rowStride, int64_t colStride, int64_t cols,
                   bool &trans, int64_t &ld) {
    if (colStride == 1 && rowStride >= cols) {
      trans = false, ld = rowStride;
      return true;
    }
    if (rowStride == 1 && colStride >= 1) {
      trans = true, ld = colStride;
      return true;
    }
    return false;
  };
  bool transC = false;
  if (!layout(loopStride(op, opA, mDim), loopStride(op, opA, kDim), g.k,
              g.transA, g.lda) ||
      !layout(loopStride(op, opB, kDim), loopStride(op, opB, nDim), g.n,
              g.transB, g.ldb) ||
      !layout(loopStride(op, opC, mDim), loopStride(op, opC, nDim), g.n, transC,
              g.ldc) ||
      transC)
    return std::nullopt;
  // A transposed operand's leading dimension spans its stored rows.
  if ((g.transA && g.lda < g.m) || (g.transB && g.ldb < g.k))
    return std::nullopt;
  AffineMap cMap = op.getMatchingIndexingMap(&opC);
  g.nInnermost = cast<AffineDimExpr>(cMap.getResult(cMap.getNumResults() - 1))
                     .getPosition() == nDim;
  return g;
}

/// True if kernel function `kernel` fills its only argument with +0.0.
bool isZeroFill(func::FuncOp kernel) {
  linalg::LinalgOp op = mainLinalgOp(kernel);
  return op && isZeroFillOp(op) && kernel.getNumArguments() == 1;
}

/// An elementwise epilogue kernel: `out = [max](in + bias, 0)`,
/// `out = max(in, 0)`, `out = gelu(in [+ bias])` (tanh approximation), with
/// kernel argument indices.
struct Epilogue {
  unsigned in, out;
  std::optional<unsigned> bias;
  bool relu = false;
  bool gelu = false;
};

/// Whether `value` is the float constant `expected` (to float precision).
bool isFloatConstant(Value value, double expected) {
  FloatAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  return std::abs(attr.getValueAsDouble() - expected) <=
         1e-6 * std::abs(expected);
}

/// Whether `op` is an OpT whose operands satisfy `match` in some order.
template <typename OpT>
bool commutes(Value value, llvm::function_ref<bool(Value, Value)> match,
              unsigned &ops) {
  auto op = value.getDefiningOp<OpT>();
  if (!op ||
      !(match(op.getLhs(), op.getRhs()) || match(op.getRhs(), op.getLhs())))
    return false;
  ++ops;
  return true;
}

/// Whether `y` is GELU's tanh approximation of `x` as tandem.gelu lowers
/// it (and cuBLASLt's GELU epilogue computes it):
/// `(0.5 x) * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * (x * (x * x)))))`,
/// each product and sum in either order. `ops` counts the ops matched.
bool isGeluTanhOf(Value y, Value x, unsigned &ops) {
  auto is = [&](Value v) { return [=](Value w) { return w == v; }; };
  auto constant = [](double c) {
    return [=](Value w) { return isFloatConstant(w, c); };
  };
  auto cube = [&](Value v) {
    return commutes<arith::MulFOp>(
        v,
        [&](Value a, Value b) {
          return a == x &&
                 commutes<arith::MulFOp>(
                     b, [&](Value p, Value q) { return p == x && q == x; },
                     ops);
        },
        ops);
  };
  auto inner = [&](Value v) { // sqrt(2/pi) * (x + 0.044715 x^3)
    return commutes<arith::MulFOp>(
        v,
        [&](Value a, Value b) {
          return constant(std::sqrt(2.0 / M_PI))(b) &&
                 commutes<arith::AddFOp>(
                     a,
                     [&](Value p, Value q) {
                       return is(x)(p) && commutes<arith::MulFOp>(
                                              q,
                                              [&](Value s, Value t) {
                                                return cube(s) &&
                                                       constant(0.044715)(t);
                                              },
                                              ops);
                     },
                     ops);
        },
        ops);
  };
  auto onePlusTanh = [&](Value v) {
    return commutes<arith::AddFOp>(
        v,
        [&](Value a, Value b) {
          auto tanh = a.getDefiningOp<math::TanhOp>();
          if (!tanh || !constant(1.0)(b) || !inner(tanh.getOperand()))
            return false;
          ++ops;
          return true;
        },
        ops);
  };
  auto halfX = [&](Value v) {
    return commutes<arith::MulFOp>(
        v, [&](Value a, Value b) { return a == x && constant(0.5)(b); }, ops);
  };
  return commutes<arith::MulFOp>(
      y, [&](Value a, Value b) { return halfX(a) && onePlusTanh(b); }, ops);
}

/// Matches an epilogue kernel whose `in` is the product, a buffer of
/// `productType`, or a reshape of it whose trailing dimensions split N (the
/// same elements in the same order, rows of N: a MatMul's output reshaped
/// into attention heads before its bias add), and whose bias is a vector of
/// N along those dimensions (reshaped the same way).
std::optional<Epilogue> matchEpilogue(func::FuncOp kernel,
                                      MemRefType productType) {
  auto op =
      dyn_cast_or_null<linalg::GenericOp>(mainLinalgOp(kernel).getOperation());
  if (!op || op.getNumDpsInits() != 1 || op.getNumDpsInputs() < 1 ||
      op.getNumDpsInputs() > 2 || op.getNumReductionLoops() != 0 ||
      productType.getRank() == 0)
    return std::nullopt;
  int64_t n = productType.getShape().back();
  // The first of the trailing dimensions of `shape` whose sizes multiply to
  // N, if they do.
  auto rowStart = [&](ArrayRef<int64_t> shape) -> std::optional<unsigned> {
    int64_t product = 1;
    for (unsigned d = shape.size(); d-- > 0;) {
      product *= shape[d];
      if (product == n)
        return d;
      if (product > n)
        return std::nullopt;
    }
    return std::nullopt;
  };
  auto isProduct = [&](OpOperand *operand) {
    auto type = cast<MemRefType>(operand->get().getType());
    BlockArgument arg = rootArgument(operand->get());
    return arg && arg.getType() == productType && type.getRank() > 0 &&
           type.getLayout().isIdentity() &&
           type.getNumElements() == productType.getNumElements() &&
           rowStart(type.getShape()) &&
           op.getMatchingIndexingMap(operand).isIdentity();
  };
  OpOperand *in = nullptr, *bias = nullptr;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!in && isProduct(input))
      in = input;
  if (!in)
    return std::nullopt;
  ArrayRef<int64_t> shape = cast<MemRefType>(in->get().getType()).getShape();
  unsigned start = *rowStart(shape);
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (input == in)
      continue;
    // A vector of N f32 (a kernel argument), viewed as the rows' trailing
    // dimensions and read along them.
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = cast<MemRefType>(input->get().getType());
    BlockArgument arg = rootArgument(input->get());
    bool along = map.getNumResults() == shape.size() - start;
    for (unsigned i = 0; along && i < map.getNumResults(); ++i)
      along = map.getResult(i) == getAffineDimExpr(start + i, op.getContext());
    if (!arg || !along || !type.getElementType().isF32() ||
        !type.getLayout().isIdentity() ||
        type.getShape() != shape.drop_front(start) ||
        cast<MemRefType>(arg.getType()).getNumElements() != n)
      return std::nullopt;
    bias = input;
  }
  OpOperand *out = op.getDpsInitOperand(0);
  auto outType = cast<MemRefType>(out->get().getType());
  if (!in ||
      outType.getShape() != cast<MemRefType>(in->get().getType()).getShape() ||
      !outType.getElementType().isF32() || !outType.getLayout().isIdentity() ||
      !op.getMatchingIndexingMap(out).isIdentity() || !rootArgument(out->get()))
    return std::nullopt;
  // The body: [addf(in, bias)] then [maximumf(x, +0.0)], then yield.
  Block &body = *op.getBlock();
  Value x = op.getMatchingBlockArgument(in);
  auto it = body.without_terminator().begin(),
       end = body.without_terminator().end();
  Epilogue e;
  e.in = argIndex(in->get());
  e.out = argIndex(out->get());
  if (bias) {
    e.bias = argIndex(bias->get());
    arith::AddFOp add =
        it == end ? arith::AddFOp() : dyn_cast<arith::AddFOp>(*it);
    Value b = op.getMatchingBlockArgument(bias);
    if (!add || !((add.getLhs() == x && add.getRhs() == b) ||
                  (add.getLhs() == b && add.getRhs() == x)))
      return std::nullopt;
    x = add.getResult();
    ++it;
  }
  Value yielded = body.getTerminator()->getOperand(0);
  if (auto max = it == end ? nullptr : dyn_cast<arith::MaximumFOp>(*it)) {
    Value other = max.getLhs() == x ? max.getRhs() : max.getLhs();
    if ((max.getLhs() != x && max.getRhs() != x) ||
        !matchPattern(other, m_PosZeroFloat()))
      return std::nullopt;
    x = max.getResult();
    e.relu = true;
    ++it;
  } else if (it != end) {
    // GELU: every remaining op must be part of it.
    unsigned ops = 0;
    if (!isGeluTanhOf(yielded, x, ops) ||
        ops != static_cast<unsigned>(std::distance(it, end)))
      return std::nullopt;
    x = yielded;
    e.gelu = true;
    it = end;
  }
  if (it != end || yielded != x || (!e.bias && !e.relu && !e.gelu))
    return std::nullopt;
  return e;
}

struct FormLibraryGemmsPass
    : tandem::impl::TandemFormLibraryGemmsBase<FormLibraryGemmsPass> {
  using Base::Base;

  func::FuncOp kernelOf(LaunchOp launch) {
    return symbols->lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getKernelAttr());
  }

  /// The zero fill of `c` before `matmul` with nothing touching `c` in
  /// between, or null.
  LaunchOp zeroFillBefore(LaunchOp matmul, Value c) {
    for (Operation *op = matmul->getPrevNode(); op; op = op->getPrevNode()) {
      if (isa<exec::AllocOp, WeightOp, WaitOp>(op))
        continue;
      // An earlier gemm (its fallback launches are checked as launches).
      if (auto gemm = dyn_cast<GemmOp>(op)) {
        if (llvm::is_contained(gemm->getOperands(), c))
          return nullptr;
        continue;
      }
      auto launch = dyn_cast<LaunchOp>(op);
      if (!launch)
        return nullptr;
      if (!llvm::is_contained(launch.getArgs(), c))
        continue;
      return launch.getArgs().size() == 1 && !absorbed.contains(launch) &&
                     isZeroFill(kernelOf(launch))
                 ? launch
                 : nullptr;
    }
    return nullptr;
  }

  /// Forms a gemm from `matmul` if it qualifies.
  void form(LaunchOp matmul) {
    std::optional<Contraction> g = matchContraction(kernelOf(matmul));
    if (!g)
      return;
    Value a = matmul.getArgs()[g->a], b = matmul.getArgs()[g->b],
          c = matmul.getArgs()[g->c];
    if (a == c || b == c)
      return;
    // C starts at zero: the kernel fills it, or a launch right before.
    LaunchOp fill = g->zeroInit ? LaunchOp() : zeroFillBefore(matmul, c);
    if (!g->zeroInit && !fill)
      return;
    // The next launch, if it is an epilogue of the product alone.
    LaunchOp epilogueLaunch;
    std::optional<Epilogue> epilogue;
    Operation *next = matmul->getNextNode();
    while (next && isa<exec::AllocOp, WeightOp>(next))
      next = next->getNextNode();
    // After a fused ReLU the next launch reads rectified values: a bias
    // there is not cuBLASLt's (bias, then ReLU), so nothing more folds.
    if (auto launch = dyn_cast_or_null<LaunchOp>(next);
        launch && !absorbed.contains(launch) && !g->fusedRelu) {
      auto cType = cast<MemRefType>(c.getType());
      bool onlyUsers = llvm::all_of(c.getUsers(), [&](Operation *user) {
        return user == fill || user == matmul || user == launch;
      });
      // The product's rows must be dense: the epilogue sees it as a flat
      // sequence of rows of N.
      if (onlyUsers && g->nInnermost && g->ldc == g->n &&
          (g->batch == 1 || g->strideC == g->m * g->n))
        epilogue = matchEpilogue(
            kernelOf(launch),
            MemRefType::get(cType.getShape(), cType.getElementType()));
      if (epilogue) {
        Value in = launch.getArgs()[epilogue->in],
              out = launch.getArgs()[epilogue->out];
        if (in != c || out == c || out == a || out == b ||
            (epilogue->bias && launch.getArgs()[*epilogue->bias] == out))
          epilogue.reset();
        else
          epilogueLaunch = launch;
      }
    }
    Value bias, result = c;
    StringRef kind = g->fusedRelu ? "relu" : "none";
    if (epilogue) {
      result = epilogueLaunch.getArgs()[epilogue->out];
      if (epilogue->bias)
        bias = epilogueLaunch.getArgs()[*epilogue->bias];
      if (epilogue->gelu)
        kind = epilogue->bias ? "bias_gelu" : "gelu";
      else
        kind =
            epilogue->bias ? (epilogue->relu ? "bias_relu" : "bias") : "relu";
    }
    Operation *last =
        epilogueLaunch ? epilogueLaunch.getOperation() : matmul.getOperation();
    OpBuilder builder(last);
    auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
    auto unit = [&](bool set) {
      return set ? builder.getUnitAttr() : UnitAttr();
    };
    auto gemm = GemmOp::create(
        builder, matmul.getLoc(), matmul.getKernelAttr(), a, b, bias, result,
        matmul.getStream(), i64(g->batch), i64(g->m), i64(g->n), i64(g->k),
        unit(g->transA), unit(g->transB), i64(g->lda), i64(g->ldb), i64(g->ldc),
        i64(g->strideA), i64(g->strideB), i64(g->strideC),
        builder.getStringAttr(kind), precisionAttr,
        i64(1 + (fill ? 1 : 0) + (epilogueLaunch ? 1 : 0)));
    // The fallback: the replaced launches, in order, right after the gemm.
    Operation *after = gemm;
    for (Operation *launch : {fill.getOperation(), matmul.getOperation(),
                              epilogueLaunch.getOperation()}) {
      if (!launch)
        continue;
      launch->moveAfter(after);
      after = launch;
      absorbed.insert(launch);
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
    SmallVector<LaunchOp> launches;
    getOperation().walk([&](LaunchOp launch) { launches.push_back(launch); });
    for (LaunchOp launch : launches)
      if (!absorbed.contains(launch))
        form(launch);
  }

  SymbolTableCollection *symbols = nullptr;
  /// The `precision` of the calls formed (null: fp32).
  StringAttr precisionAttr;
  /// Launches that became some gemm's fallback.
  llvm::DenseSet<Operation *> absorbed;
};
} // namespace
