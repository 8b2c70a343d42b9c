// A conv block with node names, for the fusion flag tests.
func.func @conv_block(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                      %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tandem.conv2d %x, %w, %b {dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> loc("/block/conv/Conv")
  %1 = tandem.relu %0 : tensor<1x4x6x6xf32> loc("/block/relu/Relu")
  return %1 : tensor<1x4x6x6xf32>
}
