//===- tandem-opt.cpp - the opt-style driver for Tandem IR ----------------===//
//
// Runs Tandem and upstream passes on .mlir input, like mlir-opt, with the
// tandem dialect registered. Every pipeline stage can be inspected and
// FileCheck-tested through it.
//
//===----------------------------------------------------------------------===//

#include "compiler/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::tandem::registerAllTandemPasses();
  mlir::DialectRegistry registry;
  mlir::tandem::registerAllTandemDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tandem optimizer driver\n", registry));
}
