// RUN: tandem-opt %s -split-input-file -tandem-fold-channel-scale | FileCheck %s

// A layer scale per channel after a conv (PoolFormer's): the filter's
// output channels and the bias scale by [2, 0.5]; the mul is gone.
// CHECK-LABEL: func.func @conv_scale
// CHECK-DAG: %[[W:.+]] = tandem.constant dense<{{\[\[\[\[}}2.000000e+00, 2.000000e+00]]], {{\[\[\[}}5.000000e-01, 5.000000e-01]]]]> : tensor<2x1x1x2xf32>
// CHECK-DAG: %[[B:.+]] = tandem.constant dense<[6.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK:     %[[Y:.+]] = tandem.conv2d %arg0, %[[W]], %[[B]]
// CHECK-NOT: tandem.mul
// CHECK:     return %[[Y]]
func.func @conv_scale(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x2xf32>
  %b = tandem.constant dense<3.0> : tensor<2xf32>
  %gamma = tandem.constant dense<[[[2.0]], [[0.5]]]> : tensor<2x1x1xf32>
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x4x3xf32>
  %1 = tandem.mul %gamma, %0 : (tensor<2x1x1xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  return %1 : tensor<1x2x4x3xf32>
}

// -----

// A scalar scale after a gemm (B not transposed): every column of B and
// C, with beta kept.
// CHECK-LABEL: func.func @gemm_scalar
// CHECK-DAG: %[[B:.+]] = tandem.constant dense<{{\[\[}}3.000000e+00, 6.000000e+00], [9.000000e+00, 1.200000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[C:.+]] = tandem.constant dense<[3.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK:     tandem.gemm %arg0, %[[B]], %[[C]] {beta = 2.000000e+00 : f32}
// CHECK-NOT: tandem.mul
func.func @gemm_scalar(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = tandem.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = tandem.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %s = tandem.constant dense<3.0> : tensor<f32>
  %0 = tandem.gemm %x, %w, %c {beta = 2.0 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %1 = tandem.mul %0, %s : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// ConvNeXt's layer scale: a channels-last linear layer (matmul and
// bias_add), back to NCHW, then the scale per channel. The scale moves
// before the transpose and folds into the matmul's columns and the bias.
// CHECK-LABEL: func.func @linear_transposed
// CHECK-DAG: %[[W:.+]] = tandem.constant dense<{{\[\[}}2.000000e+00, 5.000000e-01], [2.000000e+00, 5.000000e-01], [2.000000e+00, 5.000000e-01]]> : tensor<3x2xf32>
// CHECK-DAG: %[[B:.+]] = tandem.constant dense<[2.000000e+00, -5.000000e-01]> : tensor<2xf32>
// CHECK:     %[[M:.+]] = tandem.matmul %arg0, %[[W]]
// CHECK:     %[[A:.+]] = tandem.bias_add %[[M]], %[[B]] {axis = 3 : i64}
// CHECK:     %[[T:.+]] = tandem.transpose %[[A]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: tandem.mul
// CHECK:     return %[[T]]
func.func @linear_transposed(%x: tensor<1x4x4x3xf32>) -> tensor<1x2x4x4xf32> {
  %w = tandem.constant dense<1.0> : tensor<3x2xf32>
  %b = tandem.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %gamma = tandem.constant dense<[[[[2.0]], [[0.5]]]]> : tensor<1x2x1x1xf32>
  %0 = tandem.matmul %x, %w : (tensor<1x4x4x3xf32>, tensor<3x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tandem.bias_add %0, %b {axis = 3 : i64} : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %2 = tandem.transpose %1 {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x4x2xf32> -> tensor<1x2x4x4xf32>
  %3 = tandem.mul %2, %gamma : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %3 : tensor<1x2x4x4xf32>
}

// -----

// A bias of zeros, scaled, is still zeros: the scaled matmul replaces the
// bias_add and the mul.
// CHECK-LABEL: func.func @zero_bias
// CHECK:     %[[M:.+]] = tandem.matmul
// CHECK-NOT: tandem.bias_add
// CHECK-NOT: tandem.mul
// CHECK:     return %[[M]]
func.func @zero_bias(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = tandem.constant dense<1.0> : tensor<3x2xf32>
  %b = tandem.constant dense<0.0> : tensor<2xf32>
  %gamma = tandem.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %0 = tandem.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = tandem.bias_add %0, %b {axis = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %2 = tandem.mul %1, %gamma : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// Left alone: a scale that varies along the rows (not the channels), a
// conv whose result has another reader, and a scale that is no constant.
// CHECK-LABEL: func.func @not_channels
// CHECK: tandem.mul
// CHECK-LABEL: func.func @two_readers
// CHECK: tandem.mul
// CHECK-LABEL: func.func @not_constant
// CHECK: tandem.mul
func.func @not_channels(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x2xf32>
  %s = tandem.constant dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x4x3xf32>
  %1 = tandem.mul %0, %s : (tensor<1x2x4x3xf32>, tensor<4x1xf32>) -> tensor<1x2x4x3xf32>
  return %1 : tensor<1x2x4x3xf32>
}
func.func @two_readers(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>) {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x2xf32>
  %s = tandem.constant dense<[[[2.0]], [[0.5]]]> : tensor<2x1x1xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x4x3xf32>
  %1 = tandem.mul %0, %s : (tensor<1x2x4x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x3xf32>
  return %0, %1 : tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>
}
func.func @not_constant(%x: tensor<1x1x4x4xf32>, %s: tensor<2x1x1xf32>) -> tensor<1x2x4x3xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x2xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x4x3xf32>
  %1 = tandem.mul %0, %s : (tensor<1x2x4x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x3xf32>
  return %1 : tensor<1x2x4x3xf32>
}
