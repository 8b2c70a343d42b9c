// Output fusions: a conv2d/matmul/gemm root takes its elementwise epilogue
// (bias, batch norm, activations, the residual add) but no prologue.
// RUN: tandem-opt %s -tandem-fuse -split-input-file | FileCheck %s
// Fusing fused IR changes nothing.
// RUN: tandem-opt %s -tandem-fuse -tandem-fuse -split-input-file | FileCheck %s

// Conv + BiasAdd + ReLU is one output fusion named after the conv.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK: %[[F:.+]] = tandem.fusion output "fusion.conv1"(%arg0, %arg1, %arg2)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[C:.+]] = tandem.conv2d
// CHECK-NEXT: %[[B:.+]] = tandem.bias_add %[[C]]
// CHECK-NEXT: %[[R:.+]] = tandem.relu %[[B]]
// CHECK-NEXT: tandem.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                          %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tandem.conv2d %x, %w {dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv1")
  %1 = tandem.bias_add %0, %b : (tensor<1x4x6x6xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> loc("bias1")
  %2 = tandem.relu %1 : tensor<1x4x6x6xf32> loc("relu1")
  return %2 : tensor<1x4x6x6xf32>
}

// -----

// The residual block epilogue: Conv + BiasAdd + Add(residual) + ReLU is one
// fusion; the residual arrives as an operand.
// CHECK-LABEL: func.func @residual_epilogue
// CHECK: %[[F:.+]] = tandem.fusion output "fusion.conv2"(%arg0, %arg1, %arg2, %arg3)
// CHECK: tandem.conv2d
// CHECK-NEXT: tandem.bias_add
// CHECK-NEXT: %[[ADD:.+]] = tandem.add %{{.+}}, %arg7
// CHECK-NEXT: %[[R:.+]] = tandem.relu %[[ADD]]
// CHECK-NEXT: tandem.yield %[[R]]
// CHECK-NOT: tandem.fusion
// CHECK: return %[[F]]
func.func @residual_epilogue(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x3x3xf32>,
                             %b: tensor<4xf32>, %res: tensor<1x4x6x6xf32>)
    -> tensor<1x4x6x6xf32> {
  %0 = tandem.conv2d %x, %w {dilations = array<i64: 1, 1>,
      pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv2")
  %1 = tandem.bias_add %0, %b : (tensor<1x4x6x6xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %2 = tandem.add %1, %res : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %3 = tandem.relu %2 : tensor<1x4x6x6xf32>
  return %3 : tensor<1x4x6x6xf32>
}

// -----

// Batch norm (a per-channel affine in inference) and ReLU6 are epilogue ops.
// CHECK-LABEL: func.func @conv_bn_relu6
// CHECK: tandem.fusion output "fusion.conv3"
// CHECK: tandem.conv2d
// CHECK-NEXT: tandem.batch_norm
// CHECK-NEXT: tandem.clip
// CHECK-NEXT: tandem.yield
// CHECK-NOT: tandem.fusion
func.func @conv_bn_relu6(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                         %s: tensor<4xf32>, %b: tensor<4xf32>,
                         %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> tensor<1x4x6x6xf32> {
  %0 = tandem.conv2d %x, %w {dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv3")
  %1 = tandem.batch_norm %0, %s, %b, %m, %v
      : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
         tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %2 = tandem.clip %1 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}

// -----

// Gemm + SiLU (x * sigmoid(x)): the gemm result feeds two epilogue ops and
// stays inside; only the product leaves the fusion.
// CHECK-LABEL: func.func @gemm_silu
// CHECK: %[[F:.+]] = tandem.fusion output "fusion.fc"
// CHECK: %[[G:.+]] = tandem.gemm
// CHECK-NEXT: %[[S:.+]] = tandem.sigmoid %[[G]]
// CHECK-NEXT: %[[M:.+]] = tandem.mul %[[G]], %[[S]]
// CHECK-NEXT: tandem.yield %[[M]]
// CHECK: return %[[F]]
func.func @gemm_silu(%a: tensor<2x8xf32>, %w: tensor<16x8xf32>,
                     %c: tensor<16xf32>) -> tensor<2x16xf32> {
  %0 = tandem.gemm %a, %w, %c {trans_b = true}
      : (tensor<2x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x16xf32> loc("fc")
  %1 = tandem.sigmoid %0 : tensor<2x16xf32>
  %2 = tandem.mul %0, %1 : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  return %2 : tensor<2x16xf32>
}

// -----

// No prologue: the transpose feeding the matmul stays its own (loop)
// kernel; the bias add after the matmul joins it.
// CHECK-LABEL: func.func @no_prologue
// CHECK: %[[T:.+]] = tandem.fusion loop "fusion.t"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.transpose
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion output "fusion.mm"(%[[T]], %arg1, %arg2)
// CHECK: tandem.matmul
// CHECK-NEXT: tandem.add
// CHECK-NEXT: tandem.yield
func.func @no_prologue(%x: tensor<8x4xf32>, %w: tensor<8x16xf32>,
                       %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = tandem.transpose %x {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32> loc("t")
  %1 = tandem.matmul %0, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> loc("mm")
  %2 = tandem.add %1, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// Two matrix ops never share a fusion, and an epilogue op that changes the
// iteration space (a reduction) starts its own.
// CHECK-LABEL: func.func @two_matmuls
// CHECK: tandem.fusion output "fusion.mm1"
// CHECK: tandem.matmul
// CHECK-NEXT: tandem.relu
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion output "fusion.mm2"
// CHECK: tandem.matmul
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion input "fusion.sum"
func.func @two_matmuls(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4xf32> {
  %0 = tandem.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc("mm1")
  %1 = tandem.relu %0 : tensor<4x4xf32>
  %2 = tandem.matmul %1, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc("mm2")
  %3 = tandem.reduce_sum %2 {axes = array<i64: 1>, keepdims = false} : tensor<4x4xf32> -> tensor<4xf32> loc("sum")
  return %3 : tensor<4xf32>
}
