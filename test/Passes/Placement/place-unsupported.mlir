// RUN: tandem-opt %s -split-input-file -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic report=-" | FileCheck %s

// Integer shape data stays on the host even in the middle of GPU work.
// CHECK-LABEL: placement of @int_data
// CHECK: add#0 {{.*}}/device:CPU:0   unsupported on GPU  {{.*}}it computes integer (shape) data
// CHECK-LABEL: func.func @int_data
// CHECK: tandem.add {{.*}}#tandem.device<"/device:CPU:0">
func.func @int_data(%x: tensor<1024x1024xi64>) -> tensor<1024x1024xi64> {
  %0 = tandem.add %x, %x : (tensor<1024x1024xi64>, tensor<1024x1024xi64>) -> tensor<1024x1024xi64>
  return %0 : tensor<1024x1024xi64>
}

// -----

// An i32 matmul (MatMulInteger's) has no GPU kernel; the float
// requantisation after it may go to the GPU.
// CHECK-LABEL: placement of @int_matmul
// CHECK: matmul#0 {{.*}}/device:CPU:0   unsupported on GPU  {{.*}}integer matmuls and convolutions have no GPU kernel
// CHECK-LABEL: func.func @int_matmul
// CHECK: tandem.matmul {{.*}}#tandem.device<"/device:CPU:0">
func.func @int_matmul(%a: tensor<512x512xi32>, %b: tensor<512x512xi32>) -> tensor<512x512xi32> {
  %0 = tandem.matmul %a, %b : (tensor<512x512xi32>, tensor<512x512xi32>) -> tensor<512x512xi32>
  return %0 : tensor<512x512xi32>
}

// -----

// Reflect padding has no GPU kernel: the pad runs on the host, between the
// GPU ops around it.
// CHECK-LABEL: placement of @reflect_pad
// CHECK: pad#2 {{.*}}/device:CPU:0   unsupported on GPU  {{.*}}only constant padding has a GPU kernel
// CHECK-LABEL: func.func @reflect_pad
// CHECK: tandem.conv2d {{.*}}#tandem.device<"/device:GPU:0">
// CHECK: tandem.pad {{.*}}#tandem.device<"/device:CPU:0">
// CHECK: tandem.conv2d {{.*}}#tandem.device<"/device:GPU:0">
func.func @reflect_pad(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x54x54xf32> {
  %w = tandem.constant dense<0.5> : tensor<64x64x3x3xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x54x54xf32>
  %1 = tandem.pad %0 {pads_low = array<i64: 0, 0, 1, 1>, pads_high = array<i64: 0, 0, 1, 1>, mode = #tandem.pad_mode<reflect>} : tensor<1x64x54x54xf32> -> tensor<1x64x56x56xf32>
  %2 = tandem.conv2d %1, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x54x54xf32>
  return %2 : tensor<1x64x54x54xf32>
}
