// RUN: tandem-opt -tandem-approximate-math %s | FileCheck %s
// The approximations against libm, under mlir-runner: the largest relative
// error (against max(|libm|, 1e-30)) of exp over [-87, 88], of erf and
// tanh over [-6, 6], at 20001 points each, and exp(-inf), exp(+inf).
// REQUIRES: mlir-runner
// RUN: tandem-opt -tandem-approximate-math %s \
// RUN: | tandem-opt --pass-pipeline="builtin.module(convert-scf-to-cf,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)" \
// RUN: | %mlir_runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s --check-prefix=NUM

// f32 exp, expm1, erf and tanh become arithmetic; f64 keeps math.exp.
// CHECK-LABEL: func.func @ops
// CHECK-NOT: math.exp %{{.*}} : f32
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.expm1
// CHECK: math.exp %{{.*}} : f64
func.func @ops(%x: f32, %y: f64) -> (f32, f32, f32, f32, f64) {
  %e = math.exp %x : f32
  %m = math.expm1 %x : f32
  %r = math.erf %x : f32
  %t = math.tanh %x : f32
  %d = math.exp %y : f64
  return %e, %m, %r, %t, %d : f32, f32, f32, f32, f64
}

// NUM: exp rel err {{[0-9.e-]+}} {{ok}}
// NUM: erf rel err {{[0-9.e-]+}} {{ok}}
// NUM: tanh rel err {{[0-9.e-]+}} {{ok}}
// NUM: exp(-inf) 0 exp(inf) inf

func.func private @expf(f32) -> f32
func.func private @erff(f32) -> f32
func.func private @tanhf(f32) -> f32
func.func private @printF32(f32)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)

llvm.mlir.global internal constant @exp_label("exp rel err \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @erf_label("erf rel err \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @tanh_label("tanh rel err \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @ok_label(" ok\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @bad_label(" TOO LARGE\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @inf_label("exp(-inf) \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @pinf_label(" exp(inf) \00") {addr_space = 0 : i32}

/// Prints "<label><max relative error> ok" (or TOO LARGE above 2e-6) for
/// `which` (0 exp, 1 erf, 2 tanh) at lo + i * (hi - lo) / 20000.
func.func @sweep(%which: i32, %lo: f32, %hi: f32, %label: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 20001 : index
  %steps = arith.constant 20000.0 : f32
  %zero = arith.constant 0.0 : f32
  %tiny = arith.constant 1.0e-30 : f32
  %width = arith.subf %hi, %lo : f32
  %step = arith.divf %width, %steps : f32
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %worst = scf.for %i = %c0 to %n step %c1 iter_args(%w = %zero) -> (f32) {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %off = arith.mulf %fi, %step : f32
    %x = arith.addf %lo, %off : f32
    %is0 = arith.cmpi eq, %which, %i0 : i32
    %is1 = arith.cmpi eq, %which, %i1 : i32
    %pair:2 = scf.if %is0 -> (f32, f32) {
      %a = math.exp %x : f32
      %r = func.call @expf(%x) : (f32) -> f32
      scf.yield %a, %r : f32, f32
    } else {
      %p:2 = scf.if %is1 -> (f32, f32) {
        %a = math.erf %x : f32
        %r = func.call @erff(%x) : (f32) -> f32
        scf.yield %a, %r : f32, f32
      } else {
        %a = math.tanh %x : f32
        %r = func.call @tanhf(%x) : (f32) -> f32
        scf.yield %a, %r : f32, f32
      }
      scf.yield %p#0, %p#1 : f32, f32
    }
    %d = arith.subf %pair#0, %pair#1 : f32
    %ad = math.absf %d : f32
    %ar = math.absf %pair#1 : f32
    %den = arith.maximumf %ar, %tiny : f32
    %rel = arith.divf %ad, %den : f32
    %w2 = arith.maximumf %w, %rel : f32
    scf.yield %w2 : f32
  }
  call @printString(%label) : (!llvm.ptr) -> ()
  call @printF32(%worst) : (f32) -> ()
  %limit = arith.constant 2.0e-6 : f32
  %ok = arith.cmpf ole, %worst, %limit : f32
  scf.if %ok {
    %l = llvm.mlir.addressof @ok_label : !llvm.ptr
    func.call @printString(%l) : (!llvm.ptr) -> ()
  } else {
    %l = llvm.mlir.addressof @bad_label : !llvm.ptr
    func.call @printString(%l) : (!llvm.ptr) -> ()
  }
  call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %elo = arith.constant -87.0 : f32
  %ehi = arith.constant 88.0 : f32
  %lo = arith.constant -6.0 : f32
  %hi = arith.constant 6.0 : f32
  %l0 = llvm.mlir.addressof @exp_label : !llvm.ptr
  %l1 = llvm.mlir.addressof @erf_label : !llvm.ptr
  %l2 = llvm.mlir.addressof @tanh_label : !llvm.ptr
  call @sweep(%c0, %elo, %ehi, %l0) : (i32, f32, f32, !llvm.ptr) -> ()
  call @sweep(%c1, %lo, %hi, %l1) : (i32, f32, f32, !llvm.ptr) -> ()
  call @sweep(%c2, %lo, %hi, %l2) : (i32, f32, f32, !llvm.ptr) -> ()
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e0 = math.exp %ninf : f32
  %e1 = math.exp %pinf : f32
  %li = llvm.mlir.addressof @inf_label : !llvm.ptr
  call @printString(%li) : (!llvm.ptr) -> ()
  call @printF32(%e0) : (f32) -> ()
  %lp = llvm.mlir.addressof @pinf_label : !llvm.ptr
  call @printString(%lp) : (!llvm.ptr) -> ()
  call @printF32(%e1) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}
