// RUN: tandem-opt -tandem-outline-loop-nests="min-loops=2" -split-input-file %s | FileCheck %s
// RUN: tandem-opt -tandem-outline-loop-nests -split-input-file %s | FileCheck %s --check-prefix=DEFAULT

// Three loop nests, more than min-loops: each moves into a noinline private
// function called in its place; constants are recreated inside, memrefs
// and scalars are passed; ops between the nests stay.
// CHECK-LABEL: func.func @three
// CHECK-SAME: (%[[A:.+]]: memref<64xf32>, %[[B:.+]]: memref<64xf32>, %[[S:.+]]: f32)
// CHECK-NOT: scf.for
// CHECK: call @__tandem_loops_three_0(%[[A]], %[[S]], %[[B]])
// CHECK-NEXT: memref.store
// CHECK-NEXT: call @__tandem_loops_three_1(%[[B]], %[[A]])
// CHECK-NEXT: call @__tandem_loops_three_2(%[[A]])
// CHECK-NEXT: return
// CHECK: func.func private @__tandem_loops_three_0(%[[PA:[^:]+]]: memref<64xf32>, %[[PS:[^:]+]]: f32, %[[PB:[^:]+]]: memref<64xf32>)
// CHECK-SAME: passthrough = ["noinline"]
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 64 : index
// CHECK: scf.for %[[I:.+]] =
// CHECK: memref.load %[[PA]][%[[I]]]
// CHECK: arith.mulf %{{.+}}, %[[PS]]
// CHECK: memref.store %{{.+}}, %[[PB]][%[[I]]]
// CHECK: func.func private @__tandem_loops_three_1
// CHECK: func.func private @__tandem_loops_three_2
// DEFAULT-LABEL: func.func @three
// DEFAULT-NOT: call
// DEFAULT: scf.for
func.func @three(%a: memref<64xf32>, %b: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %b[%i] : memref<64xf32>
  }
  memref.store %s, %b[%c0] : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %b[%i] : memref<64xf32>
    memref.store %v, %a[%i] : memref<64xf32>
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %a[%i] : memref<64xf32>
  }
  return
}

// -----

// A loop nest that yields a value stays inline; a memref without static
// strides cannot be passed as a bare pointer, so its nest stays too.
// CHECK-LABEL: func.func @kept
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for
// CHECK: memref.load %arg1
// CHECK: call @__tandem_loops_kept_
func.func @kept(%a: memref<64xf32>, %d: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %a[%i] : memref<64xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %d[%i] : memref<?xf32>
    memref.store %v, %a[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %zero, %a[%i] : memref<64xf32>
  }
  return %sum : f32
}
