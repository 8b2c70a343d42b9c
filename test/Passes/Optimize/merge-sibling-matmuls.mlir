// RUN: tandem-opt %s -split-input-file -tandem-merge-sibling-matmuls | FileCheck %s

// Query, key and value projections of one hidden state (HuggingFace's
// separate Linear layers) become one matmul by their weights side by side
// and one bias_add; each result is a slice of its columns, in program
// order. The value projection has no bias: zeros in its place.
// CHECK-LABEL: func.func @qkv
// CHECK-DAG: %[[W:.+]] = tandem.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00, 5.000000e+00], [1.000000e+00, 2.000000e+00, 4.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x5xf32>
// CHECK-DAG: %[[B:.+]] = tandem.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 0.000000e+00, 0.000000e+00]> : tensor<5xf32>
// CHECK: %[[M:.+]] = tandem.matmul %arg0, %[[W]] : (tensor<1x3x2xf32>, tensor<2x5xf32>) -> tensor<1x3x5xf32>
// CHECK: %[[MB:.+]] = tandem.bias_add %[[M]], %[[B]] {axis = 2 : i64}
// CHECK: %[[Q:.+]] = tandem.slice %[[MB]] {limits = array<i64: 1, 3, 1>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x3x5xf32> -> tensor<1x3x1xf32>
// CHECK: %[[K:.+]] = tandem.slice %[[MB]] {limits = array<i64: 1, 3, 3>, starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, 1>} : tensor<1x3x5xf32> -> tensor<1x3x2xf32>
// CHECK: %[[V:.+]] = tandem.slice %[[MB]] {limits = array<i64: 1, 3, 5>, starts = array<i64: 0, 0, 3>, steps = array<i64: 1, 1, 1>} : tensor<1x3x5xf32> -> tensor<1x3x2xf32>
// CHECK-NOT: tandem.matmul
// CHECK: return %[[Q]], %[[K]], %[[V]]
func.func @qkv(%x: tensor<1x3x2xf32>) -> (tensor<1x3x1xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) {
  %wq = tandem.constant dense<[[1.0], [1.0]]> : tensor<2x1xf32>
  %bq = tandem.constant dense<[0.1]> : tensor<1xf32>
  %wk = tandem.constant dense<[[2.0, 3.0], [2.0, 4.0]]> : tensor<2x2xf32>
  %bk = tandem.constant dense<[0.2, 0.3]> : tensor<2xf32>
  %wv = tandem.constant dense<[[3.0, 5.0], [4.0, 6.0]]> : tensor<2x2xf32>
  %q = tandem.matmul %x, %wq : (tensor<1x3x2xf32>, tensor<2x1xf32>) -> tensor<1x3x1xf32>
  %qb = tandem.bias_add %q, %bq {axis = 2 : i64} : (tensor<1x3x1xf32>, tensor<1xf32>) -> tensor<1x3x1xf32>
  %k = tandem.matmul %x, %wk : (tensor<1x3x2xf32>, tensor<2x2xf32>) -> tensor<1x3x2xf32>
  %kb = tandem.bias_add %k, %bk {axis = 2 : i64} : (tensor<1x3x2xf32>, tensor<2xf32>) -> tensor<1x3x2xf32>
  %v = tandem.matmul %x, %wv : (tensor<1x3x2xf32>, tensor<2x2xf32>) -> tensor<1x3x2xf32>
  return %qb, %kb, %v : tensor<1x3x1xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>
}

// -----

// A projection's result is the left side of the next group (LLaMA's gate
// and up projections of a state that itself came out of a merged group):
// both groups merge. No biases: no bias_add.
// CHECK-LABEL: func.func @chained
// CHECK: %[[M1:.+]] = tandem.matmul %arg0, %{{.+}} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK-NOT: tandem.bias_add
// CHECK: %[[A:.+]] = tandem.slice %[[M1]] {{.*}} -> tensor<4x2xf32>
// CHECK: %[[B:.+]] = tandem.slice %[[M1]] {{.*}} -> tensor<4x2xf32>
// CHECK: %[[M2:.+]] = tandem.matmul %[[A]], %{{.+}} : (tensor<4x2xf32>, tensor<2x6xf32>) -> tensor<4x6xf32>
// CHECK-COUNT-2: tandem.slice %[[M2]]
func.func @chained(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %w1 = tandem.constant dense<1.0> : tensor<2x2xf32>
  %w2 = tandem.constant dense<2.0> : tensor<2x2xf32>
  %w3 = tandem.constant dense<3.0> : tensor<2x3xf32>
  %w4 = tandem.constant dense<4.0> : tensor<2x3xf32>
  %a = tandem.matmul %x, %w1 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = tandem.matmul %x, %w2 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %c = tandem.matmul %a, %w3 : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %d = tandem.matmul %a, %w4 : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %b, %c, %d : tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Left alone: a matmul by a weight that is no constant, so the constant
// one has no sibling.
// CHECK-LABEL: func.func @not_merged
// CHECK-COUNT-2: tandem.matmul
// CHECK-NOT: tandem.slice
func.func @not_merged(%x: tensor<4x2xf32>, %w: tensor<2x3xf32>, %y: tensor<4x2xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %c = tandem.constant dense<1.0> : tensor<2x3xf32>
  %a = tandem.matmul %x, %c : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %b = tandem.matmul %x, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %a, %b : tensor<4x3xf32>, tensor<4x3xf32>
}
