// Legality: fusions never cross devices or transfers, never create cycles,
// and stay within max-ops / max-operands. The fusion carries its members'
// device; the ops inside follow it.
// RUN: tandem-opt %s -tandem-fuse -split-input-file | FileCheck %s
// RUN: tandem-opt %s -tandem-fuse=max-ops=2 -split-input-file | FileCheck %s --check-prefix=LIMIT
// RUN: tandem-opt %s -tandem-fuse=max-operands=2 -split-input-file | FileCheck %s --check-prefix=LIMIT

// Ops on different devices stay in different fusions.
// CHECK-LABEL: func.func @no_fusion_across_devices
// CHECK: %[[G:.+]] = tandem.fusion loop "fusion.gpu_relu"(%arg0) {tandem.device = #tandem.device<"/device:GPU:0">}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.relu %{{.+}} : tensor<4xf32>
// CHECK: tandem.fusion loop "fusion.cpu_neg"(%[[G]]) {tandem.device = #tandem.device<"/device:CPU:0">}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.neg %{{.+}} : tensor<4xf32>
func.func @no_fusion_across_devices(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32> loc("gpu_relu")
  %1 = tandem.neg %0 {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32> loc("cpu_neg")
  return %1 : tensor<4xf32>
}

// -----

// A transfer is a fusion barrier and stays outside every fusion.
// CHECK-LABEL: func.func @transfer_barrier
// CHECK: %[[A:.+]] = tandem.fusion loop "fusion.a"(%arg0)
// CHECK: %[[T:.+]] = tandem.transfer %[[A]] from "/device:GPU:0" to "/device:CPU:0"
// CHECK: tandem.fusion loop "fusion.b"(%[[T]])
func.func @transfer_barrier(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32> loc("a")
  %1 = tandem.transfer %0 from "/device:GPU:0" to "/device:CPU:0" : tensor<4xf32>
  %2 = tandem.neg %1 {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32> loc("b")
  return %2 : tensor<4xf32>
}

// -----

// exp feeds the concat directly and through a matmul, which cannot join
// either: fusing exp with the concat would make the fusion both feed and
// depend on the matmul, so they stay apart.
// CHECK-LABEL: func.func @no_cycle
// CHECK: %[[E:.+]] = tandem.fusion loop "fusion.exp"(%arg0)
// CHECK: %[[M:.+]] = tandem.fusion output "fusion.mm"(%[[E]], %arg1)
// CHECK: tandem.fusion loop "fusion.cat"(%[[E]], %[[M]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.concat
// CHECK-NEXT: tandem.yield
func.func @no_cycle(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %0 = tandem.exp %x : tensor<4x4xf32> loc("exp")
  %1 = tandem.matmul %0, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc("mm")
  %2 = tandem.concat %0, %1 {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> loc("cat")
  return %2 : tensor<8x4xf32>
}

// -----

// With max-ops=2 a chain of three ops needs two fusions; with
// max-operands=2 the add of three inputs cannot take the third.
// CHECK-LABEL: func.func @limits
// CHECK: tandem.fusion loop "fusion.three"(%arg0, %arg1, %arg2)
// CHECK-NOT: tandem.fusion
// LIMIT-LABEL: func.func @limits
// LIMIT-COUNT-2: tandem.fusion loop
// LIMIT-NOT: tandem.fusion
func.func @limits(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("one")
  %1 = tandem.relu %0 : tensor<4xf32> loc("two")
  %2 = tandem.add %1, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("three")
  return %2 : tensor<4xf32>
}
