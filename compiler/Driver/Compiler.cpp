//===- Compiler.cpp - the Tandem compiler driver library ------------------===//

#include "compiler/Driver/Compiler.h"

#include "codegen/Artifact/HeaderEmitter.h"
#include "codegen/Artifact/ObjectEmitter.h"
#include "codegen/CPU/CPUPipeline.h"
#include "compiler/InitAll.h"
#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "passes/Analysis/DotGraph.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
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
    {EmitKind::MLIR, "mlir"},     {EmitKind::Dot, "dot"},
    {EmitKind::LLVM, "llvm"},     {EmitKind::PTX, "ptx"},
    {EmitKind::Asm, "asm"},       {EmitKind::Obj, "obj"},
    {EmitKind::Header, "header"}, {EmitKind::Shared, "shared"}};

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
    buildOptimizeGraphPipeline(pm);
    return success();
  case Phase::Placed: {
    TandemPlaceOptions placement;
    placement.targets = llvm::join(options.targets, ",");
    placement.cpuModel = options.cpuModel;
    placement.deviceConfig = options.deviceConfig;
    placement.pins.assign(options.pins.begin(), options.pins.end());
    placement.softPlacement = options.softPlacement;
    placement.report = options.placementReport;
    pm.addPass(createTandemPlace(placement));
    return success();
  }
  case Phase::Fused:
    // Fusion is not implemented yet: every op is its own kernel.
    return success();
  case Phase::Partitioned:
    pm.addPass(createTandemPartition());
    return success();
  case Phase::Bufferized:
    // Graph ops to linalg on tensors, then buffers in destination-passing
    // style.
    if (failed(parsePassPipeline("tandem-lower-to-linalg", pm)))
      return failure();
    return buildCPUBufferizePipeline(pm);
  case Phase::Lowered:
    return buildCPULowerToLLVMPipeline(pm);
  }
  llvm_unreachable("unknown phase");
}

/// Fails when a partition is placed on a GPU: GPU code generation is the
/// next stage.
static LogicalResult checkHostOnly(ModuleOp module) {
  WalkResult walk = module.walk([&](func::FuncOp func) {
    auto device =
        func->getAttrOfType<DeviceAttr>(TandemDialect::getDeviceAttrName());
    if (device && llvm::StringRef(device.getName()).contains("GPU")) {
      func.emitError() << "partition '@" << func.getSymName()
                       << "' is placed on " << device.getName()
                       << ": GPU code generation is not yet supported; "
                          "compile for --target=cpu";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The header's path for an object written to `output`.
static std::string headerPathFor(const CompilerOptions &options) {
  if (!options.headerPath.empty())
    return options.headerPath;
  llvm::SmallString<256> path(options.outputPath);
  llvm::sys::path::replace_extension(path, ".h");
  return path.str().str();
}

/// Peak resident set size of this process, in MiB.
static double peakRssMiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

/// The phase an output kind needs.
static Phase requiredPhase(EmitKind kind) {
  return kind == EmitKind::MLIR || kind == EmitKind::Dot ? kLastImplementedPhase
                                                         : Phase::Lowered;
}

/// Writes text produced by `write` to `path` ("-" = stdout); nothing on
/// failure.
static LogicalResult
writeFile(llvm::StringRef path, Location fileLoc,
          llvm::function_ref<LogicalResult(llvm::raw_pwrite_stream &)> write) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &message);
  if (!output)
    return emitError(fileLoc)
           << "cannot open output '" << path << "': " << message;
  if (failed(write(output->os())))
    return failure();
  if (output->os().has_error())
    return emitError(fileLoc) << "cannot write '" << path << "'";
  output->keep();
  return success();
}

/// Writes `module` as `kind` to `path` ("-" = stdout); nothing on failure.
static LogicalResult writeOutput(ModuleOp module, EmitKind kind,
                                 llvm::StringRef path, Location fileLoc) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &message);
  if (!output)
    return emitError(fileLoc)
           << "cannot open output '" << path << "': " << message;
  if (kind == EmitKind::Dot) {
    writeDotGraph(module, output->os());
  } else {
    module.print(output->os());
    output->os() << "\n";
  }
  if (output->os().has_error())
    return emitError(fileLoc) << "cannot write '" << path << "'";
  output->keep();
  return success();
}

LogicalResult mlir::tandem::compile(
    MLIRContext &context, const CompilerOptions &options,
    llvm::raw_ostream &log,
    llvm::function_ref<LogicalResult(PassManager &)> configurePassManager) {
  Location fileLoc = FileLineColLoc::get(&context, options.inputPath, 0, 0);
  if (options.emit == EmitKind::PTX || options.emit == EmitKind::Shared)
    return emitError(fileLoc)
           << "--emit=" << emitKindName(options.emit)
           << " is not yet supported; use --emit=obj, header, asm, llvm, "
              "mlir or dot";
  bool codegen =
      options.emit != EmitKind::MLIR && options.emit != EmitKind::Dot;
  if (codegen && options.compileTo && *options.compileTo != Phase::Lowered)
    return emitError(fileLoc) << "--emit=" << emitKindName(options.emit)
                              << " needs the whole pipeline; drop "
                                 "--compile-to or use --emit=mlir";
  Phase last = options.compileTo.value_or(requiredPhase(options.emit));
  if (last > kLastImplementedPhase) {
    InFlightDiagnostic diag = emitError(fileLoc);
    if (options.compileTo)
      diag << "--compile-to=" << phaseName(last);
    else
      diag << "--emit=" << emitKindName(options.emit);
    return diag << " is not yet supported: the pipeline currently ends at '"
                << phaseName(kLastImplementedPhase) << "'";
  }

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

  std::optional<ModelSignature> signature;
  for (int p = static_cast<int>(Phase::Graph); p <= static_cast<int>(last);
       ++p) {
    Phase phase = static_cast<Phase>(p);
    // Code generation starts from the partitioned graph: read the model's
    // interface while it is still tensors, and stop early for GPU work.
    if (phase == Phase::Bufferized) {
      if (failed(checkHostOnly(*module)))
        return failure();
      FailureOr<ModelSignature> sig = readModelSignature(*module, options.name);
      if (failed(sig))
        return failure();
      signature = *sig;
    }
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

  if (!options.dotGraph.empty() &&
      failed(writeOutput(*module, EmitKind::Dot, options.dotGraph, fileLoc)))
    return failure();
  if (!codegen) {
    if (failed(writeOutput(*module, options.emit, options.outputPath, fileLoc)))
      return failure();
  } else if (options.emit == EmitKind::Header) {
    if (failed(writeFile(options.outputPath, fileLoc,
                         [&](llvm::raw_pwrite_stream &os) {
                           emitModelHeader(*signature, os);
                           return success();
                         })))
      return failure();
  } else {
    ObjectOptions objectOptions;
    objectOptions.cpu = options.cpu;
    objectOptions.features = options.cpuFeatures;
    objectOptions.triple = options.triple;
    ObjectKind kind = options.emit == EmitKind::LLVM  ? ObjectKind::LLVMIR
                      : options.emit == EmitKind::Asm ? ObjectKind::Assembly
                                                      : ObjectKind::Object;
    start = Clock::now();
    if (failed(writeFile(options.outputPath, fileLoc,
                         [&](llvm::raw_pwrite_stream &os) {
                           return emitModelObject(*module, *signature,
                                                  objectOptions, kind, os);
                         })))
      return failure();
    report("emit", start);
    // An object comes with its header.
    if (options.emit == EmitKind::Obj && options.outputPath != "-") {
      std::string header = headerPathFor(options);
      if (failed(writeFile(header, fileLoc, [&](llvm::raw_pwrite_stream &os) {
            emitModelHeader(*signature, os);
            return success();
          })))
        return failure();
      if (options.verbose)
        log << "tandemc: wrote " << header << "\n";
    }
  }
  if (options.verbose)
    log << "tandemc: wrote " << options.outputPath << "\n";
  return success();
}
