//===- InitAll.cpp - register Tandem's dialects and passes ----------------===//

#include "compiler/InitAll.h"

#include "codegen/HostSchedule/Passes.h"
#include "codegen/Passes.h"
#include "compiler/CompilerDialects.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::tandem::registerAllTandemDialects(DialectRegistry &registry) {
  // What tandemc uses, then the rest of upstream MLIR, so that tandem-opt
  // can run any upstream pass on Tandem IR (registering an extension twice
  // adds it once).
  registerCompilerDialects(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

void mlir::tandem::registerAllTandemPasses() {
  registerAllPasses();
  registerTandemPasses();
  registerTandemPipelines();
  registerTandemCodegenPasses();
  registerTandemHostSchedulePasses();
}
