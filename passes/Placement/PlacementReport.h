//===- PlacementReport.h - explaining placement decisions -------*- C++ -*-===//
//
// Tandem's log_device_placement: every op with its node name, device,
// estimated cost on each device and the reason, as JSON or as a table.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PLACEMENT_PLACEMENTREPORT_H
#define TANDEM_PASSES_PLACEMENT_PLACEMENTREPORT_H

#include "passes/Placement/Placer.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tandem {

/// Writes the report as JSON (schema in docs/Placement.md).
void writePlacementJson(llvm::raw_ostream &os, const TargetConfig &targets,
                        llvm::ArrayRef<FunctionPlacement> functions);

/// Writes the report as a readable table.
void writePlacementTable(llvm::raw_ostream &os, const TargetConfig &targets,
                         llvm::ArrayRef<FunctionPlacement> functions);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PLACEMENT_PLACEMENTREPORT_H
