// RUN: tandem-opt -tandem-call-cpu-kernels -split-input-file %s | FileCheck %s
// RUN: tandem-opt "-tandem-call-cpu-kernels=winograd=false" -split-input-file %s | FileCheck %s --check-prefix=OFF

// A 3x3, stride-1 convolution of a constant filter with 16 or more input
// and output channels runs as Winograd: the filter becomes a new constant
// global transformed at compile time (tandem/winograd.h: [36, C, F] for
// F(4x4, 3x3)), the original global goes when it has no other use, and the
// flags are 128 (TANDEM_CONV2D_WINOGRAD_F4) + 2 (constant filter) + 1
// (accumulate): 131. With winograd=false (tandemc --cpu-conv=im2col) the
// flags are 3 and the filter stays.
// CHECK: memref.global "private" constant @w16_winograd4 : memref<36x16x16xf32> = dense_resource<w16_winograd4> {alignment = 64 : i64}
// CHECK-NOT: memref.global "private" constant @w16 :
// CHECK-LABEL: func.func @wino
// CHECK: memref.get_global @w16_winograd4 : memref<36x16x16xf32>
// CHECK: %[[F:.+]] = arith.constant 131 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[F]])
// OFF: memref.global "private" constant @w16 : memref<16x16x3x3xf32>
// OFF-LABEL: func.func @wino
// OFF: %[[F:.+]] = arith.constant 3 : i32
// OFF: call @tandem_conv2d_f32({{.+}}, %[[F]])
memref.global "private" constant @w16 : memref<16x16x3x3xf32> = dense<0.5>
func.func @wino(%x: memref<1x16x30x30xf32>, %y: memref<1x16x28x28xf32>) {
  %w = memref.get_global @w16 : memref<16x16x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x16x30x30xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x28x28xf32>)
  return
}

// -----

// 12x12 outputs have 9 4x4 tiles but 36 2x2 ones: F(2x2, 3x3), flag 64 + 3,
// and a [16, C, F] filter. 6x6 outputs (9 2x2 tiles) keep the GEMM: 3.
// CHECK-LABEL: func.func @wino_f2
// CHECK: memref.get_global @w16b_winograd2 : memref<16x16x16xf32>
// CHECK: %[[F2:.+]] = arith.constant 67 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[F2]])
// CHECK: %[[G:.+]] = arith.constant 3 : i32
// CHECK: call @tandem_conv2d_f32({{.+}}, %[[G]])
memref.global "private" constant @w16b : memref<16x16x3x3xf32> = dense<0.25>
func.func @wino_f2(%x: memref<1x16x14x14xf32>, %y: memref<1x16x12x12xf32>, %xs: memref<1x16x8x8xf32>, %ys: memref<1x16x6x6xf32>) {
  %w = memref.get_global @w16b : memref<16x16x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x16x14x14xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x12x12xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xs, %w : memref<1x16x8x8xf32>, memref<16x16x3x3xf32>) outs(%ys : memref<1x16x6x6xf32>)
  return
}

// -----

// Not for Winograd, though each has enough output tiles: stride 2, a 1x1
// window, fewer than 16 input channels, and a filter computed at run time.
// CHECK-LABEL: func.func @not_wino
// CHECK-NOT: arith.constant {{(35|33|67|131|65|129)}} : i32
// CHECK: return
memref.global "private" constant @w16s : memref<16x16x3x3xf32> = dense<0.5>
memref.global "private" constant @w1x1 : memref<16x16x1x1xf32> = dense<0.5>
memref.global "private" constant @w8 : memref<16x8x3x3xf32> = dense<0.5>
func.func @not_wino(%x: memref<1x16x30x30xf32>, %y2: memref<1x16x14x14xf32>, %y1: memref<1x16x30x30xf32>,
                    %x8: memref<1x8x30x30xf32>, %y: memref<1x16x28x28xf32>, %wr: memref<16x16x3x3xf32>) {
  %a = memref.get_global @w16s : memref<16x16x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %a : memref<1x16x30x30xf32>, memref<16x16x3x3xf32>) outs(%y2 : memref<1x16x14x14xf32>)
  %b = memref.get_global @w1x1 : memref<16x16x1x1xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %b : memref<1x16x30x30xf32>, memref<16x16x1x1xf32>) outs(%y1 : memref<1x16x30x30xf32>)
  %c = memref.get_global @w8 : memref<16x8x3x3xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x8, %c : memref<1x8x30x30xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x28x28xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wr : memref<1x16x30x30xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x28x28xf32>)
  return
}
