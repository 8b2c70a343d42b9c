// The same op flips device when the device description changes: over a fast
// link the matmul is worth the copies, over a slow one it is not.
// RUN: tandem-opt %s -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic" | FileCheck %s --check-prefix=FAST
// RUN: tandem-opt %s -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic device-config=%S/Inputs/slow-link.json" | FileCheck %s --check-prefix=SLOW
// A faster host CPU has the same effect.
// RUN: tandem-opt %s -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic device-config=%S/Inputs/fast-cpu.json" | FileCheck %s --check-prefix=SLOW

// FAST: tandem.matmul {{.*}}#tandem.device<"/device:GPU:0">
// SLOW: tandem.matmul {{.*}}#tandem.device<"/device:CPU:0">
func.func @matmul(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %w = tandem.constant dense<0.5> : tensor<512x512xf32>
  %0 = tandem.matmul %x, %w : (tensor<64x512xf32>, tensor<512x512xf32>) -> tensor<64x512xf32>
  return %0 : tensor<64x512xf32>
}
