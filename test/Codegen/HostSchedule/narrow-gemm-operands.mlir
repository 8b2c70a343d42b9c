// RUN: tandem-opt %s -split-input-file -tandem-narrow-gemm-operands=launch-bytes=-1000000 | FileCheck %s
// RUN: tandem-opt %s -split-input-file -tandem-narrow-gemm-operands | FileCheck %s --check-prefix=AUTO

// With launch-bytes (the default, 16 MiB: an added launch's cost in bytes)
// the first two cases are left alone: their weights save a few bytes, not
// a launch. Only the last case's gemm, whose activation its producer can
// write in 16 bits, reads 16-bit operands.
// AUTO-NOT: tandem_f32_to
// AUTO: memref.global "private" constant @wf_bf16
// AUTO-NOT: tandem_f32_to

// A bf16 gemm with a weight B reads the weight converted at compile time
// (round to nearest even: 1.00390625 is a tie and goes to 1.0, 1.01171875
// rounds up to 1.015625 = 0x3F82) and its activation converted by a kernel
// right before it; the fallback launches read the weight widened back to
// f32 by a launch that becomes their first.

#gpu = #tandem.device<"/device:GPU:0">

memref.global "private" constant @w : memref<2x2xf32> = dense<[[1.0, 1.00390625], [1.01171875, -2.0]]>

func.func private @k1_matmul(%a: memref<3x2xf32>, %b: memref<2x2xf32>, %c: memref<3x2xf32>) attributes {tandem.kernel} {
  linalg.matmul ins(%a, %b : memref<3x2xf32>, memref<2x2xf32>) outs(%c : memref<3x2xf32>)
  return
}

// CHECK-DAG:   memref.global "private" constant @w_bf16 : memref<2x2xbf16> = dense<{{\[\[}}1.000000e+00, 1.000000e+00], [1.015630e+00, -2.000000e+00]]>
// CHECK-NOT:   memref.global "private" constant @w :
// CHECK-LABEL: func.func @weight_b(
// CHECK-SAME:    %[[X:[^:]+]]: memref<3x2xf32, #tandem.device<"/device:GPU:0">>
// CHECK:         %[[W:.+]] = tandem_exec.weight @w_bf16 : memref<2x2xbf16, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    %[[Y:.+]] = tandem_exec.alloc : memref<3x2xf32
// CHECK-NEXT:    %[[X16:.+]] = tandem_exec.alloc : memref<3x2xbf16, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.launch @tandem_f32_to_bf16_3_2(%[[X]], %[[X16]]) on compute grid [1, 1, 1] block [32, 1, 1]
// CHECK-NEXT:    %[[T:.+]] = tandem_exec.alloc : memref<2x2xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.gemm @k1_matmul(%[[X16]], %[[W]]) -> %[[Y]]
// CHECK-SAME:      precision = "bf16"
// CHECK-SAME:      : memref<3x2xbf16, #tandem.device<"/device:GPU:0">>, memref<2x2xbf16, #tandem.device<"/device:GPU:0">> -> memref<3x2xf32, #tandem.device<"/device:GPU:0">> fallback 2
// CHECK-NEXT:    tandem_exec.launch @tandem_bf16_to_f32_2_2(%[[W]], %[[T]])
// CHECK-NEXT:    tandem_exec.launch @k1_matmul(%[[X]], %[[T]], %[[Y]])
// CHECK-NEXT:    tandem_exec.partition_end

// The conversion kernels: bf16 by integer rounding (ties to even, NaN kept
// quiet), and back by a shift.
// CHECK-LABEL: func.func private @tandem_f32_to_bf16_3_2(
// CHECK-SAME:    memref<3x2xf32>, %{{.+}}: memref<3x2xbf16>) attributes {tandem.kernel}
// CHECK:         linalg.generic
// CHECK:           arith.bitcast %{{.+}} : f32 to i32
// CHECK:           arith.constant 32767 : i32
// CHECK:           arith.cmpf uno
// CHECK:           arith.trunci %{{.+}} : i32 to i16
// CHECK:           arith.bitcast %{{.+}} : i16 to bf16
// CHECK-LABEL: func.func private @tandem_bf16_to_f32_2_2(
// CHECK:           arith.extui %{{.+}} : i16 to i32
// CHECK:           arith.shli
// CHECK:           arith.bitcast %{{.+}} : i32 to f32
func.func @weight_b(%x: memref<3x2xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<2x2xf32, #gpu>
  %y = tandem_exec.alloc : memref<3x2xf32, #gpu>
  tandem_exec.gemm @k1_matmul(%x, %w) -> %y on compute {batch = 1 : i64, epilogue = "none", k = 2 : i64, lda = 2 : i64, ldb = 2 : i64, ldc = 2 : i64, m = 3 : i64, n = 2 : i64, precision = "bf16", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : memref<3x2xf32, #gpu>, memref<2x2xf32, #gpu> -> memref<3x2xf32, #gpu> fallback 1
  tandem_exec.launch @k1_matmul(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<3x2xf32, #gpu>, memref<2x2xf32, #gpu>, memref<3x2xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// fp16: the weight A in binary16 (65520 and up overflow to infinity;
// 1.5 * 2^-25 rounds up to the smallest subnormal, 2^-24);
// two gemms reading the same activation share one conversion, through
// the f16 conversion kernel (arith.truncf).

#gpu = #tandem.device<"/device:GPU:0">

memref.global "private" constant @wa : memref<2x2xf32> = dense<[[65520.0, 4.4703484e-08], [0.5, 1.0]]>
memref.global "private" constant @wb : memref<2x2xf32> = dense<1.0>

func.func private @k1_matmul(%a: memref<2x2xf32>, %b: memref<2x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel} {
  linalg.matmul ins(%a, %b : memref<2x2xf32>, memref<2x3xf32>) outs(%c : memref<2x3xf32>)
  return
}

// CHECK-DAG:   memref.global "private" constant @wa_f16 : memref<2x2xf16> = dense<{{\[\[}}0x7C00, 5.960460e-08], [5.000000e-01, 1.000000e+00]]>
// CHECK-DAG:   memref.global "private" constant @wb_f16 : memref<2x2xf16> = dense<1.000000e+00>
// CHECK-LABEL: func.func @weight_a(
// CHECK-SAME:    %[[X:[^:]+]]: memref<2x3xf32
// CHECK-DAG:     %[[WA:.+]] = tandem_exec.weight @wa_f16 : memref<2x2xf16
// CHECK-DAG:     %[[WB:.+]] = tandem_exec.weight @wb_f16 : memref<2x2xf16
// CHECK:         %[[X16:.+]] = tandem_exec.alloc : memref<2x3xf16
// CHECK-NEXT:    tandem_exec.launch @tandem_f32_to_f16_2_3(%[[X]], %[[X16]])
// CHECK:         tandem_exec.gemm @k1_matmul(%[[WA]], %[[X16]]) -> %{{.+}} on compute
// CHECK-SAME:      fallback 2
// CHECK-NEXT:    tandem_exec.launch @tandem_f16_to_f32_2_2(%[[WA]],
// CHECK-NEXT:    tandem_exec.launch @k1_matmul(
// CHECK-NOT:     tandem_f32_to_f16
// CHECK:         tandem_exec.gemm @k1_matmul(%[[WB]], %[[X16]]) -> %{{.+}} on compute
// CHECK:       func.func private @tandem_f32_to_f16_2_3(
// CHECK:         arith.truncf %{{.+}} : f32 to f16
// CHECK:       func.func private @tandem_f16_to_f32_2_2(
// CHECK:         arith.extf %{{.+}} : f16 to f32
func.func @weight_a(%x: memref<2x3xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %wa = tandem_exec.weight @wa : memref<2x2xf32, #gpu>
  %wb = tandem_exec.weight @wb : memref<2x2xf32, #gpu>
  %y = tandem_exec.alloc : memref<2x3xf32, #gpu>
  tandem_exec.gemm @k1_matmul(%wa, %x) -> %y on compute {batch = 1 : i64, epilogue = "none", k = 2 : i64, lda = 2 : i64, ldb = 3 : i64, ldc = 3 : i64, m = 2 : i64, n = 3 : i64, precision = "fp16", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : memref<2x2xf32, #gpu>, memref<2x3xf32, #gpu> -> memref<2x3xf32, #gpu> fallback 1
  tandem_exec.launch @k1_matmul(%wa, %x, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x2xf32, #gpu>, memref<2x3xf32, #gpu>, memref<2x3xf32, #gpu>
  %z = tandem_exec.alloc : memref<2x3xf32, #gpu>
  tandem_exec.gemm @k1_matmul(%wb, %x) -> %z on compute {batch = 1 : i64, epilogue = "none", k = 2 : i64, lda = 2 : i64, ldb = 3 : i64, ldc = 3 : i64, m = 2 : i64, n = 3 : i64, precision = "fp16", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : memref<2x2xf32, #gpu>, memref<2x3xf32, #gpu> -> memref<2x3xf32, #gpu> fallback 1
  tandem_exec.launch @k1_matmul(%wb, %x, %z) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x2xf32, #gpu>, memref<2x3xf32, #gpu>, memref<2x3xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// Left alone: a tf32 gemm, a gemm of two activations (attention's
// products), and a bf16 gemm whose weight another kernel also reads.

#gpu = #tandem.device<"/device:GPU:0">

memref.global "private" constant @w : memref<2x2xf32> = dense<1.5>
memref.global "private" constant @shared : memref<2x2xf32> = dense<2.5>

func.func private @k1_matmul(%a: memref<2x2xf32>, %b: memref<2x2xf32>, %c: memref<2x2xf32>) attributes {tandem.kernel} {
  linalg.matmul ins(%a, %b : memref<2x2xf32>, memref<2x2xf32>) outs(%c : memref<2x2xf32>)
  return
}
func.func private @k2_copy(%a: memref<2x2xf32>, %c: memref<2x2xf32>) attributes {tandem.kernel} {
  linalg.copy ins(%a : memref<2x2xf32>) outs(%c : memref<2x2xf32>)
  return
}

// CHECK-LABEL: func.func @untouched(
// CHECK-NOT:     xbf16
// CHECK-NOT:     tandem_f32_to
// CHECK:         return
func.func @untouched(%x: memref<2x2xf32, #gpu>, %x2: memref<2x2xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @w : memref<2x2xf32, #gpu>
  %s = tandem_exec.weight @shared : memref<2x2xf32, #gpu>
  %y = tandem_exec.alloc : memref<2x2xf32, #gpu>
  tandem_exec.gemm @k1_matmul(%x, %w) -> %y on compute {batch = 1 : i64, epilogue = "none", k = 2 : i64, lda = 2 : i64, ldb = 2 : i64, ldc = 2 : i64, m = 2 : i64, n = 2 : i64, precision = "tf32", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu> -> memref<2x2xf32, #gpu> fallback 1
  tandem_exec.launch @k1_matmul(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu>
  %z = tandem_exec.alloc : memref<2x2xf32, #gpu>
  tandem_exec.gemm @k1_matmul(%x, %x2) -> %z on compute {batch = 1 : i64, epilogue = "none", k = 2 : i64, lda = 2 : i64, ldb = 2 : i64, ldc = 2 : i64, m = 2 : i64, n = 2 : i64, precision = "bf16", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu> -> memref<2x2xf32, #gpu> fallback 1
  tandem_exec.launch @k1_matmul(%x, %x2, %z) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu>
  %u = tandem_exec.alloc : memref<2x2xf32, #gpu>
  tandem_exec.gemm @k1_matmul(%x, %s) -> %u on compute {batch = 1 : i64, epilogue = "none", k = 2 : i64, lda = 2 : i64, ldb = 2 : i64, ldc = 2 : i64, m = 2 : i64, n = 2 : i64, precision = "bf16", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu> -> memref<2x2xf32, #gpu> fallback 1
  tandem_exec.launch @k1_matmul(%x, %s, %u) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu>
  %v = tandem_exec.alloc : memref<2x2xf32, #gpu>
  tandem_exec.launch @k2_copy(%s, %v) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x2xf32, #gpu>, memref<2x2xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// The activation's producer (an elementwise kernel of its own that writes
// it without reading it) writes it in bf16 itself, rounding what it
// yields; no conversion launch. The gemm's fallback widens it back into
// the f32 buffer its launches read, after widening the weight.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1) -> (d0, d1)>

memref.global "private" constant @wf : memref<4x4xf32> = dense<0.5>

func.func private @k0_relu(%x: memref<2x4xf32>, %y: memref<2x4xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x4xf32>) outs(%y : memref<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}
func.func private @k1_matmul(%a: memref<2x4xf32>, %b: memref<4x4xf32>, %c: memref<2x4xf32>) attributes {tandem.kernel} {
  linalg.matmul ins(%a, %b : memref<2x4xf32>, memref<4x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// AUTO:        func.func private @k0_relu(%{{.+}}: memref<2x4xf32>, %{{.+}}: memref<2x4xbf16>)
// AUTO:          ^bb0(%{{.+}}: f32, %{{.+}}: bf16):
// AUTO:            arith.maximumf
// AUTO:            arith.trunci %{{.+}} : i32 to i16
// AUTO:            %[[R:.+]] = arith.bitcast %{{.+}} : i16 to bf16
// AUTO-NEXT:       linalg.yield %[[R]] : bf16
// CHECK-LABEL: func.func @folded(
// AUTO-LABEL:  func.func @folded(
// AUTO:          %[[W:.+]] = tandem_exec.weight @wf_bf16
// AUTO:          %[[H:.+]] = tandem_exec.alloc : memref<2x4xf32
// AUTO:          %[[H16:.+]] = tandem_exec.alloc : memref<2x4xbf16
// AUTO-NEXT:     tandem_exec.launch @k0_relu(%{{.+}}, %[[H16]])
// AUTO:          tandem_exec.gemm @k1_matmul(%[[H16]], %[[W]]) -> %{{.+}} on compute
// AUTO-SAME:       fallback 3
// AUTO-NEXT:     tandem_exec.launch @tandem_bf16_to_f32_2_4(%[[H16]], %[[H]])
// AUTO-NEXT:     tandem_exec.launch @tandem_bf16_to_f32_4_4(%[[W]],
// AUTO-NEXT:     tandem_exec.launch @k1_matmul(%[[H]],
func.func @folded(%x: memref<2x4xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %w = tandem_exec.weight @wf : memref<4x4xf32, #gpu>
  %h = tandem_exec.alloc : memref<2x4xf32, #gpu>
  tandem_exec.launch @k0_relu(%x, %h) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #gpu>, memref<2x4xf32, #gpu>
  %y = tandem_exec.alloc : memref<2x4xf32, #gpu>
  tandem_exec.gemm @k1_matmul(%h, %w) -> %y on compute {batch = 1 : i64, epilogue = "none", k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, m = 2 : i64, n = 4 : i64, precision = "bf16", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : memref<2x4xf32, #gpu>, memref<4x4xf32, #gpu> -> memref<2x4xf32, #gpu> fallback 1
  tandem_exec.launch @k1_matmul(%h, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #gpu>, memref<4x4xf32, #gpu>, memref<2x4xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}
