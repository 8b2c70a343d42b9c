// RUN: not tandem-opt %s -tandem-build-cpu-twins 2>&1 | FileCheck %s

// A kernel lowered without bare pointers cannot be wrapped.

// CHECK: 'llvm.func' op takes 'i64' as argument 0: a CPU twin needs one bare pointer per memref (lower with use-bare-ptr-memref-call-conv=1)
llvm.func @k_bad(%a: i64) attributes {tandem.kernel} {
  llvm.return
}
