//===- SplitReductions.h - long reductions over few points in two steps -*-===//
//
// A reduction gets one GPU block per output point (KernelMapping.h). With
// few points and a long reduction each, that leaves most of the GPU idle:
// a GroupNorm of one group at batch 1 (PoolFormer's) reduces 200704
// elements in a single block, on one SM of 132. In GPU partitions such a
// reduction is split, as XLA's tree reduction rewriter does: partial results
// over slices of the reduction, written by many blocks, then one small
// reduction of the partials per point. The split costs a launch and gains the
// whole GPU's bandwidth.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_SPLITREDUCTIONS_H
#define TANDEM_CODEGEN_GPU_SPLITREDUCTIONS_H

#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>

namespace mlir::tandem {

/// A reduction splits only with at most this many output points (fewer
/// blocks than a quarter of a large GPU's 132 SMs)...
constexpr int64_t kSplitMaxPoints = 32;
/// ... and at least this many reduction points per output point: 192 KiB
/// of f32 per block, more than 5 us at one SM's share of an H200's
/// bandwidth (4.8 TB/s / 132), more than the launch the split adds.
constexpr int64_t kSplitMinReduction = 49152;
/// The split aims at this many partial results in all (about one block per
/// SM), each over at least kSplitMinSlice reduction points (four per thread
/// of a 256-thread block), and needs at least kSplitMinSplits per point.
constexpr int64_t kSplitTargetBlocks = 128;
constexpr int64_t kSplitMinSlice = 1024;
constexpr int64_t kSplitMinSplits = 4;

/// The unit attribute on the generic that combines a split reduction's
/// partial results: formRowChains leaves it a kernel of its own, whose few
/// rows would otherwise hold its neighbours' work in as few blocks again.
constexpr llvm::StringLiteral kSplitCombineAttrName =
    TandemDialect::getSplitCombineAttrName();

/// Splits every reduction of `func` (on tensors) that is a
/// `linalg.generic` with block combiners (hasBlockCombiners: each output
/// `out = combine(x, out)` with an associative, commutative combiner),
/// static loops, no `linalg.index`, outputs indexed by the parallel loops
/// only, not a contraction or convolution, with at most kSplitMaxPoints
/// output points and at least kSplitMinReduction reduction points each:
/// - its partial results: the same payload over its loops where the
///   leading reduction loops and slices of the next one are parallel
///   (loop r of trip count t split into slice s and rest q, r = s * t/f +
///   q), into new tensors of the outputs' shapes followed by the split's,
///   filled with the combiners' identities;
/// - their combination: a generic over the op's parallel loops and the
///   split's (reductions) that combines each partial into the op's outputs,
///   from their initial values, with the op's combiners.
/// The split is the fewest partial results per point that give at least
/// kSplitTargetBlocks in all with slices of at least kSplitMinSlice
/// points (PoolFormer's 200704 points: 128 slices of 1568).
void splitLongReductions(func::FuncOp func);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_SPLITREDUCTIONS_H
