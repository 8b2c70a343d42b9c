//===- Place.cpp - the tandem-place pass ----------------------------------===//
//
// Builds the target's device models, parses the pins, places every function
// with the Placer, writes the tandem.device attributes and the report.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Placement/DeviceModel.h"
#include "passes/Placement/PlacementReport.h"
#include "passes/Placement/Placer.h"

#include "dialects/Tandem/IR/TandemAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

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
    ModuleOp module = getOperation();
    std::string error;
    std::optional<TargetConfig> config = parseTargets(targets, cpuModel, error);
    if (!config) {
      module.emitError() << "tandem-place: " << error;
      return std::nullopt;
    }
    if (!deviceConfig.empty()) {
      auto file = llvm::MemoryBuffer::getFile(deviceConfig);
      if (!file) {
        module.emitError() << "tandem-place: cannot read device config '"
                           << deviceConfig
                           << "': " << file.getError().message();
        return std::nullopt;
      }
      if (!applyDeviceConfig(*config, (*file)->getBuffer(), error)) {
        module.emitError() << deviceConfig << ": " << error;
        return std::nullopt;
      }
    }
    return config;
  }

  LogicalResult writeReport(const TargetConfig &config,
                            llvm::ArrayRef<FunctionPlacement> placements) {
    if (report.empty())
      return success();
    bool json = llvm::StringRef(report).ends_with(".json");
    if (report == "-") {
      writePlacementTable(llvm::outs(), config, placements);
      return success();
    }
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(report, &message);
    if (!file)
      return getOperation().emitError()
             << "cannot write placement report '" << report << "': " << message;
    if (json)
      writePlacementJson(file->os(), config, placements);
    else
      writePlacementTable(file->os(), config, placements);
    file->keep();
    return success();
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
