//===- OutlineKernels.cpp - GPU partition ops -> kernel functions ---------===//
//
// tandem-outline-kernels: every linalg op (and memref.copy) of a bufferised
// GPU partition becomes a kernel function (docs/GPU.md): whole buffers as
// arguments, inputs first, then outputs; views and constants recreated
// inside; the op replaced by a call carrying its launch geometry. An op's
// prologue (KernelPrologue.h: the padding of its inputs, the broadcast bias
// it accumulates into) moves into the same kernel, a padded buffer becoming
// local to it, so that Conv + BiasAdd + ReLU is one launch (a padding that
// ran earlier moves next to its reader first). A chain of ops
// that works row by row (a softmax, a LayerNorm and their elementwise
// neighbours, RowKernels.h) becomes one row kernel, the buffers only the
// chain uses local to it.
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/AttentionOperands.h"
#include "codegen/GPU/GPUPipeline.h"
#include "codegen/GPU/KernelMapping.h"
#include "codegen/GPU/KernelPrologue.h"
#include "codegen/GPU/RowKernels.h"
#include "codegen/LinalgPayloads.h"
#include "codegen/Passes.h"
#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/IR/IRMapping.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include <numeric>

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMOUTLINEKERNELS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// A readable symbol part: letters, digits and '_' only.
std::string sanitize(llvm::StringRef text) {
  std::string out;
  for (char c : text)
    out.push_back(llvm::isAlnum(c) ? c : '_');
  return out;
}

/// "<fusion>_<op>", e.g. "fc1_matmul"; "generic" when no fusion is known.
std::string kernelSuffix(Operation *op) {
  std::string name = isPermutationCopy(op)
                         ? std::string("transpose")
                         : sanitize(op->getName().stripDialect());
  if (auto fusion =
          op->getAttrOfType<StringAttr>(TandemDialect::getKernelAttrName())) {
    llvm::StringRef fused = fusion.getValue();
    fused.consume_front("fusion.");
    return sanitize(fused) + "_" + name;
  }
  return name;
}

/// The buffer a memref value views: follows view-like ops (subview,
/// reshapes, casts) up to an allocation, a global or an argument.
FailureOr<Value> rootBuffer(Value value, Operation *user) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def))
      return value;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return user->emitOpError()
             << "in a GPU partition reads a buffer made by '" << def->getName()
             << "', which a kernel cannot take as argument";
    value = view.getViewSource();
  }
  return value;
}

/// Whether `op` (a view or a scalar constant) can be recreated inside a
/// kernel.
bool isRecreatable(Operation *op) {
  return isa<ViewLikeOpInterface>(op) ||
         (op->getNumResults() == 1 && matchPattern(op, m_Constant()) &&
          !isa<ShapedType>(op->getResult(0).getType()));
}

/// Moves the fill and the interior copy of a padded buffer that `main`
/// reads (findPadding) right before `main`, where matchKernelPrologue takes
/// them into its kernel, when they ran earlier (MaxViT pads its block input
/// for the shortcut's average pool, then runs the whole main branch first)
/// and nothing in between writes the copy's source or touches the buffer.
void sinkPaddedInputs(linalg::LinalgOp main) {
  KernelPrologue prologue = matchKernelPrologue(main);
  for (OpOperand *input : main.getDpsInputOperands()) {
    Value buffer = input->get();
    std::optional<Padding> padding = findPadding(buffer, main);
    if (!padding || prologue.paddedInput(buffer) ||
        buffer.getDefiningOp()->getBlock() != main->getBlock())
      continue;
    auto [fill, padValue, interior, copy, source] = *padding;
    if (!fill->isBeforeInBlock(copy) || copy->getNextNode() == main ||
        !movableBefore(copy, {viewedBuffer(source)}, {buffer}, main))
      continue;
    // The interior view too: the prologue spans its ops.
    copy->moveBefore(main);
    interior->moveBefore(copy);
    auto fillOp = dyn_cast<linalg::LinalgOp>(fill);
    if (fill->getNextNode() != interior.getOperation() && fillOp &&
        movableBefore(fillOp, interior))
      fill->moveBefore(interior);
  }
}

/// Whether `next`, the kernel op after `op` (whose prologue is
/// `prologue`), can run as `op`'s pointwise epilogue
/// (matchPointwiseEpilogue): `op`'s output is an allocation of the
/// partition that only `op`, its prologue and `next` use (and
/// deallocations), so that it can be local to the kernel; the prologue
/// computes its initial values (an init producer); nothing but views,
/// allocations and deallocations runs between the two; and `next` writes
/// no buffer `op` reads, which other threads may still read.
bool pointwiseEpilogue(Operation *op, const KernelPrologue &prologue,
                       Operation *next) {
  auto main = dyn_cast<linalg::LinalgOp>(op);
  auto epilogue = dyn_cast<linalg::LinalgOp>(next);
  if (!main || !epilogue || !prologue.initProducer ||
      !matchPointwiseEpilogue(main, epilogue))
    return false;
  Value output = main.getDpsInits()[0];
  if (!output.getDefiningOp<memref::AllocOp>() ||
      output.getDefiningOp()->getBlock() != op->getBlock())
    return false;
  for (Operation *user : output.getUsers())
    if (user != op && user != next && !isa<memref::DeallocOp>(user) &&
        !llvm::is_contained(prologue.ops, user))
      return false;
  for (Operation *between = op->getNextNode(); between != next;
       between = between->getNextNode())
    if (!between || !(isa<memref::AllocOp, memref::DeallocOp>(between) ||
                      isRecreatable(between)))
      return false;
  FailureOr<Value> written =
      rootBuffer(epilogue.getDpsInits()[0], epilogue.getOperation());
  if (failed(written))
    return false;
  SmallVector<Value> reads(main.getDpsInputs());
  for (const KernelPrologue::PaddedInput &padded : prologue.paddedInputs)
    reads.push_back(padded.source);
  for (Value input : reads) {
    if (!isa<MemRefType>(input.getType()))
      continue;
    FailureOr<Value> read = rootBuffer(input, op);
    if (failed(read) || *read == *written)
      return false;
  }
  return true;
}

/// Whether `next`, a split reduction's combination, can run in the last
/// block of the kernel of `op`, its partial results (matchSplitTail): only
/// views, allocations, deallocations and `next`'s prologue run between the
/// two.
bool splitTail(Operation *op, Operation *next,
               const KernelPrologue &nextPrologue) {
  if (!matchSplitTail(dyn_cast<linalg::LinalgOp>(op),
                      dyn_cast<linalg::LinalgOp>(next)))
    return false;
  for (Operation *between = op->getNextNode(); between != next;
       between = between->getNextNode())
    if (!between || !(isa<memref::AllocOp, memref::DeallocOp>(between) ||
                      isRecreatable(between) ||
                      llvm::is_contained(nextPrologue.ops, between)))
      return false;
  return true;
}

/// One op of a kernel with the prologue it absorbs.
struct KernelMember {
  Operation *op;
  KernelPrologue prologue;
};

/// Outlines the kernels of one GPU partition.
class PartitionOutliner {
public:
  PartitionOutliner(func::FuncOp partition, SymbolTable &symbols)
      : partition(partition), symbols(symbols) {}

  LogicalResult run() {
    // Padded inputs' fills and copies move next to their readers first, so
    // that the reader's kernel takes them.
    for (auto main :
         llvm::to_vector(partition.getBody().getOps<linalg::LinalgOp>()))
      sinkPaddedInputs(main);
    SmallVector<Operation *> kernelOps;
    for (Operation &op : partition.getBody().getOps()) {
      if (isa<linalg::LinalgOp, memref::CopyOp>(op)) {
        kernelOps.push_back(&op);
        continue;
      }
      if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
              func::ReturnOp, func::CallOp>(op) ||
          isRecreatable(&op))
        continue;
      return op.emitOpError()
             << "cannot run in GPU partition '@" << partition.getSymName()
             << "': only linalg ops, copies, views and allocations can";
    }
    // Reductions with their parallel loops first, so that they can be
    // row-kernel stages.
    IRRewriter rewriter(partition.getContext());
    for (Operation *op : kernelOps)
      if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        rewriter.setInsertionPoint(generic);
        hoistParallelLoops(rewriter, generic);
      }
    // Each linalg op with the prologue it absorbs; absorbed ops get no
    // kernel of their own.
    llvm::DenseMap<Operation *, KernelPrologue> prologues;
    llvm::SmallPtrSet<Operation *, 16> absorbed;
    for (Operation *op : kernelOps) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp)
        continue;
      KernelPrologue prologue = matchKernelPrologue(linalgOp);
      if (prologue.empty() || llvm::any_of(prologue.ops, [&](Operation *p) {
            return absorbed.contains(p);
          }))
        continue;
      absorbed.insert(prologue.ops.begin(), prologue.ops.end());
      prologues[op] = std::move(prologue);
    }
    SmallVector<Operation *> mains;
    for (Operation *op : kernelOps)
      if (!absorbed.contains(op))
        mains.push_back(op);
    // Chains that work row by row become one kernel each.
    llvm::DenseMap<Operation *, const RowChain *> chainOf;
    SmallVector<RowChain> chains = formRowChains(mains, prologues);
    // An attention reads its V and writes its output through the head
    // split's and merge's transposes where it can (AttentionOperands.h).
    llvm::SmallPtrSet<Operation *, 32> chained;
    for (const RowChain &chain : chains)
      for (const RowStage &stage : chain.stages)
        chained.insert(stage.op);
    for (RowChain &chain : chains)
      foldAttentionTransposes(chain, mains, prologues, chained);
    for (const RowChain &chain : chains)
      for (const RowStage &stage : chain.stages)
        chainOf[stage.op] = &chain;
    // A pointwise op right after a reduction that reads its output point
    // for point runs in the reduction's kernel (pointwiseEpilogue).
    llvm::DenseMap<Operation *, Operation *> epilogueOf;
    llvm::SmallPtrSet<Operation *, 16> epilogues;
    for (size_t i = 0; i + 1 < mains.size(); ++i) {
      Operation *op = mains[i], *next = mains[i + 1];
      if (chainOf.count(op) || chainOf.count(next) || prologues.count(next) ||
          epilogues.contains(op))
        continue;
      auto it = prologues.find(op);
      if (it != prologues.end() && pointwiseEpilogue(op, it->second, next)) {
        epilogueOf[op] = next;
        epilogues.insert(next);
      }
    }
    // A split reduction's combination runs in the last block of its
    // partial results' kernel (splitTail).
    llvm::DenseMap<Operation *, Operation *> tailOf;
    llvm::SmallPtrSet<Operation *, 16> tails;
    for (size_t i = 0; i + 1 < mains.size(); ++i) {
      Operation *op = mains[i], *next = mains[i + 1];
      if (chainOf.count(op) || chainOf.count(next) || epilogueOf.count(op) ||
          epilogueOf.count(next) || epilogues.contains(op) ||
          tails.contains(op))
        continue;
      if (splitTail(op, next, prologues.lookup(next))) {
        tailOf[op] = next;
        tails.insert(next);
      }
    }
    for (Operation *op : mains) {
      if (epilogues.contains(op) || tails.contains(op))
        continue;
      if (auto it = tailOf.find(op); it != tailOf.end()) {
        if (failed(outline({{op, prologues.lookup(op)},
                            {it->second, prologues.lookup(it->second)}},
                           /*rows=*/std::nullopt, "", /*epilogue=*/false,
                           /*splitTail=*/true)))
          return failure();
        continue;
      }
      if (auto it = epilogueOf.find(op); it != epilogueOf.end()) {
        Value output = cast<linalg::LinalgOp>(op).getDpsInits()[0];
        if (failed(outline({{op, prologues.lookup(op)}, {it->second, {}}},
                           /*rows=*/std::nullopt, "", /*epilogue=*/true)))
          return failure();
        // The output lives in the kernel now.
        auto alloc = output.getDefiningOp<memref::AllocOp>();
        if (llvm::all_of(alloc->getUsers(), [](Operation *user) {
              return isa<memref::DeallocOp>(user);
            })) {
          for (Operation *user : llvm::to_vector(alloc->getUsers()))
            user->erase();
          alloc->erase();
        }
        continue;
      }
      auto chain = chainOf.find(op);
      if (chain != chainOf.end()) {
        const RowChain &row = *chain->second;
        if (row.stages.front().op != op)
          continue;
        SmallVector<KernelMember, 0> members;
        for (const RowStage &stage : row.stages)
          members.push_back({stage.op, stage.prologue});
        if (failed(outline(members, row.rows,
                           row.attention ? "_attention" : "_rows")))
          return failure();
        continue;
      }
      auto it = prologues.find(op);
      if (failed(outline(
              {{op, it == prologues.end() ? KernelPrologue() : it->second}},
              /*rows=*/std::nullopt)))
        return failure();
    }
    // Views and constants that only kernels used are dead now.
    SmallVector<Operation *> ops;
    for (Operation &op : partition.getBody().getOps())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (isOpTriviallyDead(op))
        op->erase();
    return success();
  }

private:
  /// The buffers of a row kernel with `members` over rows `rows` that only
  /// it uses and that hold their rows one after the other (rowsContiguous),
  /// whose rows fit in shared memory together (kMaxRowLocalBytes, buffers
  /// whose stages do not overlap sharing a slot: rowLocalSlots):
  /// allocations of the partition that the members write and that nothing
  /// else touches, directly or through views, but deallocations.
  SetVector<Value> rowLocalBuffers(ArrayRef<KernelMember> members,
                                   ArrayRef<int64_t> rows) {
    llvm::SmallPtrSet<Operation *, 16> inKernel;
    for (const KernelMember &member : members) {
      inKernel.insert(member.op);
      inKernel.insert(member.prologue.ops.begin(), member.prologue.ops.end());
    }
    auto onlyKernelUses = [&](Value buffer) {
      SmallVector<Value> worklist = {buffer};
      while (!worklist.empty()) {
        Value value = worklist.pop_back_val();
        for (Operation *user : value.getUsers()) {
          if (inKernel.contains(user) || isa<memref::DeallocOp>(user))
            continue;
          if (!isa<ViewLikeOpInterface>(user))
            return false;
          worklist.append(user->result_begin(), user->result_end());
        }
      }
      return true;
    };
    SmallVector<linalg::LinalgOp> chainOps;
    SmallVector<SmallVector<Operation *>> stageOps;
    for (const KernelMember &member : members) {
      chainOps.push_back(cast<linalg::LinalgOp>(member.op));
      stageOps.emplace_back(member.prologue.ops.begin(),
                            member.prologue.ops.end());
      stageOps.back().push_back(member.op);
    }
    auto rowBytes = [&](Value buffer) {
      auto type = cast<MemRefType>(buffer.getType());
      return llvm::divideCeil(type.getElementTypeBitWidth(), 8) *
             (type.getNumElements() / rowCount(rows));
    };
    // The shared memory `buffers` take: a row of the largest buffer of
    // each slot (rowLocalSlots; buffers whose stages do not overlap share
    // one).
    auto slotBytes = [&](ArrayRef<Value> buffers) {
      SmallVector<unsigned> slots = rowLocalSlots(stageOps, buffers);
      SmallVector<int64_t> bytes;
      for (auto [buffer, slot] : llvm::zip(buffers, slots)) {
        bytes.resize(std::max<size_t>(bytes.size(), slot + 1), 0);
        bytes[slot] = std::max(bytes[slot], rowBytes(buffer));
      }
      return std::accumulate(bytes.begin(), bytes.end(), int64_t(0));
    };
    // Candidates with the longest rows first: when not all fit, those
    // that save the most global traffic (an attention's scores at 8192
    // keys rather than its query row) take the shared memory.
    SmallVector<Value> candidates;
    for (const KernelMember &member : members)
      for (Value init : cast<linalg::LinalgOp>(member.op).getDpsInits())
        candidates.push_back(init);
    llvm::stable_sort(candidates, [&](Value a, Value b) {
      auto bytes = [&](Value value) {
        auto type = cast<MemRefType>(viewedBuffer(value).getType());
        return type.hasStaticShape()
                   ? type.getNumElements() * type.getElementTypeBitWidth()
                   : int64_t(0);
      };
      return bytes(a) > bytes(b);
    });
    SetVector<Value> local;
    for (Value init : candidates) {
      Value root = viewedBuffer(init);
      auto alloc = root.getDefiningOp<memref::AllocOp>();
      if (!alloc || local.contains(root) ||
          alloc->getParentOp() != partition.getOperation() ||
          !alloc.getType().hasStaticShape() ||
          !alloc.getType().getElementType().isIntOrFloat() ||
          !onlyKernelUses(root) || !rowsContiguous(chainOps, rows, root))
        continue;
      SmallVector<Value> with(local.begin(), local.end());
      with.push_back(root);
      if (slotBytes(with) > kMaxRowLocalBytes)
        continue;
      local.insert(root);
    }
    return local;
  }

  /// Outlines the ops of `members` (each with its prologue, whose ops
  /// precede it) as one kernel: a row kernel over rows `rows` when there are
  /// several, its name ending in `suffix`; with `epilogue`, the second
  /// member is the first's pointwise epilogue; with `splitTail`, the second
  /// combines the first's partial results in the last block, counted in a
  /// zero-initialised global of the module passed as the last argument.
  LogicalResult outline(ArrayRef<KernelMember> members,
                        std::optional<ArrayRef<int64_t>> rows = std::nullopt,
                        StringRef suffix = "", bool epilogue = false,
                        bool splitTail = false) {
    assert(!members.empty() &&
           (members.size() == 1 || rows ||
            ((epilogue || splitTail) && members.size() == 2)) &&
           "several ops form a kernel only as a row kernel, with a "
           "pointwise epilogue or with a split reduction's combination");
    // The call goes where the last op was: what the kernel reads is defined
    // by then.
    Operation *op = members.back().op;
    OpBuilder builder(op);
    Location loc = op->getLoc();
    // Padded buffers, and a row kernel's own buffers, become local to the
    // kernel.
    SetVector<Value> local;
    for (const KernelMember &member : members)
      for (const KernelPrologue::PaddedInput &padded :
           member.prologue.paddedInputs)
        local.insert(padded.buffer);
    if (rows) {
      SetVector<Value> rowLocal = rowLocalBuffers(members, *rows);
      local.insert(rowLocal.begin(), rowLocal.end());
    }
    // The output a pointwise epilogue takes where it is computed.
    if (epilogue)
      local.insert(cast<linalg::LinalgOp>(members.front().op).getDpsInits()[0]);
    // Inputs first, then outputs: the whole buffers behind the operands.
    SmallVector<Value> inputs, outputs;
    auto addRoot = [&](Value operand, bool written) -> LogicalResult {
      if (!isa<MemRefType>(operand.getType()))
        return success();
      FailureOr<Value> root = rootBuffer(operand, op);
      if (failed(root))
        return failure();
      if (local.contains(*root))
        return success();
      auto type = cast<MemRefType>(root->getType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return op->emitOpError()
               << "in a GPU partition uses buffer of type " << type
               << ": kernel arguments need static shapes and identity "
                  "layouts";
      if (written) {
        llvm::erase(inputs, *root);
        if (!llvm::is_contained(outputs, *root))
          outputs.push_back(*root);
      } else if (!llvm::is_contained(inputs, *root) &&
                 !llvm::is_contained(outputs, *root)) {
        inputs.push_back(*root);
      }
      return success();
    };
    SmallVector<Operation *> group;
    for (const KernelMember &member : members) {
      group.append(member.prologue.ops);
      group.push_back(member.op);
    }
    // Buffers a payload reads (or writes) directly, such as the table of a
    // gather (`memref.load` inside a linalg.generic), are arguments too.
    for (Operation *member : group) {
      SetVector<Value> above;
      getUsedValuesDefinedAbove(member->getRegions(), above);
      for (Value value : above) {
        if (!isa<MemRefType>(value.getType()))
          continue;
        bool written = false;
        for (Region &region : member->getRegions())
          region.walk([&](memref::StoreOp store) {
            written |= store.getMemRef() == value;
          });
        if (failed(addRoot(value, written)))
          return failure();
      }
    }
    for (Operation *member : group) {
      if (auto copy = dyn_cast<memref::CopyOp>(member)) {
        if (failed(addRoot(copy.getSource(), false)) ||
            failed(addRoot(copy.getTarget(), true)))
          return failure();
      } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(member)) {
        for (OpOperand *input : linalgOp.getDpsInputOperands())
          if (failed(addRoot(input->get(), false)))
            return failure();
        for (OpOperand &init : linalgOp.getDpsInitsMutable())
          if (failed(addRoot(init.get(), true)))
            return failure();
      }
    }
    SmallVector<Value> args(inputs);
    args.append(outputs);

    // The kernel function, right after the partition.
    std::string name =
        (partition.getSymName() + "_k" + Twine(counter++) + "_" +
         kernelSuffix(epilogue ? members.front().op : op) + suffix)
            .str();
    // The arrival counter of a split reduction's blocks: a weight of the
    // partition, uploaded once as zero; the last block sets it back.
    if (splitTail) {
      auto counterType = MemRefType::get({1}, builder.getI32Type());
      OpBuilder globals(partition);
      auto global = memref::GlobalOp::create(
          globals, loc, name + "_arrivals", globals.getStringAttr("private"),
          counterType,
          DenseElementsAttr::get(
              RankedTensorType::get({1}, builder.getI32Type()),
              ArrayRef<Attribute>{builder.getI32IntegerAttr(0)}),
          /*constant=*/true, /*alignment=*/IntegerAttr());
      symbols.insert(global, Block::iterator(partition));
      args.push_back(memref::GetGlobalOp::create(builder, loc, counterType,
                                                 global.getSymName()));
    }
    auto type = builder.getFunctionType(ValueRange(args).getTypes(), {});
    auto kernel = func::FuncOp::create(loc, name, type);
    kernel.setPrivate();
    kernel->setAttr(TandemDialect::getKernelAttrName(), builder.getUnitAttr());
    if (rows)
      kernel->setAttr(kRowKernelAttrName, builder.getDenseI64ArrayAttr(*rows));
    if (splitTail)
      kernel->setAttr(kSplitArrivalsAttrName, builder.getUnitAttr());
    Operation *after = lastInserted ? lastInserted : partition.getOperation();
    symbols.insert(kernel, std::next(Block::iterator(after)));
    lastInserted = kernel;

    // Its body: the local buffers, the views and constants the ops need,
    // then the prologue and the op.
    Block *entry = kernel.addEntryBlock();
    OpBuilder body = OpBuilder::atBlockBegin(entry);
    IRMapping mapping;
    for (auto [arg, value] : llvm::zip(entry->getArguments(), args))
      mapping.map(value, arg);
    for (Value buffer : local)
      body.clone(*buffer.getDefiningOp(), mapping);
    SetVector<Value> captured;
    for (Operation *member : group) {
      for (Value operand : member->getOperands())
        captured.insert(operand);
      getUsedValuesDefinedAbove(member->getRegions(), captured);
    }
    for (Value value : captured)
      if (failed(recreate(value, body, mapping, op)))
        return failure();
    // The prologues' views were recreated with the values they view.
    linalg::LinalgOp first;
    for (const KernelMember &member : members) {
      for (Operation *prologueOp : member.prologue.ops)
        if (!isa<ViewLikeOpInterface>(prologueOp))
          body.clone(*prologueOp, mapping);
      Operation *inner;
      if (auto copy = dyn_cast<memref::CopyOp>(member.op))
        inner =
            linalg::CopyOp::create(body, loc, mapping.lookup(copy.getSource()),
                                   mapping.lookup(copy.getTarget()));
      else
        inner = body.clone(*member.op, mapping);
      if (!first)
        first = cast<linalg::LinalgOp>(inner);
      else if (epilogue)
        inner->setAttr(kKernelEpilogueAttrName, builder.getUnitAttr());
    }
    func::ReturnOp::create(body, loc);

    std::array<int64_t, 6> launch;
    if (rows) {
      // As the mapping will plan it, from the kernel function.
      FailureOr<SmallVector<RowStage, 0>> planned =
          planRowKernelStages(kernel, *rows);
      if (failed(planned))
        return failure();
      launch = planned->back().plan.launch;
    } else {
      FailureOr<KernelPlan> plan = planKernelLaunch(first);
      if (failed(plan))
        return failure();
      launch = plan->launch;
    }
    auto call = func::CallOp::create(builder, loc, kernel, args);
    call->setAttr(TandemDialect::getLaunchDimsAttrName(),
                  builder.getDenseI64ArrayAttr(launch));
    // A deallocation between the chain's first op and the call now comes
    // too early: it moves after the call.
    if (members.size() > 1) {
      Operation *first = members.front().prologue.empty()
                             ? members.front().op
                             : members.front().prologue.ops.front();
      SmallVector<Operation *> early;
      for (Operation *it = first; it != call.getOperation();
           it = it->getNextNode())
        if (isa<memref::DeallocOp>(it))
          early.push_back(it);
      for (Operation *dealloc : llvm::reverse(early))
        dealloc->moveAfter(call);
    }
    for (const KernelMember &member : llvm::reverse(members)) {
      member.op->erase();
      for (Operation *prologueOp : llvm::reverse(member.prologue.ops))
        if (prologueOp->use_empty())
          prologueOp->erase();
    }
    return success();
  }

  /// Makes `value` available in the kernel: an argument already, or a view
  /// or constant cloned (with what it needs) into it.
  LogicalResult recreate(Value value, OpBuilder &body, IRMapping &mapping,
                         Operation *user) {
    if (mapping.contains(value))
      return success();
    Operation *def = value.getDefiningOp();
    if (!def || !isRecreatable(def))
      return user->emitOpError()
             << "in a GPU partition uses a value that a kernel cannot "
                "recreate";
    for (Value operand : def->getOperands())
      if (failed(recreate(operand, body, mapping, user)))
        return failure();
    body.clone(*def, mapping);
    return success();
  }

  func::FuncOp partition;
  SymbolTable &symbols;
  Operation *lastInserted = nullptr;
  unsigned counter = 0;
};

struct OutlineKernelsPass
    : tandem::impl::TandemOutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> partitions;
    for (auto func : module.getOps<func::FuncOp>())
      if (isGPUPartition(func) && !func.isExternal())
        partitions.push_back(func);
    for (func::FuncOp partition : partitions) {
      if (llvm::any_of(partition.getArgumentTypes(),
                       [](Type type) { return isa<TensorType>(type); })) {
        partition.emitOpError() << "is not bufferised: run "
                                   "tandem-outline-kernels after bufferisation";
        return signalPassFailure();
      }
      if (failed(PartitionOutliner(partition, symbols).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
