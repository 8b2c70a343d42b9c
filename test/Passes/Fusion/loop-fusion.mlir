// Loop fusions: elementwise, broadcast and cheap layout ops in one loop
// nest; small constants are cloned in, weights stay operands.
// RUN: tandem-opt %s -tandem-fuse -split-input-file | FileCheck %s

// GELU as exported before opset 20 (x * 0.5 * (1 + erf(x / sqrt 2))) is one
// loop fusion named after its last node; its constants are cloned in.
// CHECK-LABEL: func.func @gelu
// CHECK-NOT: tandem.constant
// CHECK: %[[F:.+]] = tandem.fusion loop "fusion.gelu_Mul_1"(%arg0)
// CHECK-DAG: tandem.constant dense<1.41421354>
// CHECK-DAG: tandem.constant dense<1.000000e+00>
// CHECK-DAG: tandem.constant dense<5.000000e-01>
// CHECK: tandem.div
// CHECK-NEXT: tandem.erf
// CHECK-NEXT: tandem.add
// CHECK-NEXT: tandem.mul
// CHECK-NEXT: %[[Y:.+]] = tandem.mul
// CHECK-NEXT: tandem.yield %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @gelu(%x: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %sqrt2 = tandem.constant dense<1.41421354> : tensor<f32>
  %one = tandem.constant dense<1.0> : tensor<f32>
  %half = tandem.constant dense<0.5> : tensor<f32>
  %0 = tandem.div %x, %sqrt2 : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32> loc("/gelu/Div")
  %1 = tandem.erf %0 : tensor<1x4x16xf32> loc("/gelu/Erf")
  %2 = tandem.add %1, %one : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32> loc("/gelu/Add")
  %3 = tandem.mul %x, %2 : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32> loc("/gelu/Mul")
  %4 = tandem.mul %3, %half : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32> loc("/gelu/Mul_1")
  return %4 : tensor<1x4x16xf32>
}

// -----

// x * scale + shift -> sigmoid -> mul, with a transpose and a broadcast in
// between: one loop nest. The 64-element non-splat scale is a weight and
// stays an operand.
// CHECK-LABEL: func.func @affine_sigmoid_gate
// CHECK: %[[SCALE:.+]] = tandem.constant dense<[
// CHECK: tandem.fusion loop "fusion.gate"(%arg0, %[[SCALE]], %arg1)
// CHECK: tandem.transpose
// CHECK-NEXT: tandem.mul
// CHECK-NEXT: tandem.add
// CHECK-NEXT: tandem.sigmoid
// CHECK-NEXT: tandem.broadcast_to
// CHECK-NEXT: tandem.mul
// CHECK-NEXT: tandem.yield
// CHECK-NOT: tandem.fusion
func.func @affine_sigmoid_gate(%x: tensor<64x2xf32>, %g: tensor<1x64xf32>) -> tensor<2x64xf32> {
  %scale = tandem.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]> : tensor<64xf32>
  %shift = tandem.constant dense<0.5> : tensor<f32>
  %t = tandem.transpose %x {perm = array<i64: 1, 0>} : tensor<64x2xf32> -> tensor<2x64xf32>
  %0 = tandem.mul %t, %scale : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
  %1 = tandem.add %0, %shift : (tensor<2x64xf32>, tensor<f32>) -> tensor<2x64xf32>
  %2 = tandem.sigmoid %1 : tensor<2x64xf32>
  %b = tandem.broadcast_to %g {shape = array<i64: 2, 64>} : tensor<1x64xf32> -> tensor<2x64xf32>
  %3 = tandem.mul %2, %b : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32> loc("gate")
  return %3 : tensor<2x64xf32>
}

// -----

// Every kernel-producing op ends up in exactly one fusion, single ops
// included; unnamed roots get "<op>_<position>" names, unique within the
// function.
// CHECK-LABEL: func.func @singletons
// CHECK: tandem.fusion loop "fusion.max_pool2d_0"
// CHECK: tandem.fusion output "fusion.same"
// CHECK: tandem.fusion output "fusion.same_1"
func.func @singletons(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %0 = tandem.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  %1 = tandem.conv2d %0, %w {dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32> loc("same")
  %2 = tandem.conv2d %0, %w {dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32> loc("same")
  return %1, %2 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

// Pooling windows overlap, so a producer is not fused into a pool (it would
// be recomputed per window); elementwise consumers of a pool are.
// CHECK-LABEL: func.func @pool_windows
// CHECK: %[[R:.+]] = tandem.fusion loop "fusion.relu"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.relu
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion loop "fusion.neg"(%[[R]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.max_pool2d
// CHECK-NEXT: tandem.neg
// CHECK-NEXT: tandem.yield
func.func @pool_windows(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = tandem.relu %x : tensor<1x1x4x4xf32> loc("relu")
  %1 = tandem.max_pool2d %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32> loc("pool")
  %2 = tandem.neg %1 : tensor<1x1x2x2xf32> loc("neg")
  return %2 : tensor<1x1x2x2xf32>
}

// -----

// Ops nobody reads are dead code and go (a fusion must return something).
// CHECK-LABEL: func.func @dead_code
// CHECK-NOT: tandem.exp
// CHECK: tandem.fusion loop "fusion.live"
// CHECK-NOT: tandem.exp
func.func @dead_code(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.exp %x : tensor<4xf32> loc("dead")
  %1 = tandem.neg %0 : tensor<4xf32> loc("dead_too")
  %2 = tandem.relu %x : tensor<4xf32> loc("live")
  return %2 : tensor<4xf32>
}

// -----

// cumsum reads each input element once per output element after it, so like
// a pool it takes no producer (it would be recomputed); its elementwise
// consumer joins it.
// CHECK-LABEL: func.func @tanh_cumsum
// CHECK: %[[T:.+]] = tandem.fusion loop "fusion.tanh"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.tanh
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion loop "fusion.neg"(%[[T]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.cumsum
// CHECK-NEXT: tandem.neg
// CHECK-NEXT: tandem.yield
func.func @tanh_cumsum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tandem.tanh %x : tensor<4x8xf32> loc("tanh")
  %1 = tandem.cumsum %0 {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4x8xf32> loc("cumsum")
  %2 = tandem.neg %1 : tensor<4x8xf32> loc("neg")
  return %2 : tensor<4x8xf32>
}

// -----

// A gather that upsamples (its result bigger than its input: a Resize
// axis) reads elements more than once, so it takes no producer (it would be
// recomputed per read); a gather that picks fewer elements does.
// CHECK-LABEL: func.func @upsampling_gather
// CHECK: %[[T:.+]] = tandem.fusion loop "fusion.tanh"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tandem.tanh
// CHECK-NEXT: tandem.yield
// CHECK: tandem.fusion loop "fusion.up"(%[[T]]
// CHECK: tandem.gather
// CHECK-NEXT: tandem.yield
// CHECK-LABEL: func.func @picking_gather
// CHECK: tandem.fusion loop "fusion.pick"(%arg0
// CHECK: tandem.tanh
// CHECK-NEXT: tandem.gather
func.func @upsampling_gather(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  %i = tandem.constant dense<[0, 0, 1, 1, 2, 2, 3, 3]> : tensor<8xi64>
  %0 = tandem.tanh %x : tensor<2x4xf32> loc("tanh")
  %1 = tandem.gather %0, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<8xi64>) -> tensor<2x8xf32> loc("up")
  return %1 : tensor<2x8xf32>
}
func.func @picking_gather(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %i = tandem.constant dense<[3, 0]> : tensor<2xi64>
  %0 = tandem.tanh %x : tensor<2x4xf32> loc("tanh")
  %1 = tandem.gather %0, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x2xf32> loc("pick")
  return %1 : tensor<2x2xf32>
}
