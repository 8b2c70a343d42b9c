// RUN: tandem-opt %s -tandem-lower-host-schedule | FileCheck %s

// A conv becomes a call of tandem_sched_conv with a constant descriptor (the
// tandem_conv_desc_t fields as i64s), the number of its named kernel and the
// device pointers (bias and z 0 when absent); the fallback launches that
// follow it move into an scf.if that runs them when the call returns 0.

// The program lists the descriptors (its convolution table, prepared at
// model creation).
// CHECK:       module attributes {tandem_exec.program = {convs = [@__tandem_conv_desc_0, @__tandem_conv_desc_1, @__tandem_conv_desc_2],

// Descriptors: n, c, h, w, k, r, s, groups, p, q, strides, pads,
// dilations, activation (1 = relu, 2 = relu6), flags (1 bias | 2 residual,
// 4 = TF32, 16 = the filter is a weight of the model).
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_conv_desc_0(dense<[1, 2, 5, 5, 4, 3, 3, 1, 5, 5, 1, 1, 1, 1, 1, 1, 1, 3]> : tensor<18xi64>) {{.*}}: !llvm.array<18 x i64>
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_conv_desc_1(dense<[1, 2, 5, 5, 4, 3, 3, 2, 2, 2, 2, 2, 0, 0, 1, 1, 2, 8]> : tensor<18xi64>)
// CHECK-DAG:   llvm.mlir.global private constant @__tandem_conv_desc_2(dense<[1, 2, 5, 5, 4, 3, 3, 1, 5, 5, 1, 1, 1, 1, 1, 1, 0, 16]> : tensor<18xi64>)

// CHECK-LABEL: func.func @m(
// CHECK-SAME:    %[[CTX:[^:]+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK:         %[[BASE:.+]] = llvm.call @tandem_sched_device_base(%[[CTX]])
// CHECK:         %[[X:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[W:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[W2:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[B:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[Z:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[T:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[Y:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[Y2:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[D0:.+]] = llvm.mlir.addressof @__tandem_conv_desc_0 : !llvm.ptr
// CHECK-NEXT:    %[[DONE:.+]] = llvm.call @tandem_sched_conv(%[[CTX]], %{{.+}}, %{{.+}}, %[[D0]], %[[X]], %[[W]], %[[Y]], %[[B]], %[[Z]]) : (!llvm.ptr, i32, i32, !llvm.ptr, i64, i64, i64, i64, i64) -> i32
// CHECK:         %[[FALLBACK:.+]] = llvm.icmp "eq" %[[DONE]], %{{.+}} : i32
// CHECK-NEXT:    scf.if %[[FALLBACK]] {
// CHECK:           llvm.call @tandem_sched_launch(
// CHECK:           llvm.call @tandem_sched_launch(
// CHECK-NEXT:    }
// The second conv has neither a bias nor a residual: 0 for both.
// CHECK:         %[[ZERO:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         %[[ZERO2:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         llvm.call @tandem_sched_conv(%[[CTX]], %{{.+}}, %{{.+}}, %{{.+}}, %[[X]], %[[W2]], %[[Y2]], %[[ZERO]], %[[ZERO2]])
// CHECK:         scf.if
// CHECK-NOT:   tandem_exec.

#gpu = #tandem.device<"/device:GPU:0">

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x5x5xf32>) attributes {tandem.kernel}
func.func private @k_add(%a: memref<1x4x5x5xf32>, %z: memref<1x4x5x5xf32>, %y: memref<1x4x5x5xf32>) attributes {tandem.kernel}
func.func private @k_dw(%x: memref<1x2x5x5xf32>, %w: memref<4x1x3x3xf32>, %y: memref<1x4x2x2xf32>) attributes {tandem.kernel}

memref.global "private" constant @__constant_w : memref<4x2x3x3xf32> = dense<1.0>

func.func @m() attributes {tandem_exec.device_arena_bytes = array<i64: 8192>} {
  %x = tandem_exec.alloc {offset = 0 : i64} : memref<1x2x5x5xf32, #gpu>
  %w = tandem_exec.alloc {offset = 256 : i64} : memref<4x2x3x3xf32, #gpu>
  %w2 = tandem_exec.alloc {offset = 768 : i64} : memref<4x1x3x3xf32, #gpu>
  %b = tandem_exec.alloc {offset = 1024 : i64} : memref<4xf32, #gpu>
  %z = tandem_exec.alloc {offset = 1280 : i64} : memref<1x4x5x5xf32, #gpu>
  %t = tandem_exec.alloc {offset = 1792 : i64} : memref<1x4x5x5xf32, #gpu>
  %y = tandem_exec.alloc {offset = 2304 : i64} : memref<1x4x5x5xf32, #gpu>
  %y2 = tandem_exec.alloc {offset = 2816 : i64} : memref<1x4x2x2xf32, #gpu>
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  tandem_exec.conv @k_conv(%x, %w) bias %b residual %z -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, activation = "relu"} : memref<1x2x5x5xf32, #gpu>, memref<4x2x3x3xf32, #gpu> bias memref<4xf32, #gpu> residual memref<1x4x5x5xf32, #gpu> -> memref<1x4x5x5xf32, #gpu> fallback 2
  tandem_exec.launch @k_conv(%x, %w, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #gpu>, memref<4x2x3x3xf32, #gpu>, memref<1x4x5x5xf32, #gpu>
  tandem_exec.launch @k_add(%t, %z, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x4x5x5xf32, #gpu>, memref<1x4x5x5xf32, #gpu>, memref<1x4x5x5xf32, #gpu>
  tandem_exec.conv @k_dw(%x, %w2) -> %y2 on compute {groups = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "relu6", precision = "fp16"} : memref<1x2x5x5xf32, #gpu>, memref<4x1x3x3xf32, #gpu> -> memref<1x4x2x2xf32, #gpu> fallback 1
  tandem_exec.launch @k_dw(%x, %w2, %y2) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #gpu>, memref<4x1x3x3xf32, #gpu>, memref<1x4x2x2xf32, #gpu>
  %ww = tandem_exec.weight @__constant_w {offset = 3072 : i64} : memref<4x2x3x3xf32, #gpu>
  %y3 = tandem_exec.alloc {offset = 3584 : i64} : memref<1x4x5x5xf32, #gpu>
  tandem_exec.conv @k_conv(%x, %ww) -> %y3 on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #gpu>, memref<4x2x3x3xf32, #gpu> -> memref<1x4x5x5xf32, #gpu> fallback 1
  tandem_exec.launch @k_conv(%x, %ww, %y3) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #gpu>, memref<4x2x3x3xf32, #gpu>, memref<1x4x5x5xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}
