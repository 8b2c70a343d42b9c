// RUN: tandem-opt -tandem-call-cpu-kernels -split-input-file %s | FileCheck %s
// RUN: tandem-opt "-tandem-call-cpu-kernels=winograd=false" -split-input-file %s | FileCheck %s --check-prefix=OFF

// A 3x3, stride-1 convolution of a constant filter with 16 or more input
// and output channels may run as Winograd: flag 32 (TANDEM_CONV2D_WINOGRAD)
// with 2 (constant filter) and 1 (accumulate onto the output); with
// winograd=false (tandemc --cpu-conv=im2col) only 3.
// CHECK-LABEL: func.func @wino
// CHECK: %[[F:.+]] = arith.constant 35 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[F]])
// OFF-LABEL: func.func @wino
// OFF: %[[F:.+]] = arith.constant 3 : i32
// OFF: call @tandem_conv2d_f32({{.+}}, %[[F]])
memref.global "private" constant @w16 : memref<16x16x3x3xf32> = dense<0.5>
func.func @wino(%x: memref<1x16x10x10xf32>, %y: memref<1x16x8x8xf32>) {
  %w = memref.get_global @w16 : memref<16x16x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x16x10x10xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  return
}

// -----

// Not for Winograd: stride 2, a 1x1 window, fewer than 16 input channels,
// and a filter computed at run time.
// CHECK-LABEL: func.func @not_wino
// CHECK-NOT: arith.constant 35 : i32
// CHECK-NOT: arith.constant 33 : i32
// CHECK: return
memref.global "private" constant @w16s : memref<16x16x3x3xf32> = dense<0.5>
memref.global "private" constant @w1x1 : memref<16x16x1x1xf32> = dense<0.5>
memref.global "private" constant @w8 : memref<16x8x3x3xf32> = dense<0.5>
func.func @not_wino(%x: memref<1x16x10x10xf32>, %y2: memref<1x16x4x4xf32>, %y1: memref<1x16x10x10xf32>,
                    %x8: memref<1x8x10x10xf32>, %y: memref<1x16x8x8xf32>, %wr: memref<16x16x3x3xf32>) {
  %a = memref.get_global @w16s : memref<16x16x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %a : memref<1x16x10x10xf32>, memref<16x16x3x3xf32>) outs(%y2 : memref<1x16x4x4xf32>)
  %b = memref.get_global @w1x1 : memref<16x16x1x1xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %b : memref<1x16x10x10xf32>, memref<16x16x1x1xf32>) outs(%y1 : memref<1x16x10x10xf32>)
  %c = memref.get_global @w8 : memref<16x8x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x8, %c : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wr : memref<1x16x10x10xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  return
}
