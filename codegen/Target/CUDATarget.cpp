//===- CUDATarget.cpp - the CUDA GPUs' code generator ---------------------===//
//
// The CUDA GPUs' target: which ops the GPU code generator (codegen/GPU:
// kernels mapped to blocks and threads, PTX/cubin/fatbin images, cuBLASLt
// GEMMs) compiles, its passes (partitions kept as functions of kernels,
// library GEMMs and convolutions in the host schedule, twins that run the GPU
// mapping), and the kernels phase. GPU code generation extends the op list as
// it learns new ops.
//
//===----------------------------------------------------------------------===//

#include "codegen/Target/Target.h"

#include "codegen/GPU/GPUPipeline.h"
#include "codegen/HostSchedule/Passes.h"
#include "codegen/Passes.h"
#include "codegen/Target/Presets.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;

namespace {
class CUDATarget final : public Target {
public:
  DeviceName::Kind kind() const override { return DeviceName::Kind::GPU; }
  llvm::StringRef name() const override { return "cuda"; }
  std::optional<std::string> whyUnsupported(Operation *op) const override;
  bool isDevice() const override { return true; }

  std::vector<std::string> costPresetNames() const override {
    return cudaCostPresetNames();
  }
  std::optional<DeviceModel> costPreset(llvm::StringRef name,
                                        unsigned index) const override {
    return cudaCostPreset(name, index);
  }

  void buildPartitionBufferizePipeline(OpPassManager &pm,
                                       const TargetOptions &) const override {
    buildGPUBufferizePipeline(pm);
  }

  void buildSchedulePipeline(OpPassManager &pm,
                             const TargetOptions &options) const override {
    // f32 contractions of the GPU partitions as cuBLASLt calls, with the
    // generated kernels as their fallback.
    TandemFormLibraryGemmsOptions gemms;
    gemms.precision = options.cuda.precision;
    pm.addPass(createTandemFormLibraryGemms(gemms));
    // bf16 and fp16 GEMMs read a weight converted at compile time and
    // their other operand in 16 bits, where that pays.
    if (options.cuda.sixteenBitOperands != "never") {
      TandemNarrowGemmOperandsOptions narrow;
      if (options.cuda.sixteenBitOperands == "always")
        narrow.launchBytes = std::numeric_limits<int64_t>::min();
      pm.addPass(createTandemNarrowGemmOperands(narrow));
    }
    // 2-D convolutions as cuDNN calls with their bias, residual and
    // activation fused, likewise with the generated kernels as fallback.
    TandemFormLibraryConvsOptions convs;
    convs.precision = options.cuda.precision;
    pm.addPass(createTandemFormLibraryConvs(convs));
  }

  void
  buildPartitionLoweringPipeline(OpPassManager &pm,
                                 const TargetOptions &options) const override {
    if (!options.cuda.twinsMapped)
      return;
    // The CPU twins run the kernels' GPU mapping (testing).
    TandemMapKernelsToGPUOptions emulate;
    emulate.emulateOnHost = true;
    emulate.replaceKernels = true;
    pm.addPass(createTandemMapKernelsToGPU(emulate));
  }

  FailureOr<std::vector<DeviceImage>>
  compileKernels(ModuleOp module, const TargetOptions &options) const override {
    GPUCodegenOptions gpu;
    gpu.archs.assign(options.kernelArchs.begin(), options.kernelArchs.end());
    gpu.useToolkit = options.allImageFormats;
    return compileGPUKernels(module, gpu);
  }
};
} // namespace

std::optional<std::string> CUDATarget::whyUnsupported(Operation *op) const {
  if (isa<ConstantOp, YieldOp>(op))
    return std::nullopt;
  // MatMulInteger, ConvInteger and the QLinear ops' exact i32 products.
  if (isa<Conv2DOp, MatmulOp>(op) &&
      isa<IntegerType>(
          cast<RankedTensorType>(op->getResult(0).getType()).getElementType()))
    return std::string("integer matmuls and convolutions have no GPU kernel");
  // Integer tensors are shape data (or indices) that feed host-side
  // decisions; computing them on the GPU would only add transfers. The
  // indices that arg_max/arg_min/top_k pick from float data are the
  // exception: the work is the scan of the data.
  bool floatArgReduce =
      isa<ArgMaxOp, ArgMinOp, TopKOp>(op) &&
      isa<FloatType>(
          cast<RankedTensorType>(op->getOperand(0).getType()).getElementType());
  for (Type type :
       floatArgReduce ? TypeRange() : TypeRange(op->getResultTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (isa<IntegerType>(tensor.getElementType()) &&
          tensor.getElementType().getIntOrFloatBitWidth() > 1)
        return std::string("it computes integer (shape) data");
  // The GPU kernels read unsigned tensors with signed semantics (a uint8
  // zero point of 153 became -103 there), so unsigned data stays on the
  // host until they take the unsigned ops from the tandem types.
  for (Type type : op->getOperandTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (tensor.getElementType().isUnsignedInteger())
        return std::string("it reads unsigned integer data, which the GPU "
                           "kernels do not support yet");
  if (auto pad = dyn_cast<PadOp>(op); pad && pad.getMode() != PadMode::Constant)
    return std::string("only constant padding has a GPU kernel");
  return std::nullopt;
}

const Target &mlir::tandem::getCUDATarget() {
  static const CUDATarget target;
  return target;
}
