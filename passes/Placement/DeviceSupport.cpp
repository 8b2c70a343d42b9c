//===- DeviceSupport.cpp - what placement asks of a device kind -----------===//

#include "passes/Placement/DeviceSupport.h"

#include "dialects/Tandem/IR/TandemOps.h"

using namespace mlir;
using namespace mlir::tandem;

std::optional<std::string> mlir::tandem::whyNotOnDevice(Operation *op,
                                                        DeviceName::Kind kind) {
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    for (Operation &inner : fusion.getBody().front())
      if (std::optional<std::string> why = whyNotOnDevice(&inner, kind))
        return "it contains " + inner.getName().getStringRef().str() + ": " +
               *why;
    return std::nullopt;
  }
  auto *dialect = op->getContext()->getLoadedDialect<TandemDialect>();
  const auto *support =
      dialect ? dialect->getRegisteredInterface<DeviceSupportInterface>()
              : nullptr;
  if (support)
    return support->whyUnsupported(op, kind);
  if (kind == DeviceName::Kind::CPU)
    return std::nullopt;
  return std::string("no code generator for this device kind is registered "
                     "(codegen's registerTargetInterfaces)");
}
