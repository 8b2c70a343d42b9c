//===- MapKernelsToGPU.cpp - kernel functions -> gpu.func -----------------===//
//
// tandem-map-kernels-to-gpu: clones every kernel function into one
// gpu.module as a gpu.func whose threads each compute one point of the
// kernel's main linalg op (KernelMapping.h), evaluating its prologue
// (KernelPrologue.h) per point. The kernel functions stay.
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/GPUPipeline.h"
#include "codegen/GPU/KernelMapping.h"
#include "codegen/GPU/RowKernels.h"
#include "codegen/Passes.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMMAPKERNELSTOGPU
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// A kernel function's main linalg op, its prologue, and the launch plan.
struct PlannedKernel {
  linalg::LinalgOp op;
  KernelPrologue prologue;
  KernelPlan plan;
  /// Ops of the function the mapped code does not run: the prologue, the
  /// buffers local to it, their views and deallocations.
  llvm::SmallPtrSet<Operation *, 16> unmapped;
  /// A row kernel's stages in order (RowKernels.h; `op` is the last), and
  /// the buffers of which each block keeps one row.
  SmallVector<RowStage, 0> stages;
  SmallVector<memref::AllocOp> rowLocal;
  /// A pointwise op that takes `op`'s output where each thread computes it
  /// (kKernelEpilogueAttrName), or null.
  linalg::LinalgOp epilogue;
  /// A split reduction's combination of `op`'s partial results that the
  /// last block runs (kSplitArrivalsAttrName), its prologue and plan
  /// (planSplitTail); or null.
  linalg::LinalgOp tail;
  KernelPrologue tailPrologue;
  KernelPlan tailPlan;
};

/// Plans a row kernel over rows `rows` (RowChain::rows): its linalg ops in
/// order, each with the prologue it absorbs, as stages; its allocations are
/// row-local, and neither they nor their views are cloned.
FailureOr<PlannedKernel> planRowKernel(func::FuncOp kernel,
                                       ArrayRef<int64_t> rows) {
  FailureOr<SmallVector<RowStage, 0>> planStages =
      planRowKernelStages(kernel, rows);
  if (failed(planStages))
    return failure();
  PlannedKernel planned;
  planned.stages = std::move(*planStages);
  for (const RowStage &stage : planned.stages)
    planned.unmapped.insert(stage.prologue.ops.begin(),
                            stage.prologue.ops.end());
  SmallVector<Value> local;
  for (auto alloc : kernel.getBody().getOps<memref::AllocOp>()) {
    planned.rowLocal.push_back(alloc);
    local.push_back(alloc);
    SmallVector<Operation *> worklist = {alloc};
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val();
      planned.unmapped.insert(def);
      for (Operation *user : def->getUsers())
        if (isa<memref::DeallocOp, ViewLikeOpInterface>(user))
          worklist.push_back(user);
    }
  }
  for (RowStage &stage : planned.stages)
    stage.plan.rowLocalBuffers = local;
  planned.op = planned.stages.back().op;
  planned.plan = planned.stages.back().plan;
  return planned;
}

/// The first linalg op or copy of `kernel` that is none of `members` and
/// in none of `prologues`, or null.
Operation *strayKernelOp(func::FuncOp kernel, ArrayRef<Operation *> members,
                         ArrayRef<const KernelPrologue *> prologues) {
  for (Operation &op : kernel.getBody().getOps())
    if (isa<linalg::LinalgOp, memref::CopyOp>(op) &&
        !llvm::is_contained(members, &op) &&
        llvm::none_of(prologues, [&](const KernelPrologue *prologue) {
          return llvm::is_contained(prologue->ops, &op);
        }))
      return &op;
  return nullptr;
}

/// The main linalg op of a kernel function (its last, or the one before a
/// pointwise epilogue marked kKernelEpilogueAttrName) with its prologue and
/// the epilogue; any other linalg op or copy is an error.
FailureOr<std::tuple<linalg::LinalgOp, KernelPrologue, linalg::LinalgOp>>
kernelOp(func::FuncOp kernel) {
  linalg::LinalgOp main, epilogue;
  for (Operation &op : kernel.getBody().getOps())
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (epilogue)
        return kernel.emitOpError()
               << "has a linalg op after its pointwise epilogue";
      if (op.hasAttr(kKernelEpilogueAttrName))
        epilogue = linalgOp;
      else
        main = linalgOp;
    }
  if (!main)
    return kernel.emitOpError() << "is a kernel without a linalg op";
  if (epilogue && !matchPointwiseEpilogue(main, epilogue))
    return kernel.emitOpError()
           << "has a '" << kKernelEpilogueAttrName
           << "' op that is no pointwise epilogue of its main op";
  KernelPrologue prologue = matchKernelPrologue(main);
  if (Operation *stray = strayKernelOp(
          kernel, {main.getOperation(), epilogue.getOperation()}, {&prologue}))
    return kernel.emitOpError()
           << "is a kernel with more than one linalg op, and '"
           << stray->getName() << "' is not a prologue of its last one";
  return std::make_tuple(main, std::move(prologue), epilogue);
}

/// The partial results' op and the combination of a kernel function with
/// kSplitArrivalsAttrName: its last linalg op is the combination, the last
/// one before it outside the combination's prologue the partial results'
/// op, each with its prologue; any other linalg op or copy is an error.
FailureOr<PlannedKernel> splitKernelOps(func::FuncOp kernel) {
  auto counter = kernel.getNumArguments() == 0
                     ? MemRefType()
                     : dyn_cast<MemRefType>(kernel.getArgumentTypes().back());
  if (!counter || counter.getShape() != ArrayRef<int64_t>{1} ||
      !counter.getElementType().isInteger(32))
    return kernel.emitOpError()
           << "has '" << kSplitArrivalsAttrName
           << "' but its last argument is not a memref<1xi32> counter";
  SmallVector<linalg::LinalgOp> ops(
      kernel.getBody().getOps<linalg::LinalgOp>());
  PlannedKernel planned;
  if (!ops.empty() &&
      ops.back()->hasAttr(TandemDialect::getSplitCombineAttrName()))
    planned.tail = ops.back();
  if (!planned.tail)
    return kernel.emitOpError()
           << "has '" << kSplitArrivalsAttrName
           << "' but its last linalg op is no split reduction's combination";
  planned.tailPrologue = matchKernelPrologue(planned.tail);
  for (linalg::LinalgOp op : llvm::reverse(ArrayRef(ops).drop_back()))
    if (!llvm::is_contained(planned.tailPrologue.ops, op.getOperation())) {
      planned.op = op;
      break;
    }
  if (!matchSplitTail(planned.op, planned.tail))
    return kernel.emitOpError()
           << "has '" << kSplitArrivalsAttrName
           << "' but no block reduction of partial results before the "
              "combination that reads them";
  planned.prologue = matchKernelPrologue(planned.op);
  if (Operation *stray = strayKernelOp(
          kernel, {planned.op.getOperation(), planned.tail.getOperation()},
          {&planned.prologue, &planned.tailPrologue}))
    return kernel.emitOpError()
           << "is a split reduction's kernel with a '" << stray->getName()
           << "' that is neither its partial results, their combination "
              "nor a prologue of one";
  planned.unmapped.insert(planned.tailPrologue.ops.begin(),
                          planned.tailPrologue.ops.end());
  return planned;
}

/// The shared-memory slots of the row-local buffers of `planned`, a row
/// kernel over `rows` rows (rowLocalSlots): each buffer's slot, and each
/// slot's type, one block's row of its largest buffer as a 1-D buffer in
/// `space`.
std::pair<SmallVector<unsigned>, SmallVector<MemRefType>>
rowLocalSlotTypes(const PlannedKernel &planned, int64_t rows,
                  Attribute space = {}) {
  SmallVector<SmallVector<Operation *>> stageOps;
  for (const RowStage &stage : planned.stages) {
    stageOps.emplace_back(stage.prologue.ops.begin(), stage.prologue.ops.end());
    stageOps.back().push_back(stage.op);
  }
  SmallVector<Value> buffers;
  for (memref::AllocOp alloc : planned.rowLocal)
    buffers.push_back(alloc.getResult());
  SmallVector<unsigned> slots = rowLocalSlots(stageOps, buffers);
  SmallVector<MemRefType> types;
  for (auto [buffer, slot] : llvm::zip(buffers, slots)) {
    auto type = cast<MemRefType>(buffer.getType());
    int64_t row = type.getNumElements() / rows;
    if (slot >= types.size())
      types.resize(slot + 1);
    if (!types[slot] || types[slot].getNumElements() < row)
      types[slot] =
          MemRefType::get({row}, type.getElementType(), AffineMap(), space);
  }
  return {slots, types};
}

/// Checks `kernel` and plans its launch.
FailureOr<PlannedKernel> planKernel(func::FuncOp kernel) {
  for (Type type : kernel.getArgumentTypes()) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
      return kernel.emitOpError()
             << "has argument type " << type
             << ": kernel arguments are memrefs of static shape";
  }
  if (auto rows = kernel->getAttrOfType<DenseI64ArrayAttr>(kRowKernelAttrName))
    return planRowKernel(kernel, rows.asArrayRef());
  PlannedKernel planned;
  if (kernel->hasAttr(kSplitArrivalsAttrName)) {
    FailureOr<PlannedKernel> split = splitKernelOps(kernel);
    if (failed(split))
      return failure();
    planned = std::move(*split);
  } else {
    auto found = kernelOp(kernel);
    if (failed(found))
      return failure();
    planned.op = std::get<0>(*found);
    planned.prologue = std::move(std::get<1>(*found));
    planned.epilogue = std::get<2>(*found);
  }
  FailureOr<KernelPlan> plan = planKernelLaunch(planned.op);
  if (failed(plan))
    return failure();
  planned.plan = *plan;
  if (planned.tail) {
    FailureOr<KernelPlan> tailPlan =
        planSplitTail(planned.tail, plan->launch[3]);
    if (failed(tailPlan))
      return failure();
    planned.tailPlan = *tailPlan;
  }
  // matchKernelPrologue only takes an init producer for an op that writes
  // each output once (acceptsInitProducer), as the mapping needs.
  assert((!planned.prologue.initProducer || plan->accumulateInRegisters) &&
         "an init producer for an op that does not accumulate in registers");
  planned.unmapped.insert(planned.prologue.ops.begin(),
                          planned.prologue.ops.end());
  // With an epilogue, the main op's output is local to the kernel and
  // never written: the epilogue takes each value where it is computed.
  if (planned.epilogue) {
    if (!plan->accumulateInRegisters || plan->tiled || plan->blockReduction)
      return planned.op.emitOpError()
             << "has a pointwise epilogue but no thread per output point";
    Value output = planned.op.getDpsInits()[0];
    auto alloc = output.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return planned.op.emitOpError()
             << "has a pointwise epilogue but writes a buffer that is not "
                "local to the kernel";
    planned.unmapped.insert(planned.epilogue);
    planned.unmapped.insert(alloc);
    for (Operation *user : output.getUsers())
      if (isa<memref::DeallocOp>(user))
        planned.unmapped.insert(user);
  }
  for (const KernelPrologue::PaddedInput &padded :
       planned.prologue.paddedInputs) {
    planned.unmapped.insert(padded.buffer.getDefiningOp());
    for (Operation *user : padded.buffer.getUsers())
      if (user != planned.op.getOperation())
        planned.unmapped.insert(user);
  }
  return planned;
}

/// Clones the body of `kernel` at `builder`'s insertion point (arguments
/// mapped by `mapping`), its main linalg op replaced by the mapped code and
/// its prologue left out (the mapped code evaluates it). A row kernel's
/// stages are each mapped, with a barrier between two on the GPU (no
/// `threadIndex`).
void cloneMappedBody(OpBuilder &builder, func::FuncOp kernel,
                     const PlannedKernel &planned, IRMapping &mapping,
                     Value threadIndex = {}) {
  linalg::LinalgOp op = planned.op;
  for (Operation &inner : kernel.getBody().getOps()) {
    const RowStage *stage =
        llvm::find_if(planned.stages, [&](const RowStage &s) {
          linalg::LinalgOp stageOp = s.op;
          return stageOp.getOperation() == &inner;
        });
    if (stage != planned.stages.end()) {
      if (!threadIndex && stage != planned.stages.begin())
        gpu::BarrierOp::create(builder, inner.getLoc());
      emitMappedKernelBody(builder, stage->op, stage->plan, mapping,
                           threadIndex, stage->prologue);
      continue;
    }
    if (&inner == op.getOperation()) {
      emitMappedKernelBody(builder, op, planned.plan, mapping, threadIndex,
                           planned.prologue, planned.epilogue);
      continue;
    }
    if (linalg::LinalgOp tail = planned.tail;
        tail && &inner == tail.getOperation()) {
      emitSplitTail(builder, tail, planned.tailPlan, mapping,
                    mapping.lookup(kernel.getArguments().back()),
                    planned.plan.launch[0], threadIndex, planned.tailPrologue);
      continue;
    }
    if (!isa<func::ReturnOp>(inner) && !planned.unmapped.contains(&inner))
      builder.clone(inner, mapping);
  }
}

/// Adds `@<kernel>_emulated` after `kernel`: the mapped body run for every
/// block and thread of the grid by serial loops on the host.
FailureOr<func::FuncOp> emulateKernel(func::FuncOp kernel) {
  FailureOr<PlannedKernel> planned = planKernel(kernel);
  if (failed(planned))
    return failure();
  const KernelPlan &plan = planned->plan;
  OpBuilder builder(kernel);
  builder.setInsertionPointAfter(kernel);
  Location loc = kernel.getLoc();
  auto emulated = func::FuncOp::create(
      builder, loc, (kernel.getSymName() + "_emulated").str(),
      kernel.getFunctionType());
  Block *entry = emulated.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  IRMapping mapping;
  mapping.map(kernel.getArguments(), entry->getArguments());
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  Value zero = index(0), one = index(1), bx = index(plan.launch[3]);
  // A row kernel's blocks keep one row of each row-local buffer, buffers
  // whose stages do not overlap in one slot.
  auto [slots, slotTypes] = rowLocalSlotTypes(*planned, plan.total);
  SmallVector<Value> slotBuffers;
  for (MemRefType type : slotTypes)
    slotBuffers.push_back(memref::AllocaOp::create(builder, loc, type));
  for (auto [alloc, slot] : llvm::zip(planned->rowLocal, slots))
    mapping.map(alloc.getResult(), slotBuffers[slot]);
  auto blocks =
      scf::ForOp::create(builder, loc, zero, index(plan.launch[0]), one);
  builder.setInsertionPoint(blocks.getBody()->getTerminator());
  if (plan.blockReduction || plan.tiled || !planned->stages.empty()) {
    // The block's threads and their exchanges run inside the body.
    cloneMappedBody(builder, kernel, *planned, mapping,
                    blocks.getInductionVar());
    builder.setInsertionPointToEnd(entry);
    func::ReturnOp::create(builder, loc);
    return emulated;
  }
  auto threads = scf::ForOp::create(builder, loc, zero, bx, one);
  builder.setInsertionPoint(threads.getBody()->getTerminator());
  Value base =
      arith::MulIOp::create(builder, loc, blocks.getInductionVar(), bx);
  Value id =
      arith::AddIOp::create(builder, loc, base, threads.getInductionVar());
  cloneMappedBody(builder, kernel, *planned, mapping, id);
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, loc);
  return emulated;
}

/// Builds the gpu.func of `kernel` at the end of `gpuModule`.
LogicalResult mapKernel(func::FuncOp kernel, gpu::GPUModuleOp gpuModule) {
  FailureOr<PlannedKernel> planned = planKernel(kernel);
  if (failed(planned))
    return failure();
  const KernelPlan &plan = planned->plan;
  OpBuilder builder = OpBuilder::atBlockTerminator(gpuModule.getBody());
  auto gpuFunc = gpu::GPUFuncOp::create(
      builder, kernel.getLoc(), kernel.getSymName(), kernel.getFunctionType());
  gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                   builder.getUnitAttr());
  gpuFunc.setKnownBlockSizeAttr(
      builder.getDenseI32ArrayAttr({static_cast<int32_t>(plan.launch[3]),
                                    static_cast<int32_t>(plan.launch[4]),
                                    static_cast<int32_t>(plan.launch[5])}));
  Block &entry = gpuFunc.getBody().front();
  builder.setInsertionPointToStart(&entry);
  IRMapping mapping;
  mapping.map(kernel.getArguments(), entry.getArguments());
  // A row kernel's blocks keep one row of each row-local buffer in shared
  // memory, buffers whose stages do not overlap in one slot.
  auto workgroup = gpu::AddressSpaceAttr::get(builder.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto [slots, slotTypes] = rowLocalSlotTypes(*planned, plan.total, workgroup);
  SmallVector<Value> slotBuffers;
  for (MemRefType type : slotTypes)
    slotBuffers.push_back(
        gpuFunc.addWorkgroupAttribution(type, kernel.getLoc()));
  for (auto [alloc, slot] : llvm::zip(planned->rowLocal, slots))
    mapping.map(alloc.getResult(), slotBuffers[slot]);
  cloneMappedBody(builder, kernel, *planned, mapping);
  gpu::ReturnOp::create(builder, kernel.getLoc());
  return success();
}

struct MapKernelsToGPUPass
    : tandem::impl::TandemMapKernelsToGPUBase<MapKernelsToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (TandemDialect::isKernelFunction(func) && !func.isExternal())
        kernels.push_back(func);
    if (kernels.empty())
      return;
    if (emulateOnHost) {
      for (func::FuncOp kernel : kernels) {
        FailureOr<func::FuncOp> emulated = emulateKernel(kernel);
        if (failed(emulated))
          return signalPassFailure();
        if (replaceKernels) {
          kernel.getBody().dropAllReferences();
          kernel.getBody().getBlocks().clear();
          kernel.getBody().takeBody(emulated->getBody());
          emulated->erase();
        }
      }
      return;
    }
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), moduleName);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    for (func::FuncOp kernel : kernels)
      if (failed(mapKernel(kernel, gpuModule)))
        return signalPassFailure();
  }
};

} // namespace
