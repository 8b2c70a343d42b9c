// RUN: tandem-opt -tandem-lower-to-linalg -split-input-file -verify-diagnostics %s

// A dilated max-pool window that covers no input element has no maximum.
func.func @max_pool_window_in_padding(%a: tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32> {
  // expected-error @+2 {{'tandem.max_pool2d' op has a window lying entirely in the padding (spatial dim 0, output index 0)}}
  // expected-error @+1 {{failed to legalize operation 'tandem.max_pool2d'}}
  %0 = tandem.max_pool2d %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 3, 3>} : tensor<1x1x2x2xf32> -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

// Gathering from an empty axis has no element to read.
func.func @gather_empty_axis(%d: tensor<0x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'tandem.gather' op gathers from empty axis 0}}
  // expected-error @+1 {{failed to legalize operation 'tandem.gather'}}
  %0 = tandem.gather %d, %i {axis = 0 : i64} : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A failure inside a fusion fails the pass too.
func.func @fusion_body_failure(%d: tensor<0x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = tandem.fusion loop "bad" (%d, %i) : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<0x3xf32>, %b: tensor<2xi64>):
    // expected-error @+2 {{'tandem.gather' op gathers from empty axis 0}}
    // expected-error @+1 {{failed to legalize operation 'tandem.gather'}}
    %1 = tandem.gather %a, %b {axis = 0 : i64} : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    tandem.yield %1 : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

// Constant gather indices out of range are an error at the node.
func.func @gather_out_of_range(%d: tensor<6x5xf32>) -> tensor<2x5xf32> {
  %i = tandem.constant dense<[0, 6]> : tensor<2xi64>
  // expected-error @+2 {{gather index 6 is out of range for axis 0 of size 6 (valid: -6 to 5)}}
  // expected-error @+1 {{failed to legalize operation 'tandem.gather'}}
  %0 = tandem.gather %d, %i {axis = 0 : i64} : (tensor<6x5xf32>, tensor<2xi64>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Constant gather_elements indices out of range are an error at the node.
func.func @gather_elements_out_of_range(%d: tensor<3x4xf32>) -> tensor<3x1xf32> {
  %i = tandem.constant dense<[[0], [-5], [3]]> : tensor<3x1xi64>
  // expected-error @+2 {{gather_elements index -5 is out of range for axis 1 of size 4 (valid: -4 to 3)}}
  // expected-error @+1 {{failed to legalize operation 'tandem.gather_elements'}}
  %0 = tandem.gather_elements %d, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// Constant gather_nd indices are checked against the dim each one indexes.
func.func @gather_nd_out_of_range(%d: tensor<3x4xf32>) -> tensor<2xf32> {
  %i = tandem.constant dense<[[2, 3], [0, 4]]> : tensor<2x2xi64>
  // expected-error @+2 {{gather_nd index 4 is out of range for axis 1 of size 4 (valid: -4 to 3)}}
  // expected-error @+1 {{failed to legalize operation 'tandem.gather_nd'}}
  %0 = tandem.gather_nd %d, %i : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
