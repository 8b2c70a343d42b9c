// RUN: tandem-opt %s -split-input-file -tandem-lower-host-schedule -verify-diagnostics

func.func @unplanned() {
  // expected-error @+1 {{has no offset: run tandem-plan-device-memory first}}
  %0 = tandem_exec.alloc : memref<4xf32, #tandem.device<"/device:GPU:0">>
  return
}

// -----

func.func @foreign_event(%e: !tandem_exec.event) {
  // expected-error @+1 {{waits for an event no earlier record defines}}
  tandem_exec.host_wait %e
  return
}
