// RUN: tandem-opt -tandem-promote-reductions -split-input-file %s | FileCheck %s

// A row sum as convert-linalg-to-parallel-loops leaves it: the accumulator
// is loaded before the loop, carried as an iter_arg, and stored after it;
// the add may be reassociated so that LLVM vectorises it.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.parallel (%[[I:.+]], %[[J:.+]]) =
// CHECK: %[[INIT:.+]] = memref.load %arg1[%[[I]], %[[J]]]
// CHECK: %[[R:.+]] = scf.for %[[K:.+]] = {{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32)
// CHECK-NEXT: %[[X:.+]] = memref.load %arg0[%[[I]], %[[J]], %[[K]]]
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[X]], %[[ACC]] fastmath<reassoc> : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: memref.store %[[R]], %arg1[%[[I]], %[[J]]]
func.func @row_sum(%in: memref<4x128x128xf32>, %out: memref<4x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c128 step %c1 {
      %x = memref.load %in[%i, %j, %k] : memref<4x128x128xf32>
      %acc = memref.load %out[%i, %j] : memref<4x128xf32>
      %s = arith.addf %x, %acc : f32
      memref.store %s, %out[%i, %j] : memref<4x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A reduction over two loops (a global average pool's sum over H and W):
// both loops carry the accumulator; max keeps its existing flags and gains
// reassoc.
// CHECK-LABEL: func.func @plane_max
// CHECK: %[[INIT:.+]] = memref.load %arg1[%{{.+}}]
// CHECK: scf.for {{.+}} iter_args(%[[OUTER:.+]] = %[[INIT]]) -> (f32)
// CHECK: scf.for {{.+}} iter_args(%[[INNER:.+]] = %[[OUTER]]) -> (f32)
// CHECK: arith.maximumf %{{.+}}, %[[INNER]] fastmath<reassoc,nnan> : f32
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK: memref.store
func.func @plane_max(%in: memref<8x7x7xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
    scf.for %h = %c0 to %c7 step %c1 {
      scf.for %w = %c0 to %c7 step %c1 {
        %x = memref.load %in[%c, %h, %w] : memref<8x7x7xf32>
        %acc = memref.load %out[%c] : memref<8xf32>
        %m = arith.maximumf %x, %acc fastmath<nnan> : f32
        memref.store %m, %out[%c] : memref<8xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// Left alone: a loop that stores at an index that varies with the loop
// (elementwise), one that also reads another element of the buffer it
// writes, and one whose body calls a function (unknown effects).
// CHECK-LABEL: func.func @not_reductions
// CHECK-NOT: iter_args
// CHECK: return
func.func private @opaque()
func.func @not_reductions(%in: memref<16xf32>, %out: memref<16xf32>, %acc: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %k = %c0 to %c16 step %c1 {
    %x = memref.load %in[%k] : memref<16xf32>
    memref.store %x, %out[%k] : memref<16xf32>
  }
  scf.for %k = %c0 to %c16 step %c1 {
    %x = memref.load %acc[%c1] : memref<2xf32>
    %a = memref.load %acc[%c0] : memref<2xf32>
    %s = arith.addf %x, %a : f32
    memref.store %s, %acc[%c0] : memref<2xf32>
  }
  scf.for %k = %c0 to %c16 step %c1 {
    %x = memref.load %in[%k] : memref<16xf32>
    %a = memref.load %acc[%c0] : memref<2xf32>
    %s = arith.addf %x, %a : f32
    func.call @opaque() : () -> ()
    memref.store %s, %acc[%c0] : memref<2xf32>
  }
  return
}
