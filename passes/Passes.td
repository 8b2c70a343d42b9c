//===- Passes.td - Tandem pass declarations ----------------*- tablegen -*-===//
//
// Every Tandem pass: its flag (prefixed tandem-), anchor, options, dependent
// dialects, and a description showing the IR before and after.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_TD
#define TANDEM_PASSES_TD

include "mlir/Pass/PassBase.td"

def TandemAssignDefaultDevice : Pass<"tandem-assign-default-device"> {
  let summary = "places every unplaced tandem op on one device";
  let description = [{
    Gives every tandem op without a `tandem.device` attribute the device named
    by `device` (default `/device:CPU:0`). Ops that already carry a device
    keep it, and ops nested in a `tandem.fusion` follow their fusion. It is
    the "everything on one device" placement used until the cost-model
    placement runs, and the soft-placement fallback when a target has no GPU.

    Before:

    ```mlir
    %0 = tandem.relu %x : tensor<4xf32>
    %1 = tandem.exp %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
    ```

    After `-tandem-assign-default-device`:

    ```mlir
    %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32>
    %1 = tandem.exp %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
    ```
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"/device:CPU:0\"",
           "TensorFlow-style name of the device to assign">
  ];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemFuse : Pass<"tandem-fuse", "::mlir::ModuleOp"> {
  let summary = "groups placed ops into tandem.fusion regions, one per kernel";
  let description = [{
    Groups the tandem ops of every function into `tandem.fusion` regions,
    each of which becomes exactly one kernel, following XLA's taxonomy:

    * `output`: a conv2d/matmul/gemm root with its elementwise epilogue
      (bias_add, batch_norm, relu, clip, sigmoid, the residual add, ...);
    * `input`: a reduction root (reduce_*, softmax, layer_norm,
      global_avg_pool) with its elementwise producers and consumers;
    * `loop`: elementwise, broadcast and layout ops in one loop nest;
    * `multi_output`: any of the above returning several values (sibling
      reductions, or a value consumed inside and also needed outside).

    Candidates (producer/consumer edges and siblings sharing an input) are
    merged greedily in order of estimated benefit: bytes no longer written
    and read plus `launch-cost-bytes` per kernel launch removed. A merge is
    legal only within one `tandem.device`, never through a
    `tandem.transfer`, never when it would create a cycle, and within the
    `max-ops` / `max-operands` limits. Cheap producers with several
    consumers are duplicated into each consumer; expensive ones are not.
    Every op except constants and transfers ends up in exactly one fusion
    (single ops too), so the number of fusions is the number of kernels.
    Fusions are named `fusion.<root node name>`. See docs/Fusion.md.

    Before:

    ```mlir
    %0 = tandem.conv2d %x, %w, %b {...} : (...) -> tensor<1x8x6x6xf32>
    %1 = tandem.add %0, %r : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>)
        -> tensor<1x8x6x6xf32>
    %2 = tandem.relu %1 : tensor<1x8x6x6xf32>
    ```

    After `-tandem-fuse`:

    ```mlir
    %0 = tandem.fusion output "fusion.conv1" (%x, %w, %b, %r)
        {tandem.device = #tandem.device<"/device:CPU:0">}
        : (...) -> tensor<1x8x6x6xf32> {
    ^bb0(%a: ..., %f: ..., %c: ..., %s: ...):
      %1 = tandem.conv2d %a, %f, %c {...} : (...) -> tensor<1x8x6x6xf32>
      %2 = tandem.add %1, %s : (...) -> tensor<1x8x6x6xf32>
      %3 = tandem.relu %2 : tensor<1x8x6x6xf32>
      tandem.yield %3 : tensor<1x8x6x6xf32>
    }
    ```

    `fusion-report` writes every fusion and every rejected candidate with
    its reason as JSON; `disable-fusion` and `disable-fusion-of` switch
    fusion off by kind or by node-name glob for bisecting.
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", /*default=*/"32",
           "most ops in one fusion (constants cloned in do not count)">,
    Option<"maxOperands", "max-operands", "unsigned", /*default=*/"12",
           "most operands of one fusion">,
    Option<"launchCostBytes", "launch-cost-bytes", "uint64_t",
           /*default=*/"16384",
           "benefit of removing one kernel launch, in bytes of traffic">,
    Option<"maxDuplicateInputBytes", "max-duplicate-input-bytes", "uint64_t",
           /*default=*/"16384",
           "a producer is duplicated into several consumers only when it "
           "reads at most this many bytes">,
    Option<"maxInlineConstantElements", "max-inline-constant-elements",
           "uint64_t", /*default=*/"16",
           "splat constants and constants with at most this many elements "
           "are cloned into fusions; larger ones (weights) stay operands">,
    Option<"fusionReport", "fusion-report", "std::string", /*default=*/"\"\"",
           "write a JSON report of fusions and rejected candidates to this "
           "file ('-' for stdout)">,
    ListOption<"disableFusion", "disable-fusion", "std::string",
               "fusion kinds not to form: loop, input, output, multi_output">,
    ListOption<"disableFusionOf", "disable-fusion-of", "std::string",
               "node-name globs whose ops are never fused with others">
  ];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

#endif // TANDEM_PASSES_TD
