// The tandem-optimize-graph pipeline: folding with a size cap, no-op and
// identity removal, reshape/transpose chains, BatchNorm folding, bias
// normalisation, CSE and DCE.
// RUN: tandem-opt %s -split-input-file -tandem-optimize-graph | FileCheck %s

// Small constant expressions fold; large ones do not, so weights are never
// duplicated.
// CHECK-LABEL: func.func @fold_cap
// CHECK-DAG: tandem.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[BIG:.+]] = tandem.constant dense_resource<big> : tensor<2048xf32>
// CHECK:     tandem.neg %[[BIG]]
func.func @fold_cap() -> (tensor<4xf32>, tensor<2048xf32>) {
  %a = tandem.constant dense<1.0> : tensor<4xf32>
  %b = tandem.constant dense<2.0> : tensor<4xf32>
  %0 = tandem.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %big = tandem.constant dense_resource<big> : tensor<2048xf32>
  %1 = tandem.neg %big : tensor<2048xf32>
  return %0, %1 : tensor<4xf32>, tensor<2048xf32>
}

// -----

// Identities and no-ops vanish (x * 1, x + 0, same-type cast, identity
// transpose); chains of reshapes and transposes compose.
// CHECK-LABEL: func.func @no_ops
// CHECK-NEXT: %[[R:.+]] = tandem.reshape %arg0 {shape = array<i64: 24>} : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: return %[[R]]
func.func @no_ops(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %one = tandem.constant dense<1.0> : tensor<f32>
  %zero = tandem.constant dense<0.0> : tensor<f32>
  %0 = tandem.mul %x, %one : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %1 = tandem.add %0, %zero : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %2 = tandem.cast %1 {to = f32} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %3 = tandem.transpose %2 {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %4 = tandem.transpose %3 {perm = array<i64: 1, 0, 2>} : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %5 = tandem.reshape %4 {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %6 = tandem.reshape %5 {shape = array<i64: 24>} : tensor<6x4xf32> -> tensor<24xf32>
  return %6 : tensor<24xf32>
}

// -----

// CSE merges duplicate ops and DCE drops dead ones.
// CHECK-LABEL: func.func @cse_dce
// CHECK-COUNT-1: tandem.exp
// CHECK-NOT: tandem.tanh
func.func @cse_dce(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.exp %x : tensor<4xf32>
  %1 = tandem.exp %x : tensor<4xf32>
  %dead = tandem.tanh %x : tensor<4xf32>
  %2 = tandem.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Conv + BatchNorm + Add(bias) ends as one conv with a folded bias.
// CHECK-LABEL: func.func @conv_bn_bias
// CHECK:     tandem.conv2d %arg0, %{{.*}}, %{{.*}} {
// CHECK-NOT: tandem.batch_norm
// CHECK-NOT: tandem.add
func.func @conv_bn_bias(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tandem.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = tandem.constant dense<1.0> : tensor<2xf32>
  %c = tandem.constant dense<1.0> : tensor<2x1x1xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tandem.batch_norm %0, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = tandem.add %1, %c : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

