//===- OnnxImporter.cpp - ONNX model file -> tandem dialect ---------------===//
//
// File-level import: reading and parsing the protobuf, recognising files
// that are not ONNX models, and checking the opset before the graph import.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/OnnxImporter.h"

#include "compiler/Import/GraphImporter.h"
#include "compiler/Import/InputBinding.h"
#include "compiler/Import/OpsetConversion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <limits>

using namespace mlir;
using namespace mlir::tandem;

/// The read size when parsing a model file.
static constexpr int kReadBlockBytes = 1 << 20;

std::string mlir::tandem::checkRegularFile(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return ec.message();
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    return "it is a directory";
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return "not a regular file (a device, FIFO or socket)";
  return "";
}

/// Refuses a model file of `size` bytes before parsing it: empty, or past
/// protobuf's 2 GiB limit.
static LogicalResult checkModelSize(uint64_t size, Location loc) {
  if (size == 0)
    return emitError(loc) << "empty file: not an ONNX model";
  if (size > static_cast<uint64_t>(std::numeric_limits<int>::max()))
    return emitError(loc) << "model of " << size
                          << " bytes exceeds protobuf's 2 GiB limit; store "
                             "the weights as external data";
  return success();
}

/// Imports `model`, parsed (`parsed`) from the file or buffer at `path`.
static OwningOpRef<ModuleOp> importParsed(MLIRContext &context,
                                          onnx::ModelProto &model, bool parsed,
                                          Location loc, llvm::StringRef path,
                                          const OnnxImportOptions &options) {
  if (!parsed)
    return emitError(loc) << "cannot parse the file as an ONNX model: "
                             "truncated or corrupt protobuf, or not ONNX",
           nullptr;
  // Protobuf accepts many non-ONNX byte strings; a model has an IR version,
  // an opset and a graph with at least one output.
  if (model.ir_version() <= 0 || !model.has_graph() ||
      model.opset_import_size() == 0 || model.graph().output_size() == 0)
    return emitError(loc) << "not an ONNX model: "
                          << (model.ir_version() <= 0 ? "no IR version"
                              : !model.has_graph()    ? "no graph"
                              : model.opset_import_size() == 0
                                  ? "no opset import"
                                  : "the graph has no outputs"),
           nullptr;

  int64_t opset = -1;
  for (const onnx::OperatorSetIdProto &op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      opset = op.version();
  if (opset < 0)
    return emitError(loc) << "the model imports no default-domain (ai.onnx) "
                             "opset",
           nullptr;
  if (opset > kMaxOnnxOpset)
    return emitError(loc) << "opset " << opset
                          << " is not supported (supported: " << kMinOnnxOpset
                          << " to " << kMaxOnnxOpset << ")",
           nullptr;
  if (opset < kMinOnnxOpset &&
      failed(onnx_import::convertOpset(model, opset, kMinOnnxOpset, loc)))
    return nullptr;

  if (failed(onnx_import::bindInputs(model, options.boundInputs, loc)))
    return nullptr;
  onnx_import::GraphImporter importer(context, model, path, options);
  return importer.run();
}

OwningOpRef<ModuleOp>
mlir::tandem::importOnnxBuffer(MLIRContext &context, llvm::StringRef bytes,
                               llvm::StringRef path,
                               const OnnxImportOptions &options) {
  context.loadDialect<TandemDialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  if (failed(checkModelSize(bytes.size(), loc)))
    return nullptr;
  onnx::ModelProto model;
  bool parsed =
      model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  return importParsed(context, model, parsed, loc, path, options);
}

OwningOpRef<ModuleOp>
mlir::tandem::importOnnxFile(MLIRContext &context, llvm::StringRef path,
                             const OnnxImportOptions &options) {
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  // A device, FIFO or folder would hang the read or fail obscurely.
  if (std::string why = checkRegularFile(path); !why.empty())
    return emitError(loc) << "cannot read file: " << why, nullptr;
  context.loadDialect<TandemDialect, func::FuncDialect>();
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size))
    return emitError(loc) << "cannot read file: " << ec.message(), nullptr;
  if (failed(checkModelSize(size, loc)))
    return nullptr;
  // The protobuf is parsed from the file through a small buffer, never from
  // a mapping of the whole file: the mapped pages would be resident beside
  // the parsed weights, doubling a large model's memory at import.
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return emitError(loc) << "cannot read file: "
                          << llvm::toString(file.takeError()),
           nullptr;
  onnx::ModelProto model;
  bool parsed;
  {
    google::protobuf::io::FileInputStream input(*file, kReadBlockBytes);
    parsed = model.ParseFromZeroCopyStream(&input);
  }
  llvm::sys::fs::closeFile(*file);
  return importParsed(context, model, parsed, loc, path, options);
}
