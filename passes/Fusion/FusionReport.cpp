//===- FusionReport.cpp - the JSON report of -tandem-fuse -----------------===//

#include "passes/Fusion/FusionReport.h"

#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Analysis/ReportFile.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tandem;

static llvm::json::Array toArray(const std::vector<std::string> &names) {
  llvm::json::Array array;
  for (const std::string &name : names)
    array.push_back(name);
  return array;
}

llvm::json::Object mlir::tandem::buildFusionReport(llvm::StringRef function,
                                                   const FusionPlan &plan) {
  llvm::json::Array fusions;
  for (const PlannedFusion &fusion : plan.fusions) {
    llvm::json::Object entry{
        {"name", fusion.name},
        {"kind", stringifyFusionKind(fusion.kind)},
        {"root", fusion.rootName},
        {"members", toArray(fusion.memberNames)},
        {"inputs", static_cast<int64_t>(fusion.numInputs)},
        {"outputs", static_cast<int64_t>(fusion.numOutputs)},
        {"bytes_saved", static_cast<int64_t>(fusion.bytesSaved)}};
    if (!fusion.device.empty())
      entry["device"] = fusion.device;
    if (!fusion.duplicatedNames.empty())
      entry["duplicated"] = toArray(fusion.duplicatedNames);
    fusions.push_back(std::move(entry));
  }
  llvm::json::Array rejected;
  for (const RejectedCandidate &candidate : plan.rejected) {
    llvm::json::Object entry{{"relation", candidate.relation},
                             {"reason", candidate.reason}};
    if (candidate.relation == "sibling") {
      entry["siblings"] = llvm::json::Array{candidate.first, candidate.second};
    } else {
      entry["producer"] = candidate.first;
      entry["consumer"] = candidate.second;
    }
    rejected.push_back(std::move(entry));
  }
  return llvm::json::Object{
      {"function", function},
      {"ops", static_cast<int64_t>(plan.opsBefore)},
      {"kernels", static_cast<int64_t>(plan.fusions.size())},
      {"fusions", std::move(fusions)},
      {"rejected", std::move(rejected)}};
}

LogicalResult mlir::tandem::writeFusionReport(llvm::json::Array functions,
                                              llvm::StringRef path,
                                              Location loc) {
  llvm::json::Value report =
      llvm::json::Object{{"functions", std::move(functions)}};
  return writeReportFile(path, "the fusion report", loc,
                         [&](llvm::raw_ostream &os) {
                           os << llvm::formatv("{0:2}", report) << "\n";
                         });
}
