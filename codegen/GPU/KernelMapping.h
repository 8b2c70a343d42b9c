//===- KernelMapping.h - how a kernel's loops map to GPU threads -*- C++
//-*-===//
//
// How a GPU kernel's linalg op maps to threads. By default the parallel
// iteration space is flattened to 1-D, each thread computes one point
// (guarded by `id < total`), and reduction dimensions run serially in the
// thread, accumulating in registers. A long reduction with few output points
// (softmax and LayerNorm rows, a classifier's dot products) instead gets one
// block per output point: its threads split the reduction, then combine
// their partial results with warp shuffles and shared memory.
// planKernelLaunch() gives the launch geometry that tandem-outline-kernels
// records on each call, and emitMappedKernelBody() writes the matching
// device code.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_KERNELMAPPING_H
#define TANDEM_CODEGEN_GPU_KERNELMAPPING_H

#include "codegen/GPU/FlatLaunch.h"
#include "codegen/GPU/KernelPrologue.h"
#include "codegen/LinalgPayloads.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <array>

namespace mlir::tandem {

/// A reduction of at least this many iterations per output point may get a
/// block per point (planKernelLaunch).
constexpr int64_t kMinBlockReduction = 64;

/// With at least this many output points, one thread per point already fills
/// a large GPU (132 SMs x 2048 threads / 8), so reductions stay serial.
constexpr int64_t kMaxBlockReductionPoints = 32768;

/// A tiled contraction's block computes kTileM x kTileN outputs, stepping
/// through the reduction kTileK at a time; each of its kTiledThreads threads
/// owns kMicroTile x kMicroTile of them.
constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 16, kMicroTile = 4;
constexpr int64_t kTiledThreads = (kTileM / kMicroTile) * (kTileN / kMicroTile);

/// A contraction is tiled when its M and N sides have at least this many
/// points and its reduction at least kTileK.
constexpr int64_t kMinTiledSide = 32;

/// How one linalg op runs on the GPU.
struct KernelPlan {
  /// Static trip counts of every loop of the op.
  SmallVector<int64_t> bounds;
  /// The loops mapped to threads (flattened, row-major); the others run
  /// serially in each thread.
  SmallVector<unsigned> threadDims;
  /// Each thread owns its output elements: they are loaded once, carried
  /// through the serial loops in registers and stored once. Otherwise one
  /// thread runs every loop with a load and a store per point.
  bool accumulateInRegisters = true;
  /// The product of the thread loops' trip counts (1 when none).
  int64_t total = 1;
  /// {gx, gy, gz, bx, by, bz}.
  std::array<int64_t, 6> launch = {1, 1, 1, 1, 1, 1};
  /// One block per output point (the thread loops index blocks, not
  /// threads): thread t of the block runs reduction points t, t + bx, ...,
  /// the partial results meet through warp shuffles and shared memory, and
  /// thread 0 combines the total with the output's initial value.
  bool blockReduction = false;
  /// The op's fused epilogue (`tandem.epilogue`, set by
  /// tandem-fuse-elementwise on a contraction whose ReLU it absorbed),
  /// applied to each output value when it is stored for the last time.
  FusedEpilogue epilogue = FusedEpilogue::None;
  /// The reduction loops (row-major), and the product of their trip counts.
  SmallVector<unsigned> reductionDims;
  int64_t reductionSize = 1;

  /// A pointwise or contraction stage of a row kernel (RowKernels.h): the
  /// thread loops index the block (one per row), the block's threads stride
  /// over the `stridedDims` (thread t takes points t, t + bx, ...), and each
  /// runs the `reductionDims` (a contraction's) serially.
  bool rowStrided = false;
  SmallVector<unsigned> stridedDims;
  int64_t stridedSize = 1;
  /// A contraction stage with block combiners whose reads are coalesced
  /// when the lanes take consecutive reduction points (contractionReads):
  /// warp w takes the row's points w, w + warps, ..., lane l their
  /// reduction points l, l + 32, ..., the lanes' partials meet in a shuffle
  /// butterfly and lane 0 stores the total.
  bool warpPerPoint = false;
  /// A contraction stage with block combiners and a thread per point whose
  /// row has at most half as many points as the block has threads (an
  /// attention's P V: 64 output columns, 256 threads): the threads form
  /// this many groups of a thread per point, each group runs every
  /// `pointGroups`-th reduction point, and the groups' partials meet in
  /// shared memory (1: no groups).
  int64_t pointGroups = 1;
  /// In a row kernel, how many leading loops index the rows, and the
  /// buffers of the kernel function of which each block keeps only its row
  /// (1-D, in shared memory on the GPU, RowKernels.h): accesses to them
  /// (or to reshapes of them) linearise the indices other than the rows'.
  unsigned rowLoops = 0;
  SmallVector<Value> rowLocalBuffers;

  /// A tiled contraction (implicit GEMM): `out += a * b` over f32 with
  /// input 0 the GEMM's A and input 1 its B. `mDims` are the parallel loops
  /// only A uses, `nDims` those only B uses, `batchDims` the others, and
  /// `reductionDims` the K loops. Block (batch, mTile, nTile) of a 1-D grid
  /// stages a kTileK x kTileM slice of A and a kTileK x kTileN slice of B in
  /// shared memory per step (zero past the edges; a padded input's bounds
  /// checks as usual), then each thread accumulates its micro-tile
  /// (outputs m0 + ty + 16 i, n0 + tx + 16 j) in registers; the outputs
  /// start from their initial value (the init producer's) and are stored
  /// once, through the epilogue.
  bool tiled = false;
  SmallVector<unsigned> mDims, nDims, batchDims;
  int64_t mSize = 1, nSize = 1, batchSize = 1;
  /// The tile loads give consecutive threads consecutive k (when the
  /// operand's innermost index is a reduction loop's) or consecutive m / n.
  bool aKFast = false, bKFast = false;
};

/// Whether every output of `op` is a 32-bit `out = combine(x, out)` whose
/// combiner is associative and commutative with a known identity and whose
/// `x` reads no output: the partial results of a block reduction may then
/// meet in any order.
bool hasBlockCombiners(linalg::LinalgOp op);

/// The combiner of each output of `op` (the op of its payload that
/// computes `combine(x, out)`) when it has block combiners
/// (hasBlockCombiners); empty otherwise.
SmallVector<Operation *> blockCombiners(linalg::LinalgOp op);

/// The identity of block combiner `combiner` (0 for an add, the lowest
/// value for a max, ...), built at `builder`'s insertion point.
Value combinerIdentity(OpBuilder &builder, Location loc, Operation *combiner);

/// Whether distinct points of `op`'s parallel loops write distinct output
/// elements: every output map is a projected permutation that uses each
/// parallel loop and no reduction loop.
bool outputsPartitionedByParallelLoops(linalg::LinalgOp op);

/// Plans `op`: a contraction `out += a * b` over f32 buffers whose M and N
/// sides (the parallel loops only one input uses) have at least
/// kMinTiledSide points and whose reduction at least kTileK is tiled
/// (KernelPlan::tiled). Otherwise every parallel loop goes to a thread when
/// each output is indexed by all parallel loops and no reduction loop (distinct
/// threads then write distinct elements); otherwise one thread runs the whole
/// op. When the reduction has at least kMinBlockReduction points, there are
/// fewer than kMaxBlockReductionPoints output points, and every output is a
/// 32-bit `out = combine(x, out)` with an associative, commutative combiner of
/// known identity (add, mul, min, max, and, or, ...) whose `x` reads no
/// output, the plan is a block reduction instead. Fails (with an error on
/// `op`) for dynamic trip counts or too large a grid.
FailureOr<KernelPlan> planKernelLaunch(linalg::LinalgOp op);

/// Emits, at `builder`'s insertion point inside a gpu.func, the code of `op`
/// under `plan`: the guarded thread index, its delinearisation and the
/// serial loops. `mapping` maps `op`'s operands to values of the gpu.func.
/// `threadIndex`, when given, replaces blockIdx.x * bx + threadIdx.x (host
/// emulation of the grid). For a block reduction, it is the block index and
/// the body runs the whole block on the host: every thread's partial result,
/// then the same butterfly of exchanges the warp shuffles perform.
/// For a row kernel's pointwise stage (`plan.rowStrided`), it is the block
/// index and the body runs the block's points in order.
/// `prologue` (KernelPrologue.h) is evaluated per point: loads of its padded
/// buffers read their sources with bounds checks, and the init producer's
/// value replaces the load of the output's initial value. `epilogue`, when
/// given (a thread per output point of an op with one output), is a
/// pointwise op over the output's dimensions that reads the output through
/// an identity map: each thread runs its payload on the final value
/// instead of storing it, and stores the epilogue's results
/// (matchPointwiseEpilogue).
void emitMappedKernelBody(OpBuilder &builder, linalg::LinalgOp op,
                          const KernelPlan &plan, IRMapping &mapping,
                          Value threadIndex = {},
                          const KernelPrologue &prologue = {},
                          linalg::LinalgOp epilogue = {});

/// The unit attribute on the pointwise op of a kernel function that takes
/// the output of the kernel's main op (the linalg op before it) where each
/// thread computes it (tandem-outline-kernels; docs/GPU.md "Pointwise
/// epilogues").
constexpr llvm::StringLiteral kKernelEpilogueAttrName =
    TandemDialect::getKernelEpilogueAttrName();

/// Whether `epilogue` can take the output of `op` where a thread computes
/// it: `op` is a linalg op with reduction loops and one output, neither a
/// contraction nor a convolution (those go to libraries; pooling ops may),
/// that gets a
/// thread per output point (planKernelLaunch: no block reduction, no
/// tiles); `epilogue` is a generic of parallel loops only, over the
/// output's shape (its one output indexed by the identity), that reads
/// `op`'s output operand itself once, through the identity map.
bool matchPointwiseEpilogue(linalg::LinalgOp op, linalg::LinalgOp epilogue);

/// The unit attribute on a kernel function whose last block to store its
/// split reduction's partial results also combines them
/// (tandem-outline-kernels; docs/GPU.md "Split reductions"). The last
/// argument counts the blocks.
constexpr llvm::StringLiteral kSplitArrivalsAttrName =
    TandemDialect::getSplitArrivalsAttrName();

/// The combination of a split reduction's partial results runs in the last
/// block of their kernel when it has at most this many output points (each
/// a block reduction of its own, one after the other).
constexpr int64_t kMaxTailPoints = 64;

/// Whether `combine`, a split reduction's combination
/// (`tandem.split_combine`, tandem-split-reductions), can run in the last
/// block of the kernel of `partial`, whose outputs it reads: both on
/// buffers with static loops, `partial` a block reduction
/// (planKernelLaunch), `combine` reading only `partial`'s outputs, with
/// block combiners, writing each output element once, at most
/// kMaxTailPoints output points.
bool matchSplitTail(linalg::LinalgOp partial, linalg::LinalgOp combine);

/// The plan of `combine` in the last block of its partial results' kernel,
/// whose blocks have `threads` threads: a block reduction whose grid is
/// the loop over its output points (launch[0]). Fails, with an error on
/// `combine`, when it does not qualify (matchSplitTail).
FailureOr<KernelPlan> planSplitTail(linalg::LinalgOp combine, int64_t threads);

/// Emits, after the code of a split reduction's partial results in a
/// kernel of `blocks` blocks, the combination `combine` under `plan`
/// (planSplitTail): thread 0 of each block adds one to `counter` (a
/// memref<1xi32> of the kernel that is zero between launches; atomic,
/// acquire-release); the block that brings it to `blocks` sets it back to
/// zero and runs `combine`'s output points in turn, each a block reduction
/// over the partial results, its initial value from `prologue`.
/// `hostBlock`, when given, is the block index of the host emulation.
void emitSplitTail(OpBuilder &builder, linalg::LinalgOp combine,
                   const KernelPlan &plan, IRMapping &mapping, Value counter,
                   int64_t blocks, Value hostBlock = {},
                   const KernelPrologue &prologue = {});

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_KERNELMAPPING_H
