// A tiny tandem program for the driver tests.
func.func @block(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tandem.reshape %x {shape = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = tandem.relu %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
