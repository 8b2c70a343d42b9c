//===- Target.cpp - the device kinds' code generators ---------------------===//

#include "codegen/Target/Target.h"

#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Placement/DeviceSupport.h"

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

void mlir::tandem::registerTargetInterfaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, TandemDialect *dialect) {
    dialect->addInterfaces<TargetDeviceSupport>();
  });
}
