// RUN: tandem-opt -tandem-write-results-in-place -split-input-file %s | FileCheck %s

// A result that expands an allocation: the allocation becomes a collapse of
// the output parameter and the copy goes.
// CHECK-LABEL: func.func @expanded
// CHECK-SAME: (%[[X:.+]]: memref<64x64xf32>, %[[Y:.+]]: memref<4x16x64xf32>)
// CHECK-NEXT: %[[A:.+]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<4x16x64xf32> into memref<64x64xf32>
// CHECK-NEXT: linalg.matmul ins(%[[X]], %[[X]] : memref<64x64xf32>, memref<64x64xf32>) outs(%[[A]] : memref<64x64xf32>)
// CHECK-NEXT: return
func.func @expanded(%x: memref<64x64xf32>, %y: memref<4x16x64xf32>) {
  %a = memref.alloc() : memref<64x64xf32>
  linalg.matmul ins(%x, %x : memref<64x64xf32>, memref<64x64xf32>) outs(%a : memref<64x64xf32>)
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [4, 16, 64] : memref<64x64xf32> into memref<4x16x64xf32>
  memref.copy %e, %y : memref<4x16x64xf32> to memref<4x16x64xf32>
  return
}

// -----

// Through a collapse then an expand (a Flatten of 2x3x4 read as 6x4): the
// inverses in reverse order.
// CHECK-LABEL: func.func @two_reshapes
// CHECK-SAME: (%[[X:.+]]: memref<2x3x4xf32>, %[[Y:.+]]: memref<6x2x2xf32>)
// CHECK-NEXT: %[[C:.+]] = memref.collapse_shape %[[Y]] {{\[\[}}0], [1, 2]] : memref<6x2x2xf32> into memref<6x4xf32>
// CHECK-NEXT: %[[A:.+]] = memref.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 4] : memref<6x4xf32> into memref<2x3x4xf32>
// CHECK-NEXT: memref.copy %[[X]], %[[A]]
// CHECK-NEXT: return
func.func @two_reshapes(%x: memref<2x3x4xf32>, %y: memref<6x2x2xf32>) {
  %a = memref.alloc() : memref<2x3x4xf32>
  memref.copy %x, %a : memref<2x3x4xf32> to memref<2x3x4xf32>
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %e = memref.expand_shape %c [[0], [1, 2]] output_shape [6, 2, 2] : memref<6x4xf32> into memref<6x2x2xf32>
  memref.copy %e, %y : memref<6x2x2xf32> to memref<6x2x2xf32>
  return
}

// -----

// An output parameter read elsewhere, or a copy of an input, stays a copy.
// CHECK-LABEL: func.func @kept
// CHECK: memref.alloc
// CHECK: memref.copy %{{.+}}, %arg1
// CHECK: memref.copy %{{.+}}, %arg2
func.func @kept(%x: memref<64xf32>, %y: memref<8x8xf32>, %z: memref<8x8xf32>) -> f32 {
  %a = memref.alloc() : memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  %e = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  memref.copy %e, %y : memref<8x8xf32> to memref<8x8xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %y[%c0, %c0] : memref<8x8xf32>
  %ex = memref.expand_shape %x [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  memref.copy %ex, %z : memref<8x8xf32> to memref<8x8xf32>
  return %v : f32
}
