//===- Placer.h - cost-model placement of one function ----------*- C++ -*-===//
//
// Decides a device for every op of a function: pins first, then an exact
// minimum cut between the host and a GPU on estimated op and transfer times.
// The pass (Place.cpp) applies the decisions and writes the report.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PLACEMENT_PLACER_H
#define TANDEM_PASSES_PLACEMENT_PLACER_H

#include "passes/Placement/DeviceModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/GlobPattern.h"

#include <string>
#include <vector>

namespace mlir::tandem {

/// Why an op landed where it did.
enum class PlacementReason {
  PinnedByFlag,     ///< a --place / pins entry matched it
  PinnedInIR,       ///< it carried a tandem.device already
  UnsupportedOnGpu, ///< no GPU lowering, or integer shape data
  SoftFallback,     ///< its pin could not be honoured; the cost model chose
  Cheapest,         ///< the fastest device for it, transfers included
  AvoidsTransfers,  ///< slower here alone, but moving it costs more copies
  HostOnly,         ///< the target has no GPU
  Weight,           ///< a constant: resident on each device that uses it
};

/// The short name used in reports ("pinned", "cheaper", ...).
llvm::StringRef reasonName(PlacementReason reason);

/// One `glob=device` pin.
struct PlacementPin {
  std::string text;
  llvm::GlobPattern glob;
  DeviceName device;
  /// How many ops it matched, to warn about pins that match nothing.
  unsigned matches = 0;
};

/// Parses "glob=device". Returns std::nullopt and sets `error` if malformed.
std::optional<PlacementPin> parsePlacementPin(llvm::StringRef text,
                                              std::string &error);

/// The decision for one op.
struct OpPlacement {
  Operation *op;
  DeviceName device;
  PlacementReason reason;
  /// Extra words for the reason, e.g. the pin or the unsupported feature.
  std::string detail;
  /// Estimated time on each target device (TargetConfig order), in
  /// microseconds; infinity where the op cannot run.
  std::vector<double> costUs;
};

/// The decisions for one function and their estimated outcome.
struct FunctionPlacement {
  std::string function;
  std::vector<OpPlacement> ops;
  /// Sum of op times on their devices plus transfer times.
  double latencyUs = 0;
  /// Values copied between devices (once per destination device) and bytes.
  unsigned transfers = 0;
  double transferBytes = 0;
  /// The same latency with everything on the host, for comparison.
  double hostOnlyUs = 0;
};

struct PlacerOptions {
  const TargetConfig *targets = nullptr;
  std::vector<PlacementPin> *pins = nullptr;
  bool softPlacement = true;
};

/// Places every op of `func`. Emits a warning per soft fallback, or an error
/// (and fails) when soft placement is off.
FailureOr<FunctionPlacement> placeFunction(func::FuncOp func,
                                           const PlacerOptions &options);

/// Estimated time of `op` on `device`, microseconds; infinity if the device
/// cannot run it.
double estimateOpUs(Operation *op, const DeviceModel &device);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PLACEMENT_PLACER_H
