// RUN: tandem-opt %s -split-input-file -verify-diagnostics

func.func @transfer_shapes(%x: memref<4xf32>, %y: memref<8xf32>) {
  // expected-error @+1 {{copies 'memref<4xf32>' into 'memref<8xf32>': shapes and element types must match}}
  tandem_exec.transfer %x, %y : memref<4xf32>, memref<8xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  return
}

// -----

func.func @transfer_no_gpu(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{exactly one side must be a GPU}}
  tandem_exec.transfer %x, %y : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:1"> to #tandem.device<"/device:GPU:0">
  return
}

// -----

func.func @alloc_on_host() {
  // expected-error @+1 {{must produce a memref in a GPU's memory space, got 'memref<4xf32>'}}
  %0 = tandem_exec.alloc : memref<4xf32>
  return
}

// -----

func.func @alloc_negative_offset() {
  // expected-error @+1 {{has a negative offset -4}}
  %0 = tandem_exec.alloc {offset = -4 : i64} : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @weight_not_a_global() {
  // expected-error @+1 {{names '@nothing', which is not a memref.global}}
  %0 = tandem_exec.weight @nothing : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

memref.global "private" @mutable : memref<4xf32> = dense<1.0>

func.func @weight_not_constant() {
  // expected-error @+1 {{names '@mutable', which is not an initialised constant}}
  %0 = tandem_exec.weight @mutable : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

memref.global "private" constant @w : memref<4xf32> = dense<1.0>

func.func @weight_type() {
  // expected-error @+1 {{has type 'memref<8xf32, #tandem.device<"/device:GPU:0">>' but '@w' is 'memref<4xf32>'}}
  %0 = tandem_exec.weight @w : memref<8xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @copy_on_compute(%x: memref<4xf32>, %d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{must run on the h2d or d2h stream, not compute}}
  tandem_exec.copy %x, %d on compute bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @copy_direction(%x: memref<4xf32>, %d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{on d2h must copy from device to host memory}}
  tandem_exec.copy %x, %d on d2h bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @copy_bytes(%x: memref<4xf32>, %d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{copies 8 bytes but 'memref<4xf32>' holds 16}}
  tandem_exec.copy %x, %d on h2d bytes 8 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @copy_shapes(%x: memref<4xf32>, %d: memref<4xf16, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{shapes and element types must match}}
  tandem_exec.copy %x, %d on h2d bytes 16 : memref<4xf32>, memref<4xf16, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @wait_on_itself() {
  %e = tandem_exec.record on h2d
  // expected-error @+1 {{makes stream h2d wait for an event it recorded itself}}
  tandem_exec.wait %e on h2d
  return
}

// -----

func.func private @k(%a: memref<4xf32>) attributes {tandem.kernel}

func.func @launch_grid(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{needs 3 grid dimensions, got 2}}
  tandem_exec.launch @k(%d) on compute grid [1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k(%a: memref<4xf32>) attributes {tandem.kernel}

func.func @launch_block(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has a block dimension out of range (1..2^32-1)}}
  tandem_exec.launch @k(%d) on compute grid [1, 1, 1] block [0, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k(%a: memref<4xf32>) attributes {tandem.kernel}

func.func @launch_stream(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{must run on the compute stream}}
  tandem_exec.launch @k(%d) on h2d grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k(%a: memref<4xf32>) attributes {tandem.kernel}

func.func @launch_host_buffer(%d: memref<4xf32>) {
  // expected-error @+1 {{argument 0 is not a device buffer: 'memref<4xf32>'}}
  tandem_exec.launch @k(%d) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32>
  return
}

// -----

func.func private @k(%a: memref<4xf32>)

func.func @launch_not_kernel(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{launches '@k', which has no 'tandem.kernel' attribute}}
  tandem_exec.launch @k(%d) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @launch_unknown(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{launches '@nothing', which is not a function}}
  tandem_exec.launch @nothing(%d) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel}

func.func @launch_arity(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{passes 1 arguments but '@k' has type '(memref<4xf32>, memref<4xf32>) -> ()'}}
  tandem_exec.launch @k(%d) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k(%a: memref<8xf32>) attributes {tandem.kernel}

func.func @launch_types(%d: memref<4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{argument 0 has type 'memref<4xf32, #tandem.device<"/device:GPU:0">>' but '@k' takes 'memref<8xf32>'}}
  tandem_exec.launch @k(%d) on compute grid [1, 1, 1] block [4, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @partition_unclosed() {
  // expected-error @+1 {{opens 'p0' but no partition_end closes it before the next partition or the end of the block}}
  tandem_exec.partition_begin "p0" on compute
  return
}

// -----

func.func @partition_mismatch() {
  // expected-error @+1 {{opens 'p0' but the next end closes 'p1'}}
  tandem_exec.partition_begin "p0" on compute
  tandem_exec.partition_end "p1" on compute
  return
}

// -----

func.func @partition_stream() {
  // expected-error @+1 {{brackets a GPU partition on stream d2h; launches run on compute}}
  tandem_exec.partition_begin "p0" on d2h
  tandem_exec.partition_end "p0" on d2h
  return
}

// -----

func.func @partition_end_alone() {
  // expected-error @+1 {{closes 'p0', which no partition_begin opened}}
  tandem_exec.partition_end "p0"
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_unknown_epilogue(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has an unknown epilogue 'gelu_erf' (none, relu, bias, bias_relu, gelu, bias_gelu)}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "gelu_erf"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_bias_missing(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has epilogue 'bias' but no bias}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "bias"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_gelu_bias_missing(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has epilogue 'bias_gelu' but no bias}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "bias_gelu"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_operand_too_small(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand b needs 15 elements but 'memref<4x3xf32, #tandem.device<"/device:GPU:0">>' holds 12}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_host_operand(%a: memref<2x4xf32>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand a is not a device buffer: 'memref<2x4xf32>'}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<2x4xf32>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%c, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x3xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_fallback_not_launch(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{is followed by 'tandem_exec.record' where fallback launch 1 of 1 should be}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  %e = tandem_exec.record on compute
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_not_kernel(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{names '@nothing', which is not a tandem.kernel function}}
  tandem_exec.gemm @nothing(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_negative_stride(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand a has a negative batch stride -8}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = -8 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

// Each GPU has its own streams: a copy or launch on GPU 1's stream uses
// GPU 1's buffers, and a stream waits only for its own GPU's events.
func.func @copy_other_gpu(%x: memref<4xf32>) {
  %d = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:0">>
  // expected-error @+1 {{on stream h2d[1] (GPU 1) uses a device buffer of GPU 0: 'memref<4xf32, #tandem.device<"/device:GPU:0">>'}}
  tandem_exec.copy %x, %d on h2d[1] bytes 16 : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k(memref<4xf32>) attributes {tandem.kernel}
func.func @launch_other_gpu() {
  %d = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:1">>
  // expected-error @+1 {{on stream compute (GPU 0) uses argument 0 of GPU 1}}
  tandem_exec.launch @k(%d) on compute grid [1, 1, 1] block [32, 1, 1] : memref<4xf32, #tandem.device<"/device:GPU:1">>
  return
}

// -----

func.func @wait_other_gpu() {
  %e = tandem_exec.record on h2d
  // expected-error @+1 {{makes stream compute[1] of GPU 1 wait for an event recorded on h2d of GPU 0: a stream waits only for its own GPU's events}}
  tandem_exec.wait %e on compute[1]
  return
}

// -----

func.func @unknown_stream() {
  // expected-error @+1 {{unknown stream 'copy' (expected compute, h2d or d2h)}}
  %e = tandem_exec.record on copy
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_unknown_activation(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has an unknown activation 'gelu' (none, relu, relu6, sigmoid, swish)}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "gelu"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x4x4xf32>) attributes {tandem.kernel}

func.func @conv_wrong_output(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x4x4xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has output 'memref<1x4x4x4xf32, #tandem.device<"/device:GPU:0">>', but the input, filter, strides, pads and dilations give 1x4x3x3}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x4x4xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x4x4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_groups(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has groups 3, which must divide 2 input and 4 output channels}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 3 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_filter_channels(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has a filter of 2 input channels, but 2 / 2 groups is 1}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 2 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_zero_stride(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has strides [0, 1]: each must be at least 1}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 1 : i64, strides = array<i64: 0, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_pads_count(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{needs 2 pads (height, width), got 4}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_bias_size(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>, %b: memref<3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has a bias of 3 elements for 4 output channels}}
  tandem_exec.conv @k_conv(%x, %w) bias %b -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> bias memref<3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_host_residual(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %z: memref<1x4x3x3xf32>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand z is not a device buffer: 'memref<1x4x3x3xf32>'}}
  tandem_exec.conv @k_conv(%x, %w) residual %z -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "relu"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> residual memref<1x4x3x3xf32> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_fallback_missing(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{is followed by 'func.return' where fallback launch 2 of 2 should be}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 2
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_conv(%x: memref<1x4x3x3xf32>, %w: memref<4x4x1x1xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_in_place(%x: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x4x1x1xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{writes its output over one of its inputs}}
  tandem_exec.conv @k_conv(%x, %w) -> %x on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none"} : memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<4x4x1x1xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %x) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<4x4x1x1xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_unknown_precision(%a: memref<2x4xf32, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has an unknown precision 'fp8' (fp32, tf32, bf16, fp16)}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none", precision = "fp8"} : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_mm(%a, %b, %c) on compute grid [1, 1, 1] block [32, 1, 1] : memref<2x4xf32, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">>, memref<2x3xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_16bit_without_its_precision(%a: memref<2x4xbf16, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xbf16, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand a holds 'bf16', which precision 'tf32' does not store (f32, or bf16 with precision bf16 and f16 with fp16)}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none", precision = "tf32"} : memref<2x4xbf16, #tandem.device<"/device:GPU:0">>, memref<4x3xbf16, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 0
  return
}

// -----

func.func private @k_mm(%a: memref<2x4xf32>, %b: memref<4x3xf32>, %c: memref<2x3xf32>) attributes {tandem.kernel}

func.func @gemm_16bit_a_f32_b(%a: memref<2x4xf16, #tandem.device<"/device:GPU:0">>, %b: memref<4x3xf32, #tandem.device<"/device:GPU:0">>, %c: memref<2x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{operand b must hold 'f16', got 'memref<4x3xf32, #tandem.device<"/device:GPU:0">>'}}
  tandem_exec.gemm @k_mm(%a, %b) -> %c on compute {batch = 1 : i64, m = 2 : i64, n = 3 : i64, k = 4 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 3 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, epilogue = "none", precision = "fp16"} : memref<2x4xf16, #tandem.device<"/device:GPU:0">>, memref<4x3xf32, #tandem.device<"/device:GPU:0">> -> memref<2x3xf32, #tandem.device<"/device:GPU:0">> fallback 0
  return
}

// -----

func.func private @k_conv(%x: memref<1x2x5x5xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel}

func.func @conv_unknown_precision(%x: memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, %w: memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, %y: memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>) {
  // expected-error @+1 {{has an unknown precision 'TF32' (fp32, tf32, bf16, fp16)}}
  tandem_exec.conv @k_conv(%x, %w) -> %y on compute {groups = 1 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, activation = "none", precision = "TF32"} : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">> -> memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">> fallback 1
  tandem_exec.launch @k_conv(%x, %w, %y) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x5x5xf32, #tandem.device<"/device:GPU:0">>, memref<4x2x3x3xf32, #tandem.device<"/device:GPU:0">>, memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
  return
}
