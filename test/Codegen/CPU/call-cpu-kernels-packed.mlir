// RUN: tandem-opt -tandem-call-cpu-kernels=implicit-pads-only=true -split-input-file %s | FileCheck %s
// RUN: tandem-opt -tandem-call-cpu-kernels=implicit-pads-only=true -tandem-plan-memory -tandem-call-cpu-kernels -split-input-file %s | FileCheck %s --check-prefix=PLAN
// RUN: tandem-opt -tandem-call-cpu-kernels="implicit-pads-only=true pack-depthwise-outputs=false" -split-input-file %s | FileCheck %s --check-prefix=OFF

// A depthwise conv (implicitly padded) whose output only a 1x1 conv of
// stride 1 reads writes it in the GEMM's packed panel layout: its output
// buffer becomes a flat alloc of TANDEM_PACKED_PANEL_FLOATS per image
// (2 images x 3 channels x 36 pixels, rounded up to 64: 384 floats, not
// the 216 of NCHW), the 1x1 conv reads an NCHW reinterpretation of it and
// is marked; after planning the arena holds the 384 floats and the conv
// becomes tandem_conv2d_packed_f32 with a null bias. With
// pack-depthwise-outputs=false the output stays NCHW.
// CHECK-LABEL: func.func @dw_then_pointwise
// CHECK: %[[FLAT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<384xf32>
// CHECK: %[[NCHW:.+]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [2, 3, 6, 6], strides: [108, 36, 6, 1] : memref<384xf32> to memref<2x3x6x6xf32>
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<2x3x6x6xf32>
// CHECK: call @tandem_dwconv2d_pad_packed_f32(
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-SAME: tandem.packed_input
// CHECK-SAME: ins(%[[NCHW]],
// PLAN-LABEL: func.func @dw_then_pointwise
// PLAN: memref.view {{.*}} to memref<384xf32>
// PLAN: call @tandem_dwconv2d_pad_packed_f32(
// PLAN: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// PLAN: call @tandem_conv2d_packed_f32({{.*}}, %[[NULL]], {{.*}}) :
// PLAN-NOT: tandem.packed_input
// OFF-LABEL: func.func @dw_then_pointwise
// OFF: call @tandem_dwconv2d_pad_f32(
// OFF-NOT: tandem.packed_input
memref.global "private" constant @dw : memref<3x3x3xf32> = dense<1.0>
memref.global "private" constant @pw : memref<4x3x1x1xf32> = dense<0.5>
func.func @dw_then_pointwise(%x: memref<2x3x6x6xf32>, %y: memref<2x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @dw : memref<3x3x3xf32>
  %p = memref.get_global @pw : memref<4x3x1x1xf32>
  %src = memref.alloc() {alignment = 64 : i64} : memref<2x3x6x6xf32>
  memref.copy %x, %src : memref<2x3x6x6xf32> to memref<2x3x6x6xf32>
  %pad = memref.alloc() {alignment = 64 : i64} : memref<2x3x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<2x3x8x8xf32>)
  %in = memref.subview %pad[0, 0, 1, 1] [2, 3, 6, 6] [1, 1, 1, 1] : memref<2x3x8x8xf32> to memref<2x3x6x6xf32, strided<[192, 64, 8, 1], offset: 9>>
  memref.copy %src, %in : memref<2x3x6x6xf32> to memref<2x3x6x6xf32, strided<[192, 64, 8, 1], offset: 9>>
  %mid = memref.alloc() {alignment = 64 : i64} : memref<2x3x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<2x3x6x6xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<2x3x8x8xf32>, memref<3x3x3xf32>) outs(%mid : memref<2x3x6x6xf32>)
  %out = memref.alloc() {alignment = 64 : i64} : memref<2x4x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<2x4x6x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%mid, %p : memref<2x3x6x6xf32>, memref<4x3x1x1xf32>) outs(%out : memref<2x4x6x6xf32>)
  memref.copy %out, %y : memref<2x4x6x6xf32> to memref<2x4x6x6xf32>
  return
}

// -----

// The depthwise output has another reader (copied out as well), the
// pointwise conv has stride 2, or the consumer is a 3x3 conv: the output
// stays NCHW and nothing is marked.
// CHECK-LABEL: func.func @not_packed
// CHECK-NOT: tandem_dwconv2d_pad_packed_f32
// CHECK-NOT: tandem.packed_input
// CHECK: return
memref.global "private" constant @dw2 : memref<3x3x3xf32> = dense<1.0>
memref.global "private" constant @pw2 : memref<4x3x1x1xf32> = dense<0.5>
memref.global "private" constant @k3 : memref<4x3x3x3xf32> = dense<0.5>
func.func @not_packed(%x: memref<1x3x8x8xf32>, %y: memref<1x4x8x8xf32>, %z: memref<1x3x8x8xf32>, %s: memref<1x4x4x4xf32>, %t: memref<1x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @dw2 : memref<3x3x3xf32>
  %p = memref.get_global @pw2 : memref<4x3x1x1xf32>
  %k = memref.get_global @k3 : memref<4x3x3x3xf32>
  %src = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  memref.copy %x, %src : memref<1x3x8x8xf32> to memref<1x3x8x8xf32>
  // Read twice.
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x3x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x10x10xf32>)
  %in = memref.subview %pad[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<1x3x8x8xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x10xf32>, memref<3x3x3xf32>) outs(%mid : memref<1x3x8x8xf32>)
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%mid, %p : memref<1x3x8x8xf32>, memref<4x3x1x1xf32>) outs(%out : memref<1x4x8x8xf32>)
  memref.copy %out, %y : memref<1x4x8x8xf32> to memref<1x4x8x8xf32>
  memref.copy %mid, %z : memref<1x3x8x8xf32> to memref<1x3x8x8xf32>
  // A 1x1 conv of stride 2.
  %pad2 = memref.alloc() {alignment = 64 : i64} : memref<1x3x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%pad2 : memref<1x3x10x10xf32>)
  %in2 = memref.subview %pad2[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %src, %in2 : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  %mid2 = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mid2 : memref<1x3x8x8xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad2, %w : memref<1x3x10x10xf32>, memref<3x3x3xf32>) outs(%mid2 : memref<1x3x8x8xf32>)
  %out2 = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%out2 : memref<1x4x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%mid2, %p : memref<1x3x8x8xf32>, memref<4x3x1x1xf32>) outs(%out2 : memref<1x4x4x4xf32>)
  memref.copy %out2, %s : memref<1x4x4x4xf32> to memref<1x4x4x4xf32>
  // A 3x3 consumer.
  %pad3 = memref.alloc() {alignment = 64 : i64} : memref<1x3x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%pad3 : memref<1x3x10x10xf32>)
  %in3 = memref.subview %pad3[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %src, %in3 : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  %mid3 = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mid3 : memref<1x3x8x8xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad3, %w : memref<1x3x10x10xf32>, memref<3x3x3xf32>) outs(%mid3 : memref<1x3x8x8xf32>)
  %out3 = memref.alloc() {alignment = 64 : i64} : memref<1x4x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%out3 : memref<1x4x6x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%mid3, %k : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%out3 : memref<1x4x6x6xf32>)
  memref.copy %out3, %t : memref<1x4x6x6xf32> to memref<1x4x6x6xf32>
  return
}
