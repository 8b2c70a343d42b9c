//===- OpsetConversion.cpp - older opsets converted on import -------------===//
//
// onnx's version converter reports failures by throwing; this is the one
// place that catches (the file is compiled with -fexceptions).
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/OpsetConversion.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <exception>
#include <set>
#include <string>

using namespace mlir;

/// The first name `graph` uses (a node input or a graph output) that no
/// graph input, initializer, earlier node output or enclosing scope
/// defines, with what uses it; "" when every name is defined. onnx's
/// version converter dereferences such names unchecked (a SEGV in
/// graphProtoToGraph), and its checker does not catch all of them.
static std::string undefinedName(const onnx::GraphProto &graph,
                                 std::set<std::string> scope) {
  for (const onnx::ValueInfoProto &input : graph.input())
    scope.insert(input.name());
  for (const onnx::TensorProto &init : graph.initializer())
    scope.insert(init.name());
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string who =
        "node '" +
        (node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                             : node.name()) +
        "'";
    for (const std::string &input : node.input())
      if (!input.empty() && !scope.count(input))
        return "input '" + input + "' of " + who;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        if (std::string name = undefinedName(attr.g(), scope); !name.empty())
          return name;
      for (const onnx::GraphProto &g : attr.graphs())
        if (std::string name = undefinedName(g, scope); !name.empty())
          return name;
    }
    for (const std::string &output : node.output())
      if (!output.empty())
        scope.insert(output);
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    if (!scope.count(output.name()))
      return "graph output '" + output.name() + "'";
  return "";
}

LogicalResult mlir::tandem::onnx_import::convertOpset(onnx::ModelProto &model,
                                                      int64_t from, int64_t to,
                                                      Location fileLoc) {
  // The converter fails obscurely on ops it has no schema for; name them.
  for (auto [index, node] : llvm::enumerate(model.graph().node())) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      continue;
    if (!onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(from),
                                        ""))
      return emitError(fileLoc)
                 << "opset " << from << " is below the supported " << to
                 << " to 22, and the model cannot be converted: node '"
                 << (node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name())
                 << "' has op type '" << node.op_type() << "', which opset "
                 << from << " does not define",
             failure();
  }
  // The converter assumes a valid model and crashes on some invalid ones
  // (a node missing a required input); onnx's checker rejects those first.
  std::string invalid;
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    invalid = e.what();
  } catch (...) {
    invalid = "unknown error";
  }
  if (invalid.empty())
    if (std::string name = undefinedName(model.graph(), {}); !name.empty())
      invalid = name + " is not defined by any graph input, initializer or "
                       "earlier node";
  if (!invalid.empty()) {
    invalid = invalid.substr(0, invalid.find('\n'));
    return emitError(fileLoc)
               << "opset " << from << " is below the supported " << to
               << " to 22, and the model is not valid ONNX, so it cannot be "
                  "converted: "
               << invalid,
           failure();
  }
  std::string problem;
  try {
    // Some adapters need the shapes of intermediate values; infer them
    // first (when inference fails, the converter gets the model as it was).
    onnx::ModelProto inferred = model;
    try {
      onnx::shape_inference::InferShapes(inferred);
    } catch (...) {
      inferred = model;
    }
    model = onnx::version_conversion::ConvertVersion(inferred,
                                                     static_cast<int>(to));
  } catch (const std::exception &e) {
    problem = e.what();
  } catch (...) {
    problem = "unknown error";
  }
  if (!problem.empty()) {
    // The converter's messages can span lines; keep the first.
    problem = problem.substr(0, problem.find('\n'));
    return emitError(fileLoc)
               << "opset " << from << " is below the supported " << to
               << " to 22, and onnx's version converter cannot convert the "
                  "model ("
               << problem << "); re-export it at opset " << to << " or later",
           failure();
  }
  emitWarning(fileLoc) << "converted the model from opset " << from
                       << " to opset " << to
                       << " with onnx's version converter";
  return success();
}
