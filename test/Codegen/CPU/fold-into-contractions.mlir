// RUN: tandem-opt -tandem-fold-into-contractions -split-input-file %s | FileCheck %s

// Attention's transposes: Kᵀ and the [seq, heads, dim] -> [heads, seq, dim]
// move of V are read through the contraction's maps, and the result's move
// back is written through them; no transpose is left.
// CHECK-DAG: #[[KMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d3)>
// CHECK-DAG: #[[VMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
// CHECK-DAG: #[[OMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.+]]: tensor<4x128x64xf32>, %[[K:.+]]: tensor<128x4x64xf32>, %[[V:.+]]: tensor<128x4x64xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[S:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[KMAP]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]], %[[K]] : tensor<4x128x64xf32>, tensor<128x4x64xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<128x4x64xf32>
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<128x4x64xf32>)
// CHECK: %[[O:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[VMAP]], #[[OMAP]]], {{.+}} ins(%[[S]], %[[V]] : tensor<4x128x128xf32>, tensor<128x4x64xf32>) outs(%[[Z]] : tensor<128x4x64xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[O]]
func.func @attention(%q: tensor<4x128x64xf32>, %k: tensor<128x4x64xf32>, %v: tensor<128x4x64xf32>) -> tensor<128x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<128x4x64xf32>) outs(%e0 : tensor<4x64x128xf32>) permutation = [1, 2, 0]
  %e1 = tensor.empty() : tensor<4x128x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%z1 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %e2 = tensor.empty() : tensor<4x128x64xf32>
  %vt = linalg.transpose ins(%v : tensor<128x4x64xf32>) outs(%e2 : tensor<4x128x64xf32>) permutation = [1, 0, 2]
  %e3 = tensor.empty() : tensor<4x128x64xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %o = linalg.batch_matmul ins(%s, %vt : tensor<4x128x128xf32>, tensor<4x128x64xf32>) outs(%z3 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %e4 = tensor.empty() : tensor<128x4x64xf32>
  %ot = linalg.transpose ins(%o : tensor<4x128x64xf32>) outs(%e4 : tensor<128x4x64xf32>) permutation = [1, 0, 2]
  return %ot : tensor<128x4x64xf32>
}

// -----

// A transpose another op also reads stays (folding it would not save the
// copy); the contraction is unchanged.
// CHECK-LABEL: func.func @shared_transpose
// CHECK: linalg.transpose
// CHECK: linalg.matmul
func.func @shared_transpose(%a: tensor<8x16xf32>, %b: tensor<32x16xf32>) -> (tensor<8x32xf32>, tensor<16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16x32xf32>
  %bt = linalg.transpose ins(%b : tensor<32x16xf32>) outs(%e0 : tensor<16x32xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %c = linalg.matmul ins(%a, %bt : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %c, %bt : tensor<8x32xf32>, tensor<16x32xf32>
}

// -----

// A dense layer: the matmul of a [1, seq, dim] activation collapsed to 2-D,
// expanded back and a bias added along the last dim. The bias broadcast
// becomes the matmul's init (collapsed to its shape) and the add is gone.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @dense_bias
// CHECK: %[[E:.+]] = tensor.empty() : tensor<1x128x48xf32>
// CHECK: %[[B:.+]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<48xf32>) outs(%[[E]] : tensor<1x128x48xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[INIT:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2]] : tensor<1x128x48xf32> into tensor<128x48xf32>
// CHECK: %[[M:.+]] = linalg.matmul ins(%{{.+}}, %arg1 : tensor<128x64xf32>, tensor<64x48xf32>) outs(%[[INIT]] : tensor<128x48xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.+]] = tensor.expand_shape %[[M]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @dense_bias(%x: tensor<1x128x64xf32>, %w: tensor<64x48xf32>, %bias: tensor<48xf32>) -> tensor<1x128x48xf32> {
  %zero = arith.constant 0.0 : f32
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x128x64xf32> into tensor<128x64xf32>
  %e = tensor.empty() : tensor<128x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x48xf32>) -> tensor<128x48xf32>
  %m = linalg.matmul ins(%x2, %w : tensor<128x64xf32>, tensor<64x48xf32>) outs(%z : tensor<128x48xf32>) -> tensor<128x48xf32>
  %m3 = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 128, 48] : tensor<128x48xf32> into tensor<1x128x48xf32>
  %e2 = tensor.empty() : tensor<1x128x48xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m3, %bias : tensor<1x128x48xf32>, tensor<48xf32>) outs(%e2 : tensor<1x128x48xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x128x48xf32>
  return %y : tensor<1x128x48xf32>
}

// -----

// A bias and then a residual: the bias becomes the init, and the residual
// is added to it (bias + residual, then the products accumulate).
// CHECK-LABEL: func.func @bias_then_residual
// CHECK: %[[B:.+]] = linalg.generic {{.+}} ins(%arg2 : tensor<32xf32>)
// CHECK: %[[BR:.+]] = linalg.generic {{.+}} ins(%[[B]], %arg3 : tensor<16x32xf32>, tensor<16x32xf32>)
// CHECK: arith.addf
// CHECK: %[[M:.+]] = linalg.matmul {{.+}} outs(%[[BR]] : tensor<16x32xf32>)
// CHECK: return %[[M]]
func.func @bias_then_residual(%x: tensor<16x8xf32>, %w: tensor<8x32xf32>, %bias: tensor<32xf32>, %res: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<16x8xf32>, tensor<8x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<16x32xf32>, tensor<32xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %e3 = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%res, %y : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e3 : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Not folded: an addend computed after the matmul (from its own result's
// neighbour), a matmul result something else also reads, and a
// subtraction.
// CHECK-LABEL: func.func @not_folded
// CHECK: linalg.matmul {{.+}} outs(%{{.+}} : tensor<4x4xf32>)
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.subf
func.func @not_folded(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.matmul ins(%m, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %m2 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m2, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %y, %d, %m2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A residual connection after a convolution (MobileNetV2's projection,
// ResNet's block end): the convolution accumulates onto the residual.
// CHECK-LABEL: func.func @conv_residual
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.+}} outs(%arg2 : tensor<1x8x6x6xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[C]]
func.func @conv_residual(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %res: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) outs(%z : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %e2 = tensor.empty() : tensor<1x8x6x6xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%res, %c : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) outs(%e2 : tensor<1x8x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}
