// One case per verifier rule of the tandem dialect.
// RUN: tandem-opt %s -split-input-file -verify-diagnostics

// Dynamic dimensions are rejected until dynamic shapes are supported.
func.func @dynamic_dim(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{dynamic dimensions are not supported yet: operand #0 has type 'tensor<?x4xf32>'}}
  %0 = tandem.relu %x : tensor<?x4xf32>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+2 {{inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tandem.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tandem.reshape' op cannot reshape 'tensor<2x3xf32>' (6 elements) to [4, 2] (8 elements)}}
  %0 = tandem.reshape %x {shape = array<i64: 4, 2>} : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_negative_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'shape' entries must be non-negative, got [-1, 6]}}
  %0 = tandem.reshape %x {shape = array<i64: -1, 6>} : tensor<2x3xf32> -> tensor<1x6xf32>
  return
}

// -----

func.func @reshape_missing_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires attribute 'shape'}}
  %0 = tandem.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @transpose_perm_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'perm' [1, 0, 2] has 3 entries but the input 'tensor<2x3xf32>' has rank 2}}
  %0 = tandem.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_bad_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'perm' [0, 0] is not a permutation of [0, 2)}}
  %0 = tandem.transpose %x {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tandem.concat' op axis 2 is out of range for rank 2 (expected 0 <= axis < 2)}}
  %0 = tandem.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<2x3xf32>, %y: tensor<6xf32>) {
  // expected-error @+1 {{input #1 has type 'tensor<6xf32>' but input #0 has rank 2}}
  %0 = tandem.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<6xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @concat_dims(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{input #1 ('tensor<2x4xf32>') differs from input #0 ('tensor<2x3xf32>') in dimension 1, which is not the concatenation axis 0}}
  %0 = tandem.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_attr_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'starts' must have 2 entries, got 1 ([0])}}
  %0 = tandem.slice %x {starts = array<i64: 0>, limits = array<i64: 4, 8>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice [2, 9) of dimension 1 is outside [0, 8] of input 'tensor<4x8xf32>'}}
  %0 = tandem.slice %x {starts = array<i64: 0, 2>, limits = array<i64: 4, 9>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'steps' entries must be positive, got [1, 0]}}
  %0 = tandem.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 4, 8>, steps = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'pads_low' entries must be non-negative, got [0, -1]}}
  %0 = tandem.pad %x {pads_low = array<i64: 0, -1>, pads_high = array<i64: 0, 0>} : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @pad_reflect_too_wide(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{reflect padding of dimension 0 by (4, 0) must be smaller than its size 4}}
  %0 = tandem.pad %x {mode = #tandem.pad_mode<reflect>, pads_low = array<i64: 4, 0>, pads_high = array<i64: 0, 0>} : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'tandem.gather' op axis 2 is out of range for rank 2}}
  %0 = tandem.gather %x, %i {axis = 2 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<4x8xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<4x8xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 64-bit signless integer or 32-bit signless integer values}}
  %0 = tandem.gather %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @cast_result_mismatch(%x: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tandem.cast %x {to = f16} : tensor<4xf32> -> tensor<4xi32>
  return
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tandem.broadcast_to' op cannot broadcast 'tensor<3xf32>' to [4, 2]}}
  %0 = tandem.broadcast_to %x {shape = array<i64: 4, 2>} : tensor<3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_i8(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>) {
  // Integer contractions take i32 (widened) operands only.
  // expected-error @+1 {{'tandem.matmul' op operand #0 must be ranked tensor of}}
  %0 = tandem.matmul %a, %b : (tensor<4x8xi8>, tensor<8x2xi8>) -> tensor<4x2xi8>
  return
}

// -----

func.func @conv_mixed_types(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tandem.conv2d' op failed to verify that all of {input, filter, output} have same element type}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xi32>
  return
}

// -----

func.func @conv_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tandem.conv2d' op expects a rank-4 NCHW input, got 'tensor<3x8x8xf32>'}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'tandem.conv2d' op input channels (3) must equal filter channels (2) times groups (1)}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups_output(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{output channels (3) must be divisible by groups (2)}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias must have shape [4] (the filter's output channels), got 'tensor<3xf32>'}}
  %0 = tandem.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_strides_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'strides' must have 2 entries, got 1 ([1])}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'strides' entries must be positive, got [0, 1]}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{the height kernel (3, dilation 1) does not fit the padded input (2 + 0 + 0)}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return
}

// -----

func.func @conv_result_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_int_input(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>) {
  // Only i32 integers: int8 data is widened first.
  // expected-error @+1 {{operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer values}}
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi8>
  return
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{operands must have rank 2 or more, got 'tensor<4xf32>' and 'tensor<4x2xf32>'}}
  %0 = tandem.matmul %a, %b : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{contraction dimensions differ: lhs 'tensor<2x3xf32>' has K = 3 but rhs 'tensor<4x2xf32>' has K = 4}}
  %0 = tandem.matmul %a, %b : (tensor<2x3xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x2xf32>) {
  // expected-error @+1 {{batch dimensions of 'tensor<2x2x3xf32>' and 'tensor<3x3x2xf32>' are not broadcast-compatible}}
  %0 = tandem.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x3x2xf32>) -> tensor<2x2x2xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x2xf16>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, output} have same element type}}
  %0 = tandem.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf16>) -> tensor<2x2xf32>
  return
}

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'tandem.gemm' op expects a rank-2 A, got 'tensor<2x3x4xf32>'}}
  %0 = tandem.gemm %a, %b : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @gemm_contraction(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{contraction dimensions differ: op(A) is 2x3 but op(B) is 2x3 (trans_a = 0, trans_b = 0)}}
  %0 = tandem.gemm %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gemm_c(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{C 'tensor<3xf32>' does not broadcast to the result [2, 4]}}
  %0 = tandem.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @bias_add_shape(%x: tensor<1x8x4x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias must have shape [8] (dimension 1 of 'tensor<1x8x4x4xf32>'), got 'tensor<4xf32>'}}
  %0 = tandem.bias_add %x, %b : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @bias_add_axis(%x: tensor<8x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = tandem.bias_add %x, %b {axis = 2 : i64} : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @add_bad_broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.add' op operands are not broadcast-compatible: 'tensor<2x3xf32>' vs 'tensor<4xf32>'}}
  %0 = tandem.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @add_result_mismatch(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tandem.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @add_element_types(%x: tensor<3xf32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, output} have same element type}}
  %0 = tandem.add %x, %y : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @add_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 64-bit unsigned integer or 32-bit unsigned integer or 16-bit unsigned integer or 8-bit unsigned integer values}}
  %0 = tandem.add %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @cmp_result(%x: tensor<3xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = tandem.cmp lt, %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_condition(%c: tensor<3xf32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = tandem.where %c, %x, %x : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_broadcast(%c: tensor<4xi1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible: 'tensor<4xi1>' vs 'tensor<3xf32>'}}
  %0 = tandem.where %c, %x, %x : (tensor<4xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @unary_float_only(%x: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = tandem.exp %x : tensor<3xi32>
  return
}

// -----

func.func @unary_result_mismatch(%x: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tandem.relu"(%x) : (tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clip_bounds(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tandem.clip' op 'min' (6.000000e+00) must not exceed 'max' (0.000000e+00)}}
  %0 = tandem.clip %x {min = 6.0 : f32, max = 0.0 : f32} : tensor<3xf32>
  return
}

// -----

func.func @pool_layout(%x: tensor<1x9x9x8xf32>) {
  // expected-error @+1 {{'tandem.max_pool2d' op 'layout' must be "NCHW" or "NHWC", got "NCWH"}}
  %0 = tandem.max_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NCWH"} : tensor<1x9x9x8xf32> -> tensor<1x5x5x8xf32>
  return
}

// -----

// The NHWC shape check: the window runs over dimensions 1 and 2.
func.func @pool_nhwc_shape(%x: tensor<1x9x9x8xf32>) {
  // expected-error @+2 {{'tandem.max_pool2d' op inferred type(s) 'tensor<1x5x5x8xf32>' are incompatible with return type(s) of operation 'tensor<1x5x5x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tandem.max_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NHWC"} : tensor<1x9x9x8xf32> -> tensor<1x5x5x4xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<8x9x9xf32>) {
  // expected-error @+1 {{'tandem.max_pool2d' op expects a rank-4 NCHW input, got 'tensor<8x9x9xf32>'}}
  %0 = tandem.max_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<8x9x9xf32> -> tensor<8x5x5xf32>
  return
}

// -----

func.func @pool_kernel_size(%x: tensor<1x8x9x9xf32>) {
  // expected-error @+1 {{'kernel_shape' must have 2 entries, got 3 ([3, 3, 3])}}
  %0 = tandem.avg_pool2d %x {kernel_shape = array<i64: 3, 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x8x9x9xf32> -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @avg_pool_dilations_size(%x: tensor<1x8x9x9xf32>) {
  // expected-error @+1 {{'dilations' must have 2 entries, got 1 ([2])}}
  %0 = tandem.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2>} : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  return
}

// -----

func.func @avg_pool_dilations_positive(%x: tensor<1x8x9x9xf32>) {
  // expected-error @+1 {{'dilations' entries must be positive, got [0, 1]}}
  %0 = tandem.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 0, 1>} : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  return
}

// -----

func.func @pool_pads_vs_kernel(%x: tensor<1x8x9x9xf32>) {
  // expected-error @+1 {{pads [2, 2, 2, 2] must be smaller than the kernel [2, 2]}}
  %0 = tandem.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>} : tensor<1x8x9x9xf32> -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @pool_window_too_large(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{the height window (3) does not fit the padded input (2 + 0 + 0)}}
  %0 = tandem.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x8x2x2xf32> -> tensor<1x8x1x1xf32>
  return
}

// -----

func.func @global_avg_pool_rank(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tandem.global_avg_pool' op expects an input of rank 3 or more (N x C x spatial...), got 'tensor<2x8xf32>'}}
  %0 = tandem.global_avg_pool %x : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @batch_norm_params(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>, %q: tensor<4xf32>) {
  // expected-error @+1 {{'variance' must have shape [8] (the channels of 'tensor<1x8x4x4xf32>'), got 'tensor<4xf32>'}}
  %0 = tandem.batch_norm %x, %p, %p, %p, %q : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @batch_norm_axis(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>) {
  // expected-error @+1 {{'tandem.batch_norm' op has channel axis 4, which must be a dimension of 'tensor<1x8x4x4xf32>' past the batch (1 to 3)}}
  %0 = tandem.batch_norm %x, %p, %p, %p, %p {axis = 4 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @batch_norm_axis_params(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>) {
  // expected-error @+1 {{'scale' must have shape [4] (the channels of 'tensor<1x8x4x4xf32>'), got 'tensor<8xf32>'}}
  %0 = tandem.batch_norm %x, %p, %p, %p, %p {axis = 3 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x4x16xf32>, %s: tensor<4x16xf32>) {
  // expected-error @+1 {{scale and bias must have type 'tensor<16xf32>' (dimensions 2.. of 'tensor<2x4x16xf32>'), got 'tensor<4x16xf32>'}}
  %0 = tandem.layer_norm %x, %s {axis = 2 : i64} : (tensor<2x4x16xf32>, tensor<4x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x4x16xf32>, %s: tensor<16xf32>) {
  // expected-error @+1 {{'tandem.layer_norm' op axis 3 is out of range for rank 3}}
  %0 = tandem.layer_norm %x, %s {axis = 3 : i64} : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tandem.softmax' op axis -1 is out of range for rank 2 (expected 0 <= axis < 2)}}
  %0 = tandem.softmax %x {axis = -1 : i64} : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_empty_axes(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tandem.reduce_sum' op 'axes' must not be empty}}
  %0 = tandem.reduce_sum %x {axes = array<i64>} : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_unsorted_axes(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tandem.reduce_mean' op 'axes' [1, 0] must be sorted, unique and within [0, 2) for input 'tensor<2x4xf32>'}}
  %0 = tandem.reduce_mean %x {axes = array<i64: 1, 0>} : tensor<2x4xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @reduce_axis_out_of_range(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'axes' [2] must be sorted, unique and within [0, 2)}}
  %0 = tandem.reduce_max %x {axes = array<i64: 2>} : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @fusion_arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tandem.fusion' op body has 2 arguments but the fusion has 1 inputs}}
  %0 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    tandem.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body argument #0 has type 'tensor<5xf32>' but input #0 has type 'tensor<4xf32>'}}
  %0 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<5xf32>):
    %1 = tandem.reduce_sum %a {axes = array<i64: 0>} : tensor<5xf32> -> tensor<1xf32>
    %2 = tandem.broadcast_to %1 {shape = array<i64: 4>} : tensor<1xf32> -> tensor<4xf32>
    tandem.yield %2 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_yield_types(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'tandem.fusion' op yields ('tensor<4xf32>') but its results are ('tensor<4xf16>')}}
  %0 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf32>):
    tandem.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf16>
}

// -----

func.func @fusion_kind_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.fusion' op of kind 'loop' must return exactly one value, got 2; use 'multi_output'}}
  %0:2 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tandem.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_empty_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.fusion' op requires a non-empty name}}
  %0 = tandem.fusion loop "" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tandem.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.fusion' op must return at least one value}}
  tandem.fusion multi_output "f" (%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
    tandem.yield
  }
  return
}

// -----

func.func @fusion_nested_transfer(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.fusion' op must not contain 'tandem.transfer'}}
  %0 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = tandem.transfer %a from "/device:CPU:0" to "/device:GPU:0" : tensor<4xf32>
    tandem.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_isolated(%x: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tandem.fusion loop "f" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %1 = tandem.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tandem.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_fusion(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.yield' op expects parent op 'tandem.fusion'}}
  tandem.yield %x : tensor<4xf32>
}

// -----

func.func @transfer_same_device(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.transfer' op source and destination are the same device (/device:GPU:0)}}
  %0 = tandem.transfer %x from "/device:GPU:0" to "gpu:0" : tensor<4xf32>
  return
}

// -----

func.func @transfer_wrong_source(%x: tensor<4xf32>) {
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:GPU:1">} : tensor<4xf32>
  // expected-error @+1 {{'tandem.transfer' op copies from /device:GPU:0 but input #0 is produced on /device:GPU:1}}
  %1 = tandem.transfer %0 from "/device:GPU:0" to "/device:CPU:0" : tensor<4xf32>
  return
}

// -----

func.func @transfer_empty() {
  // expected-error @+1 {{'tandem.transfer' op needs at least one input}}
  "tandem.transfer"() <{src = #tandem.device<"/device:CPU:0">, dst = #tandem.device<"/device:GPU:0">}> : () -> ()
  return
}

// -----

func.func @transfer_bad_device(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid device name '/device:TPU:0': expected '/device:CPU:<n>' or '/device:GPU:<n>'}}
  %0 = tandem.transfer %x from "/device:TPU:0" to "/device:CPU:0" : tensor<4xf32>
  return
}

// -----

func.func @bad_device_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid device name '/device:GPU:x': expected '/device:CPU:<n>' or '/device:GPU:<n>'}}
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:GPU:x">} : tensor<4xf32>
  return
}

// -----

func.func @device_attr_not_a_device(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.device' must be a #tandem.device attribute, got "/device:GPU:0"}}
  %0 = tandem.relu %x {tandem.device = "/device:GPU:0"} : tensor<4xf32>
  return
}

// -----

func.func @unknown_tandem_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown tandem attribute 'tandem.devise'}}
  %0 = tandem.relu %x {tandem.devise = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
  return
}

// -----

func.func @kernel_attr_not_a_string(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.kernel' must be a string attribute}}
  %0 = tandem.relu %x {tandem.kernel = 3 : i64} : tensor<4xf32>
  return
}

// -----

func.func @epilogue_attr_unknown(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.epilogue' must be the string "relu", "relu6", "hardswish" or "silu"}}
  %0 = tandem.relu %x {tandem.epilogue = "gelu"} : tensor<4xf32>
  return
}

// -----

// A kernel function carries tandem.kernel as a unit attribute; its calls
// carry six positive launch sizes.
func.func private @kernel_fn(%x: memref<4xf32>) attributes {tandem.kernel}

func.func @launch_dims_wrong_arity(%x: memref<4xf32>) {
  // expected-error @+1 {{'tandem.launch_dims' must be array<i64: gx, gy, gz, bx, by, bz> of positive sizes}}
  func.call @kernel_fn(%x) {tandem.launch_dims = array<i64: 1, 1, 1, 32>} : (memref<4xf32>) -> ()
  return
}

// -----

// ONNX defines the floored remainder (fmod = false) on integers only.
func.func @mod_float_floored(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.mod' op requires 'fmod' = true for float elements ('f32'), as ONNX Mod does}}
  %0 = tandem.mod %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Bitwise ops take integers and bools, not floats.
func.func @and_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.and' op operand #0 must be ranked tensor of 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 64-bit unsigned integer or 32-bit unsigned integer or 16-bit unsigned integer or 8-bit unsigned integer or 1-bit signless integer values}}
  %0 = tandem.and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Shifts take integers only (no bools).
func.func @shift_bool(%b: tensor<4xi1>) {
  // expected-error @+1 {{'tandem.shift_left' op operand #0 must be ranked tensor of 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 64-bit unsigned integer or 32-bit unsigned integer or 16-bit unsigned integer or 8-bit unsigned integer values}}
  %0 = tandem.shift_left %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

// The trigonometric functions are float only.
func.func @sin_int(%i: tensor<4xi32>) {
  // expected-error @+1 {{'tandem.sin' op operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = tandem.sin %i : tensor<4xi32>
  return
}

// -----

// arg_max's axis lies within the rank.
func.func @arg_max_axis_out_of_range(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tandem.arg_max' op axis 2 is out of range for rank 2 (expected 0 <= axis < 2)}}
  %0 = tandem.arg_max %x {axis = 2 : i64} : tensor<2x4xf32> -> tensor<2x1xi64>
  return
}

// -----

// arg_min over an empty axis has nothing to pick.
func.func @arg_min_empty_axis(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{'tandem.arg_min' op reduces axis 1 of size 0 of 'tensor<2x0xf32>', which has no element to pick}}
  %0 = tandem.arg_min %x {axis = 1 : i64} : tensor<2x0xf32> -> tensor<2x1xi64>
  return
}

// -----

// arg_max's result is i64.
func.func @arg_max_result_type(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = tandem.arg_max %x {axis = 1 : i64} : tensor<2x4xf32> -> tensor<2x1xi32>
  return
}

// -----

// gather_elements' indices have the rank of data.
func.func @gather_elements_rank(%x: tensor<2x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'tandem.gather_elements' op expects a rank-2 indices tensor (the rank of data), got 'tensor<2xi64>'}}
  %0 = tandem.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

// Outside the axis, gather_elements' indices fit inside data.
func.func @gather_elements_too_large(%x: tensor<2x4xf32>, %i: tensor<3x4xi64>) {
  // expected-error @+1 {{'tandem.gather_elements' op indices 'tensor<3x4xi64>' are larger than data 'tensor<2x4xf32>' in dim 0 (only the axis dim 1 may differ)}}
  %0 = tandem.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3x4xi64>) -> tensor<3x4xf32>
  return
}

// -----

// cumsum's axis lies within the rank.
func.func @cumsum_axis(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tandem.cumsum' op axis -1 is out of range for rank 2 (expected 0 <= axis < 2)}}
  %0 = tandem.cumsum %x {axis = -1 : i64} : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

// top_k's k lies within the axis.
func.func @top_k_too_large(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tandem.top_k' op k = 5 must lie in [0, 4], the size of axis 1 of 'tensor<2x4xf32>'}}
  %0:2 = tandem.top_k %x {axis = 1 : i64, k = 5 : i64} : tensor<2x4xf32> -> tensor<2x5xf32>, tensor<2x5xi64>
  return
}

// -----

// gather_nd's index tuples fit the data's rank after the batch dims.
func.func @gather_nd_tuple_too_long(%x: tensor<2x4xf32>, %i: tensor<3x3xi64>) {
  // expected-error @+1 {{'tandem.gather_nd' op the last dim of indices 'tensor<3x3xi64>' (3) must lie in [1, 2] for data 'tensor<2x4xf32>' and batch_dims = 0}}
  %0 = tandem.gather_nd %x, %i : (tensor<2x4xf32>, tensor<3x3xi64>) -> tensor<3xf32>
  return
}

// -----

// gather_nd's batch dims agree.
func.func @gather_nd_batch_mismatch(%x: tensor<2x4xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+1 {{'tandem.gather_nd' op batch dim 0 differs: 2 in data 'tensor<2x4xf32>', 3 in indices 'tensor<3x1xi64>'}}
  %0 = tandem.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x4xf32>, tensor<3x1xi64>) -> tensor<3xf32>
  return
}

// -----

// gather_nd's batch_dims leave room for the index tuple.
func.func @gather_nd_batch_dims(%x: tensor<2x4xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{'tandem.gather_nd' op batch_dims = 2 must lie in [0, 2) for data 'tensor<2x4xf32>' and indices 'tensor<2x1xi64>'}}
  %0 = tandem.gather_nd %x, %i {batch_dims = 2 : i64} : (tensor<2x4xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @packed_input_attr_not_on_a_conv(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tandem.packed_input' must be a unit attribute on a linalg.conv_2d_nchw_fchw}}
  %0 = tandem.relu %x {tandem.packed_input} : tensor<4xf32>
  return
}
