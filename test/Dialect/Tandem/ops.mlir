// Round trip of every tandem op through the custom and the generic syntax.
// RUN: tandem-opt %s | tandem-opt | FileCheck %s
// RUN: tandem-opt %s --mlir-print-op-generic | tandem-opt | FileCheck %s

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<2xf32>, tensor<2x2xf32>, tensor<3xi64>) {
  // CHECK: tandem.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = tandem.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: tandem.constant dense_resource<weights> : tensor<2x2xf32>
  %1 = tandem.constant dense_resource<weights> : tensor<2x2xf32>
  // CHECK: tandem.constant dense<[1, 2, 3]> : tensor<3xi64>
  %2 = tandem.constant dense<[1, 2, 3]> : tensor<3xi64>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x2xf32>, tensor<3xi64>
}

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>,
                     %ids: tensor<6xi64>) {
  // CHECK: tandem.reshape %{{.*}} {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = tandem.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: tandem.transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %1 = tandem.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  // CHECK: tandem.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  %2 = tandem.concat %x, %y {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  // CHECK: tandem.slice %{{.*}} {limits = array<i64: 2, 3, 4>, starts = array<i64: 0, 1, 0>, steps = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %3 = tandem.slice %x {starts = array<i64: 0, 1, 0>, limits = array<i64: 2, 3, 4>, steps = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  // CHECK: tandem.pad %{{.*}} {pads_high = array<i64: 0, 0, 2>, pads_low = array<i64: 0, 1, 0>} : tensor<2x3x4xf32> -> tensor<2x4x6xf32>
  %4 = tandem.pad %x {pads_low = array<i64: 0, 1, 0>, pads_high = array<i64: 0, 0, 2>} : tensor<2x3x4xf32> -> tensor<2x4x6xf32>
  // CHECK: tandem.pad %{{.*}} {mode = #tandem.pad_mode<reflect>, pads_high = array<i64: 0, 0, 1>, pads_low = array<i64: 0, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x3x6xf32>
  %5 = tandem.pad %x {mode = #tandem.pad_mode<reflect>, pads_low = array<i64: 0, 0, 1>, pads_high = array<i64: 0, 0, 1>, value = 0.0 : f64} : tensor<2x3x4xf32> -> tensor<2x3x6xf32>
  // CHECK: tandem.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<6xi64>) -> tensor<2x6x4xf32>
  %6 = tandem.gather %x, %ids {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<6xi64>) -> tensor<2x6x4xf32>
  // CHECK: tandem.cast %{{.*}} {to = f16} : tensor<2x3x4xf32> -> tensor<2x3x4xf16>
  %7 = tandem.cast %x {to = f16} : tensor<2x3x4xf32> -> tensor<2x3x4xf16>
  // CHECK: tandem.cast %{{.*}} {to = i32} : tensor<6xi64> -> tensor<6xi32>
  %8 = tandem.cast %ids {to = i32} : tensor<6xi64> -> tensor<6xi32>
  // CHECK: tandem.broadcast_to %{{.*}} {shape = array<i64: 5, 2, 3, 4>} : tensor<2x3x4xf32> -> tensor<5x2x3x4xf32>
  %9 = tandem.broadcast_to %x {shape = array<i64: 5, 2, 3, 4>} : tensor<2x3x4xf32> -> tensor<5x2x3x4xf32>
  return
}

// CHECK-LABEL: func.func @compute
func.func @compute(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>,
                   %b: tensor<8xf32>, %a: tensor<2x16x32xf32>,
                   %m: tensor<32x8xf32>, %g: tensor<16x32xf32>,
                   %h: tensor<8x32xf32>, %c: tensor<8xf32>) {
  // CHECK: tandem.conv2d %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  // Without bias and with the default groups.
  // CHECK: tandem.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  %w2 = tandem.constant dense<0.5> : tensor<8x4x3x3xf32>
  %1 = tandem.conv2d %x, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: tandem.matmul %{{.*}}, %{{.*}} : (tensor<2x16x32xf32>, tensor<32x8xf32>) -> tensor<2x16x8xf32>
  %2 = tandem.matmul %a, %m : (tensor<2x16x32xf32>, tensor<32x8xf32>) -> tensor<2x16x8xf32>
  // i32 contractions (the importer's integer matmul and conv).
  // CHECK: tandem.matmul %{{.*}}, %{{.*}} : (tensor<16x32xi32>, tensor<32x8xi32>) -> tensor<16x8xi32>
  %gi = tandem.cast %g {to = i32} : tensor<16x32xf32> -> tensor<16x32xi32>
  %mi = tandem.cast %m {to = i32} : tensor<32x8xf32> -> tensor<32x8xi32>
  %mmi = tandem.matmul %gi, %mi : (tensor<16x32xi32>, tensor<32x8xi32>) -> tensor<16x8xi32>
  // CHECK: tandem.conv2d %{{.*}}, %{{.*}} {{.+}} : (tensor<1x4x8x8xi32>, tensor<8x2x3x3xi32>) -> tensor<1x8x4x4xi32>
  %xi = tandem.cast %x {to = i32} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi32>
  %wi = tandem.cast %w {to = i32} : tensor<8x2x3x3xf32> -> tensor<8x2x3x3xi32>
  %convi = tandem.conv2d %xi, %wi {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xi32>, tensor<8x2x3x3xi32>) -> tensor<1x8x4x4xi32>
  // CHECK: tandem.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32, trans_b = true} : (tensor<16x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<16x8xf32>
  %3 = tandem.gemm %g, %h, %c {trans_b = true, alpha = 0.5 : f32} : (tensor<16x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<16x8xf32>
  // CHECK: tandem.gemm %{{.*}}, %{{.*}} {trans_a = true} : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
  %4 = tandem.gemm %m, %m {trans_a = true} : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
  // CHECK: tandem.bias_add %{{.*}}, %{{.*}} : (tensor<1x8x4x4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %5 = tandem.bias_add %0, %b : (tensor<1x8x4x4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: tandem.bias_add %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<2x16x8xf32>, tensor<8xf32>) -> tensor<2x16x8xf32>
  %6 = tandem.bias_add %2, %b {axis = 2 : i64} : (tensor<2x16x8xf32>, tensor<8xf32>) -> tensor<2x16x8xf32>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<4xi32>) {
  // CHECK: tandem.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = tandem.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tandem.sub %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tandem.sub %y, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tandem.mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tandem.mul %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tandem.div %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tandem.div %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tandem.pow %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = tandem.pow %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tandem.max %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = tandem.max %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tandem.min %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = tandem.min %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tandem.cmp lt, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %7 = tandem.cmp lt, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: tandem.cmp eq, %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %8 = tandem.cmp eq, %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  // CHECK: tandem.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %9 = tandem.where %7, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<2x3xf32>, %h: tensor<4xf16>, %i: tensor<4xi64>) {
  // CHECK: tandem.relu %{{.*}} : tensor<2x3xf32>
  %0 = tandem.relu %x : tensor<2x3xf32>
  // CHECK: tandem.relu %{{.*}} : tensor<4xi64>
  %1 = tandem.relu %i : tensor<4xi64>
  // CHECK: tandem.clip %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
  %2 = tandem.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3xf32>
  // CHECK: tandem.clip %{{.*}} {max = 1.000000e+00 : f32} : tensor<2x3xf32>
  %3 = tandem.clip %x {max = 1.0 : f32} : tensor<2x3xf32>
  // CHECK: tandem.sigmoid %{{.*}} : tensor<4xf16>
  %4 = tandem.sigmoid %h : tensor<4xf16>
  // CHECK: tandem.tanh %{{.*}} : tensor<2x3xf32>
  %5 = tandem.tanh %x : tensor<2x3xf32>
  // CHECK: tandem.exp %{{.*}} : tensor<2x3xf32>
  %6 = tandem.exp %x : tensor<2x3xf32>
  // CHECK: tandem.log %{{.*}} : tensor<2x3xf32>
  %7 = tandem.log %x : tensor<2x3xf32>
  // CHECK: tandem.sqrt %{{.*}} : tensor<2x3xf32>
  %8 = tandem.sqrt %x : tensor<2x3xf32>
  // CHECK: tandem.rsqrt %{{.*}} : tensor<2x3xf32>
  %9 = tandem.rsqrt %x : tensor<2x3xf32>
  // CHECK: tandem.erf %{{.*}} : tensor<2x3xf32>
  %10 = tandem.erf %x : tensor<2x3xf32>
  // CHECK: tandem.gelu %{{.*}} : tensor<2x3xf32>
  %11 = tandem.gelu %x : tensor<2x3xf32>
  // CHECK: tandem.gelu %{{.*}} {approximate = #tandem.gelu_approximation<tanh>} : tensor<2x3xf32>
  %12 = tandem.gelu %x {approximate = #tandem.gelu_approximation<tanh>} : tensor<2x3xf32>
  // CHECK: tandem.neg %{{.*}} : tensor<4xi64>
  %13 = tandem.neg %i : tensor<4xi64>
  // CHECK: tandem.abs %{{.*}} : tensor<2x3xf32>
  %14 = tandem.abs %x : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @math_unary
func.func @math_unary(%x: tensor<2x3xf32>, %h: tensor<4xf16>) {
  // CHECK: tandem.sin %{{.*}} : tensor<2x3xf32>
  %0 = tandem.sin %x : tensor<2x3xf32>
  // CHECK: tandem.cos %{{.*}} : tensor<4xf16>
  %1 = tandem.cos %h : tensor<4xf16>
  // CHECK: tandem.tan %{{.*}} : tensor<2x3xf32>
  %2 = tandem.tan %x : tensor<2x3xf32>
  // CHECK: tandem.asin %{{.*}} : tensor<2x3xf32>
  %3 = tandem.asin %x : tensor<2x3xf32>
  // CHECK: tandem.acos %{{.*}} : tensor<2x3xf32>
  %4 = tandem.acos %x : tensor<2x3xf32>
  // CHECK: tandem.atan %{{.*}} : tensor<2x3xf32>
  %5 = tandem.atan %x : tensor<2x3xf32>
  // CHECK: tandem.sinh %{{.*}} : tensor<2x3xf32>
  %6 = tandem.sinh %x : tensor<2x3xf32>
  // CHECK: tandem.cosh %{{.*}} : tensor<2x3xf32>
  %7 = tandem.cosh %x : tensor<2x3xf32>
  // CHECK: tandem.asinh %{{.*}} : tensor<2x3xf32>
  %8 = tandem.asinh %x : tensor<2x3xf32>
  // CHECK: tandem.acosh %{{.*}} : tensor<2x3xf32>
  %9 = tandem.acosh %x : tensor<2x3xf32>
  // CHECK: tandem.atanh %{{.*}} : tensor<2x3xf32>
  %10 = tandem.atanh %x : tensor<2x3xf32>
  // CHECK: tandem.floor %{{.*}} : tensor<2x3xf32>
  %11 = tandem.floor %x : tensor<2x3xf32>
  // CHECK: tandem.ceil %{{.*}} : tensor<4xf16>
  %12 = tandem.ceil %h : tensor<4xf16>
  // CHECK: tandem.round %{{.*}} : tensor<2x3xf32>
  %13 = tandem.round %x : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @remainder_bitwise_shift
func.func @remainder_bitwise_shift(%x: tensor<2x3xf32>, %i: tensor<4xi32>,
                                   %l: tensor<i64>, %b: tensor<4xi1>) {
  // CHECK: tandem.mod %{{.*}}, %{{.*}} {fmod = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = tandem.mod %x, %x {fmod = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tandem.mod %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tandem.mod %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tandem.and %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = tandem.and %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tandem.or %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tandem.or %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tandem.xor %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %4 = tandem.xor %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tandem.shift_left %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %5 = tandem.shift_left %l, %l : (tensor<i64>, tensor<i64>) -> tensor<i64>
  // CHECK: tandem.shift_right %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %6 = tandem.shift_right %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @pool_and_norm
func.func @pool_and_norm(%x: tensor<1x8x9x9xf32>, %y: tensor<1x9x9x8xf32>,
                         %p: tensor<8xf32>,
                         %t: tensor<2x4x16xf32>, %s: tensor<16xf32>) {
  // CHECK: tandem.max_pool2d %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  %0 = tandem.max_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  // CHECK: tandem.max_pool2d %{{.*}} {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  %1 = tandem.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  // CHECK: tandem.max_pool2d %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x9x9x8xf32> -> tensor<1x5x5x8xf32>
  %nhwc = tandem.max_pool2d %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NHWC"} : tensor<1x9x9x8xf32> -> tensor<1x5x5x8xf32>
  // CHECK: tandem.avg_pool2d %{{.*}} {kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x9x9x8xf32> -> tensor<1x5x5x8xf32>
  %avg_nhwc = tandem.avg_pool2d %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : tensor<1x9x9x8xf32> -> tensor<1x5x5x8xf32>
  // CHECK: tandem.avg_pool2d %{{.*}} {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x9x9xf32> -> tensor<1x8x9x9xf32>
  %2 = tandem.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x8x9x9xf32> -> tensor<1x8x9x9xf32>
  // CHECK: tandem.avg_pool2d %{{.*}} {dilations = array<i64: 2, 3>, kernel_shape = array<i64: 3, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x9x9xf32> -> tensor<1x8x5x6xf32>
  %dil = tandem.avg_pool2d %x {kernel_shape = array<i64: 3, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 3>} : tensor<1x8x9x9xf32> -> tensor<1x8x5x6xf32>
  // CHECK: tandem.global_avg_pool %{{.*}} : tensor<1x8x9x9xf32> -> tensor<1x8x1x1xf32>
  %3 = tandem.global_avg_pool %x : tensor<1x8x9x9xf32> -> tensor<1x8x1x1xf32>
  // CHECK: tandem.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<1x8x9x9xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x9x9xf32>
  %4 = tandem.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<1x8x9x9xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x9x9xf32>
  // CHECK: tandem.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %5 = tandem.layer_norm %t, %s, %s {axis = 2 : i64} : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  // CHECK: tandem.layer_norm %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %6 = tandem.layer_norm %t, %s {axis = 2 : i64, epsilon = 1.0e-12 : f32} : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  // CHECK: tandem.softmax %{{.*}} {axis = 2 : i64} : tensor<2x4x16xf32> -> tensor<2x4x16xf32>
  %7 = tandem.softmax %t {axis = 2 : i64} : tensor<2x4x16xf32> -> tensor<2x4x16xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>) {
  // CHECK: tandem.reduce_sum %{{.*}} {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %0 = tandem.reduce_sum %x {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  // CHECK: tandem.reduce_mean %{{.*}} {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = tandem.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
  // CHECK: tandem.reduce_max %{{.*}} {axes = array<i64: 0>, keepdims = false} : tensor<5xi64> -> tensor<i64>
  %2 = tandem.reduce_max %i {axes = array<i64: 0>, keepdims = false} : tensor<5xi64> -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @fusion
func.func @fusion(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                  %b: tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  // CHECK: %{{.*}} = tandem.fusion output "conv1_relu"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x3x8x8xf32>, %{{.*}}: tensor<4x3x3x3xf32>, %{{.*}}: tensor<4xf32>):
  // CHECK: tandem.conv2d
  // CHECK: tandem.relu
  // CHECK: tandem.yield %{{.*}} : tensor<1x4x6x6xf32>
  %0 = tandem.fusion output "conv1_relu" (%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
    %1 = tandem.conv2d %a, %f, %c {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %2 = tandem.relu %1 : tensor<1x4x6x6xf32>
    tandem.yield %2 : tensor<1x4x6x6xf32>
  }
  // CHECK: tandem.fusion multi_output "exp_and_neg"({{.*}}) : (tensor<1x4x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>)
  // CHECK: tandem.yield %{{.*}}, %{{.*}} : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  %3:2 = tandem.fusion multi_output "exp_and_neg" (%0) : (tensor<1x4x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  ^bb0(%a: tensor<1x4x6x6xf32>):
    %4 = tandem.exp %a : tensor<1x4x6x6xf32>
    %5 = tandem.neg %4 : tensor<1x4x6x6xf32>
    tandem.yield %4, %5 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  }
  return %3#0, %3#1 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func @transfer
func.func @transfer(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[ON_GPU:.+]] = tandem.transfer %{{.*}} from "/device:CPU:0" to "/device:GPU:0" : tensor<4xf32>
  %0 = tandem.transfer %x from "/device:CPU:0" to "/device:GPU:0" : tensor<4xf32>
  // CHECK: %[[RELU:.+]] = tandem.relu %[[ON_GPU]] {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
  %1 = tandem.relu %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
  // CHECK: tandem.transfer %[[RELU]] from "/device:GPU:0" to "/device:CPU:0" : tensor<4xf32>
  %2 = tandem.transfer %1 from "/device:GPU:0" to "/device:CPU:0" : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// A batched transfer copies several values in one op.
// CHECK-LABEL: func.func @transfer_batched
func.func @transfer_batched(%x: tensor<4xf32>, %m: tensor<2x3xi1>) -> (tensor<4xf32>, tensor<2x3xi1>) {
  // CHECK: %[[B:.+]]:2 = tandem.transfer %{{.*}}, %{{.*}} from "/device:CPU:0" to "/device:GPU:1" : tensor<4xf32>, tensor<2x3xi1>
  %0:2 = tandem.transfer %x, %m from "/device:CPU:0" to "/device:GPU:1" : tensor<4xf32>, tensor<2x3xi1>
  return %0#0, %0#1 : tensor<4xf32>, tensor<2x3xi1>
}

// The index and scan ops round-trip with their attributes.
// CHECK-LABEL: func.func @index_ops
func.func @index_ops(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %m: tensor<2x8xi64>) -> (tensor<4xi64>, tensor<1x10xi64>, tensor<4x3xf32>, tensor<2x8xi64>, tensor<4x1xf32>, tensor<10xf32>) {
  // CHECK: tandem.arg_max %{{.+}} {axis = 1 : i64, keepdims = false} : tensor<4x10xf32> -> tensor<4xi64>
  %0 = tandem.arg_max %x {axis = 1 : i64, keepdims = false} : tensor<4x10xf32> -> tensor<4xi64>
  // CHECK: tandem.arg_min %{{.+}} {axis = 0 : i64, select_last_index = true} : tensor<4x10xf32> -> tensor<1x10xi64>
  %1 = tandem.arg_min %x {axis = 0 : i64, select_last_index = true} : tensor<4x10xf32> -> tensor<1x10xi64>
  // CHECK: tandem.gather_elements %{{.+}}, %{{.+}} {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  %2 = tandem.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  // CHECK: tandem.cumsum %{{.+}} {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x8xi64> -> tensor<2x8xi64>
  %3 = tandem.cumsum %m {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x8xi64> -> tensor<2x8xi64>
  // CHECK: tandem.reduce_min %{{.+}} {axes = array<i64: 1>} : tensor<4x10xf32> -> tensor<4x1xf32>
  %4 = tandem.reduce_min %x {axes = array<i64: 1>} : tensor<4x10xf32> -> tensor<4x1xf32>
  // CHECK: tandem.reduce_prod %{{.+}} {axes = array<i64: 0>, keepdims = false} : tensor<4x10xf32> -> tensor<10xf32>
  %5 = tandem.reduce_prod %x {axes = array<i64: 0>, keepdims = false} : tensor<4x10xf32> -> tensor<10xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<1x10xi64>, tensor<4x3xf32>, tensor<2x8xi64>, tensor<4x1xf32>, tensor<10xf32>
}

// gather_nd with batch dims.
// CHECK-LABEL: func.func @gather_nd
func.func @gather_nd(%x: tensor<2x5x4xf32>, %i: tensor<2x3x1xi64>) -> tensor<2x3x4xf32> {
  // CHECK: tandem.gather_nd %{{.+}}, %{{.+}} {batch_dims = 1 : i64} : (tensor<2x5x4xf32>, tensor<2x3x1xi64>) -> tensor<2x3x4xf32>
  %0 = tandem.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x5x4xf32>, tensor<2x3x1xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// top_k has two results, values and i64 indices.
// CHECK-LABEL: func.func @top_k
func.func @top_k(%x: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>) {
  // CHECK: %{{.+}}, %{{.+}} = tandem.top_k %{{.+}} {axis = 1 : i64, k = 3 : i64, largest = false} : tensor<4x10xf32> -> tensor<4x3xf32>, tensor<4x3xi64>
  %v, %i = tandem.top_k %x {axis = 1 : i64, k = 3 : i64, largest = false} : tensor<4x10xf32> -> tensor<4x3xf32>, tensor<4x3xi64>
  return %v, %i : tensor<4x3xf32>, tensor<4x3xi64>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
