//===- Target.cpp - the device kinds' code generators ---------------------===//

#include "codegen/Target/Target.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Placement/DeviceSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tandem;

ArrayRef<const Target *> mlir::tandem::getTargets() {
  static const Target *const targets[] = {&getCPUTarget(), &getCUDATarget()};
  return targets;
}

const Target *mlir::tandem::lookupTarget(DeviceName::Kind kind) {
  for (const Target *target : getTargets())
    if (target->kind() == kind)
      return target;
  return nullptr;
}

const Target &mlir::tandem::getHostTarget() { return getCPUTarget(); }

bool Target::hasPartitions(ModuleOp module) const {
  return llvm::any_of(module.getOps<func::FuncOp>(), [&](func::FuncOp func) {
    auto device =
        func->getAttrOfType<DeviceAttr>(TandemDialect::getDeviceAttrName());
    return device && device.getKind() == kind() &&
           func->hasAttr(TandemDialect::getPartitionAttrName());
  });
}

std::vector<const Target *> mlir::tandem::getDeviceTargetsOf(ModuleOp module) {
  std::vector<const Target *> targets;
  for (const Target *target : getTargets())
    if (target->isDevice() && target->hasPartitions(module))
      targets.push_back(target);
  return targets;
}

namespace {
/// Placement's query, answered by the target of the device kind asked
/// about.
struct TargetDeviceSupport : DeviceSupportInterface {
  using DeviceSupportInterface::DeviceSupportInterface;

  std::optional<std::string>
  whyUnsupported(Operation *op, DeviceName::Kind kind) const override {
    if (const Target *target = lookupTarget(kind))
      return target->whyUnsupported(op);
    return std::string("no code generator compiles for this device kind");
  }
};
} // namespace

void mlir::tandem::registerTargets() {
  static const bool registered = [] {
    for (const Target *target : getTargets())
      registerCostPresets(target->kind(), target);
    return true;
  }();
  (void)registered;
}

void mlir::tandem::registerTargetInterfaces(DialectRegistry &registry) {
  registerTargets();
  registry.addExtension(+[](MLIRContext *, TandemDialect *dialect) {
    dialect->addInterfaces<TargetDeviceSupport>();
  });
}
