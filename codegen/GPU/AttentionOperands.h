//===- AttentionOperands.h - head splits read in place --------*- C++ -*-===//
//
// An attention kernel (RowKernels.h) reads its Q, K^T and V and writes its
// output through whatever indexing maps its contraction stages have. The
// head split before it (a transpose of each of q, k and v out of the packed
// projection) and the head merge after it (a transpose of the output back
// to tokens x heads) are kernels of their own otherwise: for a Transformer
// layer three of its seven launches. tandem-outline-kernels folds them into
// the attention where the threads' accesses stay coalesced.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_ATTENTIONOPERANDS_H
#define TANDEM_CODEGEN_GPU_ATTENTIONOPERANDS_H

#include "codegen/GPU/RowKernels.h"

namespace mlir::tandem {

/// Whether `op` (a linalg op) can move from where it is to right before
/// `before`, later in its block: the ops between neither write nor free a
/// buffer it reads, nor touch one it writes.
bool movableBefore(linalg::LinalgOp op, Operation *before);

/// The same for any `op` that reads the buffers `read` and writes the
/// buffers `written` (as viewedBuffer gives them).
bool movableBefore(Operation *op, ArrayRef<Value> read, ArrayRef<Value> written,
                   Operation *before);

/// Folds the transposes around attention `chain` (RowChain::attention; its
/// ops among `ops`, the main ops of its GPU partition in block order, each
/// with the prologue in `prologues`) into its contraction stages:
///
///  * an input of Q K^T or P V that a transpose (a generic that only
///    permutes, isPermutationCopy, or one that also multiplies by an f32
///    constant: MaxViT's scaled K, whose product the contraction's payload
///    then forms itself, in the same order) writes into a buffer nothing
///    else reads is read by the contraction from the transpose's input
///    instead, the two indexing maps composed (through the reshapes
///    between, as floordiv/mod where a reshape splits a dimension): V out
///    of the
///    packed projection, K^T out of it too. Only when the stage then reads
///    the transpose's input coalesced under the mapping it gets
///    (contractionReads) and every other input it read coalesced still
///    coalesced: V, read along P V's output columns by a thread per
///    column; K, read along the head dimension, which makes Q K^T a warp
///    per key.
///  * the output of P V, when a transpose is its only reader, is written
///    where the transpose would write it (a permutation of the
///    contraction's loops; the chain must still keep its rows apart,
///    rowsStayApart), zero-filled like the contraction's own output was.
///    When the transpose reads a finer view of the output (Swin's windows
///    x heads split back into windows and heads), the contraction's loop
///    is split alike first, its operands read through the finer buffers
///    they were collapsed from or through new expand_shape views.
///
/// `chained` holds the ops of every chain: a transpose in one stays. The
/// folded transposes and the buffers only they used are erased; `ops`,
/// `prologues` and `chain` follow the replaced contractions. Returns how
/// many transposes were folded.
unsigned
foldAttentionTransposes(RowChain &chain, SmallVectorImpl<Operation *> &ops,
                        llvm::DenseMap<Operation *, KernelPrologue> &prologues,
                        const llvm::SmallPtrSetImpl<Operation *> &chained);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_ATTENTIONOPERANDS_H
