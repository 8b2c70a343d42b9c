//===- OutlineCaptures.h - what an outlined loop takes along ----*- C++ -*-===//
//
// Shared by tandem-outline-parallel-loops and tandem-outline-loop-nests:
// which values a loop moved into a function can receive as arguments.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_CPU_OUTLINECAPTURES_H
#define TANDEM_CODEGEN_CPU_OUTLINECAPTURES_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

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

/// Sorts the values an outlined loop uses from above into `rebuilds` (ops
/// recreated inside: constants and memref.get_globals) and `arguments`
/// (bare-pointer memrefs and scalars); fails when one can be neither.
inline LogicalResult sortCaptures(ArrayRef<Value> used,
                                  SmallVectorImpl<Operation *> &rebuilds,
                                  SmallVectorImpl<Value> &arguments) {
  for (Value value : used) {
    Operation *def = value.getDefiningOp();
    if (def && def->getNumResults() == 1 &&
        (matchPattern(def, m_Constant()) || isa<memref::GetGlobalOp>(def))) {
      rebuilds.push_back(def);
      continue;
    }
    Type type = value.getType();
    auto memref = dyn_cast<MemRefType>(type);
    if (memref ? !isBarePointerMemRef(memref) : !type.isIntOrIndexOrFloat())
      return failure();
    arguments.push_back(value);
  }
  return success();
}

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_CPU_OUTLINECAPTURES_H
