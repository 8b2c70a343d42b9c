// RUN: tandem-opt %s -split-input-file -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic" | FileCheck %s
// RUN: tandem-opt %s -split-input-file -tandem-place="targets=cpu cpu-model=generic" | FileCheck %s --check-prefix=HOST

// A heavy convolution and its epilogue run on the GPU; the weight follows it.
// CHECK-LABEL: func.func @heavy_conv
// CHECK: tandem.constant {tandem.device = #tandem.device<"/device:GPU:0">}
// CHECK: tandem.conv2d {{.*}}tandem.device = #tandem.device<"/device:GPU:0">
// CHECK: tandem.relu {{.*}}{tandem.device = #tandem.device<"/device:GPU:0">}
// HOST-LABEL: func.func @heavy_conv
// HOST-NOT: GPU
func.func @heavy_conv(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x54x54xf32> {
  %w = tandem.constant dense<0.5> : tensor<64x64x3x3xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x54x54xf32>
  %1 = tandem.relu %0 : tensor<1x64x54x54xf32>
  return %1 : tensor<1x64x54x54xf32>
}

// -----

// A tiny graph stays on the host: a launch and two copies cost more than the
// compute the GPU would save.
// CHECK-LABEL: func.func @tiny
// CHECK: tandem.relu {{.*}}{tandem.device = #tandem.device<"/device:CPU:0">}
// CHECK: tandem.exp {{.*}}{tandem.device = #tandem.device<"/device:CPU:0">}
func.func @tiny(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.relu %x : tensor<4xf32>
  %1 = tandem.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A large matmul goes to the GPU, and the bias add after it, which fusion
// folds into the matmul's kernel, goes with it.
// CHECK-LABEL: func.func @matmul_bias
// CHECK: tandem.matmul {{.*}}tandem.device = #tandem.device<"/device:GPU:0">
// CHECK: tandem.bias_add {{.*}}tandem.device = #tandem.device<"/device:GPU:0">
func.func @matmul_bias(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %w = tandem.constant dense<0.5> : tensor<1024x1024xf32>
  %b = tandem.constant dense<0.5> : tensor<1024xf32>
  %0 = tandem.matmul %x, %w : (tensor<256x1024xf32>, tensor<1024x1024xf32>) -> tensor<256x1024xf32>
  %1 = tandem.bias_add %0, %b {axis = 1 : i64} : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  return %1 : tensor<256x1024xf32>
}
