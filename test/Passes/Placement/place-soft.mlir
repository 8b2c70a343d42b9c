// Soft placement: pins the target cannot honour fall back with a warning
// that names the op and the reason.
// RUN: tandem-opt %s -verify-diagnostics -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic pins=tandem.matmul=/device:GPU:1,add=gpu" | FileCheck %s

// A pin to a device the target lacks.
// CHECK-LABEL: func.func @missing_device
// CHECK: tandem.matmul {{.*}}#tandem.device<"/device:GPU:0">
func.func @missing_device(%x: tensor<256x1024xf32>, %w: tensor<1024x1024xf32>) -> tensor<256x1024xf32> {
  // expected-warning @+1 {{soft placement: 'matmul#0' (tandem.matmul) is pinned to /device:GPU:1 by --place 'tandem.matmul=/device:GPU:1', but the target has no /device:GPU:1; the cost model places it instead}}
  %0 = tandem.matmul %x, %w : (tensor<256x1024xf32>, tensor<1024x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}

// A pin to a GPU that cannot run the op.
// CHECK-LABEL: func.func @cannot_run
// CHECK: tandem.add {{.*}}#tandem.device<"/device:CPU:0">
func.func @cannot_run(%x: tensor<8xi64>) -> tensor<8xi64> {
  // expected-warning @+1 {{soft placement: 'add#0' (tandem.add) is pinned to /device:GPU:0 by --place 'add=gpu', but /device:GPU:0 cannot run it: it computes integer (shape) data; the cost model places it instead}}
  %0 = tandem.add %x, %x : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// An attribute in the IR naming a device the target lacks.
// CHECK-LABEL: func.func @ir_pin_missing
// CHECK: tandem.relu {{.*}}#tandem.device<"/device:CPU:0">
func.func @ir_pin_missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{soft placement: 'relu#0' (tandem.relu) is pinned to /device:GPU:3 by tandem.device in the input, but the target has no /device:GPU:3; the cost model places it instead}}
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:GPU:3">} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
