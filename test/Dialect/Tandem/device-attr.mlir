// The #tandem.device attribute parses TensorFlow's spellings and always
// prints the canonical "/device:<KIND>:<n>".
// RUN: tandem-opt %s | FileCheck %s

// CHECK-LABEL: func.func @spellings
func.func @spellings(%x: tensor<4xf32>) {
  // CHECK: tandem.device = #tandem.device<"/device:CPU:0">
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32>
  // CHECK: tandem.device = #tandem.device<"/device:GPU:1">
  %1 = tandem.relu %x {tandem.device = #tandem.device<"/job:localhost/replica:0/task:0/device:GPU:1">} : tensor<4xf32>
  // CHECK: tandem.device = #tandem.device<"/device:GPU:0">
  %2 = tandem.relu %x {tandem.device = #tandem.device<"gpu">} : tensor<4xf32>
  // CHECK: tandem.device = #tandem.device<"/device:CPU:3">
  %3 = tandem.relu %x {tandem.device = #tandem.device<"cpu:3">} : tensor<4xf32>
  return
}

// The attribute also stands on its own, e.g. on a module.
// CHECK: module attributes {test.default_device = #tandem.device<"/device:GPU:2">}
module attributes {test.default_device = #tandem.device<"/device:GPU:2">} {
}
