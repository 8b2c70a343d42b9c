// RUN: tandem-opt -tandem-fuse-elementwise -split-input-file %s | FileCheck %s

// Swin's window reverse before its cyclic shift, in a GPU partition: a
// transpose, a collapse of its result, and a concat of two slices of that
// (a gather: each element reads the part holding it). The transpose's
// element is computed where the concat reads it (the collapsed index split
// back, the slice's offset added, the transpose's map applied), so the
// transpose is no kernel of its own.
// CHECK-DAG: #[[MOD:.+]] = affine_map<()[s0] -> (s0 mod 4)>
// CHECK-DAG: #[[DIV:.+]] = affine_map<()[s0] -> (s0 floordiv 4)>
// CHECK-LABEL: func.func @roll_p0_gpu0
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0
// CHECK: %[[J:.+]] = linalg.index 1
// CHECK: scf.if
// CHECK: %[[R:.+]] = arith.addi %[[I]], %c5
// CHECK: %[[A:.+]] = affine.apply #[[DIV]]()[%[[R]]]
// CHECK: %[[B:.+]] = affine.apply #[[MOD]]()[%[[R]]]
// CHECK: tensor.extract %arg0[%[[J]], %[[A]], %[[B]]]
// CHECK: } else {
// CHECK: %[[K:.+]] = arith.subi %[[I]], %c7
// CHECK: %[[A2:.+]] = affine.apply #[[DIV]]()[%[[K]]]
// CHECK: %[[B2:.+]] = affine.apply #[[MOD]]()[%[[K]]]
// CHECK: tensor.extract %arg0[%[[J]], %[[A2]], %[[B2]]]
// CHECK-NOT: linalg.transpose
func.func @roll_p0_gpu0(%x: tensor<2x3x4xf32>) -> tensor<12x2xf32>
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<3x4x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<3x4x2xf32> into tensor<12x2xf32>
  %tail = tensor.extract_slice %c[5, 0] [7, 2] [1, 1] : tensor<12x2xf32> to tensor<7x2xf32>
  %head = tensor.extract_slice %c[0, 0] [5, 2] [1, 1] : tensor<12x2xf32> to tensor<5x2xf32>
  %o = tensor.empty() : tensor<12x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%o : tensor<12x2xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %before = arith.cmpi ult, %i, %c7 : index
    %v = scf.if %before -> (f32) {
      %a = tensor.extract %tail[%i, %j] : tensor<7x2xf32>
      scf.yield %a : f32
    } else {
      %k = arith.subi %i, %c7 : index
      %b = tensor.extract %head[%k, %j] : tensor<5x2xf32>
      scf.yield %b : f32
    }
    linalg.yield %v : f32
  } -> tensor<12x2xf32>
  return %r : tensor<12x2xf32>
}

// -----

// The same in a CPU partition, where concats are copies: nothing moves.
// CHECK-LABEL: func.func @roll_p0_cpu0
// CHECK: linalg.transpose
func.func @roll_p0_cpu0(%x: tensor<2x3x4xf32>) -> tensor<12x2xf32>
    attributes {tandem.device = #tandem.device<"/device:CPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<3x4x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<3x4x2xf32> into tensor<12x2xf32>
  %o = tensor.empty() : tensor<12x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%o : tensor<12x2xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = tensor.extract %c[%i, %j] : tensor<12x2xf32>
    linalg.yield %a : f32
  } -> tensor<12x2xf32>
  return %r : tensor<12x2xf32>
}

// -----

// A producer that something else also reads stays (computing it where
// gathered as well would compute it twice).
// CHECK-LABEL: func.func @shared_p0_gpu0
// CHECK: linalg.transpose
func.func @shared_p0_gpu0(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x2xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %k = arith.subi %c2, %i : index
    %a = tensor.extract %t[%k, %j] : tensor<3x2xf32>
    linalg.yield %a : f32
  } -> tensor<3x2xf32>
  return %r, %t : tensor<3x2xf32>, tensor<3x2xf32>
}
