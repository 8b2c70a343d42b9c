//===- PlacementReport.cpp - explaining placement decisions ---------------===//

#include "passes/Placement/PlacementReport.h"

#include "passes/Analysis/NodeName.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tandem;

/// Microseconds rounded to 0.001 for stable reports; null when impossible.
static llvm::json::Value jsonUs(double us) {
  if (!std::isfinite(us))
    return nullptr;
  return std::round(us * 1000) / 1000;
}

void mlir::tandem::writePlacementJson(
    llvm::raw_ostream &os, const TargetConfig &targets,
    llvm::ArrayRef<FunctionPlacement> functions) {
  llvm::json::Array devices;
  for (const DeviceModel &d : targets.devices) {
    llvm::json::Object device{{"name", d.displayName()},
                              {"preset", d.preset},
                              {"arch", d.arch},
                              {"vector_gflops_f32", d.vectorGflops.f32},
                              {"matrix_gflops_f32", d.matrixGflops.f32},
                              {"memory_gbps", d.memoryGBs},
                              {"launch_us", d.launchUs}};
    if (d.isGpu()) {
      device["host_to_device_gbps"] = d.hostToDeviceGBs;
      device["device_to_host_gbps"] = d.deviceToHostGBs;
      device["transfer_latency_us"] = d.transferLatencyUs;
    }
    devices.push_back(std::move(device));
  }
  llvm::json::Array funcs;
  for (const FunctionPlacement &f : functions) {
    llvm::json::Array ops;
    for (const OpPlacement &p : f.ops) {
      llvm::json::Object cost;
      for (auto [d, us] : llvm::zip(targets.devices, p.costUs))
        cost[d.displayName()] = jsonUs(us);
      ops.push_back(llvm::json::Object{{"node", getDisplayName(p.op)},
                                       {"op", p.op->getName().getStringRef()},
                                       {"device", formatDeviceName(p.device)},
                                       {"reason", reasonName(p.reason)},
                                       {"detail", p.detail},
                                       {"cost_us", std::move(cost)}});
    }
    funcs.push_back(
        llvm::json::Object{{"name", f.function},
                           {"estimated_latency_us", jsonUs(f.latencyUs)},
                           {"host_only_latency_us", jsonUs(f.hostOnlyUs)},
                           {"transfers", f.transfers},
                           {"transfer_bytes", f.transferBytes},
                           {"ops", std::move(ops)}});
  }
  llvm::json::Value root = llvm::json::Object{{"devices", std::move(devices)},
                                              {"functions", std::move(funcs)}};
  os << llvm::formatv("{0:2}", root) << "\n";
}

/// "12.3" or "-" for impossible.
static std::string formatUs(double us) {
  if (!std::isfinite(us))
    return "-";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.2f", us);
  return text;
}

void mlir::tandem::writePlacementTable(
    llvm::raw_ostream &os, const TargetConfig &targets,
    llvm::ArrayRef<FunctionPlacement> functions) {
  os << "devices:\n";
  targets.print(os);
  for (const FunctionPlacement &f : functions) {
    os << "\nplacement of @" << f.function << "\n";
    // Column widths follow the longest node and op names.
    size_t nodeWidth = 4, opWidth = 2;
    for (const OpPlacement &p : f.ops) {
      nodeWidth = std::max(nodeWidth, getDisplayName(p.op).size());
      opWidth = std::max(opWidth, p.op->getName().getStringRef().size());
    }
    nodeWidth = std::min<size_t>(nodeWidth, 48);
    os << llvm::left_justify("node", nodeWidth) << "  "
       << llvm::left_justify("op", opWidth) << "  "
       << llvm::left_justify("device", 14) << "  "
       << llvm::left_justify("reason", 18);
    for (const DeviceModel &d : targets.devices)
      os << "  " << llvm::right_justify(d.displayName() + " us", 18);
    os << "  detail\n";
    for (const OpPlacement &p : f.ops) {
      os << llvm::left_justify(getDisplayName(p.op), nodeWidth) << "  "
         << llvm::left_justify(p.op->getName().getStringRef(), opWidth) << "  "
         << llvm::left_justify(formatDeviceName(p.device), 14) << "  "
         << llvm::left_justify(reasonName(p.reason), 18);
      for (double us : p.costUs)
        os << "  " << llvm::right_justify(formatUs(us), 18);
      os << "  " << p.detail << "\n";
    }
    os << llvm::format("estimated latency %.2f us (all on %s: %.2f us); %u "
                       "transfers, %.0f bytes\n",
                       f.latencyUs, targets.host().displayName().c_str(),
                       f.hostOnlyUs, f.transfers, f.transferBytes);
  }
}
