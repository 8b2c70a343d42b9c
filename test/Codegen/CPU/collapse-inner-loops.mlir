// RUN: tandem-opt -tandem-collapse-inner-loops -split-input-file %s | FileCheck %s

// A squeeze-excitation scale on 14x14 planes: the per-channel operand does
// not depend on (h, w), the others hold them contiguously, so the loops
// become (n, c, h*w) over collapsed views.
// CHECK-LABEL: func.func @scale_planes
// CHECK-DAG: %[[X:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : memref<1x96x14x14xf32> into memref<1x96x196xf32>
// CHECK-DAG: %[[Y:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : memref<1x96x14x14xf32> into memref<1x96x196xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %{{.+}} : memref<1x96x196xf32>, memref<1x96xf32>) outs(%[[Y]] : memref<1x96x196xf32>)
func.func @scale_planes(%x: memref<1x96x14x14xf32>, %s: memref<1x96xf32>, %y: memref<1x96x14x14xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x, %s : memref<1x96x14x14xf32>, memref<1x96xf32>) outs(%y : memref<1x96x14x14xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Contiguous channels and planes (an activation on 7x7): everything after
// the first loop dim becomes one loop of 960 * 49.
// CHECK-LABEL: func.func @activation
// CHECK: memref.collapse_shape %{{.+}} {{\[}}[0], [1, 2, 3]] : memref<1x960x7x7xf32> into memref<1x47040xf32>
// CHECK: iterator_types = ["parallel", "parallel"]
func.func @activation(%x: memref<1x960x7x7xf32>, %y: memref<1x960x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x : memref<1x960x7x7xf32>) outs(%y : memref<1x960x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %c : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Left alone: a strided view whose rows are not contiguous (only the dims
// above it may merge, here none), a long innermost loop (64 and more), a
// transposed operand (the trailing dims are not in order in it), and a
// reduction over one dim (nothing to merge).
// CHECK-LABEL: func.func @not_collapsed
// CHECK-NOT: memref.collapse_shape
// CHECK-COUNT-4: iterator_types = ["parallel", "parallel", "parallel"
// CHECK-NOT: memref.collapse_shape
// CHECK: return
func.func @not_collapsed(%x: memref<2x8x16x16xf32>, %y: memref<2x8x14x14xf32>, %l: memref<2x8x4x64xf32>, %t: memref<2x8x14x14xf32>, %r: memref<2x8x14xf32>) {
  %v = memref.subview %x[0, 0, 1, 1] [2, 8, 14, 14] [1, 1, 1, 1] : memref<2x8x16x16xf32> to memref<2x8x14x14xf32, strided<[2048, 256, 16, 1], offset: 17>>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%v : memref<2x8x14x14xf32, strided<[2048, 256, 16, 1], offset: 17>>) outs(%y : memref<2x8x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    outs(%l : memref<2x8x4x64xf32>) {
  ^bb0(%o: f32):
    %c = arith.constant 1.0 : f32
    linalg.yield %c : f32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, w, h)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%t : memref<2x8x14x14xf32>) outs(%y : memref<2x8x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%y : memref<2x8x14x14xf32>) outs(%r : memref<2x8x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A squeeze-excitation scale kept as [N, C, 1, 1] and read at (n, c, 0, 0)
// (as ONNX Mul broadcasting lowers): its unit dims go first (a view of
// 1x96), then the planes merge.
// CHECK-LABEL: func.func @scale_with_unit_dims
// CHECK-DAG: memref.collapse_shape %{{.+}} {{\[}}[0], [1, 2, 3]] : memref<1x96x1x1xf32> into memref<1x96xf32>
// CHECK-DAG: memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : memref<1x96x7x7xf32> into memref<1x96x49xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: memref<1x96xf32>, memref<1x96x49xf32>
func.func @scale_with_unit_dims(%s: memref<1x96x1x1xf32>, %x: memref<1x96x7x7xf32>, %y: memref<1x96x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, 0, 0)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%s, %x : memref<1x96x1x1xf32>, memref<1x96x7x7xf32>) outs(%y : memref<1x96x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A squeeze-excitation pool: the sum over a 28x28 plane becomes one
// reduction loop over 784 contiguous floats; the parallel dims stay.
// CHECK-LABEL: func.func @pool_planes
// CHECK: %[[X:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2], [3], [4, 5]] : memref<1x72x1x1x28x28xf32> into memref<1x72x1x1x784xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : memref<1x72x1x1x784xf32>) outs(%{{.+}} : memref<1x72x1x1xf32>)
func.func @pool_planes(%x: memref<1x72x1x1x28x28xf32>, %y: memref<1x72x1x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
    ins(%x : memref<1x72x1x1x28x28xf32>) outs(%y : memref<1x72x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: reductions that are not the trailing dims (a sum over h with
// w kept), and reductions over a strided view whose rows are not contiguous.
// CHECK-LABEL: func.func @reductions_not_collapsed
// CHECK-NOT: memref.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK-NOT: memref.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT: memref.collapse_shape
// CHECK: return
func.func @reductions_not_collapsed(%x: memref<2x8x14x14xf32>, %y: memref<2x8x14xf32>, %z: memref<2x8x16x16xf32>, %r: memref<2x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, w)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
    ins(%x : memref<2x8x14x14xf32>) outs(%y : memref<2x8x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  %v = memref.subview %z[0, 0, 1, 1] [2, 8, 14, 14] [1, 1, 1, 1] : memref<2x8x16x16xf32> to memref<2x8x14x14xf32, strided<[2048, 256, 16, 1], offset: 17>>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%v : memref<2x8x14x14xf32, strided<[2048, 256, 16, 1], offset: 17>>) outs(%r : memref<2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}
