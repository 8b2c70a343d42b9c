// RUN: tandem-opt %s -split-input-file -tandem-partition | FileCheck %s

// Each same-device run becomes a private partition function; the host
// schedule calls them in order. A value is copied once per destination
// device (%x reaches the GPU once, though two GPU partitions read it).
// Copies are issued as soon as the value exists, and everything sent from
// one point of the schedule to one device shares a batched transfer.
// CHECK-LABEL: func.func @model
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>, %[[Y:.+]]: tensor<8xf32>)
// CHECK:      %[[IN:.+]]:2 = tandem.transfer %[[X]], %[[Y]] from "/device:CPU:0" to "/device:GPU:0" : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: %[[P0:.+]]:3 = call @model_p0_gpu0(%[[IN]]#0, %[[IN]]#1) {tandem.device = #tandem.device<"/device:GPU:0">}
// CHECK-NEXT: %[[DOWN:.+]]:2 = tandem.transfer %[[P0]]#1, %[[P0]]#2 from "/device:GPU:0" to "/device:CPU:0" : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: %[[P1:.+]] = call @model_p1_cpu0(%[[DOWN]]#1) {tandem.device = #tandem.device<"/device:CPU:0">}
// CHECK-NEXT: %[[UP:.+]] = tandem.transfer %[[P1]] from "/device:CPU:0" to "/device:GPU:0" : tensor<8xf32>
// CHECK-NEXT: %[[P2:.+]] = call @model_p2_gpu0(%[[UP]], %[[IN]]#0, %[[P0]]#0)
// CHECK-NEXT: %[[OUT:.+]] = tandem.transfer %[[P2]] from "/device:GPU:0" to "/device:CPU:0" : tensor<8xf32>
// CHECK-NEXT: return %[[OUT]], %[[DOWN]]#0
// CHECK-NOT:  tandem.transfer
// CHECK:      func.func private @model_p0_gpu0({{.*}}) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition}
// CHECK:        tandem.exp
// CHECK:        tandem.add
// CHECK:        tandem.add
// CHECK:      func.func private @model_p1_cpu0({{.*}}) -> tensor<8xf32> attributes {tandem.device = #tandem.device<"/device:CPU:0">, tandem.partition}
// CHECK:        tandem.neg
// CHECK:      func.func private @model_p2_gpu0
func.func @model(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = tandem.exp %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<8xf32>
  %a = tandem.add %0, %0 {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %b = tandem.add %a, %y {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = tandem.neg %b {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<8xf32>
  %3 = tandem.add %1, %x {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = tandem.mul %3, %0 {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %4, %a : tensor<8xf32>, tensor<8xf32>
}

// -----

// Weights are never transferred: each partition that uses a constant gets
// its own clone, resident on the partition's device.
// CHECK-LABEL: func.func @weights
// CHECK:     tandem.transfer %{{.*}} from "/device:CPU:0" to "/device:GPU:0" : tensor<4x4xf32>
// CHECK-NOT: tandem.transfer {{.*}} to "/device:GPU:0"
// CHECK:     return
// CHECK:     func.func private @weights_p0_gpu0
// CHECK:       %[[W:.+]] = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense_resource<w> : tensor<4x4xf32>
// CHECK:       tandem.matmul %{{.*}}, %[[W]]
// CHECK:     func.func private @weights_p1_cpu0
// CHECK:       %[[WC:.+]] = tandem.constant {tandem.device = #tandem.device<"/device:CPU:0">} dense_resource<w> : tensor<4x4xf32>
// CHECK:       tandem.matmul %{{.*}}, %[[WC]]
func.func @weights(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w = tandem.constant dense_resource<w> : tensor<4x4xf32>
  %0 = tandem.matmul %x, %w {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = tandem.matmul %0, %w {tandem.device = #tandem.device<"/device:CPU:0">} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000000000000803F000000000000000000000000000000000000803F000000000000000000000000000000000000803F000000000000000000000000000000000000803F"
    }
  }
#-}

// -----

// A host op on a side branch does not create a cycle: the GPU op after it
// goes to a later partition, and the GPU op beside it stays in the first.
// CHECK-LABEL: func.func @diamond
// CHECK: call @diamond_p0_gpu0
// CHECK: call @diamond_p1_cpu0
// CHECK: call @diamond_p2_gpu0
// CHECK: func.func private @diamond_p0_gpu0
// CHECK:   tandem.exp
// CHECK:   tandem.tanh
// CHECK: func.func private @diamond_p1_cpu0
// CHECK:   tandem.neg
// CHECK: func.func private @diamond_p2_gpu0
// CHECK:   tandem.add
func.func @diamond(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = tandem.exp %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<8xf32>
  %b = tandem.neg %a {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<8xf32>
  %c = tandem.tanh %a {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<8xf32>
  %d = tandem.add %b, %c {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// Two GPUs: a value moves from one to the other through the host (the host
// schedule copies only between the host and one GPU).
// CHECK-LABEL: func.func @two_gpus
// CHECK: %[[A:.+]] = call @two_gpus_p0_gpu0
// CHECK: %[[H:.+]] = tandem.transfer %[[A]] from "/device:GPU:0" to "/device:CPU:0"
// CHECK: %[[B:.+]] = tandem.transfer %[[H]] from "/device:CPU:0" to "/device:GPU:1"
// CHECK: call @two_gpus_p1_gpu1(%[[B]])
func.func @two_gpus(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = tandem.exp %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<8xf32>
  %b = tandem.neg %a {tandem.device = #tandem.device<"/device:GPU:1">} : tensor<8xf32>
  return %b : tensor<8xf32>
}

// -----

// A value the host and another GPU both read goes to the host once, and on
// to the other GPU from there.
// CHECK-LABEL: func.func @two_gpus_and_host
// CHECK: %[[A:.+]] = call @two_gpus_and_host_p0_gpu0
// CHECK: %[[H:.+]] = tandem.transfer %[[A]] from "/device:GPU:0" to "/device:CPU:0"
// CHECK-NOT: from "/device:GPU:0"
// CHECK: %[[B:.+]] = tandem.transfer %[[H]] from "/device:CPU:0" to "/device:GPU:1"
// CHECK-DAG: call @two_gpus_and_host_p{{[12]}}_gpu1(%[[B]])
// CHECK-DAG: call @two_gpus_and_host_p{{[12]}}_cpu0(%[[H]])
func.func @two_gpus_and_host(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = tandem.exp %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<8xf32>
  %b = tandem.neg %a {tandem.device = #tandem.device<"/device:GPU:1">} : tensor<8xf32>
  %c = tandem.tanh %a {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<8xf32>
  return %b, %c : tensor<8xf32>, tensor<8xf32>
}

// -----

// Everything on the host: one partition and no transfers.
// CHECK-LABEL: func.func @host_only
// CHECK-NOT: tandem.transfer
// CHECK:     call @host_only_p0_cpu0
// CHECK-NOT: tandem.transfer
// CHECK:     func.func private @host_only_p0_cpu0
func.func @host_only(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = tandem.exp %x {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<8xf32>
  %b = tandem.neg %a {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<8xf32>
  return %b : tensor<8xf32>
}
