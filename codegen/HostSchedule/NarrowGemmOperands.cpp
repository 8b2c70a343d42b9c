//===- NarrowGemmOperands.cpp - the tandem-narrow-gemm-operands pass ------===//
//
// Stores the operands of bf16 and fp16 library GEMMs in 16 bits: a weight
// operand is converted once, here, at compile time (a new constant global
// of half the bytes), and the other operand by a generated kernel right
// before the call. The library then reads half the bytes, and the device
// holds the weight once, in 16 bits.
//
//===----------------------------------------------------------------------===//

#include "codegen/GPU/FlatLaunch.h"
#include "codegen/HostSchedule/Passes.h"
#include "passes/Optimize/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMNARROWGEMMOPERANDS
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

namespace {

/// `type`'s shape with element type `element`: in `type`'s memory space (a
/// device buffer of the schedule), or in none (a kernel function's
/// argument).
MemRefType withElement(MemRefType type, Type element,
                       bool keepMemorySpace = true) {
  return MemRefType::get(type.getShape(), element, MemRefLayoutAttrInterface(),
                         keepMemorySpace ? type.getMemorySpace() : Attribute());
}

/// `x` (f32) rounded to nearest even in bf16, with integer operations (a
/// quiet NaN stays NaN), as toBFloat16Bits does at compile time. Integer
/// operations keep the kernel's CPU twin free of soft-float library calls.
Value buildToBFloat16(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  auto c = [&](uint32_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(16)), c(1));
  Value rounded = arith::AddIOp::create(
      b, loc, bits, arith::AddIOp::create(b, loc, lsb, c(0x7fff)));
  Value quiet = arith::OrIOp::create(b, loc, bits, c(0x400000));
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value chosen = arith::SelectOp::create(b, loc, isNan, quiet, rounded);
  Value top = arith::TruncIOp::create(
      b, loc, b.getI16Type(), arith::ShRUIOp::create(b, loc, chosen, c(16)));
  return arith::BitcastOp::create(b, loc, b.getBF16Type(), top);
}

/// The f32 value of the bf16 `x` (its bits are the top half).
Value buildFromBFloat16(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, b.getI16Type(), x);
  Value wide = arith::ExtUIOp::create(b, loc, i32, bits);
  Value shifted = arith::ShLIOp::create(
      b, loc, wide, arith::ConstantIntOp::create(b, loc, i32, 16));
  return arith::BitcastOp::create(b, loc, b.getF32Type(), shifted);
}

/// `x` converted to `target`: f32 rounded to bf16 or f16, or a 16-bit value
/// widened back to f32 (exact).
Value buildConversion(OpBuilder &b, Location loc, Value x, Type target) {
  if (target.isBF16())
    return buildToBFloat16(b, loc, x);
  if (target.isF16())
    return arith::TruncFOp::create(b, loc, target, x);
  if (x.getType().isBF16())
    return buildFromBFloat16(b, loc, x);
  return arith::ExtFOp::create(b, loc, target, x);
}

struct NarrowGemmOperandsPass
    : tandem::impl::TandemNarrowGemmOperandsBase<NarrowGemmOperandsPass> {
  using Base::Base;

  /// The operand of `gemm` that is a weight (0 for a, 1 for b), when
  /// exactly one is and the other is a whole f32 buffer.
  std::optional<unsigned> weightOperand(GemmOp gemm) {
    if (gemm.has16BitOperands() || !gemm.get16BitOperandType())
      return std::nullopt;
    bool weightA = static_cast<bool>(gemm.getA().getDefiningOp<WeightOp>());
    bool weightB = static_cast<bool>(gemm.getB().getDefiningOp<WeightOp>());
    if (weightA == weightB)
      return std::nullopt;
    Value other = weightA ? gemm.getB() : gemm.getA();
    auto type = cast<MemRefType>(other.getType());
    if (!type.getLayout().isIdentity() || !type.getElementType().isF32())
      return std::nullopt;
    return weightA ? 0u : 1u;
  }

  /// The constant f32 global `weight` reads, when every use of it is the
  /// weight operand of a gemm in `candidates` or a fallback launch of one
  /// (the rewrite then replaces all of them); null otherwise.
  memref::GlobalOp
  convertibleGlobal(WeightOp weight,
                    const llvm::DenseMap<Operation *, unsigned> &candidates,
                    const llvm::DenseSet<Operation *> &fallbacks) {
    auto global = symbols->lookupNearestSymbolFrom<memref::GlobalOp>(
        weight, weight.getGlobalAttr());
    if (!global || !global.getConstant() ||
        !global.getType().getElementType().isF32() ||
        !global.getInitialValue() ||
        !viewF32Elements(*global.getInitialValue(),
                         cast<ShapedType>(global.getType())))
      return nullptr;
    auto module = getOperation();
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(global, module);
    if (!uses)
      return nullptr;
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto user = dyn_cast<WeightOp>(use.getUser());
      if (!user)
        return nullptr;
      for (OpOperand &operand : user->getUses()) {
        Operation *owner = operand.getOwner();
        auto candidate = candidates.find(owner);
        bool asWeight = candidate != candidates.end() &&
                        operand.getOperandNumber() == candidate->second;
        if (!asWeight && !fallbacks.contains(owner))
          return nullptr;
      }
    }
    return global;
  }

  /// The 16-bit (`element`) copy of the constant f32 `global`, created
  /// once.
  memref::GlobalOp narrowGlobal(memref::GlobalOp global, Type element) {
    memref::GlobalOp &narrowed =
        narrowedGlobals[{global.getOperation(), element}];
    if (narrowed)
      return narrowed;
    auto type = global.getType();
    std::optional<F32Values> values =
        viewF32Elements(*global.getInitialValue(), cast<ShapedType>(type));
    bool bf16 = element.isBF16();
    std::vector<uint16_t> bits(values->size());
    for (size_t i = 0, e = bits.size(); i < e; ++i)
      bits[i] =
          bf16 ? toBFloat16Bits((*values)[i]) : toFloat16Bits((*values)[i]);
    std::string name = (global.getSymName() + (bf16 ? "_bf16" : "_f16")).str();
    auto tensorType = RankedTensorType::get(type.getShape(), element);
    OpBuilder builder(global);
    narrowed = memref::GlobalOp::create(
        builder, global.getLoc(), name, global.getSymVisibilityAttr(),
        MemRefType::get(type.getShape(), element),
        sixteenBitElementsAttr(tensorType, std::move(bits), name),
        /*constant=*/true, global.getAlignmentAttr());
    symbols->getSymbolTable(getOperation()).insert(narrowed);
    return narrowed;
  }

  /// The kernel converting a buffer of `from` into one of `to` (f32 to a
  /// 16-bit format or back), created once per shape and direction.
  func::FuncOp conversionKernel(MemRefType from, MemRefType to) {
    auto typeName = [](Type t) -> std::string {
      return t.isF32() ? "f32" : t.isBF16() ? "bf16" : "f16";
    };
    std::string name = "tandem_" + typeName(from.getElementType()) + "_to_" +
                       typeName(to.getElementType());
    for (int64_t d : from.getShape())
      name += "_" + std::to_string(d);
    ModuleOp module = getOperation();
    if (auto existing = module.lookupSymbol<func::FuncOp>(name))
      return existing;
    Location loc = module.getLoc();
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto kernel = func::FuncOp::create(builder, loc, name,
                                       builder.getFunctionType({from, to}, {}));
    kernel.setPrivate();
    kernel->setAttr(TandemDialect::getKernelAttrName(), builder.getUnitAttr());
    symbols->getSymbolTable(module).insert(kernel);
    Block *entry = kernel.addEntryBlock();
    OpBuilder body = OpBuilder::atBlockBegin(entry);
    unsigned rank = from.getRank();
    AffineMap identity = body.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    linalg::GenericOp::create(
        body, loc, ValueRange{entry->getArgument(0)},
        ValueRange{entry->getArgument(1)},
        ArrayRef<AffineMap>{identity, identity}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l, buildConversion(b, l, args[0], to.getElementType()));
        });
    func::ReturnOp::create(body, loc);
    return kernel;
  }

  /// Launches the conversion of `source` into `target` (same shape, f32
  /// and a 16-bit format) at `builder`'s insertion point, on `stream`.
  void launchConversion(OpBuilder &builder, Location loc, Value source,
                        Value target, StreamAttr stream) {
    auto from = cast<MemRefType>(source.getType());
    auto to = cast<MemRefType>(target.getType());
    func::FuncOp kernel = conversionKernel(
        withElement(from, from.getElementType(), /*keepMemorySpace=*/false),
        withElement(to, to.getElementType(), /*keepMemorySpace=*/false));
    std::array<int64_t, 6> dims = flatLaunchDims(from.getNumElements());
    LaunchOp::create(
        builder, loc, FlatSymbolRefAttr::get(kernel),
        ValueRange{source, target}, stream,
        builder.getDenseI64ArrayAttr(ArrayRef(dims).take_front(3)),
        builder.getDenseI64ArrayAttr(ArrayRef(dims).drop_front(3)));
  }

  /// Converts `source` into a new buffer of `element` at `builder`'s
  /// insertion point, on `stream`; returns the buffer.
  Value convert(OpBuilder &builder, Location loc, Value source, Type element,
                StreamAttr stream) {
    Value buffer = exec::AllocOp::create(
        builder, loc,
        withElement(cast<MemRefType>(source.getType()), element),
        IntegerAttr());
    launchConversion(builder, loc, source, buffer, stream);
    return buffer;
  }

  /// Whether kernel function `kernel` may write its argument `index`
  /// (directly or through a view of it); true for anything it cannot
  /// tell.
  bool writesArgument(func::FuncOp kernel, unsigned index) {
    if (!kernel || kernel.isExternal())
      return true;
    BlockArgument arg = kernel.getArgument(index);
    auto rootOf = [](Value value) {
      while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
        value = view.getViewSource();
      return value;
    };
    WalkResult result = kernel.walk([&](Operation *op) {
      if (op->hasTrait<::mlir::OpTrait::ReturnLike>())
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects) {
        // Ops with regions (linalg payloads aside) report through their
        // nested ops; any other op without effects information may write.
        return op->getNumRegions() ||
                       op->hasTrait<
                           ::mlir::OpTrait::HasRecursiveMemoryEffects>()
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const MemoryEffects::EffectInstance &effect : list) {
        if (!isa<MemoryEffects::Write>(effect.getEffect()))
          continue;
        Value written = effect.getValue();
        if (!written || rootOf(written) == arg)
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return result.wasInterrupted();
  }

  /// The first op that may write `buffer`, walking the block from `start`
  /// (exclusive) forward, or backward, until `end` (exclusive; null: the
  /// block's edge). Allocations, weights, waits, gemms writing elsewhere
  /// and launches whose kernels do not write it are passed. A launch that
  /// writes it comes with the argument it writes; a gemm writing it or an
  /// op the walk cannot see into is returned alone.
  std::pair<Operation *, unsigned> firstWriter(Operation *start,
                                               Operation *end, Value buffer,
                                               bool backward) {
    for (Operation *op = backward ? start->getPrevNode() : start->getNextNode();
         op && op != end; op = backward ? op->getPrevNode() : op->getNextNode()) {
      if (isa<exec::AllocOp, WeightOp, WaitOp>(op))
        continue;
      if (auto other = dyn_cast<GemmOp>(op)) {
        if (other.getC() == buffer)
          return {op, 0};
        continue;
      }
      auto launch = dyn_cast<LaunchOp>(op);
      if (!launch)
        return {op, 0};
      auto kernel = symbols->lookupNearestSymbolFrom<func::FuncOp>(
          launch, launch.getKernelAttr());
      for (auto [index, arg] : llvm::enumerate(launch.getArgs()))
        if (arg == buffer && writesArgument(kernel, index))
          return {op, static_cast<unsigned>(index)};
    }
    return {nullptr, 0};
  }

  /// Makes the launch widening `narrow` (16-bit) into the f32 buffer
  /// `wide` the first of `gemm`'s fallback launches.
  void widenInFallback(GemmOp gemm, Value narrow, Value wide) {
    OpBuilder builder(gemm);
    builder.setInsertionPointAfter(gemm);
    launchConversion(builder, gemm.getLoc(), narrow, wide, gemm.getStream());
    gemm.setFallbackAttr(builder.getI64IntegerAttr(
        static_cast<int64_t>(gemm.getFallback()) + 1));
  }

  /// Lets the launch that produces `activation` write it in `element`
  /// itself, so that no conversion launch is needed: when the launch right
  /// before `gemm` that writes it (nothing in between writes it) runs a
  /// kernel of its own whose only use of the argument is one linalg.generic
  /// writing it without reading it, and nothing but that launch, the gemms
  /// in `narrowing` (as their activation) and their fallback launches use
  /// the buffer. The kernel then rounds the value it yields (as the
  /// conversion kernel would) into a new 16-bit buffer, which it returns;
  /// null when it cannot. With `check`, only says whether it can (a
  /// non-null value) and changes nothing.
  Value foldIntoProducer(GemmOp gemm, Value activation, Type element,
                         const llvm::DenseMap<Operation *, unsigned> &narrowing,
                         const llvm::DenseSet<Operation *> &fallbacks,
                         bool check = false) {
    if (!activation.getDefiningOp<exec::AllocOp>())
      return nullptr;
    // The producer: the last launch before the gemm that writes it.
    auto [writer, argIndex] =
        firstWriter(gemm, nullptr, activation, /*backward=*/true);
    auto producer = dyn_cast_or_null<LaunchOp>(writer);
    if (!producer || fallbacks.contains(producer) ||
        llvm::count(producer.getArgs(), activation) != 1)
      return nullptr;
    // Every other use reads it as a narrowed gemm's activation or in a
    // fallback.
    for (OpOperand &use : activation.getUses()) {
      Operation *user = use.getOwner();
      if (user == producer || fallbacks.contains(user))
        continue;
      auto found = narrowing.find(user);
      if (found == narrowing.end() ||
          use.getOperandNumber() != 1 - found->second ||
          cast<GemmOp>(user).get16BitOperandType() != element)
        return nullptr;
    }
    auto kernel = symbols->lookupNearestSymbolFrom<func::FuncOp>(
        producer, producer.getKernelAttr());
    if (!kernel || kernel.isExternal())
      return nullptr;
    std::optional<SymbolTable::UseRange> kernelUses =
        SymbolTable::getSymbolUses(kernel, getOperation());
    if (!kernelUses || !llvm::hasSingleElement(*kernelUses))
      return nullptr;
    BlockArgument arg = kernel.getArgument(argIndex);
    if (!arg.hasOneUse())
      return nullptr;
    OpOperand &use = *arg.use_begin();
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || !generic.isDpsInit(&use) ||
        !generic.getMatchingBlockArgument(&use).use_empty())
      return nullptr;
    if (check)
      return activation;
    // The kernel writes the 16-bit buffer: its argument, the payload's
    // output argument and the value it yields change type.
    arg.setType(withElement(cast<MemRefType>(arg.getType()), element,
                            /*keepMemorySpace=*/false));
    kernel.setType(FunctionType::get(
        kernel.getContext(), kernel.getBody().front().getArgumentTypes(), {}));
    generic.getMatchingBlockArgument(&use).setType(element);
    auto yield = cast<linalg::YieldOp>(generic.getBlock()->getTerminator());
    unsigned result = use.getOperandNumber() - generic.getNumDpsInputs();
    OpBuilder body(yield);
    Value value = yield.getOperand(result);
    yield.setOperand(result,
                     buildConversion(body, yield.getLoc(), value, element));
    // The schedule: a new buffer, which the producer writes.
    OpBuilder builder(producer);
    Value narrow = exec::AllocOp::create(
        builder, producer.getLoc(),
        withElement(cast<MemRefType>(activation.getType()), element),
        IntegerAttr());
    producer->setOperand(argIndex, narrow);
    return narrow;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection table;
    symbols = &table;
    SmallVector<GemmOp> gemms;
    llvm::DenseMap<Operation *, unsigned> candidates;
    llvm::DenseSet<Operation *> fallbacks;
    module.walk([&](GemmOp gemm) {
      for (Operation *launch : gemm.getFallbackLaunches())
        fallbacks.insert(launch);
      if (std::optional<unsigned> operand = weightOperand(gemm)) {
        candidates[gemm] = *operand;
        gemms.push_back(gemm);
      }
    });
    // The weights whose every use can take the 16-bit copy.
    llvm::DenseMap<Operation *, memref::GlobalOp> convertible;
    for (GemmOp gemm : gemms) {
      auto weight =
          gemm->getOperand(candidates[gemm]).getDefiningOp<WeightOp>();
      if (!convertible.count(weight))
        convertible[weight] = convertibleGlobal(weight, candidates, fallbacks);
    }
    // The gemms whose weights can be converted.
    llvm::DenseMap<Operation *, unsigned> narrowing;
    for (GemmOp gemm : gemms)
      if (convertible[gemm->getOperand(candidates[gemm]).getDefiningOp()])
        narrowing[gemm] = candidates[gemm];
    // Of those, the ones where it pays, decided per activation buffer:
    // when its producer can write it in 16 bits (no launch added), or when
    // the weight bytes the gemms reading it save outweigh a conversion
    // launch (the launch overhead in bytes, plus the activation read in
    // f32 and written in 16 bits, less the half its gemms no longer read).
    llvm::DenseMap<std::pair<Value, Type>, bool> pays;
    for (GemmOp gemm : gemms) {
      if (!narrowing.count(gemm))
        continue;
      Value activation = gemm->getOperand(1 - narrowing[gemm]);
      Type element = gemm.get16BitOperandType();
      if (pays.count({activation, element}))
        continue;
      bool folds = static_cast<bool>(foldIntoProducer(
          gemm, activation, element, narrowing, fallbacks, /*check=*/true));
      int64_t saved = 0;
      llvm::SmallPtrSet<Operation *, 4> weights;
      for (GemmOp other : gemms)
        if (narrowing.count(other) &&
            other->getOperand(1 - narrowing[other]) == activation &&
            other.get16BitOperandType() == element) {
          Value weight = other->getOperand(narrowing[other]);
          if (weights.insert(weight.getDefiningOp()).second)
            saved += memRefBytes(cast<MemRefType>(weight.getType())) / 2;
        }
      int64_t conversion = memRefBytes(cast<MemRefType>(activation.getType()));
      pays[{activation, element}] =
          folds || saved - conversion >= static_cast<int64_t>(launchBytes);
    }
    for (GemmOp gemm : gemms)
      if (narrowing.count(gemm) &&
          !pays.lookup({gemm->getOperand(1 - narrowing[gemm]),
                        gemm.get16BitOperandType()}))
        narrowing.erase(gemm);
    // The 16-bit weight of each f32 one, each activation's latest 16-bit
    // copy (with the launch that wrote it), and the activations whose
    // producers now write 16 bits instead.
    llvm::DenseMap<Operation *, Value> narrowWeights;
    llvm::DenseMap<std::pair<Value, Type>, std::pair<Value, Operation *>>
        narrowActivations;
    llvm::DenseMap<Value, Value> foldedActivations;
    for (GemmOp gemm : gemms) {
      if (!narrowing.count(gemm))
        continue;
      unsigned weightIndex = candidates[gemm];
      Value weightValue = gemm->getOperand(weightIndex);
      auto weight = weightValue.getDefiningOp<WeightOp>();
      memref::GlobalOp global = convertible[weight];
      Type element = gemm.get16BitOperandType();
      Location loc = gemm.getLoc();
      StreamAttr stream = gemm.getStream();
      // The weight: its 16-bit copy, read where the f32 one was.
      Value &narrowWeight = narrowWeights[weight];
      if (!narrowWeight) {
        memref::GlobalOp narrowed = narrowGlobal(global, element);
        OpBuilder builder(weight);
        narrowWeight = WeightOp::create(builder, weight.getLoc(),
                                        withElement(weight.getType(), element),
                                        FlatSymbolRefAttr::get(narrowed),
                                        IntegerAttr())
                           .getResult();
      }
      // The activation: written in 16 bits by its producer, or converted
      // right before the gemm, or the copy an earlier gemm had when nothing
      // wrote the buffer since.
      unsigned activationIndex = 1 - weightIndex;
      Value activation = gemm->getOperand(activationIndex);
      auto cached = narrowActivations.find({activation, element});
      Value narrowActivation;
      if (Value folded = foldedActivations.lookup(activation)) {
        // Its producer writes the 16-bit copy, and nothing else writes
        // either outside fallbacks (foldIntoProducer).
        narrowActivation = folded;
      } else if (cached != narrowActivations.end() &&
                        !firstWriter(cached->second.second, gemm, activation,
                              /*backward=*/false)
                      .first) {
        narrowActivation = cached->second.first;
      } else if (Value folded = foldIntoProducer(gemm, activation, element,
                                                 narrowing, fallbacks)) {
        narrowActivation = folded;
        foldedActivations[activation] = folded;
      } else {
        OpBuilder builder(gemm);
        narrowActivation = convert(builder, loc, activation, element, stream);
        narrowActivations[{activation, element}] = {narrowActivation,
                                                    gemm->getPrevNode()};
      }
      // The fallback launches read f32: the weight widened from its 16-bit
      // copy into a temporary, and an activation whose producer now writes
      // 16 bits widened back into its buffer, by launches that become the
      // first of them.
      SmallVector<Operation *> fallbackLaunches = gemm.getFallbackLaunches();
      auto fallbackReads = [&](Value value) {
        return llvm::any_of(fallbackLaunches, [&](Operation *op) {
          return llvm::is_contained(op->getOperands(), value);
        });
      };
      if (fallbackReads(weightValue)) {
        OpBuilder builder(gemm);
        Value wide = exec::AllocOp::create(
            builder, loc,
            withElement(weight.getType(), weight.getType().getElementType()),
            IntegerAttr());
        for (Operation *op : fallbackLaunches)
          op->replaceUsesOfWith(weightValue, wide);
        widenInFallback(gemm, narrowWeight, wide);
      }
      if (foldedActivations.count(activation) && fallbackReads(activation))
        widenInFallback(gemm, narrowActivation, activation);
      gemm->setOperand(weightIndex, narrowWeight);
      gemm->setOperand(activationIndex, narrowActivation);
    }
    // The f32 weights and globals nothing reads any more.
    for (auto [op, global] : convertible) {
      if (!global || !op->use_empty())
        continue;
      op->erase();
    }
    for (auto &entry : narrowedGlobals) {
      auto global = cast<memref::GlobalOp>(entry.first.first);
      if (SymbolTable::symbolKnownUseEmpty(global, module))
        symbols->getSymbolTable(module).erase(global);
    }
  }

  SymbolTableCollection *symbols = nullptr;
  /// The 16-bit copies of f32 globals, by global and format.
  llvm::MapVector<std::pair<Operation *, Type>, memref::GlobalOp>
      narrowedGlobals;
};

} // namespace
