// RUN: tandem-opt -tandem-fuse-elementwise=hardswish=true -split-input-file %s | FileCheck %s
// RUN: tandem-opt -tandem-fuse-elementwise -split-input-file %s | FileCheck %s --check-prefix=OFF

// ONNX HardSwish as the importer writes it (x * (1/6), + 0.5, a clip to
// [0, 1], times x: four generics until elementwise fusion makes them one)
// after a 1x1 conv with a bias: with hardswish=true the conv gets
// `tandem.epilogue = "hardswish"` and no loop is left; by default (the GPU
// pipeline: cuDNN has no such activation) the loop stays.
// CHECK-LABEL: func.func @conv_hardswish
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.+}}tandem.epilogue = "hardswish"
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.minimumf
// CHECK: return %[[C]]
// OFF-LABEL: func.func @conv_hardswish
// OFF-NOT: tandem.epilogue
// OFF: arith.minimumf
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_hardswish(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %bias: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) outs(%bias : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sixth = arith.constant 0.166666672 : f32
    %m = arith.mulf %a, %sixth : f32
    linalg.yield %m : f32
  } -> tensor<1x16x4x4xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled : tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %s = arith.addf %a, %half : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x4xf32>
  %gate = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%shifted : tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %lo = arith.maximumf %a, %zero : f32
    %hi = arith.minimumf %lo, %one : f32
    linalg.yield %hi : f32
  } -> tensor<1x16x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %gate : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %p = arith.mulf %a, %g : f32
    linalg.yield %p : f32
  } -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

// -----

// The same written as one generic with each op's operands the other way
// round after a depthwise conv: folded too.
// CHECK-LABEL: func.func @dwconv_hardswish_commuted
// CHECK: %[[C:.+]] = linalg.depthwise_conv_2d_nchw_chw {{.+}}tandem.epilogue = "hardswish"
// CHECK: return %[[C]]
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @dwconv_hardswish_commuted(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3xf32>, %init: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x4x6x6xf32>) outs(%e : tensor<1x4x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sixth = arith.constant 0.166666672 : f32
    %half = arith.constant 0.5 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %m = arith.mulf %sixth, %a : f32
    %s = arith.addf %half, %m : f32
    %lo = arith.maximumf %zero, %s : f32
    %hi = arith.minimumf %one, %lo : f32
    %p = arith.mulf %hi, %a : f32
    linalg.yield %p : f32
  } -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// Not HardSwish: HardSigmoid's default alpha (0.2) times x, and a gate of
// another value than the input: both stay loops.
// CHECK-LABEL: func.func @not_hardswish
// CHECK-NOT: tandem.epilogue
// CHECK: arith.minimumf
// CHECK: arith.minimumf
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_hardswish(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %acc: tensor<4x4xf32>, %z: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %alpha = arith.constant 0.2 : f32
    %half = arith.constant 0.5 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.mulf %x, %alpha : f32
    %s = arith.addf %t, %half : f32
    %lo = arith.maximumf %s, %zero : f32
    %hi = arith.minimumf %lo, %one : f32
    %p = arith.mulf %x, %hi : f32
    linalg.yield %p : f32
  } -> tensor<4x4xf32>
  %y2 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %sixth = arith.constant 0.166666672 : f32
    %half = arith.constant 0.5 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.mulf %x, %sixth : f32
    %s = arith.addf %t, %half : f32
    %lo = arith.maximumf %s, %zero : f32
    %hi = arith.minimumf %lo, %one : f32
    %p = arith.mulf %hi, %hi : f32
    linalg.yield %p : f32
  } -> tensor<4x4xf32>
  return %y, %y2 : tensor<4x4xf32>, tensor<4x4xf32>
}
