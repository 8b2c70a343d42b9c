// Folding and canonicalisation of tandem ops.
// RUN: tandem-opt %s -canonicalize -split-input-file | FileCheck %s

// An identity reshape folds away; a reshape of a reshape keeps the last shape.
// CHECK-LABEL: func.func @reshape_identity_and_chain
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
func.func @reshape_identity_and_chain(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  // CHECK: %[[R:.+]] = tandem.reshape %[[X]] {shape = array<i64: 3, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK-NOT: tandem.reshape
  // CHECK: return %[[X]], %[[R]]
  %0 = tandem.reshape %x {shape = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = tandem.reshape %x {shape = array<i64: 6>} : tensor<2x3xf32> -> tensor<6xf32>
  %2 = tandem.reshape %1 {shape = array<i64: 3, 2>} : tensor<6xf32> -> tensor<3x2xf32>
  return %0, %2 : tensor<2x3xf32>, tensor<3x2xf32>
}

// -----

// Identity transposes and transposes that cancel fold away.
// CHECK-LABEL: func.func @transpose_identity_and_inverse
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
func.func @transpose_identity_and_inverse(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  // CHECK-NOT: tandem.transpose
  // CHECK: return %[[X]], %[[X]]
  %0 = tandem.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %1 = tandem.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %2 = tandem.transpose %1 {perm = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %0, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Two transposes compose into one.
// CHECK-LABEL: func.func @transpose_of_transpose
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // CHECK: tandem.transpose %{{.*}} {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK-NOT: tandem.transpose
  %0 = tandem.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = tandem.transpose %0 {perm = array<i64: 2, 1, 0>} : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// A transpose that only moves unit dims is a reshape.
// CHECK-LABEL: func.func @transpose_unit_dims
func.func @transpose_unit_dims(%x: tensor<1x8x1x4xf32>) -> tensor<8x1x4x1xf32> {
  // CHECK: tandem.reshape %{{.*}} {shape = array<i64: 8, 1, 4, 1>}
  // CHECK-NOT: tandem.transpose
  %0 = tandem.transpose %x {perm = array<i64: 1, 0, 3, 2>} : tensor<1x8x1x4xf32> -> tensor<8x1x4x1xf32>
  return %0 : tensor<8x1x4x1xf32>
}

// -----

// A transpose that reorders real dims stays.
// CHECK-LABEL: func.func @transpose_real_dims
func.func @transpose_real_dims(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: tandem.transpose
  %0 = tandem.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Small constants fold through shape ops.
// CHECK-LABEL: func.func @constant_shape_ops
func.func @constant_shape_ops() -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf16>, tensor<4x2x3xf32>) {
  // CHECK-DAG: tandem.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
  // CHECK-DAG: tandem.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
  // CHECK-DAG: tandem.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf16>
  // CHECK-DAG: tandem.constant dense<7.000000e+00> : tensor<4x2x3xf32>
  // CHECK-NOT: tandem.reshape
  // CHECK-NOT: tandem.transpose
  // CHECK-NOT: tandem.cast
  // CHECK-NOT: tandem.broadcast_to
  %c = tandem.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = tandem.reshape %c {shape = array<i64: 3, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tandem.transpose %c {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = tandem.cast %c {to = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
  %s = tandem.constant dense<7.0> : tensor<3xf32>
  %3 = tandem.broadcast_to %s {shape = array<i64: 4, 2, 3>} : tensor<3xf32> -> tensor<4x2x3xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf16>, tensor<4x2x3xf32>
}

// -----

// Elementwise arithmetic on small constants folds, with broadcasting.
// CHECK-LABEL: func.func @constant_arithmetic
func.func @constant_arithmetic() -> (tensor<2x2xf32>, tensor<2xi32>, tensor<2xf32>) {
  // CHECK-DAG: tandem.constant dense<{{\[\[}}1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
  // CHECK-DAG: tandem.constant dense<[-3, 2]> : tensor<2xi32>
  // CHECK-DAG: tandem.constant dense<[2.000000e+00, 0.000000e+00]> : tensor<2xf32>
  // CHECK-NOT: tandem.add
  // CHECK-NOT: tandem.div
  // CHECK-NOT: tandem.relu
  %a = tandem.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = tandem.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %0 = tandem.add %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %i = tandem.constant dense<[-7, 5]> : tensor<2xi32>
  %j = tandem.constant dense<2> : tensor<2xi32>
  %1 = tandem.div %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %n = tandem.constant dense<[2.0, -3.0]> : tensor<2xf32>
  %2 = tandem.relu %n : tensor<2xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<2xi32>, tensor<2xf32>
}

// -----

// Unary math on splats folds; integer division by zero is left alone.
// CHECK-LABEL: func.func @constant_math
func.func @constant_math() -> (tensor<4xf32>, tensor<4xf32>, tensor<2xi32>) {
  // CHECK-DAG: tandem.constant dense<2.000000e+00> : tensor<4xf32>
  // CHECK-DAG: tandem.constant dense<5.000000e-01> : tensor<4xf32>
  // CHECK: tandem.div
  %c = tandem.constant dense<4.0> : tensor<4xf32>
  %0 = tandem.sqrt %c : tensor<4xf32>
  %1 = tandem.rsqrt %c : tensor<4xf32>
  %i = tandem.constant dense<[1, 2]> : tensor<2xi32>
  %z = tandem.constant dense<0> : tensor<2xi32>
  %2 = tandem.div %i, %z : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<2xi32>
}

// -----

// Weights held as dense_resource blobs are never folded or copied.
// CHECK-LABEL: func.func @resource_constants_stay
func.func @resource_constants_stay(%x: tensor<2048xf32>) -> tensor<2048xf32> {
  // CHECK: %[[C:.+]] = tandem.constant dense_resource<big>
  // CHECK: %[[E:.+]] = tandem.exp %[[C]]
  // CHECK: tandem.add %{{.*}}, %[[E]]
  %c = tandem.constant dense_resource<big> : tensor<2048xf32>
  %0 = tandem.exp %c : tensor<2048xf32>
  %1 = tandem.add %x, %0 : (tensor<2048xf32>, tensor<2048xf32>) -> tensor<2048xf32>
  return %1 : tensor<2048xf32>
}

{-#
  dialect_resources: {
    builtin: {
      big: "0x04000000"
    }
  }
#-}

// -----

// x + 0, x - 0, x * 1 and x / 1 fold to x when the type does not change.
// CHECK-LABEL: func.func @algebraic_identities
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
func.func @algebraic_identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %zero = tandem.constant dense<0.0> : tensor<3xf32>
  %one = tandem.constant dense<1.0> : tensor<f32>
  %0 = tandem.add %x, %zero : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tandem.sub %x, %zero : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = tandem.mul %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = tandem.div %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // Broadcasting to a larger shape is not an identity.
  %z4 = tandem.constant dense<0.0> : tensor<4x1x1xf32>
  // CHECK: %[[B:.+]] = tandem.add %[[X]]
  %4 = tandem.add %x, %z4 : (tensor<2x3xf32>, tensor<4x1x1xf32>) -> tensor<4x2x3xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[B]]
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>
}

// -----

// No-op slices, pads, casts, concats and broadcasts fold away.
// CHECK-LABEL: func.func @noop_shape_ops
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
func.func @noop_shape_ops(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK-NOT: tandem.
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
  %0 = tandem.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 3>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = tandem.pad %x {pads_low = array<i64: 0, 0>, pads_high = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = tandem.cast %x {to = f32} : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = tandem.concat %x {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = tandem.broadcast_to %x {shape = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Idempotent and involutive unary ops.
// CHECK-LABEL: func.func @unary_identities
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
func.func @unary_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[R:.+]] = tandem.relu %[[X]]
  // CHECK-NEXT: %[[A:.+]] = tandem.abs %[[X]]
  // CHECK-NEXT: return %[[R]], %[[X]], %[[A]]
  %0 = tandem.relu %x : tensor<4xf32>
  %1 = tandem.relu %0 : tensor<4xf32>
  %2 = tandem.neg %x : tensor<4xf32>
  %3 = tandem.neg %2 : tensor<4xf32>
  %4 = tandem.abs %x : tensor<4xf32>
  %5 = tandem.abs %4 : tensor<4xf32>
  return %1, %3, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// max and min of constants evaluate; max(x, x) and min(x, x) are x.
// CHECK-LABEL: func.func @extrema
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
func.func @extrema(%x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xf32>, tensor<3xf32>) {
  // CHECK-DAG: tandem.constant dense<[4, 2, 3]> : tensor<3xi32>
  // CHECK-DAG: tandem.constant dense<[1, -5, 3]> : tensor<3xi32>
  // CHECK-NOT: tandem.max
  // CHECK-NOT: tandem.min
  // CHECK: return %{{.*}}, %{{.*}}, %[[X]], %[[X]]
  %a = tandem.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = tandem.constant dense<[4, -5, 3]> : tensor<3xi32>
  %0 = tandem.max %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = tandem.min %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %2 = tandem.max %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = tandem.min %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<3xi32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// A cast of booleans to integers folds true to 1, not -1.
// CHECK-LABEL: func.func @cast_bool_constant
// CHECK: tandem.constant dense<[1, 0]> : tensor<2xi64>
// CHECK-NOT: tandem.cast
func.func @cast_bool_constant() -> tensor<2xi64> {
  %0 = tandem.constant dense<[true, false]> : tensor<2xi1>
  %1 = tandem.cast %0 {to = i64} : tensor<2xi1> -> tensor<2xi64>
  return %1 : tensor<2xi64>
}

// -----

// pow with a constant exponent of 2 or 3 becomes multiplications, as
// onnxruntime computes it; other exponents keep the pow (C pow semantics).
// CHECK-LABEL: func.func @pow_small_integer_exponents
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[SQ:.+]] = tandem.mul %[[X]], %[[X]]
// CHECK: %[[SQ2:.+]] = tandem.mul %[[X]], %[[X]]
// CHECK: %[[CUBE:.+]] = tandem.mul %[[SQ2]], %[[X]]
// CHECK: %[[HALF:.+]] = tandem.pow %[[X]], %{{.+}}
// CHECK: return %[[SQ]], %[[CUBE]], %[[HALF]]
func.func @pow_small_integer_exponents(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %two = tandem.constant dense<2.0> : tensor<f32>
  %three = tandem.constant dense<3.0> : tensor<f32>
  %half = tandem.constant dense<0.5> : tensor<f32>
  %0 = tandem.pow %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tandem.pow %x, %three : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = tandem.pow %x, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer remainders, bitwise ops and shifts of constants fold (a remainder
// by zero is 0, a shift by the bit width or more is 0); the floored
// remainder takes the divisor's sign.
// CHECK-LABEL: func.func @fold_integer_bit_ops
// CHECK-DAG: tandem.constant dense<[-2, 1, 0, 1]> : tensor<4xi32>
// CHECK-DAG: tandem.constant dense<[1, 1, 0, 1]> : tensor<4xi32>
// CHECK-DAG: tandem.constant dense<[4, 16, 2, 0]> : tensor<4xi32>
// CHECK-DAG: tandem.constant dense<[5, 3, 0, 0]> : tensor<4xi32>
// CHECK-DAG: tandem.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT: tandem.mod
// CHECK-NOT: tandem.and
// CHECK-NOT: tandem.shift
// CHECK-NOT: tandem.xor
func.func @fold_integer_bit_ops() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xi1>) {
  %a = tandem.constant dense<[7, 7, 5, 1]> : tensor<4xi32>
  %b = tandem.constant dense<[-3, 3, 0, 32]> : tensor<4xi32>
  %m = tandem.mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %f = tandem.mod %a, %b {fmod = true} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %two = tandem.constant dense<[1, 3, 0, 32]> : tensor<4xi32>
  %one = tandem.constant dense<[2, 2, 2, 2]> : tensor<4xi32>
  %s = tandem.shift_left %one, %two : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %n = tandem.and %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %t = tandem.constant dense<[true, false]> : tensor<2xi1>
  %u = tandem.constant dense<true> : tensor<i1>
  %x = tandem.xor %t, %u : (tensor<2xi1>, tensor<i1>) -> tensor<2xi1>
  return %m, %f, %s, %n, %x : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xi1>
}

// -----

// q, k, v = qkv[0], qkv[1], qkv[2] after a head split's transpose (torch's
// Swin): each gather of one constant index becomes a transpose of the
// slice it reads, taken before the transpose and squeezed, so that
// neither the whole transposed tensor nor a copy per gather is made; the
// transpose after k composes with k's own. An index of -1 counts from
// the end.
// CHECK-LABEL: func.func @gathers_of_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<4x5x3x2x6xf32>)
// CHECK-NOT: tandem.gather
// CHECK-DAG: %[[Q:.+]] = tandem.slice %[[X]] {limits = array<i64: 4, 5, 1, 2, 6>, starts = array<i64: 0, 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1, 1>}
// CHECK-DAG: %[[QR:.+]] = tandem.reshape %[[Q]] {shape = array<i64: 4, 5, 2, 6>}
// CHECK-DAG: tandem.transpose %[[QR]] {perm = array<i64: 0, 2, 1, 3>} : tensor<4x5x2x6xf32> -> tensor<4x2x5x6xf32>
// CHECK-DAG: %[[K:.+]] = tandem.slice %[[X]] {limits = array<i64: 4, 5, 2, 2, 6>, starts = array<i64: 0, 0, 1, 0, 0>
// CHECK-DAG: %[[KR:.+]] = tandem.reshape %[[K]]
// CHECK-DAG: tandem.transpose %[[KR]] {perm = array<i64: 0, 2, 3, 1>} : tensor<4x5x2x6xf32> -> tensor<4x2x6x5xf32>
// CHECK-DAG: %[[V:.+]] = tandem.slice %[[X]] {limits = array<i64: 4, 5, 3, 2, 6>, starts = array<i64: 0, 0, 2, 0, 0>
// CHECK-NOT: tandem.gather
func.func @gathers_of_transpose(%x: tensor<4x5x3x2x6xf32>) -> (tensor<4x2x5x6xf32>, tensor<4x2x6x5xf32>, tensor<4x2x5x6xf32>) {
  %i0 = tandem.constant dense<0> : tensor<i64>
  %i1 = tandem.constant dense<1> : tensor<i64>
  %i2 = tandem.constant dense<-1> : tensor<i64>
  %t = tandem.transpose %x {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<4x5x3x2x6xf32> -> tensor<3x4x2x5x6xf32>
  %q = tandem.gather %t, %i0 {axis = 0 : i64} : (tensor<3x4x2x5x6xf32>, tensor<i64>) -> tensor<4x2x5x6xf32>
  %k = tandem.gather %t, %i1 {axis = 0 : i64} : (tensor<3x4x2x5x6xf32>, tensor<i64>) -> tensor<4x2x5x6xf32>
  %v = tandem.gather %t, %i2 {axis = 0 : i64} : (tensor<3x4x2x5x6xf32>, tensor<i64>) -> tensor<4x2x5x6xf32>
  %kt = tandem.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x5x6xf32> -> tensor<4x2x6x5xf32>
  return %q, %kt, %v : tensor<4x2x5x6xf32>, tensor<4x2x6x5xf32>, tensor<4x2x5x6xf32>
}

// -----

// q, k, v = qkv.unbind(0) after a head split's transpose (timm's ViT): each
// slice of the transpose becomes the same slice of its input (dimension d
// of the slice is dimension perm[d] of the input, steps too), then the
// transpose, so that no transposed copy of the whole is made.
// CHECK-LABEL: func.func @slices_of_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<4x5x3x2x6xf32>)
// CHECK-DAG: %[[Q:.+]] = tandem.slice %[[X]] {limits = array<i64: 4, 5, 1, 2, 6>, starts = array<i64: 0, 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1, 1>}
// CHECK-DAG: tandem.transpose %[[Q]] {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<4x5x1x2x6xf32> -> tensor<1x4x2x5x6xf32>
// CHECK-DAG: %[[K:.+]] = tandem.slice %[[X]] {limits = array<i64: 4, 5, 2, 2, 6>, starts = array<i64: 0, 0, 1, 0, 0>, steps = array<i64: 1, 2, 1, 1, 1>}
// CHECK-DAG: tandem.transpose %[[K]] {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<4x3x1x2x6xf32> -> tensor<1x4x2x3x6xf32>
// CHECK-NOT: tandem.transpose {{.*}} -> tensor<3x4x2x5x6xf32>
func.func @slices_of_transpose(%x: tensor<4x5x3x2x6xf32>) -> (tensor<1x4x2x5x6xf32>, tensor<1x4x2x3x6xf32>) {
  %t = tandem.transpose %x {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<4x5x3x2x6xf32> -> tensor<3x4x2x5x6xf32>
  %q = tandem.slice %t {starts = array<i64: 0, 0, 0, 0, 0>, limits = array<i64: 1, 4, 2, 5, 6>, steps = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x5x6xf32> -> tensor<1x4x2x5x6xf32>
  %k = tandem.slice %t {starts = array<i64: 1, 0, 0, 0, 0>, limits = array<i64: 2, 4, 2, 5, 6>, steps = array<i64: 1, 1, 1, 2, 1>} : tensor<3x4x2x5x6xf32> -> tensor<1x4x2x3x6xf32>
  return %q, %k : tensor<1x4x2x5x6xf32>, tensor<1x4x2x3x6xf32>
}

// -----

// A transpose something else also reads stays as it is.
// CHECK-LABEL: func.func @gather_and_other_user
// CHECK: %[[T:.+]] = tandem.transpose
// CHECK: tandem.gather %[[T]]
func.func @gather_and_other_user(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %i = tandem.constant dense<0> : tensor<i64>
  %t = tandem.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %g = tandem.gather %t, %i {axis = 0 : i64} : (tensor<3x2xf32>, tensor<i64>) -> tensor<2xf32>
  return %g, %t : tensor<2xf32>, tensor<3x2xf32>
}
