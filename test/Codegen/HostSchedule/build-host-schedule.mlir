// RUN: tandem-opt %s -split-input-file -tandem-build-host-schedule | FileCheck %s

// Hand-written bufferised models in the contract form of docs/GPU.md: the
// model function transfers buffers and calls partitions; a GPU partition
// allocates temporaries, reads weights and calls `tandem.kernel` functions
// carrying `tandem.launch_dims`.

// A model entirely on the GPU: the input is uploaded on h2d, compute waits
// for it before the first launch, the output comes back on d2h after
// compute, and the host waits once, before returning.

// CHECK-LABEL: func.func @gpu_only(
// CHECK-SAME:    %[[X:.+]]: memref<4xf32>, %[[Y:.+]]: memref<4xf32>)
// CHECK-NEXT:    %[[XD:.+]] = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.copy %[[X]], %[[XD]] on h2d bytes 16
// CHECK-NEXT:    %[[UP:.+]] = tandem_exec.record on h2d
// CHECK-NEXT:    %[[YD:.+]] = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.partition_begin "gpu_only_p0_gpu0" on compute
// CHECK-NEXT:    %[[T:.+]] = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.wait %[[UP]] on compute
// CHECK-NEXT:    tandem_exec.launch @k_exp(%[[XD]], %[[T]]) on compute grid [1, 1, 1] block [4, 1, 1]
// CHECK-NEXT:    tandem_exec.launch @k_neg(%[[T]], %[[YD]]) on compute grid [2, 1, 1] block [2, 1, 1]
// CHECK-NEXT:    tandem_exec.partition_end "gpu_only_p0_gpu0" on compute
// CHECK-NEXT:    %[[DONE:.+]] = tandem_exec.record on compute
// CHECK-NEXT:    tandem_exec.wait %[[DONE]] on d2h
// CHECK-NEXT:    tandem_exec.copy %[[YD]], %[[Y]] on d2h bytes 16
// CHECK-NEXT:    %[[DOWN:.+]] = tandem_exec.record on d2h
// CHECK-NEXT:    tandem_exec.host_wait %[[DOWN]]
// CHECK-NEXT:    return
// The partition now lives in the schedule; the kernels stay.
// CHECK-NOT:   func.func private @gpu_only_p0_gpu0
// CHECK-DAG:   func.func private @k_exp
// CHECK-DAG:   func.func private @k_neg

func.func private @k_exp(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel} {
  linalg.exp ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
func.func private @k_neg(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel} {
  linalg.negf ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
func.func private @gpu_only_p0_gpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %t = memref.alloc() : memref<4xf32>
  call @k_exp(%a, %t) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>, memref<4xf32>) -> ()
  call @k_neg(%t, %out) {tandem.launch_dims = array<i64: 2, 1, 1, 2, 1, 1>} : (memref<4xf32>, memref<4xf32>) -> ()
  memref.dealloc %t : memref<4xf32>
  return
}
func.func @gpu_only(%x: memref<4xf32>, %y: memref<4xf32>) {
  %xd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %yd = memref.alloc() : memref<4xf32>
  call @gpu_only_p0_gpu0(%xd, %yd) : (memref<4xf32>, memref<4xf32>) -> ()
  tandem_exec.transfer %yd, %y : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  return
}

// -----

// GPU -> CPU -> GPU: the host waits for the first download right before the
// CPU partition (inlined between markers without a stream) reads it; the
// CPU result is uploaded and compute waits for that upload before the second
// GPU partition; only the last download is waited for at the end.

// CHECK-LABEL: func.func @island(
// CHECK-SAME:    %[[X:.+]]: memref<4xf32>, %[[Y:.+]]: memref<4xf32>)
// CHECK:         tandem_exec.copy %[[X]], %[[XD:.+]] on h2d
// CHECK-NEXT:    %[[UP0:.+]] = tandem_exec.record on h2d
// CHECK:         tandem_exec.partition_begin "island_p0_gpu0" on compute
// CHECK-NEXT:    tandem_exec.wait %[[UP0]] on compute
// CHECK-NEXT:    tandem_exec.launch @k_exp(%[[XD]], %[[HD:.+]]) on compute
// CHECK-NEXT:    tandem_exec.partition_end "island_p0_gpu0" on compute
// CHECK:         %[[H:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[C0:.+]] = tandem_exec.record on compute
// CHECK-NEXT:    tandem_exec.wait %[[C0]] on d2h
// CHECK-NEXT:    tandem_exec.copy %[[HD]], %[[H]] on d2h bytes 16
// CHECK-NEXT:    %[[DOWN0:.+]] = tandem_exec.record on d2h
// CHECK-NEXT:    %[[C:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    tandem_exec.host_wait %[[DOWN0]]
// CHECK-NEXT:    tandem_exec.partition_begin "island_p1_cpu0"{{$}}
// CHECK-NEXT:    linalg.abs ins(%[[H]] : memref<4xf32>) outs(%[[C]] : memref<4xf32>)
// CHECK-NEXT:    tandem_exec.partition_end "island_p1_cpu0"{{$}}
// CHECK:         tandem_exec.copy %[[C]], %[[CD:.+]] on h2d bytes 16
// CHECK-NEXT:    %[[UP1:.+]] = tandem_exec.record on h2d
// CHECK:         tandem_exec.partition_begin "island_p2_gpu0" on compute
// CHECK-NEXT:    tandem_exec.wait %[[UP1]] on compute
// CHECK-NEXT:    tandem_exec.launch @k_neg(%[[CD]], %[[YD:.+]]) on compute
// CHECK-NEXT:    tandem_exec.partition_end "island_p2_gpu0" on compute
// CHECK-NEXT:    %[[C1:.+]] = tandem_exec.record on compute
// CHECK-NEXT:    tandem_exec.wait %[[C1]] on d2h
// CHECK-NEXT:    tandem_exec.copy %[[YD]], %[[Y]] on d2h
// CHECK-NEXT:    %[[DOWN1:.+]] = tandem_exec.record on d2h
// CHECK-NEXT:    tandem_exec.host_wait %[[DOWN1]]
// CHECK-NEXT:    return
// CHECK-NOT:   func.func private @island_p

func.func private @k_exp(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel} {
  linalg.exp ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
func.func private @k_neg(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel} {
  linalg.negf ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
func.func private @island_p0_gpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  call @k_exp(%a, %out) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func private @island_p1_cpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:CPU:0">, tandem.partition} {
  linalg.abs ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
func.func private @island_p2_gpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  call @k_neg(%a, %out) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func @island(%x: memref<4xf32>, %y: memref<4xf32>) {
  %xd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %hd = memref.alloc() : memref<4xf32>
  call @island_p0_gpu0(%xd, %hd) : (memref<4xf32>, memref<4xf32>) -> ()
  %h = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %hd, %h : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  %c = memref.alloc() : memref<4xf32>
  call @island_p1_cpu0(%h, %c) : (memref<4xf32>, memref<4xf32>) -> ()
  %cd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %c, %cd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %yd = memref.alloc() : memref<4xf32>
  call @island_p2_gpu0(%cd, %yd) : (memref<4xf32>, memref<4xf32>) -> ()
  tandem_exec.transfer %yd, %y : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  return
}

// -----

// Two inputs: both uploads are issued first, even the one the model reads
// only after host code, and share one event; compute waits for it once.

// CHECK-LABEL: func.func @two_inputs(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4xf32>, %[[B:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4xf32>)
// CHECK-NEXT:    %[[AD:.+]] = tandem_exec.alloc
// CHECK-NEXT:    tandem_exec.copy %[[A]], %[[AD]] on h2d bytes 16
// CHECK-NEXT:    %[[BD:.+]] = tandem_exec.alloc
// CHECK-NEXT:    tandem_exec.copy %[[B]], %[[BD]] on h2d bytes 16
// CHECK-NEXT:    %[[UP:.+]] = tandem_exec.record on h2d
// CHECK:         tandem_exec.partition_begin "two_inputs_p0_gpu0" on compute
// CHECK-NEXT:    tandem_exec.wait %[[UP]] on compute
// CHECK-NEXT:    tandem_exec.launch @k_add(%[[AD]], %[[BD]], %{{.+}}) on compute
// CHECK-NOT:     tandem_exec.wait {{.*}} on compute
// CHECK:         tandem_exec.host_wait
// CHECK-NEXT:    return

func.func private @k_add(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) attributes {tandem.kernel} {
  linalg.add ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)
  return
}
func.func private @two_inputs_p0_gpu0(%a: memref<4xf32>, %b: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  call @k_add(%a, %b, %out) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func @two_inputs(%a: memref<4xf32>, %b: memref<4xf32>, %y: memref<4xf32>) {
  %ad = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %a, %ad : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %s = memref.alloc() : memref<4xf32>
  linalg.abs ins(%y : memref<4xf32>) outs(%s : memref<4xf32>)
  %bd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %b, %bd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %yd = memref.alloc() : memref<4xf32>
  call @two_inputs_p0_gpu0(%ad, %bd, %yd) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  tandem_exec.transfer %yd, %y : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  return
}

// -----

// A weight used on the GPU is a tandem_exec.weight: uploaded once when the
// model is created, never copied in the run.

// CHECK-LABEL: func.func @weighted(
// CHECK:         tandem_exec.copy %{{.+}}, %[[XD:.+]] on h2d
// CHECK-NOT:     tandem_exec.copy
// CHECK:         tandem_exec.partition_begin "weighted_p0_gpu0" on compute
// CHECK-NEXT:    %[[W:.+]] = tandem_exec.weight @__constant_4xf32 : memref<4xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.wait %{{.+}} on compute
// CHECK-NEXT:    tandem_exec.launch @k_add(%[[XD]], %[[W]], %{{.+}}) on compute
// CHECK-NOT:     tandem_exec.copy %[[W]]
// CHECK:         tandem_exec.copy %{{.+}}, %{{.+}} on d2h
// CHECK-NOT:     tandem_exec.copy

memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @k_add(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) attributes {tandem.kernel} {
  linalg.add ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)
  return
}
func.func private @weighted_p0_gpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %w = memref.get_global @__constant_4xf32 : memref<4xf32>
  call @k_add(%a, %w, %out) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func @weighted(%x: memref<4xf32>, %y: memref<4xf32>) {
  %xd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %yd = memref.alloc() : memref<4xf32>
  call @weighted_p0_gpu0(%xd, %yd) : (memref<4xf32>, memref<4xf32>) -> ()
  tandem_exec.transfer %yd, %y : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  return
}
