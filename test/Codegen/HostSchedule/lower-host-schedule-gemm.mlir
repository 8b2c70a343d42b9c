// RUN: tandem-opt %s -tandem-lower-host-schedule | FileCheck %s

// A gemm becomes a call of tandem_sched_gemm with a constant descriptor (the
// tandem_gemm_desc_t fields as i64s), the number of its named kernel and the
// device pointers (bias 0 without one); the fallback launches that follow it
// move into an scf.if that runs them when the call returns 0. The named
// kernel is in the program's table.

// CHECK:       module attributes {tandem_exec.program = {device_arena_sizes = array<i64: 4096>,
// CHECK-SAME:    kernels = [{name = "k_mm", num_args = 3 : i64}, {name = "k_fill", num_args = 1 : i64}, {name = "k_bias", num_args = 3 : i64}, {name = "k_mm3", num_args = 3 : i64}]

// Descriptors: batch, m, n, k, trans_a, trans_b, lda, ldb, ldc, strides,
// epilogue (3 = bias_relu, 0 = none), flags (4 = FP16; 16 = B is a weight
// of the model, 8 = A is).
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_gemm_desc_0(dense<[1, 2, 3, 4, 0, 0, 4, 3, 3, 0, 0, 0, 3, 0]> : tensor<14xi64>) {{.*}}: !llvm.array<14 x i64>
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_gemm_desc_1(dense<[1, 2, 3, 4, 1, 1, 2, 4, 3, 0, 0, 0, 0, 4]> : tensor<14xi64>)
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_gemm_desc_2(dense<[1, 2, 3, 4, 0, 0, 4, 3, 3, 0, 0, 0, 0, 16]> : tensor<14xi64>)
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_gemm_desc_3(dense<[1, 4, 2, 3, 0, 0, 3, 2, 2, 0, 0, 0, 0, 8]> : tensor<14xi64>)
// 50 = BF16 (2) | B is a weight (16) | A and B hold 16-bit elements (32).
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_gemm_desc_4(dense<[1, 2, 3, 4, 0, 0, 4, 3, 3, 0, 0, 0, 0, 50]> : tensor<14xi64>)

// CHECK-LABEL: func.func @m(
// CHECK-SAME:    %[[CTX:[^:]+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK:         %[[BASE:.+]] = llvm.call @tandem_sched_device_base(%[[CTX]])
// CHECK:         %[[A:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[B:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[BIAS:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[T:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[C:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         llvm.call @tandem_sched_partition_begin
// CHECK-NEXT:    %[[S:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[K0:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[D0:.+]] = llvm.mlir.addressof @__tandem_gemm_desc_0 : !llvm.ptr
// CHECK-NEXT:    %[[DONE:.+]] = llvm.call @tandem_sched_gemm(%[[CTX]], %[[S]], %[[K0]], %[[D0]], %[[A]], %[[B]], %[[C]], %[[BIAS]]) : (!llvm.ptr, i32, i32, !llvm.ptr, i64, i64, i64, i64) -> i32
// CHECK:         %[[FALLBACK:.+]] = llvm.icmp "eq" %[[DONE]], %{{.+}} : i32
// CHECK-NEXT:    scf.if %[[FALLBACK]] {
// CHECK:           llvm.call @tandem_sched_launch(%[[CTX]], %{{.+}}, %{{.+}}, {{.+}})
// CHECK:           llvm.call @tandem_sched_launch(
// CHECK:           llvm.call @tandem_sched_launch(
// CHECK-NEXT:    }
// The second gemm has no bias: 0 is passed.
// CHECK:         %[[ZERO:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         llvm.call @tandem_sched_gemm(%[[CTX]], %{{.+}}, %{{.+}}, %{{.+}}, %[[A]], %[[B]], %[[C]], %[[ZERO]])
// CHECK:         scf.if
// CHECK-NOT:   tandem_exec.

#gpu = #tandem.device<"/device:GPU:0">

func.func private @k_fill(%c: memref<2x3xf32>) attributes {tandem.kernel}
func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}
func.func private @k_mm3(%a: memref<4x3xf32>, %b: memref<3x2xf32>, %c: memref<4x2xf32>) attributes {tandem.kernel}
func.func private @k_bias(%c: memref<2x3xf32>, %b: memref<3xf32>, %y: memref<2x3xf32>) attributes {tandem.kernel}

memref.global "private" constant @__constant_4x3xf32 : memref<4x3xf32> = dense<1.0>
memref.global "private" constant @__constant_4x3xbf16 : memref<4x3xbf16> = dense<1.0>

func.func @m() attributes {tandem_exec.device_arena_bytes = array<i64: 4096>} {
  %a = tandem_exec.alloc {offset = 0 : i64} : memref<2x4xf32, #gpu>
  %b = tandem_exec.alloc {offset = 256 : i64} : memref<4x3xf32, #gpu>
  %bias = tandem_exec.alloc {offset = 512 : i64} : memref<3xf32, #gpu>
  %t = tandem_exec.alloc {offset = 768 : i64} : memref<2x3xf32, #gpu>
  %c = tandem_exec.alloc {offset = 1024 : i64} : memref<2x3xf32, #gpu>
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  tandem_exec.gemm @k_mm(%a, %b, bias %bias) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "bias_relu"} : memref<2x4xf32, #gpu>, memref<4x3xf32, #gpu>, memref<3xf32, #gpu> -> memref<2x3xf32, #gpu> fallback 3
  tandem_exec.launch @k_fill(%t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x3xf32, #gpu>
  tandem_exec.launch @k_mm(%a, %b, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #gpu>, memref<4x3xf32, #gpu>, memref<2x3xf32, #gpu>
  tandem_exec.launch @k_bias(%t, %bias, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x3xf32, #gpu>, memref<3xf32, #gpu>, memref<2x3xf32, #gpu>
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 2 : i64, ldb = 4 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none", trans_a, trans_b, precision = "fp16"} : memref<2x4xf32, #gpu>, memref<4x3xf32, #gpu> -> memref<2x3xf32, #gpu> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #gpu>, memref<4x3xf32, #gpu>, memref<2x3xf32, #gpu>
  %w = tandem_exec.weight @__constant_4x3xf32 {offset = 2048 : i64} : memref<4x3xf32, #gpu>
  tandem_exec.gemm @k_mm(%a, %w) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<2x4xf32, #gpu>, memref<4x3xf32, #gpu> -> memref<2x3xf32, #gpu> fallback 1
  tandem_exec.launch @k_mm(%a, %w, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #gpu>, memref<4x3xf32, #gpu>, memref<2x3xf32, #gpu>
  %x3 = tandem_exec.alloc {offset = 2304 : i64} : memref<3x2xf32, #gpu>
  %c3 = tandem_exec.alloc {offset = 2560 : i64} : memref<4x2xf32, #gpu>
  tandem_exec.gemm @k_mm3(%w, %x3) -> %c3 on compute {batch = 1 : i64, m = 4 : i64, n = 2 : i64, k = 3 : i64, lda = 3 : i64, ldb = 2 : i64, ldc = 2 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<4x3xf32, #gpu>, memref<3x2xf32, #gpu> -> memref<4x2xf32, #gpu> fallback 1
  tandem_exec.launch @k_mm3(%w, %x3, %c3) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4x3xf32, #gpu>, memref<3x2xf32, #gpu>, memref<4x2xf32, #gpu>
  %a16 = tandem_exec.alloc {offset = 2816 : i64} : memref<2x4xbf16, #gpu>
  %w16 = tandem_exec.weight @__constant_4x3xbf16 {offset = 3072 : i64} : memref<4x3xbf16, #gpu>
  tandem_exec.gemm @k_mm(%a16, %w16) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none", precision = "bf16"} : memref<2x4xbf16, #gpu>, memref<4x3xbf16, #gpu> -> memref<2x3xf32, #gpu> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #gpu>, memref<4x3xf32, #gpu>, memref<2x3xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}
