//===- StreamedWeights.h - weights written into the object ------*- C++ -*-===//
//
// A model's weights are most of its object file. Passed through LLVM they
// would be held three times at once: the MLIR blobs, LLVM IR's constants
// and the assembler's section contents. Instead, the large constant
// weights leave the module before translation, the code is generated
// against one zero-filled stand-in section that the assembler never
// materialises, and the weights' bytes are copied from their blobs into
// that section of the finished ELF object as it is written out.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_ARTIFACT_STREAMEDWEIGHTS_H
#define TANDEM_CODEGEN_ARTIFACT_STREAMEDWEIGHTS_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
class Triple;
} // namespace llvm

namespace mlir::tandem {

/// An in-memory object file that stores only the blocks holding non-zero
/// bytes: the code generator writes the stand-in weight section as zeros,
/// which cost nothing here. Supports the pwrite the ELF writer patches its
/// header with.
class SparseObjectBuffer : public llvm::raw_pwrite_stream {
public:
  SparseObjectBuffer();
  ~SparseObjectBuffer() override;

  /// The bytes written so far (after flush()).
  uint64_t size() const { return end; }
  /// Copies bytes [offset, offset + out.size()) into `out`; false when the
  /// range is not inside the buffer.
  bool read(uint64_t offset, llvm::MutableArrayRef<char> out) const;
  /// The bytes of the blocks it stores (each 64 KiB).
  uint64_t storedBytes() const;
  /// Writes bytes [begin, end) to `os`.
  void copyTo(llvm::raw_ostream &os, uint64_t begin, uint64_t end) const;

private:
  void write_impl(const char *ptr, size_t size) override;
  void pwrite_impl(const char *ptr, size_t size, uint64_t offset) override;
  uint64_t current_pos() const override { return end; }
  /// Stores `size` bytes at `offset`, allocating only blocks that get a
  /// non-zero byte.
  void store(const char *ptr, size_t size, uint64_t offset);

  std::vector<std::unique_ptr<char[]>> blocks;
  uint64_t end = 0;
};

/// The large constant weights of a module lowered to the LLVM dialect,
/// taken out of it for emission (see the file comment).
class StreamedWeights {
public:
  /// True when objects for `triple` can get their weights this way (64-bit
  /// little-endian ELF, on a little-endian host).
  static bool supports(const llvm::Triple &triple);

  /// Detaches the value of every constant `llvm.mlir.global` byte array of
  /// at least `minBytes` in `module` (tandem-flatten-weight-globals made
  /// them), leaving external declarations that translate to LLVM IR
  /// without their bytes. The destructor puts the values back.
  StreamedWeights(ModuleOp module, uint64_t minBytes);
  ~StreamedWeights();
  StreamedWeights(const StreamedWeights &) = delete;
  StreamedWeights &operator=(const StreamedWeights &) = delete;

  /// Gives the weights still used in `llvm` (the translated and optimised
  /// module) one home: a zero-initialised stand-in global alone in the
  /// weight section, each weight at its aligned offset, its declaration
  /// replaced by that address. Call right before code generation: the
  /// stand-in is writable so that nothing can fold loads from its zeros.
  void define(llvm::Module &llvm);

  /// Writes `object` (the code generator's ELF object, flushed) to `os`
  /// with the weights' bytes in the stand-in section, which becomes
  /// read-only. Fails with a diagnostic at `loc` when the object is not the
  /// one define() prepared.
  LogicalResult write(SparseObjectBuffer &object, llvm::raw_ostream &os,
                      Location loc) const;

private:
  struct Weight {
    LLVM::GlobalOp global;
    Attribute value;
    LLVM::Linkage linkage;
    llvm::ArrayRef<char> bytes;
    uint64_t alignment;
    /// Offset in the weight section; set by define() for the weights the
    /// code still uses.
    std::optional<uint64_t> offset;
  };
  std::vector<Weight> weights;
  /// The stand-in's size (0: no weight is used).
  uint64_t sectionBytes = 0;
};

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_ARTIFACT_STREAMEDWEIGHTS_H
