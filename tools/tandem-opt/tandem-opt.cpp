//===- tandem-opt.cpp - the opt-style driver for Tandem IR ----------------===//
//
// Runs Tandem and upstream passes on .mlir input, like mlir-opt, with the
// tandem dialect registered. Every pipeline stage can be inspected and
// FileCheck-tested through it. The input is first scanned for text that
// crashes MLIR's parser (MlirSourceCheck.h), which is reported as an error.
//
//===----------------------------------------------------------------------===//

#include "compiler/InitAll.h"
#include "dialects/Tandem/IR/MlirSourceCheck.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::tandem::registerAllTandemPasses();
  mlir::DialectRegistry registry;
  mlir::tandem::registerAllTandemDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Tandem optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes reads no input: MLIR's main does it.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (auto spot = mlir::tandem::findParserCrash(input->getBuffer())) {
    llvm::SourceMgr sources;
    const char *at = input->getBufferStart() + spot->offset;
    sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sources.PrintMessage(llvm::errs(), llvm::SMLoc::getFromPointer(at),
                         llvm::SourceMgr::DK_Error, spot->message);
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
