// RUN: tandem-opt %s -split-input-file -tandem-plan-memory | FileCheck %s

// A chain a -> b -> c: a and c never live at the same time and share the
// arena's first slot; b sits next to them. 256-byte buffers, 64-byte
// alignment: a 512-byte arena.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32>, %[[ARENA:.+]]: memref<512xi8> {tandem.arena})
// CHECK-SAME: attributes {tandem.arena_bytes = 512 : i64}
// CHECK:      %[[A:.+]] = memref.view %[[ARENA]][%[[OA:.+]]][] : memref<512xi8> to memref<64xf32>
// CHECK:      %[[B:.+]] = memref.view %[[ARENA]][%[[OB:.+]]][] : memref<512xi8> to memref<64xf32>
// CHECK:      %[[C:.+]] = memref.view %[[ARENA]][%[[OA2:.+]]][] : memref<512xi8> to memref<64xf32>
// CHECK-NOT:  memref.alloc
// CHECK-NOT:  memref.dealloc
func.func @chain(%x: memref<64xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  memref.copy %b, %c : memref<64xf32> to memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.copy %c, %y : memref<64xf32> to memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// The offsets themselves: a (256 B) and c reuse offset 0, b takes 256.
// CHECK-LABEL: func.func @offsets
// CHECK:     %[[O1:.+]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[O1]]][]
// CHECK:     %[[O2:.+]] = arith.constant 256 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[O2]]][]
// CHECK:     %[[O3:.+]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[O3]]][]
func.func @offsets(%x: memref<64xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  memref.copy %b, %c : memref<64xf32> to memref<64xf32>
  memref.copy %c, %y : memref<64xf32> to memref<64xf32>
  return
}

// -----

// A view keeps its buffer alive: %a's subview is read after %b is created,
// so they cannot share. Odd sizes round up to the alignment.
// CHECK-LABEL: func.func @aliases
// CHECK-SAME: memref<128xi8> {tandem.arena}
// CHECK-SAME: tandem.arena_bytes = 128
func.func @aliases(%x: memref<3xf32>, %y: memref<2xf32>) {
  %a = memref.alloc() : memref<3xf32>
  memref.copy %x, %a : memref<3xf32> to memref<3xf32>
  %s = memref.subview %a[0] [2] [1] : memref<3xf32> to memref<2xf32, strided<[1]>>
  %b = memref.alloc() : memref<2xf32>
  memref.copy %s, %b : memref<2xf32, strided<[1]>> to memref<2xf32>
  memref.copy %s, %y : memref<2xf32, strided<[1]>> to memref<2xf32>
  memref.copy %b, %y : memref<2xf32> to memref<2xf32>
  return
}

// -----

// Nothing to plan: no arena argument.
// CHECK-LABEL: func.func @none
// CHECK-SAME: (%{{.*}}: memref<4xf32>)
// CHECK-NOT: tandem.arena
func.func @none(%x: memref<4xf32>) {
  return
}

// -----

// Dynamic sizes stay heap allocations.
// CHECK-LABEL: func.func @dynamic
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
func.func @dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}
