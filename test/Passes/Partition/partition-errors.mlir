// RUN: tandem-opt %s -split-input-file -verify-diagnostics -tandem-partition

func.func @unplaced(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tandem.exp' op 'exp#0' has no device: run tandem-place first}}
  %a = tandem.exp %x : tensor<8xf32>
  return %a : tensor<8xf32>
}

// -----

func.func @already_transferred(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tandem.transfer' op cannot be partitioned: only tandem compute ops may appear in a function before partitioning}}
  %a = tandem.transfer %x from "/device:CPU:0" to "/device:GPU:0" : tensor<8xf32>
  return %a : tensor<8xf32>
}
