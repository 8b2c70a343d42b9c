// RUN: tandem-opt -tandem-map-kernels-to-gpu -split-input-file -verify-diagnostics %s

// Two linalg ops, and the first is no prologue of the second (it writes
// another buffer): an error, not a kernel that silently drops one.
// expected-error@+1 {{'func.func' op is a kernel with more than one linalg op, and 'linalg.fill' is not a prologue of its last one}}
func.func private @two_ops(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel} {
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%cst : f32) outs(%a : memref<4xf32>)
  linalg.fill ins(%cst : f32) outs(%b : memref<4xf32>)
  return
}

// -----

// A kernel without any linalg op.
// expected-error@+1 {{'func.func' op is a kernel without a linalg op}}
func.func private @empty(%a: memref<4xf32>) attributes {tandem.kernel} {
  return
}
