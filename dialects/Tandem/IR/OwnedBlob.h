//===- OwnedBlob.h - resource blobs that adopt a buffer ---------*- C++ -*-===//
//
// Weights become dense_resource blobs. Copying a weight into a blob
// (HeapAsmResourceBlob::allocateAndCopy) holds it twice for a moment, and a
// large model's peak compile memory is made of such moments; these blobs
// take over the buffer the data already lives in instead.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_OWNEDBLOB_H
#define TANDEM_DIALECTS_TANDEM_IR_OWNEDBLOB_H

#include "mlir/IR/AsmState.h"
#include "llvm/Support/Alignment.h"

#include <memory>
#include <type_traits>
#include <utility>

namespace mlir::tandem {

/// A mutable blob over the elements of `data` (a std::vector or
/// std::string), which it takes over without copying them and frees with
/// itself. `align` is the alignment the blob declares; a buffer that does
/// not meet it (never the case for a heap buffer and the alignments of
/// numeric types) is copied into an aligned one instead.
template <typename Container>
AsmResourceBlob ownedBlob(Container &&data, size_t align) {
  using Owned = std::remove_cv_t<std::remove_reference_t<Container>>;
  auto owned = std::make_unique<Owned>(std::forward<Container>(data));
  ArrayRef<char> bytes(reinterpret_cast<const char *>(owned->data()),
                       owned->size() * sizeof(typename Owned::value_type));
  if (!llvm::isAddrAligned(llvm::Align(align), bytes.data()))
    return HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, align);
  Owned *raw = owned.release();
  return AsmResourceBlob(
      bytes, align, [raw](void *, size_t, size_t) { delete raw; },
      /*dataIsMutable=*/true);
}

} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_OWNEDBLOB_H
