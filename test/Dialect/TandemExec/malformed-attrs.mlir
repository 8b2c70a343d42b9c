// Malformed attributes and overflowing sizes of tandem_exec ops: each is a
// diagnostic, never a crash or a wrapped bound.
// RUN: tandem-opt %s -split-input-file -verify-diagnostics

// An arena offset whose end overflows int64.
func.func @alloc_offset_overflow() {
  // expected-error @+1 {{has offset 9223372036854775807, whose end (plus 16 bytes of 'memref<4xf32, #tandem.device<"/device:GPU:0">>') overflows int64}}
  %0 = tandem_exec.alloc {offset = 9223372036854775807 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

// Elements without a bit width.
func.func @alloc_complex() {
  // expected-error @+1 {{needs int or float elements, got 'memref<4xcomplex<f32>, #tandem.device<"/device:GPU:0">>'}}
  %0 = tandem_exec.alloc {offset = 0 : i64} : memref<4xcomplex<f32>, #tandem.device<"/device:GPU:0">>
  return
}

// -----

// A memref whose size in bytes overflows int64.
func.func @huge_memref(%x: memref<9223372036854775807xf32>, %d: memref<9223372036854775807xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand #0 has type 'memref<9223372036854775807xf32>', whose size in bytes overflows int64 (at most 9223372036854775807 bytes)}}
  tandem_exec.copy %x, %d on h2d bytes 16 : memref<9223372036854775807xf32>, memref<9223372036854775807xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

// A GEMM leading dimension whose span overflows int64 (it used to wrap and pass the bounds check).
func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}
func.func @gemm_ld_overflow(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand a spans more than int64 elements (batch 1, stride 0, 2 rows, leading dimension 9223372036854775807)}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 9223372036854775807 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

// Likewise a batch stride.
func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}
func.func @gemm_stride_overflow(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand a spans more than int64 elements (batch 3, stride 4611686018427387904, 2 rows, leading dimension 4)}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 3 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 4611686018427387904 : i64, stride_b = 0 : i64, stride_c = 6 : i64, epilogue = "none"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

// A property of the wrong type in the generic form.
func.func @launch_grid_type(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{Invalid attribute `grid` in property conversion: array<i32: 1, 1, 1>}}
  "tandem_exec.launch"(%d) <{kernel = @k, grid = array<i32: 1, 1, 1>, block = array<i64: 1, 1, 1>, stream = 0 : i32}> : (memref<4xf32, #tandem.device<"/device:GPU:0">>) -> ()
  return
}
