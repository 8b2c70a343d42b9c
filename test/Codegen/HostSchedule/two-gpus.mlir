// RUN: tandem-opt %s -tandem-plan-device-memory -tandem-lower-host-schedule | FileCheck %s

// A schedule on two GPUs: each has its own device arena (planned
// separately: each holds a weight and two buffers), its arena base
// (tandem_sched_device_base_of for GPU 1) and its streams, numbered
// 3 * GPU + kind (GPU 1: compute 3, h2d 4, d2h 5). A weight both GPUs read
// is uploaded into each arena.

// CHECK:       module attributes {tandem_exec.program = {device_arena_sizes = array<i64: 768, 768>,
// CHECK-SAME:    weights = [{bytes = 16 : i64, device = 1 : i64, global = @w, offset = 0 : i64}, {bytes = 16 : i64, device = 0 : i64, global = @w, offset = 0 : i64}]}

// CHECK-LABEL: func.func @m(
// CHECK:         %[[BASE1:.+]] = llvm.call @tandem_sched_device_base_of(%{{.+}}, %{{.+}}) : (!llvm.ptr, i32) -> i64
// CHECK:         %[[BASE0:.+]] = llvm.call @tandem_sched_device_base(%{{.+}}) : (!llvm.ptr) -> i64
// CHECK:         %[[OFF:.+]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT:    %[[XD1:.+]] = llvm.add %[[BASE1]], %[[OFF]] : i64
// CHECK:         %[[H2D1:.+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         llvm.call @tandem_sched_copy_h2d(%{{.+}}, %[[H2D1]], %[[XD1]],
// CHECK:         %[[BEGIN1:.+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    llvm.call @tandem_sched_partition_begin(%{{.+}}, %{{.+}}, %[[BEGIN1]])
// CHECK:         %[[WAIT1:.+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK:         llvm.call @tandem_sched_wait(%{{.+}}, %[[WAIT1]],
// CHECK:         %[[LAUNCH1:.+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK:         llvm.call @tandem_sched_launch(%{{.+}}, %[[LAUNCH1]],
// CHECK:         llvm.call @tandem_sched_wait(
// CHECK:         %[[D2H1:.+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK:         llvm.call @tandem_sched_copy_d2h(%{{.+}}, %[[D2H1]],
// CHECK:         %[[YD0:.+]] = llvm.add %[[BASE0]], %{{.+}} : i64
// CHECK:         %[[H2D0:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.call @tandem_sched_copy_h2d(%{{.+}}, %[[H2D0]], %{{.+}}, %{{.+}}, %{{.+}})
memref.global "private" constant @w : memref<4xf32> = dense<1.0>
func.func private @k(memref<4xf32>, memref<4xf32>, memref<4xf32>) attributes {tandem.kernel}
func.func @m(%x: memref<4xf32>, %y: memref<4xf32>) {
  %w1 = tandem_exec.weight @w : memref<4xf32, #tandem.device<"/device:GPU:1">>
  %x1 = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:1">>
  %y1 = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:1">>
  tandem_exec.copy %x, %x1 on h2d[1] bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:1">>
  %e0 = tandem_exec.record on h2d[1]
  tandem_exec.partition_begin "m_p0_gpu1" on compute[1]
  tandem_exec.wait %e0 on compute[1]
  tandem_exec.launch @k(%x1, %w1, %y1) on compute[1] grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:1">>, memref<4xf32, #tandem.device<"/device:GPU:1">>, memref<4xf32, #tandem.device<"/device:GPU:1">>
  tandem_exec.partition_end "m_p0_gpu1" on compute[1]
  %e1 = tandem_exec.record on compute[1]
  tandem_exec.wait %e1 on d2h[1]
  tandem_exec.copy %y1, %y on d2h[1] bytes 16 : memref<4xf32, #tandem.device<"/device:GPU:1">>, memref<4xf32>
  %e2 = tandem_exec.record on d2h[1]
  tandem_exec.host_wait %e2
  %w0 = tandem_exec.weight @w : memref<4xf32, #tandem.device<"/device:GPU:0">>
  %y0 = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:0">>
  %z0 = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.copy %y, %y0 on h2d bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  %e3 = tandem_exec.record on h2d
  tandem_exec.partition_begin "m_p1_gpu0" on compute
  tandem_exec.wait %e3 on compute
  tandem_exec.launch @k(%y0, %w0, %z0) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.partition_end "m_p1_gpu0" on compute
  %e4 = tandem_exec.record on compute
  tandem_exec.wait %e4 on d2h
  tandem_exec.copy %z0, %x on d2h bytes 16 : memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32>
  %e5 = tandem_exec.record on d2h
  tandem_exec.host_wait %e5
  return
}
