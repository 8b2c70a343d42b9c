//===- Passes.td - Tandem codegen pass declarations --------*- tablegen -*-===//
//
// The codegen passes: lowering of the tandem graph dialect towards machine
// code. Each entry names its flag, anchor and dependent dialects, with a
// description showing the IR before and after.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_PASSES_TD
#define TANDEM_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def TandemLowerToLinalg : Pass<"tandem-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "lowers tandem compute ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every tandem compute op into upstream dialects on tensors, with
    the dialect conversion framework (every tandem op but `tandem.transfer`
    is illegal):

    * named linalg ops where one fits: `linalg.matmul`, `linalg.batch_matmul`,
      `linalg.conv_2d_nchw_fchw`, `linalg.depthwise_conv_2d_nchw_chw`,
      `linalg.conv_2d_ngchw_gfchw`, `linalg.pooling_nchw_max/sum`,
      `linalg.transpose`, `linalg.fill`;
    * `linalg.generic` for elementwise ops (NumPy broadcasting is in the
      indexing maps), reductions, softmax, layer_norm, gather and
      reflect/edge padding;
    * `tensor.pad`, `tensor.extract_slice`, `tensor.insert_slice`,
      `tensor.collapse_shape` / `tensor.expand_shape` for data movement, and
      `arith.constant` for constants (dense_resource blobs are kept).

    Layouts stay NCHW / OIHW. f16 and bf16 contractions accumulate in f32.

    `tandem.fusion` regions are lowered in place and inlined where the fusion
    was; every op they produce carries `tandem.kernel = "<fusion name>"` so
    later tiling can regroup the kernel. `tandem.transfer` and `func.call`
    stay; `tandem.device` attributes are not carried over. An op that cannot
    be lowered gets an error and the pass fails.

    Before:

    ```mlir
    %0 = tandem.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = tandem.relu %0 : tensor<2x3xf32>
    ```

    After `-tandem-lower-to-linalg`:

    ```mlir
    %e0 = tensor.empty() : tensor<2x3xf32>
    %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e0 : tensor<2x3xf32>) {
    ^bb0(%l: f32, %r: f32, %o: f32):
      %s = arith.addf %l, %r : f32
      linalg.yield %s : f32
    } -> tensor<2x3xf32>
    %e1 = tensor.empty() : tensor<2x3xf32>
    %1 = linalg.generic {...} ins(%0 : tensor<2x3xf32>) outs(%e1 : tensor<2x3xf32>) {
    ^bb0(%v: f32, %o: f32):
      %cst = arith.constant 0.000000e+00 : f32
      %m = arith.maximumf %v, %cst : f32
      linalg.yield %m : f32
    } -> tensor<2x3xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def TandemLowerMemRefCopies : Pass<"tandem-lower-memref-copies"> {
  let summary = "rewrites memref.copy into linalg.copy loops";
  let description = [{
    Upstream lowers a `memref.copy` between strided (non-identity) layouts
    to a call of `memrefCopy` from MLIR's C runner library, which a compiled
    model cannot link. This pass turns every `memref.copy` into a
    `linalg.copy`, which becomes plain loops (and vector code) like every
    other kernel.

    Before:

    ```mlir
    memref.copy %a, %b : memref<2x3xf32, strided<[8, 1]>> to memref<2x3xf32>
    ```

    After:

    ```mlir
    linalg.copy ins(%a : memref<2x3xf32, strided<[8, 1]>>) outs(%b : memref<2x3xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // TANDEM_CODEGEN_PASSES_TD
