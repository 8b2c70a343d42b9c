//===- GPUPipeline.cpp - GPU partitions: kernels, PTX, device images ------===//

#include "codegen/GPU/GPUPipeline.h"

#include "codegen/CPU/CPUPipeline.h"
#include "codegen/GPU/CudaToolkit.h"
#include "codegen/Passes.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::tandem;

void mlir::tandem::buildGPUBufferizePipeline(OpPassManager &pm) {
  // As buildCPUBufferizePipeline, except that GPU partitions stay functions
  // (tandem-keep-gpu-partitions), transfers stay tensor ops
  // (allowUnknownOps) and nothing is planned into an arena: the host
  // schedule places host and device buffers.
  pm.addPass(createTandemKeepGPUPartitions());
  buildInlineAndBufferizePipeline(pm, /*allowUnknownOps=*/true,
                                  /*foldIntoContractions=*/false,
                                  /*kernelActivations=*/false);
  pm.addPass(createTandemOutlineKernels());
}

std::string mlir::tandem::validateCudaArch(llvm::StringRef arch) {
  // The architectures LLVM 22's NVPTX backend and CUDA 13 both know.
  static constexpr llvm::StringLiteral kArchs[] = {
      "sm_75",  "sm_80",  "sm_86",   "sm_87",  "sm_89",  "sm_90",
      "sm_90a", "sm_100", "sm_100a", "sm_120", "sm_120a"};
  if (llvm::is_contained(kArchs, arch))
    return "";
  std::string message =
      "unknown CUDA architecture '" + arch.str() + "' (expected one of: ";
  message += llvm::join(llvm::ArrayRef<llvm::StringLiteral>(kArchs), ", ");
  return message + ")";
}

namespace {

/// Lets floating-point multiplies and adds of the kernels fuse into FMAs
/// (`contract`), as CUDA's default `-fmad=true` does: the generated
/// contraction loops then issue one fma.rn.f32 per product instead of a
/// mul.rn and an add.rn.
void allowContraction(ModuleOp device) {
  device.walk([](arith::ArithFastMathInterface op) {
    arith::FastMathFlagsAttr flags = op.getFastMathFlagsAttr();
    arith::FastMathFlags allowed =
        (flags ? flags.getValue() : arith::FastMathFlags::none) |
        arith::FastMathFlags::contract;
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(op->getContext(), allowed));
  });
}

/// The kernel functions of `module` in a module of their own, mapped to the
/// GPU (one gpu.module, no host code).
FailureOr<OwningOpRef<ModuleOp>> mappedKernels(ModuleOp module) {
  OpBuilder builder(module.getContext());
  OwningOpRef<ModuleOp> device = ModuleOp::create(module.getLoc());
  builder.setInsertionPointToEnd(device->getBody());
  for (auto func : module.getOps<func::FuncOp>())
    if (TandemDialect::isKernelFunction(func) && !func.isExternal())
      builder.clone(*func);
  PassManager pm(module.getContext());
  pm.addPass(createTandemMapKernelsToGPU());
  if (failed(pm.run(*device)))
    return failure();
  for (auto func : llvm::make_early_inc_range(device->getOps<func::FuncOp>()))
    func.erase();
  allowContraction(*device);
  return device;
}

/// Lowers the mapped kernels to NVVM for `arch` and serialises them to PTX.
FailureOr<std::string> compileToPTX(ModuleOp mapped, llvm::StringRef arch,
                                    const GPUCodegenOptions &options) {
  OwningOpRef<ModuleOp> device = mapped.clone();
  GpuNVVMAttachTargetOptions target;
  target.chip = arch.str();
  target.features = options.ptxFeatures;
  target.optLevel = 3;
  // Transcendental math becomes libdevice calls (__nv_expf, ...), linked
  // from the toolkit when it is installed.
  llvm::SmallString<128> libdevice(options.cudaRoot);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (llvm::sys::fs::exists(libdevice))
    target.linkLibs.push_back(libdevice.str().str());
  PassManager pm(mapped.getContext());
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createCanonicalizerPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(*device)))
    return failure();
  std::string ptx;
  device->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  });
  if (ptx.empty())
    return emitError(mapped.getLoc()) << "no PTX was produced for " << arch;
  return ptx;
}

} // namespace

FailureOr<std::vector<DeviceImage>>
mlir::tandem::compileGPUKernels(ModuleOp module,
                                const GPUCodegenOptions &options) {
  if (options.archs.empty())
    return emitError(module.getLoc()) << "no CUDA architecture to compile for";
  for (const std::string &arch : options.archs)
    if (std::string message = validateCudaArch(arch); !message.empty())
      return emitError(module.getLoc()) << message;
  FailureOr<OwningOpRef<ModuleOp>> mapped = mappedKernels(module);
  if (failed(mapped))
    return failure();
  std::vector<DeviceImage> images;
  for (const std::string &arch : options.archs) {
    FailureOr<std::string> ptx = compileToPTX(**mapped, arch, options);
    if (failed(ptx))
      return failure();
    images.push_back({arch, TANDEM_IMAGE_PTX, std::move(*ptx)});
  }
  if (!options.useToolkit)
    return images;
  CudaToolkit toolkit(options.cudaRoot);
  if (!toolkit.hasPtxas())
    return images;
  std::vector<DeviceImage> binaries;
  for (const DeviceImage &ptx : images) {
    FailureOr<std::string> cubin =
        toolkit.assemble(ptx.bytes, ptx.arch, module.getLoc());
    if (failed(cubin))
      return failure();
    binaries.push_back({ptx.arch, TANDEM_IMAGE_CUBIN, std::move(*cubin)});
  }
  if (toolkit.hasFatbinary()) {
    FailureOr<std::string> fatbin =
        toolkit.pack(images, binaries, module.getLoc());
    if (failed(fatbin))
      return failure();
    std::vector<std::string> archs(options.archs.begin(), options.archs.end());
    binaries.push_back(
        {llvm::join(archs, ","), TANDEM_IMAGE_FATBIN, std::move(*fatbin)});
  }
  images.insert(images.end(), binaries.begin(), binaries.end());
  return images;
}
