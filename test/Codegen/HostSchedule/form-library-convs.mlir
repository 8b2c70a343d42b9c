// RUN: tandem-opt %s -split-input-file -tandem-form-library-convs | FileCheck %s
// RUN: tandem-opt %s -split-input-file -tandem-form-library-convs=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not tandem-opt %s -split-input-file -tandem-form-library-convs=precision=int8 2>&1 | FileCheck %s --check-prefix=BADPREC

// With a precision, every library call formed carries it (the default,
// fp32, is not printed).
// BF16: tandem_exec.conv @k0_conv({{.+}}precision = "bf16"
// BADPREC: error: unknown precision 'int8' (expected fp32, tf32, bf16 or fp16)

// A conv kernel that pads its input (pads 1), starts from zero, and the
// launch after it adding a residual then ReLU: one conv with the residual
// and the relu activation writing the epilogue's output; both launches
// follow it, in order, as its fallback.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func private @k0_conv(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x5x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x2x7x7xf32>
  %sub = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  memref.copy %x, %sub : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%y : memref<1x3x5x5xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x5x5xf32>)
  memref.dealloc %p : memref<1x2x7x7xf32>
  return
}
func.func private @k1_add_relu(%a: memref<1x3x5x5xf32>, %b: memref<1x3x5x5xf32>, %o: memref<1x3x5x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : memref<1x3x5x5xf32>, memref<1x3x5x5xf32>) outs(%o : memref<1x3x5x5xf32>) {
  ^bb0(%i0: f32, %i1: f32, %out: f32):
    %s = arith.addf %i0, %i1 : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @residual_relu(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x2x5x5xf32, {{.+}}>, %[[W:[^:]+]]: memref<3x2x3x3xf32, {{.+}}>, %[[R:[^:]+]]: memref<1x3x5x5xf32
// CHECK:         %[[T:.+]] = tandem_exec.alloc : memref<1x3x5x5xf32
// CHECK:         %[[Y:.+]] = tandem_exec.alloc : memref<1x3x5x5xf32
// CHECK-NEXT:    tandem_exec.conv @k0_conv(%[[X]], %[[W]]) residual %[[R]] -> %[[Y]] on compute
// CHECK-SAME:      activation = "relu", dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>
// CHECK-SAME:      fallback 2
// CHECK-NEXT:    tandem_exec.launch @k0_conv(%[[X]], %[[W]], %[[T]])
// CHECK-NEXT:    tandem_exec.launch @k1_add_relu(%[[T]], %[[R]], %[[Y]])
// CHECK-NEXT:    tandem_exec.partition_end
func.func @residual_relu(%x: memref<1x2x5x5xf32, #gpu>, %w: memref<3x2x3x3xf32, #gpu>, %r: memref<1x3x5x5xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %t = tandem_exec.alloc : memref<1x3x5x5xf32, #gpu>
  tandem_exec.launch @k0_conv(%x, %w, %t) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x2x5x5xf32, #gpu>, memref<3x2x3x3xf32, #gpu>, memref<1x3x5x5xf32, #gpu>
  %y = tandem_exec.alloc : memref<1x3x5x5xf32, #gpu>
  tandem_exec.launch @k1_add_relu(%t, %r, %y) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x3x5x5xf32, #gpu>, memref<1x3x5x5xf32, #gpu>, memref<1x3x5x5xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// A strided, dilated conv starting from a broadcast bias with a fused ReLU
// (tandem.epilogue) and no padding: the bias and relu fold into the conv.
// The next launch (a ReLU of the activated product) does not fold: after a
// fused activation nothing more does.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

func.func private @k0_conv(%x: memref<1x2x9x9xf32>, %b: memref<4xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x3xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<4xf32>) outs(%y : memref<1x4x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tandem.epilogue = "relu"} ins(%x, %w : memref<1x2x9x9xf32>, memref<4x2x3x3xf32>) outs(%y : memref<1x4x3x3xf32>)
  return
}
func.func private @k1_relu(%a: memref<1x4x3x3xf32>, %o: memref<1x4x3x3xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x4x3x3xf32>) outs(%o : memref<1x4x3x3xf32>) {
  ^bb0(%i0: f32, %out: f32):
    %r = arith.maximumf %i0, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @bias_fused_relu(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x2x9x9xf32, {{.+}}>, %[[B:[^:]+]]: memref<4xf32, {{.+}}>, %[[W:[^:]+]]: memref<4x2x3x3xf32
// CHECK:         tandem_exec.conv @k0_conv(%[[X]], %[[W]]) bias %[[B]] -> %[[T:[^ ]+]] on compute
// CHECK-SAME:      activation = "relu", dilations = array<i64: 2, 2>, groups = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 2, 2>
// CHECK-SAME:      fallback 1
// CHECK-NEXT:    tandem_exec.launch @k0_conv(%[[X]], %[[B]], %[[W]], %[[T]])
// CHECK-NEXT:    tandem_exec.launch @k1_relu(%[[T]], %{{.+}})
func.func @bias_fused_relu(%x: memref<1x2x9x9xf32, #gpu>, %b: memref<4xf32, #gpu>, %w: memref<4x2x3x3xf32, #gpu>, %o: memref<1x4x3x3xf32, #gpu>) {
  %t = tandem_exec.alloc : memref<1x4x3x3xf32, #gpu>
  tandem_exec.launch @k0_conv(%x, %b, %w, %t) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x2x9x9xf32, #gpu>, memref<4xf32, #gpu>, memref<4x2x3x3xf32, #gpu>, memref<1x4x3x3xf32, #gpu>
  tandem_exec.launch @k1_relu(%t, %o) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x4x3x3xf32, #gpu>, memref<1x4x3x3xf32, #gpu>
  return
}

// -----

// A depthwise conv (groups = channels) with a fused ReLU6, a zero fill and
// a filter the kernel collapses.

#gpu = #tandem.device<"/device:GPU:0">

func.func private @k0_dw(%x: memref<1x8x4x4xf32>, %w: memref<8x1x3x3xf32>, %y: memref<1x8x2x2xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %w3 = memref.collapse_shape %w [[0, 1], [2], [3]] : memref<8x1x3x3xf32> into memref<8x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x2x2xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu6"} ins(%x, %w3 : memref<1x8x4x4xf32>, memref<8x3x3xf32>) outs(%y : memref<1x8x2x2xf32>)
  return
}

// CHECK-LABEL: func.func @depthwise_relu6(
// CHECK:         tandem_exec.conv @k0_dw(%{{[^,]+}}, %{{[^)]+}}) -> %{{[^ ]+}} on compute
// CHECK-SAME:      activation = "relu6", dilations = array<i64: 1, 1>, groups = 8 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1, 1>
// CHECK-SAME:      fallback 1
// CHECK-NEXT:    tandem_exec.launch @k0_dw(
func.func @depthwise_relu6(%x: memref<1x8x4x4xf32, #gpu>, %w: memref<8x1x3x3xf32, #gpu>, %y: memref<1x8x2x2xf32, #gpu>) {
  tandem_exec.launch @k0_dw(%x, %w, %y) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x8x4x4xf32, #gpu>, memref<8x1x3x3xf32, #gpu>, memref<1x8x2x2xf32, #gpu>
  return
}

// -----

// A grouped conv (2 groups) over reshapes of its operands, then an
// elementwise launch the epilogue cannot express (x * 2): the conv forms,
// the launch stays after it, outside the fallback.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func private @k0_grouped(%x: memref<1x4x3x3xf32>, %w: memref<6x2x1x1xf32>, %y: memref<1x6x3x3xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %x5 = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 3, 3] : memref<1x4x3x3xf32> into memref<1x2x2x3x3xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 1, 1] : memref<6x2x1x1xf32> into memref<2x3x2x1x1xf32>
  %y5 = memref.expand_shape %y [[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 3, 3] : memref<1x6x3x3xf32> into memref<1x2x3x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x6x3x3xf32>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x5, %w5 : memref<1x2x2x3x3xf32>, memref<2x3x2x1x1xf32>) outs(%y5 : memref<1x2x3x3x3xf32>)
  return
}
func.func private @k1_double(%a: memref<1x6x3x3xf32>, %o: memref<1x6x3x3xf32>) attributes {tandem.kernel} {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x6x3x3xf32>) outs(%o : memref<1x6x3x3xf32>) {
  ^bb0(%i0: f32, %out: f32):
    %r = arith.mulf %i0, %two : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @grouped_unfused(
// CHECK:         tandem_exec.conv @k0_grouped(%{{[^,]+}}, %{{[^)]+}}) -> %[[T:[^ ]+]] on compute
// CHECK-SAME:      activation = "none", dilations = array<i64: 1, 1>, groups = 2 : i64
// CHECK-SAME:      fallback 1
// CHECK-NEXT:    tandem_exec.launch @k0_grouped(
// CHECK-NEXT:    tandem_exec.launch @k1_double(%[[T]], %{{.+}})
// CHECK-NEXT:    return
func.func @grouped_unfused(%x: memref<1x4x3x3xf32, #gpu>, %w: memref<6x2x1x1xf32, #gpu>, %o: memref<1x6x3x3xf32, #gpu>) {
  %t = tandem_exec.alloc : memref<1x6x3x3xf32, #gpu>
  tandem_exec.launch @k0_grouped(%x, %w, %t) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x4x3x3xf32, #gpu>, memref<6x2x1x1xf32, #gpu>, memref<1x6x3x3xf32, #gpu>
  tandem_exec.launch @k1_double(%t, %o) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x6x3x3xf32, #gpu>, memref<1x6x3x3xf32, #gpu>
  return
}

// -----

// Not a library conv: a kernel that accumulates into its output (no fill
// or bias initialisation) stays a launch; so does a conv whose product
// another launch also reads (its residual epilogue does not fold, but the
// conv itself does).

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func private @k_acc(%x: memref<1x1x3x3xf32>, %w: memref<1x1x1x1xf32>, %y: memref<1x1x3x3xf32>) attributes {tandem.kernel} {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x1x3x3xf32>, memref<1x1x1x1xf32>) outs(%y : memref<1x1x3x3xf32>)
  return
}
func.func private @k_conv(%x: memref<1x1x3x3xf32>, %w: memref<1x1x1x1xf32>, %y: memref<1x1x3x3xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x3x3xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x1x3x3xf32>, memref<1x1x1x1xf32>) outs(%y : memref<1x1x3x3xf32>)
  return
}
func.func private @k_add(%a: memref<1x1x3x3xf32>, %b: memref<1x1x3x3xf32>, %o: memref<1x1x3x3xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : memref<1x1x3x3xf32>, memref<1x1x3x3xf32>) outs(%o : memref<1x1x3x3xf32>) {
  ^bb0(%i0: f32, %i1: f32, %out: f32):
    %s = arith.addf %i0, %i1 : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @unfoldable(
// CHECK-NOT:     tandem_exec.conv @k_acc
// CHECK:         tandem_exec.launch @k_acc(
// CHECK:         tandem_exec.conv @k_conv(%{{[^,]+}}, %{{[^)]+}}) -> %[[T:[^ ]+]] on compute
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      fallback 1
// CHECK-NEXT:    tandem_exec.launch @k_conv(
// CHECK-NEXT:    tandem_exec.launch @k_add(%[[T]],
// CHECK-NEXT:    tandem_exec.launch @k_add(%[[T]],
func.func @unfoldable(%x: memref<1x1x3x3xf32, #gpu>, %w: memref<1x1x1x1xf32, #gpu>, %r: memref<1x1x3x3xf32, #gpu>, %o: memref<1x1x3x3xf32, #gpu>, %o2: memref<1x1x3x3xf32, #gpu>) {
  %a = tandem_exec.alloc : memref<1x1x3x3xf32, #gpu>
  tandem_exec.launch @k_acc(%x, %w, %a) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x1x3x3xf32, #gpu>, memref<1x1x1x1xf32, #gpu>, memref<1x1x3x3xf32, #gpu>
  %t = tandem_exec.alloc : memref<1x1x3x3xf32, #gpu>
  tandem_exec.launch @k_conv(%a, %w, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x1x3x3xf32, #gpu>, memref<1x1x1x1xf32, #gpu>, memref<1x1x3x3xf32, #gpu>
  tandem_exec.launch @k_add(%t, %r, %o) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x1x3x3xf32, #gpu>, memref<1x1x3x3xf32, #gpu>, memref<1x1x3x3xf32, #gpu>
  tandem_exec.launch @k_add(%t, %r, %o2) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x1x3x3xf32, #gpu>, memref<1x1x3x3xf32, #gpu>, memref<1x1x3x3xf32, #gpu>
  return
}

// -----

// A conv with a bias and the swish after it (x * sigmoid(x), as SiLU
// lowers): one conv with the swish activation; a sigmoid alone after the
// second conv folds too.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

func.func private @k0_conv(%x: memref<1x2x3x3xf32>, %b: memref<2xf32>, %w: memref<2x2x1x1xf32>, %y: memref<1x2x3x3xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<2xf32>) outs(%y : memref<1x2x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x2x3x3xf32>, memref<2x2x1x1xf32>) outs(%y : memref<1x2x3x3xf32>)
  return
}
func.func private @k1_swish(%a: memref<1x2x3x3xf32>, %o: memref<1x2x3x3xf32>) attributes {tandem.kernel} {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x2x3x3xf32>) outs(%o : memref<1x2x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %s = arith.addf %e, %one : f32
    %r = arith.divf %one, %s : f32
    %m = arith.mulf %in, %r : f32
    linalg.yield %m : f32
  }
  return
}
func.func private @k2_sigmoid(%a: memref<1x2x3x3xf32>, %o: memref<1x2x3x3xf32>) attributes {tandem.kernel} {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x2x3x3xf32>) outs(%o : memref<1x2x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %s = arith.addf %one, %e : f32
    %r = arith.divf %one, %s : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @swish_sigmoid(
// CHECK:         tandem_exec.conv @k0_conv(%{{[^,]+}}, %{{[^)]+}}) bias %{{[^ ]+}} -> %[[S:[^ ]+]] on compute {activation = "swish"
// CHECK-SAME:      fallback 2
// CHECK-NEXT:    tandem_exec.launch @k0_conv(
// CHECK-NEXT:    tandem_exec.launch @k1_swish(%{{[^,]+}}, %[[S]])
// CHECK:         tandem_exec.conv @k0_conv(%[[S]], %{{[^)]+}}) bias %{{[^ ]+}} -> %{{[^ ]+}} on compute {activation = "sigmoid"
// CHECK-SAME:      fallback 2
// CHECK-NEXT:    tandem_exec.launch @k0_conv(
// CHECK-NEXT:    tandem_exec.launch @k2_sigmoid(
func.func @swish_sigmoid(%x: memref<1x2x3x3xf32, #gpu>, %b: memref<2xf32, #gpu>, %w: memref<2x2x1x1xf32, #gpu>, %o: memref<1x2x3x3xf32, #gpu>) {
  %t = tandem_exec.alloc : memref<1x2x3x3xf32, #gpu>
  tandem_exec.launch @k0_conv(%x, %b, %w, %t) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x3x3xf32, #gpu>, memref<2xf32, #gpu>, memref<2x2x1x1xf32, #gpu>, memref<1x2x3x3xf32, #gpu>
  %s = tandem_exec.alloc : memref<1x2x3x3xf32, #gpu>
  tandem_exec.launch @k1_swish(%t, %s) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x3x3xf32, #gpu>, memref<1x2x3x3xf32, #gpu>
  %t2 = tandem_exec.alloc : memref<1x2x3x3xf32, #gpu>
  tandem_exec.launch @k0_conv(%s, %b, %w, %t2) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x3x3xf32, #gpu>, memref<2xf32, #gpu>, memref<2x2x1x1xf32, #gpu>, memref<1x2x3x3xf32, #gpu>
  tandem_exec.launch @k2_sigmoid(%t2, %o) on compute grid [1, 1, 1] block [32, 1, 1] : memref<1x2x3x3xf32, #gpu>, memref<1x2x3x3xf32, #gpu>
  return
}


// -----

// A conv whose input the kernel reads through a collapse of a 5-D argument
// (a channel shuffle's view, NHWC): the library conv reads the same bytes
// through a collapse of the launch's buffer in the schedule.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func private @k0_conv(%x: memref<1x5x5x2x2xf32>, %w: memref<3x3x3x4xf32>, %y: memref<1x5x5x3xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x7x7x4xf32>
  %c = memref.collapse_shape %x [[0], [1], [2], [3, 4]] : memref<1x5x5x2x2xf32> into memref<1x5x5x4xf32>
  %sub = memref.subview %p[0, 1, 1, 0] [1, 5, 5, 4] [1, 1, 1, 1] : memref<1x7x7x4xf32> to memref<1x5x5x4xf32, strided<[196, 28, 4, 1], offset: 32>>
  linalg.map outs(%p : memref<1x7x7x4xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  memref.copy %c, %sub : memref<1x5x5x4xf32> to memref<1x5x5x4xf32, strided<[196, 28, 4, 1], offset: 32>>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%y : memref<1x5x5x3xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : memref<1x7x7x4xf32>, memref<3x3x3x4xf32>) outs(%y : memref<1x5x5x3xf32>)
  memref.dealloc %p : memref<1x7x7x4xf32>
  return
}

// CHECK-LABEL: func.func @reshaped_input(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x5x5x2x2xf32, {{.+}}>, %[[W:[^:]+]]: memref<3x3x3x4xf32
// CHECK:         %[[Y:.+]] = tandem_exec.alloc : memref<1x5x5x3xf32
// CHECK-NEXT:    %[[C:.+]] = memref.collapse_shape %[[X]] {{\[\[}}0], [1], [2], [3, 4]] : memref<1x5x5x2x2xf32, #tandem.device<"/device:GPU:0">> into memref<1x5x5x4xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.conv @k0_conv(%[[C]], %[[W]]) -> %[[Y]] on compute
// CHECK-SAME:      layout = "NHWC", pads = array<i64: 1, 1>
// CHECK-NEXT:    tandem_exec.launch @k0_conv(%[[X]], %[[W]], %[[Y]])
func.func @reshaped_input(%x: memref<1x5x5x2x2xf32, #gpu>, %w: memref<3x3x3x4xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %y = tandem_exec.alloc : memref<1x5x5x3xf32, #gpu>
  tandem_exec.launch @k0_conv(%x, %w, %y) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x5x5x2x2xf32, #gpu>, memref<3x3x3x4xf32, #gpu>, memref<1x5x5x3xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}

// -----

// A 1x1 conv whose input the kernel reads as 1x4x3x3 through a collapse and
// an expand of a 1x1x36 argument (PoolFormer's GroupNorm of one group
// normalises a flat view of the image): no single reshape makes one shape
// from the other (the unit dimension has no group), so the library conv
// reads the argument through a collapse to 1-D and an expand.

#gpu = #tandem.device<"/device:GPU:0">
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func private @k0_conv(%x: memref<1x1x36xf32>, %w: memref<6x4x1x1xf32>, %y: memref<1x6x3x3xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %c = memref.collapse_shape %x [[0], [1, 2]] : memref<1x1x36xf32> into memref<1x36xf32>
  %e = memref.expand_shape %c [[0], [1, 2, 3]] output_shape [1, 4, 3, 3] : memref<1x36xf32> into memref<1x4x3x3xf32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%y : memref<1x6x3x3xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%e, %w : memref<1x4x3x3xf32>, memref<6x4x1x1xf32>) outs(%y : memref<1x6x3x3xf32>)
  return
}

// CHECK-LABEL: func.func @flat_input(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x1x36xf32, {{.+}}>, %[[W:[^:]+]]: memref<6x4x1x1xf32
// CHECK:         %[[Y:.+]] = tandem_exec.alloc : memref<1x6x3x3xf32
// CHECK-NEXT:    %[[C:.+]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : memref<1x1x36xf32, #tandem.device<"/device:GPU:0">> into memref<36xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    %[[E:.+]] = memref.expand_shape %[[C]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 4, 3, 3] : memref<36xf32, #tandem.device<"/device:GPU:0">> into memref<1x4x3x3xf32, #tandem.device<"/device:GPU:0">>
// CHECK-NEXT:    tandem_exec.conv @k0_conv(%[[E]], %[[W]]) -> %[[Y]] on compute {{.*}} : memref<1x4x3x3xf32
// CHECK-NEXT:    tandem_exec.launch @k0_conv(%[[X]], %[[W]], %[[Y]])
func.func @flat_input(%x: memref<1x1x36xf32, #gpu>, %w: memref<6x4x1x1xf32, #gpu>) {
  tandem_exec.partition_begin "m_p0_gpu0" on compute
  %y = tandem_exec.alloc : memref<1x6x3x3xf32, #gpu>
  tandem_exec.launch @k0_conv(%x, %w, %y) on compute grid [1, 1, 1] block [128, 1, 1] : memref<1x1x36xf32, #gpu>, memref<6x4x1x1xf32, #gpu>, memref<1x6x3x3xf32, #gpu>
  tandem_exec.partition_end "m_p0_gpu0" on compute
  return
}
