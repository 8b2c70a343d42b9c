// -tandem-assign-default-device places every unplaced op, keeps user pins,
// and leaves fusion bodies to follow their fusion.
// RUN: tandem-opt %s -tandem-assign-default-device | FileCheck %s --check-prefix=CHECK-CPU
// RUN: tandem-opt %s -tandem-assign-default-device=device=gpu:1 | FileCheck %s --check-prefix=CHECK-GPU
// RUN: not tandem-opt %s -tandem-assign-default-device=device=/device:TPU:0 2>&1 | FileCheck %s --check-prefix=CHECK-BAD

// CHECK-BAD: error: tandem-assign-default-device: invalid device '/device:TPU:0': expected '/device:CPU:<n>' or '/device:GPU:<n>'

// CHECK-CPU-LABEL: func.func @place
// CHECK-GPU-LABEL: func.func @place
func.func @place(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-CPU: tandem.relu %{{.*}} {tandem.device = #tandem.device<"/device:CPU:0">}
  // CHECK-GPU: tandem.relu %{{.*}} {tandem.device = #tandem.device<"/device:GPU:1">}
  %0 = tandem.relu %x : tensor<4xf32>
  // A pinned op keeps its device.
  // CHECK-CPU: tandem.exp %{{.*}} {tandem.device = #tandem.device<"/device:GPU:0">}
  // CHECK-GPU: tandem.exp %{{.*}} {tandem.device = #tandem.device<"/device:GPU:0">}
  %1 = tandem.exp %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
  // CHECK-CPU: tandem.fusion loop "neg_tanh"(%{{.*}}) {tandem.device = #tandem.device<"/device:CPU:0">}
  // CHECK-CPU-NEXT: ^bb0
  // CHECK-CPU-NEXT: tandem.neg %{{.*}} : tensor<4xf32>
  // CHECK-CPU-NEXT: tandem.tanh %{{.*}} : tensor<4xf32>
  // CHECK-CPU-NEXT: tandem.yield
  %2 = tandem.fusion loop "neg_tanh" (%0) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %3 = tandem.neg %a : tensor<4xf32>
    %4 = tandem.tanh %3 : tensor<4xf32>
    tandem.yield %4 : tensor<4xf32>
  }
  // Non-tandem ops are left alone.
  // CHECK-CPU: return %{{.*}} : tensor<4xf32>
  return %2 : tensor<4xf32>
}
