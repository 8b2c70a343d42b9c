//===- ConstantData.cpp - reading and writing f32 constant data -----------===//

#include "passes/Optimize/ConstantData.h"

#include "passes/Analysis/NodeName.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tandem;

/// Constants above this many bytes become dense_resource blobs.
static constexpr size_t kInlineBytes = 1024;

std::optional<std::vector<float>> mlir::tandem::readF32Constant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type)
    return std::nullopt;
  return readF32Elements(constant.getValue(), type);
}

std::optional<std::vector<float>>
mlir::tandem::readF32Elements(Attribute attr, ShapedType type) {
  if (!type.getElementType().isF32() || !type.hasStaticShape())
    return std::nullopt;
  size_t count = type.getNumElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return std::vector<float>(count, dense.getSplatValue<float>());
    auto values = dense.getValues<float>();
    return std::vector<float>(values.begin(), values.end());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> bytes = blob->getData();
    if (bytes.size() != count * sizeof(float))
      return std::nullopt;
    std::vector<float> data(count);
    std::memcpy(data.data(), bytes.data(), bytes.size());
    return data;
  }
  return std::nullopt;
}

/// The blob entries of the dense_resource attributes `root` and its
/// nested ops carry.
static llvm::SmallPtrSet<void *, 16> referencedBlobs(Operation *root) {
  llvm::SmallPtrSet<void *, 16> entries;
  root->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr attr) {
      entries.insert(attr.getRawHandle().getResource());
    });
  });
  return entries;
}

/// Empties `entry`'s blob, returning its size.
static size_t releaseBlob(void *e) {
  auto *entry = static_cast<DialectResourceBlobManager::BlobEntry *>(e);
  AsmResourceBlob *blob = entry->getBlob();
  if (!blob)
    return 0;
  size_t bytes = blob->getData().size();
  entry->setBlob(AsmResourceBlob());
  return bytes;
}

size_t mlir::tandem::releaseResourceBlobs(Operation *root) {
  size_t freed = 0;
  for (void *e : referencedBlobs(root))
    freed += releaseBlob(e);
  return freed;
}

void DeadBlobInstrumentation::runBeforePass(Pass *, Operation *op) {
  if (isa<ModuleOp>(op))
    for (void *e : referencedBlobs(op))
      seen.insert(e);
}

void DeadBlobInstrumentation::runAfterPass(Pass *, Operation *op) {
  if (!isa<ModuleOp>(op))
    return;
  llvm::SmallPtrSet<void *, 16> live = referencedBlobs(op);
  for (void *e : seen)
    if (!live.contains(e))
      freed += releaseBlob(e);
  seen = std::move(live);
}

Value mlir::tandem::createF32Constant(OpBuilder &builder, Location loc,
                                      RankedTensorType type,
                                      llvm::ArrayRef<float> data,
                                      llvm::StringRef nameHint) {
  return ConstantOp::create(builder, loc,
                            f32ElementsAttr(type, data, nameHint));
}

ElementsAttr mlir::tandem::f32ElementsAttr(RankedTensorType type,
                                           llvm::ArrayRef<float> data,
                                           llvm::StringRef nameHint) {
  ElementsAttr attr;
  if (data.size() * sizeof(float) > kInlineBytes) {
    std::string name = sanitizeName(nameHint.empty() ? "folded" : nameHint);
    for (char &c : name)
      if (c == '.')
        c = '_';
    attr = DenseResourceElementsAttr::get(
        type, name,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                           data.size() * sizeof(float)),
            alignof(int64_t)));
  } else {
    attr = DenseElementsAttr::get(type, data);
  }
  return attr;
}
