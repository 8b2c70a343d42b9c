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

def TandemPlace : Pass<"tandem-place", "::mlir::ModuleOp"> {
  let summary = "places every op on the device where the model runs fastest";
  let description = [{
    Gives every tandem op of every function a `tandem.device`, choosing
    between the devices of `targets` with a cost model:

    * each op's time on each device is a roofline estimate (flops and bytes
      against the device description, plus launch overhead);
    * every value that crosses devices pays a host<->device copy, once per
      destination device;
    * the assignment minimising the estimated end-to-end latency is an
      s-t minimum cut between the host and the GPU (Stone's two-processor
      assignment, solved exactly with Dinic's max-flow); with several GPUs
      the pass cuts against each and keeps the cheapest.

    Pins come first: `pins` entries `glob=device` match ONNX node names and
    op names (first match wins), and a `tandem.device` already in the IR is
    honoured. Ops on integer (shape) data and ops without a GPU lowering stay
    on the CPU. With `soft-placement` (the default) a pin the target cannot
    honour falls back to the cost model with a warning; without it, it is an
    error. Constants follow their first user; partitioning makes them
    resident on every device that uses them.

    `report` writes the decisions (`-` for stdout): JSON when the path ends
    in `.json`, a readable table otherwise. See docs/Placement.md.

    Before (`-tandem-place="targets=cpu,gpu:sm_90 cpu=generic"`):

    ```mlir
    %0 = tandem.conv2d %x, %w : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>)
        -> tensor<1x64x54x54xf32>
    %1 = tandem.relu %0 : tensor<1x64x54x54xf32>
    ```

    After:

    ```mlir
    %0 = tandem.conv2d %x, %w {tandem.device = #tandem.device<"/device:GPU:0">} ...
    %1 = tandem.relu %0 {tandem.device = #tandem.device<"/device:GPU:0">} ...
    ```
  }];
  let options = [
    Option<"targets", "targets", "std::string", /*default=*/"\"cpu\"",
           "devices of the build, e.g. cpu or cpu,gpu:sm_90,gpu:h200">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"host\"",
           "CPU preset: host, generic, xeon-8480, epyc-9654, grace">,
    Option<"deviceConfig", "device-config", "std::string", /*default=*/"\"\"",
           "JSON file overriding device numbers">,
    ListOption<"pins", "pins", "std::string",
               "GLOB=DEVICE pins on node or op names, first match wins">,
    Option<"softPlacement", "soft-placement", "bool", /*default=*/"true",
           "fall back (with a warning) when a pin cannot be honoured">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write the placement report here (- for stdout; .json for JSON)">
  ];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

#endif // TANDEM_PASSES_TD
