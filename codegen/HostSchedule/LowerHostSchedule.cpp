//===- LowerHostSchedule.cpp - the tandem-lower-host-schedule pass --------===//
//
// Lowers the tandem_exec host schedule to calls of the runtime's
// tandem_sched_* functions, and records what the artifact's device program
// needs as the module attribute `tandem_exec.program`.
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"
#include "runtime/include/tandem/abi.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <iterator>

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMLOWERHOSTSCHEDULE
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

/// The argument attribute of the model function's tandem_exec_ctx_t *
/// (codegen/CPU/CallCPUKernels.cpp adds the same).
static constexpr llvm::StringLiteral kExecCtxAttr = "tandem.exec_ctx";

/// Stream number of a CPU partition's markers.
static constexpr int32_t kNoStream = -1;

namespace {
/// Per-module numbering of kernels and the declarations of the runtime.
class ScheduleLowering {
public:
  explicit ScheduleLowering(ModuleOp module)
      : module(module), b(module.getContext()) {
    MLIRContext *ctx = module.getContext();
    ptr = LLVM::LLVMPointerType::get(ctx);
    i32 = IntegerType::get(ctx, 32);
    i64 = IntegerType::get(ctx, 64);
  }

  LogicalResult lowerFunction(func::FuncOp func);
  void recordProgram();

private:
  LLVM::LLVMFuncOp runtimeFunction(StringRef name, Type result,
                                   ArrayRef<Type> params);
  void call(Location loc, StringRef name, ValueRange args);
  Value constant(Location loc, Type type, int64_t value) {
    return LLVM::ConstantOp::create(b, loc, type,
                                    b.getIntegerAttr(type, value));
  }
  Value stream(Location loc, StreamAttr s) {
    return constant(loc, i32, s.getRuntimeNumber());
  }
  /// The address of GPU `gpu`'s device arena in this run, computed once at
  /// the entry.
  Value deviceBase(unsigned gpu);
  /// The number of `kernel` in the program's table (registered on first use).
  int64_t kernelIndex(StringAttr kernel, int64_t arity) {
    auto [it, inserted] = kernels.insert({kernel, arity});
    return std::distance(kernels.begin(), it);
  }
  /// A constant tandem_gemm_desc_t for `gemm`: a private global of i64s.
  Value gemmDescriptor(Location loc, GemmOp gemm);
  /// A constant tandem_conv_desc_t for `conv`: a private global of i64s.
  Value convDescriptor(Location loc, ConvOp conv);
  /// A private constant global of i64s named `prefix` and a number.
  Value descriptorGlobal(Location loc, StringRef prefix, int64_t &counter,
                         ArrayRef<int64_t> fields);
  /// Moves the fallback launches `launches` of a library call whose result
  /// is `done` into an scf.if that runs them when `done` is 0 (no library).
  void guardFallback(Location loc, Value done, ArrayRef<Operation *> launches);
  /// The address of the host buffer `memref` as a pointer.
  Value hostPointer(Location loc, Value memref);

  ModuleOp module;
  OpBuilder b;
  Type ptr, i32, i64;
  Value ctx;
  /// Kernels in the order of their first launch, with their arity.
  llvm::MapVector<StringAttr, int64_t> kernels;
  int64_t numGemms = 0;
  int64_t numConvs = 0;
  llvm::SmallVector<Attribute> partitions, weights;
  /// The conv descriptors' globals, for the program's convolution table.
  llvm::SmallVector<Attribute> convs;
  int64_t numEvents = 0;
  /// Per GPU, the bytes of its device arena.
  llvm::SmallVector<int64_t> arenaBytes;
  /// Per GPU, its arena's base address; the op after the last of them.
  llvm::DenseMap<unsigned, Value> bases;
  Operation *entryEnd = nullptr;
  std::string model;
};
} // namespace

LLVM::LLVMFuncOp ScheduleLowering::runtimeFunction(StringRef name, Type result,
                                                   ArrayRef<Type> params) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name,
                                  LLVM::LLVMFunctionType::get(result, params));
}

void ScheduleLowering::call(Location loc, StringRef name, ValueRange args) {
  llvm::SmallVector<Type> params = llvm::to_vector(args.getTypes());
  LLVM::LLVMFuncOp callee =
      runtimeFunction(name, LLVM::LLVMVoidType::get(b.getContext()), params);
  LLVM::CallOp::create(b, loc, callee, args);
}

Value ScheduleLowering::deviceBase(unsigned gpu) {
  if (Value base = bases.lookup(gpu))
    return base;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(entryEnd);
  Location loc = entryEnd->getLoc();
  Value base =
      gpu == 0
          ? LLVM::CallOp::create(
                b, loc, runtimeFunction("tandem_sched_device_base", i64, {ptr}),
                ValueRange{ctx})
                .getResult()
          : LLVM::CallOp::create(
                b, loc,
                runtimeFunction("tandem_sched_device_base_of", i64, {ptr, i32}),
                ValueRange{ctx, constant(loc, i32, gpu)})
                .getResult();
  bases[gpu] = base;
  return base;
}

Value ScheduleLowering::hostPointer(Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  int64_t elementBytes =
      memRefBytes(MemRefType::get({1}, type.getElementType()));
  Value bytes = arith::MulIOp::create(
      b, loc, metadata.getOffset(),
      arith::ConstantIndexOp::create(b, loc, elementBytes));
  Value address = arith::AddIOp::create(b, loc, aligned, bytes);
  Value address64 = arith::IndexCastOp::create(b, loc, i64, address);
  return LLVM::IntToPtrOp::create(b, loc, ptr, address64);
}

/// Whether `buffer` is the device copy of a weight (tandem_exec.weight):
/// the same values at the same address on every run, which lets the host
/// path cache its packed form.
static bool isWeight(Value buffer) {
  return static_cast<bool>(buffer.getDefiningOp<WeightOp>());
}

Value ScheduleLowering::gemmDescriptor(Location loc, GemmOp gemm) {
  // The fields of tandem_gemm_desc_t, in order.
  auto v = [](uint64_t value) { return static_cast<int64_t>(value); };
  int64_t fields[] = {v(gemm.getBatch()),
                      v(gemm.getM()),
                      v(gemm.getN()),
                      v(gemm.getK()),
                      gemm.getTransA() ? 1 : 0,
                      gemm.getTransB() ? 1 : 0,
                      v(gemm.getLda()),
                      v(gemm.getLdb()),
                      v(gemm.getLdc()),
                      v(gemm.getStrideA()),
                      v(gemm.getStrideB()),
                      v(gemm.getStrideC()),
                      gemm.getEpilogueCode(),
                      gemm.getPrecisionFlag() /* TANDEM_GEMM_ALLOW_* */ |
                          (isWeight(gemm.getA()) ? TANDEM_GEMM_CONSTANT_A : 0) |
                          (isWeight(gemm.getB()) ? TANDEM_GEMM_CONSTANT_B : 0) |
                          (gemm.has16BitOperands() ? TANDEM_GEMM_16BIT_AB : 0)};
  return descriptorGlobal(loc, "__tandem_gemm_desc_", numGemms, fields);
}

Value ScheduleLowering::convDescriptor(Location loc, ConvOp conv) {
  // The descriptor's sizes are NCHW's; TANDEM_CONV_NHWC names the layout.
  SmallVector<int64_t, 4> xs = conv.getNCHWShape(conv.getX()),
                          ws = conv.getNCHWShape(conv.getW()),
                          ys = conv.getNCHWShape(conv.getY());
  ArrayRef<int64_t> strides = conv.getStrides(), pads = conv.getPads(),
                    dilations = conv.getDilations();
  // A filter that is a weight of the model lets the host path cache it.
  int64_t flags = (conv.getBias() ? TANDEM_CONV_BIAS : 0) |
                  (conv.getZ() ? TANDEM_CONV_RESIDUAL : 0) |
                  conv.getPrecisionFlag() /* TANDEM_CONV_ALLOW_* */ |
                  (isWeight(conv.getW()) ? TANDEM_CONV_CONSTANT_FILTER : 0) |
                  (conv.isChannelsLast() ? TANDEM_CONV_NHWC : 0);
  // The fields of tandem_conv_desc_t, in order.
  int64_t fields[] = {xs[0],
                      xs[1],
                      xs[2],
                      xs[3],
                      ws[0],
                      ws[2],
                      ws[3],
                      static_cast<int64_t>(conv.getGroups()),
                      ys[2],
                      ys[3],
                      strides[0],
                      strides[1],
                      pads[0],
                      pads[1],
                      dilations[0],
                      dilations[1],
                      conv.getActivationCode(),
                      flags};
  Value desc = descriptorGlobal(loc, "__tandem_conv_desc_", numConvs, fields);
  convs.push_back(FlatSymbolRefAttr::get(
      b.getContext(), "__tandem_conv_desc_" + std::to_string(numConvs - 1)));
  return desc;
}

Value ScheduleLowering::descriptorGlobal(Location loc, StringRef prefix,
                                         int64_t &counter,
                                         ArrayRef<int64_t> fields) {
  int64_t n = static_cast<int64_t>(fields.size());
  auto type = LLVM::LLVMArrayType::get(i64, n);
  std::string name = (prefix + llvm::Twine(counter++)).str();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        b, loc, type, /*isConstant=*/true, LLVM::Linkage::Private, name,
        DenseElementsAttr::get(RankedTensorType::get({n}, i64), fields),
        /*alignment=*/8);
  }
  return LLVM::AddressOfOp::create(b, loc, ptr, name);
}

void ScheduleLowering::guardFallback(Location loc, Value done,
                                     ArrayRef<Operation *> launches) {
  // 0: no library here; launch the generated kernels.
  Value fallback = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, done,
                                        constant(loc, i32, 0));
  auto branch = scf::IfOp::create(b, loc, fallback, /*withElseRegion=*/false);
  // The fallback launches move into it (and are lowered there next).
  Operation *yield = branch.thenBlock()->getTerminator();
  for (Operation *launch : launches)
    launch->moveBefore(yield);
}

/// Whether `op` is a memref.collapse_shape or expand_shape of a device
/// buffer (a library conv reading its input in another shape).
static bool isDeviceReshape(Operation *op) {
  return isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(op) &&
         isDeviceMemRef(cast<MemRefType>(op->getResult(0).getType()));
}

LogicalResult ScheduleLowering::lowerFunction(func::FuncOp func) {
  Block &body = func.getBody().front();
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : body)
    if (isa<TandemExecDialect>(op.getDialect()) || isDeviceReshape(&op))
      ops.push_back(&op);
  if (ops.empty())
    return success();
  if (!model.empty())
    return func.emitOpError() << "is a second host schedule in the module "
                                 "(after '@"
                              << model << "'): one model per module";
  model = func.getSymName().str();
  if (Attribute sizes =
          func->getAttr(TandemExecDialect::getDeviceArenaBytesAttrName())) {
    auto array = dyn_cast<DenseI64ArrayAttr>(sizes);
    if (!array || array.empty())
      return func.emitOpError()
             << "has a malformed '"
             << TandemExecDialect::getDeviceArenaBytesAttrName()
             << "' (an array of each GPU's arena bytes): " << sizes;
    arenaBytes.assign(array.asArrayRef().begin(), array.asArrayRef().end());
  }

  // The run's exec context: the trailing argument.
  MLIRContext *context = func.getContext();
  unsigned nargs = func.getNumArguments();
  if (nargs == 0 || !func.getArgAttr(nargs - 1, kExecCtxAttr)) {
    if (failed(func.insertArgument(nargs, ptr,
                                   b.getDictionaryAttr(b.getNamedAttr(
                                       kExecCtxAttr, UnitAttr::get(context))),
                                   func.getLoc())))
      return func.emitOpError("cannot add the execution context argument");
    nargs = func.getNumArguments();
  }
  ctx = func.getArgument(nargs - 1);

  // The entry: the arena bases (deviceBase) and the launches' argument
  // arrays go before this marker, which is erased at the end.
  b.setInsertionPointToStart(&body);
  Location loc = func.getLoc();
  entryEnd = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));

  llvm::DenseMap<Value, Value> address;
  llvm::DenseMap<Value, int64_t> eventId;
  llvm::StringMap<int64_t> partitionId;
  llvm::StringSet<> weightSeen;
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    loc = op->getLoc();
    auto deviceAddress = [&](Value buffer,
                             std::optional<uint64_t> offset) -> LogicalResult {
      if (!offset)
        return op->emitOpError()
               << "has no offset: run tandem-plan-device-memory first";
      unsigned gpu = deviceIndexOf(buffer.getType()).value_or(0);
      if (gpu >= arenaBytes.size())
        return op->emitOpError()
               << "is a buffer of GPU " << gpu << ", but '"
               << TandemExecDialect::getDeviceArenaBytesAttrName() << "' sizes "
               << arenaBytes.size()
               << " arena(s): run tandem-plan-device-memory first";
      address[buffer] = LLVM::AddOp::create(
          b, loc, deviceBase(gpu),
          constant(loc, i64, static_cast<int64_t>(*offset)));
      return success();
    };
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](exec::AllocOp alloc) {
              return deviceAddress(alloc.getBuffer(), alloc.getOffset());
            })
            .Case<memref::CollapseShapeOp, memref::ExpandShapeOp>(
                [&](Operation *reshape) -> LogicalResult {
                  // The same bytes (identity layouts): the same address.
                  Value source = address.lookup(reshape->getOperand(0));
                  if (!source)
                    return reshape->emitOpError()
                           << "reshapes a device buffer the schedule does "
                              "not place";
                  address[reshape->getResult(0)] = source;
                  return success();
                })
            .Case([&](WeightOp weight) {
              if (failed(deviceAddress(weight.getBuffer(), weight.getOffset())))
                return failure();
              unsigned gpu = deviceIndexOf(weight.getType()).value_or(0);
              if (weightSeen
                      .insert(
                          (weight.getGlobal() + "@" + llvm::Twine(gpu)).str())
                      .second)
                weights.push_back(b.getDictionaryAttr(
                    {b.getNamedAttr("global", weight.getGlobalAttr()),
                     b.getNamedAttr("device", b.getI64IntegerAttr(gpu)),
                     b.getNamedAttr("offset",
                                    b.getI64IntegerAttr(*weight.getOffset())),
                     b.getNamedAttr("bytes", b.getI64IntegerAttr(memRefBytes(
                                                 weight.getType())))}));
              return success();
            })
            .Case([&](CopyOp copy) {
              Value bytes = constant(loc, i64, copy.getBytes());
              if (copy.getStream().getKind() == StreamKind::H2D)
                call(loc, "tandem_sched_copy_h2d",
                     {ctx, stream(loc, copy.getStream()),
                      address.lookup(copy.getTarget()),
                      hostPointer(loc, copy.getSource()), bytes});
              else
                call(loc, "tandem_sched_copy_d2h",
                     {ctx, stream(loc, copy.getStream()),
                      hostPointer(loc, copy.getTarget()),
                      address.lookup(copy.getSource()), bytes});
              return success();
            })
            .Case([&](RecordOp record) {
              int64_t id = numEvents++;
              eventId[record.getEvent()] = id;
              call(loc, "tandem_sched_record",
                   {ctx, constant(loc, i32, id),
                    stream(loc, record.getStream())});
              return success();
            })
            .Case([&](WaitOp wait) -> LogicalResult {
              auto id = eventId.find(wait.getEvent());
              if (id == eventId.end())
                return wait.emitOpError()
                       << "waits for an event no earlier record defines";
              call(loc, "tandem_sched_wait",
                   {ctx, stream(loc, wait.getStream()),
                    constant(loc, i32, id->second)});
              return success();
            })
            .Case([&](HostWaitOp wait) -> LogicalResult {
              auto id = eventId.find(wait.getEvent());
              if (id == eventId.end())
                return wait.emitOpError()
                       << "waits for an event no earlier record defines";
              call(loc, "tandem_sched_host_wait",
                   {ctx, constant(loc, i32, id->second)});
              return success();
            })
            .Case([&](GemmOp gemm) -> LogicalResult {
              auto kernel =
                  module.lookupSymbol<func::FuncOp>(gemm.getKernelAttr());
              if (!kernel)
                return gemm.emitOpError() << "names '@" << gemm.getKernel()
                                          << "', which is not a function";
              int64_t index =
                  kernelIndex(gemm.getKernelAttr().getAttr(),
                              kernel.getFunctionType().getNumInputs());
              Value bias = gemm.getBias() ? address.lookup(gemm.getBias())
                                          : constant(loc, i64, 0);
              Value done =
                  LLVM::CallOp::create(
                      b, loc,
                      runtimeFunction("tandem_sched_gemm", i32,
                                      {ptr, i32, i32, ptr, i64, i64, i64, i64}),
                      ValueRange{ctx, stream(loc, gemm.getStream()),
                                 constant(loc, i32, index),
                                 gemmDescriptor(loc, gemm),
                                 address.lookup(gemm.getA()),
                                 address.lookup(gemm.getB()),
                                 address.lookup(gemm.getC()), bias})
                      .getResult();
              guardFallback(loc, done, gemm.getFallbackLaunches());
              return success();
            })
            .Case([&](ConvOp conv) -> LogicalResult {
              auto kernel =
                  module.lookupSymbol<func::FuncOp>(conv.getKernelAttr());
              if (!kernel)
                return conv.emitOpError() << "names '@" << conv.getKernel()
                                          << "', which is not a function";
              int64_t index =
                  kernelIndex(conv.getKernelAttr().getAttr(),
                              kernel.getFunctionType().getNumInputs());
              auto optional = [&](Value value) {
                return value ? address.lookup(value) : constant(loc, i64, 0);
              };
              Value done = LLVM::CallOp::create(
                               b, loc,
                               runtimeFunction("tandem_sched_conv", i32,
                                               {ptr, i32, i32, ptr, i64, i64,
                                                i64, i64, i64}),
                               ValueRange{ctx, stream(loc, conv.getStream()),
                                          constant(loc, i32, index),
                                          convDescriptor(loc, conv),
                                          address.lookup(conv.getX()),
                                          address.lookup(conv.getW()),
                                          address.lookup(conv.getY()),
                                          optional(conv.getBias()),
                                          optional(conv.getZ())})
                               .getResult();
              guardFallback(loc, done, conv.getFallbackLaunches());
              return success();
            })
            .Case([&](LaunchOp launch) {
              int64_t kernel =
                  kernelIndex(launch.getKernelAttr().getAttr(),
                              static_cast<int64_t>(launch.getArgs().size()));
              // The device pointers, in a stack array built at the entry.
              Value args;
              size_t n = std::max<size_t>(launch.getArgs().size(), 1);
              {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(entryEnd);
                args = LLVM::AllocaOp::create(
                    b, loc, ptr, LLVM::LLVMArrayType::get(i64, n),
                    constant(loc, i64, 1), /*alignment=*/8);
              }
              for (auto [i, arg] : llvm::enumerate(launch.getArgs())) {
                Value slot = LLVM::GEPOp::create(
                    b, loc, ptr, i64, args,
                    llvm::ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
                LLVM::StoreOp::create(b, loc, address.lookup(arg), slot);
              }
              llvm::SmallVector<Value> operands = {
                  ctx, stream(loc, launch.getStream()),
                  constant(loc, i32, kernel)};
              for (int64_t d : launch.getGrid())
                operands.push_back(constant(loc, i32, d));
              for (int64_t d : launch.getBlock())
                operands.push_back(constant(loc, i32, d));
              operands.push_back(args);
              call(loc, "tandem_sched_launch", operands);
              return success();
            })
            .Case([&](PartitionBeginOp begin) {
              int64_t id = partitions.size();
              partitionId[begin.getName()] = id;
              partitions.push_back(begin.getNameAttr());
              call(loc, "tandem_sched_partition_begin",
                   {ctx, constant(loc, i32, id),
                    constant(loc, i32,
                             begin.getStream()
                                 ? begin.getStream()->getRuntimeNumber()
                                 : kNoStream)});
              return success();
            })
            .Case([&](PartitionEndOp end) {
              call(loc, "tandem_sched_partition_end",
                   {ctx, constant(loc, i32, partitionId.lookup(end.getName())),
                    constant(loc, i32,
                             end.getStream()
                                 ? end.getStream()->getRuntimeNumber()
                                 : kNoStream)});
              return success();
            })
            .Default([&](Operation *other) {
              return other->emitOpError()
                     << "has no lowering to the tandem_sched_* runtime";
            });
    if (failed(result))
      return failure();
  }
  entryEnd->erase();
  entryEnd = nullptr;
  bases.clear();
  for (Operation *op : llvm::reverse(ops)) {
    if (!op->use_empty())
      return op->emitOpError()
             << "is still used by " << op->getUsers().begin()->getName()
             << ": device buffers and events may only be "
                "used by tandem_exec ops";
    op->erase();
  }
  return success();
}

void ScheduleLowering::recordProgram() {
  if (model.empty())
    return;
  llvm::SmallVector<Attribute> kernelList;
  for (auto [name, arity] : kernels)
    kernelList.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("name", name),
         b.getNamedAttr("num_args", b.getI64IntegerAttr(arity))}));
  llvm::SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("model", b.getStringAttr(model)),
      b.getNamedAttr("kernels", b.getArrayAttr(kernelList)),
      b.getNamedAttr("partitions", b.getArrayAttr(partitions)),
      b.getNamedAttr("weights", b.getArrayAttr(weights)),
      b.getNamedAttr("num_events", b.getI64IntegerAttr(numEvents)),
      b.getNamedAttr("device_arena_sizes",
                     b.getDenseI64ArrayAttr(arenaBytes.empty()
                                                ? llvm::ArrayRef<int64_t>{0}
                                                : arenaBytes))};
  // The library convolutions' descriptors, when there are any.
  if (!convs.empty())
    fields.push_back(b.getNamedAttr("convs", b.getArrayAttr(convs)));
  module->setAttr(TandemExecDialect::getProgramAttrName(),
                  b.getDictionaryAttr(fields));
}

namespace {
struct LowerHostSchedulePass
    : tandem::impl::TandemLowerHostScheduleBase<LowerHostSchedulePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ScheduleLowering lowering(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!func.isExternal() && failed(lowering.lowerFunction(func)))
        return signalPassFailure();
    lowering.recordProgram();
  }
};
} // namespace
