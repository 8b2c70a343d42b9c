// Bad options get clear errors.
// RUN: not tandem-opt %s -tandem-place="targets=cpu,tpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not tandem-opt %s -tandem-place="targets=cpu,gpu:sm_70" 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not tandem-opt %s -tandem-place="cpu-model=pentium" 2>&1 | FileCheck %s --check-prefix=PRESET
// RUN: not tandem-opt %s -tandem-place="pins=nodevice" 2>&1 | FileCheck %s --check-prefix=PIN
// RUN: not tandem-opt %s -tandem-place="pins=x=/device:TPU:0" 2>&1 | FileCheck %s --check-prefix=PINDEV
// RUN: not tandem-opt %s -tandem-place="device-config=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not tandem-opt %s -tandem-place="targets=cpu,gpu device-config=%S/Inputs/bad-field.json" 2>&1 | FileCheck %s --check-prefix=FIELD
// RUN: not tandem-opt %s -tandem-place="targets=cpu device-config=%S/Inputs/slow-link.json" 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: tandem-opt %s -tandem-place="pins=nothing*=cpu" 2>&1 >/dev/null | FileCheck %s --check-prefix=UNUSED

// TARGET: error: tandem-place: unknown target 'tpu' (expected 'cpu' or 'gpu:<arch or part>', e.g. gpu:sm_90)
// ARCH: error: tandem-place: unknown GPU 'sm_70' in target 'gpu:sm_70' (expected one of: h100, h200, a100, l4, sm_90, sm_80, sm_89)
// PRESET: error: tandem-place: unknown CPU preset 'pentium' (expected one of: host, generic, xeon-8480, epyc-9654, grace)
// PIN: error: tandem-place: malformed pin 'nodevice' (expected GLOB=DEVICE, e.g. 'classifier*=/device:CPU:0')
// PINDEV: error: tandem-place: pin 'x=/device:TPU:0': invalid device '/device:TPU:0': expected '/device:CPU:<n>' or '/device:GPU:<n>'
// NOFILE: error: tandem-place: cannot read device config '{{.*}}missing.json': No such file or directory
// FIELD: error: {{.*}}bad-field.json: gpu.peak: unknown field (expected vector_gflops,
// NODEV: error: {{.*}}slow-link.json: /device:GPU:0: the target has no such device
// UNUSED: warning: pin 'nothing*=cpu' matches no op
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
