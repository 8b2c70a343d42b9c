//===- BuildHostSchedule.cpp - the tandem-build-host-schedule pass --------===//
//
// Turns a bufferised model's transfers and partition calls into the
// tandem_exec host schedule: per GPU, copies on its h2d/d2h streams and
// launches on its compute stream, the events between them, host waits and
// partition markers.
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"

#include "dialects/Tandem/IR/TandemAttrs.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMBUILDHOSTSCHEDULE
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

/// The attribute carrying a kernel call's grid and block sizes.
static constexpr llvm::StringLiteral kLaunchDimsAttr = "tandem.launch_dims";

/// The device a function (a partition) is placed on, or null.
static DeviceAttr deviceOf(func::FuncOp func) {
  return func ? func->getAttrOfType<DeviceAttr>(
                    TandemDialect::getDeviceAttrName())
              : DeviceAttr();
}

/// The partition `call` calls, when it calls one placed on a GPU (`gpu`) or
/// on the host (`!gpu`).
static func::FuncOp partitionCallee(func::CallOp call, bool gpu) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  DeviceAttr device = deviceOf(callee);
  if (!device || callee.isExternal() || device.isGPU() != gpu)
    return {};
  return callee;
}

/// `type` in the memory space of `device`.
static MemRefType onDevice(MemRefType type, DeviceAttr device) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         MemRefLayoutAttrInterface(), device);
}

namespace {
/// Builds the schedule of one function, in place.
class ScheduleBuilder {
public:
  explicit ScheduleBuilder(func::FuncOp func)
      : func(func), b(func.getContext()),
        eventType(EventType::get(func.getContext())) {}

  LogicalResult run();

private:
  StreamAttr stream(StreamKind kind, unsigned gpu) {
    return StreamAttr::get(b.getContext(), kind, gpu);
  }
  Value record(Location loc, StreamKind kind, unsigned gpu) {
    return RecordOp::create(b, loc, eventType, stream(kind, gpu));
  }
  /// The device buffer standing for the host-typed buffer `value`.
  FailureOr<Value> device(Value value, Operation *user);
  /// Makes compute wait for the copies that wrote `buffers`.
  void waitOnCompute(Location loc, ValueRange buffers);
  /// Host waits before `op` for the copies it depends on; `mayWrite`: `op`
  /// may write host memory an h2d copy still reads.
  void hostWaitBefore(Operation *op, bool mayWrite = true);
  LogicalResult hoistArgumentCopies();
  LogicalResult convertDeviceAllocs();
  LogicalResult scheduleCopies(MutableArrayRef<TransferOp> group);
  LogicalResult inlineGPUPartition(func::CallOp call, func::FuncOp callee);
  LogicalResult inlineCPUPartition(func::CallOp call, func::FuncOp callee);

  func::FuncOp func;
  OpBuilder b;
  Type eventType;
  /// Host-typed buffers of the bufferised function -> device buffers.
  llvm::DenseMap<Value, Value> deviceBuffer;
  /// Device buffers written by an h2d copy compute has not waited for.
  llvm::DenseMap<Value, Value> computePending;
  llvm::DenseSet<Value> computeWaited;
  /// Host buffers written by a d2h copy the host has not waited for.
  llvm::DenseMap<Value, Value> hostPending;
  llvm::SetVector<Value> hostWaited;
  /// d2h events, and h2d events reading host temporaries (host code must
  /// not overwrite those before the copy is done).
  llvm::SetVector<Value> d2hEvents, h2dTemporaryEvents, h2dEvents;
  llvm::SmallPtrSet<Operation *, 8> done;
  llvm::SetVector<Operation *> oldAllocs;
};
} // namespace

FailureOr<Value> ScheduleBuilder::device(Value value, Operation *user) {
  if (Value d = deviceBuffer.lookup(value))
    return d;
  return user->emitOpError()
         << "uses a device buffer that is not a buffer allocated in '@"
         << func.getSymName()
         << "' (a function argument or a view): pass it through a "
            "tandem.transfer";
}

void ScheduleBuilder::waitOnCompute(Location loc, ValueRange buffers) {
  for (Value buffer : buffers) {
    Value event = computePending.lookup(buffer);
    if (!event)
      continue;
    computePending.erase(buffer);
    if (computeWaited.insert(event).second)
      WaitOp::create(b, loc, event,
                     stream(StreamKind::Compute,
                            deviceIndexOf(buffer.getType()).value_or(0)));
  }
}

void ScheduleBuilder::hostWaitBefore(Operation *op, bool mayWrite) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op);
  auto wait = [&](Value event) {
    if (hostWaited.insert(event))
      HostWaitOp::create(b, op->getLoc(), event);
  };
  // Host code that writes memory may reuse a host temporary an h2d copy
  // still reads.
  if (mayWrite && !isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
    for (Value event : h2dTemporaryEvents)
      wait(event);
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (Value event = hostPending.lookup(operand))
        wait(event);
  });
}

/// Copies of the function's arguments go first, so that they overlap
/// everything before their first use.
LogicalResult ScheduleBuilder::hoistArgumentCopies() {
  Block &body = func.getBody().front();
  b.setInsertionPointToStart(&body);
  // Per GPU, its copies, then one event.
  llvm::MapVector<unsigned, llvm::SmallVector<Value>> targets;
  for (auto transfer : llvm::to_vector(body.getOps<TransferOp>())) {
    if (!transfer.getDst().isGPU() || !isa<BlockArgument>(transfer.getSource()))
      continue;
    auto alloc = transfer.getTarget().getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != &body)
      return transfer.emitOpError()
             << "copies into a buffer that is not allocated in '@"
             << func.getSymName() << "'";
    auto type = onDevice(alloc.getType(), transfer.getDst());
    Value target =
        exec::AllocOp::create(b, alloc.getLoc(), type, IntegerAttr());
    deviceBuffer[alloc] = target;
    oldAllocs.insert(alloc);
    unsigned gpu = transfer.getDst().getIndex();
    CopyOp::create(b, transfer.getLoc(), transfer.getSource(), target,
                   stream(StreamKind::H2D, gpu),
                   b.getI64IntegerAttr(memRefBytes(type)));
    targets[gpu].push_back(target);
    transfer.erase();
  }
  for (auto &[gpu, copied] : targets) {
    Value event = record(func.getLoc(), StreamKind::H2D, gpu);
    h2dEvents.insert(event);
    for (Value target : copied)
      computePending[target] = event;
  }
  return success();
}

/// Every other buffer that lives on the GPU becomes a tandem_exec.alloc where
/// bufferisation allocated it.
LogicalResult ScheduleBuilder::convertDeviceAllocs() {
  Block &body = func.getBody().front();
  for (Operation &op : body) {
    llvm::SmallVector<std::pair<Value, DeviceAttr>> buffers;
    if (auto transfer = dyn_cast<TransferOp>(op)) {
      if (transfer.getDst().isGPU())
        buffers.push_back({transfer.getTarget(), transfer.getDst()});
      else
        buffers.push_back({transfer.getSource(), transfer.getSrc()});
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      if (func::FuncOp callee = partitionCallee(call, /*gpu=*/true))
        for (Value operand : call.getOperands())
          buffers.push_back({operand, deviceOf(callee)});
    }
    for (auto [value, gpu] : buffers) {
      if (deviceBuffer.count(value))
        continue;
      auto alloc = value.getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != &body)
        return op.emitOpError()
               << "uses a device buffer that is not allocated in '@"
               << func.getSymName()
               << "' (a function argument or a view): pass it through a "
                  "tandem.transfer";
      b.setInsertionPoint(alloc);
      deviceBuffer[alloc] = exec::AllocOp::create(
          b, alloc.getLoc(), onDevice(alloc.getType(), gpu), IntegerAttr());
      oldAllocs.insert(alloc);
    }
  }
  return success();
}

/// One batch of transfers in one direction: the copies, then one event.
LogicalResult
ScheduleBuilder::scheduleCopies(MutableArrayRef<TransferOp> group) {
  // Every buffer of the batch exists at its last transfer.
  b.setInsertionPoint(group.back());
  Location loc = group.back().getLoc();
  bool h2d = group.front().getDst().isGPU();
  // The batch's GPU: every transfer of a batch has the same one.
  unsigned gpu = h2d ? group.front().getDst().getIndex()
                     : group.front().getSrc().getIndex();
  if (h2d) {
    llvm::SmallVector<Value> targets;
    bool temporary = false;
    for (TransferOp transfer : group) {
      hostWaitBefore(transfer, /*mayWrite=*/false);
      FailureOr<Value> target = device(transfer.getTarget(), transfer);
      if (failed(target))
        return failure();
      CopyOp::create(b, transfer.getLoc(), transfer.getSource(), *target,
                     stream(StreamKind::H2D, gpu),
                     b.getI64IntegerAttr(
                         memRefBytes(cast<MemRefType>(target->getType()))));
      targets.push_back(*target);
      temporary |= !isa<BlockArgument>(transfer.getSource());
    }
    Value event = record(loc, StreamKind::H2D, gpu);
    h2dEvents.insert(event);
    if (temporary)
      h2dTemporaryEvents.insert(event);
    for (Value target : targets)
      computePending[target] = event;
    return success();
  }
  llvm::SmallVector<Value> sources;
  for (TransferOp transfer : group) {
    FailureOr<Value> source = device(transfer.getSource(), transfer);
    if (failed(source))
      return failure();
    sources.push_back(*source);
  }
  // A buffer copied back straight after its upload has not been waited for.
  waitOnCompute(loc, sources);
  Value computed = record(loc, StreamKind::Compute, gpu);
  WaitOp::create(b, loc, computed, stream(StreamKind::D2H, gpu));
  // A download may write host memory an upload still reads, unless compute
  // (which the download waits for) has waited for that upload.
  for (Value event : h2dTemporaryEvents)
    if (!computeWaited.contains(event) && hostWaited.insert(event))
      HostWaitOp::create(b, loc, event);
  for (auto [transfer, source] : llvm::zip(group, sources)) {
    CopyOp::create(
        b, transfer.getLoc(), source, transfer.getTarget(),
        stream(StreamKind::D2H, gpu),
        b.getI64IntegerAttr(memRefBytes(cast<MemRefType>(source.getType()))));
  }
  Value event = record(loc, StreamKind::D2H, gpu);
  d2hEvents.insert(event);
  for (TransferOp transfer : group)
    hostPending[transfer.getTarget()] = event;
  return success();
}

LogicalResult ScheduleBuilder::inlineGPUPartition(func::CallOp call,
                                                  func::FuncOp callee) {
  b.setInsertionPoint(call);
  Location loc = call.getLoc();
  StringAttr name = callee.getSymNameAttr();
  DeviceAttr gpu = deviceOf(callee);
  PartitionBeginOp::create(b, loc, name,
                           stream(StreamKind::Compute, gpu.getIndex()));
  IRMapping map;
  for (auto [arg, operand] :
       llvm::zip(callee.getArguments(), call.getOperands())) {
    FailureOr<Value> buffer = device(operand, call);
    if (failed(buffer))
      return failure();
    map.map(arg, *buffer);
  }
  for (Operation &op : callee.getBody().front()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape())
        return alloc.emitOpError()
               << "allocates a dynamically shaped buffer in GPU partition '@"
               << name.getValue() << "'";
      map.map(alloc.getResult(),
              exec::AllocOp::create(b, alloc.getLoc(),
                                    onDevice(alloc.getType(), gpu),
                                    IntegerAttr()));
    } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      map.map(global.getResult(),
              WeightOp::create(b, global.getLoc(),
                               onDevice(global.getType(), gpu),
                               global.getNameAttr(), IntegerAttr()));
    } else if (auto kernelCall = dyn_cast<func::CallOp>(op)) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          kernelCall, kernelCall.getCalleeAttr());
      auto dims = kernelCall->getAttrOfType<DenseI64ArrayAttr>(kLaunchDimsAttr);
      if (!kernel || !kernel->hasAttr(TandemDialect::getKernelAttrName()) ||
          !dims || dims.size() != 6)
        return kernelCall.emitOpError()
               << "in GPU partition '@" << name.getValue()
               << "' must call a 'tandem.kernel' function and carry "
                  "'tandem.launch_dims' (6 values)";
      llvm::SmallVector<Value> args;
      for (Value operand : kernelCall.getOperands())
        args.push_back(map.lookup(operand));
      waitOnCompute(kernelCall.getLoc(), args);
      ArrayRef<int64_t> d = dims.asArrayRef();
      LaunchOp::create(b, kernelCall.getLoc(), kernelCall.getCalleeAttr(), args,
                       stream(StreamKind::Compute, gpu.getIndex()),
                       b.getDenseI64ArrayAttr(d.take_front(3)),
                       b.getDenseI64ArrayAttr(d.drop_front(3)));
    } else if (isa<memref::DeallocOp>(op)) {
      continue;
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (ret.getNumOperands() != 0)
        return ret.emitOpError()
               << "returns values from GPU partition '@" << name.getValue()
               << "': run buffer-results-to-out-params first";
    } else {
      return op.emitOpError()
             << "cannot be scheduled: GPU partition '@" << name.getValue()
             << "' may only allocate buffers, read weights and call kernels";
    }
  }
  PartitionEndOp::create(b, loc, name,
                         stream(StreamKind::Compute, gpu.getIndex()));
  call.erase();
  return success();
}

LogicalResult ScheduleBuilder::inlineCPUPartition(func::CallOp call,
                                                  func::FuncOp callee) {
  if (!callee.getBody().hasOneBlock())
    return call.emitOpError() << "calls CPU partition '@" << callee.getSymName()
                              << "', which has more than one block";
  hostWaitBefore(call);
  b.setInsertionPoint(call);
  Location loc = call.getLoc();
  StringAttr name = callee.getSymNameAttr();
  PartitionBeginOp::create(b, loc, name, StreamAttr());
  IRMapping map;
  map.map(callee.getArguments(), call.getOperands());
  for (Operation &op : callee.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [result, value] :
           llvm::zip(call.getResults(), ret.getOperands()))
        result.replaceAllUsesWith(map.lookupOrDefault(value));
      continue;
    }
    b.clone(op, map);
  }
  PartitionEndOp::create(b, loc, name, StreamAttr());
  call.erase();
  return success();
}

LogicalResult ScheduleBuilder::run() {
  if (failed(hoistArgumentCopies()) || failed(convertDeviceAllocs()))
    return failure();
  Block &body = func.getBody().front();
  llvm::SmallVector<Operation *> ops =
      llvm::map_to_vector(body, [](Operation &op) { return &op; });
  for (size_t i = 0; i < ops.size(); ++i) {
    Operation *op = ops[i];
    if (done.contains(op) || oldAllocs.contains(op) ||
        isa<exec::AllocOp, CopyOp, RecordOp>(op))
      continue;
    if (auto transfer = dyn_cast<TransferOp>(op)) {
      // A batch: consecutive transfers in one direction to or from one GPU
      // (allocations of their buffers may sit in between).
      bool h2d = transfer.getDst().isGPU();
      DeviceAttr gpu = h2d ? transfer.getDst() : transfer.getSrc();
      llvm::SmallVector<TransferOp> group = {transfer};
      size_t j = i + 1;
      for (; j < ops.size(); ++j) {
        if (isa<memref::AllocOp, exec::AllocOp>(ops[j]))
          continue;
        auto next = dyn_cast<TransferOp>(ops[j]);
        if (!next || done.contains(next) || next.getDst().isGPU() != h2d ||
            (h2d ? next.getDst() : next.getSrc()) != gpu)
          break;
        group.push_back(next);
      }
      if (failed(scheduleCopies(group)))
        return failure();
      for (TransferOp t : group) {
        done.insert(t);
        t.erase();
      }
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (func::FuncOp callee = partitionCallee(call, /*gpu=*/true)) {
        if (failed(inlineGPUPartition(call, callee)))
          return failure();
        continue;
      }
      if (func::FuncOp callee = partitionCallee(call, /*gpu=*/false)) {
        if (failed(inlineCPUPartition(call, callee)))
          return failure();
        continue;
      }
    }
    if (isa<func::ReturnOp>(op)) {
      b.setInsertionPoint(op);
      // Host copies that no launch waited for, and the copies back.
      for (Value event : h2dEvents)
        if (!computeWaited.contains(event) && hostWaited.insert(event))
          HostWaitOp::create(b, op->getLoc(), event);
      for (Value event : d2hEvents)
        if (hostWaited.insert(event))
          HostWaitOp::create(b, op->getLoc(), event);
      continue;
    }
    hostWaitBefore(op);
  }
  for (Operation *alloc : oldAllocs) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    if (!alloc->use_empty())
      return alloc->getUsers().begin()->emitOpError()
             << "uses a buffer that lives on the GPU: only transfers and GPU "
                "partitions may";
    alloc->erase();
  }
  return success();
}

/// Whether `func` has work for the device: transfers or GPU partition calls.
static bool hasDeviceWork(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        if (isa<TransferOp>(op))
          return WalkResult::interrupt();
        if (auto call = dyn_cast<func::CallOp>(op))
          if (partitionCallee(call, /*gpu=*/true))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {
struct BuildHostSchedulePass
    : tandem::impl::TandemBuildHostScheduleBase<BuildHostSchedulePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::SmallVector<func::FuncOp> models;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !deviceOf(func) &&
          !func->hasAttr(TandemDialect::getKernelAttrName()) &&
          hasDeviceWork(func))
        models.push_back(func);
    for (func::FuncOp model : models) {
      if (!model.getBody().hasOneBlock()) {
        model.emitOpError() << "has more than one block: the host schedule "
                               "needs a straight-line model function";
        return signalPassFailure();
      }
      if (failed(ScheduleBuilder(model).run()))
        return signalPassFailure();
    }
    // The partitions now live inline in their schedules.
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (deviceOf(func) && func.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
  }
};
} // namespace

void mlir::tandem::buildHostSchedulePipeline(
    OpPassManager &pm,
    llvm::function_ref<void(OpPassManager &)> deviceSchedulePasses) {
  pm.addPass(createTandemBuildHostSchedule());
  if (deviceSchedulePasses)
    deviceSchedulePasses(pm);
  pm.addPass(createTandemPlanDeviceMemory());
}
