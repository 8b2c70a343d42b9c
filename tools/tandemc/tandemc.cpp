//===- tandemc.cpp - the Tandem compiler command line ---------------------===//
//
// Flag parsing (CLI11) and one call into the driver library, which checks
// the options' values. MLIR's own debugging flags (--mlir-print-ir-after-all,
// --mlir-timing, ...) pass through to MLIR's command-line parser.
//
//===----------------------------------------------------------------------===//

#include "compiler/CompilerDialects.h"
#include "compiler/Driver/Compiler.h"
#include "passes/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cstring>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tandem;

/// Prints diagnostics as "FILE: error: MESSAGE", naming the ONNX node when
/// the location is one and the message does not already.
static LogicalResult printDiagnostic(Diagnostic &diag) {
  std::string where, node;
  Location loc = diag.getLocation();
  if (auto name = dyn_cast<NameLoc>(loc)) {
    node = name.getName().str();
    loc = name.getChildLoc();
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    where = file.getFilename().str();
    if (file.getLine() != 0)
      where += ":" + std::to_string(file.getLine()) + ":" +
               std::to_string(file.getColumn());
  } else {
    llvm::raw_string_ostream os(where);
    loc.print(os);
  }
  std::string message = diag.str();
  auto &os = llvm::errs();
  os << where << ": ";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    llvm::WithColor(os, llvm::HighlightColor::Error) << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    llvm::WithColor(os, llvm::HighlightColor::Warning) << "warning: ";
    break;
  default:
    llvm::WithColor(os, llvm::HighlightColor::Note) << "note: ";
  }
  os << message;
  if (!node.empty() && message.find("'" + node + "'") == std::string::npos)
    os << " [node '" << node << "']";
  os << "\n";
  for (Diagnostic &note : diag.getNotes())
    (void)printDiagnostic(note);
  return success();
}

/// Running out of memory ends the compilation with a message and status 1;
/// the interrupt handlers remove every temporary output (OutputFiles.h).
/// Nothing here may allocate.
static void outOfMemory(void *, const char *reason, bool) {
  static const char message[] =
      "tandemc: error: out of memory; the compilation was stopped and no "
      "output was written (";
  (void)!::write(2, message, sizeof(message) - 1);
  (void)!::write(2, reason, strlen(reason));
  (void)!::write(2, ")\n", 2);
  llvm::sys::RunInterruptHandlers();
  ::_exit(1);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::install_bad_alloc_error_handler(outOfMemory);

  CLI::App app{"tandemc: compile an ONNX model (or tandem MLIR) ahead of time",
               "tandemc"};
  CompilerOptions options;
  std::string emit = "obj", compileTo;
  std::vector<std::string> inputShapes, boundInputs;
  std::string target = "cpu";
  bool listOps = false;
  app.add_flag("--list-onnx-ops", listOps,
               "print the ONNX op types the importer supports and exit");
  app.add_option("input", options.inputPath, "model.onnx or model.mlir");
  app.add_option("-o", options.outputPath, "output file ('-' for stdout)");
  app.add_option("--emit", emit,
                 "what -o holds: mlir, dot, llvm, ptx, asm, obj, header, "
                 "shared")
      ->capture_default_str();
  app.add_option("--compile-to", compileTo,
                 "stop after a phase: import, graph, placed, fused, "
                 "partitioned, bufferized, kernels, lowered");
  app.add_option("--name", options.name, "symbol prefix of the model")
      ->capture_default_str();
  app.add_option("--input-shape", inputShapes,
                 "bind an input's shape, NAME=D0xD1x... (repeatable)");
  app.add_option("--bind-input", boundInputs,
                 "fix an input to the value in FILE (a serialised ONNX "
                 "TensorProto), NAME=FILE; it becomes a constant and leaves "
                 "the signature (repeatable)");
  app.add_option("--target", target,
                 "devices, e.g. cpu or cpu,gpu:sm_90 (GPUs: sm_90, sm_80, "
                 "sm_89, h100, h200, a100, l4)")
      ->capture_default_str();
  app.add_option("--cpu-model", options.cpuTarget.costModel,
                 "host CPU preset for the placement cost model: host (this "
                 "machine), generic, xeon-8480, epyc-9654, grace")
      ->capture_default_str();
  app.add_option("--device-config", options.deviceConfig,
                 "JSON file overriding device numbers (docs/Placement.md)");
  app.add_option("--place", options.pins,
                 "pin ops: GLOB=DEVICE on node or op names, e.g. "
                 "'classifier*=/device:CPU:0' (repeatable, first match wins)");
  bool noSoftPlacement = false;
  app.add_flag("--no-soft-placement", noSoftPlacement,
               "make a pin the target cannot honour an error");
  app.add_option("--kernel-report", options.kernelReport,
                 "the static cost of every GPU kernel, library call and "
                 "copy (FLOPs, bytes, roofline time on the target presets): "
                 "'-' prints a table, FILE.json writes JSON, any other FILE "
                 "a table");
  app.add_option("--placement-report", options.placementReport,
                 "explain placement: '-' prints a table, FILE.json writes "
                 "JSON, any other FILE a table");
  app.add_option("--dot-graph", options.dotGraph,
                 "also write a Graphviz drawing of the result to FILE");
  app.add_option("--cpu", options.cpuTarget.cpu,
                 "CPU to generate code for: x86-64 (portable, default), "
                 "x86-64-v3, x86-64-v4, znver4, ..., or native")
      ->capture_default_str();
  std::string cpuConv = "winograd";
  app.add_option("--cpu-conv", cpuConv,
                 "3x3 stride-1 convolutions on the CPU: winograd (Winograd "
                 "F(4x4, 3x3) or F(2x2, 3x3) where the layer has enough "
                 "output tiles) or im2col (the GEMM only)")
      ->check(CLI::IsMember({"winograd", "im2col"}))
      ->capture_default_str();
  app.add_option("--cpu-features", options.cpuTarget.features,
                 "extra target features, e.g. +avx512f,-avx512vnni");
  app.add_option("--target-triple", options.cpuTarget.triple,
                 "target triple for cross-compilation (default: the host's)");
  std::string cudaArchs;
  app.add_option("--cuda-arch", cudaArchs,
                 "extra CUDA architectures of the GPU kernels besides the "
                 "GPU targets' own (gpu:a100 is sm_80, gpu:h100 sm_90), "
                 "comma-separated, e.g. sm_80,sm_90");
  std::string gpuTwins = "linalg";
  app.add_option("--gpu-twins", gpuTwins,
                 "testing: what the CPU twins of GPU kernels run: linalg (the "
                 "op itself, default) or mapped (the GPU kernel's blocks, "
                 "threads, shuffles and shared memory emulated, so the "
                 "emulated device checks the GPU code)")
      ->check(CLI::IsMember({"linalg", "mapped"}))
      ->capture_default_str();
  app.add_option("--gpu-precision", options.cudaTarget.precision,
                 "narrowest format GPU library GEMMs and convolutions may "
                 "round their operands to on tensor cores (f32 accumulation, "
                 "f32 tensors): fp32 (none), tf32, bf16 or fp16")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16", "fp16"}))
      ->capture_default_str();
  app.add_option("--gpu-layout", options.cudaTarget.layout,
                 "data layout of GPU convolutions: auto (NHWC with "
                 "tf32/bf16/fp16, whose cuDNN tensor-core kernels read "
                 "NHWC; NCHW in fp32), nchw or nhwc; transposes only where "
                 "a value enters or leaves the GPU's convolutions")
      ->check(CLI::IsMember({"auto", "nchw", "nhwc"}))
      ->capture_default_str();
  app.add_option("--gpu-16bit-operands", options.cudaTarget.sixteenBitOperands,
                 "with --gpu-precision=bf16|fp16, whether library GEMMs read "
                 "16-bit operands (a weight converted at compile time, the "
                 "other operand written in 16 bits by its producer or a "
                 "conversion kernel): auto (where the bytes saved outweigh "
                 "an added launch), always (every weight that can be: half "
                 "the weights' device memory) or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  // The flag of earlier releases, the same as --gpu-precision=tf32.
  app.add_flag_callback(
         "--gpu-tf32", [&] { options.cudaTarget.precision = "tf32"; },
         "the same as --gpu-precision=tf32")
      ->excludes("--gpu-precision");
  app.add_option("--memory-report", options.memoryReport,
                 "print the arena, weight, input and output sizes ('-' for "
                 "stdout, or a file)");
  app.add_option("--header", options.headerPath,
                 "with --emit=obj, where to write the C header (default: "
                 "the output with .h)");
  app.add_option("--fusion-report", options.fusion.report,
                 "write every fusion and every rejected fusion candidate "
                 "with its reason as JSON to a file ('-' for stdout)");
  app.add_option("--disable-fusion", options.fusion.disableKinds,
                 "fusion kinds not to form: " + fusionKindList() +
                     " (comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--disable-fusion-of", options.fusion.disableNodes,
                 "never fuse ops whose ONNX node name matches this glob "
                 "(repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--time-phases", options.timePhases,
               "print wall time and peak RSS per phase");
  app.add_flag("-v,--verbose", options.verbose, "say what the driver does");
  // MLIR's debugging flags (--mlir-*) are collected and handed to MLIR.
  app.allow_extras();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }

  auto fail = [](const llvm::Twine &message) {
    llvm::WithColor::error(llvm::errs(), "tandemc") << message << "\n";
    return 1;
  };
  if (listOps) {
    for (const std::string &op : supportedOnnxOps())
      llvm::outs() << op << "\n";
    return 0;
  }
  if (options.inputPath.empty())
    return fail("no input file (usage: tandemc model.onnx -o model.o)");
  options.cpuTarget.winograd = cpuConv == "winograd";

  std::vector<std::string> mlirArgs = {"tandemc"};
  for (const std::string &extra : app.remaining()) {
    if (llvm::StringRef(extra).starts_with("--mlir-") ||
        llvm::StringRef(extra).starts_with("-mlir-"))
      mlirArgs.push_back(extra);
    else
      return fail("unknown argument '" + extra + "'");
  }

  std::optional<EmitKind> emitKind = parseEmitKind(emit);
  if (!emitKind)
    return fail("unknown --emit '" + emit +
                "' (expected mlir, dot, llvm, ptx, asm, obj, header or "
                "shared)");
  options.emit = *emitKind;
  if (!compileTo.empty()) {
    options.compileTo = parsePhase(compileTo);
    if (!options.compileTo)
      return fail("unknown --compile-to '" + compileTo +
                  "' (expected import, graph, placed, fused, partitioned, "
                  "bufferized or lowered)");
  }
  for (const std::string &spec : inputShapes) {
    auto [name, dims] = llvm::StringRef(spec).rsplit('=');
    std::optional<std::vector<int64_t>> shape = parseShape(dims);
    if (name.empty() || !llvm::StringRef(spec).contains('=') || !shape)
      return fail("malformed --input-shape '" + spec +
                  "' (expected NAME=D0xD1x..., e.g. input=1x3x224x224)");
    options.import.inputShapes[name.str()] = *shape;
  }
  for (const std::string &spec : boundInputs) {
    auto [name, file] = llvm::StringRef(spec).split('=');
    if (name.empty() || file.empty())
      return fail("malformed --bind-input '" + spec +
                  "' (expected NAME=FILE.pb, e.g. axes=axes.pb)");
    if (!options.import.boundInputs.emplace(name.str(), file.str()).second)
      return fail("--bind-input binds '" + name.str() + "' twice");
  }
  options.softPlacement = !noSoftPlacement;
  options.targets.clear();
  llvm::SmallVector<llvm::StringRef> devices;
  llvm::StringRef(target).split(devices, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef d : devices)
    options.targets.push_back(d.trim().str());
  if (options.targets.empty())
    return fail("--target is empty (expected e.g. cpu or cpu,gpu:sm_90)");

  if (!cudaArchs.empty()) {
    options.cudaTarget.extraArchs.clear();
    llvm::SmallVector<llvm::StringRef> archs;
    llvm::StringRef(cudaArchs).split(archs, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef arch : archs)
      options.cudaTarget.extraArchs.push_back(arch.trim().str());
    if (options.cudaTarget.extraArchs.empty())
      return fail("--cuda-arch is empty (expected e.g. sm_90 or sm_80,sm_90)");
  }

  options.cudaTarget.twinsMapped = gpuTwins == "mapped";

  // Let MLIR parse its own debugging flags.
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  std::vector<const char *> cargs;
  for (const std::string &a : mlirArgs)
    cargs.push_back(a.c_str());
  if (!llvm::cl::ParseCommandLineOptions(cargs.size(), cargs.data(), "tandemc",
                                         &llvm::errs()))
    return 1;

  // Only the dialects, interfaces and translations the pipelines use, all
  // loaded up front (CompilerDialects.h); the pipelines are built from
  // typed passes, so no pass is registered by name.
  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler handler(&context, printDiagnostic);

  // --mlir-timing: one report over every phase's pass manager, printed when
  // `timing` goes out of scope.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  auto configure = [&](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(rootTiming);
    return success();
  };
  if (failed(compile(context, options, llvm::outs(), configure)))
    return 1;
  return 0;
}
