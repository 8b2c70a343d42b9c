// RUN: tandem-opt %s -tandem-assign-gpu-layout=layout=nhwc -split-input-file | FileCheck %s
// RUN: tandem-opt %s -tandem-assign-gpu-layout -split-input-file | FileCheck %s --check-prefix=NCHW
// RUN: not tandem-opt %s -tandem-assign-gpu-layout=layout=nchwc -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// A conv, its residual add and ReLU, a second conv: one transpose in, the
// filters transposed at compile time (OIHW -> OHWI), the add's skip input
// reads the transpose the first conv already needs, one transpose out.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %[[X:.*]]: tensor<1x2x4x4xf32>
// CHECK: %[[T:.*]] = tandem.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x4x4xf32> -> tensor<1x4x4x2xf32>
// CHECK: %[[W1:.*]] = tandem.constant {{.*}}dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]], {{\[\[\[}}5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]]]> : tensor<2x1x2x2xf32>
// CHECK: %[[C1:.*]] = tandem.conv2d %[[T]], %[[W1]] {dilations = array<i64: 1, 1>, layout = "NHWC", pads = array<i64: 0, 0, 0, 1>
// CHECK-SAME: -> tensor<1x4x4x2xf32>
// CHECK: %[[ADD:.*]] = tandem.add %[[C1]], %[[T]] {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
// CHECK: %[[R:.*]] = tandem.relu %[[ADD]] {{.*}} : tensor<1x4x4x2xf32>
// CHECK: %[[W2:.*]] = tandem.constant {{.*}} : tensor<3x1x1x2xf32>
// CHECK: %[[C2:.*]] = tandem.conv2d %[[R]], %[[W2]] {dilations = array<i64: 1, 1>, layout = "NHWC"
// CHECK-SAME: -> tensor<1x4x4x3xf32>
// CHECK: %[[B:.*]] = tandem.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x4x4x3xf32> -> tensor<1x3x4x4xf32>
// CHECK-NOT: tandem.transpose
// CHECK: return %[[B]]
// NCHW-LABEL: func.func @chain
// NCHW-NOT: tandem.transpose
// NCHW-NOT: layout
// BAD: layout must be nchw or nhwc, got 'nchwc'
func.func @chain(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w1 = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[5.0, 6.0]], [[7.0, 8.0]]]]> : tensor<2x2x1x2xf32>
  %w2 = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<0.5> : tensor<3x2x1x1xf32>
  %0 = tandem.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 1>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x4x4xf32>
  %1 = tandem.add %0, %x {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = tandem.relu %1 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x4x4xf32>
  %3 = tandem.conv2d %2, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %3 : tensor<1x3x4x4xf32>
}

// -----

// A depthwise conv becomes NHWC too (its OIHW filter C x 1 x KH x KW is
// then C x KH x KW x 1); a CPU conv is never touched.
// CHECK-LABEL: func.func @regions
// CHECK: %[[TX:.*]] = tandem.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>
// CHECK: tandem.conv2d %[[TX]], %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, layout = "NHWC"
// CHECK-SAME: (tensor<1x4x4x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x4x4x2xf32>
// CHECK: tandem.relu {{.*}} : tensor<1x4x4x2xf32>
// CHECK: tandem.conv2d %arg1, %{{.*}} {dilations = array<i64: 1, 1>, pads = {{.*}}"/device:CPU:0"
// CHECK: %[[T:.*]] = tandem.transpose %arg1 {perm = array<i64: 0, 2, 3, 1>
// CHECK: tandem.conv2d %[[T]], %{{.*}} {dilations = array<i64: 1, 1>, layout = "NHWC"
func.func @regions(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %dw = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x1x1x1xf32>
  %w = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %wc = tandem.constant {tandem.device = #tandem.device<"/device:CPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %0 = tandem.conv2d %x, %dw {groups = 2 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tandem.relu %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x4x4xf32>
  %2 = tandem.conv2d %y, %wc {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:CPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %3 = tandem.conv2d %y, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %1, %2, %3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Two convs reading one value (a ResNet block's first conv and its
// downsample) share one transpose of it.
// CHECK-LABEL: func.func @shared_input
// CHECK-COUNT-1: tandem.transpose %arg0
// CHECK-NOT: tandem.transpose %arg0
func.func @shared_input(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %v = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<2.0> : tensor<2x2x1x1xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tandem.conv2d %x, %v {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A hard-swish reads the conv's result twice (x * clip(x / 6 + 1/2)): the
// shared transpose is split and both halves sink; the global average pool
// becomes a mean over the NHWC value's H and W, whose N x 1 x 1 x C result
// is the N x C x 1 x 1 one reshaped. A 1x1 conv over that 1 x 1 map (a
// squeeze-and-excitation's) stays NCHW. One transpose is left: the input.
// CHECK-LABEL: func.func @hardswish_pool
// CHECK: tandem.transpose %arg0
// CHECK-NOT: tandem.transpose
// CHECK: %[[C:.*]] = tandem.conv2d {{.*}}layout = "NHWC"
// CHECK: %[[M:.*]] = tandem.mul %[[C]], %{{.*}} : (tensor<1x4x4x2xf32>, tensor<f32>)
// CHECK: tandem.mul %[[C]], %{{.*}} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>)
// CHECK: %[[MEAN:.*]] = tandem.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, {{.*}}} : tensor<1x4x4x2xf32> -> tensor<1x1x1x2xf32>
// CHECK: %[[R:.*]] = tandem.reshape %[[MEAN]] {{.*}} : tensor<1x1x1x2xf32> -> tensor<1x2x1x1xf32>
// CHECK: tandem.conv2d %[[R]], %{{.*}} {dilations = array<i64: 1, 1>, pads
// CHECK-NOT: tandem.transpose
func.func @hardswish_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x1x1xf32> {
  %w = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %fc = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<3x2x1x1xf32>
  %sixth = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<0.166666672> : tensor<f32>
  %half = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<0.5> : tensor<f32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tandem.mul %0, %sixth {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %2 = tandem.add %1, %half {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %3 = tandem.clip %2 {min = 0.0 : f32, max = 1.0 : f32, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x4x4xf32>
  %4 = tandem.mul %0, %3 {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %5 = tandem.global_avg_pool %4 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x4x4xf32> -> tensor<1x2x1x1xf32>
  %6 = tandem.conv2d %5, %fc {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x1x1xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x1x1xf32>
  return %6 : tensor<1x3x1x1xf32>
}

// -----

// A ResNet stem: conv, ReLU, max pool, conv. The transpose back to NCHW
// sinks through the ReLU and the pool (which becomes NHWC) and cancels
// against the next conv's: one transpose in, one out. A CPU pool and a
// pool whose input is no transpose stay NCHW.
// CHECK-LABEL: func.func @stem
// CHECK: %[[T:.*]] = tandem.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>
// CHECK-NOT: tandem.transpose
// CHECK: %[[C1:.*]] = tandem.conv2d %[[T]], {{.*}} layout = "NHWC"
// CHECK-NOT: tandem.transpose
// CHECK: %[[R:.*]] = tandem.relu %[[C1]] {{.*}} : tensor<1x8x8x2xf32>
// CHECK: %[[P:.*]] = tandem.max_pool2d %[[R]] {{{.*}}layout = "NHWC"{{.*}}} : tensor<1x8x8x2xf32> -> tensor<1x4x4x2xf32>
// CHECK-NOT: tandem.transpose
// CHECK: %[[C2:.*]] = tandem.conv2d %[[P]], {{.*}} layout = "NHWC"
// CHECK: tandem.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>
// CHECK: tandem.max_pool2d %arg1 {{{.*}}"/device:CPU:0"{{.*}}} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
// CHECK: tandem.max_pool2d %arg1 {{{.*}}"/device:GPU:0"{{.*}}} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
// CHECK-NOT: tandem.transpose
// CHECK: return
// NCHW-LABEL: func.func @stem
// NCHW-NOT: layout
func.func @stem(%x: tensor<1x2x8x8xf32>, %y: tensor<1x2x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w1 = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %w2 = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<0.5> : tensor<3x2x3x3xf32>
  %0 = tandem.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x8x8xf32>
  %1 = tandem.relu %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x8x8xf32>
  %2 = tandem.max_pool2d %1 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  %3 = tandem.conv2d %2, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  %4 = tandem.max_pool2d %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:CPU:0">} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  %5 = tandem.max_pool2d %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return %3, %4, %5 : tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A DenseNet-style transition: conv, average pool, conv. The pool becomes
// NHWC and the transposes around it cancel: one transpose in, one out.
// CHECK-LABEL: func.func @transition
// CHECK: %[[T:.*]] = tandem.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>
// CHECK-NOT: tandem.transpose
// CHECK: %[[C1:.*]] = tandem.conv2d %[[T]], {{.*}} layout = "NHWC"
// CHECK-NOT: tandem.transpose
// CHECK: %[[P:.*]] = tandem.avg_pool2d %[[C1]] {{{.*}}layout = "NHWC"{{.*}}} : tensor<1x8x8x2xf32> -> tensor<1x4x4x2xf32>
// CHECK-NOT: tandem.transpose
// CHECK: %[[C2:.*]] = tandem.conv2d %[[P]], {{.*}} layout = "NHWC"
// CHECK: tandem.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>
// NCHW-LABEL: func.func @transition
// NCHW-NOT: layout
func.func @transition(%x: tensor<1x2x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %w1 = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %w2 = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<0.5> : tensor<3x2x3x3xf32>
  %0 = tandem.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x8x8xf32>
  %1 = tandem.avg_pool2d %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  %2 = tandem.conv2d %1, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  return %2 : tensor<1x3x4x4xf32>
}

// -----

// DenseNet: two convs' outputs concatenated along the channels, then
// BatchNorm (folded into no conv), ReLU and a conv; a second concat reads
// the first conv's output again. Both concats join the NHWC values along
// axis 3, the BatchNorm normalises channels last (axis 3, its [C]
// parameters as they were), and no transpose is left between the convs:
// the one the first conv's output had for the two concats goes once both
// have sunk.
// A [C, 1, 1] broadcast (rank 3 under rank 4) reaches the NHWC add as a
// reshape to [1, 1, 1, C].
// CHECK-LABEL: func.func @dense
// CHECK: %[[T:.*]] = tandem.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>
// CHECK: %[[A:.*]] = tandem.conv2d %[[T]], {{.*}} -> tensor<1x4x4x2xf32>
// CHECK: %[[B:.*]] = tandem.conv2d %[[T]], {{.*}} -> tensor<1x4x4x3xf32>
// CHECK-NOT: tandem.transpose
// CHECK: %[[CAT:.*]] = tandem.concat %[[A]], %[[B]] {axis = 3 : i64, {{.*}}} : (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x5xf32>
// CHECK-NOT: tandem.transpose
// CHECK: %[[BN:.*]] = tandem.batch_norm %[[CAT]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axis = 3 : i64, {{.*}}} : (tensor<1x4x4x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<1x4x4x5xf32>
// CHECK: %[[SHIFT:.*]] = tandem.reshape %{{.*}} : tensor<5x1x1xf32> -> tensor<1x1x1x5xf32>
// CHECK: %[[ADD:.*]] = tandem.add %[[BN]], %[[SHIFT]] {{.*}} -> tensor<1x4x4x5xf32>
// CHECK: %[[R:.*]] = tandem.relu %[[ADD]]
// CHECK: %[[C:.*]] = tandem.conv2d %[[R]], {{.*}} -> tensor<1x4x4x2xf32>
// CHECK-NOT: tandem.transpose
// CHECK: %[[CAT2:.*]] = tandem.concat %[[A]], %[[C]] {axis = 3 : i64, {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: %[[OUT:.*]] = tandem.transpose %[[CAT2]] {perm = array<i64: 0, 3, 1, 2>
// CHECK-NOT: tandem.transpose
// CHECK: return %[[OUT]]
func.func @dense(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %wa = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %wb = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<0.5> : tensor<3x2x1x1xf32>
  %wc = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<0.25> : tensor<2x5x1x1xf32>
  %s = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<2.0> : tensor<5xf32>
  %h = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]]]> : tensor<5x1x1xf32>
  %a = tandem.conv2d %x, %wa {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = tandem.conv2d %x, %wb {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %cat = tandem.concat %a, %b {axis = 1 : i64, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
  %bn = tandem.batch_norm %cat, %s, %s, %s, %s {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x5x4x4xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<1x5x4x4xf32>
  %add = tandem.add %bn, %h {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x5x4x4xf32>, tensor<5x1x1xf32>) -> tensor<1x5x4x4xf32>
  %r = tandem.relu %add {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x5x4x4xf32>
  %c = tandem.conv2d %r, %wc {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x5x4x4xf32>, tensor<2x5x1x1xf32>) -> tensor<1x2x4x4xf32>
  %cat2 = tandem.concat %a, %c {axis = 1 : i64, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %cat2 : tensor<1x4x4x4xf32>
}

// -----

// timm's squeeze-and-excitation: the pool is a mean over H and W
// (reduce_mean, keepdims) and the scale multiplies the conv's output. The
// transpose back that both read is split, the mean reads the NHWC value
// over axes 1 and 2 and reaches N x C x 1 x 1 by a reshape, the multiply
// sinks, and the next conv reads the NHWC product: no transpose between
// the convs. A sum without keepdims over H keeps (N, W, C) in NHWC and
// transposes them back to (N, C, W).
// CHECK-LABEL: func.func @timm_se
// CHECK: %[[C:.*]] = tandem.conv2d {{.*}} -> tensor<1x4x4x2xf32>
// CHECK-NOT: tandem.transpose
// CHECK: %[[M:.*]] = tandem.reduce_mean %[[C]] {axes = array<i64: 1, 2>, {{.*}} : tensor<1x4x4x2xf32> -> tensor<1x1x1x2xf32>
// CHECK: tandem.reshape %[[M]] {{.*}} -> tensor<1x2x1x1xf32>
// CHECK-NOT: tandem.transpose
// CHECK: %[[P:.*]] = tandem.mul %[[C]], %{{.*}} -> tensor<1x4x4x2xf32>
// CHECK: tandem.conv2d %[[P]]
// CHECK: %[[S:.*]] = tandem.reduce_sum %[[C]] {axes = array<i64: 1>, keepdims = false, {{.*}} : tensor<1x4x4x2xf32> -> tensor<1x4x2xf32>
// CHECK: tandem.transpose %[[S]] {perm = array<i64: 0, 2, 1>, {{.*}} -> tensor<1x2x4xf32>
func.func @timm_se(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4xf32>) {
  %w = tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">} dense<1.0> : tensor<2x2x1x1xf32>
  %c = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = tandem.reduce_mean %c {axes = array<i64: 2, 3>, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x4x4xf32> -> tensor<1x2x1x1xf32>
  %g = tandem.sigmoid %m {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x1x1xf32>
  %p = tandem.mul %c, %g {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = tandem.conv2d %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = tandem.reduce_sum %c {axes = array<i64: 2>, keepdims = false, tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
  return %y, %s : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>
}
