//===- ObjectEmitter.cpp - LLVM IR, assembly and objects ------------------===//

#include "codegen/Artifact/ObjectEmitter.h"

#include "codegen/Artifact/StreamedWeights.h"

#include "passes/Optimize/ConstantData.h"
#include "runtime/include/tandem/abi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstddef>

using namespace mlir;
using namespace mlir::tandem;

/// Weights of at least this many bytes go into an object file without
/// passing through LLVM (StreamedWeights.h); smaller ones stay LLVM
/// constants, which the optimiser may read.
static constexpr uint64_t kStreamedWeightBytes = 64 * 1024;

//===----------------------------------------------------------------------===//
// ABI layouts
//===----------------------------------------------------------------------===//

// The descriptors are built as LLVM struct constants, field by field; abi.h
// is their definition. Each LLVM type is checked against the abi.h struct
// (field count, offsets and size, from offsetof/sizeof as the runtime is
// compiled) on the target's data layout, so the two cannot drift apart and
// a target whose C layout differs from the runtime's is refused.

namespace {
/// The layout of one abi.h struct as this compiler (and the runtime built
/// with it) lays it out.
struct AbiStruct {
  const char *name;
  llvm::SmallVector<uint64_t> offsets;
  uint64_t size;
};
} // namespace

static AbiStruct tensorDescLayout() {
  return {"tandem_tensor_desc_t",
          {offsetof(tandem_tensor_desc_t, name),
           offsetof(tandem_tensor_desc_t, dtype),
           offsetof(tandem_tensor_desc_t, rank),
           offsetof(tandem_tensor_desc_t, shape)},
          sizeof(tandem_tensor_desc_t)};
}

static AbiStruct execCtxLayout() {
  return {"tandem_exec_ctx_t",
          {offsetof(tandem_exec_ctx_t, pool),
           offsetof(tandem_exec_ctx_t, arena),
           offsetof(tandem_exec_ctx_t, arena_bytes),
           offsetof(tandem_exec_ctx_t, reserved)},
          sizeof(tandem_exec_ctx_t)};
}

static AbiStruct programKernelLayout() {
  return {"tandem_program_kernel_t",
          {offsetof(tandem_program_kernel_t, name),
           offsetof(tandem_program_kernel_t, cpu_twin),
           offsetof(tandem_program_kernel_t, num_args)},
          sizeof(tandem_program_kernel_t)};
}

static AbiStruct deviceImageLayout() {
  return {"tandem_device_image_t",
          {offsetof(tandem_device_image_t, arch),
           offsetof(tandem_device_image_t, format),
           offsetof(tandem_device_image_t, data),
           offsetof(tandem_device_image_t, size)},
          sizeof(tandem_device_image_t)};
}

static AbiStruct deviceWeightLayout() {
  return {"tandem_device_weight_t",
          {offsetof(tandem_device_weight_t, device_offset),
           offsetof(tandem_device_weight_t, host_data),
           offsetof(tandem_device_weight_t, bytes)},
          sizeof(tandem_device_weight_t)};
}

static AbiStruct deviceProgramLayout() {
  return {"tandem_device_program_t",
          {offsetof(tandem_device_program_t, num_kernels),
           offsetof(tandem_device_program_t, kernels),
           offsetof(tandem_device_program_t, num_images),
           offsetof(tandem_device_program_t, images),
           offsetof(tandem_device_program_t, num_weights),
           offsetof(tandem_device_program_t, weights),
           offsetof(tandem_device_program_t, device_arena_bytes),
           offsetof(tandem_device_program_t, num_events),
           offsetof(tandem_device_program_t, num_partitions),
           offsetof(tandem_device_program_t, partition_names),
           offsetof(tandem_device_program_t, num_devices),
           offsetof(tandem_device_program_t, device_arena_sizes),
           offsetof(tandem_device_program_t, weight_devices),
           offsetof(tandem_device_program_t, num_convs),
           offsetof(tandem_device_program_t, convs)},
          sizeof(tandem_device_program_t)};
}

/// tandem_model_desc_t; a version-1 (CPU-only) descriptor ends before
/// `device_program`.
static AbiStruct modelDescLayout(bool withDeviceProgram) {
  AbiStruct layout = {"tandem_model_desc_t",
                      {offsetof(tandem_model_desc_t, abi_version),
                       offsetof(tandem_model_desc_t, name),
                       offsetof(tandem_model_desc_t, num_inputs),
                       offsetof(tandem_model_desc_t, num_outputs),
                       offsetof(tandem_model_desc_t, inputs),
                       offsetof(tandem_model_desc_t, outputs),
                       offsetof(tandem_model_desc_t, arena_bytes),
                       offsetof(tandem_model_desc_t, weight_bytes),
                       offsetof(tandem_model_desc_t, entry)},
                      sizeof(tandem_model_desc_t)};
  if (withDeviceProgram)
    layout.offsets.push_back(offsetof(tandem_model_desc_t, device_program));
  else
    layout.size = offsetof(tandem_model_desc_t, device_program);
  return layout;
}

/// Fails with a diagnostic when `type` does not lay out like `abi` on
/// `dataLayout` (a CPU-only descriptor's struct may end with padding the
/// runtime never reads, so its size is checked as at least the abi one).
static LogicalResult checkAbiLayout(const llvm::DataLayout &dataLayout,
                                    llvm::StructType *type,
                                    const AbiStruct &abi, Location loc) {
  const llvm::StructLayout *layout = dataLayout.getStructLayout(type);
  bool same = type->getNumElements() == abi.offsets.size() &&
              layout->getSizeInBytes() >= abi.size;
  for (unsigned i = 0; same && i < abi.offsets.size(); ++i)
    same = layout->getElementOffset(i) == abi.offsets[i];
  if (same)
    return success();
  return emitError(loc) << "the target's data layout places the fields of "
                        << abi.name
                        << " differently from the runtime's abi.h (the "
                           "runtime's C layout is LP64: x86-64 and AArch64 "
                           "targets)";
}

static void initializeTargets() {
  static bool done = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)done;
}

/// Adds `<name>_device_program`, a tandem_device_program_t, to `llvm`.
static FailureOr<llvm::Constant *>
addDeviceProgram(llvm::Module &llvm, const std::string &model,
                 const DeviceProgram &program,
                 llvm::ArrayRef<DeviceImage> images, Location loc) {
  llvm::LLVMContext &ctx = llvm.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto global = [&](llvm::Constant *init, const llvm::Twine &symbol) {
    return new llvm::GlobalVariable(llvm, init->getType(), true,
                                    llvm::GlobalValue::PrivateLinkage, init,
                                    symbol);
  };
  auto string = [&](llvm::StringRef text, const llvm::Twine &symbol) {
    return global(llvm::ConstantDataArray::getString(ctx, text), symbol);
  };
  auto array = [&](llvm::Type *element, llvm::ArrayRef<llvm::Constant *> items,
                   const llvm::Twine &symbol) -> llvm::Constant * {
    if (items.empty())
      return llvm::ConstantPointerNull::get(ptr);
    auto *type = llvm::ArrayType::get(element, items.size());
    return global(llvm::ConstantArray::get(type, items), symbol);
  };
  std::string prefix = model + "_device_";

  const llvm::DataLayout &dataLayout = llvm.getDataLayout();
  auto *kernelType = llvm::StructType::get(ctx, {ptr, ptr, i32});
  if (failed(
          checkAbiLayout(dataLayout, kernelType, programKernelLayout(), loc)))
    return failure();
  llvm::SmallVector<llvm::Constant *> kernels;
  for (auto [i, kernel] : llvm::enumerate(program.kernels)) {
    llvm::Function *twin = llvm.getFunction(kernel.name + "__twin");
    if (!twin)
      return emitError(loc)
             << "kernel '" << kernel.name << "' has no CPU twin '"
             << kernel.name << "__twin': run tandem-build-cpu-twins";
    kernels.push_back(llvm::ConstantStruct::get(
        kernelType,
        {string(kernel.name, prefix + "kernel" + llvm::Twine(i) + "_name"),
         twin, llvm::ConstantInt::get(i32, kernel.numArgs)}));
  }
  auto *imageType = llvm::StructType::get(ctx, {ptr, i32, ptr, i64});
  if (failed(checkAbiLayout(dataLayout, imageType, deviceImageLayout(), loc)))
    return failure();
  llvm::SmallVector<llvm::Constant *> imageList;
  for (auto [i, image] : llvm::enumerate(images)) {
    bool text = image.format == TANDEM_IMAGE_PTX;
    auto *data = global(
        llvm::ConstantDataArray::getString(ctx, image.bytes, /*AddNull=*/text),
        prefix + "image" + llvm::Twine(i));
    data->setAlignment(llvm::Align(16));
    imageList.push_back(llvm::ConstantStruct::get(
        imageType,
        {string(image.arch, prefix + "image" + llvm::Twine(i) + "_arch"),
         llvm::ConstantInt::get(i32, image.format), data,
         llvm::ConstantInt::get(i64, image.bytes.size())}));
  }
  auto *weightType = llvm::StructType::get(ctx, {i64, ptr, i64});
  if (failed(checkAbiLayout(dataLayout, weightType, deviceWeightLayout(), loc)))
    return failure();
  llvm::SmallVector<llvm::Constant *> weights, weightDevices, arenaSizes;
  for (const DeviceWeightInfo &weight : program.weights) {
    weightDevices.push_back(llvm::ConstantInt::get(i32, weight.device));
    llvm::GlobalVariable *data =
        llvm.getGlobalVariable(weight.global, /*AllowInternal=*/true);
    if (!data)
      return emitError(loc) << "weight '" << weight.global
                            << "' of the device program is not in the object";
    weights.push_back(llvm::ConstantStruct::get(
        weightType, {llvm::ConstantInt::get(i64, weight.offset), data,
                     llvm::ConstantInt::get(i64, weight.bytes)}));
  }
  llvm::SmallVector<llvm::Constant *> names;
  for (auto [i, name] : llvm::enumerate(program.partitions))
    names.push_back(string(name, prefix + "partition" + llvm::Twine(i)));

  for (uint64_t bytes : program.arenaBytes)
    arenaSizes.push_back(llvm::ConstantInt::get(i64, bytes));

  // The convolutions' descriptors: the constants their tandem_sched_conv
  // calls pass (tandem_conv_desc_t's 18 int64_t, which the CPU lowering may
  // have re-typed as bytes).
  llvm::SmallVector<llvm::Constant *> convs;
  for (const std::string &name : program.convs) {
    llvm::GlobalVariable *desc =
        llvm.getGlobalVariable(name, /*AllowInternal=*/true);
    if (!desc || !desc->isConstant() ||
        dataLayout.getTypeAllocSize(desc->getValueType()) !=
            sizeof(tandem_conv_desc_t))
      return emitError(loc)
             << "convolution descriptor '" << name
             << "' of the device program is not a "
             << sizeof(tandem_conv_desc_t) << "-byte constant of the object";
    convs.push_back(desc);
  }

  auto *programType =
      llvm::StructType::get(ctx, {i32, ptr, i32, ptr, i32, ptr, i64, i32, i32,
                                  ptr, i32, ptr, ptr, i32, ptr});
  if (failed(
          checkAbiLayout(dataLayout, programType, deviceProgramLayout(), loc)))
    return failure();
  return static_cast<llvm::Constant *>(global(
      llvm::ConstantStruct::get(
          programType, {llvm::ConstantInt::get(i32, kernels.size()),
                        array(kernelType, kernels, prefix + "kernels"),
                        llvm::ConstantInt::get(i32, imageList.size()),
                        array(imageType, imageList, prefix + "images"),
                        llvm::ConstantInt::get(i32, weights.size()),
                        array(weightType, weights, prefix + "weights"),
                        llvm::ConstantInt::get(i64, program.arenaBytes.front()),
                        llvm::ConstantInt::get(i32, program.numEvents),
                        llvm::ConstantInt::get(i32, names.size()),
                        array(ptr, names, prefix + "partition_names"),
                        llvm::ConstantInt::get(i32, arenaSizes.size()),
                        array(i64, arenaSizes, prefix + "arena_sizes"),
                        array(i32, weightDevices, prefix + "weight_devices"),
                        llvm::ConstantInt::get(i32, convs.size()),
                        array(ptr, convs, prefix + "convs")}),
      model + "_device_program"));
}

/// Adds `<name>_descriptor`, `<name>_entry` and, when asked,
/// `tandem_default_model` to `llvm`; with a device program, its
/// tandem_device_program_t too.
static LogicalResult addDescriptor(llvm::Module &llvm,
                                   const ModelSignature &sig,
                                   const std::optional<DeviceProgram> &program,
                                   const ObjectOptions &options, Location loc) {
  bool exportDefault = options.exportDefaultModel;
  llvm::LLVMContext &ctx = llvm.getContext();
  llvm::Function *model = llvm.getFunction(sig.name);
  bool hasArena = sig.arenaBytes > 0;
  // Inputs, outputs, the arena if any, then the tandem_exec_ctx_t *.
  size_t arity =
      sig.inputs.size() + sig.outputs.size() + (hasArena ? 1 : 0) + 1;
  if (!model || model->arg_size() != arity)
    return emitError(loc) << "the lowered model function '@" << sig.name
                          << "' does not take " << arity - 1
                          << " buffer pointers and the execution context";
  // Only the descriptor and the entry are visible outside the object.
  for (llvm::Function &f : llvm)
    if (!f.isDeclaration())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);

  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  // int32_t entry(const tandem_exec_ctx_t *, const void *const *,
  //               void *const *)
  auto *entryType = llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false);
  auto *entry = llvm::Function::Create(
      entryType, llvm::GlobalValue::ExternalLinkage, sig.name + "_entry", llvm);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
    llvm::SmallVector<llvm::Value *> args;
    auto load = [&](llvm::Value *array, size_t i) {
      llvm::Value *slot = b.CreateConstInBoundsGEP1_64(ptr, array, i);
      return b.CreateLoad(ptr, slot);
    };
    for (size_t i = 0; i < sig.inputs.size(); ++i)
      args.push_back(load(entry->getArg(1), i));
    for (size_t i = 0; i < sig.outputs.size(); ++i)
      args.push_back(load(entry->getArg(2), i));
    if (hasArena) {
      // The arena pointer, field 1 of the tandem_exec_ctx_t.
      auto *ctxType = llvm::StructType::get(
          ctx, {ptr, ptr, i64, llvm::ArrayType::get(ptr, 4)});
      if (failed(checkAbiLayout(llvm.getDataLayout(), ctxType, execCtxLayout(),
                                loc)))
        return failure();
      llvm::Value *slot = b.CreateStructGEP(ctxType, entry->getArg(0), 1);
      args.push_back(b.CreateLoad(ptr, slot));
    }
    args.push_back(entry->getArg(0));
    b.CreateCall(model, args);
    b.CreateRet(llvm::ConstantInt::get(i32, 0));
  }

  auto *tensorDesc = llvm::StructType::get(ctx, {ptr, i32, i32, ptr});
  if (failed(checkAbiLayout(llvm.getDataLayout(), tensorDesc,
                            tensorDescLayout(), loc)))
    return failure();
  auto makeString = [&](llvm::StringRef text, const llvm::Twine &symbol) {
    auto *init = llvm::ConstantDataArray::getString(ctx, text);
    return new llvm::GlobalVariable(llvm, init->getType(), true,
                                    llvm::GlobalValue::PrivateLinkage, init,
                                    symbol);
  };
  auto makeTensors = [&](llvm::ArrayRef<TensorSignature> tensors,
                         llvm::StringRef kind) -> llvm::Constant * {
    llvm::SmallVector<llvm::Constant *> descs;
    for (auto [i, t] : llvm::enumerate(tensors)) {
      std::string base = sig.name + "_" + kind.str() + std::to_string(i);
      llvm::SmallVector<uint64_t> dims(t.shape.begin(), t.shape.end());
      auto *shapeInit = llvm::ConstantDataArray::get(ctx, dims);
      auto *shape = new llvm::GlobalVariable(llvm, shapeInit->getType(), true,
                                             llvm::GlobalValue::PrivateLinkage,
                                             shapeInit, base + "_shape");
      descs.push_back(llvm::ConstantStruct::get(
          tensorDesc, {makeString(t.name, base + "_name"),
                       llvm::ConstantInt::get(i32, int32_t(t.dtype)),
                       llvm::ConstantInt::get(i32, t.shape.size()), shape}));
    }
    if (descs.empty())
      return llvm::ConstantPointerNull::get(ptr);
    auto *arrayType = llvm::ArrayType::get(tensorDesc, descs.size());
    return new llvm::GlobalVariable(
        llvm, arrayType, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(arrayType, descs), sig.name + "_" + kind);
  };
  // A CPU-only model keeps the version-1 descriptor, without the trailing
  // device program.
  llvm::SmallVector<llvm::Type *> fields = {i32, ptr, i32, i32, ptr,
                                            ptr, i64, i64, ptr};
  llvm::SmallVector<llvm::Constant *> values = {
      llvm::ConstantInt::get(i32, program ? TANDEM_ABI_VERSION
                                          : TANDEM_ABI_VERSION_CPU_ONLY),
      makeString(sig.name, sig.name + "_model_name"),
      llvm::ConstantInt::get(i32, sig.inputs.size()),
      llvm::ConstantInt::get(i32, sig.outputs.size()),
      makeTensors(sig.inputs, "inputs"),
      makeTensors(sig.outputs, "outputs"),
      llvm::ConstantInt::get(i64, sig.arenaBytes),
      llvm::ConstantInt::get(i64, sig.weightBytes),
      entry};
  if (program) {
    FailureOr<llvm::Constant *> deviceProgram =
        addDeviceProgram(llvm, sig.name, *program, options.deviceImages, loc);
    if (failed(deviceProgram))
      return failure();
    fields.push_back(ptr);
    values.push_back(*deviceProgram);
  }
  auto *modelDesc = llvm::StructType::get(ctx, fields);
  if (failed(checkAbiLayout(llvm.getDataLayout(), modelDesc,
                            modelDescLayout(program.has_value()), loc)))
    return failure();
  auto *descriptor = new llvm::GlobalVariable(
      llvm, modelDesc, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(modelDesc, values), sig.name + "_descriptor");
  if (exportDefault)
    new llvm::GlobalVariable(llvm, ptr, true,
                             llvm::GlobalValue::ExternalLinkage, descriptor,
                             "tandem_default_model");
  return success();
}

LogicalResult mlir::tandem::emitModelObject(ModuleOp module,
                                            const ModelSignature &signature,
                                            const ObjectOptions &options,
                                            ObjectKind kind,
                                            llvm::raw_pwrite_stream &os) {
  Location loc = module.getLoc();
  initializeTargets();
  std::string tripleName = options.triple.empty()
                               ? llvm::sys::getDefaultTargetTriple()
                               : options.triple;
  llvm::Triple triple(tripleName);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "unknown target triple '" << tripleName
                          << "': " << error;
  std::string cpu = options.cpu, features = options.features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures host;
    for (const auto &[feature, enabled] : llvm::sys::getHostCPUFeatures())
      host.AddFeature(feature, enabled);
    features = host.getString() + (features.empty() ? "" : "," + features);
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(loc) << "cannot create a target machine for '"
                          << tripleName << "'";
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpu))
    return emitError(loc) << "unknown CPU '" << options.cpu << "' for "
                          << triple.getArchName()
                          << " (try x86-64, x86-64-v3, x86-64-v4, znver4 or "
                             "native)";

  // The device program, if the host schedule recorded one.
  FailureOr<std::optional<DeviceProgram>> program = readDeviceProgram(module);
  if (failed(program))
    return failure();

  // Tandem's own discardable attributes (arena markers, the device program)
  // mean nothing to LLVM IR; drop them rather than have the translation
  // warn.
  auto isTandem = [](NamedAttribute attr) {
    return attr.getName().strref().starts_with("tandem.") ||
           attr.getName().strref().starts_with("tandem_exec.");
  };
  for (NamedAttribute attr : llvm::to_vector(module->getDiscardableAttrs()))
    if (isTandem(attr))
      module->removeDiscardableAttr(attr.getName());
  module.walk([&](LLVM::LLVMFuncOp func) {
    for (NamedAttribute attr : llvm::to_vector(func->getDiscardableAttrs()))
      if (isTandem(attr))
        func->removeDiscardableAttr(attr.getName());
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      for (NamedAttribute attr :
           llvm::to_vector(mlir::function_interface_impl::getArgAttrs(func, i)))
        if (isTandem(attr))
          func.removeArgAttr(i, attr.getName());
  });

  // An object's large weights bypass LLVM (StreamedWeights.h); the values
  // go back into the module when emission ends.
  std::optional<StreamedWeights> streamed;
  if (kind == ObjectKind::Object && StreamedWeights::supports(triple))
    streamed.emplace(module, kStreamedWeightBytes);
  auto releaseWeights = llvm::make_scope_exit([&] {
    streamed.reset();
    if (options.releaseWeights)
      releaseResourceBlobs(module);
  });

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "tandem");
  if (!llvmModule)
    return emitError(loc) << "cannot translate the lowered module to LLVM IR";
  // LLVM IR holds its own copy of what is left.
  if (options.releaseWeights)
    releaseResourceBlobs(module);
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (failed(addDescriptor(*llvmModule, signature, *program, options, loc)))
    return failure();
  // Every function gets the CPU and its features, so LLVM's optimisers and
  // the backend agree on what they may use.
  for (llvm::Function &f : *llvmModule) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", cpu);
    if (!features.empty())
      f.addFnAttr("target-features", features);
  }

  // LLVM's own -O2 (loop and scalar optimisations, vectorisation) on top of
  // the kernels MLIR produced.
  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0, machine.get());
  if (llvm::Error error = optimize(llvmModule.get()))
    return emitError(loc) << "LLVM optimisation failed: "
                          << llvm::toString(std::move(error));

  if (kind == ObjectKind::LLVMIR) {
    llvmModule->print(os, nullptr);
    return success();
  }
  llvm::legacy::PassManager pm;
  std::optional<SparseObjectBuffer> object;
  if (streamed) {
    streamed->define(*llvmModule);
    object.emplace();
  }
  if (machine->addPassesToEmitFile(pm, object ? *object : os, nullptr,
                                   kind == ObjectKind::Object
                                       ? llvm::CodeGenFileType::ObjectFile
                                       : llvm::CodeGenFileType::AssemblyFile))
    return emitError(loc) << "the target cannot emit this file type";
  pm.run(*llvmModule);
  if (object)
    return streamed->write(*object, os, loc);
  return success();
}
