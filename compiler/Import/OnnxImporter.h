//===- OnnxImporter.h - ONNX model -> tandem dialect ------------*- C++ -*-===//
//
// Imports an ONNX model file into a module holding one func.func of tandem
// ops. Node names become op locations; initializers become tandem.constant
// (large ones as dense_resource blobs); shape-computing subgraphs fold away,
// so the result is fully static.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_IMPORT_ONNXIMPORTER_H
#define TANDEM_COMPILER_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlir::tandem {

/// Options of the ONNX importer.
struct OnnxImportOptions {
  /// Static shapes for graph inputs, by input name; they override the
  /// model's declared dims (which must agree where they are fixed).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Value given to a symbolic leading (batch) dim that no input shape binds;
  /// a warning announces it. Other symbolic dims must be bound.
  int64_t defaultBatch = 1;
  /// Graph inputs fixed to a value, by input name: each maps to a file
  /// holding a serialised ONNX TensorProto. A bound input becomes a constant
  /// (ops that need it at compile time fold it) and leaves the signature.
  std::map<std::string, std::string> boundInputs;
  /// Constants of more bytes than this become dense_resource blobs.
  int64_t resourceThresholdBytes = 256;
  /// Name of the generated function.
  std::string functionName = "main";
};

/// Lowest and highest default-domain opset the importer supports.
constexpr int64_t kMinOnnxOpset = 13;
constexpr int64_t kMaxOnnxOpset = 22;

/// Imports the ONNX model at `path`. Errors and warnings go to the context's
/// diagnostic handler, located at the file and, for node problems, at the
/// node (a NameLoc holding the node name). Returns null on failure.
OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &context, llvm::StringRef path,
                                     const OnnxImportOptions &options);

/// Imports an ONNX model from memory; `path` names it in diagnostics and
/// anchors relative external-data locations.
OwningOpRef<ModuleOp> importOnnxBuffer(MLIRContext &context,
                                       llvm::StringRef bytes,
                                       llvm::StringRef path,
                                       const OnnxImportOptions &options);

/// Why `path` cannot be read as an input file (it does not exist, is a
/// directory, a device, a FIFO or a socket); empty when it is a regular file.
std::string checkRegularFile(llvm::StringRef path);

/// The default-domain ONNX op types the importer converts, sorted.
std::vector<std::string> supportedOnnxOps();

} // namespace mlir::tandem

#endif // TANDEM_COMPILER_IMPORT_ONNXIMPORTER_H
