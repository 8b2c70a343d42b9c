// RUN: tandem-opt -tandem-split-reductions -split-input-file %s | FileCheck %s

// A sum of 65536 elements to one point (a GroupNorm of one group's mean)
// in a GPU partition: 64 partial sums of 1024 elements each (the most
// slices of at least 1024 points; 128 would be the target), read through
// an expansion of the reduced dimension, then their sum into the output
// from its initial value. The output's fill is computed again right before
// the combination, whose kernel absorbs it.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[PARTIAL:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[PARTIALS:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @mean_p0_gpu0
// CHECK: %[[X:.+]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [1, 64, 1024]
// CHECK: %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x64xf32>)
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[PARTIAL]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<1x64x1024xf32>) outs(%[[ZEROS]] : tensor<1x64xf32>)
// CHECK: arith.addf
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[C:.+]] : f32) outs(%{{.+}} : tensor<1xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[PARTIALS]], #[[OUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<1x64xf32>) outs(%[[INIT]] : tensor<1xf32>) attrs = {tandem.split_combine}
// CHECK-NEXT: ^bb0(%[[IN0:.+]]: f32, %[[OUT0:.+]]: f32):
// CHECK-NEXT: arith.addf %[[IN0]], %[[OUT0]]
// CHECK: return %[[SUM]]
func.func @mean_p0_gpu0(%x: tensor<1x65536xf32>) -> tensor<1xf32>
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1x65536xf32>) outs(%init : tensor<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %sum : tensor<1xf32>
}

// -----

// A max over channels and pixels (16 x 64 x 64) and a sum of squared
// deviations from a mean read per point: the channels become parallel and
// the rows split into 4 slices of 16 (64 partials of 1024 points each),
// the partials start from the max's identity (-inf), and the mean is read
// as before.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[PARTIAL:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-DAG: #[[MEAN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0)>
// CHECK-DAG: #[[PARTIALS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @max_and_variance_p0_gpu0
// CHECK: %[[X:.+]] = tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3], [4]] output_shape [1, 16, 4, 16, 64]
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[LOWEST:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<1x16x4xf32>)
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[PARTIAL]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<1x16x4x16x64xf32>) outs(%[[LOWEST]] : tensor<1x16x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[PARTIALS]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[P]] : tensor<1x16x4xf32>) {{.*}} attrs = {tandem.split_combine}
// CHECK: arith.maximumf
// CHECK: %[[X2:.+]] = tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3], [4]] output_shape [1, 16, 4, 16, 64]
// CHECK: %[[P2:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[MEAN]], #[[PARTIAL]]], {{.*}} ins(%[[X2]], %arg1 : tensor<1x16x4x16x64xf32>, tensor<1xf32>) outs(%{{.+}} : tensor<1x16x4xf32>)
// CHECK: arith.subf
// CHECK: %[[VAR:.+]] = linalg.generic {{.*}} ins(%[[P2]] : tensor<1x16x4xf32>) {{.*}} attrs = {tandem.split_combine}
// CHECK: return %[[MAX]], %[[VAR]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#first = affine_map<(d0, d1, d2, d3) -> (d0)>
func.func @max_and_variance_p0_gpu0(%y: tensor<1x16x64x64xf32>, %mean: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<1xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = linalg.fill ins(%ninf : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %max = linalg.generic {indexing_maps = [#id4, #first], iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%y : tensor<1x16x64x64xf32>) outs(%lowest : tensor<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<1xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %var = linalg.generic {indexing_maps = [#id4, #first, #first], iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%y, %mean : tensor<1x16x64x64xf32>, tensor<1xf32>) outs(%init : tensor<1xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %q = arith.mulf %d, %d : f32
    %s = arith.addf %q, %out : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %max, %var : tensor<1xf32>, tensor<1xf32>
}

// -----

// Left alone: 64 points (enough blocks already), 32768 points per sum (too
// short to pay for another launch), and a CPU partition.
// CHECK-LABEL: func.func @many_points_p0_gpu0
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tandem.split_combine
// CHECK-LABEL: func.func @short_p0_gpu0
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tandem.split_combine
// CHECK-LABEL: func.func @host_p0_cpu0
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tandem.split_combine
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @many_points_p0_gpu0(%x: tensor<64x65536xf32>, %init: tensor<64xf32>) -> tensor<64xf32>
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x65536xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}
func.func @short_p0_gpu0(%x: tensor<1x32768xf32>, %init: tensor<1xf32>) -> tensor<1xf32>
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1x32768xf32>) outs(%init : tensor<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %sum : tensor<1xf32>
}
func.func @host_p0_cpu0(%x: tensor<1x65536xf32>, %init: tensor<1xf32>) -> tensor<1xf32>
    attributes {tandem.device = #tandem.device<"/device:CPU:0">, tandem.partition} {
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1x65536xf32>) outs(%init : tensor<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %sum : tensor<1xf32>
}
