//===- Partition.cpp - the tandem-partition pass --------------------------===//
//
// Outlines each maximal same-device run of a placed function into a
// partition function and rewrites the function into the host schedule:
// batched transfers and calls, in order.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Analysis/NodeName.h"

#include "dialects/Tandem/IR/DeviceName.h"
#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMPARTITION
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

/// Marks partition functions, so that running the pass twice is harmless.
static constexpr llvm::StringLiteral kPartitionAttr =
    TandemDialect::getPartitionAttrName();

namespace {
/// One (device, stage) group of ops.
struct Partition {
  DeviceAttr device;
  unsigned stage;
  std::vector<Operation *> ops;
  /// Values defined outside (not constants) that the ops read.
  llvm::SetVector<Value> inputs;
  /// Values the ops define that are read outside.
  llvm::SetVector<Value> outputs;
  /// Constants the ops read; cloned into the partition.
  llvm::SetVector<Operation *> constants;
  func::FuncOp func;
};
} // namespace

/// Orders devices: by kind (the host first), then by index.
static std::pair<int, unsigned> deviceOrder(DeviceAttr device) {
  return {static_cast<int>(device.getKind()), device.getIndex()};
}

/// "cpu0", "gpu1": the device part of a partition's name.
static std::string deviceSuffix(DeviceAttr device) {
  return deviceKindName(device.getKind()).lower() +
         std::to_string(device.getIndex());
}

/// Groups the ops of `func` into partitions, in a valid execution order.
static FailureOr<std::vector<Partition>> planPartitions(func::FuncOp func,
                                                        DeviceAttr host) {
  llvm::DenseMap<Operation *, unsigned> stageOf;
  std::map<std::tuple<unsigned, int, unsigned>, Partition> byKey;
  llvm::DenseMap<Operation *, Partition *> partitionOf;
  Block &body = func.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (isa<ConstantOp>(op))
      continue;
    if (!isa<TandemDialect>(op.getDialect()) || isa<TransferOp>(op))
      return op.emitOpError()
             << "cannot be partitioned: only tandem compute ops may appear "
                "in a function before partitioning";
    DeviceAttr device = getDevice(&op);
    if (!device)
      return op.emitOpError() << "'" << getDisplayName(&op)
                              << "' has no device: run tandem-place first";
    unsigned stage = 0;
    for (Value operand : op.getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || isa<ConstantOp>(producer))
        continue;
      unsigned producerStage = stageOf.lookup(producer);
      stage = std::max(stage, producerStage + (getDevice(producer) != device));
    }
    stageOf[&op] = stage;
    auto [order, index] = deviceOrder(device);
    Partition &partition = byKey[{stage, order, index}];
    partition.device = device;
    partition.stage = stage;
    partition.ops.push_back(&op);
    partitionOf[&op] = &partition;
  }
  (void)host;

  for (auto &[key, partition] : byKey) {
    for (Operation *op : partition.ops) {
      for (Value operand : op->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && isa<ConstantOp>(producer))
          partition.constants.insert(producer);
        else if (!producer || partitionOf.lookup(producer) != &partition)
          partition.inputs.insert(operand);
      }
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (partitionOf.lookup(user) != &partition)
            partition.outputs.insert(result);
    }
  }
  std::vector<Partition> result;
  for (auto &[key, partition] : byKey)
    result.push_back(std::move(partition));
  return result;
}

/// Creates the partition's function, named after `anchor`, right after
/// `insertAfter`.
static void outline(Partition &partition, func::FuncOp anchor,
                    Operation *insertAfter, unsigned index,
                    SymbolTable &symbols) {
  MLIRContext *context = anchor.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointAfter(insertAfter);
  llvm::SmallVector<Type> inputTypes, outputTypes;
  for (Value v : partition.inputs)
    inputTypes.push_back(v.getType());
  for (Value v : partition.outputs)
    outputTypes.push_back(v.getType());
  std::string name = (anchor.getSymName() + "_p" + llvm::Twine(index) + "_" +
                      deviceSuffix(partition.device))
                         .str();
  auto func =
      func::FuncOp::create(builder, anchor.getLoc(), name,
                           builder.getFunctionType(inputTypes, outputTypes));
  func.setPrivate();
  setDevice(func, partition.device);
  func->setAttr(kPartitionAttr, builder.getUnitAttr());
  symbols.insert(func); // uniquifies the name if needed

  Block *block = func.addEntryBlock();
  builder.setInsertionPointToStart(block);
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(partition.inputs, block->getArguments()))
    mapping.map(value, arg);
  for (Operation *constant : partition.constants) {
    Operation *clone = builder.clone(*constant, mapping);
    setDevice(clone, partition.device);
  }
  for (Operation *op : partition.ops)
    builder.clone(*op, mapping);
  llvm::SmallVector<Value> results;
  for (Value v : partition.outputs)
    results.push_back(mapping.lookup(v));
  func::ReturnOp::create(builder, anchor.getLoc(), results);
  partition.func = func;
}

/// Rewrites `func` into calls of its partitions with batched transfers.
/// Copies are issued eagerly: the function's arguments right at the start,
/// a partition's results right after its call, so that a copy overlaps with
/// whatever runs before its consumer. Everything one point of the schedule
/// sends to one device goes in one batched transfer.
static void buildSchedule(func::FuncOp func, std::vector<Partition> &partitions,
                          DeviceAttr host) {
  Block &body = func.getBody().front();
  Operation *terminator = body.getTerminator();
  OpBuilder builder(terminator);

  // The devices that read each value: consumer partitions, and the host for
  // the function's results.
  llvm::DenseMap<Value, llvm::SetVector<Attribute>> readers;
  for (Partition &partition : partitions)
    for (Value v : partition.inputs)
      readers[v].insert(partition.device);
  for (Value v : terminator->getOperands())
    readers[v].insert(host);

  // Where each original value is available: (value, device) -> value.
  llvm::DenseMap<std::pair<Value, Attribute>, Value> available;
  // Sends `values`, available on `source`, to every other device reading
  // them: one batched transfer per destination. A value one GPU sends to
  // another goes through the host (GPU -> host, then host -> GPU), as the
  // placement cost model assumes (TargetConfig::transferUs): the host
  // schedule copies only between the host and one GPU.
  auto distribute = [&](llvm::ArrayRef<Value> values, DeviceAttr source,
                        Location loc) {
    llvm::MapVector<Attribute, llvm::SmallVector<Value>> byDestination,
        fromHost;
    llvm::SmallVector<Value> &toHost = byDestination[host];
    for (Value v : values)
      for (Attribute device : readers.lookup(v)) {
        if (device == source)
          continue;
        if (source.isGPU() && cast<DeviceAttr>(device).isGPU()) {
          if (!llvm::is_contained(toHost, v))
            toHost.push_back(v);
          fromHost[device].push_back(v);
        } else if (!llvm::is_contained(byDestination[device], v)) {
          byDestination[device].push_back(v);
        }
      }
    auto send = [&](DeviceAttr from, Attribute destination,
                    llvm::ArrayRef<Value> group) {
      if (group.empty())
        return;
      llvm::SmallVector<Value> inputs;
      for (Value v : group)
        inputs.push_back(available.lookup({v, from}));
      auto transfer = TransferOp::create(builder, loc, inputs, from,
                                         cast<DeviceAttr>(destination));
      for (auto [v, copied] : llvm::zip(group, transfer.getResults()))
        available[{v, destination}] = copied;
    };
    for (auto &[destination, group] : byDestination)
      send(source, destination, group);
    for (auto &[destination, group] : fromHost)
      send(host, destination, group);
  };

  llvm::SmallVector<Value> arguments(func.getArguments());
  for (Value arg : arguments)
    available[{arg, host}] = arg;
  // Constants returned directly stay on the host.
  for (Value v : terminator->getOperands())
    if (Operation *producer = v.getDefiningOp();
        producer && isa<ConstantOp>(producer))
      available[{v, host}] = v;
  distribute(arguments, host, func.getLoc());

  for (Partition &partition : partitions) {
    Location loc = partition.ops.front()->getLoc();
    llvm::SmallVector<Value> inputs;
    for (Value v : partition.inputs)
      inputs.push_back(available.lookup({v, partition.device}));
    auto call = func::CallOp::create(builder, loc, partition.func, inputs);
    setDevice(call, partition.device);
    for (auto [v, result] : llvm::zip(partition.outputs, call.getResults()))
      available[{v, partition.device}] = result;
    distribute(partition.outputs.getArrayRef(), partition.device, loc);
  }

  llvm::SmallVector<Value> returned;
  for (Value v : terminator->getOperands())
    returned.push_back(available.lookup({v, host}));
  terminator->setOperands(returned);

  // The original ops are now dead: erase them, users first.
  for (Partition &partition : llvm::reverse(partitions))
    for (Operation *op : llvm::reverse(partition.ops))
      op->erase();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
}

namespace {
struct PartitionPass : tandem::impl::TandemPartitionBase<PartitionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    DeviceAttr host =
        getDeviceAttr(&getContext(), DeviceName{DeviceName::Kind::CPU, 0});
    llvm::SmallVector<func::FuncOp> functions;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kPartitionAttr))
        functions.push_back(func);
    for (func::FuncOp func : functions) {
      FailureOr<std::vector<Partition>> partitions = planPartitions(func, host);
      if (failed(partitions))
        return signalPassFailure();
      Operation *insertAfter = func;
      for (auto [i, partition] : llvm::enumerate(*partitions)) {
        outline(partition, func, insertAfter, i, symbols);
        insertAfter = partition.func;
      }
      buildSchedule(func, *partitions, host);
    }
  }
};
} // namespace
