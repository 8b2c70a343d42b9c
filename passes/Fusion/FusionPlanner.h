//===- FusionPlanner.h - which ops share a kernel ---------------*- C++ -*-===//
//
// The analysis half of -tandem-fuse: classifies ops by their role in fusion,
// merges groups of ops greedily by estimated benefit under legality rules
// (one device, no cycles, kind compatibility, size and operand limits), and
// records every rejected candidate with its reason. The rewrite
// (FusionRewrite.cpp) then outlines each planned group into a tandem.fusion.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_FUSION_FUSIONPLANNER_H
#define TANDEM_PASSES_FUSION_FUSIONPLANNER_H

#include "dialects/Tandem/IR/TandemAttrs.h"

#include "mlir/IR/Block.h"
#include "llvm/Support/GlobPattern.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tandem {

/// How an op takes part in fusion.
enum class FusionRole {
  /// conv2d, matmul, gemm: the root of an output fusion.
  Matrix,
  /// reduce_*, softmax, layer_norm, global_avg_pool: an input-fusion root.
  Reduction,
  /// Elementwise ops and batch_norm (a per-channel affine in inference):
  /// loop bodies and matrix epilogues.
  Elementwise,
  /// reshape, transpose, broadcast_to, cast, slice, concat, pad, gather:
  /// data movement that fits in a loop nest.
  Layout,
  /// max_pool2d, avg_pool2d, cumsum, top_k: loop ops that are not epilogues
  /// and take no fused producer.
  Window,
  /// Constants, transfers, fusions, terminators and foreign ops.
  Barrier,
};

/// The fusion role of `op`, read from its role trait (MatrixRole,
/// ReductionRole, Elementwise or ElementwiseRole, LayoutRole, WindowRole,
/// BarrierRole in TandemOps.td); ops of other dialects are barriers.
FusionRole getFusionRole(Operation *op);

/// Whether `op` is an elementwise op whose cost is dominated by a
/// transcendental function (exp, log, tanh, erf, pow, sqrt, ...): whether it
/// has the Transcendental trait.
bool isTranscendental(Operation *op);

/// How many fusion kinds there are (FusionKind's values run from 0): the
/// size of per-kind tables.
inline constexpr unsigned kNumFusionKinds = getMaxEnumValForFusionKind() + 1;
static_assert(static_cast<unsigned>(FusionKind::Loop) == 0 &&
                  kNumFusionKinds == 4,
              "a new FusionKind: teach the planner's kind rules "
              "(Planner::legal, FusionRewrite) about it, then update this "
              "count");

/// The knobs of the planner; the pass fills them from its options.
struct FusionConfig {
  unsigned maxOps = 32;
  unsigned maxOperands = 12;
  uint64_t launchCostBytes = 16384;
  uint64_t maxDuplicateInputBytes = 16384;
  uint64_t maxInlineConstantElements = 16;
  /// Kinds that merges must not produce (indexed by FusionKind).
  std::array<bool, kNumFusionKinds> disabledKinds = {};
  /// Ops whose node name matches one of these are never fused with others.
  std::vector<std::pair<std::string, llvm::GlobPattern>> disabledNodes;

  bool isDisabled(FusionKind kind) const {
    return disabledKinds[static_cast<unsigned>(kind)];
  }
};

/// Whether `op` is a constant small enough to be cloned into a fusion body
/// (a splat, or at most maxInlineConstantElements elements) rather than
/// passed as an operand.
bool isInlinableConstant(Operation *op, const FusionConfig &config);

/// One group of ops that becomes one kernel.
struct PlannedFusion {
  /// Members in block order.
  std::vector<Operation *> ops;
  /// The op the fusion is named after: the matrix or (first) reduction op,
  /// else the last op.
  Operation *root = nullptr;
  /// loop, input or output; multi_output is decided by the rewrite from
  /// the number of results.
  FusionKind baseKind = FusionKind::Loop;
  /// `fusion.<sanitized root node name>`, unique within the function.
  std::string name;
  /// Estimated bytes of memory traffic the merges saved.
  double bytesSaved = 0;
  /// Members that are copies of a producer duplicated into this fusion.
  std::vector<Operation *> duplicated;
  /// Display names of the members, the duplicated members and the root,
  /// taken before the rewrite moves the ops.
  std::vector<std::string> memberNames, duplicatedNames;
  std::string rootName;
  /// The members' device ("/device:GPU:0"), empty when unplaced.
  std::string device;

  /// Filled in by the rewrite: the final kind (multi_output when there are
  /// several results) and the operand and result counts.
  FusionKind kind = FusionKind::Loop;
  unsigned numInputs = 0, numOutputs = 0;
};

/// A candidate merge the planner turned down.
struct RejectedCandidate {
  /// "producer-consumer" or "sibling".
  std::string relation;
  /// Node names of the two ops whose edge (or shared input) formed the
  /// candidate: producer and consumer, or the two siblings.
  std::string first, second;
  std::string reason;
};

/// What the planner decided for one block.
struct FusionPlan {
  std::vector<PlannedFusion> fusions;
  std::vector<RejectedCandidate> rejected;
  /// Ops left without users by duplication; the rewrite erases them.
  std::vector<Operation *> deadOps;
  /// Kernel-producing ops (everything but constants and transfers) before
  /// fusion.
  unsigned opsBefore = 0;
};

/// Plans the fusion of the ops of `block` (a function body in graph form).
/// Only duplication changes the IR: a duplicated producer is cloned next to
/// the original, and the block may then need a topological sort.
FusionPlan planFusion(Block &block, const FusionConfig &config);

/// Outlines every planned fusion of `plan` into a tandem.fusion op in
/// `block`, clones inlinable constants into the bodies, erases what became
/// dead and restores a topological order.
void outlineFusions(Block &block, FusionPlan &plan, const FusionConfig &config);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_FUSION_FUSIONPLANNER_H
