//===- Compiler.cpp - the Tandem compiler driver library ------------------===//

#include "compiler/Driver/Compiler.h"

#include "codegen/Artifact/DeviceProgram.h"
#include "codegen/Artifact/HeaderEmitter.h"
#include "codegen/Artifact/ObjectEmitter.h"
#include "codegen/GPU/GPUPipeline.h"
#include "codegen/HostSchedule/Passes.h"
#include "codegen/Passes.h"
#include "compiler/Driver/OutputFiles.h"
#include "dialects/Tandem/IR/MlirSourceCheck.h"
#include "dialects/Tandem/IR/ShapeInference.h"
#include "dialects/Tandem/IR/TandemAttrs.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Analysis/DotGraph.h"
#include "passes/Optimize/ConstantData.h"
#include "passes/Passes.h"
#include "passes/Placement/DeviceModel.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
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
    {Phase::Kernels, "kernels"},         {Phase::Lowered, "lowered"}};

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

/// The targets' view of the driver options.
static TargetOptions targetOptionsFor(const CompilerOptions &options,
                                      llvm::ArrayRef<std::string> archs = {},
                                      bool allImageFormats = true) {
  return TargetOptions{options.cpuTarget, options.cudaTarget, archs,
                       allImageFormats};
}

void mlir::tandem::buildPhasePipeline(OpPassManager &pm, Phase phase,
                                      const CompilerOptions &options,
                                      llvm::ArrayRef<const Target *> devices) {
  TargetOptions targetOptions = targetOptionsFor(options);
  const Target &host = getHostTarget();
  switch (phase) {
  case Phase::Import:
  case Phase::Kernels:
    return;
  case Phase::Graph:
    buildOptimizeGraphPipeline(pm);
    return;
  case Phase::Placed: {
    TandemPlaceOptions placement;
    placement.targets = llvm::join(options.targets, ",");
    placement.cpuModel = options.cpuTarget.costModel;
    placement.deviceConfig = options.deviceConfig;
    placement.pins.assign(options.pins.begin(), options.pins.end());
    placement.softPlacement = options.softPlacement;
    placement.report = options.placementReport;
    pm.addPass(createTandemPlace(placement));
    // The GPUs' convolution layout, decided once for all their partitions.
    TandemAssignGPULayoutOptions layout;
    layout.layout = options.cudaTarget.convLayout();
    pm.addPass(createTandemAssignGPULayout(layout));
    return;
  }
  case Phase::Fused: {
    TandemFuseOptions fusion;
    fusion.fusionReport = options.fusion.report;
    fusion.disableFusion.assign(options.fusion.disableKinds.begin(),
                                options.fusion.disableKinds.end());
    fusion.disableFusionOf.assign(options.fusion.disableNodes.begin(),
                                  options.fusion.disableNodes.end());
    pm.addPass(createTandemFuse(fusion));
    return;
  }
  case Phase::Partitioned:
    pm.addPass(createTandemPartition());
    return;
  case Phase::Bufferized:
    // Graph ops to linalg on tensors, then buffers in destination-passing
    // style.
    pm.addPass(createTandemLowerToLinalg());
    if (devices.empty()) {
      host.buildHostBufferizePipeline(pm, /*withDevices=*/false, targetOptions);
      return;
    }
    // Device partitions stay functions of kernels; the model function
    // becomes the host schedule (streams, events, copies, launches) with
    // device buffers in each device's arena and host buffers in the host
    // arena.
    for (const Target *device : devices)
      device->buildPartitionBufferizePipeline(pm, targetOptions);
    buildHostSchedulePipeline(pm, [&](OpPassManager &schedule) {
      for (const Target *device : devices)
        device->buildSchedulePipeline(schedule, targetOptions);
    });
    host.buildHostBufferizePipeline(pm, /*withDevices=*/true, targetOptions);
    if (!options.kernelReport.empty()) {
      TandemKernelReportOptions report;
      report.report = options.kernelReport;
      report.targets = llvm::join(options.targets, ",");
      report.deviceConfig = options.deviceConfig;
      pm.addPass(createTandemKernelReport(report));
    }
    return;
  case Phase::Lowered:
    // With device partitions the host lowering also lowers the host
    // schedule to tandem_sched_* calls and wraps the kernels' CPU twins.
    for (const Target *device : devices)
      device->buildPartitionLoweringPipeline(pm, targetOptions);
    host.buildHostLoweringPipeline(pm, targetOptions);
    return;
  }
  llvm_unreachable("unknown phase");
}

/// The code generator's target as the driver options name it, with the
/// device images of the model's GPU kernels (none for a CPU-only model).
static ObjectOptions
objectOptionsFor(const CompilerOptions &options,
                 llvm::ArrayRef<DeviceImage> deviceImages) {
  ObjectOptions objectOptions;
  objectOptions.cpu = options.cpuTarget.cpu;
  objectOptions.features = options.cpuTarget.features;
  objectOptions.triple = options.cpuTarget.triple;
  objectOptions.deviceImages.assign(deviceImages.begin(), deviceImages.end());
  // Emission is the compile's last use of the module (writeCode).
  objectOptions.releaseWeights = true;
  return objectOptions;
}

/// Emits the model as an object into a temporary file and links it into the
/// shared library `options.outputPath` with the system C compiler driver.
static LogicalResult linkSharedLibrary(ModuleOp module,
                                       const ModelSignature &signature,
                                       const CompilerOptions &options,
                                       llvm::ArrayRef<DeviceImage> images,
                                       Location fileLoc) {
  if (options.outputPath == "-")
    return emitError(fileLoc) << "--emit=shared needs an output file (-o)";
  llvm::SmallString<128> objectPath;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tandem-" + signature.name, "o", fd, objectPath))
    return emitError(fileLoc)
           << "cannot create a temporary object file: " << ec.message();
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    ObjectOptions objectOptions = objectOptionsFor(options, images);
    objectOptions.exportDefaultModel = true;
    if (failed(emitModelObject(module, signature, objectOptions,
                               ObjectKind::Object, os)))
      return failure();
  }
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    return emitError(fileLoc)
           << "--emit=shared needs a C compiler driver ('cc') on PATH to "
              "link; use --emit=obj and link the object yourself";
  std::string output = options.outputPath;
  llvm::SmallVector<llvm::StringRef> args = {*linker, "-shared",  "-o",
                                             output,  objectPath, "-lm"};
  // LLVM's linker, where there is one, links a model's large object about
  // three times as fast as the system default (VGG-11's 600 MB: 1.4 s
  // against 3.9 s); the default links when it cannot.
  std::string message;
  int rc = -1;
  if (llvm::sys::findProgramByName("ld.lld")) {
    llvm::SmallVector<llvm::StringRef> withLld(args);
    withLld.insert(withLld.begin() + 1, "-fuse-ld=lld");
    rc = llvm::sys::ExecuteAndWait(*linker, withLld, std::nullopt, {}, 0, 0,
                                   &message);
  }
  if (rc != 0)
    rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                   &message);
  if (rc != 0)
    return emitError(fileLoc)
           << "linking '" << output << "' with " << *linker << " failed"
           << (message.empty() ? "" : ": " + message);
  return success();
}

/// Prints what the model needs in memory, for budgeting before deployment;
/// with GPU partitions (`program`), also the device arena.
static void writeMemoryReport(const ModelSignature &sig,
                              const std::optional<DeviceProgram> &program,
                              llvm::raw_ostream &os) {
  auto bytes = [](uint64_t n) {
    std::string text;
    llvm::raw_string_ostream s(text);
    if (n >= (1u << 20))
      s << llvm::format("%.2f MiB (%llu bytes)", n / double(1 << 20),
                        (unsigned long long)n);
    else if (n >= 1024)
      s << llvm::format("%.2f KiB (%llu bytes)", n / 1024.0,
                        (unsigned long long)n);
    else
      s << n << " bytes";
    return text;
  };
  os << "memory of model '" << sig.name << "':\n"
     << "  arena (intermediates, allocated once): " << bytes(sig.arenaBytes)
     << "\n"
     << "  weights (read-only, in the object):     " << bytes(sig.weightBytes)
     << "\n";
  if (program) {
    // One device arena per GPU; a single GPU keeps the one-line form.
    bool several = program->arenaBytes.size() > 1;
    for (auto [gpu, arena] : llvm::enumerate(program->arenaBytes)) {
      uint64_t weights = 0;
      for (const DeviceWeightInfo &weight : program->weights)
        if (static_cast<size_t>(weight.device) == gpu)
          weights += weight.bytes;
      os << "  device arena"
         << (several ? " of /device:GPU:" + std::to_string(gpu) : "")
         << " (GPU memory, allocated at creation, per run in flight): "
         << bytes(arena) << "\n"
         << "    of which weights (uploaded once at creation): "
         << bytes(weights) << "\n";
    }
  }
  auto tensors = [&](llvm::StringRef kind,
                     llvm::ArrayRef<TensorSignature> list) {
    for (const TensorSignature &t : list) {
      os << "  " << kind << " '" << t.name << "' " << dtypeName(t.dtype) << "[";
      llvm::interleave(t.shape, os, ",");
      os << "]: " << bytes(t.bytes()) << "\n";
    }
  };
  tensors("input", sig.inputs);
  tensors("output", sig.outputs);
}

/// The header's path for an object written to `output`.
static std::string headerPathFor(const CompilerOptions &options) {
  if (!options.headerPath.empty())
    return options.headerPath;
  llvm::SmallString<256> path(options.outputPath);
  llvm::sys::path::replace_extension(path, ".h");
  return path.str().str();
}

std::string mlir::tandem::validateFusionOptions(const FusionOptions &options) {
  for (const std::string &kind : options.disableKinds)
    if (!symbolizeFusionKind(kind))
      return "unknown fusion kind '" + kind +
             "' in --disable-fusion (expected " + fusionKindList() + ")";
  for (const std::string &pattern : options.disableNodes)
    if (llvm::Expected<llvm::GlobPattern> glob =
            llvm::GlobPattern::create(pattern);
        !glob)
      return "invalid node glob '" + pattern +
             "' in --disable-fusion-of: " + llvm::toString(glob.takeError());
  return "";
}

std::string mlir::tandem::validateModelName(llvm::StringRef name) {
  if (name.empty())
    return "is empty; it must be a C identifier, e.g. resnet50";
  if (name.size() > 128)
    return "is longer than 128 characters";
  // A leading '_' is reserved in C.
  if (!llvm::isAlpha(name.front()))
    return "must start with a letter (it prefixes the C symbols of the "
           "model)";
  for (char c : name)
    if (!llvm::isAlnum(c) && c != '_')
      return "must be a C identifier (letters, digits and '_'), e.g. "
             "resnet50";
  std::string lower = name.lower();
  if (lower == "tandem" || llvm::StringRef(lower).starts_with("tandem_"))
    return "collides with the runtime's names (tandem_*, TANDEM_*)";
  // C keywords, the program's entry point, and the C library functions that
  // generated code calls: a model of that name would clash with them.
  static constexpr llvm::StringLiteral kReserved[] = {
      "auto",      "break",    "case",     "char",    "const",   "continue",
      "default",   "do",       "double",   "else",    "enum",    "extern",
      "float",     "for",      "goto",     "if",      "inline",  "int",
      "long",      "register", "restrict", "return",  "short",   "signed",
      "sizeof",    "static",   "struct",   "switch",  "typedef", "union",
      "unsigned",  "void",     "volatile", "while",   "bool",    "true",
      "false",     "class",    "delete",   "new",     "this",    "template",
      "namespace", "operator", "main",     "malloc",  "free",    "calloc",
      "realloc",   "memcpy",   "memset",   "memmove", "abort",   "exit"};
  if (llvm::is_contained(kReserved, name))
    return "is a C keyword or a C library name; choose another";
  return "";
}

/// Peak resident set size of this process, in MiB.
static double peakRssMiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

/// The phase an output kind needs. IR and drawings default to the last
/// graph-level phase (placed, fused, partitioned); --compile-to goes further.
static Phase requiredPhase(EmitKind kind) {
  if (kind == EmitKind::PTX)
    return Phase::Kernels;
  return kind == EmitKind::MLIR || kind == EmitKind::Dot ? Phase::Partitioned
                                                         : Phase::Lowered;
}

std::optional<CompilePlan>
mlir::tandem::checkCompilerOptions(const CompilerOptions &options,
                                   std::string &error) {
  auto fail = [&](const llvm::Twine &message) {
    error = message.str();
    return std::nullopt;
  };
  // The targets' cost presets name the --target devices.
  registerTargets();
  if (std::string problem = validateModelName(options.name); !problem.empty())
    return fail("--name '" + options.name + "' " + problem);
  if (std::string problem = validateFusionOptions(options.fusion);
      !problem.empty())
    return fail(problem);
  for (const std::string &arch : options.cudaTarget.extraArchs)
    if (std::string problem = validateCudaArch(arch); !problem.empty())
      return fail("--cuda-arch: " + problem);
  // The GPUs of the targets give the kernels' architectures (the cost
  // model's CPU preset plays no part in that).
  std::string problem;
  std::optional<TargetConfig> targets =
      parseTargets(llvm::join(options.targets, ","), "generic", problem);
  if (!targets)
    return fail("--target: " + problem);

  CompilePlan plan;
  plan.ptx = options.emit == EmitKind::PTX;
  plan.codegen = options.emit != EmitKind::MLIR &&
                 options.emit != EmitKind::Dot && !plan.ptx;
  if (plan.ptx && options.compileTo && *options.compileTo != Phase::Kernels)
    return fail("--emit=ptx writes the images of the kernels phase; drop "
                "--compile-to");
  if (plan.codegen && options.compileTo && *options.compileTo != Phase::Lowered)
    return fail("--emit=" + emitKindName(options.emit) +
                " needs the whole pipeline; drop --compile-to or use "
                "--emit=mlir");
  plan.last = options.compileTo.value_or(requiredPhase(options.emit));
  // The model's signature (which the report sizes) is read when code
  // generation starts.
  if (!options.memoryReport.empty() &&
      (plan.ptx || plan.last < Phase::Bufferized))
    return fail("--memory-report needs code generation (--emit=obj, shared, "
                "header, asm or llvm)");
  if (!options.kernelReport.empty() && plan.last < Phase::Bufferized)
    return fail("--kernel-report needs the bufferized phase (code "
                "generation, --emit=ptx or --compile-to=bufferized)");

  auto addArch = [&](const std::string &arch) {
    if (!arch.empty() && !llvm::is_contained(plan.kernelArchs, arch))
      plan.kernelArchs.push_back(arch);
  };
  for (const DeviceModel &device : targets->devices)
    if (device.isGpu())
      addArch(device.arch);
  for (const std::string &arch : options.cudaTarget.extraArchs)
    addArch(arch);
  return plan;
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
  return writeFile(path, fileLoc, [&](llvm::raw_pwrite_stream &os) {
    if (kind == EmitKind::Dot) {
      writeDotGraph(module, os);
    } else {
      module.print(os);
      os << "\n";
    }
    return success();
  });
}

/// Writes the C header of the model to `path`.
static LogicalResult writeHeader(const ModelSignature &signature,
                                 llvm::StringRef path, Location fileLoc) {
  return writeFile(path, fileLoc, [&](llvm::raw_pwrite_stream &os) {
    emitModelHeader(signature, os);
    return success();
  });
}

/// The model functions of hand-written IR have signatures no tandem op
/// checked: a tensor whose byte size overflows would crash code generation.
static LogicalResult checkSignatureSizes(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    FunctionType signature = func.getFunctionType();
    for (Type type : llvm::concat<const Type>(signature.getInputs(),
                                              signature.getResults())) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (!shaped || !shaped.hasRank() ||
          !shaped.getElementType().isIntOrFloat())
        continue;
      int64_t elementBytes = (shaped.getElementTypeBitWidth() + 7) / 8;
      if (!shape::sizeInBytesFits(shaped.getShape(), elementBytes))
        return func.emitError() << "signature type " << type
                                << " has more bytes than int64 counts";
    }
  }
  return success();
}

namespace {

/// Prints the wall time and peak RSS of each step to the log when
/// --time-phases asks for it.
class StepTimer {
public:
  StepTimer(const CompilerOptions &options, llvm::raw_ostream &log)
      : enabled(options.timePhases), log(log) {}

  using Clock = std::chrono::steady_clock;

  /// Reports the step `what`, begun at `start`.
  void report(llvm::StringRef what, Clock::time_point start) const {
    if (!enabled)
      return;
    double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    log << llvm::format("phase %-12s %9.2f ms   peak RSS %8.1f MiB\n",
                        what.str().c_str(), ms, peakRssMiB());
  }

private:
  bool enabled;
  llvm::raw_ostream &log;
};

/// What a compilation carries from one step to the next.
struct Compilation {
  MLIRContext &context;
  /// The options, output paths naming their temporaries.
  const CompilerOptions &options;
  const CompilePlan &plan;
  llvm::raw_ostream &log;
  llvm::function_ref<LogicalResult(PassManager &)> configurePassManager;
  Location fileLoc;
  StepTimer timer;

  OwningOpRef<ModuleOp> module;
  /// The model's interface, read when code generation starts (not for PTX).
  std::optional<ModelSignature> signature;
  /// The device targets whose partitions the model has (known from the
  /// bufferized phase on).
  std::vector<const Target *> devices;
  /// The device kernels' images, from the kernels phase.
  std::vector<DeviceImage> deviceImages;
};

} // namespace

/// Parses hand-written tandem IR (a .mlir file), refusing text that MLIR's
/// parser would crash on.
static OwningOpRef<ModuleOp>
parseMlirFile(MLIRContext &context, llvm::StringRef path, Location fileLoc) {
  if (std::string why = checkRegularFile(path); !why.empty())
    return emitError(fileLoc) << "cannot read file: " << why, nullptr;
  std::string message;
  auto file = openInputFile(path, &message);
  if (!file)
    return emitError(fileLoc) << "cannot read file: " << message, nullptr;
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  std::optional<ParserCrashSpot> crash = findParserCrash(file->getBuffer());
  const char *crashAt =
      crash ? file->getBufferStart() + crash->offset : nullptr;
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
  if (crash) {
    sourceMgr->PrintMessage(llvm::errs(), llvm::SMLoc::getFromPointer(crashAt),
                            llvm::SourceMgr::DK_Error, crash->message);
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (module && failed(checkSignatureSizes(*module)))
    return nullptr;
  return module;
}

/// The import step: ONNX models by content, .mlir files as tandem IR.
static LogicalResult importModel(Compilation &c) {
  auto start = StepTimer::Clock::now();
  llvm::StringRef path = c.options.inputPath;
  if (c.options.verbose)
    c.log << "tandemc: importing " << path << "\n";
  if (path.ends_with(".mlir")) {
    c.module = parseMlirFile(c.context, path, c.fileLoc);
  } else {
    OnnxImportOptions importOptions = c.options.import;
    importOptions.functionName = c.options.name;
    c.module = importOnnxFile(c.context, path, importOptions);
  }
  if (!c.module)
    return failure();
  c.timer.report("import", start);
  return success();
}

/// What happens before `phase` runs: code generation starts from the
/// partitioned graph, so the model's interface is read while it is still
/// tensors, and the device targets the model uses are found.
static LogicalResult beforePhase(Compilation &c, Phase phase) {
  if (phase != Phase::Bufferized)
    return success();
  c.devices = getDeviceTargetsOf(*c.module);
  if (!c.options.kernelReport.empty() && c.devices.empty())
    return emitError(c.fileLoc)
           << "--kernel-report: the model has no GPU partition (compile with "
              "--target=cpu,gpu:... and place ops on the GPU)";
  if (c.plan.ptx)
    return success();
  FailureOr<ModelSignature> signature =
      readModelSignature(*c.module, c.options.name);
  if (failed(signature))
    return failure();
  c.signature = std::move(*signature);
  return success();
}

/// The kernels phase: each device target compiles its partitions' kernels
/// into device images (the module is unchanged; the host code's CPU twins
/// are compiled from the same kernel functions in the lowered phase). For
/// --emit=ptx only PTX, else every format the machine's tools allow.
static LogicalResult runKernelsPhase(Compilation &c) {
  auto start = StepTimer::Clock::now();
  if (c.options.verbose)
    c.log << "tandemc: phase kernels\n";
  TargetOptions options =
      targetOptionsFor(c.options, c.plan.kernelArchs, !c.plan.ptx);
  for (const Target *device : c.devices) {
    FailureOr<std::vector<DeviceImage>> images =
        device->compileKernels(*c.module, options);
    if (failed(images))
      return failure();
    c.deviceImages.insert(c.deviceImages.end(), images->begin(), images->end());
  }
  c.timer.report("kernels", start);
  return success();
}

/// Runs the passes of one phase on the model.
static LogicalResult runPhase(Compilation &c, Phase phase) {
  if (phase == Phase::Kernels)
    return runKernelsPhase(c);
  auto start = StepTimer::Clock::now();
  PassManager pm(&c.context);
  // Weights a pass replaced free their bytes right away.
  pm.addInstrumentation(std::make_unique<DeadBlobInstrumentation>());
  buildPhasePipeline(pm, phase, c.options, c.devices);
  if (c.configurePassManager && failed(c.configurePassManager(pm)))
    return failure();
  if (c.options.verbose)
    c.log << "tandemc: phase " << phaseName(phase) << "\n";
  if (failed(pm.run(*c.module)))
    return failure();
  c.timer.report(phaseName(phase), start);
  // Memory planning has sized the model's arena.
  if (phase == Phase::Bufferized && c.signature)
    if (auto func = c.module->lookupSymbol<func::FuncOp>(c.options.name))
      if (auto bytes = func->getAttrOfType<IntegerAttr>(
              TandemDialect::getArenaBytesAttrName()))
        c.signature->arenaBytes = bytes.getInt();
  // The weights the object holds are the constant globals of the host
  // schedule: with GPU partitions, some are 16-bit copies of the graph's
  // f32 constants (tandem-narrow-gemm-operands).
  if (phase == Phase::Bufferized && c.signature && !c.devices.empty()) {
    int64_t weightBytes = 0;
    for (auto global : c.module->getOps<memref::GlobalOp>())
      if (global.getConstant() && global.getInitialValue())
        weightBytes += exec::memRefBytes(global.getType());
    c.signature->weightBytes = static_cast<uint64_t>(weightBytes);
  }
  return success();
}

/// The phases step: every phase after import, up to the plan's last.
static LogicalResult runPhases(Compilation &c) {
  for (int p = static_cast<int>(Phase::Graph);
       p <= static_cast<int>(c.plan.last); ++p) {
    Phase phase = static_cast<Phase>(p);
    if (failed(beforePhase(c, phase)) || failed(runPhase(c, phase)))
      return failure();
  }
  return success();
}

/// Writes the PTX images of the kernels phase to the output, each preceded
/// by a comment line naming the arch.
static LogicalResult writePTX(Compilation &c) {
  if (c.devices.empty())
    return emitError(c.fileLoc)
           << "--emit=ptx: the model has no GPU partition (compile with "
              "--target=cpu,gpu:... and place ops on the GPU)";
  return writeFile(
      c.options.outputPath, c.fileLoc, [&](llvm::raw_pwrite_stream &os) {
        for (const DeviceImage &image : c.deviceImages) {
          if (image.format != TANDEM_IMAGE_PTX)
            continue;
          os << "// tandem: PTX for " << image.arch << "\n" << image.bytes;
          if (!llvm::StringRef(image.bytes).ends_with("\n"))
            os << "\n";
        }
        return success();
      });
}

/// Writes the memory report (the plan has checked that the signature was
/// read).
static LogicalResult writeMemoryReportFile(Compilation &c) {
  assert(c.signature && "checkCompilerOptions requires code generation");
  FailureOr<std::optional<DeviceProgram>> program =
      readDeviceProgram(*c.module);
  if (failed(program))
    return failure();
  return writeFile(c.options.memoryReport, c.fileLoc,
                   [&](llvm::raw_pwrite_stream &os) {
                     writeMemoryReport(*c.signature, *program, os);
                     return success();
                   });
}

/// Writes the generated code: a header, a shared library, or an object (with
/// its header), assembly or LLVM IR.
static LogicalResult writeCode(Compilation &c) {
  const CompilerOptions &options = c.options;
  if (options.emit == EmitKind::Header)
    return writeHeader(*c.signature, options.outputPath, c.fileLoc);
  auto start = StepTimer::Clock::now();
  if (options.emit == EmitKind::Shared) {
    if (failed(linkSharedLibrary(*c.module, *c.signature, options,
                                 c.deviceImages, c.fileLoc)))
      return failure();
    c.timer.report("link", start);
    return success();
  }
  ObjectOptions objectOptions = objectOptionsFor(options, c.deviceImages);
  ObjectKind kind = options.emit == EmitKind::LLVM  ? ObjectKind::LLVMIR
                    : options.emit == EmitKind::Asm ? ObjectKind::Assembly
                                                    : ObjectKind::Object;
  if (failed(writeFile(options.outputPath, c.fileLoc,
                       [&](llvm::raw_pwrite_stream &os) {
                         return emitModelObject(*c.module, *c.signature,
                                                objectOptions, kind, os);
                       })))
    return failure();
  c.timer.report("emit", start);
  // An object comes with its header (compile() has set its path).
  if (options.emit == EmitKind::Obj && options.outputPath != "-")
    return writeHeader(*c.signature, options.headerPath, c.fileLoc);
  return success();
}

/// The emission step: the drawing and memory report when asked for, then
/// the output itself.
static LogicalResult emitOutputs(Compilation &c) {
  const CompilerOptions &options = c.options;
  if (!options.dotGraph.empty() &&
      failed(
          writeOutput(*c.module, EmitKind::Dot, options.dotGraph, c.fileLoc)))
    return failure();
  if (!options.memoryReport.empty() && failed(writeMemoryReportFile(c)))
    return failure();
  if (c.plan.ptx) {
    auto start = StepTimer::Clock::now();
    if (failed(writePTX(c)))
      return failure();
    c.timer.report("ptx", start);
    return success();
  }
  if (!c.plan.codegen)
    return writeOutput(*c.module, options.emit, options.outputPath, c.fileLoc);
  return writeCode(c);
}

LogicalResult mlir::tandem::compile(
    MLIRContext &context, const CompilerOptions &options,
    llvm::raw_ostream &log,
    llvm::function_ref<LogicalResult(PassManager &)> configurePassManager) {
  Location fileLoc = FileLineColLoc::get(&context, options.inputPath, 0, 0);
  // Options check: once, before any work.
  std::string problem;
  std::optional<CompilePlan> plan = checkCompilerOptions(options, problem);
  if (!plan)
    return emitError(fileLoc) << problem;

  // Every output goes to a temporary beside it and is renamed into place
  // only when everything has succeeded (OutputFiles.h).
  OutputFiles outputs(fileLoc, {options.inputPath, options.deviceConfig});
  CompilerOptions redirected = options;
  auto redirect = [&](std::string &path, StringRef what) {
    FailureOr<std::string> temporary = outputs.add(path, what);
    if (failed(temporary))
      return failure();
    path = *temporary;
    return success();
  };
  bool header = options.emit == EmitKind::Obj && options.outputPath != "-";
  if (header)
    redirected.headerPath = headerPathFor(options);
  if (failed(redirect(redirected.outputPath, "-o")) ||
      (header && failed(redirect(redirected.headerPath, "--header"))) ||
      failed(redirect(redirected.dotGraph, "--dot-graph")) ||
      failed(redirect(redirected.memoryReport, "--memory-report")) ||
      failed(redirect(redirected.kernelReport, "--kernel-report")) ||
      failed(redirect(redirected.placementReport, "--placement-report")) ||
      failed(redirect(redirected.fusion.report, "--fusion-report")))
    return failure();

  // Import, phases, emission.
  Compilation c{context,
                redirected,
                *plan,
                log,
                configurePassManager,
                fileLoc,
                StepTimer(options, log)};
  if (failed(importModel(c)) || failed(runPhases(c)) ||
      failed(emitOutputs(c)) || failed(outputs.commit()))
    return failure();
  if (options.verbose) {
    log << "tandemc: wrote " << options.outputPath << "\n";
    if (header)
      log << "tandemc: wrote " << headerPathFor(options) << "\n";
  }
  return success();
}
