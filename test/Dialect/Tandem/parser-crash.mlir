// MLIR 22's parser crashes on a dense array of `index` (it asks the index
// type for a bit width); the front door scans for it first and reports it.
// A comment or string that spells array<index> is not scanned: see below.
// RUN: not tandem-opt %s 2>&1 | FileCheck %s
// RUN: cat %s | not tandem-opt 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK: parser-crash.mlir:[[@LINE+3]]:35: error: dense arrays of 'index' are not supported: use an integer element type, e.g. array<i64: ...>
// STDIN: <stdin>:[[@LINE+2]]:35: error: dense arrays of 'index' are not supported
func.func @f(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = tandem.reshape %x {shape = array<index>, note = "array<index>"} : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
