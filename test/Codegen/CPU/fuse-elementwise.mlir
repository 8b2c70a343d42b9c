// RUN: tandem-opt -tandem-fuse-elementwise -split-input-file %s | FileCheck %s

// Two elementwise generics in a row become one...
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// ... but the im2col gather stays a separate kernel in front of the named
// matmul, which upstream linalg-fuse-elementwise-ops would fold into one
// 7-loop convolution generic.
// CHECK-LABEL: func.func @im2col_matmul
// CHECK: %[[P:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK: tensor.collapse_shape %[[P]]
// CHECK: linalg.matmul
func.func @im2col_matmul(%x: tensor<1x3x8x8xf32>, %w: tensor<4x27xf32>, %acc: tensor<4x36xf32>) -> tensor<4x36xf32> {
  %e = tensor.empty() : tensor<1x3x3x3x6x6xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x3x8x8xf32>) outs(%e : tensor<1x3x3x3x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x3x3x3x6x6xf32>
  %c = tensor.collapse_shape %p [[0, 1, 2, 3], [4, 5]] : tensor<1x3x3x3x6x6xf32> into tensor<27x36xf32>
  %r = linalg.matmul ins(%w, %c : tensor<4x27xf32>, tensor<27x36xf32>) outs(%acc : tensor<4x36xf32>) -> tensor<4x36xf32>
  return %r : tensor<4x36xf32>
}

// -----

// A convolution keeps its bias producer apart (the runtime's conv kernel
// accumulates onto the bias in place), and a ReLU that is the conv's only
// user folds into it as `tandem.epilogue = "relu"`, applied in registers.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK: %[[B:.+]] = linalg.generic
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.+}}tandem.epilogue = "relu"{{.+}} outs(%[[B]] :
// CHECK-NOT: arith.maximumf
// CHECK: return %[[C]]
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %bias: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<4xf32>) outs(%e : tensor<1x4x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%b : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x4x6x6xf32>) outs(%e : tensor<1x4x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

// A ReLU whose producer has another user stays a loop.
// CHECK-LABEL: func.func @relu_shared_input
// CHECK: linalg.matmul
// CHECK-NOT: tandem.epilogue
// CHECK: arith.maximumf
func.func @relu_shared_input(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %acc: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %m, %r : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// ReLU6 (a clip to [0, 6]) after a depthwise convolution folds into it as
// `tandem.epilogue = "relu6"`; a clip to other bounds does not.
// CHECK-LABEL: func.func @dwconv_relu6
// CHECK: %[[C:.+]] = linalg.depthwise_conv_2d_nchw_chw {{.+}}tandem.epilogue = "relu6"
// CHECK-NOT: arith.minimumf
// CHECK: return %[[C]]
func.func @dwconv_relu6(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3xf32>, %init: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x4x6x6xf32>) outs(%e : tensor<1x4x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    %m = arith.maximumf %a, %z : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_clip_other_bounds
// CHECK-NOT: tandem.epilogue
// CHECK: arith.minimumf
func.func @matmul_clip_other_bounds(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %acc: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %five = arith.constant 5.0 : f32
    %y = arith.maximumf %x, %z : f32
    %w = arith.minimumf %y, %five : f32
    linalg.yield %w : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A ReLU reached through the expand_shape back to [1, seq, dim] of a 2-D
// matmul folds into the matmul; so does one after a contraction that
// tandem-fold-into-contractions turned into a linalg.generic.
// CHECK-LABEL: func.func @relu_after_expand
// CHECK: linalg.matmul {tandem.epilogue = "relu"}
// CHECK: %[[R:.+]] = tensor.expand_shape
// CHECK-NOT: arith.maximumf
// CHECK: return %[[R]]
func.func @relu_after_expand(%a: tensor<128x64xf32>, %b: tensor<64x32xf32>, %acc: tensor<128x32xf32>) -> tensor<1x128x32xf32> {
  %zero = arith.constant 0.0 : f32
  %m = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x32xf32>) outs(%acc : tensor<128x32xf32>) -> tensor<128x32xf32>
  %m3 = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 128, 32] : tensor<128x32xf32> into tensor<1x128x32xf32>
  %e = tensor.empty() : tensor<1x128x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m3 : tensor<1x128x32xf32>) outs(%e : tensor<1x128x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x128x32xf32>
  return %r : tensor<1x128x32xf32>
}

// CHECK-LABEL: func.func @relu_after_generic_contraction
// CHECK: linalg.generic {{.+}}iterator_types = ["parallel", "parallel", "reduction"]{{.+}}tandem.epilogue = "relu"
// CHECK-NOT: arith.maximumf
func.func @relu_after_generic_contraction(%a: tensor<8x4xf32>, %bt: tensor<16x4xf32>, %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bt : tensor<8x4xf32>, tensor<16x4xf32>) outs(%acc : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// An NHWC squeeze-and-excitation scale: the hard-sigmoid of an
// N x C x 1 x 1 value, reshaped to N x 1 x 1 x C (a collapse and an expand
// that only move size-1 dimensions, which no single reshape makes), scales
// an NHWC tensor. The multiply reads the hard-sigmoid's result itself
// through a map with the unit dimensions at 0, and the hard-sigmoid fuses
// into it: one generic, no reshape left.
// CHECK: #[[SMAP:.+]] = affine_map<(d0, d1, d2, d3) -> ({{0|d0}}, d3, 0, 0)>
// CHECK-LABEL: func.func @unit_dim_reshape
// CHECK-SAME: (%[[S:.+]]: tensor<1x8x1x1xf32>, %[[X:.+]]: tensor<1x4x4x8xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {indexing_maps = [#[[SMAP]], #{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S]], %[[X]] : tensor<1x8x1x1xf32>, tensor<1x4x4x8xf32>)
// CHECK: arith.minimumf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// A collapse of N x 1 x C to N x C alone is one reshape, which upstream's
// propagation handles (here by expanding the multiply): every operand
// keeps an identity map.
// CHECK-LABEL: func.func @single_reshape
// CHECK: linalg.generic {indexing_maps = [#[[ID:.+]], #[[ID]], #[[ID]]]
// CHECK: tensor.collapse_shape
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bcast = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
func.func @unit_dim_reshape(%s: tensor<1x8x1x1xf32>, %x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %e = tensor.empty() : tensor<1x8x1x1xf32>
  %h = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x8x1x1xf32>) outs(%e : tensor<1x8x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %m = arith.maximumf %a, %z : f32
    %c = arith.minimumf %m, %one : f32
    linalg.yield %c : f32
  } -> tensor<1x8x1x1xf32>
  %flat = tensor.collapse_shape %h [[0, 1, 2, 3]] : tensor<1x8x1x1xf32> into tensor<8xf32>
  %nhwc = tensor.expand_shape %flat [[0, 1, 2, 3]] output_shape [1, 1, 1, 8] : tensor<8xf32> into tensor<1x1x1x8xf32>
  %ey = tensor.empty() : tensor<1x4x4x8xf32>
  %y = linalg.generic {indexing_maps = [#bcast, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%nhwc, %x : tensor<1x1x1x8xf32>, tensor<1x4x4x8xf32>) outs(%ey : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}
func.func @single_reshape(%s: tensor<2x1x8xf32>, %x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %flat = tensor.collapse_shape %s [[0, 1], [2]] : tensor<2x1x8xf32> into tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%flat, %x : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// A transpose as a generic (GPU partitions) fuses with the elementwise op
// after it (a query's transpose and its scale: one generic reading the
// input through the permutation), and two transposes compose; but it does
// not fuse into the epilogue of a contraction (the bias add after the
// matmul), which the library GEMM formation absorbs only with identity
// maps.
// CHECK-LABEL: func.func @transposes
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: %[[EPI:.+]] = linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[EPI]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @transposes(%x: tensor<4x8xf32>, %a: tensor<4x6xf32>, %b: tensor<6x8xf32>, %bias: tensor<8xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e48 = tensor.empty() : tensor<4x8xf32>
  %e84 = tensor.empty() : tensor<8x4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x6xf32>, tensor<6x8xf32>) outs(%fill : tensor<4x8xf32>) -> tensor<4x8xf32>
  %epi = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%m: f32, %c: f32, %o: f32):
    %s = arith.addf %m, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %t1 = linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%epi : tensor<4x8xf32>) outs(%e84 : tensor<8x4xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<8x4xf32>
  %t2 = linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e84 : tensor<8x4xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<8x4xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%t2 : tensor<8x4xf32>) outs(%e84 : tensor<8x4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %i, %two : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %t1, %s : tensor<8x4xf32>, tensor<8x4xf32>
}
