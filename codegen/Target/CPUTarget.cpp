//===- CPUTarget.cpp - the CPU's code generator ---------------------------===//
//
// The host compiles every tandem op (linalg lowering, the CPU pipeline in
// codegen/CPU, LLVM), so it is where placement puts what other targets
// cannot run. It is the host target: its pipelines compile the model
// function, the CPU partitions, the lowered host schedule and the kernels'
// CPU twins into the artifact's object; it has no kernels phase.
//
//===----------------------------------------------------------------------===//

#include "codegen/Target/Target.h"

#include "codegen/CPU/CPUPipeline.h"
#include "codegen/Target/Presets.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {
class CPUTarget final : public Target {
public:
  DeviceName::Kind kind() const override { return DeviceName::Kind::CPU; }
  llvm::StringRef name() const override { return "cpu"; }
  std::optional<std::string> whyUnsupported(Operation *) const override {
    return std::nullopt;
  }
  bool isDevice() const override { return false; }

  std::vector<std::string> costPresetNames() const override {
    return cpuCostPresetNames();
  }
  std::optional<DeviceModel> costPreset(llvm::StringRef name,
                                        unsigned) const override {
    return cpuCostPreset(name);
  }

  void buildHostBufferizePipeline(OpPassManager &pm, bool withDevices,
                                  const TargetOptions &) const override {
    if (!withDevices) {
      buildCPUBufferizePipeline(pm);
      return;
    }
    // After the host schedule: the host arena holds the host buffers.
    pm.addPass(createTandemPlanMemory());
    bufferization::buildBufferDeallocationPipeline(pm);
  }

  void buildHostLoweringPipeline(OpPassManager &pm,
                                 const TargetOptions &options) const override {
    buildCPULowerToLLVMPipeline(pm, options.cpu.winograd);
  }
};
} // namespace

const Target &mlir::tandem::getCPUTarget() {
  static const CPUTarget target;
  return target;
}
