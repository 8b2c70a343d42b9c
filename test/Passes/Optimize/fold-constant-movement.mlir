// RUN: tandem-opt %s --tandem-fold-constant-movement --split-input-file | FileCheck %s

// A flipped, channel-swapped kernel (ConvTranspose's) folds to one constant.
// CHECK-LABEL: func.func @kernel
// CHECK-NEXT: %[[W:.+]] = tandem.constant dense<{{\[\[\[\[}}3.000000e+00, 2.000000e+00, 1.000000e+00]]], {{\[\[\[}}6.000000e+00, 5.000000e+00, 4.000000e+00]]]]> : tensor<2x1x1x3xf32>
// CHECK-NEXT: return %[[W]]
func.func @kernel() -> tensor<2x1x1x3xf32> {
  %w = tandem.constant dense<[[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]]> : tensor<1x2x1x3xf32>
  %t = tandem.transpose %w {perm = array<i64: 1, 0, 2, 3>} : tensor<1x2x1x3xf32> -> tensor<2x1x1x3xf32>
  %i = tandem.constant dense<[2, 1, 0]> : tensor<3xi64>
  %f = tandem.gather %t, %i {axis = 3 : i64} : (tensor<2x1x1x3xf32>, tensor<3xi64>) -> tensor<2x1x1x3xf32>
  return %f : tensor<2x1x1x3xf32>
}

// -----

// Negative constant indices count from the end; a reshape feeding the
// gather folds with it.
// CHECK-LABEL: func.func @negative
// CHECK-NEXT: %[[C:.+]] = tandem.constant dense<[4.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @negative() -> tensor<2xf32> {
  %w = tandem.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = tandem.reshape %w {shape = array<i64: 4>} : tensor<2x2xf32> -> tensor<4xf32>
  %i = tandem.constant dense<[-1, 0]> : tensor<2xi64>
  %g = tandem.gather %r, %i {axis = 0 : i64} : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// Runtime data and runtime indices stay as they are.
// CHECK-LABEL: func.func @kept
// CHECK: tandem.transpose %arg0
// CHECK: tandem.gather %{{.+}}, %arg1
func.func @kept(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = tandem.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %w = tandem.constant dense<1.0> : tensor<4x3xf32>
  %g = tandem.gather %w, %i {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %t, %g : tensor<3x2xf32>, tensor<2x3xf32>
}
