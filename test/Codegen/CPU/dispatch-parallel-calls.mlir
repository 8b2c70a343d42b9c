// RUN: tandem-opt -tandem-dispatch-parallel-calls -split-input-file -verify-diagnostics %s | FileCheck %s

// A call of an outlined body from a function with the execution context
// becomes tandem_parallel_for on ctx->pool, through a trampoline that loads
// {begin, captures...} from a stack environment.
// CHECK: llvm.func @tandem_parallel_for(!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @model
// CHECK-SAME: (%[[A:[^:]+]]: !llvm.ptr, %[[S:[^:]+]]: f32, %[[CTX:[^:]+]]: !llvm.ptr {tandem.exec_ctx})
// CHECK: %[[ONE:.+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[ENV:.+]] = llvm.alloca %[[ONE]] x !llvm.struct<(i64, ptr, f32)> : (i64) -> !llvm.ptr
// CHECK: %[[B:.+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK: %[[E:.+]] = llvm.mlir.constant(100 : i64) : i64
// CHECK: %[[F0:.+]] = llvm.getelementptr inbounds %[[ENV]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, f32)>
// CHECK-NEXT: llvm.store %[[B]], %[[F0]] : i64, !llvm.ptr
// CHECK-NEXT: %[[F1:.+]] = llvm.getelementptr inbounds %[[ENV]][0, 1]
// CHECK-NEXT: llvm.store %[[A]], %[[F1]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[F2:.+]] = llvm.getelementptr inbounds %[[ENV]][0, 2]
// CHECK-NEXT: llvm.store %[[S]], %[[F2]] : f32, !llvm.ptr
// CHECK-NEXT: %[[POOL:.+]] = llvm.load %[[CTX]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[N:.+]] = llvm.sub %[[E]], %[[B]] : i64
// CHECK-NEXT: %[[G:.+]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: %[[FN:.+]] = llvm.mlir.addressof @__tandem_par_model_0_tramp : !llvm.ptr
// CHECK-NEXT: llvm.call @tandem_parallel_for(%[[POOL]], %[[N]], %[[G]], %[[FN]], %[[ENV]]) : (!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: llvm.call @__tandem_par_model_0(
// CHECK: llvm.return

// CHECK: llvm.func @__tandem_par_model_0(
// CHECK-LABEL: llvm.func internal @__tandem_par_model_0_tramp
// CHECK-SAME: (%[[TENV:[^:]+]]: !llvm.ptr, %[[TB:[^:]+]]: i64, %[[TE:[^:]+]]: i64)
// CHECK-NEXT: %[[P0:.+]] = llvm.getelementptr inbounds %[[TENV]][0, 0]
// CHECK-NEXT: %[[BASE:.+]] = llvm.load %[[P0]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[P1:.+]] = llvm.getelementptr inbounds %[[TENV]][0, 1]
// CHECK-NEXT: %[[LA:.+]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[P2:.+]] = llvm.getelementptr inbounds %[[TENV]][0, 2]
// CHECK-NEXT: %[[LS:.+]] = llvm.load %[[P2]] : !llvm.ptr -> f32
// CHECK-NEXT: %[[LO:.+]] = llvm.add %[[BASE]], %[[TB]] : i64
// CHECK-NEXT: %[[HI:.+]] = llvm.add %[[BASE]], %[[TE]] : i64
// CHECK-NEXT: llvm.call @__tandem_par_model_0(%[[LO]], %[[HI]], %[[LA]], %[[LS]]) : (i64, i64, !llvm.ptr, f32) -> ()
// CHECK-NEXT: llvm.return
llvm.func @model(%a: !llvm.ptr, %s: f32, %ctx: !llvm.ptr {tandem.exec_ctx}) {
  %b = llvm.mlir.constant(4 : i64) : i64
  %e = llvm.mlir.constant(100 : i64) : i64
  llvm.call @__tandem_par_model_0(%b, %e, %a, %s) : (i64, i64, !llvm.ptr, f32) -> ()
  llvm.return
}
llvm.func @__tandem_par_model_0(%begin: i64, %end: i64, %a: !llvm.ptr, %s: f32) attributes {sym_visibility = "private", tandem.parallel_grain = 3 : i64} {
  llvm.return
}

// -----

// Two calls of one body share the trampoline; each call site has its own
// environment. A function without the context keeps the serial call.
// CHECK-LABEL: llvm.func @twice
// CHECK-COUNT-2: llvm.alloca
// CHECK-COUNT-2: llvm.call @tandem_parallel_for
// CHECK-LABEL: llvm.func @helper
// CHECK-NOT: tandem_parallel_for
// CHECK: llvm.call @__tandem_par_twice_0(
// CHECK-COUNT-1: llvm.func internal @__tandem_par_twice_0_tramp
// CHECK-NOT: _tramp
llvm.func @twice(%a: !llvm.ptr, %ctx: !llvm.ptr {tandem.exec_ctx}) {
  %b = llvm.mlir.constant(0 : i64) : i64
  %e = llvm.mlir.constant(64 : i64) : i64
  llvm.call @__tandem_par_twice_0(%b, %e, %a) : (i64, i64, !llvm.ptr) -> ()
  llvm.call @__tandem_par_twice_0(%b, %e, %a) : (i64, i64, !llvm.ptr) -> ()
  llvm.return
}
llvm.func @helper(%a: !llvm.ptr) {
  %b = llvm.mlir.constant(0 : i64) : i64
  %e = llvm.mlir.constant(64 : i64) : i64
  llvm.call @__tandem_par_twice_0(%b, %e, %a) : (i64, i64, !llvm.ptr) -> ()
  llvm.return
}
llvm.func @__tandem_par_twice_0(%begin: i64, %end: i64, %a: !llvm.ptr) attributes {tandem.parallel_grain = 1 : i64} {
  llvm.return
}

// -----

llvm.func @bad(%ctx: !llvm.ptr {tandem.exec_ctx}) {
  %b = llvm.mlir.constant(0 : i32) : i32
  llvm.call @__tandem_par_bad_0(%b) : (i32) -> ()
  llvm.return
}
// expected-error @below {{outlined loop body must take (i64 begin, i64 end, ...), return nothing and have an integer grain}}
llvm.func @__tandem_par_bad_0(%begin: i32) attributes {tandem.parallel_grain = 1 : i64} {
  llvm.return
}
