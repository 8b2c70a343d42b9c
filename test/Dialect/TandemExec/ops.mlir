// RUN: tandem-opt %s | tandem-opt | FileCheck %s

// Every tandem_exec op round-trips through its custom syntax.

memref.global "private" constant @w : memref<4xf32> = dense<1.0>

func.func private @k(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel}

// CHECK-LABEL: func.func @schedule
func.func @schedule(%x: memref<4xf32>, %y: memref<4xf32>) {
  // CHECK: %[[XD:.+]] = tandem_exec.alloc {offset = 0 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  %xd = tandem_exec.alloc {offset = 0 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  // CHECK: %[[W:.+]] = tandem_exec.weight @w {offset = 256 : i64}
  %w = tandem_exec.weight @w {offset = 256 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  // CHECK: tandem_exec.copy %{{.+}}, %[[XD]] on h2d bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.copy %x, %xd on h2d bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  // CHECK: %[[E:.+]] = tandem_exec.record on h2d
  %e = tandem_exec.record on h2d
  // CHECK: tandem_exec.partition_begin "m_p0_gpu0" on compute
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  // CHECK: tandem_exec.wait %[[E]] on compute
  tandem_exec.wait %e on compute
  // CHECK: tandem_exec.launch @k(%[[XD]], %[[W]]) on compute grid [1, 1, 1] block [4, 1, 1]
  tandem_exec.launch @k(%xd, %w) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  // CHECK: tandem_exec.partition_end "m_p0_gpu0" on compute
  tandem_exec.partition_end "m_p0_gpu0" on compute
  %c = tandem_exec.record on compute
  tandem_exec.wait %c on d2h
  // CHECK: tandem_exec.copy %[[W]], %{{.+}} on d2h bytes 16
  tandem_exec.copy %w, %y on d2h bytes 16 : memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32>
  %d = tandem_exec.record on d2h
  // CHECK: tandem_exec.host_wait
  tandem_exec.host_wait %d
  // CHECK: tandem_exec.partition_begin "m_p1_cpu0"{{$}}
  tandem_exec.partition_begin "m_p1_cpu0"
  tandem_exec.partition_end "m_p1_cpu0"
  return
}

// CHECK-LABEL: func.func @unscheduled
func.func @unscheduled(%x: memref<4xf32>, %xd: memref<4xf32>) {
  // CHECK: tandem_exec.transfer %{{.+}}, %{{.+}} : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  return
}

// A library GEMM with its generated fallback launches; optional bias and
// transposes round-trip.
func.func private @k_fill(%c: memref<2x3xf32>) attributes {tandem.kernel}
func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

// CHECK-LABEL: func.func @gemm
func.func @gemm(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %bias: memref<3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // CHECK: tandem_exec.gemm @k_mm(%{{.+}}, %{{.+}}, bias %{{.+}}) -> %{{.+}} on compute {batch = 1 : i64, epilogue = "bias_relu", k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, m = 2 : i64, n = 3 : i64, precision = "bf16", stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64} : {{.+}} -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 2
  // CHECK-NEXT: tandem_exec.launch @k_fill
  // CHECK-NEXT: tandem_exec.launch @k_mm
  tandem_exec.gemm @k_mm(%a, %b, bias %bias) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "bias_relu", precision = "bf16"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 2
  tandem_exec.launch @k_fill(%c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  // CHECK: tandem_exec.gemm @k_mm(%{{[^,]+}}, %{{[^,]+}}) -> %{{.+}} on compute {{{.+}}trans_a, trans_b} : memref<2x4xf32, {{.+}}>, memref<4x3xf32, {{.+}}> -> memref<2x3xf32, {{.+}}> fallback 1
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 2 : i64, ldb = 4 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none", trans_a, trans_b} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// A library conv with a bias, a residual and its fallback launches; one
// without either (two optional operands round-trip independently).
func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x1x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x1x3x3xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4xf32, #tandem.device<"/device:GPU:0">>, %z: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // CHECK: tandem_exec.conv @k_conv(%{{[^,]+}}, %{{[^)]+}}) bias %{{[^ ]+}} residual %{{[^ ]+}} -> %{{.+}} on compute {activation = "relu6", dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 0, 0>, precision = "fp16", strides = array<i64: 1, 1>} : memref<1x2x5x5xf32, {{.+}}>, memref<4x1x3x3xf32, {{.+}}> bias memref<4xf32, {{.+}}> residual memref<1x4x3x3xf32, {{.+}}> -> memref<1x4x3x3xf32, {{.+}}> fallback 1
  // CHECK-NEXT: tandem_exec.launch @k_conv
  tandem_exec.conv @k_conv(%x, %w) bias %b residual %z -> %y on compute {groups = 2 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "relu6", precision = "fp16"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x1x3x3xf32, #tandem.device<"/device:GPU:0">> bias memref<4xf32, #tandem.device<"/device:GPU:0">> residual memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x1x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  // CHECK: tandem_exec.conv @k_conv(%{{[^,]+}}, %{{[^)]+}}) residual %{{[^ ]+}} -> %{{.+}} on compute {activation = "swish", dilations = array<i64: 2, 1>, groups = 2 : i64, pads = array<i64: 1, 0>, strides = array<i64: 1, 1>} : memref<1x2x5x5xf32, {{.+}}>, memref<4x1x3x3xf32, {{.+}}> residual memref<1x4x3x3xf32, {{.+}}> -> memref<1x4x3x3xf32, {{.+}}> fallback 1
  tandem_exec.conv @k_conv(%x, %w) residual %z -> %y on compute {groups = 2 : i64, strides = array<i64: 1, 1>, pads = array<i64: 1, 0>, dilations = array<i64: 2, 1>, activation = "swish"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x1x3x3xf32, #tandem.device<"/device:GPU:0">> residual memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x1x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  // CHECK: tandem_exec.conv @k_conv(%{{[^,]+}}, %{{[^)]+}}) -> %{{.+}} on compute {activation = "none",
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 2 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x1x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x1x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// GPU 1's streams print with their GPU; GPU 0's without.
// CHECK-LABEL: func.func @second_gpu
func.func @second_gpu(%x: memref<4xf32>) {
  %d = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:1">>
  // CHECK: tandem_exec.copy %{{.+}}, %{{.+}} on h2d[1] bytes 16
  tandem_exec.copy %x, %d on h2d[1] bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:1">>
  // CHECK: tandem_exec.record on h2d[1]
  %e = tandem_exec.record on h2d[1]
  // CHECK: tandem_exec.partition_begin "m_p0_gpu1" on compute[1]
  tandem_exec.partition_begin "m_p0_gpu1" on compute[1]
  // CHECK: tandem_exec.wait %{{.+}} on compute[1]
  tandem_exec.wait %e on compute[1]
  // CHECK: tandem_exec.partition_end "m_p0_gpu1" on compute[1]
  tandem_exec.partition_end "m_p0_gpu1" on compute[1]
  // The attribute on its own.
  // CHECK: tandem_exec.record on d2h {tag = #tandem_exec.stream<compute, 1>}
  %f = tandem_exec.record on d2h[0] {tag = #tandem_exec.stream<compute, 1>}
  return
}
