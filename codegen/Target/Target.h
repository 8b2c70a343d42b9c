//===- Target.h - one device kind's code generator --------------*- C++ -*-===//
//
// The seam between the device-independent compiler and each device kind's
// code generation: a Target per kind (CPUTarget.cpp, CUDATarget.cpp). It
// owns what placement asks (which ops the kind runs, and why not; answered
// through placement's DeviceSupportInterface), the kind's passes in the
// bufferized and lowered phases, the library calls it offers, and the
// kernels phase: compiling its partitions' kernels into device images. The
// driver walks the targets and never names a kind. A new device kind is a
// DeviceName::Kind, a Target here and a runtime backend
// (docs/Architecture.md, "Adding a device kind").
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_TARGET_TARGET_H
#define TANDEM_CODEGEN_TARGET_TARGET_H

#include "codegen/Artifact/DeviceProgram.h"
#include "codegen/Target/TargetOptions.h"
#include "dialects/Tandem/IR/DeviceName.h"
#include "passes/Placement/DeviceModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tandem {

/// One device kind's code generator. It is also the kind's source of
/// placement cost presets (CostPresetSource: costPresetNames, costPreset).
class Target : public CostPresetSource {
public:
  /// The device kind this target compiles for.
  virtual DeviceName::Kind kind() const = 0;
  /// "cpu", "cuda".
  virtual llvm::StringRef name() const = 0;
  /// Why this target cannot compile `op` (one op, not a fusion), or
  /// std::nullopt when it can.
  virtual std::optional<std::string> whyUnsupported(Operation *op) const = 0;

  /// Whether this kind's partitions are device partitions: kernels that
  /// the host schedule launches, with their own memory. The host target
  /// (the CPU) compiles the model function and the host partitions.
  virtual bool isDevice() const = 0;

  /// The host target: the passes of the bufferized phase for a model
  /// without device partitions (`withDevices` false), or what follows the
  /// host schedule of one with them (the host memory plan), and the passes
  /// of the lowered phase (the host code, the lowered host schedule and the
  /// kernels' CPU twins).
  virtual void buildHostBufferizePipeline(OpPassManager &pm, bool withDevices,
                                          const TargetOptions &options) const {
    (void)pm, (void)withDevices, (void)options;
  }
  virtual void buildHostLoweringPipeline(OpPassManager &pm,
                                         const TargetOptions &options) const {
    (void)pm, (void)options;
  }

  /// A device target whose partitions the model has: the bufferized
  /// phase's passes before the host schedule is built (partitions kept as
  /// functions of kernels), then those on the built schedule (the library
  /// calls it offers), then those of the lowered phase before the host code
  /// is lowered.
  virtual void
  buildPartitionBufferizePipeline(OpPassManager &pm,
                                  const TargetOptions &options) const {
    (void)pm, (void)options;
  }
  virtual void buildSchedulePipeline(OpPassManager &pm,
                                     const TargetOptions &options) const {
    (void)pm, (void)options;
  }
  virtual void
  buildPartitionLoweringPipeline(OpPassManager &pm,
                                 const TargetOptions &options) const {
    (void)pm, (void)options;
  }

  /// The kernels phase: compiles the kernels of this kind's partitions in
  /// the bufferized `module` into the device images the artifact embeds
  /// (the module is left as it is). Errors are reported on the module.
  virtual FailureOr<std::vector<DeviceImage>>
  compileKernels(ModuleOp module, const TargetOptions &options) const {
    (void)module, (void)options;
    return std::vector<DeviceImage>();
  }

  /// Whether `module` has partitions placed on this target's kind.
  bool hasPartitions(ModuleOp module) const;
};

/// The CPU target (LLVM): runs every tandem op.
const Target &getCPUTarget();
/// The CUDA target (NVVM/PTX and cuBLASLt).
const Target &getCUDATarget();
/// The target of each device kind, in DeviceName::Kind order.
llvm::ArrayRef<const Target *> getTargets();
/// The target of `kind`, or null when no target compiles for it.
const Target *lookupTarget(DeviceName::Kind kind);
/// The host target (the CPU's).
const Target &getHostTarget();
/// The device targets whose partitions `module` has, in getTargets() order.
std::vector<const Target *> getDeviceTargetsOf(ModuleOp module);

/// Registers every target's cost presets with placement
/// (registerCostPresets); idempotent. registerTargetInterfaces and the
/// driver's options check call it.
void registerTargets();

/// Attaches the targets' op support to the tandem dialect as placement's
/// DeviceSupportInterface (and registers the targets).
void registerTargetInterfaces(DialectRegistry &registry);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_TARGET_TARGET_H
