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
#include "llvm/Support/MemoryBuffer.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;

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

/// importOnnxBuffer; `owner`, if given, holds `bytes` and is freed as soon as
/// the protobuf is parsed (for a large model, the mapped file would
/// otherwise stay resident beside the parsed copy and the new weight blobs).
static OwningOpRef<ModuleOp>
importBytes(MLIRContext &context, llvm::StringRef bytes,
            std::unique_ptr<llvm::MemoryBuffer> owner, llvm::StringRef path,
            const OnnxImportOptions &options) {
  context.loadDialect<TandemDialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  if (bytes.empty())
    return emitError(loc) << "empty file: not an ONNX model", nullptr;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return emitError(loc) << "model of " << bytes.size()
                          << " bytes exceeds protobuf's 2 GiB limit; store "
                             "the weights as external data",
           nullptr;

  onnx::ModelProto model;
  bool parsed =
      model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  owner.reset();
  bytes = {};
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
  return importBytes(context, bytes, nullptr, path, options);
}

OwningOpRef<ModuleOp>
mlir::tandem::importOnnxFile(MLIRContext &context, llvm::StringRef path,
                             const OnnxImportOptions &options) {
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  // A device, FIFO or folder would hang the read or fail obscurely.
  if (std::string why = checkRegularFile(path); !why.empty())
    return emitError(loc) << "cannot read file: " << why, nullptr;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read file: "
                          << buffer.getError().message(),
           nullptr;
  llvm::StringRef bytes = (*buffer)->getBuffer();
  return importBytes(context, bytes, std::move(*buffer), path, options);
}
