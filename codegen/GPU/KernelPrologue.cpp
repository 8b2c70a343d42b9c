//===- KernelPrologue.cpp - ops a GPU kernel computes per point -----------===//

#include "codegen/GPU/KernelPrologue.h"

#include "codegen/GPU/KernelMapping.h"
#include "codegen/LinalgPayloads.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tandem;

Value mlir::tandem::viewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

bool mlir::tandem::acceptsInitProducer(linalg::LinalgOp main) {
  if (!main.hasPureBufferSemantics() || main.getNumDpsInits() != 1 ||
      !outputsPartitionedByParallelLoops(main))
    return false;
  BlockArgument output = main.getBlock()->getArguments().back();
  return !output.use_empty();
}

/// The elementwise op that writes all of `main`'s output right before it
/// (no other op in between uses the output buffer), or null.
static linalg::LinalgOp matchInitProducer(linalg::LinalgOp main) {
  if (!acceptsInitProducer(main))
    return nullptr;
  Value init = main.getDpsInits()[0];
  Operation *writer = nullptr;
  for (Operation *op = main->getPrevNode(); op && !writer;
       op = op->getPrevNode())
    if (llvm::is_contained(op->getOperands(), init))
      writer = op;
  auto producer = dyn_cast_or_null<linalg::LinalgOp>(writer);
  if (!producer || !producer.hasPureBufferSemantics() ||
      producer.getNumDpsInits() != 1 || producer.getDpsInits()[0] != init ||
      producer.getNumReductionLoops() != 0 ||
      !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
           .isIdentity())
    return nullptr;
  // It overwrites the output without reading it, computes from its inputs
  // alone, and reads nothing of the output buffer.
  Block *body = producer.getBlock();
  if (!body->getArguments().back().use_empty() ||
      !llvm::all_of(body->without_terminator(),
                    [](Operation &op) { return isMemoryEffectFree(&op); }))
    return nullptr;
  Value root = viewedBuffer(init);
  for (OpOperand *input : producer.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) &&
        viewedBuffer(input->get()) == root)
      return nullptr;
  return producer;
}

std::optional<mlir::tandem::Padding>
mlir::tandem::findPadding(Value buffer, Operation *reader) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape())
    return std::nullopt;
  Padding padding{};
  for (Operation *user : buffer.getUsers()) {
    if (user == reader || isa<memref::DeallocOp>(user))
      continue;
    Value filled;
    if (Value value = filledValue(user, filled);
        value && filled == buffer && !padding.fill) {
      padding.fill = user;
      padding.padValue = value;
      continue;
    }
    auto sub = dyn_cast<memref::SubViewOp>(user);
    if (!sub || padding.interior || !sub.hasUnitStride() || !sub->hasOneUse() ||
        ShapedType::isDynamicShape(sub.getStaticOffsets()) ||
        ShapedType::isDynamicShape(sub.getStaticSizes()) ||
        int64_t(sub.getStaticSizes().size()) != alloc.getType().getRank())
      return std::nullopt;
    Operation *target = *sub->user_begin();
    if (auto memrefCopy = dyn_cast<memref::CopyOp>(target);
        memrefCopy && memrefCopy.getTarget() == sub.getResult())
      padding.source = memrefCopy.getSource();
    else if (auto linalgCopy = dyn_cast<linalg::CopyOp>(target);
             linalgCopy && linalgCopy.hasPureBufferSemantics() &&
             linalgCopy.getOutputs()[0] == sub.getResult())
      padding.source = linalgCopy.getInputs()[0];
    else
      return std::nullopt;
    padding.interior = sub;
    padding.copy = target;
  }
  if (!padding.fill || !padding.copy)
    return std::nullopt;
  return padding;
}

/// The padded buffer behind input `input` of `main`: filled with a
/// constant, its interior then overwritten by a copy right before `main`,
/// and used by nothing else but `main` and deallocations. Adds its ops to
/// `ops`.
static std::optional<KernelPrologue::PaddedInput>
matchPaddedInput(linalg::LinalgOp main, Value input,
                 SmallVectorImpl<Operation *> &ops) {
  std::optional<Padding> padding = findPadding(input, main);
  if (!padding || input.getDefiningOp()->getBlock() != main->getBlock() ||
      llvm::is_contained(main.getDpsInits(), input))
    return std::nullopt;
  auto [fill, padValue, interior, copy, source] = *padding;
  if (!matchPattern(padValue, m_Constant()) ||
      fill->getBlock() != main->getBlock() ||
      copy->getBlock() != main->getBlock() || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(main))
    return std::nullopt;
  // The source may be a view with static strides (a channel slice:
  // InceptionNeXt splits its channels among the branches' depthwise convs);
  // the kernel reads it through the view.
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!sourceType || !sourceType.hasStaticShape() ||
      failed(sourceType.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic) ||
      sourceType.getShape() != interior.getStaticSizes())
    return std::nullopt;
  // The copy must read what `main` would have seen: not its own output.
  Value sourceRoot = viewedBuffer(source);
  for (Value init : main.getDpsInits())
    if (viewedBuffer(init) == sourceRoot)
      return std::nullopt;
  ops.append({fill, interior, copy});
  return KernelPrologue::PaddedInput{
      input, source, llvm::to_vector(interior.getStaticOffsets()), padValue};
}

KernelPrologue mlir::tandem::matchKernelPrologue(linalg::LinalgOp main) {
  KernelPrologue prologue;
  if (!main.hasPureBufferSemantics())
    return prologue;
  SmallVector<Operation *> ops;
  for (OpOperand *input : main.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()) ||
        prologue.paddedInput(input->get()))
      continue;
    if (auto padded = matchPaddedInput(main, input->get(), ops))
      prologue.paddedInputs.push_back(std::move(*padded));
  }
  prologue.initProducer = matchInitProducer(main);
  if (prologue.initProducer)
    ops.push_back(prologue.initProducer);
  if (ops.empty())
    return prologue;
  // Between the first prologue op and `main`, only allocations and ops
  // without memory effects (views, constants) besides the prologue itself.
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  Operation *first = *llvm::min_element(
      ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op = first; op != main.getOperation();
       op = op->getNextNode()) {
    if (members.contains(op)) {
      prologue.ops.push_back(op);
      continue;
    }
    if (!isMemoryEffectFree(op) &&
        !hasSingleEffect<MemoryEffects::Allocate>(op))
      return KernelPrologue();
  }
  return prologue;
}
