// RUN: tandem-opt -tandem-narrow-pad-fills -split-input-file %s | FileCheck %s

// A padded conv input: only the border is filled; the interior comes from
// the copy. Slabs: all of H outside rows 1..16 (rows 0 and 17), then the
// columns 0 and 17 of rows 1..16.
// CHECK-LABEL: func.func @pad
// CHECK-NOT: linalg.map
// CHECK: %[[TOP:.+]] = memref.subview %[[BUF:.+]][0, 0, 0, 0] [1, 3, 1, 18] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%[[ZERO:.+]] : f32) outs(%[[TOP]]
// CHECK: %[[BOTTOM:.+]] = memref.subview %[[BUF]][0, 0, 17, 0] [1, 3, 1, 18] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[BOTTOM]]
// CHECK: %[[LEFT:.+]] = memref.subview %[[BUF]][0, 0, 1, 0] [1, 3, 16, 1] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[LEFT]]
// CHECK: %[[RIGHT:.+]] = memref.subview %[[BUF]][0, 0, 1, 17] [1, 3, 16, 1] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[RIGHT]]
// CHECK-NOT: linalg.fill
// CHECK: memref.copy
func.func @pad(%src: memref<1x3x16x16xf32>, %buf: memref<1x3x18x18xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.map outs(%buf : memref<1x3x18x18xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %in = memref.subview %buf[0, 0, 1, 1] [1, 3, 16, 16] [1, 1, 1, 1] : memref<1x3x18x18xf32> to memref<1x3x16x16xf32, strided<[972, 324, 18, 1], offset: 19>>
  memref.copy %src, %in : memref<1x3x16x16xf32> to memref<1x3x16x16xf32, strided<[972, 324, 18, 1], offset: 19>>
  return
}

// -----

// Asymmetric padding with a linalg.fill: empty slabs are skipped (no
// padding before rows or columns here).
// CHECK-LABEL: func.func @pad_after_only
// CHECK: memref.subview %{{.+}}[0, 0, 4, 0] [1, 2, 1, 5] [1, 1, 1, 1]
// CHECK: linalg.fill
// CHECK: memref.subview %{{.+}}[0, 0, 0, 4] [1, 2, 4, 1] [1, 1, 1, 1]
// CHECK: linalg.fill
// CHECK-NOT: linalg.fill
// CHECK: memref.copy
func.func @pad_after_only(%src: memref<1x2x4x4xf32>, %buf: memref<1x2x5x5xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%buf : memref<1x2x5x5xf32>)
  %in = memref.subview %buf[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x5x5xf32> to memref<1x2x4x4xf32, strided<[50, 25, 5, 1]>>
  memref.copy %src, %in : memref<1x2x4x4xf32> to memref<1x2x4x4xf32, strided<[50, 25, 5, 1]>>
  return
}

// -----

// The buffer is read between the fill and the copy: the whole fill stays.
// CHECK-LABEL: func.func @read_in_between
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<1x1x4x4xf32>)
// CHECK: memref.copy %{{.+}}, %[[OUT:.+]] : memref<1x1x4x4xf32> to memref<1x1x4x4xf32>
func.func @read_in_between(%src: memref<1x1x2x2xf32>, %buf: memref<1x1x4x4xf32>, %out: memref<1x1x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%buf : memref<1x1x4x4xf32>)
  memref.copy %buf, %out : memref<1x1x4x4xf32> to memref<1x1x4x4xf32>
  %in = memref.subview %buf[0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 1, 1] : memref<1x1x4x4xf32> to memref<1x1x2x2xf32, strided<[16, 16, 4, 1], offset: 5>>
  memref.copy %src, %in : memref<1x1x2x2xf32> to memref<1x1x2x2xf32, strided<[16, 16, 4, 1], offset: 5>>
  return
}

// -----

// A map that computes from its element (not a constant fill) is left alone.
// CHECK-LABEL: func.func @not_a_fill
// CHECK: linalg.map
func.func @not_a_fill(%src: memref<1x1x2x2xf32>, %buf: memref<1x1x4x4xf32>) {
  linalg.map outs(%buf : memref<1x1x4x4xf32>)
    (%init: f32) {
      %d = arith.addf %init, %init : f32
      linalg.yield %d : f32
    }
  %in = memref.subview %buf[0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 1, 1] : memref<1x1x4x4xf32> to memref<1x1x2x2xf32, strided<[16, 16, 4, 1], offset: 5>>
  memref.copy %src, %in : memref<1x1x2x2xf32> to memref<1x1x2x2xf32, strided<[16, 16, 4, 1], offset: 5>>
  return
}
