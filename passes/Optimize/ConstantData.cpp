//===- ConstantData.cpp - reading and writing f32 constant data -----------===//

#include "passes/Optimize/ConstantData.h"

#include "passes/Analysis/NodeName.h"

#include "dialects/Tandem/IR/OwnedBlob.h"
#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/bit.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tandem;

/// Constants above this many bytes become dense_resource blobs.
static constexpr size_t kInlineBytes = 1024;

std::optional<F32Values> mlir::tandem::viewF32Constant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type)
    return std::nullopt;
  return viewF32Elements(constant.getValue(), type);
}

/// `bytes` as `count` floats in place, if they are that many and aligned
/// for float.
static std::optional<F32Values> floatsIn(ArrayRef<char> bytes, size_t count) {
  if (bytes.size() != count * sizeof(float) ||
      !llvm::isAddrAligned(llvm::Align(alignof(float)), bytes.data()))
    return std::nullopt;
  return F32Values(
      ArrayRef<float>(reinterpret_cast<const float *>(bytes.data()), count));
}

std::optional<F32Values> mlir::tandem::viewF32Elements(Attribute attr,
                                                       ShapedType type) {
  if (!type.getElementType().isF32() || !type.hasStaticShape())
    return std::nullopt;
  size_t count = type.getNumElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return F32Values(std::vector<float>(count, dense.getSplatValue<float>()));
    if (std::optional<F32Values> view = floatsIn(dense.getRawData(), count))
      return view;
    auto values = dense.getValues<float>();
    return F32Values(std::vector<float>(values.begin(), values.end()));
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> bytes = blob->getData();
    if (std::optional<F32Values> view = floatsIn(bytes, count))
      return view;
    if (bytes.size() != count * sizeof(float))
      return std::nullopt;
    std::vector<float> data(count);
    std::memcpy(data.data(), bytes.data(), bytes.size());
    return F32Values(std::move(data));
  }
  return std::nullopt;
}

std::optional<std::vector<float>> mlir::tandem::readF32Constant(Value value) {
  std::optional<F32Values> values = viewF32Constant(value);
  if (!values)
    return std::nullopt;
  return std::vector<float>(values->values().begin(), values->values().end());
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

/// Blobs of at least this many bytes are freed by eraseDeadWeight.
static constexpr size_t kEagerReleaseBytes = size_t(1) << 20;

Operation *mlir::tandem::weightReleaseScope(Operation *passRoot) {
  return passRoot->getParentOp() ? nullptr : passRoot;
}

void mlir::tandem::eraseDeadWeight(RewriterBase &rewriter, Value weight,
                                   Operation *releaseScope) {
  auto constant = weight.getDefiningOp<ConstantOp>();
  if (!constant || !constant->use_empty())
    return;
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
  rewriter.eraseOp(constant);
  if (!resource || !releaseScope)
    return;
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob || blob->getData().size() < kEagerReleaseBytes)
    return;
  void *entry = resource.getRawHandle().getResource();
  if (!referencedBlobs(releaseScope).contains(entry))
    releaseBlob(entry);
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
                                      std::vector<float> data,
                                      llvm::StringRef nameHint) {
  return ConstantOp::create(builder, loc,
                            f32ElementsAttr(type, std::move(data), nameHint));
}

std::string mlir::tandem::constantNameHint(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return "folded";
}

ElementsAttr mlir::tandem::f32ElementsAttr(RankedTensorType type,
                                           std::vector<float> data,
                                           llvm::StringRef nameHint) {
  ElementsAttr attr;
  if (data.size() * sizeof(float) > kInlineBytes) {
    std::string name = sanitizeName(nameHint.empty() ? "folded" : nameHint);
    for (char &c : name)
      if (c == '.')
        c = '_';
    attr = DenseResourceElementsAttr::get(
        type, name, ownedBlob(std::move(data), alignof(int64_t)));
  } else {
    attr = DenseElementsAttr::get(type, ArrayRef<float>(data));
  }
  return attr;
}

uint16_t mlir::tandem::toBFloat16Bits(float x) {
  auto bits = llvm::bit_cast<uint32_t>(x);
  if ((bits & 0x7f800000u) == 0x7f800000u)
    // Infinity keeps its top half; a NaN whose payload lies in the bottom
    // half must not become infinity.
    return static_cast<uint16_t>((bits >> 16) |
                                 ((bits & 0x7fffffu) ? 0x40u : 0));
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t mlir::tandem::toFloat16Bits(float x) {
  auto bits = llvm::bit_cast<uint32_t>(x);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: quiet, with the payload's top bits
    return sign | 0x7e00u | static_cast<uint16_t>((magnitude >> 13) & 0x3ffu);
  if (magnitude >= 0x477ff000u) // from 65520 up (and infinity): infinity
    return sign | 0x7c00u;
  if (magnitude >= 0x38800000u) {
    // Normal: round the 23-bit mantissa to 10, to nearest even (a carry
    // into the exponent is right), and rebias the exponent from 127 to 15.
    uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
  }
  // Subnormal (or zero): a multiple of 2^-24; the scaling is exact and
  // nearbyint rounds to nearest even (1024 is the smallest normal).
  return sign | static_cast<uint16_t>(
                    std::nearbyint(llvm::bit_cast<float>(magnitude) * 0x1p24f));
}

ElementsAttr mlir::tandem::sixteenBitElementsAttr(RankedTensorType type,
                                                  std::vector<uint16_t> bits,
                                                  llvm::StringRef nameHint) {
  if (bits.size() * sizeof(uint16_t) > kInlineBytes) {
    std::string name = sanitizeName(nameHint.empty() ? "narrowed" : nameHint);
    for (char &c : name)
      if (c == '.')
        c = '_';
    return DenseResourceElementsAttr::get(
        type, name, ownedBlob(std::move(bits), alignof(int64_t)));
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(bits.data()),
                           bits.size() * sizeof(uint16_t)));
}

void mlir::tandem::replaceWithFolded(RewriterBase &rewriter, Operation *root,
                                     Operation *old, Operation *folded,
                                     Value weight, Operation *releaseScope) {
  folded->setLoc(rewriter.getFusedLoc({old->getLoc(), root->getLoc()}));
  rewriter.replaceOp(root, folded->getResults());
  rewriter.eraseOp(old);
  eraseDeadWeight(rewriter, weight, releaseScope);
}

void mlir::tandem::scaleRows(std::vector<float> &data,
                             llvm::ArrayRef<float> factors) {
  size_t length = data.size() / factors.size();
  for (size_t r = 0; r < factors.size(); ++r)
    for (size_t i = 0; i < length; ++i)
      data[r * length + i] *= factors[r];
}

void mlir::tandem::scaleColumns(std::vector<float> &data,
                                llvm::ArrayRef<float> factors) {
  for (size_t i = 0; i < data.size(); ++i)
    data[i] *= factors[i % factors.size()];
}

std::vector<float> mlir::tandem::transposeF32(const F32Values &in,
                                              ArrayRef<int64_t> inShape,
                                              ArrayRef<int64_t> perm) {
  auto rank = static_cast<int64_t>(inShape.size());
  SmallVector<int64_t> inStrides(rank, 1), outShape;
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  for (int64_t p : perm)
    outShape.push_back(inShape[p]);
  std::vector<float> out(in.size());
  for (int64_t i = 0, e = static_cast<int64_t>(out.size()); i < e; ++i) {
    int64_t rem = i, src = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      src += (rem % outShape[d]) * inStrides[perm[d]];
      rem /= outShape[d];
    }
    out[i] = in[src];
  }
  return out;
}
