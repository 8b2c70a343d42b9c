// A producer with several consumers is duplicated into each consumer's
// fusion when it is cheap (elementwise on small inputs), never when it is
// expensive (transcendental) or reads a large input: then it is fused into
// one consumer as an extra result instead.
// RUN: tandem-opt %s -tandem-fuse -split-input-file | FileCheck %s
// RUN: tandem-opt %s -tandem-fuse=fusion-report=- -split-input-file | FileCheck %s --check-prefix=REPORT

// The cheap scaling feeds two reductions over different axes, which cannot
// share a kernel: each gets its own copy and the original disappears.
// CHECK-LABEL: func.func @cheap_producer_duplicated
// CHECK: tandem.fusion input "fusion.rows"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.constant dense<2.000000e+00>
// CHECK-NEXT: tandem.mul
// CHECK-NEXT: tandem.reduce_sum
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion input "fusion.cols"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.constant dense<2.000000e+00>
// CHECK-NEXT: tandem.mul
// CHECK-NEXT: tandem.reduce_max
// CHECK-NEXT: tandem.yield
// CHECK-NOT: tandem.fusion
// REPORT-LABEL: "function": "cheap_producer_duplicated"
// REPORT: "duplicated": [
// REPORT-NEXT: "scale"
// REPORT: "members": [
// REPORT-NEXT: "scale",
// REPORT-NEXT: "rows"
// REPORT: "kernels": 2
func.func @cheap_producer_duplicated(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<1x8xf32>) {
  %two = tandem.constant dense<2.0> : tensor<f32>
  %c = tandem.mul %x, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32> loc("scale")
  %r = tandem.reduce_sum %c {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32> loc("rows")
  %k = tandem.reduce_max %c {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32> loc("cols")
  return %r, %k : tensor<4x1xf32>, tensor<1x8xf32>
}

// -----

// exp is expensive: it runs once, in a multi-output fusion with one
// consumer; the other consumer reads its result.
// CHECK-LABEL: func.func @expensive_producer_not_duplicated
// CHECK-NOT: tandem.exp
// CHECK: %[[F:.+]]:2 = tandem.fusion multi_output "fusion.rows"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[E:.+]] = tandem.exp
// CHECK-NEXT: %[[R:.+]] = tandem.reduce_sum %[[E]]
// CHECK-NEXT: tandem.yield %[[E]], %[[R]]
// CHECK-NOT: tandem.exp
// CHECK: tandem.fusion input "fusion.cols"(%[[F]]#0)
// CHECK-NOT: tandem.exp
// REPORT-LABEL: "function": "expensive_producer_not_duplicated"
// REPORT-NOT: "duplicated"
// REPORT: "kernels": 2
func.func @expensive_producer_not_duplicated(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<1x8xf32>) {
  %c = tandem.exp %x : tensor<4x8xf32> loc("exp")
  %r = tandem.reduce_sum %c {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32> loc("rows")
  %k = tandem.reduce_max %c {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32> loc("cols")
  return %r, %k : tensor<4x1xf32>, tensor<1x8xf32>
}

// -----

// A cheap op on a large input (64 KiB > max-duplicate-input-bytes) is not
// duplicated either; lowering the limit is what decides it.
// CHECK-LABEL: func.func @large_input_not_duplicated
// CHECK: tandem.fusion multi_output "fusion.rows"
// CHECK: tandem.mul
// CHECK-NOT: tandem.mul
// CHECK: tandem.fusion input "fusion.cols"
// CHECK-NOT: tandem.mul
func.func @large_input_not_duplicated(%x: tensor<128x128xf32>) -> (tensor<128x1xf32>, tensor<1x128xf32>) {
  %two = tandem.constant dense<2.0> : tensor<f32>
  %c = tandem.mul %x, %two : (tensor<128x128xf32>, tensor<f32>) -> tensor<128x128xf32> loc("scale")
  %r = tandem.reduce_sum %c {axes = array<i64: 1>} : tensor<128x128xf32> -> tensor<128x1xf32> loc("rows")
  %k = tandem.reduce_max %c {axes = array<i64: 0>} : tensor<128x128xf32> -> tensor<1x128xf32> loc("cols")
  return %r, %k : tensor<128x1xf32>, tensor<1x128xf32>
}

// -----

// The transpose feeds the LayerNorm and a matmul (which takes no fused
// prologue): it is duplicated into the LayerNorm's fusion, and the original,
// still read by the matmul, then joins the same fusion as a sibling. The
// fusion holds one transpose, yielded and normalised.
// CHECK-LABEL: func.func @duplicate_and_original_merge
// CHECK: %[[F:.+]]:2 = tandem.fusion multi_output "fusion.norm"(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[T:.+]] = tandem.transpose
// CHECK-NEXT: %[[N:.+]] = tandem.layer_norm %[[T]]
// CHECK-NEXT: tandem.yield %[[T]], %[[N]]
// CHECK: tandem.fusion output "fusion.mm"(%[[F]]#0, %arg2)
// CHECK-NOT: tandem.transpose
// REPORT-LABEL: "function": "duplicate_and_original_merge"
// REPORT: "duplicated": [
// REPORT-NEXT: "swap"
func.func @duplicate_and_original_merge(%x: tensor<4x16x8xf32>, %s: tensor<16xf32>, %w: tensor<16x8xf32>) -> (tensor<4x8x16xf32>, tensor<4x8x8xf32>) {
  %t = tandem.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<4x16x8xf32> -> tensor<4x8x16xf32> loc("swap")
  %n = tandem.layer_norm %t, %s {axis = 2 : i64} : (tensor<4x8x16xf32>, tensor<16xf32>) -> tensor<4x8x16xf32> loc("norm")
  %m = tandem.matmul %t, %w : (tensor<4x8x16xf32>, tensor<16x8xf32>) -> tensor<4x8x8xf32> loc("mm")
  return %n, %m : tensor<4x8x16xf32>, tensor<4x8x8xf32>
}
