// fusion-report lists every fusion (kind, members by node name, estimated
// bytes saved) and every rejected candidate with its reason, as JSON.
// RUN: tandem-opt %s -tandem-fuse=fusion-report=%t.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: tandem-opt %s '-tandem-fuse=fusion-report=- disable-fusion=multi_output' -o /dev/null | FileCheck %s --check-prefix=NOMULTI
// RUN: tandem-opt %s '-tandem-fuse=fusion-report=- max-ops=2' -o /dev/null | FileCheck %s --check-prefix=MAXOPS
// RUN: tandem-opt %s '-tandem-fuse=fusion-report=- max-operands=2' -o /dev/null | FileCheck %s --check-prefix=MAXOPERANDS
// RUN: not tandem-opt %s -tandem-fuse=fusion-report=%t.missing/dir/report.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFILE

// BADFILE: error: cannot write the fusion report: cannot open output file '{{.*}}report.json'

// The conv and its relu: 576 bytes not written and 576 not read back.
// CHECK: "functions": [
// CHECK: "function": "explain",
// CHECK-NEXT: "fusions": [
// CHECK-NEXT: {
// CHECK-NEXT: "bytes_saved": 1152,
// CHECK-NEXT: "device": "/device:CPU:0",
// CHECK-NEXT: "inputs": 2,
// CHECK-NEXT: "kind": "output",
// CHECK-NEXT: "members": [
// CHECK-NEXT: "conv",
// CHECK-NEXT: "relu"
// CHECK-NEXT: ],
// CHECK-NEXT: "name": "fusion.conv",
// CHECK-NEXT: "outputs": 1,
// CHECK-NEXT: "root": "conv"
// CHECK-NEXT: },
// CHECK: "kernels": 7,
// CHECK-NEXT: "ops": 8,
// CHECK-NEXT: "rejected": [
// CHECK-DAG: "reason": "would cross devices (/device:GPU:0 and /device:CPU:0)",
// CHECK-DAG: "reason": "would create cycle through 'mm'",
// CHECK-DAG: "reason": "'tandem.transfer' is a fusion barrier",
// CHECK-DAG: "reason": "matrix op 'mm' takes no fused prologue ('exp' feeds it)",
func.func @explain(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                   %y: tensor<4xf32>, %a: tensor<4x4xf32>, %b: tensor<4x4xf32>)
    -> (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<4xf32>) {
  %0 = tandem.conv2d %x, %w {dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>,
      tandem.device = #tandem.device<"/device:CPU:0">}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv")
  %1 = tandem.relu %0 {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<1x4x6x6xf32> loc("relu")
  %2 = tandem.neg %y {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32> loc("gpu_neg")
  %3 = tandem.abs %2 {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32> loc("cpu_abs")
  %4 = tandem.exp %a {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4x4xf32> loc("exp")
  %5 = tandem.matmul %4, %b {tandem.device = #tandem.device<"/device:CPU:0">} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc("mm")
  %6 = tandem.concat %4, %5 {axis = 0 : i64, tandem.device = #tandem.device<"/device:CPU:0">} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> loc("cat")
  %7 = tandem.transfer %2 from "/device:GPU:0" to "/device:CPU:0" : tensor<4xf32>
  %8 = tandem.sqrt %7 {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32> loc("sqrt")
  return %1, %3, %6, %8 : tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<4xf32>
}

// Without multi-output fusions the expensive exp cannot be duplicated nor
// fused into one of its two consumers.
// CHECK: "function": "expensive",
// CHECK: "kernels": 1,
// NOMULTI: "function": "expensive",
// NOMULTI: "kernels": 3,
// NOMULTI: "rejected": [
// NOMULTI-DAG: "reason": "producer too expensive to duplicate and 'multi_output' fusion is disabled",
// NOMULTI-DAG: "reason": "would return 2 values and 'multi_output' fusion is disabled",
func.func @expensive(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tandem.exp %x : tensor<4xf32> loc("exp")
  %1 = tandem.neg %0 : tensor<4xf32> loc("neg")
  %2 = tandem.tanh %0 : tensor<4xf32> loc("tanh")
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// The size and operand limits.
// MAXOPS: "function": "limits",
// MAXOPS: "reason": "size limit: 3 ops > max-ops=2",
// MAXOPERANDS: "function": "limits",
// MAXOPERANDS: "reason": "operand limit: 3 operands > max-operands=2",
func.func @limits(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("one")
  %1 = tandem.relu %0 : tensor<4xf32> loc("two")
  %2 = tandem.add %1, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("three")
  return %2 : tensor<4xf32>
}
