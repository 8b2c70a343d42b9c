// RUN: tandem-opt -tandem-fuse-elementwise=silu=true -split-input-file %s | FileCheck %s
// RUN: tandem-opt -tandem-fuse-elementwise -split-input-file %s | FileCheck %s --check-prefix=OFF

// SiLU as torch exports nn.SiLU, Mul(x, Sigmoid(x)): a sigmoid generic
// (1 / (1 + exp(-x)), as the importer lowers Sigmoid) and a multiply,
// one generic once elementwise fusion made them one, after a 1x1 conv with
// a bias: with silu=true the conv gets `tandem.epilogue = "silu"` and no
// loop is left; by default (the GPU pipeline) the loop stays.
// CHECK-LABEL: func.func @conv_silu
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.+}}tandem.epilogue = "silu"
// CHECK-NOT: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return %[[C]]
// OFF-LABEL: func.func @conv_silu
// OFF-NOT: tandem.epilogue
// OFF: math.exp
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_silu(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %bias: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) outs(%bias : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %one, %x1 : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x16x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %s : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %p = arith.mulf %a, %g : f32
    linalg.yield %p : f32
  } -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

// -----

// One generic with the multiply and the add the other way round, after a
// depthwise conv: folded too.
// CHECK-LABEL: func.func @dwconv_silu_commuted
// CHECK: %[[C:.+]] = linalg.depthwise_conv_2d_nchw_chw {{.+}}tandem.epilogue = "silu"
// CHECK: return %[[C]]
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @dwconv_silu_commuted(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3xf32>, %init: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x4x6x6xf32>) outs(%e : tensor<1x4x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %r = arith.divf %one, %d : f32
    %p = arith.mulf %r, %a : f32
    linalg.yield %p : f32
  } -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// Not SiLU, left a loop: the gate of another value (x * sigmoid(y)), a
// sigmoid of 2x (Swish with beta 2), and 1 / (2 + exp(-x)).
// CHECK-LABEL: func.func @not_silu
// CHECK-NOT: tandem.epilogue
// CHECK-COUNT-3: math.exp
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_silu(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c0: tensor<4x4xf32>, %other: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %m1 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m3 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %y1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%m1, %other : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %y : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %one, %x1 : f32
    %r = arith.divf %one, %d : f32
    %p = arith.mulf %x, %r : f32
    linalg.yield %p : f32
  } -> tensor<4x4xf32>
  %y2 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %x2 = arith.mulf %x, %two : f32
    %n = arith.negf %x2 : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %one, %x1 : f32
    %r = arith.divf %one, %d : f32
    %p = arith.mulf %x, %r : f32
    linalg.yield %p : f32
  } -> tensor<4x4xf32>
  %y3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%m3 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %n = arith.negf %x : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %two, %x1 : f32
    %r = arith.divf %one, %d : f32
    %p = arith.mulf %x, %r : f32
    linalg.yield %p : f32
  } -> tensor<4x4xf32>
  return %y1, %y2, %y3 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
