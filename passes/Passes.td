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

#endif // TANDEM_PASSES_TD
