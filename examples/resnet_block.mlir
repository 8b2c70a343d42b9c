// A ResNet basic block (conv-bn-relu, conv-bn, residual add, relu) written in
// the tandem dialect, as the ONNX importer will produce it. scripts/demo.sh
// runs it through tandem-opt.
func.func @resnet_block(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w1 = tandem.constant dense_resource<conv1_weight> : tensor<64x64x3x3xf32>
  %w2 = tandem.constant dense_resource<conv2_weight> : tensor<64x64x3x3xf32>
  %scale = tandem.constant dense<1.0> : tensor<64xf32>
  %shift = tandem.constant dense<0.0> : tensor<64xf32>
  %mean = tandem.constant dense<0.0> : tensor<64xf32>
  %var = tandem.constant dense<1.0> : tensor<64xf32>
  %c1 = tandem.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
      : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> loc("layer1.0.conv1")
  %b1 = tandem.batch_norm %c1, %scale, %shift, %mean, %var
      : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32> loc("layer1.0.bn1")
  %r1 = tandem.relu %b1 : tensor<1x64x56x56xf32> loc("layer1.0.relu")
  %c2 = tandem.conv2d %r1, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
      : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> loc("layer1.0.conv2")
  %b2 = tandem.batch_norm %c2, %scale, %shift, %mean, %var
      : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32> loc("layer1.0.bn2")
  // A reshape pair that canonicalisation removes.
  %f = tandem.reshape %b2 {shape = array<i64: 1, 64, 3136>} : tensor<1x64x56x56xf32> -> tensor<1x64x3136xf32>
  %u = tandem.reshape %f {shape = array<i64: 1, 64, 56, 56>} : tensor<1x64x3136xf32> -> tensor<1x64x56x56xf32>
  %sum = tandem.add %u, %x : (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> loc("layer1.0.add")
  %y = tandem.relu %sum : tensor<1x64x56x56xf32> loc("layer1.0.relu_1")
  return %y : tensor<1x64x56x56xf32>
}

{-#
  dialect_resources: {
    builtin: {
      conv1_weight: "0x04000000",
      conv2_weight: "0x04000000"
    }
  }
#-}
