// Folding of tandem ops on unsigned and narrow integer constants: the
// unsigned types fold with unsigned semantics.
// RUN: tandem-opt %s -canonicalize -split-input-file | FileCheck %s

// ui8: 250 / 3 is 83, max(200, 100) is 200, 250 mod 7 is 5.
// CHECK-LABEL: func.func @unsigned_folds
// CHECK-DAG: tandem.constant dense<83> : tensor<ui8>
// CHECK-DAG: tandem.constant dense<200> : tensor<ui8>
// CHECK-DAG: tandem.constant dense<100> : tensor<ui8>
// CHECK-DAG: tandem.constant dense<5> : tensor<ui8>
// CHECK-NOT: tandem.div
// CHECK-NOT: tandem.max
// CHECK-NOT: tandem.min
// CHECK-NOT: tandem.mod
func.func @unsigned_folds() -> (tensor<ui8>, tensor<ui8>, tensor<ui8>,
                                tensor<ui8>) {
  %a = tandem.constant dense<250> : tensor<ui8>
  %b = tandem.constant dense<3> : tensor<ui8>
  %c = tandem.constant dense<200> : tensor<ui8>
  %d = tandem.constant dense<100> : tensor<ui8>
  %e = tandem.constant dense<7> : tensor<ui8>
  %0 = tandem.div %a, %b : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  %1 = tandem.max %c, %d : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  %2 = tandem.min %c, %d : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  %3 = tandem.mod %a, %e : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  return %0, %1, %2, %3 : tensor<ui8>, tensor<ui8>, tensor<ui8>, tensor<ui8>
}

// -----

// The same bits as i8 (-6 / 3, max(-56, 100)) fold signed.
// CHECK-LABEL: func.func @signed_folds
// CHECK-DAG: tandem.constant dense<-2> : tensor<i8>
// CHECK-DAG: tandem.constant dense<100> : tensor<i8>
func.func @signed_folds() -> (tensor<i8>, tensor<i8>) {
  %a = tandem.constant dense<-6> : tensor<i8>
  %b = tandem.constant dense<3> : tensor<i8>
  %c = tandem.constant dense<-56> : tensor<i8>
  %d = tandem.constant dense<100> : tensor<i8>
  %0 = tandem.div %a, %b : (tensor<i8>, tensor<i8>) -> tensor<i8>
  %1 = tandem.max %c, %d : (tensor<i8>, tensor<i8>) -> tensor<i8>
  return %0, %1 : tensor<i8>, tensor<i8>
}

// -----

// Casts from unsigned constants zero-extend (ui8 255 -> i32 255), from
// signed ones sign-extend (i8 -1 -> ui16 65535); relu and abs of unsigned
// values are the values.
// CHECK-LABEL: func.func @unsigned_casts_relu
// CHECK-SAME: (%[[X:.+]]: tensor<4xui8>)
// CHECK-DAG: tandem.constant dense<255> : tensor<i32>
// CHECK-DAG: tandem.constant dense<65535> : tensor<ui16>
// CHECK-NOT: tandem.cast
// CHECK-NOT: tandem.relu
// CHECK-NOT: tandem.abs
// CHECK: return %{{.+}}, %{{.+}}, %[[X]], %[[X]]
func.func @unsigned_casts_relu(%x: tensor<4xui8>)
    -> (tensor<i32>, tensor<ui16>, tensor<4xui8>, tensor<4xui8>) {
  %a = tandem.constant dense<255> : tensor<ui8>
  %b = tandem.constant dense<-1> : tensor<i8>
  %0 = tandem.cast %a {to = i32} : tensor<ui8> -> tensor<i32>
  %1 = tandem.cast %b {to = ui16} : tensor<i8> -> tensor<ui16>
  %2 = tandem.relu %x : tensor<4xui8>
  %3 = tandem.abs %x : tensor<4xui8>
  return %0, %1, %2, %3 : tensor<i32>, tensor<ui16>, tensor<4xui8>,
      tensor<4xui8>
}
