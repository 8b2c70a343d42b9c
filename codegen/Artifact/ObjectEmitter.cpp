//===- ObjectEmitter.cpp - LLVM IR, assembly and objects ------------------===//

#include "codegen/Artifact/ObjectEmitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
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

using namespace mlir;
using namespace mlir::tandem;

/// The ABI version the descriptor declares (TANDEM_ABI_VERSION).
static constexpr uint32_t kAbiVersion = 1;

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

/// Adds `<name>_descriptor`, `<name>_entry` and, when asked,
/// `tandem_default_model` to `llvm`.
static LogicalResult addDescriptor(llvm::Module &llvm,
                                   const ModelSignature &sig,
                                   bool exportDefault, Location loc) {
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
      // tandem_exec_ctx_t { pool; arena; arena_bytes; reserved[4]; }
      auto *ctxType = llvm::StructType::get(
          ctx, {ptr, ptr, i64, llvm::ArrayType::get(ptr, 4)});
      llvm::Value *slot = b.CreateStructGEP(ctxType, entry->getArg(0), 1);
      args.push_back(b.CreateLoad(ptr, slot));
    }
    args.push_back(entry->getArg(0));
    b.CreateCall(model, args);
    b.CreateRet(llvm::ConstantInt::get(i32, 0));
  }

  // tandem_tensor_desc_t { const char *name; int32 dtype; int32 rank;
  //                        const int64_t *shape; }
  auto *tensorDesc = llvm::StructType::get(ctx, {ptr, i32, i32, ptr});
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
  // tandem_model_desc_t { uint32 abi; const char *name; int32 nin, nout;
  //   const tandem_tensor_desc_t *inputs, *outputs; uint64 arena, weights;
  //   entry }
  auto *modelDesc =
      llvm::StructType::get(ctx, {i32, ptr, i32, i32, ptr, ptr, i64, i64, ptr});
  auto *descriptor = new llvm::GlobalVariable(
      llvm, modelDesc, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(
          modelDesc, {llvm::ConstantInt::get(i32, kAbiVersion),
                      makeString(sig.name, sig.name + "_model_name"),
                      llvm::ConstantInt::get(i32, sig.inputs.size()),
                      llvm::ConstantInt::get(i32, sig.outputs.size()),
                      makeTensors(sig.inputs, "inputs"),
                      makeTensors(sig.outputs, "outputs"),
                      llvm::ConstantInt::get(i64, sig.arenaBytes),
                      llvm::ConstantInt::get(i64, sig.weightBytes), entry}),
      sig.name + "_descriptor");
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

  // Tandem's own discardable attributes (arena markers) mean nothing to
  // LLVM IR; drop them rather than have the translation warn.
  module.walk([](LLVM::LLVMFuncOp func) {
    for (NamedAttribute attr : llvm::to_vector(func->getDiscardableAttrs()))
      if (attr.getName().strref().starts_with("tandem."))
        func->removeDiscardableAttr(attr.getName());
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      for (NamedAttribute attr :
           llvm::to_vector(mlir::function_interface_impl::getArgAttrs(func, i)))
        if (attr.getName().strref().starts_with("tandem."))
          func.removeArgAttr(i, attr.getName());
  });

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "tandem");
  if (!llvmModule)
    return emitError(loc) << "cannot translate the lowered module to LLVM IR";
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (failed(addDescriptor(*llvmModule, signature, options.exportDefaultModel,
                           loc)))
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
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   kind == ObjectKind::Object
                                       ? llvm::CodeGenFileType::ObjectFile
                                       : llvm::CodeGenFileType::AssemblyFile))
    return emitError(loc) << "the target cannot emit this file type";
  pm.run(*llvmModule);
  return success();
}
