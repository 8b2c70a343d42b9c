// RUN: tandem-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs=1 modify-public-functions=1},canonicalize)' | FileCheck %s --check-prefix=BUF
// RUN: tandem-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs=1 modify-public-functions=1},canonicalize,tandem-build-host-schedule,tandem-plan-device-memory,tandem-plan-memory,buffer-deallocation-pipeline)' | FileCheck %s

// tandem.transfer bufferises into a fresh buffer per input, filled by a
// tandem_exec.transfer; the schedule, the device plan, the host plan and
// bufferisation's deallocation then run over the result (the driver's pass
// order for models with GPU partitions).

// BUF-LABEL: func.func @round_trip(
// BUF-SAME:    %[[X:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4xf32>)
// BUF:         %[[D:.+]] = memref.alloc() : memref<4xf32>
// BUF-NEXT:    tandem_exec.transfer %[[X]], %[[D]] : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
// The download writes the output argument directly.
// BUF-NEXT:    tandem_exec.transfer %[[D]], %[[Y]] : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">

// CHECK-LABEL: func.func @round_trip(
// CHECK-SAME:    %[[X:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4xf32>)
// CHECK-SAME:    tandem_exec.device_arena_bytes = array<i64: 256>
// CHECK-NEXT:    %[[D:.+]] = tandem_exec.alloc {offset = 0 : i64}
// CHECK-NEXT:    tandem_exec.copy %[[X]], %[[D]] on h2d bytes 16
// CHECK:         tandem_exec.copy %[[D]], %[[Y]] on d2h bytes 16
// CHECK:         tandem_exec.host_wait
// CHECK-NEXT:    return
// CHECK-NOT:   memref.dealloc

func.func @round_trip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = tandem.transfer %x from "/device:CPU:0" to "/device:GPU:0" : tensor<4xf32>
  %h = tandem.transfer %d from "/device:GPU:0" to "/device:CPU:0" : tensor<4xf32>
  return %h : tensor<4xf32>
}
