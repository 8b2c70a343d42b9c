//===- ModelChecks.cpp - structural checks of an ONNX model ---------------===//
//
// What onnx's checker and onnxruntime reject before running anything, done
// before import so that a malformed or hostile model gets an error naming
// the tensor, node or file instead of a crash or a silent misreading: one
// definition per tensor name (SSA), attributes of the types their op's schema
// declares, and external data that stays inside the model's folder and is a
// regular file.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ModelChecks.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <onnx/defs/schema.h>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

/// The name a diagnostic gives node `index` of the graph.
static std::string nodeLabel(const onnx::NodeProto &node, int index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name();
  return "node '" + name + "' (" + node.op_type() + ")";
}

LogicalResult onnx_import::checkTensorNames(const onnx::GraphProto &graph,
                                            Location fileLoc) {
  // Where each tensor name is defined: a graph input, an initializer or a
  // node output. Older exporters list initializers among the graph inputs
  // as well, which is not a second definition.
  llvm::StringMap<std::string> definedBy;
  llvm::StringMap<bool> initializers;
  bool ok = true;
  for (const onnx::TensorProto &init : graph.initializer()) {
    if (initializers.count(init.name())) {
      // onnx's checker rejects this; onnxruntime warns and takes the last.
      emitWarning(fileLoc) << "initializer '" << init.name()
                           << "' is declared more than once; the last "
                              "declaration is used";
      continue;
    }
    initializers[init.name()] = true;
    definedBy[init.name()] = "initializer '" + init.name() + "'";
  }
  llvm::StringMap<bool> inputs;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (!inputs.insert({input.name(), true}).second) {
      emitError(fileLoc) << "graph input '" << input.name()
                         << "' is declared more than once";
      ok = false;
      continue;
    }
    if (!initializers.count(input.name()))
      definedBy[input.name()] = "graph input '" + input.name() + "'";
  }
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    for (const std::string &output : node.output()) {
      if (output.empty())
        continue;
      auto [it, inserted] = definedBy.insert({output, nodeLabel(node, index)});
      if (inserted)
        continue;
      emitError(fileLoc) << nodeLabel(node, index) << ": output '" << output
                         << "' is already defined by " << it->second
                         << " (each tensor name must be defined once)";
      ok = false;
    }
  }
  llvm::StringMap<bool> outputs;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    if (outputs.insert({output.name(), true}).second)
      continue;
    emitError(fileLoc) << "graph output '" << output.name()
                       << "' is listed more than once";
    ok = false;
  }
  return success(ok);
}

/// The ONNX name of an attribute type ("INT", "FLOATS", ...).
static std::string attributeTypeName(int type) {
  if (onnx::AttributeProto::AttributeType_IsValid(type))
    return onnx::AttributeProto::AttributeType_Name(
        static_cast<onnx::AttributeProto::AttributeType>(type));
  return "#" + std::to_string(type);
}

LogicalResult onnx_import::checkAttributeTypes(const onnx::GraphProto &graph,
                                               int64_t opset,
                                               Location fileLoc) {
  bool ok = true;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    const onnx::OpSchema *schema =
        defaultDomain ? onnx::OpSchemaRegistry::Schema(node.op_type(),
                                                       static_cast<int>(opset))
                      : nullptr;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      // A typed attribute whose type field is unset (old exporters) is read
      // by its payload, as onnxruntime does.
      if (attr.type() == onnx::AttributeProto::UNDEFINED)
        continue;
      if (!schema)
        continue;
      auto it = schema->attributes().find(attr.name());
      // Attributes newer than the schemas built in stay unchecked here; the
      // op's converter reads them.
      if (it == schema->attributes().end())
        continue;
      auto expected = static_cast<int>(it->second.type);
      if (attr.type() == expected)
        continue;
      emitError(fileLoc) << nodeLabel(node, index) << ": attribute '"
                         << attr.name() << "' has type "
                         << attributeTypeName(attr.type()) << ", expected "
                         << attributeTypeName(expected);
      ok = false;
    }
  }
  return success(ok);
}

FailureOr<std::string> onnx_import::resolveExternalData(StringRef modelPath,
                                                        StringRef location,
                                                        StringRef what,
                                                        Location fileLoc) {
  auto fail = [&](const Twine &why) {
    emitError(fileLoc) << what << ": external data location '" << location
                       << "' " << why;
    return failure();
  };
  if (location.empty())
    return fail("is empty");
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::has_root_name(location))
    return fail("is absolute; it must be relative to the model's folder");
  for (StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location)))
    if (part == "..")
      return fail("contains '..'; it must stay inside the model's folder");

  // Symbolic links may not lead out of the folder either: compare the real
  // paths.
  SmallString<256> folder(llvm::sys::path::parent_path(modelPath));
  if (folder.empty())
    folder = ".";
  SmallString<256> realFolder, realFile;
  if (std::error_code ec = llvm::sys::fs::real_path(folder, realFolder))
    return fail("cannot be resolved: the model's folder: " + ec.message());
  SmallString<256> full(folder);
  llvm::sys::path::append(full, location);
  if (std::error_code ec = llvm::sys::fs::real_path(full, realFile)) {
    emitError(fileLoc) << what << ": cannot read external data file '" << full
                       << "': " << ec.message();
    return failure();
  }
  StringRef inside(realFile);
  if (!inside.starts_with(realFolder) ||
      (inside.size() > realFolder.size() &&
       !llvm::sys::path::is_separator(inside[realFolder.size()])))
    return fail("leads outside the model's folder (to '" + realFile + "')");
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(realFile, status))
    return fail("cannot be read: '" + realFile + "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return fail("is not a regular file ('" + realFile + "')");
  return std::string(realFile);
}
