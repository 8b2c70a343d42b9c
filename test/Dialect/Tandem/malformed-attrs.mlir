// Malformed attributes and overflowing shapes: each is a diagnostic, never a
// crash (scripts/fuzz.sh's tandem-mlir-parse-fuzzer keeps it so).
// RUN: tandem-opt %s -split-input-file -verify-diagnostics

// A dense array of the wrong element type.
func.func @wrong_array_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'shape' failed to satisfy constraint: i64 dense array attribute}}
  %0 = tandem.reshape %x {shape = array<i32: 6>} : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

// A plain array where a dense array is expected.
func.func @array_not_dense(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'perm' failed to satisfy constraint: i64 dense array attribute}}
  %0 = tandem.transpose %x {perm = [1, 0]} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// An integer where a bool is expected.
func.func @int_for_bool(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'keepdims' failed to satisfy constraint: bool attribute}}
  %0 = tandem.reduce_sum %x {axes = array<i64: 1>, keepdims = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>
  return
}

// -----

// A string where an integer is expected.
func.func @string_for_int(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = tandem.concat %x, %y {axis = "1"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// The generic form: properties are type-checked when converted.
func.func @generic_wrong_property(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{Invalid attribute `shape` in property conversion: [6]}}
  %0 = "tandem.reshape"(%x) <{shape = [6]}> : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

// The discardable device attribute must be a device.
func.func @device_attr_wrong_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tandem.device' must be a #tandem.device attribute, got array<i64: 1>}}
  %0 = tandem.relu %x {tandem.device = array<i64: 1>} : tensor<2xf32>
  return
}

// -----

// Dims whose product overflows int64: operands ...
func.func @huge_tensor(%x: tensor<9223372036854775807x2xf32>) {
  // expected-error @+1 {{operand #0 has type 'tensor<9223372036854775807x2xf32>', whose size in bytes overflows int64 (at most 9223372036854775807 bytes)}}
  %0 = tandem.relu %x : tensor<9223372036854775807x2xf32>
  return
}

// -----

// ... and results.
func.func @huge_result(%x: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<4611686018427387904x2xf32>', whose size in bytes overflows int64 (at most 9223372036854775807 bytes)}}
  %0 = tandem.broadcast_to %x {shape = array<i64: 4611686018427387904, 2>} : tensor<2xf32> -> tensor<4611686018427387904x2xf32>
  return
}

// -----

// A reshape target whose element count overflows int64.
func.func @reshape_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'shape' [3037000500, 3037000500] has more than 9223372036854775807 elements}}
  %0 = tandem.reshape %x {shape = array<i64: 3037000500, 3037000500>} : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

// Window arithmetic that overflows int64 does not wrap into a valid size.
func.func @conv_pads_overflow(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+1 {{the height kernel (3, dilation 1) does not fit the padded input (8 + 9223372036854775807 + 9223372036854775807)}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 9223372036854775807, 0, 9223372036854775807, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x8x6xf32>
  return
}

// -----

// Nor does a huge dilation.
func.func @conv_dilation_overflow(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+1 {{the height kernel (3, dilation 9223372036854775807) does not fit the padded input (8 + 0 + 0)}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 9223372036854775807, 1>} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  return
}

// -----

// Channel arithmetic that overflows int64 is a mismatch, not a wrap.
func.func @conv_groups_overflow(%x: tensor<1x2x8x8xf32>, %w: tensor<2x2x3x3xf32>) {
  // expected-error @+1 {{input channels (2) must equal filter channels (2) times groups (9223372036854775807)}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 9223372036854775807 : i64} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

// Padding that overflows int64.
func.func @pad_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{padding dimension 0 (2) by (9223372036854775807, 0) overflows int64}}
  %0 = tandem.pad %x {pads_low = array<i64: 9223372036854775807, 0>, pads_high = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// A concatenation whose length overflows int64 (each input alone fits).
func.func @concat_overflow(%x: tensor<4611686018427387904xi1>) {
  // expected-error @+1 {{the concatenated dimension 0 overflows int64 at input #1 ('tensor<4611686018427387904xi1>')}}
  %0 = tandem.concat %x, %x {axis = 0 : i64} : (tensor<4611686018427387904xi1>, tensor<4611686018427387904xi1>) -> tensor<4xi1>
  return
}
