//===- ModelSignature.cpp - a compiled model's inputs and outputs ---------===//

#include "codegen/Artifact/ModelSignature.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::tandem;

int64_t mlir::tandem::dtypeSize(tandem_dtype_t dtype) {
  int64_t size = tandem_abi_dtype_size(dtype);
  assert(size > 0 && "unknown dtype");
  return size;
}

int64_t TensorSignature::bytes() const {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  return count * dtypeSize(dtype);
}

llvm::StringRef mlir::tandem::dtypeName(tandem_dtype_t dtype) {
  return tandem_abi_dtype_name(dtype);
}

llvm::StringRef mlir::tandem::dtypeCType(tandem_dtype_t dtype) {
  switch (dtype) {
  case TANDEM_F32:
    return "float";
  case TANDEM_F16:
  case TANDEM_BF16:
    return "uint16_t";
  case TANDEM_I64:
    return "int64_t";
  case TANDEM_I32:
    return "int32_t";
  case TANDEM_BOOL:
    return "bool";
  case TANDEM_F64:
    return "double";
  case TANDEM_I8:
    return "int8_t";
  case TANDEM_U8:
    return "uint8_t";
  case TANDEM_I16:
    return "int16_t";
  case TANDEM_U16:
    return "uint16_t";
  case TANDEM_U32:
    return "uint32_t";
  case TANDEM_U64:
    return "uint64_t";
  }
  llvm_unreachable("unknown dtype");
}

/// The ABI dtype of a tandem element type: signless integers are signed,
/// ui8 ... ui64 unsigned (the tandem dialect keeps ONNX's signedness until
/// the lowering, and the signature is read before it).
static std::optional<tandem_dtype_t> toDType(Type type) {
  if (type.isF32())
    return TANDEM_F32;
  if (type.isF16())
    return TANDEM_F16;
  if (type.isBF16())
    return TANDEM_BF16;
  if (type.isF64())
    return TANDEM_F64;
  if (type.isInteger(1))
    return TANDEM_BOOL;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.isSigned())
    return std::nullopt;
  bool u = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 8:
    return u ? TANDEM_U8 : TANDEM_I8;
  case 16:
    return u ? TANDEM_U16 : TANDEM_I16;
  case 32:
    return u ? TANDEM_U32 : TANDEM_I32;
  case 64:
    return u ? TANDEM_U64 : TANDEM_I64;
  default:
    return std::nullopt;
  }
}

/// Reads one argument or result.
static FailureOr<TensorSignature> readTensor(Operation *func, Type type,
                                             DictionaryAttr attrs,
                                             llvm::StringRef kind,
                                             unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<tandem_dtype_t> dtype =
      tensor ? toDType(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !dtype)
    return func->emitError() << kind << " #" << index << " has type " << type
                             << ": a model's inputs and outputs must be "
                                "static tensors of f32, f16, bf16, i64, i32 "
                                "or i1";
  TensorSignature sig;
  sig.dtype = *dtype;
  sig.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  auto name = attrs ? attrs.getAs<StringAttr>("onnx.name") : StringAttr();
  sig.name = name ? name.str() : (kind + std::to_string(index)).str();
  return sig;
}

FailureOr<ModelSignature>
mlir::tandem::readModelSignature(ModuleOp module, llvm::StringRef name) {
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func || func.isExternal())
    return module.emitError() << "no model function '@" << name
                              << "' to compile (--name must name the "
                                 "model's function)";
  ModelSignature signature;
  signature.name = name.str();
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto input = readTensor(func, func.getArgumentTypes()[i],
                            func.getArgAttrDict(i), "input", i);
    if (failed(input))
      return failure();
    signature.inputs.push_back(*input);
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto output = readTensor(func, func.getResultTypes()[i],
                             func.getResultAttrDict(i), "output", i);
    if (failed(output))
      return failure();
    signature.outputs.push_back(*output);
  }
  // Weights: every constant of the module, counted once per attribute.
  llvm::DenseSet<Attribute> seen;
  module.walk([&](ConstantOp constant) {
    if (seen.insert(constant.getValue()).second)
      signature.weightBytes +=
          TensorSignature{
              "",
              toDType(constant.getType().getElementType()).value_or(TANDEM_F32),
              {constant.getType().getShape().begin(),
               constant.getType().getShape().end()}}
              .bytes();
  });
  return signature;
}
