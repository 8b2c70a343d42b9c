// Malformed IR gives a located diagnostic and a non-zero exit, never a crash.
// RUN: not tandem-opt %s -split-input-file 2>&1 | FileCheck %s

// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: custom op 'tandem.nonexistent' is unknown
func.func @unknown_op(%x: tensor<4xf32>) {
  %0 = tandem.nonexistent %x : tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: expected ':'
func.func @missing_type(%x: tensor<4xf32>) {
  %0 = tandem.relu %x
  return
}

// -----

// A missing attribute on an op whose result type is inferred.
// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'tandem.softmax' op requires attribute 'axis'
func.func @missing_attr(%x: tensor<4xf32>) {
  %0 = tandem.softmax %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'tandem.conv2d' op requires attribute 'dilations'
func.func @missing_conv_attrs(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %0 = tandem.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Use of an undefined value.
// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: use of undeclared SSA value name
func.func @undefined_value() {
  %0 = tandem.relu %nope : tensor<4xf32>
  return
}

// -----

// Wrong attribute kind for an inherent attribute.
// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: {{.*}}'tandem.transpose' op attribute 'perm' failed to satisfy constraint: i64 dense array attribute
func.func @wrong_attr_kind(%x: tensor<2x3xf32>) {
  %0 = tandem.transpose %x {perm = [1, 0]} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// An unknown fusion kind.
// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: {{.*}}expected ::mlir::tandem::FusionKind to be one of: loop, input, output, multi_output
func.func @bad_fusion_kind(%x: tensor<4xf32>) {
  %0 = tandem.fusion sideways "f" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tandem.yield %a : tensor<4xf32>
  }
  return
}

// -----

// A fusion whose body is empty.
// CHECK: malformed-ir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'tandem.fusion' op expects a non-empty block
func.func @empty_fusion(%x: tensor<4xf32>) {
  %0 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
  }
  return
}

// -----

// A fusion body without its tandem.yield.
// CHECK: malformed-ir.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: block with no terminator
func.func @unterminated_fusion(%x: tensor<4xf32>) {
  %0 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = tandem.relu %a : tensor<4xf32>
  }
  return
}
