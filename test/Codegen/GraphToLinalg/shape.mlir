// RUN: tandem-opt -tandem-lower-to-linalg -split-input-file %s | FileCheck %s

// constant becomes arith.constant and keeps its dense_resource blob.
// CHECK-LABEL: func.func @constant_resource
// CHECK: %[[C:.+]] = arith.constant dense_resource<weights> : tensor<4xf32>
// CHECK: return %[[C]]
// CHECK: weights: "0x04000000
func.func @constant_resource() -> tensor<4xf32> {
  %0 = tandem.constant dense_resource<weights> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// reshape: collapse, expand, or (neither) expand into the coarsest shape
// that refines both, then collapse: 4x2x12 -> 4x6x4 through 4x2x3x4 (a
// head split at batch 2, whose expand is a view of a strided slice). Where no
// such shape exists (2x3x4 -> 3x8) or with unit dimensions, collapse into
// the finest shape both refine, then expand: 2x3x4 -> 3x8 goes through 24
// (1-D); a head split of a slice at batch 1, 5x1x12 -> 5x3x4, through
// 5x12, which a strided view of the slice can be (through 1-D it would be
// a copy).
// CHECK-LABEL: func.func @reshape_refined
// CHECK: %[[R:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2, 3]] output_shape [4, 2, 3, 4] : tensor<4x2x12xf32> into tensor<4x2x3x4xf32>
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2], [3]] : tensor<4x2x3x4xf32> into tensor<4x6x4xf32>
func.func @reshape_refined(%a: tensor<4x2x12xf32>) -> tensor<4x6x4xf32> {
  %0 = tandem.reshape %a {shape = array<i64: 4, 6, 4>} : tensor<4x2x12xf32> -> tensor<4x6x4xf32>
  return %0 : tensor<4x6x4xf32>
}

// -----

// reshape: the other cases.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xf32>, %[[S:.+]]: tensor<5x1x12xf32>)
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[E:.+]] = tensor.expand_shape %[[A]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 2]
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[G:.+]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [3, 8]
// CHECK: %[[MID:.+]] = tensor.collapse_shape %[[S]] {{\[}}[0], [1, 2]] : tensor<5x1x12xf32> into tensor<5x12xf32>
// CHECK: %[[H:.+]] = tensor.expand_shape %[[MID]] {{\[}}[0], [1, 2]] output_shape [5, 3, 4]
// CHECK: %[[MID2:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[I:.+]] = tensor.expand_shape %[[MID2]] {{\[}}[0, 1], [2, 3]] output_shape [3, 2, 4, 1]
// CHECK: return %[[C]], %[[E]], %[[G]], %[[H]], %[[I]]
func.func @reshape(%a: tensor<2x3x4xf32>, %s: tensor<5x1x12xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<3x8xf32>, tensor<5x3x4xf32>, tensor<3x2x4x1xf32>) {
  %0 = tandem.reshape %a {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = tandem.reshape %a {shape = array<i64: 2, 3, 2, 2>} : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  %2 = tandem.reshape %a {shape = array<i64: 3, 8>} : tensor<2x3x4xf32> -> tensor<3x8xf32>
  %3 = tandem.reshape %s {shape = array<i64: 5, 3, 4>} : tensor<5x1x12xf32> -> tensor<5x3x4xf32>
  %4 = tandem.reshape %a {shape = array<i64: 3, 2, 4, 1>} : tensor<2x3x4xf32> -> tensor<3x2x4x1xf32>
  return %0, %1, %2, %3, %4 : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<3x8xf32>, tensor<5x3x4xf32>, tensor<3x2x4x1xf32>
}

// -----

// reshape to and from rank 0 uses an empty reassociation.
// CHECK-LABEL: func.func @reshape_scalar
// CHECK: %[[S:.+]] = tensor.collapse_shape %{{.+}} [] : tensor<1x1xi64> into tensor<i64>
// CHECK: tensor.expand_shape %[[S]] [] output_shape [1] : tensor<i64> into tensor<1xi64>
func.func @reshape_scalar(%a: tensor<1x1xi64>) -> tensor<1xi64> {
  %0 = tandem.reshape %a {shape = array<i64>} : tensor<1x1xi64> -> tensor<i64>
  %1 = tandem.reshape %0 {shape = array<i64: 1>} : tensor<i64> -> tensor<1xi64>
  return %1 : tensor<1xi64>
}

// -----

// transpose is linalg.transpose with the same permutation.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: linalg.transpose ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tandem.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// In a GPU partition a transpose is a generic reading its input through
// the permutation (output dimension d is input dimension perm[d]), so that
// it fuses with the elementwise ops around it.
// CHECK-DAG: #[[READ:.+]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-LABEL: func.func private @transpose_gpu
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[READ]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<4x2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
func.func private @transpose_gpu(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %0 = tandem.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// concat inserts each input at its running offset along the axis.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x5xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[A]] into %[[INIT]][0, 0] [2, 3] [1, 1]
// CHECK: %[[I1:.+]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 5] [1, 1]
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %0 = tandem.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// In a GPU partition a concat is one generic over the output, so one launch
// rather than a copy kernel per input: each element reads the input whose
// part of the axis holds it, found by a tree of scf.if on the axis index
// (here parts at 0, 3 and 5: below 3, else below 5), at its index less the
// part's offset. Empty inputs take no part.
// CHECK-LABEL: func.func private @concat_gpu
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x2xf32>, %[[E:.+]]: tensor<2x0xf32>, %[[C:.+]]: tensor<2x4xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<2x9xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[LT3:.+]] = arith.cmpi ult, %[[J]], %c3
// CHECK-NEXT: scf.if %[[LT3]] -> (f32) {
// CHECK-NEXT: %[[VA:.+]] = tensor.extract %[[A]][%[[I]], %[[J]]]
// CHECK-NEXT: scf.yield %[[VA]]
// CHECK-NEXT: } else {
// CHECK: %[[LT5:.+]] = arith.cmpi ult, %[[J]], %c5
// CHECK-NEXT: scf.if %[[LT5]] -> (f32) {
// CHECK: %[[JB:.+]] = arith.subi %[[J]], %c3
// CHECK-NEXT: tensor.extract %[[B]][%[[I]], %[[JB]]]
// CHECK: } else {
// CHECK: %[[JC:.+]] = arith.subi %[[J]], %c5
// CHECK-NEXT: tensor.extract %[[C]][%[[I]], %[[JC]]]
// CHECK-NOT: tensor.insert_slice
func.func private @concat_gpu(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>, %e: tensor<2x0xf32>, %c: tensor<2x4xf32>) -> tensor<2x9xf32> attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %0 = tandem.concat %a, %b, %e, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x0xf32>, tensor<2x4xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// slice with steps is a strided extract_slice.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>)
// CHECK: tensor.extract_slice %[[A]][0, 2] [4, 3] [1, 2] : tensor<4x8xf32> to tensor<4x3xf32>
func.func @slice(%a: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %0 = tandem.slice %a {starts = array<i64: 0, 2>, limits = array<i64: 4, 8>, steps = array<i64: 1, 2>} : tensor<4x8xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Constant padding is tensor.pad yielding the pad value.
// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[V:.+]] = arith.constant 1.500000e+00 : f32
// CHECK: tensor.pad %{{.+}} low[0, 1] high[2, 0]
// CHECK: tensor.yield %[[V]] : f32
// CHECK: } : tensor<3x4xf32> to tensor<5x5xf32>
func.func @pad_constant(%a: tensor<3x4xf32>) -> tensor<5x5xf32> {
  %0 = tandem.pad %a {pads_low = array<i64: 0, 1>, pads_high = array<i64: 2, 0>, value = 1.5 : f64} : tensor<3x4xf32> -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

// Reflect padding mirrors the index of padded dims: i < 0 -> -i, i > n-1 ->
// 2(n-1) - i; unpadded dims read their own index.
// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME: (%[[A:.+]]: tensor<5x6xf32>)
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<5x9xf32>)
// CHECK: %[[I0:.+]] = linalg.index 0 : index
// CHECK: %[[I1:.+]] = linalg.index 1 : index
// CHECK: %[[SHIFT:.+]] = arith.subi %[[I1]], %c1
// CHECK: arith.cmpi slt, %[[SHIFT]], %c0
// CHECK: %[[LAST:.+]] = arith.constant 10 : index
// CHECK: %[[MIRROR:.+]] = arith.select
// CHECK: tensor.extract %[[A]][%[[I0]], %[[MIRROR]]] : tensor<5x6xf32>
func.func @pad_reflect(%a: tensor<5x6xf32>) -> tensor<5x9xf32> {
  %0 = tandem.pad %a {pads_low = array<i64: 0, 1>, pads_high = array<i64: 0, 2>, mode = #tandem.pad_mode<reflect>} : tensor<5x6xf32> -> tensor<5x9xf32>
  return %0 : tensor<5x9xf32>
}

// -----

// Edge padding clamps the index into range.
// CHECK-LABEL: func.func @pad_edge
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[S:.+]] = arith.subi %[[I]], %c2
// CHECK: %[[LO:.+]] = arith.maxsi %[[S]], %c0
// CHECK: %[[HI:.+]] = arith.minsi %[[LO]], %c4
// CHECK: tensor.extract %{{.+}}[%[[HI]]] : tensor<5xi64>
func.func @pad_edge(%a: tensor<5xi64>) -> tensor<8xi64> {
  %0 = tandem.pad %a {pads_low = array<i64: 2>, pads_high = array<i64: 1>, mode = #tandem.pad_mode<edge>} : tensor<5xi64> -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

// gather first checks its run-time indices: one reduction finds an
// out-of-range one (any, which) and reports it with the node's name; then it
// reads the indices through the map of their dims, wraps negative ones,
// clamps them into the axis (so no read leaves the table) and extracts.
// CHECK-DAG: #[[ALL:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[IDX:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: llvm.mlir.global internal constant @__tandem_index_check_0("embed\00")
// CHECK-DAG: func.func private @tandem_report_index_error(!llvm.ptr, !llvm.ptr, i64, i64)
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[D:.+]]: tensor<6x5xf32>, %[[I:.+]]: tensor<2x3xi64>)
// CHECK: %[[CHECK:.+]]:2 = linalg.generic {indexing_maps = [#[[ALL]], #[[SCALAR]], #[[SCALAR]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME: ins(%[[I]] : tensor<2x3xi64>)
// CHECK: arith.cmpi slt, %{{.+}}, %c-6_i64
// CHECK: arith.cmpi sge, %{{.+}}, %c6_i64
// CHECK: %[[ANY:.+]] = tensor.extract %[[CHECK]]#0[] : tensor<i1>
// CHECK: %[[BAD:.+]] = tensor.extract %[[CHECK]]#1[] : tensor<i64>
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[NAME:.+]] = llvm.getelementptr %{{.+}}[0, 0]
// CHECK: func.call @tandem_report_index_error(%{{.+}}, %[[NAME]], %[[BAD]], %c6_i64)
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.+}}]
// CHECK-SAME: ins(%[[I]] : tensor<2x3xi64>)
// CHECK: ^bb0(%[[V:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[IX:.+]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[IX]], %c0
// CHECK: %[[WRAP:.+]] = arith.addi %[[IX]], %c6
// CHECK: %[[SEL:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[IX]]
// CHECK: %[[LO:.+]] = arith.maxsi %[[SEL]], %c0
// CHECK: %[[HI:.+]] = arith.minsi %[[LO]], %c5
// CHECK: %[[J:.+]] = linalg.index 2 : index
// CHECK: tensor.extract %[[D]][%[[HI]], %[[J]]] : tensor<6x5xf32>
func.func @gather(%d: tensor<6x5xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x5xf32> {
  %0 = tandem.gather %d, %i {axis = 0 : i64} : (tensor<6x5xf32>, tensor<2x3xi64>) -> tensor<2x3x5xf32> loc("embed")
  return %0 : tensor<2x3x5xf32>
}

// -----

// Constant indices in range need no run-time check.
// CHECK-LABEL: func.func @gather_constant
// CHECK-NOT: tandem_report_index_error
// CHECK: linalg.generic
// CHECK-NOT: scf.if
func.func @gather_constant(%d: tensor<6x5xf32>) -> tensor<2x5xf32> {
  %i = tandem.constant dense<[0, -6]> : tensor<2xi64>
  %0 = tandem.gather %d, %i {axis = 0 : i64} : (tensor<6x5xf32>, tensor<2xi64>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// gather_elements checks its run-time indices like gather, then reads, for
// each index, the element at the index's own position with the axis
// coordinate replaced by the wrapped and clamped index.
// CHECK-DAG: llvm.mlir.global internal constant @__tandem_index_check_0("pick\00")
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[D:.+]]: tensor<3x4xf32>, %[[I:.+]]: tensor<3x2xi64>)
// CHECK: arith.cmpi slt, %{{.+}}, %c-4_i64
// CHECK: arith.cmpi sge, %{{.+}}, %c4_i64
// CHECK: scf.if
// CHECK: func.call @tandem_report_index_error(%{{.+}}, %{{.+}}, %{{.+}}, %c4_i64)
// CHECK: linalg.generic {{.+}} ins(%[[I]] : tensor<3x2xi64>)
// CHECK: ^bb0(%[[V:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[ROW:.+]] = linalg.index 0 : index
// CHECK: %[[IX:.+]] = arith.index_cast %[[V]] : i64 to index
// CHECK: arith.maxsi
// CHECK: %[[COL:.+]] = arith.minsi %{{.+}}, %c3 : index
// CHECK: tensor.extract %[[D]][%[[ROW]], %[[COL]]] : tensor<3x4xf32>
func.func @gather_elements(%d: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = tandem.gather_elements %d, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32> loc("pick")
  return %0 : tensor<3x2xf32>
}

// -----

// gather_nd checks each index against its own data dim (the bound is a
// select over the index's position in the tuple, reported with the bad
// index), then a generic with no tensor operand reads each point's index
// tuple, wraps and clamps each index into its dim, and extracts.
// CHECK-DAG: llvm.mlir.global internal constant @__tandem_index_check_0("gnd\00")
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: (%[[D:.+]]: tensor<3x4x5xf32>, %[[I:.+]]: tensor<2x2xi64>)
// CHECK: %[[CHECK:.+]]:3 = linalg.generic {{.+}} ins(%[[I]] : tensor<2x2xi64>)
// CHECK: %[[COL:.+]] = linalg.index 1 : index
// CHECK: %[[IS1:.+]] = arith.cmpi eq, %[[COL]], %c1
// CHECK: %[[SIZE:.+]] = arith.select %[[IS1]], %c4_i64, %c3_i64
// CHECK: arith.cmpi sge, %{{.+}}, %[[SIZE]]
// CHECK: scf.if
// CHECK: func.call @tandem_report_index_error(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
// CHECK: linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(
// CHECK: %[[ROW:.+]] = linalg.index 0 : index
// CHECK: tensor.extract %[[I]][%[[ROW]], %c0{{.*}}] : tensor<2x2xi64>
// CHECK: %[[A:.+]] = arith.minsi %{{.+}}, %c2 : index
// CHECK: tensor.extract %[[I]][%[[ROW]], %c1{{.*}}] : tensor<2x2xi64>
// CHECK: %[[B:.+]] = arith.minsi %{{.+}}, %c3{{.*}} : index
// CHECK: %[[REST:.+]] = linalg.index 1 : index
// CHECK: tensor.extract %[[D]][%[[A]], %[[B]], %[[REST]]] : tensor<3x4x5xf32>
func.func @gather_nd(%d: tensor<3x4x5xf32>, %i: tensor<2x2xi64>) -> tensor<2x5xf32> {
  %0 = tandem.gather_nd %d, %i : (tensor<3x4x5xf32>, tensor<2x2xi64>) -> tensor<2x5xf32> loc("gnd")
  return %0 : tensor<2x5xf32>
}

// -----

// With batch_dims, the batch coordinates pass through to the data.
// CHECK-LABEL: func.func @gather_nd_batch
// CHECK-SAME: (%[[D:.+]]: tensor<2x5x4xf32>, %[[I:.+]]: tensor<2x3x1xi64>)
// CHECK: %[[B:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: tensor.extract %[[I]][%[[B]], %[[J]], %c0{{.*}}] : tensor<2x3x1xi64>
// CHECK: %[[K:.+]] = arith.minsi %{{.+}}, %c4 : index
// CHECK: %[[L:.+]] = linalg.index 2 : index
// CHECK: tensor.extract %[[D]][%[[B]], %[[K]], %[[L]]] : tensor<2x5x4xf32>
func.func @gather_nd_batch(%d: tensor<2x5x4xf32>, %i: tensor<2x3x1xi64>) -> tensor<2x3x4xf32> {
  %0 = tandem.gather_nd %d, %i {batch_dims = 1 : i64} : (tensor<2x5x4xf32>, tensor<2x3x1xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// broadcast_to is a copying generic with a broadcast map.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @broadcast_to
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.+}}]
// CHECK: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @broadcast_to(%a: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = tandem.broadcast_to %a {shape = array<i64: 2, 3, 4>} : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
