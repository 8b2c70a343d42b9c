// RUN: tandem-opt -tandem-outline-parallel-loops -split-input-file %s | FileCheck %s
// RUN: tandem-opt -tandem-outline-parallel-loops="min-work=1000000" -split-input-file %s | FileCheck %s --check-prefix=HIGH

// A large elementwise loop moves into a private body over [begin, end) of
// its first dimension; memrefs and a scalar argument are captured, constants
// are recreated inside. 64 x 1024 iterations of 4 operations: grain
// ceil(8192 / 4096) = 2.
// CHECK-LABEL: func.func @relu_scale
// CHECK-SAME: (%[[A:.+]]: memref<64x1024xf32>, %[[B:.+]]: memref<64x1024xf32>, %[[S:.+]]: f32)
// CHECK-NOT: scf.parallel
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[BEGIN:[^ ]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[END:[^ ]+]] = arith.constant 64 : index
// CHECK-NEXT: call @__tandem_par_relu_scale_0(%[[BEGIN]], %[[END]], %[[A]], %[[S]], %[[B]])
// CHECK-SAME: : (index, index, memref<64x1024xf32>, f32, memref<64x1024xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @__tandem_par_relu_scale_0
// CHECK-SAME: (%[[LO:[^:]+]]: index, %[[HI:[^:]+]]: index, %[[PA:[^:]+]]: memref<64x1024xf32>, %[[PS:[^:]+]]: f32, %[[PB:[^:]+]]: memref<64x1024xf32>)
// CHECK-SAME: attributes {tandem.parallel_grain = 2 : i64}
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1024:.+]] = arith.constant 1024 : index
// CHECK: scf.parallel (%[[I:.+]], %[[J:.+]]) = (%[[LO]], %[[C0]]) to (%[[HI]], %[[C1024]])
// CHECK: memref.load %[[PA]][%[[I]], %[[J]]]
// CHECK: arith.mulf %{{.+}}, %[[PS]]
// CHECK: arith.maximumf %{{.+}}, %[[ZERO]]
// CHECK: memref.store %{{.+}}, %[[PB]][%[[I]], %[[J]]]
// CHECK: return
// HIGH-LABEL: func.func @relu_scale
// HIGH: scf.parallel
// HIGH-NOT: call
// HIGH: return
func.func @relu_scale(%a: memref<64x1024xf32>, %b: memref<64x1024xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1024) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<64x1024xf32>
    %m = arith.mulf %v, %s : f32
    %r = arith.maximumf %m, %zero : f32
    memref.store %r, %b[%i, %j] : memref<64x1024xf32>
  }
  return
}

// -----

// Under the 32K-operation threshold (16 x 16 x 3): the loop stays inline.
// CHECK-LABEL: func.func @tiny
// HIGH-LABEL: func.func @tiny
// CHECK: scf.parallel
// CHECK-NOT: call
// CHECK-NOT: __tandem_par
func.func @tiny(%a: memref<16x16xf32>, %b: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<16x16xf32>
    %n = arith.negf %v : f32
    memref.store %n, %b[%i, %j] : memref<16x16xf32>
  }
  return
}

// -----

// Nested parallel loops: only the outer one is outlined, the inner one
// moves with it. A leading dimension of one iteration (a batch of 1) is
// kept whole; the chunks split the next one (128 channels). Nested loops
// count once per iteration: a channel is 1 + 64 x (1 + 1 + 32 x 4) = 8321
// operations, so the grain is 1.
// CHECK-LABEL: func.func @nested
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[BEGIN:[^ ]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[END:[^ ]+]] = arith.constant 128 : index
// CHECK-NEXT: call @__tandem_par_nested_0(%[[BEGIN]], %[[END]], %{{.+}}, %{{.+}})
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK: func.func private @__tandem_par_nested_0(%[[LO:[^:]+]]: index, %[[HI:[^:]+]]: index
// CHECK-SAME: tandem.parallel_grain = 1 : i64
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK: scf.parallel (%[[N:.+]], %[[C:.+]]) = (%[[C0]], %[[LO]]) to (%[[C1]], %[[HI]])
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[N]], %[[C]], %{{.+}}]
// CHECK-NOT: __tandem_par_nested_1
func.func @nested(%a: memref<1x128x64x32xf32>, %b: memref<1x128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %c) = (%c0, %c0) to (%c1, %c128) step (%c1, %c1) {
    scf.parallel (%h) = (%c0) to (%c64) step (%c1) {
      memref.store %zero, %b[%n, %c, %h] : memref<1x128x64xf32>
      scf.for %w = %c0 to %c32 step %c1 {
        %v = memref.load %a[%n, %c, %h, %w] : memref<1x128x64x32xf32>
        %s = memref.load %b[%n, %c, %h] : memref<1x128x64xf32>
        %t = arith.addf %s, %v : f32
        memref.store %t, %b[%n, %c, %h] : memref<1x128x64xf32>
      }
    }
  }
  return
}

// -----

// A strided view is captured as it is (bare pointers keep static layouts in
// the type); a global is recreated inside. Lower bound 2 and step 2 on the
// chunked dimension: iteration k is index 2 + 2 k.
// CHECK-LABEL: func.func @strided
// CHECK: %[[VIEW:.+]] = memref.subview
// CHECK: memref.get_global @bias
// CHECK-NEXT: %[[BEGIN:[^ ]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[END:[^ ]+]] = arith.constant 255 : index
// CHECK-NEXT: call @__tandem_par_strided_0(%[[BEGIN]], %[[END]], %[[VIEW]])
// CHECK-SAME: memref<512x128xf32, strided<[130, 1], offset: 131>>
// CHECK: func.func private @__tandem_par_strided_0(%[[LO:[^:]+]]: index, %[[HI:[^:]+]]: index, %[[V:[^:]+]]: memref<512x128xf32, strided<[130, 1], offset: 131>>)
// CHECK: %[[G:.+]] = memref.get_global @bias : memref<128xf32>
// CHECK-DAG: %[[TWO:.+]] = arith.constant 2 : index
// CHECK: %[[M0:.+]] = arith.muli %[[LO]], %[[TWO]]
// CHECK: %[[L:.+]] = arith.addi %[[M0]], %[[TWO]]
// CHECK: %[[M1:.+]] = arith.muli %[[HI]], %[[TWO]]
// CHECK: %[[U:.+]] = arith.addi %[[M1]], %[[TWO]]
// CHECK: scf.parallel (%[[I:.+]], %[[J:.+]]) = (%[[L]], %{{.+}}) to (%[[U]], %{{.+}})
// CHECK: memref.load %[[G]][%[[J]]]
// CHECK: memref.store %{{.+}}, %[[V]][%[[I]], %[[J]]]
memref.global "private" constant @bias : memref<128xf32> = dense<1.0>
func.func @strided(%a: memref<514x130xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %view = memref.subview %a[1, 1] [512, 128] [1, 1] : memref<514x130xf32> to memref<512x128xf32, strided<[130, 1], offset: 131>>
  %g = memref.get_global @bias : memref<128xf32>
  scf.parallel (%i, %j) = (%c2, %c0) to (%c512, %c128) step (%c2, %c1) {
    %v = memref.load %g[%j] : memref<128xf32>
    memref.store %v, %view[%i, %j] : memref<512x128xf32, strided<[130, 1], offset: 131>>
  }
  return
}

// -----

// Loops whose chunks could race, or that capture what a body cannot take,
// stay inline: a store not indexed by the chunked variable, a call, and a
// dynamically shaped memref.
// CHECK-LABEL: func.func @unsafe
// CHECK-COUNT-3: scf.parallel
// CHECK-NOT: __tandem_par
func.func private @ext(index)
func.func @unsafe(%a: memref<256x256xf32>, %d: memref<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c256) step (%c1, %c1) {
    memref.store %one, %a[%j, %c0] : memref<256x256xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c256) step (%c1, %c1) {
    func.call @ext(%i) : (index) -> ()
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c256) step (%c1, %c1) {
    memref.store %one, %d[%i, %j] : memref<?x256xf32>
  }
  return
}
