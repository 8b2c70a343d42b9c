// A sibling merge must not close a cycle through a group whose ops are far
// apart in the block (a multi-output group reaches back to an early op): the
// cycle search follows groups, not block order. Found by random-graphs.test
// (seed 92).
// RUN: tandem-opt %s '-tandem-fuse=disable-fusion=output,input max-duplicate-input-bytes=1000000 fusion-report=%t.json' | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// CHECK-LABEL: func.func @f
// CHECK: %[[M0:.+]] = tandem.fusion output "fusion.matmul_0"
// CHECK: %[[MO:.+]]:4 = tandem.fusion multi_output "fusion.add_13"(%arg1, %arg0, %[[M0]])
// CHECK: %[[M5:.+]] = tandem.fusion output "fusion.matmul_5"(%[[MO]]#1, %[[MO]]#0)
// CHECK: tandem.fusion loop "fusion.slice_11"(%arg0, %[[M5]], %[[MO]]#2)
// CHECK-NOT: tandem.fusion
// REPORT: "reason": "would create cycle through 'matmul#5'",
// REPORT-NEXT: "relation": "sibling",
func.func @f(%a0: tensor<4x4xf32>, %a1: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %v0 = tandem.matmul %a1, %a0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c1 = tandem.constant dense<2.0> : tensor<f32>
  %v1 = tandem.mul %a1, %c1 : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %v2 = tandem.add %a0, %v0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v3 = tandem.mul %a1, %v2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v4 = tandem.matmul %v3, %v1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v5 = tandem.add %v3, %v4 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v6 = tandem.sub %v0, %v5 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v7 = tandem.exp %v4 : tensor<4x4xf32>
  %v8 = tandem.matmul %v0, %v1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v9 = tandem.add %v1, %v7 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c10 = tandem.constant dense<2.0> : tensor<f32>
  %v10 = tandem.mul %v4, %c10 : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %s11 = tandem.reduce_sum %v2 {axes = array<i64: 1>} : tensor<4x4xf32> -> tensor<4x1xf32>
  %v11 = tandem.add %v2, %s11 : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %v12 = tandem.matmul %v11, %v8 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v13 = tandem.sigmoid %a0 : tensor<4x4xf32>
  %v14 = tandem.softmax %v7 {axis = 1 : i64} : tensor<4x4xf32> -> tensor<4x4xf32>
  %v15 = tandem.matmul %v0, %v13 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c16 = tandem.constant dense<2.0> : tensor<f32>
  %v16 = tandem.mul %v7, %c16 : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %v17 = tandem.matmul %v9, %v5 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v18 = tandem.sub %v13, %v4 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v19 = tandem.sub %a0, %a1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v20 = tandem.add %v13, %v19 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v21 = tandem.sigmoid %v3 : tensor<4x4xf32>
  %v22 = tandem.softmax %v1 {axis = 1 : i64} : tensor<4x4xf32> -> tensor<4x4xf32>
  %v23 = tandem.sigmoid %v1 : tensor<4x4xf32>
  %c24 = tandem.constant dense<2.0> : tensor<f32>
  %v24 = tandem.mul %v4, %c24 : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %v25 = tandem.matmul %v5, %v9 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v26 = tandem.mul %v15, %v7 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t27 = tandem.concat %v23, %v18 {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %v27 = tandem.slice %t27 {starts = array<i64: 2, 0>, limits = array<i64: 6, 4>, steps = array<i64: 1, 1>} : tensor<8x4xf32> -> tensor<4x4xf32>
  %v28 = tandem.softmax %v11 {axis = 1 : i64} : tensor<4x4xf32> -> tensor<4x4xf32>
  %v29 = tandem.matmul %v10, %v23 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v30 = tandem.transpose %v26 {perm = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %v31 = tandem.exp %v19 : tensor<4x4xf32>
  %v32 = tandem.add %v31, %v23 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v33 = tandem.mul %v17, %v23 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v34 = tandem.tanh %v33 : tensor<4x4xf32>
  %v35 = tandem.abs %v2 : tensor<4x4xf32>
  %t36 = tandem.concat %v19, %v8 {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %v36 = tandem.slice %t36 {starts = array<i64: 2, 0>, limits = array<i64: 6, 4>, steps = array<i64: 1, 1>} : tensor<8x4xf32> -> tensor<4x4xf32>
  %c37 = tandem.constant dense<2.0> : tensor<f32>
  %v37 = tandem.mul %v23, %c37 : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %v38 = tandem.matmul %v5, %v0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %v27, %v32 : tensor<4x4xf32>, tensor<4x4xf32>
}
