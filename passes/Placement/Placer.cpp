//===- Placer.cpp - cost-model placement of one function ------------------===//
//
// The assignment problem: each op runs on the host or on a GPU, at a cost
// that depends on the device, and every value whose producer and consumers
// sit on different devices pays a copy, once per destination. With one GPU
// this is Stone's two-processor assignment, solved exactly as an s-t minimum
// cut:
//
//   * source = the host, sink = the GPU;
//   * op n: edge source->n of its GPU time (paid when n goes to the GPU) and
//     n->sink of its CPU time (paid when it stays on the host); pins are
//     infinite edges;
//   * value v produced by p and consumed by C: an auxiliary node a with
//     p->a of the host-to-device time and a->c (infinite) for c in C, so
//     the copy is paid once when p is on the host and any consumer on the
//     GPU; symmetrically b with b->p of the device-to-host time and c->b.
//
// Function arguments and results live on the host. With several GPUs, the
// free ops go either to the host or to the GPU whose cut is cheapest.
//
//===----------------------------------------------------------------------===//

#include "passes/Placement/Placer.h"

#include "passes/Analysis/NodeName.h"
#include "passes/Analysis/OpCost.h"
#include "passes/Placement/DeviceSupport.h"
#include "passes/Placement/MinCut.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/Tandem/IR/TandemOps.h"
#include "dialects/Tandem/IR/TandemTraits.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;

static constexpr double kInf = std::numeric_limits<double>::infinity();

llvm::StringRef mlir::tandem::reasonName(PlacementReason reason) {
  switch (reason) {
  case PlacementReason::PinnedByFlag:
    return "pinned";
  case PlacementReason::PinnedInIR:
    return "pinned in IR";
  case PlacementReason::UnsupportedOnGpu:
    return "unsupported on GPU";
  case PlacementReason::SoftFallback:
    return "soft fallback";
  case PlacementReason::Cheapest:
    return "cheaper";
  case PlacementReason::AvoidsTransfers:
    return "avoids transfers";
  case PlacementReason::HostOnly:
    return "no GPU in target";
  case PlacementReason::Weight:
    return "weight";
  }
  llvm_unreachable("unknown placement reason");
}

std::optional<PlacementPin>
mlir::tandem::parsePlacementPin(llvm::StringRef text, std::string &error) {
  auto [pattern, device] = text.rsplit('=');
  if (!text.contains('=') || pattern.empty() || device.empty()) {
    error = "malformed pin '" + text.str() +
            "' (expected GLOB=DEVICE, e.g. 'classifier*=/device:CPU:0')";
    return std::nullopt;
  }
  std::optional<DeviceName> name = parseDeviceName(device);
  if (!name) {
    error = "pin '" + text.str() + "': invalid device '" + device.str() +
            "': " + kDeviceNameHelp.str();
    return std::nullopt;
  }
  llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(pattern);
  if (!glob) {
    error = "pin '" + text.str() +
            "': invalid glob: " + llvm::toString(glob.takeError());
    return std::nullopt;
  }
  return PlacementPin{text.str(), std::move(*glob), *name, 0};
}

/// The arithmetic precision of an op: that of its first floating-point
/// operand or result.
static Precision precisionOf(Operation *op) {
  auto pick = [](Type type) -> std::optional<Precision> {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return std::nullopt;
    Type element = tensor.getElementType();
    if (element.isF16())
      return Precision::F16;
    if (element.isBF16())
      return Precision::BF16;
    if (element.isF32())
      return Precision::F32;
    return std::nullopt;
  };
  for (Type t : op->getOperandTypes())
    if (auto p = pick(t))
      return *p;
  for (Type t : op->getResultTypes())
    if (auto p = pick(t))
      return *p;
  return Precision::F32;
}

/// Whether fusion will fold `op` into its producer's kernel: an elementwise
/// op reading the result of another op (an epilogue or a loop fusion), on
/// whichever device both run.
static bool fusesIntoProducer(Operation *op) {
  if (!op->hasTrait<tandem::OpTrait::Elementwise>())
    return false;
  return llvm::any_of(op->getOperands(), [](Value operand) {
    Operation *producer = operand.getDefiningOp();
    return producer && !isa<ConstantOp>(producer);
  });
}

double mlir::tandem::estimateOpUs(Operation *op, const DeviceModel &device) {
  if (whyNotOnDevice(op, device.name.kind))
    return kInf;
  OpCost cost = estimateOpCost(op);
  double outputs = 0;
  for (Type t : op->getResultTypes())
    outputs += tensorElements(t);
  // Placement runs before fusion but prices its effect: a fused op costs
  // its arithmetic, not a launch and a round trip through memory.
  if (fusesIntoProducer(op))
    return device.estimateUs(cost.flops, 0, outputs, precisionOf(op),
                             cost.isMatrix, /*launches=*/false);
  return device.estimateUs(cost.flops, cost.bytes(), outputs, precisionOf(op),
                           cost.isMatrix);
}

namespace {
/// The data-flow graph of one function as placement sees it.
struct Graph {
  /// The ops being placed (constants and terminators excluded).
  std::vector<Operation *> nodes;
  llvm::DenseMap<Operation *, size_t> index;
  /// Values with their producer node (npos = the host: an argument) and
  /// consumer nodes (npos = the host: the return or a foreign op).
  struct Edge {
    Value value;
    size_t producer;
    llvm::SmallSetVector<size_t, 4> consumers;
    double bytes;
  };
  std::vector<Edge> edges;
  static constexpr size_t kHost = ~size_t(0);
};
} // namespace

static Graph buildGraph(func::FuncOp func) {
  Graph graph;
  for (Operation &op : func.getBody().front()) {
    if (!isa<TandemDialect>(op.getDialect()) || isa<ConstantOp>(op))
      continue;
    graph.index[&op] = graph.nodes.size();
    graph.nodes.push_back(&op);
  }
  auto addValue = [&](Value value, size_t producer) {
    Graph::Edge edge{value, producer, {}, double(tensorBytes(value.getType()))};
    for (Operation *user : value.getUsers()) {
      auto it = graph.index.find(user);
      edge.consumers.insert(it == graph.index.end() ? Graph::kHost
                                                    : it->second);
    }
    if (!edge.consumers.empty())
      graph.edges.push_back(std::move(edge));
  };
  for (BlockArgument arg : func.getArguments())
    addValue(arg, Graph::kHost);
  for (auto [i, node] : llvm::enumerate(graph.nodes))
    for (Value result : node->getResults())
      addValue(result, i);
  return graph;
}

/// Total estimated time of an assignment: op times plus one copy per value
/// and destination device. Fills the transfer statistics.
static double evaluate(const Graph &graph, const std::vector<DeviceName> &where,
                       const std::vector<std::vector<double>> &costs,
                       const TargetConfig &targets, unsigned *transfers,
                       double *bytes) {
  double total = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    for (size_t d = 0; d < targets.devices.size(); ++d)
      if (targets.devices[d].name == where[n])
        total += costs[n][d];
  DeviceName host = targets.host().name;
  for (const Graph::Edge &edge : graph.edges) {
    DeviceName from =
        edge.producer == Graph::kHost ? host : where[edge.producer];
    llvm::SmallVector<DeviceName, 2> destinations;
    for (size_t c : edge.consumers) {
      DeviceName to = c == Graph::kHost ? host : where[c];
      if (!(to == from) && !llvm::is_contained(destinations, to))
        destinations.push_back(to);
    }
    for (const DeviceName &to : destinations) {
      total += targets.transferUs(from, to, edge.bytes);
      if (transfers)
        ++*transfers;
      if (bytes)
        *bytes += edge.bytes;
    }
  }
  return total;
}

/// Cuts the free nodes between the host and `gpu`. `fixed[n]` holds pinned
/// devices; nodes fixed to another GPU stay out of the cut. Returns the
/// assignment of every node.
static std::vector<DeviceName>
cutAgainst(const Graph &graph,
           const std::vector<std::optional<DeviceName>> &fixed,
           const std::vector<std::vector<double>> &costs,
           const TargetConfig &targets, size_t gpu) {
  const DeviceModel &host = targets.host();
  const DeviceModel &device = targets.devices[gpu];
  size_t hostIndex = 0;
  MinCut network(2 + graph.nodes.size());
  const size_t source = 0, sink = 1;
  auto nodeId = [&](size_t n) { return n == Graph::kHost ? source : 2 + n; };
  auto inCut = [&](size_t n) {
    return n == Graph::kHost || !fixed[n] || *fixed[n] == host.name ||
           *fixed[n] == device.name;
  };
  auto capacity = [](double us) { return std::min(us, MinCut::kInfinity); };
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!inCut(n))
      continue;
    if (fixed[n]) {
      if (*fixed[n] == host.name)
        network.addEdge(source, nodeId(n), MinCut::kInfinity);
      else
        network.addEdge(nodeId(n), sink, MinCut::kInfinity);
      continue;
    }
    network.addEdge(source, nodeId(n), capacity(costs[n][gpu]));
    network.addEdge(nodeId(n), sink, capacity(costs[n][hostIndex]));
  }
  for (const Graph::Edge &edge : graph.edges) {
    if (!inCut(edge.producer))
      continue;
    llvm::SmallVector<size_t, 4> consumers;
    for (size_t c : edge.consumers)
      if (inCut(c))
        consumers.push_back(nodeId(c));
    if (consumers.empty())
      continue;
    size_t producer = nodeId(edge.producer);
    // Host -> device copy, paid once if any consumer is on the GPU.
    size_t toDevice = network.addNode();
    network.addEdge(producer, toDevice,
                    targets.transferUs(host.name, device.name, edge.bytes));
    for (size_t c : consumers)
      network.addEdge(toDevice, c, MinCut::kInfinity);
    // Device -> host copy, paid once if any consumer is on the host.
    if (producer != source) {
      size_t toHost = network.addNode();
      network.addEdge(toHost, producer,
                      targets.transferUs(device.name, host.name, edge.bytes));
      for (size_t c : consumers)
        network.addEdge(c, toHost, MinCut::kInfinity);
    }
  }
  network.solve(source, sink);
  std::vector<DeviceName> where(graph.nodes.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!inCut(n))
      where[n] = *fixed[n];
    else
      where[n] = network.onSourceSide(nodeId(n)) ? host.name : device.name;
  }
  return where;
}

/// Finds the pin for `op`: a flag pin first, then an attribute in the IR.
static std::optional<std::pair<DeviceName, PlacementReason>>
findPin(Operation *op, const PlacerOptions &options, std::string &detail) {
  if (options.pins) {
    std::string node = getNodeName(op);
    llvm::StringRef full = op->getName().getStringRef();
    llvm::StringRef shortName = op->getName().stripDialect();
    for (PlacementPin &pin : *options.pins)
      if ((!node.empty() && pin.glob.match(node)) || pin.glob.match(full) ||
          pin.glob.match(shortName)) {
        ++pin.matches;
        detail = "--place '" + pin.text + "'";
        return std::make_pair(pin.device, PlacementReason::PinnedByFlag);
      }
  }
  if (DeviceAttr attr = getDevice(op)) {
    detail = "tandem.device in the input";
    return std::make_pair(*parseDeviceName(attr.getName()),
                          PlacementReason::PinnedInIR);
  }
  return std::nullopt;
}

FailureOr<FunctionPlacement>
mlir::tandem::placeFunction(func::FuncOp func, const PlacerOptions &options) {
  const TargetConfig &targets = *options.targets;
  DeviceName host = targets.host().name;
  Graph graph = buildGraph(func);
  size_t numNodes = graph.nodes.size();

  FunctionPlacement result;
  result.function = func.getSymName().str();
  std::vector<OpPlacement> decisions(numNodes);
  std::vector<std::vector<double>> costs(numNodes);
  std::vector<std::optional<DeviceName>> fixed(numNodes);
  bool failed = false;

  for (size_t n = 0; n < numNodes; ++n) {
    Operation *op = graph.nodes[n];
    OpPlacement &decision = decisions[n];
    decision.op = op;
    for (const DeviceModel &device : targets.devices)
      costs[n].push_back(estimateOpUs(op, device));
    decision.costUs = costs[n];
    std::optional<std::string> gpuProblem =
        whyNotOnDevice(op, DeviceName::Kind::GPU);

    std::string pinDetail;
    auto pin = findPin(op, options, pinDetail);
    if (pin) {
      auto [device, reason] = *pin;
      std::string problem;
      if (!targets.find(device))
        problem = "the target has no " + formatDeviceName(device);
      else if (std::optional<std::string> why = whyNotOnDevice(op, device.kind))
        problem = formatDeviceName(device) + " cannot run it: " + *why;
      if (problem.empty()) {
        fixed[n] = device;
        decision.reason = reason;
        decision.detail = pinDetail;
        continue;
      }
      std::string what = "'" + getDisplayName(op) + "' (" +
                         op->getName().getStringRef().str() +
                         ") is pinned to " + formatDeviceName(device) + " by " +
                         pinDetail + ", but " + problem;
      if (!options.softPlacement) {
        op->emitError() << what << " (soft placement is off)";
        failed = true;
        continue;
      }
      op->emitWarning() << "soft placement: " << what
                        << "; the cost model places it instead";
      decision.reason = PlacementReason::SoftFallback;
      decision.detail = problem;
    }
    if (gpuProblem) {
      fixed[n] = host;
      if (decision.reason != PlacementReason::SoftFallback) {
        decision.reason = targets.hasGpu() ? PlacementReason::UnsupportedOnGpu
                                           : PlacementReason::HostOnly;
        decision.detail = targets.hasGpu() ? *gpuProblem : "";
      }
    }
  }
  if (failed)
    return failure();

  // Choose: the host alone, or a cut against each GPU.
  std::vector<DeviceName> allHost(numNodes, host);
  for (size_t n = 0; n < numNodes; ++n)
    if (fixed[n])
      allHost[n] = *fixed[n];
  std::vector<DeviceName> best = allHost;
  double bestUs = evaluate(graph, allHost, costs, targets, nullptr, nullptr);
  std::vector<DeviceName> everythingHost(numNodes, host);
  result.hostOnlyUs =
      evaluate(graph, everythingHost, costs, targets, nullptr, nullptr);
  for (size_t g = 1; g < targets.devices.size(); ++g) {
    std::vector<DeviceName> where = cutAgainst(graph, fixed, costs, targets, g);
    double us = evaluate(graph, where, costs, targets, nullptr, nullptr);
    if (us < bestUs - 1e-9) {
      bestUs = us;
      best = std::move(where);
    }
  }

  // Explain the free decisions.
  for (size_t n = 0; n < numNodes; ++n) {
    OpPlacement &decision = decisions[n];
    decision.device = best[n];
    if (fixed[n] || decision.reason == PlacementReason::SoftFallback)
      continue;
    if (!targets.hasGpu()) {
      decision.reason = PlacementReason::HostOnly;
      continue;
    }
    double here = 0, cheapest = kInf;
    for (size_t d = 0; d < targets.devices.size(); ++d) {
      cheapest = std::min(cheapest, costs[n][d]);
      if (targets.devices[d].name == best[n])
        here = costs[n][d];
    }
    // Within 1% (or 10 ns) counts as a tie: the cheaper device.
    decision.reason = here <= cheapest * 1.01 + 0.01
                          ? PlacementReason::Cheapest
                          : PlacementReason::AvoidsTransfers;
  }
  result.latencyUs = evaluate(graph, best, costs, targets, &result.transfers,
                              &result.transferBytes);

  // Constants follow their first placed user (partitioning makes a copy
  // resident on every other device that uses them).
  llvm::DenseMap<Operation *, size_t> order;
  for (auto [i, op] : llvm::enumerate(graph.nodes))
    order[op] = i;
  size_t nextNode = 0;
  for (Operation &op : func.getBody().front()) {
    if (order.count(&op)) {
      result.ops.push_back(decisions[nextNode++]);
      continue;
    }
    auto constant = dyn_cast<ConstantOp>(op);
    if (!constant)
      continue;
    OpPlacement decision;
    decision.op = &op;
    decision.device = host;
    decision.reason = PlacementReason::Weight;
    decision.costUs.assign(targets.devices.size(), 0);
    size_t first = ~size_t(0);
    for (Operation *user : constant->getUsers())
      if (auto it = order.find(user); it != order.end())
        first = std::min(first, it->second);
    if (first != ~size_t(0))
      decision.device = best[first];
    decision.detail = "resident on every device that uses it";
    result.ops.push_back(decision);
  }
  return result;
}
