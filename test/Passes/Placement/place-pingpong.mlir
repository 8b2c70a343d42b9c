// RUN: tandem-opt %s -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic report=-" | FileCheck %s

// A cheap op stranded between GPU ops would run faster on the host alone,
// but moving it there costs two copies: it stays on the GPU, and the report
// says why.
// CHECK-LABEL: placement of @sandwich
// CHECK: fc1       {{.*}}/device:GPU:0   cheaper
// CHECK: scale     {{.*}}/device:GPU:0   avoids transfers
// CHECK: fc2       {{.*}}/device:GPU:0   cheaper
// CHECK: estimated latency {{.*}}; 2 transfers
// CHECK-LABEL: func.func @sandwich
// CHECK: tandem.matmul {{.*}}#tandem.device<"/device:GPU:0">
// CHECK: tandem.softmax {{.*}}#tandem.device<"/device:GPU:0">
// CHECK: tandem.matmul {{.*}}#tandem.device<"/device:GPU:0">
func.func @sandwich(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %w = tandem.constant dense<0.5> : tensor<1024x1024xf32>
  %0 = tandem.matmul %x, %w : (tensor<8x1024xf32>, tensor<1024x1024xf32>) -> tensor<8x1024xf32> loc("fc1")
  %1 = tandem.softmax %0 {axis = 1 : i64} : tensor<8x1024xf32> -> tensor<8x1024xf32> loc("scale")
  %2 = tandem.matmul %1, %w : (tensor<8x1024xf32>, tensor<1024x1024xf32>) -> tensor<8x1024xf32> loc("fc2")
  return %2 : tensor<8x1024xf32>
}
