// RUN: tandem-opt -tandem-lower-to-linalg -split-input-file %s | FileCheck %s

// reduce_mean with keepdims: a reducing generic into the kept dims, a
// division by the element count, then expand_shape back to rank 3.
// CHECK-DAG: #[[KEPT:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_mean_keepdims
// CHECK-SAME: (%[[A:.+]]: tensor<3x5x4xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<5xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[KEPT]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]] : tensor<3x5x4xf32>) outs(%[[INIT]] : tensor<5xf32>)
// CHECK: arith.addf
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<5xf32>)
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: arith.divf
// CHECK: tensor.expand_shape %[[MEAN]] {{\[}}[0, 1, 2]] output_shape [1, 5, 1] : tensor<5xf32> into tensor<1x5x1xf32>
func.func @reduce_mean_keepdims(%a: tensor<3x5x4xf32>) -> tensor<1x5x1xf32> {
  %0 = tandem.reduce_mean %a {axes = array<i64: 0, 2>} : tensor<3x5x4xf32> -> tensor<1x5x1xf32>
  return %0 : tensor<1x5x1xf32>
}

// -----

// reduce_max over everything starts from -inf and leaves a rank-0 tensor.
// CHECK-DAG: #[[ALL:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @reduce_max_all
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[ALL]]], iterator_types = ["reduction", "reduction"]}
// CHECK: arith.maximumf
// CHECK: return %[[MAX]] : tensor<f32>
func.func @reduce_max_all(%a: tensor<4x8xf32>) -> tensor<f32> {
  %0 = tandem.reduce_max %a {axes = array<i64: 0, 1>, keepdims = false} : tensor<4x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Integer reduce_max starts from the signed minimum.
// CHECK-LABEL: func.func @reduce_max_int
// CHECK: arith.constant -9223372036854775808 : i64
// CHECK: arith.maxsi
func.func @reduce_max_int(%a: tensor<4x8xi64>) -> tensor<4xi64> {
  %0 = tandem.reduce_max %a {axes = array<i64: 1>, keepdims = false} : tensor<4x8xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// global_avg_pool sums the spatial dims and divides by H * W.
// CHECK-LABEL: func.func @global_avg_pool
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.constant 3.500000e+01 : f32
// CHECK: arith.divf
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2, 3]] output_shape [2, 3, 1, 1]
func.func @global_avg_pool(%a: tensor<2x3x5x7xf32>) -> tensor<2x3x1x1xf32> {
  %0 = tandem.global_avg_pool %a : tensor<2x3x5x7xf32> -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// -----

// Ceil-mode max pooling pads the end with -inf so the last window fits.
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK-SAME: (%[[A:.+]]: tensor<1x2x7x7xf32>)
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[A]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]]
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<1x2x4x4xf32>)
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[WIN]] : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%[[INIT]] : tensor<1x2x4x4xf32>)
func.func @max_pool_ceil(%a: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = tandem.max_pool2d %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x2x7x7xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// Padded average pooling without count_include_pad divides each position by
// the number of real elements under its window.
// CHECK-DAG: #[[HW:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @avg_pool_exclude_pad
// CHECK: %[[PAD:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum {{.+}} ins(%[[PAD]], %{{.+}} : tensor<1x2x6x6xf32>, tensor<3x3xf32>)
// CHECK: %[[DIV:.+]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[HW]], #{{.+}}], {{.+}} ins(%[[SUM]], %[[DIV]] :
// CHECK: arith.divf
func.func @avg_pool_exclude_pad(%a: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = tandem.avg_pool2d %a {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// With count_include_pad every window counts 9 elements: one scalar divisor.
// CHECK-LABEL: func.func @avg_pool_include_pad
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.constant 9.000000e+00 : f32
// CHECK: arith.divf
// CHECK-NOT: dense<
func.func @avg_pool_include_pad(%a: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = tandem.avg_pool2d %a {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// softmax: max, exp(x - max), sum, divide.
// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<2x5xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[ROWS]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]]
// CHECK: arith.maximumf
// CHECK: %[[EXP:.+]] = linalg.generic {{.+}} ins(%[[X]], %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]]
// CHECK: arith.addf
// CHECK: linalg.generic {{.+}} ins(%[[EXP]], %[[SUM]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK: arith.divf
func.func @softmax(%a: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = tandem.softmax %a {axis = 1 : i64} : tensor<2x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// layer_norm: mean, centred values, sum of squares, then
// centred * rsqrt(var + eps) * scale + bias with scale/bias on the trailing dims.
// CHECK-DAG: #[[LEAD:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[TRAIL:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<2x3x8xf32>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<2x3xf32>)
// CHECK: %[[C:.+]] = linalg.generic {{.+}} ins(%[[X]], %[[MEAN]] : tensor<2x3x8xf32>, tensor<2x3xf32>)
// CHECK: arith.subf
// CHECK: %[[SQ:.+]] = linalg.generic {{.+}} ins(%[[C]] : tensor<2x3x8xf32>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[LEAD]], #[[TRAIL]], #[[TRAIL]], #{{.+}}], {{.+}} ins(%[[C]], %[[SQ]], %[[G]], %[[B]] :
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: math.rsqrt
func.func @layer_norm(%a: tensor<2x3x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %0 = tandem.layer_norm %a, %g, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// f16 softmax computes in f32: the input is extended first and the result
// truncated last.
// CHECK-LABEL: func.func @softmax_f16
// CHECK-SAME: (%[[X:.+]]: tensor<2x5xf16>)
// CHECK: %[[WIDE:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<2x5xf16>) outs(%{{.+}} : tensor<2x5xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: linalg.generic {{.+}} ins(%[[WIDE]] : tensor<2x5xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: math.exp %{{.+}} : f32
// CHECK: %[[OUT:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<2x5xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: return %[[OUT]]
func.func @softmax_f16(%a: tensor<2x5xf16>) -> tensor<2x5xf16> {
  %0 = tandem.softmax %a {axis = 1 : i64} : tensor<2x5xf16> -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}
