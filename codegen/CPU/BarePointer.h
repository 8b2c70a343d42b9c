//===- BarePointer.h - memrefs the bare-pointer convention passes -*- C++
//-*-===//

#ifndef TANDEM_CODEGEN_CPU_BAREPOINTER_H
#define TANDEM_CODEGEN_CPU_BAREPOINTER_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tandem {

/// True if a memref of this type becomes one plain pointer under the
/// bare-pointer calling convention: static shape, strides and offset (the
/// callee rebuilds the descriptor from the type).
inline bool isBarePointerMemRef(MemRefType type) {
  if (!type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return ShapedType::isStatic(offset) && llvm::all_of(strides, [](int64_t s) {
           return ShapedType::isStatic(s);
         });
}

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_CPU_BAREPOINTER_H
