// RUN: tandem-opt -tandem-lower-to-linalg -split-input-file %s | FileCheck %s

// A 2-D matmul is linalg.matmul into a zero-filled accumulator.
// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME: (%[[A:.+]]: tensor<7x13xf32>, %[[B:.+]]: tensor<13x5xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<7x5xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<7x13xf32>, tensor<13x5xf32>) outs(%[[FILL]] : tensor<7x5xf32>)
// CHECK: return %[[MM]]
func.func @matmul_2d(%a: tensor<7x13xf32>, %b: tensor<13x5xf32>) -> tensor<7x5xf32> {
  %0 = tandem.matmul %a, %b : (tensor<7x13xf32>, tensor<13x5xf32>) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

// -----

// [B, M, K] x [K, N] folds the batch into M; f16 accumulates in f32 and is
// truncated at the end.
// CHECK-LABEL: func.func @matmul_3d_by_2d_f16
// CHECK-SAME: (%[[A:.+]]: tensor<2x7x13xf16>, %[[B:.+]]: tensor<13x5xf16>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x7x13xf16> into tensor<14x13xf16>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[FLAT]], %[[B]] : tensor<14x13xf16>, tensor<13x5xf16>) outs(%{{.+}} : tensor<14x5xf32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [2, 7, 5] : tensor<14x5xf32> into tensor<2x7x5xf32>
// CHECK: linalg.generic {{.+}} ins(%[[E]] : tensor<2x7x5xf32>) outs(%{{.+}} : tensor<2x7x5xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @matmul_3d_by_2d_f16(%a: tensor<2x7x13xf16>, %b: tensor<13x5xf16>) -> tensor<2x7x5xf16> {
  %0 = tandem.matmul %a, %b : (tensor<2x7x13xf16>, tensor<13x5xf16>) -> tensor<2x7x5xf16>
  return %0 : tensor<2x7x5xf16>
}

// -----

// Equal batch dims collapse into one and use linalg.batch_matmul.
// CHECK-LABEL: func.func @matmul_batch
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4x5xf32>, %[[B:.+]]: tensor<2x3x5x6xf32>)
// CHECK: %[[L:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x4x5xf32> into tensor<6x4x5xf32>
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x5x6xf32> into tensor<6x5x6xf32>
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[L]], %[[R]] : tensor<6x4x5xf32>, tensor<6x5x6xf32>)
// CHECK: tensor.expand_shape %[[BMM]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 4, 6]
func.func @matmul_batch(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = tandem.matmul %a, %b : (tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// Broadcasting batch dims: one generic over (batch..., m, n, k).
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: ^bb0(%[[L:.+]]: f32, %[[R:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[P:.+]] = arith.mulf %[[L]], %[[R]]
// CHECK: arith.addf %[[ACC]], %[[P]]
func.func @matmul_broadcast_batch(%a: tensor<2x1x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = tandem.matmul %a, %b : (tensor<2x1x4x5xf32>, tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// gemm: trans_b materialises the transpose; alpha and beta * c form an
// epilogue with c broadcast along rows.
// CHECK-DAG: #[[CMAP:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.+]]: tensor<5x7xf32>, %[[B:.+]]: tensor<4x7xf32>, %[[C:.+]]: tensor<4xf32>)
// CHECK: %[[BT:.+]] = linalg.transpose ins(%[[B]] : tensor<4x7xf32>) outs(%{{.+}} : tensor<7x4xf32>) permutation = [1, 0]
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[BT]] : tensor<5x7xf32>, tensor<7x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[CMAP]], #{{.+}}], {{.+}} ins(%[[MM]], %[[C]] :
// CHECK: ^bb0(%[[P:.+]]: f32, %[[CV:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[ALPHA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SP:.+]] = arith.mulf %[[P]], %[[ALPHA]]
// CHECK: %[[BETA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[SC:.+]] = arith.mulf %[[CV]], %[[BETA]]
// CHECK: arith.addf %[[SP]], %[[SC]]
func.func @gemm(%a: tensor<5x7xf32>, %b: tensor<4x7xf32>, %c: tensor<4xf32>) -> tensor<5x4xf32> {
  %0 = tandem.gemm %a, %b, %c {trans_b = true, alpha = 0.5 : f32, beta = 2.0 : f32} : (tensor<5x7xf32>, tensor<4x7xf32>, tensor<4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// A plain gemm is just the matmul.
// CHECK-LABEL: func.func @gemm_plain
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]]
func.func @gemm_plain(%a: tensor<5x7xf32>, %b: tensor<7x4xf32>) -> tensor<5x4xf32> {
  %0 = tandem.gemm %a, %b : (tensor<5x7xf32>, tensor<7x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// conv2d, groups = 1: ONNX pads become tensor.pad, strides and dilations go
// on linalg.conv_2d_nchw_fchw, which accumulates into the broadcast bias.
// CHECK-DAG: #[[CHAN:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 2] high[0, 0, 0, 1]
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x9x11xf32>
// CHECK: %[[BIAS:.+]] = linalg.generic {indexing_maps = [#[[CHAN]], #{{.+}}], {{.+}} ins(%[[B]] : tensor<4xf32>) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME: ins(%[[PAD]], %[[W]] : tensor<1x3x9x11xf32>, tensor<4x3x3x3xf32>) outs(%[[BIAS]] : tensor<1x4x4x4xf32>)
// CHECK: return %[[CONV]]
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 2, 0, 1>, dilations = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Depthwise (groups == C == O): the filter drops its unit dim.
// CHECK-LABEL: func.func @conv_depthwise
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x9x9xf32>, %[[W:.+]]: tensor<8x1x3x3xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[F]] : tensor<1x8x11x11xf32>, tensor<8x3x3xf32>)
func.func @conv_depthwise(%x: tensor<1x8x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32> {
  %0 = tandem.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32>
  return %0 : tensor<1x8x5x5xf32>
}

// -----

// Other groups: split C and O into (groups, per group) for
// linalg.conv_2d_ngchw_gfchw, then collapse the result back.
// CHECK-LABEL: func.func @conv_grouped
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x7x7xf32>, %[[W:.+]]: tensor<6x2x3x3xf32>)
// CHECK: %[[FILL:.+]] = linalg.fill
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 7, 7]
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK: %[[OG:.+]] = tensor.expand_shape %[[FILL]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 5, 5]
// CHECK: %[[CONV:.+]] = linalg.conv_2d_ngchw_gfchw {{.+}} ins(%[[XG]], %[[WG]] : {{.+}}) outs(%[[OG]] : tensor<1x2x3x5x5xf32>)
// CHECK: tensor.collapse_shape %[[CONV]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x5x5xf32> into tensor<1x6x5x5xf32>
func.func @conv_grouped(%x: tensor<1x4x7x7xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32> {
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32>
  return %0 : tensor<1x6x5x5xf32>
}

// -----

// An i32 matmul (MatMulInteger's widened operands) accumulates in i32.
// CHECK-LABEL: func.func @matmul_i32
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<4x5xi32>)
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xi32>, tensor<16x5xi32>) outs(%[[FILL]] : tensor<4x5xi32>)
func.func @matmul_i32(%a: tensor<4x16xi32>, %b: tensor<16x5xi32>) -> tensor<4x5xi32> {
  %0 = tandem.matmul %a, %b : (tensor<4x16xi32>, tensor<16x5xi32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// Broadcasting batch dims in i32: the generic multiplies and adds integers.
// CHECK-LABEL: func.func @matmul_broadcast_batch_i32
// CHECK: ^bb0(%[[L:.+]]: i32, %[[R:.+]]: i32, %[[ACC:.+]]: i32):
// CHECK: %[[P:.+]] = arith.muli %[[L]], %[[R]]
// CHECK: arith.addi %[[ACC]], %[[P]]
// CHECK-NOT: arith.mulf
func.func @matmul_broadcast_batch_i32(%a: tensor<2x1x4x5xi32>, %b: tensor<3x5x6xi32>) -> tensor<2x3x4x6xi32> {
  %0 = tandem.matmul %a, %b : (tensor<2x1x4x5xi32>, tensor<3x5x6xi32>) -> tensor<2x3x4x6xi32>
  return %0 : tensor<2x3x4x6xi32>
}

// -----

// An i32 convolution (ConvInteger, QLinearConv) pads with integer zeros and
// accumulates into the broadcast i32 bias.
// CHECK-LABEL: func.func @conv_i32
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: tensor.pad
// CHECK: tensor.yield %[[ZERO]] : i32
// CHECK: %[[INIT:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<6xi32>) outs(%{{.+}} : tensor<1x6x4x4xi32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} ins(%{{.+}}, %{{.+}} : tensor<1x4x9x9xi32>, tensor<6x4x3x3xi32>) outs(%[[INIT]] : tensor<1x6x4x4xi32>)
func.func @conv_i32(%x: tensor<1x4x7x7xi32>, %w: tensor<6x4x3x3xi32>, %b: tensor<6xi32>) -> tensor<1x6x4x4xi32> {
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64}
      : (tensor<1x4x7x7xi32>, tensor<6x4x3x3xi32>, tensor<6xi32>) -> tensor<1x6x4x4xi32>
  return %0 : tensor<1x6x4x4xi32>
}

// -----

// layout = "NHWC", groups = 1: the pads go on H and W (dims 1 and 2),
// linalg.conv_2d_nhwc_fhwc accumulates into the bias broadcast along dim 3.
// CHECK-DAG: #[[LASTCHAN:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @conv_nhwc
// CHECK: tensor.pad %{{.+}} low[0, 1, 2, 0] high[0, 0, 1, 0]
// CHECK: linalg.generic {indexing_maps = [#[[LASTCHAN]], {{.+}}]
// CHECK: linalg.conv_2d_nhwc_fhwc {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins({{.+}} : tensor<1x9x11x3xf32>, tensor<4x3x3x3xf32>) outs({{.+}} : tensor<1x4x4x4xf32>)
func.func @conv_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 2, 0, 1>, dilations = array<i64: 1, 2>, layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// layout = "NHWC" with groups: one 4-D generic over (n, oh, ow, o, kh, kw,
// c), the input channel (o floordiv O/groups) * C/groups + c, marked for
// tandem-form-library-convs; no reshapes.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 + d5, (d3 floordiv 3) * 2 + d6)>
// CHECK-DAG: #[[FILTER:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_nhwc_grouped
// CHECK-NOT: expand_shape
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins({{.+}} : tensor<1x7x7x4xf32>, tensor<6x3x3x2xf32>) outs({{.+}} : tensor<1x3x5x6xf32>)
// CHECK-SAME: attrs = {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>, tandem.conv_groups = 2 : i64}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: collapse_shape
func.func @conv_nhwc_grouped(%x: tensor<1x7x7x4xf32>, %w: tensor<6x3x3x2xf32>) -> tensor<1x3x5x6xf32> {
  %0 = tandem.conv2d %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64, layout = "NHWC"} : (tensor<1x7x7x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x3x5x6xf32>
  return %0 : tensor<1x3x5x6xf32>
}

// -----

// In a GPU partition a grouped NCHW conv is the same kind of 4-D generic,
// over (n, o, oh, ow, c, kh, kw), so that it becomes a library call (the
// 5-D named form above is what the CPU kernels read).
// CHECK-DAG: #[[GIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 3) * 2 + d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[GFILTER:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-LABEL: func.func private @conv_grouped_gpu
// CHECK-NOT: expand_shape
// CHECK: linalg.generic {indexing_maps = [#[[GIN]], #[[GFILTER]], {{.+}}]
// CHECK-SAME: attrs = {{.*}}tandem.conv_groups = 2 : i64
func.func private @conv_grouped_gpu(%x: tensor<1x4x7x7xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32> attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32>
  return %0 : tensor<1x6x5x5xf32>
}
