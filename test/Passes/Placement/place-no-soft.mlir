// With soft placement off, a pin the target cannot honour is an error.
// RUN: tandem-opt %s -split-input-file -verify-diagnostics -tandem-place="targets=cpu cpu-model=generic soft-placement=false pins=matmul=gpu:0"

func.func @missing_device(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'matmul#0' (tandem.matmul) is pinned to /device:GPU:0 by --place 'matmul=gpu:0', but the target has no /device:GPU:0 (soft placement is off)}}
  %0 = tandem.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
