// Multi-output fusions: siblings that read the same input, and producers
// whose value is consumed inside the fusion and also needed outside.
// RUN: tandem-opt %s -tandem-fuse -split-input-file | FileCheck %s

// Mean and mean of squares over the same rows (the two halves of a
// variance) share one pass over x: one fusion, two results.
// CHECK-LABEL: func.func @sibling_reductions
// CHECK: %[[F:.+]]:2 = tandem.fusion multi_output "fusion.mean"(%arg0)
// CHECK-NEXT: ^bb0(%[[X:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[M:.+]] = tandem.reduce_mean %[[X]]
// CHECK-NEXT: %[[SQ:.+]] = tandem.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[V:.+]] = tandem.reduce_mean %[[SQ]]
// CHECK-NEXT: tandem.yield %[[M]], %[[V]]
// CHECK-NOT: tandem.fusion
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @sibling_reductions(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %m = tandem.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32> loc("mean")
  %sq = tandem.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v = tandem.reduce_mean %sq {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32> loc("meansq")
  return %m, %v : tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// exp is consumed by the sum in the fusion and also returned: the fusion
// writes both values and exp runs once.
// CHECK-LABEL: func.func @consumed_and_returned
// CHECK: %[[F:.+]]:2 = tandem.fusion multi_output "fusion.sum"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[E:.+]] = tandem.exp
// CHECK-NEXT: %[[S:.+]] = tandem.reduce_sum %[[E]]
// CHECK-NEXT: tandem.yield %[[E]], %[[S]]
// CHECK: return %[[F]]#1, %[[F]]#0
func.func @consumed_and_returned(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) {
  %e = tandem.exp %x : tensor<4x8xf32>
  %s = tandem.reduce_sum %e {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32> loc("sum")
  return %s, %e : tensor<4x1xf32>, tensor<4x8xf32>
}
