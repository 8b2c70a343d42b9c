//===- FusionReport.h - the JSON report of -tandem-fuse ---------*- C++ -*-===//
//
// Builds and writes the report behind --fusion-report: every fusion with
// its kind, members and estimated bytes saved, and every rejected candidate
// with its reason.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_FUSION_FUSIONREPORT_H
#define TANDEM_PASSES_FUSION_FUSIONREPORT_H

#include "passes/Fusion/FusionPlanner.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/JSON.h"

namespace mlir::tandem {

/// The report of one function, after its plan has been outlined.
llvm::json::Object buildFusionReport(llvm::StringRef function,
                                     const FusionPlan &plan);

/// Writes `{"functions": [...]}` to `path` ('-' for stdout). Emits an error
/// at `loc` and fails when the file cannot be written.
LogicalResult writeFusionReport(llvm::json::Array functions,
                                llvm::StringRef path, Location loc);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_FUSION_FUSIONREPORT_H
