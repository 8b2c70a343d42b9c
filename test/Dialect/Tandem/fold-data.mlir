// Constant folding of data movement, selection, comparison and int/float
// casts on small constants (TandemDataFolds.cpp): the importer evaluates
// constant subgraphs with these folders, and canonicalisation folds the rest.
// RUN: tandem-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @movement
// CHECK-DAG: tandem.constant dense<{{\[}}[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi64>
// CHECK-DAG: tandem.constant dense<[1, 2, 3, 7, 8]> : tensor<5xi64>
// CHECK-DAG: tandem.constant dense<[2, 7]> : tensor<2xi64>
// CHECK-DAG: tandem.constant dense<[3, 1, 3]> : tensor<3xi64>
// CHECK-NOT: tandem.broadcast_to
// CHECK-NOT: tandem.concat
// CHECK-NOT: tandem.slice
// CHECK-NOT: tandem.gather
func.func @movement() -> (tensor<2x3xi64>, tensor<5xi64>, tensor<2xi64>,
                          tensor<3xi64>) {
  %a = tandem.constant dense<[1, 2, 3]> : tensor<3xi64>
  %b = tandem.constant dense<[7, 8]> : tensor<2xi64>
  %0 = tandem.broadcast_to %a {shape = array<i64: 2, 3>} : tensor<3xi64> -> tensor<2x3xi64>
  %1 = tandem.concat %a, %b {axis = 0 : i64} : (tensor<3xi64>, tensor<2xi64>) -> tensor<5xi64>
  %2 = tandem.slice %1 {starts = array<i64: 1>, limits = array<i64: 5>, steps = array<i64: 2>} : tensor<5xi64> -> tensor<2xi64>
  // Negative indices count from the end.
  %i = tandem.constant dense<[-1, 0, 2]> : tensor<3xi64>
  %3 = tandem.gather %a, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0, %1, %2, %3 : tensor<2x3xi64>, tensor<5xi64>, tensor<2xi64>, tensor<3xi64>
}

// -----

// Concat of 2-D blocks along axis 1, and a gather along axis 1 of a matrix.
// CHECK-LABEL: func.func @axis1
// CHECK-DAG: tandem.constant dense<{{\[}}[1, 2, 5], [3, 4, 6]]> : tensor<2x3xi32>
// CHECK-DAG: tandem.constant dense<{{\[}}[2, 1], [4, 3]]> : tensor<2x2xi32>
func.func @axis1() -> (tensor<2x3xi32>, tensor<2x2xi32>) {
  %a = tandem.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = tandem.constant dense<[[5], [6]]> : tensor<2x1xi32>
  %0 = tandem.concat %a, %b {axis = 1 : i64} : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  %i = tandem.constant dense<[1, 0]> : tensor<2xi64>
  %1 = tandem.gather %a, %i {axis = 1 : i64} : (tensor<2x2xi32>, tensor<2xi64>) -> tensor<2x2xi32>
  return %0, %1 : tensor<2x3xi32>, tensor<2x2xi32>
}

// -----

// An out-of-range gather index is the run-time check's to report: no fold.
// CHECK-LABEL: func.func @gather_out_of_range
// CHECK: tandem.gather
func.func @gather_out_of_range() -> tensor<1xi64> {
  %a = tandem.constant dense<[1, 2, 3]> : tensor<3xi64>
  %i = tandem.constant dense<[3]> : tensor<1xi64>
  %0 = tandem.gather %a, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

// cmp with broadcasting, NaN unequal to itself; where over constants, and a
// splat condition that picks an operand.
// CHECK-LABEL: func.func @select
// CHECK-DAG: tandem.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: tandem.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: tandem.constant dense<[1.000000e+01, 2.000000e+00, 1.000000e+01]> : tensor<3xf32>
// CHECK-NOT: tandem.cmp
// CHECK-NOT: tandem.where
// CHECK: return {{.*}}, %arg0
func.func @select(%arg0: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xi1>,
                                            tensor<3xf32>, tensor<3xf32>) {
  %x = tandem.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  %two = tandem.constant dense<2.0> : tensor<f32>
  %0 = tandem.cmp eq, %x, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %1 = tandem.cmp ne, %x, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %ten = tandem.constant dense<10.0> : tensor<f32>
  %2 = tandem.where %1, %ten, %x : (tensor<3xi1>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %t = tandem.constant dense<true> : tensor<i1>
  %3 = tandem.where %t, %arg0, %x : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Unsigned comparison: ui8 200 > 100.
// CHECK-LABEL: func.func @unsigned_cmp
// CHECK: tandem.constant dense<true> : tensor<i1>
func.func @unsigned_cmp() -> tensor<i1> {
  %a = tandem.constant dense<200> : tensor<ui8>
  %b = tandem.constant dense<100> : tensor<ui8>
  %0 = tandem.cmp gt, %a, %b : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

// Casts between integers and floats: truncation toward zero, unsigned
// sources read as unsigned, bool as a zero test; NaN does not fold.
// CHECK-LABEL: func.func @casts
// CHECK-DAG: tandem.constant dense<[2, -1, 0]> : tensor<3xi64>
// CHECK-DAG: tandem.constant dense<[2.550000e+02, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: tandem.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK: tandem.cast %{{.*}} : tensor<f32> -> tensor<i32>
func.func @casts() -> (tensor<3xi64>, tensor<2xf32>, tensor<3xi1>, tensor<i32>) {
  %f = tandem.constant dense<[2.7, -1.7, 0.5]> : tensor<3xf32>
  %0 = tandem.cast %f {to = i64} : tensor<3xf32> -> tensor<3xi64>
  %u = tandem.constant dense<[255, 1]> : tensor<2xui8>
  %1 = tandem.cast %u {to = f32} : tensor<2xui8> -> tensor<2xf32>
  %g = tandem.constant dense<[2.0, 0.0, -0.5]> : tensor<3xf32>
  %2 = tandem.cast %g {to = i1} : tensor<3xf32> -> tensor<3xi1>
  %nan = tandem.constant dense<0x7FC00000> : tensor<f32>
  %3 = tandem.cast %nan {to = i32} : tensor<f32> -> tensor<i32>
  return %0, %1, %2, %3 : tensor<3xi64>, tensor<2xf32>, tensor<3xi1>, tensor<i32>
}
