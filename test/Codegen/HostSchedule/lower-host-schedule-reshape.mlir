// RUN: tandem-opt %s -tandem-lower-host-schedule | FileCheck %s

// A library conv reading its input through a collapse of a 5-D device
// buffer (tandem-form-library-convs, a channel shuffle's view) gets the
// buffer's own address: a reshape of an identity-layout buffer keeps its
// bytes where they are. The reshape goes with the schedule's other ops.

// CHECK-LABEL: func.func @m(
// CHECK-SAME:    %[[CTX:[^:]+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK:         %[[BASE:.+]] = llvm.call @tandem_sched_device_base(%[[CTX]])
// CHECK:         %[[X:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[W:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         %[[Y:.+]] = llvm.add %[[BASE]], %{{.+}} : i64
// CHECK:         llvm.call @tandem_sched_conv(%[[CTX]], %{{.+}}, %{{.+}}, %{{.+}}, %[[X]], %[[W]], %[[Y]], %{{.+}}, %{{.+}})
// CHECK-NOT:     memref.collapse_shape
// CHECK-NOT:     tandem_exec.

#gpu = #tandem.device<"/device:GPU:0">

func.func private @k_conv(%x: memref<1x5x5x2x2xf32>, %w: memref<3x1x1x4xf32>, %y: memref<1x5x5x3xf32>) attributes {tandem.kernel}

func.func @m() attributes {tandem_exec.device_arena_bytes = array<i64: 4096>} {
  %x = tandem_exec.alloc {offset = 0 : i64} : memref<1x5x5x2x2xf32, #gpu>
  %w = tandem_exec.alloc {offset = 512 : i64} : memref<3x1x1x4xf32, #gpu>
  %y = tandem_exec.alloc {offset = 1024 : i64} : memref<1x5x5x3xf32, #gpu>
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %c = memref.collapse_shape %x [[0], [1], [2], [3, 4]] : memref<1x5x5x2x2xf32, #gpu> into memref<1x5x5x4xf32, #gpu>
  tandem_exec.conv @k_conv(%c, %w) -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none", layout = "NHWC"} : memref<1x5x5x4xf32, #gpu>, memref<3x1x1x4xf32, #gpu> -> memref<1x5x5x3xf32, #gpu> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x5x5x2x2xf32, #gpu>, memref<3x1x1x4xf32, #gpu>, memref<1x5x5x3xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}
