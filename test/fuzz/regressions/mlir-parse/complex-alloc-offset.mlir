func.func @f() {
  %0 = tandem_exec.alloc {offset = 9223372036854775807 : i64} : memref<4xcomplex<f32>, #tandem.device<"/device:GPU:0">>
  return
}
