// RUN: tandem-opt %s -split-input-file -tandem-fold-batch-norm | FileCheck %s

// BatchNorm after a conv folds into the conv's weights and bias:
// s = scale / sqrt(var + eps) = [2, 0.5], t = bias - mean * s = [1, -1].
// Weights scale per output channel; the bias becomes b * s + t.
// CHECK-LABEL: func.func @conv_bn
// CHECK-DAG: %[[W:.+]] = tandem.constant dense<{{\[\[\[\[}}2.000000e+00, 2.000000e+00]]], {{\[\[\[}}5.000000e-01, 5.000000e-01]]]]> : tensor<2x1x1x2xf32>
// CHECK-DAG: %[[B:.+]] = tandem.constant dense<[3.000000e+00, -5.000000e-01]> : tensor<2xf32>
// CHECK:     %[[Y:.+]] = tandem.conv2d %arg0, %[[W]], %[[B]]
// CHECK-NOT: tandem.batch_norm
// CHECK:     return %[[Y]]
func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x2xf32>
  %b = tandem.constant dense<1.0> : tensor<2xf32>
  %scale = tandem.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = tandem.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tandem.constant dense<[0.0, 2.0]> : tensor<2xf32>
  %var = tandem.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x4x3xf32>
  %1 = tandem.batch_norm %0, %scale, %bias, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x4x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x3xf32>
  return %1 : tensor<1x2x4x3xf32>
}

// -----

// A gemm with trans_b scales rows of B; beta folds into the new bias.
// CHECK-LABEL: func.func @gemm_bn
// CHECK-DAG: %[[B:.+]] = tandem.constant dense<{{\[\[}}2.000000e+00, 2.000000e+00], [5.000000e-01, 5.000000e-01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[C:.+]] = tandem.constant dense<[5.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK:     tandem.gemm %arg0, %[[B]], %[[C]] {trans_b = true}
// CHECK-NOT: tandem.batch_norm
func.func @gemm_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x2xf32>
  %c = tandem.constant dense<1.0> : tensor<2xf32>
  %scale = tandem.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = tandem.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tandem.constant dense<[0.0, 2.0]> : tensor<2xf32>
  %var = tandem.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = tandem.gemm %x, %w, %c {trans_b = true, beta = 2.0 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %1 = tandem.batch_norm %0, %scale, %bias, %mean, %var {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// A 2-D matmul scales the columns of its weight and gains a bias_add.
// CHECK-LABEL: func.func @matmul_bn
// CHECK-DAG: %[[W:.+]] = tandem.constant dense<{{\[\[}}2.000000e+00, 5.000000e-01]]> : tensor<1x2xf32>
// CHECK-DAG: %[[T:.+]] = tandem.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK:     %[[M:.+]] = tandem.matmul %arg0, %[[W]]
// CHECK:     tandem.bias_add %[[M]], %[[T]] :
// CHECK-NOT: tandem.batch_norm
func.func @matmul_bn(%x: tensor<3x1xf32>) -> tensor<3x2xf32> {
  %w = tandem.constant dense<1.0> : tensor<1x2xf32>
  %scale = tandem.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = tandem.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tandem.constant dense<[0.0, 2.0]> : tensor<2xf32>
  %var = tandem.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = tandem.matmul %x, %w : (tensor<3x1xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %1 = tandem.batch_norm %0, %scale, %bias, %mean, %var {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// LeViT's Linear + BatchNorm1d: a batched matmul read through a reshape
// that keeps its last dimension (1 x 3 x 2 as 3 x 2). The weight's columns
// scale, the bias_add goes on the matmul's last axis, the reshape after it.
// CHECK-LABEL: func.func @batched_matmul_reshape_bn
// CHECK-DAG: %[[W:.+]] = tandem.constant dense<{{\[\[}}2.000000e+00, 5.000000e-01]]> : tensor<1x2xf32>
// CHECK-DAG: %[[T:.+]] = tandem.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK:     %[[M:.+]] = tandem.matmul %arg0, %[[W]] : (tensor<1x3x1xf32>, tensor<1x2xf32>) -> tensor<1x3x2xf32>
// CHECK:     %[[B:.+]] = tandem.bias_add %[[M]], %[[T]] {axis = 2 : i64}
// CHECK:     tandem.reshape %[[B]] {shape = array<i64: 3, 2>}
// CHECK-NOT: tandem.batch_norm
func.func @batched_matmul_reshape_bn(%x: tensor<1x3x1xf32>) -> tensor<3x2xf32> {
  %w = tandem.constant dense<1.0> : tensor<1x2xf32>
  %scale = tandem.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = tandem.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tandem.constant dense<[0.0, 2.0]> : tensor<2xf32>
  %var = tandem.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = tandem.matmul %x, %w : (tensor<1x3x1xf32>, tensor<1x2xf32>) -> tensor<1x3x2xf32>
  %r = tandem.reshape %0 {shape = array<i64: 3, 2>} : tensor<1x3x2xf32> -> tensor<3x2xf32>
  %1 = tandem.batch_norm %r, %scale, %bias, %mean, %var {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Not folded: a BatchNorm over a matmul's rows (BatchNorm1d over channels
// before the tokens: axis 1 of 1 x 2 x 3), and one read through a reshape
// that changes the last dimension.
// CHECK-LABEL: func.func @matmul_bn_not_last
// CHECK-COUNT-2: tandem.batch_norm
func.func @matmul_bn_not_last(%x: tensor<1x2x1xf32>, %y: tensor<1x3x1xf32>) -> (tensor<1x2x3xf32>, tensor<2x3xf32>) {
  %w = tandem.constant dense<1.0> : tensor<1x3xf32>
  %w2 = tandem.constant dense<1.0> : tensor<1x2xf32>
  %p = tandem.constant dense<1.0> : tensor<2xf32>
  %0 = tandem.matmul %x, %w : (tensor<1x2x1xf32>, tensor<1x3xf32>) -> tensor<1x2x3xf32>
  %1 = tandem.batch_norm %0, %p, %p, %p, %p : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  %2 = tandem.matmul %y, %w2 : (tensor<1x3x1xf32>, tensor<1x2xf32>) -> tensor<1x3x2xf32>
  %3 = tandem.reshape %2 {shape = array<i64: 2, 3>} : tensor<1x3x2xf32> -> tensor<2x3xf32>
  %p3 = tandem.constant dense<1.0> : tensor<3xf32>
  %4 = tandem.batch_norm %3, %p3, %p3, %p3, %p3 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %1, %4 : tensor<1x2x3xf32>, tensor<2x3xf32>
}

// -----

// Not folded: the conv result has another user, or a parameter is not
// constant.
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-2: tandem.batch_norm
func.func @not_folded(%x: tensor<1x1x4x4xf32>, %var: tensor<1xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
  %w = tandem.constant dense<1.0> : tensor<1x1x1x1xf32>
  %p = tandem.constant dense<1.0> : tensor<1xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %1 = tandem.batch_norm %0, %p, %p, %p, %p : (tensor<1x1x4x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %2 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %3 = tandem.batch_norm %2, %p, %p, %p, %var : (tensor<1x1x4x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  return %0, %1, %3 : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
}

// -----

// Large weights stay dense_resource blobs when folded.
// CHECK-LABEL: func.func @resource_weights
// CHECK: tandem.constant dense_resource<{{.*}}weight_bn{{.*}}> : tensor<64x8x1x1xf32>
// CHECK-NOT: tandem.batch_norm
func.func @resource_weights(%x: tensor<1x8x2x2xf32>) -> tensor<1x64x2x2xf32> {
  %w = tandem.constant dense<0.5> : tensor<64x8x1x1xf32>
  %p = tandem.constant dense<1.0> : tensor<64xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x2x2xf32>, tensor<64x8x1x1xf32>) -> tensor<1x64x2x2xf32>
  %1 = tandem.batch_norm %0, %p, %p, %p, %p : (tensor<1x64x2x2xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x2x2xf32>
  return %1 : tensor<1x64x2x2xf32>
}

// -----

// A channels-last BatchNorm (axis 3) scales the conv's last dimension, not
// its output channels: it does not fold.
// CHECK-LABEL: func.func @conv_bn_axis3
// CHECK: tandem.conv2d
// CHECK: tandem.batch_norm {{.*}}axis = 3
func.func @conv_bn_axis3(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x2xf32>
  %p = tandem.constant dense<[2.0, 1.0, 3.0]> : tensor<3xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x4x3xf32>
  %1 = tandem.batch_norm %0, %p, %p, %p, %p {axis = 3 : i64} : (tensor<1x2x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x2x4x3xf32>
  return %1 : tensor<1x2x4x3xf32>
}
