//===- Compiler.h - the Tandem compiler driver library ----------*- C++ -*-===//
//
// The driver behind tandemc: a plain options struct, the phase enum that
// --compile-to stops after, pipeline building per phase, and compile(), which
// imports a model (ONNX or tandem MLIR), runs the phases and writes the
// requested output. No command-line state lives here.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_DRIVER_COMPILER_H
#define TANDEM_COMPILER_DRIVER_COMPILER_H

#include "codegen/Target/Target.h"
#include "codegen/Target/TargetOptions.h"
#include "compiler/Import/OnnxImporter.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tandem {

/// The phases of the pipeline, in order. --compile-to stops after one.
enum class Phase {
  Import,      ///< the model as tandem IR
  Graph,       ///< after graph optimisation
  Placed,      ///< every op carries a device
  Fused,       ///< ops grouped into tandem.fusion regions
  Partitioned, ///< per-device partitions with transfers
  Bufferized,  ///< buffers and the static memory plan
  Kernels,     ///< device targets' kernels compiled into device images
  Lowered,     ///< LLVM dialect host code, ready for code emission
};

/// What the output file holds.
enum class EmitKind { MLIR, Dot, LLVM, PTX, Asm, Obj, Header, Shared };

std::optional<Phase> parsePhase(llvm::StringRef name);
llvm::StringRef phaseName(Phase phase);
std::optional<EmitKind> parseEmitKind(llvm::StringRef name);
llvm::StringRef emitKindName(EmitKind kind);

/// What the fused phase is told (the tandem-fuse pass options).
struct FusionOptions {
  /// Where the JSON fusion report goes ("-" for stdout); empty for none.
  std::string report;
  /// Fusion kinds not to form, by name (fusionKindList()).
  std::vector<std::string> disableKinds;
  /// Node-name globs (llvm::GlobPattern) whose ops are never fused.
  std::vector<std::string> disableNodes;
};

/// Checks `options` before any work: known kinds and well-formed globs.
/// Returns the error message, or the empty string when they are valid.
std::string validateFusionOptions(const FusionOptions &options);

/// Everything tandemc can be asked to do.
struct CompilerOptions {
  std::string inputPath;
  /// "-" for stdout.
  std::string outputPath = "-";
  EmitKind emit = EmitKind::Obj;
  /// Stop after this phase; defaults to the last phase `emit` needs.
  std::optional<Phase> compileTo;
  /// Symbol prefix of the generated code and name of the model function.
  std::string name = "model";
  /// Devices of the build, e.g. {"cpu"} or {"cpu", "gpu:sm_90"}.
  std::vector<std::string> targets = {"cpu"};
  /// JSON file overriding device numbers; empty for none.
  std::string deviceConfig;
  /// GLOB=DEVICE placement pins, first match wins.
  std::vector<std::string> pins;
  /// Fall back (with a warning) when a pin cannot be honoured.
  bool softPlacement = true;
  /// Where to write the placement report ("-" = stdout); empty for none.
  std::string placementReport;
  /// Where to write a Graphviz drawing of the final IR; empty for none.
  std::string dotGraph;
  /// The CPU target's options.
  CPUTargetOptions cpuTarget;
  /// The CUDA target's options (used when `targets` has a GPU).
  CUDATargetOptions cudaTarget;
  /// With --emit=obj, where to write the C header; empty for the output
  /// path with its extension replaced by ".h".
  std::string headerPath;
  /// Where to write the memory report (arena, weights, inputs, outputs;
  /// "-" = stdout); empty for none. Needs code generation.
  std::string memoryReport;
  /// Where to write the static cost of every GPU kernel, library call and
  /// copy ("-" = stdout, FILE.json = JSON); empty for none. Needs the
  /// bufferized phase and a GPU partition.
  std::string kernelReport;
  OnnxImportOptions import;
  FusionOptions fusion;
  /// Print the wall time and peak RSS of each phase to `log`.
  bool timePhases = false;
  /// Print what the driver does to `log`.
  bool verbose = false;
};

/// Checks a model name (--name): it prefixes every C symbol and macro of the
/// artifact, so it must be a C identifier that starts with a letter and
/// collides with no keyword, runtime name (tandem_*) or C library function.
/// Returns why it is not usable ("must be a C identifier ..."), or "".
std::string validateModelName(llvm::StringRef name);

/// Parses "1x3x224x224" into dims; std::nullopt if malformed.
std::optional<std::vector<int64_t>> parseShape(llvm::StringRef text);

/// What compile() does with valid options, derived once by
/// checkCompilerOptions().
struct CompilePlan {
  /// The last phase to run.
  Phase last = Phase::Partitioned;
  /// The output is code: an object, shared library, header, assembly or
  /// LLVM IR (the whole pipeline, then the artifact emitters).
  bool codegen = false;
  /// The output is the GPU kernels' PTX (the kernels phase's images).
  bool ptx = false;
  /// The CUDA architectures of the GPU kernels: each GPU target's own (in
  /// target order), then the extra --cuda-arch ones, without repeats.
  std::vector<std::string> kernelArchs;
};

/// The options check of compile(), before any work: the model name, fusion
/// options, CUDA architectures and targets are valid, and --emit,
/// --compile-to and --memory-report agree. Returns the plan, or std::nullopt
/// with the problem (naming the flag) in `error`.
std::optional<CompilePlan> checkCompilerOptions(const CompilerOptions &options,
                                                std::string &error);

/// Adds the passes of `phase` (only that phase; the kernels phase has none)
/// to `pm`. `devices` are the device targets whose partitions the model
/// has: in the bufferized phase their partitions stay functions of kernels
/// under a host schedule (docs/GPU.md), and in the lowered phase they add
/// their passes before the host target's.
void buildPhasePipeline(OpPassManager &pm, Phase phase,
                        const CompilerOptions &options,
                        llvm::ArrayRef<const Target *> devices = {});

/// Runs the whole compilation in four steps: the options check
/// (checkCompilerOptions), import, the phases up to the plan's last, and
/// emission. Diagnostics go to the context's handler and the -v /
/// --time-phases report to `log`. On failure nothing is written.
/// `configurePassManager` lets the tool apply MLIR's debugging flags.
LogicalResult compile(MLIRContext &context, const CompilerOptions &options,
                      llvm::raw_ostream &log,
                      llvm::function_ref<LogicalResult(PassManager &)>
                          configurePassManager = nullptr);

} // namespace mlir::tandem

#endif // TANDEM_COMPILER_DRIVER_COMPILER_H
