//===- AssignDefaultDevice.cpp - place unplaced ops on one device ---------===//
//
// Implements -tandem-assign-default-device: every tandem op that has no
// `tandem.device` attribute gets the pass's device.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Tandem/IR/DeviceName.h"
#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemOps.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMASSIGNDEFAULTDEVICE
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {
struct AssignDefaultDevicePass
    : tandem::impl::TandemAssignDefaultDeviceBase<AssignDefaultDevicePass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<DeviceName> name = parseDeviceName(device);
    if (!name) {
      getOperation()->emitError()
          << "tandem-assign-default-device: invalid device '" << device
          << "': " << kDeviceNameHelp;
      return signalPassFailure();
    }
    DeviceAttr attr = getDeviceAttr(&getContext(), *name);
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isa<TandemDialect>(op->getDialect()) || isa<YieldOp>(op))
        return WalkResult::advance();
      if (!getDevice(op))
        setDevice(op, attr);
      // The body of a fusion runs where the fusion runs.
      return isa<FusionOp>(op) ? WalkResult::skip() : WalkResult::advance();
    });
  }
};
} // namespace
