// RUN: tandem-opt -tandem-outline-kernels -split-input-file %s | FileCheck %s

// Each linalg op of a GPU partition becomes a kernel named after the
// partition, its position, its fusion and its op, with inputs first, then
// outputs; the call carries the launch geometry (32 points:
// one block of one warp). Scalar constants are recreated in the kernel.
// CHECK-LABEL: func.func private @m_p0_gpu0
// CHECK-SAME: (%[[X:.+]]: memref<4x8xf32>, %[[Y:.+]]: memref<4x8xf32>)
// CHECK: %[[T:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK: call @m_p0_gpu0_k0_relu1_generic(%[[X]], %[[T]]) {tandem.launch_dims = array<i64: 1, 1, 1, 32, 1, 1>}
// CHECK: call @m_p0_gpu0_k1_add1_generic(%[[X]], %[[T]], %[[Y]]) {tandem.launch_dims = array<i64: 1, 1, 1, 32, 1, 1>}
// CHECK-NOT: linalg.generic
// CHECK: return
// CHECK: func.func private @m_p0_gpu0_k0_relu1_generic(%{{.+}}: memref<4x8xf32>, %{{.+}}: memref<4x8xf32>) attributes {tandem.kernel}
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.generic
// CHECK: func.func private @m_p0_gpu0_k1_add1_generic(%{{.+}}: memref<4x8xf32>, %{{.+}}: memref<4x8xf32>, %{{.+}}: memref<4x8xf32>) attributes {tandem.kernel}
// CHECK-NOT: memref.alloc
// CHECK: func.func private @m_p1_cpu0
// CHECK: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @m_p0_gpu0(%x: memref<4x8xf32>, %y: memref<4x8xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%t : memref<4x8xf32>)
      attrs = {tandem.kernel = "fusion.relu1"} {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : memref<4x8xf32>, memref<4x8xf32>) outs(%y : memref<4x8xf32>)
      attrs = {tandem.kernel = "fusion.add1"} {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @m_p1_cpu0(%x: memref<4x8xf32>, %y: memref<4x8xf32>)
    attributes {tandem.device = #tandem.device<"/device:CPU:0">, tandem.partition} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// Views are recreated inside the kernel: its arguments are whole buffers.
// A memref.copy becomes a linalg.copy kernel. 300 points need two blocks of
// 256 threads (the guard drops the ragged rest).
// CHECK-LABEL: func.func private @v_p0_gpu0
// CHECK-SAME: (%[[X:.+]]: memref<2x300xf32>, %[[Y:.+]]: memref<300xf32>, %[[Z:.+]]: memref<2x300xf32>)
// CHECK-NOT: memref.subview
// CHECK: call @v_p0_gpu0_k0_copy(%[[X]], %[[Y]]) {tandem.launch_dims = array<i64: 2, 1, 1, 256, 1, 1>}
// CHECK: call @v_p0_gpu0_k1_copy(%[[X]], %[[Z]]) {tandem.launch_dims = array<i64: 3, 1, 1, 256, 1, 1>}
// CHECK: func.func private @v_p0_gpu0_k0_copy(%[[A:.+]]: memref<2x300xf32>, %[[B:.+]]: memref<300xf32>) attributes {tandem.kernel}
// CHECK: %[[ROW:.+]] = memref.subview %[[A]][1, 0] [1, 300] [1, 1]
// CHECK: linalg.copy ins(%[[ROW]] : memref<300xf32, strided<[1], offset: 300>>) outs(%[[B]] : memref<300xf32>)
func.func private @v_p0_gpu0(%x: memref<2x300xf32>, %y: memref<300xf32>, %z: memref<2x300xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %row = memref.subview %x[1, 0] [1, 300] [1, 1] : memref<2x300xf32> to memref<300xf32, strided<[1], offset: 300>>
  memref.copy %row, %y : memref<300xf32, strided<[1], offset: 300>> to memref<300xf32>
  memref.copy %x, %z : memref<2x300xf32> to memref<2x300xf32>
  return
}

// -----

// Conv + BiasAdd + ReLU as bufferised: the padded input (fill, then a copy
// into its interior) and the broadcast bias the convolution accumulates
// into are its prologue, so all four ops become one kernel. The padded
// buffer moves into the kernel (it is no longer the partition's); the
// kernel takes the unpadded input, the bias, the weights and the output.
// CHECK-LABEL: func.func private @c_p0_gpu0
// CHECK-SAME: (%[[X:.+]]: memref<1x2x5x5xf32>, %[[B:.+]]: memref<3xf32>, %[[W:.+]]: memref<3x2x3x3xf32>, %[[Y:.+]]: memref<1x3x5x5xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.
// CHECK: call @c_p0_gpu0_k0_conv1_conv_2d_nchw_fchw(%[[X]], %[[B]], %[[W]], %[[Y]]) {tandem.launch_dims = array<i64: 1, 1, 1, 96, 1, 1>}
// CHECK-NEXT: return
// CHECK: func.func private @c_p0_gpu0_k0_conv1_conv_2d_nchw_fchw(%[[KX:.+]]: memref<1x2x5x5xf32>, %[[KB:.+]]: memref<3xf32>, %[[KW:.+]]: memref<3x2x3x3xf32>, %[[KY:.+]]: memref<1x3x5x5xf32>) attributes {tandem.kernel}
// CHECK: %[[P:.+]] = memref.alloc() : memref<1x2x7x7xf32>
// CHECK: %[[I:.+]] = memref.subview %[[P]][0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1]
// CHECK: linalg.map outs(%[[P]] :
// CHECK: memref.copy %[[KX]], %[[I]]
// CHECK: linalg.generic {{.+}} ins(%[[KB]] : memref<3xf32>) outs(%[[KY]] : memref<1x3x5x5xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} ins(%[[P]], %[[KW]] : {{.+}}) outs(%[[KY]] : memref<1x3x5x5xf32>)
// CHECK-NEXT: return
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @c_p0_gpu0(%x: memref<1x2x5x5xf32>, %b: memref<3xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x5x5xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<3xf32>) outs(%y : memref<1x3x5x5xf32>) attrs = {tandem.kernel = "fusion.conv1"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu", tandem.kernel = "fusion.conv1"}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x5x5xf32>)
  return
}

// -----

// The padding ran early (MaxViT pads its block input for the shortcut's
// average pool, then runs the main branch), with an unrelated kernel
// between it and the convolution: its fill, interior view and copy move
// next to the convolution and become its prologue again. In the second
// partition the kernel between writes the copy's source, so nothing moves
// and the padding keeps its own kernels.
// CHECK-LABEL: func.func private @pad_p0_gpu0
// CHECK: call @pad_p0_gpu0_k0_generic(
// CHECK-NEXT: call @pad_p0_gpu0_k1_conv_2d_nchw_fchw(
// CHECK-NEXT: return
// CHECK: func.func private @pad_p0_gpu0_k1_conv_2d_nchw_fchw(
// CHECK: linalg.map
// CHECK: memref.copy
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-LABEL: func.func private @pad_p1_gpu0
// CHECK: call @pad_p1_gpu0_k0_map(
// CHECK-NEXT: call @pad_p1_gpu0_k1_copy(
// CHECK-NEXT: call @pad_p1_gpu0_k2_generic(
// CHECK: call @pad_p1_gpu0_k{{[0-9]+}}_conv_2d_nchw_fchw(
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @pad_p0_gpu0(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x5x5xf32>, %u: memref<1x2x5x5xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x5x5xf32>) outs(%u : memref<1x2x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1x3x5x5xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x5x5xf32>)
  return
}
func.func private @pad_p1_gpu0(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x5x5xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x5x5xf32>) outs(%x : memref<1x2x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1x3x5x5xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x5x5xf32>)
  return
}

// -----

// No prologue when it would change what the convolution sees: here another
// kernel reads the broadcast bias between the producer and the
// convolution, and the padded buffer is read after the convolution too.
// Every op keeps its own kernel.
// CHECK-LABEL: func.func private @n_p0_gpu0
// CHECK: call @n_p0_gpu0_k0_map(
// CHECK: call @n_p0_gpu0_k1_copy(
// CHECK: call @n_p0_gpu0_k2_generic(
// CHECK: call @n_p0_gpu0_k3_copy(
// CHECK: call @n_p0_gpu0_k4_conv_2d_nchw_fchw(
// CHECK: call @n_p0_gpu0_k5_copy(
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @n_p0_gpu0(%x: memref<1x2x5x5xf32>, %b: memref<3xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x5x5xf32>, %z: memref<1x3x5x5xf32>, %q: memref<1x2x7x7xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<3xf32>) outs(%y : memref<1x3x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.copy %y, %z : memref<1x3x5x5xf32> to memref<1x3x5x5xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x5x5xf32>)
  memref.copy %p, %q : memref<1x2x7x7xf32> to memref<1x2x7x7xf32>
  return
}

// -----

// A payload that loads from a buffer directly (a gather's table, read with
// memref.load at computed indices): the buffer is a kernel input too.
// CHECK-LABEL: func.func private @g_p0_gpu0
// CHECK-SAME: (%[[T:.+]]: memref<5x3xf32>, %[[I:.+]]: memref<4xindex>, %[[Y:.+]]: memref<4x3xf32>)
// CHECK: call @g_p0_gpu0_k0_generic(%[[T]], %[[I]], %[[Y]])
// CHECK: func.func private @g_p0_gpu0_k0_generic(%[[KT:.+]]: memref<5x3xf32>, %{{.+}}: memref<4xindex>, %{{.+}}: memref<4x3xf32>) attributes {tandem.kernel}
// CHECK: memref.load %[[KT]]
func.func private @g_p0_gpu0(%table: memref<5x3xf32>, %idx: memref<4xindex>, %y: memref<4x3xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%idx : memref<4xindex>) outs(%y : memref<4x3xf32>) {
  ^bb0(%i: index, %out: f32):
    %j = linalg.index 1 : index
    %v = memref.load %table[%i, %j] : memref<5x3xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

// A softmax over rows of 128 with an elementwise scale before it is one row
// kernel: one block per row (4 x 8 rows, 128 threads). The maxima, the
// exponentials and the sums only the chain uses become local to the kernel
// (their partition buffers are left with their deallocations, which move
// after the call); the scaled scores %z, a partition argument, stay a
// kernel argument.
// CHECK-LABEL: func.func private @s_p0_gpu0
// CHECK-SAME: (%[[X:.+]]: memref<4x8x128xf32>, %[[Y:.+]]: memref<4x8x128xf32>, %[[Z:.+]]: memref<4x8x128xf32>)
// CHECK: call @s_p0_gpu0_k0_softmax_generic_rows(%[[X]], %[[Z]], %[[Y]]) {tandem.launch_dims = array<i64: 32, 1, 1, 128, 1, 1>}
// CHECK-NOT: linalg
// CHECK-NOT: call
// CHECK: memref.dealloc
// CHECK: return
// CHECK: func.func private @s_p0_gpu0_k0_softmax_generic_rows(%{{.+}}: memref<4x8x128xf32>, %{{.+}}: memref<4x8x128xf32>, %{{.+}}: memref<4x8x128xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 4, 8>}
// CHECK-COUNT-3: memref.alloc()
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK-COUNT-2: linalg.generic
// CHECK: linalg.fill
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.{{generic|fill}}
// CHECK: return
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func private @s_p0_gpu0(%x: memref<4x8x128xf32>, %y: memref<4x8x128xf32>, %z: memref<4x8x128xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %scale = arith.constant 0.125 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x8x128xf32>) outs(%z : memref<4x8x128xf32>) attrs = {tandem.kernel = "fusion.scale"} {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  }
  %max = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%z : memref<4x8x128xf32>) outs(%max : memref<4x8xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<4x8x128xf32>
  linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%z, %max : memref<4x8x128xf32>, memref<4x8xf32>) outs(%e : memref<4x8x128xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  memref.dealloc %max : memref<4x8xf32>
  %sum = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : memref<4x8x128xf32>) outs(%sum : memref<4x8xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<4x8x128xf32>, memref<4x8xf32>) outs(%y : memref<4x8x128xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %e : memref<4x8x128xf32>
  memref.dealloc %sum : memref<4x8xf32>
  return
}

// -----

// A row sum whose next op reads the sums of other rows (a transposed map)
// forms no chain: two kernels, the reduction with a block per row (the
// second, a copy through a permutation, is named as a transpose).
// CHECK-LABEL: func.func private @t_p0_gpu0
// CHECK: call @t_p0_gpu0_k0_generic({{.*}}) {tandem.launch_dims = array<i64: 64, 1, 1, 128, 1, 1>}
// CHECK: call @t_p0_gpu0_k1_transpose(
// CHECK-NOT: tandem.row_kernel
func.func private @t_p0_gpu0(%x: memref<8x8x128xf32>, %y: memref<8x8xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<8x8x128xf32>) outs(%sum : memref<8x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// An attention over 2 heads x 64 queries, 64 keys, head size 16: the scores
// Q K^T, the softmax and P V are one kernel (one block per query row, 64
// threads): no library GEMM is left, and the scores, the exponentials and
// the probabilities are row-local (kernel allocations) instead of 2x64x64
// tensors in global memory.
// CHECK-LABEL: func.func private @a_p0_gpu0
// CHECK-SAME: (%[[Q:.+]]: memref<2x64x16xf32>, %[[KT:.+]]: memref<2x16x64xf32>, %[[V:.+]]: memref<2x64x16xf32>, %[[O:.+]]: memref<2x64x16xf32>)
// CHECK: call @a_p0_gpu0_k0_pv_batch_matmul_attention(%[[Q]], %[[KT]], %[[V]], %[[O]]) {tandem.launch_dims = array<i64: 128, 1, 1, 64, 1, 1>}
// CHECK-NOT: call
// CHECK: func.func private @a_p0_gpu0_k0_pv_batch_matmul_attention({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 64>}
// CHECK-COUNT-5: memref.alloc()
// CHECK-NOT: memref.alloc
// CHECK: linalg.batch_matmul
// CHECK: linalg.batch_matmul
// CHECK: return
#a3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func private @a_p0_gpu0(%q: memref<2x64x16xf32>, %kt: memref<2x16x64xf32>, %v: memref<2x64x16xf32>, %o: memref<2x64x16xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.qk"} ins(%q, %kt : memref<2x64x16xf32>, memref<2x16x64xf32>) outs(%s : memref<2x64x64xf32>)
  %max = memref.alloc() : memref<2x64xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<2x64xf32>)
  linalg.generic {indexing_maps = [#a3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : memref<2x64x64xf32>) outs(%max : memref<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [#a3, #r3, #a3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : memref<2x64x64xf32>, memref<2x64xf32>) outs(%e : memref<2x64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<2x64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x64xf32>)
  linalg.generic {indexing_maps = [#a3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : memref<2x64x64xf32>) outs(%sum : memref<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [#a3, #r3, #a3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<2x64x64xf32>, memref<2x64xf32>) outs(%p : memref<2x64x64xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x16xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.pv"} ins(%p, %v : memref<2x64x64xf32>, memref<2x64x16xf32>) outs(%o : memref<2x64x16xf32>)
  return
}

// -----

// An attention over 2 windows x 2 heads, 32 queries and keys, head size 64:
// the batched matmuls run over the 4 (window, head) pairs, the softmax over
// rows [2, 2, 32] of 4-D views. The matmuls' loops [4, 32] group the same
// 128 rows, so the three are still one kernel and the scores stay
// row-local; P V's 64 columns per row, wider than the row's 32 keys, set
// the block's threads.
// CHECK-LABEL: func.func private @ga_p0_gpu0
// CHECK: call @ga_p0_gpu0_k0_pv_batch_matmul_attention({{.*}}) {tandem.launch_dims = array<i64: 128, 1, 1, 64, 1, 1>}
// CHECK-NOT: call
// CHECK: func.func private @ga_p0_gpu0_k0_pv_batch_matmul_attention({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 2, 32>}
// CHECK-COUNT-5: memref.alloc()
// CHECK-NOT: memref.alloc
// CHECK: linalg.batch_matmul
// CHECK: linalg.batch_matmul
// CHECK: return
#g4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#gr4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func private @ga_p0_gpu0(%q: memref<4x32x64xf32>, %kt: memref<4x64x32xf32>, %v: memref<4x32x64xf32>, %o: memref<4x32x64xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4x32x32xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4x32x32xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.qk"} ins(%q, %kt : memref<4x32x64xf32>, memref<4x64x32xf32>) outs(%s : memref<4x32x32xf32>)
  %s4 = memref.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 32, 32] : memref<4x32x32xf32> into memref<2x2x32x32xf32>
  %max = memref.alloc() : memref<2x2x32xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<2x2x32xf32>)
  linalg.generic {indexing_maps = [#g4, #gr4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s4 : memref<2x2x32x32xf32>) outs(%max : memref<2x2x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<2x2x32x32xf32>
  linalg.generic {indexing_maps = [#g4, #gr4, #g4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s4, %max : memref<2x2x32x32xf32>, memref<2x2x32xf32>) outs(%e : memref<2x2x32x32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<2x2x32xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x2x32xf32>)
  linalg.generic {indexing_maps = [#g4, #gr4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : memref<2x2x32x32xf32>) outs(%sum : memref<2x2x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<2x2x32x32xf32>
  linalg.generic {indexing_maps = [#g4, #gr4, #g4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<2x2x32x32xf32>, memref<2x2x32xf32>) outs(%p : memref<2x2x32x32xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  }
  %p3 = memref.collapse_shape %p [[0, 1], [2], [3]] : memref<2x2x32x32xf32> into memref<4x32x32xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<4x32x64xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.pv"} ins(%p3, %v : memref<4x32x32xf32>, memref<4x32x64xf32>) outs(%o : memref<4x32x64xf32>)
  return
}

// -----

// The same attention with Swin's head merge after it: the merge reads the
// output split back into windows and heads (2 x 2), transposed to windows
// x tokens x heads. P V's batch loop splits alike (its probabilities read
// from the softmax's 4-D buffer, no longer through the collapse) and it
// writes the merged layout itself: no merge kernel.
// CHECK-DAG: #[[PMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[YMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func private @gm_p0_gpu0
// CHECK-SAME: %[[Y:[^:]+]]: memref<2x32x2x64xf32>)
// CHECK: call @gm_p0_gpu0_k0_pv_generic_attention({{.*}}, %[[Y]]) {tandem.launch_dims = array<i64: 128, 1, 1, 64, 1, 1>}
// CHECK-NOT: call
// CHECK: func.func private @gm_p0_gpu0_k0_pv_generic_attention({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 2, 32>}
// CHECK: linalg.batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[PMAP]], #{{.+}}, #[[YMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: return
#gm4t = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#gm4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#gmr4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func private @gm_p0_gpu0(%q: memref<4x32x64xf32>, %kt: memref<4x64x32xf32>, %v: memref<4x32x64xf32>, %y: memref<2x32x2x64xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4x32x32xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4x32x32xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.qk"} ins(%q, %kt : memref<4x32x64xf32>, memref<4x64x32xf32>) outs(%s : memref<4x32x32xf32>)
  %s4 = memref.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 32, 32] : memref<4x32x32xf32> into memref<2x2x32x32xf32>
  %max = memref.alloc() : memref<2x2x32xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<2x2x32xf32>)
  linalg.generic {indexing_maps = [#gm4, #gmr4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s4 : memref<2x2x32x32xf32>) outs(%max : memref<2x2x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<2x2x32x32xf32>
  linalg.generic {indexing_maps = [#gm4, #gmr4, #gm4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s4, %max : memref<2x2x32x32xf32>, memref<2x2x32xf32>) outs(%e : memref<2x2x32x32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<2x2x32xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x2x32xf32>)
  linalg.generic {indexing_maps = [#gm4, #gmr4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : memref<2x2x32x32xf32>) outs(%sum : memref<2x2x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<2x2x32x32xf32>
  linalg.generic {indexing_maps = [#gm4, #gmr4, #gm4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<2x2x32x32xf32>, memref<2x2x32xf32>) outs(%p : memref<2x2x32x32xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  }
  %p3 = memref.collapse_shape %p [[0, 1], [2], [3]] : memref<2x2x32x32xf32> into memref<4x32x32xf32>
  %o = memref.alloc() : memref<4x32x64xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<4x32x64xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.pv"} ins(%p3, %v : memref<4x32x32xf32>, memref<4x32x64xf32>) outs(%o : memref<4x32x64xf32>)
  %o4 = memref.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 2, 32, 64] : memref<4x32x64xf32> into memref<2x2x32x64xf32>
  linalg.generic {indexing_maps = [#gm4t, #gm4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o4 : memref<2x2x32x64xf32>) outs(%y : memref<2x32x2x64xf32>) attrs = {tandem.kernel = "fusion.merge"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %o : memref<4x32x64xf32>
  return
}

// -----

// The head split and merge around an attention (2 heads, 16 tokens, head
// size 32): the transposes of K and V out of tokens x heads and the
// output's back into it fold into the attention's contractions (read and
// written through the composed maps). V and the output keep a thread per
// point (the threads, over the head's 32 values, access consecutive
// elements); K is read along the reduction (a token's row), so Q K^T runs a
// warp per key, the lanes over the head's values. The query's transpose
// with its scale moves past the others and becomes the attention's first
// stage: its buffer is row-local (a kernel allocation, a row of shared
// memory per block).
// CHECK-DAG: #[[KMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d3)>
// CHECK-DAG: #[[VMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
// CHECK-DAG: #[[OMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2)>
// CHECK-LABEL: func.func private @hs_p0_gpu0
// CHECK-SAME: (%[[Q:.+]]: memref<16x2x32xf32>, %[[K:.+]]: memref<16x2x32xf32>, %[[V:.+]]: memref<16x2x32xf32>, %[[Y:.+]]: memref<16x2x32xf32>)
// CHECK: call @hs_p0_gpu0_k0_pv_generic_attention(%[[Q]], %[[K]], %[[V]], %[[Y]])
// CHECK-NOT: call
// CHECK-NOT: memref.alloc
// CHECK: func.func private @hs_p0_gpu0_k0_pv_generic_attention({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 16>}
// CHECK: memref.alloc() {{.*}}: memref<2x16x32xf32>
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[KMAP]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%{{.+}}, %arg1 : memref<2x16x32xf32>, memref<16x2x32xf32>)
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[VMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%arg3 : memref<16x2x32xf32>)
#hs3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#hsr = affine_map<(d0, d1, d2) -> (d0, d1)>
#hst = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#hsk = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
func.func private @hs_p0_gpu0(%q: memref<16x2x32xf32>, %k: memref<16x2x32xf32>, %v: memref<16x2x32xf32>, %y: memref<16x2x32xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %qt = memref.alloc() : memref<2x16x32xf32>
  linalg.generic {indexing_maps = [#hst, #hs3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : memref<16x2x32xf32>) outs(%qt : memref<2x16x32xf32>) attrs = {tandem.kernel = "fusion.qt"} {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  }
  %kt = memref.alloc() : memref<2x32x16xf32>
  linalg.generic {indexing_maps = [#hsk, #hs3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k : memref<16x2x32xf32>) outs(%kt : memref<2x32x16xf32>) attrs = {tandem.kernel = "fusion.kt"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %vt = memref.alloc() : memref<2x16x32xf32>
  linalg.generic {indexing_maps = [#hst, #hs3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v : memref<16x2x32xf32>) outs(%vt : memref<2x16x32xf32>) attrs = {tandem.kernel = "fusion.vt"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %s = memref.alloc() : memref<2x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x16x16xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.qk"} ins(%qt, %kt : memref<2x16x32xf32>, memref<2x32x16xf32>) outs(%s : memref<2x16x16xf32>)
  %max = memref.alloc() : memref<2x16xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<2x16xf32>)
  linalg.generic {indexing_maps = [#hs3, #hsr], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : memref<2x16x16xf32>) outs(%max : memref<2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<2x16x16xf32>
  linalg.generic {indexing_maps = [#hs3, #hsr, #hs3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : memref<2x16x16xf32>, memref<2x16xf32>) outs(%e : memref<2x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<2x16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x16xf32>)
  linalg.generic {indexing_maps = [#hs3, #hsr], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : memref<2x16x16xf32>) outs(%sum : memref<2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<2x16x16xf32>
  linalg.generic {indexing_maps = [#hs3, #hsr, #hs3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<2x16x16xf32>, memref<2x16xf32>) outs(%p : memref<2x16x16xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  }
  %o = memref.alloc() : memref<2x16x32xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<2x16x32xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.pv"} ins(%p, %vt : memref<2x16x16xf32>, memref<2x16x32xf32>) outs(%o : memref<2x16x32xf32>)
  linalg.generic {indexing_maps = [#hst, #hs3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o : memref<2x16x32xf32>) outs(%y : memref<16x2x32xf32>) attrs = {tandem.kernel = "fusion.merge"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %qt : memref<2x16x32xf32>
  memref.dealloc %kt : memref<2x32x16xf32>
  memref.dealloc %vt : memref<2x16x32xf32>
  memref.dealloc %o : memref<2x16x32xf32>
  return
}

// -----

// MaxViT scales K rather than Q: K's transpose multiplies by the scale.
// It folds into Q K^T all the same (K read in place, a warp per key), the
// contraction's payload multiplying each element of K by the scale first,
// as the transpose did; Q's plain transpose folds too, and no kernel but
// the attention is left.
// CHECK-LABEL: func.func private @ks_p0_gpu0
// CHECK: call @ks_p0_gpu0_k0_pv_generic_attention(%arg0, %arg1, %arg2, %arg3)
// CHECK-NOT: call
// CHECK: func.func private @ks_p0_gpu0_k0_pv_generic_attention({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 16>}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg1 : memref<16x2x32xf32>, memref<16x2x32xf32>)
// CHECK-NEXT: ^bb0(%[[QE:.+]]: f32, %[[KE:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[KS:.+]] = arith.mulf %[[KE]], %[[S]] : f32
// CHECK-NEXT: arith.mulf %[[QE]], %[[KS]] : f32
#ks3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ksr = affine_map<(d0, d1, d2) -> (d0, d1)>
#kst = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#ksk = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
func.func private @ks_p0_gpu0(%q: memref<16x2x32xf32>, %k: memref<16x2x32xf32>, %v: memref<16x2x32xf32>, %y: memref<16x2x32xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %qt = memref.alloc() : memref<2x16x32xf32>
  linalg.generic {indexing_maps = [#kst, #ks3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : memref<16x2x32xf32>) outs(%qt : memref<2x16x32xf32>) attrs = {tandem.kernel = "fusion.qt"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %kt = memref.alloc() : memref<2x32x16xf32>
  linalg.generic {indexing_maps = [#ksk, #ks3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k : memref<16x2x32xf32>) outs(%kt : memref<2x32x16xf32>) attrs = {tandem.kernel = "fusion.kt"} {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  }
  %vt = memref.alloc() : memref<2x16x32xf32>
  linalg.generic {indexing_maps = [#kst, #ks3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v : memref<16x2x32xf32>) outs(%vt : memref<2x16x32xf32>) attrs = {tandem.kernel = "fusion.vt"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %s = memref.alloc() : memref<2x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x16x16xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.qk"} ins(%qt, %kt : memref<2x16x32xf32>, memref<2x32x16xf32>) outs(%s : memref<2x16x16xf32>)
  %max = memref.alloc() : memref<2x16xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<2x16xf32>)
  linalg.generic {indexing_maps = [#ks3, #ksr], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : memref<2x16x16xf32>) outs(%max : memref<2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<2x16x16xf32>
  linalg.generic {indexing_maps = [#ks3, #ksr, #ks3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : memref<2x16x16xf32>, memref<2x16xf32>) outs(%e : memref<2x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<2x16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x16xf32>)
  linalg.generic {indexing_maps = [#ks3, #ksr], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : memref<2x16x16xf32>) outs(%sum : memref<2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<2x16x16xf32>
  linalg.generic {indexing_maps = [#ks3, #ksr, #ks3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<2x16x16xf32>, memref<2x16xf32>) outs(%p : memref<2x16x16xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  }
  %o = memref.alloc() : memref<2x16x32xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<2x16x32xf32>)
  linalg.batch_matmul {tandem.kernel = "fusion.pv"} ins(%p, %vt : memref<2x16x16xf32>, memref<2x16x32xf32>) outs(%o : memref<2x16x32xf32>)
  linalg.generic {indexing_maps = [#kst, #ks3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o : memref<2x16x32xf32>) outs(%y : memref<16x2x32xf32>) attrs = {tandem.kernel = "fusion.merge"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %qt : memref<2x16x32xf32>
  memref.dealloc %kt : memref<2x32x16xf32>
  memref.dealloc %vt : memref<2x16x32xf32>
  memref.dealloc %o : memref<2x16x32xf32>
  return
}

// -----

// Few rows (4 blocks) and wide ones (8192 points): the elementwise op before
// the row sum stays a kernel of its own, which runs on every SM; the sum is
// a block reduction alone.
// CHECK-LABEL: func.func private @w_p0_gpu0
// CHECK: call @w_p0_gpu0_k0_generic({{.*}}) {tandem.launch_dims = array<i64: 128, 1, 1, 256, 1, 1>}
// CHECK: call @w_p0_gpu0_k1_generic({{.*}}) {tandem.launch_dims = array<i64: 4, 1, 1, 256, 1, 1>}
// CHECK-NOT: tandem.row_kernel
func.func private @w_p0_gpu0(%x: memref<4x8192xf32>, %y: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x8192xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8192xf32>) outs(%t : memref<4x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<4x8192xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An NHWC mean over H and W (a squeeze-and-excitation pool of an NHWC GPU
// partition): the channel loop comes after the reductions, so its loops are
// interchanged (parallel first, the reductions' order kept), and the sum
// and its division become one row kernel with a block per channel (its
// threads stride over the 8 x 8 points). Before the interchange these were
// two kernels.
// CHECK: #[[IN:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func private @p_p0_gpu0
// CHECK: call @p_p0_gpu0_k0_pool_generic_rows(%{{.+}}, %{{.+}}) {tandem.launch_dims = array<i64: 16, 1, 1, 64, 1, 1>}
// CHECK-NOT: call
// CHECK: func.func private @p_p0_gpu0_k0_pool_generic_rows({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 16>}
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK: linalg.generic
// CHECK: return
#nhwc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#nc = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func private @p_p0_gpu0(%x: memref<1x8x8x16xf32>, %y: memref<1x16xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 64.0 : f32
  %sum = memref.alloc() : memref<1x16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<1x16xf32>)
  linalg.generic {indexing_maps = [#nhwc, #nc], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x : memref<1x8x8x16xf32>) outs(%sum : memref<1x16xf32>) attrs = {tandem.kernel = "fusion.pool"} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<1x16xf32>) outs(%y : memref<1x16xf32>) attrs = {tandem.kernel = "fusion.pool"} {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %in, %count : f32
    linalg.yield %r : f32
  }
  memref.dealloc %sum : memref<1x16xf32>
  return
}

// -----

// Rows shorter than a block reduction's 64 points still form a chain from
// 16 points on (a Swin window attention's softmax over 49 keys): a sum over
// rows of 24 and the division by it are one row kernel with a block of two
// warps per row. Rows of 8 points (of another row count, so that they
// cannot join that chain) do not: the sum stays a thread per row and the
// division a kernel of its own.
// CHECK-LABEL: func.func private @r_p0_gpu0
// CHECK: call @r_p0_gpu0_k0_norm_generic_rows({{.*}}) {tandem.launch_dims = array<i64: 32, 1, 1, 64, 1, 1>}
// CHECK: call @r_p0_gpu0_k1_norm_generic({{.*}} : (memref<16x8xf32>, memref<16xf32>) -> ()
// CHECK: call @r_p0_gpu0_k2_norm_generic({{.*}} : (memref<16x8xf32>, memref<16xf32>, memref<16x8xf32>) -> ()
// CHECK: func.func private @r_p0_gpu0_k0_norm_generic_rows({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 32>}
#id2r = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func private @r_p0_gpu0(%x: memref<32x24xf32>, %y: memref<32x24xf32>, %a: memref<16x8xf32>, %b: memref<16x8xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<32xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<32xf32>)
  linalg.generic {indexing_maps = [#id2r, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<32x24xf32>) outs(%sum : memref<32xf32>) attrs = {tandem.kernel = "fusion.norm"} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id2r, #row2, #id2r], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<32x24xf32>, memref<32xf32>) outs(%y : memref<32x24xf32>) attrs = {tandem.kernel = "fusion.norm"} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %sum : memref<32xf32>
  %short = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%short : memref<16xf32>)
  linalg.generic {indexing_maps = [#id2r, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<16x8xf32>) outs(%short : memref<16xf32>) attrs = {tandem.kernel = "fusion.norm"} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id2r, #row2, #id2r], iterator_types = ["parallel", "parallel"]}
      ins(%a, %short : memref<16x8xf32>, memref<16xf32>) outs(%b : memref<16x8xf32>) attrs = {tandem.kernel = "fusion.norm"} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %short : memref<16xf32>
  return
}

// -----

// A softmax over the middle axis of 2 x 40 x 30: its rows (2 x 30) are the
// first and last loops. The reductions get their parallel loops first, the
// exponentials and the division their row loops first (moved only because
// they then join the chain), and the four ops are one row kernel. The
// maxima and sums hold their rows one after the other and become local to
// the kernel; the exponentials hold theirs strided (rows 0 and 2 of
// 2 x 40 x 30), so they stay a buffer of the partition, an argument of the
// kernel.
// CHECK-LABEL: func.func private @mid_p0_gpu0
// CHECK: %[[E:.+]] = memref.alloc() : memref<2x40x30xf32>
// CHECK: call @mid_p0_gpu0_k0_softmax_generic_rows(%{{.+}}, %[[E]], %{{.+}}) {tandem.launch_dims = array<i64: 60, 1, 1, 64, 1, 1>}
// CHECK-NOT: call
// CHECK: func.func private @mid_p0_gpu0_k0_softmax_generic_rows({{.*}}) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 30>}
// CHECK-COUNT-2: memref.alloc() : memref<2x30xf32>
// CHECK-NOT: memref.alloc
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel", "parallel"]
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mrow = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func private @mid_p0_gpu0(%x: memref<2x40x30xf32>, %y: memref<2x40x30xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : memref<2x30xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<2x30xf32>)
  linalg.generic {indexing_maps = [#m3, #mrow], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<2x40x30xf32>) outs(%max : memref<2x30xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<2x40x30xf32>
  linalg.generic {indexing_maps = [#m3, #mrow, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : memref<2x40x30xf32>, memref<2x30xf32>) outs(%e : memref<2x40x30xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  memref.dealloc %max : memref<2x30xf32>
  %sum = memref.alloc() : memref<2x30xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x30xf32>)
  linalg.generic {indexing_maps = [#m3, #mrow], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%e : memref<2x40x30xf32>) outs(%sum : memref<2x30xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#m3, #mrow, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<2x40x30xf32>, memref<2x30xf32>) outs(%y : memref<2x40x30xf32>) attrs = {tandem.kernel = "fusion.softmax"} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %e : memref<2x40x30xf32>
  memref.dealloc %sum : memref<2x30xf32>
  return
}

// -----

// A pointwise op right after a window sum that reads each sum at its own
// point (an average pool's division, then a residual add) is the sum's
// kernel epilogue: one kernel, the sums local to it (the partition's
// buffer for them is gone), the epilogue marked tandem.kernel_epilogue.
// The second pool's reader writes into the pool's own input (through a
// view): another thread may still read that element for its window, so it
// stays a kernel of its own.
// CHECK-LABEL: func.func private @pool_p0_gpu0
// CHECK-SAME: (%[[X:.+]]: memref<1x2x5x5xf32>, %[[K:.+]]: memref<3x3xf32>, %[[B:.+]]: memref<1x2x3x3xf32>, %[[Y:.+]]: memref<1x2x3x3xf32>)
// CHECK-NOT: memref.alloc() : memref<1x2x3x3xf32>
// CHECK: call @pool_p0_gpu0_k0_avg_pooling_nchw_sum(%[[X]], %[[K]], %[[B]], %[[Y]])
// CHECK: %[[T:.+]] = memref.alloc() : memref<1x2x5x5xf32>
// CHECK: call @pool_p0_gpu0_k1_generic(%[[X]], %[[T]])
// CHECK: memref.alloc() : memref<1x2x3x3xf32>
// CHECK: call @pool_p0_gpu0_k2_avg2_pooling_nchw_sum(%[[T]], %[[K]], %{{.+}})
// CHECK: call @pool_p0_gpu0_k3_generic(
// CHECK: func.func private @pool_p0_gpu0_k0_avg_pooling_nchw_sum(
// CHECK: %[[S:.+]] = memref.alloc() : memref<1x2x3x3xf32>
// CHECK: linalg.fill {{.*}}outs(%[[S]]
// CHECK: linalg.pooling_nchw_sum {{.*}}outs(%[[S]]
// CHECK: linalg.generic {{.*}}ins(%{{.+}}, %[[S]] : {{.*}} attrs = {tandem.kernel_epilogue}
// CHECK-NOT: tandem.kernel_epilogue
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @pool_p0_gpu0(%x: memref<1x2x5x5xf32>, %k: memref<3x3xf32>, %b: memref<1x2x3x3xf32>, %y: memref<1x2x3x3xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %nine = arith.constant 9.0 : f32
  %s = memref.alloc() : memref<1x2x3x3xf32>
  linalg.fill {tandem.kernel = "fusion.avg"} ins(%zero : f32) outs(%s : memref<1x2x3x3xf32>)
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.kernel = "fusion.avg"}
      ins(%x, %k : memref<1x2x5x5xf32>, memref<3x3xf32>) outs(%s : memref<1x2x3x3xf32>)
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b, %s : memref<1x2x3x3xf32>, memref<1x2x3x3xf32>) outs(%y : memref<1x2x3x3xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %a = arith.divf %sum, %nine : f32
    %r = arith.addf %in, %a : f32
    linalg.yield %r : f32
  }
  memref.dealloc %s : memref<1x2x3x3xf32>
  %t = memref.alloc() : memref<1x2x5x5xf32>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x5x5xf32>) outs(%t : memref<1x2x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %s2 = memref.alloc() : memref<1x2x3x3xf32>
  linalg.fill {tandem.kernel = "fusion.avg2"} ins(%zero : f32) outs(%s2 : memref<1x2x3x3xf32>)
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.kernel = "fusion.avg2"}
      ins(%t, %k : memref<1x2x5x5xf32>, memref<3x3xf32>) outs(%s2 : memref<1x2x3x3xf32>)
  %inner = memref.subview %t[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 1, 1] : memref<1x2x5x5xf32> to memref<1x2x3x3xf32, strided<[50, 25, 5, 1], offset: 6>>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s2 : memref<1x2x3x3xf32>) outs(%inner : memref<1x2x3x3xf32, strided<[50, 25, 5, 1], offset: 6>>) {
  ^bb0(%sum: f32, %out: f32):
    %a = arith.divf %sum, %nine : f32
    linalg.yield %a : f32
  }
  memref.dealloc %s2 : memref<1x2x3x3xf32>
  memref.dealloc %t : memref<1x2x5x5xf32>
  return
}

// -----

// A split reduction (tandem-split-reductions): the partial sums (a block
// reduction, 64 blocks) and their combination are one kernel, marked
// tandem.split_arrivals: its last block to finish combines. The partials
// stay a buffer of the partition (every block writes its own); the kernel's
// last argument counts the blocks, a zero global of the module read as a
// weight. The second split's combination has 128 output points (more than
// kMaxTailPoints): it stays a kernel of its own.
// CHECK-DAG: memref.global "private" constant @[[COUNT:split_p0_gpu0_k0_generic_arrivals]] : memref<1xi32> = dense<0>
// CHECK-LABEL: func.func private @split_p0_gpu0
// CHECK: %[[P:.+]] = memref.alloc() : memref<1x64xf32>
// CHECK: %[[C:.+]] = memref.get_global @[[COUNT]] : memref<1xi32>
// CHECK: call @split_p0_gpu0_k0_generic(%{{.+}}, %[[P]], %{{.+}}, %[[C]]) {tandem.launch_dims = array<i64: 64, 1, 1, 256, 1, 1>}
// CHECK: call @split_p0_gpu0_k1_generic(
// CHECK: call @split_p0_gpu0_k2_generic(
// CHECK: func.func private @split_p0_gpu0_k0_generic(%{{.+}}: memref<1x64x1024xf32>, %{{.+}}: memref<1x64xf32>, %{{.+}}: memref<1xf32>, %{{.+}}: memref<1xi32>) attributes {tandem.kernel, tandem.split_arrivals}
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}tandem.split_combine
// CHECK-NEXT: ^bb
// CHECK-NOT: tandem.split_arrivals
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#part = affine_map<(d0, d1, d2) -> (d0, d1)>
#all = affine_map<(d0, d1) -> (d0, d1)>
#first = affine_map<(d0, d1) -> (d0)>
func.func private @split_p0_gpu0(%x: memref<1x64x1024xf32>, %y: memref<1xf32>, %x2: memref<128x4x16384xf32>, %y2: memref<128xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x64xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x64xf32>)
  linalg.generic {indexing_maps = [#in3, #part], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<1x64x1024xf32>) outs(%p : memref<1x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1xf32>)
  linalg.generic {indexing_maps = [#all, #first], iterator_types = ["parallel", "reduction"]}
      ins(%p : memref<1x64xf32>) outs(%y : memref<1xf32>) attrs = {tandem.split_combine} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  memref.dealloc %p : memref<1x64xf32>
  %p2 = memref.alloc() : memref<128x4xf32>
  linalg.fill ins(%zero : f32) outs(%p2 : memref<128x4xf32>)
  linalg.generic {indexing_maps = [#in3, #part], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2 : memref<128x4x16384xf32>) outs(%p2 : memref<128x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%y2 : memref<128xf32>)
  linalg.generic {indexing_maps = [#all, #first], iterator_types = ["parallel", "reduction"]}
      ins(%p2 : memref<128x4xf32>) outs(%y2 : memref<128xf32>) attrs = {tandem.split_combine} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  memref.dealloc %p2 : memref<128x4xf32>
  return
}

// -----

// A padded input whose source is a channel slice of an argument (a strided
// view): the fill, the copy and the output's zero fill are the depthwise
// conv's prologue, one kernel that takes the whole argument and recreates
// the slice inside.
// CHECK-LABEL: func.func private @dwslice_p0_gpu0
// CHECK: call @dwslice_p0_gpu0_k0_depthwise_conv_2d_nchw_chw(%arg0, %arg1, %arg2) {tandem.launch_dims = array<i64: 1, 1, 1, 64, 1, 1>}
// CHECK-NOT: call
// CHECK: func.func private @dwslice_p0_gpu0_k0_depthwise_conv_2d_nchw_chw(%[[X:.+]]: memref<1x4x5x5xf32>,
// CHECK: memref.subview %[[X]][0, 2, 0, 0] [1, 2, 5, 5] [1, 1, 1, 1]
// CHECK: memref.copy
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func private @dwslice_p0_gpu0(%x: memref<1x4x5x5xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x5x5xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %src = memref.subview %x[0, 2, 0, 0] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x4x5x5xf32> to memref<1x2x5x5xf32, strided<[100, 25, 5, 1], offset: 50>>
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x2x7x7xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %src, %interior : memref<1x2x5x5xf32, strided<[100, 25, 5, 1], offset: 50>> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x5x5xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x5x5xf32>)
  memref.dealloc %p : memref<1x2x7x7xf32>
  return
}
