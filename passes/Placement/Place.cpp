//===- Place.cpp - the tandem-place pass ----------------------------------===//
//
// Builds the target's device models, parses the pins, places every function
// with the Placer, writes the tandem.device attributes and the report.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Analysis/ReportFile.h"
#include "passes/Placement/DeviceModel.h"
#include "passes/Placement/PlacementReport.h"
#include "passes/Placement/Placer.h"

#include "dialects/Tandem/IR/TandemAttrs.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMPLACE
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {
struct PlacePass : tandem::impl::TandemPlaceBase<PlacePass> {
  using Base::Base;

  /// Builds the device models from the options.
  std::optional<TargetConfig> buildTargets() {
    std::string error;
    std::optional<TargetConfig> config =
        loadTargets(targets, cpuModel, deviceConfig, error);
    if (!config)
      getOperation().emitError() << "tandem-place: " << error;
    return config;
  }

  LogicalResult writeReport(const TargetConfig &config,
                            llvm::ArrayRef<FunctionPlacement> placements) {
    if (report.empty())
      return success();
    bool json = llvm::StringRef(report).ends_with(".json");
    return writeReportFile(report, "the placement report",
                           getOperation().getLoc(), [&](llvm::raw_ostream &os) {
                             if (json)
                               writePlacementJson(os, config, placements);
                             else
                               writePlacementTable(os, config, placements);
                           });
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TargetConfig> config = buildTargets();
    if (!config)
      return signalPassFailure();
    std::vector<PlacementPin> parsedPins;
    for (const std::string &text : pins) {
      std::string error;
      std::optional<PlacementPin> pin = parsePlacementPin(text, error);
      if (!pin) {
        module.emitError() << "tandem-place: " << error;
        return signalPassFailure();
      }
      parsedPins.push_back(std::move(*pin));
    }

    PlacerOptions options;
    options.targets = &*config;
    options.pins = &parsedPins;
    options.softPlacement = softPlacement;
    std::vector<FunctionPlacement> placements;
    bool failed = false;
    MLIRContext *context = &getContext();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<FunctionPlacement> placement = placeFunction(func, options);
      if (failed |= mlir::failed(placement))
        continue;
      for (const OpPlacement &decision : placement->ops)
        setDevice(decision.op, getDeviceAttr(context, decision.device));
      placements.push_back(std::move(*placement));
    }
    if (failed)
      return signalPassFailure();
    for (const PlacementPin &pin : parsedPins)
      if (pin.matches == 0)
        module.emitWarning() << "pin '" << pin.text << "' matches no op";
    if (mlir::failed(writeReport(*config, placements)))
      return signalPassFailure();
  }
};
} // namespace
