// RUN: tandem-opt %s -split-input-file -tandem-normalize-bias | FileCheck %s

// Gemm with trans_b and alpha on constant weights: the weight is transposed
// and scaled at compile time, and beta * c becomes a bias_add.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK-DAG: %[[W:.+]] = tandem.constant dense<{{\[\[}}2.000000e+00, 6.000000e+00], [4.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[C:.+]] = tandem.constant dense<[1.500000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK:     %[[M:.+]] = tandem.matmul %arg0, %[[W]]
// CHECK:     %[[Y:.+]] = tandem.bias_add %[[M]], %[[C]]
// CHECK-NOT: tandem.gemm
// CHECK:     return %[[Y]]
func.func @gemm_trans_b(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = tandem.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = tandem.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %0 = tandem.gemm %x, %w, %c {trans_b = true, alpha = 2.0 : f32, beta = 1.5 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Non-constant operands: a transpose for trans_b and a reshape of the
// [1, N] bias.
// CHECK-LABEL: func.func @gemm_dynamic
// CHECK: %[[T:.+]] = tandem.transpose %arg1 {perm = array<i64: 1, 0>} : tensor<4x2xf32> -> tensor<2x4xf32>
// CHECK: %[[M:.+]] = tandem.matmul %arg0, %[[T]]
// CHECK: %[[C:.+]] = tandem.reshape %arg2 {shape = array<i64: 4>} : tensor<1x4xf32> -> tensor<4xf32>
// CHECK: tandem.bias_add %[[M]], %[[C]]
func.func @gemm_dynamic(%x: tensor<3x2xf32>, %w: tensor<4x2xf32>, %c: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = tandem.gemm %x, %w, %c {trans_b = true} : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Gemms that do not fit the form stay: transposed A, a full [M, N] C.
// CHECK-LABEL: func.func @gemm_kept
// CHECK-COUNT-2: tandem.gemm
func.func @gemm_kept(%x: tensor<2x3xf32>, %w: tensor<2x4xf32>, %c: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = tandem.gemm %x, %w {trans_a = true} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %y = tandem.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %w2 = tandem.reshape %w {shape = array<i64: 2, 4>} : tensor<2x4xf32> -> tensor<2x4xf32>
  %1 = tandem.gemm %y, %w2, %c : (tensor<3x2xf32>, tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// MatMul + Add of a per-column vector (in either operand order) becomes
// bias_add on the last axis.
// CHECK-LABEL: func.func @matmul_add
// CHECK: %[[M:.+]] = tandem.matmul
// CHECK: %[[B:.+]] = tandem.reshape %arg2 {shape = array<i64: 8>} : tensor<1x1x8xf32> -> tensor<8xf32>
// CHECK: tandem.bias_add %[[M]], %[[B]] {axis = 2 : i64}
// CHECK-NOT: tandem.add
func.func @matmul_add(%x: tensor<2x4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<1x1x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tandem.matmul %x, %w : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %1 = tandem.add %b, %0 : (tensor<1x1x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %1 : tensor<2x4x8xf32>
}

// -----

// An add that is not a bias (it varies along rows) stays an add.
// CHECK-LABEL: func.func @matmul_add_rows
// CHECK: tandem.add
// CHECK-NOT: tandem.bias_add
func.func @matmul_add_rows(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %0 = tandem.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tandem.add %0, %b : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Conv + Add of a [C,1,1] constant moves into the conv's bias, summed with
// the bias it already had.
// CHECK-LABEL: func.func @conv_add
// CHECK: %[[B:.+]] = tandem.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.+]] = tandem.conv2d %arg0, %{{.*}}, %[[B]]
// CHECK-NOT: tandem.add
// CHECK-NOT: tandem.bias_add
// CHECK: return %[[Y]]
func.func @conv_add(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x1xf32>
  %b = tandem.constant dense<0.5> : tensor<2xf32>
  %c = tandem.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = tandem.add %0, %c : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// A bias_add after a bias-less conv becomes the conv's bias.
// CHECK-LABEL: func.func @conv_bias_add
// CHECK: %[[Y:.+]] = tandem.conv2d %arg0, %{{.*}}, %arg1
// CHECK-NOT: tandem.bias_add
// CHECK: return %[[Y]]
func.func @conv_bias_add(%x: tensor<1x1x4x4xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x1xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tandem.bias_add %0, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}
