// RUN: tandem-opt -tandem-map-kernels-to-gpu -split-input-file -verify-diagnostics %s

// Two linalg ops, and the first is no prologue of the second (it writes
// another buffer): an error, not a kernel that silently drops one.
// expected-error@+1 {{'func.func' op is a kernel with more than one linalg op, and 'linalg.fill' is not a prologue of its last one}}
func.func private @two_ops(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel} {
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%cst : f32) outs(%a : memref<4xf32>)
  linalg.fill ins(%cst : f32) outs(%b : memref<4xf32>)
  return
}

// -----

// A kernel without any linalg op.
// expected-error@+1 {{'func.func' op is a kernel without a linalg op}}
func.func private @empty(%a: memref<4xf32>) attributes {tandem.kernel} {
  return
}

// -----

// A row kernel whose op does not run row by row: its first loop, a row, is
// a reduction.
func.func private @not_rows(%a: memref<4x64xf32>, %b: memref<64xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 4>} {
  // expected-error@+1 {{'linalg.generic' op cannot be a stage of a row kernel over rows of trip counts [4]: its leading loops must be parallel with those trip counts (unit loops aside), the others all parallel, all associative reductions, or parallel then reductions}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4x64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The row kernel attribute lists trip counts above 1 (unit loops are left
// out).
// expected-error@+1 {{'tandem.row_kernel' must be an array<i64> of trip counts above 1 on a kernel function}}
func.func private @unit_rows(%a: memref<4xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 4, 1>} {
  return
}

// -----

// A row kernel whose second stage reads the first one's output in other
// rows (transposed).
func.func private @cross_rows(%a: memref<8x64xf32>, %b: memref<8x8xf32>) attributes {tandem.kernel, tandem.row_kernel = array<i64: 8>} {
  %s = memref.alloc() : memref<8xf32>
  // expected-error@+1 {{'linalg.generic' op starts a row kernel whose stages read rows other than their own of a buffer the kernel writes}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A tandem.kernel_epilogue op that does not read the main op's output (it
// would run on nothing the main op computes): an error.
// expected-error@+1 {{'func.func' op has a 'tandem.kernel_epilogue' op that is no pointwise epilogue of its main op}}
func.func private @stray_epilogue(%x: memref<4x8xf32>, %y: memref<4xf32>, %z: memref<4xf32>) attributes {tandem.kernel} {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%y : memref<4xf32>) outs(%z : memref<4xf32>) attrs = {tandem.kernel_epilogue} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// tandem.split_arrivals on a kernel whose last argument is no counter.
// expected-error@+1 {{'func.func' op has 'tandem.split_arrivals' but its last argument is not a memref<1xi32> counter}}
func.func private @no_counter(%x: memref<1x64x1024xf32>, %p: memref<1x64xf32>, %y: memref<1xf32>) attributes {tandem.kernel, tandem.split_arrivals} {
  return
}

// -----

// tandem.split_arrivals on a kernel that ends with no split combination.
// expected-error@+1 {{'func.func' op has 'tandem.split_arrivals' but its last linalg op is no split reduction's combination}}
func.func private @no_combine(%x: memref<1x64x1024xf32>, %p: memref<1x64xf32>, %c: memref<1xi32>) attributes {tandem.kernel, tandem.split_arrivals} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<1x64x1024xf32>) outs(%p : memref<1x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A combination whose partial results no block reduction of the kernel
// computes (it reads an argument).
// expected-error@+1 {{'func.func' op has 'tandem.split_arrivals' but no block reduction of partial results before the combination that reads them}}
func.func private @no_partials(%p: memref<1x64xf32>, %y: memref<1xf32>, %c: memref<1xi32>) attributes {tandem.kernel, tandem.split_arrivals} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%p : memref<1x64xf32>) outs(%y : memref<1xf32>) attrs = {tandem.split_combine} {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}
