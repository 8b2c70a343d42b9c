//===- CPUTarget.cpp - the CPU's code generator ---------------------------===//
//
// The host compiles every tandem op (linalg lowering, the CPU pipeline in
// codegen/CPU, LLVM), so it is where placement puts what other targets
// cannot run.
//
//===----------------------------------------------------------------------===//

#include "codegen/Target/Target.h"

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
};
} // namespace

const Target &mlir::tandem::getCPUTarget() {
  static const CPUTarget target;
  return target;
}
