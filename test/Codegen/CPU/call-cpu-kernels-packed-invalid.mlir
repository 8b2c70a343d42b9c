// RUN: tandem-opt -tandem-call-cpu-kernels -split-input-file -verify-diagnostics %s

// A conv marked to read a packed input that cannot become a kernel call
// (its filter is a strided view, not dense) is an error: as loops it would
// read the packed layout as NCHW.
func.func @packed_input_left_as_loops(%x: memref<1x3x8x8xf32>, %f: memref<4x3x1x2xf32>, %y: memref<1x4x8x8xf32>) {
  %v = memref.subview %f[0, 0, 0, 0] [4, 3, 1, 1] [1, 1, 1, 1] : memref<4x3x1x2xf32> to memref<4x3x1x1xf32, strided<[6, 2, 2, 1]>>
  // expected-error @+1 {{reads a depthwise conv's packed output but did not become a tandem_conv2d_packed_f32 call}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.packed_input}
    ins(%x, %v : memref<1x3x8x8xf32>, memref<4x3x1x1xf32, strided<[6, 2, 2, 1]>>) outs(%y : memref<1x4x8x8xf32>)
  return
}
