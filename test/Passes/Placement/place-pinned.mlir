// RUN: tandem-opt %s -split-input-file -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic pins=classifier*=/device:CPU:0,tandem.exp=gpu:0" | FileCheck %s

// A glob on ONNX node names pins a heavy op to the host against the cost
// model; a pin on an op name moves a tiny op to the GPU.
// CHECK-LABEL: func.func @pinned
// CHECK: tandem.matmul {{.*}}#tandem.device<"/device:CPU:0">
// CHECK: tandem.exp {{.*}}#tandem.device<"/device:GPU:0">
func.func @pinned(%x: tensor<256x1024xf32>, %w: tensor<1024x1024xf32>) -> tensor<256x1024xf32> {
  %0 = tandem.matmul %x, %w : (tensor<256x1024xf32>, tensor<1024x1024xf32>) -> tensor<256x1024xf32> loc("classifier.fc")
  %1 = tandem.exp %0 : tensor<256x1024xf32> loc("head")
  return %1 : tensor<256x1024xf32>
}

// -----

// A tandem.device already in the IR is honoured, even where the cost model
// would choose otherwise.
// CHECK-LABEL: func.func @pinned_in_ir
// CHECK: tandem.relu {{.*}}#tandem.device<"/device:GPU:0">
// CHECK: tandem.softmax {{.*}}#tandem.device<"/device:CPU:0">
func.func @pinned_in_ir(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
  %1 = tandem.softmax %0 {axis = 0 : i64} : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
