//===- TargetOptions.h - what each device kind's code generator is told
//-*-C++-*-===//
//
// The options of the CPU and CUDA targets (CompilerOptions holds one of
// each), and the view of them that every Target's pipelines and kernel
// compiler receive.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_TARGET_TARGETOPTIONS_H
#define TANDEM_CODEGEN_TARGET_TARGETOPTIONS_H

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace mlir::tandem {

/// The CPU target's options (CPUTarget).
struct CPUTargetOptions {
  /// The CPU to generate code for ("x86-64", "x86-64-v3", "znver4",
  /// "native", ...), extra target features, and the target triple (empty
  /// for the host's).
  std::string cpu = "x86-64";
  std::string features;
  std::string triple;
  /// The host CPU's preset for the placement cost model ("host" = this
  /// machine).
  std::string costModel = "host";
  /// 3x3, stride-1 convolutions may run as Winograd F(4x4, 3x3) or
  /// F(2x2, 3x3) (tandemc --cpu-conv=winograd, the default; im2col turns
  /// it off).
  bool winograd = true;
};

/// The CUDA target's options (CUDATarget). The GPU architectures come from
/// the GPU targets themselves (gpu:a100 is sm_80).
struct CUDATargetOptions {
  /// Extra CUDA architectures of the GPU kernels ("sm_80", "sm_90", ...),
  /// besides those of the GPU targets: one PTX (and, with the CUDA
  /// toolkit, cubin) per arch in the fatbin.
  std::vector<std::string> extraArchs;
  /// Testing: the CPU twins of GPU kernels run the kernels' GPU mapping
  /// (every block and thread in host loops, shuffles and shared memory
  /// emulated) instead of the linalg op, so that runs on the emulated device
  /// check the code the GPU executes (tandemc --gpu-twins=mapped).
  bool twinsMapped = false;
  /// The narrowest format library GEMMs and convolutions may round their
  /// operands to on tensor cores, with f32 accumulation and f32 storage:
  /// "fp32" (the default: none, so CPU, emulated and GPU results agree),
  /// "tf32", "bf16" or "fp16" (tandemc --gpu-precision; docs/GPU.md,
  /// "Precision").
  std::string precision = "fp32";
  /// The data layout of the GPUs' convolutions: "auto" (NHWC where the
  /// precision lets cuDNN run them on tensor cores, whose kernels read
  /// NHWC; NCHW in FP32, where its FMA kernels read NCHW), "nchw" or
  /// "nhwc" (tandemc --gpu-layout; docs/GPU.md, "Layouts").
  std::string layout = "auto";
  /// Whether bf16 and fp16 library GEMMs read 16-bit operands, a weight
  /// converted at compile time and the other operand in 16 bits
  /// (tandem-narrow-gemm-operands; tandemc --gpu-16bit-operands): "auto"
  /// where it pays (the producer writes 16 bits itself, or the weight
  /// bytes saved outweigh a conversion launch), "always" for every weight
  /// that can be (half the weights' device memory), "never".
  std::string sixteenBitOperands = "auto";

  /// `layout` with "auto" resolved to "nchw" or "nhwc" (any other value
  /// as given: tandem-assign-gpu-layout rejects it).
  std::string convLayout() const {
    if (layout != "auto")
      return layout;
    return precision == "fp32" ? "nchw" : "nhwc";
  }
};

/// What a Target's pipelines and kernel compiler are given.
struct TargetOptions {
  const CPUTargetOptions &cpu;
  const CUDATargetOptions &cuda;
  /// The CUDA architectures of the kernels: each GPU target's own, then
  /// the extra ones, without repeats.
  llvm::ArrayRef<std::string> kernelArchs;
  /// Compile kernels to every image format the machine's tools allow
  /// (PTX, and with the CUDA toolkit cubins and a fatbin); false: PTX
  /// only (tandemc --emit=ptx).
  bool allImageFormats = true;
};

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_TARGET_TARGETOPTIONS_H
