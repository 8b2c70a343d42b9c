// RUN: tandem-opt -tandem-map-kernels-to-gpu -split-input-file %s | FileCheck %s

// A short row reduction (48 points, below kMinBlockReduction): one thread per
// row (300 rows: two blocks of 256, the guard drops the ragged rest), the
// reduction loop serial in the thread with
// the output carried in a register, loaded and stored once. The kernel
// function itself stays (it is the CPU twin's source).
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func private @rowsum(%{{.+}}: memref<300x48xf32>, %{{.+}}: memref<300xf32>) attributes {tandem.kernel}
// CHECK: gpu.module @tandem_kernels
// CHECK: gpu.func @rowsum(%[[A:.+]]: memref<300x48xf32>, %[[S:.+]]: memref<300xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK-DAG: %[[BID:.+]] = gpu.block_id x
// CHECK-DAG: %[[TID:.+]] = gpu.thread_id x
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: %[[BASE:.+]] = arith.muli %[[BID]], %[[C256]] : index
// CHECK: %[[ID:.+]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK: %[[C300:.+]] = arith.constant 300 : index
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[ID]], %[[C300]] : index
// CHECK: scf.if %[[IN]] {
// CHECK: %[[ROW:.+]] = arith.remui %[[ID]], %{{.+}} : index
// CHECK: %[[INIT:.+]] = memref.load %[[S]][%[[ROW]]] : memref<300xf32>
// CHECK: %[[SUM:.+]] = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %[[A]][%[[ROW]], %[[K]]] : memref<300x48xf32>
// CHECK: %[[NEW:.+]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK: scf.yield %[[NEW]] : f32
// CHECK: memref.store %[[SUM]], %[[S]][%[[ROW]]] : memref<300xf32>
// CHECK: gpu.return
func.func private @rowsum(%a: memref<300x48xf32>, %s: memref<300xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<300x48xf32>) outs(%s : memref<300xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A long row reduction with few rows: one block per row. The block's 256
// threads stride over the 1000 points from the identity (-inf for max),
// combine across each warp with xor shuffles (16, 8, 4, 2, 1), meet in shared
// memory (one slot per warp), and warp 0 combines the 8 warp totals; lane 0
// of it combines the total with the row's initial value and stores it.
// CHECK-LABEL: gpu.func @rowmax
// CHECK-SAME: workgroup(%[[SMEM:.+]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[BID:.+]] = gpu.block_id x
// CHECK: %[[ROW:.+]] = arith.remui %[[BID]], %{{.+}} : index
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PART:.+]] = scf.for %{{.+}} = %[[TID]] to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[NEGINF]]) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %{{.+}}[%[[ROW]], %{{.+}}] : memref<7x1000xf32>
// CHECK: arith.maximumf %[[V]], %[[ACC]] : f32
// CHECK: gpu.shuffle  xor %[[PART]], %{{.+}}, %{{.+}} : f32
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %[[SMEM]][%{{.+}}] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.load %[[SMEM]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: %[[INIT:.+]] = memref.load %{{.+}}[%[[ROW]]] : memref<7xf32>
// CHECK: %[[OUT:.+]] = arith.maximumf %{{.+}}, %[[INIT]] : f32
// CHECK: memref.store %[[OUT]], %{{.+}}[%[[ROW]]] : memref<7xf32>
func.func private @rowmax(%a: memref<7x1000xf32>, %s: memref<7xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<7x1000xf32>) outs(%s : memref<7xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Not a block reduction, even if long: the combined value reads the
// output (a running mean), so partial results cannot be reordered.
// CHECK-LABEL: gpu.func @running
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func private @running(%a: memref<7x1000xf32>, %s: memref<7xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<7x1000xf32>) outs(%s : memref<7xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %h = arith.mulf %acc, %in : f32
    %r = arith.addf %h, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A matmul: thread per output element, delinearised row-major; a view
// inside the kernel is cloned into the gpu.func; 10 elements get one warp.
// CHECK-LABEL: gpu.func @mm
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK: %[[X:.+]] = memref.collapse_shape
// CHECK: scf.if
// CHECK: %[[J:.+]] = arith.remui %[[ID:.+]], %[[C5:.+]] : index
// CHECK: %[[R:.+]] = arith.divui %[[ID]], %[[C5]] : index
// CHECK: %[[I:.+]] = arith.remui %[[R]], %{{.+}} : index
// CHECK: scf.for %[[K:.+]] = {{.+}} iter_args
// CHECK: memref.load %[[X]][%[[I]], %[[K]]]
// CHECK: arith.mulf
// CHECK: arith.addf
func.func private @mm(%a: memref<2x1x3xf32>, %b: memref<3x5xf32>, %c: memref<2x5xf32>) attributes {tandem.kernel} {
  %x = memref.collapse_shape %a [[0, 1], [2]] : memref<2x1x3xf32> into memref<2x3xf32>
  linalg.matmul ins(%x, %b : memref<2x3xf32>, memref<3x5xf32>) outs(%c : memref<2x5xf32>)
  return
}

// -----

// An output the parallel loops do not partition (it omits a parallel loop,
// so threads would race on it): one thread runs every loop, loading and
// storing at each point, in order.
// CHECK-LABEL: gpu.func @serial
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK: arith.cmpi ult, %{{.+}}, %[[ONE]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.store
func.func private @serial(%a: memref<4x4xf32>, %d: memref<4xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%d : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A fused ReLU6 epilogue (tandem-fuse-elementwise folded the clip into the
// matmul): applied to the accumulated value, once, right before its store.
// CHECK-LABEL: gpu.func @mm_relu6
// CHECK: %[[SUM:.+]] = scf.for
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[LO:.+]] = arith.maximumf %[[SUM]], %[[ZERO]] : f32
// CHECK: %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[HI:.+]] = arith.minimumf %[[LO]], %[[SIX]] : f32
// CHECK: memref.store %[[HI]]
func.func private @mm_relu6(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) attributes {tandem.kernel} {
  linalg.matmul {tandem.epilogue = "relu6"} ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

// A kernel with a prologue (tandem-outline-kernels put the padding and the
// broadcast bias of Conv + BiasAdd + ReLU into the conv's kernel): the
// gpu.func maps only the convolution. Each thread starts from the bias at
// its channel instead of loading the output, reads the unpadded input at
// (row - 1, col - 1) when both are in bounds (one unsigned compare each) or
// the pad value otherwise, and stores once after the ReLU. The padded
// buffer, its fill, its copy and the bias kernel are gone.
// CHECK-LABEL: gpu.func @conv_bias_relu
// CHECK-SAME: (%[[X:.+]]: memref<1x2x5x5xf32>, %[[B:.+]]: memref<3xf32>, %[[W:.+]]: memref<3x2x3x3xf32>, %[[Y:.+]]: memref<1x3x5x5xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.
// CHECK: %[[INIT:.+]] = memref.load %[[B]][%{{.+}}] : memref<3xf32>
// CHECK: scf.for {{.+}} iter_args(%{{.+}} = %[[INIT]])
// CHECK: %[[R:.+]] = arith.subi %{{.+}}, %c1{{.*}} : index
// CHECK: %[[RIN:.+]] = arith.cmpi ult, %[[R]], %c5{{.*}} : index
// CHECK: %[[C:.+]] = arith.subi %{{.+}}, %c1{{.*}} : index
// CHECK: %[[CIN:.+]] = arith.cmpi ult, %[[C]], %c5{{.*}} : index
// CHECK: %[[IN:.+]] = arith.andi %[[RIN]], %[[CIN]] : i1
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: %[[V:.+]] = memref.load %[[X]][%{{.+}}, %{{.+}}, %[[R]], %[[C]]] : memref<1x2x5x5xf32>
// CHECK-NEXT: scf.yield %[[V]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %cst : f32
// CHECK: memref.load %[[W]]
// CHECK: arith.maximumf
// CHECK-NEXT: memref.store {{.+}}, %[[Y]]
// CHECK-NOT: memref.store
// CHECK: gpu.return
func.func private @conv_bias_relu(%x: memref<1x2x5x5xf32>, %b: memref<3xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x5x5xf32>) attributes {tandem.kernel} {
  %cst = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %cst : f32
  }
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<3xf32>) outs(%y : memref<1x3x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tandem.epilogue = "relu"}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x5x5xf32>)
  memref.dealloc %p : memref<1x2x7x7xf32>
  return
}


// -----

// A row kernel (a softmax over 6 rows of 100): one block per row, 128
// threads. Its row-local buffers (the maximum, the exponentials, the sum)
// are one row each in shared memory, the maximum and the sum in one slot
// (the maximum's last stage, the exponentials, comes before the sum's
// first: rowLocalSlots), after them the two block reductions' warp slots.
// The stages run in order: the max reduction (thread 0 stores the row's
// maximum in shared memory), a barrier, the exponentials (each thread
// strides over the row, reading the maximum), a barrier, the sum, a
// barrier, the division into the output in global memory.
// CHECK-LABEL: gpu.func @softmax_rows
// CHECK-SAME: workgroup(%[[MAX:.+]] : memref<1xf32, #gpu.address_space<workgroup>>, %[[E:.+]] : memref<100xf32, #gpu.address_space<workgroup>>, %{{.+}} : memref<4xf32, #gpu.address_space<workgroup>>, %{{.+}} : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.+}}, %[[MAX]][%{{.+}}]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: scf.for %[[I:.+]] = %[[TID]] to %{{.+}} step %{{.+}} {
// CHECK: memref.load %[[MAX]]
// CHECK: math.exp
// CHECK: memref.store %{{.+}}, %[[E]][%{{.+}}]
// CHECK: gpu.barrier
// CHECK: memref.load %[[E]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.+}}, %[[MAX]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[E]]
// CHECK: memref.load %[[MAX]]
// CHECK: arith.divf
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<6x100xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func private @softmax_rows(%x: memref<6x100xf32>, %y: memref<6x100xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 6>} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : memref<6xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<6xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<6x100xf32>) outs(%max : memref<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<6x100xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<6x100xf32>, memref<6xf32>) outs(%e : memref<6x100xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<6xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<6xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<6x100xf32>) outs(%sum : memref<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : memref<6x100xf32>, memref<6xf32>) outs(%y : memref<6x100xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A tiled contraction (KernelPlan::tiled): a 100x70 matmul (K = 40) is
// 2 x 2 blocks of 64x64 outputs on a 1-D grid, 256 threads each with a 4x4
// micro-tile: 16 accumulators start from the output (0 outside it), the
// K steps of 16 stage a 16x64 tile of A and of B in shared memory (4 loads
// of each per thread, zero past the edges), a barrier, 16 rank-1 updates of
// the micro-tile from shared memory, a barrier; then 16 guarded stores.
// CHECK-LABEL: gpu.func @tiled_mm
// CHECK-SAME: workgroup(%[[AT:.+]] : memref<1024xf32, #gpu.address_space<workgroup>>, %[[BT:.+]] : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: gpu.block_id x
// CHECK: gpu.thread_id x
// CHECK-COUNT-16: scf.if %{{.+}} -> (f32)
// CHECK: %[[ACC:.+]]:16 = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-4: memref.store %{{.+}}, %[[AT]][%{{.+}}] : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.store %{{.+}}, %[[BT]][%{{.+}}] : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK-COUNT-4: memref.load %[[AT]]
// CHECK-COUNT-4: memref.load %[[BT]]
// CHECK-COUNT-16: arith.mulf
// CHECK: gpu.barrier
// CHECK-COUNT-16: memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<100x70xf32>
// CHECK: gpu.return
func.func private @tiled_mm(%a: memref<100x40xf32>, %b: memref<40x70xf32>, %c: memref<100x70xf32>) attributes {tandem.kernel} {
  linalg.matmul ins(%a, %b : memref<100x40xf32>, memref<40x70xf32>) outs(%c : memref<100x70xf32>)
  return
}

// -----

// An attention as one row kernel (2 heads x 64 query rows, 64 keys): its
// row-local scores, exponentials and probabilities share one slot of shared
// memory (each written by a pointwise stage that reads the one before for
// the last time, element for element: rowLocalSlots), and its maximum and
// sum another (the maximum's last stage comes before the sum's first):
// two row buffers where there were five, before the warp slots of the
// block reductions. P V has 16 output columns for the block's 64 threads:
// 4 groups of 16 threads each sum every fourth key (the probabilities read
// from shared memory), leave their partial sums in shared memory (4 x 16
// slots) and, after a barrier, the first 16 threads add the groups' sums
// in order and store them.
// CHECK-LABEL: gpu.func @attention_rows
// CHECK-SAME: workgroup(%[[S:.+]] : memref<64xf32, #gpu.address_space<workgroup>>, %[[M:.+]] : memref<1xf32, #gpu.address_space<workgroup>>, %{{.+}} : memref<2xf32, #gpu.address_space<workgroup>>, %{{.+}} : memref<2xf32, #gpu.address_space<workgroup>>, %[[G:.+]] : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.store %{{.+}}, %[[S]]
// CHECK: memref.store %{{.+}}, %[[M]]
// CHECK: math.exp
// CHECK: memref.store %{{.+}}, %[[S]]
// CHECK: arith.divf
// CHECK: memref.store %{{.+}}, %[[S]]
// CHECK: gpu.barrier
// CHECK: %[[T:.+]] = gpu.thread_id x
// CHECK: %[[ACTIVE:.+]] = arith.cmpi ult, %[[T]], %c64
// CHECK: scf.if %[[ACTIVE]]
// CHECK: %[[GROUP:.+]] = arith.divui %[[T]], %c16
// CHECK: scf.for %{{.+}} = %[[GROUP]] to %c64{{.*}} step %c4
// CHECK: memref.load %[[S]]
// CHECK: memref.load %arg2
// CHECK: memref.store %{{.+}}, %[[G]][%[[T]]]
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.+]] = arith.cmpi ult, %[[T]], %c16
// CHECK: scf.if %[[FIRST]]
// CHECK-COUNT-4: memref.load %[[G]]
// CHECK: memref.store %{{.+}}, %arg3
// CHECK: gpu.return
func.func private @attention_rows(%q: memref<2x64x16xf32>, %kt: memref<2x16x64xf32>, %v: memref<2x64x16xf32>, %o: memref<2x64x16xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 64>} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%q, %kt : memref<2x64x16xf32>, memref<2x16x64xf32>) outs(%s : memref<2x64x64xf32>)
  %max = memref.alloc() : memref<2x64xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<2x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : memref<2x64x64xf32>) outs(%max : memref<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : memref<2x64x64xf32>, memref<2x64xf32>) outs(%e : memref<2x64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<2x64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : memref<2x64x64xf32>) outs(%sum : memref<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<2x64x64xf32>, memref<2x64xf32>) outs(%p : memref<2x64x64xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x16xf32>)
  linalg.batch_matmul ins(%p, %v : memref<2x64x64xf32>, memref<2x64x16xf32>) outs(%o : memref<2x64x16xf32>)
  return
}

// -----

// Scores that read K in place (16 query rows, 32 keys of 40 values): each
// key's row lies along the reduction, so the contraction stage runs a warp
// per key (warp w takes keys w, w + 8, ...), its lanes stride over the 40
// values, the lanes' partial sums meet in a shuffle butterfly, and lane 0
// stores the key's score into the row-local scores.
// CHECK-LABEL: gpu.func @qk_rows
// CHECK-SAME: workgroup(%[[S:.+]] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[T:.+]] = gpu.thread_id x
// CHECK: %[[LANE:.+]] = arith.remui %[[T]], %c32
// CHECK: %[[WARP:.+]] = arith.divui %[[T]], %c32
// CHECK: scf.for %[[KEY:.+]] = %[[WARP]] to %{{.+}} step %c8
// CHECK: scf.for %{{.+}} = %[[LANE]] to %c40 step %{{.+}} iter_args
// CHECK: memref.load %arg1[
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}}
// CHECK: scf.if %[[FIRST]]
// CHECK: memref.store %{{.+}}, %[[S]]
// CHECK: gpu.barrier
func.func private @qk_rows(%q: memref<16x40xf32>, %k: memref<32x40xf32>, %m: memref<16xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 16>} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<16x32xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<16x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<16x40xf32>, memref<32x40xf32>) outs(%s : memref<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%lowest : f32) outs(%m : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<16x32xf32>) outs(%m : memref<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A split reduction's kernel (tandem.split_arrivals): the partial sums, one
// block each (64 blocks of 256 threads); then thread 0 counts the block
// between two fences and tells the block through shared memory whether it
// was the last; the last sets the count back to zero and combines the 64
// partials (its 256 threads striding over them) into the one output.
// CHECK-LABEL: gpu.func @split_kernel
// CHECK-SAME: workgroup(%{{.+}} : memref<8xf32, #gpu.address_space<workgroup>>, %[[FLAG:.+]] : memref<1xi32, #gpu.address_space<workgroup>>, %{{.+}} : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: scf.if
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: %[[OLD:.+]] = memref.atomic_rmw addi %{{.+}}, %[[COUNT:.+]][%{{.+}}] : (i32, memref<1xi32>) -> i32
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK: %[[LAST:.+]] = arith.cmpi eq, %[[OLD]], %c63_i32
// CHECK: memref.store %{{.+}}, %[[FLAG]]
// CHECK: scf.if %[[LAST]] {
// CHECK: memref.store %c0_i32{{.*}}, %[[COUNT]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[FLAG]]
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: gpu.shuffle xor
func.func private @split_kernel(%x: memref<1x64x1024xf32>, %p: memref<1x64xf32>, %y: memref<1xf32>, %c: memref<1xi32>) attributes {tandem.kernel, tandem.split_arrivals} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<1x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<1x64x1024xf32>) outs(%p : memref<1x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%p : memref<1x64xf32>) outs(%y : memref<1xf32>) attrs = {tandem.split_combine} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}
