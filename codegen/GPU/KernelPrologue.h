//===- KernelPrologue.h - ops a GPU kernel computes per point ---*- C++ -*-===//
//
// A kernel's prologue is the work that feeds its main linalg op and that
// the GPU mapping evaluates at each point of the main op instead of running
// as launches of its own, so that Conv + BiasAdd + ReLU is one launch:
//
//  * a padded input: a buffer filled with a constant whose interior a copy
//    then overwrites (a bufferised tensor.pad). The main op's loads from it
//    read the copy's source with a bounds check, or the pad value.
//  * an init producer: an elementwise op that writes the main op's whole
//    output right before it (the broadcast bias a convolution accumulates
//    into, the zero fill of a matmul). Each thread starts its accumulator
//    from the producer's value at its point instead of loading it.
//
// tandem-outline-kernels moves the prologue into the main op's kernel
// function (the padded buffer becomes local to it), where the CPU twin runs
// it as written; tandem-map-kernels-to-gpu finds it there again and maps
// only the main op.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_KERNELPROLOGUE_H
#define TANDEM_CODEGEN_GPU_KERNELPROLOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tandem {

struct KernelPrologue {
  /// A padded buffer the main op reads.
  struct PaddedInput {
    /// The buffer (a memref.alloc used by the prologue and the main op
    /// only).
    Value buffer;
    /// The values the copy writes into its interior.
    Value source;
    /// Where the interior starts along each dimension.
    SmallVector<int64_t> low;
    /// What the fill writes everywhere else.
    Value padValue;
  };
  SmallVector<PaddedInput> paddedInputs;

  /// The op that writes the main op's whole output right before it, or
  /// null.
  linalg::LinalgOp initProducer;

  /// The prologue ops in block order (fills, interior views, copies and
  /// the init producer).
  SmallVector<Operation *> ops;

  bool empty() const { return ops.empty(); }

  /// The padded input whose buffer is `value`, or null.
  const PaddedInput *paddedInput(Value value) const {
    for (const PaddedInput &input : paddedInputs)
      if (input.buffer == value)
        return &input;
    return nullptr;
  }
};

/// The buffer `value` views, following view-like ops (itself when it is no
/// view).
Value viewedBuffer(Value value);

/// The ops that pad a buffer (a bufferised tensor.pad): one fills it with
/// `padValue`, a unit-stride static view of all its dimensions is its
/// interior, and a copy (memref.copy or linalg.copy) writes `source` into
/// that view.
struct Padding {
  Operation *fill;
  Value padValue;
  memref::SubViewOp interior;
  Operation *copy;
  Value source;
};

/// The padding of `buffer`, a static allocation whose users are the padding
/// ops, `reader` and deallocations; nullopt when it has other users. Where
/// the ops run is for the caller to check.
std::optional<Padding> findPadding(Value buffer, Operation *reader);

/// Whether `main` accumulates into values an init producer can provide:
/// one output, written once per parallel point (thread per output in the
/// GPU mapping), whose payload reads the output's initial value.
bool acceptsInitProducer(linalg::LinalgOp main);

/// The prologue of `main` in its block (empty when it has none). Only ops
/// without memory effects other than allocation may lie between the
/// prologue and `main`, so evaluating the prologue at `main`'s place reads
/// the same values. A padded buffer's only other users may be
/// memref.dealloc ops.
KernelPrologue matchKernelPrologue(linalg::LinalgOp main);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_KERNELPROLOGUE_H
