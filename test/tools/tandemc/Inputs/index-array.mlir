func.func @f(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = tandem.reshape %x {shape = array<index>} : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
