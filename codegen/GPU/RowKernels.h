//===- RowKernels.h - several linalg ops as one block per row ---*- C++ -*-===//
//
// A row kernel runs a chain of linalg ops that all work row by row (a
// softmax: row max, exponentials, row sum, division; a LayerNorm: sum,
// mean, centring, sum of squares, normalisation; and the elementwise ops
// next to them, such as an attention's scale and mask; a whole attention,
// Q K^T, softmax and P V, when the contractions frame a softmax) as one
// GPU launch
// with one block per row. Every op of the chain ("stage") has the same
// leading parallel loops (unit loops aside), the rows; its other loops are
// either all parallel (the block's threads stride over them) or all reductions
// with an associative combiner (a block reduction, KernelMapping.h). A barrier
// separates the stages, so a stage reads what the previous ones wrote for
// its row.
//
// tandem-outline-kernels forms the chains (formRowChains) and puts them in
// one kernel function marked with `tandem.row_kernel` (the rows' trip
// counts); tandem-map-kernels-to-gpu plans its stages (planRowStages) and
// emits them one after the other. A buffer only the chain uses (the
// softmax's exponentials, the LayerNorm's centred values and means) becomes
// local to the kernel: one row of it in shared memory on the GPU instead of
// a tensor in global memory.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_ROWKERNELS_H
#define TANDEM_CODEGEN_GPU_ROWKERNELS_H

#include "codegen/GPU/KernelMapping.h"
#include "codegen/GPU/KernelPrologue.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tandem {

/// The `array<i64>` attribute on a GPU kernel function that runs several
/// linalg ops as one row kernel: the trip counts of the row loops other than
/// unit ones (the tandem dialect names and verifies it).
constexpr llvm::StringLiteral kRowKernelAttrName =
    TandemDialect::getRowKernelAttrName();

/// At most this many bytes of a block's row-local buffers go to shared
/// memory (48 KiB is what a kernel gets without opting in to more).
constexpr int64_t kMaxRowLocalBytes = 32 * 1024;

/// One op of a chain with the prologue it absorbs.
struct RowStage {
  linalg::LinalgOp op;
  KernelPrologue prologue;
  KernelPlan plan;
};

/// A chain of consecutive kernel ops of a GPU partition that runs as one
/// row kernel.
struct RowChain {
  /// The chain's ops in block order (each with its prologue).
  SmallVector<RowStage, 0> stages;
  /// The rows' trip counts, unit loops left out: every stage's leading
  /// parallel loops have these trip counts once its unit loops are dropped
  /// (a keepdims reduction over 1x128x1x256 and an elementwise op over
  /// 1x128x256 both have rows {128}).
  SmallVector<int64_t> rows;
  /// The chain is an attention: its first and last stages are the
  /// contractions around a softmax (Q K^T and P V).
  bool attention = false;
};

/// The number of rows.
int64_t rowCount(ArrayRef<int64_t> rows);

/// How many leading loops of `op` index rows `rows` (RowChain::rows): the
/// longest prefix of parallel loops whose trip counts multiply to the row
/// count, in any grouping (a batch matmul's 192 batches over rows [64, 3,
/// 49] of a Swin attention's softmax: its loops [192, 49]); none when no
/// prefix does. The block's row delinearised by these loops' trip counts is
/// the same row-major position however they group the rows; the buffer
/// checks (rowsStayApart) make sure every access agrees on it.
std::optional<unsigned> rowLoopsOf(linalg::LinalgOp op, ArrayRef<int64_t> rows);

/// Shared-memory slots for the row-local buffers `buffers` of a row kernel
/// whose stage i runs the ops `stageOps[i]` (its prologue's, then its
/// own): buffers of one element type share a slot when their stages do
/// not overlap (every stage that touches one comes before every stage that
/// touches the other; a barrier separates consecutive stages), or when
/// they meet in a pointwise stage that reads the first for the last time
/// and writes the second element for element (an attention's masked
/// scores, exponentials and probabilities all take its scores' slot).
/// Returns each buffer's slot, numbered from 0 (first fit, in the order of
/// the buffers' first stages).
SmallVector<unsigned> rowLocalSlots(ArrayRef<SmallVector<Operation *>> stageOps,
                                    ArrayRef<Value> buffers);

/// Whether the ops of `chain` (over rows `rows`) touch a buffer the chain
/// writes only in the row of their point, the same elements for every access.
/// Each such access goes to the buffer or to a reshape of it (expand/collapse,
/// which keep the row-major order of the elements) and holds the rows first
/// (leadingRows): the buffer then holds its rows one after the other. Or
/// every access to a buffer goes to the buffer itself and indexes the same
/// dimensions by the row loops (rowPositions), directly or through
/// reshapes that only add or drop unit dimensions: an NHWC buffer's
/// channels when the rows are channels, a softmax over a middle axis's
/// other dimensions. (Only buffers of the first kind can be row-local:
/// rowsContiguous.)
bool rowsStayApart(ArrayRef<linalg::LinalgOp> chain, ArrayRef<int64_t> rows);

/// Whether every access of the ops of `chain` (a row chain over `rows`) to
/// `buffer` holds the rows first, so that the buffer holds its rows one
/// after the other and can be row-local (a row of it in a block's shared
/// memory). formRowChains also lets a chain write a buffer whose accesses
/// all index the same non-leading dimensions by the rows (an NHWC
/// buffer's channels); such a buffer stays in global memory.
bool rowsContiguous(ArrayRef<linalg::LinalgOp> chain, ArrayRef<int64_t> rows,
                    Value buffer);

/// Moves the parallel loops of `op` before its reduction loops, each kind
/// keeping its order, when a reduction loop comes first (an NHWC mean over
/// H and W, whose channel loop is last): the op then has its rows leading,
/// so that formRowChains can grow a chain from it (the mean's division, a
/// squeeze-and-excitation's next elementwise work). Its launch on its own
/// stays the same: a kernel plan takes the parallel and the reduction loops
/// each in order, wherever they lie. Only generics that index every operand
/// by a projected permutation and are neither contractions nor
/// convolutions are touched. Returns whether it changed `op`.
bool hoistParallelLoops(RewriterBase &rewriter, linalg::GenericOp op);

/// Finds the row chains among `ops` (the main ops of a GPU partition in
/// block order, `prologues` the prologue each absorbs). A chain has at least
/// two ops, at least one of them a reduction that would get a block per
/// output point on its own (planKernelLaunch), and reads a row of a buffer
/// the chain writes only in the stage's own row (through the buffer or
/// reshapes of it). A pointwise neighbour whose row loops are not its
/// leading loops (an NHWC hard-swish before a pool over rows of channels)
/// has them moved first when that lets it join a chain. An attention's
/// query producer (a pointwise op writing the scores contraction's first
/// input, such as the head split's transpose with its scale) moves, in the
/// block and in `ops`, right before the contraction when nothing between
/// depends on it (movableBefore), and joins as the first stage when the
/// rows stay apart.
SmallVector<RowChain>
formRowChains(MutableArrayRef<Operation *> ops,
              const llvm::DenseMap<Operation *, KernelPrologue> &prologues);

/// Whether the threads of a warp access consecutive elements of a buffer of
/// type `type` that an op accesses through `map` when consecutive lanes take
/// consecutive values of loop `loop`: the loop indexes only the buffer's
/// last dimension, with unit stride there, or no dimension at all.
bool coalescedAlong(unsigned loop, AffineMap map, MemRefType type);

/// How a contraction stage of a row kernel (rows, parallel loops, then
/// reductions) reads its inputs.
struct ContractionReads {
  /// A warp per point (KernelPlan::warpPerPoint) rather than a thread.
  bool warpPerPoint = false;
  /// Per input: whether the warp's lanes read consecutive elements (or one
  /// element) under that mapping.
  SmallVector<bool> coalesced;
};

/// The mapping of a contraction stage whose inputs of types `types` are read
/// through `maps` over loops `iterators`: a thread per point (the threads
/// stride over the last parallel loop) unless an input is read coalesced
/// only when the lanes stride over the last reduction loop instead (an
/// attention's K read in place, token after token, rather than through a
/// transposed copy) and no input only the other way round. A warp per point
/// needs block combiners (`warpCombiners`). Types other than memrefs
/// (scalars) read coalesced.
ContractionReads contractionReads(ArrayRef<AffineMap> maps, TypeRange types,
                                  ArrayRef<utils::IteratorType> iterators,
                                  bool warpCombiners);
ContractionReads contractionReads(linalg::LinalgOp op);

/// Plans the stages of a row kernel whose ops are `ops` (with their
/// prologues) over rows `rows`: one block per row, the threads of the
/// widest stage (whole warps, at most kThreadsPerBlock). Fails with an
/// error on an op when they do not form a row kernel.
FailureOr<SmallVector<RowStage, 0>>
planRowStages(ArrayRef<std::pair<linalg::LinalgOp, KernelPrologue>> ops,
              ArrayRef<int64_t> rows);

/// Plans the stages of row kernel function `kernel` over `rows`: its linalg
/// ops in order, each with the prologue it absorbs (matched from the last
/// op back, so a prologue's ops are no stages), through planRowStages. Both
/// tandem-outline-kernels (for the launch) and tandem-map-kernels-to-gpu
/// (for the code) plan a row kernel with it. Fails with an error on the
/// kernel when it holds a copy or no linalg op.
FailureOr<SmallVector<RowStage, 0>> planRowKernelStages(func::FuncOp kernel,
                                                        ArrayRef<int64_t> rows);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_ROWKERNELS_H
