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

// An NHWC max pool (a GPU partition's, from tandem-assign-gpu-layout) pads
// H and W, the second and third dimensions, and pools with
// linalg.pooling_nhwc_max.
// CHECK-LABEL: func.func @max_pool_nhwc
// CHECK-SAME: (%[[A:.+]]: tensor<1x7x7x2xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[A]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[WIN]] : tensor<1x9x9x2xf32>, tensor<3x3xf32>) outs(%{{.+}} : tensor<1x4x4x2xf32>)
func.func @max_pool_nhwc(%a: tensor<1x7x7x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = tandem.max_pool2d %a {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NHWC"} : tensor<1x7x7x2xf32> -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
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

// NHWC (a GPU partition's, from tandem-assign-gpu-layout): H and W padded
// as dims 1 and 2, linalg.pooling_nhwc_sum, and the per-position divisors
// indexed by the output's dims 1 and 2.
// CHECK-DAG: #[[HW:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func.func @avg_pool_nhwc
// CHECK: %[[PAD:.+]] = tensor.pad %{{.+}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[SUM:.+]] = linalg.pooling_nhwc_sum {{.+}} ins(%[[PAD]], %{{.+}} : tensor<1x6x6x2xf32>, tensor<3x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[HW]], #{{.+}}], {{.+}} ins(%[[SUM]], %{{.+}} :
// CHECK: arith.divf
func.func @avg_pool_nhwc(%a: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %0 = tandem.avg_pool2d %a {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
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

// A dilated average pool keeps its dilations on the linalg op; the divisor
// counts taps: the first row window's tap -1 is padding, and the ceil-mode
// column window's tap 6 lies past the input.
// CHECK-LABEL: func.func @avg_pool_dilated
// CHECK: %[[PAD:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 0] high[0, 0, 1, 1]
// CHECK: linalg.pooling_nchw_sum {dilations = dense<2> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>} ins(%[[PAD]], %{{.+}} : tensor<1x1x7x7xf32>, tensor<2x2xf32>)
// CHECK: arith.constant dense<{{\[}}[2.000000e+00, 2.000000e+00, 1.000000e+00], [4.000000e+00, 4.000000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// CHECK: arith.divf
func.func @avg_pool_dilated(%a: tensor<1x1x5x6xf32>) -> tensor<1x1x2x3xf32> {
  %0 = tandem.avg_pool2d %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 3, 2>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 2, 2>, ceil_mode = true} : tensor<1x1x5x6xf32> -> tensor<1x1x2x3xf32>
  return %0 : tensor<1x1x2x3xf32>
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

// -----

// reduce_min starts from +inf and keeps NaN (minimumf).
// CHECK-LABEL: func.func @reduce_min
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: linalg.fill ins(%[[INF]] : f32)
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.minimumf
// CHECK: tensor.expand_shape
func.func @reduce_min(%a: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = tandem.reduce_min %a {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Integer reduce_min starts from the signed maximum.
// CHECK-LABEL: func.func @reduce_min_int
// CHECK: arith.constant 2147483647 : i32
// CHECK: arith.minsi
func.func @reduce_min_int(%a: tensor<4x8xi32>) -> tensor<4xi32> {
  %0 = tandem.reduce_min %a {axes = array<i64: 1>, keepdims = false} : tensor<4x8xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// reduce_prod starts from one and multiplies; integers wrap (muli).
// CHECK-LABEL: func.func @reduce_prod
// CHECK: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK: linalg.fill ins(%[[ONE]] : i64)
// CHECK: linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.muli
func.func @reduce_prod(%a: tensor<4x8xi64>) -> tensor<8xi64> {
  %0 = tandem.reduce_prod %a {axes = array<i64: 0>, keepdims = false} : tensor<4x8xi64> -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

// f16 reduce_prod multiplies in f32 and converts back.
// CHECK-LABEL: func.func @reduce_prod_f16
// CHECK: arith.extf
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: arith.truncf
func.func @reduce_prod_f16(%a: tensor<4x8xf16>) -> tensor<4xf16> {
  %0 = tandem.reduce_prod %a {axes = array<i64: 1>, keepdims = false} : tensor<4x8xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// arg_max is one reduction with two outputs, the value picked so far and
// its index: position 0 is taken as it is, a later element when it compares
// strictly greater (ordered: never a NaN after the first position).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @arg_max
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xi64>)
// CHECK: ^bb0(%[[V:.+]]: f32, %[[BEST:.+]]: f32, %[[IDX:.+]]: i64):
// CHECK: %[[K:.+]] = linalg.index 1 : index
// CHECK: %[[K64:.+]] = arith.index_cast %[[K]] : index to i64
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[K64]]
// CHECK: %[[BETTER:.+]] = arith.cmpf ogt, %[[V]], %[[BEST]] : f32
// CHECK: %[[TAKE:.+]] = arith.ori %[[FIRST]], %[[BETTER]] : i1
// CHECK: arith.select %[[TAKE]], %[[V]], %[[BEST]]
// CHECK: arith.select %[[TAKE]], %[[K64]], %[[IDX]]
// CHECK: return %[[R]]#1 : tensor<4xi64>
func.func @arg_max(%a: tensor<4x10xf32>) -> tensor<4xi64> {
  %0 = tandem.arg_max %a {axis = 1 : i64, keepdims = false} : tensor<4x10xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// arg_min with select_last_index takes ties (sle); keepdims expands.
// CHECK-LABEL: func.func @arg_min_last
// CHECK: linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.cmpi sle, %{{.+}}, %{{.+}} : i32
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [1, 10] : tensor<10xi64> into tensor<1x10xi64>
func.func @arg_min_last(%a: tensor<4x10xi32>) -> tensor<1x10xi64> {
  %0 = tandem.arg_min %a {axis = 0 : i64, select_last_index = true} : tensor<4x10xi32> -> tensor<1x10xi64>
  return %0 : tensor<1x10xi64>
}

// -----

// cumsum is a masked reduction over the axis: the loop nest is the output's
// dims plus k on the axis, and each output adds the elements with k <= i.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: ^bb0(%[[V:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[K:.+]] = linalg.index 2 : index
// CHECK: %[[IN:.+]] = arith.cmpi ule, %[[K]], %[[I]] : index
// CHECK: %[[TERM:.+]] = arith.select %[[IN]], %[[V]], %{{.+}} : f32
// CHECK: arith.addf %[[ACC]], %[[TERM]] : f32
func.func @cumsum(%a: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = tandem.cumsum %a {axis = 1 : i64} : tensor<2x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Exclusive and reverse: the elements strictly after i (k > i).
// CHECK-LABEL: func.func @cumsum_reverse_exclusive
// CHECK: arith.cmpi ugt, %{{.+}}, %{{.+}} : index
// CHECK: arith.addi
func.func @cumsum_reverse_exclusive(%a: tensor<2x5xi64>) -> tensor<2x5xi64> {
  %0 = tandem.cumsum %a {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x5xi64> -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

// top_k: first each element's rank (how many elements come before it: a
// better value, NaN above every number, or an equal one at a lower index),
// a masked count over the axis; then for output j the element of rank j,
// a two-output (value, index) pick over the axis.
// CHECK-DAG: #[[OWN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ALONG:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @top_k
// CHECK-SAME: (%[[X:.+]]: tensor<2x6xf32>)
// CHECK: %[[RANKS:.+]] = linalg.generic {indexing_maps = [#[[OWN]], #[[ALONG]], #[[OWN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[X]] : tensor<2x6xf32>, tensor<2x6xf32>) outs(%{{.+}} : tensor<2x6xi64>)
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.extui %{{.+}} : i1 to i64
// CHECK: %[[PICK:.+]]:2 = linalg.generic {indexing_maps = [#[[ALONG]], #[[ALONG]], #[[OWN]], #[[OWN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[RANKS]] : tensor<2x6xf32>, tensor<2x6xi64>) outs(%{{.+}}, %{{.+}} : tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[MATCH:.+]] = arith.cmpi eq
// CHECK: arith.select %[[MATCH]]
// CHECK: return %[[PICK]]#0, %[[PICK]]#1
func.func @top_k(%a: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = tandem.top_k %a {axis = 1 : i64, k = 3 : i64} : tensor<2x6xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// The smallest integers: slt, and no NaN test.
// CHECK-LABEL: func.func @top_k_smallest_int
// CHECK-NOT: arith.cmpf
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi eq
func.func @top_k_smallest_int(%a: tensor<5x4xi32>) -> (tensor<2x4xi32>, tensor<2x4xi64>) {
  %v, %i = tandem.top_k %a {axis = 0 : i64, k = 2 : i64, largest = false} : tensor<5x4xi32> -> tensor<2x4xi32>, tensor<2x4xi64>
  return %v, %i : tensor<2x4xi32>, tensor<2x4xi64>
}
