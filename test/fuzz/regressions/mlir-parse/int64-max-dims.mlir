func.func @f(%x: tensor<9223372036854775807x2xf32>) -> tensor<9223372036854775807x2xf32> {
  %0 = tandem.relu %x : tensor<9223372036854775807x2xf32>
  return %0 : tensor<9223372036854775807x2xf32>
}
