// RUN: tandem-opt %s -tandem-flatten-weight-globals -split-input-file | FileCheck %s

// A resource-backed weight keeps its blob and becomes a flat byte array; the
// alignment is raised to 64 bytes; its uses are untouched.
// CHECK-LABEL: llvm.mlir.global private constant @w(dense_resource<w> : tensor<24xi8>)
// CHECK-SAME: alignment = 64 : i64
// CHECK-SAME: !llvm.array<24 x i8>
// CHECK: llvm.func @use
// CHECK: llvm.mlir.addressof @w : !llvm.ptr
// CHECK: llvm.getelementptr %{{.*}}[0, 1, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x array<3 x f32>>
llvm.mlir.global private constant @w(dense_resource<w> : tensor<2x3xf32>) {addr_space = 0 : i32, alignment = 16 : i64} : !llvm.array<2 x array<3 x f32>>
llvm.func @use() -> f32 {
  %0 = llvm.mlir.addressof @w : !llvm.ptr
  %1 = llvm.getelementptr %0[0, 1, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x array<3 x f32>>
  %2 = llvm.load %1 : !llvm.ptr -> f32
  llvm.return %2 : f32
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000080BF0000803F000000400000404000008040000000C0"
    }
  }
#-}

// -----

// An inline dense value is reinterpreted as its little-endian bytes
// (1.0 = 0x3F800000, 2.0 = 0x40000000).
// CHECK: llvm.mlir.global private constant @d(dense<[0, 0, -128, 63, 0, 0, 0, 64]> : tensor<8xi8>)
// CHECK-SAME: alignment = 64 : i64
// CHECK-SAME: !llvm.array<8 x i8>
llvm.mlir.global private constant @d(dense<[[1.0], [2.0]]> : tensor<2x1xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<1 x f32>>

// -----

// Left alone: splats (LLVM emits them compactly), booleans (bit-packed in
// MLIR), mutable globals and byte arrays already flat.
// CHECK: llvm.mlir.global private constant @splat(dense<1.000000e+00> : tensor<4x4xf32>) {{.*}} : !llvm.array<4 x array<4 x f32>>
// CHECK: llvm.mlir.global private constant @bools(dense<[true, false]> : tensor<2xi1>) {{.*}} : !llvm.array<2 x i1>
// CHECK: llvm.mlir.global private @mutable(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>) {{.*}} : !llvm.array<2 x f32>
// CHECK: llvm.mlir.global private constant @bytes(dense<[1, 2]> : tensor<2xi8>) {{.*}} : !llvm.array<2 x i8>
llvm.mlir.global private constant @splat(dense<1.0> : tensor<4x4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x array<4 x f32>>
llvm.mlir.global private constant @bools(dense<[true, false]> : tensor<2xi1>) {addr_space = 0 : i32} : !llvm.array<2 x i1>
llvm.mlir.global private @mutable(dense<[1.0, 2.0]> : tensor<2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x f32>
llvm.mlir.global private constant @bytes(dense<[1, 2]> : tensor<2xi8>) {addr_space = 0 : i32} : !llvm.array<2 x i8>
