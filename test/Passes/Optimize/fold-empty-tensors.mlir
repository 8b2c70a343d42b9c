// RUN: tandem-opt %s -split-input-file -tandem-fold-empty-tensors -verify-diagnostics | FileCheck %s

// An op whose result is empty becomes an empty constant, whatever it reads.
// CHECK-LABEL: func.func @empty_result
// CHECK-NOT: tandem.add
// CHECK: %[[C:.+]] = tandem.constant dense<> : tensor<0x3xf32>
// CHECK: return %[[C]]
func.func @empty_result(%x: tensor<0x3xf32>, %b: tensor<3xf32>) -> tensor<0x3xf32> {
  %0 = tandem.add %x, %b : (tensor<0x3xf32>, tensor<3xf32>) -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// A matmul over K = 0 is zero.
// CHECK-LABEL: func.func @matmul_k0
// CHECK-NOT: tandem.matmul
// CHECK: tandem.constant dense<0.000000e+00> : tensor<2x3xf32>
func.func @matmul_k0(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %0 = tandem.matmul %a, %b : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Reductions over no element: sum 0, mean NaN, max -inf (floats) or the
// lowest integer.
// CHECK-LABEL: func.func @reductions
// CHECK-DAG: tandem.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-DAG: tandem.constant dense<0x7FC00000> : tensor<2xf32>
// CHECK-DAG: tandem.constant dense<0xFF800000> : tensor<2xf32>
// CHECK-DAG: tandem.constant dense<-9223372036854775808> : tensor<2xi64>
// CHECK-NOT: tandem.reduce
func.func @reductions(%x: tensor<2x0xf32>, %i: tensor<2x0xi64>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi64>) {
  %0 = tandem.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x0xf32> -> tensor<2xf32>
  %1 = tandem.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<2x0xf32> -> tensor<2xf32>
  %2 = tandem.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x0xf32> -> tensor<2xf32>
  %3 = tandem.reduce_max %i {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi64> -> tensor<2xi64>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi64>
}

// -----

// A concat drops its empty pieces; one piece left is the result itself.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.+]]: tensor<2x0xf32>, %[[B:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<2x1xf32>)
// CHECK: %[[R:.+]] = tandem.concat %[[B]], %[[C]] {axis = 1 : i64}
// CHECK: return %[[R]], %[[B]]
func.func @concat(%a: tensor<2x0xf32>, %b: tensor<2x3xf32>, %c: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>) {
  %0 = tandem.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x0xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = tandem.concat %a, %b {axis = 1 : i64} : (tensor<2x0xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x3xf32>
}

// -----

// Anything else that promises data from no data is an error at the op.
func.func @unsupported(%x: tensor<1x0x4x4xf32>, %w: tensor<2x0x3x3xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'tandem.conv2d' has an empty operand (a zero-size dim) but a non-empty result, which is not supported}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x0x4x4xf32>, tensor<2x0x3x3xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// reduce_min over no element is +inf (INT_MAX for integers), reduce_prod 1.
// CHECK-LABEL: func.func @min_prod
// CHECK-DAG: tandem.constant dense<0x7F800000> : tensor<2xf32>
// CHECK-DAG: tandem.constant dense<2147483647> : tensor<2xi32>
// CHECK-DAG: tandem.constant dense<1.000000e+00> : tensor<2x1xf32>
// CHECK-DAG: tandem.constant dense<1> : tensor<2xi64>
// CHECK-NOT: tandem.reduce
func.func @min_prod(%x: tensor<2x0xf32>, %i: tensor<2x0xi32>, %j: tensor<2x0xi64>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2x1xf32>, tensor<2xi64>) {
  %0 = tandem.reduce_min %x {axes = array<i64: 1>, keepdims = false} : tensor<2x0xf32> -> tensor<2xf32>
  %1 = tandem.reduce_min %i {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi32> -> tensor<2xi32>
  %2 = tandem.reduce_prod %x {axes = array<i64: 1>} : tensor<2x0xf32> -> tensor<2x1xf32>
  %3 = tandem.reduce_prod %j {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi64> -> tensor<2xi64>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xi32>, tensor<2x1xf32>, tensor<2xi64>
}

// -----

// arg_max and cumsum with no element out are empty constants.
// CHECK-LABEL: func.func @empty_index_ops
// CHECK-NOT: tandem.arg_max
// CHECK-NOT: tandem.cumsum
func.func @empty_index_ops(%x: tensor<0x4xf32>) -> (tensor<0xi64>, tensor<0x4xf32>) {
  %0 = tandem.arg_max %x {axis = 1 : i64, keepdims = false} : tensor<0x4xf32> -> tensor<0xi64>
  %1 = tandem.cumsum %x {axis = 1 : i64} : tensor<0x4xf32> -> tensor<0x4xf32>
  return %0, %1 : tensor<0xi64>, tensor<0x4xf32>
}

// -----

// gather_elements cannot read non-empty output from an empty axis.
func.func @gather_elements_empty_axis(%x: tensor<2x0xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tandem.gather_elements' has an empty operand (a zero-size dim) but a non-empty result, which is not supported}}
  %0 = tandem.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x0xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
