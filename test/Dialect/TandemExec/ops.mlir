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
