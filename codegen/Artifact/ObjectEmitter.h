//===- ObjectEmitter.h - LLVM IR, assembly and objects ----------*- C++ -*-===//
//
// Turns a module lowered to the LLVM dialect into the artifact: translates it
// to LLVM IR, adds the model's runtime descriptor and entry point, and emits
// LLVM IR, assembly or an object file through an in-process TargetMachine.
// An ELF object's large weights go around LLVM, from their blobs straight
// into the file (StreamedWeights.h).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_ARTIFACT_OBJECTEMITTER_H
#define TANDEM_CODEGEN_ARTIFACT_OBJECTEMITTER_H

#include "codegen/Artifact/DeviceProgram.h"
#include "codegen/Artifact/ModelSignature.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tandem {

enum class ObjectKind { LLVMIR, Assembly, Object };

struct ObjectOptions {
  /// Target triple; empty for the host's.
  std::string triple;
  /// CPU to tune and select instructions for: a portable baseline
  /// ("x86-64", the default), a level ("x86-64-v3"), a part ("znver4") or
  /// "native" for this machine.
  std::string cpu = "x86-64";
  /// Extra target features, e.g. "+avx512f,-avx512vnni".
  std::string features;
  /// Also export `tandem_default_model`, for shared libraries that
  /// tandem-run opens.
  bool exportDefaultModel = false;
  /// Free the module's weight blobs as soon as nothing needs them: the
  /// weights LLVM IR holds a copy of once it is translated, those written
  /// straight into an object file (StreamedWeights.h) once the object is
  /// written (the module's weights are empty afterwards). For a caller that
  /// emits once and drops the module, like tandemc.
  bool releaseWeights = false;
  /// The device images of a model with GPU partitions (PTX, cubin, fatbin
  /// per arch), from the GPU code generator; they go into the object's
  /// `tandem_device_program_t`. May be empty (the runtime then runs the CPU
  /// twins). Ignored for a model without a device program.
  std::vector<DeviceImage> deviceImages;
};

/// Emits `module` (LLVM dialect) as `kind` to `os`. The model function named
/// by `signature` must take its inputs and then its outputs as bare
/// pointers. When `module` carries a device program (tandem-lower-host-schedule
/// ran), the descriptor points at a `tandem_device_program_t` built from it,
/// its CPU twins and `options.deviceImages`, and declares ABI version
/// kDeviceAbiVersion; otherwise the descriptor keeps the CPU-only layout and
/// version. Fails with a diagnostic (unknown CPU or triple, translation
/// failure).
LogicalResult emitModelObject(ModuleOp module, const ModelSignature &signature,
                              const ObjectOptions &options, ObjectKind kind,
                              llvm::raw_pwrite_stream &os);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_ARTIFACT_OBJECTEMITTER_H
