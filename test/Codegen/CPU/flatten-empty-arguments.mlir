// RUN: tandem-opt %s -split-input-file -allow-unregistered-dialect -pass-pipeline='builtin.module(func.func(tandem-flatten-empty-arguments))' | FileCheck %s

// Empty multi-dimensional arguments of a public function become 1-D; a use
// sees the old type through an expand_shape. Non-empty ones, 1-D ones
// and private functions stay.
// CHECK-LABEL: func.func @model
// CHECK-SAME: (%[[X:.+]]: memref<0xf32>, %[[Y:.+]]: memref<0xf32>, %[[Z:.+]]: memref<2xf32>, %[[E:.+]]: memref<0xi64>)
// CHECK: %[[V:.+]] = memref.expand_shape %[[Y]] {{\[}}[0, 1]] output_shape [3, 0] : memref<0xf32> into memref<3x0xf32>
// CHECK: "test.use"(%[[V]])
func.func @model(%x: memref<2x0xf32>, %y: memref<3x0xf32>, %z: memref<2xf32>, %e: memref<0xi64>) {
  "test.use"(%y) : (memref<3x0xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @helper
// CHECK-SAME: memref<2x0xf32>
func.func private @helper(%x: memref<2x0xf32>) {
  return
}
