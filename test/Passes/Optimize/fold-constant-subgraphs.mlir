// RUN: tandem-opt %s --tandem-fold-constant-subgraphs --split-input-file | FileCheck %s

// A select over an f32 weight stored as a dense_resource blob (which the op
// folders do not read) folds; the add of runtime data stays.
// CHECK-LABEL: func.func @resource_where
// CHECK-NEXT: %[[M:.+]] = tandem.constant dense<[1.000000e+00, 0.000000e+00, 3.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: %[[Y:.+]] = tandem.add %arg0, %[[M]]
// CHECK-NEXT: return %[[Y]]
func.func @resource_where(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tandem.constant dense<[true, false, true, false]> : tensor<4xi1>
  %a = tandem.constant dense_resource<labels> : tensor<4xf32>
  %z = tandem.constant dense<0.0> : tensor<f32>
  %m = tandem.where %c, %a, %z : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %y = tandem.add %x, %m : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      labels: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// A shifted-window mask as Swin exports it, at 40 tokens: window labels,
// their pairwise differences (40 x 40 = 1600 elements, more than the op
// folders' 1024), equal or not, -100 where not. One constant (a blob: more
// than 1024 elements) replaces the subgraph.
// CHECK-LABEL: func.func @mask
// CHECK-NEXT: %[[M:.+]] = tandem.constant dense_resource<{{.+}}> : tensor<40x40xf32>
// CHECK-NEXT: %[[Y:.+]] = tandem.add %arg0, %[[M]]
// CHECK-NEXT: return %[[Y]]
func.func @mask(%s: tensor<40x40xf32>) -> tensor<40x40xf32> {
  %l = tandem.constant dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]]> : tensor<1x40xf32>
  %t = tandem.transpose %l {perm = array<i64: 1, 0>} : tensor<1x40xf32> -> tensor<40x1xf32>
  %d = tandem.sub %l, %t : (tensor<1x40xf32>, tensor<40x1xf32>) -> tensor<40x40xf32>
  %zero = tandem.constant dense<0.0> : tensor<f32>
  %e = tandem.cmp eq, %d, %zero : (tensor<40x40xf32>, tensor<f32>) -> tensor<40x40xi1>
  %far = tandem.constant dense<-100.0> : tensor<f32>
  %m = tandem.where %e, %zero, %far : (tensor<40x40xi1>, tensor<f32>, tensor<f32>) -> tensor<40x40xf32>
  %y = tandem.add %s, %m : (tensor<40x40xf32>, tensor<40x40xf32>) -> tensor<40x40xf32>
  return %y : tensor<40x40xf32>
}

// -----

// pow(head_dim, -0.5), the attention scale exports compute, is a constant.
// CHECK-LABEL: func.func @scale
// CHECK-NEXT: %[[S:.+]] = tandem.constant dense<0.176776{{[0-9]*}}> : tensor<f32>
// CHECK-NEXT: %[[Y:.+]] = tandem.mul %arg0, %[[S]]
func.func @scale(%q: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %d = tandem.constant dense<32.0> : tensor<f32>
  %e = tandem.constant dense<-0.5> : tensor<f32>
  %s = tandem.pow %d, %e : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y = tandem.mul %q, %s : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Moving a weight computes nothing: its transpose is left to
// tandem-fold-constant-movement's policy.
// CHECK-LABEL: func.func @weight_move
// CHECK: %[[T:.+]] = tandem.transpose
// CHECK: tandem.matmul %arg0, %[[T]]
func.func @weight_move(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = tandem.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = tandem.transpose %w {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %y = tandem.matmul %x, %t : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A result above 1 Mi elements (1025 x 1025) stays a computation.
// CHECK-LABEL: func.func @too_large
// CHECK: %[[B:.+]] = tandem.add
// CHECK: tandem.mul %arg0, %[[B]]
func.func @too_large(%x: tensor<1025x1025xf32>) -> tensor<1025x1025xf32> {
  %r = tandem.constant dense<2.0> : tensor<1025x1025xf32>
  %c = tandem.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %p = tandem.pad %c {pads_low = array<i64: 0, 0>, pads_high = array<i64: 1023, 0>} : tensor<2x1xf32> -> tensor<1025x1xf32>
  %b = tandem.add %p, %r : (tensor<1025x1xf32>, tensor<1025x1025xf32>) -> tensor<1025x1025xf32>
  %y = tandem.mul %x, %b : (tensor<1025x1025xf32>, tensor<1025x1025xf32>) -> tensor<1025x1025xf32>
  return %y : tensor<1025x1025xf32>
}

// -----

// A cast that ONNX leaves undefined (-inf to an integer) does not fold, and
// neither does what depends on it.
// CHECK-LABEL: func.func @undefined
// CHECK: %[[I:.+]] = tandem.cast
// CHECK: %[[S:.+]] = tandem.add %[[I]]
// CHECK: tandem.mul %arg0, %[[S]]
func.func @undefined(%x: tensor<2xi64>) -> tensor<2xi64> {
  %f = tandem.constant dense<[0xFF800000, 1.0]> : tensor<2xf32>
  %i = tandem.cast %f {to = i64} : tensor<2xf32> -> tensor<2xi64>
  %one = tandem.constant dense<1> : tensor<i64>
  %s = tandem.add %i, %one : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %y = tandem.mul %x, %s : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}
