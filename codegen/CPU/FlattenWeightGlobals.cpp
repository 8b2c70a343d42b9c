//===- FlattenWeightGlobals.cpp - constant tensors as byte arrays ---------===//
//
// Retypes constant llvm.mlir.global tensors as flat i8 arrays over the same
// raw bytes, so that LLVM IR holds one byte string per weight instead of a
// tree of per-row constants (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFLATTENWEIGHTGLOBALS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {

/// The smallest alignment a flattened weight gets: the runtime's kernels
/// read packed weights with 64-byte vector loads.
constexpr uint64_t kWeightAlignment = 64;

/// The value of `attr` as a 1-D tensor of bytes sharing its storage, or
/// null when it cannot be reinterpreted (splats, sub-byte or non-numeric
/// elements, resources without a blob).
ElementsAttr asBytes(Attribute attr) {
  auto elements = dyn_cast_or_null<ElementsAttr>(attr);
  if (!elements)
    return {};
  Type element = elements.getShapedType().getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  int64_t bytes = elements.getNumElements() *
                  (element.getIntOrFloatBitWidth() / 8);
  auto type =
      RankedTensorType::get({bytes}, IntegerType::get(attr.getContext(), 8));
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr)) {
    if (dense.isSplat())
      return {};
    return DenseElementsAttr::getFromRawBuffer(type, dense.getRawData());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || int64_t(blob->getData().size()) != bytes)
      return {};
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  }
  return {};
}

struct FlattenWeightGlobalsPass
    : tandem::impl::TandemFlattenWeightGlobalsBase<FlattenWeightGlobalsPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      if (!global.getConstant())
        continue;
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getType());
      if (!array || array.getElementType().isInteger(8))
        continue;
      ElementsAttr bytes = asBytes(global.getValueOrNull());
      if (!bytes)
        continue;
      global.setGlobalTypeAttr(TypeAttr::get(LLVM::LLVMArrayType::get(
          IntegerType::get(&getContext(), 8), bytes.getNumElements())));
      global.setValueAttr(bytes);
      global.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(0),
                             kWeightAlignment));
    }
  }
};

} // namespace
