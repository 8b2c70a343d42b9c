// Input fusions: a reduction root (softmax, layer_norm, reduce_*,
// global_avg_pool) with its elementwise producers, and the elementwise ops
// that finish a decomposed normalisation.
// RUN: tandem-opt %s -tandem-fuse -split-input-file | FileCheck %s

// Softmax takes the attention scaling in front of it; the scale constant is
// cloned into the body.
// CHECK-LABEL: func.func @scaled_softmax
// CHECK: %[[F:.+]] = tandem.fusion input "fusion.softmax"(%arg0)
// CHECK-NEXT: ^bb0(%[[X:.+]]: tensor<2x4x8xf32>):
// CHECK-NEXT: %[[C:.+]] = tandem.constant dense<1.250000e-01>
// CHECK-NEXT: %[[M:.+]] = tandem.mul %[[X]], %[[C]]
// CHECK-NEXT: %[[S:.+]] = tandem.softmax %[[M]]
// CHECK-NEXT: tandem.yield %[[S]]
// CHECK: return %[[F]]
func.func @scaled_softmax(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %c = tandem.constant dense<0.125> : tensor<f32>
  %0 = tandem.mul %x, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %1 = tandem.softmax %0 {axis = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32> loc("softmax")
  return %1 : tensor<2x4x8xf32>
}

// -----

// LayerNorm takes the residual add that produces its input.
// CHECK-LABEL: func.func @add_layer_norm
// CHECK: tandem.fusion input "fusion.ln"(%arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.add
// CHECK-NEXT: tandem.layer_norm
// CHECK-NEXT: tandem.yield
// CHECK-NOT: tandem.fusion
func.func @add_layer_norm(%x: tensor<1x4x8xf32>, %r: tensor<1x4x8xf32>,
                          %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<1x4x8xf32> {
  %0 = tandem.add %x, %r : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %1 = tandem.layer_norm %0, %g, %b {axis = 2 : i64}
      : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32> loc("ln")
  return %1 : tensor<1x4x8xf32>
}

// -----

// LayerNorm as torch exports it below opset 17 (what the importer yields
// for transformer_encoder.onnx): two reduce_means over the same axes and
// the elementwise ops around them become one input fusion, named after the
// first reduction; the weights stay operands.
// CHECK-LABEL: func.func @decomposed_layer_norm
// CHECK: %[[F:.+]] = tandem.fusion input "fusion.norm_ReduceMean"(%arg0, %arg1, %arg2)
// CHECK: tandem.reduce_mean
// CHECK: tandem.sub
// CHECK: tandem.pow
// CHECK: tandem.reduce_mean
// CHECK: tandem.add
// CHECK: tandem.sqrt
// CHECK: tandem.div
// CHECK: tandem.mul
// CHECK: %[[OUT:.+]] = tandem.add
// CHECK-NEXT: tandem.yield %[[OUT]] : tensor<1x4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @decomposed_layer_norm(%x: tensor<1x4x8xf32>, %g: tensor<8xf32>,
                                 %b: tensor<8xf32>) -> tensor<1x4x8xf32> {
  %eps = tandem.constant dense<9.99999974E-6> : tensor<f32>
  %two = tandem.constant dense<2.0> : tensor<f32>
  %0 = tandem.reduce_mean %x {axes = array<i64: 2>} : tensor<1x4x8xf32> -> tensor<1x4x1xf32> loc("/norm/ReduceMean")
  %1 = tandem.sub %x, %0 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %2 = tandem.pow %1, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %3 = tandem.reduce_mean %2 {axes = array<i64: 2>} : tensor<1x4x8xf32> -> tensor<1x4x1xf32> loc("/norm/ReduceMean_1")
  %4 = tandem.add %3, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %5 = tandem.sqrt %4 : tensor<1x4x1xf32>
  %6 = tandem.div %1, %5 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %7 = tandem.mul %6, %g : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %8 = tandem.add %7, %b : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  return %8 : tensor<1x4x8xf32>
}

// -----

// Reductions over different axes need different kernels, even though they
// read the same input; the add joins one of them as its epilogue.
// CHECK-LABEL: func.func @different_axes
// CHECK: %[[ROWS:.+]] = tandem.fusion input "fusion.rows"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.reduce_max
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion input "fusion.cols"(%arg0, %[[ROWS]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.reduce_sum
// CHECK-NEXT: tandem.add
// CHECK-NEXT: tandem.yield
func.func @different_axes(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tandem.reduce_max %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32> loc("rows")
  %1 = tandem.reduce_sum %x {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32> loc("cols")
  %2 = tandem.add %0, %1 : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32> loc("sum")
  return %2 : tensor<4x8xf32>
}

// -----

// arg_max is a reduction root like reduce_max: it takes its elementwise
// producer.
// CHECK-LABEL: func.func @sqrt_arg_max
// CHECK: tandem.fusion input "fusion.argmax"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.sqrt
// CHECK-NEXT: tandem.arg_max
// CHECK-NEXT: tandem.yield
func.func @sqrt_arg_max(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %0 = tandem.sqrt %x : tensor<4x8xf32> loc("sqrt")
  %1 = tandem.arg_max %0 {axis = 1 : i64, keepdims = false} : tensor<4x8xf32> -> tensor<4xi64> loc("argmax")
  return %1 : tensor<4xi64>
}
