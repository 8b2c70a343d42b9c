//===- InitAll.cpp - register Tandem's dialects and passes ----------------===//

#include "compiler/InitAll.h"

#include "codegen/HostSchedule/Passes.h"
#include "codegen/Passes.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/TandemExec/IR/TandemExecOps.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::tandem::registerAllTandemDialects(DialectRegistry &registry) {
  registry.insert<TandemDialect, exec::TandemExecDialect>();
  // tandem.transfer bufferises into tandem_exec.transfer.
  exec::registerTransferBufferization(registry);
  // The lowering pipeline goes through linalg, bufferization, vector, scf,
  // gpu, nvvm and llvm: register the upstream set once, with the interface
  // extensions that bufferization and lowering rely on.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // Code emission translates the LLVM dialect (and friends) to LLVM IR.
  registerAllToLLVMIRTranslations(registry);
}

void mlir::tandem::registerAllTandemPasses() {
  registerAllPasses();
  registerTandemPasses();
  registerTandemPipelines();
  registerTandemCodegenPasses();
  registerTandemHostSchedulePasses();
}
