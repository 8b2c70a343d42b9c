// RUN: tandem-opt %s -split-input-file -tandem-form-library-gemms | FileCheck %s
// RUN: tandem-opt %s -split-input-file -tandem-form-library-gemms=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not tandem-opt %s -split-input-file -tandem-form-library-gemms=precision=int8 2>&1 | FileCheck %s --check-prefix=BADPREC

// With a precision, every library call formed carries it (the default,
// fp32, is not printed).
// BF16: tandem_exec.gemm @k1_fc1_matmul({{.+}}precision = "bf16"
// BADPREC: error: unknown precision 'int8' (expected fp32, tf32, bf16 or fp16)

// Zero fill, matmul and a bias + ReLU launch become one gemm with the
// bias_relu epilogue writing the epilogue's output; the three launches
// follow it, in order, as its fallback.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

memref.global "private" constant @w : memref<8x5xf32> = dense<1.0>
memref.global "private" constant @b : memref<5xf32> = dense<1.0>

func.func private @k0_fill(%c: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k1_fc1_matmul(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  linalg.matmul ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k2_generic(%c: memref<3x5xf32>, %bias: memref<5xf32>, %y: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<3x5xf32>, memref<5xf32>) outs(%y : memref<3x5xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME:    %[[X:[^:]+]]: memref<3x8xf32, #tandem.device<"/device:GPU:0">>
// CHECK:         %[[W:.+]] = tandem_exec.weight @w
// CHECK:         %[[B:.+]] = tandem_exec.weight @b
// CHECK:         %[[T:.+]] = tandem_exec.alloc : memref<3x5xf32
// CHECK:         tandem_exec.wait
// CHECK:         %[[Y:.+]] = tandem_exec.alloc : memref<3x5xf32
// CHECK-NEXT:    tandem_exec.gemm @k1_fc1_matmul(%[[X]], %[[W]], bias %[[B]]) -> %[[Y]] on compute
// CHECK-SAME:      batch = 1 : i64, epilogue = "bias_relu", k = 8 : i64, lda = 8 : i64, ldb = 5 : i64, ldc = 5 : i64, m = 3 : i64, n = 5 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64}
// CHECK-NOT:       trans
// CHECK-SAME:      fallback 3
// CHECK-NEXT:    tandem_exec.launch @k0_fill(%[[T]])
// CHECK-NEXT:    tandem_exec.launch @k1_fc1_matmul(%[[X]], %[[W]], %[[T]])
// CHECK-NEXT:    tandem_exec.launch @k2_generic(%[[T]], %[[B]], %[[Y]])
// CHECK-NEXT:    tandem_exec.partition_end
func.func @bias_relu(%x: memref<3x8xf32, #gpu>, %e: !tandem_exec.event) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<8x5xf32, #gpu>
  %b = tandem_exec.weight @b : memref<5xf32, #gpu>
  %t = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k0_fill(%t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>
  tandem_exec.wait %e on compute
  tandem_exec.launch @k1_fc1_matmul(%x, %w, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  %y = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k2_generic(%t, %b, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>, memref<5xf32, #gpu>, memref<3x5xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// A batched contraction with B transposed (B[b][n][k]) as a linalg.generic,
// and a ReLU-only epilogue.

#gpu = #tandem.device<"/device:GPU:0">
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#bt = affine_map<(b, m, n, k) -> (b, n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func private @k0_fill(%c: memref<2x3x4xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x3x4xf32>)
  return
}
func.func private @k1_scores(%a: memref<2x3x6xf32>, %b: memref<2x4x6xf32>, %c: memref<2x3x4xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x3x6xf32>, memref<2x4x6xf32>) outs(%c : memref<2x3x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @k2_relu(%c: memref<2x3x4xf32>, %y: memref<2x3x4xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c : memref<2x3x4xf32>) outs(%y : memref<2x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @batch_trans_b(
// CHECK:         tandem_exec.gemm @k1_scores(%{{[^,]+}}, %{{[^,]+}}) -> %{{.+}} on compute
// CHECK-SAME:      batch = 2 : i64, epilogue = "relu", k = 6 : i64, lda = 6 : i64, ldb = 6 : i64, ldc = 4 : i64, m = 3 : i64, n = 4 : i64, stride_a = 18 : i64, stride_b = 24 : i64, stride_c = 12 : i64, trans_b}
func.func @batch_trans_b(%a: memref<2x3x6xf32, #gpu>, %b: memref<2x4x6xf32, #gpu>, %y: memref<2x3x4xf32, #gpu>) {
  %t = tandem_exec.alloc : memref<2x3x4xf32, #gpu>
  tandem_exec.launch @k0_fill(%t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x3x4xf32, #gpu>
  tandem_exec.launch @k1_scores(%a, %b, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x3x6xf32, #gpu>, memref<2x4x6xf32, #gpu>, memref<2x3x4xf32, #gpu>
  tandem_exec.launch @k2_relu(%t, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x3x4xf32, #gpu>, memref<2x3x4xf32, #gpu>
  return
}

// -----

// No zero fill before the matmul (it accumulates into C): stays generated.
// A product that another launch also reads keeps its epilogue launch.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func private @k_fill(%c: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k_mm(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  linalg.matmul ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k_relu(%c: memref<3x5xf32>, %y: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<3x5xf32>) outs(%y : memref<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @accumulating(
// CHECK-NOT:     tandem_exec.gemm
// CHECK:         tandem_exec.launch @k_mm
func.func @accumulating(%a: memref<3x8xf32, #gpu>, %b: memref<8x5xf32, #gpu>, %c: memref<3x5xf32, #gpu>) {
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  return
}

// CHECK-LABEL: func.func @shared_product(
// CHECK:         tandem_exec.gemm @k_mm(%{{[^,]+}}, %{{[^,]+}}) -> %[[T:[^ ]+]] on compute {{.+}}epilogue = "none"{{.+}} fallback 2
// CHECK-NEXT:    tandem_exec.launch @k_fill
// CHECK-NEXT:    tandem_exec.launch @k_mm
// CHECK-NEXT:    tandem_exec.launch @k_relu(%[[T]], %{{.+}})
// CHECK-NEXT:    tandem_exec.launch @k_relu(%[[T]], %{{.+}})
func.func @shared_product(%a: memref<3x8xf32, #gpu>, %b: memref<8x5xf32, #gpu>, %y: memref<3x5xf32, #gpu>, %z: memref<3x5xf32, #gpu>) {
  %t = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k_fill(%t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>
  tandem_exec.launch @k_mm(%a, %b, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  tandem_exec.launch @k_relu(%t, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>, memref<3x5xf32, #gpu>
  tandem_exec.launch @k_relu(%t, %z) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>, memref<3x5xf32, #gpu>
  return
}

// -----

// As the ONNX importer lowers a Linear on [1, 4, 6]: the matmul reads a
// collapsed view and the bias + ReLU launch an expanded one; both are whole
// buffers in the same element order, so the epilogue still folds and the
// gemm writes the [1, 4, 5] output directly.

#gpu = #tandem.device<"/device:GPU:0">
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>

func.func private @k0_fill(%c: memref<4x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x5xf32>)
  return
}
func.func private @k1_linear_matmul(%x: memref<1x4x6xf32>, %w: memref<6x5xf32>, %c: memref<4x5xf32>) attributes {tandem.kernel} {
  %x2 = memref.collapse_shape %x [[0, 1], [2]] : memref<1x4x6xf32> into memref<4x6xf32>
  linalg.matmul ins(%x2, %w : memref<4x6xf32>, memref<6x5xf32>) outs(%c : memref<4x5xf32>)
  return
}
func.func private @k2_generic(%c: memref<4x5xf32>, %bias: memref<5xf32>, %y: memref<1x4x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %c3 = memref.expand_shape %c [[0, 1], [2]] output_shape [1, 4, 5] : memref<4x5xf32> into memref<1x4x5xf32>
  linalg.generic {indexing_maps = [#id3, #last, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c3, %bias : memref<1x4x5xf32>, memref<5xf32>) outs(%y : memref<1x4x5xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @reshaped(
// CHECK:         tandem_exec.gemm @k1_linear_matmul(%{{[^,]+}}, %{{[^,]+}}, bias %{{[^)]+}}) -> %{{.+}} on compute
// CHECK-SAME:      epilogue = "bias_relu", k = 6 : i64, lda = 6 : i64, ldb = 5 : i64, ldc = 5 : i64, m = 4 : i64, n = 5 : i64
// CHECK-SAME:      -> memref<1x4x5xf32, #tandem.device<"/device:GPU:0">> fallback 3
func.func @reshaped(%x: memref<1x4x6xf32, #gpu>, %w: memref<6x5xf32, #gpu>, %b: memref<5xf32, #gpu>, %y: memref<1x4x5xf32, #gpu>) {
  %t = tandem_exec.alloc : memref<4x5xf32, #gpu>
  tandem_exec.launch @k0_fill(%t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4x5xf32, #gpu>
  tandem_exec.launch @k1_linear_matmul(%x, %w, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x4x6xf32, #gpu>, memref<6x5xf32, #gpu>, memref<4x5xf32, #gpu>
  tandem_exec.launch @k2_generic(%t, %b, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4x5xf32, #gpu>, memref<5xf32, #gpu>, memref<1x4x5xf32, #gpu>
  return
}

// -----

// A ReLU that tandem-fuse-elementwise already folded into the matmul
// (tandem.epilogue = "relu") is the gemm's epilogue; the bias launch after
// it reads rectified values, so it does not fold (cuBLASLt's order is bias,
// then ReLU) and stays a launch after the gemm's fallback.
#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

memref.global "private" constant @w : memref<8x5xf32> = dense<1.0>
memref.global "private" constant @b : memref<5xf32> = dense<1.0>

func.func private @k0_fill(%c: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k1_matmul_relu(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  linalg.matmul {tandem.epilogue = "relu"} ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k2_bias(%c: memref<3x5xf32>, %bias: memref<5xf32>, %y: memref<3x5xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<3x5xf32>, memref<5xf32>) outs(%y : memref<3x5xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @fused_relu(
// CHECK:         tandem_exec.gemm @k1_matmul_relu(%{{.+}}, %{{.+}}) -> %[[T:.+]] on compute
// CHECK-SAME:      epilogue = "relu"
// CHECK-SAME:      fallback 2
// CHECK-NEXT:    tandem_exec.launch @k0_fill(%[[T]])
// CHECK-NEXT:    tandem_exec.launch @k1_matmul_relu(
// CHECK-NEXT:    tandem_exec.alloc
// CHECK-NEXT:    tandem_exec.launch @k2_bias(%[[T]],
func.func @fused_relu(%x: memref<3x8xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<8x5xf32, #gpu>
  %b = tandem_exec.weight @b : memref<5xf32, #gpu>
  %t = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k0_fill(%t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>
  tandem_exec.launch @k1_matmul_relu(%x, %w, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  %y = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k2_bias(%t, %b, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>, memref<5xf32, #gpu>, memref<3x5xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// A fused ReLU6 (cuBLASLt has no clip epilogue): no gemm; the generated
// kernel applies the clip.
#gpu = #tandem.device<"/device:GPU:0">

memref.global "private" constant @w : memref<8x5xf32> = dense<1.0>

func.func private @k0_fill(%c: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k1_matmul_relu6(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  linalg.matmul {tandem.epilogue = "relu6"} ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}

// CHECK-LABEL: func.func @fused_relu6(
// CHECK-NOT:     tandem_exec.gemm
// CHECK:         tandem_exec.launch @k1_matmul_relu6(
func.func @fused_relu6(%x: memref<3x8xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<8x5xf32, #gpu>
  %t = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k0_fill(%t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>
  tandem_exec.launch @k1_matmul_relu6(%x, %w, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// The zero fill as the contraction kernel's own prologue (how
// tandem-outline-kernels leaves every lowered MatMul): the gemm needs no
// fill launch, and its fallback is the one launch. A kernel whose prologue
// fills with anything but +0.0 (here 1.0: C accumulates onto ones) keeps
// its generated kernel.

#gpu = #tandem.device<"/device:GPU:0">

memref.global "private" constant @w : memref<8x5xf32> = dense<1.0>

func.func private @k0_mm(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5xf32>)
  linalg.matmul ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k1_mm_ones(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<3x5xf32>)
  linalg.matmul ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}

// CHECK-LABEL: func.func @prologue_fill(
// CHECK:         %[[C:.+]] = tandem_exec.alloc : memref<3x5xf32
// CHECK-NEXT:    tandem_exec.gemm @k0_mm(%{{.+}}, %{{.+}}) -> %[[C]] on compute
// CHECK-SAME:      epilogue = "none"
// CHECK-SAME:      fallback 1
// CHECK-NEXT:    tandem_exec.launch @k0_mm(
// CHECK-NEXT:    %[[D:.+]] = tandem_exec.alloc : memref<3x5xf32
// CHECK-NEXT:    tandem_exec.launch @k1_mm_ones(%{{.+}}, %{{.+}}, %[[D]])
// CHECK-NOT:     tandem_exec.gemm
func.func @prologue_fill(%x: memref<3x8xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<8x5xf32, #gpu>
  %c = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k0_mm(%x, %w, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  %d = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k1_mm_ones(%x, %w, %d) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// bias + GELU in its tanh approximation (as tandem.gelu lowers, products and
// sums in canonical order) is cuBLASLt's GELU_BIAS epilogue; the exact GELU
// (erf) is not, and keeps its generated kernel after a plain gemm.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

memref.global "private" constant @w : memref<8x5xf32> = dense<1.0>
memref.global "private" constant @b : memref<5xf32> = dense<1.0>

func.func private @k0_mm(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5xf32>)
  linalg.matmul ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k1_gelu(%c: memref<3x5xf32>, %bias: memref<5xf32>, %y: memref<3x5xf32>) attributes {tandem.kernel} {
  %cst = arith.constant 4.471500e-02 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<3x5xf32>, memref<5xf32>) outs(%y : memref<3x5xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %0 = arith.addf %in, %bi : f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.mulf %2, %cst : f32
    %4 = arith.addf %0, %3 : f32
    %5 = arith.mulf %4, %cst_0 : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %6, %cst_1 : f32
    %8 = arith.mulf %0, %cst_2 : f32
    %9 = arith.mulf %8, %7 : f32
    linalg.yield %9 : f32
  }
  return
}
func.func private @k2_mm(%a: memref<3x8xf32>, %b: memref<8x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5xf32>)
  linalg.matmul ins(%a, %b : memref<3x8xf32>, memref<8x5xf32>) outs(%c : memref<3x5xf32>)
  return
}
func.func private @k3_gelu_erf(%c: memref<3x5xf32>, %y: memref<3x5xf32>) attributes {tandem.kernel} {
  %cst = arith.constant 0.707106769 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<3x5xf32>) outs(%y : memref<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %cst : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %cst_1 : f32
    %3 = arith.mulf %in, %cst_2 : f32
    %4 = arith.mulf %3, %2 : f32
    linalg.yield %4 : f32
  }
  return
}

// CHECK-LABEL: func.func @gelu(
// CHECK:         tandem_exec.gemm @k0_mm(%{{.+}}, %{{.+}}, bias %{{.+}}) -> %{{.+}} on compute
// CHECK-SAME:      epilogue = "bias_gelu"
// CHECK-SAME:      fallback 2
// CHECK-NEXT:    tandem_exec.launch @k0_mm(
// CHECK-NEXT:    tandem_exec.launch @k1_gelu(
// CHECK:         tandem_exec.gemm @k2_mm(%{{.+}}, %{{.+}}) -> %{{.+}} on compute
// CHECK-SAME:      epilogue = "none"
// CHECK-SAME:      fallback 1
// CHECK-NEXT:    tandem_exec.launch @k2_mm(
// CHECK-NEXT:    %{{.+}} = tandem_exec.alloc
// CHECK-NEXT:    tandem_exec.launch @k3_gelu_erf(
func.func @gelu(%x: memref<3x8xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<8x5xf32, #gpu>
  %b = tandem_exec.weight @b : memref<5xf32, #gpu>
  %c = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k0_mm(%x, %w, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  %y = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k1_gelu(%c, %b, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>, memref<5xf32, #gpu>, memref<3x5xf32, #gpu>
  %d = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k2_mm(%x, %w, %d) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu>, memref<3x5xf32, #gpu>
  %z = tandem_exec.alloc : memref<3x5xf32, #gpu>
  tandem_exec.launch @k3_gelu_erf(%d, %z) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x5xf32, #gpu>, memref<3x5xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// A projection whose output is split into heads before its bias add (BERT's
// Q, K, V): the bias add sees the product as 1x4x2x3 (rows of N = 2*3) and
// the bias as 2x3 along the trailing dimensions, still a bias along N. With
// the bias along the leading dimensions instead, it is not.

#gpu = #tandem.device<"/device:GPU:0">
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#heads = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#wrong = affine_map<(d0, d1, d2, d3) -> (d1, d2)>

memref.global "private" constant @w : memref<8x6xf32> = dense<1.0>
memref.global "private" constant @b : memref<6xf32> = dense<1.0>

func.func private @k0_mm(%a: memref<4x8xf32>, %b: memref<8x6xf32>, %c: memref<4x6xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x6xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x6xf32>) outs(%c : memref<4x6xf32>)
  return
}
func.func private @k1_generic(%c: memref<4x6xf32>, %bias: memref<6xf32>, %y: memref<1x4x2x3xf32>) attributes {tandem.kernel} {
  %c4 = memref.expand_shape %c [[0, 1], [2, 3]] output_shape [1, 4, 2, 3] : memref<4x6xf32> into memref<1x4x2x3xf32>
  %b2 = memref.expand_shape %bias [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  linalg.generic {indexing_maps = [#id4, #heads, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c4, %b2 : memref<1x4x2x3xf32>, memref<2x3xf32>) outs(%y : memref<1x4x2x3xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @k2_mm(%a: memref<4x8xf32>, %b: memref<8x6xf32>, %c: memref<4x6xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x6xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x6xf32>) outs(%c : memref<4x6xf32>)
  return
}
func.func private @k3_generic(%c: memref<4x6xf32>, %bias: memref<8xf32>, %y: memref<1x4x2x3xf32>) attributes {tandem.kernel} {
  %c4 = memref.expand_shape %c [[0, 1], [2, 3]] output_shape [1, 4, 2, 3] : memref<4x6xf32> into memref<1x4x2x3xf32>
  %b2 = memref.expand_shape %bias [[0, 1]] output_shape [4, 2] : memref<8xf32> into memref<4x2xf32>
  linalg.generic {indexing_maps = [#id4, #wrong, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c4, %b2 : memref<1x4x2x3xf32>, memref<4x2xf32>) outs(%y : memref<1x4x2x3xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  }
  return
}

memref.global "private" constant @b8 : memref<8xf32> = dense<1.0>

// CHECK-LABEL: func.func @heads(
// CHECK:         tandem_exec.gemm @k0_mm(%{{.+}}, %{{.+}}, bias %{{.+}}) -> %{{.+}} on compute
// CHECK-SAME:      epilogue = "bias"
// CHECK-SAME:      fallback 2
// CHECK:         tandem_exec.gemm @k2_mm(%{{.+}}, %{{.+}}) -> %{{.+}} on compute
// CHECK-SAME:      epilogue = "none"
// CHECK-SAME:      fallback 1
// CHECK:         tandem_exec.launch @k3_generic(
func.func @heads(%x: memref<4x8xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<8x6xf32, #gpu>
  %b = tandem_exec.weight @b : memref<6xf32, #gpu>
  %b8 = tandem_exec.weight @b8 : memref<8xf32, #gpu>
  %c = tandem_exec.alloc : memref<4x6xf32, #gpu>
  tandem_exec.launch @k0_mm(%x, %w, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4x8xf32, #gpu>, memref<8x6xf32, #gpu>, memref<4x6xf32, #gpu>
  %y = tandem_exec.alloc : memref<1x4x2x3xf32, #gpu>
  tandem_exec.launch @k1_generic(%c, %b, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4x6xf32, #gpu>, memref<6xf32, #gpu>, memref<1x4x2x3xf32, #gpu>
  %d = tandem_exec.alloc : memref<4x6xf32, #gpu>
  tandem_exec.launch @k2_mm(%x, %w, %d) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4x8xf32, #gpu>, memref<8x6xf32, #gpu>, memref<4x6xf32, #gpu>
  %z = tandem_exec.alloc : memref<1x4x2x3xf32, #gpu>
  tandem_exec.launch @k3_generic(%d, %b8, %z) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4x6xf32, #gpu>, memref<8xf32, #gpu>, memref<1x4x2x3xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}
