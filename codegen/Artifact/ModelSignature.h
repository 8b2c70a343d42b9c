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

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tandem {

/// Element types as the runtime ABI numbers them (tandem_dtype_t; new ones
/// are appended there and here, existing values never change).
enum class AbiDType : int32_t {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  I64 = 3,
  I32 = 4,
  Bool = 5,
  F64 = 6,
  I8 = 7,
  U8 = 8,
  I16 = 9,
  U16 = 10,
  U32 = 11,
  U64 = 12
};

/// Bytes per element of `dtype` (bool is one byte).
int64_t dtypeSize(AbiDType dtype);

/// One input or output.
struct TensorSignature {
  std::string name;
  AbiDType dtype;
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
llvm::StringRef dtypeName(AbiDType dtype);
llvm::StringRef dtypeCType(AbiDType dtype);

/// Reads the signature of the public function `name` of `module` (argument
/// and result attributes `onnx.name` give the names). Fails with a
/// diagnostic for an unknown function or an unsupported element type.
FailureOr<ModelSignature> readModelSignature(ModuleOp module,
                                             llvm::StringRef name);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_ARTIFACT_MODELSIGNATURE_H
