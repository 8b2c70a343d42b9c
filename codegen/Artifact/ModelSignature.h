//===- ModelSignature.h - a compiled model's inputs and outputs -*- C++ -*-===//
//
// The interface a compiled model presents to its users: its name, its
// inputs and outputs (names, dtypes, shapes) and its memory needs. Read from
// the model function before lowering; the header and the runtime descriptor
// are both written from it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_ARTIFACT_MODELSIGNATURE_H
#define TANDEM_CODEGEN_ARTIFACT_MODELSIGNATURE_H

#include "mlir/IR/BuiltinOps.h"

// The element types are the ABI's (tandem_dtype_t, TANDEM_F32, ...).
#include "runtime/include/tandem/abi.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tandem {

/// Bytes per element of `dtype` (bool is one byte).
int64_t dtypeSize(tandem_dtype_t dtype);

/// One input or output.
struct TensorSignature {
  std::string name;
  tandem_dtype_t dtype;
  std::vector<int64_t> shape;
  int64_t bytes() const;
};

struct ModelSignature {
  /// The model's name: its function and the prefix of every symbol.
  std::string name;
  std::vector<TensorSignature> inputs, outputs;
  /// Read-only weights in the artifact, bytes.
  uint64_t weightBytes = 0;
  /// Host arena the entry needs, bytes (64-byte aligned).
  uint64_t arenaBytes = 0;
};

/// The ABI name of a dtype ("f32", "u8", ...) and its C type ("float",
/// "uint8_t", ...).
llvm::StringRef dtypeName(tandem_dtype_t dtype);
llvm::StringRef dtypeCType(tandem_dtype_t dtype);

/// Reads the signature of the public function `name` of `module` (argument
/// and result attributes `onnx.name` give the names). Fails with a
/// diagnostic for an unknown function or an unsupported element type.
FailureOr<ModelSignature> readModelSignature(ModuleOp module,
                                             llvm::StringRef name);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_ARTIFACT_MODELSIGNATURE_H
