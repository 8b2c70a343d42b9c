//===- DispatchParallelCalls.cpp - outlined loops -> tandem_parallel_for --===//
//
// In the LLVM dialect, every call of a function that
// tandem-outline-parallel-loops made (marked `tandem.parallel_grain`) from a
// function with a `tandem.exec_ctx` argument becomes
//
//   env = {begin, captured values...}          (an alloca in the entry block)
//   tandem_parallel_for(ctx->pool, end - begin, grain, @<body>_tramp, env)
//
// where the trampoline `void <body>_tramp(void *env, int64_t b, int64_t e)`
// loads the captured values and calls the body over [begin + b, begin + e).
// Calls from functions without the context stay serial calls.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMDISPATCHPARALLELCALLS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kGrainAttr = "tandem.parallel_grain";
constexpr llvm::StringLiteral kExecCtxAttr = "tandem.exec_ctx";
constexpr llvm::StringLiteral kParallelFor = "tandem_parallel_for";

/// The `tandem_exec_ctx_t *` argument of `func`, or null.
Value execContext(LLVM::LLVMFuncOp func) {
  if (func.isExternal())
    return {};
  for (unsigned i = func.getNumArguments(); i-- > 0;)
    if (func.getArgAttr(i, kExecCtxAttr))
      return func.getArgument(i);
  return {};
}

struct DispatchParallelCallsPass
    : tandem::impl::TandemDispatchParallelCallsBase<DispatchParallelCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);

    SmallVector<std::pair<LLVM::CallOp, LLVM::LLVMFuncOp>> work;
    WalkResult walk = module.walk([&](LLVM::CallOp call) {
      auto callee = call.getCallee();
      if (!callee)
        return WalkResult::advance();
      auto body = symbols.lookup<LLVM::LLVMFuncOp>(*callee);
      if (!body || !body->hasAttr(kGrainAttr))
        return WalkResult::advance();
      auto type = body.getFunctionType();
      Type i64 = IntegerType::get(&getContext(), 64);
      if (type.getNumParams() < 2 || type.getParamType(0) != i64 ||
          type.getParamType(1) != i64 ||
          !isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
          !body->getAttrOfType<IntegerAttr>(kGrainAttr)) {
        body.emitOpError("outlined loop body must take (i64 begin, i64 end, "
                         "...), return nothing and have an integer grain");
        return WalkResult::interrupt();
      }
      if (execContext(call->getParentOfType<LLVM::LLVMFuncOp>()))
        work.push_back({call, body});
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (work.empty())
      return;

    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    OpBuilder b(ctx);
    auto parallelFor = symbols.lookup<LLVM::LLVMFuncOp>(kParallelFor);
    if (!parallelFor) {
      b.setInsertionPointToStart(module.getBody());
      parallelFor = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kParallelFor,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                      {ptr, i64, i64, ptr, ptr}));
    }

    llvm::DenseMap<Operation *, LLVM::LLVMFuncOp> trampolines;
    for (auto [call, body] : work) {
      LLVM::LLVMFuncOp &tramp = trampolines[body];
      if (!tramp)
        tramp = makeTrampoline(body, symbols);
      dispatch(call, body, tramp, parallelFor);
    }
  }

  /// {i64 begin, captured values...}: what the trampoline of `body` reads.
  static LLVM::LLVMStructType envType(LLVM::LLVMFuncOp body) {
    auto params = body.getFunctionType().getParams();
    SmallVector<Type> fields = {params[0]};
    fields.append(params.begin() + 2, params.end());
    return LLVM::LLVMStructType::getLiteral(body.getContext(), fields);
  }

  /// void <body>_tramp(ptr env, i64 b, i64 e): body(env.begin + b,
  /// env.begin + e, env.captures...).
  LLVM::LLVMFuncOp makeTrampoline(LLVM::LLVMFuncOp body, SymbolTable &symbols) {
    MLIRContext *ctx = &getContext();
    Location loc = body.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    OpBuilder b(ctx);
    auto tramp = LLVM::LLVMFuncOp::create(
        b, loc, (body.getSymName() + "_tramp").str(),
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                    {ptr, i64, i64}),
        LLVM::Linkage::Internal);
    symbols.insert(tramp, std::next(Block::iterator(body)));

    Block *entry = tramp.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    LLVM::LLVMStructType env = envType(body);
    SmallVector<Value> fields;
    for (auto [i, type] : llvm::enumerate(env.getBody())) {
      Value slot = LLVM::GEPOp::create(
          b, loc, ptr, env, entry->getArgument(0),
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)},
          LLVM::GEPNoWrapFlags::inbounds);
      fields.push_back(LLVM::LoadOp::create(b, loc, type, slot));
    }
    SmallVector<Value> args = {
        LLVM::AddOp::create(b, loc, fields[0], entry->getArgument(1)),
        LLVM::AddOp::create(b, loc, fields[0], entry->getArgument(2))};
    args.append(fields.begin() + 1, fields.end());
    LLVM::CallOp::create(b, loc, body, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return tramp;
  }

  void dispatch(LLVM::CallOp call, LLVM::LLVMFuncOp body,
                LLVM::LLVMFuncOp tramp, LLVM::LLVMFuncOp parallelFor) {
    MLIRContext *ctx = &getContext();
    Location loc = call.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
    LLVM::LLVMStructType env = envType(body);

    // One environment per call site, allocated once per run of the caller.
    OpBuilder b(ctx);
    b.setInsertionPointToStart(&caller.getBody().front());
    Value one = LLVM::ConstantOp::create(b, loc, i64, 1);
    Value envPtr = LLVM::AllocaOp::create(b, loc, ptr, env, one);

    b.setInsertionPoint(call);
    SmallVector<Value> fields = {call.getArgOperands()[0]};
    fields.append(call.getArgOperands().begin() + 2,
                  call.getArgOperands().end());
    for (auto [i, value] : llvm::enumerate(fields)) {
      Value slot = LLVM::GEPOp::create(
          b, loc, ptr, env, envPtr,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)},
          LLVM::GEPNoWrapFlags::inbounds);
      LLVM::StoreOp::create(b, loc, value, slot);
    }
    // tandem_exec_ctx_t { tandem_thread_pool_t *pool; ... }
    Value pool = LLVM::LoadOp::create(b, loc, ptr, execContext(caller));
    Value n = LLVM::SubOp::create(b, loc, call.getArgOperands()[1],
                                  call.getArgOperands()[0]);
    Value grain = LLVM::ConstantOp::create(
        b, loc, i64, body->getAttrOfType<IntegerAttr>(kGrainAttr).getInt());
    Value fn = LLVM::AddressOfOp::create(b, loc, tramp);
    LLVM::CallOp::create(b, loc, parallelFor,
                         ValueRange{pool, n, grain, fn, envPtr});
    call.erase();
  }
};

} // namespace
