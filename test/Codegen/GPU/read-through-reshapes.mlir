// RUN: tandem-opt -tandem-fuse-elementwise -split-input-file %s | FileCheck %s

// MaxViT's hop from its window partition to its grid partition, in a GPU
// partition, with 6 x 6 pixels, 3 x 3 windows and 4 channels: the windows
// (1 x 2 x 2 x 3 x 3 x 4, channels last) go back to NCHW through a
// transpose, each 6 splits back as 3 x 2 (a collapse, then an expand of
// other sizes), and a second transpose makes the grid. The second reads
// the windows directly: the row 2a + k of the image is in window row
// (2a + k) floordiv 3 at (2a + k) mod 3. The first transpose and the
// reshapes are gone.
// CHECK-DAG: #[[GRID:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, (d1 * 2 + d3) floordiv 3, (d2 * 2 + d4) floordiv 3, (d1 * 2 + d3) mod 3, (d2 * 2 + d4) mod 3, d5)>
// CHECK-LABEL: func.func @window_to_grid_p0_gpu0
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[GRID]], #{{.+}}]{{.*}} ins(%arg0 : tensor<1x2x2x3x3x4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @window_to_grid_p0_gpu0(%w: tensor<1x2x2x3x3x4xf32>) -> tensor<1x3x3x2x2x4xf32>
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<1x4x2x3x2x3xf32>
  %nchw = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d4, d3, d5, d1)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<1x2x2x3x3x4xf32>) outs(%e : tensor<1x4x2x3x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x2x3x2x3xf32>
  %image = tensor.collapse_shape %nchw [[0], [1], [2, 3], [4, 5]] : tensor<1x4x2x3x2x3xf32> into tensor<1x4x6x6xf32>
  %split = tensor.expand_shape %image [[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 3, 2, 3, 2] : tensor<1x4x6x6xf32> into tensor<1x4x3x2x3x2xf32>
  %o = tensor.empty() : tensor<1x3x3x2x2x4xf32>
  %grid = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d1, d3, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<1x4x3x2x3x2xf32>) outs(%o : tensor<1x3x3x2x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x2x2x4xf32>
  return %grid : tensor<1x3x3x2x2x4xf32>
}

// -----

// The same hop when the windows' last op (a residual add) already wrote
// them in NCHW (the add fused with the first transpose): the grid's
// transpose reads the add's result through the reshapes, and then the add
// fuses into it. One generic remains, reading both addends at the grid's
// indices.
// CHECK-DAG: #[[FROM:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d5, (d1 * 2 + d3) floordiv 3, (d1 * 2 + d3) mod 3, (d2 * 2 + d4) floordiv 3, (d2 * 2 + d4) mod 3)>
// CHECK-LABEL: func.func @producer_to_grid_p0_gpu0
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {indexing_maps = [#[[FROM]], #[[FROM]], #{{.+}}]{{.*}} ins(%arg0, %arg1 : tensor<1x4x2x3x2x3xf32>, tensor<1x4x2x3x2x3xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @producer_to_grid_p0_gpu0(%a: tensor<1x4x2x3x2x3xf32>, %b: tensor<1x4x2x3x2x3xf32>) -> tensor<1x3x3x2x2x4xf32>
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<1x4x2x3x2x3xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x4x2x3x2x3xf32>, tensor<1x4x2x3x2x3xf32>) outs(%e : tensor<1x4x2x3x2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x4x2x3x2x3xf32>
  %image = tensor.collapse_shape %sum [[0], [1], [2, 3], [4, 5]] : tensor<1x4x2x3x2x3xf32> into tensor<1x4x6x6xf32>
  %split = tensor.expand_shape %image [[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 3, 2, 3, 2] : tensor<1x4x6x6xf32> into tensor<1x4x3x2x3x2xf32>
  %o = tensor.empty() : tensor<1x3x3x2x2x4xf32>
  %grid = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d1, d3, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<1x4x3x2x3x2xf32>) outs(%o : tensor<1x3x3x2x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x2x2x4xf32>
  return %grid : tensor<1x3x3x2x2x4xf32>
}

// -----

// As above, but the add's result is also returned, after the grid: the add
// (cheap to compute again) stays for the return and is computed again in
// the grid, which reads both addends at the grid's indices; no reshape is
// left.
// CHECK-LABEL: func.func @shared_producer_p0_gpu0
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x4x2x3x2x3xf32>, tensor<1x4x2x3x2x3xf32>) outs(%{{.+}} : tensor<1x4x2x3x2x3xf32>)
// CHECK: arith.addf
// CHECK: %[[GRID:.+]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x4x2x3x2x3xf32>, tensor<1x4x2x3x2x3xf32>) outs(%{{.+}} : tensor<1x3x3x2x2x4xf32>)
// CHECK: arith.addf
// CHECK: return %[[GRID]], %[[SUM]]
func.func @shared_producer_p0_gpu0(%a: tensor<1x4x2x3x2x3xf32>, %b: tensor<1x4x2x3x2x3xf32>) -> (tensor<1x3x3x2x2x4xf32>, tensor<1x4x2x3x2x3xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<1x4x2x3x2x3xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x4x2x3x2x3xf32>, tensor<1x4x2x3x2x3xf32>) outs(%e : tensor<1x4x2x3x2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x4x2x3x2x3xf32>
  %image = tensor.collapse_shape %sum [[0], [1], [2, 3], [4, 5]] : tensor<1x4x2x3x2x3xf32> into tensor<1x4x6x6xf32>
  %split = tensor.expand_shape %image [[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 3, 2, 3, 2] : tensor<1x4x6x6xf32> into tensor<1x4x3x2x3x2xf32>
  %o = tensor.empty() : tensor<1x3x3x2x2x4xf32>
  %grid = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d1, d3, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<1x4x3x2x3x2xf32>) outs(%o : tensor<1x3x3x2x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x2x2x4xf32>
  return %grid, %sum : tensor<1x3x3x2x2x4xf32>, tensor<1x4x2x3x2x3xf32>
}

// -----

// The transpose's second reader is a reduction (a LayerNorm's sum), which
// does not read through the composed maps (its loop bounds might no
// longer come from them). The grid reads the transpose's result through
// the reshapes and the transpose, cheap to compute again, fuses into it;
// left to the sum alone, upstream's reshape propagation fuses it there.
// Both read the windows; no transpose or reshape is left.
// CHECK-LABEL: func.func @reduction_reader_p0_gpu0
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1x2x2x3x3x4xf32>) outs(%{{.+}} : tensor<1x3x3x2x2x4xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%arg0 : tensor<1x2x2x3x3x4xf32>)
func.func @reduction_reader_p0_gpu0(%w: tensor<1x2x2x3x3x4xf32>) -> (tensor<1x3x3x2x2x4xf32>, tensor<1x4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<1x4x2x3x2x3xf32>
  %nchw = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d4, d3, d5, d1)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<1x2x2x3x3x4xf32>) outs(%e : tensor<1x4x2x3x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x2x3x2x3xf32>
  %image = tensor.collapse_shape %nchw [[0], [1], [2, 3], [4, 5]] : tensor<1x4x2x3x2x3xf32> into tensor<1x4x6x6xf32>
  %split = tensor.expand_shape %image [[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 3, 2, 3, 2] : tensor<1x4x6x6xf32> into tensor<1x4x3x2x3x2xf32>
  %o = tensor.empty() : tensor<1x3x3x2x2x4xf32>
  %grid = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d1, d3, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<1x4x3x2x3x2xf32>) outs(%o : tensor<1x3x3x2x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x2x2x4xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x4xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%image : tensor<1x4x6x6xf32>) outs(%s1 : tensor<1x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<1x4xf32>
  return %grid, %sum : tensor<1x3x3x2x2x4xf32>, tensor<1x4xf32>
}

// -----

// As above, but the sum reads the image split the grid's way (a collapse
// and an expand of other sizes), which upstream cannot see through either:
// the sum keeps its reshapes of the transpose, the grid reads the windows.
// CHECK-LABEL: func.func @split_reduction_reader_p0_gpu0
// CHECK: %[[T:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x2x2x3x3x4xf32>) outs(%{{.+}} : tensor<1x4x2x3x2x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1x2x2x3x3x4xf32>) outs(%{{.+}} : tensor<1x3x3x2x2x4xf32>)
// CHECK: tensor.collapse_shape %[[T]]
// CHECK: tensor.expand_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
func.func @split_reduction_reader_p0_gpu0(%w: tensor<1x2x2x3x3x4xf32>) -> (tensor<1x3x3x2x2x4xf32>, tensor<1x4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<1x4x2x3x2x3xf32>
  %nchw = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d4, d3, d5, d1)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<1x2x2x3x3x4xf32>) outs(%e : tensor<1x4x2x3x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x2x3x2x3xf32>
  %image = tensor.collapse_shape %nchw [[0], [1], [2, 3], [4, 5]] : tensor<1x4x2x3x2x3xf32> into tensor<1x4x6x6xf32>
  %split = tensor.expand_shape %image [[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 3, 2, 3, 2] : tensor<1x4x6x6xf32> into tensor<1x4x3x2x3x2xf32>
  %o = tensor.empty() : tensor<1x3x3x2x2x4xf32>
  %grid = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d1, d3, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<1x4x3x2x3x2xf32>) outs(%o : tensor<1x3x3x2x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x2x2x4xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x4xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%split : tensor<1x4x3x2x3x2xf32>) outs(%s1 : tensor<1x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<1x4xf32>
  return %grid, %sum : tensor<1x3x3x2x2x4xf32>, tensor<1x4xf32>
}

// -----

// The same hop in a CPU partition: nothing changes.
// CHECK-LABEL: func.func @window_to_grid_p0_cpu0
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
func.func @window_to_grid_p0_cpu0(%w: tensor<1x2x2x3x3x4xf32>) -> tensor<1x3x3x2x2x4xf32>
    attributes {tandem.device = #tandem.device<"/device:CPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<1x4x2x3x2x3xf32>
  %nchw = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d4, d3, d5, d1)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<1x2x2x3x3x4xf32>) outs(%e : tensor<1x4x2x3x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x2x3x2x3xf32>
  %image = tensor.collapse_shape %nchw [[0], [1], [2, 3], [4, 5]] : tensor<1x4x2x3x2x3xf32> into tensor<1x4x6x6xf32>
  %split = tensor.expand_shape %image [[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 3, 2, 3, 2] : tensor<1x4x6x6xf32> into tensor<1x4x3x2x3x2xf32>
  %o = tensor.empty() : tensor<1x3x3x2x2x4xf32>
  %grid = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d1, d3, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<1x4x3x2x3x2xf32>) outs(%o : tensor<1x3x3x2x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x2x2x4xf32>
  return %grid : tensor<1x3x3x2x2x4xf32>
}
