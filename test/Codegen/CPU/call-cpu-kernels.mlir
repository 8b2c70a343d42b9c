// RUN: tandem-opt -tandem-call-cpu-kernels -cse -split-input-file %s | FileCheck %s

// A matmul after a zero fill: one sgemm call that overwrites C (flags 0);
// the fill is gone. Row-major strides come from the buffers' metadata.
// Public functions gain the exec-context argument the call passes on.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.+]]: memref<64x128xf32>, %[[B:.+]]: memref<128x32xf32>, %[[C:.+]]: memref<64x32xf32>, %[[CTX:.+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.+]] = arith.constant 64 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 32 : i64
// CHECK-DAG: %[[K:.+]] = arith.constant 128 : i64
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}:2, %[[SA:.+]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[PA:.+]] = llvm.inttoptr
// CHECK: %[[SAM:.+]] = arith.index_cast %[[SA]]#0 : index to i64
// CHECK: %[[SAK:.+]] = arith.index_cast %[[SA]]#1 : index to i64
// CHECK: %[[FLAGS:.+]] = arith.constant 0 : i32
// CHECK: call @tandem_sgemm_f32(%[[CTX]], %[[ONE]], %[[M]], %[[N]], %[[K]], %[[PA]], %{{.+}}, %[[SAM]], %[[SAK]], %{{.+}}, %[[FLAGS]])
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @tandem_sgemm_f32(!llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, i32)
func.func @matmul(%a: memref<64x128xf32>, %b: memref<128x32xf32>, %c: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x32xf32>) outs(%c : memref<64x32xf32>)
  return
}

// -----

// Accumulating into a bias already in C: flags = 1 (TANDEM_SGEMM_ACCUMULATE).
// A fill of a non-zero value is kept.
// CHECK-LABEL: func.func @matmul_accumulate
// CHECK: linalg.fill
// CHECK: %[[FLAGS:.+]] = arith.constant 1 : i32
// CHECK: call @tandem_sgemm_f32({{.+}}, %[[FLAGS]])
func.func @matmul_accumulate(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// -----

// The conv form: filter [F, K] broadcast over the batch (its batch stride is
// the constant 0), patches [N, K, P], output [N, F, P].
// CHECK-LABEL: func.func @batch_broadcast
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[BATCH:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[F:.+]] = arith.constant 16 : i64
// CHECK-DAG: %[[P:.+]] = arith.constant 25 : i64
// CHECK-DAG: %[[K:.+]] = arith.constant 8 : i64
// CHECK: call @tandem_sgemm_f32(%{{.+}}, %[[BATCH]], %[[F]], %[[P]], %[[K]], %{{.+}}, %[[ZERO]],
func.func @batch_broadcast(%w: memref<16x8xf32>, %col: memref<2x8x25xf32>, %out: memref<2x16x25xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
    ins(%w, %col : memref<16x8xf32>, memref<2x8x25xf32>) outs(%out : memref<2x16x25xf32>)
  return
}

// -----

// A generic contraction reading B transposed and a strided view of C.
// CHECK-LABEL: func.func @transposed_strided
// CHECK: call @tandem_sgemm_f32
// CHECK-NOT: linalg.generic
func.func @transposed_strided(%a: memref<5x7xf32>, %bt: memref<3x7xf32>, %c: memref<5x3xf32, strided<[8, 1], offset: 2>>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : memref<5x7xf32>, memref<3x7xf32>) outs(%c : memref<5x3xf32, strided<[8, 1], offset: 2>>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not for the kernel: other element types, a body that is not a
// multiply-add, and tensors (before bufferization).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tandem_sgemm_f32
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : memref<4x4xf16>, memref<4x4xf16>)
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x4xf32>)
func.func @left_alone(%a: memref<4x4xf16>, %c: memref<4x4xf16>, %x: memref<4x4xf32>, %y: memref<4x4xf32>, %t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  linalg.matmul ins(%a, %a : memref<4x4xf16>, memref<4x4xf16>) outs(%c : memref<4x4xf16>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %x : memref<4x4xf32>, memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.maximumf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  %r = linalg.matmul ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Weights (constant globals, also through views) are flagged constant:
// flags = 2 (TANDEM_SGEMM_CONSTANT_A) | 4 (TANDEM_SGEMM_CONSTANT_B) on top
// of accumulate (1). A mutable global is not.
memref.global "private" constant @w : memref<4x8xf32> = dense<1.0>
memref.global "private" constant @v : memref<2x4x4xf32> = dense<2.0>
memref.global "private" @state : memref<4x8xf32> = dense<0.0>
// CHECK-LABEL: func.func @weights
// CHECK: %[[F1:.+]] = arith.constant 7 : i32
// CHECK: call @tandem_sgemm_f32({{.+}}, %[[F1]])
// CHECK: %[[F2:.+]] = arith.constant 1 : i32
// CHECK: call @tandem_sgemm_f32({{.+}}, %[[F2]])
func.func @weights(%x: memref<8x8xf32>, %c: memref<4x4xf32>, %d: memref<4x8xf32>) {
  %w = memref.get_global @w : memref<4x8xf32>
  %v = memref.get_global @v : memref<2x4x4xf32>
  %vt = memref.collapse_shape %v [[0, 1], [2]] : memref<2x4x4xf32> into memref<8x4xf32>
  linalg.matmul ins(%w, %vt : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  %s = memref.get_global @state : memref<4x8xf32>
  linalg.matmul ins(%s, %x : memref<4x8xf32>, memref<8x8xf32>) outs(%d : memref<4x8xf32>)
  return
}

// -----

// An f32 NCHW convolution: one tandem_conv2d_f32 call (implicit GEMM, the
// patches are gathered while packing). The input may be a strided view;
// a constant filter is flagged (2) on top of accumulating onto the bias (1).
memref.global "private" constant @filter : memref<4x3x3x3xf32> = dense<0.5>
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.+]]: memref<2x3x11x11xf32, strided<[400, 121, 11, 1], offset: 5>>, %[[Y:.+]]: memref<2x4x5x5xf32>, %[[CTX:.+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK-DAG: %[[N:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[H:.+]] = arith.constant 11 : i64
// CHECK-DAG: %[[F:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[O:.+]] = arith.constant 5 : i64
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[FLAGS:.+]] = arith.constant 3 : i32
// CHECK: call @tandem_conv2d_f32(%[[CTX]], %[[N]], %[[C]], %[[H]], %[[H]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[F]], %[[C]], %[[C]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[O]], %[[O]], %[[N]], %[[N]], %[[ONE]], %[[ONE]], %[[FLAGS]])
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%x: memref<2x3x11x11xf32, strided<[400, 121, 11, 1], offset: 5>>, %y: memref<2x4x5x5xf32>) {
  %w = memref.get_global @filter : memref<4x3x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<2x3x11x11xf32, strided<[400, 121, 11, 1], offset: 5>>, memref<4x3x3x3xf32>) outs(%y : memref<2x4x5x5xf32>)
  return
}

// -----

// An output whose rows are not dense (a column slice) stays a loop nest.
// CHECK-LABEL: func.func @conv_strided_output
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: tandem_conv2d_f32
func.func @conv_strided_output(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>)
  return
}

// -----

// The ReLU epilogue becomes flag 8 on the kernel call; on an op that stays
// a loop nest it becomes an in-place max(x, 0) loop right after it.
// CHECK-LABEL: func.func @epilogues
// CHECK: %[[F:.+]] = arith.constant 8 : i32
// CHECK: call @tandem_sgemm_f32({{.+}}, %[[F]])
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: tandem.epilogue
// CHECK-NEXT: linalg.generic {{.+}} outs(%{{.+}} : memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>)
// CHECK: arith.maximumf
func.func @epilogues(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>, %x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul {tandem.epilogue = "relu"} ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu"}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>)
  return
}

// -----

// An f32 depthwise convolution: one tandem_dwconv2d_f32 call with the
// output's row stride (9 here: a strided view with contiguous columns) and
// the fused ReLU (8); the zero fill in front is dropped (no accumulate flag).
// CHECK-LABEL: func.func @dwconv
// CHECK-SAME: (%[[X:.+]]: memref<1x6x16x16xf32>, %[[W:.+]]: memref<6x3x3xf32>, %[[Y:.+]]: memref<1x6x7x7xf32, strided<[378, 63, 9, 1]>>, %[[CTX:.+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[SIX:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[THREE:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[SEVEN:.+]] = arith.constant 7 : i64
// CHECK-DAG: %[[TWO:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[FLAGS:.+]] = arith.constant 8 : i32
// CHECK: call @tandem_dwconv2d_f32(%[[CTX]], %{{.+}}, %[[SIX]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[THREE]], %[[THREE]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[SEVEN]], %[[SEVEN]], %[[TWO]], %[[TWO]], %{{.+}}, %{{.+}}, %[[FLAGS]])
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @dwconv(%x: memref<1x6x16x16xf32>, %w: memref<6x3x3xf32>, %y: memref<1x6x7x7xf32, strided<[378, 63, 9, 1]>>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x6x7x7xf32, strided<[378, 63, 9, 1]>>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tandem.epilogue = "relu"}
    ins(%x, %w : memref<1x6x16x16xf32>, memref<6x3x3xf32>) outs(%y : memref<1x6x7x7xf32, strided<[378, 63, 9, 1]>>)
  return
}

// -----

// The ReLU6 epilogue is flag 16 on every kernel; on an op that stays a loop
// it becomes max(., 0) then min(., 6) in place.
// CHECK-LABEL: func.func @matmul_relu6
// CHECK: %[[FLAGS:.+]] = arith.constant 16 : i32
// CHECK: call @tandem_sgemm_f32({{.+}}, %[[FLAGS]])
func.func @matmul_relu6(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul {tandem.epilogue = "relu6"} ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

// The HardSwish epilogue is flag 256 on every kernel, each such call
// preceded by one of tandem_require_hardswish_epilogue (so that an older
// runtime, which would ignore the flag, fails to load the object); on an
// op that stays a loop it becomes x * min(max(x * (1/6) + 0.5, 0), 1) in
// place.
// CHECK-DAG: func.func private @tandem_require_hardswish_epilogue()
// CHECK-LABEL: func.func @matmul_hardswish
// CHECK: %[[FLAGS:.+]] = arith.constant 256 : i32
// CHECK: call @tandem_require_hardswish_epilogue() : () -> ()
// CHECK-NEXT: call @tandem_sgemm_f32({{.+}}, %[[FLAGS]])
// CHECK-NOT: tandem_require_hardswish_epilogue
func.func @matmul_hardswish(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul {tandem.epilogue = "hardswish"} ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_strided_output_hardswish
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: tandem.epilogue
// CHECK-NEXT: linalg.generic
// CHECK: ^bb0(%[[X:.+]]: f32):
// CHECK: %[[T:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK: %[[S:.+]] = arith.addf %[[T]], %{{.+}} : f32
// CHECK: %[[LO:.+]] = arith.maximumf %[[S]], %{{.+}} : f32
// CHECK: %[[HI:.+]] = arith.minimumf %[[LO]], %{{.+}} : f32
// CHECK: %[[Y:.+]] = arith.mulf %[[X]], %[[HI]] : f32
// CHECK: linalg.yield %[[Y]]
func.func @conv_strided_output_hardswish(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "hardswish"}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>)
  return
}

// -----

// SiLU is flag 512, each such call preceded by one of
// tandem_require_silu_epilogue; a call with both HardSwish and SiLU bits
// cannot occur (one epilogue per op). On an op that stays a loop it
// becomes x * (1 / (1 + exp(-x))) in place.
// CHECK-DAG: func.func private @tandem_require_silu_epilogue()
// CHECK-LABEL: func.func @matmul_silu
// CHECK: %[[FLAGS:.+]] = arith.constant 512 : i32
// CHECK: call @tandem_require_silu_epilogue() : () -> ()
// CHECK-NEXT: call @tandem_sgemm_f32({{.+}}, %[[FLAGS]])
// CHECK-NOT: tandem_require_silu_epilogue
// CHECK-NOT: tandem_require_hardswish_epilogue
func.func @matmul_silu(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul {tandem.epilogue = "silu"} ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_strided_output_silu
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: tandem.epilogue
// CHECK-NEXT: linalg.generic
// CHECK: ^bb0(%[[X:.+]]: f32):
// CHECK: %[[N:.+]] = arith.negf %[[X]] : f32
// CHECK: %[[E:.+]] = math.exp %[[N]] : f32
// CHECK: %[[D:.+]] = arith.addf %{{.+}}, %[[E]] : f32
// CHECK: %[[S:.+]] = arith.divf %{{.+}}, %[[D]] : f32
// CHECK: %[[Y:.+]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK: linalg.yield %[[Y]]
func.func @conv_strided_output_silu(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "silu"}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_strided_output_relu6
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: tandem.epilogue
// CHECK-NEXT: linalg.generic
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @conv_strided_output_relu6(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu6"}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32, strided<[288, 72, 12, 2]>>)
  return
}

// -----

// A zero fill written as the linalg.generic a fused kernel keeps (no
// inputs, yields +0.0) is dropped too: the conv overwrites (flags 2, the
// constant filter, no accumulate). A generic yielding -0.0 stays (the
// kernel would lose the sign of an all-zero sum) and the call accumulates.
// CHECK-LABEL: func.func @conv_after_generic_zero_fill
// CHECK-NOT: linalg.generic
// CHECK: %[[FLAGS:.+]] = arith.constant 2 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[FLAGS]])
// CHECK-LABEL: func.func @conv_after_generic_negative_zero_fill
// CHECK: linalg.generic
// CHECK: %[[FLAGS:.+]] = arith.constant 3 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[FLAGS]])
memref.global "private" constant @w1 : memref<4x3x1x1xf32> = dense<1.0>
func.func @conv_after_generic_zero_fill(%x: memref<1x3x8x8xf32>, %y: memref<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w1 : memref<4x3x1x1xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x1x1xf32>) outs(%y : memref<1x4x8x8xf32>)
  return
}
func.func @conv_after_generic_negative_zero_fill(%x: memref<1x3x8x8xf32>, %y: memref<1x4x8x8xf32>) {
  %zero = arith.constant -0.0 : f32
  %w = memref.get_global @w1 : memref<4x3x1x1xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x1x1xf32>) outs(%y : memref<1x4x8x8xf32>)
  return
}

// -----

// A constant per-channel bias broadcast into the output right before a
// conv is dropped: the call goes to tandem_conv2d_bias_f32 with the bias
// pointer after the filter's and no accumulate flag (2: constant filter),
// and likewise for a depthwise conv (tandem_dwconv2d_bias_f32, flags 0).
// A bias the kernel cannot take (here: not a constant) stays a broadcast
// and the conv accumulates onto it (flags 3). Unused declarations go.
// CHECK-NOT: func.func private @tandem_dwconv2d_f32(
// CHECK-DAG: func.func private @tandem_dwconv2d_bias_f32(!llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64,
// CHECK-DAG: func.func private @tandem_conv2d_bias_f32(!llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64,
// CHECK-DAG: func.func private @tandem_conv2d_f32(
// CHECK-LABEL: func.func @conv_bias
// CHECK-NOT: linalg.generic
// CHECK: %[[FLAGS:.+]] = arith.constant 2 : i32
// CHECK: call @tandem_conv2d_bias_f32({{.+}}, %[[FLAGS]])
// CHECK-LABEL: func.func @dwconv_bias
// CHECK-NOT: linalg.generic
// CHECK: %[[DWFLAGS:.+]] = arith.constant 0 : i32
// CHECK: call @tandem_dwconv2d_bias_f32({{.+}}, %[[DWFLAGS]])
// CHECK-LABEL: func.func @conv_runtime_bias
// CHECK: linalg.generic
// CHECK: %[[RFLAGS:.+]] = arith.constant 3 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[RFLAGS]])
memref.global "private" constant @wb : memref<4x3x1x1xf32> = dense<1.0>
memref.global "private" constant @bias4 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @wdw : memref<3x3x3xf32> = dense<1.0>
memref.global "private" constant @bias3 : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
func.func @conv_bias(%x: memref<1x3x8x8xf32>, %y: memref<1x4x8x8xf32>) {
  %w = memref.get_global @wb : memref<4x3x1x1xf32>
  %bias = memref.get_global @bias4 : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<4xf32>) outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x1x1xf32>) outs(%y : memref<1x4x8x8xf32>)
  return
}
func.func @dwconv_bias(%x: memref<1x3x10x10xf32>, %y: memref<1x3x8x8xf32>) {
  %w = memref.get_global @wdw : memref<3x3x3xf32>
  %bias = memref.get_global @bias3 : memref<3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<3xf32>) outs(%y : memref<1x3x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x10x10xf32>, memref<3x3x3xf32>) outs(%y : memref<1x3x8x8xf32>)
  return
}
func.func @conv_runtime_bias(%x: memref<1x3x8x8xf32>, %bias: memref<4xf32>, %y: memref<1x4x8x8xf32>) {
  %w = memref.get_global @wb : memref<4x3x1x1xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<4xf32>) outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x1x1xf32>) outs(%y : memref<1x4x8x8xf32>)
  return
}

// -----

// A grouped convolution (2 groups of 3 input and 4 output channels): one
// tandem_grouped_conv2d_f32 call for both groups. The bias broadcast into
// the rank-4 output its result expands is dropped (flags 2 + 8: constant
// filter, the fused ReLU) and the bias goes to the call. The input's NGCHW
// shape (1, 2, 3, 8, 8) and its five strides, the filter's F, KH, KW (4, 3,
// 3) and group stride, the output's N, G, F strides, OH, OW, strides and
// dilations, then no implicit padding (0, 0).
// CHECK-LABEL: func.func @grouped_conv_bias_relu
// CHECK-NOT: linalg.generic
// CHECK-NOT: scf.for
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[SIN:.+]]:5 = memref.extract_strided_metadata %{{.+}} : memref<1x2x3x8x8xf32>
// CHECK: %[[IN:.+]] = llvm.inttoptr
// CHECK: %[[SIN0:.+]] = arith.index_cast %[[SIN]]#0
// CHECK: %[[SIN1:.+]] = arith.index_cast %[[SIN]]#1
// CHECK: %[[SIN2:.+]] = arith.index_cast %[[SIN]]#2
// CHECK: %[[SIN3:.+]] = arith.index_cast %[[SIN]]#3
// CHECK: %[[SIN4:.+]] = arith.index_cast %[[SIN]]#4
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[SW:.+]]:5 = memref.extract_strided_metadata %{{.+}} : memref<2x4x3x3x3xf32>
// CHECK: %[[W:.+]] = llvm.inttoptr
// CHECK: %[[SW0:.+]] = arith.index_cast %[[SW]]#0
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[SOUT:.+]]:5 = memref.extract_strided_metadata %{{.+}} : memref<1x2x4x6x6xf32>
// CHECK: %[[O:.+]] = llvm.inttoptr
// CHECK: %[[SOUT0:.+]] = arith.index_cast %[[SOUT]]#0
// CHECK: %[[SOUT1:.+]] = arith.index_cast %[[SOUT]]#1
// CHECK: %[[SOUT2:.+]] = arith.index_cast %[[SOUT]]#2
// CHECK: memref.extract_strided_metadata %{{.+}} : memref<8xf32>
// CHECK: %[[B:.+]] = llvm.inttoptr
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[FLAGS:.+]] = arith.constant 10 : i32
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK: call @tandem_grouped_conv2d_f32(%{{.+}}, %[[C1]], %[[C2]], %[[C3]], %[[C8]], %[[C8]], %[[IN]], %[[SIN0]], %[[SIN1]], %[[SIN2]], %[[SIN3]], %[[SIN4]], %[[C4]], %[[C3]], %[[C3]], %[[W]], %[[SW0]], %[[B]], %[[O]], %[[SOUT0]], %[[SOUT1]], %[[SOUT2]], %[[C6]], %[[C6]], %[[C1]], %[[C1]], %[[C1]], %[[C1]], %[[C0]], %[[C0]], %[[FLAGS]])
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
memref.global "private" constant @wg : memref<8x3x3x3xf32> = dense<1.0>
memref.global "private" constant @bias8 : memref<8xf32> = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]>
func.func @grouped_conv_bias_relu(%x: memref<1x6x8x8xf32>, %y: memref<1x8x6x6xf32>) {
  %w = memref.get_global @wg : memref<8x3x3x3xf32>
  %bias = memref.get_global @bias8 : memref<8xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<8xf32>) outs(%y : memref<1x8x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %x5 = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 8, 8] : memref<1x6x8x8xf32> into memref<1x2x3x8x8xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 4, 3, 3, 3] : memref<8x3x3x3xf32> into memref<2x4x3x3x3xf32>
  %y5 = memref.expand_shape %y [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 6, 6] : memref<1x8x6x6xf32> into memref<1x2x4x6x6xf32>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu"}
    ins(%x5, %w5 : memref<1x2x3x8x8xf32>, memref<2x4x3x3x3xf32>) outs(%y5 : memref<1x2x4x6x6xf32>)
  return
}

// -----

// A grouped convolution whose output is read between the broadcast and the
// conv keeps the broadcast and accumulates onto it (flags 3, a null bias);
// one that a kernel cannot run (strided output columns) stays linalg.
// CHECK-LABEL: func.func @grouped_conv_read_between
// CHECK: linalg.generic
// CHECK-DAG: %[[FLAGS:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @tandem_grouped_conv2d_f32({{.+}}, %[[NULL]], {{.+}}, %[[FLAGS]])
// CHECK-LABEL: func.func @grouped_conv_strided_output
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK-NOT: call @tandem_grouped_conv2d_f32
// CHECK: return
memref.global "private" constant @wg2 : memref<8x3x3x3xf32> = dense<1.0>
memref.global "private" constant @bias8b : memref<8xf32> = dense<1.0>
func.func @grouped_conv_read_between(%x: memref<1x6x8x8xf32>, %y: memref<1x8x6x6xf32>, %z: memref<1x8x6x6xf32>) {
  %w = memref.get_global @wg2 : memref<8x3x3x3xf32>
  %bias = memref.get_global @bias8b : memref<8xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<8xf32>) outs(%y : memref<1x8x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.copy %y, %z : memref<1x8x6x6xf32> to memref<1x8x6x6xf32>
  %x5 = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 8, 8] : memref<1x6x8x8xf32> into memref<1x2x3x8x8xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 4, 3, 3, 3] : memref<8x3x3x3xf32> into memref<2x4x3x3x3xf32>
  %y5 = memref.expand_shape %y [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 6, 6] : memref<1x8x6x6xf32> into memref<1x2x4x6x6xf32>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x5, %w5 : memref<1x2x3x8x8xf32>, memref<2x4x3x3x3xf32>) outs(%y5 : memref<1x2x4x6x6xf32>)
  return
}
func.func @grouped_conv_strided_output(%x: memref<1x2x3x8x8xf32>, %w: memref<2x4x3x3x3xf32>, %y: memref<1x2x4x6x6xf32, strided<[576, 288, 72, 12, 2]>>) {
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x2x3x8x8xf32>, memref<2x4x3x3x3xf32>) outs(%y : memref<1x2x4x6x6xf32, strided<[576, 288, 72, 12, 2]>>)
  return
}

// -----

// The form the pipeline emits: the [G * F] bias expanded to [G, F] and
// broadcast into the rank-5 output itself, then the zero fill and copy that
// pad the input (a linalg op with a region, touching other buffers) before
// the conv. The broadcast is still the output's previous use, so it is
// dropped and the bias goes to the kernel (flags 2 + 8).
// CHECK-LABEL: func.func @grouped_conv_rank5_bias
// CHECK-NOT: linalg.generic
// CHECK: linalg.map
// CHECK: memref.copy
// CHECK-DAG: %[[FLAGS:.+]] = arith.constant 10 : i32
// CHECK: call @tandem_grouped_conv2d_f32({{.+}}, %[[FLAGS]])
memref.global "private" constant @wg3 : memref<8x3x3x3xf32> = dense<1.0>
memref.global "private" constant @bias8c : memref<8xf32> = dense<2.0>
func.func @grouped_conv_rank5_bias(%x: memref<1x2x3x6x6xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @wg3 : memref<8x3x3x3xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 4, 3, 3, 3] : memref<8x3x3x3xf32> into memref<2x4x3x3x3xf32>
  %bias = memref.get_global @bias8c : memref<8xf32>
  %bias2 = memref.expand_shape %bias [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %y = memref.view %arena[%c2048][] : memref<4096xi8> to memref<1x2x4x6x6xf32>
  linalg.generic {indexing_maps = [affine_map<(n, g, f, h, w) -> (g, f)>, affine_map<(n, g, f, h, w) -> (n, g, f, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%bias2 : memref<2x4xf32>) outs(%y : memref<1x2x4x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %xp = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x2x3x8x8xf32>
  linalg.map outs(%xp : memref<1x2x3x8x8xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %inner = memref.subview %xp[0, 0, 0, 1, 1] [1, 2, 3, 6, 6] [1, 1, 1, 1, 1] : memref<1x2x3x8x8xf32> to memref<1x2x3x6x6xf32, strided<[384, 192, 64, 8, 1], offset: 9>>
  memref.copy %x, %inner : memref<1x2x3x6x6xf32> to memref<1x2x3x6x6xf32, strided<[384, 192, 64, 8, 1], offset: 9>>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu"}
    ins(%xp, %w5 : memref<1x2x3x8x8xf32>, memref<2x4x3x3x3xf32>) outs(%y : memref<1x2x4x6x6xf32>)
  return
}

// -----

// A read of the output through a view of it (here a subview) between the
// bias broadcast and the conv counts as a use: the broadcast stays and the
// kernel accumulates onto it (flags 1 + 2).
// CHECK-LABEL: func.func @conv_bias_read_through_view
// CHECK: linalg.generic
// CHECK: memref.copy
// CHECK: %[[FLAGS:.+]] = arith.constant 3 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[FLAGS]])
memref.global "private" constant @wv : memref<4x3x1x1xf32> = dense<1.0>
memref.global "private" constant @bias4v : memref<4xf32> = dense<2.0>
func.func @conv_bias_read_through_view(%x: memref<1x3x8x8xf32>, %y: memref<1x4x8x8xf32>, %z: memref<1x1x8x8xf32>) {
  %w = memref.get_global @wv : memref<4x3x1x1xf32>
  %bias = memref.get_global @bias4v : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<4xf32>) outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %first = memref.subview %y[0, 0, 0, 0] [1, 1, 8, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x1x8x8xf32, strided<[256, 64, 8, 1]>>
  memref.copy %first, %z : memref<1x1x8x8xf32, strided<[256, 64, 8, 1]>> to memref<1x1x8x8xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x1x1xf32>) outs(%y : memref<1x4x8x8xf32>)
  return
}

// -----

// A dense layer's bias broadcast along the innermost dim of a reshape of
// C's buffer right before the matmul is dropped: the call goes to
// tandem_sgemm_bias_f32 with the bias pointer before C's, and overwrites C
// (flags 0, plus the fused ReLU: 8). A broadcast along the other dim is not
// a column bias: it stays, and the matmul accumulates onto it.
// CHECK: func.func private @tandem_sgemm_bias_f32(!llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32)
// CHECK-LABEL: func.func @matmul_column_bias
// CHECK-NOT: linalg.generic
// CHECK: %[[FLAGS:.+]] = arith.constant 8 : i32
// CHECK: call @tandem_sgemm_bias_f32({{.+}}, %[[FLAGS]])
// CHECK: func.func @matmul_row_broadcast
// CHECK: linalg.generic
// CHECK: %[[FLAGS2:.+]] = arith.constant 1 : i32
// CHECK: call @tandem_sgemm_f32({{.+}}, %[[FLAGS2]])
func.func @matmul_column_bias(%a: memref<128x64xf32>, %b: memref<64x48xf32>, %bias: memref<48xf32>, %out: memref<1x128x48xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<48xf32>) outs(%out : memref<1x128x48xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %c = memref.collapse_shape %out [[0, 1], [2]] : memref<1x128x48xf32> into memref<128x48xf32>
  linalg.matmul {tandem.epilogue = "relu"} ins(%a, %b : memref<128x64xf32>, memref<64x48xf32>) outs(%c : memref<128x48xf32>)
  return
}
func.func @matmul_row_broadcast(%a: memref<48x64xf32>, %b: memref<64x48xf32>, %bias: memref<48xf32>, %c: memref<48x48xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<48xf32>) outs(%c : memref<48x48xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.matmul ins(%a, %b : memref<48x64xf32>, memref<64x48xf32>) outs(%c : memref<48x48xf32>)
  return
}

// -----

// A depthwise conv whose input is a zero-padded copy (a +0.0 fill of the
// padded buffer, then the source copied into its interior at rows 1,
// columns 2 on) reads the source in place through tandem_dwconv2d_pad_f32
// (padTop 1, padLeft 2, a null bias pointer): the fill, the copy and the
// padded buffer's view go. It may only when nothing writes the source's
// arena bytes before the conv has read them. The output may be the source
// buffer itself, as bufferization writes a stride-1 "same" conv in place
// (the kernel reads each plane before writing it): here with the pad's
// fill a linalg.map and the output's zero fill between the copy and the
// conv (dropped, flags 0). An output overlapping the source's slot
// otherwise, a write to the source between the copy and the conv, a
// non-zero pad, a read of the padded buffer through another view in
// between, or a read of it after the conv keeps the copy (and
// tandem_dwconv2d_f32 on the padded buffer).
// CHECK-LABEL: func.func @dwconv_implicit_pad
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK-NOT: 1024
// CHECK-DAG: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[TOP:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[LEFT:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[H:.+]] = arith.constant 8 : i64
// CHECK: call @tandem_dwconv2d_pad_f32(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[H]], %[[H]], {{.+}}, %[[NULL]], {{.+}}, %[[TOP]], %[[LEFT]], %{{[^,]+}}) :
// CHECK-LABEL: func.func @dwconv_pad_in_place
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.map
// CHECK-NOT: linalg.generic
// CHECK: %[[IPFLAGS:.+]] = arith.constant 0 : i32
// CHECK: call @tandem_dwconv2d_pad_f32({{.+}}, %[[IPFLAGS]]) :
// CHECK-LABEL: func.func @dwconv_pad_output_in_source_slot
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @tandem_dwconv2d_f32(
// CHECK-LABEL: func.func @dwconv_pad_source_written_before_conv
// CHECK: memref.copy
// CHECK: call @tandem_dwconv2d_f32(
// CHECK-LABEL: func.func @dwconv_pad_nonzero
// CHECK: memref.copy
// CHECK: call @tandem_dwconv2d_f32(
// CHECK-LABEL: func.func @dwconv_pad_read_through_a_view
// CHECK: memref.copy
// CHECK: call @tandem_dwconv2d_f32(
// CHECK-LABEL: func.func @dwconv_pad_read_after
// CHECK: memref.copy
// CHECK: call @tandem_dwconv2d_f32(
memref.global "private" constant @wpad : memref<3x3x3xf32> = dense<1.0>
func.func @dwconv_implicit_pad(%arena: memref<4096xi8>, %y: memref<1x3x8x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %src = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x8xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<1x3x10x12xf32>
  %w = memref.get_global @wpad : memref<3x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x10x12xf32>)
  %in = memref.subview %pad[0, 0, 1, 2] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x12xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x12xf32>, memref<3x3x3xf32>) outs(%y : memref<1x3x8x10xf32>)
  return
}
func.func @dwconv_pad_in_place(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %src = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x8xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<1x3x10x10xf32>
  %w = memref.get_global @wpad : memref<3x3x3xf32>
  linalg.map outs(%pad : memref<1x3x10x10xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %in = memref.subview %pad[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%src : memref<1x3x8x8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x10xf32>, memref<3x3x3xf32>) outs(%src : memref<1x3x8x8xf32>)
  return
}
func.func @dwconv_pad_output_in_source_slot(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %src = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x8xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<1x3x10x12xf32>
  %y = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x10xf32>
  %w = memref.get_global @wpad : memref<3x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x10x12xf32>)
  %in = memref.subview %pad[0, 0, 1, 2] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x12xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x12xf32>, memref<3x3x3xf32>) outs(%y : memref<1x3x8x10xf32>)
  return
}
func.func @dwconv_pad_source_written_before_conv(%arena: memref<4096xi8>, %y: memref<1x3x8x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %src = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x8xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<1x3x10x12xf32>
  %w = memref.get_global @wpad : memref<3x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x10x12xf32>)
  %in = memref.subview %pad[0, 0, 1, 2] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x12xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  linalg.fill ins(%one : f32) outs(%src : memref<1x3x8x8xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x12xf32>, memref<3x3x3xf32>) outs(%y : memref<1x3x8x10xf32>)
  return
}
func.func @dwconv_pad_nonzero(%arena: memref<4096xi8>, %y: memref<1x3x8x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant 1.0 : f32
  %src = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x8xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<1x3x10x12xf32>
  %w = memref.get_global @wpad : memref<3x3x3xf32>
  linalg.fill ins(%one : f32) outs(%pad : memref<1x3x10x12xf32>)
  %in = memref.subview %pad[0, 0, 1, 2] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x12xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x12xf32>, memref<3x3x3xf32>) outs(%y : memref<1x3x8x10xf32>)
  return
}
func.func @dwconv_pad_read_through_a_view(%arena: memref<4096xi8>, %y: memref<1x3x8x10xf32>, %z: memref<3x120xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %src = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x8xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<1x3x10x12xf32>
  %flat = memref.collapse_shape %pad [[0, 1], [2, 3]] : memref<1x3x10x12xf32> into memref<3x120xf32>
  %w = memref.get_global @wpad : memref<3x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x10x12xf32>)
  %in = memref.subview %pad[0, 0, 1, 2] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x12xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %flat, %z : memref<3x120xf32> to memref<3x120xf32>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x12xf32>, memref<3x3x3xf32>) outs(%y : memref<1x3x8x10xf32>)
  return
}
func.func @dwconv_pad_read_after(%arena: memref<4096xi8>, %y: memref<1x3x8x10xf32>, %z: memref<1x3x10x12xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %src = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x3x8x8xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<1x3x10x12xf32>
  %w = memref.get_global @wpad : memref<3x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x3x10x12xf32>)
  %in = memref.subview %pad[0, 0, 1, 2] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x12xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %src, %in : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x3x10x12xf32>, memref<3x3x3xf32>) outs(%y : memref<1x3x8x10xf32>)
  memref.copy %pad, %z : memref<1x3x10x12xf32> to memref<1x3x10x12xf32>
  return
}
