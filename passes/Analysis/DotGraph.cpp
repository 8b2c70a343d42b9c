//===- DotGraph.cpp - Graphviz drawings of placed graphs ------------------===//

#include "passes/Analysis/DotGraph.h"

#include "passes/Analysis/NodeName.h"
#include "passes/Analysis/OpCost.h"

#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::tandem;

/// Fill colours per device: the host blue, GPUs green, orange, purple...
static llvm::StringRef deviceColor(Attribute device) {
  auto attr = dyn_cast_or_null<DeviceAttr>(device);
  if (!attr)
    return "#eeeeee";
  std::string text = attr.getName();
  llvm::StringRef name = text;
  if (name.contains("CPU"))
    return "#cfe2f3";
  static const char *gpuColors[] = {"#d9ead3", "#fce5cd", "#d9d2e9", "#f4cccc"};
  unsigned index = 0;
  name.rsplit(':').second.getAsInteger(10, index);
  return gpuColors[index % 4];
}

/// Escapes a label for a double-quoted dot string.
static std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    llvm::interleave(tensor.getShape(), os, "x");
    os << (tensor.getRank() ? "x" : "") << tensor.getElementType();
  } else {
    os << type;
  }
  return text;
}

static std::string bytesText(double bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (bytes >= 1 << 20)
    os << llvm::format("%.1f MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10)
    os << llvm::format("%.1f KiB", bytes / (1 << 10));
  else
    os << llvm::format("%.0f B", bytes);
  return text;
}

namespace {
/// Writes one function and the partitions it calls.
class Drawer {
public:
  Drawer(llvm::raw_ostream &os, SymbolTable &symbols)
      : os(os), symbols(symbols) {}

  void drawFunction(func::FuncOp func);

private:
  std::string newId() { return "n" + std::to_string(nextId++); }
  /// Draws the ops of a block (a function or fusion body). Values defined in
  /// it map to the drawn node that produces them.
  void drawBlock(Block &block, Attribute device, llvm::StringRef indent);
  void drawOp(Operation *op, Attribute device, llvm::StringRef indent);
  /// Edges from whatever produces `value` to node `to`.
  void connect(Value value, const std::string &to, llvm::StringRef style = "");

  llvm::raw_ostream &os;
  SymbolTable &symbols;
  unsigned nextId = 0;
  unsigned nextCluster = 0;
  /// The drawn nodes that produce a value (several when a value stands for
  /// another, e.g. a partition argument for its call operand).
  llvm::DenseMap<Value, llvm::SmallVector<std::string, 1>> producers;
  /// Edges are collected and written after all nodes.
  std::vector<std::string> edges;
};
} // namespace

void Drawer::connect(Value value, const std::string &to,
                     llvm::StringRef style) {
  auto it = producers.find(value);
  if (it == producers.end())
    return; // a constant or an unused input
  for (const std::string &from : it->second)
    edges.push_back(from + " -> " + to + style.str() + ";");
}

void Drawer::drawOp(Operation *op, Attribute device, llvm::StringRef indent) {
  if (isa<func::ReturnOp, YieldOp>(op) || isa<ConstantOp>(op))
    return;
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    os << indent << "subgraph cluster_" << nextCluster++ << " {\n"
       << indent << "  label=\"" << escape(fusion.getName()) << " ("
       << stringifyFusionKind(fusion.getKind())
       << ")\"; style=\"rounded,dashed\"; color=\"#555555\";\n";
    Block &body = fusion.getBody().front();
    for (auto [arg, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
      if (auto it = producers.find(input); it != producers.end())
        producers[arg] = it->second;
    drawBlock(body, device, (indent + "  ").str());
    os << indent << "}\n";
    for (auto [result, yielded] :
         llvm::zip(fusion.getResults(), fusion.getYield().getValues()))
      producers[result] = producers.lookup(yielded);
    return;
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal())
      return;
    Attribute calleeDevice = getDevice(callee);
    Block &body = callee.getBody().front();
    unsigned weights = 0;
    for (Operation &inner : body)
      weights += isa<ConstantOp>(inner);
    os << indent << "subgraph cluster_" << nextCluster++ << " {\n"
       << indent << "  label=\"" << call.getCallee();
    if (auto attr = dyn_cast_or_null<DeviceAttr>(calleeDevice))
      os << " on " << attr.getName();
    if (weights)
      os << ", " << weights << " resident constant" << (weights > 1 ? "s" : "");
    os << "\"; style=\"filled\"; fillcolor=\"#fafafa\"; color=\"#888888\";\n";
    for (auto [arg, operand] :
         llvm::zip(body.getArguments(), call.getOperands()))
      if (auto it = producers.find(operand); it != producers.end())
        producers[arg] = it->second;
    drawBlock(body, calleeDevice, (indent + "  ").str());
    os << indent << "}\n";
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    for (auto [result, returned] :
         llvm::zip(call.getResults(), ret.getOperands()))
      producers[result] = producers.lookup(returned);
    return;
  }
  if (auto transfer = dyn_cast<TransferOp>(op)) {
    std::string id = newId();
    double bytes = 0;
    for (Value v : transfer.getInputs())
      bytes += tensorBytes(v.getType());
    std::string src = transfer.getSrc().getName();
    std::string dst = transfer.getDst().getName();
    bool up = llvm::StringRef(dst).contains("GPU") &&
              llvm::StringRef(src).contains("CPU");
    bool down = llvm::StringRef(src).contains("GPU") &&
                llvm::StringRef(dst).contains("CPU");
    os << indent << id << " [shape=cds, style=filled, fillcolor=\"#f4cccc\", "
       << "color=\"#cc0000\", label=\""
       << (up     ? "H2D"
           : down ? "D2H"
                  : "D2D")
       << " copy\\n"
       << src << " -> " << dst << "\\n"
       << transfer.getInputs().size() << " value"
       << (transfer.getInputs().size() > 1 ? "s" : "") << ", "
       << bytesText(bytes) << "\"];\n";
    for (Value v : transfer.getInputs())
      connect(v, id, " [color=\"#cc0000\", style=dashed]");
    for (Value result : transfer.getResults())
      producers[result] = {id};
    return;
  }
  Attribute placed = getDevice(op);
  if (!placed)
    placed = device;
  std::string id = newId();
  std::string node = getDisplayName(op);
  os << indent << id << " [label=\"" << escape(node) << "\\n"
     << op->getName().stripDialect();
  if (op->getNumResults() == 1)
    os << " " << typeText(op->getResult(0).getType());
  os << "\", style=filled, fillcolor=\"" << deviceColor(placed) << "\"];\n";
  for (Value operand : op->getOperands()) {
    // An edge whose endpoints sit on different devices is a copy.
    Operation *producer = operand.getDefiningOp();
    Attribute from = producer ? getDevice(producer) : Attribute();
    bool crosses = from && placed && from != placed;
    connect(operand, id,
            crosses ? " [color=\"#cc0000\", style=dashed, "
                      "label=\"copy\"]"
                    : "");
  }
  for (Value result : op->getResults())
    producers[result] = {id};
}

void Drawer::drawBlock(Block &block, Attribute device, llvm::StringRef indent) {
  for (Operation &op : block)
    drawOp(&op, device, indent);
}

void Drawer::drawFunction(func::FuncOp func) {
  os << "  subgraph cluster_" << nextCluster++ << " {\n"
     << "    label=\"@" << func.getSymName() << "\";\n";
  for (BlockArgument arg : func.getArguments()) {
    std::string id = newId();
    os << "    " << id << " [shape=invhouse, label=\"input "
       << arg.getArgNumber() << "\\n"
       << typeText(arg.getType()) << "\"];\n";
    producers[arg] = {id};
  }
  drawBlock(func.getBody().front(), getDevice(func), "    ");
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    std::string id = newId();
    os << "    " << id << " [shape=house, label=\"output " << i << "\\n"
       << typeText(value.getType()) << "\"];\n";
    connect(value, id);
  }
  os << "  }\n";
  for (const std::string &edge : edges)
    os << "  " << edge << "\n";
  edges.clear();
}

void mlir::tandem::writeDotGraph(ModuleOp module, llvm::raw_ostream &os) {
  SymbolTable symbols(module);
  Drawer drawer(os, symbols);
  os << "digraph tandem {\n"
     << "  compound=true; rankdir=TB;\n"
     << "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        !func->hasAttr(TandemDialect::getPartitionAttrName()))
      drawer.drawFunction(func);
  os << "}\n";
}
