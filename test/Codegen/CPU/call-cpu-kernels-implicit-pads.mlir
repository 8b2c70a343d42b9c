// RUN: tandem-opt -tandem-call-cpu-kernels=implicit-pads-only=true -split-input-file %s | FileCheck %s
// RUN: tandem-opt -tandem-call-cpu-kernels=implicit-pads-only=true -tandem-plan-memory -tandem-call-cpu-kernels -split-input-file %s | FileCheck %s --check-prefix=PLAN
// RUN: tandem-opt -tandem-call-cpu-kernels=implicit-pads-only=true -cse -split-input-file %s | FileCheck %s --check-prefix=GCSE

// Before memory planning, a depthwise conv reading a zero-padded copy of
// another buffer becomes a tandem_dwconv2d_pad_f32 call on the copy's
// source (padTop 1, padLeft 1), with a null execution context for now; the
// padded buffer's alloc, fill and copy go, and nothing else is rewritten
// (the matmul stays for the full run). After planning, the full run gives
// the call the function's execution context, and the arena holds the
// source and the output (the matmul's buffer reuses the source's slot) but
// no padded buffer: 2 x 768 bytes.
// CHECK-LABEL: func.func @implicit_pad
// CHECK-NOT: memref.alloc() : memref<1x3x10x10xf32>
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.map
// CHECK: llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @tandem_dwconv2d_pad_f32(%[[NULL]],
// CHECK: linalg.matmul
// PLAN-LABEL: func.func @implicit_pad
// PLAN-SAME: %[[CTX:[a-z0-9]+]]: !llvm.ptr {tandem.exec_ctx}
// PLAN-SAME: tandem.arena_bytes = 1536
// PLAN: call @tandem_dwconv2d_pad_f32(%[[CTX]],
// PLAN: call @tandem_sgemm_f32(%[[CTX]],
memref.global "private" constant @w : memref<3x3x3xf32> = dense<1.0>
func.func @implicit_pad(%x: memref<1x3x8x8xf32>, %m: memref<8x8xf32>, %y: memref<1x3x8x8xf32>, %z: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<3x3x3xf32>
  %src = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x3x8x8xf32>) outs(%src : memref<1x3x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x3x10x10xf32>
  linalg.map outs(%pad : memref<1x3x10x10xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %in = memref.subview %pad[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x8x8xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x10xf32>, memref<3x3x3xf32>) outs(%out : memref<1x3x8x8xf32>)
  %mm = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mm : memref<8x8xf32>)
  linalg.matmul ins(%m, %m : memref<8x8xf32>, memref<8x8xf32>) outs(%mm : memref<8x8xf32>)
  memref.copy %out, %y : memref<1x3x8x8xf32> to memref<1x3x8x8xf32>
  memref.copy %mm, %z : memref<8x8xf32> to memref<8x8xf32>
  return
}

// -----

// The output written over the source before planning (the conv in place,
// its zero fill between the copy and the conv): the source is not intact
// while the fill stands, so this run leaves the conv to the full run, which
// drops the fill and then reads the source in place.
// CHECK-LABEL: func.func @in_place_left_for_later
// CHECK: memref.copy
// CHECK: linalg.depthwise_conv_2d_nchw_chw
// CHECK-NOT: call @tandem_dwconv2d_pad_f32
// PLAN-LABEL: func.func @in_place_left_for_later
// PLAN-SAME: %[[CTX2:[a-z0-9]+]]: !llvm.ptr {tandem.exec_ctx}
// PLAN-NOT: linalg.fill
// PLAN: call @tandem_dwconv2d_pad_f32(%[[CTX2]],
memref.global "private" constant @w2 : memref<3x3x3xf32> = dense<1.0>
func.func @in_place_left_for_later(%x: memref<1x3x8x8xf32>, %y: memref<1x3x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w2 : memref<3x3x3xf32>
  %src = memref.alloc() {alignment = 64 : i64} : memref<1x3x8x8xf32>
  memref.copy %x, %src : memref<1x3x8x8xf32> to memref<1x3x8x8xf32>
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x3x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x10x10xf32>)
  %in = memref.subview %pad[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  linalg.fill ins(%zero : f32) outs(%src : memref<1x3x8x8xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x10xf32>, memref<3x3x3xf32>) outs(%src : memref<1x3x8x8xf32>)
  memref.copy %src, %y : memref<1x3x8x8xf32> to memref<1x3x8x8xf32>
  return
}

// -----

// A grouped conv (2 groups of 2 channels) reading a zero-padded rank-5 copy
// of an expanded buffer: before memory planning it becomes one
// tandem_grouped_conv2d_f32 call on the copy's source with implicit padding
// (padTop 1, padLeft 1, then the flags: 2, a constant filter, the output's
// zero fill dropped), a null bias and, for now, a null execution context;
// the padded buffer's alloc, fill and copy go. After planning the arena
// holds the source and the output only (2 x 576 bytes), and the call gets
// the function's execution context.
// CHECK-LABEL: func.func @grouped_implicit_pad
// CHECK-NOT: memref<1x2x2x8x8xf32>
// CHECK-NOT: linalg.map
// CHECK: %[[BIAS:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @tandem_grouped_conv2d_f32(%[[NULL]], {{.+}}, %[[BIAS]], {{.+}})
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
// With CSE, the arguments' values: N, G, C, H, W = 1, 2, 2, 6, 6 (the
// source's), F, KH, KW = 2, 3, 3, then OH, OW = 6, 6, strides and
// dilations 1, padTop and padLeft 1, flags 2.
// GCSE-LABEL: func.func @grouped_implicit_pad
// GCSE: call @tandem_grouped_conv2d_f32(%{{.+}}, %c1_i64, %c2_i64, %c2_i64, %c6_i64, %c6_i64, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %c2_i64, %c3_i64, %c3_i64, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %c6_i64, %c6_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c2_i32)
// PLAN-LABEL: func.func @grouped_implicit_pad
// PLAN-SAME: %[[CTX:[a-z0-9]+]]: !llvm.ptr {tandem.exec_ctx}
// PLAN-SAME: tandem.arena_bytes = 1152
// PLAN: call @tandem_grouped_conv2d_f32(%[[CTX]],
memref.global "private" constant @wg : memref<4x2x3x3xf32> = dense<1.0>
func.func @grouped_implicit_pad(%x: memref<1x4x6x6xf32>, %y: memref<1x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @wg : memref<4x2x3x3xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 2, 2, 3, 3] : memref<4x2x3x3xf32> into memref<2x2x2x3x3xf32>
  %src = memref.alloc() {alignment = 64 : i64} : memref<1x4x6x6xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x4x6x6xf32>) outs(%src : memref<1x4x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %src5 = memref.expand_shape %src [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 6, 6] : memref<1x4x6x6xf32> into memref<1x2x2x6x6xf32>
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x2x2x8x8xf32>
  linalg.map outs(%pad : memref<1x2x2x8x8xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %in = memref.subview %pad[0, 0, 0, 1, 1] [1, 2, 2, 6, 6] [1, 1, 1, 1, 1] : memref<1x2x2x8x8xf32> to memref<1x2x2x6x6xf32, strided<[256, 128, 64, 8, 1], offset: 9>>
  memref.copy %src5, %in : memref<1x2x2x6x6xf32> to memref<1x2x2x6x6xf32, strided<[256, 128, 64, 8, 1], offset: 9>>
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x2x2x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x2x2x6x6xf32>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w5 : memref<1x2x2x8x8xf32>, memref<2x2x2x3x3xf32>) outs(%out : memref<1x2x2x6x6xf32>)
  %out4 = memref.collapse_shape %out [[0], [1, 2], [3], [4]] : memref<1x2x2x6x6xf32> into memref<1x4x6x6xf32>
  memref.copy %out4, %y : memref<1x4x6x6xf32> to memref<1x4x6x6xf32>
  return
}

// -----

// A grouped conv writing over its own padded copy's source stays for the
// full run: its tasks read bands of a group's input while others write
// that group's outputs, so it never reads the source in place.
// CHECK-LABEL: func.func @grouped_output_over_source
// CHECK: linalg.map
// CHECK: memref.copy
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK-NOT: call @tandem_grouped_conv2d_f32
memref.global "private" constant @wg2 : memref<4x2x3x3xf32> = dense<1.0>
func.func @grouped_output_over_source(%x: memref<1x4x6x6xf32>, %y: memref<1x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @wg2 : memref<4x2x3x3xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 2, 2, 3, 3] : memref<4x2x3x3xf32> into memref<2x2x2x3x3xf32>
  %src = memref.alloc() {alignment = 64 : i64} : memref<1x4x6x6xf32>
  memref.copy %x, %src : memref<1x4x6x6xf32> to memref<1x4x6x6xf32>
  %src5 = memref.expand_shape %src [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 6, 6] : memref<1x4x6x6xf32> into memref<1x2x2x6x6xf32>
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x2x2x8x8xf32>
  linalg.map outs(%pad : memref<1x2x2x8x8xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %in = memref.subview %pad[0, 0, 0, 1, 1] [1, 2, 2, 6, 6] [1, 1, 1, 1, 1] : memref<1x2x2x8x8xf32> to memref<1x2x2x6x6xf32, strided<[256, 128, 64, 8, 1], offset: 9>>
  memref.copy %src5, %in : memref<1x2x2x6x6xf32> to memref<1x2x2x6x6xf32, strided<[256, 128, 64, 8, 1], offset: 9>>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w5 : memref<1x2x2x8x8xf32>, memref<2x2x2x3x3xf32>) outs(%src5 : memref<1x2x2x6x6xf32>)
  memref.copy %src, %y : memref<1x4x6x6xf32> to memref<1x4x6x6xf32>
  return
}
