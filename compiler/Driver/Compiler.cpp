//===- Compiler.cpp - the Tandem compiler driver library ------------------===//

#include "compiler/Driver/Compiler.h"

#include "compiler/InitAll.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <sys/resource.h>

using namespace mlir;
using namespace mlir::tandem;

static constexpr std::pair<Phase, llvm::StringLiteral> kPhaseNames[] = {
    {Phase::Import, "import"},           {Phase::Graph, "graph"},
    {Phase::Placed, "placed"},           {Phase::Fused, "fused"},
    {Phase::Partitioned, "partitioned"}, {Phase::Bufferized, "bufferized"},
    {Phase::Lowered, "lowered"}};

static constexpr std::pair<EmitKind, llvm::StringLiteral> kEmitNames[] = {
    {EmitKind::MLIR, "mlir"},    {EmitKind::LLVM, "llvm"},
    {EmitKind::PTX, "ptx"},      {EmitKind::Asm, "asm"},
    {EmitKind::Obj, "obj"},      {EmitKind::Header, "header"},
    {EmitKind::Shared, "shared"}};

/// Finds the enum value named `name` in a (value, name) table.
template <typename Enum, size_t N>
static std::optional<Enum>
lookupValue(const std::pair<Enum, llvm::StringLiteral> (&table)[N],
            llvm::StringRef name) {
  for (auto [value, text] : table)
    if (name == text)
      return value;
  return std::nullopt;
}

/// Finds the name of `value` in a (value, name) table.
template <typename Enum, size_t N>
static llvm::StringRef
lookupName(const std::pair<Enum, llvm::StringLiteral> (&table)[N], Enum value) {
  for (auto [v, text] : table)
    if (v == value)
      return text;
  llvm_unreachable("enum value missing from its name table");
}

std::optional<Phase> mlir::tandem::parsePhase(llvm::StringRef name) {
  return lookupValue(kPhaseNames, name);
}

llvm::StringRef mlir::tandem::phaseName(Phase phase) {
  return lookupName(kPhaseNames, phase);
}

std::optional<EmitKind> mlir::tandem::parseEmitKind(llvm::StringRef name) {
  return lookupValue(kEmitNames, name);
}

llvm::StringRef mlir::tandem::emitKindName(EmitKind kind) {
  return lookupName(kEmitNames, kind);
}

std::optional<std::vector<int64_t>>
mlir::tandem::parseShape(llvm::StringRef text) {
  std::vector<int64_t> dims;
  if (text.empty())
    return dims; // a scalar
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t d;
    if (part.empty() || part.getAsInteger(10, d) || d < 0)
      return std::nullopt;
    dims.push_back(d);
  }
  return dims;
}

LogicalResult mlir::tandem::buildPhasePipeline(OpPassManager &pm, Phase phase,
                                               const CompilerOptions &options) {
  switch (phase) {
  case Phase::Import:
    return success();
  case Phase::Graph:
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return success();
  case Phase::Placed: {
    // Until the cost-model placement lands, everything runs on the CPU
    // (soft placement's fallback).
    TandemAssignDefaultDeviceOptions placement;
    placement.device = "/device:CPU:0";
    pm.addPass(createTandemAssignDefaultDevice(placement));
    return success();
  }
  case Phase::Fused: {
    TandemFuseOptions fusion;
    fusion.fusionReport = options.fusion.report;
    fusion.disableFusion.assign(options.fusion.disableKinds.begin(),
                                options.fusion.disableKinds.end());
    fusion.disableFusionOf.assign(options.fusion.disableNodes.begin(),
                                  options.fusion.disableNodes.end());
    pm.addPass(createTandemFuse(fusion));
    return success();
  }
  default:
    return failure();
  }
}

std::string mlir::tandem::validateFusionOptions(const FusionOptions &options) {
  for (const std::string &kind : options.disableKinds)
    if (!symbolizeFusionKind(kind))
      return "unknown fusion kind '" + kind +
             "' in --disable-fusion (expected loop, input, output or "
             "multi_output)";
  for (const std::string &pattern : options.disableNodes)
    if (llvm::Expected<llvm::GlobPattern> glob =
            llvm::GlobPattern::create(pattern);
        !glob)
      return "invalid node glob '" + pattern +
             "' in --disable-fusion-of: " + llvm::toString(glob.takeError());
  return "";
}

/// Peak resident set size of this process, in MiB.
static double peakRssMiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

/// The phase an output kind needs.
static Phase requiredPhase(EmitKind kind) {
  return kind == EmitKind::MLIR ? kLastImplementedPhase : Phase::Lowered;
}

LogicalResult mlir::tandem::compile(
    MLIRContext &context, const CompilerOptions &options,
    llvm::raw_ostream &log,
    llvm::function_ref<LogicalResult(PassManager &)> configurePassManager) {
  Location fileLoc = FileLineColLoc::get(&context, options.inputPath, 0, 0);
  if (options.emit != EmitKind::MLIR)
    return emitError(fileLoc)
           << "--emit=" << emitKindName(options.emit)
           << " is not yet supported: code generation does not exist yet; "
              "use --emit=mlir";
  Phase last = options.compileTo.value_or(requiredPhase(options.emit));
  if (last > kLastImplementedPhase)
    return emitError(fileLoc)
           << "--compile-to=" << phaseName(last)
           << " is not yet supported: the pipeline currently ends at '"
           << phaseName(kLastImplementedPhase) << "'";

  using Clock = std::chrono::steady_clock;
  auto report = [&](llvm::StringRef what, Clock::time_point start) {
    if (!options.timePhases)
      return;
    double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    log << llvm::format("phase %-12s %9.2f ms   peak RSS %8.1f MiB\n",
                        what.str().c_str(), ms, peakRssMiB());
  };

  // Import: ONNX models by content, .mlir files as tandem IR.
  auto start = Clock::now();
  OwningOpRef<ModuleOp> module;
  llvm::StringRef path = options.inputPath;
  if (options.verbose)
    log << "tandemc: importing " << path << "\n";
  if (path.ends_with(".mlir")) {
    std::string message;
    auto file = openInputFile(path, &message);
    if (!file)
      return emitError(fileLoc) << "cannot read file: " << message;
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  } else {
    OnnxImportOptions importOptions = options.import;
    importOptions.functionName = options.name;
    module = importOnnxFile(context, path, importOptions);
  }
  if (!module)
    return failure();
  report("import", start);

  for (int p = static_cast<int>(Phase::Graph); p <= static_cast<int>(last);
       ++p) {
    Phase phase = static_cast<Phase>(p);
    start = Clock::now();
    PassManager pm(&context);
    if (failed(buildPhasePipeline(pm, phase, options)))
      return emitError(fileLoc)
             << "phase '" << phaseName(phase) << "' is not yet supported";
    if (configurePassManager && failed(configurePassManager(pm)))
      return failure();
    if (options.verbose)
      log << "tandemc: phase " << phaseName(phase) << "\n";
    if (failed(pm.run(*module)))
      return failure();
    report(phaseName(phase), start);
  }

  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(options.outputPath, &message);
  if (!output)
    return emitError(fileLoc)
           << "cannot open output '" << options.outputPath << "': " << message;
  module->print(output->os());
  output->os() << "\n";
  if (output->os().has_error())
    return emitError(fileLoc) << "cannot write '" << options.outputPath << "'";
  output->keep();
  if (options.verbose)
    log << "tandemc: wrote " << options.outputPath << "\n";
  return success();
}
