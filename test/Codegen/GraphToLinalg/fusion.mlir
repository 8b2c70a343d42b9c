// RUN: tandem-opt -tandem-lower-to-linalg -split-input-file %s | FileCheck %s

// A fusion is lowered in place and inlined: block arguments become its
// operands, every produced op carries tandem.kernel, and its result is the
// yielded value.
// CHECK-LABEL: func.func @output_fusion
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK-NOT: tandem.fusion
// CHECK: tensor.empty() {tandem.kernel = "conv1_relu"} : tensor<1x4x6x6xf32>
// CHECK: %[[BIAS:.+]] = linalg.generic {{.+}} ins(%[[B]] : tensor<4xf32>) {{.+}} attrs = {tandem.kernel = "conv1_relu"}
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nchw_fchw {{.+}}, tandem.kernel = "conv1_relu"} ins(%[[X]], %[[W]] : {{.+}}) outs(%[[BIAS]] : {{.+}})
// CHECK: %[[RELU:.+]] = linalg.generic {{.+}} ins(%[[CONV]] : tensor<1x4x6x6xf32>) {{.+}} attrs = {tandem.kernel = "conv1_relu"}
// CHECK: arith.maximumf
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x4x6x6xf32>
// CHECK: %[[OUT:.+]] = linalg.generic {{.+}} ins(%[[RELU]] : tensor<1x4x6x6xf32>) outs(%[[EMPTY]] : tensor<1x4x6x6xf32>) {
// CHECK: math.exp
// CHECK: return %[[OUT]]
func.func @output_fusion(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %y = tandem.fusion output "conv1_relu" (%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
    %0 = tandem.conv2d %a, %f, %c {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %1 = tandem.relu %0 : tensor<1x4x6x6xf32>
    tandem.yield %1 : tensor<1x4x6x6xf32>
  }
  // Outside the fusion: no tag.
  %z = tandem.exp %y : tensor<1x4x6x6xf32>
  return %z : tensor<1x4x6x6xf32>
}

// -----

// A multi-output fusion replaces each result with its yielded value; two
// fusions keep their own names.
// CHECK-LABEL: func.func @multi_output
// CHECK: %[[E:.+]] = linalg.generic {{.+}} attrs = {tandem.kernel = "exp_neg"}
// CHECK: math.exp
// CHECK: %[[N:.+]] = linalg.generic {{.+}} ins(%[[E]] : {{.+}} attrs = {tandem.kernel = "exp_neg"}
// CHECK: arith.negf
// CHECK: %[[S:.+]] = linalg.generic {{.+}} ins(%[[E]], %[[N]] : {{.+}} attrs = {tandem.kernel = "sum"}
// CHECK: arith.addf
// CHECK: return %[[S]], %[[N]]
func.func @multi_output(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = tandem.fusion multi_output "exp_neg" (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %0 = tandem.exp %a : tensor<4xf32>
    %1 = tandem.neg %0 : tensor<4xf32>
    tandem.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  %s = tandem.fusion loop "sum" (%r#0, %r#1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %0 = tandem.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tandem.yield %0 : tensor<4xf32>
  }
  return %s, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// tandem.transfer and func.call stay; tandem.device is not carried over.
// CHECK-LABEL: func.func @structural
// CHECK: %[[R:.+]] = linalg.generic
// CHECK-NOT: tandem.device
// CHECK: } -> tensor<4xf32>
// CHECK: %[[T:.+]] = tandem.transfer %[[R]] from "/device:CPU:0" to "/device:GPU:0"
// CHECK: call @callee(%[[T]])
func.func private @callee(tensor<4xf32>) -> tensor<4xf32>
func.func @structural(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32>
  %1 = tandem.transfer %0 from "/device:CPU:0" to "/device:GPU:0" : tensor<4xf32>
  %2 = func.call @callee(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
