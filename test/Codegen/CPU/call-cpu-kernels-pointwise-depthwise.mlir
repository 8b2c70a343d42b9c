// RUN: tandem-opt -tandem-call-cpu-kernels=implicit-pads-only=true -split-input-file %s | FileCheck %s
// RUN: tandem-opt -tandem-call-cpu-kernels=implicit-pads-only=true -tandem-plan-memory -tandem-call-cpu-kernels -split-input-file %s | FileCheck %s --check-prefix=PLAN
// RUN: tandem-opt -tandem-call-cpu-kernels="implicit-pads-only=true fuse-pointwise-depthwise=false" -split-input-file %s | FileCheck %s --check-prefix=OFF

// An inverted residual block: a 1x1 conv (bias broadcast, ReLU6) whose
// output only the implicitly padded depthwise conv reads, then a 1x1
// projection. The expansion and the depthwise conv become one
// tandem_conv1x1_dwconv2d_packed_f32 call (the projection reads the packed
// output): the input is the expansion's (2 images x 3 channels of 6x6),
// then its 12 output channels, filter, bias and flags (2 + 16: constant
// filter, ReLU6), then the depthwise conv's arguments (3x3, stride 2,
// padding 1, 1). The expanded buffer, its bias broadcast and the padded
// copy are gone. After planning the call gets the execution context and
// the arena holds only the packed output (768 floats: 3072 bytes).
// With fuse-pointwise-depthwise=false the expansion stays a conv.
// CHECK-DAG: func.func private @tandem_conv1x1_dwconv2d_packed_f32(!llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32)
// CHECK-NOT: func.func private @tandem_conv1x1_dwconv2d_f32(
// CHECK-LABEL: func.func @inverted_residual
// CHECK-NOT: memref<2x12x6x6xf32>
// CHECK: %[[PWFLAGS:.+]] = arith.constant 18 : i32
// CHECK: call @tandem_conv1x1_dwconv2d_packed_f32(%{{[^,]+}}, %c2_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c6_i64{{[_0-9]*}}, %c6_i64{{[_0-9]*}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c12_i64{{[_0-9]*}}, %{{[^,]+}}, %{{[^,]+}}, %[[PWFLAGS]], %c3_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c3_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c16_i32)
// CHECK-NOT: linalg.generic
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-SAME: tandem.packed_input
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// PLAN-LABEL: func.func @inverted_residual
// PLAN-SAME: %[[CTX:[a-z0-9]+]]: !llvm.ptr {tandem.exec_ctx}) attributes {tandem.arena_bytes = 3072 : i64}
// PLAN: call @tandem_conv1x1_dwconv2d_packed_f32(%[[CTX]],
// PLAN: call @tandem_conv2d_packed_f32(%[[CTX]],
// OFF-LABEL: func.func @inverted_residual
// OFF: linalg.conv_2d_nchw_fchw
// OFF: call @tandem_dwconv2d_pad_packed_f32(
// OFF-NOT: tandem_conv1x1_dwconv2d
memref.global "private" constant @pw : memref<12x3x1x1xf32> = dense<0.5>
memref.global "private" constant @pb : memref<12xf32> = dense<1.0>
memref.global "private" constant @dw : memref<12x3x3xf32> = dense<1.0>
memref.global "private" constant @proj : memref<4x12x1x1xf32> = dense<0.25>
func.func @inverted_residual(%x: memref<2x3x6x6xf32>, %y: memref<2x4x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.get_global @pw : memref<12x3x1x1xf32>
  %b = memref.get_global @pb : memref<12xf32>
  %w = memref.get_global @dw : memref<12x3x3xf32>
  %q = memref.get_global @proj : memref<4x12x1x1xf32>
  %mid = memref.alloc() {alignment = 64 : i64} : memref<2x12x6x6xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<12xf32>) outs(%mid : memref<2x12x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu6"}
    ins(%x, %p : memref<2x3x6x6xf32>, memref<12x3x1x1xf32>) outs(%mid : memref<2x12x6x6xf32>)
  %pad = memref.alloc() {alignment = 64 : i64} : memref<2x12x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<2x12x8x8xf32>)
  %in = memref.subview %pad[0, 0, 1, 1] [2, 12, 6, 6] [1, 1, 1, 1] : memref<2x12x8x8xf32> to memref<2x12x6x6xf32, strided<[768, 64, 8, 1], offset: 9>>
  memref.copy %mid, %in : memref<2x12x6x6xf32> to memref<2x12x6x6xf32, strided<[768, 64, 8, 1], offset: 9>>
  %dwo = memref.alloc() {alignment = 64 : i64} : memref<2x12x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%dwo : memref<2x12x3x3xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tandem.epilogue = "relu6"}
    ins(%pad, %w : memref<2x12x8x8xf32>, memref<12x3x3xf32>) outs(%dwo : memref<2x12x3x3xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<2x4x3x3xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%dwo, %q : memref<2x12x3x3xf32>, memref<4x12x1x1xf32>) outs(%y : memref<2x4x3x3xf32>)
  return
}

// -----

// Not fused: the expanded buffer has another reader (copied out), the 1x1
// conv has stride 2 (a strided output is not the depthwise conv's whole
// input), or the conv before the depthwise one is 3x3. The depthwise convs
// are still implicitly padded, with NCHW outputs.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: call @tandem_conv1x1_dwconv2d
// CHECK-COUNT-3: call @tandem_dwconv2d_pad_f32(
// CHECK-NOT: call @tandem_conv1x1_dwconv2d
// CHECK: return
memref.global "private" constant @pw2 : memref<4x3x1x1xf32> = dense<0.5>
memref.global "private" constant @k3 : memref<4x3x3x3xf32> = dense<0.5>
memref.global "private" constant @dw2 : memref<4x3x3xf32> = dense<1.0>
func.func @not_fused(%x: memref<1x3x6x6xf32>, %x2: memref<1x3x11x11xf32>, %x3: memref<1x3x8x8xf32>, %e: memref<1x4x6x6xf32>, %y: memref<1x4x6x6xf32>, %y2: memref<1x4x6x6xf32>, %y3: memref<1x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.get_global @pw2 : memref<4x3x1x1xf32>
  %k = memref.get_global @k3 : memref<4x3x3x3xf32>
  %w = memref.get_global @dw2 : memref<4x3x3xf32>
  // Read twice.
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x4x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<1x4x6x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %p : memref<1x3x6x6xf32>, memref<4x3x1x1xf32>) outs(%mid : memref<1x4x6x6xf32>)
  memref.copy %mid, %e : memref<1x4x6x6xf32> to memref<1x4x6x6xf32>
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x4x8x8xf32>)
  %in = memref.subview %pad[0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  memref.copy %mid, %in : memref<1x4x6x6xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x6x6xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x4x8x8xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x6x6xf32>)
  // A 1x1 conv of stride 2.
  %mid2 = memref.alloc() {alignment = 64 : i64} : memref<1x4x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%mid2 : memref<1x4x6x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x2, %p : memref<1x3x11x11xf32>, memref<4x3x1x1xf32>) outs(%mid2 : memref<1x4x6x6xf32>)
  %pad2 = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%pad2 : memref<1x4x8x8xf32>)
  %in2 = memref.subview %pad2[0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  memref.copy %mid2, %in2 : memref<1x4x6x6xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x4x6x6xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad2, %w : memref<1x4x8x8xf32>, memref<4x3x3xf32>) outs(%y2 : memref<1x4x6x6xf32>)
  // A 3x3 conv.
  %mid3 = memref.alloc() {alignment = 64 : i64} : memref<1x4x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%mid3 : memref<1x4x6x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x3, %k : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%mid3 : memref<1x4x6x6xf32>)
  %pad3 = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%pad3 : memref<1x4x8x8xf32>)
  %in3 = memref.subview %pad3[0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  memref.copy %mid3, %in3 : memref<1x4x6x6xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  linalg.fill ins(%zero : f32) outs(%y3 : memref<1x4x6x6xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad3, %w : memref<1x4x8x8xf32>, memref<4x3x3xf32>) outs(%y3 : memref<1x4x6x6xf32>)
  return
}

// -----

// MobileNetV1's chain, depthwise -> 1x1 -> depthwise: the 1x1 conv runs
// with the second depthwise conv (tandem_conv1x1_dwconv2d_f32, its output
// NCHW into the caller's buffer), so the first depthwise conv's output is
// not packed for it.
// CHECK-LABEL: func.func @v1_chain
// CHECK: call @tandem_dwconv2d_pad_f32(
// CHECK: call @tandem_conv1x1_dwconv2d_f32(
// CHECK-NOT: tandem.packed_input
// CHECK: return
memref.global "private" constant @dwa : memref<3x3x3xf32> = dense<1.0>
memref.global "private" constant @pwb : memref<4x3x1x1xf32> = dense<0.5>
memref.global "private" constant @dwc : memref<4x3x3xf32> = dense<1.0>
func.func @v1_chain(%x: memref<1x3x6x6xf32>, %y: memref<1x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.get_global @dwa : memref<3x3x3xf32>
  %p = memref.get_global @pwb : memref<4x3x1x1xf32>
  %c = memref.get_global @dwc : memref<4x3x3xf32>
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x8x8xf32>)
  %in = memref.subview %pad[0, 0, 1, 1] [1, 3, 6, 6] [1, 1, 1, 1] : memref<1x3x8x8xf32> to memref<1x3x6x6xf32, strided<[192, 64, 8, 1], offset: 9>>
  memref.copy %x, %in : memref<1x3x6x6xf32> to memref<1x3x6x6xf32, strided<[192, 64, 8, 1], offset: 9>>
  %d1 = memref.alloc() {alignment = 64 : i64} : memref<1x3x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%d1 : memref<1x3x6x6xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %a : memref<1x3x8x8xf32>, memref<3x3x3xf32>) outs(%d1 : memref<1x3x6x6xf32>)
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x4x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<1x4x6x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%d1, %p : memref<1x3x6x6xf32>, memref<4x3x1x1xf32>) outs(%mid : memref<1x4x6x6xf32>)
  %pad2 = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%pad2 : memref<1x4x8x8xf32>)
  %in2 = memref.subview %pad2[0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  memref.copy %mid, %in2 : memref<1x4x6x6xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x6x6xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad2, %c : memref<1x4x8x8xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x6x6xf32>)
  return
}
