// RUN: tandem-opt %s -tandem-build-cpu-twins | FileCheck %s

// Every lowered kernel (one bare pointer per memref) gets
// `void <kernel>__twin(void **args)`: args[i] points at the i-th device
// pointer. Functions without `tandem.kernel` get none.

// CHECK-LABEL: llvm.func @k_add(
// CHECK-LABEL: llvm.func @k_add__twin(
// CHECK-SAME:    %[[ARGS:.+]]: !llvm.ptr) {
// CHECK-NEXT:    %[[S0:.+]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P0:.+]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[A0:.+]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S1:.+]] = llvm.getelementptr %[[ARGS]][1]
// CHECK-NEXT:    %[[P1:.+]] = llvm.load %[[S1]]
// CHECK-NEXT:    %[[A1:.+]] = llvm.load %[[P1]]
// CHECK-NEXT:    %[[S2:.+]] = llvm.getelementptr %[[ARGS]][2]
// CHECK-NEXT:    %[[P2:.+]] = llvm.load %[[S2]]
// CHECK-NEXT:    %[[A2:.+]] = llvm.load %[[P2]]
// CHECK-NEXT:    llvm.call @k_add(%[[A0]], %[[A1]], %[[A2]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NOT:   @helper__twin

llvm.func @k_add(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) attributes {tandem.kernel} {
  llvm.return
}
llvm.func @helper(%a: !llvm.ptr) {
  llvm.return
}

