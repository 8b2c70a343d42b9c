// RUN: tandem-opt -tandem-outline-kernels -split-input-file -verify-diagnostics %s

// Only linalg ops, copies, views, constants and allocations can stay in a
// GPU partition: anything else would run on the host.
func.func private @p_gpu0(%x: memref<4xf32>) attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'memref.store' op cannot run in GPU partition '@p_gpu0': only linalg ops, copies, views and allocations can}}
  memref.store %v, %x[%c0] : memref<4xf32>
  return
}

// -----

// Kernels run on buffers.
// expected-error @+1 {{'func.func' op is not bufferised: run tandem-outline-kernels after bufferisation}}
func.func private @t_gpu0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  return %x : tensor<4xf32>
}

// -----

// A fused epilogue the GPU mapping does not know would be silently dropped:
// the tandem dialect rejects it first.
func.func private @e_gpu0(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  // expected-error @+1 {{'tandem.epilogue' must be the string "relu", "relu6", "hardswish" or "silu"}}
  linalg.matmul {tandem.epilogue = "gelu"} ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}
