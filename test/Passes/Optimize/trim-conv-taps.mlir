// RUN: tandem-opt %s -split-input-file -tandem-trim-conv-taps | FileCheck %s

// A 3x3 conv of dilation 4 on a 3x3 map with padding 4: every output reads
// its outer taps in the padding, so only the centre weight (5) stays, as a
// 1x1 conv of dilation 1 with no padding.
// CHECK-LABEL: func.func @centre_only
// CHECK:     %[[W:.+]] = tandem.constant dense<5.000000e+00> : tensor<1x1x1x1xf32>
// CHECK:     tandem.conv2d %arg0, %[[W]], %arg1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-SAME: -> tensor<1x1x3x3xf32>
func.func @centre_only(%x: tensor<1x1x3x3xf32>, %b: tensor<1xf32>) -> tensor<1x1x3x3xf32> {
  %w = tandem.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 4, 4, 4, 4>, dilations = array<i64: 4, 4>} : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Rows only: on a 2x8 map, dilation 3 with padding 3 reads rows y - 3 and
// y + 3 (never inside 2 rows) but columns x - 3 .. x + 3 (inside for some
// x). The middle row of the window stays, the columns and their padding
// too.
// CHECK-LABEL: func.func @rows_only
// CHECK:     %[[W:.+]] = tandem.constant dense<{{\[\[\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00]]]]> : tensor<1x1x1x3xf32>
// CHECK:     tandem.conv2d %arg0, %[[W]] {dilations = array<i64: 1, 3>, pads = array<i64: 0, 3, 0, 3>, strides = array<i64: 1, 1>}
// CHECK-SAME: -> tensor<1x1x2x8xf32>
func.func @rows_only(%x: tensor<1x1x2x8xf32>) -> tensor<1x1x2x8xf32> {
  %w = tandem.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 3, 3>} : (tensor<1x1x2x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x8xf32>
  return %0 : tensor<1x1x2x8xf32>
}

// -----

// Left alone: every tap reads the input for some output (an ordinary 3x3
// conv with padding 1), a dropped weight that is NaN, and a filter that is
// not a constant.
// CHECK-LABEL: func.func @kept
// CHECK:     tandem.conv2d %arg0, %{{.+}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>
// CHECK:     tandem.conv2d %arg0, %{{.+}} {dilations = array<i64: 4, 4>, pads = array<i64: 4, 4, 4, 4>
// CHECK:     tandem.conv2d %arg0, %arg1 {dilations = array<i64: 4, 4>, pads = array<i64: 4, 4, 4, 4>
func.func @kept(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x3x3xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) {
  %w1 = tandem.constant dense<1.0> : tensor<1x1x3x3xf32>
  %0 = tandem.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %w2 = tandem.constant dense<[[[[0x7FC00000, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]]> : tensor<1x1x3x3xf32>
  %1 = tandem.conv2d %x, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 4, 4, 4, 4>, dilations = array<i64: 4, 4>} : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %2 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 4, 4, 4, 4>, dilations = array<i64: 4, 4>} : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0, %1, %2 : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>
}

// -----

// Stride 2 and a window one tap from the edge: a 3x3 conv of stride 2,
// padding 2 and dilation 2 on a 4x4 map (outputs 0 and 1 read rows -2, 0,
// 2 and 0, 2, 4): row tap 0 reads row 0 for output 1, tap 2 reads row 2
// for output 0, so all stay; a 5-tap window of dilation 2, padding 4,
// stride 2 on a 3x3 map reads rows -4 .. 4 (output 0) and -2 .. 6 (output
// 1): taps 0 and 4 only in the padding, the middle three stay, with
// padding 2 on each side (7 padded rows for the two outputs).
// CHECK-LABEL: func.func @strided
// CHECK:     %[[W:.+]] = tandem.constant dense<2.000000e+00> : tensor<1x1x3x3xf32>
// CHECK:     tandem.conv2d %arg0, %{{.+}} {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>}
// CHECK:     tandem.conv2d %arg1, %[[W]] {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>}
// CHECK-SAME: -> tensor<1x1x2x2xf32>
func.func @strided(%x: tensor<1x1x4x4xf32>, %y: tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %w = tandem.constant dense<1.0> : tensor<1x1x3x3xf32>
  %0 = tandem.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %w5 = tandem.constant dense<2.0> : tensor<1x1x5x5xf32>
  %1 = tandem.conv2d %y, %w5 {strides = array<i64: 2, 2>, pads = array<i64: 4, 4, 4, 4>, dilations = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32>
  return %0, %1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}
