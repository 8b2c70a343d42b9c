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
