// RUN: tandem-opt %s -tandem-lower-host-schedule | FileCheck %s

// The schedule becomes calls of the runtime's tandem_sched_* functions with
// the model's exec context (added as the trailing argument when missing).
// Device pointers are the arena base plus the planned offsets; kernels,
// events and partitions are numbered in schedule order, and what the
// artifact needs is left in the module's tandem_exec.program attribute.

// CHECK:       module attributes {tandem_exec.program = {device_arena_sizes = array<i64: 1024>,
// CHECK-SAME:    kernels = [{name = "k_add", num_args = 3 : i64}, {name = "k_neg", num_args = 2 : i64}],
// CHECK-SAME:    model = "m", num_events = 3 : i64,
// CHECK-SAME:    partitions = ["m_p0_gpu0", "m_p1_cpu0"],
// CHECK-SAME:    weights = [{bytes = 16 : i64, device = 0 : i64, global = @w, offset = 0 : i64}]}

// CHECK-LABEL: func.func @m(
// CHECK-SAME:    %[[X:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4xf32>, %[[CTX:[^:]+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK:         %[[BASE:.+]] = llvm.call @tandem_sched_device_base(%[[CTX]]) : (!llvm.ptr) -> i64
// CHECK:         %[[ARGS0:.+]] = llvm.alloca %{{.+}} x !llvm.array<3 x i64>
// CHECK:         %[[ARGS1:.+]] = llvm.alloca %{{.+}} x !llvm.array<2 x i64>
// CHECK:         %[[XOFF:.+]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT:    %[[XD:.+]] = llvm.add %[[BASE]], %[[XOFF]] : i64
// CHECK:         %[[XPTR:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[XHOST:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.call @tandem_sched_copy_h2d(%[[CTX]], %{{.+}}, %[[XD]], %[[XHOST]], %{{.+}}) : (!llvm.ptr, i32, i64, !llvm.ptr, i64) -> ()
// CHECK:         llvm.call @tandem_sched_record(%[[CTX]], %{{.+}}, %{{.+}})
// CHECK:         %[[WOFF:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[WD:.+]] = llvm.add %[[BASE]], %[[WOFF]] : i64
// CHECK:         llvm.call @tandem_sched_partition_begin(%[[CTX]], %{{.+}}, %{{.+}}) : (!llvm.ptr, i32, i32) -> ()
// CHECK:         llvm.call @tandem_sched_wait(%[[CTX]], %{{.+}}, %{{.+}}) : (!llvm.ptr, i32, i32) -> ()
// CHECK:         %[[SLOT0:.+]] = llvm.getelementptr %[[ARGS0]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[XD]], %[[SLOT0]] : i64, !llvm.ptr
// CHECK:         %[[SLOT1:.+]] = llvm.getelementptr %[[ARGS0]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[WD]], %[[SLOT1]] : i64, !llvm.ptr
// CHECK:         llvm.getelementptr %[[ARGS0]][2]
// CHECK:         %[[S0:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[K0:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[GX:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[GY:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[GZ:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[BX:.+]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT:    %[[BY:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[BZ:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @tandem_sched_launch(%[[CTX]], %[[S0]], %[[K0]], %[[GX]], %[[GY]], %[[GZ]], %[[BX]], %[[BY]], %[[BZ]], %[[ARGS0]]) : (!llvm.ptr, i32, i32, i32, i32, i32, i32, i32, i32, !llvm.ptr) -> ()
// The second kernel is number 1.
// CHECK:         llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[K1:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.call @tandem_sched_launch(%[[CTX]], %{{[^,]+}}, %[[K1]], {{.+}}, %[[ARGS1]])
// CHECK:         llvm.call @tandem_sched_partition_end(%[[CTX]]
// CHECK:         llvm.call @tandem_sched_copy_d2h(%[[CTX]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!llvm.ptr, i32, !llvm.ptr, i64, i64) -> ()
// CHECK:         llvm.call @tandem_sched_record(%[[CTX]]
// CHECK-NEXT:    %[[EV:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @tandem_sched_host_wait(%[[CTX]], %[[EV]]) : (!llvm.ptr, i32) -> ()
// A CPU partition's markers carry stream -1.
// CHECK:         %[[NOSTREAM:.+]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT:    llvm.call @tandem_sched_partition_begin(%[[CTX]], %{{.+}}, %[[NOSTREAM]])
// CHECK:         linalg.abs
// CHECK:         llvm.call @tandem_sched_partition_end
// CHECK-NEXT:    return
// CHECK-NOT:   tandem_exec.

memref.global "private" constant @w : memref<4xf32> = dense<1.0>
func.func private @k_add(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) attributes {tandem.kernel}
func.func private @k_neg(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel}

func.func @m(%x: memref<4xf32>, %y: memref<4xf32>) attributes {tandem_exec.device_arena_bytes = array<i64: 1024>} {
  %xd = tandem_exec.alloc {offset = 256 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.copy %x, %xd on h2d bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  %up = tandem_exec.record on h2d
  %t = tandem_exec.alloc {offset = 512 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  %yd = tandem_exec.alloc {offset = 768 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  %w = tandem_exec.weight @w {offset = 0 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  tandem_exec.wait %up on compute
  tandem_exec.launch @k_add(%xd, %w, %t) on compute grid [2, 1, 1] block [64, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.launch @k_neg(%t, %yd) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  %done = tandem_exec.record on compute
  tandem_exec.wait %done on d2h
  %h = memref.alloc() : memref<4xf32>
  tandem_exec.copy %yd, %h on d2h bytes 16 : memref<4xf32, #tandem.device<"/device:GPU:0">>, memref<4xf32>
  %down = tandem_exec.record on d2h
  tandem_exec.host_wait %down
  tandem_exec.partition_begin "m_p1_cpu0"
  linalg.abs ins(%h : memref<4xf32>) outs(%y : memref<4xf32>)
  tandem_exec.partition_end "m_p1_cpu0"
  return
}
