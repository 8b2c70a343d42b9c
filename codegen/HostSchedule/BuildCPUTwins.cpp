//===- BuildCPUTwins.cpp - the tandem-build-cpu-twins pass ----------------===//
//
// Wraps every GPU kernel function compiled by the CPU pipeline as a
// tandem_cpu_kernel_fn, `void <kernel>__twin(void **args)`, for the
// emulated device and the CPU fallback.
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMBUILDCPUTWINS
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

/// The argument attribute of a tandem_exec_ctx_t * (tandem-call-cpu-kernels).
static constexpr llvm::StringLiteral kExecCtxAttr = "tandem.exec_ctx";

namespace {
struct BuildCPUTwinsPass
    : tandem::impl::TandemBuildCPUTwinsBase<BuildCPUTwinsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    OpBuilder b(ctx);
    for (auto kernel : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>())) {
      if (!kernel->hasAttr(TandemDialect::getKernelAttrName()) ||
          kernel.isExternal())
        continue;
      std::string name = (kernel.getSymName() + "__twin").str();
      if (module.lookupSymbol(name))
        continue;
      LLVM::LLVMFunctionType type = kernel.getFunctionType();
      unsigned params = type.getNumParams();
      // A trailing exec context (a public kernel) gets null: the twin runs
      // on the calling thread.
      bool hasCtx = params > 0 && kernel.getArgAttr(params - 1, kExecCtxAttr);
      for (unsigned i = 0; i < params; ++i)
        if (type.getParamType(i) != ptr) {
          kernel.emitOpError()
              << "takes " << type.getParamType(i) << " as argument " << i
              << ": a CPU twin needs one bare pointer per memref (lower with "
                 "use-bare-ptr-memref-call-conv=1)";
          return signalPassFailure();
        }
      if (!isa<LLVM::LLVMVoidType>(type.getReturnType())) {
        kernel.emitOpError() << "returns a value: kernels write their outputs";
        return signalPassFailure();
      }
      b.setInsertionPointAfter(kernel);
      Location loc = kernel.getLoc();
      auto twin = LLVM::LLVMFuncOp::create(
          b, loc, name,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr}));
      Block *body = twin.addEntryBlock(b);
      b.setInsertionPointToStart(body);
      Value args = body->getArgument(0);
      llvm::SmallVector<Value> operands;
      for (unsigned i = 0; i < params; ++i) {
        if (hasCtx && i + 1 == params) {
          operands.push_back(LLVM::ZeroOp::create(b, loc, ptr));
          continue;
        }
        // args[i] points at the i-th device pointer.
        Value slot = LLVM::GEPOp::create(
            b, loc, ptr, ptr, args,
            llvm::ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        Value pointee = LLVM::LoadOp::create(b, loc, ptr, slot);
        operands.push_back(LLVM::LoadOp::create(b, loc, ptr, pointee));
      }
      LLVM::CallOp::create(b, loc, kernel, operands);
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    }
  }
};
} // namespace
