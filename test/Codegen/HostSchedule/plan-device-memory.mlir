// RUN: tandem-opt %s -tandem-plan-device-memory | FileCheck %s
// RUN: tandem-opt %s -tandem-plan-device-memory=alignment=64 | FileCheck %s --check-prefix=ALIGN64
// RUN: not tandem-opt %s -tandem-plan-device-memory=alignment=48 2>&1 | FileCheck %s --check-prefix=BAD

// Device buffers get offsets in one arena (256-byte aligned by default):
// the weight first, live for the whole run; buffers that copies touch
// (%xd, %yd) live for the whole run too; temporaries only used by launches
// live from their first to their last launch, so %t3 reuses %t1's place.

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    tandem_exec.device_arena_bytes = array<i64: 1280>
// CHECK:         tandem_exec.alloc {offset = 256 : i64}
// CHECK-NEXT:    tandem_exec.copy
// CHECK:         tandem_exec.alloc {offset = 512 : i64}
// CHECK-NEXT:    tandem_exec.alloc {offset = 768 : i64}
// CHECK-NEXT:    tandem_exec.alloc {offset = 512 : i64}
// CHECK-NEXT:    tandem_exec.alloc {offset = 1024 : i64}
// CHECK-NEXT:    tandem_exec.weight @w {offset = 0 : i64}

// ALIGN64-LABEL: func.func @chain
// ALIGN64-SAME:    tandem_exec.device_arena_bytes = array<i64: 512>

// BAD: tandem-plan-device-memory: alignment must be a power of two, got 48

memref.global "private" constant @w : memref<64xf32> = dense<1.0>
func.func private @k(%a: memref<16xf32>, %b: memref<16xf32>) attributes {tandem.kernel}
func.func private @kw(%a: memref<16xf32>, %w: memref<64xf32>, %b: memref<16xf32>) attributes {tandem.kernel}

func.func @chain(%x: memref<16xf32>, %y: memref<16xf32>) {
  %xd = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.copy %x, %xd on h2d bytes 64 : memref<16xf32>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  %up = tandem_exec.record on h2d
  %t1 = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  %t2 = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  %t3 = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  %yd = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  %w = tandem_exec.weight @w : memref<64xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.partition_begin "chain_p0_gpu0" on compute
  tandem_exec.wait %up on compute
  tandem_exec.launch @kw(%xd, %w, %t1) on compute grid [1, 1, 1] block [16, 1, 1] : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<64xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.launch @k(%t1, %t2) on compute grid [1, 1, 1] block [16, 1, 1] : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.launch @k(%t2, %t3) on compute grid [1, 1, 1] block [16, 1, 1] : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.launch @k(%t3, %yd) on compute grid [1, 1, 1] block [16, 1, 1] : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.partition_end "chain_p0_gpu0" on compute
  %done = tandem_exec.record on compute
  tandem_exec.wait %done on d2h
  tandem_exec.copy %yd, %y on d2h bytes 64 : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32>
  %down = tandem_exec.record on d2h
  tandem_exec.host_wait %down
  return
}

// A buffer read through a view (a library conv reading a reshape of it)
// lives until the view's last reader: %t1, read through %v by the launch
// that first writes %t3, does not share its place with %t3.

// (Counting the view's own position only, %t3 took %t1's place, 256.)
// CHECK-LABEL: func.func @view
// CHECK:         %[[T1:.+]] = tandem_exec.alloc {offset = 256 : i64}
// CHECK-NEXT:    %[[T3:.+]] = tandem_exec.alloc {offset = 512 : i64}
// CHECK:         memref.expand_shape %[[T1]]
func.func private @k2(%a: memref<4x4xf32>, %b: memref<16xf32>) attributes {tandem.kernel}

func.func @view(%x: memref<16xf32>, %y: memref<16xf32>) {
  %xd = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.copy %x, %xd on h2d bytes 64 : memref<16xf32>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  %up = tandem_exec.record on h2d
  %t1 = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  %t3 = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  %yd = tandem_exec.alloc : memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.partition_begin "view_p0_gpu0" on compute
  tandem_exec.wait %up on compute
  tandem_exec.launch @k(%xd, %t1) on compute grid [1, 1, 1] block [16, 1, 1] : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  %v = memref.expand_shape %t1 [[0, 1]] output_shape [4, 4] : memref<16xf32, #tandem.device<"/device:GPU:0">> into memref<4x4xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.launch @k2(%v, %t3) on compute grid [1, 1, 1] block [16, 1, 1] : memref<4x4xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.launch @k(%t3, %yd) on compute grid [1, 1, 1] block [16, 1, 1] : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32, #tandem.device<"/device:GPU:0">>
  tandem_exec.partition_end "view_p0_gpu0" on compute
  %done = tandem_exec.record on compute
  tandem_exec.wait %done on d2h
  tandem_exec.copy %yd, %y on d2h bytes 64 : memref<16xf32, #tandem.device<"/device:GPU:0">>, memref<16xf32>
  %down = tandem_exec.record on d2h
  tandem_exec.host_wait %down
  return
}
