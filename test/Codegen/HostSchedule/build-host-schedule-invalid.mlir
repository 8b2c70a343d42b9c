// RUN: tandem-opt %s -split-input-file -tandem-build-host-schedule -verify-diagnostics

// A GPU partition may only allocate, read weights and call kernels.

func.func private @m_p0_gpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  // expected-error @+1 {{cannot be scheduled: GPU partition '@m_p0_gpu0' may only allocate buffers, read weights and call kernels}}
  linalg.abs ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
func.func @m(%x: memref<4xf32>, %y: memref<4xf32>) {
  %xd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %yd = memref.alloc() : memref<4xf32>
  call @m_p0_gpu0(%xd, %yd) : (memref<4xf32>, memref<4xf32>) -> ()
  tandem_exec.transfer %yd, %y : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  return
}

// -----

// A kernel call needs its launch geometry.

func.func private @k(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel}
func.func private @m_p0_gpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  // expected-error @+1 {{in GPU partition '@m_p0_gpu0' must call a 'tandem.kernel' function and carry 'tandem.launch_dims' (6 values)}}
  call @k(%a, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func @m(%x: memref<4xf32>, %y: memref<4xf32>) {
  %xd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %yd = memref.alloc() : memref<4xf32>
  call @m_p0_gpu0(%xd, %yd) : (memref<4xf32>, memref<4xf32>) -> ()
  tandem_exec.transfer %yd, %y : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  return
}

// -----

// A GPU partition reads device buffers only: a host argument must come
// through a transfer.

func.func private @k(%a: memref<4xf32>) attributes {tandem.kernel}
func.func private @m_p0_gpu0(%a: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  call @k(%a) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>) -> ()
  return
}
func.func @m(%x: memref<4xf32>) {
  // expected-error @+1 {{uses a device buffer that is not allocated in '@m' (a function argument or a view): pass it through a tandem.transfer}}
  call @m_p0_gpu0(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// Host code may not touch a buffer that lives on the GPU.

func.func private @k(%a: memref<4xf32>) attributes {tandem.kernel}
func.func private @m_p0_gpu0(%a: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  call @k(%a) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>) -> ()
  return
}
func.func @m(%x: memref<4xf32>) {
  %xd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  call @m_p0_gpu0(%xd) : (memref<4xf32>) -> ()
  // expected-error @+1 {{uses a buffer that lives on the GPU: only transfers and GPU partitions may}}
  linalg.abs ins(%xd : memref<4xf32>) outs(%x : memref<4xf32>)
  return
}
