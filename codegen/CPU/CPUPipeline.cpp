//===- CPUPipeline.cpp - from linalg on tensors to the LLVM dialect -------===//

#include "codegen/CPU/CPUPipeline.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::tandem;

LogicalResult mlir::tandem::buildCPUBufferizePipeline(OpPassManager &pm) {
  // Pipelines are written relative to the module the pass manager anchors
  // on: a string starting with builtin.module(...) would silently run
  // nothing.
  return parsePassPipeline(
      // One function per model: the host partitions are inlined into the
      // schedule first, so that bufferisation sees the whole model (outputs
      // written in place, no result copies) and one arena holds every
      // intermediate buffer.
      "inline,symbol-dce,tandem-fuse-elementwise,"
      "one-shot-bufferize{bufferize-function-boundaries=1 "
      "function-boundary-type-conversion=identity-layout-map},"
      "buffer-results-to-out-params{hoist-static-allocs=1 "
      "modify-public-functions=1},"
      "canonicalize,tandem-plan-memory,"
      "buffer-deallocation-pipeline",
      pm);
}

LogicalResult mlir::tandem::buildCPULowerToLLVMPipeline(OpPassManager &pm) {
  return parsePassPipeline(
      // f32 contractions become calls of the runtime's packed, threaded
      // sgemm (matched on linalg ops, so before any loops exist);
      // everything else becomes loops, parallel dimensions scf.parallel,
      // whose large outermost ones are outlined into chunk bodies.
      "tandem-call-cpu-kernels,"
      // A model with GPU partitions: its host schedule becomes calls of the
      // runtime's tandem_sched_* functions (no-op without one).
      "tandem-lower-host-schedule,"
      "tandem-narrow-pad-fills,tandem-lower-memref-copies,"
      // Empty arguments get a type the bare-pointer convention accepts.
      "func.func(tandem-flatten-empty-arguments),"
      "convert-linalg-to-parallel-loops,"
      "tandem-outline-parallel-loops,lower-affine,convert-scf-to-cf,"
      // Only tanh and rsqrt are expanded (into exp and sqrt): every other
      // math op has an LLVM intrinsic or a libm function with C semantics,
      // where the expansions are not exact (powf as exp(y * log(x)) is NaN
      // for a negative base and for 0^0; asinh, sinh, ... lose precision).
      "expand-strided-metadata,lower-affine,math-expand-ops{ops=tanh,rsqrt},"
      // exp, erf and tanh inline as polynomials LLVM vectorises.
      "tandem-approximate-math,"
      "finalize-memref-to-llvm,convert-arith-to-llvm,"
      // LLVM intrinsics first; what has none (tanh, erf, ...) calls libm.
      "convert-math-to-llvm,convert-math-to-libm,"
      "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
      // GPU kernels compiled for the host get their tandem_cpu_kernel_fn
      // wrappers (no-op without kernels).
      "tandem-build-cpu-twins,"
      "convert-cf-to-llvm,convert-index-to-llvm,reconcile-unrealized-casts,"
      // Calls of the outlined bodies run on the model's thread pool.
      "tandem-dispatch-parallel-calls,"
      // Constant tensors become flat byte arrays: one LLVM constant each.
      "tandem-flatten-weight-globals",
      pm);
}
