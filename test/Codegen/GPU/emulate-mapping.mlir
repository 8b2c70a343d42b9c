// The mapped kernel body, run for every block and thread of its grid on the
// host (-tandem-map-kernels-to-gpu=emulate-on-host), computes exactly what
// the kernel's linalg op computes: a ragged grid (300 rows in blocks of 256
// threads) with an exp-sum reduction per thread, and a matmul through a
// view. Each case prints max |reference - emulated| and the reference's sum.
// (main calls the @<kernel>_emulated functions that the pass adds, so the
// input is parsed without verification.)
// REQUIRES: mlir-runner
// RUN: tandem-opt --mlir-very-unsafe-disable-verifier-on-parsing -tandem-map-kernels-to-gpu=emulate-on-host=1 %s \
// RUN: | tandem-opt --pass-pipeline="builtin.module(convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,lower-affine,convert-math-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,convert-index-to-llvm,reconcile-unrealized-casts)" \
// RUN: | %mlir_runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

// CHECK: rowsum diff 0 sum 2039.85
// CHECK-NEXT: matmul diff 0 sum -0.2061
// CHECK-NEXT: rowmax diff 0 sum -0.15
// CHECK-NEXT: sum3 diff {{(0|[0-9.]+e-0[5-9])}} sum 617.2
// CHECK-NEXT: matvec diff {{(0|[0-9.]+e-0[5-9])}} sum -19.87
// CHECK-NEXT: mmrelu diff 0 sum 0.0862
// CHECK-NEXT: convpad diff 0 sum 9.757
// CHECK-NEXT: mvbias diff {{(0|[0-9.]+e-0[5-9])}} sum -33.87
// CHECK-NEXT: softmax diff {{(0|[0-9.]+e-0[5-9])}} sum 6
// CHECK-NEXT: layernorm diff {{(0|[0-9.]+e-0[5-9])}} sum {{-?[0-9.e-]+}}
// CHECK-NEXT: attention diff {{(0|[0-9.]+e-0[5-9])}} sum {{-?[0-9.e-]+}}
// CHECK-NEXT: attention_k diff {{(0|[0-9.]+e-0[5-9])}} sum {{-?[0-9.e-]+}}
// CHECK-NEXT: tiled_mm diff 0 sum {{[1-9][0-9.e+-]*}}
// CHECK-NEXT: tiled_conv diff 0 sum {{[0-9.e+-]+}}
// CHECK-NEXT: tiled_bmm diff 0 sum {{[0-9.e+-]+}}
// CHECK-NEXT: poolepi diff 0 sum {{[0-9.e+-]+}}
// CHECK-NEXT: splitsum diff {{(0|[0-9.]+e-0[5-9])}} sum {{[0-9.e+-]+}}
// CHECK-NEXT: dwslice diff 0 sum {{[0-9.e+-]+}}

// Tiled contractions (KernelPlan::tiled): 64x64 output tiles stepping 16
// at a time through shared-memory tiles, 4x4 per thread, every thread's
// loads, then every thread's products, between the barriers. Ragged in M,
// N and K: a 70x90 matmul with a transposed B (K = 37) and a fused ReLU; a
// padded 3x3 convolution starting from its bias (M = 2 x 9 x 9, N = 40,
// K = 27); a batch of 3 33x34 products (K = 20). They sum in the
// reference's order, so the results are the same bits.
// The 70x90 matmul is 2 x 2 blocks: tiles of A and B (16 x 64 each) and
// the 256 threads' 16 accumulators are scratch buffers of the function.
// RUN: tandem-opt --mlir-very-unsafe-disable-verifier-on-parsing -tandem-map-kernels-to-gpu=emulate-on-host=1 %s \
// RUN: | FileCheck %s --check-prefix=TILED
// TILED-LABEL: func.func @tiled_mm_emulated
// TILED: memref.alloca() : memref<4096xf32>
// TILED: memref.alloca() : memref<1024xf32>
// TILED: memref.alloca() : memref<1024xf32>
// TILED: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// TILED-NOT: memref.alloca
// TILED: func.func @tiled_mm_ref


// Block reductions (one block per output point, threads striding over the
// reduction, then the shuffle butterflies and the shared-memory stage, all
// run on the host in the GPU's order): a max over 300 points (256 threads,
// some with two points), a sum over two reduction loops read through a
// permuted map (200 points, 224 threads), and a matvec (100 points, 128
// threads). The emulated sums are reassociated, so those compare within
// float rounding (a diff of 0 or below 1e-4).
// RUN: tandem-opt --mlir-very-unsafe-disable-verifier-on-parsing -tandem-map-kernels-to-gpu=emulate-on-host=1 %s \
// RUN: | FileCheck %s --check-prefix=PLAN
// The scratch buffers are allocated once, at the function's entry, not per
// block (the loop over the 5 blocks would grow the stack).
// PLAN-LABEL: func.func @rowmax_emulated
// PLAN: memref.alloca() : memref<256xf32>
// PLAN: scf.for %{{.*}} = %c0 to %c5 step %c1 {
// PLAN-NOT: memref.alloca
// PLAN: arith.xori

func.func private @printF32(f32)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)

func.func private @rowsum(%a: memref<300x7xf32>, %s: memref<300xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<300x7xf32>) outs(%s : memref<300xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  }
  return
}

func.func private @rowmax(%a: memref<5x300xf32>, %s: memref<5xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<5x300xf32>) outs(%s : memref<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

func.func private @sum3(%a: memref<10x3x20xf32>, %s: memref<3xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : memref<10x3x20xf32>) outs(%s : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  }
  return
}

func.func private @matvec(%a: memref<16x100xf32>, %x: memref<100xf32>, %y: memref<16xf32>) attributes {tandem.kernel} {
  linalg.matvec ins(%a, %x : memref<16x100xf32>, memref<100xf32>) outs(%y : memref<16xf32>)
  return
}

// A matmul whose ReLU tandem-fuse-elementwise folded into it: the mapped
// kernel applies it before the store; the reference is the unfused pair.
func.func private @mmrelu(%a: memref<6x9xf32>, %b: memref<9x5xf32>, %c: memref<6x5xf32>) attributes {tandem.kernel} {
  linalg.matmul {tandem.epilogue = "relu"} ins(%a, %b : memref<6x9xf32>, memref<9x5xf32>) outs(%c : memref<6x5xf32>)
  return
}

func.func @mmrelu_ref(%a: memref<6x9xf32>, %b: memref<9x5xf32>, %c: memref<6x5xf32>) {
  linalg.matmul ins(%a, %b : memref<6x9xf32>, memref<9x5xf32>) outs(%c : memref<6x5xf32>)
  %zero = arith.constant 0.0 : f32
  linalg.map outs(%c : memref<6x5xf32>) (%v: f32) {
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// Kernel prologues (KernelPrologue.h), which the mapped code evaluates per
// point: a padded input (asymmetric padding 2/0 rows and 1/1 columns, pad
// value 0.25, through a stride-2 convolution) and a broadcast bias as the
// accumulator's initial value, with a fused ReLU6; the reference runs the
// same ops, then the ReLU6. The output starts as garbage: the bias must
// replace it.
func.func private @convpad(%x: memref<1x2x5x5xf32>, %bias: memref<3xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x3x3xf32>) attributes {tandem.kernel} {
  %pad = arith.constant 0.25 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %pad : f32
  }
  %interior = memref.subview %p[0, 0, 2, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 15>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 15>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<3xf32>) outs(%y : memref<1x3x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tandem.epilogue = "relu6"}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x3x3xf32>)
  memref.dealloc %p : memref<1x2x7x7xf32>
  return
}

func.func @convpad_ref(%x: memref<1x2x5x5xf32>, %bias: memref<3xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x3x3xf32>) {
  %pad = arith.constant 0.25 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %pad : f32
  }
  %interior = memref.subview %p[0, 0, 2, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 15>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 15>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<3xf32>) outs(%y : memref<1x3x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : memref<1x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x3x3xf32>)
  memref.dealloc %p : memref<1x2x7x7xf32>
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  linalg.map outs(%y : memref<1x3x3x3xf32>) (%v: f32) {
    %lo = arith.maximumf %v, %zero : f32
    %r = arith.minimumf %lo, %six : f32
    linalg.yield %r : f32
  }
  return
}

// A block reduction (16 outputs, 100 points each) whose initial values come
// from a broadcast bias.
func.func private @mvbias(%a: memref<16x100xf32>, %x: memref<100xf32>, %bias: memref<16xf32>, %y: memref<16xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%bias : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %twice = arith.addf %in, %in : f32
    linalg.yield %twice : f32
  }
  linalg.matvec ins(%a, %x : memref<16x100xf32>, memref<100xf32>) outs(%y : memref<16xf32>)
  return
}

func.func private @mm(%a: memref<3x1x4xf32>, %b: memref<4x5xf32>, %c: memref<3x5xf32>) attributes {tandem.kernel} {
  %x = memref.collapse_shape %a [[0, 1], [2]] : memref<3x1x4xf32> into memref<3x4xf32>
  linalg.matmul ins(%x, %b : memref<3x4xf32>, memref<4x5xf32>) outs(%c : memref<3x5xf32>)
  return
}

/// Fills `m` with a deterministic pattern of small values.
func.func @fill(%m: memref<?xf32>, %seed: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  %scale = arith.constant 0.01 : f32
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %c17 = arith.constant 17 : i32
    %r = arith.remui %ii, %c17 : i32
    %f = arith.sitofp %r : i32 to f32
    %g = arith.mulf %f, %scale : f32
    %v = arith.subf %g, %seed : f32
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}

// Row kernels (one block per row, the stages one after the other with a
// barrier between them on the GPU): a softmax over 6 rows of 100 (max,
// exponentials, sum, division; 128 threads) whose exponentials, maxima and
// sums are row-local (one row in shared memory on the GPU, one row of
// scratch per block on the host), and a LayerNorm-like chain over 2x3 rows
// of 70 whose mean is a per-row pointwise stage (one point per row).
// PLAN-LABEL: func.func @softmax_rows_emulated
// PLAN-DAG: memref.alloca() : memref<100xf32>
// PLAN-DAG: memref.alloca() : memref<1xf32>
// PLAN: scf.for %{{.*}} = %c0 to %c6 step %c1 {
// PLAN-NOT: memref.alloc
// PLAN: return
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

// Mean per row (a pointwise stage over the rows alone), centring, sum of
// squares, normalisation; the centred values stay in global memory (%c is
// an argument).
func.func private @layernorm_rows(%x: memref<2x3x70xf32>, %c: memref<2x3x70xf32>, %y: memref<2x3x70xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 2, 3>} {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 70.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %s = memref.alloc() : memref<2x3xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x3xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<2x3x70xf32>) outs(%s : memref<2x3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %mean = memref.alloc() : memref<2x3xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<2x3xf32>) outs(%mean : memref<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %in, %n : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mean : memref<2x3x70xf32>, memref<2x3xf32>) outs(%c : memref<2x3x70xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  }
  %sq = memref.alloc() : memref<2x3xf32>
  linalg.fill ins(%zero : f32) outs(%sq : memref<2x3xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c : memref<2x3x70xf32>) outs(%sq : memref<2x3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.mulf %in, %in : f32
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %sq : memref<2x3x70xf32>, memref<2x3xf32>) outs(%y : memref<2x3x70xf32>) {
  ^bb0(%in: f32, %q: f32, %out: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %r = arith.mulf %in, %inv : f32
    linalg.yield %r : f32
  }
  return
}

// An attention (2 heads x 64 query rows, 64 keys, head size 16) as one row
// kernel: the scores (a contraction stage: each thread a key, the head
// dimension serially), the softmax, and P V (4 point groups of 16 threads,
// one per output column, each summing every fourth key, then the groups'
// sums added in order), the scores, exponentials and probabilities
// row-local.
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

// An attention that reads K in place (16 query rows, 32 keys, head size
// 40): Q K^T reads each key's row along its reduction, so it runs a warp
// per key (8 warps, 4 keys each), lanes 0-7 taking two of the 40 values,
// then the shuffle butterfly (on the host: the lanes one after the other,
// then the butterfly's exchanges in the same order); P V runs in 6 point
// groups of 40 threads (240 of the 256). Its scores scale each key's
// element first, as a folded scaled transpose of K leaves them (MaxViT).
func.func private @attention_k(%q: memref<16x40xf32>, %k: memref<32x40xf32>, %v: memref<32x40xf32>, %o: memref<16x40xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 16>} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<16x32xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<16x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<16x40xf32>, memref<32x40xf32>) outs(%s : memref<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %scale = arith.constant 0.375 : f32
    %ys = arith.mulf %y, %scale : f32
    %m = arith.mulf %x, %ys : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  %max = memref.alloc() : memref<16xf32>
  linalg.fill ins(%lowest : f32) outs(%max : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<16x32xf32>) outs(%max : memref<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<16x32xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s, %max : memref<16x32xf32>, memref<16xf32>) outs(%e : memref<16x32xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %sum = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<16x32xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<16x32xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : memref<16x32xf32>, memref<16xf32>) outs(%p : memref<16x32xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<16x40xf32>)
  linalg.matmul ins(%p, %v : memref<16x32xf32>, memref<32x40xf32>) outs(%o : memref<16x40xf32>)
  return
}

/// Prints "<name> diff <max |a - b|> sum <sum of a>".
func.func @compare(%name: !llvm.ptr, %a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%d = %zero, %s = %zero) -> (f32, f32) {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %diff = arith.subf %x, %y : f32
    %abs = math.absf %diff : f32
    %d2 = arith.maximumf %d, %abs : f32
    %s2 = arith.addf %s, %x : f32
    scf.yield %d2, %s2 : f32, f32
  }
  call @printString(%name) : (!llvm.ptr) -> ()
  call @printF32(%res#0) : (f32) -> ()
  %sum = llvm.mlir.addressof @sum_label : !llvm.ptr
  call @printString(%sum) : (!llvm.ptr) -> ()
  call @printF32(%res#1) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}

llvm.mlir.global internal constant @rowsum_label("rowsum diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @matmul_label("matmul diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @rowmax_label("rowmax diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @sum3_label("sum3 diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @matvec_label("matvec diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @mmrelu_label("mmrelu diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @convpad_label("convpad diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @mvbias_label("mvbias diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @softmax_label("softmax diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @layernorm_label("layernorm diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @attention_label("attention diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @attention_k_label("attention_k diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @tiled_mm_label("tiled_mm diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @tiled_conv_label("tiled_conv diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @tiled_bmm_label("tiled_bmm diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @poolepi_label("poolepi diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @splitsum_label("splitsum diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @dwslice_label("dwslice diff \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @sum_label(" sum \00") {addr_space = 0 : i32}

func.func private @tiled_mm(%a: memref<70x37xf32>, %bt: memref<90x37xf32>, %c: memref<70x90xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : memref<70x37xf32>, memref<90x37xf32>) outs(%c : memref<70x90xf32>) attrs = {tandem.epilogue = "relu"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

func.func @tiled_mm_ref(%a: memref<70x37xf32>, %bt: memref<90x37xf32>, %c: memref<70x90xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : memref<70x37xf32>, memref<90x37xf32>) outs(%c : memref<70x90xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.map outs(%c : memref<70x90xf32>) (%v: f32) {
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

func.func private @tiled_conv(%x: memref<2x3x9x9xf32>, %bias: memref<40xf32>, %w: memref<40x3x3x3xf32>, %y: memref<2x40x9x9xf32>) attributes {tandem.kernel} {
  %pad = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<2x3x11x11xf32>
  linalg.map outs(%p : memref<2x3x11x11xf32>) (%init: f32) {
    linalg.yield %pad : f32
  }
  %interior = memref.subview %p[0, 0, 1, 1] [2, 3, 9, 9] [1, 1, 1, 1] : memref<2x3x11x11xf32> to memref<2x3x9x9xf32, strided<[363, 121, 11, 1], offset: 12>>
  memref.copy %x, %interior : memref<2x3x9x9xf32> to memref<2x3x9x9xf32, strided<[363, 121, 11, 1], offset: 12>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<40xf32>) outs(%y : memref<2x40x9x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : memref<2x3x11x11xf32>, memref<40x3x3x3xf32>) outs(%y : memref<2x40x9x9xf32>)
  memref.dealloc %p : memref<2x3x11x11xf32>
  return
}

func.func @tiled_conv_ref(%x: memref<2x3x9x9xf32>, %bias: memref<40xf32>, %w: memref<40x3x3x3xf32>, %y: memref<2x40x9x9xf32>) {
  %pad = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<2x3x11x11xf32>
  linalg.fill ins(%pad : f32) outs(%p : memref<2x3x11x11xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [2, 3, 9, 9] [1, 1, 1, 1] : memref<2x3x11x11xf32> to memref<2x3x9x9xf32, strided<[363, 121, 11, 1], offset: 12>>
  memref.copy %x, %interior : memref<2x3x9x9xf32> to memref<2x3x9x9xf32, strided<[363, 121, 11, 1], offset: 12>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<40xf32>) outs(%y : memref<2x40x9x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : memref<2x3x11x11xf32>, memref<40x3x3x3xf32>) outs(%y : memref<2x40x9x9xf32>)
  memref.dealloc %p : memref<2x3x11x11xf32>
  return
}

func.func private @tiled_bmm(%a: memref<3x33x20xf32>, %b: memref<3x20x34xf32>, %c: memref<3x33x34xf32>) attributes {tandem.kernel} {
  linalg.batch_matmul ins(%a, %b : memref<3x33x20xf32>, memref<3x20x34xf32>) outs(%c : memref<3x33x34xf32>)
  return
}

// A pointwise epilogue (tandem.kernel_epilogue): a 3x3 sum pool over a
// zero-padded input, its sums in a buffer local to the kernel, and
// y = x + sum * 0.5 computed by each thread right where its sum is (the
// sums are never stored). The reference runs the same ops in order; y
// starts as garbage.
func.func private @poolepi(%x: memref<1x2x5x5xf32>, %k: memref<3x3xf32>, %y: memref<1x2x5x5xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  %s = memref.alloc() : memref<1x2x5x5xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<1x2x5x5xf32>)
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %k : memref<1x2x7x7xf32>, memref<3x3xf32>) outs(%s : memref<1x2x5x5xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : memref<1x2x5x5xf32>, memref<1x2x5x5xf32>) outs(%y : memref<1x2x5x5xf32>) attrs = {tandem.kernel_epilogue} {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %h = arith.mulf %sum, %half : f32
    %r = arith.addf %in, %h : f32
    linalg.yield %r : f32
  }
  memref.dealloc %p : memref<1x2x7x7xf32>
  memref.dealloc %s : memref<1x2x5x5xf32>
  return
}

func.func @poolepi_ref(%x: memref<1x2x5x5xf32>, %k: memref<3x3xf32>, %y: memref<1x2x5x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.map outs(%p : memref<1x2x7x7xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  %interior = memref.subview %p[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %x, %interior : memref<1x2x5x5xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  %s = memref.alloc() : memref<1x2x5x5xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<1x2x5x5xf32>)
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %k : memref<1x2x7x7xf32>, memref<3x3xf32>) outs(%s : memref<1x2x5x5xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : memref<1x2x5x5xf32>, memref<1x2x5x5xf32>) outs(%y : memref<1x2x5x5xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %h = arith.mulf %sum, %half : f32
    %r = arith.addf %in, %h : f32
    linalg.yield %r : f32
  }
  memref.dealloc %p : memref<1x2x7x7xf32>
  memref.dealloc %s : memref<1x2x5x5xf32>
  return
}

// A split reduction with its combination in the last block
// (tandem.split_arrivals): 8 partial sums of squares (2 outputs x 4
// slices of 300, a block each), then each output's 4 partials from 0.5.
// Each emulated block counts itself in %count; the last one resets it and
// combines. The kernel runs twice, its output set to garbage in between:
// the second run only combines if the first reset the count.
func.func private @splitsum(%x: memref<2x4x300xf32>, %partials: memref<2x4xf32>, %y: memref<2xf32>, %count: memref<1xi32>) attributes {tandem.kernel, tandem.split_arrivals} {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  linalg.fill ins(%zero : f32) outs(%partials : memref<2x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<2x4x300xf32>) outs(%partials : memref<2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%half : f32) outs(%y : memref<2xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%partials : memref<2x4xf32>) outs(%y : memref<2xf32>) attrs = {tandem.split_combine} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

func.func @splitsum_ref(%x: memref<2x4x300xf32>, %y: memref<2xf32>) {
  %half = arith.constant 0.5 : f32
  linalg.fill ins(%half : f32) outs(%y : memref<2xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<2x4x300xf32>) outs(%y : memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// A padded input whose source is a channel slice (a strided view:
// InceptionNeXt's branches each take some channels): the padding is the
// depthwise conv's prologue, each thread reading the slice through the
// view with its bounds checks; the fill and the copy are not run.
// RUN: tandem-opt --mlir-very-unsafe-disable-verifier-on-parsing -tandem-map-kernels-to-gpu=emulate-on-host=1 %s \
// RUN: | FileCheck %s --check-prefix=DWSLICE
// DWSLICE-LABEL: func.func @dwslice_emulated
// DWSLICE-NOT: memref.copy
// DWSLICE-NOT: memref.alloc()
// DWSLICE: scf.if
// DWSLICE: memref.load %{{.+}} : memref<1x2x5x5xf32, strided<[100, 25, 5, 1], offset: 50>>
// DWSLICE: return
func.func private @dwslice(%x: memref<1x4x5x5xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x5x5xf32>) attributes {tandem.kernel} {
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

func.func @dwslice_ref(%x: memref<1x4x5x5xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x5x5xf32>) {
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

func.func @tiled_bmm_ref(%a: memref<3x33x20xf32>, %b: memref<3x20x34xf32>, %c: memref<3x33x34xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x33x20xf32>, memref<3x20x34xf32>) outs(%c : memref<3x33x34xf32>)
  return
}

func.func @main() {
  %seed = arith.constant 0.05 : f32
  %half = arith.constant 0.5 : f32

  %a = memref.alloc() : memref<2100xf32>
  %av = memref.cast %a : memref<2100xf32> to memref<?xf32>
  call @fill(%av, %seed) : (memref<?xf32>, f32) -> ()
  %a2 = memref.expand_shape %a [[0, 1]] output_shape [300, 7] : memref<2100xf32> into memref<300x7xf32>
  %ref = memref.alloc() : memref<300xf32>
  %emu = memref.alloc() : memref<300xf32>
  %refv = memref.cast %ref : memref<300xf32> to memref<?xf32>
  %emuv = memref.cast %emu : memref<300xf32> to memref<?xf32>
  call @fill(%refv, %half) : (memref<?xf32>, f32) -> ()
  call @fill(%emuv, %half) : (memref<?xf32>, f32) -> ()
  call @rowsum(%a2, %ref) : (memref<300x7xf32>, memref<300xf32>) -> ()
  call @rowsum_emulated(%a2, %emu) : (memref<300x7xf32>, memref<300xf32>) -> ()
  %l0 = llvm.mlir.addressof @rowsum_label : !llvm.ptr
  call @compare(%l0, %refv, %emuv) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %x = memref.alloc() : memref<12xf32>
  %xv = memref.cast %x : memref<12xf32> to memref<?xf32>
  call @fill(%xv, %half) : (memref<?xf32>, f32) -> ()
  %x3 = memref.expand_shape %x [[0, 1, 2]] output_shape [3, 1, 4] : memref<12xf32> into memref<3x1x4xf32>
  %w = memref.alloc() : memref<20xf32>
  %wv = memref.cast %w : memref<20xf32> to memref<?xf32>
  call @fill(%wv, %seed) : (memref<?xf32>, f32) -> ()
  %w2 = memref.expand_shape %w [[0, 1]] output_shape [4, 5] : memref<20xf32> into memref<4x5xf32>
  %cr = memref.alloc() : memref<15xf32>
  %ce = memref.alloc() : memref<15xf32>
  %crv = memref.cast %cr : memref<15xf32> to memref<?xf32>
  %cev = memref.cast %ce : memref<15xf32> to memref<?xf32>
  call @fill(%crv, %seed) : (memref<?xf32>, f32) -> ()
  call @fill(%cev, %seed) : (memref<?xf32>, f32) -> ()
  %cr2 = memref.expand_shape %cr [[0, 1]] output_shape [3, 5] : memref<15xf32> into memref<3x5xf32>
  %ce2 = memref.expand_shape %ce [[0, 1]] output_shape [3, 5] : memref<15xf32> into memref<3x5xf32>
  call @mm(%x3, %w2, %cr2) : (memref<3x1x4xf32>, memref<4x5xf32>, memref<3x5xf32>) -> ()
  call @mm_emulated(%x3, %w2, %ce2) : (memref<3x1x4xf32>, memref<4x5xf32>, memref<3x5xf32>) -> ()
  %l1 = llvm.mlir.addressof @matmul_label : !llvm.ptr
  call @compare(%l1, %crv, %cev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  // Block reductions.
  %m = memref.alloc() : memref<1500xf32>
  %mv = memref.cast %m : memref<1500xf32> to memref<?xf32>
  call @fill(%mv, %half) : (memref<?xf32>, f32) -> ()
  %m2 = memref.expand_shape %m [[0, 1]] output_shape [5, 300] : memref<1500xf32> into memref<5x300xf32>
  %mr = memref.alloc() : memref<5xf32>
  %me = memref.alloc() : memref<5xf32>
  %mrv = memref.cast %mr : memref<5xf32> to memref<?xf32>
  %mev = memref.cast %me : memref<5xf32> to memref<?xf32>
  call @fill(%mrv, %seed) : (memref<?xf32>, f32) -> ()
  call @fill(%mev, %seed) : (memref<?xf32>, f32) -> ()
  call @rowmax(%m2, %mr) : (memref<5x300xf32>, memref<5xf32>) -> ()
  call @rowmax_emulated(%m2, %me) : (memref<5x300xf32>, memref<5xf32>) -> ()
  %l2 = llvm.mlir.addressof @rowmax_label : !llvm.ptr
  call @compare(%l2, %mrv, %mev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %t = memref.alloc() : memref<600xf32>
  %tv = memref.cast %t : memref<600xf32> to memref<?xf32>
  call @fill(%tv, %seed) : (memref<?xf32>, f32) -> ()
  %t3 = memref.expand_shape %t [[0, 1, 2]] output_shape [10, 3, 20] : memref<600xf32> into memref<10x3x20xf32>
  %tr = memref.alloc() : memref<3xf32>
  %te = memref.alloc() : memref<3xf32>
  %trv = memref.cast %tr : memref<3xf32> to memref<?xf32>
  %tev = memref.cast %te : memref<3xf32> to memref<?xf32>
  call @fill(%trv, %half) : (memref<?xf32>, f32) -> ()
  call @fill(%tev, %half) : (memref<?xf32>, f32) -> ()
  call @sum3(%t3, %tr) : (memref<10x3x20xf32>, memref<3xf32>) -> ()
  call @sum3_emulated(%t3, %te) : (memref<10x3x20xf32>, memref<3xf32>) -> ()
  %l3 = llvm.mlir.addressof @sum3_label : !llvm.ptr
  call @compare(%l3, %trv, %tev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %va = memref.alloc() : memref<1600xf32>
  %vav = memref.cast %va : memref<1600xf32> to memref<?xf32>
  call @fill(%vav, %seed) : (memref<?xf32>, f32) -> ()
  %va2 = memref.expand_shape %va [[0, 1]] output_shape [16, 100] : memref<1600xf32> into memref<16x100xf32>
  %vx = memref.alloc() : memref<100xf32>
  %vxv = memref.cast %vx : memref<100xf32> to memref<?xf32>
  call @fill(%vxv, %half) : (memref<?xf32>, f32) -> ()
  %yr = memref.alloc() : memref<16xf32>
  %ye = memref.alloc() : memref<16xf32>
  %yrv = memref.cast %yr : memref<16xf32> to memref<?xf32>
  %yev = memref.cast %ye : memref<16xf32> to memref<?xf32>
  call @fill(%yrv, %seed) : (memref<?xf32>, f32) -> ()
  call @fill(%yev, %seed) : (memref<?xf32>, f32) -> ()
  call @matvec(%va2, %vx, %yr) : (memref<16x100xf32>, memref<100xf32>, memref<16xf32>) -> ()
  call @matvec_emulated(%va2, %vx, %ye) : (memref<16x100xf32>, memref<100xf32>, memref<16xf32>) -> ()
  %l4 = llvm.mlir.addressof @matvec_label : !llvm.ptr
  call @compare(%l4, %yrv, %yev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  // The fused ReLU epilogue.
  %ra = memref.alloc() : memref<54xf32>
  %rav = memref.cast %ra : memref<54xf32> to memref<?xf32>
  call @fill(%rav, %half) : (memref<?xf32>, f32) -> ()
  %ra2 = memref.expand_shape %ra [[0, 1]] output_shape [6, 9] : memref<54xf32> into memref<6x9xf32>
  %rb = memref.alloc() : memref<45xf32>
  %rbv = memref.cast %rb : memref<45xf32> to memref<?xf32>
  call @fill(%rbv, %seed) : (memref<?xf32>, f32) -> ()
  %rb2 = memref.expand_shape %rb [[0, 1]] output_shape [9, 5] : memref<45xf32> into memref<9x5xf32>
  %rr = memref.alloc() : memref<30xf32>
  %re = memref.alloc() : memref<30xf32>
  %rrv = memref.cast %rr : memref<30xf32> to memref<?xf32>
  %rev = memref.cast %re : memref<30xf32> to memref<?xf32>
  call @fill(%rrv, %seed) : (memref<?xf32>, f32) -> ()
  call @fill(%rev, %seed) : (memref<?xf32>, f32) -> ()
  %rr2 = memref.expand_shape %rr [[0, 1]] output_shape [6, 5] : memref<30xf32> into memref<6x5xf32>
  %re2 = memref.expand_shape %re [[0, 1]] output_shape [6, 5] : memref<30xf32> into memref<6x5xf32>
  call @mmrelu_ref(%ra2, %rb2, %rr2) : (memref<6x9xf32>, memref<9x5xf32>, memref<6x5xf32>) -> ()
  call @mmrelu_emulated(%ra2, %rb2, %re2) : (memref<6x9xf32>, memref<9x5xf32>, memref<6x5xf32>) -> ()
  %l5 = llvm.mlir.addressof @mmrelu_label : !llvm.ptr
  call @compare(%l5, %rrv, %rev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  // Kernel prologues.
  %cx = memref.alloc() : memref<50xf32>
  %cxv = memref.cast %cx : memref<50xf32> to memref<?xf32>
  %up = arith.constant -0.05 : f32
  call @fill(%cxv, %up) : (memref<?xf32>, f32) -> ()
  %cx4 = memref.expand_shape %cx [[0, 1, 2, 3]] output_shape [1, 2, 5, 5] : memref<50xf32> into memref<1x2x5x5xf32>
  %cb = memref.alloc() : memref<3xf32>
  %cbv = memref.cast %cb : memref<3xf32> to memref<?xf32>
  call @fill(%cbv, %seed) : (memref<?xf32>, f32) -> ()
  %cw = memref.alloc() : memref<54xf32>
  %cwv = memref.cast %cw : memref<54xf32> to memref<?xf32>
  call @fill(%cwv, %up) : (memref<?xf32>, f32) -> ()
  %cw4 = memref.expand_shape %cw [[0, 1, 2, 3]] output_shape [3, 2, 3, 3] : memref<54xf32> into memref<3x2x3x3xf32>
  %kcr = memref.alloc() : memref<27xf32>
  %kce = memref.alloc() : memref<27xf32>
  %kcrv = memref.cast %kcr : memref<27xf32> to memref<?xf32>
  %kcev = memref.cast %kce : memref<27xf32> to memref<?xf32>
  call @fill(%kcrv, %seed) : (memref<?xf32>, f32) -> ()
  %garbage = arith.constant -7.0 : f32
  call @fill(%kcev, %garbage) : (memref<?xf32>, f32) -> ()
  %kcr4 = memref.expand_shape %kcr [[0, 1, 2, 3]] output_shape [1, 3, 3, 3] : memref<27xf32> into memref<1x3x3x3xf32>
  %kce4 = memref.expand_shape %kce [[0, 1, 2, 3]] output_shape [1, 3, 3, 3] : memref<27xf32> into memref<1x3x3x3xf32>
  call @convpad_ref(%cx4, %cb, %cw4, %kcr4) : (memref<1x2x5x5xf32>, memref<3xf32>, memref<3x2x3x3xf32>, memref<1x3x3x3xf32>) -> ()
  call @convpad_emulated(%cx4, %cb, %cw4, %kce4) : (memref<1x2x5x5xf32>, memref<3xf32>, memref<3x2x3x3xf32>, memref<1x3x3x3xf32>) -> ()
  %l6 = llvm.mlir.addressof @convpad_label : !llvm.ptr
  call @compare(%l6, %kcrv, %kcev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %bb = memref.alloc() : memref<16xf32>
  %bbv = memref.cast %bb : memref<16xf32> to memref<?xf32>
  call @fill(%bbv, %half) : (memref<?xf32>, f32) -> ()
  %br = memref.alloc() : memref<16xf32>
  %be = memref.alloc() : memref<16xf32>
  %brv = memref.cast %br : memref<16xf32> to memref<?xf32>
  %bev = memref.cast %be : memref<16xf32> to memref<?xf32>
  call @fill(%brv, %seed) : (memref<?xf32>, f32) -> ()
  call @fill(%bev, %garbage) : (memref<?xf32>, f32) -> ()
  call @mvbias(%va2, %vx, %bb, %br) : (memref<16x100xf32>, memref<100xf32>, memref<16xf32>, memref<16xf32>) -> ()
  call @mvbias_emulated(%va2, %vx, %bb, %be) : (memref<16x100xf32>, memref<100xf32>, memref<16xf32>, memref<16xf32>) -> ()
  %l7 = llvm.mlir.addressof @mvbias_label : !llvm.ptr
  call @compare(%l7, %brv, %bev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  // Row kernels: %va's first 600 values as 6 rows of 100, then as 2x3 rows
  // of 70 (from %m); the outputs start as garbage.
  %sx = memref.subview %va[0] [600] [1] : memref<1600xf32> to memref<600xf32, strided<[1]>>
  %sxc = memref.alloc() : memref<600xf32>
  memref.copy %sx, %sxc : memref<600xf32, strided<[1]>> to memref<600xf32>
  %sx2 = memref.expand_shape %sxc [[0, 1]] output_shape [6, 100] : memref<600xf32> into memref<6x100xf32>
  %sr = memref.alloc() : memref<600xf32>
  %se = memref.alloc() : memref<600xf32>
  %srv = memref.cast %sr : memref<600xf32> to memref<?xf32>
  %sev = memref.cast %se : memref<600xf32> to memref<?xf32>
  call @fill(%srv, %garbage) : (memref<?xf32>, f32) -> ()
  call @fill(%sev, %garbage) : (memref<?xf32>, f32) -> ()
  %sr2 = memref.expand_shape %sr [[0, 1]] output_shape [6, 100] : memref<600xf32> into memref<6x100xf32>
  %se2 = memref.expand_shape %se [[0, 1]] output_shape [6, 100] : memref<600xf32> into memref<6x100xf32>
  call @softmax_rows(%sx2, %sr2) : (memref<6x100xf32>, memref<6x100xf32>) -> ()
  call @softmax_rows_emulated(%sx2, %se2) : (memref<6x100xf32>, memref<6x100xf32>) -> ()
  %l8 = llvm.mlir.addressof @softmax_label : !llvm.ptr
  call @compare(%l8, %srv, %sev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %lx = memref.subview %m[0] [420] [1] : memref<1500xf32> to memref<420xf32, strided<[1]>>
  %lxc = memref.alloc() : memref<420xf32>
  memref.copy %lx, %lxc : memref<420xf32, strided<[1]>> to memref<420xf32>
  %lx3 = memref.expand_shape %lxc [[0, 1, 2]] output_shape [2, 3, 70] : memref<420xf32> into memref<2x3x70xf32>
  %lc = memref.alloc() : memref<2x3x70xf32>
  %lr = memref.alloc() : memref<420xf32>
  %le = memref.alloc() : memref<420xf32>
  %lrv = memref.cast %lr : memref<420xf32> to memref<?xf32>
  %lev = memref.cast %le : memref<420xf32> to memref<?xf32>
  call @fill(%lrv, %garbage) : (memref<?xf32>, f32) -> ()
  call @fill(%lev, %garbage) : (memref<?xf32>, f32) -> ()
  %lr3 = memref.expand_shape %lr [[0, 1, 2]] output_shape [2, 3, 70] : memref<420xf32> into memref<2x3x70xf32>
  %le3 = memref.expand_shape %le [[0, 1, 2]] output_shape [2, 3, 70] : memref<420xf32> into memref<2x3x70xf32>
  call @layernorm_rows(%lx3, %lc, %lr3) : (memref<2x3x70xf32>, memref<2x3x70xf32>, memref<2x3x70xf32>) -> ()
  call @layernorm_rows_emulated(%lx3, %lc, %le3) : (memref<2x3x70xf32>, memref<2x3x70xf32>, memref<2x3x70xf32>) -> ()
  %l9 = llvm.mlir.addressof @layernorm_label : !llvm.ptr
  call @compare(%l9, %lrv, %lev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  // The attention: Q, K^T and V from %a at three offsets.
  %aq = memref.subview %a[0] [2048] [1] : memref<2100xf32> to memref<2048xf32, strided<[1]>>
  %ak = memref.subview %a[50] [2048] [1] : memref<2100xf32> to memref<2048xf32, strided<[1], offset: 50>>
  %av2 = memref.subview %a[20] [2048] [1] : memref<2100xf32> to memref<2048xf32, strided<[1], offset: 20>>
  %qc = memref.alloc() : memref<2048xf32>
  %kc = memref.alloc() : memref<2048xf32>
  %vc = memref.alloc() : memref<2048xf32>
  memref.copy %aq, %qc : memref<2048xf32, strided<[1]>> to memref<2048xf32>
  memref.copy %ak, %kc : memref<2048xf32, strided<[1], offset: 50>> to memref<2048xf32>
  memref.copy %av2, %vc : memref<2048xf32, strided<[1], offset: 20>> to memref<2048xf32>
  %q3 = memref.expand_shape %qc [[0, 1, 2]] output_shape [2, 64, 16] : memref<2048xf32> into memref<2x64x16xf32>
  %k3 = memref.expand_shape %kc [[0, 1, 2]] output_shape [2, 16, 64] : memref<2048xf32> into memref<2x16x64xf32>
  %v3 = memref.expand_shape %vc [[0, 1, 2]] output_shape [2, 64, 16] : memref<2048xf32> into memref<2x64x16xf32>
  %or = memref.alloc() : memref<2048xf32>
  %oe = memref.alloc() : memref<2048xf32>
  %orv = memref.cast %or : memref<2048xf32> to memref<?xf32>
  %oev = memref.cast %oe : memref<2048xf32> to memref<?xf32>
  call @fill(%orv, %garbage) : (memref<?xf32>, f32) -> ()
  call @fill(%oev, %garbage) : (memref<?xf32>, f32) -> ()
  %or3 = memref.expand_shape %or [[0, 1, 2]] output_shape [2, 64, 16] : memref<2048xf32> into memref<2x64x16xf32>
  %oe3 = memref.expand_shape %oe [[0, 1, 2]] output_shape [2, 64, 16] : memref<2048xf32> into memref<2x64x16xf32>
  call @attention_rows(%q3, %k3, %v3, %or3) : (memref<2x64x16xf32>, memref<2x16x64xf32>, memref<2x64x16xf32>, memref<2x64x16xf32>) -> ()
  call @attention_rows_emulated(%q3, %k3, %v3, %oe3) : (memref<2x64x16xf32>, memref<2x16x64xf32>, memref<2x64x16xf32>, memref<2x64x16xf32>) -> ()
  %l10 = llvm.mlir.addressof @attention_label : !llvm.ptr
  call @compare(%l10, %orv, %oev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()
  // The attention reading K in place: Q, K and V from %a at three offsets.
  %kq = memref.subview %a[0] [640] [1] : memref<2100xf32> to memref<640xf32, strided<[1]>>
  %kk = memref.subview %a[300] [1280] [1] : memref<2100xf32> to memref<1280xf32, strided<[1], offset: 300>>
  %kv = memref.subview %a[800] [1280] [1] : memref<2100xf32> to memref<1280xf32, strided<[1], offset: 800>>
  %kqc = memref.alloc() : memref<640xf32>
  %kkc = memref.alloc() : memref<1280xf32>
  %kvc = memref.alloc() : memref<1280xf32>
  memref.copy %kq, %kqc : memref<640xf32, strided<[1]>> to memref<640xf32>
  memref.copy %kk, %kkc : memref<1280xf32, strided<[1], offset: 300>> to memref<1280xf32>
  memref.copy %kv, %kvc : memref<1280xf32, strided<[1], offset: 800>> to memref<1280xf32>
  %kq2 = memref.expand_shape %kqc [[0, 1]] output_shape [16, 40] : memref<640xf32> into memref<16x40xf32>
  %kk2 = memref.expand_shape %kkc [[0, 1]] output_shape [32, 40] : memref<1280xf32> into memref<32x40xf32>
  %kv2 = memref.expand_shape %kvc [[0, 1]] output_shape [32, 40] : memref<1280xf32> into memref<32x40xf32>
  %kor = memref.alloc() : memref<640xf32>
  %koe = memref.alloc() : memref<640xf32>
  %korv = memref.cast %kor : memref<640xf32> to memref<?xf32>
  %koev = memref.cast %koe : memref<640xf32> to memref<?xf32>
  call @fill(%korv, %garbage) : (memref<?xf32>, f32) -> ()
  call @fill(%koev, %garbage) : (memref<?xf32>, f32) -> ()
  %kor2 = memref.expand_shape %kor [[0, 1]] output_shape [16, 40] : memref<640xf32> into memref<16x40xf32>
  %koe2 = memref.expand_shape %koe [[0, 1]] output_shape [16, 40] : memref<640xf32> into memref<16x40xf32>
  call @attention_k(%kq2, %kk2, %kv2, %kor2) : (memref<16x40xf32>, memref<32x40xf32>, memref<32x40xf32>, memref<16x40xf32>) -> ()
  call @attention_k_emulated(%kq2, %kk2, %kv2, %koe2) : (memref<16x40xf32>, memref<32x40xf32>, memref<32x40xf32>, memref<16x40xf32>) -> ()
  %l10k = llvm.mlir.addressof @attention_k_label : !llvm.ptr
  call @compare(%l10k, %korv, %koev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()
  // Tiled contractions.
  %ta = memref.alloc() : memref<2590xf32>
  %tav = memref.cast %ta : memref<2590xf32> to memref<?xf32>
  call @fill(%tav, %seed) : (memref<?xf32>, f32) -> ()
  %ta2 = memref.expand_shape %ta [[0, 1]] output_shape [70, 37] : memref<2590xf32> into memref<70x37xf32>
  %tb = memref.alloc() : memref<3330xf32>
  %tbv = memref.cast %tb : memref<3330xf32> to memref<?xf32>
  %mid = arith.constant 0.08 : f32
  call @fill(%tbv, %mid) : (memref<?xf32>, f32) -> ()
  %tb2 = memref.expand_shape %tb [[0, 1]] output_shape [90, 37] : memref<3330xf32> into memref<90x37xf32>
  %tcr = memref.alloc() : memref<6300xf32>
  %tce = memref.alloc() : memref<6300xf32>
  %tcrv = memref.cast %tcr : memref<6300xf32> to memref<?xf32>
  %tcev = memref.cast %tce : memref<6300xf32> to memref<?xf32>
  call @fill(%tcrv, %seed) : (memref<?xf32>, f32) -> ()
  call @fill(%tcev, %seed) : (memref<?xf32>, f32) -> ()
  %tcr2 = memref.expand_shape %tcr [[0, 1]] output_shape [70, 90] : memref<6300xf32> into memref<70x90xf32>
  %tce2 = memref.expand_shape %tce [[0, 1]] output_shape [70, 90] : memref<6300xf32> into memref<70x90xf32>
  call @tiled_mm_ref(%ta2, %tb2, %tcr2) : (memref<70x37xf32>, memref<90x37xf32>, memref<70x90xf32>) -> ()
  call @tiled_mm_emulated(%ta2, %tb2, %tce2) : (memref<70x37xf32>, memref<90x37xf32>, memref<70x90xf32>) -> ()
  %l11 = llvm.mlir.addressof @tiled_mm_label : !llvm.ptr
  call @compare(%l11, %tcrv, %tcev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %tx = memref.subview %tb[0] [486] [1] : memref<3330xf32> to memref<486xf32, strided<[1]>>
  %txc = memref.alloc() : memref<486xf32>
  memref.copy %tx, %txc : memref<486xf32, strided<[1]>> to memref<486xf32>
  %tx4 = memref.expand_shape %txc [[0, 1, 2, 3]] output_shape [2, 3, 9, 9] : memref<486xf32> into memref<2x3x9x9xf32>
  %tw = memref.subview %ta[0] [1080] [1] : memref<2590xf32> to memref<1080xf32, strided<[1]>>
  %twc = memref.alloc() : memref<1080xf32>
  memref.copy %tw, %twc : memref<1080xf32, strided<[1]>> to memref<1080xf32>
  %tw4 = memref.expand_shape %twc [[0, 1, 2, 3]] output_shape [40, 3, 3, 3] : memref<1080xf32> into memref<40x3x3x3xf32>
  %tbias = memref.subview %ta[1500] [40] [1] : memref<2590xf32> to memref<40xf32, strided<[1], offset: 1500>>
  %tbiasc = memref.alloc() : memref<40xf32>
  memref.copy %tbias, %tbiasc : memref<40xf32, strided<[1], offset: 1500>> to memref<40xf32>
  %tyr = memref.alloc() : memref<6480xf32>
  %tye = memref.alloc() : memref<6480xf32>
  %tyrv = memref.cast %tyr : memref<6480xf32> to memref<?xf32>
  %tyev = memref.cast %tye : memref<6480xf32> to memref<?xf32>
  call @fill(%tyrv, %seed) : (memref<?xf32>, f32) -> ()
  call @fill(%tyev, %half) : (memref<?xf32>, f32) -> ()
  %tyr4 = memref.expand_shape %tyr [[0, 1, 2, 3]] output_shape [2, 40, 9, 9] : memref<6480xf32> into memref<2x40x9x9xf32>
  %tye4 = memref.expand_shape %tye [[0, 1, 2, 3]] output_shape [2, 40, 9, 9] : memref<6480xf32> into memref<2x40x9x9xf32>
  call @tiled_conv_ref(%tx4, %tbiasc, %tw4, %tyr4) : (memref<2x3x9x9xf32>, memref<40xf32>, memref<40x3x3x3xf32>, memref<2x40x9x9xf32>) -> ()
  call @tiled_conv_emulated(%tx4, %tbiasc, %tw4, %tye4) : (memref<2x3x9x9xf32>, memref<40xf32>, memref<40x3x3x3xf32>, memref<2x40x9x9xf32>) -> ()
  %l12 = llvm.mlir.addressof @tiled_conv_label : !llvm.ptr
  call @compare(%l12, %tyrv, %tyev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %bma = memref.subview %tb[0] [1980] [1] : memref<3330xf32> to memref<1980xf32, strided<[1]>>
  %bmac = memref.alloc() : memref<1980xf32>
  memref.copy %bma, %bmac : memref<1980xf32, strided<[1]>> to memref<1980xf32>
  %bma3 = memref.expand_shape %bmac [[0, 1, 2]] output_shape [3, 33, 20] : memref<1980xf32> into memref<3x33x20xf32>
  %bmb = memref.subview %ta[100] [2040] [1] : memref<2590xf32> to memref<2040xf32, strided<[1], offset: 100>>
  %bmbc = memref.alloc() : memref<2040xf32>
  memref.copy %bmb, %bmbc : memref<2040xf32, strided<[1], offset: 100>> to memref<2040xf32>
  %bmb3 = memref.expand_shape %bmbc [[0, 1, 2]] output_shape [3, 20, 34] : memref<2040xf32> into memref<3x20x34xf32>
  %bmr = memref.alloc() : memref<3366xf32>
  %bme = memref.alloc() : memref<3366xf32>
  %bmrv = memref.cast %bmr : memref<3366xf32> to memref<?xf32>
  %bmev = memref.cast %bme : memref<3366xf32> to memref<?xf32>
  call @fill(%bmrv, %half) : (memref<?xf32>, f32) -> ()
  call @fill(%bmev, %half) : (memref<?xf32>, f32) -> ()
  %bmr3 = memref.expand_shape %bmr [[0, 1, 2]] output_shape [3, 33, 34] : memref<3366xf32> into memref<3x33x34xf32>
  %bme3 = memref.expand_shape %bme [[0, 1, 2]] output_shape [3, 33, 34] : memref<3366xf32> into memref<3x33x34xf32>
  call @tiled_bmm_ref(%bma3, %bmb3, %bmr3) : (memref<3x33x20xf32>, memref<3x20x34xf32>, memref<3x33x34xf32>) -> ()
  call @tiled_bmm_emulated(%bma3, %bmb3, %bme3) : (memref<3x33x20xf32>, memref<3x20x34xf32>, memref<3x33x34xf32>) -> ()
  %l13 = llvm.mlir.addressof @tiled_bmm_label : !llvm.ptr
  call @compare(%l13, %bmrv, %bmev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  %px = memref.alloc() : memref<50xf32>
  %pxv = memref.cast %px : memref<50xf32> to memref<?xf32>
  call @fill(%pxv, %seed) : (memref<?xf32>, f32) -> ()
  %px4 = memref.expand_shape %px [[0, 1, 2, 3]] output_shape [1, 2, 5, 5] : memref<50xf32> into memref<1x2x5x5xf32>
  %pk = memref.alloc() : memref<3x3xf32>
  %pr = memref.alloc() : memref<50xf32>
  %pe = memref.alloc() : memref<50xf32>
  %prv = memref.cast %pr : memref<50xf32> to memref<?xf32>
  %pev = memref.cast %pe : memref<50xf32> to memref<?xf32>
  call @fill(%prv, %half) : (memref<?xf32>, f32) -> ()
  call @fill(%pev, %garbage) : (memref<?xf32>, f32) -> ()
  %pr4 = memref.expand_shape %pr [[0, 1, 2, 3]] output_shape [1, 2, 5, 5] : memref<50xf32> into memref<1x2x5x5xf32>
  %pe4 = memref.expand_shape %pe [[0, 1, 2, 3]] output_shape [1, 2, 5, 5] : memref<50xf32> into memref<1x2x5x5xf32>
  call @poolepi_ref(%px4, %pk, %pr4) : (memref<1x2x5x5xf32>, memref<3x3xf32>, memref<1x2x5x5xf32>) -> ()
  call @poolepi_emulated(%px4, %pk, %pe4) : (memref<1x2x5x5xf32>, memref<3x3xf32>, memref<1x2x5x5xf32>) -> ()
  %l14 = llvm.mlir.addressof @poolepi_label : !llvm.ptr
  call @compare(%l14, %prv, %pev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  // The split reduction, twice.
  %ss_sx = memref.alloc() : memref<2400xf32>
  %ss_sxv = memref.cast %ss_sx : memref<2400xf32> to memref<?xf32>
  call @fill(%ss_sxv, %seed) : (memref<?xf32>, f32) -> ()
  %ss_sx3 = memref.expand_shape %ss_sx [[0, 1, 2]] output_shape [2, 4, 300] : memref<2400xf32> into memref<2x4x300xf32>
  %ss_sp = memref.alloc() : memref<2x4xf32>
  %ss_count = memref.alloc() : memref<1xi32>
  %ss_c0 = arith.constant 0 : index
  %ss_zero_i32 = arith.constant 0 : i32
  memref.store %ss_zero_i32, %ss_count[%ss_c0] : memref<1xi32>
  %ss_sr = memref.alloc() : memref<2xf32>
  %ss_se = memref.alloc() : memref<2xf32>
  %ss_srv = memref.cast %ss_sr : memref<2xf32> to memref<?xf32>
  %ss_sev = memref.cast %ss_se : memref<2xf32> to memref<?xf32>
  call @splitsum_ref(%ss_sx3, %ss_sr) : (memref<2x4x300xf32>, memref<2xf32>) -> ()
  call @splitsum_emulated(%ss_sx3, %ss_sp, %ss_se, %ss_count) : (memref<2x4x300xf32>, memref<2x4xf32>, memref<2xf32>, memref<1xi32>) -> ()
  call @fill(%ss_sev, %garbage) : (memref<?xf32>, f32) -> ()
  call @splitsum_emulated(%ss_sx3, %ss_sp, %ss_se, %ss_count) : (memref<2x4x300xf32>, memref<2x4xf32>, memref<2xf32>, memref<1xi32>) -> ()
  %l15 = llvm.mlir.addressof @splitsum_label : !llvm.ptr
  call @compare(%l15, %ss_srv, %ss_sev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()

  // The padded channel slice.
  %dw_x = memref.alloc() : memref<100xf32>
  %dw_xv = memref.cast %dw_x : memref<100xf32> to memref<?xf32>
  call @fill(%dw_xv, %seed) : (memref<?xf32>, f32) -> ()
  %dw_x4 = memref.expand_shape %dw_x [[0, 1, 2, 3]] output_shape [1, 4, 5, 5] : memref<100xf32> into memref<1x4x5x5xf32>
  %dw_w = memref.alloc() : memref<18xf32>
  %dw_wv = memref.cast %dw_w : memref<18xf32> to memref<?xf32>
  call @fill(%dw_wv, %half) : (memref<?xf32>, f32) -> ()
  %dw_w3 = memref.expand_shape %dw_w [[0, 1, 2]] output_shape [2, 3, 3] : memref<18xf32> into memref<2x3x3xf32>
  %dw_r = memref.alloc() : memref<50xf32>
  %dw_e = memref.alloc() : memref<50xf32>
  %dw_rv = memref.cast %dw_r : memref<50xf32> to memref<?xf32>
  %dw_ev = memref.cast %dw_e : memref<50xf32> to memref<?xf32>
  call @fill(%dw_rv, %half) : (memref<?xf32>, f32) -> ()
  call @fill(%dw_ev, %garbage) : (memref<?xf32>, f32) -> ()
  %dw_r4 = memref.expand_shape %dw_r [[0, 1, 2, 3]] output_shape [1, 2, 5, 5] : memref<50xf32> into memref<1x2x5x5xf32>
  %dw_e4 = memref.expand_shape %dw_e [[0, 1, 2, 3]] output_shape [1, 2, 5, 5] : memref<50xf32> into memref<1x2x5x5xf32>
  call @dwslice_ref(%dw_x4, %dw_w3, %dw_r4) : (memref<1x4x5x5xf32>, memref<2x3x3xf32>, memref<1x2x5x5xf32>) -> ()
  call @dwslice_emulated(%dw_x4, %dw_w3, %dw_e4) : (memref<1x4x5x5xf32>, memref<2x3x3xf32>, memref<1x2x5x5xf32>) -> ()
  %l16 = llvm.mlir.addressof @dwslice_label : !llvm.ptr
  call @compare(%l16, %dw_rv, %dw_ev) : (!llvm.ptr, memref<?xf32>, memref<?xf32>) -> ()
  return
}
