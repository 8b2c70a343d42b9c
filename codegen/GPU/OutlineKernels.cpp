//===- OutlineKernels.cpp - GPU partition ops -> kernel functions ---------===//
//
// tandem-outline-kernels: every linalg op (and memref.copy) of a bufferised
// GPU partition becomes a kernel function (docs/GPU.md): whole buffers as
// arguments, inputs first, then outputs; views and constants recreated
// inside; the op replaced by a call carrying its launch geometry. An op's
// prologue (KernelPrologue.h: the padding of its inputs, the broadcast bias
// it accumulates into) moves into the same kernel, a padded buffer becoming
// local to it, so that Conv + BiasAdd + ReLU is one launch.
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/GPUPipeline.h"
#include "codegen/GPU/KernelMapping.h"
#include "codegen/GPU/KernelPrologue.h"
#include "codegen/Passes.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMOUTLINEKERNELS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// A readable symbol part: letters, digits and '_' only.
std::string sanitize(llvm::StringRef text) {
  std::string out;
  for (char c : text)
    out.push_back(llvm::isAlnum(c) ? c : '_');
  return out;
}

/// "<fusion>_<op>", e.g. "fc1_matmul"; "generic" when no fusion is known.
std::string kernelSuffix(Operation *op) {
  std::string name = sanitize(op->getName().stripDialect());
  if (auto fusion =
          op->getAttrOfType<StringAttr>(TandemDialect::getKernelAttrName())) {
    llvm::StringRef fused = fusion.getValue();
    fused.consume_front("fusion.");
    return sanitize(fused) + "_" + name;
  }
  return name;
}

/// The buffer a memref value views: follows view-like ops (subview,
/// reshapes, casts) up to an allocation, a global or an argument.
FailureOr<Value> rootBuffer(Value value, Operation *user) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def))
      return value;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return user->emitOpError()
             << "in a GPU partition reads a buffer made by '" << def->getName()
             << "', which a kernel cannot take as argument";
    value = view.getViewSource();
  }
  return value;
}

/// Whether `op` (a view or a scalar constant) can be recreated inside a
/// kernel.
bool isRecreatable(Operation *op) {
  return isa<ViewLikeOpInterface>(op) ||
         (op->getNumResults() == 1 && matchPattern(op, m_Constant()) &&
          !isa<ShapedType>(op->getResult(0).getType()));
}

/// Outlines the kernels of one GPU partition.
class PartitionOutliner {
public:
  PartitionOutliner(func::FuncOp partition, SymbolTable &symbols)
      : partition(partition), symbols(symbols) {}

  LogicalResult run() {
    SmallVector<Operation *> kernelOps;
    for (Operation &op : partition.getBody().getOps()) {
      if (isa<linalg::LinalgOp, memref::CopyOp>(op)) {
        kernelOps.push_back(&op);
        continue;
      }
      if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
              func::ReturnOp, func::CallOp>(op) ||
          isRecreatable(&op))
        continue;
      return op.emitOpError()
             << "cannot run in GPU partition '@" << partition.getSymName()
             << "': only linalg ops, copies, views and allocations can";
    }
    // Each linalg op with the prologue it absorbs; absorbed ops get no
    // kernel of their own.
    llvm::DenseMap<Operation *, KernelPrologue> prologues;
    llvm::SmallPtrSet<Operation *, 16> absorbed;
    for (Operation *op : kernelOps) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp)
        continue;
      KernelPrologue prologue = matchKernelPrologue(linalgOp);
      if (prologue.empty() || llvm::any_of(prologue.ops, [&](Operation *p) {
            return absorbed.contains(p);
          }))
        continue;
      absorbed.insert(prologue.ops.begin(), prologue.ops.end());
      prologues[op] = std::move(prologue);
    }
    for (Operation *op : kernelOps) {
      if (absorbed.contains(op))
        continue;
      auto it = prologues.find(op);
      if (failed(outline(op, it == prologues.end() ? KernelPrologue()
                                                   : it->second)))
        return failure();
    }
    // Views and constants that only kernels used are dead now.
    SmallVector<Operation *> ops;
    for (Operation &op : partition.getBody().getOps())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (isOpTriviallyDead(op))
        op->erase();
    return success();
  }

private:
  /// Outlines `op` with its `prologue` (whose ops precede it).
  LogicalResult outline(Operation *op, const KernelPrologue &prologue) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    // Padded buffers become local to the kernel.
    SetVector<Value> local;
    for (const KernelPrologue::PaddedInput &padded : prologue.paddedInputs)
      local.insert(padded.buffer);
    // Inputs first, then outputs: the whole buffers behind the operands.
    SmallVector<Value> inputs, outputs;
    auto addRoot = [&](Value operand, bool written) -> LogicalResult {
      if (!isa<MemRefType>(operand.getType()))
        return success();
      FailureOr<Value> root = rootBuffer(operand, op);
      if (failed(root))
        return failure();
      if (local.contains(*root))
        return success();
      auto type = cast<MemRefType>(root->getType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return op->emitOpError()
               << "in a GPU partition uses buffer of type " << type
               << ": kernel arguments need static shapes and identity "
                  "layouts";
      if (written) {
        llvm::erase(inputs, *root);
        if (!llvm::is_contained(outputs, *root))
          outputs.push_back(*root);
      } else if (!llvm::is_contained(inputs, *root) &&
                 !llvm::is_contained(outputs, *root)) {
        inputs.push_back(*root);
      }
      return success();
    };
    SmallVector<Operation *> group(prologue.ops);
    group.push_back(op);
    // Buffers a payload reads (or writes) directly, such as the table of a
    // gather (`memref.load` inside a linalg.generic), are arguments too.
    for (Operation *member : group) {
      SetVector<Value> above;
      getUsedValuesDefinedAbove(member->getRegions(), above);
      for (Value value : above) {
        if (!isa<MemRefType>(value.getType()))
          continue;
        bool written = false;
        for (Region &region : member->getRegions())
          region.walk([&](memref::StoreOp store) {
            written |= store.getMemRef() == value;
          });
        if (failed(addRoot(value, written)))
          return failure();
      }
    }
    for (Operation *member : group) {
      if (auto copy = dyn_cast<memref::CopyOp>(member)) {
        if (failed(addRoot(copy.getSource(), false)) ||
            failed(addRoot(copy.getTarget(), true)))
          return failure();
      } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(member)) {
        for (OpOperand *input : linalgOp.getDpsInputOperands())
          if (failed(addRoot(input->get(), false)))
            return failure();
        for (OpOperand &init : linalgOp.getDpsInitsMutable())
          if (failed(addRoot(init.get(), true)))
            return failure();
      }
    }
    SmallVector<Value> args(inputs);
    args.append(outputs);

    // The kernel function, right after the partition.
    std::string name = (partition.getSymName() + "_k" + Twine(counter++) + "_" +
                        kernelSuffix(op))
                           .str();
    auto type = builder.getFunctionType(ValueRange(args).getTypes(), {});
    auto kernel = func::FuncOp::create(loc, name, type);
    kernel.setPrivate();
    kernel->setAttr(TandemDialect::getKernelAttrName(), builder.getUnitAttr());
    Operation *after = lastInserted ? lastInserted : partition.getOperation();
    symbols.insert(kernel, std::next(Block::iterator(after)));
    lastInserted = kernel;

    // Its body: the local buffers, the views and constants the ops need,
    // then the prologue and the op.
    Block *entry = kernel.addEntryBlock();
    OpBuilder body = OpBuilder::atBlockBegin(entry);
    IRMapping mapping;
    for (auto [arg, value] : llvm::zip(entry->getArguments(), args))
      mapping.map(value, arg);
    for (Value buffer : local)
      body.clone(*buffer.getDefiningOp(), mapping);
    SetVector<Value> captured;
    for (Operation *member : group) {
      for (Value operand : member->getOperands())
        captured.insert(operand);
      getUsedValuesDefinedAbove(member->getRegions(), captured);
    }
    for (Value value : captured)
      if (failed(recreate(value, body, mapping, op)))
        return failure();
    // The prologue's views were recreated with the values they view.
    for (Operation *member : prologue.ops)
      if (!isa<ViewLikeOpInterface>(member))
        body.clone(*member, mapping);
    Operation *inner;
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      inner =
          linalg::CopyOp::create(body, loc, mapping.lookup(copy.getSource()),
                                 mapping.lookup(copy.getTarget()));
    else
      inner = body.clone(*op, mapping);
    func::ReturnOp::create(body, loc);

    FailureOr<KernelPlan> plan =
        planKernelLaunch(cast<linalg::LinalgOp>(inner));
    if (failed(plan))
      return failure();
    auto call = func::CallOp::create(builder, loc, kernel, args);
    call->setAttr(TandemDialect::getLaunchDimsAttrName(),
                  builder.getDenseI64ArrayAttr(plan->launch));
    op->erase();
    for (Operation *member : llvm::reverse(prologue.ops))
      if (member->use_empty())
        member->erase();
    return success();
  }

  /// Makes `value` available in the kernel: an argument already, or a view
  /// or constant cloned (with what it needs) into it.
  LogicalResult recreate(Value value, OpBuilder &body, IRMapping &mapping,
                         Operation *user) {
    if (mapping.contains(value))
      return success();
    Operation *def = value.getDefiningOp();
    if (!def || !isRecreatable(def))
      return user->emitOpError()
             << "in a GPU partition uses a value that a kernel cannot "
                "recreate";
    for (Value operand : def->getOperands())
      if (failed(recreate(operand, body, mapping, user)))
        return failure();
    body.clone(*def, mapping);
    return success();
  }

  func::FuncOp partition;
  SymbolTable &symbols;
  Operation *lastInserted = nullptr;
  unsigned counter = 0;
};

struct OutlineKernelsPass
    : tandem::impl::TandemOutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> partitions;
    for (auto func : module.getOps<func::FuncOp>())
      if (isGPUPartition(func) && !func.isExternal())
        partitions.push_back(func);
    for (func::FuncOp partition : partitions) {
      if (llvm::any_of(partition.getArgumentTypes(),
                       [](Type type) { return isa<TensorType>(type); })) {
        partition.emitOpError() << "is not bufferised: run "
                                   "tandem-outline-kernels after bufferisation";
        return signalPassFailure();
      }
      if (failed(PartitionOutliner(partition, symbols).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
